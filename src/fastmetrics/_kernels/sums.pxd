# Layout of the regression sums state that sums.pyx fills, read by Python as ``sums.W``
# etc.: the one definition of the slots of the float64 state array.
cpdef enum:
    W = 0       # sum of w
    ABS = 1     # sum of w * |e|                 (e = y_true - y_pred)
    SQ = 2      # sum of w * e**2
    APE = 3     # sum of w * |e| / max(|y_true|, eps64)    (only with FLAG_APE)
    HUBER = 4   # sum of w * huber_delta(e)                (only with FLAG_HUBER)
    MEAN = 5    # weighted mean of y_true
    M2 = 6      # sum of w * (y_true - MEAN)**2            (only with FLAG_R2)
    N = 7       # number of samples
    CONST = 8   # 1.0 when every y_true equals the first one (so M2 is exactly 0), else 0.0
    FIRST = 9   # the value of y_true when CONST is 1 (what CONST compares with), else 0
    MAXABS = 10  # max |e| over every sample, whatever its weight   (only with FLAG_MAX)
    MEANE = 11  # weighted mean of e                           (only with FLAG_EV)
    M2E = 12    # sum of w * (e - MEANE)**2                  (only with FLAG_EV)
    N_STATE = 13

# Optional sums, asked for with these bits of ``flags``.
cpdef enum:
    FLAG_APE = 1
    FLAG_HUBER = 2
    FLAG_R2 = 4
    FLAG_MAX = 8
    FLAG_EV = 16
