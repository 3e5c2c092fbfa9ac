"""One run's metrics under the evaluation harness' metric keys (``f1_macro``,
``per_class.<label>.f1``, ``latency.p95``, ``co2_kg``...), and the run x metric table of many
runs (:func:`metrics_pivot`).

:func:`run_metrics` takes the result objects of fastmetrics (report card, parse failures,
calibration, robustness, groups, latency, stability, emissions, a model benchmark...) and
names their numbers as the harness' metrics table does: :data:`METRIC_KEYS` lists those keys
in its order. :func:`fastmetrics.flatten` keeps each object's own field names instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from ._states.confusion import py_value
from .calibration import CalibrationSummary, ProbabilityReport
from .energy import EmissionsReport, gco2_per_f1_point, gco2_per_mae_unit
from .fairness import GroupMetrics
from .parsing import ParsedPredictions
from .regression import RegressionSummary
from .report import ClassificationMetrics, flatten
from .robustness import RobustnessReport
from .stability import Stability
from .timing import BatchStats, LatencyStats, ModelBenchmark

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = ["METRIC_KEYS", "metrics_pivot", "run_metrics"]

METRIC_KEYS = (
    # classification
    "f1_macro", "f1_weighted", "accuracy", "per_class.<label>.precision",
    "per_class.<label>.recall", "per_class.<label>.f1", "confusion_matrix",
    "parse_failure_rate", "n_predictions",
    # regression
    "mae", "mdae", "rmse", "mae_by_bin.1-3", "mae_by_bin.5-8", "mae_by_bin.13-21",
    "mae_by_bin.34+",
    # ranking
    "ndcg_at_k", "mrr",
    # calibration
    "ece", "mce", "brier_score",
    # robustness
    "robustness_score", "consistency_rate",
    # fairness
    "per_group.<g>.accuracy", "global_metric", "worst_group", "fairness_gap", "disparities.<g>",
    # efficiency
    "latency.p50", "latency.p95", "latency.p99", "latency.mean", "latency.min", "latency.max",
    "throughput",
    # stability
    "stability_score", "stability.mean", "stability.stddev", "stability.cv",
    "stability.n_seeds",
    # sustainability
    "co2_kg", "kwh", "duration_s", "gco2_per_f1_point", "gco2_per_mae_unit",
)
"""The harness' metric keys, in its order (``<label>``: a class label, ``<g>``: a group;
``confusion_matrix`` is a nested dict ``{true label: {predicted label: count}}``, which
:func:`fastmetrics.flatten` turns into ``confusion_matrix.<true>.<predicted>``)."""

_BENCHMARK_NAMES = {"macro_f1": "f1_macro", "weighted_f1": "f1_weighted"}


def _classification(out: dict[str, Any], m: ClassificationMetrics) -> None:
    out["f1_macro"] = m.macro_f1
    out["f1_weighted"] = m.weighted_f1
    out["accuracy"] = m.accuracy
    for lab, pc in m.per_class.items():
        for k in ("precision", "recall", "f1"):
            out[f"per_class.{lab}.{k}"] = getattr(pc, k)
    if m.confusion_matrix is not None:
        cm = np.asarray(m.confusion_matrix)
        labels = [py_value(v) for v in m.labels]
        out["confusion_matrix"] = {t: {p: py_value(cm[i, j]) for j, p in enumerate(labels)}
                                   for i, t in enumerate(labels)}
    out["n_predictions"] = m.n_examples  # a ParsedPredictions' count replaces it
    if m.oos_recall is not None:  # scored with an oos_label
        out["oos_recall"] = m.oos_recall
        out["oos_precision"] = m.oos_precision


def _latency(out: dict[str, Any], s: LatencyStats) -> None:
    for k in ("p50", "p95", "p99", "mean", "min", "max"):
        out[f"latency.{k}"] = getattr(s, f"{k}_ms")


def _throughput(out: dict[str, Any], b: BatchStats) -> None:
    out["throughput"] = b.throughput * 60.0  # the harness counts instances per minute


def _emissions(out: dict[str, Any], e: EmissionsReport) -> None:
    out.update(e.to_flat_dict())


def _benchmark(out: dict[str, Any], b: ModelBenchmark) -> None:
    for k, v in b.metrics.items():
        out[_BENCHMARK_NAMES.get(k, k)] = v
    _latency(out, b.latency)
    _throughput(out, b.batch)
    out["fit_seconds"] = b.fit_seconds
    if b.emissions is not None:
        _emissions(out, b.emissions)


def _add(out: dict[str, Any], parsed: list[ParsedPredictions], obj: object) -> None:
    if isinstance(obj, ClassificationMetrics):
        _classification(out, obj)
    elif isinstance(obj, ProbabilityReport):
        _classification(out, obj.classification)
        _add(out, parsed, obj.calibration)
    elif isinstance(obj, ParsedPredictions):
        parsed.append(obj)
    elif isinstance(obj, RegressionSummary):
        out.update({"mae": obj.mae, "rmse": obj.rmse, "mse": obj.mse, "r2": obj.r2})
    elif isinstance(obj, CalibrationSummary):
        out.update({"ece": obj.ece, "mce": obj.mce, "brier_score": obj.brier})
    elif isinstance(obj, (RobustnessReport, GroupMetrics, Stability)):
        out.update(obj.to_flat_dict())
    elif isinstance(obj, LatencyStats):
        _latency(out, obj)
    elif isinstance(obj, BatchStats):
        _throughput(out, obj)
    elif isinstance(obj, EmissionsReport):
        _emissions(out, obj)
    elif isinstance(obj, ModelBenchmark):
        _benchmark(out, obj)
    elif isinstance(obj, Mapping):
        out.update(_values(obj))
    else:
        raise TypeError(f"run_metrics cannot read a {type(obj).__name__}: pass fastmetrics "
                        "result objects, or other metrics as dicts or keyword arguments")


def _values(values: Mapping[Any, Any]) -> dict[str, Any]:
    """Keyword or dict values: nested dicts become dot keys (``mae_by_bin.1-3``), except a
    ``confusion_matrix``, which stays nested; numpy scalars become Python scalars."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if k == "confusion_matrix" and isinstance(v, Mapping):
            out[k] = v
        elif isinstance(v, Mapping) or (isinstance(v, np.ndarray) and v.ndim > 0):
            out.update(flatten(v, prefix=str(k)))
        else:
            out[str(k)] = py_value(v)
    return out


