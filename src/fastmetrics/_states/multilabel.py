"""The multilabel state: (n, L) 0/1 indicator matrices -> per-label counts in one pass.

scikit-learn treats a 2-D target whose values are all 0 or 1 as 'multilabel-indicator':
label j is column j. The kernel validates such input and fills, per label, the true
positives, the predicted and the true sums, and the number (or weight) of rows predicted
exactly. The sample-wise average and sample-wise matrices need per-row counts over the
chosen columns, so the state also keeps the validated matrices: it merges exactly (sums add,
rows are stacked) but its memory is O(n * L), unlike the other states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._inputs import EMPTY, INT_CHARS, inconsistent_lengths, native, sample_weight
from .._kernels import multilabel as kernel
from . import base

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .._typing import ArrayLike

__all__ = ["MultilabelState", "accuracy", "hamming", "is_multilabel_pair", "mcm",
           "zero_one"]

_EMPTY_W = np.zeros(0, dtype=np.float64)


def _ndim(y: Any) -> int:
    nd = getattr(y, "ndim", None)
    if nd is None and (type(y).__module__.partition(".")[0], type(y).__name__) in (
            ("polars", "Series"), ("pyarrow", "ChunkedArray")) or (
            nd is None and type(y).__module__.startswith("pyarrow")
            and type(y).__name__.endswith("Array")):
        return 1  # arrow arrays and polars Series are 1-D: no conversion to ask numpy
    return np.ndim(y) if nd is None else nd


def _is_multi_2d(y: Any) -> bool:
    if _ndim(y) != 2:
        return False
    shape: tuple[int, ...] = getattr(y, "shape", None) or np.shape(y)
    return shape[1] != 1


def _type_1d(y: ArrayLike) -> str:
    a = np.asarray(y).reshape(-1)
    if a.dtype.kind == "f" and a.size and not np.array_equal(a, np.floor(a)):
        return "continuous"
    return "binary" if np.unique(a).size <= 2 else "multiclass"


def is_multilabel_pair(y_true: Any, y_pred: Any) -> bool:
    """True when both targets are 2-D indicator-like matrices; raises for a mixture of a
    2-D target with a 1-D one (scikit-learn's message)."""
    if getattr(y_true, "ndim", 0) == 1 and getattr(y_pred, "ndim", 0) == 1:
        return False  # the common case, decided without a call
    mt, mp = _is_multi_2d(y_true), _is_multi_2d(y_pred)
    if mt and mp:
        return True
    if mt or mp:
        t = "multilabel-indicator" if mt else _type_1d(y_true)
        p = "multilabel-indicator" if mp else _type_1d(y_pred)
        raise ValueError(f"Classification metrics can't handle a mix of {t} and {p} targets")
    return False


def _as_indicator(y: Any, name: str) -> np.ndarray:
    if hasattr(y, "toarray") and getattr(y, "ndim", 0) == 2:  # scipy sparse indicators
        y = y.toarray()
    a = native(np.asarray(y))
    if a.shape[1] == 0:
        raise ValueError(f"unknown is not supported ({name} has no columns)")
    if a.dtype.kind == "b":
        return a.view(np.uint8)
    if a.dtype.char in INT_CHARS:
        return a
    if a.dtype.kind == "f":
        if not np.isin(a, (0.0, 1.0)).all():
            raise ValueError(
                f"{name} is 2-D with values other than 0 and 1: multiclass-multioutput / "
                "continuous-multioutput targets are not supported"
            )
        return a.astype(np.int8)
    raise ValueError(
        f"{name} is 2-D with {a.dtype} values: multiclass-multioutput is not supported"
    )


class MultilabelState(base.State):
    """Per-label sums over L columns: ``tp``, ``pred``, ``true`` (int64 counts, float64 when
    weighted), ``exact`` rows (count or weight), ``n_samples``, ``weight_sum`` (None
    unweighted), and the validated matrices ``yt``, ``yp`` (with the weights ``w``; whether
    they were integers: scikit-learn's sample-wise matrices keep them int64), kept for the
    sample-wise average.

    Parameters
    ----------
    tp, pred, true : ndarray of shape (n_labels,)
        Per label: true positives, predicted positives and true positives plus false
        negatives (int64 counts, float64 when weighted).
    exact : int or float
        Rows predicted exactly (count or weight).
    n_samples : int
        Rows counted.
    weight_sum : float or None
        Sum of the sample weights (None unweighted).
    yt, yp : ndarray of shape (n_samples, n_labels)
        The validated indicator matrices, kept for the sample-wise average.
    w : ndarray of shape (n_samples,) or None
        The sample weights.
    int_weights : bool, default=False
        The weights were integers (scikit-learn's sample-wise matrices keep them int64).

    See Also
    --------
    MultilabelState.from_arrays : The state of one pass over data.
    ConfusionState : The state of 1-D labels.
    fastmetrics.streaming.ConfusionAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.multilabel_confusion_matrix : A metric derived from it.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics.states import MultilabelState
    >>> a = MultilabelState.from_arrays(np.array([[1, 0], [0, 1]]), np.array([[1, 1], [0, 1]]))
    >>> b = MultilabelState.from_arrays(np.array([[1, 1]]), np.array([[0, 1]]))
    >>> a.tp, a.pred, a.true
    (array([1, 1]), array([1, 2]), array([1, 1]))
    """

    kind = "multilabel"
    n_samples: int  # a slot here, where State declares a read-only property
    __slots__ = ("tp", "pred", "true", "exact", "n_samples", "weight_sum", "yt", "yp", "w",
                 "int_weights")

    def __init__(self, tp: np.ndarray, pred: np.ndarray, true: np.ndarray, exact: Any,
                 n_samples: int, weight_sum: float | None, yt: np.ndarray, yp: np.ndarray,
                 w: np.ndarray | None, int_weights: bool = False) -> None:
        self.tp, self.pred, self.true = tp, pred, true
        self.exact, self.n_samples, self.weight_sum = exact, n_samples, weight_sum
        self.yt, self.yp, self.w = yt, yp, w
        self.int_weights = int_weights

    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred: ArrayLike,
                    sample_weight_: ArrayLike | None = None) -> MultilabelState:
        """Count two (n, L) indicator matrices (one kernel pass).

        Parameters
        ----------
        y_true : array-like of shape (n_samples, n_labels)
            True indicator matrix of 0/1.
        y_pred : array-like of shape (n_samples, n_labels)
            Predicted indicator matrix.
        sample_weight_ : array-like of shape (n_samples,), default=None
            Weight of each row.

        Returns
        -------
        state : MultilabelState
            The state of these samples.

        Raises
        ------
        ValueError
            If the matrices differ in shape or hold values other than 0 and 1, or the weights
            differ in length.

        See Also
        --------
        MultilabelState.merge : The state of two chunks.
        fastmetrics.streaming.ConfusionAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.multilabel_confusion_matrix : A metric derived from it.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import MultilabelState
        >>> a = MultilabelState.from_arrays(np.array([[1, 0], [0, 1]]), np.array([[1, 1], [0, 1]]))
        >>> a.n_samples
        2
        """
        yt = _as_indicator(y_true, "y_true")
        yp = _as_indicator(y_pred, "y_pred")
        n = yt.shape[0]
        if yp.shape[0] != n:
            raise inconsistent_lengths(y_true=n, y_pred=yp.shape[0])
        if yt.shape[1] != yp.shape[1]:
            raise ValueError("Multi-label binary indicator input with different numbers of labels")
        if n == 0:
            raise ValueError(EMPTY)
        if yt.dtype != yp.dtype:
            common = np.promote_types(yt.dtype, yp.dtype)
            if common.kind not in "iu":
                common = np.dtype(np.int64)
            yt, yp = yt.astype(common), yp.astype(common)
        w, int_weights = sample_weight(sample_weight_, {"y_true": n, "y_pred": n},
                                       keep_int=True)
        if w is not None and w.dtype != np.float64:  # the kernel sums float64 weights
            w = w.astype(np.float64)
        return cls._count(yt, yp, w, int_weights)

    @classmethod
    def _count(cls, yt: np.ndarray, yp: np.ndarray, w: np.ndarray | None,
               int_weights: bool = False) -> MultilabelState:
        L = yt.shape[1]
        icols = np.zeros((3, L), dtype=np.int64)
        fcols = np.zeros((3, L), dtype=np.float64)
        bad_i, bad_j, exact = kernel.count(yt, yp, _EMPTY_W if w is None else w,
                                           w is not None, icols, fcols)
        if bad_i >= 0:
            which = "y_true" if yt[bad_i, bad_j] not in (0, 1) else "y_pred"
            raise ValueError(
                f"{which} is 2-D with a value other than 0 and 1 at [{bad_i}, {bad_j}]: "
                "multiclass-multioutput is not supported"
            )
        cols = icols if w is None else fcols
        return cls(cols[0], cols[1], cols[2], exact, yt.shape[0],
                   None if w is None else float(np.sum(w)), yt, yp, w, int_weights)

    # ------------------------------------------------------------------ properties
    @property
    def n_labels(self) -> int:
        """The number of columns (labels)."""
        n: int = self.tp.shape[0]
        return n

    @property
    def weighted(self) -> bool:
        """Whether sample weights were given."""
        return self.weight_sum is not None

    @property
    def target_type(self) -> str:
        """``"multilabel-indicator"``, scikit-learn's name of the target type."""
        return "multilabel-indicator"

    @property
    def present_labels(self) -> np.ndarray:
        """Every column index: all labels of an indicator matrix count."""
        return np.arange(self.n_labels)

    @property
    def total(self) -> Any:
        """The weight total (the number of rows when unweighted)."""
        return self.weight_sum if self.weighted else self.n_samples

    # ------------------------------------------------------------------ merge
    def merge(self, other: MultilabelState) -> MultilabelState:
        """Both inputs' rows: the sums add, the kept matrices are stacked.

        Parameters
        ----------
        other : MultilabelState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : MultilabelState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        MultilabelState.from_arrays : The state of one chunk.
        fastmetrics.streaming.ConfusionAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.multilabel_confusion_matrix : A metric derived from it.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import MultilabelState
        >>> a = MultilabelState.from_arrays(np.array([[1, 0], [0, 1]]), np.array([[1, 1], [0, 1]]))
        >>> b = MultilabelState.from_arrays(np.array([[1, 1]]), np.array([[0, 1]]))
        >>> a.merge(b).tp
        array([1, 2])
        """
        return self.merge_all([self, other])

    @classmethod
    def merge_all(cls, states: Sequence[MultilabelState]) -> MultilabelState:
        """The state of all inputs' rows, bit for bit the left fold of :meth:`merge`: the
        sums added left to right, the kept matrices stacked by one copy (the fold copies the
        rows stacked so far at every step: O(n k) for k chunks).

        Parameters
        ----------
        states : sequence of MultilabelState
            At least one state.

        Returns
        -------
        state : MultilabelState
            The state of all inputs' rows (a single input is returned as it is).

        See Also
        --------
        MultilabelState.merge : Two states.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import MultilabelState
        >>> parts = [MultilabelState.from_arrays(np.array([[1, 0]]), np.array([[1, 1]]))] * 3
        >>> MultilabelState.merge_all(parts).tp
        array([3, 0])
        """
        states = cls._merge_inputs(states)
        if len(states) == 1:
            return states[0]
        first = states[0]
        tp, pred, true, exact = first.tp, first.pred, first.true, first.exact
        weight_sum, dtype, int_weights = first.weight_sum, first.yt.dtype, first.int_weights
        for st in states[1:]:
            if first.n_labels != st.n_labels:
                raise ValueError(
                    "Multi-label binary indicator input with different numbers of labels")
            if first.weighted != st.weighted:
                raise ValueError(
                    "cannot merge a weighted multilabel state with an unweighted one")
            tp, pred, true, exact = tp + st.tp, pred + st.pred, true + st.true, exact + st.exact
            if weight_sum is not None:
                weight_sum = weight_sum + cast(float, st.weight_sum)
            dtype = np.promote_types(dtype, st.yt.dtype)
            int_weights = int_weights and st.int_weights
        w = None if first.w is None else np.concatenate([cast("np.ndarray", st.w)
                                                           for st in states])
        return cls(tp, pred, true, exact, sum(st.n_samples for st in states), weight_sum,
                   np.concatenate([st.yt for st in states]).astype(dtype, copy=False),
                   np.concatenate([st.yp for st in states]).astype(dtype, copy=False), w,
                   int_weights)

    # ------------------------------------------------------------------ per-label sums
    def columns(self, labels: ArrayLike | None) -> np.ndarray:
        """Column indices for ``labels`` (scikit-learn's checks for multilabel targets).

        Parameters
        ----------
        labels : array-like or None
            Column indices (None: every column).

        Returns
        -------
        idx : ndarray of int
            The column indices.

        Raises
        ------
        ValueError
            If a label is outside ``[0, n_labels)``, with scikit-learn's wording.

        See Also
        --------
        MultilabelState.label_sums : Sums over these columns.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import MultilabelState
        >>> a = MultilabelState.from_arrays(np.array([[1, 0], [0, 1]]), np.array([[1, 1], [0, 1]]))
        >>> b = MultilabelState.from_arrays(np.array([[1, 1]]), np.array([[0, 1]]))
        >>> a.columns([1])
        array([1])
        """
        L = self.n_labels
        if labels is None:
            return np.arange(L)
        lab = np.asarray(labels).reshape(-1)
        if lab.size and not np.array_equal(lab, np.arange(L)):
            if lab.max() > L - 1:
                raise ValueError(
                    "All labels must be in [0, n labels) for multilabel targets. "
                    f"Got {lab.max()} > {L - 1}"
                )
            if lab.min() < 0:
                raise ValueError(
                    "All labels must be in [0, n labels) for multilabel targets. "
                    f"Got {lab.min()} < 0"
                )
        return lab.astype(np.intp)

    def row_sums(self, idx: np.ndarray | list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-sample (tp, pred, true) over the columns ``idx`` (O(n) memory: the
        sample-wise average is the one multilabel path that is not a per-label sum).

        Parameters
        ----------
        idx : array-like of int
            Column indices.

        Returns
        -------
        tp : ndarray of shape (n_samples,)
            True positives of each row (times its weight when weighted).
        pred : ndarray of shape (n_samples,)
            Predicted positives of each row.
        true : ndarray of shape (n_samples,)
            True positives plus false negatives of each row.

        See Also
        --------
        MultilabelState.label_sums : The per-label sums.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import MultilabelState
        >>> a = MultilabelState.from_arrays(np.array([[1, 0], [0, 1]]), np.array([[1, 1], [0, 1]]))
        >>> b = MultilabelState.from_arrays(np.array([[1, 1]]), np.array([[0, 1]]))
        >>> a.row_sums([0, 1])
        (array([1, 1]), array([2, 1]), array([1, 1]))
        """
        a = self.yt[:, idx] != 0
        b = self.yp[:, idx] != 0
        ab = a & b
        counts = ab.sum(1), b.sum(1), a.sum(1)
        if self.w is None:
            return counts
        w = self.w.astype(np.int64) if self.int_weights else self.w
        return tuple(c * w for c in counts)  # scikit-learn: count times the weight

    def label_sums(self, labels: ArrayLike | None, average: str | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """``(tp, pred, true, weights of the samples average)`` over ``labels``: per label,
        or per sample when ``average == "samples"``.

        Parameters
        ----------
        labels : array-like or None
            Column indices (None: every column).
        average : str or None, default=None
            ``"samples"`` sums per row instead of per label.

        Returns
        -------
        tp_sum : ndarray
            True positives.
        pred_sum : ndarray
            Predicted positives.
        true_sum : ndarray
            True positives plus false negatives.
        sample_weights : ndarray or None
            The sample weights (for the samples average).

        See Also
        --------
        fastmetrics.precision_recall_fscore_support : Derived from these sums.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import MultilabelState
        >>> a = MultilabelState.from_arrays(np.array([[1, 0], [0, 1]]), np.array([[1, 1], [0, 1]]))
        >>> b = MultilabelState.from_arrays(np.array([[1, 1]]), np.array([[0, 1]]))
        >>> a.label_sums(None)[0]
        array([1, 1])
        """
        idx = self.columns(labels)
        if average == "samples":
            tp, pred, true = self.row_sums(idx)
        else:
            tp, pred, true = self.tp[idx], self.pred[idx], self.true[idx]
        if self.weighted:  # scikit-learn recovers these as tp + fp and tp + fn
            pred = tp + (pred - tp)
            true = tp + (true - tp)
        return tp, pred, true, self.w

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        return {"y_true": self.yt, "y_pred": self.yp, "weighted": self.weighted,
                "sample_weight": self.w if self.w is not None else np.zeros(0),
                "int_weights": bool(self.int_weights)}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> MultilabelState:
        yt = base.field(d, "y_true", kinds="iub", ndim=2)
        yp = base.field(d, "y_pred", kinds="iub", ndim=2, shape=yt.shape)
        w = None
        if base.flag(d, "weighted"):
            w = base.field(d, "sample_weight", kinds="f", ndim=1, shape=(yt.shape[0],),
                           dtype=np.float64)
            if not np.isfinite(w).all():
                raise base.StateError("sample weights must be finite")
            if base.flag(d, "int_weights") and np.any(w != np.floor(w)):
                raise base.StateError("integer weights must be whole numbers")
        try:  # the counts are recomputed from the rows: they cannot disagree with them
            return cls._count(_as_indicator(yt, "y_true"), _as_indicator(yp, "y_pred"), w,
                              w is not None and base.flag(d, "int_weights"))
        except ValueError as exc:
            raise base.StateError(f"invalid multilabel state: {exc}") from None


# ---------------------------------------------------------------------- derivations


def mcm(state: MultilabelState, labels: ArrayLike | None = None,
        samplewise: bool = False) -> np.ndarray:
    """``multilabel_confusion_matrix`` of indicator matrices (per label, or per sample)."""
    idx = state.columns(labels)
    if samplewise:
        tp, pred, true = state.row_sums(idx)
        w: Any = cast("np.ndarray", state.w).astype(np.int64) if state.int_weights else state.w
        total = w * len(idx) if state.weighted else len(idx)
    else:
        tp, pred, true = state.tp[idx], state.pred[idx], state.true[idx]
        total = state.total
    fp, fn = pred - tp, true - tp
    table: np.ndarray = np.stack([total - tp - fp - fn, fp, fn, tp]).T.reshape(-1, 2, 2)
    return table


def accuracy(state: MultilabelState, normalize: bool = True) -> float:
    """Subset accuracy: the fraction (or number, or weight) of rows predicted exactly."""
    if not normalize:
        return float(state.exact)
    return float(state.exact / state.total)


def zero_one(state: MultilabelState, normalize: bool = True) -> float:
    """Subset zero-one loss: the fraction (or number, or weight) of rows not predicted
    exactly."""
    score = accuracy(state, normalize)
    if normalize:
        return 1 - score
    return float(state.total - score)


def hamming(state: MultilabelState) -> float:
    """``hamming_loss`` of indicator matrices: the fraction of wrong cells, each row
    weighted by its sample weight over the mean weight."""
    differ = state.yt != state.yp
    n: int
    L: int
    n, L = differ.shape
    if state.w is None:
        return float(np.count_nonzero(differ)) / (n * L * 1.0)
    # scikit-learn's steps: the weights of the wrong cells over n * L * mean weight
    wrong = np.sum(np.where(differ, state.w[:, None], np.zeros((), dtype=state.w.dtype)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(float(wrong) / (n * L * np.average(state.w)))
