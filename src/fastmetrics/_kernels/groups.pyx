# cython: language_level=3
"""Group ordering kernels: the rows of every group as one contiguous run, by a stable
counting sort of their group codes (two passes, no comparison sort).

A family's grouped state is its ordinary kernel run over each group's run of rows, so these
two passes are all the grouping adds: ``group_sizes`` counts the rows of each code (and
finds a code outside ``[0, n_groups)``, fused into the same pass), ``group_order`` writes
each row's index at its group's next free slot. Rows keep their order within a group, so a
group's rows are read in the order a one-shot call would read them.
"""

from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport memcpy

from .common cimport group_t


def group_sizes(const group_t[:] codes, int64_t n_groups, int64_t[::1] sizes):
    """Add each code's rows to ``sizes`` (length ``n_groups``); the index of the first code
    outside ``[0, n_groups)`` (nothing counted past it), or -1."""
    cdef Py_ssize_t i, n = codes.shape[0], bad = -1
    cdef int64_t c
    with nogil:
        for i in range(n):
            c = <int64_t>codes[i]
            # a uint64 code past int64 wraps negative: refused by the same test
            if c < 0 or c >= n_groups:
                bad = i
                break
            sizes[c] += 1
    return bad


def group_order(const group_t[:] codes, int64_t[::1] starts, int64_t[::1] order):
    """``order[starts[c]] = i`` for each row ``i`` of code ``c``, advancing ``starts[c]``
    (``starts``: each group's first slot, consumed). Codes must be in range
    (:func:`group_sizes` checked them)."""
    cdef Py_ssize_t i, n = codes.shape[0]
    cdef int64_t c
    with nogil:
        for i in range(n):
            c = <int64_t>codes[i]
            order[starts[c]] = i
            starts[c] += 1


def scatter_rows(const group_t[:] codes, int64_t[::1] starts, const unsigned char[:, ::1] src,
                 unsigned char[:, ::1] dst):
    """Copy each row of ``src`` (its raw bytes: any dtype without Python objects, 2-D rows
    too) to ``dst[starts[c]]``, advancing ``starts[c]`` (consumed): the rows of each group
    land contiguous, in their order. One sequential read; the writes go to one stream per
    group, which is cheaper than gathering by an index of random reads. Codes must be in
    range (:func:`group_sizes` checked them)."""
    cdef Py_ssize_t i, n = codes.shape[0], width = src.shape[1]
    cdef int64_t c, p
    cdef const unsigned char* s = &src[0, 0] if n else NULL
    cdef unsigned char* d = &dst[0, 0] if n else NULL
    with nogil:
        if width == 8:
            for i in range(n):
                c = <int64_t>codes[i]
                p = starts[c]
                starts[c] = p + 1
                (<uint64_t*>d)[p] = (<const uint64_t*>s)[i]
        elif width == 4:
            for i in range(n):
                c = <int64_t>codes[i]
                p = starts[c]
                starts[c] = p + 1
                (<uint32_t*>d)[p] = (<const uint32_t*>s)[i]
        elif width == 1:
            for i in range(n):
                c = <int64_t>codes[i]
                p = starts[c]
                starts[c] = p + 1
                d[p] = s[i]
        else:
            for i in range(n):
                c = <int64_t>codes[i]
                p = starts[c]
                starts[c] = p + 1
                memcpy(d + p * width, s + i * width, width)