def run_metrics(*results: object, **values: object) -> dict[str, Any]:
    """One run's metrics under the harness' metric keys (:data:`METRIC_KEYS`).

    Each result object gives its keys:

    * :class:`ClassificationMetrics` (``score``): ``f1_macro``, ``f1_weighted``,
      ``accuracy``, ``per_class.<label>.precision`` / ``.recall`` / ``.f1``,
      ``confusion_matrix`` (nested dict ``{true: {predicted: count}}``), ``n_predictions``
      (and ``oos_recall``, ``oos_precision`` with an ``oos_label``);
    * :class:`ParsedPredictions` (``parse_failures``): ``parse_failure_rate`` and
      ``n_predictions`` (the parsed predictions scored, whatever the order of the arguments);
    * ``RegressionSummary``: ``mae``, ``rmse`` (and ``mse``, ``r2``);
    * ``CalibrationSummary``: ``ece``, ``mce``, ``brier_score``; ``ProbabilityReport``: both;
    * ``RobustnessReport``: ``robustness_score``, ``consistency_rate``;
    * ``GroupMetrics``: ``per_group.<g>.<metric>``, ``global_metric``, ``worst_group``,
      ``fairness_gap``, ``disparities.<g>``;
    * ``LatencyStats``: ``latency.p50`` ... ``latency.max`` (ms); ``BatchStats``:
      ``throughput`` (instances per minute);
    * ``Stability``: ``stability_score``, ``stability.mean`` / ``stddev`` / ``cv`` /
      ``n_seeds``;
    * ``EmissionsReport``: ``co2_kg``, ``kwh``, ``duration_s`` and, when the run's F1 or MAE
      is known (from the report, or from ``f1_macro`` / ``mae`` here),
      ``gco2_per_f1_point`` and ``gco2_per_mae_unit``;
    * ``ModelBenchmark``: its metrics (``macro_f1`` as ``f1_macro``), latency, throughput,
      ``fit_seconds`` and emissions;
    * a dict: its items, as keyword values are.

    Keyword values are metrics with no result object of their own, under their names:
    ``mdae=fm.median_absolute_error(y, p)``, ``mae_by_bin=fm.mae_by_bin(y, p, bins)``
    (a dict: keys ``mae_by_bin.<bin>``), ``ndcg_at_k=fm.ndcg_score(y, s, k=10)``,
    ``mrr=fm.mean_reciprocal_rank(y, s)``, ``throughput=fm.throughput_per_minute(n, s)``.
    Later arguments override earlier ones, keyword values override all.

    Parameters
    ----------
    *results : result objects or dict
        The run's fastmetrics results (the types above) and dicts of other metrics.
    **values
        Metrics with no result object of their own, under their names (scalars, or dicts
        and arrays that become dot keys).

    Returns
    -------
    dict
        Flat ``key -> value`` with the harness' dot keys; only ``confusion_matrix`` is nested
        (``fastmetrics.flatten`` of the result gives ``confusion_matrix.<true>.<pred>``).

    Raises
    ------
    TypeError
        If a positional argument is neither a fastmetrics result object nor a dict.

    See Also
    --------
    fastmetrics.metrics_pivot : Many runs' metrics as one table.
    fastmetrics.flatten : Any result as flat dot keys.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> card = fm.score(["a", "b", "a"], ["a", "b", "b"])
    >>> m = fm.run_metrics(card, mdae=0.5)
    >>> m["f1_macro"], m["per_class.a.recall"], m["confusion_matrix"]
    (0.6666666666666666, 0.5, {'a': {'a': 1, 'b': 1}, 'b': {'a': 0, 'b': 1}})
    >>> fm.flatten(m)["confusion_matrix.a.b"], m["mdae"]
    (1, 0.5)
    """
    out: dict[str, Any] = {}
    parsed: list[ParsedPredictions] = []
    for obj in results:
        _add(out, parsed, obj)
    for p in parsed:
        out["parse_failure_rate"] = p.parse_failure_rate
        out["n_predictions"] = p.n_predictions
    out.update(_values(values))
    co2 = out.get("co2_kg")
    if co2 is not None:
        f1, mae = out.get("f1_macro"), out.get("mae")
        if "gco2_per_f1_point" not in out and _is_number(f1):
            out["gco2_per_f1_point"] = gco2_per_f1_point(co2, f1)
        if "gco2_per_mae_unit" not in out and _is_number(mae):
            out["gco2_per_mae_unit"] = gco2_per_mae_unit(co2, mae)
    return out


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _long_rows(rows: Iterable[Any]) -> dict[Any, dict[Any, Any]]:
    """(run_id, metric_name, value) rows, or mappings with those keys -> {run: {name: value}}."""
    runs: dict[Any, dict[Any, Any]] = {}
    for row in rows:
        if isinstance(row, Mapping):
            try:
                run, name, value = row["run_id"], row["metric_name"], row["value"]
            except KeyError as exc:
                raise ValueError(f"a metrics row needs run_id, metric_name and value; missing "
                                 f"{exc.args[0]!r}") from None
        else:
            try:
                run, name, value = row
            except (TypeError, ValueError):
                raise ValueError(f"a metrics row must be (run_id, metric_name, value), got "
                                 f"{row!r}") from None
        metrics = runs.setdefault(run, {})
        value = py_value(value)
        if name in metrics and not _same(metrics[name], value):
            raise ValueError(f"run {run!r} has two values for {name!r}: {metrics[name]!r} "
                             f"and {value!r}")
        metrics[name] = value
    return runs


