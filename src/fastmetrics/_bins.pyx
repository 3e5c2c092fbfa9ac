# cython: language_level=3
"""Calibration binning kernels.

One pass over the labels and the probabilities fills a per-bin *state*: a C-contiguous
float64 array of shape (n_bins, 5) whose columns are

    0  W    sum of weights (the count when unweighted)
    1  SP   sum of w * confidence
    2  SY   sum of w * correctness (1 when the label is the positive one / the top label is right)
    3  SQ   sum of w * ((y - p)**2 + ((1 - y) - (1 - p))**2), scikit-learn's two-column
            Brier term written the way it computes it
    4  N    number of samples (unweighted)

Two states of the same edges merge by addition. Bins follow ``np.searchsorted(edges[1:-1], p,
side="left")``: closed on the right, a value on an inner edge goes to the lower bin, 0 goes to
the first bin and 1 to the last. Range checks (and NaN) are fused into the pass: the loop stops
at the first bad value and reports its index, so the caller raises.
"""

from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t)
from libc.math cimport fabs

import numpy as np

ctypedef fused label_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t

ctypedef fused prob_t:
    float
    double

ctypedef fused weight_t:
    float
    double

# Kinds of bad input reported by the kernels.
cdef enum:
    BAD_PROB = 1      # probability outside [0, 1] or NaN
    BAD_WEIGHT = 2    # weight NaN or infinite
    BAD_LABEL = 3     # label outside 0 .. K-1 (top-label kernel)

cdef enum:
    NCOL = 5          # columns of the per-bin state
    NBANK = 4         # interleaved state copies in the binary kernel (a power of 2)


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


def bin_binary(const label_t[:] y, const prob_t[:] p, const weight_t[:] w, bint has_w,
               label_t pos, bint pos_ok, const double[::1] padded_edges, bint uniform,
               double[:, ::1] state):
    """Add one pass over binary labels ``y`` (positive when ``== pos``) and positive-class
    probabilities ``p`` into ``state`` (see the module docstring). ``padded_edges`` is
    ``[-inf, edges[1:-1]..., +inf]``; ``uniform`` says the edges are ``linspace(0, 1)``.

    Returns ``(bad_index, bad_kind, n_other_kinds, other)``: ``bad_index`` is -1 when every
    value was valid; ``n_other_kinds`` is how many distinct non-positive label values were
    seen (0, 1 or 2 meaning "two or more") and ``other`` the smallest of them."""
    cdef Py_ssize_t n = p.shape[0]
    cdef Py_ssize_t nb = state.shape[0]
    cdef Py_ssize_t i, b
    cdef Py_ssize_t bad = -1
    cdef int kind = 0
    cdef int n_other = 0
    cdef label_t lo_other, hi_other, yv, v_lo, v_hi, m
    cdef bint is_pos
    cdef Py_ssize_t first_other = n
    cdef double pv, wv, t, d0, d1
    cdef double* row
    cdef double* st
    cdef Py_ssize_t k
    cdef double[:, :, ::1] banks
    if y.shape[0] != n or (has_w and w.shape[0] != n) or state.shape[1] != NCOL \
            or padded_edges.shape[0] != nb + 1 or nb < 1:
        raise ValueError("bin_binary: inconsistent shapes")
    # NBANK interleaved copies of the state: consecutive samples falling in the same bin
    # do not wait on each other's read-modify-write (summed in bank order at the end)
    banks = np.zeros((NBANK, nb, NCOL))
    cdef const double* inner_p = &padded_edges[0]
    # element strides: numpy strides of these dtypes are multiples of the item size
    cdef Py_ssize_t sy = y.strides[0] // <Py_ssize_t>sizeof(label_t)
    cdef Py_ssize_t sp = p.strides[0] // <Py_ssize_t>sizeof(prob_t)
    cdef const label_t* yptr = &y[0] if n > 0 else NULL
    cdef const prob_t* pptr = &p[0] if n > 0 else NULL
    # Non-positive labels: the smallest and largest seen (branch-free: a positive label
    # leaves them unchanged), so "one other value" is lo_other == hi_other.
    with nogil:
        st = &banks[0, 0, 0]
        lo_other = 0
        hi_other = 0
        for i in range(n):
            yv = yptr[i * sy]
            if not (pos_ok and yv == pos):
                lo_other = yv
                hi_other = yv
                first_other = i
                break
        wv = 1.0
        for i in range(n):
            pv = <double>pptr[i * sp]
            if not (pv >= 0.0 and pv <= 1.0):
                bad = i
                kind = BAD_PROB
                break
            if has_w:
                wv = <double>w[i]
                if wv - wv != 0.0:
                    bad = i
                    kind = BAD_WEIGHT
                    break
            yv = yptr[i * sy]
            is_pos = (yv == pos) & pos_ok
            t = <double>is_pos
            # select without a branch (labels are random: a branch would mispredict)
            m = <label_t>0 - <label_t>is_pos
            v_lo = (hi_other & m) | (yv & ~m)
            v_hi = (lo_other & m) | (yv & ~m)
            lo_other = v_lo if v_lo < lo_other else lo_other
            hi_other = v_hi if v_hi > hi_other else hi_other
            b = _bin_of(pv, inner_p, nb, uniform)
            d0 = t - pv
            d1 = (1.0 - t) - (1.0 - pv)
            row = st + ((i & (NBANK - 1)) * nb + b) * NCOL
            row[0] += wv
            row[1] += wv * pv
            row[2] += wv * t
            row[3] += wv * (d0 * d0 + d1 * d1)
            row[4] += 1.0
        for k in range(NBANK):
            for b in range(nb):
                for i in range(NCOL):
                    state[b, i] += banks[k, b, i]
    if first_other < (n if bad < 0 else bad):
        n_other = 1 if lo_other == hi_other else 2
    return bad, kind, n_other, int(lo_other)


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
    if y.shape[0] != n or (has_w and w.shape[0] != n) or state.shape[1] != NCOL \
            or padded_edges.shape[0] != nb + 1 or nb < 1 or K < 1 or seen.shape[0] != K \
            or extra.shape[0] < 1:
        raise ValueError("bin_top_label: inconsistent shapes")
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
            row[0] += wv
            row[1] += wv * best
            row[2] += wv * t
            row[3] += wv * (d * d + s * s)
            row[4] += 1.0
            extra[0] += wv * sqk
    return bad, kind, n_unnorm
