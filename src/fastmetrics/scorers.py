"""scikit-learn scorer objects built on fastmetrics' functions.

``get_scorer(name)``, ``get_scorer_names()``, ``make_scorer`` and ``check_scoring`` mirror
:mod:`sklearn.metrics` and return scikit-learn's own scorer objects (made by
:func:`sklearn.metrics.make_scorer`), whose metric function is fastmetrics' counterpart: they
work wherever scikit-learn takes ``scoring=`` (``cross_validate``, ``GridSearchCV``, ...,
including ``n_jobs > 1``, since a scorer pickles its function by reference).

:func:`sklearn_scorers` is a context manager that makes scikit-learn's own scorer *strings*
(``GridSearchCV(..., scoring="f1_macro")``) use fastmetrics while it is active::

    with fastmetrics.sklearn_scorers():
        GridSearchCV(model, grid, scoring="f1_macro", n_jobs=2).fit(X, y)

Every scorer name of scikit-learn 1.9 is covered (the metric of each has a fastmetrics
function): ``UNCOVERED_SKLEARN_SCORERS`` lists the names we do not cover, and is empty for
scikit-learn 1.9. scikit-learn is imported only when one of these functions is called; it is
not a run-time dependency of fastmetrics.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from . import calibration, classification, cluster, probabilities, ranking, regression


if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._typing import ArrayLike, Scoring

__all__ = [
    "get_scorer",
    "get_scorer_names",
    "make_scorer",
    "check_scoring",
    "sklearn_scorers",
    "positive_likelihood_ratio",
    "negative_likelihood_ratio",
    "UNCOVERED_SKLEARN_SCORERS",
]

# scikit-learn scorer names whose metric fastmetrics lacks (none for scikit-learn 1.9)
UNCOVERED_SKLEARN_SCORERS: tuple[str, ...] = ()


def positive_likelihood_ratio(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """LR+ with undefined values replaced by 1.0, as scikit-learn's scorer computes it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_pred : array-like of shape (n_samples,)
        Predicted binary labels.

    Returns
    -------
    float
        The positive likelihood ratio (1.0 where it is undefined).

    Raises
    ------
    ValueError
        If the labels are not binary, or as :func:`fastmetrics.class_likelihood_ratios`.

    Warns
    -----
    UndefinedMetricWarning
        Where the ratio is undefined, with scikit-learn's message (which says NaN although
        the value returned is 1.0, as scikit-learn's scorer returns).

    See Also
    --------
    fastmetrics.class_likelihood_ratios : Both ratios, with the choice of replacement.

    Examples
    --------
    >>> from fastmetrics.scorers import positive_likelihood_ratio
    >>> round(positive_likelihood_ratio([0, 1, 1, 0, 1, 0],
    ...                         [0, 1, 0, 1, 1, 0]), 6)
    2.0
    """
    return classification.class_likelihood_ratios(y_true, y_pred, replace_undefined_by=1.0)[0]


def negative_likelihood_ratio(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """LR- with undefined values replaced by 1.0, as scikit-learn's scorer computes it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_pred : array-like of shape (n_samples,)
        Predicted binary labels.

    Returns
    -------
    float
        The negative likelihood ratio (1.0 where it is undefined).

    Raises
    ------
    ValueError
        If the labels are not binary, or as :func:`fastmetrics.class_likelihood_ratios`.

    Warns
    -----
    UndefinedMetricWarning
        Where the ratio is undefined, with scikit-learn's message (which says NaN although
        the value returned is 1.0, as scikit-learn's scorer returns).

    See Also
    --------
    fastmetrics.class_likelihood_ratios : Both ratios, with the choice of replacement.

    Examples
    --------
    >>> from fastmetrics.scorers import negative_likelihood_ratio
    >>> round(negative_likelihood_ratio([0, 1, 1, 0, 1, 0],
    ...                         [0, 1, 0, 1, 1, 0]), 6)
    0.5
    """
    return classification.class_likelihood_ratios(y_true, y_pred, replace_undefined_by=1.0)[1]


class _Spec(NamedTuple):
    func: Callable[..., Any]
    response_method: str | tuple[str, ...] = "predict"
    greater_is_better: bool = True
    kwargs: dict[str, Any] = {}


_SCORE_OR_PROBA = ("decision_function", "predict_proba")


def _loss(func: Callable[..., Any]) -> _Spec:
    return _Spec(func, "predict", False)


# the same rows, in the same order, as scikit-learn's ``_SCORERS`` table (metrics/_scorer.py)
_SPECS: dict[str, _Spec] = {
    "explained_variance": _Spec(regression.explained_variance_score),
    "r2": _Spec(regression.r2_score),
    "neg_max_error": _loss(regression.max_error),
    "matthews_corrcoef": _Spec(classification.matthews_corrcoef),
    "neg_median_absolute_error": _loss(regression.median_absolute_error),
    "neg_mean_absolute_error": _loss(regression.mean_absolute_error),
    "neg_mean_absolute_percentage_error": _loss(regression.mean_absolute_percentage_error),
    "neg_mean_squared_error": _loss(regression.mean_squared_error),
    "neg_mean_squared_log_error": _loss(regression.mean_squared_log_error),
    "neg_root_mean_squared_error": _loss(regression.root_mean_squared_error),
    "neg_root_mean_squared_log_error": _loss(regression.root_mean_squared_log_error),
    "neg_mean_poisson_deviance": _loss(regression.mean_poisson_deviance),
    "neg_mean_gamma_deviance": _loss(regression.mean_gamma_deviance),
    "d2_absolute_error_score": _Spec(regression.d2_absolute_error_score),
    "d2_log_loss_score": _Spec(probabilities.d2_log_loss_score, "predict_proba"),
    "d2_brier_score": _Spec(calibration.d2_brier_score, "predict_proba"),
    "accuracy": _Spec(classification.accuracy_score),
    "top_k_accuracy": _Spec(probabilities.top_k_accuracy_score, _SCORE_OR_PROBA),
    "roc_auc": _Spec(ranking.roc_auc_score, _SCORE_OR_PROBA),
    "roc_auc_ovr": _Spec(ranking.roc_auc_score, "predict_proba", kwargs={"multi_class": "ovr"}),
    "roc_auc_ovo": _Spec(ranking.roc_auc_score, "predict_proba", kwargs={"multi_class": "ovo"}),
    "roc_auc_ovr_weighted": _Spec(ranking.roc_auc_score, "predict_proba",
                                  kwargs={"multi_class": "ovr", "average": "weighted"}),
    "roc_auc_ovo_weighted": _Spec(ranking.roc_auc_score, "predict_proba",
                                  kwargs={"multi_class": "ovo", "average": "weighted"}),
    "balanced_accuracy": _Spec(classification.balanced_accuracy_score),
    "average_precision": _Spec(ranking.average_precision_score, _SCORE_OR_PROBA),
    "neg_log_loss": _Spec(probabilities.log_loss, "predict_proba", False),
    "neg_brier_score": _Spec(calibration.brier_score_loss, "predict_proba", False),
    "positive_likelihood_ratio": _Spec(positive_likelihood_ratio),
    "neg_negative_likelihood_ratio": _loss(negative_likelihood_ratio),
    "adjusted_rand_score": _Spec(cluster.adjusted_rand_score),
    "rand_score": _Spec(cluster.rand_score),
    "homogeneity_score": _Spec(cluster.homogeneity_score),
    "completeness_score": _Spec(cluster.completeness_score),
    "v_measure_score": _Spec(cluster.v_measure_score),
    "mutual_info_score": _Spec(cluster.mutual_info_score),
    "adjusted_mutual_info_score": _Spec(cluster.adjusted_mutual_info_score),
    "normalized_mutual_info_score": _Spec(cluster.normalized_mutual_info_score),
    "fowlkes_mallows_score": _Spec(cluster.fowlkes_mallows_score),
}
for _prefix, _func in [
    ("precision", classification.precision_score),
    ("recall", classification.recall_score),
    ("f1", classification.f1_score),
    ("jaccard", classification.jaccard_score),
]:
    _SPECS[_prefix] = _Spec(_func, kwargs={"average": "binary"})
    for _average in ["macro", "micro", "samples", "weighted"]:
        _SPECS[f"{_prefix}_{_average}"] = _Spec(
            _func, kwargs={"pos_label": None, "average": _average})


def _sklearn_metrics() -> Any:
    try:
        return importlib.import_module("sklearn.metrics")
    except ImportError as exc:
        raise ImportError(
            "fastmetrics' scorers are scikit-learn scorer objects: they need scikit-learn "
            "(pip install scikit-learn), which is not installed."
        ) from exc


def get_scorer_names() -> list[str]:
    """Names of the scikit-learn scorers fastmetrics provides, sorted.

    Returns
    -------
    list of str
        Every name :func:`sklearn.metrics.get_scorer_names` gives whose metric fastmetrics
        has (all of them for scikit-learn 1.9; see ``UNCOVERED_SKLEARN_SCORERS``).

    See Also
    --------
    sklearn.metrics.get_scorer_names : The scikit-learn list.
    fastmetrics.get_scorer : The scorer of a name.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> "f1_macro" in fm.get_scorer_names()
    True
    """
    return sorted(_SPECS)


def get_scorer(scoring: str | Callable[..., Any] | None) -> Any:
    """A scikit-learn scorer object, by name, that computes with fastmetrics.

    Parameters
    ----------
    scoring : str, callable or None
        A scikit-learn scorer name (see :func:`get_scorer_names`). A callable or None is
        returned as is, as :func:`sklearn.metrics.get_scorer` does.

    Returns
    -------
    scorer : callable
        A new scikit-learn ``_Scorer`` (each call returns a new object), with scikit-learn's
        response method, sign and keyword arguments for that name and fastmetrics' function.

    Raises
    ------
    ValueError
        For an unknown name, with scikit-learn's wording; for a scikit-learn name fastmetrics
        does not cover.
    ImportError
        If scikit-learn is not installed.

    See Also
    --------
    sklearn.metrics.get_scorer : The scikit-learn counterpart.
    fastmetrics.make_scorer : A scorer of any function and parameters.
    fastmetrics.sklearn_scorers : Make scikit-learn's own strings use these scorers.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.get_scorer("f1_macro")
    make_scorer(f1_score, response_method='predict', pos_label=None, average=macro)
    """
    skm = _sklearn_metrics()
    if isinstance(scoring, str):
        spec = _SPECS.get(scoring)
        if spec is not None:
            return skm.make_scorer(spec.func, response_method=spec.response_method,
                                   greater_is_better=spec.greater_is_better, **spec.kwargs)
        if scoring in skm.get_scorer_names():
            raise ValueError(
                f"{scoring!r} is a scikit-learn scorer whose metric fastmetrics does not "
                "have. Use sklearn.metrics.get_scorer for it."
            )
    # unknown names and non-strings: scikit-learn's own answer and error wording
    return skm.get_scorer(scoring)


def _fastmetrics_counterpart(func: Callable[..., Any]) -> Callable[..., Any] | None:
    """fastmetrics' function of the same name as a scikit-learn metric function, or None."""
    module = getattr(func, "__module__", None) or ""
    if not module.startswith("sklearn.metrics"):
        return None
    fm = importlib.import_module("fastmetrics")
    ours = getattr(fm, getattr(func, "__name__", ""), None)
    return ours if callable(ours) else None


