"""Ranking metrics: ROC AUC, average precision and their curves, NDCG and MRR.

Each binary function validates its input and either builds a
:class:`~fastmetrics.states.RankingState` (the sorted summary: distinct scores with the weight
of each class, what the curves and ``max_fpr`` need, mergeable) and derives the metric from
it, or, for ROC AUC and average precision, asks the same kernel pass for the four statistics
they reduce to (:mod:`fastmetrics._states.ranking` says why). Multilabel and multiclass
targets are many binary problems counted in one kernel call.

Numbers, warnings and output dtypes follow scikit-learn 1.9.1's ``sklearn.metrics``. Sample
weights must be non-negative (a negative weight makes the curves non-monotonic: scikit-learn
returns meaningless numbers or fails later); ``n_threads`` sets the threads of the sort on
large inputs, with the same result for any value.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import warnings
from typing import TYPE_CHECKING, cast, overload

import numpy as np

from ._inputs import (
    check_lengths,
    column,
    inconsistent_lengths,
    nonfinite_error,
    sample_weight as check_weights,
)
from ._states import labelrank, ranking
from ._states.labelrank import LabelRankingState
from ._states.ranking import RankingState

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Literal, TypeVar

    from ._typing import ArrayLike, FloatArray, Label, NDArray, RankingAverage, Weights

    F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "roc_auc_score",
    "average_precision_score",
    "roc_curve",
    "precision_recall_curve",
    "det_curve",
    "confusion_matrix_at_thresholds",
    "metric_at_thresholds",
    "auc",
    "ndcg_score",
    "dcg_score",
    "mean_reciprocal_rank",
    "coverage_error",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
]


# ----------------------------------------------------------------------------- curves


def _curve_state(y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None,
                 pos_label: Label | None, n_threads: int | None,
                 more_error: str | None = None) -> tuple[RankingState, Label | None]:
    """The state of a curve's input and the positive label to derive it with
    (``more_error``: the error of more than two classes even with a ``pos_label``)."""
    lab, s, w, has_w = ranking.binary_inputs(y_true, y_score, sample_weight)
    if lab.more:
        if pos_label is None:
            raise ValueError("multiclass format is not supported")
        if more_error is not None:
            raise ValueError(more_error)
        # scikit-learn's curves take any labels with an explicit pos_label: the state of
        # its one-vs-rest problem, classes False / True
        lab, pos_label = ranking.Labels(lab.where(pos_label)), True
    return RankingState.from_labels(lab, s, w, has_w, n_threads), pos_label


def roc_curve(y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Label | None = None,
              sample_weight: ArrayLike | None = None, drop_intermediate: bool = True,
              n_threads: int | None = None) -> tuple[FloatArray, FloatArray, NDArray[Any]]:
    """Compute Receiver operating characteristic (ROC), like ``sklearn.metrics.roc_curve``.

    The scores are sorted once into a :class:`~fastmetrics.states.RankingState` (distinct
    scores with the weight of each class), which merges over chunks: the streaming
    accumulator and the Dask function give the same curve. Unlike scikit-learn, sample
    weights must be non-negative (a negative weight makes the curve non-monotonic).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels. If labels are not either {-1, 1} or {0, 1}, then
        ``pos_label`` should be explicitly given (then any labels are taken: the others are
        negatives).
    y_score : array-like of shape (n_samples,)
        Target scores (probabilities or decision values); must be finite.
    pos_label : int, float, bool or str, default=None
        The label of the positive class (1 when None and y_true is {0, 1} or {-1, 1}).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights; zero-weight samples do not create thresholds.
    drop_intermediate : bool, default=True
        Drop thresholds whose point is collinear with its neighbours in ROC space.
    n_threads : int or None, default=None
        Threads of the sort on inputs of 2**17 samples or more. None uses what OpenMP
        allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other
        process is running on; an int >= 1 sets the count. Not a scikit-learn parameter:
        the result is the same for any value.

    Returns
    -------
    fpr : ndarray of shape (>2,)
        Increasing false positive rates.
    tpr : ndarray of shape (>2,)
        Increasing true positive rates.
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing thresholds (float64); the first one is ``np.inf``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_score`` differ in length, are empty, are not 1-D, hold NaN
        or infinity, or ``y_score`` holds non-numbers; if ``y_true`` has more than two
        classes and no ``pos_label``, or labels other than {0, 1} / {-1, 1} without a
        ``pos_label``; if ``sample_weight`` has the wrong length, NaN, negative values or
        is all zero; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        If ``y_true`` has no positive or no negative sample (``tpr`` or ``fpr`` is NaN).

    See Also
    --------
    sklearn.metrics.roc_curve : The scikit-learn function this one matches.
    roc_auc_score : The area under this curve, without building it.
    det_curve : Error rates of both kinds against the threshold.
    precision_recall_curve : Precision and recall against the threshold.

    Notes
    -----
    The scores are sorted by a radix sort of order-preserving integer keys; the call
    allocates 2 N uint64 keys (plus 2 N doubles with sample weights) and the outputs.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import roc_curve
    >>> fpr, tpr, thresholds = roc_curve(np.array([1, 1, 2, 2]),
    ...                                  np.array([0.1, 0.4, 0.35, 0.8]), pos_label=2)
    >>> fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    >>> tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    >>> thresholds
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])
    """
    state, pos_label = _curve_state(y_true, y_score, sample_weight, pos_label, n_threads)
    result: tuple[FloatArray, FloatArray, NDArray[Any]]
    result = ranking.roc(state, pos_label, drop_intermediate)
    return result


def precision_recall_curve(y_true: ArrayLike, y_score: ArrayLike, *,
                           pos_label: Label | None = None, sample_weight: ArrayLike | None = None,
                           drop_intermediate: bool = False,
                           n_threads: int | None = None
                          ) -> tuple[FloatArray, FloatArray, NDArray[Any]]:
    """Compute precision-recall pairs for different thresholds, like
    ``sklearn.metrics.precision_recall_curve``.

    Derived from the same mergeable sorted state as :func:`roc_curve` (streaming and Dask
    faces give the same curve). Sample weights must be non-negative.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels. If labels are not either {-1, 1} or {0, 1}, then
        ``pos_label`` should be explicitly given.
    y_score : array-like of shape (n_samples,)
        Target scores; must be finite.
    pos_label : int, float, bool or str, default=None
        The label of the positive class (1 when None and y_true is {0, 1} or {-1, 1}).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    drop_intermediate : bool, default=False
        Keep only the first and last threshold of each run of equal true-positive weight.
    n_threads : int or None, default=None
        Threads of the sort on inputs of 2**17 samples or more. None uses what OpenMP
        allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other
        process is running on; an int >= 1 sets the count. Not a scikit-learn parameter:
        the result is the same for any value.

    Returns
    -------
    precision : ndarray of shape (n_thresholds + 1,)
        Precision at each threshold; the last element is 1.
    recall : ndarray of shape (n_thresholds + 1,)
        Decreasing recall; the last element is 0.
    thresholds : ndarray of shape (n_thresholds,)
        Increasing thresholds, in ``y_score``'s dtype.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_score`` differ in length, are empty, are not 1-D, hold NaN
        or infinity, or ``y_score`` holds non-numbers; if ``y_true`` has more than two
        classes and no ``pos_label``, or labels other than {0, 1} / {-1, 1} without a
        ``pos_label``; if ``sample_weight`` has the wrong length, NaN, negative values or
        is all zero; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UserWarning
        If ``y_true`` has no positive sample (recall is then 1 at every threshold).

    See Also
    --------
    sklearn.metrics.precision_recall_curve : The scikit-learn function this one matches.
    average_precision_score : The step-wise area under this curve.
    roc_curve : True and false positive rates against the threshold.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import precision_recall_curve
    >>> precision, recall, thresholds = precision_recall_curve(
    ...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> precision
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    >>> thresholds
    array([0.1 , 0.35, 0.4 , 0.8 ])
    """
    a = y_score if type(y_score) is np.ndarray else np.asarray(y_score)
    state, pos_label = _curve_state(y_true, a, sample_weight, pos_label, n_threads)
    precision, recall, thr = ranking.precision_recall(state, pos_label, drop_intermediate)
    return precision, recall, thr.astype(a.dtype.newbyteorder("="), copy=False)


def det_curve(y_true: ArrayLike, y_score: ArrayLike, pos_label: Label | None = None,
              sample_weight: ArrayLike | None = None, drop_intermediate: bool = False, *,
              n_threads: int | None = None) -> tuple[FloatArray, FloatArray, NDArray[Any]]:
    """Detection error tradeoff (DET) curve, like ``sklearn.metrics.det_curve``.

    Derived from the same mergeable sorted state as :func:`roc_curve` (streaming and Dask
    faces give the same curve). Sample weights must be non-negative.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels. If labels are not either {-1, 1} or {0, 1}, then
        ``pos_label`` should be explicitly given.
    y_score : array-like of shape (n_samples,)
        Target scores; must be finite.
    pos_label : int, float, bool or str, default=None
        The label of the positive class (1 when None and y_true is {0, 1} or {-1, 1}).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    drop_intermediate : bool, default=False
        Drop thresholds where the true positive weight equals that of both neighbours.
    n_threads : int or None, default=None
        Threads of the sort on inputs of 2**17 samples or more. None uses what OpenMP
        allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other
        process is running on; an int >= 1 sets the count. Not a scikit-learn parameter:
        the result is the same for any value.

    Returns
    -------
    fpr : ndarray of shape (n_thresholds,)
        Decreasing false positive rates (score >= threshold).
    fnr : ndarray of shape (n_thresholds,)
        Increasing false negative rates (score < threshold).
    thresholds : ndarray of shape (n_thresholds,)
        Increasing thresholds (float64), ``inf`` last where no finite threshold reaches a
        false positive rate of 0.

    Raises
    ------
    ValueError
        If ``y_true`` has only one class; if ``y_true`` and ``y_score`` differ in length,
        are empty, are not 1-D, hold NaN or infinity, or ``y_score`` holds non-numbers; if
        ``y_true`` has more than two classes and no ``pos_label``, or labels other than
        {0, 1} / {-1, 1} without a ``pos_label``; if ``sample_weight`` has the wrong length,
        NaN, negative values or is all zero; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.det_curve : The scikit-learn function this one matches.
    roc_curve : The ROC curve of the same data.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import det_curve
    >>> fpr, fnr, thresholds = det_curve(np.array([0, 0, 1, 1]),
    ...                                  np.array([0.1, 0.4, 0.35, 0.8]))
    >>> fpr
    array([0.5, 0.5, 0. ])
    >>> fnr
    array([0. , 0.5, 0.5])
    >>> thresholds
    array([0.35, 0.4 , 0.8 ])
    """
    state, pos_label = _curve_state(y_true, y_score, sample_weight, pos_label, n_threads,
                                    ranking.DET_ONE_CLASS)
    result: tuple[FloatArray, FloatArray, NDArray[Any]]
    result = ranking.det(state, pos_label, drop_intermediate)
    return result


def _positional_deprecated(fn: F) -> F:
    """scikit-learn 1.9's ``_deprecate_positional_args(version="1.11")``: keyword-only
    parameters given by position still work, with its FutureWarning."""
    params = inspect.signature(fn).parameters
    n_pos = sum(p.kind is p.POSITIONAL_OR_KEYWORD for p in params.values())
    kwonly = [name for name, p in params.items() if p.kind is p.KEYWORD_ONLY]

    @functools.wraps(fn)
    def with_positional(*args: Any, **kwargs: Any) -> Any:
        extra = len(args) - n_pos
        if extra > 0:
            given = list(zip(kwonly[:extra], args[-extra:]))
            shown = ", ".join(f"{name}={arg}" for name, arg in given)
            warnings.warn(f"Pass {shown} as keyword args. From version 1.11 passing these as "
                          "positional arguments will result in an error", FutureWarning,
                          stacklevel=2)
            kwargs.update(given)
            args = args[:n_pos]
        return fn(*args, **kwargs)

    # functools.wraps keeps fn's signature for callers; mypy cannot see that
    return with_positional  # type: ignore[return-value]


@_positional_deprecated
def confusion_matrix_at_thresholds(y_true: ArrayLike, y_score: ArrayLike, *,
                                   pos_label: Label | None = None,
                                   sample_weight: ArrayLike | None = None,
                                   n_threads: int | None = None
                                  ) -> tuple[NDArray[Any], ...]:
    """Binary confusion matrix terms at every threshold, like
    ``sklearn.metrics.confusion_matrix_at_thresholds``.

    Derived from the same mergeable sorted state as :func:`roc_curve`. As in scikit-learn
    1.9, parameters after ``y_score`` given by position still work with a ``FutureWarning``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels (any labels with an explicit ``pos_label``).
    y_score : array-like of shape (n_samples,)
        Target scores; must be finite.
    pos_label : int, float, bool or str, default=None
        The label of the positive class (1 when None and y_true is {0, 1} or {-1, 1}).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights; zero-weight samples do not create thresholds.
    n_threads : int or None, default=None
        Threads of the sort on inputs of 2**17 samples or more. None uses what OpenMP
        allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other
        process is running on; an int >= 1 sets the count. Not a scikit-learn parameter:
        the result is the same for any value.

    Returns
    -------
    tns : ndarray of shape (n_thresholds,)
        Weight (count without ``sample_weight``, as float64) of true negatives when
        predicting positive at ``score >= thresholds[i]``.
    fps : ndarray of shape (n_thresholds,)
        Weight of false positives at each threshold.
    fns : ndarray of shape (n_thresholds,)
        Weight of false negatives at each threshold.
    tps : ndarray of shape (n_thresholds,)
        Weight of true positives at each threshold.
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing distinct scores, in ``y_score``'s dtype.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_score`` differ in length, are empty, are not 1-D, hold NaN
        or infinity, or ``y_score`` holds non-numbers; if ``y_true`` has more than two
        classes and no ``pos_label``, or labels other than {0, 1} / {-1, 1} without a
        ``pos_label``; if ``sample_weight`` has the wrong length, NaN, negative values or
        is all zero; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    FutureWarning
        If ``pos_label``, ``sample_weight`` or ``n_threads`` is given by position.

    See Also
    --------
    sklearn.metrics.confusion_matrix_at_thresholds : The scikit-learn function this one
        matches.
    metric_at_thresholds : Any metric at every threshold.
    roc_curve : The rates these counts give.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import confusion_matrix_at_thresholds
    >>> tns, fps, fns, tps, thresholds = confusion_matrix_at_thresholds(
    ...     np.array([0., 0., 1., 1.]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> tns
    array([2., 1., 1., 0.])
    >>> tps
    array([1., 1., 2., 2.])
    >>> thresholds
    array([0.8 , 0.4 , 0.35, 0.1 ])
    """
    a = y_score if type(y_score) is np.ndarray else np.asarray(y_score)
    state, pos_label = _curve_state(y_true, a, sample_weight, pos_label, n_threads)
    tns, fps, fns, tps, thr = ranking.confusion_at_thresholds(state, pos_label)
    return tns, fps, fns, tps, thr.astype(a.dtype.newbyteorder("="), copy=False)


def metric_at_thresholds(y_true: ArrayLike, y_score: ArrayLike, metric_func: Callable[..., Any], *,
                         sample_weight: ArrayLike | None = None,
                         metric_params: Mapping[str, Any] | None = None
                        ) -> tuple[NDArray[Any], NDArray[Any]]:
    """``metric_func`` at every threshold of binary data, like
    ``sklearn.metrics.metric_at_thresholds``.

    ``metric_func(y_true, y_pred, **metric_params)`` is called once per distinct score with
    ``y_pred = (y_score >= threshold)`` (int32) over the samples sorted by decreasing score
    (zero-weight samples left out, ``sample_weight`` passed on when given), as
    scikit-learn does. Not mergeable: ``metric_func`` needs the samples, so there is no
    accumulator method or Dask function; for the confusion terms at every threshold use
    :func:`confusion_matrix_at_thresholds`, which is.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_score : array-like of shape (n_samples,)
        Scores; must be finite.
    metric_func : callable
        ``metric_func(y_true, y_pred, **metric_params)``: a number or a collection of
        numbers of the same size at every threshold.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights, passed on to ``metric_func`` (their values are not checked here).
    metric_params : dict, default=None
        Further keyword arguments of ``metric_func``.

    Returns
    -------
    metric_values : ndarray of shape (n_thresholds,) or (n_thresholds, ...)
        The value of ``metric_func`` at each threshold (its output's shape after the
        first axis).
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing distinct scores.

    Raises
    ------
    TypeError
        If ``metric_func`` is not callable or ``metric_params`` is neither a dict nor
        None.
    ValueError
        If ``y_true`` and ``y_score`` (or ``sample_weight``) differ in length, or either
        holds NaN or infinity.

    See Also
    --------
    sklearn.metrics.metric_at_thresholds : The scikit-learn function this one matches.
    confusion_matrix_at_thresholds : The confusion terms at every threshold, mergeable.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import accuracy_score, metric_at_thresholds
    >>> values, thresholds = metric_at_thresholds(
    ...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]), accuracy_score)
    >>> thresholds
    array([0.8 , 0.4 , 0.35, 0.1 ])
    >>> values
    array([0.75, 0.5 , 0.75, 0.5 ])
    """
    if not callable(metric_func):
        raise TypeError("The 'metric_func' parameter of metric_at_thresholds must be a "
                        f"callable. Got {metric_func!r} instead.")
    if metric_params is not None and not isinstance(metric_params, dict):
        raise TypeError("The 'metric_params' parameter of metric_at_thresholds must be an "
                        f"instance of 'dict' or None. Got {metric_params!r} instead.")
    y = column(y_true, "y_true")
    s = column(y_score, "y_score")
    check_lengths(y_true=y, y_score=s)
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise nonfinite_error(y, "y_true")
    if s.dtype.kind in "fc" and not np.isfinite(s).all():
        raise nonfinite_error(s, None)
    w = check_weights(sample_weight, {"y_true": y.shape[0], "y_score": s.shape[0]},
                      allow_zero_sum=True)
    if w is not None:
        keep = w != 0
        y, s, w = y[keep], s[keep], w[keep]
    if s.shape[0] == 0:  # no threshold to evaluate (scikit-learn fails with an IndexError)
        raise ValueError("metric_at_thresholds needs at least one sample"
                         + (" with a non-zero sample_weight" if w is not None else ""))
    # decreasing scores, ties in input order (a stable sort of the reversed array, reversed)
    order = s.shape[0] - 1 - np.argsort(s[::-1], kind="stable")[::-1]
    s, y = s[order], y[order]
    params = dict(metric_params or {})
    if w is not None:
        params["sample_weight"] = w[order]
    thresholds = s[np.append(np.flatnonzero(np.diff(s)), s.shape[0] - 1)]
    values = [metric_func(y, (s >= t).astype(np.int32), **params) for t in thresholds]
    return np.asarray(values), thresholds


def auc(x: ArrayLike, y: ArrayLike) -> float:
    """Area under a curve by the trapezoidal rule, like ``sklearn.metrics.auc``.

    A plain function of the curve's points (no data, so nothing to merge).

    Parameters
    ----------
    x : array-like of shape (n,)
        X coordinates, monotonic increasing or monotonic decreasing.
    y : array-like of shape (n,)
        Y coordinates.

    Returns
    -------
    auc : float
        The area (negative x steps of a decreasing ``x`` are counted as positive).

    Raises
    ------
    ValueError
        If ``x`` and ``y`` differ in length or are not 1-D (an (n, 1) column is taken),
        if there are fewer than two points, or if ``x`` is neither increasing nor
        decreasing.

    See Also
    --------
    sklearn.metrics.auc : The scikit-learn function this one matches.
    roc_auc_score : The area under the ROC curve straight from scores.
    average_precision_score : The step-wise area under the precision-recall curve.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import auc, roc_curve
    >>> fpr, tpr, _ = roc_curve(np.array([1, 1, 2, 2]), np.array([0.1, 0.4, 0.35, 0.8]),
    ...                         pos_label=2)
    >>> auc(fpr, tpr)
    0.75
    """
    xa = np.asarray(x)
    ya = np.asarray(y)
    check_lengths(x=xa, y=ya)
    xa = _curve_points(xa)
    ya = _curve_points(ya)
    if xa.shape[0] < 2:
        raise ValueError("At least 2 points are needed to compute area under curve, but "
                         f"x.shape = {xa.shape[0]}")
    direction = 1
    dx = np.diff(xa)
    if np.any(dx < 0):
        if np.all(dx <= 0):
            direction = -1
        else:
            raise ValueError(f"x is neither increasing nor decreasing : {xa}.")
    area = direction * np.trapezoid(ya, xa)
    return float(area)


def _curve_points(a: np.ndarray) -> np.ndarray:
    """scikit-learn's ``column_or_1d``: 1-D, an (n, 1) column raveled, else its error."""
    if a.ndim == 2 and a.shape[1] == 1:
        return a[:, 0]
    if a.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {a.shape} instead.")
    return a


# ----------------------------------------------------------------------------- scores
@overload
def roc_auc_score(y_true: ArrayLike, y_score: ArrayLike, *,
                  average: RankingAverage = ...,
                  sample_weight: ArrayLike | None = ..., max_fpr: float | None = ...,
                  multi_class: Literal["raise", "ovr", "ovo"] = ...,
                  labels: ArrayLike | None = ..., n_threads: int | None = ...) -> float: ...


@overload
def roc_auc_score(y_true: ArrayLike, y_score: ArrayLike, *, average: None,
                  sample_weight: ArrayLike | None = ..., max_fpr: float | None = ...,
                  multi_class: Literal["raise", "ovr", "ovo"] = ...,
                  labels: ArrayLike | None = ..., n_threads: int | None = ...) -> FloatArray: ...


def roc_auc_score(y_true: ArrayLike, y_score: ArrayLike, *,
                  average: RankingAverage | None = "macro",
                  sample_weight: ArrayLike | None = None, max_fpr: float | None = None,
                  multi_class: Literal["raise", "ovr", "ovo"] = "raise",
                  labels: ArrayLike | None = None,
                  n_threads: int | None = None) -> float | FloatArray:
    """Area under the ROC curve, like ``sklearn.metrics.roc_auc_score``.

    Binary, multilabel-indicator and multiclass (``multi_class="ovr"`` or ``"ovo"``)
    targets. A tied positive/negative pair counts one half (trapezoidal rule). The binary
    score comes from four statistics of one sorting pass (no curve is built); with
    ``max_fpr`` the curve's state is built. Sample weights must be non-negative (scikit-learn
    takes negative ones and returns meaningless numbers).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels or a binary label indicator matrix.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Target scores; finite. For binary ``y_true``, the score of the greater label; for
        multiclass, probabilities that sum to 1 over the classes.
    average : {"micro", "macro", "samples", "weighted"} or None, default="macro"
        Averaging over classes (multilabel / multiclass); ignored for binary ``y_true``.
        None returns the score of each class. Multiclass ``"ovo"`` takes only "macro",
        "weighted" or None.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights (not with ``multi_class="ovo"``).
    max_fpr : float or None, default=None
        If set (in (0, 1]), the standardized (McClish-corrected) partial AUC over
        [0, max_fpr]; binary and multilabel only.
    multi_class : {"raise", "ovr", "ovo"}, default="raise"
        Multiclass scheme: one-vs-rest or Hand & Till's one-vs-one; "raise" refuses
        multiclass targets.
    labels : array-like of shape (n_classes,), default=None
        Multiclass only: the labels indexing the columns of ``y_score``.
    n_threads : int or None, default=None
        Threads of the sort on inputs of 2**17 samples or more. None uses what OpenMP
        allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other
        process is running on; an int >= 1 sets the count. Not a scikit-learn parameter:
        the result is the same for any value.

    Returns
    -------
    auc : float or ndarray of shape (n_classes,)
        The score (an array per class with ``average=None``); NaN when ``y_true`` (or a
        label column) has one class.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_score`` differ in length or shape, are empty, hold NaN or
        infinity, or ``y_score`` holds non-numbers; if ``average``, ``multi_class`` or
        ``max_fpr`` is not an allowed value; for multiclass targets: if ``multi_class`` is
        "raise", ``max_fpr`` is set, the scores do not sum to 1 over the classes,
        ``labels`` are not unique or miss a label of ``y_true``, ``sample_weight`` is given
        with "ovo", or ``average`` is "micro" or "samples" with "ovo"; if
        ``sample_weight`` has the wrong length, NaN, negative values or is all zero; if
        ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        If ``y_true`` (or a label column) has only one class: that score is NaN.

    See Also
    --------
    sklearn.metrics.roc_auc_score : The scikit-learn function this one matches.
    roc_curve : The curve whose area this is.
    average_precision_score : The area under the precision-recall curve.
    fastmetrics.delong_ci : A confidence interval for this score.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import roc_auc_score
    >>> roc_auc_score(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    0.75
    """
    if (sample_weight is None and max_fpr is None and labels is None
            and type(average) is str and average == "macro"
            and type(multi_class) is str and multi_class == "raise"):
        auc = ranking.plain(y_true, y_score, 0, n_threads)
        if auc is not None:
            return auc
    ranking.check_max_fpr(max_fpr)
    ranking.check_multi_class(multi_class)
    ranking.check_average(average)
    ind = ranking.indicator(y_true)
    if ind is not None:  # multilabel-indicator
        s = ranking.scores_2d(y_score, ind.shape[0], ind.shape[1])
        def partial_auc(state: RankingState) -> float:
            return ranking.roc_auc(state, max_fpr=max_fpr)

        # a partial AUC needs each column's curve: one state per column
        of_state = partial_auc if max_fpr not in (None, 1) else None
        result: float | FloatArray
        result = ranking.average_columns(ranking.auc_value, ind, s, average, sample_weight,
                                         n_threads, of_state=of_state)
        return result
    lab = ranking.Labels(y_true)
    s = ranking.scores(y_score)
    if lab.more or (s.ndim == 2 and s.shape[1] > 2):
        if max_fpr is not None and max_fpr != 1.0:
            raise ValueError(
                "Partial AUC computation not available in multiclass setting, 'max_fpr' must "
                f"be set to `None`, received `max_fpr={max_fpr}` instead")
        if multi_class == "raise":
            raise ValueError("multi_class must be in ('ovo', 'ovr')")
        result = ranking.multiclass_roc_auc(y_true, lab, s, labels, multi_class, average,
                                            sample_weight, n_threads)
        return result
    if s.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {s.shape} instead.")
    n = lab.y.shape[0]
    ranking.check_score_lengths(n, s.shape[0], sample_weight)
    w, has_w = ranking.weights(sample_weight, {"y_true": n, "y_score": n})
    if max_fpr is None or max_fpr == 1:  # the statistics of the greater label suffice
        positive = lab.classes[-1] if lab.classes.shape[0] == 2 else None
        return ranking.auc_value(ranking.statistics(lab, s, w, has_w, positive, n_threads))
    return ranking.roc_auc(RankingState.from_labels(lab, s, w, has_w, n_threads),
                           max_fpr=max_fpr)


@overload
def average_precision_score(y_true: ArrayLike, y_score: ArrayLike, *,
                            average: RankingAverage = ...,
                            pos_label: Label = ..., sample_weight: ArrayLike | None = ...,
                            n_threads: int | None = ...) -> float: ...


@overload
def average_precision_score(y_true: ArrayLike, y_score: ArrayLike, *, average: None,
                            pos_label: Label = ..., sample_weight: ArrayLike | None = ...,
                            n_threads: int | None = ...) -> FloatArray: ...


def average_precision_score(y_true: ArrayLike, y_score: ArrayLike, *,
                            average: RankingAverage | None = "macro",
                            pos_label: Label = 1, sample_weight: ArrayLike | None = None,
                            n_threads: int | None = None) -> float | FloatArray:
    """Average precision (AP) from prediction scores, like
    ``sklearn.metrics.average_precision_score``.

    ``AP = sum_n (R_n - R_{n-1}) P_n`` over the thresholds (the step-wise sum, not a
    trapezoid). The binary score comes from statistics of one sorting pass (no curve is
    built). Sample weights must be non-negative.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True binary labels, a label indicator matrix, or multiclass labels (each class
        against the rest).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Target scores; finite. One column per class for indicator and multiclass targets.
    average : {"micro", "samples", "weighted", "macro"} or None, default="macro"
        Averaging over classes; ignored for binary ``y_true``. None returns the score of
        each class.
    pos_label : int, float, bool or str, default=1
        The positive class (binary ``y_true`` only; must stay 1 for the others).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    n_threads : int or None, default=None
        Threads of the sort on inputs of 2**17 samples or more. None uses what OpenMP
        allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other
        process is running on; an int >= 1 sets the count. Not a scikit-learn parameter:
        the result is the same for any value.

    Returns
    -------
    average_precision : float or ndarray of shape (n_classes,)
        The AP (in [0, 1]); an array per class with ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_score`` differ in length or shape, are empty, hold NaN or
        infinity, or ``y_score`` holds non-numbers; if ``average`` is not an allowed value;
        if ``pos_label`` is not a label of binary ``y_true``, or is not 1 for multilabel or
        multiclass ``y_true``; if multiclass ``y_score`` has not one column per class; if
        ``sample_weight`` has the wrong length, NaN, negative values or is all zero; if
        ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UserWarning
        If ``y_true`` has no positive sample (the AP is then 0).

    See Also
    --------
    sklearn.metrics.average_precision_score : The scikit-learn function this one matches.
    precision_recall_curve : The curve this sums.
    roc_auc_score : The area under the ROC curve.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import average_precision_score
    >>> average_precision_score(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    0.8333333333333333
    """
    if (sample_weight is None and type(pos_label) is int and pos_label == 1
            and type(average) is str and average == "macro"):
        ap = ranking.plain(y_true, y_score, 1, n_threads)
        if ap is not None:
            return ap
    ranking.check_average(average)
    ind = ranking.indicator(y_true)
    if ind is not None:
        if pos_label != 1:
            raise ValueError(
                "Parameter pos_label is fixed to 1 for multilabel-indicator y_true. Do not set "
                "pos_label or set pos_label to 1.")
        s = ranking.scores_2d(y_score, ind.shape[0])
        if s.shape != ind.shape:
            raise ValueError(f"y_true and y_score have different shapes: {ind.shape} and {s.shape}")
        result: float | FloatArray
        result = ranking.average_columns(ranking.ap_value, ind, s, average, sample_weight,
                                         n_threads)
        return result
    lab = ranking.Labels(y_true)
    if lab.more:
        if pos_label != 1:
            raise ValueError(
                "Parameter pos_label is fixed to 1 for multiclass y_true. Do not set pos_label "
                "or set pos_label to 1.")
        a = y_true if type(y_true) is np.ndarray else np.asarray(y_true)
        classes = lab.classes if lab.encoded else np.unique(a)
        codes = lab.y if lab.encoded else np.searchsorted(classes, a.reshape(-1))
        s = ranking.scores_2d(y_score, lab.y.shape[0])
        if s.shape[1] != classes.shape[0]:
            raise ValueError(
                "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` "
                f"contains multiple classes. Got `y_score.shape={s.shape}`.")
        ind = codes[:, None] == np.arange(classes.shape[0])
        result = ranking.average_columns(ranking.ap_value, ind, s, average, sample_weight,
                                         n_threads)
        return result
    s = ranking.scores(y_score)
    if s.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {s.shape} instead.")
    n = lab.y.shape[0]
    ranking.check_score_lengths(n, s.shape[0], sample_weight)
    w, has_w = ranking.weights(sample_weight, {"y_true": n, "y_score": n})
    ranking.check_ap_pos_label(lab.classes, pos_label)
    return ranking.ap_value(ranking.statistics(lab, s, w, has_w, pos_label, n_threads))


# ----------------------------------------------------------------------------- NDCG / MRR
def _check_k(k: object) -> int | None:
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an int >= 1 or None, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return int(k)


def _values(a: ArrayLike, name: str) -> FloatArray:
    """Finite float64 values (scikit-learn checks the values of both inputs before any
    shape)."""
    a = a if type(a) is np.ndarray else np.asarray(a)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {a.dtype}")
    a = a.astype(np.float64, copy=False)
    if not np.isfinite(a).all():
        raise nonfinite_error(a, None)
    return a


def _matrix(a: ArrayLike, name: str) -> FloatArray:
    a = _values(a, name)
    if a.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D (n_samples, n_labels) array, got shape {a.shape}"
        )
    if a.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one sample is required")
    return a


