/* Radix select over order-preserving keys: see fm_select.h. */
#include "fm_select.h"
#include "fm_keys.h"

#include <string.h>

#define TOP64 FM_TOP64
#define TOP32 FM_TOP32

/* ---------------------------------------------------------------- keys --------------- */
/* float keys: fm_keys.h (the selection rule) */

#define KEY_INT8(v) ((uint64_t)(uint8_t)((uint8_t)(v) ^ 0x80u))
#define KEY_INT16(v) ((uint64_t)(uint16_t)((uint16_t)(v) ^ 0x8000u))
#define KEY_INT32(v) ((uint64_t)((uint32_t)(v) ^ TOP32))
#define KEY_INT64(v) ((uint64_t)(v) ^ TOP64)
#define KEY_UINT(v) ((uint64_t)(v))
#define KEY_F32(v) fm_sel_key_f32(v)
#define KEY_F64(v) fm_sel_key_f64(v)
#define ISNAN_NO(v) 0
#define ISNAN_YES(v) ((v) != (v))

uint64_t fm_sel_key(fm_dtype dt, const void *p)
{
    switch (dt) {
    case FM_INT8: { int8_t v; memcpy(&v, p, sizeof v); return KEY_INT8(v); }
    case FM_INT16: { int16_t v; memcpy(&v, p, sizeof v); return KEY_INT16(v); }
    case FM_INT32: { int32_t v; memcpy(&v, p, sizeof v); return KEY_INT32(v); }
    case FM_INT64: { int64_t v; memcpy(&v, p, sizeof v); return KEY_INT64(v); }
    case FM_UINT8: { uint8_t v; memcpy(&v, p, sizeof v); return v; }
    case FM_UINT16: { uint16_t v; memcpy(&v, p, sizeof v); return v; }
    case FM_UINT32: { uint32_t v; memcpy(&v, p, sizeof v); return v; }
    case FM_UINT64: { uint64_t v; memcpy(&v, p, sizeof v); return v; }
    case FM_FLOAT32: { float v; memcpy(&v, p, sizeof v); return fm_sel_key_f32(v); }
    case FM_FLOAT64: { double v; memcpy(&v, p, sizeof v); return fm_sel_key_f64(v); }
    }
    return 0;
}

void fm_sel_unkey(fm_dtype dt, uint64_t key, void *p)
{
    switch (dt) {
    case FM_INT8: { uint8_t v = (uint8_t)(key ^ 0x80u); memcpy(p, &v, 1); break; }
    case FM_INT16: { uint16_t v = (uint16_t)(key ^ 0x8000u); memcpy(p, &v, 2); break; }
    case FM_INT32: { uint32_t v = (uint32_t)key ^ TOP32; memcpy(p, &v, 4); break; }
    case FM_INT64: { uint64_t v = key ^ TOP64; memcpy(p, &v, 8); break; }
    case FM_UINT8: { uint8_t v = (uint8_t)key; memcpy(p, &v, 1); break; }
    case FM_UINT16: { uint16_t v = (uint16_t)key; memcpy(p, &v, 2); break; }
    case FM_UINT32: { uint32_t v = (uint32_t)key; memcpy(p, &v, 4); break; }
    case FM_UINT64: memcpy(p, &key, 8); break;
    case FM_FLOAT32: {
        /* the NaN key 0xFFFFFFFF comes back as the quiet NaN 0x7FFFFFFF */
        uint32_t k = (uint32_t)key;
        uint32_t v = (k & TOP32) ? (k ^ TOP32) : ~k;
        memcpy(p, &v, 4);
        break;
    }
    case FM_FLOAT64: {
        uint64_t v = (key & TOP64) ? (key ^ TOP64) : ~key;
        memcpy(p, &v, 8);
        break;
    }
    }
}

/* ---------------------------------------------------------------- nth element -------- */

static void sift_down(uint64_t *a, int64_t root, int64_t n)
{
    uint64_t v = a[root];
    for (;;) {
        int64_t c = 2 * root + 1;
        if (c >= n)
            break;
        if (c + 1 < n && a[c + 1] > a[c])
            c++;
        if (a[c] <= v)
            break;
        a[root] = a[c];
        root = c;
    }
    a[root] = v;
}

