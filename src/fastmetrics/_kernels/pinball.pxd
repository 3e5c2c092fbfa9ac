# Layout of the pinball sums state that pinball.pyx fills, read by Python as ``pinball.W``
# etc.: the one definition of the slots of the float64 state array.
cpdef enum:
    W = 0       # sum of w
    OVER = 1    # sum of w * max(y_true - y_pred, 0)     (the part weighted by alpha)
    UNDER = 2   # sum of w * max(y_pred - y_true, 0)     (the part weighted by 1 - alpha)
    N = 3       # number of samples
    N_STATE = 4
