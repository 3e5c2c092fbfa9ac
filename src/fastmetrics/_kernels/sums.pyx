# distutils: depends = csrc/fm_sums.h
# cython: language_level=3
"""Regression sums kernel.

One pass over ``y_true``, ``y_pred`` (and optional weights) fills a float64 *state* of
``N_STATE`` values from which every mean-type regression metric is derived; its slots (``W``,
``ABS``, ``SQ``, ``APE``, ``HUBER``, ``MEAN``, ``M2``, ``N``, ``CONST``, ``FIRST``,
``MAXABS``, ``MEANE``, ``M2E``) and the
``FLAG_*`` bits that ask for the optional sums are defined once, in ``sums.pxd``.

The input is read in blocks of ``BLOCK`` samples. Within a block the sums are plain; the
spread of y_true is computed two-pass over the (cache-resident) block around the block mean,
and blocks are combined with Chan et al.'s pairwise update. So R² keeps the accuracy of a
two-pass algorithm (no ``sum y**2 - (sum y)**2 / n`` cancellation) while each element is read
from memory once. Two states merge with :func:`merge` (sums add; MEAN/M2 use the same
update, as MEANE/M2E, the mean and spread of the errors; MAXABS is a max).

The plain sums of a block and its spread of y_true come from ``csrc/fm_sums.h``: four
partial sums per running sum (SSE2 for float64), so no sample waits for the
previous one's addition; every layout gives the same partial sums, so the same bits.

Inputs are never checked element by element here: a NaN or infinity shows up as a
non-finite sum, and the Python layer then looks for the culprit (error path only).
"""

from libc.math cimport fabs
from libc.stdlib cimport free, malloc
from libc.stdint cimport int64_t
from .common cimport group_t, weight_t, yp_t, yt_t, _lane_start
from cython.parallel cimport prange

import numpy as np

cdef extern from "fm_sums.h" nogil:
    double EPS64 "FM_SUMS_EPS64"
    int FM_S_W, FM_S_ABS, FM_S_SQ, FM_S_APE, FM_S_HUB, FM_S_MEAN, FM_S_M2, FM_S_DIFF
    enum: FM_S_N
    void fm_sums_block(const char* y, Py_ssize_t sy, int y_f32, const char* p, Py_ssize_t sp,
                       int p_f32, const char* w, Py_ssize_t sw, int w_f32, int has_w,
                       int flags, double delta, Py_ssize_t start, Py_ssize_t stop,
                       double first, double* out)
    void fm_sums_rows(const char* y, Py_ssize_t sy0, Py_ssize_t sy1, int y_f32, const char* p,
                      Py_ssize_t sp0, Py_ssize_t sp1, int p_f32, const char* w, Py_ssize_t sw,
                      int w_f32, int has_w, int flags, double delta, Py_ssize_t start,
                      Py_ssize_t stop, Py_ssize_t m, const double* first, double* out)

cdef enum:
    LANE_MIN = 262144  # samples per lane at least
    GROUPED_LANE_BYTES = 1 << 25  # the grouped kernel's lane tables, at most
    MAX_LANES = 64
    BLOCK = 2048


cdef inline void _chan(double* st, double wb, double mb, double m2b) noexcept nogil:
    """Merge a block (weight wb, mean mb, spread m2b) into st[W]/st[MEAN]/st[M2]."""
    _chan_at(st, MEAN, M2, wb, mb, m2b)


cdef inline void _chan_at(double* st, int ms, int m2s, double wb, double mb,
                          double m2b) noexcept nogil:
    """Merge a block (weight wb, mean mb, spread m2b) into the mean st[ms] and spread
    st[m2s] of weight st[W] (not yet updated)."""
    cdef double wa = st[W]
    cdef double wt = wa + wb
    cdef double delta
    if wb == 0.0:
        return
    if wa == 0.0:
        st[ms] = mb
        st[m2s] = m2b
        return
    delta = mb - st[ms]
    st[ms] = st[ms] + delta * (wb / wt)
    st[m2s] = st[m2s] + m2b + delta * delta * (wa * (wb / wt))


