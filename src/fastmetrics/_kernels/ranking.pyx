# distutils: sources = csrc/fm_sort.c
"""Ranking kernels: sorted (score, positive weight, negative weight) summaries.

For one binary problem (one *column*), one pass over the scores and labels writes each
sample's order-preserving descending key (``fm_dkey_f64``) into one buffer: positives from
the front, negatives from the back (zero-weight samples are dropped, like scikit-learn does).
Each part is radix sorted (``fm_sort_u64``: an MSD pass into cache-sized buckets, then in-cache
passes), then one merging walk over the two sorted runs visits the distinct
thresholds in decreasing order with the positive weight ``p`` and negative weight ``q`` tied
at that score. That walk either writes the summary ``(threshold, p, q)`` (the mergeable state:
two summaries merge by threshold, adding weights) or accumulates, in the same pass,

- ``P``, ``N``: total positive / negative weight,
- ``auc2 = sum q * (tp_before + tp_after)``: twice the trapezoid area, un-normalised, so a
  tied positive/negative pair counts one half,
- ``ap = sum p * tp / (tp + fp)``: the step-wise average precision, times ``P``.

On large inputs the two runs are sorted on two threads and the statistics walk is cut into
two halves at a key (see ``_walk_counts``).

Scratch (passed in by the caller, see ``ranking._scratch``): ``2 N`` uint64 keys (sort
buffer + radix scratch) and, with sample weights, ``2 N`` doubles (the weight payload); a
small histogram. Nothing else is allocated or copied. ``binary_plain`` (the one-call path of
plain binary inputs) keeps its scratch on the stack up to 2048 samples.
Scores that are NaN or infinite (scikit-learn rejects both) stop the pass and are reported.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.math cimport isfinite
from libc.string cimport memmove
from cython.parallel cimport parallel, prange
from libc.stdlib cimport free, malloc

import numpy as np

cdef extern from "fm_sort.h" nogil:
    uint64_t fm_dkey_f64(double x)
    double fm_undkey_f64(uint64_t k)
    int64_t fm_radix_hist_size(int64_t n)
    uint64_t *fm_sort_u64(uint64_t *keys, uint64_t *tmp, double *w, double *wtmp, int64_t n,
                          uint64_t *hist, uint64_t varying)
    int FM_LSD_FROM
    int FM_LSD_UNTIL

from .common cimport label_t, weight_t

# scores: a fused type of their own, independent of the weights' dtype
ctypedef fused score_t:
    float
    double

# The statistics row's columns (NPOS ... N_STATS) and the BAD_* kinds: ranking.pxd.


cdef struct Scratch:
    uint64_t* keys
    uint64_t* tmp
    double* w
    double* wtmp
    uint64_t* hist   # two histograms: one per run
    int64_t hsize
    int n_threads
    uint64_t varying  # OR ^ AND of every key written by the partition


cdef enum:
    PAR_MIN = 1 << 17   # below this, one thread sorts both runs


cdef void _sort_run(Scratch* sb, int r, Py_ssize_t off, Py_ssize_t m, bint has_w,
                    uint64_t** runk, double** runw) noexcept nogil:
    """Radix sort run ``r`` (keys[off:off+m]); records where the sorted keys/weights are."""
    cdef uint64_t* out = fm_sort_u64(sb.keys + off, sb.tmp + off,
                                     (sb.w + off) if has_w else NULL,
                                     (sb.wtmp + off) if has_w else NULL, m,
                                     sb.hist + r * sb.hsize, sb.varying)
    runk[r] = out
    if has_w:
        runw[r] = (sb.w + off) if out == sb.keys + off else (sb.wtmp + off)
    else:
        runw[r] = NULL


cdef inline void _flush(int64_t ip, int64_t jn, int64_t* tpg, int64_t* fpg, int64_t* m,
                        uint64_t k, double* auc2, double* ap, double* thr, double* out_p,
                        double* out_q) noexcept nogil:
    """Close the group of threshold ``k``: ``ip`` / ``jn`` positives / negatives at or above
    it, ``tpg`` / ``fpg`` above it."""
    cdef int64_t p = ip - tpg[0], q = jn - fpg[0]
    if thr != NULL:
        thr[m[0]] = fm_undkey_f64(k)
        out_p[m[0]] = <double>p
        out_q[m[0]] = <double>q
    auc2[0] += <double>q * <double>(tpg[0] + ip)
    ap[0] += <double>p * (<double>ip / <double>(ip + jn))
    m[0] += 1
    tpg[0] = ip
    fpg[0] = jn


cdef void _walk_range(const uint64_t* pk, int64_t ip, int64_t np_, const uint64_t* nk,
                      int64_t jn, int64_t nn, double* acc, double* thr, double* out_p,
                      double* out_q) noexcept nogil:
    """Unweighted merge walk over pk[ip:np_] and nk[jn:nn] (``ip`` / ``jn`` positives /
    negatives precede them, so counts stay absolute); acc = [auc2, ap, thresholds].

    The run to take from is chosen without a branch (a select on ``pk[ip] <= nk[jn]``, whose
    outcome is unpredictable) and counts are integers; only a new threshold branches
    (predictable: nearly always or nearly never)."""
    cdef int64_t m = 0, tpg = ip, fpg = jn, t
    cdef double auc2 = 0.0, ap = 0.0
    cdef uint64_t a, b, k, prev
    if ip < np_ or jn < nn:
        prev = pk[ip] if (ip < np_ and (jn == nn or pk[ip] <= nk[jn])) else nk[jn]
        while ip < np_ and jn < nn:
            a = pk[ip]
            b = nk[jn]
            t = a <= b
            k = a if t else b
            if k != prev:
                _flush(ip, jn, &tpg, &fpg, &m, prev, &auc2, &ap, thr, out_p, out_q)
                prev = k
            ip += t
            jn += 1 - t
        while ip < np_:
            if pk[ip] != prev:
                _flush(ip, jn, &tpg, &fpg, &m, prev, &auc2, &ap, thr, out_p, out_q)
                prev = pk[ip]
            ip += 1
        while jn < nn:
            if nk[jn] != prev:
                _flush(ip, jn, &tpg, &fpg, &m, prev, &auc2, &ap, thr, out_p, out_q)
                prev = nk[jn]
            jn += 1
        _flush(ip, jn, &tpg, &fpg, &m, prev, &auc2, &ap, thr, out_p, out_q)
    acc[0] = auc2
    acc[1] = ap
    acc[2] = <double>m


cdef int64_t _lower_bound(const uint64_t* a, int64_t n, uint64_t key) noexcept nogil:
    """First index i with a[i] >= key in sorted a[0:n]."""
    cdef int64_t lo = 0, hi = n, mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if a[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef int64_t _walk_counts(const uint64_t* pk, int64_t np_, const uint64_t* nk, int64_t nn,
                          double* stats, double* thr, double* out_p, double* out_q,
                          int n_threads) noexcept nogil:
    """Unweighted walk: the same numbers, in the same order of operations, as the weighted
    one with unit weights. From PAR_MIN samples the thresholds are cut in two halves at a
    key, walked on two threads and added: always two halves, whatever the thread count, so
    the result does not depend on it (auc2 is a sum of integers, exact). Writing a summary,
    the second half writes from the number of samples before the cut (at least the
    thresholds before it) and is moved down next to the first; its counts are absolute, so
    the summary is the one walk's, whole."""
    cdef double acc[2][3]
    cdef int64_t cut_p[3]
    cdef int64_t cut_n[3]
    cdef int64_t off, m0
    cdef uint64_t key
    cdef int h, nh = 1
    cut_p[0] = 0
    cut_n[0] = 0
    if np_ + nn >= PAR_MIN and np_ >= 2 and nn >= 1:
        key = pk[np_ // 2]  # positives in both halves; equal keys stay on one side
        cut_p[1] = _lower_bound(pk, np_, key)
        cut_n[1] = _lower_bound(nk, nn, key)
        nh = 2
    cut_p[nh] = np_
    cut_n[nh] = nn
    off = cut_p[1] + cut_n[1] if nh == 2 else 0
    for h in prange(nh, num_threads=n_threads if nh > 1 else 1, schedule="static"):
        _walk_range(pk, cut_p[h], cut_p[h + 1], nk, cut_n[h], cut_n[h + 1], acc[h],
                    (thr + off) if (thr != NULL and h == 1) else thr,
                    (out_p + off) if (thr != NULL and h == 1) else out_p,
                    (out_q + off) if (thr != NULL and h == 1) else out_q)
    if nh == 2:
        m0 = <int64_t>acc[0][2]
        if thr != NULL and m0 < off:
            memmove(thr + m0, thr + off, <size_t>acc[1][2] * sizeof(double))
            memmove(out_p + m0, out_p + off, <size_t>acc[1][2] * sizeof(double))
            memmove(out_q + m0, out_q + off, <size_t>acc[1][2] * sizeof(double))
        acc[0][0] = acc[0][0] + acc[1][0]
        acc[0][1] = acc[0][1] + acc[1][1]
        acc[0][2] = acc[0][2] + acc[1][2]
    stats[P] = <double>np_
    stats[N] = <double>nn
    stats[AUC2] = acc[0][0]
    stats[AP] = acc[0][1]
    return <int64_t>acc[0][2]


cdef int64_t _column(const label_t[:, :] y, Py_ssize_t yc, const score_t[:, :] s,
                     Py_ssize_t sc, const weight_t[:] w, bint has_w, label_t pos, label_t neg,
                     bint neg_any, Scratch* sb, double* stats, double* thr, double* out_p,
                     double* out_q, int64_t* bad) noexcept nogil:
    """One binary problem. Returns the number of distinct thresholds, or -1 after writing
    the offending row into ``bad`` (bad[0]: non-finite score, bad[1]: non-finite weight)."""
    cdef Py_ssize_t n = s.shape[0]
    cdef Py_ssize_t i, np_ = 0, nn = 0
    cdef int64_t cnt_pos = 0, cnt_neg = 0, m = 0
    cdef double x, wi = 1.0, tp = 0.0, fp = 0.0, tp0, p, q, auc2 = 0.0, ap = 0.0
    cdef uint64_t k, kp, kn, kor = 0, kand = ~(<uint64_t>0)
    cdef label_t v
    cdef bint is_pos, is_neg, keep = True
    cdef uint64_t* keys = sb.keys
    cdef double* ww = sb.w
    cdef Py_ssize_t ip, jn, nstart
    cdef uint64_t* pk
    cdef uint64_t* nk
    cdef double* pw
    cdef double* nw

    # 1. partition into descending keys: positives at the front, negatives at the back.
    # Branch-free on the label (labels are unpredictable): the key is written to both free
    # slots (np_ + nn <= i < n, so they are distinct and unused) and only the counter of
    # its side advances.
    for i in range(n):
        x = <double>s[i, sc]
        if not isfinite(x):
            bad[0] = i
            return -1
        v = y[i, yc]
        is_pos = v == pos
        is_neg = (not is_pos) & (neg_any | (v == neg))
        cnt_pos += is_pos
        cnt_neg += is_neg
        k = fm_dkey_f64(x)
        if has_w:
            wi = <double>w[i]
            if not isfinite(wi):
                bad[1] = i
                return -1
            keep = wi != 0.0
            ww[np_] = wi
            ww[n - 1 - nn] = wi
        keys[np_] = k
        keys[n - 1 - nn] = k
        kor = kor | k
        kand = kand & k
        np_ += is_pos & keep
        nn += is_neg & keep
    nstart = n - nn
    sb.varying = kor ^ kand
    # 2. sort each run (the two runs in parallel on large inputs)
    cdef uint64_t* runk[2]
    cdef double* runw[2]
    cdef int r, nth = sb.n_threads if (sb.n_threads > 1 and np_ + nn >= PAR_MIN) else 1
    for r in prange(2, num_threads=nth, schedule="static"):
        _sort_run(sb, r, 0 if r == 0 else nstart, np_ if r == 0 else nn, has_w, runk, runw)
    pk = runk[0]
    nk = runk[1]
    pw = runw[0]
    nw = runw[1]
    # 3. merge the runs by threshold (unweighted: _walk_counts writes P, N, AUC2, AP)
    if has_w:
        ip = 0
        jn = 0
        while ip < np_ or jn < nn:
            if ip < np_ and (jn >= nn or pk[ip] <= nk[jn]):
                k = pk[ip]
            else:
                k = nk[jn]
            p = 0.0
            q = 0.0
            while ip < np_ and pk[ip] == k:
                p += pw[ip]
                ip += 1
            while jn < nn and nk[jn] == k:
                q += nw[jn]
                jn += 1
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
        stats[P] = tp
        stats[N] = fp
        stats[AUC2] = auc2
        stats[AP] = ap
    else:
        m = _walk_counts(pk, np_, nk, nn, stats, thr, out_p, out_q, nth)
    stats[NPOS] = <double>cnt_pos
    stats[NNEG] = <double>cnt_neg
    stats[NTHR] = <double>m
    return m


cdef int _bind(Scratch* sb, uint64_t[::1] keys, uint64_t[::1] tmp, double[::1] w,
               double[::1] wtmp, uint64_t[::1] hist, Py_ssize_t n, bint has_w,
               int n_threads) except -1:
    """Point ``sb`` at caller-owned scratch arrays after checking their sizes."""
    cdef int64_t hsize = fm_radix_hist_size(n)
    if keys.shape[0] < max(n, 1) or tmp.shape[0] < max(n, 1) or hist.shape[0] < 2 * hsize:
        raise ValueError("scratch arrays too small")
    if has_w and (w.shape[0] < max(n, 1) or wtmp.shape[0] < max(n, 1)):
        raise ValueError("weight scratch arrays too small")
    sb.keys = &keys[0]
    sb.tmp = &tmp[0]
    sb.hist = &hist[0]
    sb.hsize = hsize
    sb.n_threads = n_threads
    sb.w = &w[0] if has_w else NULL
    sb.wtmp = &wtmp[0] if has_w else NULL
    return 0


def hist_size(Py_ssize_t n):
    """uint64 slots of histogram scratch a call on n samples needs."""
    return 2 * fm_radix_hist_size(n)


def binary_stats(const label_t[:, :] y, const score_t[:, :] s, const weight_t[:] w,
                 bint has_w, const int64_t[:] ycol, const int64_t[:] scol,
                 const label_t[:] pos, const label_t[:] neg, bint neg_any,
                 double[:, ::1] out, int64_t[::1] bad, scratch, int n_threads=1):
    """Fill ``out[j, :N_STATS]`` for problem ``j``: labels ``y[:, ycol[j]]`` (positive where
    ``== pos[j]``; negative: every other row if ``neg_any`` else rows ``== neg[j]``), scores
    ``s[:, scol[j]]``. On a non-finite score/weight stops and writes ``bad = [row, col, kind]``
    (kind BAD_SCORE or BAD_WEIGHT); returns 0 on success, -1 on such an error."""
    cdef Py_ssize_t n = s.shape[0]
    cdef Py_ssize_t j, nprob = ycol.shape[0]
    cdef Scratch sb
    cdef int64_t rb[2]
    cdef int64_t r = 0
    _bind(&sb, scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], n, has_w, n_threads)
    with nogil:
        for j in range(nprob):
            rb[0] = -1
            rb[1] = -1
            if _column(y, ycol[j], s, scol[j], w, has_w, pos[j], neg[j], neg_any, &sb,
                       &out[j, 0], NULL, NULL, NULL, rb) < 0:
                bad[0] = rb[0] if rb[0] >= 0 else rb[1]
                bad[1] = scol[j]
                bad[2] = BAD_SCORE if rb[0] >= 0 else BAD_WEIGHT
                r = -1
                break
    return r


