# Layout of the calibration state that bins.pyx fills, read by Python as ``bins.W`` etc.:
# the one definition of the columns of the (n_bins, N_COLS) per-bin array.
cpdef enum:
    W = 0       # sum of weights (the count when unweighted)
    SP = 1      # sum of w * confidence
    SY = 2      # sum of w * correctness
    SQ = 3      # sum of w * Brier term (only the column's total is meaningful)
    N = 4       # number of samples
    N_COLS = 5

# Kinds of bad input the kernels report (the Python layer words the error).
cpdef enum:
    BAD_PROB = 1      # probability outside [0, 1] or NaN
    BAD_WEIGHT = 2    # weight NaN or infinite
    BAD_LABEL = 3     # label outside 0 .. K-1 (top-label kernel)
    BAD_GROUP = 4     # group code outside 0 .. G-1 (grouped kernel)
