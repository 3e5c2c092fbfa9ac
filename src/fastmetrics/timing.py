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
from typing import Any

import numpy as np

from ._kernels import select as _select
from .energy import tracks_emissions
from .report import RESULTS_HEADER, format_metrics_row

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


@dataclass(frozen=True)
class LatencyStats:
    """Per-query latency summary in milliseconds (percentiles: numpy's 'linear' method)."""

    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    min_ms: float
    max_ms: float
    n_iters: int

    def as_row(self, digits: int = 4) -> dict:
        """Flat dict of the fields, floats rounded to ``digits`` decimals."""
        return {k: (round(v, digits) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class BatchStats:
    """Wall-clock time of one prediction over a whole batch."""

    seconds: float
    n_samples: int
    throughput: float  # samples per second; inf when the time measured is 0

    def as_row(self, digits: int = 4) -> dict:
        return {k: (round(v, digits) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class ModelBenchmark:
    """What :func:`benchmark_model` measured; ``to_flat_dict()`` gives dot-keyed scalars."""

    task: str
    fit_seconds: float
    batch: BatchStats
    latency: LatencyStats
    metrics: dict = field(default_factory=dict)
    emissions: Any = None  # an EmissionsReport with benchmark_model(..., emissions=...)

    def to_flat_dict(self) -> dict:
        out = {"task": self.task, "fit_seconds": self.fit_seconds}
        out.update({f"batch.{k}": v for k, v in asdict(self.batch).items()})
        out.update({f"latency.{k}": v for k, v in asdict(self.latency).items()})
        out.update({f"metrics.{k}": v for k, v in self.metrics.items()})
        if self.emissions is not None:
            out.update(self.emissions.to_flat_dict())
        return out


def latency_stats(samples_ns) -> LatencyStats:
    """Summarise per-call durations given in nanoseconds.

    Parameters
    ----------
    samples_ns : array_like of int or float, shape (n,)
        Durations in nanoseconds (``perf_counter_ns`` differences), n >= 1, none negative
        or NaN. An int64 or float64 ndarray is read in place; other input is converted once.

    Returns
    -------
    LatencyStats
        ``p50_ms``, ``p95_ms``, ``p99_ms`` equal ``np.percentile(samples_ns, [50, 95, 99])
        / 1e6`` exactly; ``mean_ms``, ``min_ms``, ``max_ms`` and ``n_iters`` (= n).

    Raises
    ------
    ValueError
        If ``samples_ns`` is empty, not 1-D, or holds NaN or negative values.

    Examples
    --------
    >>> from fastmetrics import latency_stats
    >>> s = latency_stats([1_000_000, 2_000_000, 3_000_000, 4_000_000])
    >>> s.p50_ms, s.max_ms, s.n_iters
    (2.5, 4.0, 4)
    """
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
        raise ValueError(f"samples_ns contains a negative duration ({lo} ns)")
    return LatencyStats(
        p50 / _NS_PER_MS, p95 / _NS_PER_MS, p99 / _NS_PER_MS, mean / _NS_PER_MS,
        lo / _NS_PER_MS, hi / _NS_PER_MS, a.shape[0],
    )


def _check_count(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def chosen_indices(n_inputs: int, n_iters: int, seed=0) -> np.ndarray:
    """The input indices :func:`measure_latency` times, in order (reproducible by seed)."""
    return np.random.default_rng(seed).integers(0, n_inputs, size=n_iters)


def measure_latency(fn, inputs, *, warmup=DEFAULT_WARMUP, n_iters=DEFAULT_N_ITERS, seed=0):
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


def throughput_per_minute(n_instances, duration_s) -> float:
    """Instances per minute: ``n_instances / duration_s * 60`` (the reference harness's
    ``throughput``); ``inf`` for a duration of 0 with instances, 0.0 with none.

    Raises
    ------
    ValueError
        Negative or non-finite ``n_instances`` or ``duration_s``.

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


def measure_batch(fn, X, *, warmup=DEFAULT_BATCH_WARMUP) -> BatchStats:
    """Time one call ``fn(X)`` on a whole batch, after a small warm-up call.

    The warm-up calls ``fn`` on the first ``warmup`` rows (skipped when ``warmup`` is 0).
    ``throughput`` is ``len(X) / seconds``, and ``inf`` when the measured time is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import measure_batch
    >>> b = measure_batch(np.sort, np.arange(1000))
    >>> b.n_samples, b.throughput > 0
    (1000, True)
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    warmup = _check_count(warmup, "warmup", 0)
    n = len(X)
    if warmup and n:
        fn(_head(X, min(warmup, n)))
    t0 = time.perf_counter_ns()
    fn(X)
    elapsed = time.perf_counter_ns() - t0
    seconds = elapsed / _NS_PER_S
    throughput = n / seconds if seconds > 0 else math.inf
    return BatchStats(seconds, n, throughput)


def _head(X, k):
    if hasattr(X, "iloc"):  # pandas
        return X.iloc[:k]
    return X[:k]


class _Rows:
    """``rows[i]`` is the 2-D one-row batch ``X[i:i+1]`` (what ``predict`` expects)."""

    __slots__ = ("_X", "_n")

    def __init__(self, X):
        self._X = X.iloc if hasattr(X, "iloc") else X
        self._n = len(X)

    def __len__(self):
        return self._n

    def __getitem__(self, i):
        return self._X[i : i + 1]


def _labels(pred):
    """Predictions as a 1-D label array: argmax of (n, K>1) probabilities, else flattened."""
    p = np.asarray(pred)
    if p.ndim == 2 and p.shape[1] > 1:
        return p.argmax(axis=1)
    return p.reshape(-1)


def _regression_metrics(y_true, y_pred) -> dict:
    from .regression import regression_summary

    y = np.asarray(y_true).reshape(-1)
    p = np.asarray(y_pred).reshape(-1)
    if y.shape != p.shape:
        raise ValueError(f"y_test has {y.shape[0]} values but the model predicted {p.shape[0]}")
    summary = regression_summary(y, p)  # one pass: R² and MSE together
    return {"r2": summary.r2, "mse": summary.mse, "mae": summary.mae}


@tracks_emissions
def benchmark_model(model, X_train, y_train, X_test, y_test, *, task="classification",
                    warmup=DEFAULT_WARMUP, n_iters=DEFAULT_N_ITERS, seed=0,
                    batch_warmup=DEFAULT_BATCH_WARMUP, emissions=None) -> ModelBenchmark:
    """Fit a model, then measure fit time, batch inference, single-sample latency and quality.

    The reference procedure: wall-clock ``fit`` time; one timed ``predict`` over ``X_test``
    after a small warm-up (time, samples, throughput); ``n_iters`` single-row ``predict``
    calls on rows drawn with ``seed`` after ``warmup`` untimed calls; and the task's metrics
    on the batch predictions (probabilities become labels by argmax, predictions are
    flattened): accuracy and macro F1 for classification, R², MSE and MAE for regression.

    Parameters
    ----------
    model : estimator
        Has ``fit(X, y)`` and ``predict(X)``.
    X_train, y_train, X_test, y_test : array-like
    task : {"classification", "regression"}
    warmup, n_iters, seed : see :func:`measure_latency`
    batch_warmup : int
        Rows of the warm-up prediction before the batch is timed.
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
        (:class:`LatencyStats`), ``metrics`` (dict); ``to_flat_dict()`` for one flat row.

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
    batch = measure_batch(model.predict, X_test, warmup=batch_warmup)
    y_pred = model.predict(X_test)
    latency = measure_latency(model.predict, _Rows(X_test), warmup=warmup, n_iters=n_iters,
                              seed=seed)
    if task == "classification":
        from .classification import accuracy_score, f1_score

        y_true = np.asarray(y_test).reshape(-1)
        labels = _labels(y_pred)
        metrics = {
            "accuracy": float(accuracy_score(y_true, labels)),
            "macro_f1": float(f1_score(y_true, labels, average="macro")),
        }
    else:
        metrics = _regression_metrics(y_test, y_pred)
    return ModelBenchmark(task, fit_seconds, batch, latency, metrics)


def append_results(path, name, metrics, latency=None) -> str:
    """Append one markdown row for a run to the results log at ``path`` (e.g. RESULTS.md).

    The header (:data:`RESULTS_HEADER`) is written first when the file is new or empty;
    every call then adds exactly one row, made by
    :func:`fastmetrics.report.format_metrics_row` (columns name, accuracy, macro_f1,
    oos_recall, p50_ms, p95_ms; missing values render as N/A). Returns the row written.
    """
    row = format_metrics_row(name, metrics, latency)
    path = os.fspath(path)
    with open(path, "a", encoding="utf-8") as f:
        if f.tell() == 0:
            f.write(RESULTS_HEADER)
        f.write(row.rstrip("\n") + "\n")
    return row
