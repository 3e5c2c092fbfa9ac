#include "fm_sort.h"

/* Small inputs use 8-bit digits (small histograms are cheap to clear and scan), large ones
 * 10-bit digits: 1024 write streams still fit the L1/L2 write-combining sweet spot (11- and
 * 12-bit digits measured 1.5-2x slower per key on the development machine, 8 and 9 bits
 * about the same as 10). */
#define FM_SMALL_N 16384

static inline int fm_digit_bits(int64_t n) { return n < FM_SMALL_N ? 8 : 10; }

int64_t fm_radix_hist_size(int64_t n)
{
    int bits = fm_digit_bits(n);
    int passes = (64 + bits - 1) / bits;
    return (int64_t)passes << bits;
}

/* Counts in h[0:nb] -> start offsets, then a stable scatter of src[0:n] (payload ws) into
 * dst / wd by digit (key >> shift) & mask; h[d] ends as the end of bucket d. */
static inline void fm_scatter(const uint64_t *src, uint64_t *dst, const double *ws, double *wd,
                              int64_t n, int shift, uint64_t mask, uint64_t *h)
{
    uint64_t sum = 0, c;
    int64_t i, d;
    for (d = 0; d <= (int64_t)mask; d++) {
        c = h[d];
        h[d] = sum;
        sum += c;
    }
    if (ws) {
        for (i = 0; i < n; i++) {
            uint64_t k = src[i];
            uint64_t pos = h[(k >> shift) & mask]++;
            dst[pos] = k;
            wd[pos] = ws[i];
        }
    } else {
        for (i = 0; i < n; i++) {
            uint64_t k = src[i];
            dst[h[(k >> shift) & mask]++] = k;
        }
    }
}

/* LSD passes of ``bits``-bit digits over key bits [lo, hi) of keys[0:n] (payload w), with
 * scratch tmp / wtmp and ``hist`` of ((hi - lo + bits - 1) / bits) << bits slots. One read
 * pass fills every digit's histogram; a digit equal in all keys costs no pass. Returns the
 * buffer holding the sorted keys (keys or tmp; the weights are in the matching one). */
static uint64_t *fm_lsd(uint64_t *keys, uint64_t *tmp, double *w, double *wtmp, int64_t n,
                        int lo, int hi, int bits, uint64_t *hist)
{
    const int passes = (hi - lo + bits - 1) / bits;
    const int64_t nb = (int64_t)1 << bits;
    const uint64_t mask = (uint64_t)nb - 1;
    uint64_t *src = keys, *dst = tmp, *ks;
    double *wsrc = w, *wdst = wtmp, *ws;
    int64_t i;
    int p;

    if (n < 2)
        return keys;
    memset(hist, 0, sizeof(uint64_t) * (size_t)(passes * nb));
    for (i = 0; i < n; i++) {
        uint64_t k = keys[i] >> lo;
        for (p = 0; p < passes; p++)
            hist[(int64_t)p * nb + ((k >> (p * bits)) & mask)]++;
    }
    for (p = 0; p < passes; p++) {
        uint64_t *h = hist + (int64_t)p * nb;
        const int shift = lo + p * bits;
        if (h[(src[0] >> shift) & mask] == (uint64_t)n)
            continue; /* every key has this digit: the pass would not move anything */
        fm_scatter(src, dst, wsrc, wdst, n, shift, mask, h);
        if (wsrc) {
            ws = wsrc; wsrc = wdst; wdst = ws;
        }
        ks = src; src = dst; dst = ks;
    }
    return src;
}

uint64_t *fm_radix_sort_u64(uint64_t *keys, uint64_t *tmp, double *w, double *wtmp,
                            int64_t n, uint64_t *hist)
{
    return fm_lsd(keys, tmp, w, wtmp, n, 0, 64, fm_digit_bits(n), hist);
}

/* ---------------------------------------------------------------- MSD radix sort */
#define FM_MSD_BITS 11      /* at most 2048 buckets a pass (their write streams stay cached) */
#define FM_INSERTION_MAX 48 /* smaller buckets: insertion sort */

static void fm_insertion_sort(uint64_t *k, double *w, int64_t c)
{
    int64_t i, j;
    for (i = 1; i < c; i++) {
        uint64_t x = k[i];
        double wx = w ? w[i] : 0.0;
        for (j = i; j > 0 && k[j - 1] > x; j--) {
            k[j] = k[j - 1];
            if (w)
                w[j] = w[j - 1];
        }
        k[j] = x;
        if (w)
            w[j] = wx;
    }
}

#ifndef FM_LSD_MIN
#define FM_LSD_MIN 1024 /* larger buckets: in-cache LSD passes instead of recursion */
#endif
#define FM_LSD_BITS 8

