"""The harness report card: ``score`` -> :class:`ClassificationMetrics`, OOS metrics and the
markdown results row.

Everything in a report card comes from one counting pass (one confusion state).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

import numpy as np

from ._intervals import check_resamples, ci_level, generator
from ._states import confusion, replicates
from ._states.confusion import ClassificationMetrics, ConfusionState, PerClassMetrics, py_value


if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any
    from ._typing import ArrayLike, Label, RandomState

__all__ = [
    "OPTIONAL_RESULTS_COLUMNS",
    "RESULTS_COLUMNS",
    "RESULTS_HEADER",
    "ClassificationMetrics",
    "PerClassMetrics",
    "flatten",
    "format_metrics_row",
    "oos_precision_recall",
    "results_columns",
    "results_header",
    "score",
]


def oos_precision_recall(y_true: ArrayLike, y_pred: ArrayLike, oos_label: Label, *,
                         sample_weight: ArrayLike | None = None,
                         n_threads: int | None = None) -> tuple[float, float]:
    """Out-of-scope (abstain label) precision and recall, 0.0 when undefined.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    oos_label : int, float, bool or str
        The out-of-scope (abstain) label.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    precision : float
        Of the samples predicted ``oos_label``, the fraction that are out of scope; 0.0 when
        none is predicted.
    recall : float
        Of the out-of-scope samples, the fraction predicted ``oos_label``; 0.0 when there is
        none.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, or ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.

    See Also
    --------
    sklearn.metrics.precision_score : ``precision_score(y_true, y_pred, pos_label=oos_label)``
        gives the same precision (with ``zero_division=0``).
    score : The report card, which holds both.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.oos_precision_recall([0, -1, -1, 1], [0, -1, 1, -1], oos_label=-1)
    (0.5, 0.5)
    """
    return confusion.oos(ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads),
                         oos_label)


def score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
          oos_label: Label | None = None, sample_weight: ArrayLike | None = None,
          n_threads: int | None = None, ci: float | None = None, n_resamples: int = 1000,
          random_state: RandomState = None) -> ClassificationMetrics:
    """The harness report card of a classifier, from one counting pass.

    Per-class metrics use ``zero_division=0`` over the pinned ``labels`` (default: every
    label seen in ``y_true`` or ``y_pred``), so macro F1 does not drift when a rare class is
    missing from a split.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (any dtype the classification functions take).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    labels : array-like, default=None
        The label vocabulary the card reports on, in this order; pin it to keep macro F1
        comparable between runs and splits. None: every label in ``y_true`` or ``y_pred``.
    oos_label : int, float, bool, str or None, default=None
        The out-of-scope (abstain) label; when given, the card has ``oos_recall`` and
        ``oos_precision``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.
    ci : bool, float or None, default=None
        Bootstrap intervals of the headline numbers, in the card's ``intervals``: True for
        95 %, a number in (0, 1) for that level, None for none. Unweighted data is resampled
        from the confusion table's cells, weighted data by rows.
    n_resamples : int, default=1000
        Number of bootstrap resamples (with ``ci``).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the resampling (with ``ci``); None draws fresh entropy.

    Returns
    -------
    metrics : ClassificationMetrics
        Accuracy, macro / weighted / micro F1, per-class precision, recall, F1 and support,
        the confusion matrix, out-of-scope precision and recall, the number of examples, and
        the intervals when ``ci`` is given.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, ``n_threads`` is below 1, ``ci`` is a number outside (0, 1), or
        ``n_resamples`` is not a positive integer.
    TypeError
        If ``n_threads`` is not an int or None, or ``ci`` is neither a bool, a number nor
        None.

    See Also
    --------
    sklearn.metrics.classification_report : scikit-learn's per-class table (its
        ``output_dict=True`` holds the card's per-class numbers).
    ClassificationMetrics : The card returned.
    format_metrics_row : The card as a results-log row.
    fastmetrics.bootstrap : Intervals of any metric.

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


def card_with_intervals(state: ConfusionState, labels: ArrayLike | None = None,
                        oos_label: Label | None = None, ci: float | None = None,
                        n_resamples: int = 1000,
                        random_state: RandomState = None) -> ClassificationMetrics:
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


RESULTS_COLUMNS = ("name", "accuracy", "macro_f1", "oos_recall", "p50_ms", "p95_ms")
"""The columns of every results-log row, in order."""
OPTIONAL_RESULTS_COLUMNS = ("cost_per_1k", "params")
"""Columns a results log has after :data:`~fastmetrics.report.RESULTS_COLUMNS` when its runs
give them, in order."""


