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
 * hashes agree. In front of it a direct-mapped cache (fm_dmap) answers most lookups with
 * one load and one comparison. Counts and indices are 64-bit.
 *
 * The same for variable-length strings: arrow's offset/data layout (fm_encode_var) and
 * arrow's string views (fm_encode_views, polars' strings), read in place.
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
        if (n >= 8) {  /* the last 8 bytes, shifted past those hashed above: a plain load */
            memcpy(&w, p + n - 8, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            w <<= 8 * (i + 8 - n);
#else
            w >>= 8 * (i + 8 - n);
#endif
        } else {
            w = 0;
            memcpy(&w, p + i, (size_t)(n - i));
        }
        h ^= (w ^ 0xc4ceb9fe1a85ec53ULL) * 0xff51afd7ed558ccdULL;
    }
    return fm_mix64(h);
}

/* Whether ``n`` >= 8 bytes at ``a`` and ``b`` are equal, word by word (the last word
 * overlapping the one before): no call for the short labels this compares. */
static inline int fm_equal8(const char *a, const char *b, int64_t n)
{
    uint64_t x, y, d = 0;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        d |= x ^ y;
    }
    if (i < n) {
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        d |= x ^ y;
    }
    return d == 0;
}

/* Make room for item ``n`` in the array ``arr`` of ``cap`` items of ``type`` (doubling it
 * when full); runs ``FAIL`` when out of memory. */
#define FM_RESERVE(arr, cap, n, type, FAIL)                                        \
    do {                                                                           \
        if ((n) >= (cap)) {                                                        \
            type *r_ = (type *)realloc((arr), (size_t)(2 * (cap)) * sizeof(type)); \
            if (!r_)                                                               \
                FAIL;                                                              \
            (arr) = r_;                                                            \
            (cap) *= 2;                                                            \
        }                                                                          \
    } while (0)

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
    FM_RESERVE(t->first, t->first_cap, c, int64_t, return -1);
    t->first[c] = index;
    t->code[s] = c;
    t->hash[s] = h;
    t->k = c + 1;
    if (2 * t->k > t->cap && fm_htab_grow(t) < 0)
        return -1;
    return c;
}

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

/* A direct-mapped cache in front of the table: slot ``h >> shift`` holds the code of one
 * value of that hash (or -1). Looking a value up costs one load and one comparison with a
 * branch that is predicted right once the labels are known -- no probe sequence, whose
 * length varies from label to label and mispredicts on shuffled labels. A value whose slot
 * another value holds takes the table's path; the cache doubles (up to FM_DMAP_MAX_BITS)
 * until the values seen so far have a slot each, so with few labels every lookup hits. */
#define FM_DMAP_MIN_BITS 6
#define FM_DMAP_MAX_BITS 12

typedef struct {
    int64_t *slot;
    int bits;
    int full;          /* the cache cannot grow further */
    uint64_t *khash;   /* per code: its hash */
    int64_t kcap;
} fm_dmap;

static inline int fm_dmap_init(fm_dmap *m)
{
    int64_t i;
    m->bits = FM_DMAP_MIN_BITS;
    m->full = 0;
    m->kcap = 64;
    m->slot = (int64_t *)malloc(((size_t)1 << FM_DMAP_MAX_BITS) * sizeof(int64_t));
    m->khash = (uint64_t *)malloc((size_t)m->kcap * sizeof(uint64_t));
    if (!m->slot || !m->khash)
        return -1;
    for (i = 0; i < ((int64_t)1 << m->bits); i++)
        m->slot[i] = -1;
    return 0;
}

static inline void fm_dmap_free(fm_dmap *m)
{
    free(m->slot);
    free(m->khash);
    m->slot = NULL;
    m->khash = NULL;
}

/* Record code ``c`` (hash ``h``, the next code: c == number recorded so far) and give it a
 * slot, growing the cache while two codes share one. Returns -1 when out of memory. */