cdef inline void _max_and_err_sum(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w,
                                  bint has_w, Py_ssize_t start, Py_ssize_t stop,
                                  bint want_max, bint want_sum, double* bmax,
                                  double* bse) noexcept nogil:
    """The largest |e| of [start, stop) into ``bmax`` (a running max) and the sum of w * e
    into ``bse``, whichever are wanted (an unwanted max stays as it was, so that a state
    holds no sum its flags did not ask for): a second read of the cache-resident block, so
    that the main loop (every metric's) keeps its code and speed."""
    cdef Py_ssize_t i
    cdef double e, ae, wv = 1.0, m = bmax[0], se = 0.0
    for i in range(start, stop):
        e = <double>y[i] - <double>p[i]
        if want_max:
            ae = fabs(e)
            if ae > m:
                m = ae
        if want_sum:
            if has_w:
                wv = <double>w[i]
            se += wv * e
    bmax[0] = m
    bse[0] = se


cdef inline double _err_spread(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w,
                               bint has_w, Py_ssize_t start, Py_ssize_t stop, double bw,
                               double meb) noexcept nogil:
    """Corrected two-pass spread of the errors of [start, stop) around their block mean
    ``meb`` (the block is in cache: the second read costs no memory traffic)."""
    cdef Py_ssize_t i
    cdef double m2 = 0.0, c = 0.0, d, wv = 1.0
    for i in range(start, stop):
        d = (<double>y[i] - <double>p[i]) - meb
        if has_w:
            wv = <double>w[i]
        m2 += wv * (d * d)
        c += wv * d
    return m2 - c * (c / bw)


cdef inline void _block(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w,
                        int flags, double delta, Py_ssize_t start, Py_ssize_t stop,
                        double* state) noexcept nogil:
    """Samples [start, stop) (one block) added into ``state``, whose FIRST holds the lane's
    first value and whose CONST is cleared when a value differs from it. The plain sums and
    the block's mean and spread of y_true come from fm_sums.h (partial sums, SSE2)."""
    cdef double out[FM_S_N]
    fm_sums_block(<const char*>&y[0], y.strides[0], yt_t is float,
                  <const char*>&p[0], p.strides[0], yp_t is float,
                  <const char*>&w[0] if has_w else NULL, w.strides[0] if has_w else 0,
                  weight_t is float, has_w, flags & (FLAG_APE | FLAG_HUBER | FLAG_R2), delta,
                  start, stop, state[FIRST], out)
    _add_block(y, p, w, has_w, flags, start, stop, out, state)


cdef inline void _add_block(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w,
                            bint has_w, int flags, Py_ssize_t start, Py_ssize_t stop,
                            const double* out, double* state) noexcept nogil:
    """A block's sums ``out`` (fm_sums.h's) added into ``state``, with the largest error
    and the errors' spread where ``flags`` asks for them (read from the cached block)."""
    cdef double bmax = state[MAXABS]
    cdef bint want_max = (flags & FLAG_MAX) != 0
    cdef bint want_ev = (flags & FLAG_EV) != 0
    cdef double bse = 0.0
    cdef double bw, mb
    bw = out[FM_S_W]
    _chan(state, bw, out[FM_S_MEAN], out[FM_S_M2])
    if want_max or want_ev:
        _max_and_err_sum(y, p, w, has_w, start, stop, want_max, want_ev, &bmax, &bse)
    if want_ev and bw != 0.0:
        mb = bse / bw
        _chan_at(state, MEANE, M2E, bw, mb, _err_spread(y, p, w, has_w, start, stop, bw, mb))
    state[W] += bw
    state[ABS] += out[FM_S_ABS]
    state[SQ] += out[FM_S_SQ]
    state[APE] += out[FM_S_APE]
    state[HUBER] += out[FM_S_HUB]
    state[MAXABS] = bmax
    if out[FM_S_DIFF] != 0.0:
        state[CONST] = 0.0


cdef inline void _finish(double* state, Py_ssize_t count) noexcept nogil:
    state[N] += <double>count
    # FIRST is the common value of a constant y_true, else 0: the state does not depend on
    # which sample came first, so any split merged in any order gives one pass's state
    if state[CONST] != 0.0:
        state[M2] = 0.0
    else:
        state[FIRST] = 0.0


