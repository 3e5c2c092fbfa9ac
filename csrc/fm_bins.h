/* The binary calibration pass over contiguous inputs, in blocks of FM_BINS_BLOCK samples
 * (plain C with no Python; bins.pyx calls it lane by lane): unweighted below, weighted in
 * fm_bins_lane_w at the end.
 *
 * fm_bins_lane(y, ykind, p, p_is_float, start, stop, pos, pos_ok, E, nb, binned, cells,
 *              acc, info) adds samples [start, stop) of the labels y (ykind: FM_Y_* below)
 * and the positive-class probabilities p (float64, or float32 when p_is_float):
 *
 *   binned: cells[((bank * nb + b) * 2 + t) * 2 + {0, 1}] += {1, p} for the sample's bin b,
 *           correctness t (label == pos) and bank = i % 4 (four interleaved copies, so that
 *           consecutive samples in one bin do not wait on each other's store); the count and
 *           the probability sum of a cell are one 16-byte read-modify-write;
 *   else:   (one bin) acc[1] += sum of p, acc[2] += number of positives;
 *   always: acc[0] += scikit-learn's two-column Brier terms (t - p)**2 + ((1-t) - (1-p))**2.
 *
 * Each block is read in three sweeps while it is in cache: the labels (to 0/1 and a check
 * that they take at most two values), the probabilities (range check, Brier term, bin: the
 * guess floor(p * nb), exact unless p * nb is within FM_BINS_NEAR of an integer, when the
 * edge array E = [-inf, inner edges..., +inf] decides, as bins.pyx's search), then the cells.
 * The sweeps over the probabilities use SSE2 (two doubles a step, the x86-64 baseline) where
 * the compiler has it; every partial sum is added in a fixed order, so a lane's result does
 * not depend on anything but its samples.
 *
 * The labels: the lane's first label other than pos is "other"; when pos - other (or
 * other - pos) is a power of two 2**s, u = y - other (or other - y) is 0 or 2**s for the two
 * values, so t = u >> s and a third value shows as a bit outside 2**s (one OR a sample).
 * Otherwise, or once a block holds a third value, t = (y == pos) (with pos_ok), and the
 * lane reports a third value. 8-byte labels (int64, uint64) of two such values are read in
 * the probabilities' sweep (SSE2), a block with a third value swept again the general way.
 *
 * info: [0] index of the first probability outside [0, 1] or NaN (-1: none; the lane stops
 * there and its sums are not to be used), [1] 1 when the lane holds a label other than pos,
 * [2] that first other label (as int64 bits), [3] 1 when a third value was seen.
 */
#ifndef FM_BINS_H
#define FM_BINS_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#if defined(__SSE2__) && !defined(FM_NO_VEC)
#include <emmintrin.h>
#define FM_BINS_SSE2 1
#endif

#define FM_BINS_BLOCK 512
#define FM_BINS_NEAR 1e-6       /* |p * nb - k| below this: the edge array decides */
#define FM_BINS_MAX_FAST 1048576 /* more bins than this: every bin from the edge array */

enum { FM_Y_I8, FM_Y_I16, FM_Y_I32, FM_Y_I64, FM_Y_U8, FM_Y_U16, FM_Y_U32, FM_Y_U64 };

/* label i of a contiguous array of kind k, sign- or zero-extended, as uint64 bits */
static inline uint64_t fm_bins_label(const void *y, int k, ptrdiff_t i) {
    switch (k) {
    case FM_Y_I8: return (uint64_t)(int64_t)((const int8_t *)y)[i];
    case FM_Y_I16: return (uint64_t)(int64_t)((const int16_t *)y)[i];
    case FM_Y_I32: return (uint64_t)(int64_t)((const int32_t *)y)[i];
    case FM_Y_I64: return (uint64_t)((const int64_t *)y)[i];
    case FM_Y_U8: return (uint64_t)((const uint8_t *)y)[i];
    case FM_Y_U16: return (uint64_t)((const uint16_t *)y)[i];
    case FM_Y_U32: return (uint64_t)((const uint32_t *)y)[i];
    default: return ((const uint64_t *)y)[i];
    }
}

/* u = y - other (neg = 0) or other - y (neg = ~0: ~a - ~b = b - a) of a block into t[] as
 * 0/1 (u >> s), counting the ones; a third value leaves a bit of u outside 2**s */
