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
from .common cimport group_t, label_t, weight_t, _lane_start
from cython.parallel cimport prange



# Error kinds written to ``bad[lane, 1]`` (BAD_TRUE, BAD_PRED, BAD_WEIGHT): confusion.pxd.


cdef extern from "fm_count.h" nogil:
    int64_t fm_occurring(const int64_t*, int64_t, int64_t*)
    void fm_gather(const int64_t*, int64_t, const int64_t*, int64_t, int64_t*, unsigned char*)
    void fm_count_i8(const int8_t*, Py_ssize_t, const int8_t*, Py_ssize_t, Py_ssize_t,
                     Py_ssize_t, uint64_t, int, int64_t*, int64_t*)
    void fm_count_i16(const int16_t*, Py_ssize_t, const int16_t*, Py_ssize_t, Py_ssize_t,
                      Py_ssize_t, uint64_t, int, int64_t*, int64_t*)
    void fm_count_i32(const int32_t*, Py_ssize_t, const int32_t*, Py_ssize_t, Py_ssize_t,
                      Py_ssize_t, uint64_t, int, int64_t*, int64_t*)
    void fm_count_i64(const int64_t*, Py_ssize_t, const int64_t*, Py_ssize_t, Py_ssize_t,
                      Py_ssize_t, uint64_t, int, int64_t*, int64_t*)
    void fm_count_u8(const uint8_t*, Py_ssize_t, const uint8_t*, Py_ssize_t, Py_ssize_t,
                     Py_ssize_t, uint64_t, int, int64_t*, int64_t*)
    void fm_count_u16(const uint16_t*, Py_ssize_t, const uint16_t*, Py_ssize_t, Py_ssize_t,
                      Py_ssize_t, uint64_t, int, int64_t*, int64_t*)
    void fm_count_u32(const uint32_t*, Py_ssize_t, const uint32_t*, Py_ssize_t, Py_ssize_t,
                      Py_ssize_t, uint64_t, int, int64_t*, int64_t*)
    void fm_count_u64(const uint64_t*, Py_ssize_t, const uint64_t*, Py_ssize_t, Py_ssize_t,
                      Py_ssize_t, uint64_t, int, int64_t*, int64_t*)
    void fm_minmax_i8(const int8_t*, Py_ssize_t, Py_ssize_t, int8_t*, int8_t*)
    void fm_minmax_i16(const int16_t*, Py_ssize_t, Py_ssize_t, int16_t*, int16_t*)
    void fm_minmax_i32(const int32_t*, Py_ssize_t, Py_ssize_t, int32_t*, int32_t*)
    void fm_minmax_i64(const int64_t*, Py_ssize_t, Py_ssize_t, int64_t*, int64_t*)
    void fm_minmax_u8(const uint8_t*, Py_ssize_t, Py_ssize_t, uint8_t*, uint8_t*)
    void fm_minmax_u16(const uint16_t*, Py_ssize_t, Py_ssize_t, uint16_t*, uint16_t*)
    void fm_minmax_u32(const uint32_t*, Py_ssize_t, Py_ssize_t, uint32_t*, uint32_t*)
    void fm_minmax_u64(const uint64_t*, Py_ssize_t, Py_ssize_t, uint64_t*, uint64_t*)


cdef inline void _minmax_of(const label_t[:] a, Py_ssize_t stop, label_t* lo,
                            label_t* hi) noexcept nogil:
    """Least and greatest of a[:stop], stop >= 1 (csrc/fm_count.h)."""
    cdef Py_ssize_t s = a.strides[0]
    if label_t is int8_t:
        fm_minmax_i8(&a[0], s, stop, lo, hi)
    elif label_t is int16_t:
        fm_minmax_i16(&a[0], s, stop, lo, hi)
    elif label_t is int32_t:
        fm_minmax_i32(&a[0], s, stop, lo, hi)
    elif label_t is int64_t:
        fm_minmax_i64(&a[0], s, stop, lo, hi)
    elif label_t is uint8_t:
        fm_minmax_u8(&a[0], s, stop, lo, hi)
    elif label_t is uint16_t:
        fm_minmax_u16(&a[0], s, stop, lo, hi)
    elif label_t is uint32_t:
        fm_minmax_u32(&a[0], s, stop, lo, hi)
    else:
        fm_minmax_u64(&a[0], s, stop, lo, hi)