def make_scorer(score_func: Callable[..., Any], *,
                response_method: str | Sequence[str] | None = "predict",
                greater_is_better: bool = True, **kwargs: Any) -> Any:
    """Make a scikit-learn scorer from a metric, using fastmetrics' function where it has one.

    The signature and result are those of :func:`sklearn.metrics.make_scorer`. A
    scikit-learn metric function that fastmetrics also has (``sklearn.metrics.f1_score``)
    is replaced by fastmetrics' (``fastmetrics.f1_score``); any other callable is used as
    given.

    Parameters
    ----------
    score_func : callable
        Score or loss function ``score_func(y, y_pred, **kwargs)``.
    response_method : str or tuple of str, default="predict"
        The estimator method(s) that give ``y_pred``, as in scikit-learn.
    greater_is_better : bool, default=True
        False for a loss: the scorer then negates it.
    **kwargs
        Passed to ``score_func``.

    Returns
    -------
    scorer : callable
        A scikit-learn scorer object.

    Raises
    ------
    ImportError
        If scikit-learn is not installed.

    See Also
    --------
    sklearn.metrics.make_scorer : The scikit-learn counterpart.
    fastmetrics.get_scorer : The scorer of a scikit-learn name.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.make_scorer(fm.fbeta_score, beta=2)
    make_scorer(fbeta_score, response_method='predict', beta=2)
    """
    skm = _sklearn_metrics()
    ours = _fastmetrics_counterpart(score_func)
    return skm.make_scorer(ours if ours is not None else score_func,
                           response_method=response_method,
                           greater_is_better=greater_is_better, **kwargs)