def results_header(cost_per_1k: bool = False, params: bool = False) -> str:
    """The two header lines of a results log whose rows :func:`format_metrics_row` writes,
    with the ``cost_per_1k`` and ``params`` columns when asked for.

    Parameters
    ----------
    cost_per_1k : bool, default=False
        Add the ``cost_per_1k`` column.
    params : bool, default=False
        Add the ``params`` column.

    Returns
    -------
    header : str
        Two markdown lines (column names, then the separator), each ending in a newline.

    See Also
    --------
    format_metrics_row : Writes the rows under this header.
    results_columns : Reads the columns back from a header line.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> print(fm.results_header(cost_per_1k=True), end="")
    | name | accuracy | macro_f1 | oos_recall | p50_ms | p95_ms | cost_per_1k |
    |---|---|---|---|---|---|---|
    """
    used = (bool(cost_per_1k), bool(params))
    cols = RESULTS_COLUMNS + tuple(c for c, u in zip(OPTIONAL_RESULTS_COLUMNS, used) if u)
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"


RESULTS_HEADER = results_header()
"""Header of the append-only results log whose rows :func:`format_metrics_row` writes
(no optional column; :func:`results_header` gives the others)."""


def results_columns(header_line: str) -> tuple[str, ...]:
    """The columns named by the first line of a results-log header.

    A header names :data:`~fastmetrics.report.RESULTS_COLUMNS`, then some of
    :data:`~fastmetrics.report.OPTIONAL_RESULTS_COLUMNS` in their order.

    Parameters
    ----------
    header_line : str
        The first line of the header, ``| name | accuracy | ... |``.

    Returns
    -------
    columns : tuple of str
        The column names, in order.

    Raises
    ------
    ValueError
        If the line is not a results-log header.

    See Also
    --------
    results_header : Writes the header.
    format_metrics_row : Writes a row for given columns.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.results_columns("| name | accuracy | macro_f1 | oos_recall | p50_ms | p95_ms |")[-1]
    'p95_ms'
    """
    line = header_line.strip()
    cols = tuple(c.strip() for c in line.strip("|").split("|"))
    extra = cols[len(RESULTS_COLUMNS):]
    framed = line.startswith("|") and line.endswith("|")
    if (not framed or cols[:len(RESULTS_COLUMNS)] != RESULTS_COLUMNS
            or extra != tuple(c for c in OPTIONAL_RESULTS_COLUMNS if c in extra)):
        raise ValueError(f"not a results-log header: {line!r} (expected the columns "
                         f"{', '.join(RESULTS_COLUMNS)}, then any of "
                         f"{', '.join(OPTIONAL_RESULTS_COLUMNS)})")
    return cols


def _number(v: object, what: str, digits: int) -> str:
    if v is None:
        return "N/A"
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number or None, got {v!r}")
    return f"{v:.{digits}f}"


def _headline(metrics: object, key: str) -> str:
    """A headline number of ``metrics`` as its cell: a report card prints it with its
    interval; a dict (``ModelBenchmark.metrics``) may lack it (N/A)."""
    if isinstance(metrics, Mapping):
        return _number(metrics.get(key), key, 4)
    shown = getattr(metrics, "shown", None)  # with its interval, when score(ci=...)
    if shown is not None:
        return cast(str, shown(key))
    if key == "oos_recall":  # a report card without an out-of-scope label has none
        return _number(getattr(metrics, key, None), key, 4)
    try:
        v = getattr(metrics, key)
    except AttributeError:
        raise TypeError(
            f"metrics has no {key!r}: give a ClassificationMetrics (fastmetrics.score), a "
            f"ModelBenchmark, a dict of metrics or an object with accuracy and macro_f1, "
            f"got {type(metrics).__name__}") from None
    return _number(v, key, 4)


def _latency(latency: object, key: str) -> str:
    if latency is None:
        return "N/A"
    try:
        v = getattr(latency, key)
    except AttributeError:
        raise TypeError(f"latency has no {key!r}: give a LatencyStats (or None), got "
                        f"{type(latency).__name__}") from None
    return _number(v, key, 1)


