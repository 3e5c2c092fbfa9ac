"""The evaluation job in one call: every metric of a task, for the whole table and every
slice, for several models, with intervals and pass/fail gates.

``evaluate(data, y_true="label", models={"new": "score_new", "old": "score_old"},
by=["country", ["device", "os"]], baseline="old", gates=["roc_auc>=0.8",
"roc_auc:delta>=-0.01"])`` reads the table once (a pandas, polars or pyarrow table, a dict of
arrays, or a Parquet or CSV file read in batches of rows), feeds each batch to one
accumulator per (model, state family) for the whole table and one grouped accumulator per
(model, family, slicing) (:class:`fastmetrics.streaming.GroupedAccumulator`), and derives
every metric from those states. So a (model, slice, metric) value is the one-shot function's
on that slice's rows, and memory is the states', not the table's.

Task defaults (metric names are scikit-learn's scorer names without ``neg_``, values with
the metric's own sign):

============ ==============================================================================
task         metrics
============ ==============================================================================
binary       accuracy, precision, recall, f1, matthews_corrcoef (from labels: the prediction
             column, or ``score >= threshold``); roc_auc, average_precision, log_loss,
             brier_score, ece (from the score column: the positive class's probability)
multiclass   accuracy, f1_macro, f1_weighted, balanced_accuracy, matthews_corrcoef,
             cohen_kappa, per class ``precision[c]``, ``recall[c]``, ``f1[c]``; with
             probability columns also log_loss, top_2_accuracy and ece (top-label: each
             row's highest probability against whether that class was right; the
             prediction is then the top column when no prediction column is given)
multilabel   accuracy (rows predicted exactly), hamming_loss, f1_micro, f1_macro,
             f1_samples, precision_micro, recall_micro, jaccard_samples, per label
             ``precision[col]``, ``recall[col]``, ``f1[col]`` (``y_true`` a list of 0/1
             columns; a model's 0/1 columns, or scores predicted 1 at ``threshold``)
regression   mean_absolute_error, mean_squared_error, root_mean_squared_error, r2,
             mean_absolute_percentage_error, median_absolute_error, max_error,
             explained_variance
============ ==============================================================================

Intervals (``ci=0.95``) come from the states: percentile bootstrap intervals of ``n_boot``
resamples drawn from the confusion counts for the metrics of labels (a resample costs
O(K^2), whatever the rows), DeLong's interval for ROC AUC, the central limit interval of
the mean for the mean errors and losses. With a baseline, the ``:delta`` rows carry paired
intervals; ROC AUC's (DeLong's covariance of the two AUCs) takes a second read of the
labels and scores. Average precision, ECE and R2 get none (``ci_low``/``ci_high`` None).
"""

from __future__ import annotations

import copy
import json
import math
import operator
import os
import pickle
import re
import time
import warnings
from statistics import NormalDist
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from . import _table
from ._kernels import sums as kernel_sums
from ._inputs import group_keys
from ._queries import query_scores
from ._typed_files import FileTable, arrow_column
from ._states.bins import binned, ece_replicates
from ._states.delong import Placements, paired_interval
from ._states.prf import prfs_batch
from ._states.ranking import ap_interval, curve_points
from ._states.multilabel import PROFILE_METRICS, profile_batch, profile_values, row_profiles
from ._states.replicates import cells, draws, replicate, supports
from ._states.sums import (error_intervals, error_mean_interval, median_error_interval,
                           paired_error_intervals)
from .exceptions import recording_warnings
from .streaming import KINDS, Accumulator, GroupedAccumulator

__all__ = ["TASK_METRICS", "Evaluation", "Gate", "evaluate"]


@dataclass(frozen=True)
class _MetricSpec:
    """One default metric: its name, what it reads ("labels", "scores" or "probs"), its
    state family and accumulator method, and the method's keyword arguments."""

    name: str
    reads: str
    family: str
    method: str
    kwargs: tuple[tuple[str, Any], ...] = ()
    higher_is_better: bool = True
    config: tuple[tuple[str, Any], ...] = ()  # the accumulator's own settings

    @property
    def state(self) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """The accumulator it reads: metrics of one family and settings share one."""
        return (self.family, self.config)


def _m(name: str, reads: str, family: str, method: str, better: bool = True,
       config: tuple[tuple[str, Any], ...] = (), **kwargs: Any) -> _MetricSpec:
    return _MetricSpec(name, reads, family, method, tuple(kwargs.items()), better, config)


_BINARY = (
    _m("accuracy", "labels", "confusion", "accuracy_score"),
    _m("precision", "labels", "confusion", "precision_score", zero_division=0),
    _m("recall", "labels", "confusion", "recall_score", zero_division=0),
    _m("f1", "labels", "confusion", "f1_score", zero_division=0),
    _m("matthews_corrcoef", "labels", "confusion", "matthews_corrcoef"),
    _m("roc_auc", "scores", "ranking", "roc_auc_score"),
    _m("average_precision", "scores", "ranking", "average_precision_score"),
    _m("log_loss", "scores", "proba", "log_loss", False),
    _m("brier_score", "scores", "calibration", "brier_score_loss", False),
    _m("ece", "scores", "calibration", "expected_calibration_error", False),
)
_MULTICLASS = (
    _m("accuracy", "labels", "confusion", "accuracy_score"),
    _m("f1_macro", "labels", "confusion", "f1_score", average="macro", zero_division=0),
    _m("f1_weighted", "labels", "confusion", "f1_score", average="weighted", zero_division=0),
    _m("balanced_accuracy", "labels", "confusion", "balanced_accuracy_score"),
    _m("matthews_corrcoef", "labels", "confusion", "matthews_corrcoef"),
    _m("cohen_kappa", "labels", "confusion", "cohen_kappa_score"),
    _m("log_loss", "probs", "proba", "log_loss", False),
    _m("top_2_accuracy", "probs", "proba", "top_k_accuracy_score", config=(("k", 2),)),
    # top-label calibration: each row's highest probability against whether it was right
    _m("ece", "probs", "calibration", "expected_calibration_error", False),
)
_REGRESSION = (
    _m("mean_absolute_error", "scores", "regression", "mean_absolute_error", False),
    _m("mean_squared_error", "scores", "regression", "mean_squared_error", False),
    _m("root_mean_squared_error", "scores", "regression", "root_mean_squared_error", False),
    _m("r2", "scores", "regression", "r2_score"),
    _m("mean_absolute_percentage_error", "scores", "regression",
       "mean_absolute_percentage_error", False),
    _m("median_absolute_error", "scores", "regression", "median_absolute_error", False),
    _m("max_error", "scores", "regression", "max_error", False),
    _m("explained_variance", "scores", "regression", "explained_variance_score"),
)

_MULTILABEL = (  # one 0/1 column per label, true and predicted
    _m("accuracy", "labels", "confusion", "accuracy_score"),  # rows predicted exactly
    _m("hamming_loss", "labels", "confusion", "hamming_loss", False),
    _m("f1_micro", "labels", "confusion", "f1_score", average="micro", zero_division=0),
    _m("f1_macro", "labels", "confusion", "f1_score", average="macro", zero_division=0),
    _m("f1_samples", "labels", "confusion", "f1_score", average="samples", zero_division=0),
    _m("precision_micro", "labels", "confusion", "precision_score", average="micro",
       zero_division=0),
    _m("recall_micro", "labels", "confusion", "recall_score", average="micro",
       zero_division=0),
    _m("jaccard_samples", "labels", "confusion", "jaccard_score", average="samples",
       zero_division=0),
)
_RANKING = (  # by query (each query's value, averaged over the queries)
    _m("ndcg", "scores", "query", "ndcg"),
    _m("ndcg_at_10", "scores", "query", "ndcg_at_k"),
    _m("mrr", "scores", "query", "reciprocal_rank"),
    _m("map", "scores", "query", "average_precision"),
)
#: NDCG@k's cut
_NDCG_K = 10

#: task -> its default metrics' names (per-class rows of a multiclass task come on top)
TASK_METRICS: dict[str, tuple[str, ...]] = {
    "binary": tuple(m.name for m in _BINARY),
    "multiclass": tuple(m.name for m in _MULTICLASS),
    "multilabel": tuple(m.name for m in _MULTILABEL),
    "regression": tuple(m.name for m in _REGRESSION),
    "ranking": tuple(m.name for m in _RANKING),
}
_SPECS = {"binary": _BINARY, "multiclass": _MULTICLASS, "multilabel": _MULTILABEL,
          "regression": _REGRESSION, "ranking": _RANKING}
#: metrics with intervals from their states alone: the metrics of labels (confusion cells
#: resampled, O(K^2) each) and ROC AUC (DeLong's variance)
_INTERVALS = frozenset({"accuracy", "precision", "recall", "f1", "matthews_corrcoef",
                        "f1_macro", "f1_weighted", "balanced_accuracy", "cohen_kappa",
                        "roc_auc"})
_PER_CLASS = ("precision", "recall", "f1")


# --------------------------------------------------------------------------- models


@dataclass(frozen=True)
class _Model:
    """A model's columns: predicted labels, a score (binary: the positive class's
    probability; regression: the estimate) and/or probability columns (one per class)."""

    name: str
    pred: str | None = None
    score: str | None = None
    probs: tuple[str, ...] = ()  # multilabel: one column per label (0/1 or a score)

    def columns(self) -> list[str]:
        return [c for c in (self.pred, self.score, *self.probs) if c is not None]


def _models(models: Any, pred: str | Sequence[str] | None, score: str | None, prob: Any,
            names: Sequence[str] | None) -> list[_Model]:
    out: list[_Model] = []
    if models is not None:
        if not isinstance(models, Mapping) or not models:
            raise TypeError("models must be a non-empty dict: name -> column(s)")
        for name, cols in models.items():
            out.append(_model_of(str(name), cols, names))
    if pred is not None or score is not None or prob is not None:
        probs = _prob_columns(prob, names)
        if pred is not None and not isinstance(pred, str):
            # a list of predicted columns: a multilabel model's 0/1 columns, one per label
            if probs:
                raise ValueError("pred= as a list of columns is a multilabel model's: pass "
                                 "it or prob=, not both")
            probs = tuple(str(c) for c in pred)
            pred = None
        out.append(_Model("model", pred, score, probs))
    if not out:
        raise ValueError("no model: pass pred=, score=, prob= or models=")
    if len({m.name for m in out}) != len(out):
        raise ValueError("two models have the same name")
    return out


def _prob_columns(prob: Any, names: Sequence[str] | None) -> tuple[str, ...]:
    if prob is None:
        return ()
    if isinstance(prob, str):  # a prefix: every column that starts with it, in order
        if names is None:
            raise ValueError("prob= as a prefix needs a table with column names")
        cols = tuple(c for c in names if c.startswith(prob))
        if not cols:
            raise ValueError(f"no column starts with the probability prefix {prob!r}")
        return cols
    return tuple(str(c) for c in prob)


def _model_of(name: str, cols: Any, names: Sequence[str] | None) -> _Model:
    """``models`` values: a column (a score; for a classification task, its predicted
    labels when it holds no floats), a list of probability columns, or a dict with
    ``pred``/``score``/``prob``."""
    if isinstance(cols, Mapping):
        unknown = set(cols) - {"pred", "score", "prob"}
        if unknown:
            raise ValueError(f"model {name!r}: unknown keys {sorted(unknown)} "
                             "(pred, score, prob)")
        pred = cols.get("pred")
        if pred is not None and not isinstance(pred, str):  # a multilabel model's columns
            return _Model(name, probs=tuple(str(c) for c in pred))
        return _Model(name, pred, cols.get("score"), _prob_columns(cols.get("prob"), names))
    if isinstance(cols, str):
        return _Model(name, score=cols)
    cols = tuple(str(c) for c in cols)
    if len(cols) == 1:
        return _Model(name, score=cols[0])
    return _Model(name, probs=cols)


# --------------------------------------------------------------------------- reading


def _slicings(by: Any) -> list[tuple[str, ...]]:
    """``by``: a column, or a list of slicings, each a column or a list of columns
    (crossed)."""
    if by is None:
        return []
    if isinstance(by, str):
        return [(by,)]
    out = []
    for s in by:
        t = (s,) if isinstance(s, str) else tuple(str(c) for c in s)
        if not t:
            raise ValueError("a slicing needs at least one column")
        out.append(t)
    return out


class _Table:
    """The data as batches of named columns (numpy arrays, or arrow arrays for text); a
    file through :class:`~fastmetrics._typed_files.FileTable` (the command line's reader)."""

    def __init__(self, data: Any, batch_rows: int) -> None:
        self.data = data
        self.batch_rows = batch_rows
        self.file: FileTable | None = None
        self.names: list[str]
        self.rows: int | None = None
        self.dask = _is_dask_frame(data)
        if isinstance(data, (str, os.PathLike)):
            self.file = FileTable(data, batch_rows)
            self.names, self.rows = self.file.names, self.file.rows
        elif self.dask:
            self.names = [str(c) for c in data.columns]
        elif isinstance(data, Mapping):
            self.names = [str(k) for k in data]
        else:
            mod = type(data).__module__.partition(".")[0]
            if mod not in ("pandas", "polars", "pyarrow"):
                raise TypeError("data must be a pandas, polars or pyarrow table, a dict of "
                                f"arrays or a Parquet/CSV path, got {type(data).__name__}")
            self.names = [str(c) for c in (data.column_names if mod == "pyarrow"
                                            else data.columns)]

    def settle(self, labels: Sequence[str], together: Sequence[str]) -> None:
        """A CSV file's column types, decided over the whole file: ``labels`` (columns that
        may hold text), of which ``together`` (the true and predicted labels) are all text
        when one of them is (as scikit-learn compares them)."""
        if self.file is None or not self.file.csv:
            return
        self.file.settle(labels)
        if any(self.file.kind_of(c) == "O" for c in together):
            self.file.force_text(together)

    def kind_of(self, c: str) -> str:
        """The numpy dtype kind of column ``c`` ('f' floats, 'i'/'u' integers, 'b' bools,
        'O' anything else), from the schema where there is one (no read)."""
        d = self.data
        if self.file is not None:
            return self.file.kind_of(c)
        if type(d).__module__.partition(".")[0] == "pyarrow":
            import pyarrow as pa

            t = d.schema.field(c).type
            if pa.types.is_floating(t):
                return "f"
            if pa.types.is_integer(t):
                return "i"
            return "b" if pa.types.is_boolean(t) else "O"
        col = d[c]
        mod = type(col).__module__.partition(".")[0]
        if mod == "polars":
            dt = col.dtype
            return "f" if dt.is_float() else "i" if dt.is_integer() else \
                "b" if str(dt) == "Boolean" else "O"
        dtype = getattr(col, "dtype", None)
        kind = getattr(dtype, "kind", None) if dtype is not None else np.asarray(col).dtype.kind
        return kind if kind in ("f", "i", "u", "b") else "O"

    def check(self, columns: Sequence[str]) -> None:
        for c in columns:
            if c not in self.names:
                shown = ", ".join(self.names[:20]) + (", ..." if len(self.names) > 20 else "")
                raise ValueError(f"unknown column {c!r}; the columns are: {shown}")

    def batches(self, columns: Sequence[str]) -> Iterator[dict[str, Any]]:
        cols = list(dict.fromkeys(columns))
        if self.file is not None:
            yield from self.file.batches(cols)
            return
        yield {c: self._column(c) for c in cols}

    def _column(self, c: str) -> Any:
        d = self.data
        if isinstance(d, Mapping):
            return d[c]
        mod = type(d).__module__.partition(".")[0]
        if mod == "pyarrow":
            return arrow_column(d.column(c), c)
        return d[c]


