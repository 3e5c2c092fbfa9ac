"""The paired confusion state: two models' predictions of the same rows, counted jointly.

A comparison of model A and model B on the same samples needs more than their two
confusion tables: a resample draws rows, and a row carries both predictions. The joint
table of (true label, A's label, B's label) is enough: each model's confusion table is a
margin of it, McNemar's test reads two of its sums, and a row resample is a multinomial
draw of its cells (:mod:`.replicates`). The table is kept by its non-empty cells, at most
one per sample, so it stays small for any number of classes.

Examples
--------
>>> from fastmetrics.states import PairedConfusionState
>>> s = PairedConfusionState.from_arrays([0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 1, 1])
>>> s.disagreements()
(1, 1)
>>> s.marginal("a").cm.tolist(), s.marginal("b").cm.tolist()
([[2, 0], [1, 1]], [[1, 1], [0, 2]])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._inputs import (
    EMPTY,
    encode_labels,
    inconsistent_lengths,
    label_column,
    label_pair,
    union_all_labels,
)
from .._kernels import joint as joint_kernel
from . import base
from .stacked import Stacked
from .confusion import ConfusionState

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .._typing import ArrayLike

__all__ = ["PairedConfusionState", "PairedStack", "grouped", "grouped_stack"]

# joint tables of at most this many cells are counted densely; more, by sorting the keys
_DENSE_CELLS = 1 << 22


class PairedConfusionState(base.State):
    """The joint counts of (true label, model A's label, model B's label).

    Parameters
    ----------
    values : ndarray (K,)
        Sorted labels seen in any of the three columns.
    keys : ndarray of int64 (nnz,)
        The non-empty cells, increasing: ``(t * K + a) * K + b`` over label positions.
    counts : ndarray of int64 (nnz,)
        Samples in each cell (all > 0).
    n_samples : int

    See Also
    --------
    PairedConfusionState.from_arrays : The state of one pass over data.
    fastmetrics.compare : The paired comparison it serves.
    fastmetrics.streaming.PairedConfusionAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.mcnemar_test : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import PairedConfusionState
    >>> a = PairedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], [0, 0, 1])
    >>> b = PairedConfusionState.from_arrays([1], [1], [0])
    >>> a.disagreements()
    (1, 1)
    """

    kind = "paired_confusion"
    n_samples: int  # a slot here, where State declares a read-only property
    __slots__ = ("values", "keys", "counts", "n_samples")

    def __init__(self, values: np.ndarray, keys: np.ndarray, counts: np.ndarray,
                 n_samples: int) -> None:
        self.values = values
        self.keys = keys
        self.counts = counts
        self.n_samples = n_samples

    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred_a: ArrayLike,
                    y_pred_b: ArrayLike) -> PairedConfusionState:
        """Count the triples of labels (one hash pass per column, one counting pass).
        Labels follow the confusion state's rules (integers of two dtypes, text, no mix).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_pred_a : array-like of shape (n_samples,)
            Model A's predicted labels.
        y_pred_b : array-like of shape (n_samples,)
            Model B's predicted labels.

        Returns
        -------
        state : PairedConfusionState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input (lengths, NaN or infinity, 2-D labels), naming the argument.

        See Also
        --------
        PairedConfusionState.merge : The state of two chunks.
        fastmetrics.streaming.PairedConfusionAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.mcnemar_test : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import PairedConfusionState
        >>> a = PairedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], [0, 0, 1])
        >>> a.n_samples
        3
        """
        at, aa, ab, out, kind = _triples(y_true, y_pred_a, y_pred_b)
        n = at.shape[0]
        if kind == "int":
            st = cls._small_range(at, aa, ab, out)
            if st is not None:
                return st
        (ct, ca, cb), values = encode_labels(at, aa, ab)
        if kind == "int":
            values = values.astype(out, copy=False)
        k = values.shape[0]
        flat = (ct.astype(np.int64) * k + ca) * k + cb
        if k**3 <= _DENSE_CELLS:
            dense = np.bincount(flat, minlength=k**3)
            keys = np.flatnonzero(dense).astype(np.int64)
            counts = dense[keys].astype(np.int64)
        else:
            keys, counts = np.unique(flat, return_counts=True)
        return cls(values, keys.astype(np.int64), counts.astype(np.int64), n)

    @classmethod
    def _small_range(cls, t: np.ndarray, a: np.ndarray, b: np.ndarray,
                     out_dtype: np.dtype) -> PairedConfusionState | None:
        """Integer labels of one dtype spanning a small range: counted in place by the
        kernel into a dense table over the range (None: a wider range, encoded instead)."""
        lo, k = _label_range(t, a, b, 1)
        if k == 0:
            return None
        dense = np.zeros(k**3, dtype=np.int64)
        if joint_kernel.count_triples(t, a, b, lo, k, dense) != -1:  # pragma: no cover
            raise RuntimeError("count_triples: a label outside the range just measured")
        return cls._of_table(dense.reshape(k, k, k), lo, out_dtype, int(t.shape[0]))

    @classmethod
    def _of_table(cls, table: np.ndarray, lo: int, out_dtype: np.dtype,
                  n: int) -> PairedConfusionState:
        """The state of a dense k x k x k table over the labels ``lo .. lo + k - 1``, kept
        to the labels that occur in it."""
        k = table.shape[0]
        seen = (table.sum(axis=(1, 2)) != 0) | (table.sum(axis=(0, 2)) != 0) \
            | (table.sum(axis=(0, 1)) != 0)
        idx = np.flatnonzero(seen)
        if idx.shape[0] < k:
            table = table[np.ix_(idx, idx, idx)]
        flat = table.reshape(-1)
        keys = np.flatnonzero(flat).astype(np.int64)
        values = (idx + lo).astype(out_dtype)
        return cls(values, keys, flat[keys].astype(np.int64), n)

    # ------------------------------------------------------------------ cells
    @property
    def k(self) -> int:
        """The number of labels, ``len(values)``."""
        return int(self.values.shape[0])

    def positions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(t, a, b)`` label positions of each non-empty cell.

        Returns
        -------
        t, a, b : ndarray of int64 of shape (nnz,)
            The true label's, model A's and model B's label positions in ``values``.

        See Also
        --------
        PairedConfusionState.marginal : One model's confusion state.

        Examples
        --------
        >>> from fastmetrics.states import PairedConfusionState
        >>> a = PairedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], [0, 0, 1])
        >>> b = PairedConfusionState.from_arrays([1], [1], [0])
        >>> a.positions()[0]
        array([0, 1, 1])
        """
        k = self.k
        ta, b = np.divmod(self.keys, k)
        t, a = np.divmod(ta, k)
        return t, a, b

    def marginal(self, model: str, counts: np.ndarray | None = None) -> ConfusionState:
        """Model ``"a"``'s or ``"b"``'s confusion state (over the labels it or y_true
        holds), of these cells or of resampled ``counts`` of them.

        Parameters
        ----------
        model : {"a", "b"}
            The model.
        counts : ndarray of int64 of shape (nnz,) or None, default=None
            Resampled counts of the cells (None: the state's counts).

        Returns
        -------
        state : ConfusionState
            That model's confusion state.

        Raises
        ------
        ValueError
            If ``model`` is neither "a" nor "b".

        See Also
        --------
        PairedConfusionState.disagreements : McNemar's counts.

        Examples
        --------
        >>> from fastmetrics.states import PairedConfusionState
        >>> a = PairedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], [0, 0, 1])
        >>> b = PairedConfusionState.from_arrays([1], [1], [0])
        >>> a.marginal('a').cm
        array([[1, 0],
               [1, 1]])
        """
        if model not in ("a", "b"):
            raise ValueError(f"model must be 'a' or 'b', got {model!r}")
        t, a, b = self.positions()
        return _confusion(self.values, t, a if model == "a" else b,
                          self.counts if counts is None else counts)

    def disagreements(self, counts: np.ndarray | None = None) -> tuple[int, int]:
        """``(A right and B wrong, A wrong and B right)``: McNemar's two counts.

        Parameters
        ----------
        counts : ndarray of int64 of shape (nnz,) or None, default=None
            Resampled counts of the cells (None: the state's counts).

        Returns
        -------
        a_only : int
            Samples model A gets right and model B wrong.
        b_only : int
            Samples model A gets wrong and model B right.

        See Also
        --------
        fastmetrics.mcnemar_test : The test of these counts.

        Examples
        --------
        >>> from fastmetrics.states import PairedConfusionState
        >>> a = PairedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], [0, 0, 1])
        >>> b = PairedConfusionState.from_arrays([1], [1], [0])
        >>> a.disagreements()
        (1, 1)
        """
        t, a, b = self.positions()
        c = self.counts if counts is None else counts
        ra, rb = a == t, b == t
        return int(c[ra & ~rb].sum()), int(c[~ra & rb].sum())

    # ------------------------------------------------------------------ merge
    def _same_layout(self, other: Any) -> bool:
        # any two paired tables merge (their labels are unioned)
        return True

    def merge(self, other: PairedConfusionState) -> PairedConfusionState:
        """The state of both inputs' rows (label sets are unioned).

        Parameters
        ----------
        other : PairedConfusionState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : PairedConfusionState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        PairedConfusionState.from_arrays : The state of one chunk.
        fastmetrics.streaming.PairedConfusionAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.mcnemar_test : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import PairedConfusionState
        >>> a = PairedConfusionState.from_arrays([0, 1, 1], [0, 1, 0], [0, 0, 1])
        >>> b = PairedConfusionState.from_arrays([1], [1], [0])
        >>> a.merge(b).n_samples
        4
        """
        return self.merge_all([self, other])

    @classmethod
    def merge_all(cls, states: Sequence[PairedConfusionState]) -> PairedConfusionState:
        """The state of all inputs' rows, bit for bit the left fold of :meth:`merge`, in one
        walk: the label tables unioned once, every input's cells re-keyed once and their
        sorted runs merged by one stable sort (O(N log k) for N cells in k runs).

        Parameters
        ----------
        states : sequence of PairedConfusionState
            At least one state.

        Returns
        -------
        state : PairedConfusionState
            The state of all inputs' rows (a single input is returned as it is).

        See Also
        --------
        PairedConfusionState.merge : Two states.

        Examples
        --------
        >>> from fastmetrics.states import PairedConfusionState
        >>> parts = [PairedConfusionState.from_arrays([i], [0], [1]) for i in range(3)]
        >>> PairedConfusionState.merge_all(parts).values
        array([0, 1, 2])
        """
        states = cls._merge_inputs(states)
        if len(states) == 1:
            return states[0]
        values, maps = union_all_labels([st.values for st in states])
        k = values.shape[0]
        # each input's keys stay sorted under the increasing maps: the stable sort merges runs
        keys = np.concatenate([_rekey(st, ix, k) for st, ix in zip(states, maps)])
        counts = np.concatenate([st.counts for st in states])
        order = np.argsort(keys, kind="stable")
        keys, counts = keys[order], counts[order]
        starts = np.flatnonzero(np.diff(keys, prepend=-1))  # keys are >= 0
        return cls(values, keys[starts], np.add.reduceat(counts, starts),
                   sum(st.n_samples for st in states))

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        if self.values.dtype.kind not in base.LABEL_KINDS:
            raise TypeError(
                f"labels of dtype {self.values.dtype} cannot be exported as plain arrays")
        return {"values": self.values, "values_dtype": self.values.dtype.str,
                "keys": self.keys, "counts": self.counts, "n_samples": int(self.n_samples)}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> PairedConfusionState:
        values = base.labels(d, "values")
        k = values.shape[0]
        keys = base.field(d, "keys", kinds="iu", ndim=1, dtype=np.int64)
        counts = base.field(d, "counts", kinds="iu", ndim=1, shape=keys.shape, dtype=np.int64)
        n = base.integer(d, "n_samples")
        if k > 1 and not np.all(values[1:] > values[:-1]):
            raise base.StateError("the labels of a paired state must be sorted and unique")
        if keys.shape[0] and (keys[0] < 0 or keys[-1] >= k**3 or np.any(np.diff(keys) <= 0)):
            raise base.StateError("keys must be increasing cells of the K x K x K table")
        if np.any(counts <= 0) or int(counts.sum()) != n:
            raise base.StateError("counts must be positive and add up to n_samples")
        return cls(values, keys.copy(), counts.copy(), n)


