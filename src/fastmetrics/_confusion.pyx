# cython: language_level=3
"""Confusion counting kernels.

One pass over ``y_true`` / ``y_pred`` (and optional weights) fills a *state*: a dense K x K
table over the label values ``lo .. lo + K - 1``. The range check is fused into the same pass:
a value outside the table stops the lane and reports where, so nothing is ever written out of
bounds and the Python layer decides what to do (widen the table, or raise).

Large inputs are cut into ``n_lanes`` contiguous lanes. Each lane owns a private table; the
caller sums the lane tables in lane order. ``n_lanes`` depends only on N and K, never on the
number of threads, so float sums are bit-for-bit the same for any thread count.
"""

from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t)
from cython.parallel cimport prange

ctypedef fused label_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t

ctypedef fused weight_t:
    float
    double

# Error kinds written to ``bad[lane, 1]``.
cdef enum:
    BAD_TRUE = 1
    BAD_PRED = 2
    BAD_WEIGHT = 3


cdef inline Py_ssize_t _lane_start(Py_ssize_t n, Py_ssize_t n_lanes, Py_ssize_t lane) noexcept nogil:
    # n < 2**63 / 64 lanes, so the product cannot overflow.
    return <Py_ssize_t>((<int64_t>n * lane) // n_lanes)


cdef void _count_lane(const label_t* yt, Py_ssize_t st, const label_t* yp, Py_ssize_t sp,
                      Py_ssize_t start, Py_ssize_t stop, uint64_t lo, int shift, int64_t* table,
                      int64_t* bad) noexcept nogil:
    """Unweighted counts of one lane into a (2**shift)**2 table (times 4 banks).

    Four interleaved banks break the store-to-load dependency when consecutive samples hit
    the same cell (the common, skewed case). Since k = 2**shift, one OR of the four offsets
    checks all eight values at once."""
    cdef Py_ssize_t i
    cdef uint64_t a0, b0, a1, b1, a2, b2, a3, b3
    cdef uint64_t k = (<uint64_t>1) << shift
    cdef uint64_t kk = k * k
    cdef int64_t* bank1 = table + kk
    cdef int64_t* bank2 = table + 2 * kk
    cdef int64_t* bank3 = table + 3 * kk
    i = start
    while i + 3 < stop:
        # Modular arithmetic: v - lo < k exactly when lo <= v < lo + k, for any int type.
        a0 = <uint64_t>yt[(i) * st] - lo
        b0 = <uint64_t>yp[(i) * sp] - lo
        a1 = <uint64_t>yt[(i + 1) * st] - lo
        b1 = <uint64_t>yp[(i + 1) * sp] - lo
        a2 = <uint64_t>yt[(i + 2) * st] - lo
        b2 = <uint64_t>yp[(i + 2) * sp] - lo
        a3 = <uint64_t>yt[(i + 3) * st] - lo
        b3 = <uint64_t>yp[(i + 3) * sp] - lo
        if ((a0 | b0 | a1 | b1 | a2 | b2 | a3 | b3) >> shift) != 0:
            break
        table[(a0 << shift) | b0] += 1
        bank1[(a1 << shift) | b1] += 1
        bank2[(a2 << shift) | b2] += 1
        bank3[(a3 << shift) | b3] += 1
        i += 4
    while i < stop:
        a0 = <uint64_t>yt[(i) * st] - lo
        b0 = <uint64_t>yp[(i) * sp] - lo
        if a0 >= k:
            bad[0] = i
            bad[1] = BAD_TRUE
            return
        if b0 >= k:
            bad[0] = i
            bad[1] = BAD_PRED
            return
        table[(a0 << shift) | b0] += 1
        i += 1


cdef void _count_lane_weighted(const label_t[:] yt, const label_t[:] yp,
                               const weight_t[:] w, Py_ssize_t start, Py_ssize_t stop,
                               uint64_t lo, uint64_t k, double* table, int64_t* seen,
                               int64_t* bad) noexcept nogil:
    """Weighted sums of one lane, plus per-value occurrence counts (a label with only
    zero-weight samples is still a present label, as in scikit-learn)."""
    cdef Py_ssize_t i
    cdef uint64_t a, b
    cdef double wi
    for i in range(start, stop):
        a = <uint64_t>yt[i] - lo
        b = <uint64_t>yp[i] - lo
        wi = <double>w[i]
        if a >= k:
            bad[0] = i
            bad[1] = BAD_TRUE
            return
        if b >= k:
            bad[0] = i
            bad[1] = BAD_PRED
            return
        if wi - wi != 0.0:  # NaN or +/-inf
            bad[0] = i
            bad[1] = BAD_WEIGHT
            return
        table[a * k + b] += wi
        seen[a] += 1
        seen[k + b] += 1


def count(const label_t[:] y_true, const label_t[:] y_pred, uint64_t lo, int shift,
          int64_t[:, ::1] tables, int64_t[:, ::1] bad, int n_threads):
    """Fill ``tables[lane]`` (shape (n_lanes, 4*k*k) with k = 2**shift: four banks per lane)
    with the counts of pairs whose values lie in ``lo .. lo+k-1``. ``bad[lane] = (index, kind)`` marks the first
    value out of range in a lane (index -1 if none); the caller must check it."""
    cdef Py_ssize_t n = y_true.shape[0]
    cdef Py_ssize_t n_lanes = tables.shape[0]
    cdef Py_ssize_t lane
    if n == 0:
        return
    # element strides (numpy strides of these dtypes are multiples of the item size)
    cdef Py_ssize_t st = y_true.strides[0] // <Py_ssize_t>sizeof(label_t)
    cdef Py_ssize_t sp = y_pred.strides[0] // <Py_ssize_t>sizeof(label_t)
    if (shift < 0 or shift > 15 or y_pred.shape[0] != n or bad.shape[0] != n_lanes
            or tables.shape[1] < (<Py_ssize_t>4) << (2 * shift)):
        raise ValueError("count: inconsistent shapes")
    with nogil:
        if n_threads <= 1 or n_lanes == 1:
            for lane in range(n_lanes):
                _count_lane(&y_true[0], st, &y_pred[0], sp, _lane_start(n, n_lanes, lane),
                            _lane_start(n, n_lanes, lane + 1), lo, shift, &tables[lane, 0], &bad[lane, 0])
        else:
            for lane in prange(n_lanes, num_threads=n_threads, schedule="static"):
                _count_lane(&y_true[0], st, &y_pred[0], sp, _lane_start(n, n_lanes, lane),
                            _lane_start(n, n_lanes, lane + 1), lo, shift, &tables[lane, 0], &bad[lane, 0])


def count_weighted(const label_t[:] y_true, const label_t[:] y_pred,
                   const weight_t[:] sample_weight, uint64_t lo, uint64_t k,
                   double[:, ::1] tables, int64_t[:, ::1] seen, int64_t[:, ::1] bad,
                   int n_threads):
    """Weighted variant of :func:`count`: ``tables`` is (n_lanes, k*k) float64 sums of
    weights, ``seen`` is (n_lanes, 2*k) occurrence counts of each value in y_true then y_pred.
    Non-finite weights are reported in ``bad`` with kind 3."""
    cdef Py_ssize_t n = y_true.shape[0]
    cdef Py_ssize_t n_lanes = tables.shape[0]
    cdef Py_ssize_t lane
    if (y_pred.shape[0] != n or sample_weight.shape[0] != n or bad.shape[0] != n_lanes
            or seen.shape[0] != n_lanes or tables.shape[1] < <Py_ssize_t>(k * k)
            or seen.shape[1] < <Py_ssize_t>(2 * k)):
        raise ValueError("count_weighted: inconsistent shapes")
    with nogil:
        if n_threads <= 1 or n_lanes == 1:
            for lane in range(n_lanes):
                _count_lane_weighted(y_true, y_pred, sample_weight,
                                     _lane_start(n, n_lanes, lane),
                                     _lane_start(n, n_lanes, lane + 1), lo, k,
                                     &tables[lane, 0], &seen[lane, 0], &bad[lane, 0])
        else:
            for lane in prange(n_lanes, num_threads=n_threads, schedule="static"):
                _count_lane_weighted(y_true, y_pred, sample_weight,
                                     _lane_start(n, n_lanes, lane),
                                     _lane_start(n, n_lanes, lane + 1), lo, k,
                                     &tables[lane, 0], &seen[lane, 0], &bad[lane, 0])


def minmax(const label_t[:] a, Py_ssize_t stop):
    """(min, max) of ``a[:stop]`` as Python ints; ``stop`` must be >= 1."""
    cdef Py_ssize_t i, n = min(stop, a.shape[0])
    cdef label_t lo, hi, v
    if n < 1:
        raise ValueError("minmax of an empty array")
    lo = a[0]
    hi = a[0]
    with nogil:
        for i in range(1, n):
            v = a[i]
            if v < lo:
                lo = v
            elif v > hi:
                hi = v
    return int(lo), int(hi)
