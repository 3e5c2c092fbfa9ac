/* First-seen hash encoding of fixed-width values (numpy strings, bytes, any fixed itemsize):
 * one pass over n items of ``itemsize`` bytes, ``stride`` bytes apart, writes for each item
 * the code of its value (0, 1, ... in order of first occurrence) and records the index of
 * each value's first occurrence. Values are compared by their raw bytes: numpy pads fixed
 * strings with zero bytes, so two items hold the same string exactly when their bytes are
 * equal (for other dtypes equal bytes imply equal values, and the caller merges values that
 * are equal with different bytes, such as -0.0 and 0.0, when it sorts the K distinct ones).
 *
 * Open addressing with linear probing over a power-of-two table kept at most half full;
 * each slot holds the value's hash and code, so a probe compares the bytes only when the
 * hashes agree. Counts and indices are 64-bit.
 */
#ifndef FM_HASH_H
#define FM_HASH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t *hash;   /* per slot */
    int64_t *code;    /* per slot, -1 = empty */
    int64_t cap;      /* slots, a power of two */
    int64_t *first;   /* per code: index of the first item holding it */
    int64_t k;        /* codes handed out */
    int64_t first_cap;
} fm_htab;

static inline uint64_t fm_mix64(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

/* Words are folded with independent multiplies (no chain of dependent ones per word), then
 * mixed once. */
static inline __attribute__((always_inline)) uint64_t fm_hash_bytes(const char *p, int64_t n)
{
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ULL, w;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h ^= (w + (uint64_t)i * 0x9E3779B97F4A7C15ULL) * 0xff51afd7ed558ccdULL;
        h = (h << 29) | (h >> 35);
    }
    if (i < n) {
        w = 0;
        memcpy(&w, p + i, (size_t)(n - i));
        h ^= (w ^ 0xc4ceb9fe1a85ec53ULL) * 0xff51afd7ed558ccdULL;
    }
    return fm_mix64(h);
}

static inline int fm_htab_init(fm_htab *t, int64_t cap)
{
    int64_t i;
    t->cap = cap;
    t->k = 0;
    t->first_cap = 64;
    t->hash = (uint64_t *)malloc((size_t)cap * sizeof(uint64_t));
    t->code = (int64_t *)malloc((size_t)cap * sizeof(int64_t));
    t->first = (int64_t *)malloc((size_t)t->first_cap * sizeof(int64_t));
    if (!t->hash || !t->code || !t->first)
        return -1;
    for (i = 0; i < cap; i++)
        t->code[i] = -1;
    return 0;
}

static inline void fm_htab_free(fm_htab *t)
{
    free(t->hash);
    free(t->code);
    free(t->first);
    t->hash = NULL;
    t->code = NULL;
    t->first = NULL;
}

/* Double the slots (rehash from the stored hashes) and, when full, the first-index list. */
static inline int fm_htab_grow(fm_htab *t)
{
    int64_t i, s, cap = t->cap * 2, mask = cap - 1;
    uint64_t *hash = (uint64_t *)malloc((size_t)cap * sizeof(uint64_t));
    int64_t *code = (int64_t *)malloc((size_t)cap * sizeof(int64_t));
    if (!hash || !code) {
        free(hash);
        free(code);
        return -1;
    }
    for (i = 0; i < cap; i++)
        code[i] = -1;
    for (i = 0; i < t->cap; i++) {
        if (t->code[i] < 0)
            continue;
        s = (int64_t)(t->hash[i] & (uint64_t)mask);
        while (code[s] >= 0)
            s = (s + 1) & mask;
        code[s] = t->code[i];
        hash[s] = t->hash[i];
    }
    free(t->hash);
    free(t->code);
    t->hash = hash;
    t->code = code;
    t->cap = cap;
    return 0;
}

/* A new code for the value first seen at ``index``, stored in slot ``s``; -1 when out of
 * memory. */
static inline int64_t fm_htab_add(fm_htab *t, int64_t s, uint64_t h, int64_t index)
{
    int64_t c = t->k;
    if (c == t->first_cap) {
        int64_t *f = (int64_t *)realloc(t->first, (size_t)(2 * c) * sizeof(int64_t));
        if (!f)
            return -1;
        t->first = f;
        t->first_cap = 2 * c;
    }
    t->first[c] = index;
    t->code[s] = c;
    t->hash[s] = h;
    t->k = c + 1;
    if (2 * t->k > t->cap && fm_htab_grow(t) < 0)
        return -1;
    return c;
}

