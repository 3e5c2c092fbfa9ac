/* First-seen hash encoding of Python ``str`` objects (an object array's items), with the
 * key store of fm_hash.h. The GIL is held by the caller: the items are Python objects.
 *
 * A text's key depends on its characters only, never on how CPython holds it: its byte
 * count and kind (1, 2 or 4 bytes a character; CPython keeps every str in its narrowest
 * kind, so equal texts have equal kinds), and its bytes -- up to 16 of them as two
 * zero-padded words, compared without a call, longer ones by a byte comparison. The str's
 * own cached hash is not used: a str made by a parser or by numpy's ``astype(object)`` has
 * none yet, and computing it (SipHash) cost more than the rest of the lookup.
 *
 * In front of the content lookup, objects met before are found by their address (a
 * direct-mapped cache of 256 addresses): the same object -- a category, a repeated
 * literal, a string pandas' parser shares between rows -- is not read again. The array
 * holds a reference to every item, so an address seen earlier in the call is still the
 * same object.
 */
#ifndef FM_PYSTR_H
#define FM_PYSTR_H

#include <Python.h>

#include "fm_hash.h"

/* The length field of a key: the text's byte count and kind, so texts of different kinds
 * with equal bytes differ. */
static inline int64_t fm_str_tag(int64_t nbytes, int kind)
{
    return nbytes * 4 + kind;
}

/* Whether the str ``o`` holds its characters in its canonical form. Before 3.12 a str made
 * by the legacy Py_UNICODE API is not "ready" until something asks for its data, and its
 * kind reads 0; making it ready allocates, which the lanes' threads must not do, so such an
 * item is left to the caller's general path. */
static inline int fm_str_ready(PyObject *o)
{
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_IS_READY(o);
#else
    (void)o;
    return 1;
#endif
}

/* Make ``x`` the key of the str ``o`` (any kind; compact or not, so a subclass's too) and
 * return its hash. */
static __attribute__((unused, noinline)) uint64_t fm_str_key(PyObject *o, fm_vkey *x)
{
    int kind = (int)PyUnicode_KIND(o);
    int64_t nbytes = (int64_t)PyUnicode_GET_LENGTH(o) * kind;
    const char *p = (const char *)PyUnicode_DATA(o);
    uint64_t w[2] = {0, 0};
    x->p = p;
    x->len = fm_str_tag(nbytes, kind);
    if (nbytes <= 16) {
        memcpy(w, p, (size_t)nbytes);
        x->w0 = w[0];
        x->w1 = w[1];
        x->cmp = 0;
        return fm_hash_short(x->w0, x->w1, x->len);
    }
    x->w0 = x->w1 = 0;
    x->cmp = nbytes;
    return fm_hash_bytes(p, nbytes) ^ ((uint64_t)x->len * 0x9E3779B97F4A7C15ULL);
}

/* The key of an exact ``str`` held compactly as ASCII with up to 15 characters (most
 * labels), as fm_str_key would make it, in ``x``; returns 0 (``x`` untouched) for any
 * other object. Branch-free over the length: labels of mixed lengths would mispredict a
 * branch on it. The 16 bytes that end at the text's terminating zero are read in one go:
 * they start in the object's header, which is at least 40 bytes long and ends where the
 * text starts, so the read stays inside the object; shifted right by the header bytes
 * they hold, they are the text zero-padded. */
static inline int fm_str_key_ascii(PyObject *o, fm_vkey *x, uint64_t *h)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    Py_ssize_t n;
    const char *d;
    uint64_t lo, hi, lo_s, hi_s;
    unsigned sh, a;
    if (!Py_IS_TYPE(o, &PyUnicode_Type) || !PyUnicode_IS_COMPACT_ASCII(o))
        return 0;
    n = ((PyASCIIObject *)o)->length;
    if (n > 15)
        return 0;
    d = (const char *)((PyASCIIObject *)o + 1);
    memcpy(&lo, d + n - 15, 8);
    memcpy(&hi, d + n - 7, 8);
    sh = 8u * (unsigned)(15 - n);  /* 0 .. 120 bits of header to drop */
    a = sh & 63u;
    lo_s = (lo >> a) | ((hi << 1) << (63u - a));  /* no shift by 64 when a == 0 */
    hi_s = hi >> a;
    x->w0 = sh < 64 ? lo_s : hi_s;
    x->w1 = sh < 64 ? hi_s : 0;
    x->p = d;
    x->len = fm_str_tag((int64_t)n, 1);
    x->cmp = 0;
    *h = fm_hash_short(x->w0, x->w1, x->len);
    return 1;
#else
    (void)o;
    (void)x;
    (void)h;
    return 0;
#endif
}

/* Items ahead whose object is prefetched: objects scattered in memory (the items of a
 * shuffled array) were read 3x faster with it, objects laid out in order 5% slower; 8 and
 * 32 items ahead measured slower than 16. The prefetch stops while items are objects met
 * before (found by address, never read), where it cost 8%. */
#define FM_PYSTR_AHEAD 16

/* Encode the n object pointers at ``data`` (``stride`` bytes apart) into first-seen codes
 * (int32 ``codes32`` or int64 ``codes64``) in table ``t``. Returns 0; -1 when out of
 * memory; -2 when an item is not a ``str`` (or is NULL, or a legacy str not ready),
 * ``*bad`` then its index. */
static __attribute__((unused)) int
fm_encode_str_objects(const char *data, int64_t n, int64_t stride, int32_t *codes32,
                      int64_t *codes64, fm_htab *t, int64_t *bad)
{
    int64_t i, c = -1, seen_code[256];
    int ahead = 1;
    uint64_t h, s;
    PyObject *o, *last = NULL, *seen[256];
    fm_vkey x;
    fm_vstore v;
    const fm_vkey *keys;
    const int64_t *slot;
    int shift;
    if (fm_vstore_start(&v, t, &keys, &slot, &shift) < 0)
        return -1;
    memset(seen, 0, sizeof(seen));
    for (i = 0; i < n; i++) {
        o = *(PyObject *const *)(data + i * stride);
        if (ahead && i + FM_PYSTR_AHEAD < n)
            __builtin_prefetch(*(PyObject *const *)(data + (i + FM_PYSTR_AHEAD) * stride));
        if (o == NULL) {  /* before the run test: ``last`` starts as NULL */
            *bad = i;
            fm_vstore_free(&v);
            return -2;
        }
        if (o != last) {  /* a run of one object costs one comparison */
            s = ((uint64_t)(uintptr_t)o >> 4) * 0x9E3779B97F4A7C15ULL >> 56;
            ahead = seen[s] != o;  /* prefetch while objects are new, not when they repeat */
            if (!ahead) {
                c = seen_code[s];
            } else {
                if (!PyUnicode_Check(o) || !fm_str_ready(o)) {
                    *bad = i;
                    fm_vstore_free(&v);
                    return -2;
                }
                if (!fm_str_key_ascii(o, &x, &h))
                    h = fm_str_key(o, &x);
                FM_VSTORE_CODE(&v, x, h, i, c, keys, slot, shift);
                seen[s] = o;
                seen_code[s] = c;
            }
            last = o;
        }
        fm_put_code(codes32, codes64, i, c);
    }
    fm_vstore_free(&v);
    return 0;
}

#endif
