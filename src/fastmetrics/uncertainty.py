"""Is model B better than model A? Bootstrap intervals and paired tests for every metric.

:func:`bootstrap` gives a metric's value with a confidence interval and standard error;
:func:`compare` the paired difference of two models on the same rows with its interval
and a p-value; :func:`~fastmetrics.mcnemar_test` McNemar's test of two classifiers' accuracies.

How the resamples are drawn
---------------------------
A row resample of the confusion, ranking and clustering metrics is drawn from their state:
N rows drawn with replacement fall into the state's cells (label pairs, (score, class)
pairs, contingency cells) as a multinomial draw with the cells' shares as probabilities,
and the metric depends on the rows only through those counts. So after one kernel pass, a
resample costs O(cells), whatever N: a 1,000-resample interval of macro F1 over 10^7 rows
costs about as much as a couple of ``f1_score`` calls. A comparison draws the cells of the
joint (true, A's, B's label) table (:class:`~fastmetrics.states.PairedConfusionState`).

Every other metric -- weighted data, regression and calibration metrics, any callable such
as a scikit-learn metric -- is bootstrapped the ordinary way, by drawing row indices and
calling the metric on the resampled rows: O(N) per resample. The result says which way was
taken (``resampled``).

Intervals are scipy's: ``"percentile"``, ``"basic"`` and ``"bca"`` (bias-corrected and
accelerated) give the same interval as ``scipy.stats.bootstrap`` from the same resampled
values. BCa needs the jackknife: one leave-one-out value per non-empty cell for the count
states, one metric call per row otherwise (refused above 10,000 rows).
"""

from __future__ import annotations

import inspect
import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _intervals, _table
from ._inputs import inconsistent_lengths
from ._states import replicates
from ._states.confusion import ConfusionState
from ._states.contingency import ContingencyState
from ._states.paired import PairedConfusionState
from ._states.ranking import RankingState
from .exceptions import warn

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from ._states.base import State
    from ._typing import ArrayLike, FloatArray, RandomState

__all__ = ["BootstrapResult", "ComparisonResult", "ConfidenceInterval", "McNemarResult",
           "bootstrap", "bootstrap_state", "compare", "compare_state", "mcnemar_from_counts",
           "mcnemar_test"]

# a row-resampling BCa calls the metric once per row for its jackknife
_ROW_JACKKNIFE_MAX = 10_000
# row resamples are drawn this many indices at a time
_INDEX_BLOCK = 1 << 22
# a paired comparison scores all resampled tables at once up to this many (cells x K^2)
_JOINT_BATCH_CELLS = 1 << 22
# a ranking state resamples by its cells when it has fewer than one per this many rows
_RANKING_CELLS_PER_ROW = 8
# the count states that resample by their cells, by family
_FAMILY_STATES = {"confusion": ConfusionState, "ranking": RankingState,
                  "contingency": ContingencyState}
_CELL_FAMILIES = tuple(_FAMILY_STATES)


@dataclass(frozen=True)
class ConfidenceInterval:
    """The bounds of an interval (arrays for a metric with one value per class).

    Iterates as ``(low, high)``, so ``low, high = result.confidence_interval`` works.

    Parameters
    ----------
    low : float or ndarray
        The lower bound.
    high : float or ndarray
        The upper bound.

    See Also
    --------
    BootstrapResult : The result that holds a metric's interval.
    ComparisonResult : The result that holds a difference's interval.

    Examples
    --------
    >>> from fastmetrics.uncertainty import ConfidenceInterval
    >>> low, high = ConfidenceInterval(0.25, 0.75)
    >>> low, high
    (0.25, 0.75)
    """

    low: Any
    high: Any

    def __iter__(self) -> Iterator[Any]:
        return iter((self.low, self.high))


@dataclass(frozen=True, repr=False)
class BootstrapResult:
    """A metric's value with its bootstrap interval.

    What :func:`bootstrap` and :func:`bootstrap_state` return (frozen). ``str()`` shows
    ``value [low, high]``.

    Parameters
    ----------
    value : float or ndarray
        The metric on all the data.
    confidence_interval : ConfidenceInterval
        ``(low, high)``.
    standard_error : float or ndarray
        Standard deviation of the resampled values (``ddof=1``).
    bootstrap_distribution : ndarray of shape (n_resamples, ...)
        The resampled values (``scipy.stats.bootstrap``'s name: this result can be given to
        scipy's ``bootstrap_result=``).
    method : {"percentile", "basic", "bca"}
        The interval's method, as asked.
    confidence_level : float
        The interval's level, as asked.
    n_resamples : int
        The number of resamples, as asked.
    resampled : {"cells", "rows"}
        How the resamples were drawn: from the state's cells (O(cells) each) or by
        resampling rows and calling the metric (O(N) each).

    See Also
    --------
    bootstrap : The function that returns this record.
    scipy.stats.bootstrap : scipy's bootstrap, which takes this result as
        ``bootstrap_result``.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.bootstrap(fm.f1_score, [0, 1, 1, 0] * 10, [0, 1, 0, 0] * 10,
    ...                  n_resamples=100, random_state=0)
    >>> str(r)
    '0.6667 [0.3796, 0.8380]'
    """

    value: Any
    confidence_interval: ConfidenceInterval
    standard_error: Any
    bootstrap_distribution: np.ndarray = field(repr=False)
    method: str
    confidence_level: float
    n_resamples: int
    resampled: str

    def __str__(self) -> str:
        return _shown(self.value, self.confidence_interval)

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (f"BootstrapResult(value={self.value!r}, confidence_interval=({ci.low!r}, "
                f"{ci.high!r}), standard_error={self.standard_error!r}, "
                f"method={self.method!r}, n_resamples={self.n_resamples}, "
                f"resampled={self.resampled!r})")