def _same(a: object, b: object) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)


def metrics_pivot(runs: Iterable[Any], *, as_frame: bool | None = None) -> Any:
    """Many runs' metrics as one run x metric table (the harness' ``metrics_pivot``).

    Parameters
    ----------
    runs : mapping or iterable
        ``{run_id: metrics}``, each ``metrics`` a dict (e.g. from :func:`run_metrics`; nested
        values such as the confusion matrix are flattened to dot keys) or any result object
        (flattened by :func:`fastmetrics.flatten`); or the long metrics table: rows
        ``(run_id, metric_name, value)`` or mappings with those three keys.
    as_frame : bool, default=None
        True: a pandas DataFrame (pandas required); False: a list of rows; None: a DataFrame
        when pandas is installed, else the list.

    Returns
    -------
    pandas.DataFrame or list of dict
        One row per run (in first-seen order; the DataFrame's index is ``run_id``), one
        column per metric (in first-seen order). A metric a run does not have is NaN in the
        DataFrame and None in the list, whose rows are ``{"run_id": ..., metric: value, ...}``
        with every column.

    Raises
    ------
    ValueError
        If ``as_frame`` is not None, True or False, a long-table row lacks one of its three
        values, or a run has two different values for one metric.
    TypeError
        If ``runs`` is neither a mapping nor an iterable of rows.
    ImportError
        If ``as_frame=True`` and pandas is not installed.

    See Also
    --------
    fastmetrics.run_metrics : One run's metrics under the harness' keys.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> runs = {"a": {"f1_macro": 0.5, "mae": 2.0}, "b": {"f1_macro": 0.75}}
    >>> fm.metrics_pivot(runs, as_frame=False)
    [{'run_id': 'a', 'f1_macro': 0.5, 'mae': 2.0}, {'run_id': 'b', 'f1_macro': 0.75, 'mae': None}]
    >>> fm.metrics_pivot([("a", "f1_macro", 0.5), ("b", "f1_macro", 0.75)], as_frame=False)
    [{'run_id': 'a', 'f1_macro': 0.5}, {'run_id': 'b', 'f1_macro': 0.75}]
    """
    if as_frame not in (None, True, False):
        raise ValueError(f"as_frame must be None, True or False, got {as_frame!r}")
    if isinstance(runs, Mapping):
        table = {run: flatten(m) for run, m in runs.items()}
    elif isinstance(runs, (str, bytes)) or not hasattr(runs, "__iter__"):
        raise TypeError(f"runs must be a mapping run_id -> metrics or an iterable of "
                        f"(run_id, metric_name, value) rows, got {type(runs).__name__}")
    else:
        table = _long_rows(runs)
    columns: dict[Any, None] = {}
    for metrics in table.values():
        columns.update(dict.fromkeys(metrics))
    if as_frame is None or as_frame:
        try:
            import pandas as pd
        except ImportError:
            if as_frame:
                raise ImportError("metrics_pivot(as_frame=True) needs pandas, which is not "
                                  "installed: `pip install pandas`") from None
        else:
            frame = pd.DataFrame.from_dict(table, orient="index", columns=list(columns))
            frame.index.name = "run_id"
            return frame
    return [{"run_id": run, **{c: metrics.get(c) for c in columns}}
            for run, metrics in table.items()]