def _weights(sample_weight: ArrayLike | None, n: int) -> FloatArray | None:
    """Weights of the sample average (any sign, as np.average takes them; weights summing
    to zero raise its ZeroDivisionError, as in scikit-learn)."""
    weights: FloatArray | None = check_weights(sample_weight, {"y_true": n, "y_score": n},
                                               allow_zero_sum=True, check_values=False)
    return weights


def _dcg(gains: FloatArray, scores: FloatArray, discount: FloatArray,
         ignore_ties: bool) -> FloatArray:
    """Per-row DCG: gains ranked by decreasing scores, ties averaged (all rows at once)."""
    n, m = gains.shape
    if ignore_ties:
        ranking = np.argsort(scores)[:, ::-1]  # the same order scikit-learn uses
        ranked = np.take_along_axis(gains, ranking, axis=1)
        dcg: FloatArray = discount.dot(ranked.T)
        return dcg
    order = np.argsort(-scores, axis=1, kind="stable")
    s = np.take_along_axis(scores, order, axis=1)
    g = np.take_along_axis(gains, order, axis=1)
    start = np.ones((n, m), dtype=bool)
    start[:, 1:] = s[:, 1:] != s[:, :-1]
    gid = np.cumsum(start.ravel()) - 1
    n_groups = gid[-1] + 1
    cnt = np.bincount(gid, minlength=n_groups)
    gsum = np.bincount(gid, weights=g.ravel(), minlength=n_groups)
    dsum = np.bincount(gid, weights=np.broadcast_to(discount, (n, m)).ravel(),
                       minlength=n_groups)
    row = np.broadcast_to(np.arange(n)[:, None], (n, m))[start]
    # float64 (weighted), though numpy's stubs type every bincount as integer counts
    return cast("FloatArray", np.bincount(row, weights=gsum / cnt * dsum, minlength=n))