static __attribute__((unused, noinline)) int
fm_dmap_put(fm_dmap *m, int64_t c, uint64_t h)
{
    int64_t j, s, size;
    int clash;
    FM_RESERVE(m->khash, m->kcap, c, uint64_t, return -1);
    m->khash[c] = h;
    s = (int64_t)(h >> (64 - m->bits));
    if (m->slot[s] < 0) {
        m->slot[s] = c;
        return 0;
    }
    if (m->full)
        return 0;
    for (;;) {  /* a clash: double the slots and place every code again */
        if (m->bits == FM_DMAP_MAX_BITS) {
            m->full = 1;
            return 0;
        }
        m->bits++;
        size = (int64_t)1 << m->bits;
        for (j = 0; j < size; j++)
            m->slot[j] = -1;
        clash = 0;
        for (j = 0; j <= c; j++) {
            s = (int64_t)(m->khash[j] >> (64 - m->bits));
            if (m->slot[s] < 0)
                m->slot[s] = j;
            else
                clash = 1;
        }
        if (!clash)
            return 0;
    }
}

/* The code of the fixed-width item at ``p`` (hash ``h``) in the table ``t``, or -1 when it
 * is new. ``keys`` holds a copy of each code's bytes, ``itemsize`` apart. */
static inline int64_t fm_fixed_probe(const fm_htab *t, const char *keys, const char *p,
                                     uint64_t h, int64_t itemsize)
{
    int64_t mask = t->cap - 1, s = (int64_t)(h & (uint64_t)mask), c;
    for (;;) {
        c = t->code[s];
        if (c < 0)
            return -1;
        if (t->hash[s] == h && memcmp(keys + c * itemsize, p, (size_t)itemsize) == 0)
            return c;
        s = (s + 1) & mask;
    }
}

/* The slow path of item ``i`` at ``p``: its code from the table, a new one (its bytes
 * copied into ``*keys``) when it is new. Returns -1 when out of memory. */
static __attribute__((unused, noinline)) int64_t
fm_fixed_slow(fm_htab *t, fm_dmap *m, char **keys, int64_t *keys_cap, const char *p,
              uint64_t h, int64_t i, int64_t itemsize)
{
    int64_t c = fm_fixed_probe(t, *keys, p, h, itemsize), s;
    if (c >= 0)
        return c;
    if (t->k == *keys_cap) {
        char *k2 = (char *)realloc(*keys, (size_t)(2 * *keys_cap * itemsize));
        if (!k2)
            return -1;
        *keys = k2;
        *keys_cap *= 2;
    }
    memcpy(*keys + t->k * itemsize, p, (size_t)itemsize);
    s = (int64_t)(h & (uint64_t)(t->cap - 1));
    while (t->code[s] >= 0)
        s = (s + 1) & (t->cap - 1);
    c = fm_htab_add(t, s, h, i);
    if (c < 0 || fm_dmap_put(m, c, h) < 0)
        return -1;
    return c;
}

/* The encoding loop; inlined with a constant ``itemsize`` for the common widths, so the
 * hash and the comparisons unroll. Every item is looked up in the direct-mapped cache
 * first (fm_dmap), whose slots and key copies the loop holds in locals: the loop writes
 * codes through a pointer, and without strict aliasing the compiler would reload every
 * field behind a pointer after each write.
 *
 * Labels in real files come in runs (sorted or grouped rows): an item with the bytes of
 * the item before takes its code, without a hash or a lookup. That test costs a
 * mispredicted branch per change of label, a loss on shuffled labels, so it runs only in
 * blocks that follow a block where at least 3 items in 4 repeated the code before them
 * (counted without a branch while hashing). The codes are the same either way. */
