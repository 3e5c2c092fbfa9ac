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
#include <string.h>
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

/* The rows form: fm_sums_rows(y, sy0, sy1, y_f32, p, sp0, sp1, p_f32, w, sw, w_f32, has_w,
 * flags, delta, start, stop, m, first, out) gives, for samples (rows) [start, stop) of
 * (n, m) targets with byte strides (sy0, sy1) and (sp0, sp1), column j's fm_sums_block out
 * in out[j * FM_S_N ...], from first[j], bit for bit: the same partial sums (row i into
 * partial (i - start) % 4 of its column) added in the same order. Rows are read in order,
 * FM_ROWS_COLS columns at a time, so a row-major (C-ordered) input is read once in order
 * where the column form would walk it column by column. */
#define FM_ROWS_COLS 16

typedef struct {
    double abs[4][FM_ROWS_COLS], sq[4][FM_ROWS_COLS], ape[4][FM_ROWS_COLS];
    double hub[4][FM_ROWS_COLS], sy[4][FM_ROWS_COLS], m2[4][FM_ROWS_COLS];
    double c[4][FM_ROWS_COLS], w[4], mb[FM_ROWS_COLS];
    int differs[FM_ROWS_COLS];
    uint64_t dif[FM_ROWS_COLS]; /* the vector loop's differs: all ones where a y differed */
} fm_rows_acc;

/* row I (partial K) of columns [0, CW): YV(j) and PV(j) read column j's values */
#define FM_ROWS_ROW(K, I, YV, PV)                                                           \
    {                                                                                      \
        const char *yr = y + (I) * sy0, *pr = p + (I) * sp0;                               \
        double wv = 1.0;                                                                   \
        if (has_w) {                                                                       \
            wv = (double)*(const TW *)(w + (I) * sw);                                      \
            if (with_w)                                                                    \
                A->w[K] += wv;                                                             \
        }                                                                                  \
        if (!has_w && !want_ape && !want_hub) {                                            \
            for (j = 0; j < cw; j++) {                                                     \
                double yv = YV(j), e = yv - PV(j);                                         \
                A->abs[K][j] += fabs(e);                                                   \
                A->sq[K][j] += e * e;                                                      \
                if (want_r2)                                                               \
                    A->sy[K][j] += yv;                                                     \
                A->differs[j] |= !(yv == first[j]);                                        \
            }                                                                              \
        } else { /* wv * x is x when unweighted: the same bits as the plain loop's */     \
            for (j = 0; j < cw; j++) {                                                     \
                double yv = YV(j), e = yv - PV(j), ae = fabs(e);                           \
                A->abs[K][j] += wv * ae;                                                   \
                A->sq[K][j] += wv * (e * e);                                               \
                if (want_r2)                                                               \
                    A->sy[K][j] += wv * yv;                                                \
                if (want_ape) {                                                            \
                    double ay = fabs(yv);                                                  \
                    A->ape[K][j] += wv * (ae / (ay > FM_SUMS_EPS64 ? ay : FM_SUMS_EPS64)); \
                }                                                                          \
                if (want_hub)                                                              \
                    A->hub[K][j] += wv * (ae <= delta ? 0.5 * e * e                        \
                                                      : delta * (ae - half_delta));        \
                A->differs[j] |= !(yv == first[j]);                                        \
            }                                                                              \
        }                                                                                  \
    }

#define FM_ROWS_DEV(K, I, YV)                                                               \
    {                                                                                      \
        const char *yr = y + (I) * sy0;                                                    \
        if (has_w) {                                                                       \
            double wv = (double)*(const TW *)(w + (I) * sw);                               \
            for (j = 0; j < cw; j++) {                                                     \
                double d = YV(j) - A->mb[j];                                               \
                A->m2[K][j] += wv * (d * d);                                               \
                A->c[K][j] += wv * d;                                                      \
            }                                                                              \
        } else {                                                                           \
            for (j = 0; j < cw; j++) {                                                     \
                double d = YV(j) - A->mb[j];                                               \
                A->m2[K][j] += d * d;                                                      \
                A->c[K][j] += d;                                                           \
            }                                                                              \
        }                                                                                  \
    }

