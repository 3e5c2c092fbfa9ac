# Layout of the probability state that proba.pyx fills, read by Python as ``proba.W`` etc.:
# the one definition of the slots of the float64 sums array.
cpdef enum:
    W = 0           # sum of w
    LOSS = 1        # sum of w * -log(clip(p[true class], eps, 1 - eps))
    N = 2           # number of samples
    UNNORMED = 3    # rows whose sum is not close to 1 (scikit-learn's rtol=sqrt(eps), atol=1e-8)
    NAN = 4         # probabilities that are NaN
    MAXP = 5        # the largest probability (-inf when none; NaN skipped)
    MINP = 6        # the smallest probability (+inf when none; NaN skipped)
    N_SUMS = 7