def binary_summary(const label_t[:, :] y, const score_t[:, :] s, const weight_t[:] w,
                   bint has_w, label_t pos, double[::1] stats, double[::1] thr,
                   double[::1] out_p, double[::1] out_q, int64_t[::1] bad, scratch,
                   int n_threads=1):
    """Summary of ``y[:, 0] == pos`` vs the rest for scores ``s[:, 0]``: writes the distinct
    thresholds (decreasing) with their positive / negative weights; returns how many, or -1
    with ``bad`` set as in :func:`binary_stats`."""
    cdef Scratch sb
    cdef int64_t rb[2]
    cdef int64_t m
    _bind(&sb, scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], s.shape[0], has_w,
          n_threads)
    rb[0] = -1
    rb[1] = -1
    with nogil:
        m = _column(y, 0, s, 0, w, has_w, pos, pos, True, &sb, &stats[0], &thr[0], &out_p[0],
                    &out_q[0], rb)
    if m < 0:
        bad[0] = rb[0] if rb[0] >= 0 else rb[1]
        bad[1] = 0
        bad[2] = BAD_SCORE if rb[0] >= 0 else BAD_WEIGHT
    return m


def grouped_summaries(const uint8_t[:, :] positive, const double[:, :] s,
                      const double[:] w, bint has_w, const int64_t[::1] offsets,
                      double[::1] thr, double[::1] out_p, double[::1] out_q,
                      double[:, ::1] stats, int64_t[::1] m_out, int64_t[::1] bad,
                      int n_threads=1):
    """:func:`binary_summary` of each group's run of rows at once: rows
    ``offsets[g]:offsets[g + 1]`` (ordered by group) are group ``g``'s, positive where
    ``positive[:, 0]`` is 1. Group g's distinct thresholds (decreasing) and their positive
    and negative weights are written from ``thr[offsets[g]]`` on (``m_out[g]`` of them),
    its statistics to ``stats[g]``. Groups run on up to ``n_threads`` OpenMP threads (each
    group on one, with its own scratch), so the result does not depend on their number.
    Returns -1, or the first group holding a non-finite score or weight (``bad[g]``: its
    kind, BAD_SCORE or BAD_WEIGHT)."""
    cdef Py_ssize_t G = offsets.shape[0] - 1
    cdef Py_ssize_t n = s.shape[0]
    cdef Py_ssize_t g, a, b, nmax = 0
    cdef int64_t hs, r
    cdef Scratch* sb
    cdef int64_t* rb
    cdef char* buf
    if positive.shape[0] != n or (has_w and w.shape[0] != n) or G < 0 \
            or thr.shape[0] < n or out_p.shape[0] < n or out_q.shape[0] < n \
            or stats.shape[0] != G or stats.shape[1] < N_STATS or m_out.shape[0] != G \
            or bad.shape[0] != G:
        raise ValueError("grouped_summaries: inconsistent shapes")
    for g in range(G):
        a = offsets[g]
        b = offsets[g + 1]
        if a < 0 or b < a or b > n:
            raise ValueError("grouped_summaries: offsets must increase within the rows")
        nmax = max(nmax, b - a)
    if G == 0 or nmax == 0:
        return -1
    hs = fm_radix_hist_size(nmax)
    with nogil, parallel(num_threads=max(1, n_threads)):
        # each thread's scratch: the Scratch, the two bad slots, keys, their copy,
        # weights, theirs, and two histograms
        buf = <char*>malloc(sizeof(Scratch) + 2 * sizeof(int64_t)
                            + (2 * nmax + 2 * hs) * sizeof(uint64_t)
                            + (2 * nmax if has_w else 0) * sizeof(double))
        if buf != NULL:
            sb = <Scratch*>buf
            rb = <int64_t*>(buf + sizeof(Scratch))
            sb.keys = <uint64_t*>(buf + sizeof(Scratch) + 2 * sizeof(int64_t))
            sb.tmp = sb.keys + nmax
            sb.hist = sb.tmp + nmax
            sb.hsize = hs
            sb.n_threads = 1
            sb.w = <double*>(sb.hist + 2 * hs) if has_w else NULL
            sb.wtmp = sb.w + nmax if has_w else NULL
        for g in prange(G, schedule="dynamic"):
            a = offsets[g]
            b = offsets[g + 1]
            bad[g] = -1
            m_out[g] = 0
            if buf == NULL:
                bad[g] = -2
            elif b > a:
                rb[0] = -1
                rb[1] = -1
                r = _column(positive[a:b], 0, s[a:b], 0, w[a:b] if has_w else w, has_w,
                            1, 1, True, sb, &stats[g, 0], &thr[a], &out_p[a], &out_q[a], rb)
                if r < 0:
                    bad[g] = BAD_SCORE if rb[0] >= 0 else BAD_WEIGHT
                else:
                    m_out[g] = r
        free(buf)
    for g in range(G):
        if bad[g] == -2:
            raise MemoryError("grouped_summaries: no memory for a thread's scratch")
    for g in range(G):
        if bad[g] >= 0:
            return g
    return -1


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
    stats[P] = tp
    stats[N] = fp
    stats[AUC2] = auc2
    stats[AP] = ap
    stats[NTHR] = <double>m