def ndcg_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
               sample_weight: Weights = None, ignore_ties: bool = False) -> float:
    """Normalized Discounted Cumulative Gain, like ``sklearn.metrics.ndcg_score``.

    Gains ``y_true`` are ranked by decreasing ``y_score`` with a ``1 / log2(rank + 1)``
    discount, summed over the first ``k`` ranks and divided by the best possible DCG. Tied
    scores share the average gain of their group (unless ``ignore_ties``). All rows are
    handled at once by vectorised numpy (a sort per row, no Python loop over rows). A row
    whose best DCG is 0 scores 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Non-negative relevance of each label.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores; finite.
    k : int, default=None
        Only the ``k`` highest-ranked positions count (``k >= 1``); None counts all.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the average (used as ``numpy.average`` takes them).
    ignore_ties : bool, default=False
        Assume no ties (faster; ties are then broken by ``np.argsort``'s order).

    Returns
    -------
    normalized_discounted_cumulative_gain : float
        The weighted mean NDCG, in [0, 1].

    Raises
    ------
    ValueError
        If ``y_true`` or ``y_score`` is not a non-empty numeric 2-D array, holds NaN or
        infinity, or their shapes differ; if ``y_true`` has a negative value or only one
        column; if ``k`` < 1; if ``sample_weight`` has the wrong length.
    TypeError
        If ``k`` is neither an int nor None.
    ZeroDivisionError
        If the sample weights sum to zero (``numpy.average``, as scikit-learn).

    See Also
    --------
    sklearn.metrics.ndcg_score : The scikit-learn function this one matches.
    dcg_score : The unnormalized gain.
    mean_reciprocal_rank : The reciprocal rank of the first relevant label.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import ndcg_score
    >>> ndcg_score(np.array([[10, 0, 0, 1, 5]]), np.array([[.1, .2, .3, 4, 70]]))
    0.6956940443813076
    """
    k = _check_k(k)
    yt, ys = _values(y_true, "y_true"), _values(y_score, "y_score")
    yt, ys = _matrix(yt, "y_true"), _matrix(ys, "y_score")
    if yt.shape != ys.shape:
        raise ValueError(f"y_true and y_score have different shapes: {yt.shape} and {ys.shape}")
    sample_weight = _weights(sample_weight, yt.shape[0])
    if yt.min() < 0:
        raise ValueError("ndcg_score should not be used on negative y_true values.")
    if yt.shape[1] <= 1:
        raise ValueError(
            "Computing NDCG is only meaningful when there is more than 1 document. "
            f"Got {yt.shape[1]} instead."
        )
    m = yt.shape[1]
    discount = 1 / (np.log(np.arange(m) + 2) / np.log(2))
    if k is not None:
        discount[k:] = 0
    gain = _dcg(yt, ys, discount, ignore_ties)
    norm = discount.dot(-np.sort(-yt, axis=1).T)
    irrelevant = norm == 0
    gain[irrelevant] = 0
    gain[~irrelevant] /= norm[~irrelevant]
    return float(np.average(gain, weights=sample_weight))


