# Layout of the probability state that proba.pyx fills (LOSS and UNNORMED with k = 0,
# HITS and HITS0 with k > 0), read by Python as ``proba.W`` etc.:
# the one definition of the slots of the float64 sums array.
cpdef enum:
    W = 0           # sum of w
    LOSS = 1        # sum of w * -log(clip(p[true class], eps, 1 - eps))
    N = 2           # number of samples
    UNNORMED = 3    # rows whose sum is not close to 1 (scikit-learn's rtol=sqrt(eps), atol=1e-8)
    NAN = 4         # probabilities that are NaN
    HITS = 5        # top-k: sum of w * (class among the k best); binary: (p > 0.5) is right
    HITS0 = 6       # top-k, binary: sum of w * (p > 0 is right) (scores outside [0, 1])
    MAXP = 7        # the largest probability (-inf when none; NaN skipped)
    MINP = 8        # the smallest probability (+inf when none; NaN skipped)
    N_SUMS = 9
