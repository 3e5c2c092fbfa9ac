/* The block sums of the regression kernel (sums.pyx's _block), plain C with no Python.
 *
 * fm_sums_block(y, sy, y_f32, p, sp, p_f32, w, sw, w_f32, has_w, flags, delta, start, stop,
 *               first, out) adds samples [start, stop) of y_true, y_pred and the weights
 * (pointers with byte strides; *_f32: float32, else float64) into
 *   out[FM_S_W]  sum of w          out[FM_S_ABS] sum of w |e|     out[FM_S_SQ] sum of w e**2
 *   out[FM_S_APE] sum of w |e| / max(|y|, eps)  (flags & 1)
 *   out[FM_S_HUB] sum of w huber(e)             (flags & 2)
 *   out[FM_S_MEAN] the weighted block mean of y and out[FM_S_M2] the corrected two-pass
 *   spread around it (flags & 4; the block is read again while it is in cache)
 *   out[FM_S_DIFF] 1.0 when some y differs from ``first`` (or is NaN), else 0.0
 * (e = y - p). Every sum is kept in several partial sums (sample i into partial i % 4),
 * added in a fixed order: one running sum would make each sample wait for the previous
 * one's addition, several times the cost of reading it. float64 inputs (any strides) without
 * the Huber and relative sums take SSE2 (two doubles an instruction) where the compiler has
 * it; the partial sums are the same ones either way, so the result does not depend on the
 * path.
 */
#ifndef FM_SUMS_H
#define FM_SUMS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__) && !defined(FM_NO_VEC)
#include <emmintrin.h>
#define FM_SUMS_SSE2 1
#endif

enum { FM_S_W, FM_S_ABS, FM_S_SQ, FM_S_APE, FM_S_HUB, FM_S_MEAN, FM_S_M2, FM_S_DIFF, FM_S_N };

#define FM_SUMS_EPS64 2.220446049250313e-16


#define FM_TOTAL(a) (((a)[0] + (a)[1]) + ((a)[2] + (a)[3]))

#ifdef FM_SUMS_SSE2
/* float64 samples i and i + 1 of an array with byte stride s (one load when contiguous) */
static inline __m128d fm_sums_ld2(const char *a, ptrdiff_t s, ptrdiff_t i) {
    if (s == 8)
        return _mm_loadu_pd((const double *)(a + i * 8));
    return _mm_loadh_pd(_mm_load_sd((const double *)(a + i * s)),
                        (const double *)(a + (i + 1) * s));
}
#define FM_LD2(a, s, i) fm_sums_ld2((a), (s), (i))

/* partial sums 0, 1 (lo) and 2, 3 (hi) of a vector loop into a[4] */
static inline void fm_sums_store4(double *a, __m128d lo, __m128d hi) {
    _mm_storeu_pd(a, lo);
    _mm_storeu_pd(a + 2, hi);
}
#endif

/* one sample into partial sum K (a constant: the partial sums stay in registers) */
#define FM_SUMS_ONE(K, I)                                                                   \
    {                                                                                      \
        double yv = (double)*(const TY *)(y + (I) * sy);                                   \
        double e = yv - (double)*(const TP *)(p + (I) * sp), ae = fabs(e), wv = 1.0;       \
        if (has_w) {                                                                       \
            wv = (double)*(const TW *)(w + (I) * sw);                                      \
            a_w[K] += wv;                                                                  \
        }                                                                                  \
        a_abs[K] += wv * ae;                                                               \
        a_sq[K] += wv * (e * e);                                                           \
        if (want_r2)                                                                       \
            a_sy[K] += wv * yv;                                                            \
        if (want_ape) {                                                                    \
            double ay = fabs(yv);                                                          \
            a_ape[K] += wv * (ae / (ay > FM_SUMS_EPS64 ? ay : FM_SUMS_EPS64));             \
        }                                                                                  \
        if (want_hub)                                                                      \
            a_hub[K] += wv * (ae <= delta ? 0.5 * e * e : delta * (ae - half_delta));      \
        differs |= !(yv == first);                                                         \
    }

