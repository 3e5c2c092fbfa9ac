# distutils: sources = csrc/fm_sort.c
"""DeLong kernels: the structural components (placements) of ROC AUC from one radix sort.

One pass writes each row's order-preserving descending key (``fm_dkey_f64``) and a tag that
carries both its row and its class: ``+(row + 1)`` for a positive, ``-(row + 1)`` for a
negative (exact in a double up to 2**53 rows). ``fm_sort_u64`` sorts the keys with the tags as
payload; one walk over the runs of equal keys (decreasing scores) then knows, for each run,
its positives ``p`` and negatives ``q``, the negatives below it and the positives above it:

    V10 of its positives = (negatives below + q / 2) / n,
    V01 of its negatives = (positives above + p / 2) / m,

the placements of DeLong et al. (1988) as Sun & Xu (2014) derive them from midranks. Twice
the AUC's numerator, ``sum p (2 negatives below + q)``, is an integer: it is accumulated in
int64, so the AUC is the correctly rounded ratio.

``variance`` needs no row: it keys the positives and the negatives into two runs (the run is
the class: no payload), sorts them on two threads and walks them twice by key (the AUC
first, then the centred sums of squares, compensated). ``placements`` writes each row's
placement where the row is (the paired test's covariance needs them row by row), two score
vectors on two threads; ``paired_sums`` then forms the paired sums in one pass.
Non-finite scores stop the pass: the first such row is reported.
"""

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.math cimport NAN, fabs, isfinite
from cython.parallel cimport prange

from .common cimport label_t

cdef extern from "fm_sort.h" nogil:
    uint64_t fm_dkey_f64(double x)
    int64_t fm_radix_hist_size(int64_t n)
    uint64_t *fm_sort_u64(uint64_t *keys, uint64_t *tmp, double *w, double *wtmp, int64_t n,
                          uint64_t *hist, uint64_t varying)

ctypedef fused score_t:
    float
    double


cdef struct Sorted:
    uint64_t* keys   # sorted descending-score keys
    double* tags     # +(row + 1) positive, -(row + 1) negative, in the keys' order
    int64_t m        # positives
    int64_t n        # negatives


cdef inline bint _key(double x, uint64_t* k, uint64_t* kor, uint64_t* kand) noexcept nogil:
    """The descending key of ``x`` into ``k[0]``, folded into the masks of the bits that vary
    (the sort skips the others); False, and nothing written, when ``x`` is not finite."""
    if not isfinite(x):
        return False
    k[0] = fm_dkey_f64(x)
    kor[0] = kor[0] | k[0]
    kand[0] = kand[0] & k[0]
    return True


cdef Py_ssize_t _sort(const label_t* y, Py_ssize_t ys, label_t pos, const score_t* s,
                      Py_ssize_t ss, Py_ssize_t nrow, uint64_t* keys, double* tags,
                      uint64_t* hist, Sorted* out) noexcept nogil:
    """Key, tag and sort the rows (``ys``, ``ss``: element strides). Returns -1, or the first
    row whose score is not finite. ``keys`` and ``tags`` hold 2 nrow values (sort scratch)."""
    cdef Py_ssize_t i
    cdef uint64_t k, kor = 0, kand = ~(<uint64_t>0)
    cdef int64_t m = 0
    cdef bint p
    for i in range(nrow):
        if not _key(<double>s[i * ss], &k, &kor, &kand):
            return i
        keys[i] = k
        p = y[i * ys] == pos
        m += p
        tags[i] = <double>(i + 1) if p else -<double>(i + 1)
    cdef uint64_t* sk = fm_sort_u64(keys, keys + nrow, tags, tags + nrow, nrow, hist,
                                    kor ^ kand)
    out.keys = sk
    out.tags = tags if sk == keys else tags + nrow
    out.m = m
    out.n = nrow - m
    return -1


