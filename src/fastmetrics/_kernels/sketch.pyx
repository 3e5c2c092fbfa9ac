# cython: language_level=3
"""Log-bucket quantile sketch kernel (DDSketch-style relative-error buckets).

A positive value ``x`` goes to bucket ``i = ceil(log(x) / log(gamma))``, the bucket covering
``(gamma**(i-1), gamma**i]``; a negative value goes to the same bucket of ``-x`` in a second
store; zeros are counted apart. Each store is a dense window of ``cap`` counts that ends at its
highest bucket ``hi``: bucket ``i`` lives at ``counts[i - hi + cap - 1]``. A bucket below the
window is counted in the window's lowest slot (collapsing the lowest buckets), and when a new
highest bucket moves the window up, the slots that fall out are folded into the new lowest
one. A value's final slot is therefore ``max(i, hi_final - cap + 1)`` whatever the order of
the values, so chunks and merges give identical counts.
"""

from libc.math cimport ceil, log
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memmove, memset

ctypedef fused value_t:
    float
    double
    int32_t
    int64_t

# meta layout (int64): per store (positive, then negative) its highest bucket, its count
# and its lowest bucket ever seen (below hi - cap + 1: collapsed); then the zero count
# meta slots POS_HI ... N_META: sketch.pxd


cdef inline void _insert(int64_t* c, Py_ssize_t cap, int64_t* hi, int64_t* cnt, int64_t* lo,
                         int64_t i) noexcept nogil:
    cdef int64_t d, j, s
    cdef Py_ssize_t k
    if cnt[0] == 0 or i < lo[0]:
        lo[0] = i
    if cnt[0] == 0:
        hi[0] = i
        c[cap - 1] += 1
    elif i > hi[0]:
        # the window moves up by i - hi: slots 0..d fold into the new lowest slot, the rest
        # shift down by d. A move of cap or more folds every slot, the same as d = cap - 1
        d = i - hi[0]
        if d > cap - 1:
            d = cap - 1
        s = 0
        for k in range(d + 1):
            s += c[k]
        memmove(c, c + d, (cap - d) * sizeof(int64_t))
        memset(c + cap - d, 0, d * sizeof(int64_t))
        c[0] = s
        hi[0] = i
        c[cap - 1] += 1
    else:
        j = i - hi[0] + cap - 1
        if j < 0:
            j = 0
        c[j] += 1
    cnt[0] += 1


def add(const value_t[:] x, double inv_log_gamma, int64_t[::1] pos, int64_t[::1] neg,
        int64_t[::1] meta, double[::1] minmax):
    """Count ``x`` into the stores ``pos`` / ``neg`` (same length ``cap``), ``meta`` (see
    above) and ``minmax`` ([min, max]). Returns -1, or the index of the first NaN or
    infinite value, and then nothing is counted: a stream's stores stay as they were."""
    cdef Py_ssize_t n = x.shape[0], cap = pos.shape[0], k
    cdef Py_ssize_t bad = -1
    cdef double v, lo, hi
    cdef int64_t b
    if neg.shape[0] != cap or cap < 1 or meta.shape[0] < N_META or minmax.shape[0] < 2:
        raise ValueError("add: inconsistent store shapes")
    lo = minmax[0]
    hi = minmax[1]
    with nogil:
        # a separate scan first (cheap beside the logarithms) so that a bad value leaves the
        # stores untouched: streams count into their stores in place, without copies
        for k in range(n):
            v = <double>x[k]
            if v != v or v - v != 0.0:  # NaN or +/-inf
                bad = k
                break
        if bad >= 0:
            n = 0
        for k in range(n):
            v = <double>x[k]
            if v < lo:
                lo = v
            if v > hi:
                hi = v
            if v > 0.0:
                b = <int64_t>ceil(log(v) * inv_log_gamma)
                _insert(&pos[0], cap, &meta[POS_HI], &meta[POS_N], &meta[POS_LO], b)
            elif v < 0.0:
                b = <int64_t>ceil(log(-v) * inv_log_gamma)
                _insert(&neg[0], cap, &meta[NEG_HI], &meta[NEG_N], &meta[NEG_LO], b)
            else:
                meta[ZEROS] += 1
    minmax[0] = lo
    minmax[1] = hi
    return bad