# --------------------------------------------------------------------------- gates


_GATE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\[\]]*)\s*(?::\s*(delta|rel|better))?\s*"
                   r"(?:(>=|<=|>|<)\s*([-+0-9.eE]+))?\s*$")
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}


@dataclass(frozen=True)
class Gate:
    """A pass/fail condition: ``metric>=0.8`` (the value), ``metric:delta>=-0.01`` (its
    difference to the baseline model's), ``metric:rel>=-0.02`` (the relative difference),
    or ``metric:better`` (better than the baseline with confidence: the paired interval of
    the difference lies wholly on the better side of zero: the metrics of labels, ROC AUC,
    the mean errors and the mean losses; where a metric has no paired interval, the
    candidate's own interval lies wholly on the better side of the baseline's value).

    Parameters
    ----------
    metric : str
        The metric's name (``roc_auc``, ``f1[spam]``...).
    kind : {"value", "delta", "rel", "better"}
        What is compared: the value, its difference to the baseline's, the relative
        difference, or the candidate's interval with the baseline's value.
    op : {">=", "<=", ">", "<"} or None
        The comparison (None for ``better``).
    bound : float or None
        The number compared with (None for ``better``).
    text : str
        The gate as written.

    See Also
    --------
    fastmetrics.evaluate : Checks gates on an evaluation.

    Examples
    --------
    >>> Gate.parse("roc_auc:delta>=-0.01")
    Gate(metric='roc_auc', kind='delta', op='>=', bound=-0.01, text='roc_auc:delta>=-0.01')
    """

    metric: str
    kind: str  # "value", "delta", "rel" or "better"
    op: str | None
    bound: float | None
    text: str

    @classmethod
    def parse(cls, text: str) -> Gate:
        """A gate from its text.

        Parameters
        ----------
        text : str
            ``METRIC>=VALUE`` (or ``<=``, ``>``, ``<``), ``METRIC:delta>=VALUE``,
            ``METRIC:rel>=VALUE`` or ``METRIC:better``.

        Returns
        -------
        Gate

        Raises
        ------
        ValueError
            A malformed gate, naming what is wrong.

        See Also
        --------
        fastmetrics.evaluate : Where gates are checked.

        Examples
        --------
        >>> Gate.parse("accuracy>=0.9").bound
        0.9
        """
        m = _GATE.match(text) if isinstance(text, str) else None
        if m is None:
            raise ValueError(f"malformed gate {text!r}: write METRIC>=VALUE, "
                             "METRIC:delta>=VALUE, METRIC:rel>=VALUE or METRIC:better")
        metric, kind, op, bound = m.groups()
        kind = kind or "value"
        if kind == "better":
            if op is not None:
                raise ValueError(f"malformed gate {text!r}: METRIC:better takes no bound")
            return cls(metric, kind, None, None, text.strip())
        if op is None:
            raise ValueError(f"malformed gate {text!r}: a comparison (>=, <=, >, <) and a "
                             "number are needed")
        try:
            value = float(bound)
        except ValueError:
            raise ValueError(f"malformed gate {text!r}: {bound!r} is not a number") from None
        return cls(metric, kind, op, value, text.strip())


# --------------------------------------------------------------------------- result


@dataclass
class Evaluation:
    """What :func:`evaluate` found: the tidy table of values and the gates' verdicts.

    Parameters
    ----------
    task : str
        "binary", "multiclass" or "regression".
    task_inferred : bool
        Whether the task was inferred from the data (and not given).
    models : list of str
        The models' names, in order.
    baseline : str or None
        The model the others are compared with.
    rows, gates, too_small, warnings : list of dict
        As the attributes below.
    seconds : float, default=0.0
        Time the evaluation took.
    curves : dict, optional
        As the attribute below.

    Attributes
    ----------
    task : str
    task_inferred : bool
        Whether the task was inferred from the data (and not given).
    rows : list of dict
        One per (model, slice, metric): ``model``, ``slicing`` (the slice's columns, empty
        for the whole table), ``slice`` (column -> value, empty for the whole table),
        ``metric``, ``value``, ``ci_low``, ``ci_high``, ``n``.
    gates : list of dict
        One per (gate, model, slice checked): ``gate``, ``model``, ``slice``, ``value``,
        ``passed`` and ``reason``.
    too_small : list of dict
        Slices under ``min_slice_size`` rows: ``slice`` and ``n`` (no values computed).
    warnings : list of dict
        The warnings of the derivations (a metric undefined on some slices: NaN there),
        each once: ``category``, ``message`` and ``count`` (how many values it concerns).
    seconds : float
        Time the evaluation took.
    curves : dict
        Model -> its whole table's curves, what :meth:`to_html` draws: ``"roc"`` (false
        and true positive rates) and ``"pr"`` (recall, precision) of a binary task, at
        about 1,000 exact vertices each; ``"reliability"`` (each non-empty bin's mean
        confidence, observed frequency and rows) of a task with probabilities. Not in
        the JSON.

    See Also
    --------
    fastmetrics.evaluate : What makes it.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1]}, y_true="y",
    ...                  score="p", metrics=["accuracy", "roc_auc"])
    >>> [(r["metric"], r["value"]) for r in ev.rows]
    [('accuracy', 0.75), ('roc_auc', 1.0)]
    """

    task: str
    task_inferred: bool
    models: list[str]
    baseline: str | None
    rows: list[dict[str, Any]]
    gates: list[dict[str, Any]] = field(default_factory=list)
    too_small: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    curves: dict[str, dict[str, tuple[np.ndarray, ...]]] = field(
        default_factory=dict, compare=False, repr=False)

    @property
    def passed(self) -> bool:
        """Whether every gate passed (True without gates)."""
        return all(g["passed"] for g in self.gates)

    def failed(self) -> list[dict[str, Any]]:
        """The gates that failed.

        Returns
        -------
        list of dict
            The entries of ``gates`` whose ``passed`` is False.

        See Also
        --------
        Evaluation.passed : Whether none failed.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1], "g": [1, 1, 2, 2]},
        ...                  y_true="y", score="p", by="g", metrics=["accuracy"],
        ...                  gates=["accuracy>=0.8"])
        >>> [g["reason"] for g in ev.failed()]
        ['accuracy = 0.75']
        """
        return [g for g in self.gates if not g["passed"]]

    def value(self, metric: str, model: str | None = None,
              slice: Mapping[str, Any] | None = None) -> Any:
        """One value of the table.

        Parameters
        ----------
        metric : str
            The metric's name.
        model : str, optional
            The model (default: the first).
        slice : mapping, optional
            Column -> value of the slice (default: the whole table).

        Returns
        -------
        value : float

        Raises
        ------
        KeyError
            No such (model, slice, metric).

        See Also
        --------
        Evaluation.table : Every value.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1], "g": [1, 1, 2, 2]},
        ...                  y_true="y", score="p", by="g", metrics=["accuracy"],
        ...                  gates=["accuracy>=0.8"])
        >>> ev.value("accuracy", slice={"g": 2})
        0.5
        """
        model = self.models[0] if model is None else model
        want = dict(slice or {})
        for r in self.rows:
            if r["model"] == model and r["metric"] == metric and r["slice"] == want:
                return r["value"]
        raise KeyError((metric, model, want))

    def table(self, kind: str = "pandas") -> Any:
        """The tidy table: one row per (model, slice, metric).

        Parameters
        ----------
        kind : {"pandas", "polars", "arrow", "records"}, default="pandas"
            The table's type (``"records"``: a list of dicts).

        Returns
        -------
        table
            Columns ``model``, ``slicing``, ``slice`` (``col=value, ...``; empty for the
            whole table), ``metric``, ``value``, ``ci_low``, ``ci_high``, ``n``.

        See Also
        --------
        Evaluation.to_json : The same rows as JSON.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1], "g": [1, 1, 2, 2]},
        ...                  y_true="y", score="p", by="g", metrics=["accuracy"],
        ...                  gates=["accuracy>=0.8"])
        >>> ev.table("records")[1]["slice"]
        'g=1'
        """
        records = [{**r, "slicing": ",".join(r["slicing"]),
                    "slice": _slice_text(r["slice"])} for r in self.rows]
        if kind == "records":
            return records
        cols = ["model", "slicing", "slice", "metric", "value", "ci_low", "ci_high", "n"]
        data = {c: [r[c] for r in records] for c in cols}
        if kind == "pandas":
            import pandas as pd

            return pd.DataFrame(data, columns=cols)
        if kind == "polars":
            import polars as pl

            return pl.DataFrame(data, strict=False)
        if kind == "arrow":
            import pyarrow as pa

            return pa.table(data)
        raise ValueError(f"kind must be 'pandas', 'polars', 'arrow' or 'records', got {kind!r}")

    def to_flat_dict(self) -> dict[str, Any]:
        """One level of scalars, for a results log: ``<model>.<slice>.<metric>`` (the slice
        ``all`` for the whole table, else ``col=value,...``) with ``.ci_low``, ``.ci_high``
        and ``.n`` beside each value, ``gate.<i>.passed``, ``task`` and ``passed``.

        Returns
        -------
        dict
            Those keys to scalars (NaN kept as NaN).

        See Also
        --------
        fastmetrics.flatten : Any report object flattened so.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1]}, y_true="y",
        ...                  score="p", metrics=["accuracy"])
        >>> ev.to_flat_dict()["model.all.accuracy"]
        0.75
        """
        out: dict[str, Any] = {"task": self.task, "passed": self.passed}
        for r in self.rows:
            where = ",".join(f"{k}={v}" for k, v in r["slice"].items()) or "all"
            key = f"{r['model']}.{where}.{r['metric']}"
            out[key] = r["value"]
            out[key + ".n"] = r["n"]
            if r["ci_low"] is not None:
                out[key + ".ci_low"], out[key + ".ci_high"] = r["ci_low"], r["ci_high"]
        for i, g in enumerate(self.gates):
            out[f"gate.{i}.passed"] = g["passed"]
        return out

    def to_dict(self) -> dict[str, Any]:
        """The result as plain values, as :func:`json.dumps` takes them (NaN as None).

        Returns
        -------
        dict
            ``task``, ``task_inferred``, ``models``, ``baseline``, ``rows`` (each with
            ``model``, ``slice``, ``metric``, ``value``, ``ci_low``, ``ci_high``, ``n``),
            ``gates``, ``too_small``, ``warnings`` and ``passed``.

        See Also
        --------
        Evaluation.to_json : The same as a JSON text.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1], "g": [1, 1, 2, 2]},
        ...                  y_true="y", score="p", by="g", metrics=["accuracy"],
        ...                  gates=["accuracy>=0.8"])
        >>> ev.to_dict()["rows"][0]["value"]
        0.75
        """
        return {"task": self.task, "task_inferred": self.task_inferred,
                "models": self.models, "baseline": self.baseline,
                "rows": [{k: _plain(v) for k, v in r.items() if k != "slicing"}
                         for r in self.rows],
                "gates": [{k: _plain(v) for k, v in g.items()} for g in self.gates],
                "too_small": [{k: _plain(v) for k, v in t.items()} for t in self.too_small],
                "warnings": self.warnings,
                "passed": self.passed}

    def to_json(self, indent: int | None = 2) -> str:
        """The result as JSON.

        Parameters
        ----------
        indent : int or None, default=2
            As :func:`json.dumps`.

        Returns
        -------
        str
            :meth:`to_dict` as JSON.

        See Also
        --------
        Evaluation.to_dict : The values.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1], "g": [1, 1, 2, 2]},
        ...                  y_true="y", score="p", by="g", metrics=["accuracy"],
        ...                  gates=["accuracy>=0.8"])
        >>> '"passed": false' in ev.to_json()
        True
        """
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_markdown(self) -> str:
        """A pull-request comment: the whole-table values per model (with the baseline's
        difference), the gates, and each slicing's worst slices.

        Returns
        -------
        str
            Markdown.

        See Also
        --------
        Evaluation.to_html : A page.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1], "g": [1, 1, 2, 2]},
        ...                  y_true="y", score="p", by="g", metrics=["accuracy"],
        ...                  gates=["accuracy>=0.8"])
        >>> ev.to_markdown().splitlines()[0]
        '### fastmetrics evaluate: binary'
        """
        lines = [f"### fastmetrics evaluate: {self.task}", ""]
        whole = [r for r in self.rows if not r["slice"]]
        metrics = list(dict.fromkeys(r["metric"] for r in whole))
        head = "| metric | " + " | ".join(self.models) + " |"
        lines += [head, "|---|" + "---|" * len(self.models)]
        by = {(r["model"], r["metric"]): r for r in whole}
        for m in metrics:
            cells = []
            for model in self.models:
                r = by.get((model, m))
                cells.append("" if r is None else _cell(r))
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        if self.gates:
            lines += ["", "**Gates**", ""]
            for g in self.gates:
                mark = "pass" if g["passed"] else "**FAIL**"
                where = _slice_text(g["slice"]) or "whole table"
                lines.append(f"- {mark}: `{g['gate']}` ({g['model']}, {where}): {g['reason']}")
        worst = self._worst_slices()
        if worst:
            lines += ["", "**Worst slices**", ""]
            for text in worst:
                lines.append(f"- {text}")
        return "\n".join(lines) + "\n"

    def _worst_slices(self, k: int = 3) -> list[str]:
        out = []
        first = self.rows[0]["metric"] if self.rows else None
        for model in self.models:
            sliced = [r for r in self.rows if r["slice"] and r["model"] == model
                      and r["metric"] == first and r["value"] is not None
                      and not _isnan(r["value"])]
            spec = _spec_of(self.task, first) if first is not None else None
            worse_high = spec is not None and not spec.higher_is_better
            sliced.sort(key=lambda r: r["value"], reverse=worse_high)
            for r in sliced[:k]:
                out.append(f"{model}, {_slice_text(r['slice'])}: {first} "
                           f"{r['value']:.4g} (n={r['n']})")
        return out

    def to_html(self) -> str:
        """A standalone page, the report card's page (the same builder) grown for an
        evaluation: the gates, each model's whole-table curves (ROC and
        precision-recall of a binary task, reliability of a task with probabilities: one
        line a model in each figure; they need matplotlib), and the tidy table, sortable
        by clicking a header, each slicing's worst slice of each metric and model marked.

        Returns
        -------
        str
            HTML: no source outside the page, one script (the table's sorting) allowed by
            its hash.

        See Also
        --------
        Evaluation.to_markdown : A pull-request comment.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> ev = fm.evaluate({"y": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.1], "g": [1, 1, 2, 2]},
        ...                  y_true="y", score="p", by="g", metrics=["accuracy"],
        ...                  gates=["accuracy>=0.8"])
        >>> "<table" in ev.to_html()
        True
        """
        from ._page import curve_sections, document, escape

        rows = self.table("records")
        worst = set()
        for model in self.models:
            for slicing in {r["slicing"] for r in rows if r["slicing"]}:
                for metric in {r["metric"] for r in rows}:
                    cand = [i for i, r in enumerate(rows) if r["model"] == model
                            and r["slicing"] == slicing and r["metric"] == metric
                            and isinstance(r["value"], float) and not math.isnan(r["value"])]
                    if cand:
                        spec = _spec_of(self.task, metric)
                        pick = min if (spec is None or spec.higher_is_better) else max
                        worst.add(pick(cand, key=lambda i: rows[i]["value"]))
        n = max((r["n"] for r in self.rows if not r["slice"]), default=0)
        meta = (f"{self.task} task{' (inferred)' if self.task_inferred else ''}, "
                f"{n:,} rows, models: {', '.join(self.models)}"
                + (f", baseline: {self.baseline}" if self.baseline else "")
                + f"; {self.seconds:.2f} s")
        parts = [f'<p class="meta">{escape(meta)}</p>']
        if self.gates:
            items = []
            for g in self.gates:
                mark, cls = ("pass", "") if g["passed"] else ("<b>FAIL</b>", " class='fail'")
                items.append(f"<li{cls}>{mark}: "
                             f"{escape(g['gate'])} ({escape(g['model'])}, "
                             f"{escape(_slice_text(g['slice']) or 'whole table')}): "
                             f"{escape(g['reason'])}</li>")
            parts.append('<section id="gates"><h2>Gates</h2><ul class="gates">'
                         + "".join(items) + "</ul></section>")
        legends = {}
        for r in self.rows:
            if not r["slice"] and r["metric"] in ("roc_auc", "average_precision") \
                    and not _isnan(r["value"]):
                kind, name = ("roc", "AUC") if r["metric"] == "roc_auc" else ("pr", "AP")
                legends[(r["model"], kind)] = f"{name} {r['value']:.4f}"
        parts += curve_sections(self.curves, legends)
        cols = ["model", "slicing", "slice", "metric", "value", "ci_low", "ci_high", "n"]
        table = ['<section id="values"><h2>Values</h2><table class="sortable">'
                 "<thead><tr>" + "".join(f"<th>{c}</th>" for c in cols)
                 + "</tr></thead><tbody>"]
        for i, r in enumerate(rows):
            cls = " class='worst'" if i in worst else ""
            table.append(f"<tr{cls}>" + "".join(f"<td>{escape(_fmt(r[c]))}</td>" for c in cols)
                         + "</tr>")
        table.append("</tbody></table></section>")
        parts.append("\n".join(table))
        return document(f"fastmetrics evaluate: {self.task}", parts, sortable=True)


