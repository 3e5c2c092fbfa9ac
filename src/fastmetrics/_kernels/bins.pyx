# distutils: depends = csrc/fm_bins.h
# cython: language_level=3
"""Calibration binning kernels.

One pass over the labels and the probabilities fills a per-bin *state*: a C-contiguous
float64 array of shape (n_bins, N_COLS) whose columns (defined once, in ``bins.pxd``) are the
sum of weights ``W``, of weighted confidence ``SP`` and correctness ``SY``, the Brier term
``SQ`` (scikit-learn's two-column term ``(y - p)**2 + ((1 - y) - (1 - p))**2``, written the
way it computes it; the unweighted binary kernel keeps this sum in registers and adds it to
the first bin, so only the column's total is meaningful, which is all the Brier score needs)
and the count ``N``.

Two states of the same edges merge by addition. Bins follow ``np.searchsorted(edges[1:-1], p,
side="left")``: closed on the right, a value on an inner edge goes to the lower bin, 0 goes to
the first bin and 1 to the last. Range checks (and NaN) are fused into the pass: the loop stops
at the first bad value and reports its index, so the caller raises.

The common call (binary, unweighted, contiguous, equal-width bins or one bin) runs
``csrc/fm_bins.h``'s block pass, near the cost of reading the inputs once: no branch per
sample, two probabilities an instruction, a bin's count and probability sum as one 16-byte
add, and with one bin (``brier_score_loss``) no bins at all. Its probability sums are the
element-by-element lanes' (sample i into bank i % 4, split by correctness), so every layout
of the same data gives the same bins; the Brier column's total agrees to rounding. Weighted
contiguous inputs take its weighted pass (``fm_bins_lane_w``), which fills
:func:`_binary_lane`'s banks with the same operations in the same order: the same bits.
"""

from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t)
from .common cimport group_t, label_t, weight_t, _lane_start
from libc.math cimport fabs, INFINITY
from libc.stdlib cimport calloc, free
from cython.parallel cimport prange

import numpy as np

cdef extern from "fm_bins.h" nogil:
    int FM_Y_I8, FM_Y_I16, FM_Y_I32, FM_Y_I64, FM_Y_U8, FM_Y_U16, FM_Y_U32, FM_Y_U64
    int FM_BINS_MAX_FAST  # more bins than this: the lanes below
    void fm_bins_lane(const void* y, int ykind, const void* p, int p_is_float,
                      Py_ssize_t start, Py_ssize_t stop, uint64_t pos, int pos_ok,
                      const double* E, Py_ssize_t nb, int binned, double* cells, double* acc,
                      int64_t* info)
    void fm_bins_lane_w(const void* y, int ykind, const void* p, int p_is_float, const void* w,
                        int w_is_float, Py_ssize_t start, Py_ssize_t stop, uint64_t pos,
                        int pos_ok, const double* E, Py_ssize_t nb, double* banks,
                        int64_t* info)


ctypedef fused prob_t:
    float
    double


# Column layout (W ... N, N_COLS) and the BAD_* kinds: bins.pxd.

cdef enum:
    NBANK = 4         # interleaved state copies in the binary kernel (a power of 2)
    LANE_MIN = 262144 # samples per lane at least
    GROUPED_LANE_BYTES = 1 << 25  # the grouped pass's lane tables, at most
    MAX_LANES = 64


