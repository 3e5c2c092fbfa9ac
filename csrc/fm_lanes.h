/* The label encoders of fm_hash.h and fm_pystr.h run by lanes: the items are split into
 * contiguous blocks, each encoded with its own table by its own OpenMP thread; the later
 * lanes' K-entry tables are then folded into the first in order and their codes renamed.
 * The codes are those of one lane, for any number of lanes.
 *
 * A source (fm_src) says where the items are: fixed-width items, arrow offsets and data,
 * arrow string views, or Python ``str`` objects (the caller then holds the GIL, which the
 * threads never touch: they only read the objects, which the array keeps alive).
 */
#ifndef FM_LANES_H
#define FM_LANES_H

#include "fm_pystr.h"  /* Python.h first */
#include "fm_hash.h"

enum { FM_SRC_FIXED, FM_SRC_OFFSETS, FM_SRC_VIEWS, FM_SRC_OBJECTS };

typedef struct {
    int kind;
    const char *data;       /* fixed: the items; offsets: the data; views: the views;
                               objects: the pointers */
    int64_t stride;         /* fixed, objects: bytes between items */
    int64_t itemsize;       /* fixed */
    int64_t data_len;       /* offsets: bytes of data */
    const int64_t *off64;   /* offsets: n + 1 of them, one of the two */
    const int32_t *off32;
    const char *const *bufs;  /* views: the data buffers */
    const int64_t *buf_len;
    int64_t nbufs;
} fm_src;

/* Encode items [lo, hi) of ``s`` into codes (from index lo of codes32 or codes64) and table
 * ``t``, whose first indices then count from lo. Returns the encoder's 0, -1 (out of
 * memory) or -2 (a bad item, ``*bad`` its index counted from lo: offsets that decrease, a
 * view outside its buffers, an object that is not a str). */
static int fm_src_encode(const fm_src *s, int64_t lo, int64_t hi, int32_t *codes32,
                         int64_t *codes64, fm_htab *t, int64_t *bad)
{
    int32_t *c32 = codes32 ? codes32 + lo : NULL;
    int64_t *c64 = codes64 ? codes64 + lo : NULL;
    int rc;
    *bad = 0;
    switch (s->kind) {
    case FM_SRC_FIXED:
        return fm_encode_fixed(s->data + lo * s->stride, hi - lo, s->stride, s->itemsize,
                               c32, c64, t);
    case FM_SRC_OFFSETS:
        rc = fm_encode_var(s->data, s->data_len, s->off64 ? s->off64 + lo : NULL,
                           s->off32 ? s->off32 + lo : NULL, hi - lo, c32, c64, t);
        return rc;  /* -2: the first bad offset is not located; the message needs none */
    case FM_SRC_VIEWS:
        return fm_encode_views(s->data + 16 * lo, hi - lo, s->bufs, s->buf_len, s->nbufs,
                               c32, c64, t, bad);
    default:
        return fm_encode_str_objects(s->data + lo * s->stride, hi - lo, s->stride, c32,
                                     c64, t, bad);
    }
}

/* The key and hash of item ``i`` of a variable-length source, as its encoder makes them
 * (offsets, views, objects; the item was read by the encoder, so it is valid). */
static uint64_t fm_src_key(const fm_src *s, int64_t i, fm_vkey *x)
{
    uint64_t h = 0;
    int64_t start, len;
    PyObject *o;
    switch (s->kind) {
    case FM_SRC_OFFSETS:
        start = s->off64 ? s->off64[i] : (int64_t)s->off32[i];
        len = (s->off64 ? s->off64[i + 1] : (int64_t)s->off32[i + 1]) - start;
        return fm_var_key(s->data, s->data_len, start, len, x);
    case FM_SRC_VIEWS:
        fm_view_key(s->data, i, s->bufs, s->buf_len, s->nbufs, x, &h);
        return h;
    default:
        o = *(PyObject *const *)(s->data + i * s->stride);
        if (!fm_str_key_ascii(o, x, &h))
            h = fm_str_key(o, x);
        return h;
    }
}

/* Whether items ``a`` and ``b`` of ``s`` hold the same value (``x``: item b's key, made by
 * fm_src_key; unused for fixed-width items, compared by their bytes). */
static int fm_src_same(const fm_src *s, int64_t a, int64_t b, const fm_vkey *x)
{
    fm_vkey y;
    if (s->kind == FM_SRC_FIXED)
        return memcmp(s->data + a * s->stride, s->data + b * s->stride,
                      (size_t)s->itemsize) == 0;
    (void)b;
    fm_src_key(s, a, &y);
    return fm_vkey_equal(&y, x);
}

