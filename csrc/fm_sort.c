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

uint64_t *fm_radix_sort_u64(uint64_t *keys, uint64_t *tmp, double *w, double *wtmp,
                            int64_t n, uint64_t *hist)
{
    const int bits = fm_digit_bits(n);
    const int passes = (64 + bits - 1) / bits;
    const int64_t nb = (int64_t)1 << bits;
    const uint64_t mask = (uint64_t)nb - 1;
    uint64_t *src = keys, *dst = tmp, *ks;
    double *wsrc = w, *wdst = wtmp, *ws;
    int64_t i;
    int p;

    if (n < 2)
        return keys;
    memset(hist, 0, sizeof(uint64_t) * (size_t)(passes * nb));
    /* one read pass fills every digit's histogram */
    for (i = 0; i < n; i++) {
        uint64_t k = keys[i];
        for (p = 0; p < passes; p++)
            hist[(int64_t)p * nb + ((k >> (p * bits)) & mask)]++;
    }
    for (p = 0; p < passes; p++) {
        uint64_t *h = hist + (int64_t)p * nb;
        const int shift = p * bits;
        uint64_t sum = 0, c;
        int64_t d;
        if (h[(src[0] >> shift) & mask] == (uint64_t)n)
            continue; /* every key has this digit: the pass would not move anything */
        for (d = 0; d < nb; d++) { /* counts -> start offsets */
            c = h[d];
            h[d] = sum;
            sum += c;
        }
        if (wsrc) {
            for (i = 0; i < n; i++) {
                uint64_t k = src[i];
                uint64_t pos = h[(k >> shift) & mask]++;
                dst[pos] = k;
                wdst[pos] = wsrc[i];
            }
            ws = wsrc; wsrc = wdst; wdst = ws;
        } else {
            for (i = 0; i < n; i++) {
                uint64_t k = src[i];
                dst[h[(k >> shift) & mask]++] = k;
            }
        }
        ks = src; src = dst; dst = ks;
    }
    return src; /* keys or tmp; the weights are in the matching buffer */
}
