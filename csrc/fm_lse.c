/* Log-probability of a target token from a row of logits: see fm_lse.h. */
#include "fm_lse.h"

#include <math.h>
#include <string.h>

#define FM_W 8 /* independent lanes of the max and sum passes */

/* exp(r) on |r| <= ln2/2 in float: 1 + r * q(r), q of degree 4 fitted (by this project, at
 * 400 Chebyshev nodes, weighted for the relative error of exp) to expm1(r) / r; exp(0) is
 * exactly 1. Relative error 1.7e-7 evaluated in float. */
#define FM_E0 1.0f
#define FM_E1 0.999999523f
#define FM_E2 0.499991387f
#define FM_E3 0.166681170f
#define FM_E4 0.0418989621f
#define FM_E5 0.00826146267f

/* The steps shared by the scalar and vector exponentials, x already clamped: s = t + 1.5 *
 * 2**23 (its low mantissa bits hold k), kf = k, r = x - k ln2, p = exp(r). */
#define FM_EXPF_STEPS(x, s, kf, r, p)                                                         \
    do {                                                                                      \
        s = (x) * 1.44269504088896341f + 12582912.0f;                                         \
        kf = s - 12582912.0f;                                                                 \
        r = ((x) - kf * 0.693359375f) - kf * -2.12194440054690583e-4f;                       \
        p = ((((FM_E5 * r + FM_E4) * r + FM_E3) * r + FM_E2) * r + FM_E1) * r + FM_E0;       \
    } while (0)

/* The same in double (1.5 * 2**52; LN2_HI has 32 significant bits), exp(r) by its Taylor
 * polynomial of degree 13 (|r| <= 0.347: truncation < 5e-18). */
#define FM_EXPD_STEPS(x, s, kf, r, p)                                                         \
    do {                                                                                      \
        s = (x) * 1.4426950408889634 + 6755399441055744.0;                                    \
        kf = s - 6755399441055744.0;                                                          \
        r = ((x) - kf * 0.6931471803691238) - kf * 1.9082149292705877e-10;                    \
        p = r * (1.0 / 6227020800.0) + 1.0 / 479001600.0;                                     \
        p = (((p * r + 1.0 / 39916800.0) * r + 1.0 / 3628800.0) * r + 1.0 / 362880.0) * r    \
            + 1.0 / 40320.0;                                                                  \
        p = ((((p * r + 1.0 / 5040.0) * r + 1.0 / 720.0) * r + 1.0 / 120.0) * r + 1.0 / 24.0) \
            * r + 1.0 / 6.0;                                                                  \
        p = ((p * r + 0.5) * r + 1.0) * r + 1.0;                                              \
    } while (0)

/* exp(x) for x <= 0 in float: clamp (exp(-87) ~ 1.6e-38 stands in for anything smaller:
 * every row holds a term equal to 1, so that is far below float64 resolution of the sum),
 * k = round(x / ln2) by the 1.5 * 2**23 trick, r = x - k ln2 in two parts (k * LN2_HI is
 * exact: LN2_HI has 9 significant bits), exp(r) by the polynomial above, and 2**k built
 * in the exponent bits. A NaN input survives every step (the comparisons keep it) and comes
 * out NaN. */
static inline float exp_neg_f(float x) {
    union { float f; uint32_t u; } s;
    float kf, r, p;
    x = x < -87.0f ? -87.0f : x;
    FM_EXPF_STEPS(x, s.f, kf, r, p);
    s.u = (s.u - 0x4B400000u + 127u) << 23; /* low bits of s hold k (two's complement) */
    return p * s.f;
}

/* exp(x) for x <= 0 in double: the same, clamped at -708 (k * LN2_HI exact for |k| <= 1022). */
static inline double exp_neg_d(double x) {
    union { double f; uint64_t u; } s;
    double kf, r, p;
    x = x < -708.0 ? -708.0 : x;
    FM_EXPD_STEPS(x, s.f, kf, r, p);
    s.u = (s.u - 0x4338000000000000ull + 1023ull) << 52;
    return p * s.f;
}

float fm_exp_neg_f32(float x) { return exp_neg_f(x); }
double fm_exp_neg_f64(double x) { return exp_neg_d(x); }

static inline float load_f32(const float *p) { return *p; }
static inline double load_f64(const double *p) { return *p; }
static inline float load_f16(const uint16_t *p) { return fm_half_to_float(*p); }

/* One row: T is the stored type, F the compute type (float or double), LOAD reads an element
 * as F, EXP is exp for x <= 0 in F. Written once, instantiated per type; the stride-1 case is
 * handled by the vector versions below. */