cdef int64_t _place(Sorted* st, Py_ssize_t nrow, double* v) noexcept nogil:
    """Each row's placement into ``v`` (NULL: none written); returns twice the AUC's
    numerator."""
    cdef Py_ssize_t a = 0, b, i
    cdef int64_t p, q, pos_above = 0, neg_seen = 0, a2, b2, auc2 = 0
    cdef double va, vb, t, dn = 2.0 * <double>st.n, dm = 2.0 * <double>st.m
    cdef uint64_t k
    while a < nrow:
        k = st.keys[a]
        b = a
        p = 0
        while b < nrow and st.keys[b] == k:
            p += st.tags[b] > 0
            b += 1
        q = (b - a) - p
        a2 = 2 * (st.n - neg_seen - q) + q   # 2 x (negatives below + q / 2)
        b2 = 2 * pos_above + p               # 2 x (positives above + p / 2)
        auc2 += p * a2
        if v != NULL:
            # divisions, not products with a reciprocal: the correctly rounded placement,
            # equal to the AUC whenever it is so exactly (zero variance stays zero)
            va = <double>a2 / dn if st.n else 0.0
            vb = <double>b2 / dm if st.m else 0.0
            for i in range(a, b):
                t = st.tags[i]
                if t > 0:
                    v[<Py_ssize_t>t - 1] = va
                else:
                    v[<Py_ssize_t>(-t) - 1] = vb
        pos_above += p
        neg_seen += q
        a = b
    return auc2


cdef inline void _add(double* acc, double x) noexcept nogil:
    """Compensated (Kahan) addition of ``x >= 0`` to ``acc[0]``, its error kept in ``acc[1]``:
    a plain running sum over 10**6 runs drifts by ~1e-11 relative; this stays near 1e-16."""
    cdef double y = x - acc[1]
    cdef double t = acc[0] + y
    acc[1] = (t - acc[0]) - y
    acc[0] = t


cdef inline void _add_signed(double* acc, double x) noexcept nogil:
    """Compensated (Neumaier) addition of ``x`` of either sign: error kept in ``acc[1]``."""
    cdef double t = acc[0] + x
    if fabs(acc[0]) >= fabs(x):
        acc[1] += (acc[0] - t) + x
    else:
        acc[1] += (x - t) + acc[0]
    acc[0] = t


cdef Py_ssize_t _split_sort(const label_t* y, Py_ssize_t ys, label_t pos, const score_t* s,
                            Py_ssize_t ss, Py_ssize_t nrow, uint64_t* keys, uint64_t* hist,
                            Py_ssize_t hsize, int nth, uint64_t** runs,
                            int64_t* counts) noexcept nogil:
    """Keys of the positives at the front of ``keys``, of the negatives at the back, each
    run sorted (no payload: the run is the class), the two on two threads when ``nth`` is 2.
    Returns -1, or the first row whose score is not finite."""
    cdef Py_ssize_t i, np_ = 0, nn = 0, nstart
    cdef uint64_t k, kor = 0, kand = ~(<uint64_t>0)
    cdef bint p
    for i in range(nrow):
        if not _key(<double>s[i * ss], &k, &kor, &kand):
            return i
        p = y[i * ys] == pos
        # both free slots get the key and only the row's side advances: no branch on the
        # (unpredictable) label
        keys[np_] = k
        keys[nrow - 1 - nn] = k
        np_ += p
        nn += not p
    nstart = nrow - nn
    counts[0] = np_
    counts[1] = nn
    cdef int r
    for r in prange(2, num_threads=nth, schedule="static"):
        if r == 0:
            runs[0] = fm_sort_u64(keys, keys + nrow, NULL, NULL, np_, hist, kor ^ kand) \
                if np_ else keys
        else:
            runs[1] = fm_sort_u64(keys + nstart, keys + nrow + nstart, NULL, NULL, nn,
                                  hist + hsize, kor ^ kand) if nn else keys + nstart
    return -1