#define FM_BINS_SHIFT(T)                                                                    \
    {                                                                                      \
        const T *yy = (const T *)y + start;                                                \
        for (i = 0; i < m; i++) {                                                          \
            uint64_t u = ((uint64_t)(int64_t)yy[i] ^ neg) - (other ^ neg);                 \
            bad |= u & notd;                                                               \
            t[i] = (int32_t)(u >> s);                                                      \
            ones += (int64_t)(u >> s);                                                     \
        }                                                                                  \
    }

/* the 0/1 correctness of labels [start, start + m) into t, the number of ones added to
 * *npos; 1 if a third value was seen */
static inline int fm_bins_truth(const void *y, int k, ptrdiff_t start, ptrdiff_t m,
                                uint64_t pos, int pos_ok, uint64_t other, int fast,
                                uint64_t neg, int s, int32_t *t, int64_t *npos) {
    ptrdiff_t i;
    int64_t ones = 0;
    uint64_t bad = 0, notd = ~((uint64_t)1 << s);
    if (fast) {
        switch (k) {
        case FM_Y_I8: FM_BINS_SHIFT(int8_t) break;
        case FM_Y_I16: FM_BINS_SHIFT(int16_t) break;
        case FM_Y_I32: FM_BINS_SHIFT(int32_t) break;
        case FM_Y_I64: FM_BINS_SHIFT(int64_t) break;
        case FM_Y_U8: FM_BINS_SHIFT(uint8_t) break;
        case FM_Y_U16: FM_BINS_SHIFT(uint16_t) break;
        case FM_Y_U32: FM_BINS_SHIFT(uint32_t) break;
        default: FM_BINS_SHIFT(uint64_t) break;
        }
        if (!bad) {
            *npos += ones;
            return 0;
        }
    }
    bad = 0;
    for (i = 0; i < m; i++) {
        uint64_t v = fm_bins_label(y, k, start + i);
        t[i] = pos_ok && v == pos;
        *npos += t[i];
        bad |= (uint64_t)(v != other && !t[i]);
    }
    return bad != 0;
}

/* the bin of v from the edge array (bins.pyx's _bin_of for uniform edges) */
static inline ptrdiff_t fm_bins_exact(double v, const double *E, ptrdiff_t nb) {
    ptrdiff_t c = (ptrdiff_t)(v * (double)nb);
    c = c < nb - 1 ? c : nb - 1;
    c = c > 0 ? c : 0;
    c -= E[c] >= v;
    c += E[c + 1] < v;
    return c;
}