@dataclass(frozen=True, repr=False)
class ComparisonResult:
    """Model B against model A on the same rows: the difference ``B - A`` of a metric.

    What :func:`compare` and :func:`compare_state` return (frozen). ``str()`` shows
    ``B - A = difference [low, high], p = pvalue``.

    Parameters
    ----------
    value_a : float or ndarray
        The metric of model A on all the data.
    value_b : float or ndarray
        The metric of model B on all the data.
    difference : float or ndarray
        ``value_b - value_a``.
    confidence_interval : ConfidenceInterval
        Of the difference.
    standard_error : float or ndarray
        Of the difference.
    pvalue : float or ndarray
        Two-sided p-value of "no difference": the share of resampled differences at least
        as far from the observed difference as it is from zero, ``(1 + hits) / (1 + B)``.
    bootstrap_distribution : ndarray of shape (n_resamples, ...)
        The resampled differences.
    method : {"percentile", "basic", "bca"}
        The interval's method, as asked.
    confidence_level : float
        The interval's level, as asked.
    n_resamples : int
        The number of resamples, as asked.
    resampled : {"cells", "rows"}
        How the resamples were drawn, as for :class:`BootstrapResult`.

    See Also
    --------
    compare : The function that returns this record.
    BootstrapResult : One model's interval.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> y = [0, 1, 1, 0] * 10
    >>> r = fm.compare("accuracy_score", y, [0, 1, 0, 0] * 10, y, n_resamples=100,
    ...                random_state=0)
    >>> r.difference
    0.25
    """

    value_a: Any
    value_b: Any
    difference: Any
    confidence_interval: ConfidenceInterval
    standard_error: Any
    pvalue: Any
    bootstrap_distribution: np.ndarray = field(repr=False)
    method: str
    confidence_level: float
    n_resamples: int
    resampled: str

    def __str__(self) -> str:
        return (f"B - A = {_shown(self.difference, self.confidence_interval)}, "
                f"p = {_number(self.pvalue)}")

    def __repr__(self) -> str:
        return (f"ComparisonResult(value_a={self.value_a!r}, value_b={self.value_b!r}, "
                f"difference={self.difference!r}, confidence_interval=("
                f"{self.confidence_interval.low!r}, {self.confidence_interval.high!r}), "
                f"pvalue={self.pvalue!r}, method={self.method!r}, "
                f"n_resamples={self.n_resamples}, resampled={self.resampled!r})")


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test of two classifiers on the same rows.

    What :func:`~fastmetrics.mcnemar_test` and :func:`~fastmetrics.uncertainty.mcnemar_from_counts` return (frozen).

    Parameters
    ----------
    statistic : float
        Exact test: the smaller of the two disagreement counts; otherwise the chi-square
        statistic ``(|b - c| - correction)**2 / (b + c)``.
    pvalue : float
        The two-sided p-value (NaN for the chi-square test when no row has the models
        disagree).
    a_only : int
        Rows model A labels right and model B wrong.
    b_only : int
        Rows model B labels right and model A wrong.

    See Also
    --------
    fastmetrics.mcnemar_test : The test from labels.
    fastmetrics.uncertainty.mcnemar_from_counts : The test from the two counts.

    Examples
    --------
    >>> from fastmetrics.uncertainty import mcnemar_from_counts
    >>> mcnemar_from_counts(1, 9)
    McNemarResult(statistic=1.0, pvalue=0.021484375, a_only=1, b_only=9)
    """

    statistic: float
    pvalue: float
    a_only: int
    b_only: int


def _number(v: Any) -> str:
    if np.ndim(v) == 0:
        return f"{float(v):.4g}"
    return np.array2string(np.asarray(v, dtype=float), precision=4)


def _shown(value: Any, ci: ConfidenceInterval) -> str:
    if np.ndim(value) == 0:
        return f"{float(value):.4f} [{float(ci.low):.4f}, {float(ci.high):.4f}]"
    return ", ".join(f"{v:.4f} [{lo:.4f}, {hi:.4f}]" for v, lo, hi in zip(
        np.ravel(value).tolist(), np.ravel(ci.low).tolist(), np.ravel(ci.high).tolist()))


# --------------------------------------------------------------------------- the metric


def _metric(metric: str | Callable[..., Any]) -> tuple[Callable[..., Any], _table.Metric | None]:
    """``(function, table row or None)`` of a metric given by function or name."""
    if isinstance(metric, str):
        rows = [r for r in _table.METRICS if r.name == metric]
        if rows:
            return rows[0].function, rows[0]
        import fastmetrics
        fn = getattr(fastmetrics, metric, None)
        if fn is None or not callable(fn) or metric.startswith("_"):
            raise ValueError(f"{metric!r} is not a fastmetrics metric")
        return fn, None
    if not callable(metric):
        raise TypeError(f"metric must be a metric function or its name, got {metric!r}")
    for r in _table.METRICS:
        if r.function is metric:
            return metric, r
    return metric, None


def _numeric(v: object, name: str) -> FloatArray:
    """A metric's value as a float array, or TypeError for reports, dicts and curves."""
    if isinstance(v, (dict, str)):
        raise TypeError(f"{name} returns a {type(v).__name__}: a bootstrap needs a metric "
                        "whose value is a number or an array of numbers")
    # a tuple of arrays is a curve (points and thresholds whose number varies between
    # resamples); a tuple of numbers (homogeneity, completeness, V) is one value per item
    if isinstance(v, tuple) and any(np.ndim(x) for x in v):
        raise TypeError(f"{name} returns a tuple of arrays (a curve): a bootstrap needs a "
                        "metric whose value is a number or an array of numbers")
    try:
        a = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} returns {type(v).__name__} values: a bootstrap needs a "
                        "metric whose value is a number or an array of numbers") from None
    return a