static void heap_sort(uint64_t *a, int64_t n)
{
    for (int64_t i = n / 2 - 1; i >= 0; i--)
        sift_down(a, i, n);
    for (int64_t i = n - 1; i > 0; i--) {
        uint64_t t = a[0];
        a[0] = a[i];
        a[i] = t;
        sift_down(a, 0, i);
    }
}

static void insertion_sort(uint64_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        int64_t j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

#define SWAP_U64(x, y)      \
    do {                    \
        uint64_t t_ = (x);  \
        (x) = (y);          \
        (y) = t_;           \
    } while (0)

void fm_sel_nth_u64(uint64_t *a, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    int depth = 8;
    for (int64_t m = n; m > 1; m >>= 1)
        depth += 2;
    while (hi > lo) {
        if (hi - lo < 16) {
            insertion_sort(a + lo, hi - lo + 1);
            return;
        }
        if (depth-- == 0) { /* adversarial pivots: fall back to O(n log n) */
            heap_sort(a + lo, hi - lo + 1);
            return;
        }
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < a[lo])
            SWAP_U64(a[mid], a[lo]);
        if (a[hi] < a[lo])
            SWAP_U64(a[hi], a[lo]);
        if (a[hi] < a[mid])
            SWAP_U64(a[hi], a[mid]);
        uint64_t pivot = a[mid];
        int64_t i = lo, j = hi;
        /* a[lo] <= pivot <= a[hi] stop both scans on the first round; swapped elements
         * stop them afterwards. */
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                SWAP_U64(a[i], a[j]);
                i++;
                j--;
            }
        }
        /* a[lo..j] <= pivot, a[i..hi] >= pivot, a[j+1..i-1] == pivot */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* The ranks[t0..t1) (ascending) of keys a[0..n): a[r] ends up holding each of them. */
static void nth_many(uint64_t *a, int64_t n, const int64_t *ranks, int64_t t0, int64_t t1,
                     int64_t below, uint64_t *keys)
{
    int64_t from = 0; /* a[from..n) holds the keys not yet below an already placed rank */
    for (int64_t t = t0; t < t1; t++) {
        int64_t r = ranks[t] - below;
        fm_sel_nth_u64(a + from, n - from, r - from);
        keys[t] = a[r];
        from = r + 1;
    }
}

/* ---------------------------------------------------------------- passes ------------- */

/* A key interval [lo, lo + 2**w) that holds the wanted ranks ranks[t0..t1). */
typedef struct {
    uint64_t lo;
    int64_t below; /* keys < lo */
    int64_t cnt;   /* keys inside */
    int64_t t0, t1;
    int64_t b0;    /* its bin in the level-0 histogram */
    int w;
    int mode;      /* MODE_* for the current pass */
    int s;         /* histogram shift (MODE_HIST) */
    uint64_t *dst; /* gather position (MODE_GATHER) */
    int64_t *h;    /* bins (MODE_HIST) */
} sel_item;

enum { MODE_WAIT = 0, MODE_GATHER = 1, MODE_HIST = 2 };

#define ITEMS_MAX 256 /* ranks per round: every item holds at least one */

#define LOAD(T, data, stride, i, v) memcpy(&(v), (data) + (ptrdiff_t)(i) * (stride), sizeof(T))