_DCG_TARGETS = ("multilabel-indicator", "continuous-multioutput", "multiclass-multioutput")


def _dcg_target(yt: np.ndarray) -> None:
    """scikit-learn's target-type check of ``dcg_score``: a 2-D matrix of several columns."""
    if yt.ndim == 2 and yt.shape[1] > 1:
        return
    flat = yt.reshape(-1)
    if np.any(flat != np.floor(flat)):
        kind = "continuous"
    else:
        kind = "binary" if np.unique(flat).shape[0] <= 2 else "multiclass"
    if yt.ndim > 2:
        kind = "unknown"
    raise ValueError(f"Only {_DCG_TARGETS} formats are supported. Got {kind} instead")


def dcg_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None, log_base: float = 2,
              sample_weight: Weights = None, ignore_ties: bool = False) -> float:
    """Discounted Cumulative Gain, like ``sklearn.metrics.dcg_score``.

    Gains ``y_true`` ranked by decreasing ``y_score`` with a ``1 / log_base(rank + 1)``
    discount, summed over the first ``k`` ranks and averaged over the samples. Tied scores
    share the average gain of their group (unless ``ignore_ties``). All rows are handled at
    once by vectorised numpy, as :func:`ndcg_score`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Gains (relevance) of each label.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores; finite.
    k : int, default=None
        Only the ``k`` highest-ranked positions count (``k >= 1``); None counts all.
    log_base : float, default=2
        Base of the logarithm of the discount (> 0).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the average (used as ``numpy.average`` takes them).
    ignore_ties : bool, default=False
        Assume no ties (faster; ties are then broken by ``np.argsort``'s order).

    Returns
    -------
    discounted_cumulative_gain : float
        The weighted mean DCG.

    Raises
    ------
    ValueError
        If ``y_true`` is not a 2-D matrix of several columns, ``y_true`` or ``y_score`` is
        empty, non-numeric or holds NaN or infinity, or their shapes differ; if ``k`` < 1
        or ``log_base`` is not a finite number > 0; if ``sample_weight`` has the wrong
        length.
    TypeError
        If ``k`` is neither an int nor None.
    ZeroDivisionError
        If the sample weights sum to zero (``numpy.average``, as scikit-learn).

    See Also
    --------
    sklearn.metrics.dcg_score : The scikit-learn function this one matches.
    ndcg_score : The gain divided by the best possible one.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import dcg_score
    >>> round(dcg_score(np.array([[10, 0, 0, 1, 5]]), np.array([[.1, .2, .3, 4, 70]])), 2)
    9.5
    """
    k = _check_k(k)
    base = float(log_base) if (isinstance(log_base, numbers.Real)
                               and not isinstance(log_base, bool)) else float("nan")
    if not (0 < base < np.inf):
        raise ValueError("The 'log_base' parameter of dcg_score must be a float in the range "
                         f"(0.0, inf). Got {log_base!r} instead.")
    yt, ys = _values(y_true, "y_true"), _values(y_score, "y_score")
    if yt.shape[:1] != ys.shape[:1]:
        raise inconsistent_lengths(y_true=yt.shape[0] if yt.ndim else 1,
                                   y_score=ys.shape[0] if ys.ndim else 1)
    _dcg_target(yt)
    yt, ys = _matrix(yt, "y_true"), _matrix(ys, "y_score")
    if yt.shape != ys.shape:
        raise ValueError(f"y_true and y_score have different shapes: {yt.shape} and {ys.shape}")
    sample_weight = _weights(sample_weight, yt.shape[0])
    m = yt.shape[1]
    discount = 1 / (np.log(np.arange(m) + 2) / np.log(base))
    if k is not None:
        discount[k:] = 0
    return float(np.average(_dcg(yt, ys, discount, ignore_ties), weights=sample_weight))


