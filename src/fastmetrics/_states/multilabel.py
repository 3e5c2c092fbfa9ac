"""The multilabel state: (n, L) 0/1 indicator matrices -> per-label counts in one pass.

scikit-learn treats a 2-D target whose values are all 0 or 1 as 'multilabel-indicator':
label j is column j. The kernel validates such input and fills, per label, the true
positives, the predicted and the true sums, and the number (or weight) of rows predicted
exactly. The sample-wise average and sample-wise matrices need per-row counts over the
chosen columns, so the state also keeps the validated matrices: it merges exactly (sums add,
rows are stacked) but its memory is O(n * L), unlike the other states.

A state built with ``keep_rows=False`` (the streamed one) keeps instead how often (or with
what weight) each row *profile* occurs: a row's (tp, pred, true) counts over all columns.
The sample-wise averages over all labels are weighted means of a function of those three
counts, so they come out the same (to rounding) from at most (L + 1)^3 profiles, whatever
the number of rows; what needs the rows themselves (per-sample matrices, sample-wise
averages over a subset of the labels) is refused with a message saying so.
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

__all__ = ["MAX_PROFILED_LABELS", "PROFILE_METRICS", "MultilabelState", "accuracy",
           "hamming", "is_multilabel_pair", "mcm", "profile_batch", "profile_values",
           "row_profiles", "sample_tables", "zero_one"]

_EMPTY_W = np.zeros(0, dtype=np.float64)
_NO_PROFILE = np.zeros(0, dtype=np.int64)
#: the most columns whose profile codes ((tp * (L + 1) + pred) * (L + 1) + true) fit int64
MAX_PROFILED_LABELS = (1 << 21) - 2
#: profiles tallied in a dense table up to this many possible codes (8 bytes each)
_DENSE_PROFILES = 1 << 20


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
    sample-wise average, or (built with ``keep_rows=False``, as streamed) instead of them
    the tally of the rows' profiles, ``profiles`` and ``profile_weights``.

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
    profiles : ndarray of int64, optional
        Without the rows (``yt``, ``yp`` None): the distinct row profiles, sorted, each
        ``(tp * (L + 1) + pred) * (L + 1) + true`` of a row's counts over all columns.
    profile_weights : ndarray, optional
        Each profile's number of rows (int64) or total weight (float64).

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
                 "int_weights", "profiles", "profile_weights")

    def __init__(self, tp: np.ndarray, pred: np.ndarray, true: np.ndarray, exact: Any,
                 n_samples: int, weight_sum: float | None, yt: np.ndarray | None,
                 yp: np.ndarray | None, w: np.ndarray | None, int_weights: bool = False,
                 profiles: np.ndarray | None = None,
                 profile_weights: np.ndarray | None = None) -> None:
        self.tp, self.pred, self.true = tp, pred, true
        self.exact, self.n_samples, self.weight_sum = exact, n_samples, weight_sum
        self.yt, self.yp, self.w = yt, yp, w
        self.int_weights = int_weights
        #: without the rows: the distinct profile codes (sorted) and each one's count or
        #: weight
        self.profiles, self.profile_weights = profiles, profile_weights

    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred: ArrayLike,
                    sample_weight_: ArrayLike | None = None, *,
                    keep_rows: bool = True) -> MultilabelState:
        """Count two (n, L) indicator matrices (one kernel pass).

        Parameters
        ----------
        y_true : array-like of shape (n_samples, n_labels)
            True indicator matrix of 0/1.
        y_pred : array-like of shape (n_samples, n_labels)
            Predicted indicator matrix.
        sample_weight_ : array-like of shape (n_samples,), default=None
            Weight of each row.
        keep_rows : bool, default=True
            Keep the matrices (every derivation) or only the rows' profiles (bounded
            memory: every metric but the per-sample matrices and the sample-wise averages
            over a subset of the labels).

        Returns
        -------
        state : MultilabelState
            The state of these samples.

        Raises
        ------
        ValueError
            If the matrices differ in shape or hold values other than 0 and 1, or the weights
            differ in length, or (``keep_rows=False``) they have more than
            ``MAX_PROFILED_LABELS`` columns.

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
        return cls._count(yt, yp, w, int_weights, keep_rows)

    @classmethod
    def _count(cls, yt: np.ndarray, yp: np.ndarray, w: np.ndarray | None,
               int_weights: bool = False, keep_rows: bool = True) -> MultilabelState:
        n, L = yt.shape
        if not keep_rows and L > MAX_PROFILED_LABELS:
            raise ValueError(f"a multilabel state without its rows takes at most "
                             f"{MAX_PROFILED_LABELS} labels, got {L}")
        icols = np.zeros((3, L), dtype=np.int64)
        fcols = np.zeros((3, L), dtype=np.float64)
        profile = _NO_PROFILE if keep_rows else np.empty(n, dtype=np.int64)
        bad_i, bad_j, exact = kernel.count(yt, yp, _EMPTY_W if w is None else w,
                                           w is not None, icols, fcols, profile)
        if bad_i >= 0:
            which = "y_true" if yt[bad_i, bad_j] not in (0, 1) else "y_pred"
            raise ValueError(
                f"{which} is 2-D with a value other than 0 and 1 at [{bad_i}, {bad_j}]: "
                "multiclass-multioutput is not supported"
            )
        cols = icols if w is None else fcols
        weight_sum = None if w is None else float(np.sum(w))
        if keep_rows:
            return cls(cols[0], cols[1], cols[2], exact, n, weight_sum, yt, yp, w,
                       int_weights)
        codes, weights = _tally(profile, w, L)
        return cls(cols[0], cols[1], cols[2], exact, n, weight_sum, None, None, None,
                   int_weights, codes, weights)

    def without_rows(self) -> MultilabelState:
        """This state with its rows replaced by their profiles (itself when it has none).

        Returns
        -------
        state : MultilabelState
            The same sums; the matrices' rows tallied by profile.

        See Also
        --------
        MultilabelState.from_arrays : ``keep_rows=False`` builds one directly.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import MultilabelState
        >>> a = MultilabelState.from_arrays(np.array([[1, 0], [1, 0]]), np.array([[1, 1], [1, 1]]))
        >>> a.without_rows().profile_weights
        array([2])
        """
        if self.yt is None:
            return self
        assert self.yp is not None
        st = self._count(self.yt, self.yp, self.w, self.int_weights, keep_rows=False)
        # the sums as they were (a recount adds weights in the same order: the same bits)
        st.tp, st.pred, st.true, st.exact = self.tp, self.pred, self.true, self.exact
        st.weight_sum = self.weight_sum
        return st

    @property
    def rows_kept(self) -> bool:
        """Whether the matrices are kept (False: only the rows' profiles)."""
        return self.yt is not None

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
        if not all(st.rows_kept for st in states):  # one without rows: none keeps them
            states = [st.without_rows() for st in states]
        first = states[0]
        tp, pred, true, exact = first.tp, first.pred, first.true, first.exact
        weight_sum, int_weights = first.weight_sum, first.int_weights
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
            int_weights = int_weights and st.int_weights
        n = sum(st.n_samples for st in states)
        if first.yt is None:
            codes, weights = _combine(
                np.concatenate([cast("np.ndarray", st.profiles) for st in states]),
                np.concatenate([cast("np.ndarray", st.profile_weights) for st in states]))
            return cls(tp, pred, true, exact, n, weight_sum, None, None, None, int_weights,
                       codes, weights)
        yts = [cast("np.ndarray", st.yt) for st in states]
        yps = [cast("np.ndarray", st.yp) for st in states]
        dtype = np.result_type(*yts)
        w = None if first.w is None else np.concatenate([cast("np.ndarray", st.w)
                                                           for st in states])
        return cls(tp, pred, true, exact, n, weight_sum,
                   np.concatenate(yts).astype(dtype, copy=False),
                   np.concatenate(yps).astype(dtype, copy=False), w, int_weights)

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
        if self.yt is None or self.yp is None:
            raise _no_rows("per-sample counts")
        a = self.yt[:, idx] != 0
        b = self.yp[:, idx] != 0
        ab = a & b
        counts = ab.sum(1), b.sum(1), a.sum(1)
        if self.w is None:
            return counts
        w = self.w.astype(np.int64) if self.int_weights else self.w
        return tuple(c * w for c in counts)  # scikit-learn: count times the weight

    def samples(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                np.ndarray | None]:
        """What a sample-wise average over the columns ``idx`` weighs: ``(tp, pred, true,
        weights)``, per row (scikit-learn's counts times the weight, and the sample
        weights or None) or, without the rows, per profile (its counts, and its number of
        rows or total weight).

        Parameters
        ----------
        idx : ndarray of int
            Column indices (without the rows: all of them).

        Returns
        -------
        tp, pred, true : ndarray
            Per row or per profile.
        weights : ndarray or None
            Each one's weight in the average (None: equal).

        Raises
        ------
        ValueError
            Without the rows, if ``idx`` is not every column once.

        See Also
        --------
        MultilabelState.row_sums : The per-row counts.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import MultilabelState
        >>> yt, yp = np.array([[1, 0], [1, 0], [0, 1]]), np.array([[1, 1], [1, 1], [0, 1]])
        >>> MultilabelState.from_arrays(yt, yp, keep_rows=False).samples(np.arange(2))
        (array([1, 1]), array([1, 2]), array([1, 1]), array([1, 2]))
        """
        if self.yt is not None:
            return (*self.row_sums(idx), self.w)
        L = self.n_labels
        if len(idx) != L or not np.array_equal(np.sort(idx), np.arange(L)):
            raise _no_rows("a sample-wise average over a subset of the labels")
        tp, pred, true = _decode(cast("np.ndarray", self.profiles), L)
        return tp, pred, true, self.profile_weights

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
        weights = self.w
        if average == "samples":
            tp, pred, true, weights = self.samples(idx)
        else:
            tp, pred, true = self.tp[idx], self.pred[idx], self.true[idx]
        if self.weighted:  # scikit-learn recovers these as tp + fp and tp + fn
            pred = tp + (pred - tp)
            true = tp + (true - tp)
        return tp, pred, true, weights

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        if self.yt is None:
            return {"rows_kept": False, "n_labels": self.n_labels, "tp": self.tp,
                    "pred": self.pred, "true": self.true, "exact": self.exact,
                    "n_samples": self.n_samples, "weighted": self.weighted,
                    "weight_sum": 0.0 if self.weight_sum is None else self.weight_sum,
                    "profiles": self.profiles, "profile_weights": self.profile_weights,
                    "int_weights": bool(self.int_weights)}
        return {"y_true": self.yt, "y_pred": self.yp, "weighted": self.weighted,
                "sample_weight": self.w if self.w is not None else np.zeros(0),
                "int_weights": bool(self.int_weights)}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> MultilabelState:
        if "rows_kept" in d and not base.flag(d, "rows_kept"):
            return cls._load_profiles(d)
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

    @classmethod
    def _load_profiles(cls, d: Mapping[str, Any]) -> MultilabelState:
        L = base.integer(d, "n_labels", minimum=1)
        if L > MAX_PROFILED_LABELS:
            raise base.StateError(f"n_labels {L} exceeds {MAX_PROFILED_LABELS}")
        n = base.integer(d, "n_samples", minimum=1)
        weighted = base.flag(d, "weighted")
        dtype = np.float64 if weighted else np.int64
        kinds = "fiu" if weighted else "iu"
        tp, pred, true = (base.field(d, k, kinds=kinds, ndim=1, shape=(L,), dtype=dtype)
                          for k in ("tp", "pred", "true"))
        codes = base.field(d, "profiles", kinds="iu", ndim=1, dtype=np.int64)
        pw = base.field(d, "profile_weights", kinds=kinds, ndim=1, shape=(codes.shape[0],),
                        dtype=dtype)
        exact: Any
        if weighted:
            exact = base.number(d, "exact")
            weight_sum: float | None = base.number(d, "weight_sum")
            if not (np.isfinite(tp).all() and np.isfinite(pred).all()
                    and np.isfinite(true).all() and np.isfinite(pw).all()):
                raise base.StateError("invalid multilabel state: sums must be finite")
        else:
            exact = base.integer(d, "exact")
            weight_sum = None
        a, p, t = _decode(codes, L)
        if codes.shape[0] == 0 or np.any(np.diff(codes) <= 0) or codes[0] < 0 \
                or np.any(a > np.minimum(p, t)) or np.any(a > L):
            raise base.StateError("invalid multilabel state: profiles must be distinct "
                                  "sorted codes of (tp, pred, true) with tp <= pred, true "
                                  "<= n_labels")
        if not weighted:
            if np.any(pw <= 0) or int(pw.sum()) != n or exact > n \
                    or np.any(tp > np.minimum(pred, true)) or np.any(pred > n) \
                    or np.any(true > n) or int(tp.sum()) != int((a * pw).sum()) \
                    or int(pred.sum()) != int((p * pw).sum()) \
                    or int(true.sum()) != int((t * pw).sum()):
                raise base.StateError("invalid multilabel state: the counts disagree with "
                                      "the profiles")
        return cls(tp, pred, true, exact, n, weight_sum, None, None, None,
                   base.flag(d, "int_weights"), codes, pw)


