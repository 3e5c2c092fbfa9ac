# cython: language_level=3
"""Contingency kernels: the count of each (true code, predicted code) pair, and the expected
mutual information of two labellings with given cluster sizes.

``count_codes`` fills a dense ``K_true x K_pred`` table in one pass; the caller only calls it
when the table is small (a cell budget), and counts the distinct pairs by sorting otherwise.

``expected_mutual_information`` is the sum scikit-learn computes (Vinh, Epps and Bailey,
2009): for every pair of cluster sizes ``(a_i, b_j)`` the hypergeometric expectation of
``nij / N * log(N * nij / (a_i * b_j))``. Each term is the same expression as scikit-learn's;
the sum over ``nij`` skips the tails where the hypergeometric probability is below
``exp(-TAIL)`` times the mode's (the distribution is unimodal, and its tails fall faster than
geometrically, so the skipped terms sum to below 1e-29 of the pair's mass; ranges shorter
than ``SHORT`` are summed whole). That turns scikit-learn's O(min(a_i, b_j)) loop per pair
into O(sqrt of the variance). The terms are added in scikit-learn's order into one sum, so
the result equals scikit-learn's to the rounding of the skipped (negligible) terms.
"""

from libc.math cimport exp, lgamma, log
from libc.stdint cimport int64_t

cdef double TAIL = 69.0  # exp(-69) < 1e-30
cdef int64_t SHORT = 64  # ranges of nij shorter than this are summed whole


def count_codes(const int64_t[:] codes_true, const int64_t[:] codes_pred,
                int64_t[:, ::1] table):
    """Add one to ``table[codes_true[i], codes_pred[i]]`` for every ``i`` (codes in range:
    the caller's ``np.unique`` inverses)."""
    cdef Py_ssize_t i, n = codes_true.shape[0]
    if codes_pred.shape[0] != n:
        raise ValueError("count_codes: lengths differ")
    with nogil:
        for i in range(n):
            table[codes_true[i], codes_pred[i]] += 1


def log_gamma(const double[::1] x, double[::1] out):
    """``out[i] = lgamma(x[i])`` (C's lgamma)."""
    cdef Py_ssize_t i
    if out.shape[0] != x.shape[0]:
        raise ValueError("log_gamma: lengths differ")
    with nogil:
        for i in range(x.shape[0]):
            out[i] = lgamma(x[i])


def expected_mutual_information(const int64_t[::1] a, const int64_t[::1] b, int64_t n,
                                const double[::1] log_a, const double[::1] log_b,
                                const double[::1] gln_a, const double[::1] gln_b,
                                const double[::1] gln_na, const double[::1] gln_nb,
                                const double[::1] term1, const double[::1] log_nnij,
                                const double[::1] gln_nnij):
    """scikit-learn's expected mutual information over the cluster sizes ``a`` (true) and
    ``b`` (predicted) of ``n`` samples, from the same precomputed tables (per size: logs and
    log-factorials; per ``nij`` up to ``max(a, b)``: ``nij / n``, ``log(n * nij)`` and
    ``lgamma(nij + 1) + lgamma(n + 1)``), summed in scikit-learn's order, less the tails
    where the hypergeometric probability is below ``exp(-TAIL)`` times its mode's."""
    cdef Py_ssize_t i, j, ka = a.shape[0], kb = b.shape[0]
    cdef int64_t ai, bj, start, end, mode, lo, hi, k
    cdef double emi = 0.0, rel, term2, gln
    if (log_a.shape[0] != ka or gln_a.shape[0] != ka or gln_na.shape[0] != ka
            or log_b.shape[0] != kb or gln_b.shape[0] != kb or gln_nb.shape[0] != kb):
        raise ValueError("expected_mutual_information: inconsistent table lengths")
    for i in range(ka):
        if a[i] < 0 or a[i] >= term1.shape[0]:
            raise ValueError("expected_mutual_information: nij tables too short")
    for j in range(kb):
        if b[j] < 0 or b[j] >= term1.shape[0]:
            raise ValueError("expected_mutual_information: nij tables too short")
    if log_nnij.shape[0] != term1.shape[0] or gln_nnij.shape[0] != term1.shape[0]:
        raise ValueError("expected_mutual_information: inconsistent nij tables")
    with nogil:
        for i in range(ka):
            ai = a[i]
            for j in range(kb):
                bj = b[j]
                start = max(1, ai - n + bj)
                end = min(ai, bj)
                if start > end:
                    continue
                lo = start
                hi = end
                if end - start >= SHORT:  # long ranges lose their tails; short ones are whole
                    # the window: walk out from the mode with the ratio of successive
                    # probabilities (cheap; it only decides where the tails are cut)
                    mode = <int64_t>((<double>(ai + 1) * <double>(bj + 1))
                                     / (<double>n + 2.0))
                    mode = min(max(mode, start), end)
                    lo = mode
                    rel = 0.0
                    while lo > start:
                        k = lo
                        rel += log((<double>k * <double>(n - ai - bj + k))
                                   / (<double>(ai - k + 1) * <double>(bj - k + 1)))
                        if rel > TAIL:
                            break
                        lo -= 1
                    hi = mode
                    rel = 0.0
                    while hi < end:
                        k = hi
                        rel += log((<double>(k + 1) * <double>(n - ai - bj + k + 1))
                                   / (<double>(ai - k) * <double>(bj - k)))
                        if rel > TAIL:
                            break
                        hi += 1
                for k in range(lo, hi + 1):
                    term2 = log_nnij[k] - log_a[i] - log_b[j]
                    gln = (gln_a[i] + gln_b[j] + gln_na[i] + gln_nb[j]
                           - gln_nnij[k] - lgamma(ai - k + 1)
                           - lgamma(bj - k + 1)
                           - lgamma(n - ai - bj + k + 1))
                    emi += term1[k] * term2 * exp(gln)
    return emi
