# cython: language_level=3
"""Probability scores kernel: one pass over an (n, K) probability matrix (or the 1-D
probabilities of the positive class of a binary problem) and the class of each sample.

It fills the float64 sums of ``proba.pxd`` (weight total, weighted log loss, sample
count, rows that do not sum to one, NaN count, largest and smallest probability; or, for
``top_k_accuracy_score``, the weight of the samples whose class is among the k best) and
the weight of each class of ``y_true`` (what the null model of the D² score is made of).
``indicator`` does the same for a multilabel indicator ``y_true`` (n, K), and ``hinge`` sums
the hinge loss of decision values per class of ``y_true``.

The matrix is read in place, whatever its strides (C or Fortran order, a column of a larger
array) and dtype (float32 or float64). Probabilities are clipped to ``[eps, 1 - eps]`` in
their own dtype, as scikit-learn does, before the logarithm (taken in double precision).
Large inputs are cut into lanes whose number depends on n only; each lane sums its samples
in blocks, lanes run on up to ``n_threads`` OpenMP threads and are added in lane order, so
the result is the same for any thread count.
"""

from libc.math cimport log, fabs, INFINITY
from libc.stdint cimport int64_t
from .common cimport label_t, weight_t, _lane_start
from cython.parallel cimport prange

import numpy as np

ctypedef fused prob_t:
    float
    double


cdef enum:
    LANE_MIN = 262144  # samples per lane at least
    GROUPED_LANE_BYTES = 1 << 25  # the grouped pass's lane tables, at most
    MAX_LANES = 64
    BLOCK = 2048


cdef inline void _note(double v, double* chk) noexcept nogil:
    """The checks of a pass, ``chk`` = (NaN count, largest, smallest): NaN is counted and
    left out of the extremes."""
    if v != v:
        chk[0] += 1.0
    else:
        if v > chk[1]:
            chk[1] = v
        if v < chk[2]:
            chk[2] = v


cdef inline double _neg_log(prob_t q) noexcept nogil:
    """``-log(q)`` of ``q`` clipped to ``[eps, 1 - eps]`` in its own dtype, as scikit-learn
    clips."""
    cdef prob_t eps = 1.1920928955078125e-07 if prob_t is float else 2.220446049250313e-16
    cdef prob_t one = 1
    if q < eps:
        q = eps
    elif q > one - eps:
        q = one - eps
    return -log(<double>q)


cdef inline Py_ssize_t _class_of(int64_t off, const int64_t[::1] lut,
                                 Py_ssize_t m) noexcept nogil:
    """The column of a label ``off`` past the lowest (``lut[off]``), or -1 when it is no
    class."""
    if off < 0 or off >= m:
        return -1
    return lut[off]


cdef inline void _end_checks(double* sums, const double* chk) noexcept nogil:
    sums[NAN] += chk[0]
    sums[MAXP] = chk[1]
    sums[MINP] = chk[2]