def mean_reciprocal_rank(y_true: ArrayLike, y_score: ArrayLike, *,
                         sample_weight: Weights = None) -> float:
    """Mean reciprocal rank of the first relevant label.

    Not in scikit-learn. For each sample, the labels are ranked by decreasing score; the rank
    of the first relevant label is ``1 +`` the number of labels scored strictly higher than
    the best scored relevant label (ties are resolved in the relevant label's favour).
    Samples with no relevant label contribute 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels) or (n_samples,)
        Relevance (> 0 is relevant), or for 1-D input the column index of the one correct
        label of each sample.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores; finite.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean (used as ``numpy.average`` takes them).

    Returns
    -------
    mrr : float
        The weighted mean reciprocal rank, in [0, 1].

    Raises
    ------
    ValueError
        If ``y_score`` is not a non-empty numeric 2-D array or holds NaN or infinity; if a
        2-D ``y_true`` is not numeric, holds NaN or infinity or differs in shape; if a 1-D
        ``y_true`` differs in length or holds anything but integer column indices in
        [0, n_labels); if ``sample_weight`` has the wrong length.
    ZeroDivisionError
        If the sample weights sum to zero (``numpy.average``).

    See Also
    --------
    sklearn.metrics.label_ranking_average_precision_score : scikit-learn's closest
        measure, which counts every relevant label.
    ndcg_score : A graded-relevance ranking score.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import mean_reciprocal_rank
    >>> mean_reciprocal_rank(np.array([2, 0]), np.array([[.1, .5, .4], [.7, .2, .1]]))
    0.75
    """
    ys = _matrix(y_score, "y_score")
    n, m = ys.shape
    yt = y_true if type(y_true) is np.ndarray else np.asarray(y_true)
    if yt.ndim == 1:
        if yt.shape[0] != n:
            raise inconsistent_lengths(y_true=yt.shape[0], y_score=n)
        if yt.dtype.kind not in "iu" or (yt.size and (yt.min() < 0 or yt.max() >= m)):
            raise ValueError(
                f"1-D y_true must hold column indices in [0, {m}) of the correct label"
            )
        best = np.take_along_axis(ys, yt.astype(np.intp)[:, None], axis=1)[:, 0]
        has: NDArray[np.bool_] | np.bool_ = np.ones(n, dtype=bool)
    else:
        rel: NDArray[Any] = _matrix(yt, "y_true")
        if rel.shape != ys.shape:
            raise ValueError(
                f"y_true and y_score have different shapes: {rel.shape} and {ys.shape}"
            )
        rel = rel > 0
        best = np.where(rel, ys, -np.inf).max(axis=1)
        has = rel.any(axis=1)
    sample_weight = _weights(sample_weight, n)
    rank = (ys > best[:, None]).sum(axis=1) + 1
    rr = np.where(has, 1.0 / rank, 0.0)
    return float(np.average(rr, weights=sample_weight))