cdef inline Py_ssize_t _bin_of(double v, const double* E, Py_ssize_t nb,
                               bint uniform) noexcept nogil:
    """Number of inner edges strictly below ``v`` (``searchsorted(inner, v, "left")``).

    ``E`` is the padded edge array ``[-inf, inner..., +inf]`` (nb + 1 values), so bin c is
    right when ``E[c] < v <= E[c + 1]``. Uniform edges: an arithmetic guess (off by at most
    one from the rounded linspace edges), then one branch-free correction each way, so the
    answer is the search's even for values exactly on a rounded edge."""
    cdef Py_ssize_t c, lo, hi, mid
    if uniform:
        c = <Py_ssize_t>(v * nb)
        c = c if c < nb - 1 else nb - 1
        c -= <Py_ssize_t>(E[c] >= v)
        c += <Py_ssize_t>(E[c + 1] < v)
        return c
    lo = 0
    hi = nb - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if E[mid + 1] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef void _binary_lane_unweighted(const label_t* yptr, Py_ssize_t sy, const prob_t* pptr,
                                  Py_ssize_t sp, label_t pos, bint pos_ok, const double* E,
                                  Py_ssize_t nb, bint uniform, Py_ssize_t start,
                                  Py_ssize_t stop, double* banks, int64_t* info) noexcept nogil:
    """:func:`_binary_lane` without weights, the common case, about twice as fast: counts
    and positives go to int64 banks, the Brier sum to two registers, so only the sum of
    probabilities is a floating-point read-modify-write per sample."""
    cdef Py_ssize_t i, b, r, k
    cdef label_t lo_other = 0
    cdef label_t hi_other = 0
    cdef label_t yv, v_lo, v_hi, m
    cdef int64_t is_pos
    cdef double pv, t, d0, d1, sq0 = 0.0, sq1 = 0.0
    cdef int64_t* cnt = <int64_t*>calloc(2 * NBANK * nb, sizeof(int64_t))
    cdef int64_t* npos
    # probability sums per (bank, bin, correctness), as fm_bins.h's cells: the same sums in
    # the same order, so every layout of the same data gives the same bits
    cdef double* sump = <double*>calloc(2 * NBANK * nb, sizeof(double))
    info[0] = -1
    info[1] = 0
    info[2] = -1
    if cnt == NULL or sump == NULL:
        free(cnt)
        free(sump)
        info[0] = start
        info[1] = -1  # out of memory: the caller raises MemoryError
        return
    npos = cnt + NBANK * nb
    for i in range(start, stop):
        yv = (<const label_t*>(<const char*>yptr + i * sy))[0]
        if not (pos_ok and yv == pos):
            lo_other = yv
            hi_other = yv
            info[2] = i
            break
    for i in range(start, stop):
        pv = <double>(<const prob_t*>(<const char*>pptr + i * sp))[0]
        if not (pv >= 0.0 and pv <= 1.0):
            info[0] = i
            info[1] = BAD_PROB
            break
        yv = (<const label_t*>(<const char*>yptr + i * sy))[0]
        is_pos = (yv == pos) & pos_ok
        m = <label_t>0 - <label_t>is_pos
        v_lo = (hi_other & m) | (yv & ~m)
        v_hi = (lo_other & m) | (yv & ~m)
        lo_other = v_lo if v_lo < lo_other else lo_other
        hi_other = v_hi if v_hi > hi_other else hi_other
        b = _bin_of(pv, E, nb, uniform)
        t = <double>is_pos
        d0 = t - pv
        d1 = (1.0 - t) - (1.0 - pv)
        r = (i & (NBANK - 1)) * nb + b
        cnt[r] += 1
        npos[r] += is_pos
        sump[2 * r + is_pos] += pv
        if i & 1:
            sq1 += d0 * d0 + d1 * d1
        else:
            sq0 += d0 * d0 + d1 * d1
    for k in range(NBANK):
        for b in range(nb):
            r = k * nb + b
            banks[r * N_COLS + W] += <double>cnt[r]
            banks[r * N_COLS + SP] += sump[2 * r] + sump[2 * r + 1]
            banks[r * N_COLS + SY] += <double>npos[r]
            banks[r * N_COLS + N] += <double>cnt[r]
    banks[SQ] += sq0 + sq1  # bank 0, bin 0: only the column total is read
    info[3] = <int64_t><uint64_t>lo_other
    info[4] = <int64_t><uint64_t>hi_other
    free(cnt)
    free(sump)