def label_scan(const label_t[:] y):
    """``(n_distinct capped at 3, v0, v1)``: the first two distinct values in order of
    appearance (v1 is v0 when there is only one).

    Blocks of labels are first checked with a branch-free count of values that are neither
    v0 nor v1 (labels are unpredictable, a branch per label costs ~3x); only a block with
    such a value (at most two blocks) is walked again to record it."""
    cdef Py_ssize_t i, j, end, n = y.shape[0]
    cdef label_t v0, v1, v
    cdef int nd = 0
    cdef Py_ssize_t miss
    if n == 0:
        return 0, 0, 0
    v0 = y[0]
    v1 = v0
    nd = 1
    with nogil:
        i = 1
        while i < n and nd < 3:
            end = min(n, i + 4096)
            miss = 0
            for j in range(i, end):
                v = y[j]
                miss += (v != v0) & (v != v1)
            if miss:
                for j in range(i, end):
                    v = y[j]
                    if v != v0 and v != v1:
                        if nd == 1:
                            v1 = v
                            nd = 2
                        else:
                            nd = 3
                            break
            i = end
    return nd, v0, v1


# ----------------------------------------------------------------------------- small inputs
# binary_plain: scratch on the stack up to SMALL_MAX samples, without a radix histogram:
# fm_sort_u64 only uses one from FM_LSD_FROM keys, which the C compiler checks is above.
cdef extern from *:
    """
    #define FM_PLAIN_SMALL 2048
    _Static_assert(FM_PLAIN_SMALL < FM_LSD_FROM,
                   "binary_plain's stack scratch has no radix histogram: keep FM_PLAIN_SMALL "
                   "below FM_LSD_FROM");
    """
    enum: SMALL_MAX "FM_PLAIN_SMALL"