#define FM_ROW(NAME, T, F, LOAD, EXP)                                                         \
    static inline double NAME(const T *x, ptrdiff_t st, ptrdiff_t n, ptrdiff_t target,       \
                              int *is_max) {                                                  \
        F lm[FM_W], m, xt;                                                                    \
        double ls[FM_W], s;                                                                   \
        ptrdiff_t i, j, nw = n - n % FM_W;                                                    \
        for (j = 0; j < FM_W; j++) {                                                          \
            lm[j] = -(F)INFINITY;                                                             \
            ls[j] = 0.0;                                                                      \
        }                                                                                     \
        for (i = 0; i < nw; i += FM_W)                                                        \
            for (j = 0; j < FM_W; j++) {                                                      \
                F v = LOAD(x + (i + j) * st);                                                 \
                lm[j] = v > lm[j] ? v : lm[j];                                                \
            }                                                                                 \
        m = lm[0];                                                                            \
        for (j = 1; j < FM_W; j++) m = lm[j] > m ? lm[j] : m;                                 \
        for (i = nw; i < n; i++) {                                                            \
            F v = LOAD(x + i * st);                                                           \
            m = v > m ? v : m;                                                                \
        }                                                                                     \
        for (i = 0; i < nw; i += FM_W)                                                        \
            for (j = 0; j < FM_W; j++) ls[j] += (double)EXP(LOAD(x + (i + j) * st) - m);      \
        s = ((ls[0] + ls[1]) + (ls[2] + ls[3])) + ((ls[4] + ls[5]) + (ls[6] + ls[7]));        \
        for (i = nw; i < n; i++) s += (double)EXP(LOAD(x + i * st) - m);                      \
        xt = LOAD(x + target * st);                                                           \
        *is_max = xt == m;                                                                    \
        return ((double)xt - (double)m) - log(s);                                             \
    }

FM_ROW(row_f32, float, float, load_f32, exp_neg_f)
FM_ROW(row_f64, double, double, load_f64, exp_neg_d)
FM_ROW(row_f16, uint16_t, float, load_f16, exp_neg_f)


#if (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)) && !defined(FM_NO_VEC)
/* Contiguous rows: the same arithmetic on 16-byte vectors (GCC/Clang vector extensions, so
 * SSE2 on x86-64 and NEON on arm64 without -march; GCC 12+ for __builtin_shufflevector),
 * two vectors per step. */
#define FM_VEC 1
typedef float f4 __attribute__((vector_size(16)));
typedef int32_t i4 __attribute__((vector_size(16)));
typedef uint32_t u4 __attribute__((vector_size(16)));
typedef double d2 __attribute__((vector_size(16)));
typedef int64_t l2 __attribute__((vector_size(16)));
typedef uint64_t q2 __attribute__((vector_size(16)));
typedef uint16_t h8 __attribute__((vector_size(16)));
typedef uint32_t u8 __attribute__((vector_size(32)));

static inline f4 sel_f4(i4 m, f4 a, f4 b) { return (f4)(((i4)a & m) | ((i4)b & ~m)); }
static inline d2 sel_d2(l2 m, d2 a, d2 b) { return (d2)(((l2)a & m) | ((l2)b & ~m)); }
static inline f4 max_f4(f4 v, f4 m) { return sel_f4(v > m, v, m); } /* NaN v: keeps m */
static inline d2 max_d2(d2 v, d2 m) { return sel_d2(v > m, v, m); }

/* exp for x <= 0 of a row already known to hold no NaN (the clamp may drop NaN) */
static inline f4 exp_neg_f4(f4 x) {
    f4 s, kf, r, p;
#ifdef __SSE__
    x = __builtin_ia32_maxps(x, (f4){-87.0f, -87.0f, -87.0f, -87.0f});
#else
    x = sel_f4(x < -87.0f, x - x - 87.0f, x);
#endif
    FM_EXPF_STEPS(x, s, kf, r, p);
    return p * (f4)(((u4)s - 0x4B400000u + 127u) << 23);
}

static inline d2 exp_neg_d2(d2 x) {
    d2 s, kf, r, p;
    x = sel_d2(x < -708.0, x - x - 708.0, x);
    FM_EXPD_STEPS(x, s, kf, r, p);
    return p * (d2)(((q2)s - 0x4338000000000000ull + 1023ull) << 52);
}

