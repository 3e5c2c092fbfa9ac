/* Multi-bank pair counting: the inner loop of the confusion kernel, one function per label
 * type (generated below), plain C with no Python; and the min/max pass that sizes its table.
 *
 * fm_count_<T>(yt, st, yp, sp, start, stop, lo, shift, table, bad) counts the pairs
 * (yt[i], yp[i]), i in [start, stop), whose values lie in lo .. lo + 2**shift - 1 into
 * table[bank][(a << shift) | b] with a = yt[i] - lo, b = yp[i] - lo and bank = i % 4: four
 * interleaved banks break the store-to-load dependency when consecutive samples hit the same
 * cell. The range check is fused into the pass (one OR of the offsets per four pairs); the
 * first pair out of range stops the lane: bad[0] = its index, bad[1] = 1 (y_true) or 2
 * (y_pred); bad is left untouched otherwise. Strides are in bytes (numpy's: a field of a
 * packed record array has one that is not a whole number of items). Offsets use modular
 * uint64 arithmetic, so "v - lo < 2**shift" is exactly "lo <= v < lo + 2**shift" for every
 * signed and unsigned type.
 */
#ifndef FM_COUNT_H
#define FM_COUNT_H

#include <stdint.h>
#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define FM_ALWAYS_INLINE __attribute__((always_inline))
#else
#define FM_ALWAYS_INLINE
#endif

/* element i of a T array whose stride is s bytes */
#define FM_AT(T, p, i, s) (*(const T *)((const char *)(p) + (i) * (s)))

#define FM_BAD_TRUE 1
#define FM_BAD_PRED 2

#define FM_DEFINE_COUNT(SUFFIX, T)                                                         \
    static inline FM_ALWAYS_INLINE void fm_count_body_##SUFFIX(                            \
                                              const T *yt, ptrdiff_t st, const T *yp,      \
                                              ptrdiff_t sp, ptrdiff_t start,               \
                                              ptrdiff_t stop, uint64_t lo, int shift,      \
                                              int64_t *table, int64_t *bad)                \
    {                                                                                      \
        const uint64_t k = (uint64_t)1 << shift, kk = k * k;                               \
        int64_t *b1 = table + kk, *b2 = table + 2 * kk, *b3 = table + 3 * kk;              \
        ptrdiff_t i = start;                                                               \
        for (; i + 3 < stop; i += 4) {                                                     \
            uint64_t a0 = (uint64_t)FM_AT(T, yt, i, st) - lo;                              \
            uint64_t c0 = (uint64_t)FM_AT(T, yp, i, sp) - lo;                              \
            uint64_t a1 = (uint64_t)FM_AT(T, yt, i + 1, st) - lo;                          \
            uint64_t c1 = (uint64_t)FM_AT(T, yp, i + 1, sp) - lo;                          \
            uint64_t a2 = (uint64_t)FM_AT(T, yt, i + 2, st) - lo;                          \
            uint64_t c2 = (uint64_t)FM_AT(T, yp, i + 2, sp) - lo;                          \
            uint64_t a3 = (uint64_t)FM_AT(T, yt, i + 3, st) - lo;                          \
            uint64_t c3 = (uint64_t)FM_AT(T, yp, i + 3, sp) - lo;                          \
            if ((a0 | c0 | a1 | c1 | a2 | c2 | a3 | c3) >> shift)                          \
                break;                                                                     \
            table[(a0 << shift) | c0]++;                                                   \
            b1[(a1 << shift) | c1]++;                                                      \
            b2[(a2 << shift) | c2]++;                                                      \
            b3[(a3 << shift) | c3]++;                                                      \
        }                                                                                  \
        for (; i < stop; i++) {                                                            \
            uint64_t a = (uint64_t)FM_AT(T, yt, i, st) - lo;                               \
            uint64_t c = (uint64_t)FM_AT(T, yp, i, sp) - lo;                               \
            if (a >= k) { bad[0] = i; bad[1] = FM_BAD_TRUE; return; }                      \
            if (c >= k) { bad[0] = i; bad[1] = FM_BAD_PRED; return; }                      \
            table[(a << shift) | c]++;                                                     \
        }                                                                                  \
    }                                                                                      \
    static inline void fm_count_##SUFFIX(const T *yt, ptrdiff_t st, const T *yp,           \
                                         ptrdiff_t sp, ptrdiff_t start, ptrdiff_t stop,    \
                                         uint64_t lo, int shift, int64_t *table,           \
                                         int64_t *bad)                                     \
    {                                                                                      \
        if (st != (ptrdiff_t)sizeof(T) || sp != (ptrdiff_t)sizeof(T)) {                    \
            fm_count_body_##SUFFIX(yt, st, yp, sp, start, stop, lo, shift, table, bad);    \
            return;                                                                        \
        }                                                                                  \
        /* contiguous: constant strides, and a constant shift (and lo = 0) for small       \
           tables let the compiler drop multiplies and variable shifts (~25% faster) */    \
        switch (lo == 0 ? shift : -1 - shift) {                                            \
        FM_COUNT_CASES(SUFFIX)                                                             \
        default:                                                                           \
            fm_count_body_##SUFFIX(yt, sizeof(T), yp, sizeof(T), start, stop, lo, shift,   \
                                   table, bad);                                            \
        }                                                                                  \
    }

