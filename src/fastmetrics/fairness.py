"""Metrics per group (fairness): one counting pass into a (group x K x K) confusion state.

``group_metrics(y_true, y_pred, groups, metric="accuracy")`` gives the metric within each
group, over all samples (``global_value``), the worst group, the fairness gap (max - min over
groups) and each group's disparity (its value minus the global value).

Each group's value equals the scikit-learn metric on that group's samples alone (labels are
those present in the group's ``y_true`` or ``y_pred``, as scikit-learn's default), with
``zero_division=0`` for precision/recall/F1. Labels and groups of any integer dtype are read in
place when their value ranges are small (labels within 1,024 values, groups within 65,536);
other labels or groups (strings, objects, wide ranges) are encoded once with ``np.unique``
first. Labels are checked as by :func:`accuracy_score`: floats must hold integers (they are
converted to int64), and strings do not mix with numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._kernels import confusion as _confusion
from ._state import ConfusionState, _mix_msg, _prepare, common_int
from ._threads import resolve_n_threads
from ._validation import as_1d, native
from .classification import _accuracy_from_state, _balanced_from_state, _prfs_from_state
from .report import _py

__all__ = ["GROUP_METRICS", "GroupMetrics", "group_metrics"]

_INT_CHARS = frozenset("bhilqBHILQ")
_MAX_LABEL_RANGE = 1024
_MAX_GROUP_RANGE = 1 << 16
_MAX_CELLS = 1 << 24  # G * K * K cells of one table (128 MiB of int64): above, refuse
_LANE_MIN = 1 << 16
_MAX_LANES = 16
_PARALLEL_MIN = 1 << 22  # samples; below, a second thread costs more than it saves


def _prf(average, which):
    def f(st):
        return float(_prfs_from_state(st, average=average, zero_division=0, need="prf")[which])

    return f


#: metric name -> function of a ConfusionState (higher is better for all of them)
GROUP_METRICS = {
    "accuracy": _accuracy_from_state,
    "balanced_accuracy": _balanced_from_state,
    "f1_macro": _prf("macro", 2),
    "f1_weighted": _prf("weighted", 2),
    "f1_micro": _prf("micro", 2),
    "precision_macro": _prf("macro", 0),
    "recall_macro": _prf("macro", 1),
}


def metric_fn(metric: str):
    """The function of a ConfusionState that :data:`GROUP_METRICS` names ``metric``, or
    ValueError listing the names."""
    fn = GROUP_METRICS.get(metric) if isinstance(metric, str) else None
    if fn is None:
        raise ValueError(f"metric must be one of {sorted(GROUP_METRICS)}, got {metric!r}")
    return fn


@dataclass(frozen=True)
class GroupMetrics:
    """One metric per group, over all samples, and how far apart the groups are.

    Attributes
    ----------
    metric : str
    per_group : dict group -> float
        In sorted group order. Groups are the distinct values of ``groups``, so each has at
        least one sample: there is no empty group (a group that should be there but has no
        sample is simply absent; compare ``per_group`` keys with the expected groups).
    global_value : float
        The metric over every sample (not the mean of the groups).
    worst_group : group label
        The group with the lowest value (the first in sorted order on ties).
    best_group : group label
    gap : float
        ``max(per_group) - min(per_group)``; 0 = every group scores the same.
    disparities : dict group -> float
        ``per_group[g] - global_value``: positive above, negative below the global value.
    n_per_group : dict group -> int
        Samples in each group.
    confusion : ndarray (G, K, K) of int64
        The state: ``confusion[g, i, j]`` counts samples of group ``g`` with true label
        ``labels[i]`` predicted ``labels[j]``.
    labels : ndarray (K,)
        Sorted labels present in ``y_true`` or ``y_pred`` (in any group).
    """

    metric: str
    per_group: dict
    global_value: float
    worst_group: Any
    best_group: Any
    gap: float
    disparities: dict
    n_per_group: dict
    confusion: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)

    def to_flat_dict(self) -> dict:
        """The reference harness's keys: ``per_group.<g>.<metric>``, ``per_group.<g>.n``,
        ``global_metric``, ``worst_group``, ``fairness_gap``, ``disparities.<g>``.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> r = fm.group_metrics([1, 1, 0, 0], [1, 0, 0, 0], ["a", "a", "b", "b"])
        >>> r.to_flat_dict()["disparities.a"]
        -0.25
        """
        out: dict = {"metric": self.metric, "global_metric": self.global_value,
                     "worst_group": self.worst_group, "best_group": self.best_group,
                     "fairness_gap": self.gap}
        for g, v in self.per_group.items():
            out[f"per_group.{g}.{self.metric}"] = v
            out[f"per_group.{g}.n"] = self.n_per_group[g]
        for g, v in self.disparities.items():
            out[f"disparities.{g}"] = v
        return out


def _codes(a: np.ndarray, max_range: int):
    """(array the kernel reads, lo, size of the value range) for one integer or bool array,
    or None when it must be encoded."""
    if a.dtype.kind == "b":
        a = a.view(np.uint8)
    if a.dtype.char not in _INT_CHARS or a.size == 0:
        return None
    a = native(a)
    lo, hi = _confusion.minmax(a, a.shape[0])  # one pass for both
    if hi - lo >= max_range:
        return None
    return a, lo, hi - lo + 1


def _encode(*arrays: np.ndarray, name: str):
    """np.unique over the arrays together: (codes per array, values)."""
    for a in arrays:
        if a.dtype.kind == "O" and any(v is None for v in a.tolist()):
            raise ValueError(
                f"{name} contains None (parse failures? see fastmetrics.parse_failures)")
    try:
        values, inv = np.unique(np.concatenate(arrays), return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"{name} mixes values that cannot be ordered ({exc})") from None
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(f"{name} contains NaN")
    inv = inv.reshape(-1).astype(np.int64)
    out, start = [], 0
    for a in arrays:
        out.append(inv[start:start + a.shape[0]])
        start += a.shape[0]
    return out, values


def _label_codes(yt, yp):
    """(codes of y_true, codes of y_pred, lo, K, values) over the label value range
    ``lo .. lo + K - 1``. Labels are checked and converted as by accuracy_score
    (``_state._prepare``: integral floats only, no string/number mix)."""
    at, dt_t, kt = _prepare(yt, "y_true")
    ap, dt_p, kp = _prepare(yp, "y_pred")
    if kt != kp:
        raise ValueError(_mix_msg)
    out_dtype = np.result_type(dt_t, dt_p)  # the labels' dtype, as in confusion_state
    if kt == "int":
        if at.dtype != ap.dtype:
            at, ap = common_int(at, ap)
            common = np.promote_types(at.dtype, ap.dtype)
            at, ap = at.astype(common, copy=False), ap.astype(common, copy=False)
            if out_dtype.kind == "f" and dt_t.kind in "iu" and dt_p.kind in "iu":
                out_dtype = common  # int64 with uint64: integers, not float64
        ct, cp = _codes(at, _MAX_LABEL_RANGE), _codes(ap, _MAX_LABEL_RANGE)
        if ct is not None and cp is not None:
            lo = min(ct[1], cp[1])
            hi = max(ct[1] + ct[2], cp[1] + cp[2])
            values = np.arange(lo, hi, dtype=at.dtype)  # the data's dtype holds the range
            return ct[0], cp[0], lo, hi - lo, values.astype(out_dtype, copy=False)
    (codes_t, codes_p), values = _encode(at, ap, name="y_true/y_pred")
    if kt == "int":
        values = values.astype(out_dtype, copy=False)
    return codes_t, codes_p, 0, values.shape[0], values


def group_metrics(y_true, y_pred, groups, metric: str = "accuracy", *,
                  n_threads=None) -> GroupMetrics:
    """A classification metric within each group of samples, and the gaps between groups.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Class labels.
    groups : array-like of shape (n_samples,)
        The group of each sample (ints, strings, bools...).
    metric : str, default="accuracy"
        One of :data:`GROUP_METRICS`: "accuracy", "balanced_accuracy", "f1_macro",
        "f1_weighted", "f1_micro", "precision_macro", "recall_macro".
    n_threads : int, default=None

    Returns
    -------
    GroupMetrics

    Raises
    ------
    ValueError
        Different lengths, no samples, an unknown metric, NaN/None labels or groups.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.group_metrics([0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1], [0, 0, 0, 1, 1, 1])
    >>> r.per_group, round(r.global_value, 4), r.worst_group, round(r.gap, 4)
    ({0: 0.6666666666666666, 1: 1.0}, 0.8333, 0, 0.3333)
    """
    metric_fn(metric)
    yt = as_1d(y_true, "y_true")
    yp = as_1d(y_pred, "y_pred")
    g = as_1d(groups, "groups")
    n = yt.shape[0]
    if yp.shape[0] != n or g.shape[0] != n:
        raise ValueError(
            "y_true, y_pred and groups must have the same length, got "
            f"{n}, {yp.shape[0]} and {g.shape[0]}"
        )
    if n == 0:
        raise ValueError("group_metrics needs at least one sample (y_true is empty)")
    ct, cp, lo, k, values = _label_codes(yt, yp)
    cg = _codes(g, _MAX_GROUP_RANGE)
    if cg is not None:
        gcodes, glo, n_groups = cg
        group_values = np.arange(glo, glo + n_groups, dtype=np.int64)
        if g.dtype.kind == "b":
            group_values = group_values.astype(bool)
    else:
        (gcodes,), group_values = _encode(g, name="groups")  # raises on NaN or None
        glo, n_groups = 0, group_values.shape[0]
    cells = n_groups * k * k
    if cells > _MAX_CELLS:
        raise ValueError(f"{n_groups} groups x {k} labels is too many for a dense "
                         f"(group x K x K) state ({cells} cells)")
    nt = resolve_n_threads(n_threads) if n >= _PARALLEL_MIN or n_threads is not None else 1
    # counts are integers, so lanes only serve threads: one lane when there is one thread
    lanes = 1 if nt == 1 else max(1, min(_MAX_LANES, n // _LANE_MIN, _MAX_CELLS // cells))
    tables = np.zeros((lanes, cells), dtype=np.int64)
    nbad = _confusion.group_confusion(ct, cp, gcodes, lo % (1 << 64), k, glo % (1 << 64),
                                   n_groups, tables, nt)
    if nbad:  # pragma: no cover - the ranges were computed from the data
        raise RuntimeError("group_confusion: values outside the computed ranges")
    state = tables.sum(axis=0).reshape(n_groups, k, k)
    return _from_state(state, values, group_values, metric)


def _metric_of(cm: np.ndarray, values: np.ndarray, fn) -> float:
    present = (cm.sum(axis=0) + cm.sum(axis=1)) > 0
    sub = cm[np.ix_(present, present)]
    st = ConfusionState(values[present], sub, np.ones(sub.shape[0], dtype=bool),
                        int(sub.sum()), None, False, sub.sum(axis=1) > 0)
    return float(fn(st))


def _from_state(state: np.ndarray, values, group_values, metric: str) -> GroupMetrics:
    fn = GROUP_METRICS[metric]
    # the value range may hold labels that never occur (labels 0 and 5 -> range 0..5)
    used = (state.sum(axis=(0, 1)) + state.sum(axis=(0, 2))) > 0
    if not used.all():
        state = state[:, used][:, :, used]
        values = values[used]
    sizes = state.sum(axis=(1, 2))
    present = np.flatnonzero(sizes)  # groups in the value range that have samples
    per_group = {_py(group_values[i]): _metric_of(state[i], values, fn) for i in present}
    n_per_group = {_py(group_values[i]): int(sizes[i]) for i in present}
    global_value = _metric_of(state.sum(axis=0), values, fn)
    keys = list(per_group)
    vals = np.array([per_group[k] for k in keys])
    worst = keys[int(np.argmin(vals))]
    best = keys[int(np.argmax(vals))]
    return GroupMetrics(
        metric=metric,
        per_group=per_group,
        global_value=global_value,
        worst_group=worst,
        best_group=best,
        gap=float(vals.max() - vals.min()),
        disparities={k: v - global_value for k, v in per_group.items()},
        n_per_group=n_per_group,
        confusion=state[present],
        labels=values,
    )