cdef const double[:] _NO_WEIGHTS = np.zeros(1)


cdef object _plain(const label_t[:, :] y, const score_t[:, :] s, int mode, scratch,
                   int n_threads):
    """ROC AUC (mode 0, positive = the greater label) or AP (mode 1, positive = 1) of one
    binary problem with exactly two label values, finite scores and no weights; None for
    anything else (the caller takes the general path). The two labels are the first value
    and the first different one; the partition pass (``neg_any`` off) puts a row with a
    third value in neither count, so NPOS + NNEG < n reveals one (no separate scan).
    Scratch: ``scratch`` (ranking._scratch), or on the stack when None."""
    cdef Py_ssize_t i, n = y.shape[0]
    cdef label_t v0, v1, pos, neg
    cdef uint64_t keys[SMALL_MAX]
    cdef uint64_t tmp[SMALL_MAX]
    cdef uint64_t hist[1]  # never read: n <= SMALL_MAX < FM_LSD_FROM (see above)
    cdef double stats[N_STATS]
    cdef int64_t bad[2]
    cdef int64_t m
    cdef Scratch sb
    if n == 0 or s.shape[0] != n or (scratch is None and n > SMALL_MAX):
        return None
    v0 = y[0, 0]
    i = 1
    while i < n and y[i, 0] == v0:
        i += 1
    if i == n:
        return None  # one class: the general path warns
    v1 = y[i, 0]
    if mode == 0:
        pos = v0 if v0 > v1 else v1
    elif v0 == 1 or v1 == 1:
        pos = 1
    else:
        return None  # pos_label 1 is not a label: the general path raises
    neg = v1 if pos == v0 else v0
    if scratch is None:
        sb.keys = keys
        sb.tmp = tmp
        sb.w = NULL
        sb.wtmp = NULL
        sb.hist = hist
        sb.hsize = 0  # both runs point at hist[0]
        sb.n_threads = 1
    else:
        _bind(&sb, scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], n, False,
              n_threads)
    bad[0] = -1
    bad[1] = -1
    with nogil:
        m = _column(y, 0, s, 0, _NO_WEIGHTS, False, pos, neg, False, &sb, stats, NULL, NULL,
                    NULL, bad)
    if m < 0 or stats[NPOS] + stats[NNEG] != <double>n:
        return None  # non-finite score / a third label: the general path raises
    if mode == 0:
        return stats[AUC2] / (2.0 * stats[P] * stats[N])
    return max(0.0, stats[AP] / stats[P])


