# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Joint counts of three label columns: (true label, model A's, model B's) of the same rows,
the table a paired comparison of two classifiers resamples.

The labels are integers of one dtype spanning a small range ``[lo, lo + k)`` (the caller
finds it and keeps ``k**3`` small); each row adds one to its cell of a dense ``k x k x k``
table in one pass, reading the three columns in place (by slice: to its group's table).
"""

from libc.stdint cimport int64_t, uint64_t

from .common cimport group_t, label_t


def count_triples(const label_t[:] t, const label_t[:] a, const label_t[:] b, int64_t lo,
                  int64_t k, int64_t[::1] out):
    """Add one to ``out[((t - lo) * k + (a - lo)) * k + (b - lo)]`` for every row; returns
    -1, or the first row holding a value outside ``[lo, lo + k)`` (the table is then
    incomplete)."""
    cdef Py_ssize_t i, n = t.shape[0]
    cdef uint64_t x, y, z, uk = <uint64_t>k
    cdef Py_ssize_t bad = -1
    if a.shape[0] != n or b.shape[0] != n:
        raise ValueError("count_triples: lengths differ")
    if k < 1 or out.shape[0] < k * k * k:
        raise ValueError("count_triples: the table is smaller than k**3")
    with nogil:
        for i in range(n):
            # unsigned differences: a value below lo wraps to a large number, so one
            # comparison per column checks both ends of the range
            x = <uint64_t>(<int64_t>t[i] - lo)
            y = <uint64_t>(<int64_t>a[i] - lo)
            z = <uint64_t>(<int64_t>b[i] - lo)
            if x >= uk or y >= uk or z >= uk:
                bad = i
                break
            out[(x * uk + y) * uk + z] += 1
    return bad


def count_grouped_triples(const group_t[:] codes, int64_t n_groups, const label_t[:] t,
                          const label_t[:] a, const label_t[:] b, int64_t lo, int64_t k,
                          int64_t[::1] out):
    """:func:`count_triples` by group: row ``i`` adds one to its cell of the ``k**3``
    table of group ``codes[i]`` (``out`` holds ``n_groups`` of them, one after another).
    Returns -1, or the first row whose code is outside ``[0, n_groups)`` or whose label is
    outside ``[lo, lo + k)`` (nothing past it counted)."""
    cdef Py_ssize_t i, n = t.shape[0]
    cdef uint64_t x, y, z, g, uk = <uint64_t>k, ug = <uint64_t>n_groups
    cdef uint64_t cells = <uint64_t>(k * k * k)
    cdef Py_ssize_t bad = -1
    if a.shape[0] != n or b.shape[0] != n or codes.shape[0] != n:
        raise ValueError("count_grouped_triples: lengths differ")
    if k < 1 or n_groups < 1 or out.shape[0] < n_groups * k * k * k:
        raise ValueError("count_grouped_triples: the tables are smaller than n_groups * k**3")
    with nogil:
        for i in range(n):
            # a negative code, or a uint64 one past int64, wraps past n_groups
            g = <uint64_t>(<int64_t>codes[i])
            x = <uint64_t>(<int64_t>t[i] - lo)
            y = <uint64_t>(<int64_t>a[i] - lo)
            z = <uint64_t>(<int64_t>b[i] - lo)
            if g >= ug or x >= uk or y >= uk or z >= uk:
                bad = i
                break
            out[g * cells + (x * uk + y) * uk + z] += 1
    return bad
