"""The harness report card: ``score`` -> :class:`ClassificationMetrics`, OOS metrics and the
markdown results row.

Everything in a report card comes from one counting pass (one confusion state).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from ._intervals import check_resamples, ci_level, generator
from ._states import confusion, replicates
from ._states.confusion import ClassificationMetrics, ConfusionState, PerClassMetrics, py_value

__all__ = [
    "RESULTS_HEADER",
    "ClassificationMetrics",
    "PerClassMetrics",
    "flatten",
    "format_metrics_row",
    "oos_precision_recall",
    "score",
]


def oos_precision_recall(y_true, y_pred, oos_label, *, sample_weight=None, n_threads=None):
    """Out-of-scope (abstain label) precision and recall, 0.0 when undefined.

    Returns
    -------
    (precision, recall) : tuple of float

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.oos_precision_recall([0, -1, -1, 1], [0, -1, 1, -1], oos_label=-1)
    (0.5, 0.5)
    """
    return confusion.oos(ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads),
                         oos_label)


def score(y_true, y_pred, *, labels=None, oos_label=None, sample_weight=None, n_threads=None,
          ci=None, n_resamples=1000, random_state=None):
    """The harness report card of a classifier, from one counting pass.

    Per-class metrics use ``zero_division=0`` over the pinned ``labels`` (default: every
    label seen in ``y_true`` or ``y_pred``), so macro F1 does not drift when a rare class is
    missing from a split.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    labels : array-like, default=None
        The label vocabulary to report on (pin it to keep macro F1 comparable across runs).
    oos_label : label, default=None
        The out-of-scope / abstain label; adds ``oos_recall`` and ``oos_precision``.
    sample_weight : array-like of shape (n_samples,), default=None
    ci : bool or float, default=None
        Bootstrap intervals of the headline numbers (True: 95%; a number: that level),
        in ``intervals``, and shown by ``format_metrics_row``. Unweighted data draws the
        resamples from the confusion table's cells (:func:`fastmetrics.bootstrap`);
        weighted data resamples rows.
    n_resamples : int, default=1000
    random_state : None, int or numpy Generator
        Seeds the resampling (with ``ci``).

    Returns
    -------
    ClassificationMetrics

    Examples
    --------
    >>> import fastmetrics as skm
    >>> m = skm.score([0, 1, 2, 2, -1], [0, 1, 2, 1, -1], oos_label=-1)
    >>> m.accuracy, round(m.macro_f1, 4), m.oos_recall, m.oos_precision
    (0.8, 0.8333, 1.0, 1.0)
    """
    level = ci_level(ci)
    n_resamples = check_resamples(n_resamples)
    rng = generator(random_state)
    state = ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads)
    metrics = confusion.card(state, labels, oos_label).metrics
    if level is None:
        return metrics
    if replicates.supports(state):
        states = replicates.resampled(state, rng, n_resamples)
    else:  # weighted: the resamples need the rows
        yt, yp = np.asarray(y_true), np.asarray(y_pred)
        w = np.asarray(sample_weight)
        n = yt.shape[0]
        states = (ConfusionState.from_arrays(yt[ix], yp[ix], w[ix], n_threads)
                  for ix in (rng.integers(0, n, n) for _ in range(n_resamples)))
    return replicates.with_intervals(metrics, states, oos_label, level)


def card_with_intervals(state, labels=None, oos_label=None, ci=None, n_resamples=1000,
                        random_state=None) -> ClassificationMetrics:
    """:func:`score`'s report card of a confusion state, with bootstrap intervals of its
    headline numbers drawn from the state's cells when ``ci`` is given (the accumulators'
    and Dask's ``score``; a weighted state's resamples need the rows: ``ValueError``)."""
    level = ci_level(ci)
    n_resamples = check_resamples(n_resamples)
    rng = generator(random_state)
    metrics = confusion.card(state, labels, oos_label).metrics
    if level is None:
        return metrics
    if not replicates.supports(state):
        raise ValueError("a weighted confusion state's bootstrap needs the rows: call "
                         "fastmetrics.score(..., ci=...) on the data")
    return replicates.with_intervals(metrics, replicates.resampled(state, rng, n_resamples),
                                     oos_label, level)


RESULTS_HEADER = (
    "| name | accuracy | macro_f1 | oos_recall | p50_ms | p95_ms |\n"
    "|---|---|---|---|---|---|\n"
)
"""Header of the append-only results log whose rows :func:`format_metrics_row` writes."""


def format_metrics_row(name, metrics, latency=None, cost_per_1k=None, params=None) -> str:
    """One markdown table row for an append-only results log (``RESULTS.md``).

    Columns: name, accuracy, macro F1, OOS recall (4 decimals; with their intervals,
    ``0.8123 [0.8051, 0.8196]``, from ``score(..., ci=...)``), p50 and p95 latency in ms
    (1 decimal); a value that was not computed prints as ``N/A``. ``cost_per_1k`` and
    ``params``, when given, are appended as two more cells.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> m = skm.score([0, 1, 1, 0], [0, 1, 0, 0])
    >>> skm.format_metrics_row("baseline", m)
    '| baseline | 0.7500 | 0.7333 | N/A | N/A | N/A |'
    """

    def fmt(v, digits=4):
        return "N/A" if v is None else f"{v:.{digits}f}"

    def headline(key):
        shown = getattr(metrics, "shown", None)  # with its interval, when score(ci=...)
        return shown(key) if shown is not None else fmt(getattr(metrics, key))

    cells = [
        str(name),
        headline("accuracy"),
        headline("macro_f1"),
        headline("oos_recall"),
        fmt(latency.p50_ms, 1) if latency is not None else "N/A",
        fmt(latency.p95_ms, 1) if latency is not None else "N/A",
    ]
    if cost_per_1k is not None or params is not None:
        cells.append(fmt(cost_per_1k, 4))
        cells.append("N/A" if params is None else f"{params:,}" if isinstance(params, int) else str(params))
    return "| " + " | ".join(cells) + " |"


def flatten(obj, prefix: str = "") -> dict:
    """Every number of a report object under one flat ``name -> value`` dict with dot keys,
    ready for a metrics table (``run_id, metric_name, value``).

    Works for every result object of fastmetrics and for containers of them:

    * objects with ``to_flat_dict()`` (:class:`ClassificationMetrics`, ``ModelBenchmark``,
      ``CalibrationSummary``, ``ProbabilityReport``, ``GroupMetrics``, ``Stability``,
      ``RobustnessReport``, ``ParsedPredictions``) use their own keys;
    * other dataclasses (``LatencyStats``, ``BatchStats``, ``RegressionSummary``,
      ``PerClassMetrics``, ``CalibrationBins``...) give one key per field shown in their repr;
    * dicts give ``key.subkey``; lists, tuples and arrays give ``key.0``, ``key.1.2``...;
      numpy scalars become Python scalars; strings, numbers, bools and None are kept.

    Parameters
    ----------
    obj : result object, dict, list, array or scalar
    prefix : str, default=""
        Prepended to every key (``prefix.key``), e.g. the name of the run or of the section.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.flatten({"latency": fm.latency_stats([1e6, 2e6, 3e6]), "f1": 0.5})["latency.p50_ms"]
    2.0
    >>> fm.flatten(fm.score([0, 1], [0, 0]), prefix="run1")["run1.per_class.0.recall"]
    1.0
    """
    out: dict = {}
    _flatten_into(out, obj, str(prefix))
    return out


def _join(prefix: str, key) -> str:
    return f"{prefix}.{key}" if prefix else str(key)


def _flatten_into(out: dict, obj, key: str) -> None:
    if hasattr(obj, "to_flat_dict") and not isinstance(obj, type):
        for k, v in obj.to_flat_dict().items():
            _flatten_into(out, v, _join(key, k))
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.repr:
                _flatten_into(out, getattr(obj, f.name), _join(key, f.name))
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            _flatten_into(out, v, _join(key, py_value(k)))
    elif isinstance(obj, np.ndarray) and obj.ndim > 0:
        for idx in np.ndindex(obj.shape):
            _flatten_into(out, obj[idx], _join(key, ".".join(map(str, idx))))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _flatten_into(out, v, _join(key, i))
    else:
        v = obj.item() if isinstance(obj, (np.generic, np.ndarray)) else obj
        out[key if key else "value"] = v