/* rows [start, stop), four a step, the last one to three into partials 0 .. 2 */
#define FM_ROWS_STEPS(ROW, ...)                                                             \
    for (i = start; i + 4 <= stop; i += 4) {                                               \
        ROW(0, i, __VA_ARGS__) ROW(1, i + 1, __VA_ARGS__) ROW(2, i + 2, __VA_ARGS__)       \
        ROW(3, i + 3, __VA_ARGS__)                                                         \
    }                                                                                      \
    for (k = 0; i < stop; i++, k++)                                                        \
        switch (k) {                                                                       \
        case 0: ROW(0, i, __VA_ARGS__) break;                                              \
        case 1: ROW(1, i, __VA_ARGS__) break;                                              \
        default: ROW(2, i, __VA_ARGS__) break;                                             \
        }

#define FM_ROWS_YC(j) ((double)((const TY *)yr)[j])
#define FM_ROWS_PC(j) ((double)((const TP *)pr)[j])
#define FM_ROWS_YS(j) ((double)*(const TY *)(yr + (j) * sy1))
#define FM_ROWS_PS(j) ((double)*(const TP *)(pr + (j) * sp1))

#define FM_ROWS_TYPED(SUFFIX, TY_, TP_, TW_)                                                 \
    static void fm_rows_plain_##SUFFIX(                                                    \
        const char *y, ptrdiff_t sy0, ptrdiff_t sy1, const char *p, ptrdiff_t sp0,         \
        ptrdiff_t sp1, const char *w, ptrdiff_t sw, int has_w, int with_w, int flags,      \
        double delta, ptrdiff_t start, ptrdiff_t stop, ptrdiff_t cw, const double *first,  \
        fm_rows_acc *A) {                                                                  \
        typedef TY_ TY;                                                                    \
        typedef TP_ TP;                                                                    \
        typedef TW_ TW;                                                                    \
        const int want_ape = flags & 1, want_hub = flags & 2, want_r2 = flags & 4;         \
        const double half_delta = 0.5 * delta;                                             \
        ptrdiff_t i, j, k;                                                                 \
        if (sy1 == (ptrdiff_t)sizeof(TY) && sp1 == (ptrdiff_t)sizeof(TP)) {               \
            FM_ROWS_STEPS(FM_ROWS_ROW, FM_ROWS_YC, FM_ROWS_PC)                             \
        } else {                                                                           \
            FM_ROWS_STEPS(FM_ROWS_ROW, FM_ROWS_YS, FM_ROWS_PS)                             \
        }                                                                                  \
    }                                                                                      \
    static void fm_rows_spread_##SUFFIX(const char *y, ptrdiff_t sy0, ptrdiff_t sy1,       \
                                        const char *w, ptrdiff_t sw, int has_w,            \
                                        ptrdiff_t start, ptrdiff_t stop, ptrdiff_t cw,     \
                                        fm_rows_acc *A) {                                  \
        typedef TY_ TY;                                                                    \
        typedef TW_ TW;                                                                    \
        ptrdiff_t i, j, k;                                                                 \
        if (sy1 == (ptrdiff_t)sizeof(TY)) {                                                \
            FM_ROWS_STEPS(FM_ROWS_DEV, FM_ROWS_YC)                                         \
        } else {                                                                           \
            FM_ROWS_STEPS(FM_ROWS_DEV, FM_ROWS_YS)                                         \
        }                                                                                  \
    }

/* column j's four partial sums of one of fm_rows_acc's sums, added as FM_TOTAL */
static inline double fm_rows_total(double (*a)[FM_ROWS_COLS], ptrdiff_t j) {
    return (a[0][j] + a[1][j]) + (a[2][j] + a[3][j]);
}

FM_ROWS_TYPED(ddd, double, double, double)
FM_ROWS_TYPED(ddf, double, double, float)
FM_ROWS_TYPED(dfd, double, float, double)
FM_ROWS_TYPED(dff, double, float, float)
FM_ROWS_TYPED(fdd, float, double, double)
FM_ROWS_TYPED(fdf, float, double, float)
FM_ROWS_TYPED(ffd, float, float, double)
FM_ROWS_TYPED(fff, float, float, float)

