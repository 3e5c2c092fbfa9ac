"""The grouped confusion state: one counting pass over (group, y_true, y_pred) -> a G x K x K
table, and the per-group metrics (fairness) derived from it.

Each group's table is a :class:`~fastmetrics._states.confusion.ConfusionState` of its own,
so a group's value is exactly the one-shot metric on that group's samples (labels are those
present in the group, as scikit-learn's default), with ``zero_division=0`` for
precision/recall/F1. Labels and groups of any integer dtype are read in place when their
value ranges are small (labels within 1,024 values, groups within 65,536); other labels or
groups (strings, objects, wide ranges) are hash-encoded once first
(:func:`fastmetrics._inputs.encode_labels`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import (
    INT_CHARS,
    encode_labels,
    label_column,
    label_pair,
    native,
    str_objects,
    union_labels,
)
from .._kernels import confusion as kernel
from .._threads import threads_for
from . import base, prf
from .stacked import Stacked
from .confusion import DENSE_MAX_RANGE, ConfusionState, accuracy, balanced_accuracy, py_value

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from .._typing import ArrayLike

__all__ = ["GROUP_METRICS", "ConfusionStack", "GroupMetrics", "GroupedConfusionState", "metric_fn", "summary"]

_MAX_GROUP_RANGE = 1 << 16
_MAX_CELLS = 1 << 24  # G * K * K cells of one table (128 MiB of int64): above, refuse
_LANE_MIN = 1 << 16
_MAX_LANES = 16


def _prf(average: str, which: int) -> Callable[[ConfusionState], float]:
    def f(st: ConfusionState) -> float:
        return float(prf.prfs(st, average=average, zero_division=0, need="prf")[which])

    return f


#: metric name -> function of a ConfusionState (higher is better for all of them)
GROUP_METRICS = {
    "accuracy": accuracy,
    "balanced_accuracy": balanced_accuracy,
    "f1_macro": _prf("macro", 2),
    "f1_weighted": _prf("weighted", 2),
    "f1_micro": _prf("micro", 2),
    "precision_macro": _prf("macro", 0),
    "recall_macro": _prf("macro", 1),
}


def metric_fn(metric: str) -> Callable[[ConfusionState], float]:
    """The function of a ConfusionState that :data:`GROUP_METRICS` names ``metric``, or
    ValueError listing the names."""
    fn = GROUP_METRICS.get(metric) if isinstance(metric, str) else None
    if fn is None:
        raise ValueError(f"metric must be one of {sorted(GROUP_METRICS)}, got {metric!r}")
    return fn


def _codes(a: np.ndarray, max_range: int) -> tuple[np.ndarray, int, int] | None:
    """(array the kernel reads, lo, size of the value range) for one integer or bool array,
    or None when it must be encoded."""
    if a.dtype.kind == "b":
        a = a.view(np.uint8)
    if a.dtype.char not in INT_CHARS or a.size == 0:
        return None
    a = native(a)
    lo, hi = kernel.minmax(a, a.shape[0])  # one pass for both
    if hi - lo >= max_range:
        return None
    return a, lo, hi - lo + 1


def _encode(*arrays: Any, name: str) -> tuple[list[np.ndarray], np.ndarray]:
    """The arrays' values encoded together (np.unique's order, one hash pass per array):
    (int64 codes per array, values)."""
    prepared = []
    for a in arrays:
        if isinstance(a, np.ndarray) and a.dtype.kind == "O":
            enc = str_objects(a)
            if enc is None and any(v is None for v in a.tolist()):
                raise ValueError(
                    f"{name} contains None (parse failures? see fastmetrics.parse_failures)")
            a = a if enc is None else enc
        prepared.append(a)
    try:
        codes, values = encode_labels(*prepared)
    except TypeError as exc:
        raise TypeError(f"{name} mixes values that cannot be ordered ({exc})") from None
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(f"{name} contains NaN")
    return [c.astype(np.int64, copy=False) for c in codes], values


def _label_codes(yt: np.ndarray, yp: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, int, int, np.ndarray]:
    """(codes of y_true, codes of y_pred, lo, K, values) over the label value range
    ``lo .. lo + K - 1``; labels checked and converted as the one-shot functions do."""
    at, ap, out_dtype, kind = label_pair(yt, yp)
    if kind == "int":
        ct, cp = _codes(at, DENSE_MAX_RANGE), _codes(ap, DENSE_MAX_RANGE)
        if ct is not None and cp is not None:
            lo = min(ct[1], cp[1])
            hi = max(ct[1] + ct[2], cp[1] + cp[2])
            values = np.arange(lo, hi, dtype=at.dtype)  # the data's dtype holds the range
            return ct[0], cp[0], lo, hi - lo, values.astype(out_dtype, copy=False)
    (codes_t, codes_p), values = _encode(at, ap, name="y_true/y_pred")
    if kind == "int":
        values = values.astype(out_dtype, copy=False)
    return codes_t, codes_p, 0, values.shape[0], values


class ConfusionStack(Stacked):
    """Every group's K x K table over one label table, row g group g's: the counts add."""

    __slots__ = ()
    empty = (0,)

    def states(self) -> list[ConfusionState]:
        """Every group's state, group ``g``'s at position ``g`` (as
        :meth:`GroupedConfusionState.group_states` gives them)."""
        table = self.arrays[0]
        return GroupedConfusionState(table, self.layout[0],
                                     np.arange(table.shape[0])).group_states()


class GroupedConfusionState(base.State):
    """A G x K x K table: ``table[g, i, j]`` counts the samples of group ``groups[g]`` with
    true label ``labels[i]`` predicted ``labels[j]``. Only labels and groups that occur are
    kept, both sorted.

    Parameters
    ----------
    table : ndarray of shape (n_groups, n_labels, n_labels)
        ``table[g, i, j]``: samples of group ``groups[g]``, true ``labels[i]``, predicted
        ``labels[j]``.
    labels : ndarray of shape (n_labels,)
        The sorted labels that occur.
    groups : ndarray of shape (n_groups,)
        The sorted groups that occur.

    See Also
    --------
    GroupedConfusionState.from_arrays : The state of one pass over data.
    ConfusionState : The table of one group.
    fastmetrics.group_metrics : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import GroupedConfusionState
    >>> a = GroupedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], ['x', 'x', 'y'])
    >>> b = GroupedConfusionState.from_arrays([1], [1], ['z'])
    >>> a.table.shape
    (2, 2, 2)
    """

    kind = "grouped_confusion"
    __slots__ = ("table", "labels", "groups")

    def __init__(self, table: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> None:
        self.table, self.labels, self.groups = table, labels, groups

    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred: ArrayLike, groups: ArrayLike,
                    n_threads: int | None = None, *,
                    n_groups: int | None = None) -> GroupedConfusionState:
        """Count the (group, true label, predicted label) triples in one kernel pass.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_pred : array-like of shape (n_samples,)
            Predicted labels.
        groups : array-like of shape (n_samples,)
            The group of each sample.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        n_groups : int or None, default=None
            When given, ``groups`` are integer codes in ``range(n_groups)`` (an encoding
            already made) and the state's groups are those codes: the pass does not look
            for their range.

        Returns
        -------
        state : GroupedConfusionState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input (lengths, NaN or infinity, 2-D labels), naming the argument.

        See Also
        --------
        GroupedConfusionState.merge : The state of two chunks.
        fastmetrics.group_metrics : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import GroupedConfusionState
        >>> a = GroupedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], ['x', 'x', 'y'])
        >>> a.n_samples
        3
        """
        yt = label_column(y_true, "y_true")
        yp = label_column(y_pred, "y_pred")
        g = label_column(groups, "groups")
        n = yt.shape[0]
        if yp.shape[0] != n or g.shape[0] != n:
            raise ValueError(
                "y_true, y_pred and groups must have the same length, got "
                f"{n}, {yp.shape[0]} and {g.shape[0]}"
            )
        if n == 0:
            raise ValueError("group_metrics needs at least one sample (y_true is empty)")
        ct, cp, lo, k, values = _label_codes(yt, yp)
        cg = _codes(g, _MAX_GROUP_RANGE) if n_groups is None else None
        if n_groups is not None:
            if g.dtype.char not in INT_CHARS:
                raise TypeError(f"groups must be integer codes with n_groups, got {g.dtype}")
            gcodes, glo, group_values = native(g), 0, np.arange(n_groups)
        elif cg is not None:
            gcodes, glo, n_groups = cg
            # in the groups' own dtype: glo may be a uint64 value beyond int64
            gd = np.dtype(np.uint8) if g.dtype.kind == "b" else gcodes.dtype
            group_values = np.asarray(glo, dtype=gd) + np.arange(n_groups).astype(gd)
            if g.dtype.kind == "b":
                group_values = group_values.astype(bool)
        else:
            (gcodes,), group_values = _encode(g, name="groups")  # raises on NaN or None
            glo, n_groups = 0, group_values.shape[0]
        cells = n_groups * k * k
        if cells > _MAX_CELLS:
            raise ValueError(f"{n_groups} groups x {k} labels is too many for a dense "
                             f"(group x K x K) state ({cells} cells)")
        nt = threads_for("grouped", n, n_threads)
        # counts are integers, so lanes only serve threads: one lane when there is one thread
        lanes = 1 if nt == 1 else max(1, min(_MAX_LANES, n // _LANE_MIN, _MAX_CELLS // cells))
        tables = np.zeros((lanes, cells), dtype=np.int64)
        nbad = kernel.group_confusion(ct, cp, gcodes, lo % (1 << 64), k, glo % (1 << 64),
                                      n_groups, tables, nt)
        if nbad and n_groups is not None:
            raise ValueError(f"groups holds {nbad} codes outside [0, {n_groups})")
        if nbad:  # pragma: no cover - the ranges were computed from the data
            raise RuntimeError("group_confusion: values outside the computed ranges")
        table = tables.sum(axis=0).reshape(n_groups, k, k)
        # the value ranges may hold labels and groups that never occur
        used = (table.sum(axis=(0, 1)) + table.sum(axis=(0, 2))) > 0
        sizes = table.sum(axis=(1, 2)) > 0
        return cls(table[sizes][:, used][:, :, used], values[used], group_values[sizes])

    @property
    def n_samples(self) -> int:
        """The number of samples the state summarises."""
        return int(self.table.sum())

    def group_state(self, i: int | None) -> ConfusionState:
        """The confusion state of group ``i`` (None: every group together), over the labels
        present in it.

        Parameters
        ----------
        i : int or None
            The position of a group in ``groups``; None for every group together.

        Returns
        -------
        state : ConfusionState
            The confusion state of that group.

        See Also
        --------
        fastmetrics.group_metrics : Metrics of every group.

        Examples
        --------
        >>> from fastmetrics.states import GroupedConfusionState
        >>> a = GroupedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], ['x', 'x', 'y'])
        >>> b = GroupedConfusionState.from_arrays([1], [1], ['z'])
        >>> a.group_state(0).cm
        array([[1, 0],
               [0, 1]])
        """
        # a copy: the group's state may be merged in place, the grouped table stays
        cm = self.table.sum(axis=0) if i is None else self.table[i].copy()
        rows = cm.sum(axis=1)
        present = (cm.sum(axis=0) + rows) > 0
        labels = self.labels
        if not present.all():  # (most groups hold every label: no copy then)
            where = np.flatnonzero(present)
            cm, rows, labels = cm[where][:, where], rows[where], labels[where]
        return ConfusionState(labels, cm, np.ones(cm.shape[0], dtype=bool), int(rows.sum()),
                              None, False, rows > 0)

    def stack(self) -> ConfusionStack:
        """Every group's table as rows over the labels (group ``i``'s at row ``i``), to
        merge with other chunks' tables of the same labels by adding.

        Returns
        -------
        ConfusionStack

        See Also
        --------
        GroupedConfusionState.group_states : The groups' states.

        Examples
        --------
        >>> from fastmetrics.states import GroupedConfusionState
        >>> GroupedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], ['x', 'x', 'y']).stack().sizes
        array([2, 1])
        """
        return ConfusionStack((self.table,), (self.labels,), self.table.sum(axis=(1, 2)))

    def group_states(self) -> list[ConfusionState]:
        """Every group's confusion state, as :meth:`group_state` gives each, the table
        copied once for all (each state's table is its own part of the copy).

        Returns
        -------
        states : list of ConfusionState
            Group ``i``'s state at position ``i``.

        See Also
        --------
        GroupedConfusionState.group_state : One group's.

        Examples
        --------
        >>> from fastmetrics.states import GroupedConfusionState
        >>> a = GroupedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], ['x', 'x', 'y'])
        >>> [st.n_samples for st in a.group_states()]
        [2, 1]
        """
        table = self.table.copy()
        rows = table.sum(axis=2)
        present = (table.sum(axis=1) + rows) > 0
        full = present.all(axis=1)
        ones = np.ones(table.shape[1], dtype=bool)
        out = []
        for i in range(table.shape[0]):
            if not full[i]:  # (most groups hold every label)
                out.append(self.group_state(i))
                continue
            r = rows[i]
            out.append(ConfusionState(self.labels, table[i], ones, int(r.sum()), None, False,
                                      r > 0))
        return out

    def merge(self, other: GroupedConfusionState) -> GroupedConfusionState:
        """Both inputs' samples: labels and groups are unioned.

        Parameters
        ----------
        other : GroupedConfusionState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : GroupedConfusionState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        GroupedConfusionState.from_arrays : The state of one chunk.
        fastmetrics.group_metrics : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import GroupedConfusionState
        >>> a = GroupedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], ['x', 'x', 'y'])
        >>> b = GroupedConfusionState.from_arrays([1], [1], ['z'])
        >>> a.merge(b).groups
        array(['x', 'y', 'z'], dtype='<U1')
        """
        self._check_mergeable(other)
        labels, la, lb = union_labels(self.labels, other.labels)
        groups, ga, gb = union_labels(self.groups, other.groups)
        out = np.zeros((groups.shape[0], labels.shape[0], labels.shape[0]), dtype=np.int64)
        for st, li, gi in ((self, la, ga), (other, lb, gb)):
            li = np.arange(labels.shape[0]) if li is None else li
            gi = np.arange(groups.shape[0]) if gi is None else gi
            out[np.ix_(gi, li, li)] += st.table
        return GroupedConfusionState(out, labels, groups)

    def _export(self) -> dict[str, Any]:
        return {"table": self.table, "labels": self.labels, "labels_dtype": self.labels.dtype.str,
                "groups": self.groups, "groups_dtype": self.groups.dtype.str}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> GroupedConfusionState:
        arrays = []
        for key in ("labels", "groups"):
            a = base.labels(d, key)
            if a.shape[0] > 1 and not np.all(a[1:] > a[:-1]):
                raise base.StateError(f"the {key} of a grouped state must be sorted and unique")
            arrays.append(a)
        labels, groups = arrays
        k = labels.shape[0]
        table = base.field(d, "table", kinds="iu", ndim=3, shape=(groups.shape[0], k, k),
                           dtype=np.int64)
        if table.size and table.min() < 0:
            raise base.StateError("counts must be non-negative")
        # only the groups and labels that occur are kept
        if np.any(table.sum(axis=(1, 2)) == 0) or np.any(
                (table.sum(axis=(0, 1)) + table.sum(axis=(0, 2))) == 0):
            raise base.StateError("every group and every label of a grouped state has counts")
        return cls(table.copy(), labels, groups)


# ---------------------------------------------------------------------- derivations


@dataclass(frozen=True)
class GroupMetrics:
    """One metric per group, over all samples, and how far apart the groups are.

    Parameters
    ----------
    metric : str
        The metric's name (one of ``GROUP_METRICS``).
    per_group : dict group -> float
        In sorted group order. Groups are the distinct values of ``groups``, so each has at
        least one sample: there is no empty group (a group that should be there but has no
        sample is simply absent; compare ``per_group`` keys with the expected groups).
    global_value : float
        The metric over every sample (not the mean of the groups).
    worst_group : group label
        The group with the lowest value (the first in sorted order on ties).
    best_group : group label
        The group with the highest value (the first in sorted order on ties).
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

    See Also
    --------
    fastmetrics.group_metrics : What builds it.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.group_metrics([1, 1, 0, 0], [1, 0, 0, 0], ["a", "a", "b", "b"])
    >>> r.per_group, r.worst_group, r.gap
    ({'a': 0.5, 'b': 1.0}, 'a', 0.5)
    """

    metric: str
    per_group: dict[Any, float]
    global_value: float
    worst_group: Any
    best_group: Any
    gap: float
    disparities: dict[Any, float]
    n_per_group: dict[Any, int]
    confusion: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)

    def to_flat_dict(self) -> dict[str, Any]:
        """The reference harness's keys: ``per_group.<g>.<metric>``, ``per_group.<g>.n``,
        ``global_metric``, ``worst_group``, ``fairness_gap``, ``disparities.<g>``.

        Returns
        -------
        dict
            Those keys (and ``metric``, ``best_group``) to scalars.

        See Also
        --------
        fastmetrics.run_metrics : A run's metrics, which include these keys.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> r = fm.group_metrics([1, 1, 0, 0], [1, 0, 0, 0], ["a", "a", "b", "b"])
        >>> r.to_flat_dict()["disparities.a"]
        -0.25
        """
        out: dict[str, Any] = {"metric": self.metric, "global_metric": self.global_value,
                     "worst_group": self.worst_group, "best_group": self.best_group,
                     "fairness_gap": self.gap}
        for g, v in self.per_group.items():
            out[f"per_group.{g}.{self.metric}"] = v
            out[f"per_group.{g}.n"] = self.n_per_group[g]
        for g, v in self.disparities.items():
            out[f"disparities.{g}"] = v
        return out


GroupMetrics.__module__ = "fastmetrics.fairness"


def summary(state: GroupedConfusionState, metric: str = "accuracy") -> GroupMetrics:
    """The metric within each group, over all samples, and the gaps between groups."""
    fn = metric_fn(metric)
    keys = [py_value(g) for g in state.groups]
    per_group = {g: float(fn(state.group_state(i))) for i, g in enumerate(keys)}
    sizes = state.table.sum(axis=(1, 2))
    n_per_group = {g: int(sizes[i]) for i, g in enumerate(keys)}
    global_value = float(fn(state.group_state(None)))
    vals = np.array([per_group[k] for k in keys])
    return GroupMetrics(
        metric=metric,
        per_group=per_group,
        global_value=global_value,
        worst_group=keys[int(np.argmin(vals))],
        best_group=keys[int(np.argmax(vals))],
        gap=float(vals.max() - vals.min()),
        disparities={k: v - global_value for k, v in per_group.items()},
        n_per_group=n_per_group,
        confusion=state.table,
        labels=state.labels,
    )