def _check_kwargs(fn: Callable[..., Any], kwargs: dict[str, Any], data: int) -> None:
    """TypeError for a keyword the metric does not take (before any work)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*([None] * data), **kwargs)
    except TypeError as exc:
        name = getattr(fn, "__name__", repr(fn))
        raise TypeError(f"{name}: {exc}") from None


def _cell_state(row: _table.Metric | None, inputs: tuple[Any, ...], kwargs: dict[str, Any],
                sample_weight: ArrayLike | None, n_threads: int | None) -> State | None:
    """The count state of a metric that resamples by its cells, or None (rows then)."""
    if row is None or row.family not in _CELL_FAMILIES or sample_weight is not None:
        return None
    takes = inspect.signature(row.derive).parameters
    if any(k not in takes for k in kwargs):
        return None
    a, b = inputs
    if np.ndim(a) != 1 or np.ndim(b) != 1:
        return None
    st: ConfusionState | RankingState | ContingencyState
    if row.family == "confusion":
        st = ConfusionState.from_arrays(a, b, None, n_threads)
    elif row.family == "ranking":
        try:
            st = RankingState.from_arrays(a, b, None, n_threads)
        except ValueError:
            return None  # the one-shot function words the error (or serves multiclass)
        # near-distinct scores have about as many cells as rows: a multinomial draw of
        # them costs more than resampling the rows and one kernel pass
        if st.weights.shape[1] * _RANKING_CELLS_PER_ROW > st.n_samples:
            return None
    else:
        st = ContingencyState.from_arrays(a, b, n_threads)
    return st if replicates.supports(st) else None


def _quiet(derive: Callable[..., Any], states: Iterable[State],
           kwargs: dict[str, Any]) -> list[Any]:
    """The metric of each resampled state; the warnings of resamples (an absent class,
    an undefined precision) are the resample's, not the user's: not repeated."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [derive(s, **kwargs) for s in states]


def _batch(row: _table.Metric, st: State, draws: np.ndarray,
           kwargs: dict[str, Any]) -> np.ndarray | None:
    """The metric of every resampled table at once, where the row has a batch
    derivation that serves these arguments (None: one by one)."""
    if row.batch is None or not isinstance(st, ConfusionState):
        return None
    k = st.cm.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = row.batch(st, draws.reshape(-1, k, k), **kwargs)
    return None if out is None else np.asarray(out, dtype=np.float64)


def _stack(values: list[Any], name: str) -> np.ndarray:
    arrays = [_numeric(v, name) for v in values]
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"{name} returned values of different shapes over the resamples "
                         f"({sorted(shapes)}): give labels= so every resample has the same "
                         "classes")
    return np.stack(arrays) if arrays else np.empty((0,))


def _rows(inputs: tuple[Any, ...],
          sample_weight: ArrayLike | None) -> tuple[list[np.ndarray], np.ndarray | None, int]:
    arrays = [np.asarray(x) for x in inputs]
    w = None if sample_weight is None else np.asarray(sample_weight)
    lengths = [a.shape[0] if a.ndim else 0 for a in arrays] + ([] if w is None else [w.shape[0]])
    if len(set(lengths)) > 1:
        names = {f"input {i}": n for i, n in enumerate(lengths[: len(arrays)], 1)}
        if w is not None:
            names["sample_weight"] = lengths[-1]
        raise inconsistent_lengths(**names)
    n = lengths[0]
    if n == 0:
        raise ValueError("a bootstrap needs at least one sample")
    return arrays, w, n