/* Sets ``c`` to the code of item ``i`` of hash ``h``: the code of an equal item seen before
 * (``EQ``, an expression of the candidate code ``c``, says whether that code's first item
 * equals item i; it is evaluated only when the hashes agree), else a new code. Returns -1
 * from the enclosing function when out of memory. */
#define FM_HTAB_CODE(t, h, i, c, EQ)                                  \
    do {                                                              \
        int64_t mask_ = (t)->cap - 1;                                 \
        int64_t s_ = (int64_t)((h) & (uint64_t)mask_);                \
        for (;;) {                                                    \
            (c) = (t)->code[s_];                                      \
            if ((c) < 0) {                                            \
                (c) = fm_htab_add((t), s_, (h), (i));                 \
                if ((c) < 0)                                          \
                    return -1;                                        \
                break;                                                \
            }                                                         \
            if ((t)->hash[s_] == (h) && (EQ))                         \
                break;                                                \
            s_ = (s_ + 1) & mask_;                                    \
        }                                                             \
    } while (0)

static inline void fm_put_code(int32_t *codes32, int64_t *codes64, int64_t i, int64_t c)
{
    if (codes32)
        codes32[i] = (int32_t)c;
    else
        codes64[i] = c;
}

/* The hash of a fixed-width item: one multiply per word, all independent of each other
 * (no chain through the words), summed, then folded and mixed once. Weaker than
 * fm_hash_bytes but enough for a table whose every hit is confirmed by the bytes. */
static inline __attribute__((always_inline)) uint64_t fm_hash_fixed(const char *p, int64_t n)
{
    static const uint64_t m[4] = {0x9E3779B97F4A7C15ULL, 0xff51afd7ed558ccdULL,
                                  0xc4ceb9fe1a85ec53ULL, 0xbf58476d1ce4e5b9ULL};
    uint64_t x = (uint64_t)n, w;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        x += (w ^ (uint64_t)i) * m[(i >> 3) & 3];
    }
    if (i < n) {
        w = 0;
        memcpy(&w, p + i, (size_t)(n - i));
        x += w * 0x94d049bb133111ebULL;
    }
    x ^= x >> 32;
    x *= 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 29);
}

/* Items per block of the run test (see fm_encode_fixed_w). */
#define FM_RUN_BLOCK 512

/* The encoding loop; inlined with a constant ``itemsize`` for the common widths, so the
 * hash and the comparisons unroll. Labels in real files come in runs (sorted or grouped
 * rows): an item with the bytes of the item before takes its code, without a hash or a
 * probe. That test costs a mispredicted branch per change of label, a loss on shuffled
 * labels, so it runs only in blocks that follow a block where at least 3 items in 4
 * repeated the code before them (counted without a branch while hashing). The codes are
 * the same either way. */
static inline __attribute__((always_inline)) int fm_encode_fixed_w(
    const char *data, int64_t n, int64_t stride, int64_t itemsize, int32_t *codes32,
    int64_t *codes64, fm_htab *t)
{
    int64_t i, c = -1, last = -1, hits, b, end;
    int runs = 0;
    uint64_t h;
    const char *p;
    for (b = 0; b < n; b = end) {
        end = n - b > FM_RUN_BLOCK ? b + FM_RUN_BLOCK : n;
        hits = 0;
        if (runs) {
            for (i = b; i < end; i++) {
                p = data + i * stride;
                if (memcmp(p, p - stride, (size_t)itemsize) == 0) {
                    hits++;  /* c still holds item i - 1's code (i > 0 in a later block) */
                } else {
                    h = fm_hash_fixed(p, itemsize);
                    FM_HTAB_CODE(t, h, i, c, memcmp(data + t->first[c] * stride, p,
                                                    (size_t)itemsize) == 0);
                }
                fm_put_code(codes32, codes64, i, c);
            }
        } else {
            for (i = b; i < end; i++) {
                p = data + i * stride;
                h = fm_hash_fixed(p, itemsize);
                FM_HTAB_CODE(t, h, i, c, memcmp(data + t->first[c] * stride, p,
                                                (size_t)itemsize) == 0);
                fm_put_code(codes32, codes64, i, c);
                hits += c == last;
                last = c;
            }
        }
        last = c;
        runs = 4 * hits >= 3 * (end - b);
    }
    return 0;
}

/* Encode n fixed-width items (see the top of this file) into codes (int32 when ``codes32``
 * is given, else int64 ``codes64``). Returns 0, or -1 when out of memory. */