# ----------------------------------------------------------------------------- multilabel ranking
_MULTILABEL_PARAMS = """
    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        True binary labels in label indicator format (0/1; integer, bool or float; a scipy
        sparse matrix for LRAP and the ranking loss, made dense first).
    y_score : array-like of shape (n_samples, n_labels)
        Target scores; finite. float32 and float64 are read in place (C or F order).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.
    n_threads : int or None, default=None
        Threads of the kernel pass on inputs of 2**18 cells or more. None uses what
        OpenMP allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no
        other process is running on; an int >= 1 sets the count. Not a scikit-learn
        parameter: the result is the same for any value.
"""


def coverage_error(y_true: ArrayLike, y_score: ArrayLike, *,
                   sample_weight: ArrayLike | None = None, n_threads: int | None = None) -> float:
    """Coverage error, like ``sklearn.metrics.coverage_error``: how far down the ranked
    labels one must go to cover every relevant label (tied scores take the maximal rank),
    averaged over the samples; 0 for a sample without relevant labels.

    One kernel pass over the label-score cells (threads on large inputs).
    %s
    Returns
    -------
    coverage_error : float
        The weighted mean coverage (between the mean number of relevant labels and
        n_labels).

    Raises
    ------
    ValueError
        If ``y_true`` or ``y_score`` is 1-D, empty or their shapes differ; if ``y_true``
        is not a 0/1 indicator matrix of several columns; if ``y_score`` holds NaN or
        infinity; if ``sample_weight`` has the wrong length or NaN; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.
    ZeroDivisionError
        If the sample weights sum to zero (as scikit-learn).

    See Also
    --------
    sklearn.metrics.coverage_error : The scikit-learn function this one matches.
    label_ranking_loss : The fraction of wrongly ordered label pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import coverage_error
    >>> coverage_error(np.array([[1, 0, 0], [0, 0, 1]]),
    ...                np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]]))
    2.5
    """
    for name, a in (("y_true", y_true), ("y_score", y_score)):
        if np.ndim(a) == 1:
            raise ValueError(f"Expected 2D array, got 1D array instead: {name} must be an "
                             "(n_samples, n_labels) matrix.")
    return labelrank.coverage_of(y_true, y_score, sample_weight, n_threads)