cdef object _plain_labels(y2, const score_t[:, :] s2, str yk, Py_ssize_t ysz, int mode,
                          scratch, int n_threads):
    """_plain on the label dtypes binary_plain serves; None for the others."""
    cdef const int64_t[:, :] i64
    cdef const int32_t[:, :] i32
    cdef const int8_t[:, :] i8
    cdef const uint8_t[:, :] u8
    if yk == "i" and ysz == 8:
        i64 = y2
        return _plain(i64, s2, mode, scratch, n_threads)
    if yk == "i" and ysz == 4:
        i32 = y2
        return _plain(i32, s2, mode, scratch, n_threads)
    if yk == "i" and ysz == 1:
        i8 = y2
        return _plain(i8, s2, mode, scratch, n_threads)
    if yk == "u" and ysz == 1:
        u8 = y2
        return _plain(u8, s2, mode, scratch, n_threads)
    return None


SMALL = SMALL_MAX


def binary_plain(y, s, int mode, scratch=None, int n_threads=1):
    """Fast path of ``roc_auc_score`` (mode 0) / ``average_precision_score`` (mode 1, pos_label
    1) for plain 1-D native arrays: int8/int32/int64/uint8/bool labels with exactly two
    values, float32/float64 finite scores. Up to ``SMALL`` samples with ``scratch`` None
    (stack scratch), any size with a ``ranking._scratch`` tuple. Returns the score, or None
    when the input is outside that (the general path then validates, warns or raises)."""
    if type(y) is not np.ndarray or type(s) is not np.ndarray or y.ndim != 1 or s.ndim != 1:
        return None
    cdef const double[:, :] s64
    cdef const float[:, :] s32
    cdef str yk
    cdef Py_ssize_t ysz
    yd = y.dtype
    sd = s.dtype
    if not (yd.isnative and sd.isnative):
        return None
    yk = yd.kind
    ysz = yd.itemsize
    if yk == "b":
        y = y.view(np.uint8)
        yk = "u"
    if sd.char == "d":
        s64 = s[:, None]
        return _plain_labels(y[:, None], s64, yk, ysz, mode, scratch, n_threads)
    if sd.char == "f":
        s32 = s[:, None]
        return _plain_labels(y[:, None], s32, yk, ysz, mode, scratch, n_threads)
    return None