cdef Py_ssize_t _lane(const prob_t[:, :] P, bint binary, const label_t[:] y, int64_t lo,
                      const int64_t[::1] lut, const weight_t[:] w, bint has_w, double tol,
                      Py_ssize_t k, Py_ssize_t start0, Py_ssize_t stop0, double* sums,
                      double* class_w) noexcept nogil:
    """Samples [start0, stop0) into ``sums`` / ``class_w`` (zeroed); returns the first row
    whose label is not a class, or -1."""
    cdef Py_ssize_t K = P.shape[1]
    cdef Py_ssize_t m = lut.shape[0]
    cdef Py_ssize_t start, stop, i, j
    cdef Py_ssize_t c
    cdef prob_t one = 1
    cdef prob_t v, q, rs, sc
    cdef Py_ssize_t rank
    cdef bint pos
    cdef double wv = 1.0
    cdef double bw, bl, bh, bh0
    cdef double unnormed = 0.0
    cdef double chk[3]
    cdef int64_t inan = 0
    # rows of contiguous columns take the loop the compiler specialises for a unit stride
    cdef Py_ssize_t step = P.strides[1] // <Py_ssize_t>sizeof(prob_t)
    cdef bint contiguous = P.strides[1] == <Py_ssize_t>sizeof(prob_t)
    # columns a whole number of elements apart (always, but for odd views of raw buffers)
    cdef bint whole = P.strides[1] % <Py_ssize_t>sizeof(prob_t) == 0
    cdef bint ranked = k > 0 and not binary and whole
    # the log loss of K columns: no rank, the row read once by ``_sum_row``
    cdef bint summed = k == 0 and not binary and whole
    chk[0], chk[1], chk[2] = 0.0, -INFINITY, INFINITY
    start = start0
    while start < stop0:
        stop = start + BLOCK
        if stop > stop0:
            stop = stop0
        bw = 0.0
        bl = 0.0
        bh = 0.0
        bh0 = 0.0
        for i in range(start, stop):
            c = _class_of(<int64_t>y[i] - lo, lut, m)
            if c < 0:
                return i
            if has_w:
                wv = <double>w[i]
            if ranked:
                # top-k of scores: the rank of the true class's score and the value checks,
                # without the row sum (the log loss's only)
                if contiguous:
                    rank = _rank_row(&P[i, 0], 1, K, c, &chk[1], &chk[2], &inan)
                else:
                    rank = _rank_row(&P[i, 0], step, K, c, &chk[1], &chk[2], &inan)
                bw += wv
                class_w[c] += wv
                # a product, not a branch (the weights are finite; bh is never -0.0, so
                # adding a zero of either sign leaves it as it is)
                bh += wv * <double>(rank < k)
                continue
            if summed:
                if contiguous:
                    rs = _sum_row(&P[i, 0], 1, K, &chk[1], &chk[2], &inan)
                else:
                    rs = _sum_row(&P[i, 0], step, K, &chk[1], &chk[2], &inan)
                bw += wv
                class_w[c] += wv
                unnormed += <double>(fabs(<double>rs - 1.0) > tol)
                bl += wv * _neg_log(P[i, c])
                continue
            rs = 0
            rank = 0
            sc = P[i, c] if not binary else 0
            for j in range(K):
                v = P[i, j]
                _note(v, chk)
                rs = rs + v
                # scikit-learn's ranks: a stable sort reversed, so among equal scores the
                # higher column comes first
                if v > sc or (v == sc and j > c):
                    rank += 1
            bw += wv
            class_w[c] += wv
            if k > 0:
                if not binary:
                    if rank < k:
                        bh += wv
                elif k > 1:
                    bh += wv
                    bh0 += wv
                else:
                    pos = c == 1
                    if (P[i, 0] > 0.5) == pos:
                        bh += wv
                    if (P[i, 0] > 0) == pos:
                        bh0 += wv
                continue
            if binary:
                # scikit-learn's two columns (1 - p, p), formed in the dtype
                q = P[i, 0] if c == 1 else one - P[i, 0]
            else:
                q = P[i, c]
                if fabs(<double>rs - 1.0) > tol:
                    unnormed += 1.0
            bl += wv * _neg_log(q)
        sums[W] += bw
        sums[LOSS] += bl
        sums[HITS] += bh
        sums[HITS0] += bh0
        start = stop
    sums[N] += <double>(stop0 - start0)
    sums[UNNORMED] += unnormed
    chk[0] += <double>inan
    _end_checks(sums, chk)
    return -1


cdef inline void _fold_row(const prob_t* r, Py_ssize_t step, Py_ssize_t K, bint nan_seen,
                           double hi, double lo, double* mx, double* mn,
                           int64_t* nans) noexcept nogil:
    """Fold a row's own extremes ``hi`` / ``lo`` into the running ``mx`` / ``mn`` (a tie
    keeps the earlier, as the strict comparisons of one running pair do), and, when its
    sum showed a NaN (``nan_seen``), its NaNs into the count."""
    cdef Py_ssize_t j
    cdef int64_t bad = 0
    if nan_seen:
        for j in range(K):
            bad += r[j * step] != r[j * step]
        nans[0] += bad
    if hi > mx[0]:
        mx[0] = hi
    if lo < mn[0]:
        mn[0] = lo