cdef inline void _count_lane(const label_t* yt, Py_ssize_t st, const label_t* yp,
                             Py_ssize_t sp, Py_ssize_t start, Py_ssize_t stop, uint64_t lo,
                             int shift, int64_t* table, int64_t* bad) noexcept nogil:
    """Unweighted counts of one lane into four banks of a (2**shift)**2 table (csrc/fm_count.h)."""
    if label_t is int8_t:
        fm_count_i8(yt, st, yp, sp, start, stop, lo, shift, table, bad)
    elif label_t is int16_t:
        fm_count_i16(yt, st, yp, sp, start, stop, lo, shift, table, bad)
    elif label_t is int32_t:
        fm_count_i32(yt, st, yp, sp, start, stop, lo, shift, table, bad)
    elif label_t is int64_t:
        fm_count_i64(yt, st, yp, sp, start, stop, lo, shift, table, bad)
    elif label_t is uint8_t:
        fm_count_u8(yt, st, yp, sp, start, stop, lo, shift, table, bad)
    elif label_t is uint16_t:
        fm_count_u16(yt, st, yp, sp, start, stop, lo, shift, table, bad)
    elif label_t is uint32_t:
        fm_count_u32(yt, st, yp, sp, start, stop, lo, shift, table, bad)
    else:
        fm_count_u64(yt, st, yp, sp, start, stop, lo, shift, table, bad)


cdef void _count_lane_weighted(const label_t[:] yt, const label_t[:] yp,
                               const weight_t[:] w, Py_ssize_t start, Py_ssize_t stop,
                               uint64_t lo, uint64_t k, double* table, int64_t* seen,
                               double* margins, int64_t* bad) noexcept nogil:
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
        # per-label weight sums in input order (what np.bincount(weights=) computes)
        margins[a] += wi
        margins[k + b] += wi


def count_weighted(const label_t[:] y_true, const label_t[:] y_pred,
                   const weight_t[:] sample_weight, uint64_t lo, uint64_t k,
                   double[:, ::1] tables, int64_t[:, ::1] seen, double[:, ::1] margins,
                   int64_t[:, ::1] bad, int n_threads):
    """Weighted variant of :func:`count`: ``tables`` is (n_lanes, k*k) float64 sums of
    weights, ``seen`` is (n_lanes, 2*k) occurrence counts of each value in y_true then y_pred,
    ``margins`` (n_lanes, 2*k) their weight sums, accumulated in input order.
    Non-finite weights are reported in ``bad`` with kind 3."""
    cdef Py_ssize_t n = y_true.shape[0]
    cdef Py_ssize_t n_lanes = tables.shape[0]
    cdef Py_ssize_t lane
    if (y_pred.shape[0] != n or sample_weight.shape[0] != n or bad.shape[0] != n_lanes
            or seen.shape[0] != n_lanes or tables.shape[1] < <Py_ssize_t>(k * k)
            or seen.shape[1] < <Py_ssize_t>(2 * k) or margins.shape[0] != n_lanes
            or margins.shape[1] < <Py_ssize_t>(2 * k)):
        raise ValueError("count_weighted: inconsistent shapes")
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1 and n_lanes > 1):
            _count_lane_weighted(y_true, y_pred, sample_weight, _lane_start(n, n_lanes, lane),
                                 _lane_start(n, n_lanes, lane + 1), lo, k, &tables[lane, 0],
                                 &seen[lane, 0], &margins[lane, 0], &bad[lane, 0])


def minmax(const label_t[:] a, Py_ssize_t stop):
    """(min, max) of ``a[:stop]`` as Python ints; ``stop`` must be >= 1."""
    cdef Py_ssize_t n = min(stop, a.shape[0])
    cdef label_t lo, hi
    if n < 1:
        raise ValueError("minmax of an empty array")
    with nogil:
        _minmax_of(a, n, &lo, &hi)
    return int(lo), int(hi)


# ---------------------------------------------------------------------------------------
# One call from labels to a compact state (the unweighted hot path of every metric).

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport calloc, free

cnp.import_array()

# head and tail values that guess the value range of a larger input (the count checks it)
cdef int64_t _PROBE = 1 << 12
cdef int64_t _LANE_MIN = 1 << 16
cdef int64_t _MAX_LANES = 64
cdef int64_t _CELL_BUDGET = 1 << 22