cdef void _binary_lane(const label_t* yptr, Py_ssize_t sy, const prob_t* pptr, Py_ssize_t sp,
                       const weight_t[:] w, bint has_w, label_t pos, bint pos_ok,
                       const double* E, Py_ssize_t nb, bint uniform, Py_ssize_t start,
                       Py_ssize_t stop, double* banks, int64_t* info) noexcept nogil:
    """One lane [start, stop) into its NBANK banks. ``info`` gets (bad index or -1, bad kind,
    index of the first non-positive label or -1, smallest and largest non-positive label
    as uint64 bit patterns)."""
    cdef Py_ssize_t i, b
    cdef label_t lo_other = 0
    cdef label_t hi_other = 0
    cdef label_t yv, v_lo, v_hi, m
    cdef bint is_pos
    cdef double pv, wv, t, d0, d1
    cdef double* row
    info[0] = -1
    info[1] = 0
    info[2] = -1
    for i in range(start, stop):
        yv = (<const label_t*>(<const char*>yptr + i * sy))[0]
        if not (pos_ok and yv == pos):
            lo_other = yv
            hi_other = yv
            info[2] = i
            break
    wv = 1.0
    for i in range(start, stop):
        pv = <double>(<const prob_t*>(<const char*>pptr + i * sp))[0]
        if not (pv >= 0.0 and pv <= 1.0):
            info[0] = i
            info[1] = BAD_PROB
            break
        if has_w:
            wv = <double>w[i]
            if wv - wv != 0.0:
                info[0] = i
                info[1] = BAD_WEIGHT
                break
        yv = (<const label_t*>(<const char*>yptr + i * sy))[0]
        is_pos = (yv == pos) & pos_ok
        t = <double>is_pos
        # Non-positive labels: track the smallest and largest, selecting without a branch
        # (labels are random: a branch would mispredict); a positive label changes nothing.
        m = <label_t>0 - <label_t>is_pos
        v_lo = (hi_other & m) | (yv & ~m)
        v_hi = (lo_other & m) | (yv & ~m)
        lo_other = v_lo if v_lo < lo_other else lo_other
        hi_other = v_hi if v_hi > hi_other else hi_other
        b = _bin_of(pv, E, nb, uniform)
        d0 = t - pv
        d1 = (1.0 - t) - (1.0 - pv)
        # NBANK interleaved copies of the state: consecutive samples in the same bin do not
        # wait on each other's read-modify-write
        row = banks + ((i & (NBANK - 1)) * nb + b) * N_COLS
        row[W] += wv
        row[SP] += wv * pv
        row[SY] += wv * t
        row[SQ] += wv * (d0 * d0 + d1 * d1)
        row[N] += 1.0
    info[3] = <int64_t><uint64_t>lo_other
    info[4] = <int64_t><uint64_t>hi_other