def _rekey(s: PairedConfusionState, ix: np.ndarray | None, k: int) -> np.ndarray:
    if ix is None:
        return s.keys
    t, a, b = s.positions()
    ix = np.asarray(ix, dtype=np.int64)
    return cast("np.ndarray", (ix[t] * k + ix[a]) * k + ix[b])


def _confusion(values: np.ndarray, t: np.ndarray, p: np.ndarray,
               counts: np.ndarray) -> ConfusionState:
    k = values.shape[0]
    cm = np.bincount(t * k + p, weights=counts, minlength=k * k).astype(np.int64).reshape(k, k)
    rows, cols = cm.sum(axis=1) != 0, cm.sum(axis=0) != 0
    present = rows | cols
    if not present.all():
        cm = cm[np.ix_(present, present)]
        return ConfusionState(values[present], cm, np.ones(cm.shape[0], dtype=bool),
                              int(counts.sum()), None, False, rows[present])
    return ConfusionState(values, cm, present, int(counts.sum()), None, False, rows)


def _triples(y_true: ArrayLike, y_pred_a: ArrayLike, y_pred_b: ArrayLike, **other: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.dtype, str]:
    """``(t, a, b, out_dtype, kind)``: the three label columns checked as the confusion
    state checks a pair (``other``: lengths that must match theirs), integers brought to
    one dtype."""
    yt = label_column(y_true, "y_true")
    ya = label_column(y_pred_a, "y_pred_a")
    yb = label_column(y_pred_b, "y_pred_b")
    n = yt.shape[0]
    if ya.shape[0] != n or yb.shape[0] != n or any(v != n for v in other.values()):
        raise inconsistent_lengths(y_true=n, y_pred_a=ya.shape[0], y_pred_b=yb.shape[0],
                                   **other)
    if n == 0:
        raise ValueError(EMPTY)
    at, aa, out_dtype, kind = label_pair(yt, ya)
    bt, ab, out_b, _ = label_pair(yt, yb)
    if kind == "int" and (aa.dtype != ab.dtype or at.dtype != bt.dtype):
        dtype = np.promote_types(np.promote_types(at.dtype, aa.dtype), ab.dtype)
        at, aa, ab = (x.astype(dtype, copy=False) for x in (at, aa, ab))
    return at, aa, ab, np.result_type(out_dtype, out_b), kind


