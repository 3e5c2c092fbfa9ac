"""Ranking metrics of a long table: one row per (query, document), the metrics per query.

A ranking log holds, for each query, the documents a model scored and their true relevance.
NDCG, the reciprocal rank and average precision are per-query numbers, averaged over the
queries. Here every query's documents are ordered by decreasing score with one stable sort
of the whole table (by query, then score), and each per-query sum is one ``bincount`` over
that order, so there is no Python loop over queries.

Ties follow scikit-learn: documents of one query with the same score share their group's
average gain (``ndcg_score``), and average precision steps at each distinct score
(``average_precision_score``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["QueryScores", "query_scores"]


class QueryScores:
    """Per-query values of one model over the (query) codes of a table.

    Attributes
    ----------
    ndcg, ndcg_at_k : ndarray of float64 (n_queries,)
        NDCG over all of the query's documents and over its first ``k`` (0 where every
        document's relevance is 0, as scikit-learn's ``ndcg_score``; NaN for a query of
        one document, which scikit-learn refuses to score: left out of the mean).
    reciprocal_rank : ndarray of float64 (n_queries,)
        1 / the rank of the best-scored relevant document (ties in its favour), 0 without
        one (as :func:`fastmetrics.mean_reciprocal_rank`).
    average_precision : ndarray of float64 (n_queries,)
        scikit-learn's ``average_precision_score`` of relevance > 0 against the score; NaN
        for a query without a relevant document (left out of the mean).
    """

    __slots__ = ("ndcg", "ndcg_at_k", "reciprocal_rank", "average_precision")

    def __init__(self, ndcg: np.ndarray, ndcg_at_k: np.ndarray, reciprocal_rank: np.ndarray,
                 average_precision: np.ndarray) -> None:
        self.ndcg, self.ndcg_at_k = ndcg, ndcg_at_k
        self.reciprocal_rank, self.average_precision = reciprocal_rank, average_precision


def query_scores(query: np.ndarray, relevance: np.ndarray, score: np.ndarray, n_queries: int,
                 k: int) -> QueryScores:
    """Every query's NDCG, NDCG@k, reciprocal rank and average precision.

    Parameters
    ----------
    query : ndarray of int64 (n_rows,)
        Each row's query, in ``range(n_queries)``; every query has at least one row.
    relevance : ndarray of float64 (n_rows,)
        Non-negative, finite relevance (the gain); > 0 is relevant.
    score : ndarray of float64 (n_rows,)
        Finite scores: higher ranks first.
    n_queries : int
    k : int
        The cut of NDCG@k (>= 1).

    Returns
    -------
    QueryScores

    Examples
    --------
    >>> import numpy as np
    >>> q = query_scores(np.array([0, 0, 1, 1]), np.array([1.0, 0.0, 0.0, 2.0]),
    ...                  np.array([0.2, 0.9, 0.5, 0.5]), 2, 1)
    >>> q.reciprocal_rank.tolist(), q.average_precision.tolist(), q.ndcg_at_k.tolist()
    ([0.5, 1.0], [0.5, 0.5], [0.0, 0.5])
    """
    n = query.shape[0]
    gain = relevance.astype(np.float64, copy=False)
    order = np.lexsort((-score, query))  # by query, then decreasing score (stable)
    q, g, s = query[order], gain[order], score[order]
    first = np.ones(n, dtype=bool)  # a query's first row in the order
    first[1:] = q[1:] != q[:-1]
    starts = np.flatnonzero(first)
    qid = np.cumsum(first) - 1
    pos = np.arange(n) - starts[qid]  # 0-based rank within the query
    discount = 1.0 / (np.log(pos + 2.0) / np.log(2.0))  # scikit-learn's discount
    cut = np.where(pos < k, discount, 0.0)

    tie = first.copy()  # a tie group's first row: a new query or a new score
    tie[1:] |= s[1:] != s[:-1]
    tid = np.cumsum(tie) - 1
    t_query = q[tie]
    t_size = np.bincount(tid).astype(np.float64)
    t_gain = np.bincount(tid, weights=g)
    mean_gain = t_gain / t_size

    def dcg(d: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.bincount(t_query, weights=mean_gain * np.bincount(tid, weights=d),
                                      minlength=n_queries)
        return out

    # the ideal order (decreasing gain) has the same query runs, so the same ranks
    ideal = gain[np.lexsort((-gain, query))]
    best = np.bincount(q, weights=ideal * discount, minlength=n_queries)
    best_k = np.bincount(q, weights=ideal * cut, minlength=n_queries)
    with np.errstate(divide="ignore", invalid="ignore"):
        ndcg = np.where(best > 0, dcg(discount) / best, 0.0)
        ndcg_k = np.where(best_k > 0, dcg(cut) / best_k, 0.0)
    single = np.bincount(q, minlength=n_queries) == 1
    ndcg[single] = np.nan
    ndcg_k[single] = np.nan

    relevant = g > 0
    rel = relevant.astype(np.float64)
    # reciprocal rank: the query's first relevant row in the order is its best-scored one;
    # its rank counts the rows scored strictly higher: its tie group's first position + 1
    seen = np.cumsum(relevant)
    before: np.ndarray = seen[starts] - relevant[starts]  # relevant rows of earlier queries
    hit = relevant & (seen - before[qid] == 1)
    rr = np.zeros(n_queries)
    rr[q[hit]] = 1.0 / (pos[tie][tid[hit]] + 1.0)

    # average precision: at each tie group's end, the precision so far times the group's
    # share of the query's relevant rows (scikit-learn's step at each distinct score)
    t_rel = np.bincount(tid, weights=rel)
    n_rel = np.bincount(q, weights=rel, minlength=n_queries)
    cum_rel, cum_n = np.cumsum(t_rel), np.cumsum(t_size)
    t_first = np.flatnonzero(first[tie])  # each query's first tie group
    base_rel = (cum_rel - t_rel)[t_first][t_query]  # rows of earlier queries
    base_n = (cum_n - t_size)[t_first][t_query]
    precision = (cum_rel - base_rel) / (cum_n - base_n)
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.bincount(t_query, weights=precision * t_rel, minlength=n_queries) / n_rel
    ap[n_rel == 0] = np.nan
    return QueryScores(ndcg, ndcg_k, rr, ap)
