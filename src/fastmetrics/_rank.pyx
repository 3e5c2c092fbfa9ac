# distutils: sources = csrc/fm_sort.c
"""Ranking kernels: sorted (score, positive weight, negative weight) summaries.

For one binary problem (one *column*), one pass over the scores and labels writes each
sample's order-preserving descending key (``fm_dkey_f64``) into one buffer: positives from
the front, negatives from the back (zero-weight samples are dropped, like scikit-learn does).
Each part is radix sorted, then one merging walk over the two sorted runs visits the distinct
thresholds in decreasing order with the positive weight ``p`` and negative weight ``q`` tied
at that score. That walk either writes the summary ``(threshold, p, q)`` (the mergeable state:
two summaries merge by threshold, adding weights) or accumulates, in the same pass,

- ``P``, ``N``: total positive / negative weight,
- ``auc2 = sum q * (tp_before + tp_after)``: twice the trapezoid area, un-normalised, so a
  tied positive/negative pair counts one half,
- ``ap = sum p * tp / (tp + fp)``: the step-wise average precision, times ``P``.

Allocation per call: ``2 N`` uint64 keys (sort buffer + scratch) and, with sample weights,
``2 N`` doubles (the weight payload); a small histogram. Nothing else is copied.
Scores that are NaN or infinite (scikit-learn rejects both) stop the pass and are reported.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.math cimport isfinite

import numpy as np

cdef extern from "fm_sort.h" nogil:
    uint64_t fm_dkey_f64(double x)
    double fm_undkey_f64(uint64_t k)
    int64_t fm_radix_hist_size(int64_t n)
    void fm_radix_sort_u64(uint64_t *keys, uint64_t *tmp, double *w, double *wtmp, int64_t n,
                           uint64_t *hist)

ctypedef fused label_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t

ctypedef fused score_t:
    float
    double

ctypedef fused weight_t:
    float
    double

# Columns of the per-problem statistics row (ranking.py mirrors these numbers).
cdef enum:
    STAT_NPOS = 0    # samples with y == pos (any weight, zero included)
    STAT_NNEG = 1    # samples counted as negative (any weight)
    STAT_P = 2       # total positive weight
    STAT_N = 3       # total negative weight
    STAT_AUC2 = 4    # sum q * (tp_before + tp_after)
    STAT_AP = 5      # sum p * tp / (tp + fp)
    STAT_NTHR = 6    # number of distinct thresholds (non-zero-weight samples)
    N_STATS = 7


cdef struct Scratch:
    uint64_t* keys
    uint64_t* tmp
    double* w
    double* wtmp
    uint64_t* hist


cdef int64_t _column(const label_t[:, :] y, Py_ssize_t yc, const score_t[:, :] s,
                     Py_ssize_t sc, const weight_t[:] w, bint has_w, label_t pos, label_t neg,
                     bint neg_any, Scratch* sb, double* stats, double* thr, double* out_p,
                     double* out_q, int64_t* bad) noexcept nogil:
    """One binary problem. Returns the number of distinct thresholds, or -1 after writing
    the offending row into ``bad`` (bad[0]: non-finite score, bad[1]: non-finite weight)."""
    cdef Py_ssize_t n = s.shape[0]
    cdef Py_ssize_t i, np_ = 0, nn = 0, lo
    cdef int64_t cnt_pos = 0, cnt_neg = 0, m = 0
    cdef double x, wi = 1.0, tp = 0.0, fp = 0.0, tp0, p, q, auc2 = 0.0, ap = 0.0
    cdef uint64_t k, kp, kn
    cdef label_t v
    cdef bint is_pos
    cdef uint64_t* keys = sb.keys
    cdef double* ww = sb.w
    cdef Py_ssize_t ip, jn, pend, nstart

    # 1. partition into descending keys: positives at the front, negatives at the back
    for i in range(n):
        x = <double>s[i, sc]
        if not isfinite(x):
            bad[0] = i
            return -1
        v = y[i, yc]
        if v == pos:
            is_pos = True
            cnt_pos += 1
        elif neg_any or v == neg:
            is_pos = False
            cnt_neg += 1
        else:
            continue
        if has_w:
            wi = <double>w[i]
            if not isfinite(wi):
                bad[1] = i
                return -1
            if wi == 0.0:
                continue
        k = fm_dkey_f64(x)
        if is_pos:
            keys[np_] = k
            if has_w:
                ww[np_] = wi
            np_ += 1
        else:
            nn += 1
            keys[n - nn] = k
            if has_w:
                ww[n - nn] = wi
    nstart = n - nn
    # 2. sort each run
    fm_radix_sort_u64(keys, sb.tmp, ww if has_w else NULL, sb.wtmp, np_, sb.hist)
    fm_radix_sort_u64(keys + nstart, sb.tmp, (ww + nstart) if has_w else NULL, sb.wtmp, nn,
                      sb.hist)
    # 3. merge the runs by threshold, one sequential walk
    ip = 0
    jn = nstart
    while ip < np_ or jn < n:
        if ip < np_ and (jn >= n or keys[ip] <= keys[jn]):
            k = keys[ip]
        else:
            k = keys[jn]
        p = 0.0
        q = 0.0
        if has_w:
            while ip < np_ and keys[ip] == k:
                p += ww[ip]
                ip += 1
            while jn < n and keys[jn] == k:
                q += ww[jn]
                jn += 1
        else:
            lo = ip
            while ip < np_ and keys[ip] == k:
                ip += 1
            p = <double>(ip - lo)
            lo = jn
            while jn < n and keys[jn] == k:
                jn += 1
            q = <double>(jn - lo)
        if thr != NULL:
            thr[m] = fm_undkey_f64(k)
            out_p[m] = p
            out_q[m] = q
        m += 1
        tp0 = tp
        tp = tp + p
        fp = fp + q
        auc2 += q * (tp0 + tp)
        if tp + fp != 0.0:
            ap += p * (tp / (tp + fp))
    stats[STAT_NPOS] = <double>cnt_pos
    stats[STAT_NNEG] = <double>cnt_neg
    stats[STAT_P] = tp
    stats[STAT_N] = fp
    stats[STAT_AUC2] = auc2
    stats[STAT_AP] = ap
    stats[STAT_NTHR] = <double>m
    return m


cdef dict _alloc(Py_ssize_t n, bint has_w, Scratch* sb):
    """numpy-owned scratch (freed with the dict); pointers into it go to ``sb``."""
    cdef uint64_t[::1] keys = np.empty(max(n, 1), dtype=np.uint64)
    cdef uint64_t[::1] tmp = np.empty(max(n, 1), dtype=np.uint64)
    cdef uint64_t[::1] hist = np.empty(fm_radix_hist_size(n), dtype=np.uint64)
    cdef double[::1] w, wtmp
    hold = {"keys": keys, "tmp": tmp, "hist": hist}
    sb.keys = &keys[0]
    sb.tmp = &tmp[0]
    sb.hist = &hist[0]
    sb.w = NULL
    sb.wtmp = NULL
    if has_w:
        w = np.empty(max(n, 1), dtype=np.float64)
        wtmp = np.empty(max(n, 1), dtype=np.float64)
        hold["w"] = w
        hold["wtmp"] = wtmp
        sb.w = &w[0]
        sb.wtmp = &wtmp[0]
    return hold


def binary_stats(const label_t[:, :] y, const score_t[:, :] s, const weight_t[:] w,
                 bint has_w, const int64_t[:] ycol, const int64_t[:] scol,
                 const label_t[:] pos, const label_t[:] neg, bint neg_any,
                 double[:, ::1] out, int64_t[::1] bad):
    """Fill ``out[j, :N_STATS]`` for problem ``j``: labels ``y[:, ycol[j]]`` (positive where
    ``== pos[j]``; negative: every other row if ``neg_any`` else rows ``== neg[j]``), scores
    ``s[:, scol[j]]``. On a non-finite score/weight stops and writes ``bad = [row, col, kind]``
    (kind 0: score, 1: weight); returns 0 on success, -1 on such an error."""
    cdef Py_ssize_t n = s.shape[0]
    cdef Py_ssize_t j, nprob = ycol.shape[0]
    cdef Scratch sb
    cdef int64_t rb[2]
    cdef int64_t r = 0
    hold = _alloc(n, has_w, &sb)
    with nogil:
        for j in range(nprob):
            rb[0] = -1
            rb[1] = -1
            if _column(y, ycol[j], s, scol[j], w, has_w, pos[j], neg[j], neg_any, &sb,
                       &out[j, 0], NULL, NULL, NULL, rb) < 0:
                bad[0] = rb[0] if rb[0] >= 0 else rb[1]
                bad[1] = scol[j]
                bad[2] = 0 if rb[0] >= 0 else 1
                r = -1
                break
    del hold
    return r


def binary_summary(const label_t[:, :] y, const score_t[:, :] s, const weight_t[:] w,
                   bint has_w, label_t pos, double[::1] stats, double[::1] thr,
                   double[::1] out_p, double[::1] out_q, int64_t[::1] bad):
    """Summary of ``y[:, 0] == pos`` vs the rest for scores ``s[:, 0]``: writes the distinct
    thresholds (decreasing) with their positive / negative weights; returns how many, or -1
    with ``bad`` set as in :func:`binary_stats`."""
    cdef Scratch sb
    cdef int64_t rb[2]
    cdef int64_t m
    hold = _alloc(s.shape[0], has_w, &sb)
    rb[0] = -1
    rb[1] = -1
    with nogil:
        m = _column(y, 0, s, 0, w, has_w, pos, pos, True, &sb, &stats[0], &thr[0], &out_p[0],
                    &out_q[0], rb)
    del hold
    if m < 0:
        bad[0] = rb[0] if rb[0] >= 0 else rb[1]
        bad[1] = 0
        bad[2] = 0 if rb[0] >= 0 else 1
    return m


def summary_stats(const double[:] p, const double[:] q, double[::1] stats):
    """The statistics of :func:`binary_stats` from a summary (thresholds decreasing)."""
    cdef Py_ssize_t i, m = p.shape[0]
    cdef double tp = 0.0, fp = 0.0, tp0, auc2 = 0.0, ap = 0.0
    with nogil:
        for i in range(m):
            tp0 = tp
            tp = tp + p[i]
            fp = fp + q[i]
            auc2 += q[i] * (tp0 + tp)
            if tp + fp != 0.0:
                ap += p[i] * (tp / (tp + fp))
    stats[STAT_P] = tp
    stats[STAT_N] = fp
    stats[STAT_AUC2] = auc2
    stats[STAT_AP] = ap
    stats[STAT_NTHR] = <double>m


def label_scan(const label_t[:] y):
    """``(n_distinct capped at 3, v0, v1)``: the first two distinct values in order of
    appearance (v1 is v0 when there is only one)."""
    cdef Py_ssize_t i, n = y.shape[0]
    cdef label_t v0, v1, v
    cdef int nd = 0
    if n == 0:
        return 0, 0, 0
    v0 = y[0]
    v1 = v0
    nd = 1
    with nogil:
        for i in range(1, n):
            v = y[i]
            if v != v0 and v != v1:
                if nd == 1:
                    v1 = v
                    nd = 2
                else:
                    nd = 3
                    break
    return nd, v0, v1