# ----------------------------------------------------------------------------- merging states


cdef int64_t _merge_two(const double* ta, int64_t na, const double* a0, const double* a1,
                        int64_t sa0, int64_t sa1, const double* tb, int64_t nb,
                        const double* b0, const double* b1, int64_t sb0, int64_t sb1,
                        double* ot, double* o0, double* o1, bint two) noexcept nogil:
    """The merging walk of two summaries (see :func:`merge_runs`); returns the thresholds
    written. A row a run lacks is read with stride 0 from a zero.

    Without a branch on the comparison (its outcome is unpredictable): each step takes the
    greater head, or both when they are equal, and adds the weights taken to 0.0 in run
    order, so a weight is bit for bit what summing the runs' weights from 0.0 gives."""
    cdef int64_t i = 0, j = 0, m = 0
    cdef double x, y, fa, fb
    cdef bint ta_, tb_
    while i < na and j < nb:
        x = ta[i]
        y = tb[j]
        # "not greater" rather than ">=": a NaN (a state built by hand) still advances
        ta_ = not (y > x)
        tb_ = not (x > y)
        fa = <double>ta_
        fb = <double>tb_
        ot[m] = (x if ta_ else y) + 0.0
        o0[m] = (0.0 + a0[i * sa0] * fa) + b0[j * sb0] * fb
        if two:
            o1[m] = (0.0 + a1[i * sa1] * fa) + b1[j * sb1] * fb
        i += ta_
        j += tb_
        m += 1
    m = _tail(ta, i, na, a0, a1, sa0, sa1, ot, o0, o1, m, two)
    return _tail(tb, j, nb, b0, b1, sb0, sb1, ot, o0, o1, m, two)


cdef inline int64_t _tail(const double* t, int64_t i, int64_t n, const double* w0,
                          const double* w1, int64_t s0, int64_t s1, double* ot, double* o0,
                          double* o1, int64_t m, bint two) noexcept nogil:
    """Copy what is left of one run (``t[i:n]``) after the other ran out; returns ``m``."""
    while i < n:
        ot[m] = t[i] + 0.0
        o0[m] = 0.0 + w0[i * s0]
        if two:
            o1[m] = 0.0 + w1[i * s1]
        i += 1
        m += 1
    return m


def merge_runs(const double[::1] ta, const double[:, ::1] wa, const int64_t[::1] ra,
               const double[::1] tb, const double[:, ::1] wb, const int64_t[::1] rb,
               double[::1] out_thr, double[:, ::1] out_w):
    """Merge two ranking summaries: thresholds ``ta`` / ``tb`` (strictly decreasing) with
    one weight row per class each holds (``wa`` / ``wb``); ``ra[j]`` / ``rb[j]`` is the row
    holding class ``j`` of the union (-1: that summary lacks it). Writes the distinct
    thresholds of both, decreasing, to ``out_thr`` and class ``j``'s weight at each to
    ``out_w[j]`` (sized for ``len(ta) + len(tb)``); returns how many.

    One walk, no sort: O(len(ta) + len(tb)). The weights of a threshold in both are added
    ``(0.0 + a) + b``, as summing the concatenated runs from 0.0 does; -0.0 thresholds come
    out as +0.0, as the sort keys make them."""
    cdef int64_t na = ta.shape[0], nb = tb.shape[0], k = out_w.shape[0], m
    cdef double zero = 0.0
    cdef const double* p[4]
    cdef int64_t st[4]
    cdef int64_t j
    if ra.shape[0] != k or rb.shape[0] != k or k > 2:
        raise ValueError("merge_runs: the class rows disagree with the output")
    if out_thr.shape[0] < na + nb or (k and out_w.shape[1] < na + nb):
        raise ValueError("merge_runs: the output is too small")
    if k == 0:
        if na + nb:
            raise ValueError("merge_runs: thresholds without classes")
        return 0
    for j in range(k):
        if (ra[j] >= wa.shape[0] or rb[j] >= wb.shape[0]
                or (ra[j] >= 0 and wa.shape[1] != na) or (rb[j] >= 0 and wb.shape[1] != nb)):
            raise ValueError("merge_runs: a summary's weights do not match its thresholds")
        p[j] = &wa[ra[j], 0] if (ra[j] >= 0 and na) else &zero
        st[j] = 1 if (ra[j] >= 0 and na) else 0
        p[2 + j] = &wb[rb[j], 0] if (rb[j] >= 0 and nb) else &zero
        st[2 + j] = 1 if (rb[j] >= 0 and nb) else 0
    if k == 1:
        p[1], st[1], p[3], st[3] = &zero, 0, &zero, 0
    with nogil:
        m = _merge_two(&ta[0] if na else &zero, na, p[0], p[1], st[0], st[1],
                       &tb[0] if nb else &zero, nb, p[2], p[3], st[2], st[3],
                       &out_thr[0] if (na + nb) else &zero, &out_w[0, 0],
                       &out_w[1, 0] if k == 2 else &out_w[0, 0], k == 2)
    return m


cdef struct Run:
    const double* t     # thresholds, strictly decreasing
    const double* w0    # class 0's weight at each (stride s0: 0 reads a zero)
    const double* w1    # class 1's (k == 2)
    int64_t s0, s1, n, off


cdef void _carry(Run* r, double* dt, double* d0, double* d1, bint two) noexcept nogil:
    """Copy run ``r`` (its values as they are) to the scratch at its offset and point it
    there: every run of a level then lives in the buffer the next level reads."""
    cdef int64_t i
    for i in range(r.n):
        dt[r.off + i] = r.t[i]
        d0[r.off + i] = r.w0[i * r.s0]
        if two:
            d1[r.off + i] = r.w1[i * r.s1]
    r.t, r.w0, r.w1, r.s0, r.s1 = dt + r.off, d0 + r.off, d1 + r.off, 1, 1