static inline double fm_bins_p(const void *p, int p_is_float, ptrdiff_t i) {
    return p_is_float ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* the first offset in [0, m) of the block at pb whose probability is outside [0, 1] or NaN
 * (-1: none) */
static inline ptrdiff_t fm_bins_first_bad(const void *pb, int p_is_float, ptrdiff_t m) {
    ptrdiff_t j;
    for (j = 0; j < m; j++) {
        double v = fm_bins_p(pb, p_is_float, j);
        if (!(v >= 0.0 && v <= 1.0))
            return j;
    }
    return -1;
}

/* one sample of the scalar sweep: Brier term, sum of p and (binned) its cell; 0 if bad */
static inline int fm_bins_one(double v, int32_t t, const double *E, ptrdiff_t nb, int binned,
                              int32_t *idx, double *sq, double *sp) {
    double tv = (double)t, d0 = tv - v, d1 = (1.0 - tv) - (1.0 - v);
    if (!(v >= 0.0 && v <= 1.0))
        return 0;
    *sq += d0 * d0 + d1 * d1;
    *sp += v;
    if (binned)
        *idx = (int32_t)(2 * fm_bins_exact(v, E, nb) + t);
    return 1;
}

#ifdef FM_BINS_SSE2
/* values j .. j + 3 of a float32 (is_float) or float64 array as two pairs of doubles */
static inline void fm_bins_ld4(const char *a, int is_float, ptrdiff_t j, __m128d *lo,
                               __m128d *hi) {
    if (is_float) {
        __m128 f4 = _mm_loadu_ps((const float *)a + j);
        *lo = _mm_cvtps_pd(f4);
        *hi = _mm_cvtps_pd(_mm_movehl_ps(f4, f4));
    } else {
        *lo = _mm_loadu_pd((const double *)a + j);
        *hi = _mm_loadu_pd((const double *)a + j + 2);
    }
}

/* the guessed bins floor(v * nb) of two probabilities (in the low two int32 lanes); near gets
 * a flag where v * nb is within FM_BINS_NEAR of an integer (the edge array decides there) */
static inline __m128i fm_bins_guess(__m128d v, __m128d nbf, __m128d *near) {
    const __m128d half = _mm_set1_pd(0.5), far = _mm_set1_pd(0.5 - FM_BINS_NEAR);
    const __m128d absmask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    __m128d x = _mm_mul_pd(v, nbf);
    __m128i g = _mm_cvttpd_epi32(x);
    __m128d f = _mm_sub_pd(_mm_sub_pd(x, _mm_cvtepi32_pd(g)), half);
    *near = _mm_or_pd(*near, _mm_cmpnle_pd(_mm_and_pd(f, absmask), far));
    return g;
}
#endif

/* a lane's labels: info[0..3] cleared, then its first label other than pos (info[1], [2])
 * and the shift form of the two values (fast, other, neg, s: see fm_bins_truth) */
static inline void fm_bins_setup(const void *y, int ykind, ptrdiff_t start, ptrdiff_t stop,
                                 uint64_t pos, int pos_ok, uint64_t *other, uint64_t *neg,
                                 int *s, int *fast, int64_t *info) {
    ptrdiff_t i;
    uint64_t d;
    info[0] = -1;
    info[1] = 0;
    info[2] = 0;
    info[3] = 0;
    for (i = start; i < stop; i++) {
        uint64_t v = fm_bins_label(y, ykind, i);
        if (!(pos_ok && v == pos)) {
            *other = v;
            info[1] = 1;
            info[2] = (int64_t)v;
            break;
        }
    }
    if (pos_ok) {
        if (!info[1])
            *other = pos - 1; /* every label is pos: any other value serves */
        d = pos - *other;
        if (d & (d - 1)) {
            d = *other - pos;
            *neg = ~(uint64_t)0;
        }
        if (!(d & (d - 1))) {
            *fast = 1;
            while (((uint64_t)1 << *s) != d)
                (*s)++;
        }
    }
}

static void fm_bins_lane(const void *y, int ykind, const void *p, int p_is_float,
                         ptrdiff_t start, ptrdiff_t stop, uint64_t pos, int pos_ok,
                         const double *E, ptrdiff_t nb, int binned, double *cells,
                         double *acc, int64_t *info) {
    int32_t t[FM_BINS_BLOCK], idx[FM_BINS_BLOCK];
    ptrdiff_t i, j, m, s0;
    uint64_t other = 0, neg = 0;
    int s = 0, fast = 0;
    double sq_s = 0.0, sp_s = 0.0;
    int64_t npos = 0;
    const ptrdiff_t bank = 4 * nb; /* doubles a bank: nb bins x 2 correctness x {count, p} */
#ifdef FM_BINS_SSE2
    const int fast_bins = binned && nb <= FM_BINS_MAX_FAST;
    __m128d sq0 = _mm_setzero_pd(), sq1 = _mm_setzero_pd(), spv = _mm_setzero_pd();
    const __m128d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd();
    const __m128d nbf = _mm_set1_pd((double)nb);
#endif
    fm_bins_setup(y, ykind, start, stop, pos, pos_ok, &other, &neg, &s, &fast, info);
    for (s0 = start; s0 < stop; s0 += FM_BINS_BLOCK) {
        const char *pb = (const char *)p + s0 * (p_is_float ? 4 : 8);
        m = stop - s0 < FM_BINS_BLOCK ? stop - s0 : FM_BINS_BLOCK;
#ifdef FM_BINS_SSE2
        /* 8-byte labels of two values: read beside the probabilities (no sweep of their own);
         * a block with a third value is done again the general way */
        int fused = fast && (ykind == FM_Y_I64 || ykind == FM_Y_U64);
    block:
        if (!fused)
#endif
            if (fm_bins_truth(y, ykind, s0, m, pos, pos_ok, other, fast, neg, s, t, &npos))
                info[3] = 1;
        j = 0;
#ifdef FM_BINS_SSE2
        {
            /* no branch a step: bad values and bins to check are flagged per block */
            __m128d vmax = zero, low = zero, near = zero;
            __m128d bsq0 = zero, bsq1 = zero, bspv = zero;
            __m128i third = _mm_setzero_si128(), ones = third;
            const __m128i negv = _mm_set1_epi64x((int64_t)neg);
            const __m128i othv = _mm_set1_epi64x((int64_t)(other ^ neg));
            const __m128i notdv = _mm_set1_epi64x((int64_t)~((uint64_t)1 << s));
            const __m128i sv = _mm_cvtsi32_si128(s);
            const __m128i *yv = (const __m128i *)((const int64_t *)y + s0);
            for (; j + 4 <= m; j += 4) {
                __m128d v0, v1, t0, t1, a0, a1, b0, b1;
                __m128i ti0, ti1;
                if (fused) {
                    __m128i u0 = _mm_sub_epi64(_mm_xor_si128(_mm_loadu_si128(yv + j / 2), negv),
                                               othv);
                    __m128i u1 = _mm_sub_epi64(
                        _mm_xor_si128(_mm_loadu_si128(yv + j / 2 + 1), negv), othv);
                    third = _mm_or_si128(third, _mm_and_si128(_mm_or_si128(u0, u1), notdv));
                    u0 = _mm_srl_epi64(u0, sv);
                    u1 = _mm_srl_epi64(u1, sv);
                    ones = _mm_add_epi64(ones, _mm_add_epi64(u0, u1));
                    /* the low 32 bits of each 64-bit 0/1 */
                    ti0 = _mm_shuffle_epi32(u0, 0x08);
                    ti1 = _mm_shuffle_epi32(u1, 0x08);
                    _mm_storel_epi64((__m128i *)(t + j), ti0);
                    _mm_storel_epi64((__m128i *)(t + j + 2), ti1);
                } else {
                    ti0 = _mm_loadl_epi64((const __m128i *)(t + j));
                    ti1 = _mm_loadl_epi64((const __m128i *)(t + j + 2));
                }
                fm_bins_ld4(pb, p_is_float, j, &v0, &v1);
                t0 = _mm_cvtepi32_pd(ti0);
                t1 = _mm_cvtepi32_pd(ti1);
                vmax = _mm_max_pd(vmax, _mm_max_pd(v0, v1));
                /* NaN and negatives: !(v >= 0) */
                low = _mm_or_pd(low, _mm_or_pd(_mm_cmpnge_pd(v0, zero), _mm_cmpnge_pd(v1, zero)));
                a0 = _mm_sub_pd(t0, v0);
                a1 = _mm_sub_pd(t1, v1);
                b0 = _mm_sub_pd(_mm_sub_pd(one, t0), _mm_sub_pd(one, v0));
                b1 = _mm_sub_pd(_mm_sub_pd(one, t1), _mm_sub_pd(one, v1));
                bsq0 = _mm_add_pd(bsq0, _mm_add_pd(_mm_mul_pd(a0, a0), _mm_mul_pd(b0, b0)));
                bsq1 = _mm_add_pd(bsq1, _mm_add_pd(_mm_mul_pd(a1, a1), _mm_mul_pd(b1, b1)));
                if (binned) {
                    __m128i g0 = fm_bins_guess(v0, nbf, &near), g1 = fm_bins_guess(v1, nbf, &near);
                    _mm_storel_epi64((__m128i *)(idx + j),
                                     _mm_add_epi32(_mm_add_epi32(g0, g0), ti0));
                    _mm_storel_epi64((__m128i *)(idx + j + 2),
                                     _mm_add_epi32(_mm_add_epi32(g1, g1), ti1));
                } else {
                    bspv = _mm_add_pd(bspv, _mm_add_pd(v0, v1));
                }
            }
            if (fused) {
                int64_t o[2], tail_ones = 0;
                /* the labels after the last step of four, then a third value anywhere */
                int extra = j < m && fm_bins_truth(y, ykind, s0 + j, m - j, pos, pos_ok, other,
                                                   fast, neg, s, t + j, &tail_ones);
                if (extra || _mm_movemask_epi8(_mm_cmpeq_epi8(third, _mm_setzero_si128()))
                                 != 0xffff) {
                    fused = 0;
                    goto block;
                }
                _mm_storeu_si128((__m128i *)o, ones);
                npos += o[0] + o[1] + tail_ones;
            }
            sq0 = _mm_add_pd(sq0, bsq0);
            sq1 = _mm_add_pd(sq1, bsq1);
            spv = _mm_add_pd(spv, bspv);
            if (_mm_movemask_pd(_mm_or_pd(low, _mm_cmpgt_pd(vmax, one)))) {
                /* a bad value: the first of the block, in sample order */
                info[0] = s0 + fm_bins_first_bad(pb, p_is_float, m);
                return;
            }
            if (binned && (!fast_bins || _mm_movemask_pd(near))) {
                ptrdiff_t q;
                for (q = 0; q < j; q++)
                    idx[q] = (int32_t)(2 * fm_bins_exact(fm_bins_p(pb, p_is_float, q), E, nb)
                                       + t[q]);
            }
        }
#endif
        /* the rest of the block (all of it without SSE2): one sample at a time */
        for (; j < m; j++) {
            if (!fm_bins_one(fm_bins_p(pb, p_is_float, j), t[j], E, nb, binned, idx + j, &sq_s,
                             &sp_s)) {
                info[0] = s0 + j;
                return;
            }
        }
        if (binned) {
            /* bank = sample index % 4, as bins.pyx's other passes (same sums, same bits) */
            double *c0 = cells + (s0 & 3) * bank, *c1 = cells + ((s0 + 1) & 3) * bank,
                   *c2 = cells + ((s0 + 2) & 3) * bank, *c3 = cells + ((s0 + 3) & 3) * bank;
            const double *pd = (const double *)pb;
            const float *pf = (const float *)pb;
            /* the count and the probability sum of a cell: one 16-byte add with SSE2 */
#ifdef FM_BINS_SSE2
#define FM_CELL(C, J)                                                                        \
    {                                                                                      \
        double *c_ = (C) + 2 * idx[J];                                                     \
        __m128d a_ = _mm_loadu_pd(c_);                                                     \
        _mm_storeu_pd(c_, _mm_add_pd(a_, _mm_set_pd(p_is_float ? (double)pf[J] : pd[J],    \
                                                    1.0)));                                \
    }
#else
#define FM_CELL(C, J)                                                                        \
    {                                                                                      \
        double *c_ = (C) + 2 * idx[J];                                                     \
        c_[0] += 1.0;                                                                      \
        c_[1] += p_is_float ? (double)pf[J] : pd[J];                                       \
    }
#endif
            for (i = 0; i + 4 <= m; i += 4) {
                FM_CELL(c0, i) FM_CELL(c1, i + 1) FM_CELL(c2, i + 2) FM_CELL(c3, i + 3)
            }
            for (; i < m; i++) {
                double *cr = cells + ((s0 + i) & 3) * bank;
                FM_CELL(cr, i)
            }
#undef FM_CELL
        }
    }
#ifdef FM_BINS_SSE2
    {
        double q[2], r[2];
        _mm_storeu_pd(q, _mm_add_pd(sq0, sq1));
        _mm_storeu_pd(r, spv);
        acc[0] += (q[0] + q[1]) + sq_s;
        acc[1] += (r[0] + r[1]) + sp_s;
    }
#else
    acc[0] += sq_s;
    acc[1] += sp_s;
#endif
    acc[2] += (double)npos;
}

/* one weighted sample into a row of bins.pyx's bank layout (W, SP, SY, SQ, N): the
 * operations of its element-by-element lane, in its order */
static inline void fm_bins_row(double *row, double v, double wv, int32_t t) {
    double tv = (double)t, d0 = tv - v, d1 = (1.0 - tv) - (1.0 - v);
    row[0] += wv;
    row[1] += wv * v;
    row[2] += wv * tv;
    row[3] += wv * (d0 * d0 + d1 * d1);
    row[4] += 1.0;
}

static inline double fm_bins_w(const void *w, int w_is_float, ptrdiff_t i) {
    return w_is_float ? (double)((const float *)w)[i] : ((const double *)w)[i];
}

#define FM_BINS_COLS 5

/* The weighted pass: fm_bins_lane_w(y, ykind, p, p_is_float, w, w_is_float, start, stop,
 * pos, pos_ok, E, nb, banks, info) adds samples [start, stop) into banks, the layout of
 * bins.pyx's element-by-element lane: row (bank * nb + b) of FM_BINS_COLS sums, bank = i % 4,
 * each sum added sample by sample in sample order with the same operations, so every layout
 * gives the same bits. With one bin the four banks' rows are kept in registers (the same
 * adds in the same order). info as fm_bins_lane's, plus [4]: the kind of the bad value
 * (1: a probability outside [0, 1] or NaN, 2: a weight NaN or infinite; the probability
 * where both are bad at the first bad index, as the lane checks it first). */
static void fm_bins_lane_w(const void *y, int ykind, const void *p, int p_is_float,
                           const void *w, int w_is_float, ptrdiff_t start, ptrdiff_t stop,
                           uint64_t pos, int pos_ok, const double *E, ptrdiff_t nb,
                           double *banks, int64_t *info) {
    int32_t t[FM_BINS_BLOCK], idx[FM_BINS_BLOCK];
    ptrdiff_t j, m, s0, r, c;
    uint64_t other = 0, neg = 0;
    int s = 0, fast = 0, binned = nb > 1;
    int64_t npos = 0;
    /* one bin: the rows of the four banks, relative to the lane's start, by column */
    double rows[4][FM_BINS_COLS];
#ifdef FM_BINS_SSE2
    const int fast_bins = binned && nb <= FM_BINS_MAX_FAST;
    const __m128d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd();
    const __m128d nbf = _mm_set1_pd((double)nb);
    /* W, SP, SY, SQ of relative banks (0, 1) and (2, 3) */
    __m128d aw0 = zero, aw1 = zero, ap0 = zero, ap1 = zero, ay0 = zero, ay1 = zero;
    __m128d aq0 = zero, aq1 = zero;
    int spilled = 0;
    double o[2];
#endif
    memset(rows, 0, sizeof rows);
    fm_bins_setup(y, ykind, start, stop, pos, pos_ok, &other, &neg, &s, &fast, info);
    info[4] = 0;
    for (s0 = start; s0 < stop; s0 += FM_BINS_BLOCK) {
        const char *pb = (const char *)p + s0 * (p_is_float ? 4 : 8);
        const char *wb = (const char *)w + s0 * (w_is_float ? 4 : 8);
        ptrdiff_t jp = -1, jw = -1;
        m = stop - s0 < FM_BINS_BLOCK ? stop - s0 : FM_BINS_BLOCK;
        if (fm_bins_truth(y, ykind, s0, m, pos, pos_ok, other, fast, neg, s, t, &npos))
            info[3] = 1;
        /* the block's first bad probability or weight, before any sum is touched */
        j = 0;
#ifdef FM_BINS_SSE2
        {
            __m128d vmax = zero, low = zero, near = zero, wbad = zero;
            for (; j + 2 <= m; j += 2) {
                __m128d v, wv;
                if (p_is_float)
                    v = _mm_cvtps_pd(_mm_castsi128_ps(
                        _mm_loadl_epi64((const __m128i *)((const float *)pb + j))));
                else
                    v = _mm_loadu_pd((const double *)pb + j);
                if (w_is_float)
                    wv = _mm_cvtps_pd(_mm_castsi128_ps(
                        _mm_loadl_epi64((const __m128i *)((const float *)wb + j))));
                else
                    wv = _mm_loadu_pd((const double *)wb + j);
                vmax = _mm_max_pd(vmax, v);
                low = _mm_or_pd(low, _mm_cmpnge_pd(v, zero));
                /* w - w is 0 unless w is NaN or infinite */
                wbad = _mm_or_pd(wbad, _mm_cmpneq_pd(_mm_sub_pd(wv, wv), zero));
                if (binned)
                    _mm_storel_epi64((__m128i *)(idx + j), fm_bins_guess(v, nbf, &near));
            }
            if (_mm_movemask_pd(_mm_or_pd(_mm_or_pd(low, wbad), _mm_cmpgt_pd(vmax, one))))
                j = 0; /* found one at a time below */
            else if (binned && (!fast_bins || _mm_movemask_pd(near)))
                for (r = 0; r < j; r++)
                    idx[r] = (int32_t)fm_bins_exact(fm_bins_p(pb, p_is_float, r), E, nb);
        }
#endif
        for (r = j; r < m && jp < 0 && jw < 0; r++) {
            double v = fm_bins_p(pb, p_is_float, r), wv = fm_bins_w(wb, w_is_float, r);
            if (!(v >= 0.0 && v <= 1.0))
                jp = r;
            else if (wv - wv != 0.0)
                jw = r;
            else if (binned)
                idx[r] = (int32_t)fm_bins_exact(v, E, nb);
        }
        if (jp >= 0 || jw >= 0) {
            info[0] = s0 + (jp >= 0 ? jp : jw);
            info[4] = jp >= 0 ? 1 : 2;
            return;
        }
        if (binned) {
            const ptrdiff_t bank = nb * FM_BINS_COLS;
            for (j = 0; j < m; j++) {
                double *row = banks + ((s0 + j) & 3) * bank + idx[j] * FM_BINS_COLS;
                double v = fm_bins_p(pb, p_is_float, j), wv = fm_bins_w(wb, w_is_float, j);
#ifdef FM_BINS_SSE2
                /* (W, SP) and (SY, SQ): two 16-byte adds of the same sums */
                double tv = (double)t[j], d0 = tv - v, d1 = (1.0 - tv) - (1.0 - v);
                _mm_storeu_pd(row, _mm_add_pd(_mm_loadu_pd(row), _mm_set_pd(wv * v, wv)));
                _mm_storeu_pd(row + 2, _mm_add_pd(_mm_loadu_pd(row + 2),
                                                  _mm_set_pd(wv * (d0 * d0 + d1 * d1), wv * tv)));
                row[4] += 1.0;
#else
                fm_bins_row(row, v, wv, t[j]);
#endif
            }
            continue;
        }
        j = 0;
#ifdef FM_BINS_SSE2
#define FM_ROWS(A0, A1, C)                                                                   \
    _mm_storeu_pd(o, A0);                                                                  \
    rows[0][C] = o[0];                                                                     \
    rows[1][C] = o[1];                                                                     \
    _mm_storeu_pd(o, A1);                                                                  \
    rows[2][C] = o[0];                                                                     \
    rows[3][C] = o[1];
        for (; j + 4 <= m; j += 4) {
            __m128d v0, v1, w0, w1, t0, t1, a0, a1, b0, b1;
            fm_bins_ld4(pb, p_is_float, j, &v0, &v1);
            fm_bins_ld4(wb, w_is_float, j, &w0, &w1);
            t0 = _mm_cvtepi32_pd(_mm_loadl_epi64((const __m128i *)(t + j)));
            t1 = _mm_cvtepi32_pd(_mm_loadl_epi64((const __m128i *)(t + j + 2)));
            a0 = _mm_sub_pd(t0, v0);
            a1 = _mm_sub_pd(t1, v1);
            b0 = _mm_sub_pd(_mm_sub_pd(one, t0), _mm_sub_pd(one, v0));
            b1 = _mm_sub_pd(_mm_sub_pd(one, t1), _mm_sub_pd(one, v1));
            aw0 = _mm_add_pd(aw0, w0);
            aw1 = _mm_add_pd(aw1, w1);
            ap0 = _mm_add_pd(ap0, _mm_mul_pd(w0, v0));
            ap1 = _mm_add_pd(ap1, _mm_mul_pd(w1, v1));
            ay0 = _mm_add_pd(ay0, _mm_mul_pd(w0, t0));
            ay1 = _mm_add_pd(ay1, _mm_mul_pd(w1, t1));
            aq0 = _mm_add_pd(aq0, _mm_mul_pd(w0, _mm_add_pd(_mm_mul_pd(a0, a0),
                                                            _mm_mul_pd(b0, b0))));
            aq1 = _mm_add_pd(aq1, _mm_mul_pd(w1, _mm_add_pd(_mm_mul_pd(a1, a1),
                                                            _mm_mul_pd(b1, b1))));
        }
        if (j < m) { /* only the lane's last block has a tail: the registers go to rows */
            FM_ROWS(aw0, aw1, 0) FM_ROWS(ap0, ap1, 1) FM_ROWS(ay0, ay1, 2) FM_ROWS(aq0, aq1, 3)
            spilled = 1;
        }
#endif
        for (; j < m; j++)
            fm_bins_row(rows[(s0 + j - start) & 3], fm_bins_p(pb, p_is_float, j),
                        fm_bins_w(wb, w_is_float, j), t[j]);
    }
    if (!binned) {
#ifdef FM_BINS_SSE2
        if (!spilled) {
            FM_ROWS(aw0, aw1, 0) FM_ROWS(ap0, ap1, 1) FM_ROWS(ay0, ay1, 2) FM_ROWS(aq0, aq1, 3)
        }
#undef FM_ROWS
#endif
        for (r = 0; r < 4; r++) {
            /* the samples with i - start = r (mod 4) */
            rows[r][4] = (double)((stop - start - r + 3) / 4);
            for (c = 0; c < FM_BINS_COLS; c++)
                banks[((start + r) & 3) * FM_BINS_COLS + c] += rows[r][c];
        }
    }
}

#endif
