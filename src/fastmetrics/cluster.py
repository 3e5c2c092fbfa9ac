"""Supervised clustering metrics (scikit-learn's ``sklearn.metrics.cluster`` names).

Every function counts the pairs of labels once into a
:class:`~fastmetrics.states.ContingencyState` (the non-zero cells of the contingency table)
and derives its value from it, with scikit-learn 1.9's arithmetic over the same cells:
integer results are equal, float results equal to the last bits in the cases tested
(the adjusted mutual information too: its expected mutual information is scikit-learn's sum
with the tails below 1e-30 of each term's mass left out, which is what makes it fast).

Labels may be integers, bools, floats (non-integral floats warn, as scikit-learn does) or
strings; empty labellings are allowed where scikit-learn allows them. The same metrics are
methods of :class:`fastmetrics.streaming.ContingencyAccumulator` and functions of
:mod:`fastmetrics.dask`.

Unsupervised scores (silhouette, Calinski-Harabasz, Davies-Bouldin) and pairwise distances
are out of scope: they need the samples' features, not a table of counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast, overload

import numpy as np

from ._states import contingency as st
from ._states.contingency import ContingencyState

if TYPE_CHECKING:
    from typing import Any, Literal
    from numpy.typing import DTypeLike
    from ._typing import AverageMethod, ArrayLike, IntArray, NDArray

__all__ = [
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "completeness_score",
    "contingency_matrix",
    "expected_mutual_information",
    "fowlkes_mallows_score",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "pair_confusion_matrix",
    "rand_score",
    "v_measure_score",
]


def _state(labels_true: ArrayLike | None, labels_pred: ArrayLike | None) -> ContingencyState:
    # None (mutual_info_score without a contingency) is rejected there with scikit-learn's
    # "must be 1D" error
    return ContingencyState.from_arrays(cast("ArrayLike", labels_true),
                                        cast("ArrayLike", labels_pred))


@overload
def contingency_matrix(labels_true: ArrayLike, labels_pred: ArrayLike, *, eps: float | None = ...,
                       sparse: Literal[False] = ..., dtype: DTypeLike = ...) -> NDArray[Any]: ...


@overload
def contingency_matrix(labels_true: ArrayLike, labels_pred: ArrayLike, *, eps: float | None = ...,
                       sparse: Literal[True], dtype: DTypeLike = ...) -> Any: ...


def contingency_matrix(labels_true: ArrayLike, labels_pred: ArrayLike, *, eps: float | None = None,
                       sparse: bool = False, dtype: DTypeLike = np.int64) -> Any:
    """The contingency matrix of two labellings.

    The labels are counted once into a mergeable table of non-zero cells (the streaming
    accumulator and the Dask function give the same matrix).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.
    eps : float, default=None
        Added to every cell of the dense matrix (not with ``sparse=True``).
    sparse : bool, default=False
        Return a ``scipy.sparse`` CSR matrix (scipy is imported for this only).
    dtype : numeric type, default=np.int64
        Output dtype (ignored with ``eps``, as in scikit-learn: the result is then float).

    Returns
    -------
    contingency : ndarray or scipy.sparse.csr_matrix of shape (n_classes_true, n_classes_pred)
        ``C[i, j]``: samples of true class ``i`` in predicted cluster ``j`` (classes and
        clusters in sorted label order).

    Raises
    ------
    ValueError
        If ``eps`` is given with ``sparse=True``; if the labellings differ in length, are
        not 1-D, or hold NaN.

    See Also
    --------
    sklearn.metrics.cluster.contingency_matrix : The scikit-learn function this one
        matches.
    pair_confusion_matrix : The 2 x 2 matrix of sample pairs.

    Examples
    --------
    >>> from fastmetrics import contingency_matrix
    >>> contingency_matrix([0, 0, 1, 1], [1, 1, 1, 0])
    array([[0, 2],
           [1, 1]])
    """
    st.check_matrix_options(eps, sparse)  # before counting
    return st.matrix(ContingencyState.from_arrays(labels_true, labels_pred, warn=False),
                     eps=eps, sparse=sparse, dtype=dtype)


def pair_confusion_matrix(labels_true: ArrayLike, labels_pred: ArrayLike) -> IntArray:
    """The 2 x 2 pair confusion matrix: over ordered pairs of distinct samples, whether the
    pair is together in ``labels_true`` (rows) and in ``labels_pred`` (columns).

    Computed from the contingency table's cells (no pass over pairs), in int64.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    C : ndarray of shape (2, 2), dtype int64
        ``C[0, 0]`` pairs apart in both, ``C[0, 1]`` apart in ``labels_true`` but together
        in ``labels_pred``, ``C[1, 0]`` the reverse, ``C[1, 1]`` together in both.

    Raises
    ------
    ValueError
        If the labellings differ in length, are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.cluster.pair_confusion_matrix : The scikit-learn function this one
        matches.
    rand_score : The share of pairs on the diagonal.

    Examples
    --------
    >>> from fastmetrics import pair_confusion_matrix
    >>> pair_confusion_matrix([0, 0, 1, 1], [1, 1, 0, 0])
    array([[8, 0],
           [0, 4]])
    """
    return st.pair_confusion(_state(labels_true, labels_pred))


def rand_score(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """The Rand index: the share of sample pairs on which the two labellings agree.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    RI : float
        The Rand index, in [0, 1] (1.0 for fewer than two samples or a single cluster in
        both, as scikit-learn).

    Raises
    ------
    ValueError
        If the labellings differ in length, are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.rand_score : The scikit-learn function this one matches.
    adjusted_rand_score : The index adjusted for chance.

    Examples
    --------
    >>> from fastmetrics import rand_score
    >>> rand_score([0, 0, 1, 2], [0, 0, 1, 1])
    0.8333333333333334
    """
    return st.rand(_state(labels_true, labels_pred))


def adjusted_rand_score(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """The Rand index adjusted for chance (1.0 for identical partitions, about 0 for random
    ones, down to -0.5).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    ARI : float
        The adjusted Rand index.

    Raises
    ------
    ValueError
        If the labellings differ in length, are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.adjusted_rand_score : The scikit-learn function this one matches.
    rand_score : The unadjusted index.
    adjusted_mutual_info_score : Chance-adjusted agreement by information.

    Examples
    --------
    >>> from fastmetrics import adjusted_rand_score
    >>> adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return st.adjusted_rand(_state(labels_true, labels_pred))