static inline __attribute__((always_inline)) int fm_encode_fixed_w(
    const char *data, int64_t n, int64_t stride, int64_t itemsize, int32_t *codes32,
    int64_t *codes64, fm_htab *t)
{
    int64_t i, c = -1, last = -1, hits, b, end, keys_cap = 64;
    int runs = 0, shift, rc = -1;
    uint64_t h;
    const char *p;
    const int64_t *slot;
    fm_dmap m;
    char *keys = (char *)malloc((size_t)(keys_cap * itemsize) + 1);
    const char *kl = keys;  /* a local copy: ``keys`` itself has its address taken */
    if (fm_dmap_init(&m) < 0 || !keys)
        goto done;
    slot = m.slot;
    shift = 64 - m.bits;
#define FM_FIXED_CODE                                                                 \
    do {                                                                              \
        h = fm_hash_fixed(p, itemsize);                                               \
        c = slot[h >> shift];                                                         \
        if (c < 0 || memcmp(kl + c * itemsize, p, (size_t)itemsize) != 0) {           \
            c = fm_fixed_slow(t, &m, &keys, &keys_cap, p, h, i, itemsize);            \
            if (c < 0)                                                                \
                goto done;                                                            \
            shift = 64 - m.bits;                                                      \
            kl = keys;                                                                \
        }                                                                             \
    } while (0)
    for (b = 0; b < n; b = end) {
        end = n - b > FM_RUN_BLOCK ? b + FM_RUN_BLOCK : n;
        hits = 0;
        if (runs) {
            for (i = b; i < end; i++) {
                p = data + i * stride;
                if (memcmp(p, p - stride, (size_t)itemsize) == 0)
                    hits++;  /* c still holds item i - 1's code (i > 0 in a later block) */
                else
                    FM_FIXED_CODE;
                if (codes32)
                    codes32[i] = (int32_t)c;
                else
                    codes64[i] = c;
            }
        } else {
            for (i = b; i < end; i++) {
                p = data + i * stride;
                FM_FIXED_CODE;
                if (codes32)
                    codes32[i] = (int32_t)c;
                else
                    codes64[i] = c;
                hits += c == last;
                last = c;
            }
        }
        last = c;
        runs = 4 * hits >= 3 * (end - b);
    }
#undef FM_FIXED_CODE
    rc = 0;
done:
    free(keys);
    fm_dmap_free(&m);
    return rc;
}

/* Encode n fixed-width items (see the top of this file) into codes (int32 when ``codes32``
 * is given, else int64 ``codes64``). Returns 0, or -1 when out of memory. */
static __attribute__((unused)) int
fm_encode_fixed(const char *data, int64_t n, int64_t stride, int64_t itemsize,
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

/* Masks keeping the first l bytes of a little-endian word pair, l = 0 .. 16: a load, not
 * a branch on the length (labels of mixed lengths would mispredict it). */
static const uint64_t fm_keep[17][2] = {
    {0, 0}, {0xffULL, 0}, {0xffffULL, 0}, {0xffffffULL, 0}, {0xffffffffULL, 0},
    {0xffffffffffULL, 0}, {0xffffffffffffULL, 0}, {0xffffffffffffffULL, 0}, {~0ULL, 0},
    {~0ULL, 0xffULL}, {~0ULL, 0xffffULL}, {~0ULL, 0xffffffULL}, {~0ULL, 0xffffffffULL},
    {~0ULL, 0xffffffffffULL}, {~0ULL, 0xffffffffffffULL}, {~0ULL, 0xffffffffffffffULL},
    {~0ULL, ~0ULL}};

/* Keep the first ``len`` (<= 16) bytes of the words ``w`` loaded from a string, zero the
 * rest. */
static inline void fm_keep_bytes(uint64_t *w, int64_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    int64_t l0 = len < 8 ? len : 8, l1 = len < 8 ? 0 : len - 8;
    w[0] &= l0 ? ~0ULL << (64 - 8 * l0) : 0;
    w[1] &= l1 ? ~0ULL << (64 - 8 * l1) : 0;
#else
    w[0] &= fm_keep[len][0];
    w[1] &= fm_keep[len][1];
#endif
}

/* The bytes of a short item (``len`` <= 16) as two zero-padded words: two plain loads
 * when 16 bytes can be read from ``p`` inside the buffer, else a copy. */
static inline void fm_short_words(const char *p, int64_t len, int64_t room, uint64_t *w)
{
    if (room >= 16) {
        memcpy(w, p, 16);
        fm_keep_bytes(w, len);
    } else {
        w[0] = w[1] = 0;
        memcpy(w, p, (size_t)len);
    }
}

/* A variable-length item as the encoders below compare it: ``len`` bytes at ``p``; a
 * short one (``len`` <= 16; <= 12 for string views, whose short strings sit in the view)
 * also as two zero-padded words ``w0``, ``w1``, which are compared instead of the bytes
 * (zero for a long one: a short and a long item differ in length anyway). */
typedef struct {
    uint64_t w0, w1;
    const char *p;
    int64_t len;
    int64_t cmp;  /* bytes to compare at p: 0 for a short item, len (> 8) for a long one */
} fm_vkey;

static inline uint64_t fm_hash_short(uint64_t w0, uint64_t w1, int64_t len)
{
    uint64_t x = w0 * 0xff51afd7ed558ccdULL + w1 * 0xc4ceb9fe1a85ec53ULL + (uint64_t)len;
    x ^= x >> 32;
    x *= 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 29);
}