/* 4 float16 (in the low 16 bits of u4 lanes) -> 4 floats, exactly as fm_half_to_float */
static inline f4 half_f4(u4 h) {
    u4 sign = (h & 0x8000u) << 16, em = h & 0x7fffu;
    u4 normal = (em << 13) + ((uint32_t)(127 - 15) << 23);
    u4 special = 0x7f800000u | ((em & 0x3ffu) << 13);
    f4 sub = __builtin_convertvector((i4)em, f4) * 5.9604644775390625e-8f;
    i4 is_special = em >= 0x7c00u, is_normal = em >= 0x0400u;
    i4 bits = ((i4)special & is_special) | ((i4)normal & is_normal & ~is_special)
              | ((i4)sub & ~is_normal);
    return (f4)((u4)bits | sign);
}

static inline f4 load_f4(const float *p) { f4 v; memcpy(&v, p, sizeof v); return v; }
static inline d2 load_d2(const double *p) { d2 v; memcpy(&v, p, sizeof v); return v; }
static inline void load_h8(const uint16_t *p, f4 *lo, f4 *hi) {
    h8 h;
    u8 w;
    memcpy(&h, p, sizeof h);
    w = __builtin_convertvector(h, u8);
    *lo = half_f4(__builtin_shufflevector(w, w, 0, 1, 2, 3));
    *hi = half_f4(__builtin_shufflevector(w, w, 4, 5, 6, 7));
}

static inline d2 lo_d2(f4 v) { return __builtin_convertvector(__builtin_shufflevector(v, v, 0, 1), d2); }
static inline d2 hi_d2(f4 v) { return __builtin_convertvector(__builtin_shufflevector(v, v, 2, 3), d2); }

/* float32 / float16 rows, 8 elements a step: LOAD8(p, &a, &b) reads 8 as two f4 */
#define FM_VROW_F(NAME, T, LOAD8, LOAD1)                                                      \
    static double NAME(const T *x, ptrdiff_t n, ptrdiff_t target, int *is_max) {             \
        const float ninf = -(float)INFINITY;                                                  \
        f4 a, b, m0 = {ninf, ninf, ninf, ninf}, m1 = m0, mv;                                   \
        d2 s0 = {0.0, 0.0}, s1 = s0, s2 = s0, s3 = s0;                                        \
        i4 nan = {0, 0, 0, 0};                                                                \
        ptrdiff_t i, j, n8 = n - n % 8;                                                       \
        float m, xt;                                                                          \
        double s;                                                                             \
        for (i = 0; i < n8; i += 8) {                                                         \
            LOAD8(x + i, &a, &b);                                                             \
            m0 = max_f4(a, m0);                                                               \
            m1 = max_f4(b, m1);                                                               \
            nan |= (a != a) | (b != b);                                                       \
        }                                                                                     \
        m0 = max_f4(m1, m0);                                                                  \
        m = m0[0];                                                                            \
        for (j = 1; j < 4; j++) m = m0[j] > m ? m0[j] : m;                                    \
        for (i = n8; i < n; i++) m = LOAD1(x + i) > m ? LOAD1(x + i) : m;                     \
        if ((nan[0] | nan[1] | nan[2] | nan[3]) || m == (float)INFINITY) {                    \
            *is_max = 0; /* NaN or +inf in the row: NaN, as numpy's log_softmax */            \
            return NAN;                                                                       \
        }                                                                                     \
        mv = (f4){m, m, m, m};                                                                \
        for (i = 0; i < n8; i += 8) {                                                         \
            LOAD8(x + i, &a, &b);                                                             \
            a = exp_neg_f4(a - mv);                                                           \
            b = exp_neg_f4(b - mv);                                                           \
            s0 += lo_d2(a);                                                                   \
            s1 += hi_d2(a);                                                                   \
            s2 += lo_d2(b);                                                                   \
            s3 += hi_d2(b);                                                                   \
        }                                                                                     \
        s0 = (s0 + s1) + (s2 + s3);                                                           \
        s = s0[0] + s0[1];                                                                    \
        for (i = n8; i < n; i++) s += (double)exp_neg_f(LOAD1(x + i) - m);                    \
        xt = LOAD1(x + target);                                                               \
        *is_max = xt == m;                                                                    \
        return ((double)xt - (double)m) - log(s);                                             \
    }

static inline void load8_f32(const float *p, f4 *a, f4 *b) {
    *a = load_f4(p);
    *b = load_f4(p + 4);
}

FM_VROW_F(vrow_f32, float, load8_f32, load_f32)
FM_VROW_F(vrow_f16, uint16_t, load_h8, load_f16)