static int fm_encode_fixed(const char *data, int64_t n, int64_t stride, int64_t itemsize,
                           int32_t *codes32, int64_t *codes64, fm_htab *t)
{
    switch (itemsize) {
    case 1: return fm_encode_fixed_w(data, n, stride, 1, codes32, codes64, t);
    case 2: return fm_encode_fixed_w(data, n, stride, 2, codes32, codes64, t);
    case 4: return fm_encode_fixed_w(data, n, stride, 4, codes32, codes64, t);
    case 8: return fm_encode_fixed_w(data, n, stride, 8, codes32, codes64, t);
    case 12: return fm_encode_fixed_w(data, n, stride, 12, codes32, codes64, t);
    case 16: return fm_encode_fixed_w(data, n, stride, 16, codes32, codes64, t);
    case 20: return fm_encode_fixed_w(data, n, stride, 20, codes32, codes64, t);
    case 24: return fm_encode_fixed_w(data, n, stride, 24, codes32, codes64, t);
    case 32: return fm_encode_fixed_w(data, n, stride, 32, codes32, codes64, t);
    case 40: return fm_encode_fixed_w(data, n, stride, 40, codes32, codes64, t);
    case 48: return fm_encode_fixed_w(data, n, stride, 48, codes32, codes64, t);
    case 64: return fm_encode_fixed_w(data, n, stride, 64, codes32, codes64, t);
    default: return fm_encode_fixed_w(data, n, stride, itemsize, codes32, codes64, t);
    }
}

/* The bytes of a short item (``len`` <= 16) as two zero-padded words: two plain loads
 * when 16 bytes can be read from ``p`` inside the buffer, else a copy. */
static inline void fm_short_words(const char *p, int64_t len, int64_t room, uint64_t *w)
{
    if (room >= 16) {
        memcpy(w, p, 16);
        /* keep the first len bytes, without a branch on the length (labels of random
         * lengths would mispredict it) */
        int64_t l0 = len < 8 ? len : 8, l1 = len < 8 ? 0 : len - 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w[0] &= l0 ? ~0ULL << (64 - 8 * l0) : 0;
        w[1] &= l1 ? ~0ULL << (64 - 8 * l1) : 0;
#else
        w[0] &= l0 ? ~0ULL >> (64 - 8 * l0) : 0;
        w[1] &= l1 ? ~0ULL >> (64 - 8 * l1) : 0;
#endif
    } else {
        w[0] = w[1] = 0;
        memcpy(w, p, (size_t)len);
    }
}

/* Whether item ``j`` equals the item of ``len`` bytes at ``start`` (its words ``w`` when
 * len <= 16). */
static inline int fm_var_equal(const char *data, int64_t data_len, const int64_t *off64,
                               const int32_t *off32, int64_t j, int64_t start, int64_t len,
                               const uint64_t *w)
{
    uint64_t v[2];
    int64_t fs = off64 ? off64[j] : off32[j];
    int64_t flen = (off64 ? off64[j + 1] : off32[j + 1]) - fs;
    if (flen != len)
        return 0;
    if (len <= 16) {
        fm_short_words(data + fs, len, data_len - fs, v);
        return v[0] == w[0] && v[1] == w[1];
    }
    return memcmp(data + fs, data + start, (size_t)len) == 0;
}

/* Encode n variable-length items (arrow strings: item i is the bytes
 * ``data[off[i] .. off[i + 1])`` of ``data_len`` bytes, offsets int64 ``off64`` or int32
 * ``off32``) the same way. Items of up to 16 bytes (most labels) are read as two words,
 * hashed and compared without a call. Returns 0, or -1 when out of memory. */
static int fm_encode_var(const char *data, int64_t data_len, const int64_t *off64,
                         const int32_t *off32, int64_t n, int32_t *codes32,
                         int64_t *codes64, fm_htab *t)
{
    int64_t i, c, start, len;
    uint64_t h, w[2];
    for (i = 0; i < n; i++) {
        if (off64) {
            start = off64[i];
            len = off64[i + 1] - start;
        } else {
            start = off32[i];
            len = (int64_t)off32[i + 1] - start;
        }
        if (len <= 16) {
            fm_short_words(data + start, len, data_len - start, w);
            h = fm_mix64((w[0] * 0xff51afd7ed558ccdULL) ^ (w[1] * 0xc4ceb9fe1a85ec53ULL)
                         ^ (uint64_t)len);
        } else {
            h = fm_hash_bytes(data + start, len);
        }
        FM_HTAB_CODE(t, h, i, c, fm_var_equal(data, data_len, off64, off32, t->first[c],
                                              start, len, w));
        fm_put_code(codes32, codes64, i, c);
    }
    return 0;
}

#endif