cdef int64_t _merge_walk(const uint64_t* pk, int64_t mp, const uint64_t* nk, int64_t mn,
                         double auc, double* out) noexcept nogil:
    """Walk the two sorted runs by key (decreasing scores). ``out`` NULL: returns twice the
    AUC's numerator; else writes the compensated sums of squares of the positives' and the
    negatives' placements about ``auc`` into ``out[0]``, ``out[1]``."""
    cdef int64_t ip = 0, jn = 0, p, q, pos_above = 0, neg_seen = 0, auc2 = 0
    cdef double d, dn = 2.0 * <double>mn, dm = 2.0 * <double>mp
    cdef double s10[2]
    cdef double s01[2]
    cdef uint64_t k
    s10[0] = s10[1] = s01[0] = s01[1] = 0.0
    while ip < mp or jn < mn:
        if ip < mp and (jn >= mn or pk[ip] <= nk[jn]):
            k = pk[ip]
        else:
            k = nk[jn]
        p = ip
        while ip < mp and pk[ip] == k:
            ip += 1
        p = ip - p
        q = jn
        while jn < mn and nk[jn] == k:
            jn += 1
        q = jn - q
        if out == NULL:
            auc2 += p * (2 * (mn - neg_seen - q) + q)
        else:
            if p:
                d = <double>(2 * (mn - neg_seen - q) + q) / dn - auc
                _add(s10, <double>p * d * d)
            if q:
                d = <double>(2 * pos_above + p) / dm - auc
                _add(s01, <double>q * d * d)
        pos_above += p
        neg_seen += q
    if out != NULL:
        out[0] = s10[0]
        out[1] = s01[0]
    return auc2


def scratch_sizes(Py_ssize_t n):
    """``(keys, tags, hist)``: the lengths of the scratch arrays one score vector of n rows
    needs (uint64, float64, uint64; ``hist`` holds the histograms of two runs)."""
    cdef Py_ssize_t m = max(n, 1)
    return 2 * m, 2 * m, 2 * fm_radix_hist_size(m)


def _check(Py_ssize_t n, uint64_t[::1] keys, double[::1] tags, uint64_t[::1] hist):
    if (keys.shape[0] < 2 * max(n, 1) or tags.shape[0] < 2 * max(n, 1)
            or hist.shape[0] < 2 * fm_radix_hist_size(max(n, 1))):
        raise ValueError("scratch arrays too small")


def variance(const label_t[:] y, label_t pos, const score_t[:] s, uint64_t[::1] keys,
             uint64_t[::1] hist, double[::1] out, int n_threads=1):
    """DeLong's sums of one binary problem (positive: ``y == pos``) into ``out``:
    ``[m, n, auc2, ss10, ss01]`` -- the counts, twice the AUC's numerator and the sums of
    squares of the placements about the AUC -- from the two classes' sorted runs (two
    threads when ``n_threads > 1``; the sums do not depend on it). Returns -1, or the first
    non-finite row."""
    cdef Py_ssize_t nrow = s.shape[0]
    cdef Py_ssize_t hsize = fm_radix_hist_size(max(nrow, 1))
    cdef Py_ssize_t bad
    cdef int64_t auc2
    cdef int64_t counts[2]
    cdef uint64_t* runs[2]
    cdef double auc
    cdef int nth = 2 if n_threads > 1 else 1
    if y.shape[0] != nrow or out.shape[0] < 5:
        raise ValueError("y and s differ in length, or out is too short")
    if keys.shape[0] < 2 * max(nrow, 1) or hist.shape[0] < 2 * hsize:
        raise ValueError("scratch arrays too small")
    out[0] = out[1] = out[2] = out[3] = out[4] = 0.0
    if nrow == 0:
        return -1
    with nogil:
        bad = _split_sort(&y[0], y.strides[0] // sizeof(label_t), pos, &s[0],
                          s.strides[0] // sizeof(score_t), nrow, &keys[0], &hist[0], hsize,
                          nth, runs, counts)
        if bad < 0:
            auc2 = _merge_walk(runs[0], counts[0], runs[1], counts[1], 0.0, NULL)
            if counts[0] and counts[1]:
                auc = <double>auc2 / (2.0 * <double>counts[0] * <double>counts[1])
                _merge_walk(runs[0], counts[0], runs[1], counts[1], auc, &out[3])
            out[0] = <double>counts[0]
            out[1] = <double>counts[1]
            out[2] = <double>auc2
    return bad