/* LSD sort of k[0:c] (payload w) on key bits [lo, hi) in cache, with scratch kt / wt; the
 * result ends in k / w (copied back after an odd number of passes). */
static void fm_lsd_bits(uint64_t *k, uint64_t *kt, double *w, double *wt, int64_t c, int lo,
                        int hi)
{
    uint64_t h[((64 + FM_LSD_BITS - 1) / FM_LSD_BITS) << FM_LSD_BITS];
    uint64_t *out = fm_lsd(k, kt, w, wt, c, lo, hi, FM_LSD_BITS, h);
    if (out != k) {
        memcpy(k, kt, sizeof(uint64_t) * (size_t)c);
        if (w)
            memcpy(w, wt, sizeof(double) * (size_t)c);
    }
}

/* One stable MSD pass: scatter a[0:c] into b by the ``bits`` key bits below ``hi`` (the top
 * varying bits), then sort every bucket of b in place, recursively (a as its scratch).
 * ``varying``: bits that differ between keys of a (a superset). The sorted keys end in b.
 * About two keys per bucket: a bucket left over is then small and already in cache. */
static void fm_msd_pass(uint64_t *a, uint64_t *b, double *wa, double *wb, int64_t c,
                        uint64_t varying);

/* (OR of k[0:c]) ^ (AND of k[0:c]): the bits that differ between keys; 0 when all equal. */
static uint64_t fm_varying_bits(const uint64_t *k, int64_t c)
{
    uint64_t or_ = 0, and_ = ~(uint64_t)0;
    int64_t i;
    for (i = 0; i < c; i++) {
        or_ |= k[i];
        and_ &= k[i];
    }
    return or_ ^ and_;
}

/* Sort a[0:c] in place (scratch b). */
static void fm_msd_sort(uint64_t *a, uint64_t *b, double *wa, double *wb, int64_t c)
{
    uint64_t varying;
    if (c <= FM_INSERTION_MAX) {
        fm_insertion_sort(a, wa, c);
        return;
    }
    varying = fm_varying_bits(a, c);
    if (!varying)
        return; /* all equal */
    fm_msd_pass(a, b, wa, wb, c, varying);
    memcpy(a, b, sizeof(uint64_t) * (size_t)c);
    if (wa)
        memcpy(wa, wb, sizeof(double) * (size_t)c);
}

static void fm_msd_pass(uint64_t *a, uint64_t *b, double *wa, double *wb, int64_t c,
                        uint64_t varying)
{
    const int hi = 64 - __builtin_clzll(varying), lo = __builtin_ctzll(varying);
    int bits = 63 - __builtin_clzll((uint64_t)c) - 1; /* c >= 2: bits >= 0 */
    int shift, d, nb;
    int64_t i, start, end;
    uint64_t mask;

    if (bits > FM_MSD_BITS)
        bits = FM_MSD_BITS;
    if (bits > hi - lo)
        bits = hi - lo;
    if (bits < 1)
        bits = 1;
    shift = hi - bits;
    nb = 1 << bits;
    mask = (uint64_t)nb - 1;
    {
        uint64_t h[nb]; /* at most 2^FM_MSD_BITS; a level takes ``bits`` bits off the keys */
        memset(h, 0, sizeof(uint64_t) * (size_t)nb);
        for (i = 0; i < c; i++)
            h[(a[i] >> shift) & mask]++;
        fm_scatter(a, b, wa, wb, c, shift, mask, h);
        if (shift <= lo)
            return; /* no varying bit below: every bucket holds equal keys */
        start = 0; /* h[d] is now the end of bucket d */
        for (d = 0; d < nb; d++) {
            end = (int64_t)h[d];
            if (end - start > FM_LSD_MIN)
                fm_lsd_bits(b + start, a + start, wa ? wb + start : NULL,
                            wa ? wa + start : NULL, end - start, lo, shift);
            else if (end - start > 1)
                fm_msd_sort(b + start, a + start, wa ? wb + start : NULL,
                            wa ? wa + start : NULL, end - start);
            start = end;
        }
    }
}

uint64_t *fm_sort_u64(uint64_t *keys, uint64_t *tmp, double *w, double *wtmp, int64_t n,
                      uint64_t *hist, uint64_t varying)
{
    if (n >= FM_LSD_FROM && n < FM_LSD_UNTIL)
        return fm_radix_sort_u64(keys, tmp, w, wtmp, n, hist);
    if (n <= FM_INSERTION_MAX) {
        fm_insertion_sort(keys, w, n);
        return keys;
    }
    if (varying == ~(uint64_t)0)
        varying = fm_varying_bits(keys, n);
    if (!varying)
        return keys; /* all keys equal */
    fm_msd_pass(keys, tmp, w, wtmp, n, varying);
    return tmp;
}
