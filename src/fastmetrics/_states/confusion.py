"""The confusion state: one kernel pass over (y_true, y_pred[, weights]) -> a K x K table,
and every classification metric of 1-D labels derived from it.

Label handling
--------------
* int8..int64, uint8..uint64 and bool arrays are read in place by the kernel (bool through a
  zero-copy ``uint8`` view). The kernel counts into a dense table over the value range
  ``lo .. lo + k - 1``; the range check is part of the counting pass.
* Floats holding integers are converted to int64 once (after a finiteness/integrality check);
  strings, objects, encoded input (categoricals) and sparse huge integer ranges are
  hash-encoded once without sorting the data (:func:`fastmetrics._inputs.label_codes`), their
  codes counted by the same kernel, and only the small table is moved onto the sorted labels.

Requested labels (``labels=``) follow scikit-learn, whose functions differ here: the
precision/recall family compares them with the data's labels after numpy's type promotion
(integer labels 0 and 1 match the strings "0" and "1"), ``confusion_matrix`` and
``cohen_kappa_score`` by Python equality, the last of duplicate labels taking the counts
(:meth:`ConfusionState.select`).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field as dc_field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._inputs import (
    EMPTY,
    INT_CHARS,
    code_chunks,
    common_int,
    encode_labels,
    inconsistent_lengths,
    label_codes,
    label_column,
    label_kind,
    label_pair,
    nonfinite_error,
    own_tables,
    plain_int_pair,
    same_labels,
    sample_weight as check_weights,
    sequence_length,
    shared_table,
    table_values,
    union_labels,
)
from .._kernels import confusion as kernel
from .._kernels.smallcount import small_state
from .._threads import resolve_n_threads, threads_for
from ..exceptions import invalid_parameter, warn, undefined_metric_warning
from . import base, multilabel
from .prf import prf_from_sums, row_sums, table_margins, table_trace

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, DTypeLike

    from .._typing import Label, Normalize

__all__ = [
    "ClassificationMetrics",
    "ConfusionState",
    "PairCounts",
    "PerClassMetrics",
    "accuracy",
    "accuracy_batch",
    "balanced_accuracy",
    "balanced_accuracy_batch",
    "card",
    "hamming",
    "kappa",
    "kappa_batch",
    "likelihood_ratios",
    "matrix",
    "mcc",
    "mcc_batch",
    "mcm",
    "oos",
    "py_value",
    "single_label_warning",
    "zero_one",
]

_PROBE = 1 << 16  # elements sampled to guess the value range of large inputs
DENSE_MAX_RANGE = 1024  # value ranges wider than this are encoded instead of tabled
_LANE_MIN = 1 << 16  # at least this many elements per lane
_MAX_LANES = 64
_CELL_BUDGET = 1 << 22  # table cells over all lanes (32 MiB)
_U64 = 1 << 64
# read-only "every label present" masks, sliced instead of allocated on the hot path
_ALL_PRESENT = np.ones(DENSE_MAX_RANGE, dtype=bool)
_ALL_PRESENT.setflags(write=False)


def py_value(v: object) -> Any:
    """numpy scalar -> Python scalar (labels keep their type: int, float, str, bool)."""
    return v.item() if isinstance(v, np.generic) else v


class ConfusionState(base.State):
    """A K x K confusion table over sorted label ``values``.

    Parameters
    ----------
    values : ndarray (K,)
        Sorted label values: those present in y_true or y_pred, plus requested labels.
    cm : ndarray (K, K)
        ``cm[i, j]`` = count (int64) or weight sum (float64; int64 for integer weights, as
        scikit-learn keeps them) of samples with true label
        ``values[i]`` and predicted label ``values[j]``.
    present : ndarray of bool (K,)
        Which values occur in y_true or y_pred (requested-only labels are False).
    n_samples : int
    weight_sum : float or None
        Sum of sample weights (None when unweighted).
    int_weights : bool
        Weights were integer/bool typed (scikit-learn then reports int64 matrices).
    in_true : ndarray of bool (K,)
        Which values occur in y_true.
    margins : ndarray (2, K) or None
        Weighted only: per-label weight sums over y_true (row 0) and y_pred (row 1), added
        in input order like ``np.bincount(..., weights=)`` (equal to the row/column sums of
        ``cm`` up to rounding).

    See Also
    --------
    ConfusionState.from_arrays : The state of one pass over data.
    fastmetrics.states.MultilabelState : The state of indicator matrices.
    fastmetrics.streaming.ConfusionAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.confusion_matrix : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import ConfusionState
    >>> s = ConfusionState.from_arrays([0, 1, 1], [0, 1, 0])
    >>> (s + ConfusionState.from_arrays([2], [2])).cm
    array([[1, 0, 0],
           [1, 1, 0],
           [0, 0, 1]])
    """

    kind = "confusion"
    n_samples: int  # a slot here, where State declares a read-only property
    __slots__ = ("values", "cm", "present", "n_samples", "weight_sum", "int_weights",
                 "in_true", "margins")

    def __init__(self, values: np.ndarray, cm: np.ndarray, present: np.ndarray, n_samples: int,
                 weight_sum: float | None = None, int_weights: bool = False,
                 in_true: np.ndarray | None = None, margins: np.ndarray | None = None) -> None:
        self.values = values
        self.cm = cm
        self.present = present
        self.n_samples = n_samples
        self.weight_sum = weight_sum
        self.int_weights = int_weights
        self.in_true = present if in_true is None else in_true
        self.margins = margins

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred: ArrayLike,
                    sample_weight: ArrayLike | None = None, n_threads: int | None = None, *,
                    allow_empty: bool = False) -> ConfusionState:
        """Count (y_true, y_pred) pairs (one kernel pass).

        The state holds the labels that occur in the data (:meth:`select` extends it with
        requested labels). Raises ``ValueError``/``TypeError`` naming the argument for bad
        input; empty input is an error unless ``allow_empty``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels (any dtype the classification functions take).
        y_pred : array-like of shape (n_samples,)
            Predicted labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.

        Returns
        -------
        state : ConfusionState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input (lengths, NaN or infinity, multilabel or multioutput targets, labels
            of text and numbers mixed, weights that are not numbers, ``n_threads < 1``),
            naming the argument, and for empty input unless ``allow_empty``.
        TypeError
            If ``n_threads`` is not an int or None, or ``sample_weight`` is a scalar
            (scikit-learn's ``InvalidParameterError``, also a ``ValueError``).

        See Also
        --------
        ConfusionState.merge : The state of two chunks.
        fastmetrics.streaming.ConfusionAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.confusion_matrix : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> a = ConfusionState.from_arrays([0, 1, 1], [0, 1, 0])
        >>> a.n_samples
        3
        """
        # Hot paths (the common call: two native 1-D integer arrays of one dtype, unweighted):
        # straight to a kernel. Small calls (per group, per resample: thousands of them) get
        # the whole state from one C call that checks the layout itself; None from it means
        # another input, a wide label range or a large input.
        res: Any
        if sample_weight is None:
            res = small_state(y_true, y_pred)
            if res is not None:
                if n_threads is not None:
                    resolve_n_threads(n_threads)  # validated all the same
                values, cm, in_true = res
                return cls(values, cm, _ALL_PRESENT[: values.shape[0]],
                           cast("np.ndarray", y_true).shape[0], None, False, in_true)
        if sample_weight is None and plain_int_pair(y_true, y_pred):
            y_true, y_pred = cast("np.ndarray", y_true), cast("np.ndarray", y_pred)
            res = kernel.dense_state(y_true, y_pred, DENSE_MAX_RANGE,
                                     threads_for("confusion", y_true.shape[0], n_threads))
            if res is not None:
                values, cm, in_true = res
                if values.dtype is not y_true.dtype:
                    values = values.astype(y_true.dtype)
                return cls(values, cm, _ALL_PRESENT[: values.shape[0]], y_true.shape[0], None,
                           False, in_true)
        # lanes of the text encoders, which run while the columns are read (a sequence's
        # length; any count gives the same codes)
        lanes = threads_for("labels", sequence_length(y_true), n_threads)
        yt = label_column(y_true, "y_true", lanes)
        yp = label_column(y_pred, "y_pred", lanes)
        n = yt.shape[0]
        if yp.shape[0] != n:
            w_len = None if sample_weight is None else np.shape(sample_weight)[:1]
            raise inconsistent_lengths(y_true=n, y_pred=yp.shape[0],
                                       sample_weight=w_len[0] if w_len else None)
        nt = threads_for("confusion", n, n_threads)
        if sample_weight is None and n:
            st = cls._shared_codes(yt, yp, nt)
            if st is not None:
                return st
        w, int_weights = check_weights(sample_weight, {"y_true": n, "y_pred": n},
                                       keep_int=True, check_values=False)
        if n == 0 and not allow_empty:
            raise ValueError(EMPTY)
        at, ap, out_dtype, kind = label_pair(yt, yp, lanes)
        if n == 0:
            return cls(np.empty(0, dtype=out_dtype), np.zeros((0, 0), dtype=np.int64),
                       np.zeros(0, dtype=bool), 0, None if w is None else 0.0, int_weights,
                       None, None if w is None else np.zeros((2, 0)))
        if kind == "int":
            if w is None:
                res = kernel.dense_state(at, ap, DENSE_MAX_RANGE, nt)
                if res is not None:
                    values, cm, in_true = res
                    return cls(values.astype(out_dtype, copy=False), cm,
                               _ALL_PRESENT[: values.shape[0]], n, None, False, in_true)
            else:
                res = _weighted_int(at, ap, w, nt)
                if res is not None:
                    values, cm, present, in_true, margins = res
                    st = cls(values.astype(out_dtype, copy=False), cm, present, n,
                             _wsum(w), int_weights, in_true, margins)
                    return st._int_sums(at, ap, sample_weight) if int_weights else st
        st = cls._encoded(at, ap, kind, out_dtype, w, int_weights, nt, lanes)
        return st._int_sums(at, ap, sample_weight) if int_weights else st

    def _int_sums(self, at: np.ndarray, ap: np.ndarray,
                  sample_weight: ArrayLike | None) -> ConfusionState:
        """With integer weights scikit-learn sums the table in int64, and so does this
        state: the float sums are exact below 2**53; above, the cells are recounted in int64
        (wrapping on overflow, as scikit-learn's int64 sums do)."""
        wi = np.asarray(sample_weight).reshape(-1)
        if float(np.abs(wi).max(initial=0)) * wi.shape[0] < 2.0**53:
            cm = self.cm.astype(np.int64)
        else:
            (ct, cp), vals = encode_labels(at, ap)
            full = np.zeros((vals.shape[0],) * 2, dtype=np.int64)
            with np.errstate(over="ignore"):
                np.add.at(full, (ct, cp), wi.astype(np.int64))
            # the state's labels are those that occur: every value of vals
            cm = full
        return ConfusionState(self.values, cm, self.present, self.n_samples, self.weight_sum,
                              True, self.in_true, self.margins)

    @classmethod
    def _shared_codes(cls, yt: Any, yp: Any, nt: int) -> ConfusionState | None:
        """Categorical labels whose codes index one table (:func:`shared_table`), or each
        its own (:func:`own_tables`), counted by their codes as integer labels are: the
        count also says which codes occur on each side, so no pass checks the codes first;
        only the values that occur are looked up, sorted and matched between the tables.
        None for other labels."""
        table = shared_table(yt, yp)
        tables = (table, table) if table is not None else own_tables(yt, yp)
        if tables is None:
            return None
        res = _dense_chunks(code_chunks(yt, yp), nt)
        if res is None:
            return None
        codes, cm, in_true = res
        return cls._from_tables(codes, cm, in_true, yt, yp, *tables)

    @classmethod
    def _from_tables(cls, codes: np.ndarray, cm: np.ndarray, in_true: np.ndarray, yt: Any,
                     yp: Any, tt: np.ndarray, tp: np.ndarray) -> ConfusionState:
        """The state of codes counted together (``codes``: the sorted code values that
        occur on either side, ``cm`` their table) whose rows index the table ``tt`` and
        columns ``tp`` (one table twice when they share it): each side's codes that occur
        looked up in its table, and the rows and columns moved onto the sorted union of
        those values (values a table holds twice merge)."""
        in_pred = cm.any(axis=0)
        vt = table_values(tt, codes[in_true], yt)
        vp = table_values(tp, codes[in_pred], yp)
        values = np.union1d(vt, vp)
        rt, rp = np.searchsorted(values, vt), np.searchsorted(values, vp)
        k = values.shape[0]
        out = np.zeros((k, k), dtype=cm.dtype)
        np.add.at(out, (rt[:, None], rp[None, :]), cm[np.ix_(in_true, in_pred)])
        seen = np.zeros(k, dtype=bool)
        seen[rt] = True
        return cls(values, out, _ALL_PRESENT[:k], yt.shape[0], None, False, seen)

    @classmethod
    def _encoded(cls, at: Any, ap: Any, kind: str, out_dtype: DTypeLike, w: np.ndarray | None,
                 int_weights: bool, nt: int,
                 n_lanes: int = 1) -> ConfusionState:
        """Encode prepared labels (integers of one dtype, strings, or :class:`Encoded`) in
        one hash pass each (:func:`label_codes`), count the first-seen codes with the kernel
        and move the small table onto the sorted labels; numeric labels come back as
        ``out_dtype``; ``n_lanes`` threads encode text labels."""
        (ct, cp), (wt, wp), values = label_codes(at, ap, n_threads=n_lanes)
        k = len(values)
        kt, kp = int(wt.shape[0]), int(wp.shape[0])  # codes of each side (some maybe unused)
        kc = max(kt, kp)
        margins: np.ndarray | None = None
        res: Any = None
        if kc <= DENSE_MAX_RANGE:
            res = (_dense_codes(ct, cp, kc, nt) if w is None
                   else _count_weighted(ct, cp, w, 0, _next_pow2(kc), nt))
        if res is None:  # very many distinct labels: bincount on the sorted codes (exact)
            st, sp = np.take(wt, ct), np.take(wp, cp)
            if w is None:
                cm = np.bincount(st * k + sp, minlength=k * k).reshape(k, k).astype(np.int64)
            else:
                if not np.isfinite(w).all():
                    raise nonfinite_error(w, "sample_weight")
                cm = np.bincount(st * k + sp, weights=w, minlength=k * k).reshape(k, k)
                margins = np.stack([np.bincount(st, weights=w, minlength=k),
                                    np.bincount(sp, weights=w, minlength=k)])
            in_true = np.zeros(k, dtype=bool)
            in_true[wt] = True
        else:
            table = res[0]
            cm = np.zeros((k, k), dtype=table.dtype)
            # unused codes (categories that do not occur) have empty rows and columns
            np.add.at(cm, (wt[:, None], wp[None, :]), table[:kt, :kp])
            in_true = np.zeros(k, dtype=bool)
            if w is None:
                in_true[wt[res[1][:kt]]] = True
            else:
                in_true[wt[res[1][0, :kt] > 0]] = True
                margins = np.zeros((2, k))
                np.add.at(margins[0], wt, res[2][0, :kt])
                np.add.at(margins[1], wp, res[2][1, :kp])
        present = np.ones(k, dtype=bool)
        if kind == "int":
            values = values.astype(out_dtype, copy=False)
        return cls(values, cm, present, at.shape[0], None if w is None else _wsum(w),
                   int_weights, in_true, margins)

    # ------------------------------------------------------------------ properties
    @property
    def weighted(self) -> bool:
        """Whether sample weights were given."""
        return self.weight_sum is not None

    @property
    def present_labels(self) -> np.ndarray:
        """The labels that occur in the data (not the requested-only ones)."""
        present: np.ndarray = self.values[self.present]
        return present

    @property
    def target_type(self) -> str:
        """'binary' or 'multiclass', by scikit-learn's rule (number of present labels)."""
        return "binary" if int(np.count_nonzero(self.present)) <= 2 else "multiclass"

    @property
    def total(self) -> Any:
        """The total count (or weight) every one-vs-rest table sums to."""
        return self.weight_sum if self.weighted else self.n_samples

    # ------------------------------------------------------------------ merge
    def _same_layout(self, other: Any) -> bool:
        # any two tables merge; over the same labels their counts simply add (the groups
        # of one grouped table share its label array)
        return same_labels(self.values, other.values)

    def merge(self, other: ConfusionState) -> ConfusionState:
        """The state of both inputs (label sets are unioned; labels of two integer dtypes
        are compared exactly, and labels of text and numbers never mix). An empty state is
        the identity.

        Parameters
        ----------
        other : ConfusionState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : ConfusionState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        ConfusionState.from_arrays : The state of one chunk.
        fastmetrics.streaming.ConfusionAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.confusion_matrix : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> a = ConfusionState.from_arrays([0, 1, 1], [0, 1, 0])
        >>> b = ConfusionState.from_arrays([2], [2])
        >>> a.merge(b).values
        array([0, 1, 2])
        """
        self._check_mergeable(other)
        if other.n_samples == 0 and other.values.shape[0] == 0:
            return self
        if self.n_samples == 0 and self.values.shape[0] == 0:
            return other
        values, pos_a, pos_b = union_labels(self.values, other.values)
        k = len(values)
        weighted = self.weighted or other.weighted
        int_sums = self.cm.dtype.kind == other.cm.dtype.kind == "i"
        dtype = np.int64 if int_sums else np.float64
        cm = np.zeros((k, k), dtype=dtype)
        present = np.zeros(k, dtype=bool)
        in_true = np.zeros(k, dtype=bool)
        margins = np.zeros((2, k)) if weighted else None
        for s, ix in ((self, pos_a), (other, pos_b)):
            sel = slice(None) if ix is None else ix
            if ix is None:
                cm += s.cm
            else:
                cm[np.ix_(ix, ix)] += s.cm
            present[sel] |= s.present
            in_true[sel] |= s.in_true
            if margins is not None:
                margins[:, sel] += s.margins if s.margins is not None else np.stack(
                    [s.cm.sum(axis=1), s.cm.sum(axis=0)])
        ws = None
        if weighted:
            # weighted: weight_sum is set
            ws = (cast(float, self.weight_sum) if self.weighted else float(self.n_samples)) + (
                cast(float, other.weight_sum) if other.weighted else float(other.n_samples))
        return ConfusionState(values, cm, present, self.n_samples + other.n_samples, ws,
                              self.int_weights and other.int_weights, in_true, margins)

    @classmethod
    def merge_all(cls, states: Sequence[ConfusionState]) -> ConfusionState:
        """The state of all inputs' samples, the same as merging them pairwise from left to
        right; unweighted tables over the same labels are added in one walk.

        Parameters
        ----------
        states : sequence of ConfusionState
            At least one state.

        Returns
        -------
        state : ConfusionState
            The state of all inputs' samples (a single input is returned as it is).

        See Also
        --------
        ConfusionState.merge : Two states.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> parts = [ConfusionState.from_arrays([0, 1], [0, 0]) for _ in range(3)]
        >>> ConfusionState.merge_all(parts).cm
        array([[3, 0],
               [3, 0]])
        """
        states = cls._merge_inputs(states)
        first = states[0]
        if len(states) < 3 or first.weighted or not all(
                not s.weighted and first.same_layout(s) for s in states[1:]):
            return super().merge_all(states)
        ints = all(s.cm.dtype.kind == "i" for s in states)
        cm = first.cm.astype(np.int64 if ints else np.float64)  # a copy
        present, in_true = first.present.copy(), first.in_true.copy()
        for s in states[1:]:  # in order: float tables add as the pairwise fold does
            cm += s.cm
            present |= s.present
            in_true |= s.in_true
        return ConfusionState(first.values, cm, present, sum(s.n_samples for s in states),
                              None, all(s.int_weights for s in states), in_true, None)

    @classmethod
    def from_pair_counts(cls, counts: np.ndarray, lo: int, shift: int, n_samples: int,
                         values: np.ndarray | None = None, dtype: DTypeLike | None = None
                         ) -> ConfusionState:
        """The state of ``(2**shift)**2`` pair counts over the label offsets from ``lo``
        (``counts[(a << shift) | b]``: true label ``lo + a`` predicted ``lo + b``): over
        the sorted label ``values`` when given (every count must lie on them), else over
        the labels that occur, in ``dtype``.

        Parameters
        ----------
        counts : ndarray of int64 of shape (4 ** shift,)
            ``counts[(a << shift) | b]``: the samples of true label ``lo + a`` predicted ``lo + b``.
        lo : int
            The smallest label.
        shift : int
            Bits of a label offset.
        n_samples : int
            The total of ``counts``.
        values : ndarray or None, default=None
            The sorted labels of the state (every count must lie on them); None: the labels that
            occur.
        dtype : numpy dtype or None, default=None
            The dtype of the label values (None: int64).

        Returns
        -------
        state : ConfusionState
            The state of these counts.

        See Also
        --------
        ConfusionState.from_arrays : The state of label arrays.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import ConfusionState
        >>> counts = np.zeros(4, dtype=np.int64)
        >>> counts[[0b00, 0b11, 0b10]] = 1  # (0, 0), (1, 1), (1, 0)
        >>> ConfusionState.from_pair_counts(counts, 0, 1, 3).cm
        array([[1, 0],
               [1, 1]])
        """
        k = 1 << shift
        table = counts.reshape(k, k)
        if values is None:
            idx = np.flatnonzero((table.sum(axis=1) != 0) | (table.sum(axis=0) != 0))
            values = (idx + lo).astype(dtype)
        else:
            idx = values.astype(np.int64) - lo
        cm = table[np.ix_(idx, idx)]
        rows = cm.sum(axis=1) != 0
        return cls(values, cm, rows | (cm.sum(axis=0) != 0), n_samples, None, False, rows)

    def over(self, values: np.ndarray) -> ConfusionState:
        """This state over exactly the sorted label ``values`` (zero rows for those it has
        not seen); ``ValueError`` naming its labels that are not among them.

        Parameters
        ----------
        values : ndarray
            Sorted label values, holding every label this state has seen.

        Returns
        -------
        state : ConfusionState
            This state's table over ``values`` (zero rows and columns for those it has not seen).

        Raises
        ------
        ValueError
            If some label of this state is not among ``values``.

        See Also
        --------
        ConfusionState.select : Extends the table by requested labels.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import ConfusionState
        >>> ConfusionState.from_arrays([0, 2], [0, 0]).over(np.array([0, 1, 2])).cm
        array([[1, 0, 0],
               [0, 0, 0],
               [1, 0, 0]])
        """
        if self.values.shape[0] and label_kind(self.values) != label_kind(values):
            raise ValueError(
                f"y_true/y_pred hold labels of another type ({self.values.dtype}) than the "
                f"fixed labels ({values.dtype})"
            )
        v, x = common_int(values, self.values)
        pos = np.minimum(np.searchsorted(v, x), values.shape[0] - 1)
        found = v[pos] == x
        if not found.all():
            raise ValueError(
                "y_true/y_pred contain labels outside the fixed labels: "
                f"{self.values[~found][:10].tolist()}"
            )
        k = values.shape[0]
        cm = np.zeros((k, k), dtype=self.cm.dtype)
        cm[np.ix_(pos, pos)] = self.cm
        present = np.zeros(k, dtype=bool)
        present[pos] = self.present
        in_true = np.zeros(k, dtype=bool)
        in_true[pos] = self.in_true
        margins = None
        if self.margins is not None:
            margins = np.zeros((2, k))
            margins[:, pos] = self.margins
        return ConfusionState(values, cm, present, self.n_samples, self.weight_sum,
                              self.int_weights, in_true, margins)

    def relabel(self, values: np.ndarray) -> ConfusionState:
        """This state with its label values replaced, one for one, by ``values`` (labels
        that become equal are merged, and the labels sorted again).

        Parameters
        ----------
        values : ndarray of shape (n_labels,)
            The new value of each label, in the order of ``self.values``.

        Returns
        -------
        state : ConfusionState
            The state with its labels renamed (labels that become equal are merged, the labels
            sorted again).

        See Also
        --------
        ConfusionState.over : The same table over more labels.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import ConfusionState
        >>> s = ConfusionState.from_arrays([0, 1, 2], [0, 2, 1])
        >>> s.relabel(np.array([0, 1, 1])).cm
        array([[1, 0],
               [0, 2]])
        """
        u, inv = np.unique(values, return_inverse=True)
        k = u.shape[0]
        cm = np.zeros((k, k), dtype=self.cm.dtype)
        np.add.at(cm, (inv[:, None], inv[None, :]), self.cm)
        present = np.zeros(k, dtype=bool)
        np.logical_or.at(present, inv, self.present)
        in_true = np.zeros(k, dtype=bool)
        np.logical_or.at(in_true, inv, self.in_true)
        margins = None
        if self.margins is not None:
            margins = np.zeros((2, k))
            for row in (0, 1):  # the true then the predicted weight of each label
                np.add.at(margins[row], inv, self.margins[row])
        return ConfusionState(u, cm, present, self.n_samples, self.weight_sum,
                              self.int_weights, in_true, margins)

    # ------------------------------------------------------------------ requested labels
    def select(self, labels: ArrayLike | Sequence[Label], *, rule: str = "numpy"
               ) -> tuple[ConfusionState, np.ndarray]:
        """This state extended (zero rows and columns) to hold every label of ``labels``,
        and the positions of ``labels`` in it.

        ``rule="numpy"`` (scikit-learn's precision/recall family): labels and data labels
        are compared after numpy's type promotion of the two, so 0 matches "0" and 1.0;
        duplicates repeat their row. ``rule="python"`` (``confusion_matrix``,
        ``cohen_kappa_score``): compared by Python equality, labels of another type (the
        string "0" against the integer 0) get empty rows, and of duplicate labels only the
        last takes the data's counts (the others get an empty row, position -1).

        Parameters
        ----------
        labels : array-like
            The requested labels.
        rule : {"numpy", "python"}, default="numpy"
            How requested labels are compared with the data's (see above).

        Returns
        -------
        state : ConfusionState
            This state with a zero row and column for every requested label it has not seen.
        positions : ndarray of int64
            The position of each requested label in ``state.values`` (-1 for an empty row).

        See Also
        --------
        ConfusionState.over : The table over given label values.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> s, pos = ConfusionState.from_arrays([0, 1], [0, 0]).select([1, 5])
        >>> s.values, pos
        (array([0, 1, 5]), array([1, 2]))
        """
        lab = labels if type(labels) is np.ndarray else np.asarray(labels)
        lab = lab.reshape(-1)
        if lab.size == 0:
            return self, np.zeros(0, dtype=np.intp)
        if rule == "python":
            return self, self._python_positions(lab)
        vals = self.values
        if lab.dtype.kind in "iu" and vals.dtype.kind in "iu":
            vals, lab = common_int(vals, lab)
        try:
            joined = np.concatenate([vals, lab])  # numpy's promotion of the two
        except (TypeError, ValueError) as exc:
            raise ValueError(f"labels {lab!r} cannot be compared with the data labels") from exc
        vals, lab = vals.astype(joined.dtype, copy=False), lab.astype(joined.dtype, copy=False)
        try:
            pos = np.searchsorted(vals, lab)
        except TypeError as exc:
            raise ValueError(f"labels {lab!r} cannot be compared with the data labels") from exc
        pos_c = np.minimum(pos, len(vals) - 1)
        found = vals[pos_c] == lab if len(vals) else np.zeros(lab.shape, dtype=bool)
        if np.all(found):
            if vals is self.values or vals.dtype == self.values.dtype:
                return self, pos_c
            return self._relabelled(vals), pos_c
        extra = np.unique(lab[~found])
        k0 = len(vals)
        new_vals = np.concatenate([vals, extra])
        order = np.argsort(new_vals, kind="stable")
        new_vals = new_vals[order]
        k = len(new_vals)
        inv = np.empty(k, dtype=np.intp)
        inv[order] = np.arange(k)
        old = inv[:k0]
        cm = np.zeros((k, k), dtype=self.cm.dtype)
        cm[np.ix_(old, old)] = self.cm
        present = np.zeros(k, dtype=bool)
        present[old] = self.present
        in_true = np.zeros(k, dtype=bool)
        in_true[old] = self.in_true
        margins = None
        if self.margins is not None:
            margins = np.zeros((2, k))
            margins[:, old] = self.margins
        ext = ConfusionState(new_vals, cm, present, self.n_samples, self.weight_sum,
                             self.int_weights, in_true, margins)
        return ext, np.searchsorted(new_vals, lab)

    def _relabelled(self, values: np.ndarray) -> ConfusionState:
        return ConfusionState(values, self.cm, self.present, self.n_samples, self.weight_sum,
                              self.int_weights, self.in_true, self.margins)

    def _python_positions(self, lab: np.ndarray) -> np.ndarray:
        """Positions of ``lab`` among the values by Python equality (-1: no row), the last
        of duplicate labels taking the row (scikit-learn's ``{label: index}`` dict)."""
        index = {v: i for i, v in enumerate(self.values.tolist())}
        want = lab.tolist()
        last = {}
        for j, v in enumerate(want):
            try:
                last[v] = j
            except TypeError:  # unhashable label
                raise ValueError(f"labels contains an unhashable value {v!r}") from None
        return np.array([index.get(v, -1) if last[v] == j else -1 for j, v in enumerate(want)],
                        dtype=np.intp)

    # ------------------------------------------------------------------ per-label sums
    def label_sums(self, labels: ArrayLike | None, average: str | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, None]:
        """Per-label ``(tp, pred_sum, true_sum, None)`` for ``labels`` (default: present
        labels), with scikit-learn's dtypes: int64 unweighted, float64 weighted, and its
        float64 quirk when no sample at all is correctly predicted.

        Parameters
        ----------
        labels : array-like or None
            The labels to sum (None: the labels that occur).
        average : str or None, default=None
            The average asked for (scikit-learn's dtype quirk depends on it).

        Returns
        -------
        tp_sum : ndarray
            True positives of each label.
        pred_sum : ndarray
            Predictions of each label.
        true_sum : ndarray
            True samples of each label.
        sample_weights : None
            Always None (the multilabel state's per-sample weights take this place).

        See Also
        --------
        fastmetrics.precision_recall_fscore_support : Derived from these sums.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> tp, pred, true, _ = ConfusionState.from_arrays([0, 1, 1], [0, 1, 0]).label_sums(None)
        >>> tp, pred, true
        (array([1, 1]), array([2, 1]), array([1, 2]))
        """
        if labels is None:
            st, idx = self, None if self.all_present() else np.flatnonzero(self.present)
        else:
            st, idx = self.select(labels)
        cm = st.cm
        diag = cm.diagonal()
        if st.margins is not None:  # weighted: sums in scikit-learn's (bincount's) order
            tp, pred, true = diag, st.margins[1], st.margins[0]
        else:
            tp, pred, true = diag, np.add.reduce(cm, 0), np.add.reduce(cm, 1)
        if idx is not None:
            tp, pred, true = tp[idx], pred[idx], true[idx]
        if st.weighted:
            tp, pred, true = (np.asarray(x, dtype=np.float64) for x in (tp, pred, true))
            # scikit-learn recovers these as tp + fp and tp + fn from its 2 x 2 matrices
            pred = tp + (pred - tp)
            true = tp + (true - tp)
        elif not np.count_nonzero(diag):
            # scikit-learn's multilabel_confusion_matrix makes tp a float zero array when no
            # sample is predicted correctly, which turns every derived count float64.
            tp, pred, true = (np.asarray(x, dtype=np.float64) for x in (tp, pred, true))
        return tp, pred, true, None

    def present_cm(self) -> np.ndarray:
        """The table over the labels that occur (scikit-learn's default label set).

        Returns
        -------
        cm : ndarray of shape (n_present, n_present)
            The table over the labels that occur in the data.

        See Also
        --------
        fastmetrics.confusion_matrix : Returns this table by default.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import ConfusionState
        >>> s, _ = ConfusionState.from_arrays([0, 1], [0, 0]).select([7])
        >>> s.present_cm()
        array([[1, 0],
               [1, 0]])
        """
        if self.all_present():
            return self.cm
        cm: np.ndarray = self.cm[np.ix_(self.present, self.present)]
        return cm

    def all_present(self) -> bool:
        """Every label of the table occurs (a view of the shared all-true mask says so
        without a reduction: small calls feel every microsecond).

        Returns
        -------
        all_present : bool
            True when the table holds no requested-only label.

        See Also
        --------
        ConfusionState.present_cm : The table over the labels that occur.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> s = ConfusionState.from_arrays([0, 1], [0, 0])
        >>> s.all_present(), s.select([7])[0].all_present()
        (True, False)
        """
        return self.present.base is _ALL_PRESENT or bool(self.present.all())

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        if self.values.dtype.kind not in base.LABEL_KINDS:
            raise TypeError(
                f"labels of dtype {self.values.dtype} cannot be exported as plain arrays"
            )
        return {
            "values": self.values,
            "values_dtype": self.values.dtype.str,
            "cm": self.cm,
            "present": self.present,
            "in_true": self.in_true,
            "n_samples": int(self.n_samples),
            "weighted": self.weighted,
            "weight_sum": float(cast(float, self.weight_sum)) if self.weighted else 0.0,
            "int_weights": bool(self.int_weights),
            "margins": self.margins if self.margins is not None else np.zeros((2, 0)),
        }

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> ConfusionState:
        values = base.labels(d, "values")
        k = values.shape[0]
        weighted = base.flag(d, "weighted")
        int_sums = not weighted or base.flag(d, "int_weights")
        cm = base.field(d, "cm", kinds="iu" if int_sums else "f", ndim=2, shape=(k, k),
                        dtype=np.int64 if int_sums else np.float64)
        present = base.field(d, "present", kinds="b", ndim=1, shape=(k,), dtype=bool)
        in_true = base.field(d, "in_true", kinds="b", ndim=1, shape=(k,), dtype=bool)
        n = base.integer(d, "n_samples")
        if k > 1 and not np.all(values[1:] > values[:-1]):
            raise base.StateError("the labels of a confusion state must be sorted and unique")
        if np.any(in_true & ~present):
            raise base.StateError("a label of y_true must be a present label")
        rows, cols = cm.sum(axis=1), cm.sum(axis=0)
        if weighted:
            if not np.isfinite(cm).all():
                raise base.StateError("weighted counts must be finite")
            margins = base.field(d, "margins", kinds="f", ndim=2, shape=(2, k),
                                 dtype=np.float64)
            weight_sum = base.number(d, "weight_sum")
            # the totals agree up to the rounding of sums taken in another order (integer
            # tables beyond 2**62 may have wrapped, as scikit-learn's int64 sums do)
            tol = 1e-6 * max(1.0, abs(weight_sum), float(np.abs(cm).sum(dtype=np.float64)))
            if abs(weight_sum) < 2.0**62 and (
                    abs(float(cm.sum(dtype=np.float64)) - weight_sum) > tol
                    or np.abs(margins[0] - rows).max(initial=0.0) > tol
                    or np.abs(margins[1] - cols).max(initial=0.0) > tol):
                raise base.StateError("the weight totals and margins disagree with the table")
            if np.any((rows != 0) & ~in_true):
                raise base.StateError("a row with weight must be a label of y_true")
            if np.any(((rows != 0) | (cols != 0)) & ~present):
                raise base.StateError("a label with weight must be a present label")
        else:
            if cm.size and cm.min() < 0:
                raise base.StateError("counts must be non-negative")
            if int(cm.sum()) != n:
                raise base.StateError(
                    f"the counts sum to {int(cm.sum())} but n_samples is {n}")
            # unweighted, the labels that occur are exactly those with counts
            if not (np.array_equal(in_true, rows > 0)
                    and np.array_equal(present & ((rows > 0) | (cols > 0)), present)
                    and np.all(present[(rows > 0) | (cols > 0)])):
                raise base.StateError(
                    "unweighted, the present labels and those of y_true are the ones with counts")
            margins, weight_sum = None, None
        return cls(values, cm.copy(), present.copy(), n, weight_sum, base.flag(d, "int_weights"),
                   in_true.copy(), None if margins is None else margins.copy())


# ---------------------------------------------------------------------- running pair counts

_TABLE_SPAN = 64  # integer labels spanning at most this many values take the fast path
_U64_CHARS = frozenset(c for c in "LQ" if np.dtype(c) == np.uint64)


class PairCounts:
    """Running pair counts over the offsets ``0 .. 2**shift - 1`` from ``lo``: the fast
    update path of a streaming confusion state whose integer labels span at most 64 values.

    With fixed labels, only their offsets are ``allowed`` (a count elsewhere is an error).
    With discovered labels the table covers the range of the first chunk's labels (at least
    16 wide), every offset is allowed, and only chunks of ``dtype`` are counted into it (so
    the labels keep the one-shot dtype). :meth:`count` runs without the owner's lock;
    :meth:`add` and :meth:`take` run under it."""

    def __init__(self, lo: int, shift: int, values: np.ndarray | None,
                 dtype: DTypeLike | None = None) -> None:
        self.lo = lo
        self.mod_lo = lo % _U64  # the kernel subtracts modulo 2**64
        self.shift = shift
        self.dtype = dtype
        # modulo 2**64 a uint64 value v >= 2**63 would land on the negative label v - 2**64
        self.skip = _U64_CHARS if lo < 0 else frozenset()
        self.values = values
        self.allowed = np.ones(1 << shift, dtype=bool)
        if values is not None:
            self.allowed[:] = False
            self.allowed[values.astype(np.int64) - lo] = True
        self.counts = np.zeros(1 << (2 * shift), dtype=np.int64)
        self.n = 0

    @classmethod
    def around(cls, values: np.ndarray | None, fixed: bool) -> PairCounts | None:
        """A table for sorted integer label ``values`` if they fit one: the fixed labels, or
        (``fixed=False``) those of a first unweighted chunk, whose dtype it then keeps."""
        if values is None or values.dtype.char not in INT_CHARS:
            return None
        lo, hi = int(values[0]), int(values[-1])
        if hi - lo >= _TABLE_SPAN or hi >= 1 << 63:
            return None
        if fixed:
            return cls(lo, (hi - lo).bit_length(), values)
        return cls(lo, max(4, (hi - lo).bit_length()), None, values.dtype)

    def count(self, y_true: Any, y_pred: Any,
              n_threads: int | None = None) -> np.ndarray | None:
        """The pair counts of one unweighted chunk, or None when the table does not take it
        (not a native pair of its integer dtype, or a value outside the table)."""
        if not (plain_int_pair(y_true, y_pred) and y_true.dtype.char not in self.skip
                and (self.dtype is None or y_true.dtype == self.dtype)):
            return None
        return kernel.count_fixed(y_true, y_pred, self.mod_lo, self.shift, self.allowed,
                                  threads_for("confusion", y_true.shape[0], n_threads))

    def add(self, counts: np.ndarray, n: int) -> None:
        """Add the ``counts`` of ``n`` samples (from :meth:`count`)."""
        self.counts += counts
        self.n += n

    def take(self) -> ConfusionState | None:
        """The counts so far as a state (None when empty), and a clean table."""
        if not self.n:
            return None
        st = ConfusionState.from_pair_counts(self.counts, self.lo, self.shift, self.n,
                                             self.values, self.dtype)
        self.counts = np.zeros_like(self.counts)
        self.n = 0
        return st


# ---------------------------------------------------------------------- counting helpers


def _next_pow2(x: int) -> int:
    return 1 << max(0, (x - 1).bit_length())


def _n_lanes(n: int, cells: int) -> int:
    return max(1, min(_MAX_LANES, n // _LANE_MIN, _CELL_BUDGET // cells))


def _dense_codes(ct: np.ndarray, cp: np.ndarray, kc: int, nt: int
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """Unweighted counts of codes ``0 .. kc - 1``: (table kc x kc, which codes occur in
    ct), from the dense kernel (which keeps the codes that occur)."""
    if ct.dtype != cp.dtype:
        common = np.promote_types(ct.dtype, cp.dtype)
        ct, cp = ct.astype(common, copy=False), cp.astype(common, copy=False)
    res = kernel.dense_state(ct, cp, DENSE_MAX_RANGE, nt)
    if res is None:
        return None
    values, cm, in_true = res
    if values.shape[0] == kc:  # every code occurs (first-seen codes always do)
        return cm, in_true
    full = np.zeros((kc, kc), dtype=cm.dtype)
    full[np.ix_(values, values)] = cm
    seen = np.zeros(kc, dtype=bool)
    seen[values] = in_true
    return full, seen


def _dense_chunks(pairs: list[tuple[np.ndarray, np.ndarray]], nt: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The dense kernel's ``(values, table, in_true)`` of integer codes given as pairs of
    chunks (:func:`code_chunks`), each pair counted where it lies and the small tables
    added on the union of their values; None when a pair spans too wide a range."""
    parts = []
    for ct, cp in pairs:
        if ct.dtype != cp.dtype:
            common = np.promote_types(ct.dtype, cp.dtype)
            ct, cp = ct.astype(common), cp.astype(common)
        res = kernel.dense_state(ct, cp, DENSE_MAX_RANGE, nt)
        if res is None:
            return None
        parts.append(res)
    if len(parts) == 1:
        return parts[0]
    values = parts[0][0]
    for v, _, _ in parts[1:]:
        values = np.union1d(values, v)
    k = values.shape[0]
    cm = np.zeros((k, k), dtype=np.int64)
    in_true = np.zeros(k, dtype=bool)
    for v, c, t in parts:
        at = np.searchsorted(values, v)
        cm[np.ix_(at, at)] += c
        in_true[at] |= t
    return values, cm, in_true


def _wsum(w: np.ndarray) -> float:
    return float(np.sum(w, dtype=np.float64))


def _count_weighted(yt: np.ndarray, yp: np.ndarray, w: np.ndarray, lo: int, k: int, nt: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Weighted kernel over the value range [lo, lo + k): (table k x k, seen (2, k),
    margins (2, k)), or None when a value falls outside the range."""
    n = yt.shape[0]
    lanes = _n_lanes(n, k * k + 4 * k)
    tables = np.zeros((lanes, k * k), dtype=np.float64)
    seen = np.zeros((lanes, 2 * k), dtype=np.int64)
    margins = np.zeros((lanes, 2 * k), dtype=np.float64)
    bad = np.full((lanes, 2), -1, dtype=np.int64)
    kernel.count_weighted(yt, yp, w, lo % _U64, k, tables, seen, margins, bad, nt)
    if bad[:, 0].max() >= 0:
        if (bad[:, 1][bad[:, 0] >= 0] == kernel.BAD_WEIGHT).any():
            raise nonfinite_error(w, "sample_weight")
        return None
    # lanes are summed in lane order: the same bits whatever the thread count
    return (np.add.reduce(tables, axis=0).reshape(k, k), seen.sum(axis=0).reshape(2, k),
            np.add.reduce(margins, axis=0).reshape(2, k))


def _minmax(a: np.ndarray, stop: int | None = None) -> Any:
    return kernel.minmax(a, a.shape[0] if stop is None else stop)


def _weighted_int(at: np.ndarray, ap: np.ndarray, w: np.ndarray, nt: int
                  ) -> tuple[np.ndarray, ...] | None:
    """Weighted dense-table path for integer arrays: (values in the arrays' dtype, cm,
    present, in_true, margins) over the values that occur, or None when the value range is
    too wide."""
    n = at.shape[0]
    exact = n <= _PROBE
    lo_t, hi_t = _minmax(at, min(n, _PROBE))
    lo_p, hi_p = _minmax(ap, min(n, _PROBE))
    lo, hi = min(lo_t, lo_p), max(hi_t, hi_p)
    if not exact:
        lo = min(lo, 0)
    res = None
    if hi - lo < DENSE_MAX_RANGE:
        k = _next_pow2(hi - lo + 1)
        res = _count_weighted(at, ap, w, lo, k if exact else max(k, 16), nt)
    if res is None and not exact:  # a value beyond the probed range: measure it exactly
        lo_t, hi_t = _minmax(at)
        lo_p, hi_p = _minmax(ap)
        lo, hi = min(lo_t, lo_p), max(hi_t, hi_p)
        if hi - lo < DENSE_MAX_RANGE:
            res = _count_weighted(at, ap, w, lo, _next_pow2(hi - lo + 1), nt)
    if res is None:
        return None
    table, seen, margins = res
    in_true = seen[0] > 0
    present = in_true | (seen[1] > 0)
    idx = np.flatnonzero(present)
    # in the labels' own dtype: lo may be a uint64 value beyond int64
    values = np.asarray(lo, dtype=at.dtype) + idx.astype(at.dtype)
    return values, table[np.ix_(idx, idx)], present[idx], in_true[idx], margins[:, idx]


# ---------------------------------------------------------------------- derivations


def single_label_warning() -> None:
    warn(
        "A single label was found in 'y_true' and 'y_pred'. For the confusion matrix to "
        "have the correct shape, use the 'labels' parameter to pass all known labels.",
        UserWarning)


def _labels_only(state: Any) -> None:
    """The derivations of a K x K table: scikit-learn refuses indicator matrices there."""
    if isinstance(state, multilabel.MultilabelState):
        raise ValueError("multilabel-indicator is not supported")


def matrix(state: ConfusionState, labels: ArrayLike | None = None,
           normalize: Normalize | None = None) -> np.ndarray:
    """``confusion_matrix``: the table over ``labels`` (default: the present labels)."""
    _labels_only(state)
    if normalize not in (None, "true", "pred", "all"):
        raise ValueError(
            f"normalize must be one of 'true', 'pred', 'all' or None, got {normalize!r}"
        )
    if labels is None:
        cm = state.present_cm()
    else:
        lab = np.asarray(labels).reshape(-1)
        if lab.size == 0:
            raise ValueError("'labels' should contain at least one label.")
        try:
            in_y_true = np.intersect1d(state.values[state.in_true], lab).size > 0
        except TypeError:
            in_y_true = bool(np.any(state._python_positions(lab)[:, None]
                                    == np.flatnonzero(state.in_true)))
        if not in_y_true:
            raise ValueError("At least one label specified must be in y_true")
        idx = state.select(lab, rule="python")[1]
        k = idx.shape[0]
        cm = np.zeros((k, k), dtype=state.cm.dtype)
        ok = idx >= 0
        cm[np.ix_(ok, ok)] = state.cm[np.ix_(idx[ok], idx[ok])]
    if state.weighted and not state.int_weights:
        cm = np.array(cm, dtype=np.float64)
    else:
        cm = np.array(cm, dtype=np.int64)
    if normalize is not None:
        with np.errstate(all="ignore"):
            if normalize == "true":
                cm = cm / cm.sum(axis=1, keepdims=True)
            elif normalize == "pred":
                cm = cm / cm.sum(axis=0, keepdims=True)
            else:
                cm = cm / cm.sum()
            cm = np.nan_to_num(cm)
    if cm.shape == (1, 1):
        single_label_warning()
    return cm


def mcm(state: ConfusionState | multilabel.MultilabelState, labels: ArrayLike | None = None,
        samplewise: bool = False) -> np.ndarray:
    """``multilabel_confusion_matrix``: one ``[[tn, fp], [fn, tp]]`` per label (of
    indicator matrices: also per sample)."""
    if isinstance(state, multilabel.MultilabelState):
        return multilabel.mcm(state, labels, samplewise)
    if samplewise:
        raise ValueError(
            "Samplewise metrics are not available outside of multilabel classification."
        )
    tp, pred, true, _ = state.label_sums(labels)
    fp = pred - tp
    fn = true - tp
    tn = state.total - tp - fp - fn
    table: np.ndarray = np.array([tn, fp, fn, tp]).T.reshape(-1, 2, 2)
    return table


def accuracy(state: ConfusionState | multilabel.MultilabelState,
             normalize: bool = True) -> float:
    """``accuracy_score``: the fraction (or number, or weight) of correct predictions (of
    indicator matrices: of rows predicted exactly)."""
    if isinstance(state, multilabel.MultilabelState):
        return multilabel.accuracy(state, normalize)
    correct = np.trace(state.cm)
    if not state.weighted:
        return float(correct / state.n_samples) if normalize else float(correct)
    if not normalize:
        return float(correct)
    if state.weight_sum == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return float(correct / state.weight_sum)


def accuracy_batch(state: ConfusionState, cms: np.ndarray, normalize: bool = True
                   ) -> np.ndarray | None:
    """:func:`accuracy` of many unweighted tables over ``state``'s labels (``cms`` of shape
    (B, K, K)): one value per table, each over its own number of samples."""
    if state.weighted:
        return None
    correct: np.ndarray = table_trace(cms)
    if not normalize:
        return correct.astype(np.float64)
    return np.asarray(correct / row_sums(table_margins(cms)[0]), dtype=np.float64)


def zero_one(state: ConfusionState | multilabel.MultilabelState,
             normalize: bool = True) -> float:
    """``zero_one_loss``: the fraction (or number, or weight) of wrong predictions."""
    if isinstance(state, multilabel.MultilabelState):
        return multilabel.zero_one(state, normalize)
    score = accuracy(state, normalize)
    if normalize:
        return 1 - score
    return float(state.total - score)


def hamming(state: ConfusionState | multilabel.MultilabelState) -> float:
    """``hamming_loss``: the (weighted) fraction of wrong predictions (of indicator
    matrices: of wrong cells)."""
    if isinstance(state, multilabel.MultilabelState):
        return multilabel.hamming(state)
    cm = state.cm
    if not state.weighted:
        return float((state.n_samples - np.trace(cm)) / state.n_samples)
    # the off-diagonal cells summed (total minus diagonal would cancel digits)
    wrong = cm[~np.eye(cm.shape[0], dtype=bool)].sum()
    if state.weight_sum == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return float(wrong / state.weight_sum)


_LR_DICT_MSG = (
    "The dictionary passed as `replace_undefined_by` needs to be in the form "
    "`{{'LR+': `value_1`, 'LR-': `value_2`}}` where the value for `LR+` ranges "
    "from `1.0` to `np.inf` or is `np.nan` and the value for `LR-` ranges from "
    "`0.0` to `1.0` or is `np.nan`; got `{}`."
)
_LR_TAIL = ("Use the `replace_undefined_by` param to control this behavior. To suppress this "
            "warning or turn it into an error, see Python's `warnings` module and "
            "`warnings.catch_warnings()`.")


def _lr_replacements(replace_undefined_by: Any) -> tuple[Any, Any]:
    """scikit-learn's checks of ``replace_undefined_by``: the (LR+, LR-) to report when
    undefined."""
    ok = isinstance(replace_undefined_by, dict) or (
        isinstance(replace_undefined_by, numbers.Real)
        and replace_undefined_by in {1.0, np.nan})  # identity for nan, as scikit-learn
    if not ok:
        raise invalid_parameter(
            "The 'replace_undefined_by' parameter of class_likelihood_ratios must be a "
            "float among {1.0, nan} or an instance of 'dict'. Got "
            f"{replace_undefined_by!r} instead."
        )
    if not isinstance(replace_undefined_by, dict) and replace_undefined_by == 1.0:
        replace_undefined_by = {"LR+": 1.0, "LR-": 1.0}
    if not isinstance(replace_undefined_by, dict):
        return replace_undefined_by, replace_undefined_by
    msg = _LR_DICT_MSG.format(replace_undefined_by)
    if "LR+" not in replace_undefined_by or "LR-" not in replace_undefined_by:
        raise ValueError(msg)
    pos, neg = replace_undefined_by["LR+"], replace_undefined_by["LR-"]
    # NaN passes (its comparisons are false), as in scikit-learn's check_scalar
    if not isinstance(pos, numbers.Real) or pos < 1.0:
        raise ValueError(msg)
    if not isinstance(neg, numbers.Real) or float(neg) < 0.0 or float(neg) > 1.0:
        raise ValueError(msg)
    return pos, neg


def likelihood_ratios(state: ConfusionState, labels: ArrayLike | None = None,
                      replace_undefined_by: Any = np.nan) -> tuple[float, float]:
    """``class_likelihood_ratios``: ``(LR+, LR-)`` of a binary problem."""
    if state.target_type != "binary":
        raise ValueError(
            "class_likelihood_ratios only supports binary classification problems, got "
            f"targets of type: {state.target_type}"
        )
    lr_pos, lr_neg = _lr_replacements(replace_undefined_by)
    cm = matrix(state, labels)
    if cm.size != 4:  # scikit-learn unpacks the table into four cells
        raise ValueError(
            f"class_likelihood_ratios needs a 2 x 2 confusion matrix (two labels), got "
            f"{cm.shape[0]} x {cm.shape[1]}"
        )
    tn, fp, fn, tp = cm.ravel()
    support_pos = tp + fn
    support_neg = tn + fp
    if support_pos == 0:
        warn(
            "No samples of the positive class are present in `y_true`. "
            "`positive_likelihood_ratio` and `negative_likelihood_ratio` are both set "
            "to `np.nan`. " + _LR_TAIL,
            undefined_metric_warning())
    if fp == 0:
        if tp == 0:
            start = ("No samples were predicted for the positive class and "
                     "`positive_likelihood_ratio` is ")
        else:
            start = "`positive_likelihood_ratio` is ill-defined and "
        # scikit-learn's message stops here: the rest of its sentence is a separate string
        warn(start + "set to `np.nan`. Use the `replace_undefined_by` param to ",
             undefined_metric_warning())
        positive = lr_pos
    else:
        positive = (tp * support_neg) / (fp * support_pos)
    if tn == 0:
        warn("`negative_likelihood_ratio` is ill-defined and set to `np.nan`. " + _LR_TAIL,
             undefined_metric_warning())
        negative = lr_neg
    else:
        negative = (fn * support_neg) / (tn * support_pos)
    return float(positive), float(negative)


def _labelled_cm(state: ConfusionState) -> np.ndarray:
    cm = state.present_cm()
    if cm.shape == (1, 1):
        single_label_warning()
    return cm


def mcc(state: ConfusionState) -> float:
    """``matthews_corrcoef`` (multiclass)."""
    _labels_only(state)
    C = _labelled_cm(state)
    t_sum = C.sum(axis=1, dtype=np.float64)
    p_sum = C.sum(axis=0, dtype=np.float64)
    n_correct = np.trace(C, dtype=np.float64)
    n_samples = p_sum.sum()
    cov_ytyp = n_correct * n_samples - np.dot(t_sum, p_sum)
    cov_ypyp = n_samples**2 - np.dot(p_sum, p_sum)
    cov_ytyt = n_samples**2 - np.dot(t_sum, t_sum)
    cov = cov_ypyp * cov_ytyt
    if cov == 0:
        return 0.0
    return float(cov_ytyp / np.sqrt(cov))


def mcc_batch(state: ConfusionState, cms: np.ndarray) -> np.ndarray | None:
    """:func:`mcc` of many unweighted tables (``cms`` of shape (B, K, K)): one value per
    table, by the same formula (labels no sample of a table has add nothing to it)."""
    if state.weighted:
        return None
    # the margins of the counts, exact, then as floats (the same values as the floats'
    # margins: every count and sum is an integer below 2^53)
    t_int, p_int = table_margins(cms)
    t_sum, p_sum = t_int.astype(np.float64), p_int.astype(np.float64)
    n_correct = table_trace(cms).astype(np.float64)
    n = p_sum.sum(axis=1)
    cov_ytyp = n_correct * n - np.einsum("bk,bk->b", t_sum, p_sum)
    cov_ypyp = n**2 - np.einsum("bk,bk->b", p_sum, p_sum)
    cov_ytyt = n**2 - np.einsum("bk,bk->b", t_sum, t_sum)
    cov = cov_ypyp * cov_ytyt
    with np.errstate(divide="ignore", invalid="ignore"):
        out = cov_ytyp / np.sqrt(cov)
    out[cov == 0] = 0.0
    return np.asarray(out, dtype=np.float64)


def balanced_accuracy_batch(state: ConfusionState, cms: np.ndarray,
                            adjusted: bool = False) -> np.ndarray | None:
    """:func:`balanced_accuracy` of many unweighted tables: the mean recall over the classes
    each table's true labels hold (without the per-table warning)."""
    if state.weighted or adjusted:
        return None
    support = table_margins(cms)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.diagonal(cms, axis1=1, axis2=2) / support
    present = support > 0
    return np.asarray(np.where(present, recall, 0.0).sum(axis=1) / row_sums(present),
                      dtype=np.float64)


def kappa_batch(state: ConfusionState, cms: np.ndarray, labels: ArrayLike | None = None,
                weights: str | None = None,
                replace_undefined_by: float = np.nan) -> np.ndarray | None:
    """:func:`kappa` of many unweighted tables, unweighted kappa over the state's labels
    (None for weights or labels: those are scored one table at a time)."""
    if state.weighted or labels is not None or weights is not None:
        return None
    # integer margins and totals, exact, then as floats (all below 2^53)
    t_int, p_int = table_margins(cms)
    n = row_sums(t_int).astype(np.float64)
    agree = table_trace(cms).astype(np.float64)
    chance = np.einsum("bk,bk->b", p_int.astype(np.float64), t_int.astype(np.float64)) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(1.0 - (n - agree) / (n - chance), dtype=np.float64)


def balanced_accuracy(state: ConfusionState, adjusted: bool = False) -> float:
    """``balanced_accuracy_score``: the mean of per-class recall."""
    _labels_only(state)
    C = _labelled_cm(state)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_class = np.diagonal(C) / C.sum(axis=1)
    if np.isnan(per_class).any():
        warn("y_pred contains classes not in y_true", UserWarning)
        per_class = per_class[~np.isnan(per_class)]
    score = np.mean(per_class)
    if adjusted:
        n_classes = per_class.shape[0]
        chance = 1 / n_classes
        score -= chance
        score /= 1 - chance
    return float(score)


def kappa(state: ConfusionState, labels: ArrayLike | None = None, weights: str | None = None,
          replace_undefined_by: float = np.nan) -> float:
    """``cohen_kappa_score`` (y1 = y_true, y2 = y_pred)."""
    _labels_only(state)
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    try:
        confusion = matrix(state, labels, None)
    except ValueError as e:
        if "At least one label specified must be in y_true" in str(e):
            raise ValueError(
                "At least one label in `labels` must be present in `y1` (even though "
                "`cohen_kappa_score` is otherwise agnostic to the order of `y1` and `y2`)."
            ) from e
        raise
    n_classes = confusion.shape[0]
    confusion = confusion.astype(np.float64, copy=False)
    sum0 = np.sum(confusion, axis=0)
    sum1 = np.sum(confusion, axis=1)
    numerator = np.outer(sum0, sum1)
    denominator = np.sum(sum0)
    if denominator == 0:
        warn(
            "`y2` contains no labels that are present in both `y1` and `labels`."
            "`cohen_kappa_score` is undefined and set to the value defined by the "
            f"`replace_undefined_by` param, which is set to {replace_undefined_by}.",
            undefined_metric_warning())
        return replace_undefined_by
    expected = numerator / denominator
    if weights is None:
        w_mat = np.ones([n_classes, n_classes], dtype=np.float64)
        np.fill_diagonal(w_mat, 0)
    else:
        w_mat = np.zeros([n_classes, n_classes], dtype=np.float64)
        w_mat += np.arange(n_classes)
        w_mat = np.abs(w_mat - w_mat.T) if weights == "linear" else (w_mat - w_mat.T) ** 2
    k = np.sum(w_mat * confusion)
    d = np.sum(w_mat * expected)
    if d == 0:
        warn(
            "`y1`, `y2` and `labels` have only one label in common. `cohen_kappa_score` is "
            "undefined and set to the value defined by the the `replace_undefined_by` "
            f"param, which is set to {replace_undefined_by}.",
            undefined_metric_warning())
        return replace_undefined_by
    return float(1 - k / d)


def oos(state: ConfusionState, oos_label: Label) -> tuple[float, float]:
    """``oos_precision_recall``: ``(precision, recall)`` of the out-of-scope label, 0.0 when
    undefined."""
    _labels_only(state)
    st, idx = state.select([oos_label])
    i = int(idx[0])
    cm = st.cm
    tp = cm[i, i]
    true_oos = cm[i, :].sum()
    pred_oos = cm[:, i].sum()
    recall = float(tp / true_oos) if true_oos else 0.0
    precision = float(tp / pred_oos) if pred_oos else 0.0
    return precision, recall


# ---------------------------------------------------------------------- the report card


@dataclass(frozen=True)
class PerClassMetrics:
    """Precision, recall, F1 and support of one class.

    Parameters
    ----------
    precision : float
        ``tp / (tp + fp)`` of the class (0.0 when undefined).
    recall : float
        ``tp / (tp + fn)`` of the class (0.0 when undefined).
    f1 : float
        Harmonic mean of ``precision`` and ``recall``.
    support : int or float
        Number of samples of the class in ``y_true`` (their total weight, a float, with
        float weights).

    See Also
    --------
    ClassificationMetrics : The report card holding one per class.
    fastmetrics.precision_recall_fscore_support : The same numbers as arrays.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.score([0, 1, 1], [0, 1, 0]).per_class[0]
    PerClassMetrics(precision=0.5, recall=1.0, f1=0.6666666666666666, support=1)
    """

    precision: float
    recall: float
    f1: float
    support: float


@dataclass
class ClassificationMetrics:
    """Quality report card of a classifier on one evaluation set.

    :func:`~fastmetrics.score` builds it from one counting pass; the reference harness builds
    it by hand, which also works:
    ``ClassificationMetrics(acc, f1, per_class_f1={...}, oos_recall=..., n_examples=n)``.

    Parameters
    ----------
    accuracy : float
        Fraction of samples predicted correctly.
    macro_f1 : float
        Unweighted mean of the per-class F1 scores (``zero_division=0``, over ``labels``).
    weighted_f1 : float, default=0.0
        Mean of the per-class F1 scores weighted by support.
    micro_f1 : float, default=0.0
        F1 of the pooled counts.
    per_class : dict, default={}
        ``label -> PerClassMetrics``.
    labels : list, default=[]
        The pinned label vocabulary: the order of ``confusion_matrix``'s rows and columns.
    confusion_matrix : ndarray of shape (n_labels, n_labels) or None, default=None
        Counts (or weights) of true label ``i`` predicted as ``j``.
    oos_recall : float or None, default=None
        Out-of-scope (abstain label) recall; None without an ``oos_label``, 0.0 when its
        denominator is 0 (the reference harness's rule).
    oos_precision : float or None, default=None
        Out-of-scope precision, as ``oos_recall``.
    n_examples : int, default=0
        Number of samples scored.
    intervals : dict or None, default=None
        With ``score(..., ci=...)``: headline name -> ``(low, high)`` bootstrap interval
        (percentile method, over the pinned labels); None otherwise.
    confidence_level : float or None, default=None
        The level of ``intervals``.
    per_class_f1 : dict, default={}
        ``label -> F1``, the reference harness's field: derived from ``per_class`` when empty;
        given alone it stands for the per-class numbers.

    Raises
    ------
    TypeError
        If ``weighted_f1`` is a dict (a per-class F1 dict passed by position: give it as
        ``per_class_f1=``).
    ValueError
        If ``per_class_f1`` disagrees with the F1 scores of ``per_class``.

    See Also
    --------
    fastmetrics.score : Builds the card.
    PerClassMetrics : The per-class entries.
    sklearn.metrics.classification_report : scikit-learn's per-class table.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> card = fm.score([0, 1, 1, 2], [0, 1, 2, 2])
    >>> card.accuracy, card.labels
    (0.75, [0, 1, 2])
    >>> card.per_class[1]
    PerClassMetrics(precision=1.0, recall=0.5, f1=0.6666666666666666, support=2)
    """

    accuracy: float
    macro_f1: float
    weighted_f1: float = 0.0
    micro_f1: float = 0.0
    per_class: dict[Any, Any] = dc_field(default_factory=dict)
    labels: list[Any] = dc_field(default_factory=list)
    confusion_matrix: Any = None
    oos_recall: float | None = None
    oos_precision: float | None = None
    n_examples: int = 0
    intervals: dict[str, Any] | None = None
    confidence_level: float | None = None
    per_class_f1: dict[Any, Any] = dc_field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        # the reference harness's third field is per_class_f1; here it is weighted_f1
        if isinstance(self.weighted_f1, Mapping):
            raise TypeError("weighted_f1 must be a number, got a dict: pass per-class F1 "
                            "scores by keyword, per_class_f1={label: f1}")
        derived = {k: v.f1 for k, v in self.per_class.items()}
        if not self.per_class_f1:
            self.per_class_f1 = derived
        elif self.per_class and dict(self.per_class_f1) != derived:
            raise ValueError("per_class_f1 disagrees with the F1 scores of per_class: give "
                             "one of them, or both alike")
        else:
            self.per_class_f1 = dict(self.per_class_f1)

    def as_row(self, digits: int = 4) -> dict[str, Any]:
        """Flat dict of the headline numbers, rounded (for CSV / tables / dashboards).

        Parameters
        ----------
        digits : int, default=4
            Decimal places of the rounded numbers.

        Returns
        -------
        row : dict
            ``accuracy``, ``macro_f1``, ``weighted_f1``, ``micro_f1``, ``oos_recall``,
            ``oos_precision`` (rounded, None when not computed), ``n_examples`` and, with
            intervals, ``<name>_ci_low`` / ``<name>_ci_high``.

        See Also
        --------
        ClassificationMetrics.to_flat_dict : Every number, unrounded.
        fastmetrics.format_metrics_row : A markdown row of the headline numbers.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.score([0, 1, 1], [0, 1, 0]).as_row(digits=2)["macro_f1"]
        0.67
        """

        def r(v: Any) -> float | None:
            return None if v is None else round(float(v), digits)

        return {
            "accuracy": r(self.accuracy),
            "macro_f1": r(self.macro_f1),
            "weighted_f1": r(self.weighted_f1),
            "micro_f1": r(self.micro_f1),
            "oos_recall": r(self.oos_recall),
            "oos_precision": r(self.oos_precision),
            "n_examples": int(self.n_examples),
            **{f"{k}_ci_{end}": r(v) for k, (lo, hi) in (self.intervals or {}).items()
               for end, v in (("low", lo), ("high", hi))},
        }

    def shown(self, name: str, digits: int = 4) -> str:
        """A headline number as the report prints it: ``0.8123``, with its interval when
        there is one ``0.8123 [0.8051, 0.8196]``, ``N/A`` when not computed.

        Parameters
        ----------
        name : str
            A headline field: ``"accuracy"``, ``"macro_f1"``, ``"oos_recall"``...
        digits : int, default=4
            Decimal places.

        Returns
        -------
        text : str
            ``0.8123``; ``0.8123 [0.8051, 0.8196]`` when the card has its interval; ``N/A`` when
            the value was not computed.

        See Also
        --------
        fastmetrics.format_metrics_row : Prints the headline numbers this way.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.score([0, 1, 1], [0, 1, 0]).shown("accuracy")
        '0.6667'
        """
        v = getattr(self, name)
        if v is None:
            return "N/A"
        ci = (self.intervals or {}).get(name)
        if ci is None:
            return f"{v:.{digits}f}"
        return f"{v:.{digits}f} [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"

    def to_flat_dict(self) -> dict[str, Any]:
        """Every number under a dot key: ``per_class.3.f1``, ``confusion_matrix.0.1``...

        Returns
        -------
        flat : dict
            ``{dot.key: value}``: the headline numbers, ``per_class.<label>.<metric>``,
            ``confusion_matrix.<i>.<j>`` and, with intervals, ``ci.<name>.low`` / ``.high``.

        See Also
        --------
        fastmetrics.flatten : The same for any result object.
        ClassificationMetrics.as_row : The headline numbers, rounded.

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
        for k, (lo, hi) in (self.intervals or {}).items():
            out[f"ci.{k}.low"], out[f"ci.{k}.high"] = lo, hi
        if self.intervals:
            out["ci.confidence_level"] = self.confidence_level
        for lab, pc in self.per_class.items():
            for k in ("precision", "recall", "f1", "support"):
                out[f"per_class.{lab}.{k}"] = getattr(pc, k)
        if not self.per_class:  # built from per_class_f1 alone
            for lab, f1 in self.per_class_f1.items():
                out[f"per_class.{lab}.f1"] = f1
        if self.confusion_matrix is not None:
            cm = np.asarray(self.confusion_matrix)
            for i in range(cm.shape[0]):
                for j in range(cm.shape[1]):
                    out[f"confusion_matrix.{i}.{j}"] = py_value(cm[i, j])
        return out


PerClassMetrics.__module__ = ClassificationMetrics.__module__ = "fastmetrics.report"


@dataclass(frozen=True)
class Card:
    """A report card with the per-class and averaged numbers a report table prints."""

    metrics: ClassificationMetrics
    per_class: tuple[Any, ...]  # (precision, recall, f1, support) arrays over metrics.labels
    averages: dict[str, Any]  # 'micro' / 'macro' / 'weighted' -> (precision, recall, f1)


def card(state: ConfusionState, labels: ArrayLike | None = None,
         oos_label: Label | None = None) -> Card:
    """The report card of a confusion state (``score``), with what a full report table
    prints. Per-class metrics use ``zero_division=0`` over ``labels`` (default: the present
    labels)."""
    _labels_only(state)
    if labels is None:
        lab = state.present_labels
    else:
        lab = np.asarray(labels).reshape(-1)
        if lab.size == 0:
            raise ValueError("labels must contain at least one label")
    st, idx = state.select(lab)
    lab = st.values[idx]
    # the per-label sums once; every row and average of the card from them (zero_division=0:
    # no warning, so this is precision_recall_fscore_support's value for each)
    tp, pred, true, _ = st.label_sums(lab)
    kw: dict[str, Any] = dict(beta=1.0, warn_for=(), zero_division=0, need="prf")
    p, r, f, s = prf_from_sums(tp, pred, true, average=None, **kw)
    averages = {a: prf_from_sums(tp, pred, true, average=a, **kw)[:3]
                for a in ("micro", "macro", "weighted")}
    per_class = {
        py_value(v): PerClassMetrics(float(p[i]), float(r[i]), float(f[i]), py_value(s[i]))
        for i, v in enumerate(lab)
    }
    oos_recall = oos_precision = None
    if oos_label is not None:
        oos_precision, oos_recall = oos(st, oos_label)
    cm = st.cm[np.ix_(idx, idx)]
    if not st.weighted or st.int_weights:
        cm = cm.astype(np.int64)
    metrics = ClassificationMetrics(
        accuracy=accuracy(st),
        macro_f1=float(averages["macro"][2]),
        weighted_f1=float(averages["weighted"][2]),
        micro_f1=float(averages["micro"][2]),
        per_class=per_class,
        labels=[py_value(v) for v in lab],
        confusion_matrix=cm,
        oos_recall=oos_recall,
        oos_precision=oos_precision,
        n_examples=int(st.n_samples),
    )
    return Card(metrics, (p, r, f, s), averages)
