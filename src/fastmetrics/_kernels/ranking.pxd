# Layout of the statistics row the ranking kernels write for one binary problem, read by
# Python as ``ranking.NPOS`` etc.
cpdef enum:
    NPOS = 0    # samples with y == pos (any weight, zero included)
    NNEG = 1    # samples counted as negative (any weight)
    P = 2       # total positive weight
    N = 3       # total negative weight
    AUC2 = 4    # sum q * (tp_before + tp_after)
    AP = 5      # sum p * tp / (tp + fp)
    NTHR = 6    # number of distinct thresholds (non-zero-weight samples)
    N_STATS = 7

# Kinds of bad input reported in ``bad[2]``.
cpdef enum:
    BAD_SCORE = 0    # a score is NaN or infinite
    BAD_WEIGHT = 1   # a weight is NaN or infinite