#: the metrics of a resample of rows that its profile counts determine (zero_division=0)
PROFILE_METRICS = ("accuracy", "hamming_loss", "f1_micro", "precision_micro",
                   "recall_micro", "f1_samples", "jaccard_samples")


def profile_batch(state: MultilabelState, counts: np.ndarray) -> dict[str, np.ndarray]:
    """Each of :data:`PROFILE_METRICS` for many row resamples at once: ``counts`` of shape
    (B, P) holds each resample's number of rows of each of the state's P profiles (the
    multinomial law of a row resample, as for the confusion cells), unweighted. What a
    resample's per-label sums alone determine (macro F1, the per-label rows) is not here.

    Examples
    --------
    >>> import numpy as np
    >>> yt, yp = np.array([[1, 0], [1, 1], [0, 1]]), np.array([[1, 0], [1, 0], [0, 1]])
    >>> st = MultilabelState.from_arrays(yt, yp, keep_rows=False)
    >>> profile_batch(st, st.profile_weights[None, :])["accuracy"]
    array([0.66666667])
    """
    return profile_values(cast("np.ndarray", state.profiles), state.n_labels, counts)


def profile_values(codes: np.ndarray, n_labels: int, counts: np.ndarray
                   ) -> dict[str, np.ndarray]:
    """:func:`profile_batch` of the profile ``codes`` of ``n_labels`` columns (each
    ``(tp * (L + 1) + pred) * (L + 1) + true``): ``counts`` (B, len(codes)) rows of each.

    Examples
    --------
    >>> codes = row_profiles(np.array([[1, 0], [0, 1]]), np.array([[1, 0], [1, 1]]))
    >>> profile_values(codes, 2, np.array([[1, 1], [2, 0]]))["accuracy"]
    array([0.5, 1. ])
    """
    L = n_labels
    tp, pred, true = _decode(codes, L)
    c = counts.astype(np.float64)
    n = c.sum(axis=1)
    sums = {name: c @ v.astype(np.float64) for name, v in
            (("tp", tp), ("pred", pred), ("true", true))}

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)

    exact = ((tp == pred) & (tp == true)).astype(np.float64)
    f_row = ratio(2.0 * tp, (pred + true).astype(np.float64))
    j_row = ratio(tp.astype(np.float64), (pred + true - tp).astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "accuracy": (c @ exact) / n,
            "hamming_loss": (sums["pred"] + sums["true"] - 2 * sums["tp"]) / (n * L),
            "f1_micro": ratio(2 * sums["tp"], sums["pred"] + sums["true"]),
            "precision_micro": ratio(sums["tp"], sums["pred"]),
            "recall_micro": ratio(sums["tp"], sums["true"]),
            "f1_samples": (c @ f_row) / n,
            "jaccard_samples": (c @ j_row) / n,
        }


