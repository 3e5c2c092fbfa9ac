# cython: language_level=3
"""Deviance kernel: the Tweedie deviances and the squared logarithmic error.

:func:`tweedie` fills a float64 *state* of ``N_STATE`` values (slots in ``deviance.pxd``)
from one pass over ``y_true``, ``y_pred`` (and optional weights): the weighted sum of the
unit deviance of the power, and with ``FLAG_D2`` the sums the deviance of ``y_true`` against
its own weighted mean decomposes into (``SY``, the power's ``T``; for power 0 the mean and
spread, two-pass per block and merged with Chan et al.'s update, as the regression sums).
:func:`squared_log` fills one state per output of (n, m) targets with the weighted sum of
``(log1p(y_true) - log1p(y_pred))**2``. Both count the values outside the domain of the
loss in ``BAD`` during the same pass (NaN is never counted: it makes a sum NaN, which the
Python layer names), so the fast path has no separate scan.

The unit deviance is computed with scikit-learn's expressions, case by case of the power
(the ``FORM_*`` of ``deviance.pxd``). Large inputs are cut into lanes whose number depends
on n only; lanes run on OpenMP threads and are merged in lane order, so the sums are the
same for any thread count. Inputs are never copied or cast: float32 values are widened to
double element by element.
"""

from libc.math cimport log, log1p, pow, sqrt
from .common cimport weight_t, _lane_start
from cython.parallel cimport prange

import numpy as np

ctypedef fused yt_t:
    float
    double

ctypedef fused yp_t:
    float
    double


cdef enum:
    LANE_MIN = 65536  # samples per lane at least (a pow or log per value: dearer than sums)
    MAX_LANES = 64
    BLOCK = 2048


def form_of(double power):
    """The ``FORM_*`` of ``power`` (which must be <= 0 or >= 1)."""
    if power < 0:
        return FORM_EXTREME
    if power == 0:
        return FORM_NORMAL
    if power == 1:
        return FORM_POISSON
    if power < 2:
        return FORM_COMPOUND
    if power == 2:
        return FORM_GAMMA
    return FORM_POSITIVE


cdef inline double _xlogy(double x, double y) noexcept nogil:
    """x * log(y), 0 where x is 0 (scikit-learn's ``_xlogy``)."""
    if x == 0.0:
        return 0.0
    return x * log(y)


cdef inline bint _outside(int form, double yv, double pv) noexcept nogil:
    """Whether (yv, pv) is outside the domain of the power (NaN never is)."""
    if form == FORM_NORMAL:
        return False
    if pv <= 0.0:
        return True
    if form == FORM_POISSON or form == FORM_COMPOUND:
        return yv < 0.0
    if form == FORM_GAMMA or form == FORM_POSITIVE:
        return yv <= 0.0
    return False


cdef inline void _chan(double* st, double wb, double mb, double m2b) noexcept nogil:
    """Merge a block (weight wb, mean mb, spread m2b) into st[MEAN]/st[M2] of weight st[W]
    (not yet updated)."""
    cdef double wa = st[W]
    cdef double wt = wa + wb
    cdef double d
    if wb == 0.0:
        return
    if wa == 0.0:
        st[MEAN] = mb
        st[M2] = m2b
        return
    d = mb - st[MEAN]
    st[MEAN] = st[MEAN] + d * (wb / wt)
    st[M2] = st[M2] + m2b + d * d * (wa * (wb / wt))


cdef void _lane_tweedie(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w,
                        int form, double power, bint d2, Py_ssize_t start0,
                        Py_ssize_t stop0, double* st) noexcept nogil:
    """The state of samples [start0, stop0) into ``st`` (zeroed)."""
    cdef Py_ssize_t start, stop, i
    cdef double yv, pv, wv = 1.0, a, dev, t
    cdef double bw, bdev, bsy, bt, mb, m2, c, d
    cdef double bad = 0.0
    cdef double ymin, ymax
    cdef double q = 2.0 - power
    cdef double c1 = (1.0 - power) * (2.0 - power)
    cdef double c2 = 1.0 - power
    if stop0 <= start0:
        return
    ymin = <double>y[start0]
    ymax = ymin
    start = start0
    while start < stop0:
        stop = start + BLOCK
        if stop > stop0:
            stop = stop0
        bw = 0.0
        bdev = 0.0
        bsy = 0.0
        bt = 0.0
        for i in range(start, stop):
            yv = <double>y[i]
            pv = <double>p[i]
            if has_w:
                wv = <double>w[i]
            if _outside(form, yv, pv):
                bad += 1.0
            t = 0.0
            if form == FORM_NORMAL:
                dev = (yv - pv) * (yv - pv)
            elif form == FORM_POISSON:
                dev = 2.0 * (_xlogy(yv, yv / pv) - yv + pv)
                if d2:
                    t = _xlogy(yv, yv)
            elif form == FORM_GAMMA:
                dev = 2.0 * (log(pv / yv) + yv / pv - 1.0)
                if d2:
                    t = log(yv)
            else:
                a = pow(yv if yv > 0.0 or form != FORM_EXTREME else 0.0, q)
                dev = 2.0 * (a / c1 - yv * pow(pv, c2) / c2 + pow(pv, q) / q)
                t = a
            bw += wv
            bdev += wv * dev
            if d2:
                bsy += wv * yv
                bt += wv * t
                if yv < ymin:
                    ymin = yv
                if yv > ymax:
                    ymax = yv
        if d2 and form == FORM_NORMAL and bw != 0.0:
            # corrected two-pass spread of the (cache-resident) block around its mean
            mb = bsy / bw
            m2 = 0.0
            c = 0.0
            for i in range(start, stop):
                d = <double>y[i] - mb
                if has_w:
                    wv = <double>w[i]
                m2 += wv * (d * d)
                c += wv * d
            m2 -= c * (c / bw)
            _chan(st, bw, mb, m2)
        st[W] += bw
        st[DEV] += bdev
        st[SY] += bsy
        st[T] += bt
        start = stop
    st[N] += <double>(stop0 - start0)
    st[BAD] += bad
    if d2:
        st[YMIN] = ymin
        st[YMAX] = ymax