cdef inline Py_ssize_t _rank_row(const prob_t* r, Py_ssize_t step, Py_ssize_t K,
                                 Py_ssize_t c, double* mx, double* mn,
                                 int64_t* nans) noexcept nogil:
    """The number of columns ranked before column ``c`` of the row at ``r`` (columns
    ``step`` elements apart); folds the row into the largest and smallest value (NaN
    skipped: its comparisons are false) and the NaN count.

    scikit-learn's ranks come from a stable sort reversed, so among equal scores the higher
    column comes first. No branch on the scores (whether one beats the true class's is a
    coin toss the processor cannot predict): the row counts the scores greater than the
    true class's and those greater or equal; only a row with a tie (rare) looks again, at
    which tied columns come after ``c``. A NaN shows in the row's sum, and only then are the
    NaNs counted."""
    cdef prob_t sc = r[c * step]
    cdef prob_t v
    # the row's own extremes, folded in after: the same values (ties keep the earlier, as
    # the strict comparisons do), and no dependency from one row to the next
    cdef double hi = -INFINITY, lo = INFINITY, tot = 0.0
    cdef Py_ssize_t j, gt = 0, ge = 0
    for j in range(K):
        v = r[j * step]
        tot += v
        hi = v if v > hi else hi
        lo = v if v < lo else lo
        gt += v > sc
        ge += v >= sc
    if ge > gt + 1:  # another column ties with the true class: those after it rank first
        for j in range(c + 1, K):
            gt += r[j * step] == sc
    # a NaN shows in the sum (as do infinities of both signs)
    _fold_row(r, step, K, tot != tot, hi, lo, mx, mn, nans)
    return gt


cdef inline prob_t _sum_row(const prob_t* r, Py_ssize_t step, Py_ssize_t K, double* mx,
                            double* mn, int64_t* nans) noexcept nogil:
    """The sum of the row at ``r`` (columns ``step`` elements apart), added in column order
    in the row's dtype; folds the row into the largest and smallest value (NaN skipped) and
    the NaN count, as ``_rank_row`` does: the row's own extremes folded in after, no branch
    on the values, and the NaNs counted only when the sum shows one."""
    cdef prob_t rs = 0
    cdef prob_t v
    cdef double hi = -INFINITY, lo = INFINITY
    cdef Py_ssize_t j
    for j in range(K):
        v = r[j * step]
        rs = rs + v
        hi = v if v > hi else hi
        lo = v if v < lo else lo
    # a NaN shows in the sum (as do infinities of both signs, or a float32 sum overflowing)
    _fold_row(r, step, K, rs != rs, hi, lo, mx, mn, nans)
    return rs


cdef inline prob_t _other_row(const prob_t* r, Py_ssize_t step, Py_ssize_t K,
                              Py_ssize_t c, double* mx, double* mn,
                              int64_t* nans) noexcept nogil:
    """The largest value of the row at ``r`` but column ``c``'s (NaN skipped; -inf when
    none); folds the row into the extremes and the NaN count as ``_sum_row`` does.

    The row's largest value is the answer unless column ``c`` holds it; only then is the
    row read again without column ``c``. Only the value of the result matters to the
    margin: which of equal values, or the sign of a zero, cannot change
    ``1 - (d[c] - other)``."""
    cdef prob_t top = -INFINITY, low = INFINITY, other = -INFINITY
    cdef prob_t v
    cdef prob_t sc = r[c * step]
    cdef Py_ssize_t j
    cdef int64_t bad = 0
    for j in range(K):
        v = r[j * step]
        top = v if v > top else top
        low = v if v < low else low
        bad += v != v
    nans[0] += bad
    # the extremes of the strict comparisons (the first of equal values), NaN skipped
    if <double>top > mx[0]:
        mx[0] = top
    if <double>low < mn[0]:
        mn[0] = low
    if sc < top:
        return top
    for j in range(c):
        v = r[j * step]
        other = v if v > other else other
    for j in range(c + 1, K):
        v = r[j * step]
        other = v if v > other else other
    return other


cdef void _add(double* a, const double* b, double* ca, const double* cb,
               Py_ssize_t K) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(MAXP):
        a[k] += b[k]
    if b[MAXP] > a[MAXP]:
        a[MAXP] = b[MAXP]
    if b[MINP] < a[MINP]:
        a[MINP] = b[MINP]
    for k in range(K):
        ca[k] += cb[k]