def row_profiles(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Each row's profile code, ``(tp * (L + 1) + pred) * (L + 1) + true`` of its counts over
    the L columns of two 0/1 matrices (the counting kernel's pass, values checked).

    Examples
    --------
    >>> row_profiles(np.array([[1, 0], [0, 1]]), np.array([[1, 1], [0, 0]])).tolist()
    [16, 1]
    """
    yt, yp = _as_indicator(y_true, "y_true"), _as_indicator(y_pred, "y_pred")
    if yt.dtype != yp.dtype:
        yt, yp = yt.astype(np.int64), yp.astype(np.int64)
    n, L = yt.shape
    if L > MAX_PROFILED_LABELS:
        raise ValueError(f"row profiles take at most {MAX_PROFILED_LABELS} labels, got {L}")
    profile = np.empty(n, dtype=np.int64)
    bad_i, bad_j, _ = kernel.count(yt, yp, _EMPTY_W, False, np.zeros((3, L), dtype=np.int64),
                                   np.zeros((3, L)), profile)
    if bad_i >= 0:
        raise ValueError(f"a value other than 0 and 1 at [{bad_i}, {bad_j}]")
    return profile


def _decode(codes: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tp, pred, true)`` of profile codes ``(tp * (L + 1) + pred) * (L + 1) + true``."""
    rest, true = np.divmod(codes, n_labels + 1)
    tp, pred = np.divmod(rest, n_labels + 1)
    return tp, pred, true


def _no_rows(what: str) -> ValueError:
    return ValueError(f"{what}: the rows are needed, and this multilabel state (streamed, "
                      "keep_rows=False) does not keep them; it keeps their profiles, enough "
                      "for every per-label metric and the sample-wise averages over all "
                      "labels")


def _tally(profile: np.ndarray, w: np.ndarray | None, L: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """The distinct profile codes (sorted) and each one's number of rows (or weight,
    added in row order)."""
    cells = (L + 1) ** 3
    if cells <= max(_DENSE_PROFILES, profile.shape[0]):  # one counting pass, no sort
        counts = np.bincount(profile, minlength=cells)
        codes = np.flatnonzero(counts)
        if w is None:
            return codes.astype(np.int64), counts[codes].astype(np.int64)
        return codes.astype(np.int64), np.bincount(profile, weights=w, minlength=cells)[codes]
    codes, inverse = np.unique(profile, return_inverse=True)
    if w is None:
        return codes, np.bincount(inverse.reshape(-1)).astype(np.int64)
    return codes, np.bincount(inverse.reshape(-1), weights=w, minlength=codes.shape[0])


def _combine(codes: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Profiles of several states as one tally: equal codes' weights added (in input
    order: exact for counts, the merge order for float weights)."""
    order = np.argsort(codes, kind="stable")
    c = codes[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    return c[starts], np.add.reduceat(weights[order], starts)


# ---------------------------------------------------------------------- derivations


def mcm(state: MultilabelState, labels: ArrayLike | None = None,
        samplewise: bool = False) -> np.ndarray:
    """``multilabel_confusion_matrix`` of indicator matrices (per label, or per sample)."""
    if samplewise:
        if not state.rows_kept:
            raise _no_rows("per-sample matrices")
        return sample_tables(state, labels)[0]
    idx = state.columns(labels)
    return _tables(state.tp[idx], state.pred[idx], state.true[idx], state.total)


def sample_tables(state: MultilabelState, labels: ArrayLike | None = None
                  ) -> tuple[np.ndarray, np.ndarray | None]:
    """The one-vs-rest tables a sample-wise average weighs, and their weights: per row
    (scikit-learn's tables, times the weight, and the sample weights or None) or, without
    the rows, per profile (its table, and its number of rows or total weight)."""
    idx = state.columns(labels)
    tp, pred, true, weights = state.samples(idx)
    total: Any = len(idx)
    if state.rows_kept and state.weighted:
        w = cast("np.ndarray", state.w)
        total = (w.astype(np.int64) if state.int_weights else w) * len(idx)
    return _tables(tp, pred, true, total), weights


def _tables(tp: np.ndarray, pred: np.ndarray, true: np.ndarray, total: Any) -> np.ndarray:
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
    if state.yt is None:  # without the rows: the same wrong cells, from the label sums
        wrong = np.sum(state.pred - state.tp) + np.sum(state.true - state.tp)
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(wrong / (state.n_labels * np.float64(state.total)))
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