def format_metrics_row(name: str, metrics: Any, latency: Any = None,
                       cost_per_1k: float | None = None, params: Any = None, *,
                       columns: Sequence[str] | None = None) -> str:
    """One markdown table row for an append-only results log (``RESULTS.md``).

    Columns (:data:`~fastmetrics.report.RESULTS_COLUMNS`): name, accuracy, macro F1, OOS
    recall (4 decimals; with their intervals, ``0.8123 [0.8051, 0.8196]``, from
    ``score(..., ci=...)``), p50 and p95 latency in ms (1 decimal); then ``cost_per_1k``
    (4 decimals) and ``params``
    (``1,200,000``) when given, the columns :func:`results_header` adds for them. A value
    that was not computed prints as ``N/A``.

    Parameters
    ----------
    name : str
        The first cell: the model or run name.
    metrics : ClassificationMetrics, ModelBenchmark, dict or object
        A report card (:func:`score`), a :func:`~fastmetrics.benchmark_model` result (its
        latency fills p50/p95 unless ``latency`` is given), a dict of metrics (such as
        ``ModelBenchmark.metrics``; missing keys print N/A), or any object with
        ``accuracy`` and ``macro_f1`` (and optionally ``oos_recall``) attributes.
    latency : LatencyStats or None, default=None
        Fills the p50 and p95 columns; None prints N/A (unless ``metrics`` carries one).
    cost_per_1k : float or None, default=None
        Cost per 1,000 predictions; adds the ``cost_per_1k`` column.
    params : int, str or None, default=None
        Number of model parameters (printed with thousands separators); adds the ``params``
        column.
    columns : sequence of str or None, default=None
        The columns of the row (a log's header, :func:`results_columns`): an optional column
        without a value prints N/A. None: :data:`~fastmetrics.report.RESULTS_COLUMNS` and the
        optional columns given a value.

    Returns
    -------
    row : str
        One markdown table row, without a trailing newline.

    Raises
    ------
    ValueError
        If ``cost_per_1k`` or ``params`` is given for ``columns`` without that column, or
        ``columns`` is not a results-log header.
    TypeError
        If ``metrics`` or ``latency`` lacks the fields of a row, or a value is not a number.

    See Also
    --------
    results_header : The header of the log.
    fastmetrics.append_results : Appends rows to a results log file.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> m = skm.score([0, 1, 1, 0], [0, 1, 0, 0])
    >>> skm.format_metrics_row("baseline", m)
    '| baseline | 0.7500 | 0.7333 | N/A | N/A | N/A |'
    >>> skm.format_metrics_row("baseline", m, cost_per_1k=0.02, params=1200)
    '| baseline | 0.7500 | 0.7333 | N/A | N/A | N/A | 0.0200 | 1,200 |'
    """
    values = {"cost_per_1k": cost_per_1k, "params": params}
    if columns is None:
        columns = RESULTS_COLUMNS + tuple(c for c in OPTIONAL_RESULTS_COLUMNS
                                          if values[c] is not None)
    else:
        columns = results_columns("| " + " | ".join(map(str, columns)) + " |")
        for c in OPTIONAL_RESULTS_COLUMNS:
            if values[c] is not None and c not in columns:
                raise ValueError(f"{c} is given but the results log has no {c} column "
                                 f"(its columns: {', '.join(columns)})")
    if latency is None and not isinstance(metrics, Mapping):
        latency = getattr(metrics, "latency", None)  # a ModelBenchmark carries its own
    cells = {
        "name": str(name),
        "accuracy": _headline(metrics, "accuracy"),
        "macro_f1": _headline(metrics, "macro_f1"),
        "oos_recall": _headline(metrics, "oos_recall"),
        "p50_ms": _latency(latency, "p50_ms"),
        "p95_ms": _latency(latency, "p95_ms"),
        "cost_per_1k": _number(cost_per_1k, "cost_per_1k", 4),
        "params": ("N/A" if params is None else f"{params:,}"
                   if isinstance(params, (int, np.integer)) and not isinstance(params, bool)
                   else str(params)),
    }
    return "| " + " | ".join(cells[c] for c in columns) + " |"


def flatten(obj: object, prefix: str = "") -> dict[str, Any]:
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
    obj : object
        A result object, dict, list, tuple, array or scalar.
    prefix : str, default=""
        Prepended to every key (``prefix.key``), e.g. the name of the run or of the section.

    Returns
    -------
    flat : dict
        ``{dot.key: value}`` with Python scalars, strings, bools or None as values.

    See Also
    --------
    ClassificationMetrics.to_flat_dict : The keys of a report card.
    fastmetrics.run_metrics : The harness' named metric keys.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.flatten({"latency": fm.latency_stats([1e6, 2e6, 3e6]), "f1": 0.5})["latency.p50_ms"]
    2.0
    >>> fm.flatten(fm.score([0, 1], [0, 0]), prefix="run1")["run1.per_class.0.recall"]
    1.0
    """
    out: dict[str, Any] = {}
    _flatten_into(out, obj, str(prefix))
    return out


def _join(prefix: str, key: object) -> str:
    return f"{prefix}.{key}" if prefix else str(key)


def _flatten_into(out: dict[str, Any], obj: object, key: str) -> None:
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