def scores(const prob_t[:, :] P, bint binary, const label_t[:] y, int64_t lo,
           const int64_t[::1] lut, const weight_t[:] w, bint has_w, double tol,
           double[::1] sums, double[::1] class_w, Py_ssize_t k=0, int n_threads=1):
    """Fill ``sums`` (length ``N_SUMS``, zeroed by the caller; ``MAXP`` -inf and ``MINP``
    +inf) and ``class_w`` (the weight of each class, zeroed) from one pass.

    ``P`` is (n, K) probabilities, or (n, 1) of the positive class when ``binary``; the
    class of sample i is ``lut[y[i] - lo]`` (a column index, or -1 for a label that is no
    class). ``tol``: a row is normalised when ``|sum - 1| <= tol``. With ``k`` > 0 the
    values are scores: the top-k hits are counted instead of the log loss. Returns -1, or
    the first row whose label is no class (then the sums are incomplete)."""
    cdef Py_ssize_t n = P.shape[0]
    cdef Py_ssize_t K = class_w.shape[0]
    cdef Py_ssize_t lane, n_lanes, bad = -1, b
    if y.shape[0] != n or (has_w and w.shape[0] != n) or sums.shape[0] < N_SUMS \
            or (binary and (P.shape[1] != 1 or K != 2)) or (not binary and P.shape[1] != K):
        raise ValueError("scores: inconsistent shapes")
    if n == 0:
        return -1
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    if n_lanes == 1:
        with nogil:
            bad = _lane(P, binary, y, lo, lut, w, has_w, tol, k, 0, n, &sums[0], &class_w[0])
        return bad
    cdef double[:, ::1] lanes = np.zeros((n_lanes, N_SUMS))
    cdef double[:, ::1] lane_w = np.zeros((n_lanes, K))
    cdef Py_ssize_t[::1] lane_bad = np.full(n_lanes, -1, dtype=np.intp)
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            lane_bad[lane] = _lane(P, binary, y, lo, lut, w, has_w, tol, k,
                                   _lane_start(n, n_lanes, lane),
                                   _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0],
                                   &lane_w[lane, 0])
        for lane in range(n_lanes):
            b = lane_bad[lane]
            if b >= 0:
                bad = b
                break
            _add(&sums[0], &lanes[lane, 0], &class_w[0], &lane_w[lane, 0], K)
    return bad


cdef Py_ssize_t _grouped_lane(const int64_t[:] codes, int64_t n_groups, const prob_t[:, :] P,
                              bint binary, const label_t[:] y, int64_t lo,
                              const int64_t[::1] lut, const weight_t[:] w, bint has_w,
                              double tol, Py_ssize_t start, Py_ssize_t stop, double* sums,
                              double* class_w, double* class_n) noexcept nogil:
    """Rows [start, stop) into their groups' sums ``sums[g * N_SUMS:]`` (zeroed, ``MAXP``
    -inf and ``MINP`` +inf), class weights and class counts ``class_w`` / ``class_n``
    ``[g * K:]`` (zeroed): the log loss part of :func:`_lane`, row by row. Returns -1, the
    first row whose label is no class, or ``-2 - i`` for the first row ``i`` whose code is
    outside ``[0, n_groups)``."""
    cdef Py_ssize_t K = 2 if binary else P.shape[1]
    cdef Py_ssize_t m = lut.shape[0]
    cdef Py_ssize_t i, j
    cdef int64_t g
    cdef Py_ssize_t c
    cdef prob_t one = 1
    cdef prob_t v, q, rs
    cdef double wv = 1.0
    cdef double* s
    cdef double chk[3]
    for i in range(start, stop):
        g = codes[i]
        if g < 0 or g >= n_groups:
            return -2 - i
        c = _class_of(<int64_t>y[i] - lo, lut, m)
        if c < 0:
            return i
        if has_w:
            wv = <double>w[i]
        s = sums + g * N_SUMS
        chk[0], chk[1], chk[2] = 0.0, s[MAXP], s[MINP]
        if binary:
            v = P[i, 0]
            _note(v, chk)
            # scikit-learn's two columns (1 - p, p), formed in the dtype
            q = v if c == 1 else one - v
        else:
            rs = 0
            for j in range(K):
                v = P[i, j]
                _note(v, chk)
                rs = rs + v
            q = P[i, c]
            if fabs(<double>rs - 1.0) > tol:
                s[UNNORMED] += 1.0
        s[NAN] += chk[0]
        s[MAXP] = chk[1]
        s[MINP] = chk[2]
        s[W] += wv
        s[LOSS] += wv * _neg_log(q)
        s[N] += 1.0
        class_w[g * K + c] += wv
        class_n[g * K + c] += 1.0
    return -1


