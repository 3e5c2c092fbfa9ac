# distutils: sources = csrc/fm_select.c
# cython: language_level=3
"""Exact order statistics (selection) kernels over ``csrc/fm_select.c``.

``select`` reads a 1-D array of any stride (read-only is fine) and returns the values at a
sorted set of ranks, NaNs sorting last as in numpy's partition. It never copies the input:
up to ``cap`` keys it works on a copy of the keys; above that it runs radix passes with a
scratch buffer of ``cap`` keys plus a fixed ~2.3 MB workspace, so memory does not grow with N.

``latency_summary`` is the small-input path of :func:`fastmetrics.timing.latency_stats`:
p50/p95/p99 with numpy's default ('linear') interpolation, bit for bit, plus mean, min and
max, in one call.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.math cimport floor
from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t)

cdef extern from "fm_select.h" nogil:
    ctypedef enum fm_dtype:
        FM_INT8
        FM_INT16
        FM_INT32
        FM_INT64
        FM_UINT8
        FM_UINT16
        FM_UINT32
        FM_UINT64
        FM_FLOAT32
        FM_FLOAT64
    int64_t FM_SEL_DEFAULT_CAP
    size_t fm_sel_work_bytes()
    int fm_select(fm_dtype dt, const char *data, Py_ssize_t stride, int64_t n,
                  const int64_t *ranks, int64_t m, uint64_t *keys, void *out, int64_t *n_nan,
                  uint64_t *scratch, int64_t cap, void *work)
    void fm_sel_nth_u64(uint64_t *a, int64_t n, int64_t k)

ctypedef fused value_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double

DEFAULT_CAP = FM_SEL_DEFAULT_CAP
WORK_BYTES = fm_sel_work_bytes()

# Inputs up to this many elements use stack buffers: no allocation at all.
DEF SMALL = 512


def select(const value_t[:] a, const int64_t[::1] ranks, value_t[::1] out,
           int64_t cap=FM_SEL_DEFAULT_CAP):
    """Write the ``ranks[j]``-th smallest value of ``a`` into ``out[j]``; return the NaN count.

    ``ranks`` must be strictly increasing and inside ``[0, len(a))``; ``cap`` bounds the
    scratch buffer in keys (tests lower it to exercise the radix passes on small inputs).
    """
    cdef int64_t n = a.shape[0]
    cdef int64_t m = ranks.shape[0]
    cdef int64_t n_nan = 0
    cdef int64_t j
    cdef int rc
    cdef fm_dtype dt
    cdef uint64_t small_keys[SMALL]
    cdef uint64_t small_scratch[SMALL]
    cdef uint64_t *keys = small_keys
    cdef uint64_t *scratch = small_scratch
    cdef void *work = NULL
    cdef const char *data
    cdef Py_ssize_t stride
    if value_t is int8_t:
        dt = FM_INT8
    elif value_t is int16_t:
        dt = FM_INT16
    elif value_t is int32_t:
        dt = FM_INT32
    elif value_t is int64_t:
        dt = FM_INT64
    elif value_t is uint8_t:
        dt = FM_UINT8
    elif value_t is uint16_t:
        dt = FM_UINT16
    elif value_t is uint32_t:
        dt = FM_UINT32
    elif value_t is uint64_t:
        dt = FM_UINT64
    elif value_t is float:
        dt = FM_FLOAT32
    else:
        dt = FM_FLOAT64
    if n < 1:
        raise ValueError("select: empty input")
    if out.shape[0] != m:
        raise ValueError("select: out and ranks differ in length")
    if cap < 1:
        raise ValueError("select: cap must be >= 1")
    for j in range(m):
        if ranks[j] < 0 or ranks[j] >= n or (j > 0 and ranks[j] <= ranks[j - 1]):
            raise ValueError("select: ranks must be strictly increasing and inside [0, n)")
    if m == 0:
        return 0
    if cap > n:
        cap = n
    try:
        if m > SMALL:
            keys = <uint64_t *>PyMem_Malloc(m * sizeof(uint64_t))
        if cap > SMALL:
            scratch = <uint64_t *>PyMem_Malloc(cap * sizeof(uint64_t))
        if cap < n:
            work = PyMem_Malloc(fm_sel_work_bytes())
        if keys == NULL or scratch == NULL or (cap < n and work == NULL):
            raise MemoryError()
        data = <const char *>&a[0]
        stride = a.strides[0]
        with nogil:
            rc = fm_select(dt, data, stride, n, &ranks[0], m, keys, &out[0], &n_nan,
                           scratch, cap, work)
    finally:
        if keys != small_keys:
            PyMem_Free(keys)
        if scratch != small_scratch:
            PyMem_Free(scratch)
        PyMem_Free(work)
    if rc != 0:  # pragma: no cover - arguments were checked above
        raise ValueError("select: inconsistent arguments")
    return n_nan


ctypedef fused sample_t:
    int64_t
    double


cdef inline double _lerp(sample_t lo, sample_t hi, double t) noexcept nogil:
    # numpy's _lerp: a + (b - a) * t, or b - (b - a) * (1 - t) when t >= 0.5; b - a is
    # computed in the input type, as numpy does.
    cdef sample_t diff = hi - lo
    if t >= 0.5:
        return <double>hi - <double>diff * (1.0 - t)
    return <double>lo + <double>diff * t


def latency_summary(const sample_t[:] a):
    """(p50, p95, p99, mean, min, max) of ``a`` as floats, or None when ``a`` holds a NaN.

    The percentiles equal ``np.percentile(a, [50, 95, 99])`` bit for bit. The mean sums
    integers exactly (in int64), floats in order.
    """
    cdef int64_t n = a.shape[0]
    cdef double qs[3]
    cdef double vi[3]
    cdef int64_t lo_i[3]
    cdef int64_t hi_i[3]
    cdef int64_t ranks[8]
    cdef uint64_t keys[8]
    cdef sample_t vals[8]
    cdef double res[3]
    cdef int64_t m = 0, n_nan = 0, i, j, k
    cdef int64_t isum = 0
    cdef double fsum = 0.0, mean, t
    cdef int rc = 0
    cdef fm_dtype dt = FM_INT64 if sample_t is int64_t else FM_FLOAT64
    cdef uint64_t small_scratch[SMALL]
    cdef uint64_t *scratch = small_scratch
    cdef void *work = NULL
    cdef int64_t cap = n
    if n < 1:
        raise ValueError("latency_summary: empty input")
    qs[0] = 50.0 / 100.0
    qs[1] = 95.0 / 100.0
    qs[2] = 99.0 / 100.0
    if cap > FM_SEL_DEFAULT_CAP:
        cap = FM_SEL_DEFAULT_CAP
    if cap > SMALL:
        scratch = <uint64_t *>PyMem_Malloc(cap * sizeof(uint64_t))
    if cap < n:
        work = PyMem_Malloc(fm_sel_work_bytes())
    if scratch == NULL or (cap < n and work == NULL):
        if scratch != small_scratch:
            PyMem_Free(scratch)
        PyMem_Free(work)
        raise MemoryError()
    with nogil:
        # numpy's virtual index (n - 1) * q and its neighbours, clamped the way numpy does
        for i in range(3):
            vi[i] = <double>(n - 1) * qs[i]
            if vi[i] >= <double>(n - 1):
                lo_i[i] = n - 1
                hi_i[i] = n - 1
            else:
                lo_i[i] = <int64_t>floor(vi[i])
                hi_i[i] = lo_i[i] + 1
        # sorted unique ranks: min, the six neighbours, max
        ranks[0] = 0
        ranks[1] = n - 1
        for i in range(3):
            ranks[2 + 2 * i] = lo_i[i]
            ranks[3 + 2 * i] = hi_i[i]
        for i in range(1, 8):
            k = ranks[i]
            j = i - 1
            while j >= 0 and ranks[j] > k:
                ranks[j + 1] = ranks[j]
                j -= 1
            ranks[j + 1] = k
        m = 1
        for i in range(1, 8):
            if ranks[i] != ranks[m - 1]:
                ranks[m] = ranks[i]
                m += 1
        rc = fm_select(dt, <const char *>&a[0], a.strides[0], n, ranks, m, keys, vals, &n_nan,
                       scratch, cap, work)
        if sample_t is int64_t:
            for i in range(n):
                isum += a[i]
            mean = <double>isum / <double>n
        else:
            for i in range(n):
                fsum += a[i]
            mean = fsum / <double>n
        for i in range(3):
            j = 0
            while ranks[j] != lo_i[i]:
                j += 1
            k = j
            while ranks[k] != hi_i[i]:
                k += 1
            # numpy's gamma: vi - previous index, where the previous index of a virtual
            # index at or past the end is -1
            t = vi[i] - <double>(lo_i[i] if hi_i[i] != lo_i[i] else -1)
            res[i] = _lerp(vals[j], vals[k], t)
    if scratch != small_scratch:
        PyMem_Free(scratch)
    PyMem_Free(work)
    if rc != 0:  # pragma: no cover
        raise ValueError("latency_summary: inconsistent arguments")
    if n_nan:
        return None
    return (res[0], res[1], res[2], mean, <double>vals[0], <double>vals[m - 1])


def nth_u64(uint64_t[::1] a, int64_t k):
    """Test hook: ``fm_sel_nth_u64`` in place on ``a``."""
    if not 0 <= k < a.shape[0]:
        raise ValueError("nth_u64: k out of range")
    fm_sel_nth_u64(&a[0], a.shape[0], k)
