# Layout of the deviance state that deviance.pyx fills, read by Python as ``deviance.W``
# etc.: the one definition of the slots of the float64 state array.
cpdef enum:
    W = 0       # sum of w
    N = 1       # number of samples
    DEV = 2     # sum of w * unit Tweedie deviance(y_true, y_pred); for the squared log
                # error: sum of w * (log1p(y_true) - log1p(y_pred))**2
    SY = 3      # sum of w * y_true                         (only with FLAG_D2)
    T = 4       # power < 0: sum of w * max(y_true, 0)**(2 - power), else 0 (only with FLAG_D2)
    MEAN = 5    # weighted mean of y_true                   (only with FLAG_D2)
    DM = 6      # sum of w * unit deviance(y_true, MEAN); NaN for power < 0 where a mean
                # is not positive                            (only with FLAG_D2)
    YMIN = 7    # smallest y_true (whatever its weight)     (only with FLAG_D2)
    YMAX = 8    # largest y_true                            (only with FLAG_D2)
    BAD = 9     # number of values outside the power's (the log's) domain
    N_STATE = 10

# Optional sums, asked for with these bits of ``flags``.
cpdef enum:
    FLAG_D2 = 1

# How the unit deviance is computed (scikit-learn's cases of the power).
cpdef enum:
    FORM_EXTREME = 0    # power < 0
    FORM_NORMAL = 1     # power 0
    FORM_POISSON = 2    # power 1
    FORM_COMPOUND = 3   # 1 < power < 2
    FORM_GAMMA = 4      # power 2
    FORM_POSITIVE = 5   # power > 2