#define FM_SUMS_DEV(K, I)                                                                   \
    {                                                                                      \
        double d = (double)*(const TY *)(y + (I) * sy) - mb, wv = 1.0;                     \
        if (has_w)                                                                         \
            wv = (double)*(const TW *)(w + (I) * sw);                                      \
        a_m2[K] += wv * (d * d);                                                           \
        a_c[K] += wv * d;                                                                  \
    }

/* samples [i0, stop) of a block that starts at start, four a step, the last one to three
 * into the partial sums their offset from start gives (the same as the vector loop's) */
#define FM_SUMS_STEPS(ONE)                                                                  \
    for (i = i0; i + 4 <= stop; i += 4) {                                                  \
        ONE(0, i) ONE(1, i + 1) ONE(2, i + 2) ONE(3, i + 3)                                \
    }                                                                                      \
    switch (stop - i) {                                                                    \
    case 3: ONE(2, i + 2) /* fall through */                                               \
    case 2: ONE(1, i + 1) /* fall through */                                               \
    case 1: ONE(0, i)                                                                      \
    default: break;                                                                        \
    }

#define FM_SUMS_TYPED(SUFFIX, TY_, TP_, TW_)                                                 \
    static void fm_sums_plain_##SUFFIX(                                                    \
        const char *y, ptrdiff_t sy, const char *p, ptrdiff_t sp, const char *w,           \
        ptrdiff_t sw, int has_w, int flags, double delta, ptrdiff_t start, ptrdiff_t i0,   \
        ptrdiff_t stop, double first, double *w_, double *abs_, double *sq_, double *ape_, \
        double *hub_, double *sy_, int *differs_) {                                        \
        typedef TY_ TY;                                                                    \
        typedef TP_ TP;                                                                    \
        typedef TW_ TW;                                                                    \
        const int want_ape = flags & 1, want_hub = flags & 2, want_r2 = flags & 4;         \
        const double half_delta = 0.5 * delta;                                             \
        double a_w[4], a_abs[4], a_sq[4], a_ape[4], a_hub[4], a_sy[4];                     \
        int differs = *differs_, k;                                                        \
        ptrdiff_t i;                                                                       \
        (void)start;                                                                       \
        for (k = 0; k < 4; k++) {                                                          \
            a_w[k] = w_[k]; a_abs[k] = abs_[k]; a_sq[k] = sq_[k];                          \
            a_ape[k] = ape_[k]; a_hub[k] = hub_[k]; a_sy[k] = sy_[k];                      \
        }                                                                                  \
        FM_SUMS_STEPS(FM_SUMS_ONE)                                                         \
        for (k = 0; k < 4; k++) {                                                          \
            w_[k] = a_w[k]; abs_[k] = a_abs[k]; sq_[k] = a_sq[k];                          \
            ape_[k] = a_ape[k]; hub_[k] = a_hub[k]; sy_[k] = a_sy[k];                      \
        }                                                                                  \
        *differs_ = differs;                                                               \
    }                                                                                      \
    static void fm_sums_spread_##SUFFIX(                                                   \
        const char *y, ptrdiff_t sy, const char *w, ptrdiff_t sw, int has_w, double mb,    \
        ptrdiff_t start, ptrdiff_t i0, ptrdiff_t stop, double *m2_, double *c_) {         \
        typedef TY_ TY;                                                                    \
        typedef TW_ TW;                                                                    \
        double a_m2[4], a_c[4];                                                            \
        int k;                                                                             \
        ptrdiff_t i;                                                                       \
        (void)start;                                                                       \
        for (k = 0; k < 4; k++) {                                                          \
            a_m2[k] = m2_[k];                                                              \
            a_c[k] = c_[k];                                                                \
        }                                                                                  \
        FM_SUMS_STEPS(FM_SUMS_DEV)                                                         \
        for (k = 0; k < 4; k++) {                                                          \
            m2_[k] = a_m2[k];                                                              \
            c_[k] = a_c[k];                                                                \
        }                                                                                  \
    }