def _label_range(t: np.ndarray, a: np.ndarray, b: np.ndarray, tables: int
                 ) -> tuple[int, int]:
    """``(lo, k)``: integer labels spanning ``lo .. lo + k - 1``; k 0 where ``tables`` dense
    k x k x k tables of the range would be large, or the range passes int64."""
    lo = min(int(t.min()), int(a.min()), int(b.min()))
    hi = max(int(t.max()), int(a.max()), int(b.max()))
    k = hi - lo + 1
    if tables * k**3 > _DENSE_CELLS or lo < -(2**63) or hi >= 2**63:
        return lo, 0
    return lo, k


class PairedStack(Stacked):
    """Every group's dense (true, A, B) table over one label range, row g group g's: the
    counts add."""

    __slots__ = ()
    empty = (0,)

    def states(self) -> list[PairedConfusionState]:
        """Every group's state, group ``g``'s at position ``g``."""
        lo, _, out = self.layout
        tables, sizes = self.arrays[0], self.sizes.tolist()
        return [PairedConfusionState._of_table(tables[g], lo, out, sizes[g])
                for g in range(tables.shape[0])]


def grouped(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_pred_a: ArrayLike,
            y_pred_b: ArrayLike) -> list[PairedConfusionState] | None:
    """:func:`grouped_stack`'s groups as states (None where it gives None).

    Examples
    --------
    >>> import numpy as np
    >>> states = grouped(np.array([0, 1, 0]), 2, [1, 0, 1], [1, 1, 0], [1, 0, 0])
    >>> [st.disagreements() for st in states]
    [(0, 0), (0, 1)]
    """
    stack = grouped_stack(codes, n_groups, y_true, y_pred_a, y_pred_b)
    return None if stack is None else stack.states()


