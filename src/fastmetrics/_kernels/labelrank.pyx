# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Multilabel ranking sums: one pass over an (n, L) 0/1 matrix and an (n, L) score matrix.

Each row's labels are sorted by decreasing score (a copy of L (score, relevant) pairs in a
per-lane buffer; the inputs are read in place, C or F order) and one walk over the groups
of equal score gives the row's coverage, label ranking average precision and label ranking
loss, as scikit-learn defines them (ties take the maximal rank). A row with at most
``SCAN_MAX`` relevant labels is not sorted: its relevant scores are, and the labels scored
at least each of them are counted (the same groups, in the same order). Coverage alone
(``coverage_only``) needs one scan a row: the count of labels scored at least the lowest
relevant score. Weighted sums are added in row order inside fixed lanes that depend on n
only, then lane by lane: the same result for any thread count.
"""

from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, free, qsort
from cython.parallel cimport prange

import numpy as np

from .common cimport label_t, _lane_start

ctypedef fused score_t:
    float
    double

ctypedef struct _item:
    double s
    int64_t rel

DEF LANE_MIN = 4096
DEF MAX_LANES = 256
DEF SHORT_ROW = 32  # rows of at most this many labels are insertion sorted
DEF SCAN_MAX = 16  # rows of at most this many relevant labels are counted, not sorted


cdef int _decreasing(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const _item*>a).s
    cdef double y = (<const _item*>b).s
    return (x < y) - (x > y)


cdef inline void _sort_desc(double* a, Py_ssize_t m) noexcept nogil:
    """Decreasing values, in place (insertion sort: m <= SCAN_MAX)."""
    cdef Py_ssize_t i, j
    cdef double x
    for i in range(1, m):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] < x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef inline void _insertion_sort(_item* buf, Py_ssize_t L) noexcept nogil:
    """Decreasing scores, in place: for short rows, where qsort's calls through a function
    pointer cost more than the sort."""
    cdef Py_ssize_t i, j
    cdef _item x
    for i in range(1, L):
        x = buf[i]
        j = i - 1
        while j >= 0 and buf[j].s < x.s:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = x


cdef double[2] _SKIP
_SKIP[0] = INFINITY
_SKIP[1] = 0.0


cdef int _coverage_lane(const label_t[:, :] y, const score_t[:, :] s, const double[:] w,
                        bint has_w, Py_ssize_t start, Py_ssize_t stop,
                        double* out) noexcept nogil:
    """``COVERAGE`` and ``WEIGHT`` of rows [start, stop) into ``out`` (the other sums 0): a
    row's coverage is the number of labels scored at least its lowest relevant score, one
    scan and no sort. The same checks in the same order as :func:`_lane`."""
    cdef Py_ssize_t L = y.shape[1], i, j
    cdef int64_t npos, cover
    cdef double x, t, wi = 1.0, cov_s = 0.0, w_s = 0.0
    cdef uint64_t v
    for i in range(start, stop):
        npos = 0
        t = INFINITY
        for j in range(L):
            v = <uint64_t>y[i, j]
            if v > 1:
                return BAD_LABEL
            x = <double>s[i, j]
            if x - x != 0:  # NaN or infinity
                return BAD_SCORE
            npos += <int64_t>v
            # the lowest relevant score, without a branch on the label (a coin toss for the
            # processor): an irrelevant label's score is pushed to +inf; the sign a zero
            # may lose does not change which scores are >= it
            x = x + _SKIP[v]
            t = x if x < t else t
        if has_w:
            wi = w[i]
        w_s += wi
        if npos == 0:
            continue
        if npos == L:
            cov_s += wi * <double>L
            continue
        cover = 0
        for j in range(L):
            cover += <double>s[i, j] >= t
        cov_s += wi * <double>cover
    out[0] = cov_s
    out[1] = 0.0
    out[2] = 0.0
    out[3] = w_s
    return 0


cdef int _lane(const label_t[:, :] y, const score_t[:, :] s, const double[:] w, bint has_w,
               Py_ssize_t start, Py_ssize_t stop, double* out,
               bint coverage_only=False) noexcept nogil:
    """Sums of rows [start, stop) into ``out``; 0, or the bad-value code."""
    cdef Py_ssize_t L = y.shape[1], i, j, g
    cdef int64_t npos, cum_all, cum_true, g_all, g_true, cover, pairs
    cdef double x, wi = 1.0, lrap, cov_s = 0.0, lrap_s = 0.0, loss_s = 0.0, w_s = 0.0
    cdef uint64_t v
    cdef double t
    cdef double top[SCAN_MAX + 1]
    if coverage_only:
        return _coverage_lane(y, s, w, has_w, start, stop, out)
    cdef _item* buf = <_item*>malloc((L if L > 0 else 1) * sizeof(_item))
    if buf == NULL:
        return NO_MEMORY
    for i in range(start, stop):
        npos = 0
        for j in range(L):
            v = <uint64_t>y[i, j]
            if v > 1:
                free(buf)
                return BAD_LABEL
            x = <double>s[i, j]
            if x - x != 0:  # NaN or infinity
                free(buf)
                return BAD_SCORE
            buf[j].s = x
            buf[j].rel = <int64_t>v
            # every score goes to the next free slot and only a relevant one keeps it: no
            # branch on the label (slot SCAN_MAX takes what does not fit)
            top[npos if npos < SCAN_MAX else SCAN_MAX] = x
            npos += <int64_t>v
        if has_w:
            wi = w[i]
        w_s += wi
        if npos == 0 or npos == L:
            # no pair to order: coverage counts down to the lowest relevant label
            lrap_s += wi
            if npos:
                cov_s += wi * <double>L
            continue
        if npos <= SCAN_MAX:
            # few relevant labels: their scores sorted, and for each distinct one the labels
            # scored >= it counted -- the groups of the sorted walk below that hold relevant
            # labels, in the same order, so the same sums to the last bit
            _sort_desc(top, npos)
            cum_all = 0
            pairs = 0
            lrap = 0.0
            j = 0
            while j < npos:
                t = top[j]
                g = j + 1
                while g < npos and top[g] == t:
                    g += 1
                g_true = g - j
                cum_true = g
                cum_all = 0
                for g_all in range(L):
                    cum_all += buf[g_all].s >= t
                lrap += <double>g_true * (<double>cum_true / <double>cum_all)
                pairs += g_true * (cum_all - cum_true)
                j = g
            cover = cum_all  # at the lowest relevant score
            cov_s += wi * <double>cover
            lrap_s += wi * (lrap / <double>npos)
            loss_s += wi * (<double>pairs / <double>(npos * (L - npos)))
            continue
        if L <= SHORT_ROW:
            _insertion_sort(buf, L)
        else:
            qsort(buf, L, sizeof(_item), _decreasing)
        cum_all = cum_true = 0
        cover = 0
        pairs = 0
        lrap = 0.0
        j = 0
        while j < L:
            g = j
            g_true = 0
            while g < L and buf[g].s == buf[j].s:
                g_true += buf[g].rel
                g += 1
            g_all = g - j
            cum_all += g_all
            cum_true += g_true
            if g_true:
                # each relevant label of the group: relevant / all labels scored >= it
                lrap += <double>g_true * (<double>cum_true / <double>cum_all)
                # ... and the irrelevant ones scored >= it are the misordered pairs
                pairs += g_true * (cum_all - cum_true)
                if cum_true == npos:
                    cover = cum_all
            j = g
        cov_s += wi * <double>cover
        lrap_s += wi * (lrap / <double>npos)
        loss_s += wi * (<double>pairs / <double>(npos * (L - npos)))
    free(buf)
    out[0] = cov_s
    out[1] = lrap_s
    out[2] = loss_s
    out[3] = w_s
    return 0


def sums(const label_t[:, :] y, const score_t[:, :] s, const double[:] w, bint has_w,
         double[::1] out, int n_threads=1, bint coverage_only=False):
    """Add the weighted sums (``COVERAGE`` ... ``WEIGHT``) of every row to ``out``
    (``coverage_only``: ``COVERAGE`` and ``WEIGHT`` only, the others left as they are).
    Returns 0, or the bad-value code (``BAD_LABEL``: a label not 0/1; ``BAD_SCORE``: a
    non-finite score; ``NO_MEMORY``)."""
    cdef Py_ssize_t n = y.shape[0], lane, n_lanes, k
    cdef int code = 0
    if s.shape[0] != n or s.shape[1] != y.shape[1]:
        raise ValueError("label ranking sums: shapes differ")
    if has_w and w.shape[0] != n:
        raise ValueError("label ranking sums: weights length differs")
    if out.shape[0] != N_SUMS:
        raise ValueError("label ranking sums: out must hold N_SUMS values")
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    cdef double[:, ::1] lanes = np.zeros((n_lanes, N_SUMS))
    cdef int[::1] codes = np.zeros(n_lanes, dtype=np.intc)
    with nogil:
        if n_lanes == 1 or n_threads <= 1:
            for lane in range(n_lanes):
                codes[lane] = _lane(y, s, w, has_w, _lane_start(n, n_lanes, lane),
                                    _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0],
                                    coverage_only)
        else:
            for lane in prange(n_lanes, num_threads=n_threads, schedule="static"):
                codes[lane] = _lane(y, s, w, has_w, _lane_start(n, n_lanes, lane),
                                    _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0],
                                    coverage_only)
        for lane in range(n_lanes):
            if codes[lane] and not code:
                code = codes[lane]
        if not code:
            for lane in range(n_lanes):
                for k in range(N_SUMS):
                    out[k] += lanes[lane, k]
    return code