static inline int fm_vkey_equal(const fm_vkey *k, const fm_vkey *x)
{
    return k->len == x->len && k->w0 == x->w0 && k->w1 == x->w1
        && (x->cmp == 0 || k->p == x->p || fm_equal8(k->p, x->p, x->cmp));
}

/* The key store of the variable-length encoders: the table, its cache and a copy of each
 * code's key. */
typedef struct {
    fm_htab *t;
    fm_dmap m;
    fm_vkey *keys;
    int64_t keys_cap;
} fm_vstore;

static inline int fm_vstore_init(fm_vstore *v, fm_htab *t)
{
    v->t = t;
    v->keys_cap = 64;
    v->keys = (fm_vkey *)malloc((size_t)v->keys_cap * sizeof(fm_vkey));
    if (fm_dmap_init(&v->m) < 0 || !v->keys)
        return -1;
    return 0;
}

static inline void fm_vstore_free(fm_vstore *v)
{
    free(v->keys);
    v->keys = NULL;
    fm_dmap_free(&v->m);
}

/* Start a store on table ``t`` and hand the encoding loop its fields as locals (see
 * FM_VSTORE_CODE). Returns -1 when out of memory (nothing left to free). */
static inline int fm_vstore_start(fm_vstore *v, fm_htab *t, const fm_vkey **keys,
                                  const int64_t **slot, int *shift)
{
    if (fm_vstore_init(v, t) < 0) {
        fm_vstore_free(v);
        return -1;
    }
    *keys = v->keys;
    *slot = v->m.slot;
    *shift = 64 - v->m.bits;
    return 0;
}

/* Make ``x`` the key of the long item of ``len`` bytes at ``p``; returns its hash. */
static inline uint64_t fm_vkey_long(fm_vkey *x, const char *p, int64_t len)
{
    x->p = p;
    x->len = len;
    x->w0 = x->w1 = 0;
    x->cmp = len;
    return fm_hash_bytes(p, len);
}

/* The slow path of item ``i`` (key ``x``, hash ``h``): its code from the table, or a new
 * one. Returns -1 when out of memory. */
static __attribute__((unused, noinline)) int64_t
fm_vstore_slow(fm_vstore *v, const fm_vkey *x, uint64_t h, int64_t i)
{
    fm_htab *t = v->t;
    int64_t mask = t->cap - 1, s = (int64_t)(h & (uint64_t)mask), c;
    for (;;) {
        c = t->code[s];
        if (c < 0)
            break;
        if (t->hash[s] == h && fm_vkey_equal(&v->keys[c], x))
            return c;
        s = (s + 1) & mask;
    }
    FM_RESERVE(v->keys, v->keys_cap, t->k, fm_vkey, return -1);
    v->keys[t->k] = *x;
    c = fm_htab_add(t, s, h, i);
    if (c < 0 || fm_dmap_put(&v->m, c, h) < 0)
        return -1;
    return c;
}

