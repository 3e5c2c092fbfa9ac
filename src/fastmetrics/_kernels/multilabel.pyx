# cython: language_level=3
"""Multilabel-indicator counting: one pass over two (n, L) 0/1 matrices.

Fills per-label (column) sums of y_true * y_pred, y_pred and y_true -- unweighted int64 or
weighted float64, added in row order -- and counts (or weighs) the rows where the two
matrices agree exactly (subset accuracy). Every value must be 0 or 1: the first other value
stops the pass and is reported, so the caller raises instead of counting garbage.

On request the same pass writes each row's profile, its (tp, pred, true) counts over all
columns as one code ``(tp * (L + 1) + pred) * (L + 1) + true``: the sample-wise averages
are functions of these three counts, so a state that keeps how often (or with what weight)
each profile occurs needs no rows.
"""

from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t)
from .common cimport label_t



def count(const label_t[:, :] y_true, const label_t[:, :] y_pred, const double[:] weights,
          bint weighted, int64_t[:, ::1] icols, double[:, ::1] fcols,
          int64_t[::1] profile):
    """Column sums into ``icols`` (unweighted) or ``fcols`` (weighted), rows 0, 1, 2 = tp,
    pred, true, and, when ``profile`` has n entries, each row's profile code. Returns
    ``(bad_row, bad_col, exact)``: the first value not in {0, 1} (or (-1, -1)) and the
    number (weight) of rows predicted exactly."""
    cdef Py_ssize_t n = y_true.shape[0], L = y_true.shape[1], i, j
    cdef Py_ssize_t bad_i = -1, bad_j = -1
    cdef uint64_t a, b
    cdef int64_t r_tp, r_pred, r_true, side = L + 1
    cdef bint same, profiled = profile.shape[0] > 0
    cdef int64_t exact_n = 0
    cdef double exact_w = 0.0, w = 1.0
    if y_pred.shape[0] != n or y_pred.shape[1] != L:
        raise ValueError("multilabel count: shapes differ")
    if weighted and weights.shape[0] != n:
        raise ValueError("multilabel count: weights length differs")
    if profiled and profile.shape[0] != n:
        raise ValueError("multilabel count: profile length differs")
    with nogil:
        for i in range(n):
            same = True
            r_tp = 0
            r_pred = 0
            r_true = 0
            if weighted:
                w = weights[i]
            for j in range(L):
                a = <uint64_t>y_true[i, j]
                b = <uint64_t>y_pred[i, j]
                if (a | b) > 1:
                    bad_i = i
                    bad_j = j
                    break
                same = same and a == b
                r_tp += <int64_t>(a & b)
                r_pred += <int64_t>b
                r_true += <int64_t>a
                if weighted:
                    if a & b:
                        fcols[0, j] += w
                    if b:
                        fcols[1, j] += w
                    if a:
                        fcols[2, j] += w
                else:
                    icols[0, j] += <int64_t>(a & b)
                    icols[1, j] += <int64_t>b
                    icols[2, j] += <int64_t>a
            if bad_i >= 0:
                break
            if profiled:
                profile[i] = (r_tp * side + r_pred) * side + r_true
            if same:
                exact_n += 1
                exact_w += w
    return bad_i, bad_j, (exact_w if weighted else exact_n)
