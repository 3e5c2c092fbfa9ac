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


cdef inline Py_ssize_t _bin_of(double v, const double* inner, Py_ssize_t nb,
                               bint uniform) noexcept nogil:
    """Number of inner edges strictly below ``v`` (``searchsorted(inner, v, "left")``).

    Uniform edges: an arithmetic guess then a step-wise fix-up against the real edges, so
    the answer is the same as the search even for values exactly on a rounded edge."""
    cdef Py_ssize_t c, lo, hi, mid
    if uniform:
        c = <Py_ssize_t>(v * nb)
        if c > nb - 1:
            c = nb - 1
        while c > 0 and inner[c - 1] >= v:
            c -= 1
        while c < nb - 1 and inner[c] < v:
            c += 1
        return c
    lo = 0
    hi = nb - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if inner[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


def bin_binary(const label_t[:] y, const prob_t[:] p, const weight_t[:] w, bint has_w,
               label_t pos, bint pos_ok, const double[::1] inner, bint uniform,
               double[:, ::1] state):
    """Add one pass over binary labels ``y`` (positive when ``== pos``) and positive-class
    probabilities ``p`` into ``state`` (see the module docstring).

    Returns ``(bad_index, bad_kind, n_other_kinds, other)``: ``bad_index`` is -1 when every
    value was valid; ``n_other_kinds`` is how many distinct non-positive label values were
    seen (0, 1 or 2 meaning "two or more") and ``other`` the first of them."""
    cdef Py_ssize_t n = p.shape[0]
    cdef Py_ssize_t nb = state.shape[0]
    cdef Py_ssize_t i, b
    cdef Py_ssize_t bad = -1
    cdef int kind = 0
    cdef int n_other = 0
    cdef label_t other = 0
    cdef label_t yv
    cdef double pv, wv, t, d0, d1
    cdef double* row
    if y.shape[0] != n or (has_w and w.shape[0] != n) or state.shape[1] != NCOL \
            or inner.shape[0] != nb - 1 or nb < 1:
        raise ValueError("bin_binary: inconsistent shapes")
    cdef const double* inner_p = &inner[0] if nb > 1 else NULL
    with nogil:
        wv = 1.0
        for i in range(n):
            pv = <double>p[i]
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
            yv = y[i]
            if pos_ok and yv == pos:
                t = 1.0
            else:
                t = 0.0
                if n_other == 0:
                    other = yv
                    n_other = 1
                elif n_other == 1 and yv != other:
                    n_other = 2
            b = _bin_of(pv, inner_p, nb, uniform) if nb > 1 else 0
            d0 = t - pv
            d1 = (1.0 - t) - (1.0 - pv)
            row = &state[b, 0]
            row[0] += wv
            row[1] += wv * pv
            row[2] += wv * t
            row[3] += wv * (d0 * d0 + d1 * d1)
            row[4] += 1.0
    return bad, kind, n_other, int(other)


def bin_top_label(const label_t[:] y, const prob_t[:, :] P, const weight_t[:] w, bint has_w,
                  const double[::1] inner, bint uniform, double tol, double[:, ::1] state,
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
            or inner.shape[0] != nb - 1 or nb < 1 or K < 1 or seen.shape[0] != K \
            or extra.shape[0] < 1:
        raise ValueError("bin_top_label: inconsistent shapes")
    cdef const double* inner_p = &inner[0] if nb > 1 else NULL
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
            b = _bin_of(best, inner_p, nb, uniform) if nb > 1 else 0
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