def bin_binary(const label_t[:] y, const prob_t[:] p, const weight_t[:] w, bint has_w,
               label_t pos, bint pos_ok, const double[::1] padded_edges, bint uniform,
               double[:, ::1] state, int n_threads=1):
    """Add one pass over binary labels ``y`` (positive when ``== pos``) and positive-class
    probabilities ``p`` into ``state`` (see the module docstring). ``padded_edges`` is
    ``[-inf, edges[1:-1]..., +inf]``; ``uniform`` says the edges are ``linspace(0, 1)``.

    Large inputs are cut into lanes (their number depends on n only) run on up to
    ``n_threads`` OpenMP threads; lane states are summed in lane order, so the result is
    the same for any thread count.

    Returns ``(bad_index, bad_kind, n_other_kinds, other)``: ``bad_index`` is -1 when every
    value was valid; ``n_other_kinds`` is how many distinct non-positive label values were
    seen (0, 1 or 2 meaning "two or more") and ``other`` the smallest of them."""
    cdef Py_ssize_t n = p.shape[0]
    cdef Py_ssize_t nb = state.shape[0]
    cdef Py_ssize_t lane, n_lanes, k, b, c
    cdef label_t lo_other = 0
    cdef label_t hi_other = 0
    cdef label_t v
    cdef bint seen_other = False
    cdef Py_ssize_t bad = -1
    cdef int kind = 0
    if y.shape[0] != n or (has_w and w.shape[0] != n) or state.shape[1] != N_COLS \
            or padded_edges.shape[0] != nb + 1 or nb < 1:
        raise ValueError("bin_binary: inconsistent shapes")
    if not (padded_edges[0] == -INFINITY and padded_edges[nb] == INFINITY):
        # (what keeps every bin index in range: the kernel's guess is corrected against them)
        raise ValueError("bin_binary: the padded edges must start at -inf and end at +inf")
    if n == 0:
        return -1, 0, 0, 0
    cdef const double* E = &padded_edges[0]
    # byte strides (a field of a packed record array has one that is not a whole number of
    # items)
    cdef Py_ssize_t sy = y.strides[0]
    cdef Py_ssize_t sp = p.strides[0]
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    if sy == sizeof(label_t) and sp == sizeof(prob_t) and (uniform or nb == 1) \
            and nb <= FM_BINS_MAX_FAST and (not has_w or w.strides[0] == sizeof(weight_t)):
        return _binary_blocks(y, p, w, has_w, pos, pos_ok, padded_edges, state, n_lanes,
                              n_threads)
    cdef double[:, ::1] banks = np.zeros((n_lanes, NBANK * nb * N_COLS))
    cdef int64_t[:, ::1] info = np.zeros((n_lanes, 5), np.int64)
    cdef const label_t* yptr = &y[0]
    cdef const prob_t* pptr = &p[0]
    with nogil:
        # one lane at a time without an OpenMP team when there is nothing to share
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1 and n_lanes > 1):
            if has_w:
                _binary_lane(yptr, sy, pptr, sp, w, has_w, pos, pos_ok, E, nb, uniform,
                             _lane_start(n, n_lanes, lane), _lane_start(n, n_lanes, lane + 1),
                             &banks[lane, 0], &info[lane, 0])
            else:
                _binary_lane_unweighted(yptr, sy, pptr, sp, pos, pos_ok, E, nb, uniform,
                                        _lane_start(n, n_lanes, lane),
                                        _lane_start(n, n_lanes, lane + 1),
                                        &banks[lane, 0], &info[lane, 0])
        for lane in range(n_lanes):
            if info[lane, 0] >= 0:
                bad = info[lane, 0]
                kind = <int>info[lane, 1]
                break
            if info[lane, 2] >= 0:
                v = <label_t><uint64_t>info[lane, 3]
                if not seen_other or v < lo_other:
                    lo_other = v
                v = <label_t><uint64_t>info[lane, 4]
                if not seen_other or v > hi_other:
                    hi_other = v
                seen_other = True
        if bad < 0:
            for lane in range(n_lanes):
                for k in range(NBANK):
                    for b in range(nb):
                        for c in range(N_COLS):
                            state[b, c] += banks[lane, (k * nb + b) * N_COLS + c]
    if bad >= 0:
        if kind == -1:
            raise MemoryError("bin_binary: no memory for the lane counters")
        return bad, kind, 0, 0
    return bad, kind, (0 if not seen_other else (1 if lo_other == hi_other else 2)), int(lo_other)


cdef int _label_kind(label_t v) noexcept nogil:
    """fm_bins.h's code of the label type."""
    if label_t is int8_t:
        return FM_Y_I8
    elif label_t is int16_t:
        return FM_Y_I16
    elif label_t is int32_t:
        return FM_Y_I32
    elif label_t is int64_t:
        return FM_Y_I64
    elif label_t is uint8_t:
        return FM_Y_U8
    elif label_t is uint16_t:
        return FM_Y_U16
    elif label_t is uint32_t:
        return FM_Y_U32
    else:
        return FM_Y_U64


