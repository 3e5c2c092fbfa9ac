# Shared declarations of the Cython kernels: the fused types for the dtypes users pass,
# and the lane split every parallel kernel uses (lanes depend on n only, never on threads).

from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t)

# class labels: every integer dtype (bool arrays arrive as a zero-copy uint8 view)
ctypedef fused label_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t

# a second integer type, independent of label_t, for an array read beside the labels
# (the group of each sample)
ctypedef fused group_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t

# sample weights
ctypedef fused weight_t:
    float
    double

# regression targets and predictions: two independent float types, so float32 targets
# beside float64 predictions are read as they are
ctypedef fused yt_t:
    float
    double

ctypedef fused yp_t:
    float
    double


cdef inline Py_ssize_t _lane_start(Py_ssize_t n, Py_ssize_t n_lanes,
                                   Py_ssize_t lane) noexcept nogil:
    """First index of ``lane`` when [0, n) is cut into ``n_lanes`` contiguous lanes
    (n < 2**63 / 64 lanes, so the product cannot overflow)."""
    return <Py_ssize_t>((<int64_t>n * lane) // n_lanes)