cdef void _lane_sums(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w,
                     int flags, double delta, Py_ssize_t start0, Py_ssize_t stop0,
                     double* state) noexcept nogil:
    """The state of samples [start0, stop0) into ``state`` (zeroed), block by block."""
    cdef Py_ssize_t start = start0
    if stop0 <= start0:
        return
    state[FIRST] = <double>y[start0]
    state[CONST] = 1.0
    while start < stop0:
        _block(y, p, w, has_w, flags, delta, start, min(start + BLOCK, stop0), state)
        start += BLOCK
    _finish(state, stop0 - start0)


cdef inline Py_ssize_t _mag(Py_ssize_t s) noexcept nogil:
    return -s if s < 0 else s


cdef void _lane_sums2d(const yt_t[:, :] y, const yp_t[:, :] p, const weight_t[:] w,
                       bint has_w, int flags, double delta, Py_ssize_t start0,
                       Py_ssize_t stop0, double* state) noexcept nogil:
    """The states of rows [start0, stop0), one per column, into ``state`` (zeroed, m rows of
    N_STATE). Block by block, every column of a block is summed while the block is in cache,
    so C- and F-ordered inputs alike are read from memory once: row-major inputs (columns
    closer than rows) row by row in order (fm_sums_rows), the others column by column; both
    give each column's block sums bit for bit, so every layout gives the same state."""
    cdef Py_ssize_t m = y.shape[1]
    cdef Py_ssize_t start = start0
    cdef Py_ssize_t stop, j
    cdef bint rows = (_mag(y.strides[1]) <= _mag(y.strides[0])
                      and _mag(p.strides[1]) <= _mag(p.strides[0]))
    cdef double* first = NULL
    cdef double* out = NULL
    if stop0 <= start0:
        return
    if rows:
        first = <double*>malloc(m * (FM_S_N + 1) * sizeof(double))
        if first == NULL:
            rows = False
        else:
            out = first + m
    for j in range(m):
        state[j * N_STATE + FIRST] = <double>y[start0, j]
        state[j * N_STATE + CONST] = 1.0
        if rows:
            first[j] = state[j * N_STATE + FIRST]
    while start < stop0:
        stop = min(start + BLOCK, stop0)
        if rows:
            fm_sums_rows(<const char*>&y[0, 0], y.strides[0], y.strides[1], yt_t is float,
                         <const char*>&p[0, 0], p.strides[0], p.strides[1], yp_t is float,
                         <const char*>&w[0] if has_w else NULL, w.strides[0] if has_w else 0,
                         weight_t is float, has_w, flags & (FLAG_APE | FLAG_HUBER | FLAG_R2),
                         delta, start, stop, m, first, out)
            for j in range(m):
                _add_block(y[:, j], p[:, j], w, has_w, flags, start, stop, &out[j * FM_S_N],
                           &state[j * N_STATE])
        else:
            for j in range(m):
                _block(y[:, j], p[:, j], w, has_w, flags, delta, start, stop,
                       &state[j * N_STATE])
        start += BLOCK
    free(first)
    for j in range(m):
        _finish(&state[j * N_STATE], stop0 - start0)


cdef void _merge_into(double* a, const double* b) noexcept nogil:
    """State ``b`` merged into state ``a`` (see :func:`merge`)."""
    cdef Py_ssize_t k
    cdef bint both_const = a[CONST] != 0.0 and b[CONST] != 0.0 and a[FIRST] == b[FIRST]
    if a[N] == 0.0:
        for k in range(N_STATE):
            a[k] = b[k]
        return
    if b[N] == 0.0:
        return
    _chan(a, b[W], b[MEAN], b[M2])
    _chan_at(a, MEANE, M2E, b[W], b[MEANE], b[M2E])
    for k in range(HUBER + 1):  # the plain sums W .. HUBER add
        a[k] += b[k]
    if b[MAXABS] > a[MAXABS]:
        a[MAXABS] = b[MAXABS]
    a[N] += b[N]
    a[CONST] = 1.0 if both_const else 0.0
    if both_const:
        a[M2] = 0.0
    else:
        a[FIRST] = 0.0


