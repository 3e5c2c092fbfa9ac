# Slot layout of the label ranking sums (one row per lane, then the total).

cpdef enum:
    COVERAGE = 0   # sum of w * coverage (labels scored at least the lowest relevant one)
    LRAP = 1       # sum of w * label ranking average precision
    LOSS = 2       # sum of w * label ranking loss
    WEIGHT = 3     # sum of w (the number of rows unweighted)
    N_SUMS = 4

# what stopped a pass (0: nothing)
cpdef enum:
    BAD_LABEL = 1  # a label that is not 0 or 1
    BAD_SCORE = 2  # a score that is NaN or infinite
    NO_MEMORY = 3
