"""The harness report card: ``score`` -> :class:`ClassificationMetrics`, OOS metrics and the
markdown results row.

Everything in a report card comes from one counting pass (one confusion state).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._state import confusion_state
from .classification import _accuracy_from_state, _prfs_from_state, _with_labels

__all__ = [
    "RESULTS_HEADER",
    "ClassificationMetrics",
    "PerClassMetrics",
    "flatten",
    "format_metrics_row",
    "oos_precision_recall",
    "score",
]


def _py(v):
    """numpy scalar -> Python scalar (labels keep their type: int, float, str, bool)."""
    return v.item() if isinstance(v, np.generic) else v


@dataclass(frozen=True)
class PerClassMetrics:
    """Precision, recall, F1 and support of one class."""

    precision: float
    recall: float
    f1: float
    support: float


@dataclass
class ClassificationMetrics:
    """Quality report card of a classifier on one evaluation set.

    Attributes
    ----------
    accuracy, macro_f1, weighted_f1, micro_f1 : float
    per_class : dict label -> PerClassMetrics
    labels : list
        The pinned label vocabulary (order of ``confusion_matrix`` rows and columns).
    confusion_matrix : ndarray (K, K)
    oos_recall, oos_precision : float or None
        Out-of-scope (abstain label) recall and precision; None when no ``oos_label``.
        0.0 when their denominator is 0 (the reference harness's rule).
    n_examples : int
    """

    accuracy: float
    macro_f1: float
    weighted_f1: float = 0.0
    micro_f1: float = 0.0
    per_class: dict = field(default_factory=dict)
    labels: list = field(default_factory=list)
    confusion_matrix: Any = None
    oos_recall: float | None = None
    oos_precision: float | None = None
    n_examples: int = 0

    @property
    def per_class_f1(self) -> dict:
        """label -> F1 (the reference harness's field)."""
        return {k: v.f1 for k, v in self.per_class.items()}

    def as_row(self, digits: int = 4) -> dict:
        """Flat dict of the headline numbers, rounded (for CSV / tables / dashboards)."""

        def r(v):
            return None if v is None else round(float(v), digits)

        return {
            "accuracy": r(self.accuracy),
            "macro_f1": r(self.macro_f1),
            "weighted_f1": r(self.weighted_f1),
            "micro_f1": r(self.micro_f1),
            "oos_recall": r(self.oos_recall),
            "oos_precision": r(self.oos_precision),
            "n_examples": int(self.n_examples),
        }

    def to_flat_dict(self) -> dict:
        """Every number under a dot key: ``per_class.3.f1``, ``confusion_matrix.0.1``...

        Examples
        --------
        >>> import fastmetrics as skm
        >>> m = skm.score([0, 1, 1], [0, 1, 0])
        >>> m.to_flat_dict()["per_class.1.recall"]
        0.5
        """
        out = {
            "accuracy": self.accuracy,
            "macro_f1": self.macro_f1,
            "weighted_f1": self.weighted_f1,
            "micro_f1": self.micro_f1,
            "oos_recall": self.oos_recall,
            "oos_precision": self.oos_precision,
            "n_examples": self.n_examples,
        }
        for lab, pc in self.per_class.items():
            for k in ("precision", "recall", "f1", "support"):
                out[f"per_class.{lab}.{k}"] = getattr(pc, k)
        if self.confusion_matrix is not None:
            cm = np.asarray(self.confusion_matrix)
            for i in range(cm.shape[0]):
                for j in range(cm.shape[1]):
                    out[f"confusion_matrix.{i}.{j}"] = _py(cm[i, j])
        return out


def _oos_from_state(state, oos_label):
    st, idx = _with_labels(state, [oos_label])
    i = int(idx[0])
    cm = st.cm
    tp = cm[i, i]
    true_oos = cm[i, :].sum()
    pred_oos = cm[:, i].sum()
    recall = float(tp / true_oos) if true_oos else 0.0
    precision = float(tp / pred_oos) if pred_oos else 0.0
    return recall, precision


def oos_precision_recall(y_true, y_pred, oos_label, *, sample_weight=None):
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
    state = confusion_state(y_true, y_pred, sample_weight)
    recall, precision = _oos_from_state(state, oos_label)
    return precision, recall


def score(y_true, y_pred, *, labels=None, oos_label=None, sample_weight=None, n_threads=None):
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
    state = confusion_state(y_true, y_pred, sample_weight, n_threads=n_threads)
    return _card_from_state(state, labels, oos_label)[0]


def _card_from_state(state, labels, oos_label):
    """The report card of a confusion state, plus what a full report table prints.

    Returns ``(metrics, (p, r, f, support), averages)`` where ``averages`` maps 'micro',
    'macro' and 'weighted' to their (precision, recall, F1) with ``zero_division=0``.
    """
    if labels is None:
        lab = state.present_labels
    else:
        lab = np.asarray(labels).reshape(-1)
        if lab.size == 0:
            raise ValueError("labels must contain at least one label")
    st, idx = _with_labels(state, lab)
    lab = st.values[idx]
    p, r, f, s = _prfs_from_state(st, labels=lab, average=None, zero_division=0)
    averages = {a: _prfs_from_state(st, labels=lab, average=a, zero_division=0)[:3]
                for a in ("micro", "macro", "weighted")}
    per_class = {
        _py(v): PerClassMetrics(float(p[i]), float(r[i]), float(f[i]), _py(s[i]))
        for i, v in enumerate(lab)
    }
    oos_recall = oos_precision = None
    if oos_label is not None:
        oos_recall, oos_precision = _oos_from_state(st, oos_label)
    cm = st.cm[np.ix_(idx, idx)]
    if not st.weighted or st.int_weights:
        cm = cm.astype(np.int64)
    metrics = ClassificationMetrics(
        accuracy=_accuracy_from_state(st),
        macro_f1=float(averages["macro"][2]),
        weighted_f1=float(averages["weighted"][2]),
        micro_f1=float(averages["micro"][2]),
        per_class=per_class,
        labels=[_py(v) for v in lab],
        confusion_matrix=cm,
        oos_recall=oos_recall,
        oos_precision=oos_precision,
        n_examples=int(st.n_samples),
    )
    return metrics, (p, r, f, s), averages


RESULTS_HEADER = (
    "| name | accuracy | macro_f1 | oos_recall | p50_ms | p95_ms |\n"
    "|---|---|---|---|---|---|\n"
)
"""Header of the append-only results log whose rows :func:`format_metrics_row` writes."""


def format_metrics_row(name, metrics, latency=None, cost_per_1k=None, params=None) -> str:
    """One markdown table row for an append-only results log (``RESULTS.md``).

    Columns: name, accuracy, macro F1, OOS recall (4 decimals), p50 and p95 latency in ms
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

    cells = [
        str(name),
        fmt(metrics.accuracy),
        fmt(metrics.macro_f1),
        fmt(metrics.oos_recall),
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
            _flatten_into(out, v, _join(key, _py(k)))
    elif isinstance(obj, np.ndarray) and obj.ndim > 0:
        for idx in np.ndindex(obj.shape):
            _flatten_into(out, obj[idx], _join(key, ".".join(map(str, idx))))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _flatten_into(out, v, _join(key, i))
    else:
        v = obj.item() if isinstance(obj, (np.generic, np.ndarray)) else obj
        out[key if key else "value"] = v
