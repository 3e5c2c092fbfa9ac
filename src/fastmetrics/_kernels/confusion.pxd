# Kinds of bad input the weighted counting kernel reports in ``bad[lane, 1]`` (1 and 2 as in
# csrc/fm_count.h), read by Python as ``confusion.BAD_WEIGHT`` etc.
cpdef enum:
    BAD_TRUE = 1
    BAD_PRED = 2
    BAD_WEIGHT = 3
