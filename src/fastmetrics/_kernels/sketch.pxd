# Layout of the quantile sketch's meta array that sketch.pyx keeps, read by Python as
# ``sketch.POS_HI`` etc.: per store (positive, then negative) its highest bucket and its
# count, the zero count, then each store's lowest bucket ever seen.
cpdef enum:
    POS_HI = 0
    POS_N = 1
    NEG_HI = 2
    NEG_N = 3
    ZEROS = 4
    POS_LO = 5
    NEG_LO = 6
    N_META = 7