#: a summary whose weight row j is class j (every summary of a merge_each group)
cdef const int64_t[:] _CLASS_ROWS = np.arange(2, dtype=np.int64)


cdef Run _tree(Run* runs, Py_ssize_t r, int64_t total, double* buf, bint two) noexcept nogil:
    """The balanced tree of merges of ``r`` >= 1 runs (offsets ``off`` into a stretch of
    ``total`` thresholds): neighbours merged level by level, the odd last one carried up.
    ``buf`` holds two scratch stretches of ``(1 + two + 1) * total`` doubles that the
    levels take in turn; the root run returned points into it (or is the one run)."""
    cdef Py_ssize_t i, c = r, half = 0
    cdef int64_t k = 2 if two else 1
    cdef Run a, b
    cdef double* dt
    cdef double* d0
    cdef double* d1
    while c > 1:
        # this level's outputs go to the stretch the last level did not write
        dt = buf + half * (1 + k) * total
        d0 = dt + total
        d1 = d0 + total if two else d0
        for i in range(c // 2):
            a, b = runs[2 * i], runs[2 * i + 1]
            runs[i].n = _merge_two(a.t, a.n, a.w0, a.w1, a.s0, a.s1, b.t, b.n, b.w0, b.w1,
                                   b.s0, b.s1, dt + a.off, d0 + a.off, d1 + a.off, two)
            runs[i].off = a.off
            runs[i].t, runs[i].w0, runs[i].w1 = dt + a.off, d0 + a.off, d1 + a.off
            runs[i].s0, runs[i].s1 = 1, 1
        if c % 2:
            runs[c // 2] = runs[c - 1]
            _carry(&runs[c // 2], dt, d0, d1, two)
        c = (c + 1) // 2
        half = 1 - half
    return runs[0]


cdef int _describe(Run* run, object thresholds, object weights, const int64_t[:] rows,
                   int64_t k, double* zero) except -1:
    """Fill ``run`` from a summary's arrays (``rows[j]``: the weight row of class j, -1
    when it lacks it)."""
    cdef const double[::1] t = thresholds
    cdef const double[:, ::1] w = weights
    cdef int64_t j
    run.n = t.shape[0]
    run.t = &t[0] if t.shape[0] else zero
    run.w0, run.w1, run.s0, run.s1 = zero, zero, 0, 0
    for j in range(k):
        if rows[j] >= w.shape[0] or (rows[j] >= 0 and w.shape[1] != t.shape[0]):
            raise ValueError("a summary's weights do not match its thresholds")
        if rows[j] >= 0 and t.shape[0]:
            if j == 0:
                run.w0, run.s0 = &w[rows[j], 0], 1
            else:
                run.w1, run.s1 = &w[rows[j], 0], 1
    return 0


def merge_tree(list thresholds, list weights, const int64_t[:, ::1] rows,
               double[::1] out_thr, double[:, ::1] out_w):
    """Merge ``r`` ranking summaries in a balanced pairwise tree: neighbours merged level by
    level (the odd last one carried up), each merge the walk of :func:`merge_runs`, so the
    thresholds and weights are bit for bit those of :func:`merge_runs` applied in that tree,
    from one call. ``thresholds[i]`` / ``weights[i]`` as ``ta`` / ``wa`` there;
    ``rows[i, j]`` is the row of summary ``i`` holding class ``j`` of the union (-1: it
    lacks it). Writes to ``out_thr`` / ``out_w`` (sized for every threshold of every
    summary); returns how many distinct thresholds.

    Two scratch buffers of the outputs' size take the levels in turn (O(m log r) for m
    thresholds in all, no sort)."""
    cdef Py_ssize_t r = len(thresholds), i
    cdef int64_t k = out_w.shape[0], total = 0, m = 0
    cdef double zero = 0.0
    cdef bint two = k == 2
    cdef Run* runs
    cdef Run root
    cdef double* buf = NULL
    if len(weights) != r or rows.shape[0] != r or rows.shape[1] != k or k > 2 or r == 0:
        raise ValueError("merge_tree: the summaries, class rows and output disagree")
    runs = <Run*>malloc(r * sizeof(Run))
    if runs == NULL:
        raise MemoryError()
    try:
        for i in range(r):
            try:
                _describe(&runs[i], thresholds[i], weights[i], rows[i], k, &zero)
            except ValueError as exc:
                raise ValueError(f"merge_tree: {exc}") from None
            runs[i].off = total
            total += runs[i].n
        if k == 0:
            if total:
                raise ValueError("merge_tree: thresholds without classes")
            return 0
        if out_thr.shape[0] < total or out_w.shape[1] < total:
            raise ValueError("merge_tree: the output is too small")
        buf = <double*>malloc(2 * (1 + k) * max(total, 1) * sizeof(double))
        if buf == NULL:
            raise MemoryError()
        with nogil:
            if r == 1:  # no level: the one summary, as it is
                _carry(&runs[0], buf, buf + total, buf + 2 * total if two else buf + total,
                       two)
            root = _tree(runs, r, total, buf, two)
            m = root.n
            for i in range(m):
                out_thr[i] = root.t[i]
                out_w[0, i] = root.w0[i]
                if two:
                    out_w[1, i] = root.w1[i]
        free(buf)
    finally:
        free(runs)
    return m


def merge_each(list thresholds, list weights, const int64_t[::1] first,
               const int64_t[::1] ks, double[::1] out_thr, double[:, ::1] out_w,
               int64_t[::1] out_n, int n_threads=1):
    """For each group g, its summaries ``first[g] .. first[g + 1] - 1`` of the lists (at
    least two, over the group's ``ks[g]`` classes, weight row j class j): the first one
    merged with the balanced tree of the others (:func:`merge_tree`'s), as
    ``merge_runs(first, tree)``: bit for bit what merging the later ones and then the
    first with them gives, for every group in one call, groups on up to ``n_threads``
    OpenMP threads (the result does not depend on their number).

    Group g's distinct thresholds are written in group order, packed: from the sum of the
    earlier groups' ``out_n`` on (``out_thr`` / ``out_w`` sized for every threshold of
    every summary); their number to ``out_n[g]``. Returns the sum of ``out_n``."""
    cdef Py_ssize_t r = len(thresholds), G = ks.shape[0], g, i, n_runs
    cdef int64_t total = 0, most = 0, t_g, at, m, done
    cdef double zero = 0.0
    cdef Run* runs = NULL
    cdef int64_t* start = NULL
    cdef double* buf
    cdef Run x, head
    if len(weights) != r or first.shape[0] != G + 1 or out_n.shape[0] != G \
            or out_w.shape[0] != 2 or (G and (first[0] != 0 or first[G] != r)):
        raise ValueError("merge_each: the summaries, groups and output disagree")
    for g in range(G):
        if first[g + 1] - first[g] < 2 or ks[g] < 1 or ks[g] > 2:
            raise ValueError("merge_each: a group needs two summaries or more, of 1 or 2 "
                             "classes")
    runs = <Run*>malloc(max(r, 1) * sizeof(Run))
    start = <int64_t*>malloc((G + 1) * sizeof(int64_t))
    if runs == NULL or start == NULL:
        free(runs)
        free(start)
        raise MemoryError()
    try:
        for g in range(G):
            start[g] = total
            t_g = 0
            for i in range(first[g], first[g + 1]):
                try:
                    _describe(&runs[i], thresholds[i], weights[i], _CLASS_ROWS, ks[g],
                              &zero)
                except ValueError as exc:
                    raise ValueError(f"merge_each: {exc}") from None
                if i > first[g]:  # the tree's runs: offsets within the group's scratch
                    runs[i].off = t_g
                    t_g += runs[i].n
            most = max(most, t_g)
            total += t_g + runs[first[g]].n
        start[G] = total
        if out_thr.shape[0] < total or out_w.shape[1] < total:
            raise ValueError("merge_each: the output is too small")
        with nogil, parallel(num_threads=max(1, n_threads)):
            buf = <double*>malloc(2 * 3 * max(most, 1) * sizeof(double))
            for g in prange(G, schedule="dynamic"):
                if buf == NULL:
                    out_n[g] = -1  # (read below: each group says so itself)
                else:
                    n_runs = first[g + 1] - first[g] - 1
                    head = runs[first[g]]
                    x = _tree(&runs[first[g] + 1], n_runs, most, buf, ks[g] == 2)
                    at = start[g]
                    out_n[g] = _merge_two(head.t, head.n, head.w0, head.w1, head.s0,
                                          head.s1, x.t, x.n, x.w0, x.w1, x.s0, x.s1,
                                          &out_thr[at], &out_w[0, at], &out_w[1, at],
                                          ks[g] == 2)
            free(buf)
        for g in range(G):
            if out_n[g] < 0:
                raise MemoryError("merge_each: no memory for a thread's scratch")
        # packed in group order (each group's run moves left, never past its own start)
        done = 0
        for g in range(G):
            m = out_n[g]
            if done != start[g]:
                memmove(&out_thr[done], &out_thr[start[g]], m * sizeof(double))
                memmove(&out_w[0, done], &out_w[0, start[g]], m * sizeof(double))
                memmove(&out_w[1, done], &out_w[1, start[g]], m * sizeof(double))
            done += m
    finally:
        free(runs)
        free(start)
    return done


LSD_FROM = FM_LSD_FROM
LSD_UNTIL = FM_LSD_UNTIL


def _py_sort_keys(const uint64_t[::1] keys, w=None):
    """Test hook: ``fm_sort_u64`` on a copy of ``keys`` (with the float64 payload ``w`` when
    given); returns ``(sorted keys, payload in the same order or None)``."""
    cdef Py_ssize_t n = keys.shape[0], m = max(n, 1)
    cdef uint64_t[::1] k = np.empty(m, np.uint64)
    cdef uint64_t[::1] t = np.empty(m, np.uint64)
    cdef uint64_t[::1] h = np.empty(fm_radix_hist_size(m), np.uint64)
    cdef double[::1] wa = np.empty(m)
    cdef double[::1] wt = np.empty(m)
    cdef bint has_w = w is not None
    cdef const double[:] win
    cdef uint64_t* out
    k[:n] = keys
    if has_w:
        win = np.ascontiguousarray(w, dtype=np.float64)
        wa[:n] = win
    with nogil:
        out = fm_sort_u64(&k[0], &t[0], &wa[0] if has_w else NULL, &wt[0] if has_w else NULL,
                          n, &h[0], ~(<uint64_t>0))
    if out == &k[0]:
        return (np.asarray(k)[:n].copy(), np.asarray(wa)[:n].copy() if has_w else None)
    return (np.asarray(t)[:n].copy(), np.asarray(wt)[:n].copy() if has_w else None)