def _binary_blocks(const label_t[:] y, const prob_t[:] p, const weight_t[:] w, bint has_w,
                   label_t pos, bint pos_ok, const double[::1] padded_edges,
                   double[:, ::1] state, Py_ssize_t n_lanes, int n_threads):
    """:func:`bin_binary` over contiguous inputs and equal-width bins (or one bin):
    fm_bins.h's block passes, lane by lane (same lanes, same results for any thread count).
    Unweighted with one bin (``brier_score_loss``) skips the bins and their cells
    altogether; weighted, the lanes fill the element-by-element lanes' banks, bit for bit."""
    cdef Py_ssize_t n = p.shape[0]
    cdef Py_ssize_t nb = state.shape[0]
    cdef Py_ssize_t lane, k, b, r
    cdef int binned = nb > 1
    cdef int ykind = _label_kind(pos)
    cdef uint64_t pos_bits = <uint64_t><int64_t>pos
    cdef label_t lo_other = 0
    cdef label_t hi_other = 0
    cdef label_t v
    cdef bint seen_other = False
    cdef bint third = False
    cdef Py_ssize_t bad = -1
    cdef int kind = BAD_PROB
    cdef Py_ssize_t c
    cdef double[:, ::1] cells = np.zeros((n_lanes, 1 if has_w or not binned else 16 * nb))
    cdef double[:, ::1] banks = np.zeros((n_lanes, NBANK * nb * N_COLS if has_w else 1))
    cdef double[:, ::1] acc = np.zeros((n_lanes, 3))
    cdef int64_t[:, ::1] info = np.zeros((n_lanes, 5), np.int64)
    cdef const double* E = &padded_edges[0]
    cdef const void* yptr = &y[0]
    cdef const void* pptr = &p[0]
    cdef const void* wptr = &w[0] if has_w else NULL
    cdef int p_is_float = prob_t is float
    cdef int w_is_float = weight_t is float
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1 and n_lanes > 1):
            if has_w:
                fm_bins_lane_w(yptr, ykind, pptr, p_is_float, wptr, w_is_float,
                               _lane_start(n, n_lanes, lane), _lane_start(n, n_lanes, lane + 1),
                               pos_bits, pos_ok, E, nb, &banks[lane, 0], &info[lane, 0])
            else:
                fm_bins_lane(yptr, ykind, pptr, p_is_float, _lane_start(n, n_lanes, lane),
                             _lane_start(n, n_lanes, lane + 1), pos_bits, pos_ok, E, nb,
                             binned, &cells[lane, 0], &acc[lane, 0], &info[lane, 0])
        for lane in range(n_lanes):
            if info[lane, 0] >= 0:
                bad = info[lane, 0]
                if has_w:
                    kind = <int>info[lane, 4]
                break
            if info[lane, 1]:
                v = <label_t><uint64_t>info[lane, 2]
                if not seen_other or v < lo_other:
                    lo_other = v
                if not seen_other or v > hi_other:
                    hi_other = v
                seen_other = True
            third = third or info[lane, 3] != 0
        if bad < 0:
            for lane in range(n_lanes):
                if has_w:
                    # in bin_binary's order: the same sums of the same banks
                    for k in range(NBANK):
                        for b in range(nb):
                            for c in range(N_COLS):
                                state[b, c] += banks[lane, (k * nb + b) * N_COLS + c]
                    continue
                if binned:
                    # cell (bank k, bin b, correctness t): count and probability sum
                    for k in range(NBANK):
                        for b in range(nb):
                            r = (k * nb + b) * 4
                            state[b, W] += cells[lane, r] + cells[lane, r + 2]
                            state[b, N] += cells[lane, r] + cells[lane, r + 2]
                            state[b, SP] += cells[lane, r + 1] + cells[lane, r + 3]
                            state[b, SY] += cells[lane, r + 2]
                else:
                    r = _lane_start(n, n_lanes, lane + 1) - _lane_start(n, n_lanes, lane)
                    state[0, W] += <double>r
                    state[0, N] += <double>r
                    state[0, SP] += acc[lane, 1]
                    state[0, SY] += acc[lane, 2]
                state[0, SQ] += acc[lane, 0]  # only the column total is read
    if bad >= 0:
        return bad, kind, 0, 0
    if not seen_other:
        return -1, 0, 0, 0
    return -1, 0, (2 if third or lo_other != hi_other else 1), int(lo_other)