def grouped_scores(const int64_t[:] codes, int64_t n_groups, const prob_t[:, :] P,
                   bint binary, const label_t[:] y, int64_t lo, const int64_t[::1] lut,
                   const weight_t[:] w, bint has_w, double tol, double[:, ::1] sums,
                   double[:, ::1] class_w, double[:, ::1] class_n, int n_threads=1):
    """The log loss sums of :func:`scores` for each group of rows from one pass (no
    ordering by group): row ``g`` of ``sums`` (shape (n_groups, N_SUMS), zeroed, ``MAXP``
    -inf and ``MINP`` +inf), of ``class_w`` and of ``class_n`` (shape (n_groups, K),
    zeroed: each class's weight and number of rows) are group ``g``'s. Returns -1, the
    first row whose label is no class, or ``-2 - i`` for the first row ``i`` whose code is
    outside ``[0, n_groups)`` (then the sums are incomplete).

    Lanes as :func:`scores` (their number depends on n and n_groups only, each holds a
    table of every group's sums), merged in lane order: the same for any thread count."""
    cdef Py_ssize_t n = P.shape[0]
    cdef Py_ssize_t K = class_w.shape[1]
    cdef Py_ssize_t lane, n_lanes, bad = -1, b, width
    cdef int64_t g
    if y.shape[0] != n or codes.shape[0] != n or (has_w and w.shape[0] != n) \
            or sums.shape[0] != n_groups or sums.shape[1] < N_SUMS \
            or class_w.shape[0] != n_groups or class_n.shape[0] != n_groups \
            or class_n.shape[1] != K or (binary and (P.shape[1] != 1 or K != 2)) \
            or (not binary and P.shape[1] != K):
        raise ValueError("grouped_scores: inconsistent shapes")
    if n == 0:
        return -1
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    width = N_SUMS + 2 * K
    n_lanes = min(n_lanes, max(1, GROUPED_LANE_BYTES // (n_groups * width * 8)))
    if n_lanes == 1:
        with nogil:
            bad = _grouped_lane(codes, n_groups, P, binary, y, lo, lut, w, has_w, tol, 0, n,
                                &sums[0, 0], &class_w[0, 0], &class_n[0, 0])
        return bad
    cdef double[:, :, ::1] lanes = np.zeros((n_lanes, n_groups, N_SUMS))
    cdef double[:, :, ::1] lane_w = np.zeros((n_lanes, n_groups, K))
    cdef double[:, :, ::1] lane_n = np.zeros((n_lanes, n_groups, K))
    cdef Py_ssize_t[::1] lane_bad = np.full(n_lanes, -1, dtype=np.intp)
    lanes[:, :, MAXP] = -INFINITY
    lanes[:, :, MINP] = INFINITY
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            lane_bad[lane] = _grouped_lane(codes, n_groups, P, binary, y, lo, lut, w, has_w,
                                           tol, _lane_start(n, n_lanes, lane),
                                           _lane_start(n, n_lanes, lane + 1),
                                           &lanes[lane, 0, 0], &lane_w[lane, 0, 0],
                                           &lane_n[lane, 0, 0])
        for lane in range(n_lanes):
            b = lane_bad[lane]
            if b != -1:
                bad = b
                break
            for g in range(n_groups):
                _add(&sums[g, 0], &lanes[lane, g, 0], &class_w[g, 0], &lane_w[lane, g, 0], K)
                _add_counts(&class_n[g, 0], &lane_n[lane, g, 0], K)
    return bad


cdef inline void _add_counts(double* a, const double* b, Py_ssize_t K) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(K):
        a[k] += b[k]


def present(const label_t[:] y, int64_t lo, unsigned char[::1] seen):
    """Mark ``seen[y[i] - lo] = 1`` for every sample (every ``y[i] - lo`` must lie in
    ``[0, len(seen))``: the caller took ``lo`` and the length from the minimum and maximum)."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t i
    with nogil:
        for i in range(n):
            seen[<int64_t>y[i] - lo] = 1


# ---------------------------------------------------------------------- multilabel log loss

cdef void _indicator_lane(const prob_t[:, :] P, const label_t[:, :] Y, const weight_t[:] w,
                          bint has_w, double tol, Py_ssize_t start0, Py_ssize_t stop0,
                          double* sums, double* class_w, double* blk) noexcept nogil:
    """Samples [start0, stop0) of a multilabel indicator ``Y`` into ``sums`` / ``class_w``
    (zeroed); ``blk`` is K doubles of scratch (the block's column sums)."""
    cdef Py_ssize_t K = P.shape[1]
    cdef Py_ssize_t start, stop, i, j
    cdef prob_t v, rs
    cdef double wv = 1.0, yv, rl
    cdef double bw, bl
    cdef double unnormed = 0.0
    cdef double chk[3]
    chk[0], chk[1], chk[2] = 0.0, -INFINITY, INFINITY
    start = start0
    while start < stop0:
        stop = start + BLOCK
        if stop > stop0:
            stop = stop0
        bw = 0.0
        bl = 0.0
        for j in range(K):
            blk[j] = 0.0
        for i in range(start, stop):
            if has_w:
                wv = <double>w[i]
            rs = 0
            rl = 0.0
            for j in range(K):
                v = P[i, j]
                _note(v, chk)
                rs = rs + v
                yv = <double>Y[i, j]
                if yv != 0.0:
                    # scikit-learn's xlogy(y, p): the indicator's value weighs the term
                    rl += yv * _neg_log(v)
                    blk[j] += wv * yv
            if fabs(<double>rs - 1.0) > tol:
                unnormed += 1.0
            bw += wv
            bl += wv * rl
        sums[W] += bw
        sums[LOSS] += bl
        for j in range(K):
            class_w[j] += blk[j]
        start = stop
    sums[N] += <double>(stop0 - start0)
    sums[UNNORMED] += unnormed
    _end_checks(sums, chk)


def indicator(const prob_t[:, :] P, const label_t[:, :] Y, const weight_t[:] w, bint has_w,
              double tol, double[::1] sums, double[::1] class_w, int n_threads=1):
    """``scores`` for a multilabel indicator ``Y`` (n, K) beside ``P`` (n, K): the loss of a
    sample is ``sum_j Y[i, j] * -log(clip(P[i, j]))``, ``class_w[j]`` the weighted sum of
    column j of ``Y``."""
    cdef Py_ssize_t n = P.shape[0]
    cdef Py_ssize_t K = P.shape[1]
    cdef Py_ssize_t lane, n_lanes
    if Y.shape[0] != n or Y.shape[1] != K or class_w.shape[0] != K \
            or (has_w and w.shape[0] != n) or sums.shape[0] < N_SUMS:
        raise ValueError("indicator: inconsistent shapes")
    if n == 0:
        return
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    cdef double[:, ::1] lanes = np.zeros((n_lanes, N_SUMS))
    cdef double[:, ::1] lane_w = np.zeros((n_lanes, K))
    cdef double[:, ::1] blk = np.zeros((n_lanes, K + 1))
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            _indicator_lane(P, Y, w, has_w, tol, _lane_start(n, n_lanes, lane),
                            _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0],
                            &lane_w[lane, 0], &blk[lane, 0])
        for lane in range(n_lanes):
            _add(&sums[0], &lanes[lane, 0], &class_w[0], &lane_w[lane, 0], K)


# ---------------------------------------------------------------------- hinge loss

cdef Py_ssize_t _hinge_lane(const prob_t[:, :] D, bint binary, const label_t[:] y,
                            int64_t lo, const int64_t[::1] lut, const signed char[::1] sign,
                            const weight_t[:] w,
                            bint has_w, Py_ssize_t K, Py_ssize_t start0, Py_ssize_t stop0,
                            double* sums, double* cls, double* blk) noexcept nogil:
    """Samples [start0, stop0) into ``sums`` (W, LOSS, N, NAN, MAXP, MINP) and ``cls`` (3K, zeroed:
    per class the sample count, the weighted loss as the positive class and as the negative
    class; multiclass: the weighted loss in the second third); ``blk``: 3K of scratch.
    Returns the first row whose label is not a class, or -1."""
    cdef Py_ssize_t m = lut.shape[0]
    cdef Py_ssize_t start, stop, i, j, c
    cdef prob_t one = 1
    cdef prob_t v, dc, other, lm
    cdef double d, lp, ln
    cdef double wv = 1.0
    cdef double bw, bl
    cdef double chk[3]
    cdef int64_t inan = 0
    # rows of contiguous columns take the loop the compiler specialises for a unit stride
    cdef Py_ssize_t step = D.strides[1] // <Py_ssize_t>sizeof(prob_t)
    cdef bint contiguous = D.strides[1] == <Py_ssize_t>sizeof(prob_t)
    cdef bint rowwise = not binary and D.strides[1] % <Py_ssize_t>sizeof(prob_t) == 0
    chk[0], chk[1], chk[2] = 0.0, -INFINITY, INFINITY
    start = start0
    while start < stop0:
        stop = start + BLOCK
        if stop > stop0:
            stop = stop0
        bw = 0.0
        bl = 0.0
        for j in range(3 * K):
            blk[j] = 0.0
        for i in range(start, stop):
            c = _class_of(<int64_t>y[i] - lo, lut, m)
            if c < 0:
                return i
            if has_w:
                wv = <double>w[i]
            bw += wv
            blk[c] += 1.0
            if binary:
                # scikit-learn multiplies the decision by the integer -1 / +1 labels: in
                # double precision whatever the dtype
                d = <double>D[i, 0]
                _note(d, chk)
                lp = 1.0 - d
                ln = 1.0 + d
                if lp < 0.0:
                    lp = 0.0
                if ln < 0.0:
                    ln = 0.0
                blk[K + c] += wv * lp
                blk[2 * K + c] += wv * ln
                bl += wv * (lp if sign[c] > 0 else ln)
                continue
            # multiclass: the margin to the best other class, in the decisions' dtype
            dc = D[i, c]
            if rowwise:
                if contiguous:
                    other = _other_row(&D[i, 0], 1, K, c, &chk[1], &chk[2], &inan)
                else:
                    other = _other_row(&D[i, 0], step, K, c, &chk[1], &chk[2], &inan)
                lm = one - (dc - other)
                lm = 0 if lm < 0 else lm
                blk[K + c] += wv * <double>lm
                bl += wv * <double>lm
                continue
            other = -INFINITY
            for j in range(K):
                v = D[i, j]
                _note(v, chk)
                if j != c and v > other:
                    other = v
            lm = one - (dc - other)
            if lm < 0:
                lm = 0
            blk[K + c] += wv * <double>lm
            bl += wv * <double>lm
        sums[W] += bw
        sums[LOSS] += bl
        for j in range(3 * K):
            cls[j] += blk[j]
        start = stop
    sums[N] += <double>(stop0 - start0)
    chk[0] += <double>inan
    _end_checks(sums, chk)
    return -1


def hinge(const prob_t[:, :] D, bint binary, const label_t[:] y, int64_t lo,
          const int64_t[::1] lut, const signed char[::1] sign, const weight_t[:] w,
          bint has_w, double[::1] sums, double[:, ::1] cls, int n_threads=1):
    """One pass of the hinge loss over decisions ``D`` ((n, 1) when ``binary``, else (n, K)
    over the K classes): fills ``sums`` (W, N, NAN, MAXP, MINP; zeroed by the caller with
    MAXP -inf and MINP +inf) and ``cls`` (3, K), zeroed: per class the sample count, the
    weighted ``max(0, 1 - d)`` and ``max(0, 1 + d)`` (binary: the loss as the positive /
    negative class), or (multiclass) the weighted ``max(0, 1 - (d[c] - max_{j != c} d[j]))``
    in the second row. ``LOSS`` sums the loss of every sample in its order, binary with the
    class mapped to ``sign[c]`` (+1 / -1). Returns -1, or the first row whose label is no
    class."""
    cdef Py_ssize_t n = D.shape[0]
    cdef Py_ssize_t K = cls.shape[1]
    cdef Py_ssize_t lane, n_lanes, bad = -1, b
    if y.shape[0] != n or (has_w and w.shape[0] != n) or sums.shape[0] < N_SUMS \
            or cls.shape[0] != 3 or (binary and D.shape[1] != 1) \
            or (not binary and (D.shape[1] != K or K < 2)) or sign.shape[0] != K:
        raise ValueError("hinge: inconsistent shapes")
    if n == 0:
        return -1
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    cdef double[:, ::1] lanes = np.zeros((n_lanes, N_SUMS))
    cdef double[:, ::1] lane_c = np.zeros((n_lanes, 3 * K))
    cdef double[:, ::1] blk = np.zeros((n_lanes, 3 * K))
    cdef Py_ssize_t[::1] lane_bad = np.full(n_lanes, -1, dtype=np.intp)
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            lane_bad[lane] = _hinge_lane(D, binary, y, lo, lut, sign, w, has_w, K,
                                         _lane_start(n, n_lanes, lane),
                                         _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0],
                                         &lane_c[lane, 0], &blk[lane, 0])
        for lane in range(n_lanes):
            b = lane_bad[lane]
            if b >= 0:
                bad = b
                break
            _add(&sums[0], &lanes[lane, 0], &cls[0, 0], &lane_c[lane, 0], 3 * K)
    return bad
