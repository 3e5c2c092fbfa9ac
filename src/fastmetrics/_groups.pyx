# cython: language_level=3
"""Per-group confusion counting: one pass over (group, y_true, y_pred) -> a (G, K, K) table.

Labels are read as they are (any integer dtype) over the value range ``lo .. lo + K - 1``;
groups likewise over ``glo .. glo + G - 1``. A value outside its range is counted in the
returned ``bad`` number and skipped (the Python layer computed the ranges, so this only
guards against an inconsistent call). Large inputs are cut into lanes that depend on N only,
each with a private table that the caller sums in lane order.
"""

from libc.stdint cimport int64_t, uint64_t
from ._common cimport group_t, label_t, _lane_start
from cython.parallel cimport prange


cdef Py_ssize_t _count_lane(const label_t[:] yt, const label_t[:] yp, const group_t[:] g,
                            uint64_t lo, uint64_t k, uint64_t glo, uint64_t n_groups,
                            Py_ssize_t start, Py_ssize_t stop,
                            int64_t* table) noexcept nogil:
    cdef Py_ssize_t i, nbad = 0
    cdef uint64_t a, b, c
    for i in range(start, stop):
        # unsigned differences: a value below lo wraps to a huge number, one test per value
        a = <uint64_t>yt[i] - lo
        b = <uint64_t>yp[i] - lo
        c = <uint64_t>g[i] - glo
        if a >= k or b >= k or c >= n_groups:
            nbad += 1
            continue
        table[(c * k + a) * k + b] += 1
    return nbad


def group_confusion(const label_t[:] y_true, const label_t[:] y_pred, const group_t[:] groups,
                    uint64_t lo, uint64_t k, uint64_t glo, uint64_t n_groups,
                    int64_t[:, ::1] tables, int n_threads):
    """Count into ``tables`` (n_lanes, G*K*K), zeroed by the caller; returns the number of
    out-of-range entries skipped."""
    cdef Py_ssize_t n = y_true.shape[0]
    cdef Py_ssize_t n_lanes = tables.shape[0]
    cdef Py_ssize_t lane, nbad = 0
    if (y_pred.shape[0] != n or groups.shape[0] != n
            or tables.shape[1] < <Py_ssize_t>(n_groups * k * k)):
        raise ValueError("group_confusion: inconsistent shapes")
    with nogil:
        for lane in prange(n_lanes, num_threads=n_threads, schedule="static",
                           use_threads_if=n_threads > 1 and n_lanes > 1):
            nbad += _count_lane(y_true, y_pred, groups, lo, k, glo, n_groups,
                                _lane_start(n, n_lanes, lane), _lane_start(n, n_lanes, lane + 1),
                                &tables[lane, 0])
    return nbad