static double vrow_f64(const double *x, ptrdiff_t n, ptrdiff_t target, int *is_max) {
    d2 m0 = {-INFINITY, -INFINITY}, m1 = m0, mv, a, b;
    d2 s0 = {0.0, 0.0}, s1 = s0;
    ptrdiff_t i, n4 = n - n % 4;
    double m, xt, s;
    for (i = 0; i < n4; i += 4) {
        m0 = max_d2(load_d2(x + i), m0);
        m1 = max_d2(load_d2(x + i + 2), m1);
    }
    m0 = max_d2(m1, m0);
    m = m0[1] > m0[0] ? m0[1] : m0[0];
    for (i = n4; i < n; i++) m = x[i] > m ? x[i] : m;
    mv = (d2){m, m};
    for (i = 0; i < n4; i += 4) {
        a = exp_neg_d2(load_d2(x + i) - mv);
        b = exp_neg_d2(load_d2(x + i + 2) - mv);
        s0 += a;
        s1 += b;
    }
    s0 += s1;
    s = s0[0] + s0[1];
    for (i = n4; i < n; i++) s += exp_neg_d(x[i] - m);
    xt = x[target];
    *is_max = xt == m;
    return (xt - m) - log(s);
}
#endif


#if defined(FM_VEC) && (defined(__x86_64__) || defined(__i386__)) && !defined(FM_NO_AVX)
/* x86 CPUs with AVX and FMA (checked at run time: the build targets the baseline ISA): the
 * float32 rows again (float16 ones with F16C), 8 lanes a vector, with fused multiply-adds. 2**k is built with float arithmetic and one conversion (no
 * 256-bit integer instructions, which need AVX2). */
#define FM_AVX 1
#define FM_AVX_FN __attribute__((target("avx,fma")))
typedef float f8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));
typedef double d4 __attribute__((vector_size(32)));

FM_AVX_FN static inline f8 load_f8(const float *p) { f8 v; memcpy(&v, p, sizeof v); return v; }
FM_AVX_FN static inline f8 max_f8(f8 v, f8 m) { return __builtin_ia32_maxps256(v, m); }

/* the float exponential's steps with fused multiply-adds (one rounding each) */
#define FMA8(a, b, c) __builtin_ia32_vfmaddps256((a), (b), (c))
#define F8(v) ((f8){v, v, v, v, v, v, v, v})

FM_AVX_FN static inline f8 exp_neg_f8(f8 x) {
    f8 s, kf, r, p;
    x = __builtin_ia32_maxps256(x, F8(-87.0f));
    s = FMA8(x, F8(1.44269504088896341f), F8(12582912.0f));
    kf = s - 12582912.0f;
    r = FMA8(kf, F8(2.12194440054690583e-4f), FMA8(kf, F8(-0.693359375f), x));
    p = FMA8(F8(FM_E5), r, F8(FM_E4));
    p = FMA8(p, r, F8(FM_E3));
    p = FMA8(p, r, F8(FM_E2));
    p = FMA8(p, r, F8(FM_E1));
    p = FMA8(p, r, F8(FM_E0));
    /* (k + 127) * 2**23 is an integer below 2**31: exact in float, then the bits of 2**k */
    return p * (f8)__builtin_convertvector((kf + 127.0f) * 8388608.0f, i8);
}

/* One row, 16 elements a step as two f8; T the stored type, LOAD8 / LOAD1 read 8 / 1 of
 * them as floats, FN the function's target attribute. */