def sums(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w, int flags,
         double delta, double[::1] state, int n_threads=1):
    """Fill ``state`` (length ``N_STATE``, zeroed by the caller) from one pass.

    Large inputs are cut into lanes whose number depends on n only; lanes run on up to
    ``n_threads`` OpenMP threads and their states are merged in lane order, so the result is
    the same for any thread count."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t lane, n_lanes
    if p.shape[0] != n or (has_w and w.shape[0] != n) or state.shape[0] < N_STATE:
        raise ValueError("sums: inconsistent shapes")
    if n == 0:
        return
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    if n_lanes == 1:
        with nogil:
            _lane_sums(y, p, w, has_w, flags, delta, 0, n, &state[0])
        return
    cdef double[:, ::1] lanes = np.zeros((n_lanes, N_STATE))
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            _lane_sums(y, p, w, has_w, flags, delta, _lane_start(n, n_lanes, lane),
                       _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0])
        for lane in range(n_lanes):
            _merge_into(&state[0], &lanes[lane, 0])


def sums2d(const yt_t[:, :] y, const yp_t[:, :] p, const weight_t[:] w, bint has_w,
           int flags, double delta, double[:, ::1] state, int n_threads=1):
    """Fill ``state`` (shape (m, N_STATE), zeroed by the caller) from one pass over the
    (n, m) targets, any strides: row ``j`` is the state of column ``j``, the same values
    :func:`sums` gives for that column alone. Lanes as :func:`sums`."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t m = y.shape[1]
    cdef Py_ssize_t lane, n_lanes, j
    if p.shape[0] != n or p.shape[1] != m or (has_w and w.shape[0] != n) \
            or state.shape[0] != m or state.shape[1] < N_STATE:
        raise ValueError("sums2d: inconsistent shapes")
    if n == 0 or m == 0:
        return
    n_lanes = min(MAX_LANES, max(1, (n * m) // LANE_MIN))
    n_lanes = min(n_lanes, max(1, n // BLOCK))
    if n_lanes == 1:
        with nogil:
            _lane_sums2d(y, p, w, has_w, flags, delta, 0, n, &state[0, 0])
        return
    cdef double[:, :, ::1] lanes = np.zeros((n_lanes, m, N_STATE))
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            _lane_sums2d(y, p, w, has_w, flags, delta, _lane_start(n, n_lanes, lane),
                         _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0, 0])
        for lane in range(n_lanes):
            for j in range(m):
                _merge_into(&state[j, 0], &lanes[lane, j, 0])


def merge(double[::1] a, const double[::1] b):
    """Merge state ``b`` into state ``a`` (same meaning as one pass over both inputs)."""
    if a.shape[0] < N_STATE or b.shape[0] < N_STATE:
        raise ValueError("merge: states must have N_STATE values")
    _merge_into(&a[0], &b[0])


def merge_rows(double[:, ::1] a, const double[:, ::1] b, const int64_t[::1] rows):
    """Merge state ``b[g]`` into state ``a[rows[g]]`` for every g (as :func:`merge` of each
    pair, in one call; ``rows`` distinct)."""
    cdef Py_ssize_t g, n = b.shape[0]
    if rows.shape[0] != n or a.shape[1] < N_STATE or b.shape[1] < N_STATE:
        raise ValueError("merge_rows: inconsistent shapes")
    for g in range(n):
        if rows[g] < 0 or rows[g] >= a.shape[0]:
            raise ValueError("merge_rows: a row outside the states")
    with nogil:
        for g in range(n):
            _merge_into(&a[rows[g], 0], &b[g, 0])


def binned_abs_error(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w,
                     const double[::1] lo, const double[::1] hi, double[:, ::1] out):
    """For each bin b (``lo[b] <= y_true <= hi[b]``, bins may overlap) add the sum of
    weights to ``out[b, 0]``, the sum of w * |e| to ``out[b, 1]`` and the count to
    ``out[b, 2]``."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t nb = lo.shape[0]
    cdef Py_ssize_t i, b
    cdef double yv, ae, wv
    if p.shape[0] != n or (has_w and w.shape[0] != n) or hi.shape[0] != nb \
            or out.shape[0] != nb or out.shape[1] != 3:
        raise ValueError("binned_abs_error: inconsistent shapes")
    with nogil:
        wv = 1.0
        for i in range(n):
            yv = <double>y[i]
            ae = fabs(yv - <double>p[i])
            if has_w:
                wv = <double>w[i]
            for b in range(nb):
                if lo[b] <= yv and yv <= hi[b]:
                    out[b, 0] += wv
                    out[b, 1] += wv * ae
                    out[b, 2] += 1.0


cdef Py_ssize_t _grouped_lane(const group_t[:] codes, const double[:] y, const double[:] p,
                              const weight_t[:] w, bint has_w, int flags, double delta,
                              int64_t n_groups, Py_ssize_t start, Py_ssize_t stop,
                              double* t) noexcept nogil:
    """Rows [start, stop) added into their groups' states ``t[g * N_STATE:]`` (zeroed),
    each row read once: the plain sums add, the means and spreads of y_true and of the
    errors follow the weighted running update (West's: the spread stays as accurate as a
    two-pass one, with no ``sum y**2`` cancellation). The lane's states are then finished
    (CONST / FIRST as one pass's). Returns the first row whose code is outside
    ``[0, n_groups)`` (nothing past it counted), or -1."""
    cdef Py_ssize_t i
    cdef int64_t g
    cdef double yv, e, ae, ay, wv = 1.0, wt, r, d
    cdef double* s
    cdef bint want_ape = (flags & FLAG_APE) != 0
    cdef bint want_hub = (flags & FLAG_HUBER) != 0
    cdef bint want_r2 = (flags & FLAG_R2) != 0
    cdef bint want_max = (flags & FLAG_MAX) != 0
    cdef bint want_ev = (flags & FLAG_EV) != 0
    cdef double half_delta = 0.5 * delta
    for i in range(start, stop):
        g = <int64_t>codes[i]
        # a uint64 code past int64 wraps negative: refused by the same test
        if g < 0 or g >= n_groups:
            return i
        s = t + g * N_STATE
        yv = y[i]
        e = yv - p[i]
        ae = fabs(e)
        if has_w:
            wv = <double>w[i]
        if s[N] == 0.0:
            s[FIRST] = yv
            s[CONST] = 1.0
        elif yv != s[FIRST]:
            s[CONST] = 0.0
        s[N] += 1.0
        s[ABS] += wv * ae
        s[SQ] += wv * (e * e)
        if want_ape:
            ay = fabs(yv)
            s[APE] += wv * (ae / (ay if ay > EPS64 else EPS64))
        if want_hub:
            s[HUBER] += wv * (0.5 * e * e if ae <= delta else delta * (ae - half_delta))
        if want_max and ae > s[MAXABS]:
            s[MAXABS] = ae
        wt = s[W] + wv
        if wv != 0.0 and wt != 0.0:
            r = wv / wt
            if want_r2:
                d = yv - s[MEAN]
                s[MEAN] += d * r
                s[M2] += wv * (d * (d - d * r))
            if want_ev:
                d = e - s[MEANE]
                s[MEANE] += d * r
                s[M2E] += wv * (d * (d - d * r))
        s[W] = wt
    for g in range(n_groups):
        s = t + g * N_STATE
        if s[N] != 0.0:
            if s[CONST] != 0.0:
                s[M2] = 0.0
            else:
                s[FIRST] = 0.0
    return -1


def grouped_sums(const group_t[:] codes, int64_t n_groups, const double[:] y,
                 const double[:] p, const weight_t[:] w, bint has_w, int flags, double delta,
                 double[:, ::1] state, int n_threads=1):
    """Fill ``state`` (shape (n_groups, N_STATE), zeroed by the caller): row ``g`` the state
    of the rows whose code is ``g``, from one pass over every row (no ordering by group).
    Its sums are those :func:`sums` gives for the group's rows to rounding (a running
    update of the means and spreads, where :func:`sums` combines blocks). Returns the first
    row whose code is outside ``[0, n_groups)``, or -1.

    Large inputs are cut into lanes whose number depends on n and n_groups only (each lane
    holds a table of every group's state), run on up to ``n_threads`` OpenMP threads and
    merged in lane order: the result is the same for any thread count."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t lane, n_lanes, bad = -1
    cdef int64_t g
    if p.shape[0] != n or codes.shape[0] != n or (has_w and w.shape[0] != n) \
            or state.shape[0] != n_groups or state.shape[1] < N_STATE or n_groups < 1:
        raise ValueError("grouped_sums: inconsistent shapes")
    if n == 0:
        return -1
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    # every lane's table at most GROUPED_LANE_BYTES together
    n_lanes = min(n_lanes, max(1, GROUPED_LANE_BYTES // (n_groups * N_STATE * 8)))
    if n_lanes == 1:
        with nogil:
            bad = _grouped_lane(codes, y, p, w, has_w, flags, delta, n_groups, 0, n,
                                &state[0, 0])
        return bad
    cdef double[:, :, ::1] lanes = np.zeros((n_lanes, n_groups, N_STATE))
    cdef Py_ssize_t[::1] lane_bad = np.full(n_lanes, -1, dtype=np.intp)
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            lane_bad[lane] = _grouped_lane(codes, y, p, w, has_w, flags, delta, n_groups,
                                           _lane_start(n, n_lanes, lane),
                                           _lane_start(n, n_lanes, lane + 1),
                                           &lanes[lane, 0, 0])
        for lane in range(n_lanes):
            if lane_bad[lane] >= 0:
                bad = lane_bad[lane]
                break
        if bad < 0:
            for lane in range(n_lanes):
                for g in range(n_groups):
                    _merge_into(&state[g, 0], &lanes[lane, g, 0])
    return bad


def ratio_influences(const int64_t[:] seg, const yt_t[:] y, const yp_t[:] p,
                     const double[:, ::1] moments, double[::1] sums, double[:, ::1] psi,
                     const double[:, ::1] base, bint has_base):
    """Each row's first-order effect (influence) on R² and on explained variance, written
    to ``psi`` (shape (2, n)), their squares added to its segment's ``sums[s]`` (R²) and
    ``sums[S + s]`` (explained variance); with ``has_base``, the squares of their
    differences to ``base`` (another model's ``psi`` of the same rows) to ``sums[2S + s]``
    and ``sums[3S + s]``.

    ``moments`` (shape (6, S)) holds each segment's rows, mean squared error, mean and
    spread (variance) of ``y``, mean and spread of the errors ``y - p``, from a first
    read. With ``V`` the spread of ``y``: R²'s influence is ``-(e**2 - MSE) / V + MSE ((y -
    mean y)**2 - V) / V**2``, explained variance's the same with ``(e - mean e)**2`` and
    the errors' spread; 0 in a segment whose ``y`` does not spread (no ratio). Returns
    the first row whose segment is outside ``[0, S)``, or -1 (nothing added from it on)."""
    cdef Py_ssize_t n = y.shape[0], S = moments.shape[1], i, bad = -1
    cdef double yv, e, d, spread, v, mse, ve, a, b
    if p.shape[0] != n or seg.shape[0] != n or moments.shape[0] != 6 \
            or sums.shape[0] != 4 * S or psi.shape[0] != 2 or psi.shape[1] != n \
            or (has_base and (base.shape[0] != 2 or base.shape[1] != n)):
        raise ValueError("ratio_influences: inconsistent shapes")
    cdef int64_t s
    with nogil:
        for i in range(n):
            s = seg[i]
            if s < 0 or s >= S:
                bad = i
                break
            v = moments[3, s]
            if not v > 0.0:
                psi[0, i] = 0.0
                psi[1, i] = 0.0
            else:
                yv = <double>y[i]
                e = yv - <double>p[i]
                d = yv - moments[2, s]
                spread = d * d - v
                mse = moments[1, s]
                ve = moments[5, s]
                a = (mse * spread / v - (e * e - mse)) / v
                d = e - moments[4, s]
                b = (ve * spread / v - (d * d - ve)) / v
                psi[0, i] = a
                psi[1, i] = b
                sums[s] += a * a
                sums[S + s] += b * b
            if has_base:
                a = psi[0, i] - base[0, i]
                b = psi[1, i] - base[1, i]
                sums[2 * S + s] += a * a
                sums[3 * S + s] += b * b
    return bad