def _resolve(scoring: Scoring) -> Any:
    """Scorer names (alone, in a list/tuple/set, or as dict values) -> fastmetrics scorers."""
    if isinstance(scoring, str) and scoring in _SPECS:
        return get_scorer(scoring)
    if isinstance(scoring, (list, tuple, set)):
        names = list(scoring)
        # duplicates, non-strings and empty lists: left to scikit-learn's checks and wording
        if (names and all(isinstance(n, str) and n in _SPECS for n in names)
                and len(set(names)) == len(names)):
            return {n: get_scorer(n) for n in names}
        return scoring
    if isinstance(scoring, dict):
        return {k: _resolve(v) if isinstance(v, str) else v for k, v in scoring.items()}
    if callable(scoring) and (getattr(scoring, "__module__", None) or "").startswith(
            "fastmetrics.") and getattr(scoring, "__module__", "") != __name__:
        raise ValueError(
            f"scoring value {scoring!r} looks like it is a metric function rather than a "
            "scorer. A scorer should require an estimator as its first parameter. Please "
            "use `make_scorer` to convert a metric to a scorer."
        )
    return scoring


def check_scoring(estimator: Any = None,
                  scoring: Scoring = None,
                  *, allow_none: bool = False, raise_exc: bool = True) -> Any:
    """Determine a scorer from user options, as :func:`sklearn.metrics.check_scoring` does.

    Scorer names (a string, a list/tuple/set of strings, or strings as dict values) give
    fastmetrics' scorers; everything else (callables, None, the estimator's ``score``) is
    scikit-learn's behaviour, errors and wording included.

    Parameters
    ----------
    estimator : estimator object or None, default=None
    scoring : str, callable, list, tuple, set, dict or None, default=None
    allow_none : bool, default=False
    raise_exc : bool, default=True
        As in scikit-learn.

    Returns
    -------
    scoring : callable
        A scorer ``scorer(estimator, X, y)`` (a multimetric scorer for several names).

    Raises
    ------
    ValueError, TypeError
        scikit-learn's, for invalid ``scoring`` values.
    ImportError
        If scikit-learn is not installed.

    See Also
    --------
    sklearn.metrics.check_scoring : The scikit-learn counterpart.
    fastmetrics.get_scorer : The scorer of a scikit-learn name.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.check_scoring(None, "accuracy")
    make_scorer(accuracy_score, response_method='predict')
    """
    skm = _sklearn_metrics()
    return skm.check_scoring(estimator, _resolve(scoring), allow_none=allow_none,
                             raise_exc=raise_exc)