/* The code of item ``i``: the cache's code when its key equals ``x`` (one predicted
 * branch), else the slow path. Returns -1 from the enclosing function when out of memory;
 * ``KEYS``, ``SLOT`` and ``SHIFT`` are the caller's locals of the store's fields (see
 * fm_encode_fixed_w on why locals), refreshed after a slow path. */
#define FM_VSTORE_CODE(v, x, h, i, c, KEYS, SLOT, SHIFT)                              \
    do {                                                                              \
        (c) = (SLOT)[(h) >> (SHIFT)];                                                 \
        if ((c) < 0 || !fm_vkey_equal(&(KEYS)[(c)], &(x))) {                          \
            (c) = fm_vstore_slow((v), &(x), (h), (i));                                \
            if ((c) < 0) {                                                            \
                fm_vstore_free(v);                                                    \
                return -1;                                                            \
            }                                                                         \
            KEYS = (v)->keys;                                                         \
            SLOT = (v)->m.slot;                                                       \
            SHIFT = 64 - (v)->m.bits;                                                 \
        }                                                                             \
    } while (0)

/* The code of a short item (zero-padded words ``w0``, ``w1`` of its ``len`` <= 16 bytes,
 * hash ``h``) when the cache holds it, compared in registers; -1 otherwise (the caller then
 * builds its key and takes FM_VSTORE_CODE's path). */
static inline int64_t fm_short_hit(const fm_vkey *keys, const int64_t *slot, int shift,
                                   uint64_t h, uint64_t w0, uint64_t w1, int64_t len)
{
    int64_t c = slot[h >> shift];
    if (c >= 0 && keys[c].len == len && keys[c].w0 == w0 && keys[c].w1 == w1)
        return c;
    return -1;
}

/* The key of the variable-length item of ``len`` bytes at ``data + start`` (``data_len``
 * bytes of data) in ``x``; returns its hash. */
static inline uint64_t fm_var_key(const char *data, int64_t data_len, int64_t start,
                                  int64_t len, fm_vkey *x)
{
    uint64_t w[2];
    x->p = data + start;
    if (len > 16)
        return fm_vkey_long(x, x->p, len);
    fm_short_words(x->p, len, data_len - start, w);
    x->w0 = w[0];
    x->w1 = w[1];
    x->len = len;
    x->cmp = 0;
    return fm_hash_short(x->w0, x->w1, len);
}

/* Encode n variable-length items (arrow strings: item i is the bytes
 * ``data[off[i] .. off[i + 1])`` of ``data_len`` bytes, offsets int64 ``off64`` or int32
 * ``off32``) the same way. Items of up to 16 bytes (most labels) are read as two words,
 * hashed and compared in registers. Offsets that decrease, fall below 0 or pass the data's
 * end are found here. Returns 0, -1 when out of memory, or -2 for such offsets. */
static __attribute__((unused)) int
fm_encode_var(const char *data, int64_t data_len, const int64_t *off64,
              const int32_t *off32, int64_t n, int32_t *codes32, int64_t *codes64,
              fm_htab *t)
{
    int64_t i, c, start, end, len;
    uint64_t h, w0, w1, w[2];
    const char *p;
    fm_vkey x;
    fm_vstore v;
    const fm_vkey *keys;
    const int64_t *slot;
    int shift;
    if (fm_vstore_start(&v, t, &keys, &slot, &shift) < 0)
        return -1;
    start = n > 0 ? (off64 ? off64[0] : (int64_t)off32[0]) : 0;
    if (start < 0) {
        fm_vstore_free(&v);
        return -2;
    }
    for (i = 0; i < n; i++, start = end) {
        end = off64 ? off64[i + 1] : (int64_t)off32[i + 1];
        /* offsets that decrease (the caller's error); an item is then also checked to end
         * inside the data, which the first and last offsets alone no longer ensure; both
         * compared before the subtraction, which a huge negative offset would overflow */
        if (end < start || end > data_len) {
            fm_vstore_free(&v);
            return -2;
        }
        len = end - start;
        p = data + start;
        if (len <= 16 && data_len - start >= 16) {
            memcpy(w, p, 16);
            fm_keep_bytes(w, len);
            w0 = w[0];
            w1 = w[1];
            h = fm_hash_short(w0, w1, len);
            c = fm_short_hit(keys, slot, shift, h, w0, w1, len);
            if (c >= 0) {
                fm_put_code(codes32, codes64, i, c);
                continue;
            }
            x.w0 = w0;
            x.w1 = w1;
            x.p = p;
            x.len = len;
            x.cmp = 0;
        } else {  /* a short item near the data's end (copied), or a long one */
            h = fm_var_key(data, data_len, start, len, &x);
        }
        FM_VSTORE_CODE(&v, x, h, i, c, keys, slot, shift);
        fm_put_code(codes32, codes64, i, c);
    }
    fm_vstore_free(&v);
    return 0;
}