def label_ranking_average_precision_score(y_true: ArrayLike, y_score: ArrayLike, *,
                                          sample_weight: ArrayLike | None = None,
                                          n_threads: int | None = None) -> float:
    """Label ranking average precision (LRAP), like
    ``sklearn.metrics.label_ranking_average_precision_score``: for each relevant label,
    the fraction of the labels scored at least as high that are relevant, averaged over the
    relevant labels, then over the samples (1 for a sample whose labels are all relevant or
    all irrelevant).

    One kernel pass into a mergeable state (streaming and Dask faces give the same value).
    %s
    Returns
    -------
    score : float
        The weighted mean LRAP, in (0, 1].

    Raises
    ------
    ValueError
        If ``y_true`` is not a 0/1 label indicator matrix, ``y_true`` or ``y_score`` is
        empty, or their shapes differ; if ``y_score`` holds NaN or infinity; if
        ``sample_weight`` has the wrong length or NaN; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    RuntimeWarning
        If the sample weights sum to zero (the result is then NaN or infinite, as
        scikit-learn's division gives).

    See Also
    --------
    sklearn.metrics.label_ranking_average_precision_score : The scikit-learn function
        this one matches.
    average_precision_score : The precision-recall average per label column.
    label_ranking_loss : The fraction of wrongly ordered label pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import label_ranking_average_precision_score
    >>> label_ranking_average_precision_score(np.array([[1, 0, 0], [0, 0, 1]]),
    ...                                       np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]]))
    0.41666666666666663
    """
    state = LabelRankingState.from_arrays(_dense(y_true), y_score, sample_weight, n_threads)
    return labelrank.lrap(state)