class _Patch:
    """Reference-counted swap of scikit-learn's name -> scorer table (one per process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.saved: dict[str, Any] = {}

    def enter(self) -> None:
        _sklearn_metrics()
        table = importlib.import_module("sklearn.metrics._scorer")._SCORERS
        with self.lock:
            if self.depth == 0:
                ours = {name: get_scorer(name) for name in _SPECS if name in table}
                self.saved = {name: table[name] for name in ours}
                table.update(ours)
            self.depth += 1

    def exit(self) -> None:
        table = importlib.import_module("sklearn.metrics._scorer")._SCORERS
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                table.update(self.saved)
                self.saved = {}


_PATCH = _Patch()


@contextlib.contextmanager
def sklearn_scorers() -> Iterator[None]:
    """Make scikit-learn's scorer strings use fastmetrics while the ``with`` block runs.

    Inside the block, :func:`sklearn.metrics.get_scorer` and
    :func:`sklearn.metrics.check_scoring` -- and so every ``scoring="..."`` of
    ``GridSearchCV``, ``cross_validate``, ``permutation_importance``, ... -- give the
    scorers of :func:`get_scorer`. On exit (also when the block raises) scikit-learn's own
    scorer objects are put back.

    Notes
    -----
    It swaps the values of scikit-learn's name -> scorer table (``_SCORERS`` in
    ``sklearn/metrics/_scorer.py``), the one table those functions read; names are not
    added or removed, so scikit-learn's parameter validation is unchanged.

    * **Processes.** The swap is made in this process. scikit-learn resolves a scorer
      string in the calling process before it dispatches work, and the scorer objects it
      sends to ``n_jobs`` workers (loky processes) pickle fastmetrics' function by
      reference, so ``GridSearchCV(..., n_jobs=2)`` and ``cross_validate(..., n_jobs=2)``
      score with fastmetrics in their workers. Code that looks a *string* up inside a worker
      process (your own function calling ``sklearn.metrics.get_scorer("f1")`` there) gets
      scikit-learn's scorer: the swap does not travel to other processes.
    * **Threads.** The swap is process-wide, not per thread: while any thread is inside the
      block, string scorers in every thread use fastmetrics. Entering and leaving from
      several threads at once is safe (a lock and a count): the table is restored when the
      last block exits.
    * **Nesting.** Blocks nest; only the outermost exit restores the table.

    Raises
    ------
    ImportError
        If scikit-learn is not installed (on entering the block).

    See Also
    --------
    fastmetrics.get_scorer : The scorers the strings then give.
    sklearn.model_selection.GridSearchCV : A search whose ``scoring=`` strings it reaches.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> with fm.sklearn_scorers():  # doctest: +SKIP
    ...     GridSearchCV(model, grid, scoring="f1_macro").fit(X, y)
    """
    _PATCH.enter()
    try:
        yield
    finally:
        _PATCH.exit()