cdef inline int _shift_for(uint64_t span) noexcept nogil:
    """Smallest s with 2**s >= span."""
    cdef int s = 0
    while ((<uint64_t>1) << s) < span:
        s += 1
    return s


cdef int _minmax_ptr(const label_t[:] a, Py_ssize_t stop, int64_t* lo, int64_t* hi,
                     bint* beyond) noexcept nogil:
    """Min/max of a[:stop] as int64; ``beyond`` is set when a uint64 value >= 2**63."""
    cdef label_t mn, mx
    _minmax_of(a, stop, &mn, &mx)
    if label_t is uint64_t:
        if mx > <uint64_t>0x7FFFFFFFFFFFFFFF:
            beyond[0] = True
            return 0
    lo[0] = <int64_t>mn
    hi[0] = <int64_t>mx
    return 0


def dense_state(const label_t[:] y_true, const label_t[:] y_pred, int64_t max_range,
                int n_threads):
    """Count (y_true, y_pred) into a compact table over the values that occur.

    Returns ``(values, cm, in_true)`` -- present label values (int64, sorted), their K x K
    int64 table and which of them occur in y_true -- or ``None`` when the value range is
    wider than ``max_range`` (the caller then encodes the labels). The range of a large input
    is guessed from its head and widened (one more pass) only if a later value falls out.
    """
    cdef Py_ssize_t n = y_true.shape[0]
    cdef Py_ssize_t probe, lane, n_lanes, i, j, c, kk_used
    cdef int64_t lo_t, hi_t, lo_p, hi_p, lo, hi
    cdef bint beyond = False, exact
    cdef int shift
    cdef uint64_t k, kk, cells
    cdef int64_t* lanes = NULL
    cdef int64_t* bad = NULL
    cdef int64_t total
    if y_pred.shape[0] != n:
        raise ValueError("dense_state: y_true and y_pred lengths differ")
    if n == 0:
        return None
    exact = n <= 2 * _PROBE
    probe = n if exact else _PROBE
    with nogil:
        _minmax_ptr(y_true, probe, &lo_t, &hi_t, &beyond)
        _minmax_ptr(y_pred, probe, &lo_p, &hi_p, &beyond)
    lo = min(lo_t, lo_p)
    hi = max(hi_t, hi_p)
    if not exact:
        # and the tail: labels sorted or grouped by class show their whole range at the ends
        _minmax_ptr(y_true[n - probe:], probe, &lo_t, &hi_t, &beyond)
        _minmax_ptr(y_pred[n - probe:], probe, &lo_p, &hi_p, &beyond)
        lo = min(lo, lo_t, lo_p)
        hi = max(hi, hi_t, hi_p)
    if beyond:
        return None
    if not exact:
        lo = min(lo, 0)
    while True:
        if <uint64_t>hi - <uint64_t>lo >= <uint64_t>max_range:
            if exact:
                return None
            k = 0
        else:
            shift = _shift_for(<uint64_t>hi - <uint64_t>lo + 1)
            if not exact and shift < 4:
                shift = 4  # room for labels the probe did not see
            k = (<uint64_t>1) << shift
        if k:
            kk = k * k
            cells = 4 * kk
            n_lanes = max(1, min(_MAX_LANES, n // _LANE_MIN, _CELL_BUDGET // <int64_t>cells))
            _lane_tables(n_lanes, cells, &lanes, &bad)
            try:
                with nogil:
                    _dense_lanes(y_true, y_pred, <uint64_t>lo, shift, lanes, bad, n_lanes,
                                 n_threads)
                if not _any_bad(bad, n_lanes):
                    return _compact(lanes, n_lanes, k, lo)
            finally:
                free(lanes)
                free(bad)
                lanes = NULL
                bad = NULL
        if exact:
            return None  # cannot happen: exact ranges always fit
        with nogil:
            _minmax_ptr(y_true, n, &lo_t, &hi_t, &beyond)
            _minmax_ptr(y_pred, n, &lo_p, &hi_p, &beyond)
        if beyond:
            return None
        lo = min(lo_t, lo_p)
        hi = max(hi_t, hi_p)
        exact = True


cdef int _lane_tables(Py_ssize_t n_lanes, Py_ssize_t cells, int64_t** lanes,
                      int64_t** bad) except -1:
    """Zeroed scratch: ``n_lanes`` tables of ``cells`` counts and their (index, kind) slots."""
    lanes[0] = <int64_t*>calloc(n_lanes * cells, sizeof(int64_t))
    bad[0] = <int64_t*>calloc(2 * n_lanes, sizeof(int64_t))
    if lanes[0] == NULL or bad[0] == NULL:
        free(lanes[0])
        free(bad[0])
        lanes[0] = NULL
        bad[0] = NULL
        raise MemoryError()
    return 0


cdef void _dense_lanes(const label_t[:] y_true, const label_t[:] y_pred, uint64_t lo,
                       int shift, int64_t* lanes, int64_t* bad, Py_ssize_t n_lanes,
                       int n_threads) noexcept nogil:
    cdef Py_ssize_t n = y_true.shape[0]
    cdef Py_ssize_t lane
    cdef Py_ssize_t st = y_true.strides[0]  # bytes (fm_count.h)
    cdef Py_ssize_t sp = y_pred.strides[0]
    cdef Py_ssize_t cells = (<Py_ssize_t>4) << (2 * shift)
    for lane in range(n_lanes):
        bad[2 * lane] = -1
    for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                       use_threads_if=n_threads > 1 and n_lanes > 1):
        _count_lane(&y_true[0], st, &y_pred[0], sp, _lane_start(n, n_lanes, lane),
                    _lane_start(n, n_lanes, lane + 1), lo, shift, lanes + lane * cells,
                    bad + 2 * lane)


cdef bint _any_bad(const int64_t* bad, Py_ssize_t n_lanes) noexcept nogil:
    cdef Py_ssize_t lane
    for lane in range(n_lanes):
        if bad[2 * lane] >= 0:
            return True
    return False


cdef void _sum_banks(const int64_t* lanes, Py_ssize_t n_banks, Py_ssize_t kk,
                     int64_t* tot) noexcept nogil:
    """Add ``n_banks`` consecutive tables of ``kk`` counts into ``tot``."""
    cdef Py_ssize_t b, c
    for b in range(n_banks):
        for c in range(kk):
            tot[c] += lanes[b * kk + c]


cdef object _compact(int64_t* lanes, Py_ssize_t n_lanes, uint64_t k, int64_t lo):
    """Sum lanes and banks, keep the values that occur; returns (values, cm, in_true)."""
    cdef Py_ssize_t kk = k * k, i, m = 0
    cdef Py_ssize_t nb = 4 * n_lanes
    cdef int64_t* tot = <int64_t*>calloc(kk, sizeof(int64_t))
    cdef int64_t* keep = <int64_t*>calloc(k, sizeof(int64_t))
    cdef cnp.npy_intp dims[2]
    cdef int64_t* pv
    cdef int64_t* pc
    cdef cnp.npy_bool* pt
    if tot == NULL or keep == NULL:
        free(tot)
        free(keep)
        raise MemoryError()
    try:
        _sum_banks(lanes, nb, kk, tot)
        m = fm_occurring(tot, k, keep)
        dims[0] = m
        dims[1] = m
        values = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT64, 0)
        out = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT64, 0)
        in_true = cnp.PyArray_ZEROS(1, dims, cnp.NPY_BOOL, 0)
        pv = <int64_t*>cnp.PyArray_DATA(values)
        pc = <int64_t*>cnp.PyArray_DATA(out)
        pt = <cnp.npy_bool*>cnp.PyArray_DATA(in_true)
        for i in range(m):
            pv[i] = lo + keep[i]
        fm_gather(tot, k, keep, m, pc, <unsigned char*>pt)
        return values, out, in_true
    finally:
        free(tot)
        free(keep)


