/* Log-probability of one target token from one row of logits, without materialising the
 * row's log-softmax.
 *
 *   logprob = x[target] - logsumexp(x),   logsumexp(x) = m + log(sum_i exp(x[i] - m)),
 *   m = max_i x[i]   (two passes over the row: the max, then the sum of exponentials; a
 *                     vocabulary row of 32k float32 logits is 128 KB, so the second pass
 *                     reads it from cache).
 *
 * The exponentials are computed by a small polynomial after range reduction to
 * |r| <= ln2/2: a fitted polynomial of degree 5 in float for float16/float32 rows, the Taylor
 * polynomial of degree 13 in double for float64 rows. Contiguous rows use GCC/Clang vector
 * extensions (16-byte vectors: SSE2 on x86-64, NEON on arm64; no -ffast-math, no -march), and
 * float32 rows 32-byte AVX vectors with fused multiply-adds when the CPU has AVX and FMA,
 * float16 rows too when it also has F16C (run-time checks; the build still targets the
 * baseline ISA). -DFM_NO_AVX / -DFM_NO_VEC turn those off. Strided rows use the same
 * arithmetic one element at a time. Relative error of one exponential: < 3e-7 (float),
 * < 1e-15 (double). The sum is accumulated in double in fixed lanes and a fixed order: the
 * result does not depend on the number of threads (CPUs with and without AVX/FMA may differ
 * in the last bits).
 *
 * Non-finite logits: NaN anywhere in the row, +inf anywhere, or a row of only -inf gives a
 * NaN log-probability (as log_softmax computed by numpy does); a -inf target logit in an
 * otherwise finite row gives -inf.
 *
 * float16 rows are given as their raw uint16 bits and converted on the fly (fm_half_to_float).
 * Strides are in elements. Plain C, no Python, no allocation: safe from any number of threads.
 */
#ifndef FM_LSE_H
#define FM_LSE_H

#include <stddef.h>
#include <stdint.h>

/* IEEE binary16 bits -> float (exact; subnormals, infinities and NaN included). */
static inline float fm_half_to_float(uint16_t h) {
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t em = (uint32_t)h & 0x7fffu;
    union { uint32_t u; float f; } v;
    if (em >= 0x7c00u) {            /* inf / NaN: exponent all ones, keep the payload */
        v.u = sign | 0x7f800000u | ((em & 0x3ffu) << 13);
    } else if (em >= 0x0400u) {     /* normal: rebias the exponent 15 -> 127 */
        v.u = sign | ((em << 13) + ((uint32_t)(127 - 15) << 23));
    } else {                        /* zero / subnormal: em * 2**-24, exact in float */
        v.f = (float)em * 5.9604644775390625e-8f;
        v.u |= sign;
    }
    return v.f;
}

/* Log-probability of x[target] under softmax(x) for a row of n >= 1 logits with element
 * stride st; *is_max is set to 1 when x[target] equals the row's largest logit (the target is
 * a greedy choice; ties count), else 0. 0 <= target < n is the caller's job. */
double fm_logprob_f32(const float *x, ptrdiff_t st, ptrdiff_t n, ptrdiff_t target, int *is_max);
double fm_logprob_f64(const double *x, ptrdiff_t st, ptrdiff_t n, ptrdiff_t target, int *is_max);
double fm_logprob_f16(const uint16_t *x, ptrdiff_t st, ptrdiff_t n, ptrdiff_t target,
                      int *is_max);

/* The exponential helpers on their own (for tests): exp(x) for x <= 0. */
float fm_exp_neg_f32(float x);
double fm_exp_neg_f64(double x);

#endif