def bin_top_label(const label_t[:] y, const prob_t[:, :] P, const weight_t[:] w, bint has_w,
                  const double[::1] padded_edges, bint uniform, double tol, double[:, ::1] state,
                  double[::1] extra, int64_t[::1] seen):
    """Top-label pass over a probability matrix ``P`` (n, K) and class indices ``y``.

    Confidence is the row maximum, correctness ``argmax == y`` (first maximum, as numpy).
    Bins are filled exactly as in :func:`bin_binary`, with (confidence, correct) in place of
    (p, y), so half of ``SQ / W`` is the top-label Brier score. ``extra[0]`` gets the sum of
    w * sum_k (onehot_k - P_k)**2 (scikit-learn's multiclass Brier numerator) and ``seen[k]``
    the number of rows of class k.

    Returns ``(bad_index, bad_kind, n_not_normalised)``; a row is not normalised when its
    sum differs from 1 by more than ``tol``."""
    cdef Py_ssize_t n = P.shape[0]
    cdef Py_ssize_t K = P.shape[1]
    cdef Py_ssize_t nb = state.shape[0]
    cdef Py_ssize_t i, k, b, arg
    cdef Py_ssize_t bad = -1
    cdef int kind = 0
    cdef int64_t n_unnorm = 0
    cdef uint64_t yk
    cdef double v, best, s, sqk, d, wv, t
    cdef double* row
    if y.shape[0] != n or (has_w and w.shape[0] != n) or state.shape[1] != N_COLS \
            or padded_edges.shape[0] != nb + 1 or nb < 1 or K < 1 or seen.shape[0] != K \
            or extra.shape[0] < 1:
        raise ValueError("bin_top_label: inconsistent shapes")
    if not (padded_edges[0] == -INFINITY and padded_edges[nb] == INFINITY):
        # (what keeps every bin index in range: the kernel's guess is corrected against them)
        raise ValueError("bin_top_label: the padded edges must start at -inf and end at +inf")
    cdef const double* inner_p = &padded_edges[0]
    with nogil:
        wv = 1.0
        for i in range(n):
            if has_w:
                wv = <double>w[i]
                if wv - wv != 0.0:
                    bad = i
                    kind = BAD_WEIGHT
                    break
            # label_t may be signed: a negative value wraps to a huge unsigned one.
            yk = <uint64_t>y[i]
            if yk >= <uint64_t>K:
                bad = i
                kind = BAD_LABEL
                break
            best = -1.0
            arg = 0
            s = 0.0
            sqk = 0.0
            for k in range(K):
                v = <double>P[i, k]
                if not (v >= 0.0 and v <= 1.0):
                    bad = i
                    kind = BAD_PROB
                    break
                s += v
                if v > best:
                    best = v
                    arg = k
                d = (1.0 if <uint64_t>k == yk else 0.0) - v
                sqk += d * d
            if bad >= 0:
                break
            if fabs(s - 1.0) > tol:
                n_unnorm += 1
            seen[yk] += 1
            t = 1.0 if <uint64_t>arg == yk else 0.0
            b = _bin_of(best, inner_p, nb, uniform)
            d = t - best
            s = (1.0 - t) - (1.0 - best)
            row = &state[b, 0]
            row[W] += wv
            row[SP] += wv * best
            row[SY] += wv * t
            row[SQ] += wv * (d * d + s * s)
            row[N] += 1.0
            extra[0] += wv * sqk
    return bad, kind, n_unnorm


cdef Py_ssize_t _binary_grouped_lane(const group_t[:] codes, const unsigned char[:] positive,
                                     const prob_t[:] p, const weight_t[:] w, bint has_w,
                                     const double* E, Py_ssize_t nb, bint uniform, int64_t G,
                                     Py_ssize_t start, Py_ssize_t stop, double* state,
                                     int* kind) noexcept nogil:
    """Rows [start, stop) into their groups' bins ``state[(g * nb + b) * N_COLS:]``; the
    first bad row (its kind in ``kind``), nothing added from it on, or -1."""
    cdef Py_ssize_t i, b
    cdef int64_t c
    cdef double pv, wv = 1.0, t, d0, d1
    cdef double* row
    for i in range(start, stop):
        c = <int64_t>codes[i]  # a uint64 code past int64 wraps negative: refused too
        if c < 0 or c >= G:
            kind[0] = BAD_GROUP
            return i
        pv = <double>p[i]
        if not (pv >= 0.0 and pv <= 1.0):
            kind[0] = BAD_PROB
            return i
        if has_w:
            wv = <double>w[i]
            if wv - wv != 0.0:
                kind[0] = BAD_WEIGHT
                return i
        t = <double>(positive[i] != 0)
        b = _bin_of(pv, E, nb, uniform)
        d0 = t - pv
        d1 = (1.0 - t) - (1.0 - pv)  # scikit-learn's two-column Brier term, as written
        row = state + (c * nb + b) * N_COLS
        row[W] += wv
        row[SP] += wv * pv
        row[SY] += wv * t
        row[SQ] += wv * (d0 * d0 + d1 * d1)
        row[N] += 1.0
    return -1


