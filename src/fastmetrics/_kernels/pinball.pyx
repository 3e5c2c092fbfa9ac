# cython: language_level=3
"""Pinball (quantile) loss sums kernel.

One pass over ``y_true``, ``y_pred`` (and optional weights) fills a float64 state of
``N_STATE`` values (slots ``W``, ``OVER``, ``UNDER``, ``N`` of ``pinball.pxd``): the weight
total and the weighted sums of the two signs of the residual ``e = y_true - y_pred``. The
pinball loss of any ``alpha`` is ``alpha * OVER + (1 - alpha) * UNDER``, so the state does
not depend on ``alpha``.

A kernel of its own: the regression sums kernel's tuned loop is left as it is. Sums are
plain within a block of ``BLOCK`` samples and block sums are added to the lane's, which
bounds the rounding error of long inputs. Lanes depend on n only and are merged in lane
order, so the result is the same for any thread count.

Inputs are never checked element by element here: a NaN or infinity makes ``UNDER`` (and
``W`` for weights) non-finite, and the Python layer then looks for the culprit.
"""

from libc.stdint cimport int64_t
from .common cimport group_t, weight_t, yp_t, yt_t, _lane_start
from cython.parallel cimport prange

import numpy as np

cdef enum:
    LANE_MIN = 262144  # samples per lane at least
    MAX_LANES = 64
    BLOCK = 2048


cdef inline void _block(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w,
                        Py_ssize_t start, Py_ssize_t stop, double* state) noexcept nogil:
    """Samples [start, stop) (one block) added into ``state``."""
    cdef Py_ssize_t i
    cdef double e, a, wv, bw = 0.0, bo = 0.0, bu = 0.0
    if has_w:
        for i in range(start, stop):
            e = <double>y[i] - <double>p[i]
            # a NaN residual fails the test: 0 - NaN carries it into UNDER
            a = e if e >= 0.0 else 0.0
            wv = <double>w[i]
            bw += wv
            bo += wv * a
            bu += wv * (a - e)
    else:
        for i in range(start, stop):
            e = <double>y[i] - <double>p[i]
            a = e if e >= 0.0 else 0.0
            bo += a
            bu += a - e
        bw = <double>(stop - start)
    state[W] += bw
    state[OVER] += bo
    state[UNDER] += bu


cdef void _lane(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w,
                Py_ssize_t start0, Py_ssize_t stop0, double* state) noexcept nogil:
    """The sums of samples [start0, stop0) into ``state`` (zeroed)."""
    cdef Py_ssize_t start = start0
    while start < stop0:
        _block(y, p, w, has_w, start, min(start + BLOCK, stop0), state)
        start += BLOCK
    state[N] += <double>(stop0 - start0)


cdef void _lane2d(const yt_t[:, :] y, const yp_t[:, :] p, const weight_t[:] w, bint has_w,
                  Py_ssize_t start0, Py_ssize_t stop0, double* state) noexcept nogil:
    """The sums of rows [start0, stop0), one row of ``N_STATE`` per column, into ``state``
    (zeroed). Block by block, every column of a block is summed while the block is in
    cache, so C- and F-ordered inputs alike are read from memory once."""
    cdef Py_ssize_t m = y.shape[1]
    cdef Py_ssize_t start = start0
    cdef Py_ssize_t j
    while start < stop0:
        for j in range(m):
            _block(y[:, j], p[:, j], w, has_w, start, min(start + BLOCK, stop0),
                   &state[j * N_STATE])
        start += BLOCK
    for j in range(m):
        state[j * N_STATE + N] += <double>(stop0 - start0)


cdef inline void _add(double* a, const double* b) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(N_STATE):
        a[k] += b[k]


def sums(const yt_t[:] y, const yp_t[:] p, const weight_t[:] w, bint has_w,
         double[::1] state, int n_threads=1):
    """Add the sums of one pass into ``state`` (length ``N_STATE``, zeroed by the caller).

    Large inputs are cut into lanes whose number depends on n only; lanes run on up to
    ``n_threads`` OpenMP threads and are added in lane order."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t lane, n_lanes
    if p.shape[0] != n or (has_w and w.shape[0] != n) or state.shape[0] != N_STATE:
        raise ValueError("pinball.sums: inconsistent shapes")
    if n == 0:
        return
    n_lanes = min(MAX_LANES, max(1, n // LANE_MIN))
    if n_lanes == 1:
        with nogil:
            _lane(y, p, w, has_w, 0, n, &state[0])
        return
    cdef double[:, ::1] lanes = np.zeros((n_lanes, N_STATE))
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            _lane(y, p, w, has_w, _lane_start(n, n_lanes, lane),
                  _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0])
        for lane in range(n_lanes):
            _add(&state[0], &lanes[lane, 0])


def sums2d(const yt_t[:, :] y, const yp_t[:, :] p, const weight_t[:] w, bint has_w,
           double[:, ::1] state, int n_threads=1):
    """Add the sums of one pass over (n, m) targets, any strides, into ``state`` (shape
    (m, N_STATE), zeroed by the caller): row ``j`` holds what :func:`sums` gives for
    column ``j`` alone. Lanes as :func:`sums`."""
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t m = y.shape[1]
    cdef Py_ssize_t lane, n_lanes, j
    if p.shape[0] != n or p.shape[1] != m or (has_w and w.shape[0] != n) \
            or state.shape[0] != m or state.shape[1] != N_STATE:
        raise ValueError("pinball.sums2d: inconsistent shapes")
    if n == 0 or m == 0:
        return
    n_lanes = min(MAX_LANES, max(1, (n * m) // LANE_MIN))
    n_lanes = min(n_lanes, max(1, n // BLOCK))
    if n_lanes == 1:
        with nogil:
            _lane2d(y, p, w, has_w, 0, n, &state[0, 0])
        return
    cdef double[:, :, ::1] lanes = np.zeros((n_lanes, m, N_STATE))
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1):
            _lane2d(y, p, w, has_w, _lane_start(n, n_lanes, lane),
                    _lane_start(n, n_lanes, lane + 1), &lanes[lane, 0, 0])
        for lane in range(n_lanes):
            for j in range(m):
                _add(&state[j, 0], &lanes[lane, j, 0])


def grouped_sums(const group_t[:] codes, const yt_t[:] y, const yp_t[:] p,
                 double[:, ::1] state):
    """Add each row's unweighted sums into its group's row of ``state`` (shape (n_groups,
    N_STATE), zeroed by the caller): row ``g`` gets what :func:`sums` gives for the rows
    whose code is ``g``, to rounding (added row by row, where :func:`sums` adds blocks).
    One pass, no ordering of the rows by group. Returns the first row whose code is outside
    ``[0, n_groups)``, or -1 (nothing added from it on)."""
    cdef Py_ssize_t n = y.shape[0], i, bad = -1
    cdef int64_t g, G = state.shape[0]
    cdef double e, a
    cdef double* row
    if p.shape[0] != n or codes.shape[0] != n or state.shape[1] != N_STATE:
        raise ValueError("pinball.grouped_sums: inconsistent shapes")
    with nogil:
        for i in range(n):
            g = <int64_t>codes[i]  # a uint64 code past int64 wraps negative: refused too
            if g < 0 or g >= G:
                bad = i
                break
            e = <double>y[i] - <double>p[i]
            # a NaN residual fails the test: 0 - NaN carries it into UNDER, as in sums
            a = e if e >= 0.0 else 0.0
            row = &state[g, 0]
            row[W] += 1.0
            row[OVER] += a
            row[UNDER] += a - e
            row[N] += 1.0
    return bad