def homogeneity_completeness_v_measure(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                                       beta: float = 1.0) -> tuple[float, float, float]:
    """Homogeneity, completeness and V-measure in one pass.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.
    beta : float, default=1.0
        Weight of homogeneity against completeness in the V-measure (>= 0; above 1 weighs
        completeness more).

    Returns
    -------
    homogeneity : float
        Score between 0.0 and 1.0 (1.0: every cluster holds one class).
    completeness : float
        Score between 0.0 and 1.0 (1.0: every class is in one cluster).
    v_measure : float
        Their weighted harmonic mean.

    Raises
    ------
    ValueError
        If ``beta`` is not a number >= 0 (scikit-learn's ``InvalidParameterError``, a
        ``ValueError``); if the labellings differ in length, are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.homogeneity_completeness_v_measure : The scikit-learn function this
        one matches.
    v_measure_score : The V-measure alone.

    Examples
    --------
    >>> from fastmetrics import homogeneity_completeness_v_measure
    >>> homogeneity_completeness_v_measure([0, 0, 1, 1], [0, 0, 0, 1])
    (0.31127812445913283, 0.3836885465963443, 0.34371101848545077)
    """
    st.check_beta(beta)
    return st.homogeneity_completeness_v(_state(labels_true, labels_pred), beta=beta)