#ifdef FM_SUMS_SSE2
/* row I (partial K) of float64 columns [0, CW) stored contiguously, without the Huber and
 * relative sums, two columns an instruction: each column's partial sums get the same adds as
 * FM_ROWS_ROW's (the loop below does an odd last column) */
#define FM_ROWS_ROW2(K, I, U)                                                                \
    {                                                                                      \
        const double *yr = (const double *)(y + (I) * sy0);                                \
        const double *pr = (const double *)(p + (I) * sp0);                                \
        __m128d wv = one;                                                                  \
        if (has_w) {                                                                       \
            double ws = *(const double *)(w + (I) * sw);                                   \
            wv = _mm_set1_pd(ws);                                                          \
            if (with_w)                                                                    \
                A->w[K] += ws;                                                             \
        }                                                                                  \
        for (j = 0; j + 2 <= cw; j += 2) {                                                 \
            __m128d yv = _mm_loadu_pd(yr + j), e = _mm_sub_pd(yv, _mm_loadu_pd(pr + j));   \
            __m128d ae = _mm_and_pd(e, absmask), q = _mm_mul_pd(e, e);                     \
            __m128i d = _mm_castpd_si128(_mm_cmpneq_pd(yv, _mm_loadu_pd(first + j)));      \
            if (has_w) {                                                                   \
                ae = _mm_mul_pd(wv, ae);                                                   \
                q = _mm_mul_pd(wv, q);                                                     \
                yv = _mm_mul_pd(wv, yv);                                                   \
            }                                                                              \
            _mm_storeu_pd(&A->abs[K][j], _mm_add_pd(_mm_loadu_pd(&A->abs[K][j]), ae));     \
            _mm_storeu_pd(&A->sq[K][j], _mm_add_pd(_mm_loadu_pd(&A->sq[K][j]), q));        \
            if (want_r2)                                                                   \
                _mm_storeu_pd(&A->sy[K][j], _mm_add_pd(_mm_loadu_pd(&A->sy[K][j]), yv));   \
            _mm_storeu_si128((__m128i *)&A->dif[j],                                        \
                             _mm_or_si128(_mm_loadu_si128((const __m128i *)&A->dif[j]), d));\
        }                                                                                  \
        for (; j < cw; j++) {                                                              \
            double yv = yr[j], e = yv - pr[j], ae = fabs(e);                           \
            double ws = has_w ? *(const double *)(w + (I) * sw) : 1.0;                    \
            A->abs[K][j] += ws * ae;                                                       \
            A->sq[K][j] += ws * (e * e);                                                   \
            if (want_r2)                                                                   \
                A->sy[K][j] += ws * yv;                                                    \
            A->differs[j] |= !(yv == first[j]);                                            \
        }                                                                                  \
    }

#define FM_ROWS_DEV2(K, I, U)                                                                \
    {                                                                                      \
        const double *yr = (const double *)(y + (I) * sy0);                                \
        double ws = has_w ? *(const double *)(w + (I) * sw) : 1.0;                         \
        __m128d wv = _mm_set1_pd(ws);                                                      \
        for (j = 0; j + 2 <= cw; j += 2) {                                                 \
            __m128d d = _mm_sub_pd(_mm_loadu_pd(yr + j), _mm_loadu_pd(&A->mb[j]));         \
            __m128d q = _mm_mul_pd(d, d);                                                  \
            if (has_w) {                                                                   \
                q = _mm_mul_pd(wv, q);                                                     \
                d = _mm_mul_pd(wv, d);                                                     \
            }                                                                              \
            _mm_storeu_pd(&A->m2[K][j], _mm_add_pd(_mm_loadu_pd(&A->m2[K][j]), q));        \
            _mm_storeu_pd(&A->c[K][j], _mm_add_pd(_mm_loadu_pd(&A->c[K][j]), d));          \
        }                                                                                  \
        for (; j < cw; j++) {                                                              \
            double d = yr[j] - A->mb[j];                                                   \
            A->m2[K][j] += ws * (d * d);                                                   \
            A->c[K][j] += ws * d;                                                          \
        }                                                                                  \
    }