/* Fold the table ``u`` of the lane that starts at item ``lo`` into the table ``t`` of the
 * lanes before it: ``remap[j]`` becomes the code in ``t`` of the lane's code j, a new code
 * (first seen at ``lo + u->first[j]``) when no earlier lane held its value. The lanes
 * before hold every earlier item, so codes stay in order of first occurrence: the result
 * is the one-lane result. Returns the number of codes j with remap[j] != j (0: the lane's
 * codes stand as they are), or -1 when out of memory. */
static int64_t fm_src_merge(const fm_src *s, fm_htab *t, const fm_htab *u, int64_t lo,
                            int64_t *remap)
{
    int64_t j, c, slot, f, moved = 0, mask;
    uint64_t h;
    fm_vkey x;
    for (j = 0; j < u->k; j++) {
        f = lo + u->first[j];
        h = s->kind == FM_SRC_FIXED ? fm_hash_fixed(s->data + f * s->stride, s->itemsize)
                                    : fm_src_key(s, f, &x);
        mask = t->cap - 1;
        slot = (int64_t)(h & (uint64_t)mask);
        for (;;) {
            c = t->code[slot];
            if (c < 0) {
                c = fm_htab_add(t, slot, h, f);
                if (c < 0)
                    return -1;
                break;
            }
            if (t->hash[slot] == h && fm_src_same(s, t->first[c], f, &x))
                break;
            slot = (slot + 1) & mask;
        }
        remap[j] = c;
        moved += c != j;
    }
    return moved;
}

/* Encode the n items of ``s`` by ``lanes`` lanes (at least 1) into codes and the table
 * ``t`` (initialised by the caller; it receives the result's table). Returns 0, -1 when
 * out of memory, or -2 for a bad item: ``*bad`` is then the first bad item's index. */
static __attribute__((unused)) int
fm_encode_lanes(const fm_src *s, int64_t n, int64_t lanes, int32_t *codes32,
                int64_t *codes64, fm_htab *t, int64_t *bad)
{
    int64_t j, span, *bads = NULL, *remap = NULL, *r, moved, lo, hi, i;
    int *rcs = NULL, rc = 0;
    fm_htab *tabs = NULL;
    if (lanes <= 1 || n < 2)
        return fm_src_encode(s, 0, n, codes32, codes64, t, bad);
    span = (n + lanes - 1) / lanes;
    lanes = (n + span - 1) / span;  /* every lane non-empty */
    tabs = (fm_htab *)calloc((size_t)lanes, sizeof(fm_htab));
    bads = (int64_t *)calloc((size_t)lanes, sizeof(int64_t));
    rcs = (int *)calloc((size_t)lanes, sizeof(int));
    if (tabs)
        tabs[0] = *t;  /* lane 0 encodes into the caller's table (done: hands it back) */
    if (!tabs || !bads || !rcs) {
        rc = -1;
        goto done;
    }
    for (j = 1; j < lanes; j++)
        if (fm_htab_init(&tabs[j], 64) < 0)
            rc = -1;
    if (rc < 0)
        goto done;
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)lanes) schedule(static, 1)
#endif
    for (j = 0; j < lanes; j++) {
        int64_t a = j * span, b = a + span < n ? a + span : n;
        rcs[j] = fm_src_encode(s, a, b, codes32, codes64, &tabs[j], &bads[j]);
    }
    for (j = 0; j < lanes; j++) {  /* the first lane in order that failed says why */
        if (rcs[j] < 0) {
            rc = rcs[j];
            *bad = j * span + bads[j];
            goto done;
        }
    }
    for (j = 1; j < lanes; j++) {
        r = (int64_t *)realloc(remap, (size_t)(tabs[j].k > 0 ? tabs[j].k : 1) * sizeof(int64_t));
        if (!r) {
            rc = -1;
            goto done;
        }
        remap = r;
        lo = j * span;
        hi = lo + span < n ? lo + span : n;
        moved = fm_src_merge(s, &tabs[0], &tabs[j], lo, remap);
        if (moved < 0) {
            rc = -1;
            goto done;
        }
        if (moved) {
            if (codes32) {
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)lanes) schedule(static)
#endif
                for (i = lo; i < hi; i++)
                    codes32[i] = (int32_t)remap[codes32[i]];
            } else {
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)lanes) schedule(static)
#endif
                for (i = lo; i < hi; i++)
                    codes64[i] = remap[codes64[i]];
            }
        }
    }
done:
    if (tabs) {
        *t = tabs[0];
        for (j = 1; j < lanes; j++)
            fm_htab_free(&tabs[j]);
    }
    free(tabs);
    free(bads);
    free(rcs);
    free(remap);
    return rc;
}

#endif