FM_SUMS_TYPED(ddd, double, double, double)
FM_SUMS_TYPED(ddf, double, double, float)
FM_SUMS_TYPED(dfd, double, float, double)
FM_SUMS_TYPED(dff, double, float, float)
FM_SUMS_TYPED(fdd, float, double, double)
FM_SUMS_TYPED(fdf, float, double, float)
FM_SUMS_TYPED(ffd, float, float, double)
FM_SUMS_TYPED(fff, float, float, float)

/* NAME_<types of y, p, w> ARGS */
#define FM_SUMS_DISPATCH(NAME, ARGS)                                                        \
    switch ((y_f32 << 2) | (p_f32 << 1) | w_f32) {                                        \
    case 0: NAME##_ddd ARGS; break;                                                        \
    case 1: NAME##_ddf ARGS; break;                                                        \
    case 2: NAME##_dfd ARGS; break;                                                        \
    case 3: NAME##_dff ARGS; break;                                                        \
    case 4: NAME##_fdd ARGS; break;                                                        \
    case 5: NAME##_fdf ARGS; break;                                                        \
    case 6: NAME##_ffd ARGS; break;                                                        \
    default: NAME##_fff ARGS; break;                                                       \
    }

static void fm_sums_block(const char *y, ptrdiff_t sy, int y_f32, const char *p, ptrdiff_t sp,
                          int p_f32, const char *w, ptrdiff_t sw, int w_f32, int has_w,
                          int flags, double delta, ptrdiff_t start, ptrdiff_t stop,
                          double first, double *out) {
    double a_w[4] = {0, 0, 0, 0}, a_abs[4] = {0, 0, 0, 0}, a_sq[4] = {0, 0, 0, 0};
    double a_ape[4] = {0, 0, 0, 0}, a_hub[4] = {0, 0, 0, 0}, a_sy[4] = {0, 0, 0, 0};
    double a_m2[4] = {0, 0, 0, 0}, a_c[4] = {0, 0, 0, 0};
    const int want_ape = flags & 1, want_hub = flags & 2, want_r2 = flags & 4;
    int differs = 0;
    (void)want_ape; /* read by the vector loop's test only */
    (void)want_hub;
    ptrdiff_t i = start;
    double bw, mb = 0.0, m2 = 0.0, c;
#ifdef FM_SUMS_SSE2
    if (!y_f32 && !p_f32 && (!has_w || !w_f32) && !want_ape && !want_hub) {
        /* lanes {0, 1} and {2, 3} of the partial sums: the same sums as the scalar loop */
        const __m128d absmask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
        const __m128d fv = _mm_set1_pd(first);
        __m128d abs0 = _mm_setzero_pd(), abs1 = abs0, sq0 = abs0, sq1 = abs0, sy0 = abs0,
                sy1 = abs0, w0 = abs0, w1 = abs0, dif = abs0;
        for (; i + 4 <= stop; i += 4) {
            __m128d y0 = FM_LD2(y, sy, i), y1 = FM_LD2(y, sy, i + 2);
            __m128d e0 = _mm_sub_pd(y0, FM_LD2(p, sp, i));
            __m128d e1 = _mm_sub_pd(y1, FM_LD2(p, sp, i + 2));
            __m128d ae0 = _mm_and_pd(e0, absmask), ae1 = _mm_and_pd(e1, absmask);
            __m128d q0 = _mm_mul_pd(e0, e0), q1 = _mm_mul_pd(e1, e1);
            dif = _mm_or_pd(dif, _mm_or_pd(_mm_cmpneq_pd(y0, fv), _mm_cmpneq_pd(y1, fv)));
            if (has_w) {
                __m128d v0 = FM_LD2(w, sw, i), v1 = FM_LD2(w, sw, i + 2);
                w0 = _mm_add_pd(w0, v0);
                w1 = _mm_add_pd(w1, v1);
                ae0 = _mm_mul_pd(v0, ae0);
                ae1 = _mm_mul_pd(v1, ae1);
                q0 = _mm_mul_pd(v0, q0);
                q1 = _mm_mul_pd(v1, q1);
                y0 = _mm_mul_pd(v0, y0);
                y1 = _mm_mul_pd(v1, y1);
            }
            abs0 = _mm_add_pd(abs0, ae0);
            abs1 = _mm_add_pd(abs1, ae1);
            sq0 = _mm_add_pd(sq0, q0);
            sq1 = _mm_add_pd(sq1, q1);
            if (want_r2) {
                sy0 = _mm_add_pd(sy0, y0);
                sy1 = _mm_add_pd(sy1, y1);
            }
        }
        fm_sums_store4(a_abs, abs0, abs1);
        fm_sums_store4(a_sq, sq0, sq1);
        fm_sums_store4(a_sy, sy0, sy1);
        fm_sums_store4(a_w, w0, w1);
        differs = _mm_movemask_pd(dif) != 0;
    }
#endif
    /* the rest (or all) of the block: sample i into partial sum (i - start) % 4 */
    FM_SUMS_DISPATCH(fm_sums_plain, (y, sy, p, sp, w, sw, has_w, flags, delta, start, i, stop,
                                     first, a_w, a_abs, a_sq, a_ape, a_hub, a_sy, &differs));
    bw = has_w ? FM_TOTAL(a_w) : (double)(stop - start);
    if (want_r2 && bw != 0.0) {
        mb = FM_TOTAL(a_sy) / bw;
        i = start;
#ifdef FM_SUMS_SSE2
        if (!y_f32 && (!has_w || !w_f32)) {
            const __m128d mv = _mm_set1_pd(mb);
            __m128d m20 = _mm_setzero_pd(), m21 = m20, c0 = m20, c1 = m20;
            for (; i + 4 <= stop; i += 4) {
                __m128d d0 = _mm_sub_pd(FM_LD2(y, sy, i), mv);
                __m128d d1 = _mm_sub_pd(FM_LD2(y, sy, i + 2), mv);
                if (has_w) {
                    __m128d v0 = FM_LD2(w, sw, i), v1 = FM_LD2(w, sw, i + 2);
                    m20 = _mm_add_pd(m20, _mm_mul_pd(v0, _mm_mul_pd(d0, d0)));
                    m21 = _mm_add_pd(m21, _mm_mul_pd(v1, _mm_mul_pd(d1, d1)));
                    c0 = _mm_add_pd(c0, _mm_mul_pd(v0, d0));
                    c1 = _mm_add_pd(c1, _mm_mul_pd(v1, d1));
                } else {
                    m20 = _mm_add_pd(m20, _mm_mul_pd(d0, d0));
                    m21 = _mm_add_pd(m21, _mm_mul_pd(d1, d1));
                    c0 = _mm_add_pd(c0, d0);
                    c1 = _mm_add_pd(c1, d1);
                }
            }
            fm_sums_store4(a_m2, m20, m21);
            fm_sums_store4(a_c, c0, c1);
        }
#endif
        FM_SUMS_DISPATCH(fm_sums_spread, (y, sy, w, sw, has_w, mb, start, i, stop, a_m2, a_c));
        /* corrected two-pass: removes the rounding error of the block mean */
        c = FM_TOTAL(a_c);
        m2 = FM_TOTAL(a_m2) - c * (c / bw);
    }
    out[FM_S_W] = bw;
    out[FM_S_ABS] = FM_TOTAL(a_abs);
    out[FM_S_SQ] = FM_TOTAL(a_sq);
    out[FM_S_APE] = FM_TOTAL(a_ape);
    out[FM_S_HUB] = FM_TOTAL(a_hub);
    out[FM_S_MEAN] = mb;
    out[FM_S_M2] = m2;
    out[FM_S_DIFF] = differs ? 1.0 : 0.0;
}

#undef FM_TOTAL

#endif