def grouped_stack(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_pred_a: ArrayLike,
                  y_pred_b: ArrayLike) -> PairedStack | None:
    """The state of each group's rows from one counting pass over all of them (no
    ordering of the rows by group), or None where that pass does not apply and each
    group's state is built on its own: labels that are not integers, or a range whose
    tables (``n_groups * k**3`` cells) would be large.

    Parameters
    ----------
    codes : ndarray of integers (n_samples,)
        Each row's group, in ``range(n_groups)``.
    n_groups : int
    y_true, y_pred_a, y_pred_b : array-like of shape (n_samples,)
        As :meth:`PairedConfusionState.from_arrays` takes them.

    Returns
    -------
    stack : PairedStack or None
        Group g's table at row g (empty for a group without rows): built into a state,
        what :meth:`PairedConfusionState.from_arrays` gives on its rows.

    Raises
    ------
    ValueError
        Labels :meth:`PairedConfusionState.from_arrays` refuses; a code outside
        ``range(n_groups)``.

    Examples
    --------
    >>> import numpy as np
    >>> grouped_stack(np.array([0, 1, 0]), 2, [1, 0, 1], [1, 1, 0], [1, 0, 0]).sizes
    array([2, 1])
    """
    at, aa, ab, out, kind = _triples(y_true, y_pred_a, y_pred_b, groups=codes.shape[0])
    if kind != "int":
        return None
    lo, k = _label_range(at, aa, ab, n_groups)
    if k == 0:
        return None
    if codes.dtype == np.bool_:
        codes = codes.view(np.uint8)
    dense = np.zeros(n_groups * k**3, dtype=np.int64)
    bad = joint_kernel.count_grouped_triples(codes, n_groups, at, aa, ab, lo, k, dense)
    if bad >= 0:
        raise ValueError(f"group code {codes[bad]} at row {bad} is outside [0, {n_groups})")
    tables = dense.reshape(n_groups, k, k, k)
    return PairedStack((tables,), (lo, k, out), tables.reshape(n_groups, -1).sum(axis=1))