def placements(const label_t[:] y, label_t pos, const score_t[:] sa, const score_t[:] sb,
               double[::1] va, double[::1] vb, uint64_t[:, ::1] keys, double[:, ::1] tags,
               uint64_t[:, ::1] hist, int64_t[::1] out, int n_threads=1):
    """Every row's placement of score vectors ``sa`` (into ``va``) and ``sb`` (into ``vb``;
    an empty ``sb`` is skipped), positive where ``y == pos``; the two sorts run on two
    threads when ``n_threads > 1``. Scratch: one row of ``keys`` / ``tags`` / ``hist`` per
    vector. ``out``: ``[m, n, auc2_a, auc2_b, bad_a, bad_b]`` (bad: -1 or the first
    non-finite row)."""
    cdef Py_ssize_t nrow = sa.shape[0]
    cdef int nvec = 2 if sb.shape[0] else 1
    if y.shape[0] != nrow or (nvec == 2 and sb.shape[0] != nrow) or va.shape[0] < nrow \
            or (nvec == 2 and vb.shape[0] < nrow) or out.shape[0] < 6 \
            or keys.shape[0] < nvec or tags.shape[0] < nvec or hist.shape[0] < nvec:
        raise ValueError("inconsistent lengths of the rows, outputs or scratch")
    _check(nrow, keys[0], tags[0], hist[0])
    out[0] = out[1] = out[2] = out[3] = 0
    out[4] = out[5] = -1
    if nrow == 0:
        return
    cdef Sorted st[2]
    cdef int r
    cdef int nth = 2 if (n_threads > 1 and nvec == 2) else 1
    cdef const label_t* yp = &y[0]
    cdef Py_ssize_t ys = y.strides[0] // sizeof(label_t)
    cdef const score_t* pa = &sa[0]
    cdef const score_t* pb = &sb[0] if nvec == 2 else pa
    cdef Py_ssize_t sas = sa.strides[0] // sizeof(score_t)
    cdef Py_ssize_t sbs = sb.strides[0] // sizeof(score_t) if nvec == 2 else sas
    cdef double* vp[2]
    vp[0] = &va[0]
    vp[1] = &vb[0] if nvec == 2 else NULL
    cdef uint64_t* kp = &keys[0, 0]
    cdef double* tp = &tags[0, 0]
    cdef uint64_t* hp = &hist[0, 0]
    cdef Py_ssize_t kstride = keys.shape[1], tstride = tags.shape[1], hstride = hist.shape[1]
    cdef int64_t* o = &out[0]
    for r in prange(nvec, nogil=True, num_threads=nth, schedule="static"):
        o[4 + r] = _sort(yp, ys, pos, pa if r == 0 else pb, sas if r == 0 else sbs, nrow,
                         kp + r * kstride, tp + r * tstride, hp + r * hstride, &st[r])
        if o[4 + r] < 0:
            o[2 + r] = _place(&st[r], nrow, vp[r])
    out[0] = st[0].m if out[4] < 0 else 0
    out[1] = st[0].n if out[4] < 0 else 0