def homogeneity_score(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Homogeneity: 1.0 when every cluster holds members of a single class.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    homogeneity : float
        Score between 0.0 and 1.0.

    Raises
    ------
    ValueError
        If the labellings differ in length, are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.homogeneity_score : The scikit-learn function this one matches.
    completeness_score : The symmetric property of the classes.
    v_measure_score : Their harmonic mean.

    Examples
    --------
    >>> from fastmetrics import homogeneity_score
    >>> homogeneity_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.31127812445913283
    """
    return st.homogeneity(_state(labels_true, labels_pred))


def completeness_score(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Completeness: 1.0 when all members of a class are in the same cluster.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    completeness : float
        Score between 0.0 and 1.0.

    Raises
    ------
    ValueError
        If the labellings differ in length, are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.completeness_score : The scikit-learn function this one matches.
    homogeneity_score : The symmetric property of the clusters.
    v_measure_score : Their harmonic mean.

    Examples
    --------
    >>> from fastmetrics import completeness_score
    >>> completeness_score([0, 0, 1, 1], [0, 0, 0, 0])
    1.0
    """
    return st.completeness(_state(labels_true, labels_pred))


def v_measure_score(labels_true: ArrayLike, labels_pred: ArrayLike, *, beta: float = 1.0) -> float:
    """The V-measure: the weighted harmonic mean of homogeneity and completeness.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.
    beta : float, default=1.0
        Above 1 weighs completeness more, below 1 homogeneity (>= 0).

    Returns
    -------
    v_measure : float
        Score between 0.0 and 1.0.

    Raises
    ------
    ValueError
        If ``beta`` is not a number >= 0 (scikit-learn's ``InvalidParameterError``, a
        ``ValueError``); if the labellings differ in length, are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.v_measure_score : The scikit-learn function this one matches.
    homogeneity_completeness_v_measure : All three values at once.
    normalized_mutual_info_score : Equal to the V-measure with the arithmetic mean.

    Examples
    --------
    >>> from fastmetrics import v_measure_score
    >>> v_measure_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    st.check_beta(beta, "v_measure_score")
    return st.v_measure(_state(labels_true, labels_pred), beta=beta)


def mutual_info_score(labels_true: ArrayLike | None, labels_pred: ArrayLike | None, *,
                      contingency: ArrayLike | None = None) -> float:
    """The mutual information of two labellings (natural logarithm).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or None
        Ground truth class labels (ignored when ``contingency`` is given).
    labels_pred : array-like of shape (n_samples,) or None
        Cluster labels (ignored when ``contingency`` is given).
    contingency : array-like or sparse matrix of shape (n_classes_true, n_classes_pred), \
    default=None
        A precomputed contingency table (converted to int64, as scikit-learn does).

    Returns
    -------
    mi : float
        The mutual information, in nats (>= 0).

    Raises
    ------
    ValueError
        If the labellings differ in length, are not 1-D, hold NaN, or are both empty
        (scikit-learn's "math domain error"); if ``contingency`` is not 2-D.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.mutual_info_score : The scikit-learn function this one matches.
    normalized_mutual_info_score : The information scaled to [0, 1].
    adjusted_mutual_info_score : The information adjusted for chance.

    Examples
    --------
    >>> from fastmetrics import mutual_info_score
    >>> round(mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0]), 6)
    0.693147
    """
    if contingency is None:
        return st.mutual_info(_state(labels_true, labels_pred))
    return st.mutual_info(ContingencyState.from_table(contingency))


def adjusted_mutual_info_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                               average_method: AverageMethod = "arithmetic"
                              ) -> float:
    """The mutual information adjusted for chance.

    The expected mutual information is scikit-learn's sum with the tails below 1e-30 of each
    term's mass left out, which makes it fast; results agree to the last bits in the cases
    tested.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.
    average_method : {"arithmetic", "geometric", "min", "max"}, default="arithmetic"
        How the two entropies are averaged in the normaliser.

    Returns
    -------
    ami : float
        1.0 for identical partitions, about 0 for independent ones; may be negative.

    Raises
    ------
    ValueError
        If ``average_method`` is not one of the four (scikit-learn's
        ``InvalidParameterError``, a ``ValueError``); if the labellings differ in length,
        are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.adjusted_mutual_info_score : The scikit-learn function this one
        matches.
    expected_mutual_information : The chance term.
    adjusted_rand_score : Chance-adjusted agreement by pairs.

    Examples
    --------
    >>> from fastmetrics import adjusted_mutual_info_score
    >>> adjusted_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    st.check_average(average_method)
    return st.adjusted_mutual_info(_state(labels_true, labels_pred), average_method)