# ---------------------------------------------------------------------------------------
# Counting into a fixed table (the streaming update path): no range probe, no compaction.

cdef int64_t _FIXED_LANE_CELLS = 1 << 16  # scratch cells over all lanes (512 KiB)


def count_fixed(const label_t[:] y_true, const label_t[:] y_pred, uint64_t lo, int shift,
                const cnp.npy_bool[::1] allowed, int n_threads):
    """Pair counts over the offsets ``0 .. 2**shift - 1`` from ``lo``, or None.

    Returns a ((2**shift)**2,) int64 array, ``out[(a << shift) | b]`` = number of samples
    with ``y_true - lo == a`` and ``y_pred - lo == b``, when every value lies in
    ``lo .. lo + 2**shift - 1`` and every offset that occurs is ``allowed``; None otherwise
    (nothing is returned in part, so a caller adding the result to a running table never
    adds half a chunk). ``shift`` is at most 6 (a 64 x 64 table).

    Counts are integers, so the lane split does not change them: a few lanes per thread.
    """
    cdef Py_ssize_t n = y_true.shape[0]
    cdef Py_ssize_t k, kk, cells, n_lanes, c
    cdef int64_t* lanes = NULL
    cdef int64_t* bad = NULL
    cdef int64_t* po
    cdef bint ok
    cdef cnp.npy_intp dims[1]
    if y_pred.shape[0] != n:
        raise ValueError("count_fixed: y_true and y_pred lengths differ")
    if shift < 0 or shift > 6:
        raise ValueError("count_fixed: shift must be in 0..6")
    k = (<Py_ssize_t>1) << shift
    kk = k * k
    if allowed.shape[0] != k:
        raise ValueError("count_fixed: allowed must have 2**shift entries")
    dims[0] = kk
    out = cnp.PyArray_ZEROS(1, dims, cnp.NPY_INT64, 0)
    if n == 0:
        return out
    cells = 4 * kk
    n_lanes = 1
    if n_threads > 1:
        # a few lanes per thread for balance, each big enough to be worth a task
        n_lanes = max(1, min(4 * <Py_ssize_t>n_threads, n // _LANE_MIN,
                             _FIXED_LANE_CELLS // cells))
    _lane_tables(n_lanes, cells, &lanes, &bad)
    po = <int64_t*>cnp.PyArray_DATA(out)
    try:
        with nogil:
            _dense_lanes(y_true, y_pred, lo, shift, lanes, bad, n_lanes, n_threads)
            ok = not _any_bad(bad, n_lanes)
            if ok:
                _sum_banks(lanes, 4 * n_lanes, kk, po)
                for c in range(kk):
                    if po[c] != 0 and not (allowed[c >> shift] and allowed[c & (k - 1)]):
                        ok = False
                        break
    finally:
        free(lanes)
        free(bad)
    return out if ok else None


# ---------------------------------------------------------------------------------------
# Per-group counting: one pass over (group, y_true, y_pred) -> a (G, K, K) table.
#
# Labels are read as they are (any integer dtype) over the value range ``lo .. lo + K - 1``;
# groups likewise over ``glo .. glo + G - 1``. A value outside its range is counted in the
# returned number and skipped (the Python layer computed the ranges, so this only guards
# against an inconsistent call). Large inputs are cut into lanes that depend on N only, each
# with a private table that the caller sums in lane order.


cdef Py_ssize_t _count_group_lane(const label_t[:] yt, const label_t[:] yp, const group_t[:] g,
                            uint64_t lo, uint64_t k, uint64_t glo, uint64_t n_groups,
                            Py_ssize_t start, Py_ssize_t stop,
                            int64_t* table) noexcept nogil:
    cdef Py_ssize_t i, nbad = 0
    cdef uint64_t a, b, c
    for i in range(start, stop):
        # unsigned differences: a value below lo wraps to a huge number, one test per value
        a = <uint64_t>yt[i] - lo
        b = <uint64_t>yp[i] - lo
        c = <uint64_t>g[i] - glo
        if a >= k or b >= k or c >= n_groups:
            nbad += 1
            continue
        table[(c * k + a) * k + b] += 1
    return nbad


def group_confusion(const label_t[:] y_true, const label_t[:] y_pred, const group_t[:] groups,
                    uint64_t lo, uint64_t k, uint64_t glo, uint64_t n_groups,
                    int64_t[:, ::1] tables, int n_threads):
    """Count into ``tables`` (n_lanes, G*K*K), zeroed by the caller; returns the number of
    out-of-range entries skipped."""
    cdef Py_ssize_t n = y_true.shape[0]
    cdef Py_ssize_t n_lanes = tables.shape[0]
    cdef Py_ssize_t lane, nbad = 0
    if (y_pred.shape[0] != n or groups.shape[0] != n
            or tables.shape[1] < <Py_ssize_t>(n_groups * k * k)):
        raise ValueError("group_confusion: inconsistent shapes")
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1 and n_lanes > 1):
            nbad += _count_group_lane(y_true, y_pred, groups, lo, k, glo, n_groups,
                                _lane_start(n, n_lanes, lane), _lane_start(n, n_lanes, lane + 1),
                                &tables[lane, 0])
    return nbad