/* the contiguous stride, in bytes, inside fm_count_<T> */
#define FM_ST ((ptrdiff_t)sizeof(*yt))
#define FM_COUNT_CASE(SUFFIX, S)                                                           \
    case S: fm_count_body_##SUFFIX(yt, FM_ST, yp, FM_ST, start, stop, 0, S, table, bad); break; \
    case -1 - S:                                                                           \
        fm_count_body_##SUFFIX(yt, FM_ST, yp, FM_ST, start, stop, lo, S, table, bad); break;
#define FM_COUNT_CASES(SUFFIX)                                                             \
    FM_COUNT_CASE(SUFFIX, 1) FM_COUNT_CASE(SUFFIX, 2) FM_COUNT_CASE(SUFFIX, 3)             \
    FM_COUNT_CASE(SUFFIX, 4) FM_COUNT_CASE(SUFFIX, 5) FM_COUNT_CASE(SUFFIX, 6)

/* fm_minmax_<T>(p, s, n, lo, hi): the least and greatest of p[0 .. n-1] (n >= 1; stride s in
 * bytes). Branch-free selects into two pairs of accumulators: the compiler vectorises the
 * contiguous loop (about 0.06 ns a value for 8/16-bit labels, 0.2 for 32-bit and 0.45 for
 * 64-bit ones on SSE2, where a branchy loop took 0.6 for every width). */
#define FM_DEFINE_MINMAX(SUFFIX, T)                                                        \
    static inline void fm_minmax_##SUFFIX(const T *p, ptrdiff_t s, ptrdiff_t n, T *lo,     \
                                          T *hi)                                           \
    {                                                                                      \
        T mn0 = FM_AT(T, p, 0, s), mx0 = mn0, mn1 = mn0, mx1 = mn0;                        \
        ptrdiff_t i = 1;                                                                   \
        if (s == (ptrdiff_t)sizeof(T)) {                                                   \
            for (; i + 1 < n; i += 2) {                                                    \
                T v = p[i], w = p[i + 1];                                                  \
                mn0 = v < mn0 ? v : mn0;                                                   \
                mx0 = v > mx0 ? v : mx0;                                                   \
                mn1 = w < mn1 ? w : mn1;                                                   \
                mx1 = w > mx1 ? w : mx1;                                                   \
            }                                                                              \
        }                                                                                  \
        for (; i < n; i++) {                                                               \
            T v = FM_AT(T, p, i, s);                                                       \
            mn0 = v < mn0 ? v : mn0;                                                       \
            mx0 = v > mx0 ? v : mx0;                                                       \
        }                                                                                  \
        *lo = mn0 < mn1 ? mn0 : mn1;                                                       \
        *hi = mx0 > mx1 ? mx0 : mx1;                                                       \
    }

FM_DEFINE_MINMAX(i8, int8_t)
FM_DEFINE_MINMAX(i16, int16_t)
FM_DEFINE_MINMAX(i32, int32_t)
FM_DEFINE_MINMAX(i64, int64_t)
FM_DEFINE_MINMAX(u8, uint8_t)
FM_DEFINE_MINMAX(u16, uint16_t)
FM_DEFINE_MINMAX(u32, uint32_t)
FM_DEFINE_MINMAX(u64, uint64_t)

FM_DEFINE_COUNT(i8, int8_t)
FM_DEFINE_COUNT(i16, int16_t)
FM_DEFINE_COUNT(i32, int32_t)
FM_DEFINE_COUNT(i64, int64_t)
FM_DEFINE_COUNT(u8, uint8_t)
FM_DEFINE_COUNT(u16, uint16_t)
FM_DEFINE_COUNT(u32, uint32_t)
FM_DEFINE_COUNT(u64, uint64_t)

/* Of a k x k table of counts, the labels that occur (a nonzero cell in their row or their
 * column): their indices, in order, go to ``keep``; returns how many. */
static inline int64_t fm_occurring(const int64_t *tab, int64_t k, int64_t *keep)
{
    int64_t i, j, m = 0;
    for (i = 0; i < k; i++) {
        for (j = 0; j < k; j++) {
            if (tab[i * k + j] != 0 || tab[j * k + i] != 0) {
                keep[m++] = i;
                break;
            }
        }
    }
    return m;
}

/* The m x m table of the kept labels into ``out``, and ``in_true[i] = 1`` where kept label i
 * has a nonzero row, that is, occurs in y_true (``in_true`` starts zeroed). */
static inline void fm_gather(const int64_t *tab, int64_t k, const int64_t *keep, int64_t m,
                             int64_t *out, unsigned char *in_true)
{
    int64_t i, j, x;
    for (i = 0; i < m; i++) {
        for (j = 0; j < m; j++) {
            x = tab[keep[i] * k + keep[j]];
            out[i * m + j] = x;
            if (x != 0)
                in_true[i] = 1;
        }
    }
}

#endif
