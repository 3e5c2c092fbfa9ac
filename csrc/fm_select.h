/* Exact order statistics in O(N) time and memory independent of N.
 *
 * Values are mapped to order-preserving unsigned 64-bit keys (integers: flip the sign bit;
 * floats: flip all bits of negatives, the sign bit of positives; every NaN becomes the
 * largest key, so NaNs sort last exactly as numpy's partition puts them). Selection is a
 * most-significant-digit radix select:
 *
 *   pass 1   a 2**16-bin histogram of the leading key bits (for 32/64-bit integers, of the
 *            bits below the common prefix of min and max, found in a min/max pass first);
 *   pass k   for the few bins holding a wanted rank: bins small enough are gathered into a
 *            bounded scratch buffer and finished with a quickselect, larger bins get a
 *            histogram of their next 16 bits (at most FM_SEL_MAX_HIST of them per pass).
 *
 * All wanted ranks are served by the same passes, so asking for several quantiles costs about
 * as much as asking for one. The input is only read; the caller provides all memory. Plain
 * C, no Python: callable without the GIL from any number of threads at once.
 */
#ifndef FM_SELECT_H
#define FM_SELECT_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    FM_INT8 = 0,
    FM_INT16,
    FM_INT32,
    FM_INT64,
    FM_UINT8,
    FM_UINT16,
    FM_UINT32,
    FM_UINT64,
    FM_FLOAT32,
    FM_FLOAT64
} fm_dtype;

#define FM_SEL_BITS 16
#define FM_SEL_NBINS ((int64_t)1 << FM_SEL_BITS)
/* Histogram slots in the workspace: the level-0 one plus up to FM_SEL_MAX_HIST - 1
 * refinement histograms filled by one pass. */
#define FM_SEL_MAX_HIST 4
/* Default scratch capacity in keys (8 MiB): enough to gather the target bins of three
 * quantiles of 10**7 uniform floats in the second pass. */
#define FM_SEL_DEFAULT_CAP ((int64_t)1 << 20)

/* Bytes of workspace fm_select needs when cap < n (about 2.3 MB). */
size_t fm_sel_work_bytes(void);

/* Select the order statistics of ``data`` at the given ranks.
 *
 * data, stride   first element and the distance between elements in bytes (may be negative)
 * n              number of elements (>= 1)
 * ranks, m       wanted ranks, strictly increasing, each in [0, n)
 * keys           m keys of workspace
 * out            m values of the input's dtype: out[j] is the ranks[j]-th smallest value
 *                (NaNs sorting after everything else, as in numpy; they come back as a quiet
 *                NaN)
 * n_nan          receives the number of NaNs (0 for integers)
 * scratch, cap   workspace of ``cap`` keys (cap >= 1); when cap >= n the input is copied there
 *                whole and selected in place, otherwise radix passes run with it as the
 *                gather buffer
 * work           fm_sel_work_bytes() bytes (only used, and then required, when cap < n)
 *
 * Returns 0, or -1 when the arguments are inconsistent (nothing is written then).
 */
int fm_select(fm_dtype dt, const char *data, ptrdiff_t stride, int64_t n, const int64_t *ranks,
              int64_t m, uint64_t *keys, void *out, int64_t *n_nan, uint64_t *scratch,
              int64_t cap, void *work);

/* Order-preserving key of one value of type dt stored at p, and the value back from a key
 * (written at p). Exposed for tests. */
uint64_t fm_sel_key(fm_dtype dt, const void *p);
void fm_sel_unkey(fm_dtype dt, uint64_t key, void *p);

/* In-place: after the call, a[k] is the value a full sort would put there, every element
 * before it is <= a[k] and every element after it is >= a[k]. O(n) expected, O(n log n)
 * worst case (heapsort fallback). */
void fm_sel_nth_u64(uint64_t *a, int64_t n, int64_t k);

#endif