/* fm_rows_plain's and fm_rows_spread's float64 contiguous case (see FM_ROWS_ROW2) */
static void fm_rows_sse2(const char *y, ptrdiff_t sy0, const char *p, ptrdiff_t sp0,
                         const char *w, ptrdiff_t sw, int has_w, int with_w, int flags,
                         ptrdiff_t start, ptrdiff_t stop, ptrdiff_t cw, const double *first,
                         fm_rows_acc *A) {
    const int want_r2 = flags & 4;
    const __m128d absmask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    const __m128d one = _mm_set1_pd(1.0);
    ptrdiff_t i, j, k;
    FM_ROWS_STEPS(FM_ROWS_ROW2, 0)
}

static void fm_rows_spread_sse2(const char *y, ptrdiff_t sy0, const char *w, ptrdiff_t sw,
                                int has_w, ptrdiff_t start, ptrdiff_t stop, ptrdiff_t cw,
                                fm_rows_acc *A) {
    ptrdiff_t i, j, k;
    FM_ROWS_STEPS(FM_ROWS_DEV2, 0)
}
#endif

static void fm_sums_rows(const char *y, ptrdiff_t sy0, ptrdiff_t sy1, int y_f32, const char *p,
                         ptrdiff_t sp0, ptrdiff_t sp1, int p_f32, const char *w, ptrdiff_t sw,
                         int w_f32, int has_w, int flags, double delta, ptrdiff_t start,
                         ptrdiff_t stop, ptrdiff_t m, const double *first, double *out) {
    fm_rows_acc A;
    const int want_r2 = flags & 4;
    ptrdiff_t j0, j, cw;
    double bw = (double)(stop - start);
#ifdef FM_SUMS_SSE2
    /* float64 values, columns side by side, weights float64 or none, no Huber/relative sums */
    const int vec = !y_f32 && !p_f32 && (!has_w || !w_f32) && !(flags & 3) && sy1 == 8
                    && sp1 == 8;
#endif
    for (j0 = 0; j0 < m; j0 += FM_ROWS_COLS) {
        const char *yc = y + j0 * sy1, *pc = p + j0 * sp1;
        double *o;
        cw = m - j0 < FM_ROWS_COLS ? m - j0 : FM_ROWS_COLS;
        memset(&A, 0, sizeof A);
        /* the weights' sum is every column's: summed with the first columns only */
#ifdef FM_SUMS_SSE2
        if (vec)
            fm_rows_sse2(yc, sy0, pc, sp0, w, sw, has_w, j0 == 0, flags, start, stop, cw,
                         first + j0, &A);
        else
#endif
            FM_SUMS_DISPATCH(fm_rows_plain, (yc, sy0, sy1, pc, sp0, sp1, w, sw, has_w, j0 == 0,
                                             flags, delta, start, stop, cw, first + j0, &A));
        if (j0 == 0 && has_w)
            bw = FM_TOTAL(A.w);
        for (j = 0; j < cw; j++) {
            o = out + (j0 + j) * FM_S_N;
            o[FM_S_W] = bw;
            o[FM_S_ABS] = fm_rows_total(A.abs, j);
            o[FM_S_SQ] = fm_rows_total(A.sq, j);
            o[FM_S_APE] = fm_rows_total(A.ape, j);
            o[FM_S_HUB] = fm_rows_total(A.hub, j);
            o[FM_S_MEAN] = 0.0;
            o[FM_S_M2] = 0.0;
            o[FM_S_DIFF] = A.differs[j] || A.dif[j] ? 1.0 : 0.0;
            A.mb[j] = 0.0;
            if (want_r2 && bw != 0.0)
                A.mb[j] = o[FM_S_MEAN] = fm_rows_total(A.sy, j) / bw;
        }
        if (want_r2 && bw != 0.0) {
#ifdef FM_SUMS_SSE2
            if (vec)
                fm_rows_spread_sse2(yc, sy0, w, sw, has_w, start, stop, cw, &A);
            else
#endif
                FM_SUMS_DISPATCH(fm_rows_spread,
                                 (yc, sy0, sy1, w, sw, has_w, start, stop, cw, &A));
            for (j = 0; j < cw; j++) {
                double c = fm_rows_total(A.c, j);
                out[(j0 + j) * FM_S_N + FM_S_M2] = fm_rows_total(A.m2, j) - c * (c / bw);
            }
        }
    }
}

#undef FM_TOTAL

#endif