/* One set of pass functions per dtype. */
#define DEFINE_PASSES(NAME, T, KEY, ISNAN)                                                    \
    static int64_t copy_keys_##NAME(const char *data, ptrdiff_t stride, int64_t n,            \
                                    uint64_t *dst)                                            \
    {                                                                                         \
        int64_t nan = 0;                                                                      \
        for (int64_t i = 0; i < n; i++) {                                                     \
            T v;                                                                              \
            LOAD(T, data, stride, i, v);                                                      \
            nan += ISNAN(v);                                                                  \
            dst[i] = KEY(v);                                                                  \
        }                                                                                     \
        return nan;                                                                           \
    }                                                                                         \
    static void minmax_##NAME(const char *data, ptrdiff_t stride, int64_t n, uint64_t *kmin,  \
                              uint64_t *kmax)                                                 \
    {                                                                                         \
        uint64_t mn = UINT64_MAX, mx = 0;                                                     \
        for (int64_t i = 0; i < n; i++) {                                                     \
            T v;                                                                              \
            LOAD(T, data, stride, i, v);                                                      \
            uint64_t k = KEY(v);                                                              \
            mn = k < mn ? k : mn;                                                             \
            mx = k > mx ? k : mx;                                                             \
        }                                                                                     \
        *kmin = mn;                                                                           \
        *kmax = mx;                                                                           \
    }                                                                                         \
    static void hist0_##NAME(const char *data, ptrdiff_t stride, int64_t n, uint64_t lo,      \
                             int s, int64_t *h)                                               \
    {                                                                                         \
        /* two banks: runs of equal keys (sorted or low-cardinality data) do not serialise    \
         * on one counter */                                                                  \
        int64_t *h1 = h + FM_SEL_NBINS;                                                       \
        int64_t i = 0;                                                                        \
        for (; i + 1 < n; i += 2) {                                                           \
            T v0, v1;                                                                         \
            LOAD(T, data, stride, i, v0);                                                     \
            LOAD(T, data, stride, i + 1, v1);                                                 \
            h[(KEY(v0) - lo) >> s]++;                                                         \
            h1[(KEY(v1) - lo) >> s]++;                                                        \
        }                                                                                     \
        if (i < n) {                                                                          \
            T v0;                                                                             \
            LOAD(T, data, stride, i, v0);                                                     \
            h[(KEY(v0) - lo) >> s]++;                                                         \
        }                                                                                     \
        for (int64_t b = 0; b < FM_SEL_NBINS; b++)                                            \
            h[b] += h1[b];                                                                    \
    }                                                                                         \
    static void pass_##NAME(const char *data, ptrdiff_t stride, int64_t n, uint64_t lo0,      \
                            int s0, const uint16_t *tag, sel_item *act, int64_t nact)         \
    {                                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                     \
            T v;                                                                              \
            LOAD(T, data, stride, i, v);                                                      \
            uint64_t k = KEY(v);                                                              \
            uint64_t b = (k - lo0) >> s0;                                                     \
            if (b >= (uint64_t)FM_SEL_NBINS || tag[b] == 0)                                   \
                continue;                                                                     \
            for (int64_t a = tag[b] - 1; a < nact && act[a].b0 == (int64_t)b; a++) {          \
                uint64_t d = k - act[a].lo;                                                   \
                if ((d >> act[a].w) == 0) {                                                   \
                    if (act[a].mode == MODE_GATHER)                                           \
                        *act[a].dst++ = k;                                                    \
                    else                                                                      \
                        act[a].h[d >> act[a].s]++;                                            \
                    break;                                                                    \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }

DEFINE_PASSES(i8, int8_t, KEY_INT8, ISNAN_NO)
DEFINE_PASSES(i16, int16_t, KEY_INT16, ISNAN_NO)
DEFINE_PASSES(i32, int32_t, KEY_INT32, ISNAN_NO)
DEFINE_PASSES(i64, int64_t, KEY_INT64, ISNAN_NO)
DEFINE_PASSES(u8, uint8_t, KEY_UINT, ISNAN_NO)
DEFINE_PASSES(u16, uint16_t, KEY_UINT, ISNAN_NO)
DEFINE_PASSES(u32, uint32_t, KEY_UINT, ISNAN_NO)
DEFINE_PASSES(u64, uint64_t, KEY_UINT, ISNAN_NO)
DEFINE_PASSES(f32, float, KEY_F32, ISNAN_YES)
DEFINE_PASSES(f64, double, KEY_F64, ISNAN_YES)

typedef struct {
    int64_t (*copy_keys)(const char *, ptrdiff_t, int64_t, uint64_t *);
    void (*minmax)(const char *, ptrdiff_t, int64_t, uint64_t *, uint64_t *);
    void (*hist0)(const char *, ptrdiff_t, int64_t, uint64_t, int, int64_t *);
    void (*pass)(const char *, ptrdiff_t, int64_t, uint64_t, int, const uint16_t *, sel_item *,
                 int64_t);
    int bits;  /* key width */
    int isflt;
} pass_table;

#define TABLE(NAME, BITS, FLT) {copy_keys_##NAME, minmax_##NAME, hist0_##NAME, pass_##NAME, BITS, FLT}

static const pass_table TABLES[] = {
    TABLE(i8, 8, 0),  TABLE(i16, 16, 0), TABLE(i32, 32, 0), TABLE(i64, 64, 0),
    TABLE(u8, 8, 0),  TABLE(u16, 16, 0), TABLE(u32, 32, 0), TABLE(u64, 64, 0),
    TABLE(f32, 32, 1), TABLE(f64, 64, 1),
};

/* ---------------------------------------------------------------- driver ------------- */

/* The caller's workspace: FM_SEL_MAX_HIST histograms (the level-0 one, with its second
 * bank in slot 1 while it is filled, stays in slot 0; refinement passes use slots 1..),
 * then the level-0 bin tags and the interval lists. */
typedef struct {
    int64_t hist[FM_SEL_MAX_HIST * FM_SEL_NBINS];
    uint16_t tag[FM_SEL_NBINS];
    sel_item items[2][ITEMS_MAX];
    sel_item act[ITEMS_MAX];
} sel_work;

size_t fm_sel_work_bytes(void) { return sizeof(sel_work); }

/* A new interval, or the answer at once when it holds a single key. */
static int64_t push_item(sel_item *list, int64_t len, uint64_t lo, int w, int64_t below,
                         int64_t cnt, int64_t t0, int64_t t1, int64_t b0, uint64_t *keys)
{
    if (w == 0) {
        for (int64_t t = t0; t < t1; t++)
            keys[t] = lo;
        return len;
    }
    sel_item *it = &list[len];
    it->lo = lo;
    it->w = w;
    it->below = below;
    it->cnt = cnt;
    it->t0 = t0;
    it->t1 = t1;
    it->b0 = b0;
    it->mode = MODE_WAIT;
    return len + 1;
}

/* Split `nb` bins of width 2**s starting at key lo, with `below` keys before them, by the
 * ranks ranks[t0..t1): one child interval per bin holding a wanted rank. */
static int64_t split_bins(const int64_t *h, int64_t nb, uint64_t lo, int s, int64_t below,
                          const int64_t *ranks, int64_t t0, int64_t t1, int64_t b0_fixed,
                          sel_item *list, int64_t len, uint64_t *keys)
{
    int64_t b = 0, cum = below;
    int64_t t = t0;
    while (t < t1) {
        while (b < nb - 1 && cum + h[b] <= ranks[t]) {
            cum += h[b];
            b++;
        }
        int64_t u = t + 1;
        while (u < t1 && ranks[u] < cum + h[b])
            u++;
        len = push_item(list, len, lo + ((uint64_t)b << s), s, cum, h[b], t, u,
                        b0_fixed < 0 ? b : b0_fixed, keys);
        t = u;
    }
    return len;
}

static void select_radix(const pass_table *pt, const char *data, ptrdiff_t stride, int64_t n,
                         const int64_t *ranks, int64_t m, uint64_t *keys, int64_t *n_nan,
                         uint64_t *scratch, int64_t cap, sel_work *wk)
{
    uint64_t lo0 = 0;
    int s0 = 0;
    uint64_t nan_key = pt->bits == 64 ? UINT64_MAX : (((uint64_t)1 << pt->bits) - 1);
    if (pt->isflt) {
        s0 = pt->bits - FM_SEL_BITS;
    } else if (pt->bits > FM_SEL_BITS) {
        uint64_t kmax;
        pt->minmax(data, stride, n, &lo0, &kmax);
        while (((kmax - lo0) >> s0) >= (uint64_t)FM_SEL_NBINS)
            s0++;
    }
    int64_t *h0 = wk->hist;
    memset(h0, 0, 2 * FM_SEL_NBINS * sizeof(int64_t));
    pt->hist0(data, stride, n, lo0, s0, h0);
    /* Floats: the last level-0 bin holds the NaN keys and nothing else. */
    int64_t nnan = pt->isflt ? h0[FM_SEL_NBINS - 1] : 0;
    *n_nan = nnan;
    int64_t n_valid = n - nnan;
    if (pt->isflt)
        h0[FM_SEL_NBINS - 1] = 0;

    memset(wk->tag, 0, sizeof wk->tag);
    for (int64_t j0 = 0; j0 < m; j0 += ITEMS_MAX) {
        int64_t j1 = j0 + ITEMS_MAX < m ? j0 + ITEMS_MAX : m;
        int64_t jv = j0; /* ranks[j0..jv) are below the NaNs */
        while (jv < j1 && ranks[jv] < n_valid)
            jv++;
        for (int64_t j = jv; j < j1; j++)
            keys[j] = nan_key;
        int cur = 0;
        sel_item *list = wk->items[cur];
        int64_t len = split_bins(h0, FM_SEL_NBINS, lo0, s0, 0, ranks, j0, jv, -1, list, 0, keys);
        while (len > 0) {
            /* this pass: gather the intervals that fit, histogram the others */
            int64_t room = cap, nh = 0, nact = 0;
            for (int64_t i = 0; i < len; i++) {
                sel_item *it = &list[i];
                if (it->cnt <= room) {
                    it->mode = MODE_GATHER;
                    it->dst = scratch + (cap - room);
                    room -= it->cnt;
                } else if (nh < FM_SEL_MAX_HIST - 1) {
                    it->mode = MODE_HIST;
                    it->s = it->w > FM_SEL_BITS ? it->w - FM_SEL_BITS : 0;
                    it->h = wk->hist + (1 + nh) * FM_SEL_NBINS;
                    memset(it->h, 0, ((size_t)1 << (it->w - it->s)) * sizeof(int64_t));
                    nh++;
                } else {
                    it->mode = MODE_WAIT;
                    continue;
                }
                wk->act[nact] = *it;
                if (nact == 0 || wk->act[nact - 1].b0 != it->b0)
                    wk->tag[it->b0] = (uint16_t)(nact + 1);
                nact++;
            }
            pt->pass(data, stride, n, lo0, s0, wk->tag, wk->act, nact);
            /* finish gathered intervals, split histogrammed ones, keep waiting ones */
            sel_item *next = wk->items[1 - cur];
            int64_t nlen = 0, a = 0;
            for (int64_t i = 0; i < len; i++) {
                if (list[i].mode == MODE_WAIT) {
                    next[nlen++] = list[i];
                    continue;
                }
                sel_item *ac = &wk->act[a++];
                wk->tag[ac->b0] = 0;
                if (ac->mode == MODE_GATHER)
                    nth_many(ac->dst - ac->cnt, ac->cnt, ranks, ac->t0, ac->t1, ac->below, keys);
                else
                    nlen = split_bins(ac->h, (int64_t)1 << (ac->w - ac->s), ac->lo, ac->s,
                                      ac->below, ranks, ac->t0, ac->t1, ac->b0, next, nlen, keys);
            }
            cur = 1 - cur;
            list = wk->items[cur];
            len = nlen;
        }
    }
}

int fm_select(fm_dtype dt, const char *data, ptrdiff_t stride, int64_t n, const int64_t *ranks,
              int64_t m, uint64_t *keys, void *out, int64_t *n_nan, uint64_t *scratch,
              int64_t cap, void *work)
{
    if ((int)dt < 0 || (int)dt > (int)FM_FLOAT64 || n < 1 || m < 0 || scratch == NULL ||
        keys == NULL || out == NULL || n_nan == NULL)
        return -1;
    for (int64_t j = 0; j < m; j++)
        if (ranks[j] < 0 || ranks[j] >= n || (j > 0 && ranks[j] <= ranks[j - 1]))
            return -1;
    const pass_table *pt = &TABLES[dt];
    if (cap >= n) {
        *n_nan = pt->copy_keys(data, stride, n, scratch);
        nth_many(scratch, n, ranks, 0, m, 0, keys);
    } else {
        if (work == NULL || cap < 1)
            return -1;
        select_radix(pt, data, stride, n, ranks, m, keys, n_nan, scratch, cap, (sel_work *)work);
    }
    int itemsize = pt->bits / 8;
    for (int64_t j = 0; j < m; j++)
        fm_sel_unkey(dt, keys[j], (char *)out + j * itemsize);
    return 0;
}