def _row_values(fn: Callable[..., Any], arrays: Sequence[Any], w: np.ndarray | None, n: int,
                kwargs: dict[str, Any], rng: np.random.Generator, n_resamples: int,
                combine: Callable[..., Any] | None = None) -> list[Any]:
    """The metric of ``n_resamples`` row resamples (drawn in blocks of indices)."""
    out: list[Any] = []
    per = max(1, _INDEX_BLOCK // n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while len(out) < n_resamples:
            idx = rng.integers(0, n, size=(min(per, n_resamples - len(out)), n))
            for ix in idx:
                kw = kwargs if w is None else {**kwargs, "sample_weight": w[ix]}
                vals = [fn(*(a[ix] for a in group), **kw) for group in arrays] if combine \
                    else fn(*(a[ix] for a in arrays), **kw)
                out.append(combine(*vals) if combine else vals)
    return out


def _row_jackknife(fn: Callable[..., Any], arrays: Sequence[Any], w: np.ndarray | None, n: int,
                   kwargs: dict[str, Any], combine: Callable[..., Any] | None = None) -> np.ndarray:
    if n > _ROW_JACKKNIFE_MAX:
        raise ValueError(
            f"method='bca' needs the metric's jackknife, one call per row here ({n} rows, "
            f"at most {_ROW_JACKKNIFE_MAX}): use method='percentile' or 'basic'")
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(n):
            keep = np.r_[0:i, i + 1:n]
            kw = kwargs if w is None else {**kwargs, "sample_weight": w[keep]}
            if combine:
                out.append(combine(*[fn(*(a[keep] for a in g), **kw) for g in arrays]))
            else:
                out.append(fn(*(a[keep] for a in arrays), **kw))
    return _stack(out, getattr(fn, "__name__", "metric"))


def _finish(theta_hat: Any, theta_b: np.ndarray, level: float, method: str,
            accel: Any) -> tuple[ConfidenceInterval, Any]:
    low, high = _intervals.interval(theta_hat, theta_b, level, method, accel)
    if method == "bca" and np.any(np.isnan(np.asarray(low, dtype=float))
                                  | np.isnan(np.asarray(high, dtype=float))) \
            and not np.any(np.isnan(theta_b)):
        warn("the BCa interval cannot be calculated: the bootstrap distribution is "
             "degenerate (all resamples on one side of the value)", RuntimeWarning)
    se = (np.std(theta_b, axis=0, ddof=1) if theta_b.shape[0] > 1
          else np.full(np.shape(theta_hat), np.nan))
    return ConfidenceInterval(_scalar(low), _scalar(high)), _scalar(se)


def _scalar(a: Any) -> Any:
    a = np.asarray(a, dtype=np.float64)
    return float(a) if a.ndim == 0 else a


def _setup(metric: str | Callable[..., Any], n_resamples: int, confidence_level: float, method: str,
           random_state: RandomState, sample_weight: ArrayLike | None, n_threads: int | None,
           metric_kwargs: Mapping[str, Any]
           ) -> tuple[int, float, str, np.random.Generator, Callable[..., Any],
                      _table.Metric | None, str, dict[str, Any], dict[str, Any]]:
    """Every argument checked before any work: ``(n_resamples, level, method, rng, fn,
    row, name, kwargs for the function, kwargs for the derivation)``."""
    n_resamples = _intervals.check_resamples(n_resamples)
    level = _intervals.check_level(confidence_level)
    method = _intervals.check_method(method)
    rng = _intervals.generator(random_state)
    fn, row = _metric(metric)
    kwargs = dict(metric_kwargs)
    if n_threads is not None and "n_threads" in _parameters(fn):
        kwargs["n_threads"] = n_threads
    _check_kwargs(fn, kwargs if sample_weight is None else {**kwargs, "sample_weight": 0}, 2)
    derive_kw = {k: v for k, v in kwargs.items() if k != "n_threads"}
    return (n_resamples, level, method, rng, fn, row, getattr(fn, "__name__", "metric"),
            kwargs, derive_kw)


# --------------------------------------------------------------------------- bootstrap


def bootstrap(metric: str | Callable[..., Any], y_true: ArrayLike, y_pred: ArrayLike, *,
              n_resamples: int = 1000, confidence_level: float = 0.95,
              method: str = "percentile",
              random_state: RandomState = None, sample_weight: ArrayLike | None = None,
              n_threads: int | None = None, **metric_kwargs: Any) -> BootstrapResult:
    """A metric's value with a bootstrap confidence interval and standard error.

    Not in scikit-learn. Confusion, ranking and clustering metrics on unweighted data are
    resampled from their count state's cells (O(cells) per resample, whatever N); every other
    metric, weighted data, and any callable resample rows and call the metric (O(N) per
    resample). The intervals are ``scipy.stats.bootstrap``'s for the same resampled values.

    Parameters
    ----------
    metric : callable or str
        A fastmetrics metric (``fastmetrics.f1_score``, or ``"f1_score"``), or any
        callable ``metric(y_true, y_pred, **metric_kwargs)`` returning a number or an
        array of numbers (one value per class), such as a scikit-learn metric.
    y_true : array-like of shape (n_samples,)
        True labels or targets: the metric's first argument.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predictions, scores or probabilities: the metric's second argument.
    n_resamples : int, default=1000
        Number of resamples (>= 1).
    confidence_level : float, default=0.95
        Level of the interval, in (0, 1).
    method : {"percentile", "basic", "bca"}, default="percentile"
        The interval, as ``scipy.stats.bootstrap`` defines it ("bca": bias-corrected and
        accelerated; with row resampling at most 10,000 rows, one metric call per row).
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the resampling (same seed, same result, for any ``n_threads``).
    sample_weight : array-like of shape (n_samples,), default=None
        Resampled with the rows (weighted data resamples rows).
    n_threads : int or None, default=None
        Threads of the metric's kernel pass, passed on to metrics that take it. None
        uses what OpenMP allows, capped at the CPUs no other process is running on.
    **metric_kwargs : dict
        Passed to the metric (``average="macro"``, ``labels=...``).

    Returns
    -------
    result : BootstrapResult
        ``value``, ``confidence_interval``, ``standard_error``, ``bootstrap_distribution``
        and ``resampled`` ("cells": drawn from the metric's count state, O(cells) per
        resample; "rows": rows drawn and the metric called, O(N) per resample -- weighted
        data, and every metric without a count state, e.g. regression, calibration,
        medians, percentiles, or a scikit-learn function).

    Raises
    ------
    ValueError
        If ``metric`` names no fastmetrics metric; if ``n_resamples`` < 1,
        ``confidence_level`` is outside (0, 1), ``method`` or ``random_state`` is not an
        allowed value; if the inputs differ in length or are empty; if "bca" would need
        more than 10,000 metric calls; if per-class values change shape between resamples
        (give ``labels=``); or whatever the metric raises for its input.
    TypeError
        If ``metric`` is not callable, ``metric_kwargs`` holds a keyword the metric does not
        take, the metric returns something other than numbers (a report, a dict), or
        ``n_resamples`` or ``confidence_level`` is not a number.

    Warns
    -----
    RuntimeWarning
        If a BCa interval cannot be computed because every resample lies on one side of the
        value (its bounds are then NaN).

    See Also
    --------
    scipy.stats.bootstrap : scipy's bootstrap, which gives the same interval from the same
        resampled values.
    bootstrap_state : The same from a state alone.
    compare : The paired difference of two models.
    fastmetrics.delong_ci : DeLong's analytic interval for ROC AUC.

    Notes
    -----
    Resamples in which the metric is undefined give what the metric gives there (its
    ``zero_division`` value, or NaN) without repeating its warning; labels absent from a
    resample are absent from its metric, as in a real resample (give ``labels=`` for
    per-class values of fixed shape).

    Examples
    --------
    >>> import fastmetrics as fm
    >>> y_true = [0, 1, 1, 0, 1, 0, 1, 1] * 50
    >>> y_pred = [0, 1, 0, 0, 1, 1, 1, 1] * 50
    >>> r = fm.bootstrap(fm.f1_score, y_true, y_pred, random_state=0)
    >>> r.value
    0.8
    >>> r.resampled, r.confidence_interval.low < 0.8 < r.confidence_interval.high
    ('cells', True)
    """
    n_resamples, level, method, rng, fn, row, name, kwargs, derive_kw = _setup(
        metric, n_resamples, confidence_level, method, random_state, sample_weight, n_threads,
        metric_kwargs)
    st = _cell_state(row, (y_true, y_pred), derive_kw, sample_weight, n_threads)
    if st is not None:
        assert row is not None
        theta_hat, theta_b, accel = _state_values(row, st, derive_kw, rng, n_resamples,
                                                  method, name)
        resampled = "cells"
    else:
        arrays, w, n = _rows((y_true, y_pred), sample_weight)
        kw0 = kwargs if w is None else {**kwargs, "sample_weight": w}
        theta_hat = _numeric(fn(*arrays, **kw0), name)
        theta_b = _stack(_row_values(fn, arrays, w, n, kwargs, rng, n_resamples), name)
        accel = None
        if method == "bca":
            accel = _intervals.acceleration(_row_jackknife(fn, arrays, w, n, kwargs))
        resampled = "rows"
    _check_shapes(name, theta_b, theta_hat)
    ci, se = _finish(theta_hat, theta_b, level, method, accel)
    return BootstrapResult(_scalar(theta_hat), ci, se, theta_b, method, level, n_resamples,
                           resampled)


def _state_values(row: _table.Metric, st: State, kwargs: dict[str, Any],
                  rng: np.random.Generator, n_resamples: int, method: str,
                  name: str) -> tuple[np.ndarray, np.ndarray, Any]:
    """``(value, resampled values, BCa acceleration or None)`` of a count state."""
    theta_hat = _numeric(row.derive(st, **kwargs), name)
    draws = replicates.draws(replicates.cells(st), rng, n_resamples)
    theta_b = _batch(row, st, draws, kwargs)
    if theta_b is None:
        theta_b = _stack(_quiet(row.derive, (replicates.replicate(st, c) for c in draws),
                                kwargs), name)
    accel = None
    if method == "bca":
        pairs = list(replicates.jackknife(st))
        jack = _stack(_quiet(row.derive, (s for s, _ in pairs), kwargs), name)
        accel = _intervals.acceleration(jack, np.array([c for _, c in pairs]))
    return theta_hat, theta_b, accel


def _joint_batch(row: _table.Metric, joint: PairedConfusionState, draws: np.ndarray,
                 kwargs: dict[str, Any]) -> np.ndarray | None:
    """The resampled differences B - A at once, where the row has a batch derivation that
    serves these arguments (None: one resample at a time). Each model's resampled tables
    are the joint draws summed over the other model's label: one matrix product."""
    k = joint.k
    if row.batch is None or joint.counts.shape[0] * k * k > _JOINT_BATCH_CELLS:
        return None
    t, a, b = joint.positions()
    counts = draws.astype(np.float64)  # one conversion for both products
    out = []
    for model, p in (("a", a), ("b", b)):
        margin = joint.marginal(model)
        onehot = np.zeros((joint.counts.shape[0], k * k))
        onehot[np.arange(joint.counts.shape[0]), t * k + p] = 1.0
        # integer sums below 2**53: the float product is exact
        tables = np.rint(counts @ onehot).astype(np.int64).reshape(-1, k, k)
        keep = np.searchsorted(joint.values, margin.values)
        if keep.shape[0] < k:
            tables = tables[:, keep][:, :, keep]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = row.batch(margin, tables, **kwargs)
        if v is None:
            return None
        out.append(np.asarray(v, dtype=np.float64))
    return out[1] - out[0]


def _joint_values(row: _table.Metric, joint: PairedConfusionState, kwargs: dict[str, Any],
                  rng: np.random.Generator, n_resamples: int, method: str,
                  name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """``(value of A, value of B, resampled differences, BCa acceleration or None)``."""
    derive = row.derive

    def diff(counts: np.ndarray) -> FloatArray:
        return (_numeric(derive(joint.marginal("b", counts), **kwargs), name)
                - _numeric(derive(joint.marginal("a", counts), **kwargs), name))

    value_a = _numeric(derive(joint.marginal("a"), **kwargs), name)
    value_b = _numeric(derive(joint.marginal("b"), **kwargs), name)
    draws = replicates.draws(joint.counts, rng, n_resamples)
    theta_b = _joint_batch(row, joint, draws, kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if theta_b is None:
            theta_b = _stack([diff(c) for c in draws], name)
        accel = None
        if method == "bca":
            jack, mult = [], []
            for i in range(joint.counts.shape[0]):
                c = joint.counts.copy()
                c[i] -= 1
                jack.append(diff(c))
                mult.append(int(joint.counts[i]))
            accel = _intervals.acceleration(_stack(jack, name), np.array(mult))
    return value_a, value_b, theta_b, accel


def _state_row(state: object, metric: str | Callable[..., Any], kwargs: dict[str, Any],
               types: tuple[type[Any], ...]) -> tuple[_table.Metric, str]:
    """The table row of ``metric`` for a state of ``types``, its kwargs checked."""
    fn, row = _metric(metric)
    name = getattr(fn, "__name__", "metric")
    if not isinstance(state, types):
        raise TypeError(f"expected a {' or '.join(t.__name__ for t in types)}, got "
                        f"{type(state).__name__}")
    if row is None or _FAMILY_STATES.get(row.family) is not (
            ConfusionState if types == (PairedConfusionState,) else type(state)):
        raise ValueError(f"{name} is not a metric of a {type(state).__name__}")
    takes = inspect.signature(row.derive).parameters
    bad = [k for k in kwargs if k not in takes]
    if bad:
        raise TypeError(f"{name} of a state takes no {', '.join(map(repr, bad))}")
    if types != (PairedConfusionState,) and not replicates.supports(state):
        raise ValueError(
            f"this {type(state).__name__} is weighted or binned: its resamples need the rows "
            "(call fastmetrics.bootstrap on the data)")
    return row, name


def bootstrap_state(state: State, metric: str | Callable[..., Any], *, n_resamples: int = 1000,
                    confidence_level: float = 0.95,
                    method: str = "percentile",
                    random_state: RandomState = None, **metric_kwargs: Any) -> BootstrapResult:
    """:func:`bootstrap` of a metric from a state alone (an accumulator's, a merged Dask
    state, one loaded from disk): the resamples are drawn from its cells.

    Parameters
    ----------
    state : ConfusionState, RankingState or ContingencyState
        Unweighted (a weighted state's resamples need the rows).
    metric : callable or str
        A metric of the state's family (``"f1_score"``, ``fastmetrics.roc_auc_score``).
    n_resamples : int, default=1000
        Number of resamples (>= 1).
    confidence_level : float, default=0.95
        Level of the interval, in (0, 1).
    method : {"percentile", "basic", "bca"}, default="percentile"
        The interval, as ``scipy.stats.bootstrap`` defines it.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the resampling.
    **metric_kwargs : dict
        Passed to the metric's derivation (``average="macro"``, ...).

    Returns
    -------
    result : BootstrapResult
        As for :func:`bootstrap`, with ``resampled="cells"``.

    Raises
    ------
    TypeError
        If ``state`` is not one of the three state types, ``metric`` is not callable or a
        name, or ``metric_kwargs`` holds a keyword the metric's derivation does not take;
        if ``n_resamples`` or ``confidence_level`` is not a number.
    ValueError
        If ``metric`` is not a metric of the state's family, the state is weighted, or an
        option is not an allowed value (as for :func:`bootstrap`).

    Warns
    -----
    RuntimeWarning
        If a BCa interval cannot be computed (every resample on one side of the value).

    See Also
    --------
    scipy.stats.bootstrap : scipy's bootstrap of the same statistics.
    bootstrap : The same from the data.
    fastmetrics.streaming.ConfusionAccumulator : Builds a state chunk by chunk.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> from fastmetrics.states import ConfusionState
    >>> st = ConfusionState.from_arrays([0, 1, 1, 0] * 25, [0, 1, 0, 0] * 25)
    >>> r = fm.bootstrap_state(st, "accuracy_score", random_state=0)
    >>> r.value, r.resampled
    (0.75, 'cells')
    """
    n_resamples = _intervals.check_resamples(n_resamples)
    level = _intervals.check_level(confidence_level)
    method = _intervals.check_method(method)
    rng = _intervals.generator(random_state)
    row, name = _state_row(state, metric, metric_kwargs,
                           (ConfusionState, RankingState, ContingencyState))
    theta_hat, theta_b, accel = _state_values(row, state, metric_kwargs, rng, n_resamples,
                                              method, name)
    _check_shapes(name, theta_b, theta_hat)
    ci, se = _finish(theta_hat, theta_b, level, method, accel)
    return BootstrapResult(_scalar(theta_hat), ci, se, theta_b, method, level, n_resamples,
                           "cells")


def compare_state(state: PairedConfusionState, metric: str | Callable[..., Any], *,
                  n_resamples: int = 1000, confidence_level: float = 0.95,
                  method: str = "percentile",
                  random_state: RandomState = None, **metric_kwargs: Any) -> ComparisonResult:
    """:func:`compare` of a confusion metric from a
    :class:`~fastmetrics.states.PairedConfusionState` alone (a paired accumulator's, a
    merged Dask state).

    Parameters
    ----------
    state : PairedConfusionState
        The joint (true, A's, B's label) counts.
    metric : callable or str
        A confusion-family metric (``"accuracy_score"``, ``fastmetrics.f1_score``).
    n_resamples : int, default=1000
        Number of resamples (>= 1).
    confidence_level : float, default=0.95
        Level of the interval, in (0, 1).
    method : {"percentile", "basic", "bca"}, default="percentile"
        The interval, as ``scipy.stats.bootstrap`` defines it.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the resampling.
    **metric_kwargs : dict
        Passed to the metric's derivation.

    Returns
    -------
    result : ComparisonResult
        As for :func:`compare`, with ``resampled="cells"``.

    Raises
    ------
    TypeError
        If ``state`` is not a ``PairedConfusionState``, ``metric`` is not callable or a
        name, or ``metric_kwargs`` holds a keyword the derivation does not take; if
        ``n_resamples`` or ``confidence_level`` is not a number.
    ValueError
        If ``metric`` is not a confusion-family metric, or an option is not an allowed
        value (as for :func:`bootstrap`).

    See Also
    --------
    scipy.stats.bootstrap : scipy's bootstrap of one statistic.
    compare : The same from the data.
    fastmetrics.mcnemar_test : An exact test of two accuracies.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> from fastmetrics.states import PairedConfusionState
    >>> st = PairedConfusionState.from_arrays([0, 1] * 50, [0, 0] * 50, [0, 1] * 50)
    >>> fm.compare_state(st, "accuracy_score", random_state=0).difference
    0.5
    """
    n_resamples = _intervals.check_resamples(n_resamples)
    level = _intervals.check_level(confidence_level)
    method = _intervals.check_method(method)
    rng = _intervals.generator(random_state)
    row, name = _state_row(state, metric, metric_kwargs, (PairedConfusionState,))
    value_a, value_b, theta_b, accel = _joint_values(row, state, metric_kwargs, rng,
                                                     n_resamples, method, name)
    return _comparison(name, value_a, value_b, theta_b, level, method, accel, n_resamples,
                       "cells")


def _check_shapes(name: str, theta_b: np.ndarray, value: np.ndarray) -> None:
    if theta_b.shape[1:] != value.shape:
        raise ValueError(f"{name} returned values of shape {theta_b.shape[1:]} on resamples "
                         f"but {value.shape} on the data: give labels= so every resample "
                         "has the same classes")


def _comparison(name: str, value_a: np.ndarray, value_b: np.ndarray, theta_b: np.ndarray,
                level: float, method: str, accel: Any, n_resamples: int,
                resampled: str) -> ComparisonResult:
    delta = value_b - value_a
    _check_shapes(name, theta_b, delta)
    ci, se = _finish(delta, theta_b, level, method, accel)
    return ComparisonResult(_scalar(value_a), _scalar(value_b), _scalar(delta), ci, se,
                            _scalar(_intervals.pvalue(delta, theta_b)), theta_b, method, level,
                            n_resamples, resampled)


def _parameters(fn: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    try:
        return dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return {}


# --------------------------------------------------------------------------- compare


def compare(metric: str | Callable[..., Any], y_true: ArrayLike, y_pred_a: ArrayLike,
            y_pred_b: ArrayLike, *, n_resamples: int = 1000, confidence_level: float = 0.95,
            method: str = "percentile",
            random_state: RandomState = None, sample_weight: ArrayLike | None = None,
            n_threads: int | None = None, **metric_kwargs: Any) -> ComparisonResult:
    """Model B against model A on the same rows: ``metric(B) - metric(A)`` with a paired
    bootstrap interval and p-value.

    Each resample draws rows and scores both models on the same rows, so the interval
    accounts for the correlation of the two models' errors (much narrower than two
    separate intervals when the models agree on most rows). Not in scikit-learn.

    Parameters
    ----------
    metric : callable or str
        As for :func:`bootstrap`.
    y_true : array-like of shape (n_samples,)
        True labels or targets.
    y_pred_a : array-like of shape (n_samples,) or (n_samples, n_classes)
        Model A's predictions (or scores) of the rows.
    y_pred_b : array-like of shape (n_samples,) or (n_samples, n_classes)
        Model B's predictions (or scores) of the same rows.
    n_resamples : int, default=1000
        Number of resamples (>= 1).
    confidence_level : float, default=0.95
        Level of the interval, in (0, 1).
    method : {"percentile", "basic", "bca"}, default="percentile"
        The interval, as ``scipy.stats.bootstrap`` defines it.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the resampling.
    sample_weight : array-like of shape (n_samples,), default=None
        Resampled with the rows.
    n_threads : int or None, default=None
        Threads of the metric's kernel pass, passed on to metrics that take it.
    **metric_kwargs : dict
        Passed to the metric.

    Returns
    -------
    result : ComparisonResult
        ``value_a``, ``value_b``, ``difference``, its ``confidence_interval``,
        ``standard_error`` and two-sided ``pvalue`` (the share of resampled differences at
        least as far from the observed one as it is from zero, ``(1 + hits) / (1 + B)``),
        and ``resampled``: "cells" for the confusion metrics on unweighted labels (the
        joint (true, A, B) table's cells, O(cells) per resample), "rows" otherwise. For
        ROC AUC, :func:`fastmetrics.delong_test` is the fast paired test.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty, or for the options :func:`bootstrap`
        refuses; or whatever the metric raises for its input.
    TypeError
        As for :func:`bootstrap`.

    Warns
    -----
    RuntimeWarning
        If a BCa interval cannot be computed (every resample on one side of the value).

    See Also
    --------
    scipy.stats.bootstrap : scipy's bootstrap of one statistic.
    fastmetrics.mcnemar_test : An exact test of two accuracies.
    fastmetrics.delong_test : DeLong's paired test of two ROC AUCs.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> y_true = [0, 1, 1, 0, 1, 0, 1, 1] * 50
    >>> a = [0, 1, 0, 0, 1, 1, 1, 1] * 50
    >>> b = [0, 1, 1, 0, 1, 1, 1, 1] * 50
    >>> r = fm.compare("accuracy_score", y_true, a, b, random_state=0)
    >>> r.value_a, r.value_b, r.difference
    (0.75, 0.875, 0.125)
    >>> bool(r.pvalue < 0.01)
    True
    """
    n_resamples, level, method, rng, fn, row, name, kwargs, derive_kw = _setup(
        metric, n_resamples, confidence_level, method, random_state, sample_weight, n_threads,
        metric_kwargs)
    joint = _joint_state(row, y_true, y_pred_a, y_pred_b, derive_kw, sample_weight)
    if joint is not None:
        assert row is not None
        value_a, value_b, theta_b, accel = _joint_values(row, joint, derive_kw, rng,
                                                         n_resamples, method, name)
        resampled = "cells"
    else:
        arrays, w, n = _rows((y_true, y_pred_a, y_pred_b), sample_weight)
        kw0 = kwargs if w is None else {**kwargs, "sample_weight": w}
        value_a = _numeric(fn(arrays[0], arrays[1], **kw0), name)
        value_b = _numeric(fn(arrays[0], arrays[2], **kw0), name)
        groups = [[arrays[0], arrays[1]], [arrays[0], arrays[2]]]
        theta_b = _stack(_row_values(fn, groups, w, n, kwargs, rng, n_resamples,
                                     combine=_minus(name)), name)
        accel = None
        if method == "bca":
            accel = _intervals.acceleration(
                _row_jackknife(fn, groups, w, n, kwargs, combine=_minus(name)))
        resampled = "rows"
    return _comparison(name, value_a, value_b, theta_b, level, method, accel, n_resamples,
                       resampled)


def _minus(name: str) -> Callable[[Any, Any], FloatArray]:
    def combine(a: Any, b: Any) -> FloatArray:
        return _numeric(b, name) - _numeric(a, name)
    return combine


def _joint_state(row: _table.Metric | None, y_true: ArrayLike, a: ArrayLike, b: ArrayLike,
                 kwargs: dict[str, Any],
                 sample_weight: ArrayLike | None) -> PairedConfusionState | None:
    if row is None or row.family != "confusion" or sample_weight is not None:
        return None
    takes = inspect.signature(row.derive).parameters
    if any(k not in takes for k in kwargs):
        return None
    if np.ndim(y_true) != 1 or np.ndim(a) != 1 or np.ndim(b) != 1:
        return None
    return PairedConfusionState.from_arrays(y_true, a, b)


# --------------------------------------------------------------------------- McNemar


def mcnemar_test(y_true: ArrayLike, y_pred_a: ArrayLike, y_pred_b: ArrayLike, *,
                 exact: bool = True, correction: bool = True) -> McNemarResult:
    """McNemar's test that two classifiers have the same accuracy on the same rows.

    Only the rows where exactly one model is right count: ``a_only`` (A right, B wrong) and
    ``b_only``. The exact test is the two-sided binomial test of ``min(a_only, b_only)``
    out of ``a_only + b_only`` at 1/2; otherwise the chi-square statistic with one degree
    of freedom, with the continuity ``correction``. The same numbers as
    ``statsmodels.stats.contingency_tables.mcnemar`` of the 2 x 2 table of (A right,
    B right), except where no row has the models disagree: the chi-square statistic is
    then undefined and both it and its p-value are NaN (statsmodels divides by zero).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred_a : array-like of shape (n_samples,)
        Model A's predicted labels.
    y_pred_b : array-like of shape (n_samples,)
        Model B's predicted labels.
    exact : bool, default=True
        The exact binomial test; False: the chi-square approximation.
    correction : bool, default=True
        Continuity correction of the chi-square statistic (``exact=False`` only).

    Returns
    -------
    result : McNemarResult
        ``statistic``, ``pvalue``, ``a_only``, ``b_only``.

    Raises
    ------
    TypeError
        If ``exact`` or ``correction`` is not a bool.
    ValueError
        If the label arrays differ in length, are not 1-D, or hold NaN or infinity.

    See Also
    --------
    statsmodels.stats.contingency_tables.mcnemar : The statsmodels test it matches.
    fastmetrics.uncertainty.mcnemar_from_counts : The test from the two counts.
    compare : A bootstrap interval for the difference of any metric.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.mcnemar_test([0, 1, 1, 0, 1, 1], [0, 1, 0, 1, 0, 1], [0, 1, 1, 0, 1, 1])
    >>> r.a_only, r.b_only, r.pvalue
    (0, 3, 0.25)
    """
    _check_flags(exact, correction)
    joint = PairedConfusionState.from_arrays(y_true, y_pred_a, y_pred_b)
    return mcnemar_from_counts(*joint.disagreements(), exact=bool(exact),
                               correction=bool(correction))


def _check_flags(exact: object, correction: object) -> None:
    for name, v in (("exact", exact), ("correction", correction)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name} must be a bool, got {v!r}")


def mcnemar_from_counts(a_only: int, b_only: int, *, exact: bool = True,
                        correction: bool = True) -> McNemarResult:
    """McNemar's test from the two disagreement counts (see :func:`~fastmetrics.mcnemar_test`).

    The exact p-value is a sum of binomial coefficients (in logarithms above 20,000
    disagreements); the chi-square p-value is the survival function with one degree of
    freedom.

    Parameters
    ----------
    a_only : int
        Rows model A labels right and model B wrong (>= 0).
    b_only : int
        Rows model B labels right and model A wrong (>= 0).
    exact : bool, default=True
        The exact binomial test; False: the chi-square approximation.
    correction : bool, default=True
        Continuity correction of the chi-square statistic (``exact=False`` only).

    Returns
    -------
    result : McNemarResult
        ``statistic``, ``pvalue``, ``a_only``, ``b_only`` (statistic and p-value NaN for
        the chi-square test of two zero counts).

    Raises
    ------
    ValueError
        If a count is not a non-negative integer.
    TypeError
        If ``exact`` or ``correction`` is not a bool.

    See Also
    --------
    statsmodels.stats.contingency_tables.mcnemar : The statsmodels test it matches.
    fastmetrics.mcnemar_test : The test from labels.

    Examples
    --------
    >>> from fastmetrics.uncertainty import mcnemar_from_counts
    >>> r = mcnemar_from_counts(1, 9, exact=False)
    >>> round(r.statistic, 2), round(r.pvalue, 4)
    (4.9, 0.0269)
    """
    _check_flags(exact, correction)
    for name, v in (("a_only", a_only), ("b_only", b_only)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
    b, c = int(a_only), int(b_only)
    n = b + c
    if exact:
        k = min(b, c)
        return McNemarResult(float(k), min(1.0, 2.0 * _binom_half_cdf(k, n)), b, c)
    if n == 0:
        return McNemarResult(math.nan, math.nan, b, c)
    stat = (abs(b - c) - int(bool(correction))) ** 2 / n
    # the chi-square survival function with one degree of freedom
    return McNemarResult(float(stat), math.erfc(math.sqrt(stat / 2.0)), b, c)


def _binom_half_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), k <= n / 2."""
    if n <= 20_000:  # exactly: the sum of binomial coefficients as an integer, one division
        c = total = 1
        for i in range(1, k + 1):
            c = c * (n - i + 1) // i
            total += c
        return total / (1 << n)
    # larger n: the terms in logs, from the largest (i = k) down while they still count
    log2 = math.log(2.0)
    log_t = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * log2
    terms, i = [], k
    t = math.exp(log_t)
    while i >= 0:
        terms.append(t)
        if t < 1e-18 * terms[0]:
            break
        t *= i / (n - i + 1)  # term i - 1 from term i
        i -= 1
    return min(1.0, math.fsum(terms))
