"""Latency and throughput harness: per-query latency percentiles, batch throughput, and a
one-call model benchmark, all timed with :func:`time.perf_counter_ns`.

The procedure is the usual one for request-style inference: warm-up calls first (never
timed), then ``n_iters`` calls that each send *one* input (never a batch), drawn with a seeded
generator so two runs time the same inputs. Percentiles are exact (numpy's 'linear' method,
bit for bit), computed by the selection kernel of :mod:`fastmetrics.percentiles`.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ._kernels import select as _select
from .energy import tracks_emissions
from .report import RESULTS_HEADER, format_metrics_row, results_columns, results_header


if TYPE_CHECKING:
    from typing import Literal
    from ._typing import ArrayLike
    from collections.abc import Callable

__all__ = [
    "LatencyStats",
    "BatchStats",
    "ModelBenchmark",
    "RESULTS_HEADER",
    "latency_stats",
    "measure_latency",
    "measure_batch",
    "benchmark_model",
    "append_results",
    "throughput_per_minute",
]

DEFAULT_WARMUP = 10
DEFAULT_N_ITERS = 200  # the reference procedure's single-sample runs
DEFAULT_BATCH_WARMUP = 8  # rows in the small warm-up prediction before a batch is timed

_NS_PER_MS = 1e6
_NS_PER_S = 1e9
_PER_MS = {"ns": _NS_PER_MS, "ms": 1.0}  # a unit -> its count in one millisecond


@dataclass(frozen=True)
class LatencyStats:
    """Per-query latency summary in milliseconds (percentiles: numpy's 'linear' method).

    Built as the reference harness builds it, ``LatencyStats(p50, p95, p99, mean,
    n_iters)``; :func:`latency_stats` also fills ``min_ms`` and ``max_ms`` (None when not
    measured).

    Parameters
    ----------
    p50_ms, p95_ms, p99_ms : float
        The 50th, 95th and 99th percentiles of the per-call latency, in milliseconds.
    mean_ms : float
        The mean latency, in milliseconds.
    n_iters : int
        Number of timed calls.
    min_ms, max_ms : float or None, default=None
        The smallest and largest latency, in milliseconds (None when not measured).

    See Also
    --------
    fastmetrics.latency_stats : The summary of measured durations.
    fastmetrics.measure_latency : Time a function and summarise it.

    Examples
    --------
    >>> from fastmetrics import LatencyStats
    >>> LatencyStats(1.5, 3.0, 4.0, 1.8, 200).as_row()["p95_ms"]
    3.0
    """

    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    n_iters: int
    min_ms: float | None = None
    max_ms: float | None = None

    def as_row(self, digits: int = 4) -> dict[str, Any]:
        """Flat dict of the fields, floats rounded to ``digits`` decimals.

        Parameters
        ----------
        digits : int, default=4
            Decimals kept of each float field.

        Returns
        -------
        dict
            Field name -> value (None where not measured).

        See Also
        --------
        fastmetrics.BatchStats.as_row : The same for a batch timing.

        Examples
        --------
        >>> from fastmetrics import LatencyStats
        >>> LatencyStats(1.23456, 2.0, 3.0, 1.5, 10).as_row(digits=2)["p50_ms"]
        1.23
        """
        return {k: (round(v, digits) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class BatchStats:
    """Wall-clock time of one prediction over a whole batch.

    Parameters
    ----------
    seconds : float
        Wall-clock time of the call, in seconds.
    n_samples : int
        Rows in the batch.
    throughput : float
        Samples per second (``n_samples / seconds``; inf when the time measured is 0).

    See Also
    --------
    fastmetrics.measure_batch : Time a function on a batch.

    Examples
    --------
    >>> from fastmetrics import BatchStats
    >>> BatchStats(0.5, 1000, 2000.0).as_row()
    {'seconds': 0.5, 'n_samples': 1000, 'throughput': 2000.0}
    """

    seconds: float
    n_samples: int
    throughput: float  # samples per second; inf when the time measured is 0

    def as_row(self, digits: int = 4) -> dict[str, Any]:
        """Flat dict of the fields, floats rounded to ``digits`` decimals.

        Parameters
        ----------
        digits : int, default=4
            Decimals kept of each float field.

        Returns
        -------
        dict
            ``seconds``, ``n_samples`` and ``throughput``.

        See Also
        --------
        fastmetrics.LatencyStats.as_row : The same for a latency summary.

        Examples
        --------
        >>> from fastmetrics import BatchStats
        >>> BatchStats(0.123456, 10, 81.0).as_row(digits=3)["seconds"]
        0.123
        """
        return {k: (round(v, digits) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class ModelBenchmark:
    """What :func:`benchmark_model` measured; ``to_flat_dict()`` gives dot-keyed scalars.

    Parameters
    ----------
    task : {"classification", "regression"}
        The task benchmarked.
    fit_seconds : float
        Wall-clock time of ``fit``, in seconds.
    batch : BatchStats
        The timed ``predict`` over the whole test set.
    latency : LatencyStats
        The single-row ``predict`` latency.
    metrics : dict, default={}
        The task's metrics on the batch predictions (``accuracy`` and ``macro_f1``, or
        ``r2``, ``mse`` and ``mae``).
    emissions : EmissionsReport or None, default=None
        Energy and CO2 of the benchmark, with ``benchmark_model(..., emissions=...)``.

    See Also
    --------
    fastmetrics.benchmark_model : What builds it.
    fastmetrics.append_results : Write it to a results log.

    Examples
    --------
    >>> from fastmetrics import BatchStats, LatencyStats, ModelBenchmark
    >>> b = ModelBenchmark("classification", 0.25, BatchStats(0.5, 100, 200.0),
    ...                    LatencyStats(1.0, 2.0, 3.0, 1.2, 50), {"accuracy": 0.9})
    >>> b.accuracy, b.macro_f1, b.to_flat_dict()["latency.p50_ms"]
    (0.9, None, 1.0)
    """

    task: str
    fit_seconds: float
    batch: BatchStats
    latency: LatencyStats
    metrics: dict[str, Any] = field(default_factory=dict)
    emissions: Any = None  # an EmissionsReport with benchmark_model(..., emissions=...)

    # the report card's headline names, so that a benchmark is a results-log row
    # (format_metrics_row / append_results); None for what the task does not compute
    @property
    def accuracy(self) -> float | None:
        """The accuracy in ``metrics`` (None for regression).

        See Also
        --------
        fastmetrics.ModelBenchmark.macro_f1 : The other headline number.

        Examples
        --------
        >>> from fastmetrics import BatchStats, LatencyStats, ModelBenchmark
        >>> ModelBenchmark("regression", 0.1, BatchStats(0.1, 1, 10.0),
        ...                LatencyStats(1.0, 1.0, 1.0, 1.0, 1), {"r2": 0.5}).accuracy is None
        True
        """
        return self.metrics.get("accuracy")

    @property
    def macro_f1(self) -> float | None:
        """The macro F1 in ``metrics`` (None for regression).

        See Also
        --------
        fastmetrics.ModelBenchmark.accuracy : The other headline number.

        Examples
        --------
        >>> from fastmetrics import BatchStats, LatencyStats, ModelBenchmark
        >>> ModelBenchmark("classification", 0.1, BatchStats(0.1, 1, 10.0),
        ...                LatencyStats(1.0, 1.0, 1.0, 1.0, 1), {"macro_f1": 0.5}).macro_f1
        0.5
        """
        return self.metrics.get("macro_f1")

    @property
    def oos_recall(self) -> float | None:
        """The out-of-scope recall in ``metrics`` (None: the benchmark computes none).

        See Also
        --------
        fastmetrics.score : The report card that has one, with ``oos_label``.

        Examples
        --------
        >>> from fastmetrics import BatchStats, LatencyStats, ModelBenchmark
        >>> ModelBenchmark("classification", 0.1, BatchStats(0.1, 1, 10.0),
        ...                LatencyStats(1.0, 1.0, 1.0, 1.0, 1)).oos_recall is None
        True
        """
        return self.metrics.get("oos_recall")

    def to_flat_dict(self) -> dict[str, Any]:
        """Every measurement as one flat dict of dot-keyed scalars.

        Returns
        -------
        dict
            ``task``, ``fit_seconds``, ``batch.*``, ``latency.*``, ``metrics.*`` and, with
            emissions tracked, the emissions report's keys.

        See Also
        --------
        fastmetrics.append_results : Write a benchmark to a results log.

        Examples
        --------
        >>> from fastmetrics import BatchStats, LatencyStats, ModelBenchmark
        >>> b = ModelBenchmark("regression", 0.1, BatchStats(0.5, 100, 200.0),
        ...                    LatencyStats(1.0, 2.0, 3.0, 1.2, 50), {"r2": 0.75})
        >>> d = b.to_flat_dict()
        >>> d["batch.throughput"], d["metrics.r2"]
        (200.0, 0.75)
        """
        out = {"task": self.task, "fit_seconds": self.fit_seconds}
        out.update({f"batch.{k}": v for k, v in asdict(self.batch).items()})
        out.update({f"latency.{k}": v for k, v in asdict(self.latency).items()})
        out.update({f"metrics.{k}": v for k, v in self.metrics.items()})
        if self.emissions is not None:
            out.update(self.emissions.to_flat_dict())
        return out


def latency_stats(samples_ns: ArrayLike, *, unit: Literal["ns", "ms"] = "ns") -> LatencyStats:
    """Summarise per-call durations given in nanoseconds (or milliseconds).

    Parameters
    ----------
    samples_ns : array_like of int or float, shape (n,)
        Durations in nanoseconds (``perf_counter_ns`` differences), n >= 1, none negative
        or NaN. An int64 or float64 ndarray is read in place; other input is converted once.
    unit : {"ns", "ms"}, default="ns"
        The unit of ``samples_ns``: with "ms" (durations logged in milliseconds) the
        percentiles are ``np.percentile(samples_ns, [50, 95, 99])`` exactly.

    Returns
    -------
    LatencyStats
        ``p50_ms``, ``p95_ms``, ``p99_ms`` equal ``np.percentile(samples_ns, [50, 95, 99])
        / 1e6`` exactly; ``mean_ms``, ``min_ms``, ``max_ms`` and ``n_iters`` (= n).

    Raises
    ------
    ValueError
        If ``samples_ns`` is empty, not 1-D, or holds NaN or negative values, or ``unit`` is
        not "ns" or "ms".
    TypeError
        If ``samples_ns`` is not numeric.

    See Also
    --------
    fastmetrics.measure_latency : Time a function and summarise it.
    fastmetrics.percentile : Exact percentiles of any array.
    numpy.percentile : The values the percentiles equal.

    Examples
    --------
    >>> from fastmetrics import latency_stats
    >>> s = latency_stats([1_000_000, 2_000_000, 3_000_000, 4_000_000])
    >>> s.p50_ms, s.max_ms, s.n_iters
    (2.5, 4.0, 4)
    """
    if unit not in _PER_MS:
        raise ValueError(f"unit must be 'ns' or 'ms', got {unit!r}")
    per_ms = _PER_MS[unit]
    a = samples_ns
    if (type(a) is not np.ndarray or a.dtype.char not in "ld" or a.ndim != 1
            or not a.dtype.isnative):
        a = np.asarray(a)
        if a.ndim != 1:
            raise ValueError(f"samples_ns must be 1-D, got shape {a.shape}")
        if a.dtype.kind in "iub":
            a = a.astype(np.int64)
        elif a.dtype.kind == "f":
            a = a.astype(np.float64)
        else:
            raise TypeError(f"samples_ns must be numeric, got dtype {a.dtype}")
    if a.shape[0] == 0:
        raise ValueError("samples_ns is empty: no latency to summarise")
    r = _select.latency_summary(a)
    if r is None:
        raise ValueError("samples_ns contains NaN")
    p50, p95, p99, mean, lo, hi = r
    if lo < 0:
        raise ValueError(f"samples_ns contains a negative duration ({lo} {unit})")
    return LatencyStats(
        p50 / per_ms, p95 / per_ms, p99 / per_ms, mean / per_ms,
        a.shape[0], min_ms=lo / per_ms, max_ms=hi / per_ms,
    )


def _check_count(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def chosen_indices(n_inputs: int, n_iters: int, seed: int | None = 0) -> np.ndarray:
    """The input indices :func:`measure_latency` times, in order (reproducible by seed)."""
    return np.random.default_rng(seed).integers(0, n_inputs, size=n_iters)


def measure_latency(fn: Callable[[Any], object], inputs: Any, *,
                    warmup: int = DEFAULT_WARMUP, n_iters: int = DEFAULT_N_ITERS,
                    seed: int | None = 0) -> LatencyStats:
    """Time ``fn`` one input at a time and summarise the per-call latency.

    ``n_iters`` inputs are drawn from ``inputs`` with ``np.random.default_rng(seed)``; the
    first ``warmup`` calls (on the first drawn inputs, cycling) are made and not timed; then
    each drawn input is passed alone to ``fn`` and the call is timed with
    ``time.perf_counter_ns``. Fetching the input is not timed.

    Parameters
    ----------
    fn : callable
        Called as ``fn(inputs[i])``; its result is ignored.
    inputs : sequence or array
        Anything with ``len`` and integer indexing (for a model that wants a 2-D row, pass
        e.g. ``X[:, None, :]`` or a list of ``X[i:i+1]`` slices).
    warmup : int, default 10
        Untimed calls made first.
    n_iters : int, default 200
        Timed calls (the reference procedure's 200 runs).
    seed : int or None, default 0
        Seed of the generator drawing the inputs.

    Returns
    -------
    LatencyStats
        The percentiles, mean, minimum and maximum of the ``n_iters`` timed calls, in
        milliseconds.

    Raises
    ------
    TypeError
        If ``fn`` is not callable, or ``warmup`` or ``n_iters`` is not an int.
    ValueError
        If ``inputs`` is empty, ``warmup`` < 0 or ``n_iters`` < 1.

    See Also
    --------
    fastmetrics.measure_batch : Time one call on a whole batch.
    fastmetrics.benchmark_model : Fit, batch, latency and quality of a model in one call.

    Examples
    --------
    >>> from fastmetrics import measure_latency
    >>> stats = measure_latency(abs, [-1, 2, -3], warmup=2, n_iters=50)
    >>> stats.n_iters
    50
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    warmup = _check_count(warmup, "warmup", 0)
    n_iters = _check_count(n_iters, "n_iters", 1)
    n_inputs = len(inputs)
    if n_inputs == 0:
        raise ValueError("inputs is empty: nothing to time")
    idx = chosen_indices(n_inputs, n_iters, seed).tolist()
    for j in range(warmup):
        fn(inputs[idx[j % n_iters]])
    clock = time.perf_counter_ns
    samples = [0] * n_iters
    for j in range(n_iters):
        x = inputs[idx[j]]
        t0 = clock()
        fn(x)
        samples[j] = clock() - t0
    return latency_stats(np.array(samples, dtype=np.int64))


def throughput_per_minute(n_instances: float, duration_s: float) -> float:
    """Instances per minute: ``n_instances / duration_s * 60`` (the reference harness's
    ``throughput``); ``inf`` for a duration of 0 with instances, 0.0 with none.

    Parameters
    ----------
    n_instances : int or float
        Instances processed.
    duration_s : float
        The time they took, in seconds.

    Returns
    -------
    float
        Instances per minute.

    Raises
    ------
    ValueError
        Negative or non-finite ``n_instances`` or ``duration_s``.

    See Also
    --------
    fastmetrics.measure_batch : Measures samples per second of a batch call.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.throughput_per_minute(1200, 30.0)
    2400.0
    """
    n, d = float(n_instances), float(duration_s)
    if not (math.isfinite(n) and n >= 0):
        raise ValueError(f"n_instances must be a finite number >= 0, got {n_instances!r}")
    if not (math.isfinite(d) and d >= 0):
        raise ValueError(f"duration_s must be a finite number >= 0, got {duration_s!r}")
    if d == 0:
        return math.inf if n > 0 else 0.0
    return n / d * 60.0


def measure_batch(fn: Callable[[Any], object], X: Any, *,
                  warmup: int = DEFAULT_BATCH_WARMUP) -> BatchStats:
    """Time one call ``fn(X)`` on a whole batch, after a small warm-up call.

    The warm-up calls ``fn`` on the first ``warmup`` rows (skipped when ``warmup`` is 0).
    ``throughput`` is ``len(X) / seconds``, and ``inf`` when the measured time is 0.

    Parameters
    ----------
    fn : callable
        Called as ``fn(X)`` (and ``fn(X[:warmup])`` first); its result is ignored.
    X : array-like, sequence or pandas object
        The batch (anything with ``len`` and slicing; pandas objects are sliced by
        ``iloc``).
    warmup : int, default=8
        Rows of the untimed warm-up call (0: no warm-up).

    Returns
    -------
    BatchStats
        ``seconds``, ``n_samples`` and ``throughput`` of the timed call.

    Raises
    ------
    TypeError
        If ``fn`` is not callable or ``warmup`` is not an int.
    ValueError
        If ``warmup`` < 0.

    See Also
    --------
    fastmetrics.measure_latency : Time single-input calls.
    fastmetrics.throughput_per_minute : Throughput per minute of a measured run.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import measure_batch
    >>> b = measure_batch(np.sort, np.arange(1000))
    >>> b.n_samples, b.throughput > 0
    (1000, True)
    """
    return _timed_batch(fn, X, warmup)[0]


def _timed_batch(fn: Callable[[Any], object], X: Any, warmup: int) -> tuple[BatchStats, Any]:
    """:func:`measure_batch`'s stats and what the timed call returned."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    warmup = _check_count(warmup, "warmup", 0)
    n = len(X)
    if warmup and n:
        fn(_head(X, min(warmup, n)))
    t0 = time.perf_counter_ns()
    out = fn(X)
    elapsed = time.perf_counter_ns() - t0
    seconds = elapsed / _NS_PER_S
    throughput = n / seconds if seconds > 0 else math.inf
    return BatchStats(seconds, n, throughput), out


def _head(X: Any, k: int) -> Any:
    if hasattr(X, "iloc"):  # pandas
        return X.iloc[:k]
    return X[:k]


class _Rows:
    """``rows[i]`` is the 2-D one-row batch ``X[i:i+1]`` (what ``predict`` expects)."""

    __slots__ = ("_X", "_n")

    def __init__(self, X: Any) -> None:
        self._X = X.iloc if hasattr(X, "iloc") else X
        self._n = len(X)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> Any:
        return self._X[i : i + 1]


def _classes(classes: ArrayLike | None, model: Any, y_train: Any,
             k: int | None = None) -> tuple[np.ndarray, str]:
    """The classes of the model's outputs, and where they come from: ``classes``, else
    ``model.classes_``, else the sorted distinct labels of ``y_train`` (the order in which
    scikit-learn's classifiers and label encoders lay out probability columns). With ``k``:
    ValueError unless there are k of them."""
    if classes is not None:
        c, src = np.asarray(classes), "classes"
        if c.ndim != 1 or c.shape[0] != np.unique(c).shape[0]:
            raise ValueError(f"classes must be a 1-D list of distinct labels, got {classes!r}")
    elif getattr(model, "classes_", None) is not None:
        c, src = np.asarray(model.classes_), "model.classes_"
    else:
        c, src = np.unique(np.asarray(y_train).reshape(-1)), "the distinct labels of y_train"
    if k is not None and (c.ndim != 1 or c.shape[0] != k):
        raise ValueError(f"the model predicted {k} probability columns but {src} holds "
                         f"{c.shape[0] if c.ndim == 1 else c.shape} classes: pass classes=, "
                         "the class of each column in order")
    return c, src


def _labels(pred: Any, classes: ArrayLike | None, model: Any, y_train: Any) -> np.ndarray:
    """Predictions as a 1-D label array. (n, K>1) probabilities (or scores): the class of
    the largest column; one column (n, 1) or (n,) of floats in [0, 1] that are not labels:
    the positive class's probability (the second class above 0.5, as the argmax of
    ``[1 - p, p]``); else the predictions flattened."""
    p = np.asarray(pred)
    if p.ndim == 2 and p.shape[1] > 1:
        c, _ = _classes(classes, model, y_train, p.shape[1])
        largest: np.ndarray = c[p.argmax(axis=1)]
        return largest
    if p.ndim > 2 or (p.ndim == 2 and p.shape[1] != 1):
        raise ValueError(f"predict returned shape {p.shape}: expected labels (n,) or "
                         "probabilities (n, K)")
    p = p.reshape(-1)
    if p.dtype.kind != "f" or p.size == 0:
        return p
    c, src = _classes(classes, model, y_train)
    if c.dtype.kind in "iufb" and np.isin(p, c).all():
        return p  # labels that happen to be floats
    if not (np.isfinite(p).all() and p.min() >= 0.0 and p.max() <= 1.0):
        return p  # neither: the metrics say what is wrong
    if c.shape[0] != 2:
        raise ValueError(f"the model predicted one column of values in [0, 1] that are not "
                         f"labels (the positive class's probability?), but {src} holds "
                         f"{c.shape[0]} classes, not 2: pass classes=[negative, positive]")
    positive: np.ndarray = np.where(p > 0.5, c[1], c[0])
    return positive


def _regression_metrics(y_true: Any, y_pred: Any) -> dict[str, float]:
    from .regression import regression_summary

    y = np.asarray(y_true).reshape(-1)
    p = np.asarray(y_pred).reshape(-1)
    if y.shape != p.shape:
        raise ValueError(f"y_test has {y.shape[0]} values but the model predicted {p.shape[0]}")
    summary = regression_summary(y, p)  # one pass: R² and MSE together
    return {"r2": summary.r2, "mse": summary.mse, "mae": summary.mae}


@tracks_emissions
def benchmark_model(model: Any, X_train: Any, y_train: Any, X_test: Any, y_test: Any, *,
                    task: Literal["classification", "regression"] = "classification",
                    warmup: int = DEFAULT_WARMUP, n_iters: int = DEFAULT_N_ITERS,
                    seed: int | None = 0, batch_warmup: int = DEFAULT_BATCH_WARMUP,
                    classes: ArrayLike | None = None, emissions: Any = None) -> ModelBenchmark:
    """Fit a model, then measure fit time, batch inference, single-sample latency and quality.

    The reference procedure: wall-clock ``fit`` time; one timed ``predict`` over ``X_test``
    after a small warm-up (time, samples, throughput); ``n_iters`` single-row ``predict``
    calls on rows drawn with ``seed`` after ``warmup`` untimed calls; and the task's metrics
    on the predictions of the timed batch call (the test set is predicted once):
    accuracy and macro F1 for classification, R², MSE and MAE for regression.

    For classification, the predictions become labels this way: (n, K) probabilities (or
    scores) give the class of their largest column, the columns being the classes
    ``classes``, else ``model.classes_``, else the sorted distinct labels of ``y_train``
    (scikit-learn's order); one column, (n, 1) or (n,), of floats in [0, 1] that are not
    labels is the positive class's probability (the second class when above 0.5); other
    predictions are labels, flattened.

    Parameters
    ----------
    model : estimator
        Has ``fit(X, y)`` and ``predict(X)``.
    X_train, y_train : array-like
        The training data ``fit`` is timed on.
    X_test, y_test : array-like
        The test data: predicted once as a batch (scored against ``y_test``) and row by
        row for the latency.
    task : {"classification", "regression"}, default="classification"
        Which metrics are computed.
    warmup : int, default=10
        Untimed single-row calls before the latency is measured.
    n_iters : int, default=200
        Timed single-row calls.
    seed : int or None, default=0
        Seed of the generator drawing the timed rows.
    batch_warmup : int, default=8
        Rows of the warm-up prediction before the batch is timed.
    classes : array-like, default=None
        The class of each probability column, in order (default: ``model.classes_``, else
        the sorted distinct labels of ``y_train``).
    emissions : None, True or dict, default=None
        Track the benchmark's energy and CO2 (fit and every prediction) with CodeCarbon's
        offline tracker (the ``energy`` extra): True, or a dict of
        :func:`fastmetrics.track_emissions` arguments (``{"country_iso_code": "FRA"}``).
        The result's ``emissions`` is then an ``EmissionsReport`` with the macro F1 or MAE
        (``gco2_per_f1_point`` / ``gco2_per_mae_unit``).

    Returns
    -------
    ModelBenchmark
        ``fit_seconds``, ``batch`` (:class:`BatchStats`), ``latency``
        (:class:`LatencyStats`), ``metrics`` (dict); ``to_flat_dict()`` for one flat row;
        :func:`append_results` / :func:`~fastmetrics.format_metrics_row` write it to the
        results log.

    Raises
    ------
    ValueError
        An unknown ``task``; probability columns whose classes are not known or not as
        many as the columns.

    See Also
    --------
    fastmetrics.measure_latency : The single-row latency part.
    fastmetrics.measure_batch : The batch part.
    fastmetrics.track_emissions : The energy and CO2 part.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import benchmark_model
    >>> class Mean:
    ...     def fit(self, X, y): self.m = float(np.mean(y)); return self
    ...     def predict(self, X): return np.full(len(X), self.m)
    >>> X = np.arange(20.0).reshape(10, 2); y = np.arange(10.0)
    >>> r = benchmark_model(Mean(), X, y, X, y, task="regression", n_iters=5)
    >>> r.metrics["r2"], r.latency.n_iters
    (0.0, 5)
    """
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
    t0 = time.perf_counter_ns()
    model.fit(X_train, y_train)
    fit_seconds = (time.perf_counter_ns() - t0) / _NS_PER_S
    batch, y_pred = _timed_batch(model.predict, X_test, batch_warmup)
    latency = measure_latency(model.predict, _Rows(X_test), warmup=warmup, n_iters=n_iters,
                              seed=seed)
    if task == "classification":
        from .classification import accuracy_score, f1_score

        y_true = np.asarray(y_test).reshape(-1)
        labels = _labels(y_pred, classes, model, y_train)
        metrics = {
            "accuracy": float(accuracy_score(y_true, labels)),
            "macro_f1": float(f1_score(y_true, labels, average="macro")),
        }
    else:
        metrics = _regression_metrics(y_test, y_pred)
    return ModelBenchmark(task, fit_seconds, batch, latency, metrics)


def append_results(path: str | os.PathLike[str], name: str, metrics: Any, latency: Any = None,
                   cost_per_1k: float | None = None, params: Any = None) -> str:
    """Append one markdown row for a run to the results log at ``path`` (e.g. RESULTS.md).

    The row is :func:`fastmetrics.format_metrics_row`'s (``metrics``: a report
    card, a :class:`ModelBenchmark`, a dict or an object with ``accuracy`` and
    ``macro_f1``; missing values render as N/A). When the file is new or empty the header
    (:func:`~fastmetrics.results_header`) is written first, with the ``cost_per_1k`` and
    ``params`` columns when this run gives them; later rows follow the file's header (an
    optional column it has and the run lacks prints N/A). Returns the row written.

    Parameters
    ----------
    path : str or os.PathLike
        The results log (a markdown file, created when missing).
    name : str
        The run's name, in the first column.
    metrics : ClassificationMetrics, ModelBenchmark, dict or object
        The run's numbers (``accuracy``, ``macro_f1``, ``oos_recall``...).
    latency : LatencyStats, default=None
        The run's latency (``p50_ms`` and ``p95_ms`` columns); None: taken from a
        :class:`ModelBenchmark`, else N/A.
    cost_per_1k : float, default=None
        Cost per 1000 predictions (an optional column).
    params : int or str, default=None
        Parameter count of the model (an optional column).

    Returns
    -------
    str
        The row written (without its line break).

    Raises
    ------
    ValueError
        The file does not start with a results-log header, or the run gives ``cost_per_1k``
        or ``params`` and the log has no such column (an append-only log keeps its columns:
        start a new one).

    See Also
    --------
    fastmetrics.format_metrics_row : The row, without writing it.
    fastmetrics.results_header : The header of a new log.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import fastmetrics as fm
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "RESULTS.md"
    >>> row = fm.append_results(path, "baseline", fm.score([0, 1, 1], [0, 1, 0]), cost_per_1k=0.1)
    >>> print(path.read_text(), end="")
    | name | accuracy | macro_f1 | oos_recall | p50_ms | p95_ms | cost_per_1k |
    |---|---|---|---|---|---|---|
    | baseline | 0.6667 | 0.6667 | N/A | N/A | N/A | 0.1000 |
    """
    path = os.fspath(path)
    columns, mend = None, False
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        with open(path, "rb") as f:
            first = f.readline().decode("utf-8", "replace")
            f.seek(-1, os.SEEK_END)
            mend = f.read(1) != b"\n"  # a log whose last row lacks its line break
        columns = results_columns(first)
    row = format_metrics_row(name, metrics, latency, cost_per_1k, params, columns=columns)
    with open(path, "a", encoding="utf-8") as f:
        if columns is None:
            f.write(results_header(cost_per_1k is not None, params is not None))
        elif mend:
            f.write("\n")
        f.write(row + "\n")
    return row