def paired_sums(const label_t[:] y, label_t pos, const double[:] va, const double[:] vb,
                double auc_a, double auc_b, double[::1] out):
    """The sums of DeLong's paired variances from every row's placements, in one pass:
    ``out = [aa, bb, ab]`` over the positives (``y == pos``) then ``[aa, bb, ab]`` over the
    negatives, ``aa = sum (va - auc_a)**2``, ``ab = sum (va - auc_a) (vb - auc_b)``... Rows
    in order, compensated: the same sums for any thread count."""
    cdef Py_ssize_t i, nrow = y.shape[0]
    cdef double da, db
    cdef double acc[12]
    cdef int j, side
    if va.shape[0] != nrow or vb.shape[0] != nrow or out.shape[0] < 6:
        raise ValueError("inconsistent lengths of the rows or the output")
    for j in range(12):
        acc[j] = 0.0
    with nogil:
        for i in range(nrow):
            da = va[i] - auc_a
            db = vb[i] - auc_b
            side = 0 if y[i] == pos else 6
            _add(&acc[side], da * da)
            _add(&acc[side + 2], db * db)
            _add_signed(&acc[side + 4], da * db)
    for j in range(6):
        out[j] = acc[2 * j] + (acc[2 * j + 1] if j % 3 == 2 else 0.0)




cdef inline int64_t _first_at_most(const double[::1] thr, int64_t lo, int64_t hi,
                                   double v) noexcept nogil:
    """The first position of ``thr[lo:hi]`` (decreasing) whose value is <= v (hi if none)."""
    cdef int64_t mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if thr[mid] > v:
            lo = mid + 1
        else:
            hi = mid
    return lo


def centred_in_segments(const int64_t[:] seg, const double[:] s, const uint8_t[:] positive,
                        const int64_t[::1] offsets, const double[::1] thr,
                        const double[::1] v10, const double[::1] v01,
                        const double[::1] auc, double[::1] out,
                        const int64_t[::1] starts, double top, double scale):
    """For each row ``i``: find ``s[i]`` by bisection in its segment of ``thr``
    (``thr[offsets[seg[i]]:offsets[seg[i] + 1]]``, decreasing: one state's distinct
    scores), and write its placement there (``v10`` for a positive, ``v01`` for a
    negative) minus its segment's ``auc``. Returns how many rows were not found (their
    ``out`` is NaN; a segment code out of range counts as not found).

    ``starts`` (one segment only; empty: not used) narrows the bisection: bucket ``b`` of
    ``B = len(starts) - 1`` equal ones holds the values in ``(top - (b + 1) / scale,
    top - b / scale]``, at positions from ``starts[b]`` to ``starts[b + 1]``; a value not
    found there (rounding at a bucket's edge) is searched in the whole segment."""
    cdef Py_ssize_t i, n = s.shape[0], n_seg = offsets.shape[0] - 1
    cdef int64_t g, lo, hi, b, end, n_b = starts.shape[0] - 1, missing = 0
    cdef double v
    cdef bint found
    if seg.shape[0] != n or positive.shape[0] != n or out.shape[0] != n or n_seg < 0 \
            or auc.shape[0] < n_seg or v10.shape[0] != thr.shape[0] \
            or v01.shape[0] != thr.shape[0] or (n_b >= 1 and n_seg != 1):
        raise ValueError("centred_in_segments: inconsistent shapes")
    if n_seg >= 1 and offsets[n_seg] > thr.shape[0]:
        raise ValueError("centred_in_segments: offsets past the thresholds")
    with nogil:
        for i in range(n):
            g = seg[i]
            if g < 0 or g >= n_seg:
                out[i] = NAN
                missing += 1
                continue
            v, end = s[i], offsets[g + 1]
            found = False
            if n_b >= 1:
                b = <int64_t>((top - v) * scale) if v <= top else 0
                b = 0 if b < 0 else (n_b - 1 if b >= n_b else b)
                lo = starts[b]
                hi = starts[b + 1] + 1
                if hi > end:
                    hi = end
                lo = _first_at_most(thr, lo, hi, v)
                found = lo < end and thr[lo] == v
            if not found:
                lo = _first_at_most(thr, offsets[g], end, v)
                found = lo < end and thr[lo] == v
            if found:
                out[i] = (v10[lo] if positive[i] else v01[lo]) - auc[g]
            else:
                out[i] = NAN
                missing += 1
    return missing