def normalized_mutual_info_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                                 average_method: AverageMethod = "arithmetic"
                                ) -> float:
    """The mutual information normalised by an average of the two entropies.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.
    average_method : {"arithmetic", "geometric", "min", "max"}, default="arithmetic"
        How the two entropies are averaged in the normaliser.

    Returns
    -------
    nmi : float
        Score between 0.0 and 1.0.

    Raises
    ------
    ValueError
        If ``average_method`` is not one of the four (scikit-learn's
        ``InvalidParameterError``, a ``ValueError``); if the labellings differ in length,
        are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.normalized_mutual_info_score : The scikit-learn function this one
        matches.
    adjusted_mutual_info_score : The chance-adjusted variant.

    Examples
    --------
    >>> from fastmetrics import normalized_mutual_info_score
    >>> normalized_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    st.check_average(average_method, "normalized_mutual_info_score")
    return st.normalized_mutual_info(_state(labels_true, labels_pred), average_method)


def fowlkes_mallows_score(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """The Fowlkes-Mallows index: the geometric mean of pairwise precision and recall.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    score : float
        Score between 0.0 and 1.0 (0.0 when no pair is together in both, as scikit-learn).

    Raises
    ------
    ValueError
        If the labellings differ in length, are not 1-D, or hold NaN.

    Warns
    -----
    UserWarning
        If a labelling holds non-integral floats (as scikit-learn).

    See Also
    --------
    sklearn.metrics.fowlkes_mallows_score : The scikit-learn function this one matches.
    pair_confusion_matrix : The pair counts it is computed from.

    Examples
    --------
    >>> from fastmetrics import fowlkes_mallows_score
    >>> fowlkes_mallows_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return st.fowlkes_mallows(_state(labels_true, labels_pred))


def expected_mutual_information(contingency: ArrayLike, n_samples: int) -> float:
    """The expected mutual information of two labellings with the cluster sizes of a
    contingency table (the chance term of ``adjusted_mutual_info_score``; not a table row:
    it takes a table, not labels).

    Parameters
    ----------
    contingency : array-like or sparse matrix of shape (n_classes_true, n_classes_pred)
        The contingency table whose row and column sums fix the cluster sizes.
    n_samples : int
        The number of samples (the table's total).

    Returns
    -------
    emi : float
        The expected mutual information, in nats.

    Raises
    ------
    TypeError
        If ``n_samples`` is not an integer.
    ValueError
        If ``contingency`` is not 2-D or is empty.

    See Also
    --------
    sklearn.metrics.cluster.expected_mutual_information : The scikit-learn function this
        one matches (to the last bits in the cases tested; tails below 1e-30 of each term's
        mass are left out).
    adjusted_mutual_info_score : The score that subtracts this term.

    Examples
    --------
    >>> from fastmetrics.cluster import expected_mutual_information
    >>> round(expected_mutual_information([[2, 1], [0, 3]], 6), 6)
    0.127303
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)):
        raise TypeError(f"n_samples must be an integer, got {n_samples!r}")
    return st.expected_mutual_info(ContingencyState.from_table(contingency), int(n_samples))