#define FM_AVX_ROW(NAME, T, LOAD8, LOAD1, FN)                                                 \
    FN static double NAME(const T *x, ptrdiff_t n, ptrdiff_t target, int *is_max) {          \
        const float ninf = -(float)INFINITY;                                                  \
        f8 a, b, m0 = {ninf, ninf, ninf, ninf, ninf, ninf, ninf, ninf}, m1 = m0, mv;           \
        d4 s0 = {0.0, 0.0, 0.0, 0.0}, s1 = s0, s2 = s0, s3 = s0;                              \
        i8 nan = {0, 0, 0, 0, 0, 0, 0, 0};                                                    \
        ptrdiff_t i, j, n16 = n - n % 16;                                                     \
        float m, xt;                                                                          \
        double s;                                                                             \
        for (i = 0; i < n16; i += 16) {                                                       \
            a = LOAD8(x + i);                                                                 \
            b = LOAD8(x + i + 8);                                                             \
            m0 = max_f8(a, m0);                                                               \
            m1 = max_f8(b, m1);                                                               \
            nan |= (a != a) | (b != b);                                                       \
        }                                                                                     \
        m0 = max_f8(m1, m0);                                                                  \
        m = m0[0];                                                                            \
        for (j = 1; j < 8; j++) m = m0[j] > m ? m0[j] : m;                                    \
        for (i = n16; i < n; i++) m = LOAD1(x + i) > m ? LOAD1(x + i) : m;                    \
        for (j = 0; j < 8; j++) nan[0] |= nan[j];                                             \
        if (nan[0] || m == (float)INFINITY) {                                                 \
            *is_max = 0;                                                                      \
            return NAN;                                                                       \
        }                                                                                     \
        mv = (f8){m, m, m, m, m, m, m, m};                                                    \
        for (i = 0; i < n16; i += 16) {                                                       \
            a = exp_neg_f8(LOAD8(x + i) - mv);                                                \
            b = exp_neg_f8(LOAD8(x + i + 8) - mv);                                            \
            s0 += __builtin_convertvector(__builtin_shufflevector(a, a, 0, 1, 2, 3), d4);     \
            s1 += __builtin_convertvector(__builtin_shufflevector(a, a, 4, 5, 6, 7), d4);     \
            s2 += __builtin_convertvector(__builtin_shufflevector(b, b, 0, 1, 2, 3), d4);     \
            s3 += __builtin_convertvector(__builtin_shufflevector(b, b, 4, 5, 6, 7), d4);     \
        }                                                                                     \
        s0 = (s0 + s1) + (s2 + s3);                                                           \
        s = (s0[0] + s0[1]) + (s0[2] + s0[3]);                                                \
        for (i = n16; i < n; i++) s += (double)exp_neg_f(LOAD1(x + i) - m);                   \
        xt = LOAD1(x + target);                                                               \
        *is_max = xt == m;                                                                    \
        return ((double)xt - (double)m) - log(s);                                             \
    }

/* float16: F16C converts 8 halves at once (exactly, as fm_half_to_float) */
#define FM_F16C_FN __attribute__((target("avx,fma,f16c")))
typedef short s8 __attribute__((vector_size(16)));
FM_F16C_FN static inline f8 load_h8_f8(const uint16_t *p) {
    s8 h;
    memcpy(&h, p, sizeof h);
    return __builtin_ia32_vcvtph2ps256(h);
}

FM_AVX_ROW(avx_row_f32, float, load_f8, load_f32, FM_AVX_FN)
FM_AVX_ROW(avx_row_f16, uint16_t, load_h8_f8, load_f16, FM_F16C_FN)

#define FM_HAVE_AVX_FMA 1
#define FM_HAVE_F16C 2

/* FM_HAVE_AVX_FMA | FM_HAVE_F16C as this CPU has them */
static int fm_cpu(void) {
    static int have = -1; /* benign race: every thread computes the same value */
    if (have < 0)
        have = (__builtin_cpu_supports("avx") && __builtin_cpu_supports("fma"))
                   ? FM_HAVE_AVX_FMA | (__builtin_cpu_supports("f16c") ? FM_HAVE_F16C : 0)
                   : 0;
    return have;
}
#endif

/* contiguous rows take the vector version when there is one */
#ifdef FM_VEC
#define FM_DISPATCH(VROW, ROW) \
    return st == 1 ? VROW(x, n, target, is_max) : ROW(x, st, n, target, is_max)
#else
#define FM_DISPATCH(VROW, ROW) return ROW(x, st, n, target, is_max)
#endif

double fm_logprob_f32(const float *x, ptrdiff_t st, ptrdiff_t n, ptrdiff_t target, int *is_max) {
#ifdef FM_AVX
    if (st == 1 && (fm_cpu() & FM_HAVE_AVX_FMA)) return avx_row_f32(x, n, target, is_max);
#endif
    FM_DISPATCH(vrow_f32, row_f32);
}

double fm_logprob_f64(const double *x, ptrdiff_t st, ptrdiff_t n, ptrdiff_t target,
                      int *is_max) {
    FM_DISPATCH(vrow_f64, row_f64);
}

double fm_logprob_f16(const uint16_t *x, ptrdiff_t st, ptrdiff_t n, ptrdiff_t target,
                      int *is_max) {
#ifdef FM_AVX
    if (st == 1 && (fm_cpu() & FM_HAVE_F16C)) return avx_row_f16(x, n, target, is_max);
#endif
    FM_DISPATCH(vrow_f16, row_f16);
}