def bin_binary_grouped(const group_t[:] codes, const unsigned char[:] positive,
                       const prob_t[:] p, const weight_t[:] w, bint has_w,
                       const double[::1] padded_edges, bint uniform,
                       double[:, :, ::1] state, int n_threads=1):
    """Add each row into its group's bins: ``state[g]`` gets what :func:`bin_binary` puts
    in its state for group g's rows alone (``positive``: each row's label is the positive
    class, 0 or 1), the same columns, the sums to rounding. One pass, no ordering of the
    rows by group.

    Large inputs are cut into lanes whose number depends on n and the table's size only
    (each lane holds a table of every group's bins), run on up to ``n_threads`` OpenMP
    threads and added in lane order: the same for any thread count.

    Returns ``(bad_index, bad_kind)``: -1 and 0 when every value was valid; else the first
    row whose group code is outside ``range(state.shape[0])`` (``BAD_GROUP``), whose
    probability is outside [0, 1] or NaN (``BAD_PROB``) or whose weight is not finite
    (``BAD_WEIGHT``), nothing added from it on."""
    cdef Py_ssize_t n = p.shape[0]
    cdef Py_ssize_t nb = state.shape[1]
    cdef int64_t G = state.shape[0]
    cdef Py_ssize_t lane, n_lanes, bad = -1, k, cells
    cdef int kind = 0
    if codes.shape[0] != n or positive.shape[0] != n or (has_w and w.shape[0] != n) \
            or state.shape[2] != N_COLS or padded_edges.shape[0] != nb + 1 or nb < 1:
        raise ValueError("bin_binary_grouped: inconsistent shapes")
    if not (padded_edges[0] == -INFINITY and padded_edges[nb] == INFINITY):
        # (what keeps every bin index in range: the kernel's guess is corrected against them)
        raise ValueError("bin_binary_grouped: the padded edges must start at -inf and end at +inf")
    if n == 0:
        return -1, 0
    cdef const double* E = &padded_edges[0]
    cells = G * nb * N_COLS
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    n_lanes = min(n_lanes, max(1, GROUPED_LANE_BYTES // (cells * 8)))
    if n_lanes == 1:
        with nogil:
            bad = _binary_grouped_lane(codes, positive, p, w, has_w, E, nb, uniform, G, 0, n,
                                       &state[0, 0, 0], &kind)
        return bad, kind
    cdef double[:, ::1] lanes = np.zeros((n_lanes, cells))
    cdef Py_ssize_t[::1] lane_bad = np.full(n_lanes, -1, dtype=np.intp)
    cdef int[::1] lane_kind = np.zeros(n_lanes, dtype=np.intc)
    cdef double* out = &state[0, 0, 0]
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            lane_bad[lane] = _binary_grouped_lane(codes, positive, p, w, has_w, E, nb,
                                                  uniform, G, _lane_start(n, n_lanes, lane),
                                                  _lane_start(n, n_lanes, lane + 1),
                                                  &lanes[lane, 0], &lane_kind[lane])
        for lane in range(n_lanes):
            if lane_bad[lane] >= 0:
                bad, kind = lane_bad[lane], lane_kind[lane]
                break
            for k in range(cells):
                out[k] += lanes[lane, k]
    return bad, kind
