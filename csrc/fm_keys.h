/* Order-preserving uint64 keys of floating-point values: the two rules fastmetrics uses,
 * side by side, because they differ on purpose.
 *
 * Both map the IEEE bits to an unsigned integer whose order is the numeric order: negative
 * values get every bit flipped (larger magnitude -> smaller key), non-negative values get the
 * sign bit set (so they sort above all negatives). ~key orders descending.
 *
 *   selection keys (fm_sel_key_f64 / fm_sel_key_f32; percentiles, csrc/fm_select.c)
 *       must give numpy's partition order *including* NaN: every NaN becomes the largest key,
 *       so NaNs sort last, as numpy puts them. -0.0 and +0.0 keep distinct keys (-0.0 first);
 *       the selected value is returned bit for bit, so numpy's (and our) result keeps the
 *       sign of the zero it selected. float32 keys stay 32-bit wide (fewer radix passes).
 *
 *   sort keys (fm_key_f64; ranking, csrc/fm_sort.c)
 *       group equal scores: -0.0 is turned into +0.0 first, so both are one threshold (as
 *       scikit-learn's np.unique-based curves count them). Scores are checked finite
 *       beforehand, so there is no NaN rule. float32 scores are widened to double (exact),
 *       so both score dtypes share one key type and the trailing zero mantissa bits make
 *       the low radix digits constant (those passes are skipped).
 */
#ifndef FM_KEYS_H
#define FM_KEYS_H

#include <stdint.h>
#include <string.h>

#define FM_TOP64 ((uint64_t)1 << 63)
#define FM_TOP32 ((uint32_t)1 << 31)

/* ------------------------------------------------------------------ selection keys */

static inline uint64_t fm_sel_key_f64(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    u ^= (uint64_t)((int64_t)u >> 63) | FM_TOP64;
    return v != v ? UINT64_MAX : u;
}

static inline uint64_t fm_sel_key_f32(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u ^= (uint32_t)((int32_t)u >> 31) | FM_TOP32;
    return v != v ? (uint64_t)UINT32_MAX : (uint64_t)u;
}

/* ------------------------------------------------------------------ sort keys */

static inline uint64_t fm_key_f64(double x)
{
    uint64_t b;
    x = x + 0.0; /* -0.0 -> +0.0: equal scores must give equal keys */
    memcpy(&b, &x, sizeof b);
    return b ^ ((uint64_t)(-(int64_t)(b >> 63)) | FM_TOP64);
}

static inline double fm_unkey_f64(uint64_t k)
{
    uint64_t b = (k >> 63) ? (k ^ FM_TOP64) : ~k;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* Descending keys: ascending order of fm_dkey is descending order of the scores. */
static inline uint64_t fm_dkey_f64(double x) { return ~fm_key_f64(x); }
static inline double fm_undkey_f64(uint64_t k) { return fm_unkey_f64(~k); }

#endif