def _cell(r: Mapping[str, Any]) -> str:
    v = r["value"]
    if v is None or _isnan(v):
        return "n/a"
    text = f"{v:.4f}"
    if r.get("ci_low") is not None:
        text += f" [{r['ci_low']:.4f}, {r['ci_high']:.4f}]"
    return text


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _plain(v: Any) -> Any:
    if isinstance(v, (np.generic,)):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _slice_text(s: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in s.items())


def _spec_of(task: str, metric: str) -> _MetricSpec | None:
    for s in _SPECS.get(task, ()):
        if s.name == metric:
            return s
    base = metric.partition("[")[0]
    if base in _PER_CLASS:
        return _MetricSpec(metric, "labels", "confusion", "")
    return None


# --------------------------------------------------------------------------- the job


def _infer_task(y: np.ndarray, model: _Model) -> str:
    if model.probs:
        return "multiclass" if len(model.probs) > 2 else "binary"
    if y.dtype.kind == "f" and not np.all(np.equal(np.mod(y[np.isfinite(y)], 1), 0)):
        return "regression"
    if y.dtype.kind in "iub" or y.dtype.kind == "f":
        k = np.unique(y).shape[0]
        if model.score is not None and k > 2 and y.dtype.kind == "f":
            return "regression"
        if k <= 2:
            return "binary"
        return "regression" if model.score is not None and model.pred is None else "multiclass"
    return "binary" if np.unique(y).shape[0] <= 2 else "multiclass"


def _values_of(col: Any) -> np.ndarray:
    """A column as a numpy array (text decoded) for the few checks made on the whole true
    column (task inference, classes)."""
    mod = type(col).__module__.partition(".")[0]
    if mod == "pyarrow":
        import pyarrow as pa

        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.dictionary_decode()
        return np.asarray(col.to_numpy(zero_copy_only=False))
    if mod == "polars":
        return np.asarray(col.to_numpy())
    return np.asarray(col)


def evaluate(data: Any, *, y_true: str | Sequence[str],
             pred: str | Sequence[str] | None = None, score: str | None = None,
             prob: str | Sequence[str] | None = None,
             models: Mapping[str, Any] | None = None, task: str | None = None,
             by: Any = None, sample_weight: str | None = None,
             metrics: Sequence[str] | None = None, ci: float | None = None,
             n_boot: int = 1000, baseline: str | None = None,
             gates: Sequence[str] = (), gate_slices: bool = False,
             min_slice_size: int = 1, threshold: float = 0.5,
             batch_rows: int = 1 << 20, random_state: int | None = 0,
             id: str | None = None, query: str | None = None,
             progress: Callable[[int, int | None], None] | None = None) -> Evaluation:
    """Every metric of a task, for the whole table and every slice, for several models, with
    intervals and pass/fail gates, in one read of the data.

    Parameters
    ----------
    data : pandas/polars/pyarrow table, dict of arrays, Dask dataframe, or path
        The predictions table; a ``.parquet`` or ``.csv``/``.tsv`` (optionally ``.gz``,
        ``.bz2``, ``.zst``) path is read in batches of ``batch_rows`` rows (bounded memory),
        a ``.npy`` or ``.npz`` one whole, by the command line's reader (a CSV column's type
        pyarrow's, settled over the whole file: widened where a later block holds another
        type); a Dask dataframe's partitions are evaluated where they live and merged.
    y_true : str or list of str
        The true column (labels, or targets for regression); the multilabel task's 0/1
        columns, one per label (a list of two or more).
    pred, score, prob : str, optional
        One model's columns: predicted labels, a score (binary: the positive class's
        probability; regression: the estimate), probability columns (a list, or a prefix
        naming every column that starts with it, in order: one per sorted class). A
        multilabel model has one column per label, in ``y_true``'s order: ``pred=`` (a
        list of 0/1 columns) or ``prob=`` (a list or prefix; float scores are predicted 1
        at ``threshold`` or above).
    models : dict, optional
        Several models: name -> a score column, a list of probability columns, or a dict
        with ``pred``/``score``/``prob``.
    task : {"binary", "multiclass", "multilabel", "regression", "ranking"}, optional
        Inferred from the true column and the models' columns when omitted ("ranking" when
        ``query`` is given, "multilabel" when ``y_true`` is a list of columns; the result
        says so in ``task_inferred``). The multilabel task's metrics come from per-label
        counts and a tally of the rows' (true positives, predicted, true) counts, so it
        streams in bounded memory; with ``ci`` (unweighted), the metrics those profiles
        determine get intervals from resampled profile counts, and their deltas paired
        ones from the joint tally of both models' profiles (macro F1 and the per-label
        rows get none).
    by : str or list, optional
        Slicings: a column, or a list whose items are a column or a list of columns
        (crossed into one slicing).
    sample_weight : str, optional
        A weight column.
    metrics : list of str, optional
        A subset of the task's metrics
        (:data:`~fastmetrics.evaluation.TASK_METRICS`); default all.
    ci : float, optional
        Confidence level of intervals (e.g. 0.95), unweighted rows only: bootstrap
        percentiles from the states' cells (the metrics of labels; the multilabel ones
        from the row profiles), DeLong's for ROC AUC, and the central limit interval of the
        mean for the regression task's mean absolute and squared errors (from the kept
        errors; the root's from the squared error's ends) and, unweighted, for the log
        loss, the Brier score and MAPE (from the mean and spread of the rows' losses);
        average precision's logit interval (from its positives' count), the expected
        calibration error's percentiles over Poisson resamples of its bins' cells, the
        median absolute error's order statistics; R²'s and explained variance's, the
        delta method's, from each row's influence (a second read of the target and
        prediction columns). The maximum error gets none. With ``baseline``, the
        ``:delta`` rows' paired intervals; ROC AUC's (DeLong's covariance of the two AUCs
        on the same rows) reads the labels and scores twice, as R²'s does.
    n_boot : int, default=1000
        Bootstrap resamples.
    baseline : str, optional
        The model the others are compared with (gates with ``:delta``, ``:rel``,
        ``:better``; rows ``<metric>:delta`` per other model, which for the metrics of
        labels carry the paired interval of the difference when ``ci`` is given: the
        rows are resampled with both models' labels, from their joint counts; for the
        mean absolute and squared errors, the log loss, the Brier score and MAPE, the
        central limit interval of each row's difference).
    gates : list of str, optional
        Pass/fail conditions (:class:`~fastmetrics.evaluation.Gate`), checked on the
        whole table (and on every slice of at least ``min_slice_size`` rows with
        ``gate_slices=True``).
    gate_slices : bool, default=False
    min_slice_size : int, default=1
        Slices with fewer rows get no values (listed in ``too_small``).
    threshold : float, default=0.5
        Binary task without a prediction column: predicted positive when
        ``score >= threshold``.
    batch_rows : int, default=2**20
        Rows per batch read from a file.
    random_state : int or None, default=0
        Seeds the bootstrap.
    id : str, optional
        With ``data`` a list of tables or files: the column they are joined on (each id
        once per table; an id missing from one of them is an error that says how many).
    query : str, optional
        The ranking task: the column of each row's query (the rows are (query, document)
        pairs, the true column their relevance, each model's score ranks a query's
        documents). NDCG, NDCG@10, the reciprocal rank and average precision are computed
        per query, as scikit-learn's ``ndcg_score`` and ``average_precision_score`` (and
        :func:`fastmetrics.mean_reciprocal_rank`) of its documents, and averaged over the
        queries (NDCG over the queries of two documents or more, which scikit-learn
        scores; average precision over the queries with a relevant document). These rows
        are kept in memory (about 8 bytes a column a row) and sorted once at the end; with
        ``ci``, intervals come from resampling the queries (the same resamples for every
        model, so the deltas' intervals are paired).
    progress : callable, optional
        ``progress(rows_done, rows_total_or_None)`` after each batch.

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        A missing column, a label column with NaN, scores outside [0, 1] where
        probabilities are needed, an unknown metric, a malformed gate, a baseline that is
        not a model, ``min_slice_size`` < 1.

    See Also
    --------
    fastmetrics.MetricFrame : Metrics by slice as pandas objects.
    fastmetrics.streaming.GroupedAccumulator : The grouped states underneath.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> data = {"y": [0, 1, 1, 0, 1, 0], "a": [0.1, 0.8, 0.7, 0.3, 0.4, 0.2],
    ...         "seg": ["x", "x", "y", "y", "y", "x"]}
    >>> ev = fm.evaluate(data, y_true="y", score="a", by="seg", metrics=["accuracy"])
    >>> [(r["slice"], r["value"]) for r in ev.rows]
    [({}, 0.8333333333333334), ({'seg': 'x'}, 1.0), ({'seg': 'y'}, 0.6666666666666666)]
    """
    start = time.perf_counter()
    if isinstance(data, (list, tuple)):  # several files (or tables) joined on an id column
        data = _joined(data, id)
    elif id is not None:
        raise ValueError("id= joins several tables: pass a list of them as data")
    table = _Table(data, batch_rows)
    job = Job(table.names, y_true=y_true, pred=pred, score=score, prob=prob, models=models,
              task=task, by=by, sample_weight=sample_weight, metrics=metrics, ci=ci,
              n_boot=n_boot, baseline=baseline, gates=gates, gate_slices=gate_slices,
              min_slice_size=min_slice_size, threshold=threshold, random_state=random_state,
              query=query)
    table.check(job.needed)
    # a CSV file's columns that may hold labels or keys are typed over the whole file
    # first (the scores and probabilities are numbers)
    true_cols = [y_true] if isinstance(y_true, str) else list(y_true)
    preds = [m.pred for m in job.models if m.pred is not None]
    scores = [m.score for m in job.models if m.score is not None and not m.probs]
    table.settle([*true_cols, *preds, *scores, *(c for s in job.slicings for c in s),
                  *([] if query is None else [query])],
                 together=[*true_cols, *preds] if isinstance(y_true, str) else [])

    # the classes (and the task, when not given) from the true column: in memory it is at
    # hand; a file's label column is read once more, alone; a Dask frame's distinct labels
    # are found in one pass over that column
    if not isinstance(y_true, str):  # multilabel: each batch's 0/1 columns are checked
        y_all = None
    elif table.dask:
        y_all = np.asarray(data[y_true].unique().compute())
    else:
        ys = [_values_of(b[y_true]) for b in table.batches([y_true])]
        if not ys:
            raise ValueError("the table has no rows")
        y_all = np.concatenate(ys) if len(ys) > 1 else ys[0]
    job.resolve(y_all, table.kind_of)
    del y_all

    plan = job.plan()
    if table.dask:
        plan = _dask_plan(data, plan, job.needed, job.y_true, sample_weight)
    else:
        rows_done = 0
        total = table.rows
        for batch in table.batches(job.needed):
            rows_done += plan.update(batch, job.y_true, sample_weight)
            if progress is not None:
                progress(rows_done, total)
    # DeLong's paired covariance needs each row's two placements, R²'s interval each
    # row's influence, which the first read's states give only once every row is in: the
    # columns they need are read once more
    second = plan.second_read(job.baseline, job.ci, sample_weight)
    if second is not None:
        y_col = cast(str, job.y_true)
        if table.dask:
            second = _dask_second_read(data, second, y_col)
        else:
            for batch in table.batches(second.columns(y_col)):
                second.feed(batch, y_col)
        plan.second = second
    return job.finish(plan, start)