cdef void _lane_log(const yt_t[:, :] y, const yp_t[:, :] p, const weight_t[:] w, bint has_w,
                    Py_ssize_t start0, Py_ssize_t stop0, double* st) noexcept nogil:
    """The states of rows [start0, stop0), one per column, into ``st`` (zeroed, m rows of
    N_STATE): the weight, the count, the squared log errors and the values <= -1."""
    cdef Py_ssize_t m = y.shape[1]
    cdef Py_ssize_t i, j
    cdef double yv, pv, wv = 1.0, bw = 0.0, e, bad = 0.0
    cdef double* row
    for i in range(start0, stop0):
        if has_w:
            wv = <double>w[i]
        bw += wv
        for j in range(m):
            yv = <double>y[i, j]
            pv = <double>p[i, j]
            if yv <= -1.0 or pv <= -1.0:
                bad += 1.0
            e = log1p(yv) - log1p(pv)
            st[j * N_STATE + DEV] += wv * (e * e)
    for j in range(m):
        row = &st[j * N_STATE]
        row[W] += bw
        row[N] += <double>(stop0 - start0)
    st[BAD] += bad  # the first output's row carries the count of the pass


cdef void _merge_into(double* a, const double* b) noexcept nogil:
    """State ``b`` merged into state ``a`` (see :func:`merge`)."""
    cdef Py_ssize_t k
    if b[N] == 0.0:
        return
    if a[N] == 0.0:
        for k in range(N_STATE):
            a[k] = b[k]
        return
    _chan(a, b[W], b[MEAN], b[M2])
    a[W] += b[W]
    a[N] += b[N]
    a[DEV] += b[DEV]
    a[SY] += b[SY]
    a[T] += b[T]
    a[BAD] += b[BAD]
    if b[YMIN] < a[YMIN]:
        a[YMIN] = b[YMIN]
    if b[YMAX] > a[YMAX]:
        a[YMAX] = b[YMAX]


def tweedie(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w, double power,
            int flags, double[::1] state, int n_threads=1):
    """Fill ``state`` (length ``N_STATE``, zeroed by the caller) from one pass: the Tweedie
    deviance of ``power`` (<= 0 or >= 1) and, with ``FLAG_D2``, the sums of the deviance of
    ``y_true`` against its mean. Lanes as described in the module, merged in lane order."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t lane, n_lanes
    cdef int form = form_of(power)
    cdef bint d2 = (flags & FLAG_D2) != 0
    if p.shape[0] != n or (has_w and w.shape[0] != n) or state.shape[0] < N_STATE:
        raise ValueError("tweedie: inconsistent shapes")
    if 0 < power < 1:
        raise ValueError("tweedie: power must be <= 0 or >= 1")
    if n == 0:
        return
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    if n_lanes == 1:
        with nogil:
            _lane_tweedie(y, p, w, has_w, form, power, d2, 0, n, &state[0])
        return
    cdef double[:, ::1] lanes = np.zeros((n_lanes, N_STATE))
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            _lane_tweedie(y, p, w, has_w, form, power, d2, _lane_start(n, n_lanes, lane),
                          _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0])
        for lane in range(n_lanes):
            _merge_into(&state[0], &lanes[lane, 0])


def squared_log(const yt_t[:, :] y, const yp_t[:, :] p, const weight_t[:] w, bint has_w,
                double[:, ::1] state, int n_threads=1):
    """Fill ``state`` (shape (m, N_STATE), zeroed by the caller) from one pass over the
    (n, m) targets, any strides (a 1-D target is an (n, 1) view): row ``j`` holds the
    weight total, count and squared log errors of column ``j``; row 0's ``BAD`` counts the
    values <= -1 of every column. Lanes as :func:`tweedie`."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t m = y.shape[1]
    cdef Py_ssize_t lane, n_lanes, j
    if p.shape[0] != n or p.shape[1] != m or (has_w and w.shape[0] != n) \
            or state.shape[0] != m or state.shape[1] < N_STATE:
        raise ValueError("squared_log: inconsistent shapes")
    if n == 0 or m == 0:
        return
    n_lanes = min(MAX_LANES, max(1, (n * m) // LANE_MIN), max(1, n // BLOCK))
    if n_lanes == 1:
        with nogil:
            _lane_log(y, p, w, has_w, 0, n, &state[0, 0])
        return
    cdef double[:, :, ::1] lanes = np.zeros((n_lanes, m, N_STATE))
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            _lane_log(y, p, w, has_w, _lane_start(n, n_lanes, lane),
                      _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0, 0])
        for lane in range(n_lanes):
            for j in range(m):
                state[j, W] += lanes[lane, j, W]
                state[j, N] += lanes[lane, j, N]
                state[j, DEV] += lanes[lane, j, DEV]
                state[j, BAD] += lanes[lane, j, BAD]


def merge(double[::1] a, const double[::1] b):
    """Merge state ``b`` into state ``a`` (same meaning as one pass over both inputs): sums
    add, the mean and spread by Chan et al.'s update, the extremes by min / max."""
    if a.shape[0] < N_STATE or b.shape[0] < N_STATE:
        raise ValueError("merge: states must have N_STATE values")
    _merge_into(&a[0], &b[0])