/* The key of arrow string view ``i`` (16 bytes at ``views + 16 * i``) in ``x`` and its
 * hash in ``*h``: a view holds the string's int32 length, then, for up to 12 bytes, the
 * string itself (zero-padded); for longer strings its first 4 bytes, the int32 index of
 * its data buffer (``bufs[idx]``, ``buf_len[idx]`` bytes, ``nbufs`` of them) and its int32
 * offset there. Short strings are hashed and compared from the view alone, without reading
 * a data buffer. Returns 0, or -1 when the view points outside its buffers. */
static inline int fm_view_key(const char *views, int64_t i, const char *const *bufs,
                              const int64_t *buf_len, int64_t nbufs, fm_vkey *x, uint64_t *h)
{
    int32_t len, idx, off;
    uint64_t w0, w1;
    uint32_t tail;
    const char *vw = views + 16 * i;
    memcpy(&len, vw, 4);
    x->len = len;
    if (len <= 12) {
        if (len < 0)
            return -1;
        memcpy(&w0, vw + 4, 8);
        memcpy(&tail, vw + 12, 4);
        w1 = tail;
        /* only the string's bytes count, whatever the padding holds */
        {
            int64_t l0 = len < 8 ? len : 8, l1 = len < 8 ? 0 : len - 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            w0 &= l0 ? ~0ULL << (64 - 8 * l0) : 0;
            w1 = l1 ? (w1 << 32) & (~0ULL << (64 - 8 * l1)) : 0;
#else
            w0 &= fm_keep[l0][0];
            w1 &= fm_keep[l1][0];
#endif
        }
        x->w0 = w0;
        x->w1 = w1;
        x->p = vw + 4;
        x->cmp = 0;
        *h = fm_hash_short(w0, w1, len);
        return 0;
    }
    memcpy(&idx, vw + 8, 4);
    memcpy(&off, vw + 12, 4);
    if (idx < 0 || idx >= nbufs || off < 0 || (int64_t)off + len > buf_len[idx])
        return -1;
    *h = fm_vkey_long(x, bufs[idx] + off, len);
    return 0;
}

/* Encode n arrow string VIEWS (``views`` ``n * 16`` bytes; see fm_view_key) the same way.
 * Returns 0, -1 when out of memory, or -2 when a view points outside its buffers (``*bad``
 * is then its index). */
static __attribute__((unused)) int
fm_encode_views(const char *views, int64_t n, const char *const *bufs,
                const int64_t *buf_len, int64_t nbufs, int32_t *codes32, int64_t *codes64,
                fm_htab *t, int64_t *bad)
{
    int64_t i, c;
    uint64_t h;
    fm_vkey x;
    fm_vstore v;
    const fm_vkey *keys;
    const int64_t *slot;
    int shift;
    if (fm_vstore_start(&v, t, &keys, &slot, &shift) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (fm_view_key(views, i, bufs, buf_len, nbufs, &x, &h) < 0) {
            *bad = i;
            fm_vstore_free(&v);
            return -2;
        }
        FM_VSTORE_CODE(&v, x, h, i, c, keys, slot, shift);
        fm_put_code(codes32, codes64, i, c);
    }
    fm_vstore_free(&v);
    return 0;
}

#endif
