# cython: language_level=3
"""Deviance kernel: the Tweedie deviances and the squared logarithmic error.

:func:`tweedie` fills a float64 *state* of ``N_STATE`` values (slots in ``deviance.pxd``)
from one pass over ``y_true``, ``y_pred`` (and optional weights): the weighted sum of the
unit deviance of the power, and with ``FLAG_D2`` what the deviance of ``y_true`` against its
own weighted mean needs, so that D² merges without a second pass over the data:

* the weighted mean ``MEAN`` and ``DM``, the summed deviance of ``y_true``
  against ``MEAN``. Per block of ``BLOCK`` samples, ``DM`` is summed in a second read of
  the (cache-resident) block, sample by sample with scikit-learn's expression, against the
  block mean; blocks, lanes and states merge with the Bregman form of Chan et al.'s update,
  ``DM = DM_a + DM_b + W_a d(MEAN_a, MEAN) + W_b d(MEAN_b, MEAN)`` (exact for any Tweedie
  deviance, whose y-only term is linear in the mean of a block; power 0 is Chan's update).
  Each term is then as accurate as scikit-learn's per-sample sum (no difference of large
  sums).
* power < 0 also (``y_true`` of any sign, so a mean may be negative, where the unit
  deviance is undefined and ``DM`` is NaN): ``SY`` and ``T`` of the decomposition
  ``2 (T / ((1-p)(2-p)) - SY mu**(1-p) / (1-p) + W mu**(2-p) / (2-p))``.

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

from libc.math cimport NAN, fabs, log, log1p, pow
from libc.stdint cimport int64_t
from .common cimport group_t, weight_t, yp_t, yt_t, _lane_start
from cython.parallel cimport prange

import numpy as np

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


cdef inline double _unit(int form, double power, double yv, double pv) noexcept nogil:
    """The unit deviance of ``power`` (scikit-learn's expression for its case)."""
    cdef double q = 2.0 - power
    if form == FORM_NORMAL:
        return (yv - pv) * (yv - pv)
    if form == FORM_POISSON:
        return 2.0 * (_xlogy(yv, yv / pv) - yv + pv)
    if form == FORM_GAMMA:
        return 2.0 * (log(pv / yv) + yv / pv - 1.0)
    return _general(power, pow(yv if yv > 0.0 or form != FORM_EXTREME else 0.0, q), yv,
                    pow(pv, 1.0 - power), pow(pv, q))


cdef inline double _general(double power, double yq, double yv, double p1,
                            double pq) noexcept nogil:
    """scikit-learn's expression for a power other than 0, 1, 2, from ``yq = y**(2-p)``,
    ``p1 = y_pred**(1-p)`` and ``pq = y_pred**(2-p)``."""
    cdef double q = 2.0 - power
    return 2.0 * (yq / ((1.0 - power) * q) - yv * p1 / (1.0 - power) + pq / q)


cdef inline double _unit_at(int form, double power, double yv, double mu) noexcept nogil:
    """The unit deviance of a mean ``yv`` against a nearby mean ``mu``, without the
    cancellation of the expression: for ``|x| <= 0.05``, ``x = yv / mu - 1``, its series
    ``2 mu**(2-p) sum_{k>=2} c_k x**k`` (``c_2 = 1/2``, ``c_{k+1} = -c_k (p + k - 2) /
    (k + 1)``: the Taylor series of every Tweedie deviance, Poisson and Gamma included).
    These terms are weighted by whole blocks, so their rounding error would not average
    out as the per-sample ones do. Exactly 0 for equal means."""
    cdef double x, c, term, total
    cdef int k
    if yv == mu:
        return 0.0
    x = (yv - mu) / mu
    if not fabs(x) <= 0.05:
        return _unit(form, power, yv, mu)
    c = 0.5
    term = x * x
    total = c * term
    k = 2
    while k < 400:
        c = c * (-(power + k - 2.0)) / (k + 1.0)
        term = term * x
        if fabs(c * term) <= 1e-17 * fabs(total):
            break
        total += c * term
        k += 1
    return 2.0 * pow(mu, 2.0 - power) * total


cdef inline void _merge_mean(double* st, int form, double power, double wb, double mb,
                             double dmb) noexcept nogil:
    """Merge a block (weight wb, mean mb, deviance against its mean dmb) into st[MEAN] /
    st[DM] of weight st[W] (not yet updated): the Bregman form of Chan et al.'s update."""
    cdef double wa = st[W]
    cdef double wt = wa + wb
    cdef double d, mu
    if wb == 0.0:
        return
    if wa == 0.0:  # DM is 0 here, or NaN after weights that cancelled: kept so
        st[MEAN] = mb
        st[DM] += dmb
        return
    d = mb - st[MEAN]
    if form == FORM_NORMAL:  # Chan et al.'s update as such
        st[MEAN] = st[MEAN] + d * (wb / wt)
        st[DM] = st[DM] + dmb + d * d * (wa * (wb / wt))
        return
    mu = st[MEAN] + d * (wb / wt)
    if form == FORM_EXTREME and not (mu > 0.0 and mb > 0.0 and st[MEAN] > 0.0):
        st[DM] = NAN  # no positive means to center on (power < 0: then SY and T)
        st[MEAN] = mu
        return
    st[DM] = (st[DM] + dmb + wa * _unit_at(form, power, st[MEAN], mu)
              + wb * _unit_at(form, power, mb, mu))
    st[MEAN] = mu


cdef void _lane_tweedie(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w,
                        int form, double power, bint d2, Py_ssize_t start0,
                        Py_ssize_t stop0, double* st) noexcept nogil:
    """The state of samples [start0, stop0) into ``st`` (zeroed)."""
    cdef Py_ssize_t start, stop, i
    cdef double yv, pv, wv = 1.0
    cdef double bw, bdev, bsy, bt, mb, dm, c, d
    cdef double bad = 0.0
    cdef double ymin, ymax
    cdef double q = 2.0 - power
    cdef bint weights_cancel
    cdef bint general = (form == FORM_COMPOUND or form == FORM_POSITIVE
                         or form == FORM_EXTREME)
    cdef double yq, m1, mq
    # y**(2-p) of the block's samples (powers other than 0, 1, 2), for the second read
    cdef double ybuf[BLOCK]
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
        weights_cancel = False
        for i in range(start, stop):
            yv = <double>y[i]
            pv = <double>p[i]
            if has_w:
                wv = <double>w[i]
                if wv != 0.0:
                    weights_cancel = True  # read only when the block's weights sum to 0
            if _outside(form, yv, pv):
                bad += 1.0
            bw += wv
            if general:
                yq = pow(yv if yv > 0.0 or form != FORM_EXTREME else 0.0, q)
                ybuf[i - start] = yq
                bdev += wv * _general(power, yq, yv, pow(pv, 1.0 - power), pow(pv, q))
            else:
                bdev += wv * _unit(form, power, yv, pv)
            if d2:
                bsy += wv * yv
                if form == FORM_EXTREME:
                    bt += wv * yq
                if yv < ymin:
                    ymin = yv
                if yv > ymax:
                    ymax = yv
        if d2:
            if bw != 0.0:
                # the deviance against the block mean, in a second read of the block
                mb = bsy / bw
                dm = 0.0
                if form == FORM_NORMAL:  # corrected two-pass spread
                    c = 0.0
                    for i in range(start, stop):
                        d = <double>y[i] - mb
                        if has_w:
                            wv = <double>w[i]
                        dm += wv * (d * d)
                        c += wv * d
                    dm -= c * (c / bw)
                elif form == FORM_EXTREME and not mb > 0.0:
                    dm = NAN  # the unit deviance needs a positive mean (then: SY and T)
                elif general and mb != 0.0:  # the powers of the mean once per block
                    m1 = pow(mb, 1.0 - power)
                    mq = pow(mb, q)
                    for i in range(start, stop):
                        if has_w:
                            wv = <double>w[i]
                        if wv != 0.0:
                            dm += wv * _general(power, ybuf[i - start], <double>y[i], m1, mq)
                elif mb != 0.0:  # else every y_true of the block is 0: its mean
                    for i in range(start, stop):
                        if has_w:
                            wv = <double>w[i]
                        if wv != 0.0:
                            dm += wv * _unit(form, power, <double>y[i], mb)
                _merge_mean(st, form, power, bw, mb, dm)
            elif weights_cancel:  # no mean to center on: D² is undefined here
                st[DM] = NAN
        st[W] += bw
        st[DEV] += bdev
        if form == FORM_EXTREME:
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


cdef void _merge_into(double* a, const double* b, int form, double power) noexcept nogil:
    """State ``b`` merged into state ``a`` (see :func:`merge`)."""
    cdef Py_ssize_t k
    if b[N] == 0.0:
        return
    if a[N] == 0.0:
        for k in range(N_STATE):
            a[k] = b[k]
        return
    _merge_mean(a, form, power, b[W], b[MEAN], b[DM])
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
            _merge_into(&state[0], &lanes[lane, 0], form, power)


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


def unit(double power, double y, double mu):
    """The unit deviance of ``power`` of ``y`` against ``mu`` (scikit-learn's expression)."""
    return _unit(form_of(power), power, y, mu)


def merge(double[::1] a, const double[::1] b, double power):
    """Merge state ``b`` into state ``a`` (both of ``power``; same meaning as one pass over
    both inputs): sums add, the mean and its deviance by the update above, the extremes by
    min / max."""
    if a.shape[0] < N_STATE or b.shape[0] < N_STATE:
        raise ValueError("merge: states must have N_STATE values")
    _merge_into(&a[0], &b[0], form_of(power), power)


def grouped_squared_log(const group_t[:] codes, const yt_t[:] y, const yp_t[:] p,
                        double[:, ::1] state):
    """Add each row's unweighted squared log error into its group's row of ``state``
    (shape (n_groups, N_STATE), zeroed by the caller): row ``g`` gets what
    :func:`squared_log` gives for the rows whose code is ``g`` (its weight, count and values
    <= -1 exactly, its sum to rounding: added row by row). One pass, no ordering of the rows
    by group. Returns the first row whose code is outside ``[0, n_groups)``, or -1 (nothing
    added from it on)."""
    cdef Py_ssize_t n = y.shape[0], i, bad = -1
    cdef int64_t g, G = state.shape[0]
    cdef double yv, pv, e
    cdef double* row
    if p.shape[0] != n or codes.shape[0] != n or state.shape[1] < N_STATE:
        raise ValueError("grouped_squared_log: inconsistent shapes")
    with nogil:
        for i in range(n):
            g = <int64_t>codes[i]  # a uint64 code past int64 wraps negative: refused too
            if g < 0 or g >= G:
                bad = i
                break
            yv = <double>y[i]
            pv = <double>p[i]
            row = &state[g, 0]
            if yv <= -1.0 or pv <= -1.0:
                row[BAD] += 1.0
            e = log1p(yv) - log1p(pv)
            row[DEV] += e * e
            row[W] += 1.0
            row[N] += 1.0
    return bad