def label_ranking_loss(y_true: ArrayLike, y_score: ArrayLike, *,
                       sample_weight: ArrayLike | None = None,
                       n_threads: int | None = None) -> float:
    """Label ranking loss, like ``sklearn.metrics.label_ranking_loss``: the fraction of
    (relevant, irrelevant) label pairs ordered wrongly (a tie counts as wrong), averaged over
    the samples (0 for a sample whose labels are all relevant or all irrelevant).

    One kernel pass into a mergeable state (streaming and Dask faces give the same value).
    %s
    Returns
    -------
    loss : float
        The weighted mean ranking loss, in [0, 1].

    Raises
    ------
    ValueError
        If ``y_true`` is not a 0/1 label indicator matrix of several columns, ``y_true``
        or ``y_score`` is empty, or their shapes differ; if ``y_score`` holds NaN or
        infinity; if ``sample_weight`` has the wrong length or NaN; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.
    ZeroDivisionError
        If the sample weights sum to zero (as scikit-learn).

    See Also
    --------
    sklearn.metrics.label_ranking_loss : The scikit-learn function this one matches.
    coverage_error : How far down the ranking every relevant label is covered.
    label_ranking_average_precision_score : The precision of the ranking per relevant
        label.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import label_ranking_loss
    >>> label_ranking_loss(np.array([[1, 0, 0], [0, 0, 1]]),
    ...                    np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]]))
    0.75
    """
    state = LabelRankingState.from_arrays(_dense(y_true), y_score, sample_weight, n_threads)
    return labelrank.ranking_loss(state)


def _dense(y_true: Any) -> Any:
    """A scipy sparse ``y_true`` (which scikit-learn's LRAP and ranking loss take) as the
    dense matrix the kernel reads."""
    if hasattr(y_true, "toarray") and hasattr(y_true, "nnz"):
        return y_true.toarray()
    return y_true


for _f in (coverage_error, label_ranking_average_precision_score, label_ranking_loss):
    if _f.__doc__:  # None under python -OO
        _f.__doc__ = _f.__doc__ % _MULTILABEL_PARAMS