class Job:
    """One evaluation's settings, checked, and what turns a table's rows into an
    :class:`Evaluation`: shared by every engine (in memory, files, Dask, Spark).

    An engine builds a ``Job`` from the table's column names (bad arguments fail here),
    reads ``needed`` columns, gives :meth:`resolve` the true column's values (all of them,
    or only the distinct ones: the same answer), feeds batches to plans from :meth:`plan`
    (one per partition, merged by :meth:`Plan.merge_all`), and calls :meth:`finish`.

    Parameters
    ----------
    names : sequence of str
        The table's columns.
    **settings
        :func:`evaluate`'s arguments (but the data, ``batch_rows``, ``id`` and
        ``progress``).

    Attributes
    ----------
    needed : list of str
        The columns the evaluation reads.
    task : str or None
        The task, once given or resolved.
    """

    def __init__(self, names: Sequence[str], *, y_true: str | Sequence[str],
                 pred: str | Sequence[str] | None = None,
                 score: str | None = None, prob: str | Sequence[str] | None = None,
                 models: Mapping[str, Any] | None = None, task: str | None = None,
                 by: Any = None, sample_weight: str | None = None,
                 metrics: Sequence[str] | None = None, ci: float | None = None,
                 n_boot: int = 1000, baseline: str | None = None,
                 gates: Sequence[str] = (), gate_slices: bool = False,
                 min_slice_size: int = 1, threshold: float = 0.5,
                 random_state: int | None = 0, query: str | None = None) -> None:
        if isinstance(min_slice_size, bool) or not isinstance(min_slice_size, int) \
                or min_slice_size < 1:
            raise ValueError(f"min_slice_size must be an integer >= 1, got {min_slice_size!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
                or not math.isfinite(threshold):
            raise ValueError(f"threshold must be a finite number, got {threshold!r}")
        if ci is not None and not (isinstance(ci, float) and 0 < ci < 1):
            raise ValueError(f"ci must be a confidence level in (0, 1), got {ci!r}")
        #: the multilabel task's true columns (one 0/1 column per label), or None
        self.label_columns = None if isinstance(y_true, str) else \
            tuple(str(c) for c in y_true)
        if self.label_columns is not None:
            if len(self.label_columns) < 2:
                raise ValueError("y_true as a list of columns is the multilabel task's: it "
                                 "needs two label columns or more")
            if task not in (None, "multilabel") or query is not None:
                raise ValueError("y_true as a list of columns is the multilabel task's; the "
                                 f"task is {'ranking' if query is not None else task!r}")
        elif task == "multilabel":
            raise ValueError("the multilabel task needs y_true= as a list of the label "
                             "columns (one 0/1 column per label)")
        self.y_true: str | tuple[str, ...] = y_true if isinstance(y_true, str) else \
            cast("tuple[str, ...]", self.label_columns)
        self.sample_weight, self.task = sample_weight, task
        self.metrics, self.ci, self.n_boot, self.baseline = metrics, ci, n_boot, baseline
        self.gate_slices, self.min_slice_size = gate_slices, min_slice_size
        self.threshold, self.random_state, self.query = threshold, random_state, query
        if query is not None and task not in (None, "ranking"):
            raise ValueError(f"query= is the ranking task's; the task is {task!r}")
        if task == "ranking" and query is None:
            raise ValueError("the ranking task needs query= (the column of each row's query)")
        self.models = _models(models, pred, score, prob, names)
        self.slicings = _slicings(by)
        self.gates = [Gate.parse(g) for g in gates]
        self.names = [m.name for m in self.models]
        if baseline is not None and baseline not in self.names:
            raise ValueError(f"baseline {baseline!r} is not a model; the models are "
                             f"{self.names}")
        if any(g.kind != "value" for g in self.gates) and baseline is None:
            raise ValueError("gates against the baseline (:delta, :rel, :better) need "
                             "baseline=")
        self.needed = [*((y_true,) if isinstance(y_true, str) else self.y_true),
                       *(c for m in self.models for c in m.columns()),
                       *(c for s in self.slicings for c in s)]
        if sample_weight is not None:
            self.needed.append(sample_weight)
        if query is not None:
            self.needed.append(query)
        self.needed = list(dict.fromkeys(self.needed))
        self.inferred = task is None
        self.classes: np.ndarray | None = None
        self.specs: list[_MetricSpec] = []

    @property
    def score_columns(self) -> list[str]:
        """The columns read as numbers (scores and probabilities)."""
        return [c for m in self.models for c in (m.score, *m.probs) if c is not None]

    def resolve(self, y: np.ndarray | None, kind_of: Callable[[str], str]) -> None:
        """Check the true column's values (all, or the distinct ones) and settle the task,
        its classes, its metrics and the models' columns (``kind_of(col)``: a column's
        numpy dtype kind, for a model's one column of labels). The multilabel task reads
        no values here (``y`` None): each batch's 0/1 columns are checked as they come."""
        if self.label_columns is not None:
            self._resolve_multilabel()
            return
        assert y is not None
        task = self.task
        if y.dtype.kind == "O" and any(v is None or v != v for v in y.tolist()):
            raise ValueError(f"the true column {self.y_true!r} has missing values (None or "
                             "NaN)")
        if y.shape[0] == 0:
            raise ValueError("the table has no rows")
        if y.dtype.kind == "f" and np.isnan(y).any() and task != "regression":
            raise ValueError(f"the true column {self.y_true!r} contains NaN")
        if task not in ("regression", "ranking") and self.query is None \
                and y.dtype.kind != "f":
            # a model's one column holding labels of the true column's kind (integers or
            # text, no floats) is its predictions, not a score
            text = y.dtype.kind in "OUS"

            def holds_labels(col: str) -> bool:
                kind = kind_of(col)
                return kind == "O" if text else kind in "iub"

            self.models = [_Model(m.name, pred=m.score) if m.score is not None
                           and m.pred is None and not m.probs and holds_labels(m.score)
                           else m for m in self.models]
        if task is None:
            task = "ranking" if self.query is not None else _infer_task(y, self.models[0])
        if task not in _SPECS or task == "multilabel":
            raise ValueError(f"task must be one of {sorted(_SPECS)} (multilabel with y_true= "
                             f"a list of columns), got {task!r}")
        if task == "ranking":
            if self.sample_weight is not None:
                raise ValueError("the ranking task takes no sample_weight")
            _check_relevance(y, cast(str, self.y_true))
        self.task = task
        self.classes = None if task in ("regression", "ranking") else np.unique(y)
        self._settle()

    def _resolve_multilabel(self) -> None:
        labels = cast("tuple[str, ...]", self.label_columns)
        for m in self.models:
            if len(m.probs) != len(labels):
                raise ValueError(f"model {m.name!r} has {len(m.probs)} label columns; the "
                                 f"multilabel task's true columns are {len(labels)} (pass "
                                 "one 0/1 or score column per label, in their order)")
        self.task, self.classes = "multilabel", None
        self._settle()

    def _settle(self) -> None:
        """The task's metrics, and the gates checked against them."""
        task = cast(str, self.task)
        self.specs = _chosen(task, self.metrics)
        for g in self.gates:
            if _spec_of(task, g.metric) is None and not any(s.name == g.metric
                                                            for s in self.specs):
                raise ValueError(f"gate {g.text!r}: unknown metric {g.metric!r} for the "
                                 f"{task} task")
        self.plan()  # a model no metric of the task can read fails here, before any read

    def plan(self) -> Plan:
        """An empty plan: the accumulators this evaluation fills (after :meth:`resolve`)."""
        if self.task is None or not self.specs:
            raise RuntimeError("Job.plan() before Job.resolve()")
        paired = self.baseline if self.ci is not None and self.sample_weight is None \
            else None
        return Plan(self.task, self.models, self.specs, self.classes, self.slicings,
                    self.threshold, paired, self.query, self.label_columns,
                    intervals=self.ci is not None and self.sample_weight is None)

    def finish(self, plan: Plan, start: float | None = None) -> Evaluation:
        """The evaluation of everything ``plan`` was fed (``start``: a
        ``time.perf_counter()`` to report the seconds from)."""
        if plan.n == 0:
            raise ValueError("the table has no rows")
        assert self.task is not None
        # a metric undefined on a slice (one class for ROC AUC...) gives NaN and its
        # warning once, with how many values it concerns, not once per slice
        with recording_warnings() as caught:
            rows, small = plan.rows(self.min_slice_size, self.ci, self.n_boot,
                                    self.random_state)
        counts: dict[tuple[type[Warning], str], int] = {}
        for w in caught:
            counts[w] = counts.get(w, 0) + 1
        ev = Evaluation(self.task, self.inferred, self.names, self.baseline, rows,
                        too_small=small,
                        warnings=[{"category": c.__name__, "message": m, "count": k}
                                  for (c, m), k in counts.items()],
                        curves=plan.curves())
        if self.baseline is not None:
            intervals = {} if plan.paired_with is None or self.ci is None else \
                plan.delta_intervals(self.baseline, self.min_slice_size, self.ci,
                                     self.n_boot, self.random_state)
            _add_deltas(ev, self.baseline, intervals)
        ev.gates = _check_gates(ev, self.gates, self.baseline, self.gate_slices,
                                self.min_slice_size)
        ev.seconds = 0.0 if start is None else time.perf_counter() - start
        return ev


def _joined(parts: Sequence[Any], id: str | None) -> Any:
    """Several tables or files as one pyarrow table, joined on ``id``: the first's rows in
    their order, each other's columns matched by id (columns already present are kept
    from the first table that has them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if id is None:
        raise ValueError("several tables need id= (the column they are joined on)")
    if not parts:
        raise ValueError("data is an empty list")
    tables = [_as_arrow(p) for p in parts]
    out = tables[0]
    for i, t in enumerate(tables):
        if id not in t.column_names:
            raise ValueError(f"table {i} has no id column {id!r}")
        ids = t.column(id)
        if len(pc.unique(ids)) != len(ids):
            raise ValueError(f"table {i} holds an id more than once in {id!r}")
    left = out.column(id)
    for i, t in enumerate(tables[1:], start=1):
        right = t.column(id)
        missing = len(left) - int(pc.sum(pc.is_in(left, right)).as_py() or 0)
        extra = len(right) - int(pc.sum(pc.is_in(right, left)).as_py() or 0)
        if missing or extra:
            raise ValueError(f"ids do not match: {missing} ids of table 0 are not in table "
                             f"{i}, {extra} ids of table {i} are not in table 0")
        pos = pc.index_in(left, right).to_numpy(zero_copy_only=False)
        for c in t.column_names:
            if c != id and c not in out.column_names:
                out = out.append_column(c, t.column(c).take(pa.array(pos)))
    return out


def _as_arrow(data: Any) -> Any:
    import pyarrow as pa

    if isinstance(data, (str, os.PathLike)):
        return FileTable(data, 1 << 20).whole()
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, Mapping):
        return pa.table({str(k): np.asarray(v) for k, v in data.items()})
    mod = type(data).__module__.partition(".")[0]
    if mod == "pandas":
        return pa.Table.from_pandas(data, preserve_index=False)
    if mod == "polars":
        return data.to_arrow()
    raise TypeError(f"cannot join a {type(data).__name__}")


def _chosen(task: str, metrics: Sequence[str] | None) -> list[_MetricSpec]:
    specs = list(_SPECS[task])
    if metrics is None:
        return specs
    if isinstance(metrics, str):
        metrics = [metrics]
    known = {s.name: s for s in specs}
    out = []
    for name in metrics:
        if name not in known:
            raise ValueError(f"unknown metric {name!r} for the {task} task; its metrics are "
                             f"{sorted(known)}")
        out.append(known[name])
    return out


class Plan:
    """The accumulators of one evaluation (from :meth:`Job.plan`): per model and state, one
    for the whole table and one grouped accumulator per slicing. ``update(batch, y_true,
    weight)`` feeds a batch (column name -> array), ``Plan.merge_all`` merges plans of one
    job, ``n`` counts the rows fed."""

    def __init__(self, task: str, models: list[_Model], specs: list[_MetricSpec],
                 classes: np.ndarray | None, slicings: list[tuple[str, ...]],
                 threshold: float, paired_with: str | None = None,
                 query: str | None = None,
                 label_columns: tuple[str, ...] | None = None, *,
                 intervals: bool = False) -> None:
        self.task, self.models, self.classes = task, models, classes
        self.label_columns = label_columns  # the multilabel task's true columns
        self.slicings, self.threshold = slicings, threshold
        self.sides = _binary_sides(classes) if task == "binary" else None
        self.specs: dict[str, list[_MetricSpec]] = {}
        self.whole: dict[tuple[str, Any], Accumulator] = {}
        self.grouped: dict[tuple[str, Any, tuple[str, ...]], GroupedAccumulator] = {}
        for m in models:
            usable = [s for s in specs if self._input(m, s.reads) is not None]
            if not usable:
                raise ValueError(f"model {m.name!r} has no column the {task} task's metrics "
                                 "can read (a prediction, a score or probability columns)")
            self.specs[m.name] = usable
            if task == "ranking":
                continue  # its rows are kept (``kept``), no accumulators
            for st in dict.fromkeys(s.state for s in usable):
                cfg = {**self._config(st[0]), **dict(st[1])}
                self.whole[(m.name, st)] = KINDS[st[0]](**cfg)
                for sl in slicings:
                    self.grouped[(m.name, st, sl)] = GroupedAccumulator(st[0], **cfg)
        self.query = query  # the ranking task's query column
        #: the ranking task's paired intervals of the differences (filled by ``rows``)
        self.query_deltas: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        #: the ranking task's rows (column -> its batches), sorted by query at the end
        self.kept: dict[str, list[np.ndarray]] = {}
        # each candidate's labels counted jointly with the baseline's: the paired
        # intervals of their differences
        self.paired_with = paired_with
        labelled = {m.name for m in models
                    if any(s.family == "confusion" for s in self.specs[m.name])}
        # (the multilabel task pairs the two models' row profiles: a joint tally of
        # profile codes, the contingency family's sparse table)
        joint_kind = "contingency" if task == "multilabel" else "paired"
        if paired_with in labelled:
            for m in models:
                if m.name != paired_with and m.name in labelled:
                    self.whole[(m.name, _PAIRED)] = KINDS[joint_kind]()
                    for sl in slicings:
                        self.grouped[(m.name, _PAIRED, sl)] = GroupedAccumulator(joint_kind)
        # the mean per-row losses' intervals: each row's loss fed to the regression sums
        # (their mean and spread of the errors), and each candidate's per-row difference to
        # the baseline's for the paired ones
        self.losses: dict[str, list[str]] = {}
        if intervals and task in ("binary", "multiclass", "regression"):
            for m in models:
                self.losses[m.name] = [s.name for s in self.specs[m.name]
                                       if s.name in _ROW_LOSSES]
            base = self.losses.get(paired_with or "", [])
            for m in models:
                keys = [(_LOSS, name) for name in self.losses[m.name]]
                if paired_with is not None and m.name != paired_with:
                    keys += [(_LOSS_DELTA, name) for name in self.losses[m.name]
                             if name in base]
                for key in keys:
                    self.whole[(m.name, key)] = KINDS["regression"]()
                    for sl in slicings:
                        self.grouped[(m.name, key, sl)] = GroupedAccumulator("regression")
        self.n = 0
        #: the sums of a second read (:meth:`second_read`), once it is done
        self.second: SecondRead | None = None
        #: R²'s and explained variance's standard errors from them, by (model, metric,
        #: slice text), while :meth:`rows` runs
        self.ratio_errors: dict[tuple[str, str, str], float] = {}
        # with slices, each whole-table accumulator is not fed: it is its first slicing's
        # groups merged (every row is in one group of it), once the rows are in
        # (:meth:`settle`); a batch then costs one pass per state, not two
        self.from_slices = bool(slicings) and task in ("binary", "multiclass", "regression")
        self.settled_at: int | None = None  # the rows the whole-table ones hold then

    def second_read(self, baseline: str | None, ci: float | None,
                    weight: str | None) -> SecondRead | None:
        """What a second read of the table needs for the intervals that need each row
        beside the first read's results: the paired intervals of the candidates' ROC AUC
        differences to ``baseline`` (binary task), the intervals of R² and explained
        variance and of their differences (regression task). None where there are none
        to give (no interval asked, weights, no such metric)."""
        self.settle()
        if ci is None or weight is not None:
            return None
        if self.task == "regression":
            models = [m for m in self.models
                      if any(s.name in SpreadRatios.METRICS for s in self.specs[m.name])]
            if not models or any(self.whole[(m.name, _REGRESSION_STATE)].state is None
                                 or self.whole[(m.name, _REGRESSION_STATE)].state.sums.ndim
                                 != 1 for m in models):
                return None  # (several outputs: no interval)
            return SpreadRatios(self, models, baseline)
        if self.task != "binary" or baseline is None:
            return None
        has = {m.name for m in self.models
               if any(s.name == "roc_auc" and s.state == _RANKING_STATE
                      for s in self.specs[m.name])}
        candidates = [m for m in self.models if m.name != baseline and m.name in has]
        if baseline not in has or not candidates:
            return None
        whole = self.whole[(baseline, _RANKING_STATE)].state
        if whole is None or whole.weighted or whole.binned:
            return None
        return AucPairing(self, baseline, candidates)

    def _config(self, family: str) -> dict[str, Any]:
        c = self.classes
        if family == "ranking":
            return {} if self.sides is None else {"pos_label": self.sides[1]}
        if family == "calibration" and self.sides is not None:
            return {"labels": np.array(self.sides), "pos_label": self.sides[1]}
        if family in ("proba", "calibration"):
            return {} if c is None else {"labels": c}
        if family == "regression":
            return {"keep_values": True}  # the median absolute error needs every error
        return {}

    def _input(self, m: _Model, reads: str) -> str | None:
        if self.task == "multilabel":  # the label columns, 0/1 or thresholded scores
            return m.probs[0] if reads == "labels" and m.probs else None
        if reads == "labels":
            if m.pred is not None:
                return m.pred
            if self.task == "binary" and (m.score is not None or len(m.probs) == 2):
                return m.score or m.probs[-1]  # thresholded
            if self.task == "multiclass" and m.probs:
                return m.probs[0]  # the top column
            return None
        if reads == "scores":
            return m.score if m.score is not None else (
                m.probs[-1] if self.task == "binary" and len(m.probs) == 2 else None)
        return m.probs[0] if m.probs and self.task == "multiclass" else None

    def _data(self, m: _Model, reads: str, batch: Mapping[str, Any]) -> Any:
        if self.task == "multilabel":
            return _indicators(batch, m.probs, f"model {m.name!r}", self.threshold)
        if reads == "labels":
            if m.pred is not None:
                return batch[m.pred]
            if self.task == "binary":
                s = self._scores(m, batch)
                assert self.sides is not None
                neg, pos = self.sides
                out = np.empty(s.shape[0], dtype=np.asarray([neg, pos]).dtype)
                out[...] = neg
                out[s >= self.threshold] = pos
                return out
            assert self.classes is not None
            return self.classes[np.argmax(self._probs(m, batch), axis=1)]
        if reads == "scores":
            return self._scores(m, batch)
        return self._probs(m, batch)

    def _scores(self, m: _Model, batch: Mapping[str, Any]) -> np.ndarray:
        col = m.score if m.score is not None else m.probs[-1]
        s = np.asarray(batch[col])
        if s.dtype.kind not in "fiub":
            raise ValueError(f"the score column {col!r} is not numeric")
        return s

    def _probs(self, m: _Model, batch: Mapping[str, Any]) -> np.ndarray:
        return np.column_stack([np.asarray(batch[c], dtype=np.float64) for c in m.probs])

    def update(self, batch: Mapping[str, Any], y_true: str | Sequence[str],
               weight: str | None) -> int:
        y = batch[y_true] if isinstance(y_true, str) else \
            _indicators(batch, y_true, "the true", None)
        n = len(y)
        if n == 0:
            return 0
        if self.task == "ranking":
            self._keep(batch, cast(str, y_true))
            self.n += n
            return n
        w = None if weight is None else np.asarray(batch[weight], dtype=np.float64)
        # each slicing's keys encoded once per batch, for every model and state
        groups = {sl: group_keys(batch[sl[0]] if len(sl) == 1 else {c: batch[c] for c in sl},
                                 n) for sl in self.slicings}
        labels: dict[str, Any] = {}  # each model's labels, for the paired counts
        for m in self.models:
            by_state: dict[Any, str] = {}
            for s in self.specs[m.name]:
                by_state.setdefault(s.state, s.reads)
            inputs: dict[str, Any] = {}
            for st, reads in by_state.items():
                if reads not in inputs:
                    inputs[reads] = self._data(m, reads, batch)
                    if reads == "labels":
                        labels[m.name] = inputs[reads]
                x = inputs[reads]
                if st[0] in ("proba", "calibration") and reads != "labels":
                    _check_probabilities(x, m)
                whole: Any = self.whole[(m.name, st)]
                if not self.from_slices:
                    if w is not None:
                        whole.update(y, x, sample_weight=w)
                    else:
                        whole.update(y, x)
                for sl, g in groups.items():
                    self.grouped[(m.name, st, sl)].update(y, x, groups=g, sample_weight=w)
        if self.losses:
            self._feed_losses(batch, y, groups)
        paired = [m.name for m in self.models if (m.name, _PAIRED) in self.whole]
        base = cast(str, self.paired_with)  # set wherever ``paired`` is not empty
        if paired and self.task == "multilabel":
            # a row's labels are paired as its profile code: each model's computed once
            labels = {name: row_profiles(y, labels[name]) for name in (*paired, base)}
        for name in paired:
            pair: tuple[Any, ...] = (labels[name], labels[base])
            if self.task != "multilabel":
                pair = (y, *pair)
            joint: Any = self.whole[(name, _PAIRED)]
            if not self.from_slices:
                joint.update(*pair)
            for sl, g in groups.items():
                self.grouped[(name, _PAIRED, sl)].update(*pair, groups=g)
        self.n += n
        return n

    def _feed_losses(self, batch: Mapping[str, Any], y: Any,
                     groups: Mapping[tuple[str, ...], Any]) -> None:
        """Each model's per-row log loss and Brier score (or relative error) of a batch,
        as scikit-learn's functions average them, into its loss accumulators, and each
        candidate's per-row differences to the baseline's into its paired ones (the states,
        fed first, have checked the labels, probabilities and targets)."""
        values = _values_of(y)
        n = values.shape[0]
        eps = float(np.finfo(np.float64).eps)
        if self.task == "regression":
            target = values.astype(np.float64, copy=False)
            scale = np.maximum(np.abs(target), eps)
        elif self.task == "binary":
            assert self.sides is not None
            positive = values == self.sides[1]
        else:
            assert self.classes is not None
            column = np.searchsorted(self.classes, values)
        rows: dict[tuple[str, str], np.ndarray] = {}
        for m in self.models:
            for name in self.losses.get(m.name, []):
                # (one array a loss, worked on in place: these are the batch's passes)
                if self.task == "regression":  # |e| / max(|y|, eps)
                    e = np.subtract(np.asarray(self._scores(m, batch), dtype=np.float64),
                                    target)
                    np.abs(e, out=e)
                    rows[(m.name, name)] = np.divide(e, scale, out=e)
                    continue
                if self.task == "binary":
                    p = np.asarray(self._scores(m, batch), dtype=np.float64)
                    if name == "brier_score":
                        d = np.subtract(positive, p)
                        rows[(m.name, name)] = np.square(d, out=d)
                        continue
                    q = np.subtract(1.0, p)
                    np.copyto(q, p, where=positive)
                else:
                    q = self._probs(m, batch)[np.arange(n), column]
                np.clip(q, eps, 1.0 - eps, out=q)
                np.log(q, out=q)
                rows[(m.name, name)] = np.negative(q, out=q)
        zeros = np.zeros(n)
        base = self.paired_with
        for (model, name), loss in rows.items():
            feeds = [((model, (_LOSS, name)), loss)]
            if (model, (_LOSS_DELTA, name)) in self.whole:
                feeds.append(((model, (_LOSS_DELTA, name)), loss - rows[(cast(str, base),
                                                                          name)]))
            for key, v in feeds:
                whole: Any = self.whole[key]
                if not self.from_slices:
                    whole.update(v, zeros)
                for sl, g in groups.items():
                    self.grouped[key + (sl,)].update(v, zeros, groups=g)

    def _keep(self, batch: Mapping[str, Any], y_true: str) -> None:
        """The ranking task: a batch's relevance, query, scores and slice columns kept."""
        y = _values_of(batch[y_true])
        _check_relevance(y, y_true)
        cols = {"\0y": y}  # names no column can take (a model's: "\1" and its name)
        assert self.query is not None
        for c in [self.query, *(c for sl in self.slicings for c in sl)]:
            cols[c] = _values_of(batch[c])
        for m in self.models:
            s = np.asarray(self._scores(m, batch), dtype=np.float64)
            if not np.isfinite(s).all():
                raise ValueError(f"the score column of model {m.name!r} holds NaN or "
                                 "infinity")
            cols[f"\1{m.name}"] = s  # a model's scores
        for c, v in cols.items():
            self.kept.setdefault(c, []).append(v)

    @staticmethod
    def merge_all(plans: Sequence[Plan]) -> Plan:
        """One plan holding every input plan's rows (all built alike): each accumulator
        merged with its counterparts by its family's law."""
        first = plans[0]
        out = copy.copy(first)
        columns = list(dict.fromkeys(c for p in plans for c in p.kept))  # empty parts hold none
        out.kept = {c: [v for p in plans for v in p.kept.get(c, [])] for c in columns}
        out.whole = {k: type(a).merge_all([p.whole[k] for p in plans])
                     for k, a in first.whole.items()}
        out.grouped = {k: GroupedAccumulator.merge_all([p.grouped[k] for p in plans])
                       for k in first.grouped}
        out.n = sum(p.n for p in plans)
        out.settled_at = None
        return out

    def settle(self) -> None:
        """The whole-table accumulators that are not fed, from the first slicing's groups
        (after the last batch; again only when rows came since)."""
        if not self.from_slices or self.settled_at == self.n:
            return
        first = self.slicings[0]
        for key in self.whole:
            self.whole[key] = self.grouped[key + (first,)].overall()
        self.settled_at = self.n

    def rows(self, min_size: int, ci: float | None, n_boot: int,
             seed: int | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        out: list[dict[str, Any]] = []
        small: list[dict[str, Any]] = []
        self.settle()
        rng = np.random.default_rng(seed)  # one stream, consumed in a fixed order
        if self.task == "ranking":
            return self._query_rows(min_size, ci, n_boot, rng)
        self.ratio_errors = {} if self.second is None else \
            self.second.standard_errors(min_size)
        for m in self.models:
            accs = {st: self.whole[(m.name, st)] for st in self._states(m, ci)}
            out += self._rows_of(m.name, (), [{}], [accs], ci, n_boot, rng)
        for sl in self.slicings:
            for m in self.models:
                states = self._states(m, ci)
                first = self.grouped[(m.name, states[0], sl)]
                keys = first.keys()
                try:  # slices in key order, whatever order chunks brought them in
                    keys = sorted(keys)
                except TypeError:
                    pass
                sdicts, slice_accs, kept = [], [], []
                for key in keys:
                    kt = key if isinstance(key, tuple) else (key,)
                    sdict = dict(zip(sl, kt))
                    n = first[key].n_samples
                    if n < min_size:
                        if m is self.models[0]:
                            small.append({"slicing": list(sl), "slice": sdict, "n": n})
                        continue
                    sdicts.append(sdict)
                    kept.append(key)
                    slice_accs.append({st: self.grouped[(m.name, st, sl)][key]
                                       for st in states})
                # each metric of every slice at once: its arguments bound once
                values = [self.grouped[(m.name, s.state, sl)].metric(
                    s.method, errors="nan", **self._kwargs(s)) for s in self.specs[m.name]]
                known = [[v[key] for key in kept] for v in values]
                out += self._rows_of(m.name, sl, sdicts, slice_accs, ci, n_boot, rng, known)
        return out, small

    def _query_rows(self, min_size: int, ci: float | None, n_boot: int,
                    rng: np.random.Generator
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The ranking task's rows: each model's per-query values (one sort of the table),
        averaged over the queries of the whole table and of each slice (a query's rows in a
        slice are that slice's query). With ``ci``: percentile intervals from resampling
        the queries (the unit of a ranking evaluation), the same resampled queries for
        every model, so each candidate's difference to the baseline gets a paired
        interval (kept for :meth:`delta_intervals`)."""
        self.settle()
        kept = {c: np.concatenate(v) if len(v) > 1 else v[0] for c, v in self.kept.items()}
        y = kept["\0y"].astype(np.float64)
        n = y.shape[0]
        assert self.query is not None
        query = group_keys(kept[self.query], n)
        out: list[dict[str, Any]] = []
        small: list[dict[str, Any]] = []
        pieces: list[tuple[tuple[str, ...], list[tuple[dict[str, Any], np.ndarray | None]]]] = [
            ((), [({}, None)])]
        for sl in self.slicings:
            keys = group_keys(kept[sl[0]] if len(sl) == 1 else {c: kept[c] for c in sl}, n)
            order = list(range(keys.n_groups))
            try:
                order.sort(key=keys.key)
            except TypeError:
                pass
            # each slice's rows, in their order: one stable sort by slice, not a mask each
            by_slice = np.argsort(keys.codes, kind="stable")
            starts = np.zeros(keys.n_groups + 1, dtype=np.int64)
            np.cumsum(np.bincount(keys.codes, minlength=keys.n_groups), out=starts[1:])
            members: list[tuple[dict[str, Any], np.ndarray | None]] = []
            for g in order:
                kt = keys.key(g)
                sdict = dict(zip(sl, kt if isinstance(kt, tuple) else (kt,)))
                idx = by_slice[starts[g]:starts[g + 1]]
                if idx.shape[0] < min_size:
                    small.append({"slicing": list(sl), "slice": sdict, "n": idx.shape[0]})
                    continue
                members.append((sdict, idx))
            pieces.append((sl, members))
        # per (slice, model): each metric's per-query values
        per: dict[tuple[int, int, str], dict[str, np.ndarray]] = {}
        for a, (sl, members) in enumerate(pieces):
            for b, (sdict, rows) in enumerate(members):
                codes = query.codes if rows is None else query.codes[rows]
                used, dense = np.unique(codes, return_inverse=True)
                for m in self.models:
                    score = kept[f"\1{m.name}"]
                    yy, ss = (y, score) if rows is None else (y[rows], score[rows])
                    qs = query_scores(dense.reshape(-1).astype(np.int64), yy, ss,
                                      used.shape[0], _NDCG_K)
                    per[(a, b, m.name)] = {s.name: getattr(qs, s.method)
                                           for s in self.specs[m.name]}
        bounds: dict[tuple[int, int, str, str], tuple[Any, Any]] = {}
        self.query_deltas = {}
        if ci is not None:
            for a, (sl, members) in enumerate(pieces):
                for b, (sdict, _) in enumerate(members):
                    self._query_intervals(per, a, b, _slice_text(sdict), ci, n_boot, rng,
                                          bounds)
        for m in self.models:
            for a, (sl, members) in enumerate(pieces):
                for b, (sdict, rows) in enumerate(members):
                    n_rows = n if rows is None else rows.shape[0]
                    for s in self.specs[m.name]:
                        values = per[(a, b, m.name)][s.name]
                        values = values[~np.isnan(values)]
                        value = float(np.mean(values)) if values.shape[0] else float("nan")
                        lo, hi = bounds.get((a, b, m.name, s.name), (None, None))
                        out.append({"model": m.name, "slicing": sl, "slice": sdict,
                                    "metric": s.name, "value": value, "ci_low": lo,
                                    "ci_high": hi, "n": n_rows})
        return out, small

    def _query_intervals(self, per: Mapping[tuple[int, int, str], Mapping[str, np.ndarray]],
                         a: int, b: int, where: str, ci: float, n_boot: int,
                         rng: np.random.Generator,
                         bounds: dict[tuple[int, int, str, str], tuple[Any, Any]]) -> None:
        """Percentile intervals of one slice's metrics (and of each candidate's paired
        difference to the baseline) over ``n_boot`` resamples of its queries, drawn in
        blocks (about 2^22 indices at a time)."""
        names = [m.name for m in self.models]
        first = per[(a, b, names[0])]
        n_q = next(iter(first.values())).shape[0]
        series = {(name, metric): v for name in names
                  for metric, v in per[(a, b, name)].items()}
        sums = {k: np.empty(n_boot) for k in series}
        counts = {k: np.empty(n_boot) for k in series}
        base = self.paired_with
        diffs = {(name, metric): np.empty(n_boot) for name, metric in series
                 if base is not None and name != base and (base, metric) in series}
        step = max(1, (1 << 22) // max(n_q, 1))
        for lo in range(0, n_boot, step):
            hi = min(n_boot, lo + step)
            idx = rng.integers(0, n_q, size=(hi - lo, n_q))
            for k, v in series.items():
                taken = v[idx]
                ok = ~np.isnan(taken)
                counts[k][lo:hi] = ok.sum(axis=1)
                sums[k][lo:hi] = np.where(ok, taken, 0.0).sum(axis=1)
            for (name, metric), d in diffs.items():
                assert base is not None
                with np.errstate(invalid="ignore", divide="ignore"):
                    mine = sums[(name, metric)][lo:hi] / counts[(name, metric)][lo:hi]
                    theirs = sums[(base, metric)][lo:hi] / counts[(base, metric)][lo:hi]
                d[lo:hi] = np.subtract(mine, theirs)
        with np.errstate(invalid="ignore", divide="ignore"):
            for (name, metric), total in sums.items():
                bounds[(a, b, name, metric)] = _percentile(total / counts[(name, metric)], ci)
        for (name, metric), d in diffs.items():
            self.query_deltas[(name, metric, where)] = _percentile(d, ci)

    def curves(self) -> dict[str, dict[str, tuple[np.ndarray, ...]]]:
        """Each model's whole-table curves (:attr:`Evaluation.curves`), from the states
        its metrics read (after :meth:`rows`, which settles them)."""
        out: dict[str, dict[str, tuple[np.ndarray, ...]]] = {}
        if self.task not in ("binary", "multiclass"):
            return out
        for m in self.models:
            got: dict[str, tuple[np.ndarray, ...]] = {}
            for s in self.specs[m.name]:
                state = self.whole[(m.name, s.state)].state
                if state is None:
                    continue
                if s.family == "ranking" and "roc" not in got:
                    pts = curve_points(state, self.sides[1] if self.sides else None)
                    if pts is not None:
                        got["roc"], got["pr"] = pts[:2], pts[2:]
                elif s.family == "calibration" and "reliability" not in got \
                        and state.mode != "multilabel":
                    b = binned(state)
                    shown = b.counts > 0
                    got["reliability"] = (b.mean_confidence[shown],
                                          b.observed_frequency[shown], b.counts[shown])
            if got:
                out[m.name] = got
        return out

    def _states(self, m: _Model, ci: float | None = None) -> list[Any]:
        """The state keys of a model's metrics (and, with ``ci``, of its per-row losses)."""
        keys: list[Any] = list(dict.fromkeys(s.state for s in self.specs[m.name]))
        if ci is not None:
            keys += [(_LOSS, name) for name in self.losses.get(m.name, [])]
        return keys

    def _rows_of(self, model: str, sl: tuple[str, ...], sdicts: list[dict[str, Any]],
                 slice_accs: Sequence[Mapping[Any, Accumulator]], ci: float | None,
                 n_boot: int, rng: np.random.Generator,
                 known: list[list[Any]] | None = None) -> list[dict[str, Any]]:
        """The rows of one model's slices of one slicing (each slice's metrics, then its
        per-class rows), with the intervals: the confusion metrics' from resampled tables
        (each metric's vectorised derivation over every slice's resamples at once), ROC
        AUC's from DeLong's variance. ``known[i][j]``: metric ``i``'s value on slice
        ``j``, where derived already (NaN where undefined)."""
        per_slice: list[list[dict[str, Any]]] = []
        resample: list[int] = []  # slices whose confusion metrics get intervals
        cm = ("confusion", ())
        for j, (sdict, accs) in enumerate(zip(sdicts, slice_accs)):
            out = []
            for i, s in enumerate(self.specs[model]):
                acc = accs[s.state]
                value: Any
                try:
                    value = float(known[i][j] if known is not None else
                                  getattr(acc, s.method)(**self._kwargs(s)))
                except ValueError:
                    value = float("nan")  # undefined on these rows (one class for ROC AUC...)
                lo = hi = None
                if ci is not None and s.name == "roc_auc" and not _isnan(value) \
                        and not getattr(acc.state, "weighted", False):
                    try:  # DeLong's variance: no resamples
                        d = acc.delong_ci(confidence_level=ci)  # type: ignore[attr-defined]
                        lo, hi = (float(v) for v in d.confidence_interval)
                    except ValueError:
                        pass
                out.append({"model": model, "slicing": sl, "slice": sdict, "metric": s.name,
                            "value": value, "ci_low": lo, "ci_high": hi, "n": acc.n_samples})
            per_slice.append(out)
            state = accs[cm].state if cm in accs else None
            if ci is not None and state is not None and supports(state):
                resample.append(j)
            elif ci is not None and self.task == "multilabel" and state is not None:
                self._profile_intervals(out, state, ci, n_boot, rng)
            if ci is not None and _REGRESSION_STATE in accs:
                st = accs[_REGRESSION_STATE].state
                bounds = {} if st is None else error_intervals(st, ci)
                for r in out:
                    if r["metric"] in bounds:
                        r["ci_low"], r["ci_high"] = bounds[r["metric"]]
            if ci is not None:
                self._state_intervals(model, out, accs, ci)
                for r in out:
                    loss = accs.get((_LOSS, r["metric"]))
                    got = None if loss is None or loss.state is None else \
                        error_mean_interval(loss.state, ci)
                    if got is not None:  # (losses are >= 0)
                        r["ci_low"], r["ci_high"] = max(got[0], 0.0), got[1]
        if resample:
            assert ci is not None
            self._cell_intervals(model, [per_slice[j] for j in resample],
                                 [slice_accs[j][cm].state for j in resample], ci, n_boot, rng)
        if ci is not None:
            self._ece_intervals(model, per_slice, slice_accs, ci, n_boot, rng)
        rows = []
        for sdict, accs, out in zip(sdicts, slice_accs, per_slice):
            rows += out
            rows += self._per_class(model, sl, sdict, accs.get(cm))
        return rows

    def _state_intervals(self, model: str, rows: list[dict[str, Any]],
                         accs: Mapping[Any, Accumulator], ci: float) -> None:
        """The intervals of a slice's metrics that their own states give (filled in
        ``rows``): average precision's logit interval from the positives' count, the
        median absolute error's order statistics; and R²'s and explained variance's
        normal ones from the second read's standard errors. Unweighted only."""
        for s, r in zip(self.specs[model], rows):
            if _isnan(r["value"]):
                continue
            state = accs[s.state].state
            if state is None:
                continue
            got: tuple[float, float] | None = None
            if s.name == "average_precision":
                pos = self.sides[1] if self.sides is not None else None
                got = ap_interval(state, r["value"], pos, ci)
            elif s.name == "median_absolute_error":
                got = median_error_interval(state, ci)
            elif s.name in SpreadRatios.METRICS:
                se = self.ratio_errors.get((model, s.name, _slice_text(r["slice"])))
                if se is not None:
                    half = NormalDist().inv_cdf(0.5 + ci / 2) * se
                    got = (r["value"] - half, r["value"] + half)
            if got is not None:
                r["ci_low"], r["ci_high"] = got

    def _ece_intervals(self, model: str, rows: list[list[dict[str, Any]]],
                       slice_accs: Sequence[Mapping[Any, Accumulator]], ci: float,
                       n_boot: int, rng: np.random.Generator) -> None:
        """The expected calibration error's percentile intervals of several slices (their
        rows, filled in place), over ``n_boot`` Poisson resamples of each slice's bins'
        cells, every slice drawn at once (unweighted states only)."""
        at = [i for i, s in enumerate(self.specs[model]) if s.name == "ece"]
        if not at:
            return
        i = at[0]
        key = self.specs[model][i].state
        found = [(j, accs[key].state) for j, accs in enumerate(slice_accs)
                 if accs[key].state is not None and not _isnan(rows[j][i]["value"])]
        if not found:
            return
        values = ece_replicates([st for _, st in found], rng, n_boot)
        for (j, _), (lo, hi) in zip(found, _percentiles(values, ci)):
            if lo is not None:
                rows[j][i]["ci_low"], rows[j][i]["ci_high"] = lo, hi

    @staticmethod
    def _profile_intervals(rows: list[dict[str, Any]], state: Any, ci: float, n_boot: int,
                           rng: np.random.Generator) -> None:
        """Percentile intervals of a multilabel slice's metrics that its row profiles
        determine (filled in ``rows``): ``n_boot`` multinomial draws of the profile counts,
        the law of a row resample. Unweighted only; macro F1 and the per-label rows get
        none (a resample's per-label sums are not in the profiles)."""
        if state.weighted or state.profiles is None:
            return
        values = profile_batch(state, draws(state.profile_weights, rng, n_boot))
        for r in rows:
            if r["metric"] in PROFILE_METRICS and not _isnan(r["value"]):
                r["ci_low"], r["ci_high"] = _percentile(values[r["metric"]], ci)

    def _kwargs(self, s: _MetricSpec) -> dict[str, Any]:
        kw = dict(s.kwargs)
        if self.sides is not None and s.method in _POSITIVE:
            kw["pos_label"] = self.sides[1]
        return kw

    def _cell_intervals(self, model: str, rows: list[list[dict[str, Any]]], states: list[Any],
                        ci: float, n_boot: int, rng: np.random.Generator) -> None:
        """Percentile intervals of the confusion metrics of several slices (their rows,
        filled in place): each slice's cells drawn ``n_boot`` times (the multinomial law of
        a row resample, O(K^2) a resample), in slice order."""
        specs = self._resampled_specs(model)
        if not specs:
            return
        tables = [draws(cells(st), rng, n_boot).reshape((n_boot,) + st.cm.shape)
                  for st in states]
        values = self._resampled_values(specs, states, tables)
        for i, _ in specs:
            for j, (lo, hi) in enumerate(_percentiles(values[i], ci)):
                if not _isnan(rows[j][i]["value"]):
                    rows[j][i]["ci_low"], rows[j][i]["ci_high"] = lo, hi

    def _resampled_specs(self, model: str) -> list[tuple[int, _MetricSpec]]:
        """``(position, spec)`` of the model's metrics whose intervals come from resampled
        confusion tables."""
        return [(i, s) for i, s in enumerate(self.specs[model])
                if s.name in _INTERVALS and s.family == "confusion"]

    def _resampled_values(self, specs: list[tuple[int, _MetricSpec]], states: list[Any],
                          tables: list[np.ndarray]) -> dict[int, np.ndarray]:
        """Each spec's values (position -> array (len(states), n_boot)) of the resampled
        ``tables`` of each state. States of one label layout are stacked, so each metric's
        vectorised derivation runs once over all their resamples; NaN where a table has no
        value."""
        n_boot = tables[0].shape[0]
        out = {i: np.full((len(states), n_boot), np.nan) for i, _ in specs}
        layouts: dict[tuple[Any, ...], list[int]] = {}
        for j, st in enumerate(states):  # the batch derivations read the state's labels
            layouts.setdefault((st.values.dtype.str, tuple(st.values.tolist()),
                                st.present.tobytes(), st.in_true.tobytes()), []).append(j)
        for members in layouts.values():
            stacked = np.concatenate([tables[j] for j in members])
            shared: dict[Any, Any] = {}  # precision, recall and F1 from one pass
            for i, s in specs:
                kw = self._kwargs(s)
                try:
                    values = _batch_or_none(s, states[members[0]], stacked, kw, shared)
                except ValueError:
                    values = None
                if values is not None:
                    out[i][members] = values.reshape(len(members), n_boot)
                    continue
                for j in members:  # one slice at a time (a resample lacks a label...)
                    try:
                        out[i][j] = _batch(s, states[j], tables[j], kw)
                    except ValueError:
                        pass
        return out

    def delta_intervals(self, baseline: str, min_size: int, ci: float, n_boot: int,
                        seed: int | None) -> dict[tuple[str, str, str], tuple[Any, Any]]:
        """Paired intervals of each candidate's difference to ``baseline`` for the metrics
        of labels: ``(model, metric, slice text) -> (low, high)``. A resample draws rows,
        and a row carries both models' labels: the joint (true, candidate, baseline) cells
        are drawn (their multinomial law), and each resample's two confusion tables are
        its margins; the interval is the percentiles of the metric's difference."""
        self.settle()
        if self.task == "ranking":  # resampled with the queries, by :meth:`rows`
            return dict(self.query_deltas)
        if self.task == "regression":
            return {**self._error_deltas(baseline, min_size, ci),
                    **self._loss_deltas(min_size, ci),
                    **({} if self.second is None else self.second.intervals(ci, min_size))}
        if self.task == "multilabel":
            return self._profile_deltas(min_size, ci, n_boot, seed)
        rng = np.random.default_rng(None if seed is None else [seed, 1])  # apart from rows'
        out: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        for m in self.models:
            key = (m.name, _PAIRED)
            if key not in self.whole:
                continue
            specs = self._resampled_specs(m.name)
            found = self._joint_states(m, min_size)
            if not specs or not found:
                continue
            a_states = [st.marginal("a") for _, st in found]
            b_states = [st.marginal("b") for _, st in found]
            tables_a, tables_b = [], []
            for _, st in found:
                d = draws(st.counts, rng, n_boot)
                t, a, b = st.positions()
                tables_a.append(_margin_tables(d, t, a, st.counts))
                tables_b.append(_margin_tables(d, t, b, st.counts))
            values_a = self._resampled_values(specs, a_states, tables_a)
            values_b = self._resampled_values(specs, b_states, tables_b)
            for i, s in specs:
                bounds = _percentiles(values_a[i] - values_b[i], ci)
                for (sd, _), (lo, hi) in zip(found, bounds):
                    out[(m.name, s.name, _slice_text(sd))] = (lo, hi)
        out.update(self._loss_deltas(min_size, ci))
        if self.second is not None:
            out.update(self.second.intervals(ci, min_size))
        return out

    def _loss_deltas(self, min_size: int, ci: float
                     ) -> dict[tuple[str, str, str], tuple[Any, Any]]:
        """The paired intervals of each candidate's mean log loss, Brier score or mean
        relative error differences to the baseline: the central limit interval of the mean
        of the rows' differences (fed as they came, whole table and each slice)."""
        out: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        for m in self.models:
            for name in self.losses.get(m.name, []):
                key = (_LOSS_DELTA, name)
                if (m.name, key) not in self.whole:
                    continue
                for sd, acc in self._accumulators(m.name, key, min_size):
                    got = None if acc.state is None else error_mean_interval(acc.state, ci)
                    if got is not None:
                        out[(m.name, name, _slice_text(sd))] = got
        return out

    def _accumulators(self, model: str, key: Any, min_size: int
                      ) -> list[tuple[dict[str, Any], Accumulator]]:
        """A model's accumulators of one state: the whole table's, then each slice's of
        ``min_size`` rows or more, in key order (the same for every model: each batch
        brings every model the same slices)."""
        found: list[tuple[dict[str, Any], Accumulator]] = [({}, self.whole[(model, key)])]
        for sl in self.slicings:
            grouped = self.grouped[(model, key, sl)]
            for k in grouped.keys():
                acc = grouped[k]
                if acc.n_samples >= min_size:
                    kt = k if isinstance(k, tuple) else (k,)
                    found.append((dict(zip(sl, kt)), acc))
        return found

    def _joint_states(self, m: _Model, min_size: int) -> list[tuple[dict[str, Any], Any]]:
        """A candidate's joint states with the baseline (labels, or multilabel row
        profiles) of the whole table and each slice of ``min_size`` rows or more."""
        found = [(sd, acc.state) for sd, acc in self._accumulators(m.name, _PAIRED, min_size)]
        return [(sd, st) for sd, st in found if st is not None and st.n_samples]

    def _profile_deltas(self, min_size: int, ci: float, n_boot: int, seed: int | None
                        ) -> dict[tuple[str, str, str], tuple[Any, Any]]:
        """The multilabel task's paired intervals: a resample draws rows, each carrying
        both models' profiles, so the joint tally of (candidate, baseline) profile codes
        is drawn (its multinomial law), and each resample's two margins give the two
        models' values; the interval is the percentiles of their difference."""
        rng = np.random.default_rng(None if seed is None else [seed, 1])  # apart from rows'
        out: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        assert self.label_columns is not None
        n_labels = len(self.label_columns)
        for m in self.models:
            if (m.name, _PAIRED) not in self.whole:
                continue
            for sd, st in self._joint_states(m, min_size):
                d = draws(st.counts, rng, n_boot)
                mine = profile_values(st.true_values, n_labels, _margins(d, st.rows,
                                                                          st.true_values))
                theirs = profile_values(st.pred_values, n_labels, _margins(d, st.cols,
                                                                            st.pred_values))
                for name in PROFILE_METRICS:
                    out[(m.name, name, _slice_text(sd))] = _percentile(
                        mine[name] - theirs[name], ci)
        return out

    def _error_deltas(self, baseline: str, min_size: int, ci: float
                      ) -> dict[tuple[str, str, str], tuple[Any, Any]]:
        """The regression task's paired intervals of each candidate's mean absolute and
        squared error differences to ``baseline``: both models' kept errors are of the
        same rows in the same order (every batch, slice and partition feeds every model
        alike), so each row's difference is at hand."""
        out: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        st = _REGRESSION_STATE
        if (baseline, st) not in self.whole:
            return out
        theirs = self._accumulators(baseline, st, min_size)
        for m in self.models:
            if m.name == baseline or (m.name, st) not in self.whole:
                continue
            for (sd, a), (_, b) in zip(self._accumulators(m.name, st, min_size), theirs):
                if a.state is None or b.state is None:
                    continue
                for name, bounds in paired_error_intervals(a.state, b.state, ci).items():
                    out[(m.name, name, _slice_text(sd))] = bounds
        return out

    def _per_class(self, model: str, sl: tuple[str, ...], sdict: dict[str, Any],
                   acc: Accumulator | None) -> list[dict[str, Any]]:
        """Precision, recall and F1 of each class (multiclass) or label (multilabel: named
        by its true column)."""
        if self.task not in ("multiclass", "multilabel") or acc is None or acc.state is None:
            return []
        multilabel = self.task == "multilabel"
        p, r, f, _ = acc.precision_recall_fscore_support(  # type: ignore[attr-defined]
            average=None, zero_division=0, labels=None if multilabel else self.classes)
        names = self.label_columns if multilabel else np.asarray(self.classes).tolist()
        out = []
        for i, c in enumerate(cast("Sequence[Any]", names)):
            for name, arr in zip(_PER_CLASS, (p, r, f)):
                out.append({"model": model, "slicing": sl, "slice": sdict,
                            "metric": f"{name}[{c}]", "value": float(arr[i]),
                            "ci_low": None, "ci_high": None, "n": acc.n_samples})
        return out


_BATCH = {row.name: row.batch for row in _table.METRICS if row.batch is not None}
#: the plan's key of a candidate's labels counted jointly with the baseline's
_PAIRED = ("paired", ())
#: the regression task's accumulator (kept errors: the median, and the normal intervals)
_REGRESSION_STATE = ("regression", ())
_RANKING_STATE = ("ranking", ())
#: the metrics that are the mean of a per-row loss (intervals of that mean)
_ROW_LOSSES = ("log_loss", "brier_score", "mean_absolute_percentage_error")
#: the state keys of a model's per-row losses and of its per-row differences to the
#: baseline's (regression sums of those values)
_LOSS = "row_loss"
_LOSS_DELTA = "row_loss_delta"
#: the position of each in :func:`prfs_batch`'s result
_PRF_PARTS = {"precision_score": 0, "recall_score": 1, "f1_score": 2}
#: binary metrics of one class, told which is positive
_POSITIVE = frozenset({"precision_score", "recall_score", "f1_score"})


#: the placements a second read looks scores up in, at most (beyond: the whole table's
#: ROC AUC difference only, not each slice's)
_PAIRING_BYTES = 1 << 28


class SecondRead:
    """Sums that a second read of the table adds row by row, over segments (the whole
    table, then each slice of each slicing, in the order of the grouped accumulators'
    keys, which every model shares), from what the first read found: interval inputs that
    need each row beside a number known only once every row is in. The engines read
    :meth:`columns` once more and :meth:`feed` each batch; a partition's are
    :meth:`zeroed` copies, added up by :meth:`summed` (``cross``: every sum, by key)."""

    def __init__(self, plan: Plan, model: str, state: Any) -> None:
        units: list[tuple[tuple[str, ...], list[Any]]] = [((), [None])]
        units += [(sl, plan.grouped[(model, state, sl)].keys()) for sl in plan.slicings]
        self.slicings = [sl for sl, _ in units]
        # each slicing's key -> its segment
        self.index = [{(k if isinstance(k, tuple) else (k,)): j for j, k in enumerate(keys)}
                      for _, keys in units]
        self.keys = [keys for _, keys in units]
        self.cross: dict[Any, np.ndarray] = {}
        #: the models read, by name -> score column
        self.score_of: dict[str, str] = {}

    def columns(self, y_true: str) -> list[str]:
        """The columns :meth:`feed` reads: the true one, the slices', then each of
        ``self.score_of``'s models' score column."""
        cols = [y_true, *(c for sl in self.slicings for c in sl), *self.score_of.values()]
        return list(dict.fromkeys(cols))

    def feed(self, batch: Mapping[str, Any], y_true: str) -> None:
        """Add a batch's rows to the sums."""
        raise NotImplementedError

    def intervals(self, level: float, min_size: int
                  ) -> dict[tuple[str, str, str], tuple[Any, Any]]:
        """The candidates' paired intervals: ``(model, metric, slice text) -> (low,
        high)``."""
        raise NotImplementedError

    def standard_errors(self, min_size: int) -> dict[tuple[str, str, str], float]:
        """The standard errors of the models' own values: ``(model, metric, slice text)
        -> standard error`` (none by default)."""
        return {}

    def _segments(self, batch: Mapping[str, Any], u: int, n: int) -> np.ndarray:
        """Each row's segment in unit ``u`` (-1: a slice the first read did not see)."""
        sl = self.slicings[u]
        if not sl:
            return np.zeros(n, dtype=np.int64)
        g = group_keys(batch[sl[0]] if len(sl) == 1 else {c: batch[c] for c in sl}, n)
        where = np.array([self.index[u].get(k, -1) for k in
                          zip(*(k.tolist() for k in g.keys))], dtype=np.int64)
        seg: np.ndarray = where[g.codes]
        return seg

    def _slice(self, u: int, j: int) -> dict[str, Any]:
        sl, key = self.slicings[u], self.keys[u][j]
        return {} if not sl else dict(zip(sl, key if isinstance(key, tuple) else (key,)))

    def zeroed(self) -> SecondRead:
        """A copy with its sums at zero (what the first read found shared): a
        partition's."""
        out = copy.copy(self)
        out.cross = {k: np.zeros_like(v) for k, v in self.cross.items()}
        return out

    def summed(self, parts: Sequence[SecondRead]) -> SecondRead:
        """A copy whose sums are those of ``parts`` (of other rows each) added."""
        out = self.zeroed()
        for p in parts:
            for k, v in p.cross.items():
                out.cross[k] += v
        return out


class AucPairing(SecondRead):
    """The paired DeLong intervals of each candidate's ROC AUC difference to the
    baseline's, whole table and every slice, from a second read of the label and score
    columns: the first read's exact ranking states give each distinct score's placement
    (:class:`Placements`), and each row of the second read adds the product of its two
    models' centred placements to its segment's sums (positives and negatives apart)."""

    def __init__(self, plan: Plan, baseline: str, candidates: list[_Model]) -> None:
        super().__init__(plan, baseline, _RANKING_STATE)
        assert plan.sides is not None
        self.pos, self.baseline, self.candidates = plan.sides[1], baseline, candidates
        self.task_models = {m.name: m for m in plan.models}
        # the score column of the baseline, then of each candidate (the binary task's
        # positive column of probabilities)
        self.score_of = {m.name: m.score if m.score is not None else m.probs[-1]
                         for m in (self.task_models[baseline], *candidates)}
        st = _RANKING_STATE
        models = [self.task_models[baseline], *candidates]
        states = {(m.name, u): [plan.whole[(m.name, st)].state] if not sl else
                  [plan.grouped[(m.name, st, sl)][k].state for k in keys]
                  for m in models for u, (sl, keys) in enumerate(zip(self.slicings,
                                                                     self.keys))}
        # 3 numbers a distinct score of a state (its score and two placements)
        size = sum(24 * s.thresholds.shape[0] for (_, u), got in states.items() if u
                   for s in got if s is not None)
        if size > _PAIRING_BYTES:  # the whole table's placements only
            warnings.warn(
                f"the slices' paired ROC AUC intervals would look rows up in {size >> 20} MiB "
                f"of placements (over {_PAIRING_BYTES >> 20} MiB): the whole table's "
                "roc_auc:delta gets its paired interval, the slices' none", RuntimeWarning,
                stacklevel=2)
            self.slicings = self.slicings[:1]
            states = {k: v for k, v in states.items() if k[1] == 0}
        self.placements = {k: Placements(v, self.pos) for k, v in states.items()}
        # (candidate, unit) -> the sums of products over each segment's negatives, then
        # positives: 2 x segments
        self.cross = {(c.name, u): np.zeros(2 * len(self.keys[u]))
                      for c in candidates for u in range(len(self.slicings))}

    def feed(self, batch: Mapping[str, Any], y_true: str) -> None:
        y = _values_of(batch[y_true])
        n = y.shape[0]
        if n == 0:
            return
        positive = y == self.pos
        scores = {name: np.asarray(batch[col]) for name, col in self.score_of.items()}
        for u in range(len(self.slicings)):
            seg = self._segments(batch, u, n)
            # a slice of one class has no AUC, so no placements: its rows add nothing (a
            # slice the first read did not see stays, for the lookup to refuse)
            has = np.diff(self.placements[(self.baseline, u)].offsets) > 0
            keep = (seg < 0) | has[np.maximum(seg, 0)]
            rows: Any = slice(None) if keep.all() else np.flatnonzero(keep)
            seg_u, pos_u = seg[rows], positive[rows]
            base = self.placements[(self.baseline, u)].centred(
                seg_u, scores[self.baseline][rows], pos_u)
            at = 2 * seg_u + pos_u
            size = 2 * len(self.keys[u])
            for c in self.candidates:
                mine = self.placements[(c.name, u)].centred(seg_u, scores[c.name][rows], pos_u)
                mine *= base
                self.cross[(c.name, u)] += np.bincount(at, weights=mine, minlength=size)

    def intervals(self, level: float, min_size: int
                  ) -> dict[tuple[str, str, str], tuple[Any, Any]]:
        out: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        for c in self.candidates:
            for u, sl in enumerate(self.slicings):
                base, mine = self.placements[(self.baseline, u)], self.placements[(c.name, u)]
                sums = self.cross[(c.name, u)]
                for j in range(len(self.keys[u])):
                    if sl and int(base.m[j] + base.n[j]) < min_size:
                        continue
                    got = paired_interval(base, mine, j, float(sums[2 * j + 1]),
                                          float(sums[2 * j]), level)
                    if got is not None:
                        out[(c.name, "roc_auc", _slice_text(self._slice(u, j)))] = got
        return out


class SpreadRatios(SecondRead):
    """The delta method's intervals of R² (``1 - MSE / Var(y)``) and explained variance
    (``1 - Var(e) / Var(y)``), whole table and every slice, and of each candidate's
    differences to the baseline's. Each row's influence on a ratio (its first-order
    effect, from the first read's means and spreads: for R², ``-(e**2 - MSE) / V + MSE
    ((y - mean y)**2 - V) / V**2`` with ``V = Var(y)``; for explained variance the same
    with the centred error) is computed in a second read of the target and prediction
    columns, and its square summed per segment: the ratio's standard error is
    ``sqrt(sum) / n``, a candidate's difference's that of each row's difference of the
    two models' influences. Centred on the first read's means, the sums need no
    cancelling of large terms."""

    METRICS = ("r2", "explained_variance")

    def __init__(self, plan: Plan, models: list[_Model], baseline: str | None) -> None:
        st = _REGRESSION_STATE
        super().__init__(plan, models[0].name, st)
        self.models = models
        self.baseline = baseline if baseline in {m.name for m in models} else None
        self.score_of = {m.name: cast(str, m.score) for m in models}
        # (model, unit) -> (n, MSE, mean y, Var y, mean e, Var e) of each segment
        self.moments: dict[tuple[str, int], np.ndarray] = {}
        for m in models:
            for u, (sl, keys) in enumerate(zip(self.slicings, self.keys)):
                got = [plan.whole[(m.name, st)].state] if not sl else \
                    [plan.grouped[(m.name, st, sl)][k].state for k in keys]
                v = np.stack([g.sums for g in got])
                n = v[:, kernel_sums.N]
                self.moments[(m.name, u)] = np.stack([
                    n, v[:, kernel_sums.SQ] / n, v[:, kernel_sums.MEAN],
                    v[:, kernel_sums.M2] / n, v[:, kernel_sums.MEANE],
                    v[:, kernel_sums.M2E] / n])
        # (model, unit) -> each segment's sums of squared influences: R², explained
        # variance, then (a candidate's) those of their differences to the baseline's
        self.cross = {(m.name, u): np.zeros(4 * len(self.keys[u]))
                      for m in models for u in range(len(self.slicings))}

    def feed(self, batch: Mapping[str, Any], y_true: str) -> None:
        y = _float_column(batch[y_true])
        n = y.shape[0]
        if n == 0:
            return
        preds = {m.name: _float_column(batch[self.score_of[m.name]]) for m in self.models}
        order = sorted(self.models, key=lambda m: m.name != self.baseline)  # baseline first
        psi = {m.name: np.empty((2, n)) for m in order}
        for u in range(len(self.slicings)):
            seg = self._segments(batch, u, n)
            for m in order:
                has_base = self.baseline is not None and m.name != self.baseline
                bad = kernel_sums.ratio_influences(
                    seg, y, preds[m.name], self.moments[(m.name, u)], self.cross[(m.name, u)],
                    psi[m.name], psi[cast(str, self.baseline)] if has_base else psi[m.name],
                    has_base)
                if bad >= 0:
                    raise ValueError("a second read of the table found a slice the first "
                                     "did not count: the table changed between the reads")

    def _each(self, model: str, u: int, min_size: int, delta: bool
              ) -> Iterator[tuple[str, str, float, float]]:
        """``(metric, slice text, standard error, ratio)`` of each segment of unit ``u``
        with two rows or more (``min_size`` or more for slices) and spread targets; the
        standard error of the difference to the baseline with ``delta``."""
        n, mse, _, var_y, _, var_e = self.moments[(model, u)]
        sums = self.cross[(model, u)]
        size = len(self.keys[u])
        for j in range(size):
            if n[j] < 2 or var_y[j] <= 0 or (self.slicings[u] and n[j] < min_size):
                continue
            text = _slice_text(self._slice(u, j))
            for i, (metric, loss) in enumerate(zip(self.METRICS, (mse, var_e))):
                at = (2 * delta + i) * size + j
                yield (metric, text, math.sqrt(float(sums[at])) / float(n[j]),
                       1.0 - float(loss[j]) / float(var_y[j]))

    def standard_errors(self, min_size: int) -> dict[tuple[str, str, str], float]:
        return {(m.name, metric, text): se
                for m in self.models for u in range(len(self.slicings))
                for metric, text, se, _ in self._each(m.name, u, min_size, False)}

    def intervals(self, level: float, min_size: int
                  ) -> dict[tuple[str, str, str], tuple[Any, Any]]:
        out: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        if self.baseline is None:
            return out
        z = NormalDist().inv_cdf(0.5 + level / 2)
        for m in self.models:
            if m.name == self.baseline:
                continue
            for u in range(len(self.slicings)):
                base = {(metric, text): ratio for metric, text, _, ratio
                        in self._each(self.baseline, u, min_size, False)}
                for metric, text, se, ratio in self._each(m.name, u, min_size, True):
                    if (metric, text) in base:
                        d = ratio - base[(metric, text)]
                        out[(m.name, metric, text)] = (d - z * se, d + z * se)
        return out


def _float_column(col: Any) -> np.ndarray:
    """A column of numbers as float32 or float64 (the kernels' types; others converted)."""
    a = _values_of(col)
    return a if a.dtype in (np.float32, np.float64) else a.astype(np.float64)


def _batch_or_none(s: _MetricSpec, state: Any, tables: np.ndarray, kw: dict[str, Any],
                   shared: dict[Any, Any] | None = None) -> np.ndarray | None:
    """The metric of every table at once by the table row's vectorised derivation (the
    tables: of ``state``'s labels), or None where it has none or declines. Precision,
    recall and F1 of one set of tables and arguments share one pass (kept in ``shared``)."""
    part = _PRF_PARTS.get(s.method)
    if part is not None and shared is not None:
        kw = {"average": "binary", **kw}  # the default of precision_score and the others
        key = tuple(sorted(kw.items()))
        if key not in shared:
            shared[key] = prfs_batch(state, tables, **kw)
        both = shared[key]
        return None if both is None else np.asarray(both[part], dtype=np.float64)
    fn = _BATCH.get(s.method)
    values = None if fn is None else fn(state, tables, **kw)
    return None if values is None else np.asarray(values, dtype=np.float64)


def _batch(s: _MetricSpec, state: Any, tables: np.ndarray,
           kw: dict[str, Any]) -> np.ndarray:
    """The metric of every resampled table of ``state`` at once; one table at a time where
    the vectorised derivation declines."""
    values = _batch_or_none(s, state, tables, kw)
    if values is None:
        derive = next(r.derive for r in _table.METRICS if r.name == s.method)
        values = np.array([derive(replicate(state, t.reshape(-1)), **kw) for t in tables],
                          dtype=np.float64)
    return values


def _percentile(values: np.ndarray, level: float) -> tuple[float | None, float | None]:
    """The percentile interval of resampled values (NaN resamples left out)."""
    v = values[~np.isnan(values)]
    if v.shape[0] == 0:
        return None, None
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(v, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def _check_relevance(y: np.ndarray, name: str) -> None:
    """The ranking task's true column: non-negative, finite numbers (the gains)."""
    if y.dtype.kind not in "iufb":
        raise ValueError(f"the ranking task's true column {name!r} must hold relevance "
                         f"numbers, got {y.dtype}")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"the true column {name!r} holds NaN or infinity")
    if y.shape[0] and np.min(y) < 0:
        raise ValueError(f"the true column {name!r} holds negative relevance")


def _margin_tables(d: np.ndarray, t: np.ndarray, p: np.ndarray,
                   counts: np.ndarray) -> np.ndarray:
    """One model's confusion tables ``(n_resamples, K', K')`` of resampled joint cells ``d``
    (``(n_resamples, nnz)``; cell ``c`` at true position ``t[c]``, predicted ``p[c]``),
    over the labels that model's margin of ``counts`` holds (as
    ``PairedConfusionState.marginal`` lays them out): the joint cells of one (true,
    predicted) pair summed, O(n_resamples x nnz)."""
    k = int(max(t.max(), p.max())) + 1
    flat = t * k + p
    order = np.argsort(flat, kind="stable")
    cells, starts = np.unique(flat[order], return_index=True)
    full = np.zeros((d.shape[0], k * k), dtype=np.int64)
    full[:, cells] = np.add.reduceat(d[:, order], starts, axis=1)
    cm = np.bincount(flat, weights=counts, minlength=k * k).reshape(k, k)
    keep = np.flatnonzero((cm.sum(axis=1) != 0) | (cm.sum(axis=0) != 0))
    tables = full.reshape(-1, k, k)
    if keep.shape[0] == k:
        return tables
    return np.ascontiguousarray(tables[:, keep][:, :, keep])


def _margins(d: np.ndarray, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Resampled counts of a sparse joint table's cells ``d`` (B, nnz) summed by one side's
    value (``index``: each cell's place in ``values``): (B, len(values))."""
    out = np.zeros((d.shape[0], values.shape[0]), dtype=np.int64)
    order = np.argsort(index, kind="stable")
    idx = index[order]
    starts = np.flatnonzero(np.r_[True, idx[1:] != idx[:-1]])
    out[:, idx[starts]] = np.add.reduceat(d[:, order], starts, axis=1)
    return out


def _percentiles(values: np.ndarray, level: float) -> list[tuple[float | None, float | None]]:
    """:func:`_percentile` of each row of ``values`` (rows without NaN in one call)."""
    bad = np.isnan(values).any(axis=1)
    out: list[tuple[float | None, float | None]] = [(None, None)] * values.shape[0]
    good = np.flatnonzero(~bad)
    if good.shape[0]:
        alpha = (1.0 - level) / 2.0
        q = np.quantile(values[good], [alpha, 1.0 - alpha], axis=1)
        for j, lo, hi in zip(good.tolist(), q[0].tolist(), q[1].tolist()):
            out[j] = (lo, hi)
    for j in np.flatnonzero(bad).tolist():
        out[j] = _percentile(values[j], level)
    return out


def _binary_sides(classes: np.ndarray | None) -> tuple[Any, Any]:
    """(negative, positive) labels of a binary task: {0, 1} and {-1, 1} (or one of them
    alone) as scikit-learn reads them, else the two sorted classes (the greater positive);
    a single class of other values cannot tell which side it is."""
    values = [] if classes is None else [v.item() if isinstance(v, np.generic) else v
                                         for v in classes.tolist()]
    if len(values) > 2:
        raise ValueError(f"a binary task has at most two classes, got {len(values)}")
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) or
                  isinstance(v, bool) for v in values)
    if numeric and set(values) <= {0, 1}:
        return (False, True) if values and all(isinstance(v, bool) for v in values) else (0, 1)
    if numeric and set(values) <= {-1, 1}:
        return (-1, 1)
    if len(values) == 2:
        return values[0], values[1]
    raise ValueError(f"the true column holds one class ({values[0]!r}): a binary task "
                     "needs to know its other class (labels 0/1 or -1/1, or both classes)")


def _is_dask_frame(data: Any) -> bool:
    return type(data).__module__.partition(".")[0] == "dask" and hasattr(data, "npartitions")


def _partition_plan(part: Any, template: Plan, needed: list[str], y_true: str | Sequence[str],
                    weight: str | None) -> Plan:
    """One Dask partition (a pandas frame) fed to a copy of the empty plan (on a worker)."""
    plan: Plan = pickle.loads(pickle.dumps(template))  # a fresh set of empty accumulators
    if len(part):
        plan.update({c: part[c] for c in needed}, y_true, weight)
    return plan


def _merge_plans(*plans: Plan) -> Plan:
    return Plan.merge_all(plans)


def _dask_tree(df: Any, columns: list[str], build: Callable[..., Any],
               merge: Callable[..., Any], *args: Any, split_every: int = 8) -> Any:
    """One value per partition of ``df[columns]`` (``build(part, *args)``, where the
    partition lives), combined by ``merge(*values)`` in a tree of ``split_every`` values a
    task; one graph run."""
    import importlib

    dask: Any = importlib.import_module("dask")  # a Dask frame was given: dask is there
    parts = df[columns].to_delayed()
    built = dask.delayed(build, pure=False)
    merged = dask.delayed(merge, pure=False)
    level = [built(p, *args) for p in parts]
    while len(level) > 1:
        level = [merged(*level[i:i + split_every]) for i in range(0, len(level), split_every)]
    return level[0].compute()


def _dask_plan(df: Any, template: Plan, needed: list[str], y_true: str | Sequence[str],
               weight: str | None) -> Plan:
    """The plan of a Dask frame: one per partition, merged in a tree."""
    out: Plan = _dask_tree(df, list(dict.fromkeys(needed)), _partition_plan, _merge_plans,
                           template, needed, y_true, weight)
    return out


def _partition_second_read(part: Any, template: SecondRead, y_true: str) -> SecondRead:
    """One Dask partition's second-read sums (on a worker), added to a copy of zeroed
    ones."""
    second = template.zeroed()
    if len(part):
        second.feed({c: part[c] for c in template.columns(y_true)}, y_true)
    return second


def _summed_second_reads(*parts: SecondRead) -> SecondRead:
    return parts[0].summed(parts)


def _dask_second_read(df: Any, template: SecondRead, y_true: str) -> SecondRead:
    """The second read of a Dask frame: each partition's sums, added in a tree."""
    out: SecondRead = _dask_tree(df, template.columns(y_true), _partition_second_read,
                                 _summed_second_reads, template, y_true)
    return out


def _indicators(batch: Mapping[str, Any], columns: Sequence[str], owner: str,
                threshold: float | None) -> np.ndarray:
    """The multilabel task's (n, L) 0/1 matrix of a batch's columns, one per label: 0/1
    integers, bools or floats; a model's float columns are scores, predicted 1 at
    ``threshold`` or above (``threshold`` None: the true columns, whose floats must be 0
    or 1)."""
    parts = [_values_of(batch[c]) for c in columns]
    out = np.empty((parts[0].shape[0], len(parts)), dtype=np.uint8)
    for j, (c, v) in enumerate(zip(columns, parts)):
        if v.dtype.kind == "f" and threshold is not None:
            if np.isnan(v).any():
                raise ValueError(f"{owner} column {c!r} contains NaN")
            np.greater_equal(v, threshold, out=out[:, j])
            continue
        if v.dtype.kind not in "iubf":
            raise ValueError(f"{owner} column {c!r} is not numeric: the multilabel task's "
                             "columns hold 0/1 (or a model's scores)")
        if v.dtype.kind != "b" and not np.isin(v, (0, 1)).all():
            what = "NaN" if v.dtype.kind == "f" and np.isnan(v).any() else \
                "values other than 0 and 1"
            raise ValueError(f"{owner} column {c!r} contains {what} (the multilabel task's "
                             "label columns hold 0/1)")
        np.not_equal(v, 0, out=out[:, j])
    return out


def _check_probabilities(x: np.ndarray, m: _Model) -> None:
    lo, hi = float(np.min(x)), float(np.max(x))
    if not (0.0 <= lo and hi <= 1.0):
        raise ValueError(f"model {m.name!r}: probabilities must lie in [0, 1], got values "
                         f"in [{lo:.6g}, {hi:.6g}]")


def _add_deltas(ev: Evaluation, baseline: str,
                intervals: Mapping[tuple[str, str, str], tuple[Any, Any]]) -> None:
    """A ``metric:delta`` row per candidate row (its value minus the baseline's), with the
    paired interval of the difference where ``intervals`` has one."""
    base = {(r["metric"], _slice_text(r["slice"])): r for r in ev.rows if r["model"] == baseline}
    extra = []
    for r in ev.rows:
        if r["model"] == baseline or "[" in r["metric"]:
            continue
        b = base.get((r["metric"], _slice_text(r["slice"])))
        if b is None:
            continue
        lo, hi = intervals.get((r["model"], r["metric"], _slice_text(r["slice"])),
                               (None, None))
        extra.append({**r, "metric": r["metric"] + ":delta", "value": r["value"] - b["value"],
                      "ci_low": lo, "ci_high": hi})
    ev.rows += extra


def _check_gates(ev: Evaluation, gates: list[Gate], baseline: str | None, slices: bool,
                 min_size: int) -> list[dict[str, Any]]:
    out = []
    index = {(r["model"], r["metric"], _slice_text(r["slice"])): r for r in ev.rows}
    for g in gates:
        spec = _spec_of(ev.task, g.metric)
        better_high = spec is None or spec.higher_is_better
        targets = [m for m in ev.models if g.kind == "value" or m != baseline]
        wheres = [{}] if not slices else [{}] + [
            r["slice"] for r in ev.rows if r["slice"] and r["metric"] == g.metric
            and r["model"] == ev.models[0] and r["n"] >= min_size]
        for model in targets:
            for where in wheres:
                r = index.get((model, g.metric, _slice_text(where)))
                if r is None:  # a gate that cannot be checked does not pass
                    out.append({"gate": g.text, "model": model, "slice": where,
                                "value": None, "passed": False,
                                "reason": f"{g.metric} was not computed for this model"})
                    continue
                value = r["value"]
                if g.kind == "value":
                    passed, reason = _compare(value, g), f"{g.metric} = {_fmt(value)}"
                else:
                    b = index.get((baseline, g.metric, _slice_text(where)))
                    if b is None:
                        continue
                    base = b["value"]
                    if g.kind == "delta":
                        d = value - base
                        passed, reason = _compare(d, g), f"delta = {_fmt(d)}"
                    elif g.kind == "rel":
                        d = (value - base) / abs(base) if base else float("nan")
                        passed, reason = _compare(d, g), f"relative change = {_fmt(d)}"
                    else:
                        d = index.get((model, g.metric + ":delta", _slice_text(where)))
                        if d is not None and d["ci_low"] is not None:
                            # the paired interval of the difference
                            lo, hi = d["ci_low"], d["ci_high"]
                            passed = lo > 0 if better_high else hi < 0
                            reason = (f"delta = {_fmt(d['value'])} [{_fmt(lo)}, {_fmt(hi)}] "
                                      "(paired)")
                            out.append({"gate": g.text, "model": model, "slice": where,
                                        "value": value, "passed": bool(passed),
                                        "reason": reason})
                            continue
                        lo, hi = r["ci_low"], r["ci_high"]
                        if lo is None:
                            passed, reason = False, (
                                "no interval: pass ci= (intervals come from unweighted "
                                "rows, for the metrics of labels, ROC AUC and the mean "
                                "errors)")
                        else:
                            passed = lo > base if better_high else hi < base
                            reason = (f"{_fmt(value)} [{_fmt(lo)}, {_fmt(hi)}] vs baseline "
                                      f"{_fmt(base)}")
                out.append({"gate": g.text, "model": model, "slice": where, "value": value,
                            "passed": bool(passed), "reason": reason})
    return out


def _compare(v: Any, g: Gate) -> bool:
    if v is None or _isnan(v):
        return False
    assert g.op is not None and g.bound is not None
    return _OPS[g.op](float(v), g.bound)

