"""The label ranking state: weighted sums of three per-sample quantities of a multilabel
ranking -- coverage, label ranking average precision (LRAP) and label ranking loss -- over
(n, L) 0/1 label matrices and (n, L) score matrices, and the three metrics derived from it.

Each metric is scikit-learn's weighted mean of a per-sample value, so the state is four
sums (``kernel.COVERAGE``, ``kernel.LRAP``, ``kernel.LOSS``, ``kernel.WEIGHT``), the number of
samples and of labels: two states merge by adding their sums. One kernel pass
(:mod:`fastmetrics._kernels.labelrank`) reads both matrices in place (C or F order,
float32/float64 scores, integer or bool labels) and ranks each row's labels in a small
buffer; ``coverage_error`` takes a pass of its own that sorts nothing
(:func:`coverage_of`). Float 0/1 labels are converted to uint8 once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import float_values, inconsistent_lengths, native, nonfinite_error
from .._inputs import INT_CHARS, sample_weight as check_weights
from .._kernels import labelrank as kernel
from .._threads import threads_for
from . import base

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._typing import ArrayLike

__all__ = ["LabelRankingState", "coverage", "coverage_of", "lrap", "ranking_loss", "target_kind"]

_NO_W = np.empty(0, dtype=np.float64)
_ZERO_SUM = "Weights sum to zero, can't be normalized"


def target_kind(a: np.ndarray) -> str:
    """scikit-learn's ``type_of_target`` name of a numeric array, for its error messages."""
    if a.ndim > 2:
        return "unknown"
    multi = a.ndim == 2 and a.shape[1] > 1
    flat = a.reshape(-1)
    if a.dtype.kind == "f" and np.any(flat != np.floor(flat)):
        return "continuous-multioutput" if multi else "continuous"
    if multi:
        return ("multilabel-indicator" if np.all((flat == 0) | (flat == 1))
                else "multiclass-multioutput")
    return "multiclass" if np.unique(flat).shape[0] > 2 else "binary"


def _labels(y_true: ArrayLike) -> np.ndarray:
    a = y_true if type(y_true) is np.ndarray else np.asarray(y_true)
    if a.dtype.kind == "b":
        return a.view(np.uint8)
    if a.dtype.char in INT_CHARS:
        return native(a)
    if a.dtype.kind == "f":
        if not np.isfinite(a).all():
            raise nonfinite_error(a, "y_true")
        if np.any((a != 0) & (a != 1)):
            raise ValueError(f"{target_kind(a)} format is not supported")
        return a.astype(np.uint8)
    raise ValueError(f"y_true must be a numeric 0/1 label indicator matrix, got dtype {a.dtype}")


def _pass(y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None,
          n_threads: int | None, allow_empty: bool,
          coverage_only: bool = False) -> tuple[np.ndarray, int, int, bool]:
    """``(sums, n, L, weighted)`` of one kernel pass over validated input (``coverage_only``:
    the coverage and weight sums only, no row sorted)."""
    y = _labels(y_true)
    s = float_values(y_score, "y_score")
    if y.ndim != 2 or y.shape != s.shape:
        # scikit-learn checks the scores' values before the shapes: so does this
        # error path (the kernel finds them in its pass otherwise)
        if s.size and not np.isfinite(s).all():
            raise nonfinite_error(s, None)
        if y.ndim != 2:
            raise ValueError(f"{target_kind(y)} format is not supported")
        if s.ndim >= 1 and y.shape[0] != s.shape[0]:
            raise inconsistent_lengths(y_true=y.shape[0], y_score=s.shape[0])
        raise ValueError("y_true and y_score have different shape")
    n, L = y.shape
    if n == 0 and not allow_empty:
        raise ValueError(f"Found array with 0 sample(s) (shape={y.shape}) while a minimum "
                         "of 1 is required.")
    if L == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={y.shape}) while a minimum "
                         "of 1 is required.")
    w = check_weights(sample_weight, {"y_true": n, "y_score": n}, allow_zero_sum=True,
                      check_values=False)
    has_w = w is not None
    if has_w and not np.isfinite(w).all():
        raise nonfinite_error(w, "sample_weight")
    out = np.zeros(kernel.N_SUMS)
    code = kernel.sums(y, s, w if has_w else _NO_W, has_w, out,
                       threads_for("labelrank", n * L, n_threads), coverage_only)
    if code == kernel.BAD_LABEL:
        raise ValueError(f"{target_kind(y)} format is not supported")
    if code == kernel.BAD_SCORE:
        raise nonfinite_error(s, None)
    if code:
        raise MemoryError("label ranking: no memory for a row's buffer")
    return out, n, L, has_w


class LabelRankingState(base.State):
    """Weighted sums of the per-sample coverage, LRAP and ranking loss of a multilabel
    ranking.

    Parameters
    ----------
    sums : ndarray of float64 (4,)
        Sums of ``w * coverage``, ``w * lrap``, ``w * loss`` and of ``w`` (the number of
        samples when unweighted).
    n : int
        Samples counted.
    n_labels : int
        Columns of the matrices (every chunk has the same).
    weighted : bool
        Built from sample weights.

    See Also
    --------
    LabelRankingState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.LabelRankingAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.label_ranking_loss : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import LabelRankingState
    >>> a = LabelRankingState.from_arrays([[1, 0, 0]], [[0.75, 0.5, 1]])
    >>> b = LabelRankingState.from_arrays([[0, 0, 1]], [[1, 0.2, 0.1]])
    >>> (a + b).n_samples
    2
    """

    kind = "label_ranking"
    __slots__ = ("sums", "n", "n_labels", "weighted")

    def __init__(self, sums: np.ndarray, n: int, n_labels: int, weighted: bool = False) -> None:
        self.sums = sums
        self.n = n
        self.n_labels = n_labels
        self.weighted = weighted

    @property
    def n_samples(self) -> int:
        """The number of samples the state summarises."""
        return self.n

    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_score: ArrayLike,
                    sample_weight: ArrayLike | None = None, n_threads: int | None = None, *,
                    allow_empty: bool = False) -> LabelRankingState:
        """The state of an (n, L) 0/1 label matrix and an (n, L) score matrix (one kernel
        pass). ``ValueError`` for other shapes, labels other than 0/1, non-finite scores,
        and empty input unless ``allow_empty``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples, n_labels)
            True labels, a 0/1 indicator matrix.
        y_score : array-like of shape (n_samples, n_labels)
            Scores of each label.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.

        Returns
        -------
        state : LabelRankingState
            The state of these samples.

        Raises
        ------
        ValueError
            For other shapes, labels other than 0/1, non-finite scores, and empty input unless
            ``allow_empty``.

        See Also
        --------
        LabelRankingState.merge : The state of two chunks.
        fastmetrics.streaming.LabelRankingAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.label_ranking_loss : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import LabelRankingState
        >>> a = LabelRankingState.from_arrays([[1, 0, 0]], [[0.75, 0.5, 1]])
        >>> a.n_samples
        1
        """
        out, n, L, has_w = _pass(y_true, y_score, sample_weight, n_threads, allow_empty)
        return cls(out, n, L, has_w)

    def merge(self, other: LabelRankingState) -> LabelRankingState:
        """The state of both inputs' samples: sums added (same number of labels only).

        Parameters
        ----------
        other : LabelRankingState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : LabelRankingState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        LabelRankingState.from_arrays : The state of one chunk.
        fastmetrics.streaming.LabelRankingAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.label_ranking_loss : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import LabelRankingState
        >>> a = LabelRankingState.from_arrays([[1, 0, 0]], [[0.75, 0.5, 1]])
        >>> b = LabelRankingState.from_arrays([[0, 0, 1]], [[1, 0.2, 0.1]])
        >>> a.merge(b).n_samples
        2
        """
        self._check_mergeable(other)
        if self.n_labels != other.n_labels:
            raise ValueError(f"cannot merge label ranking states of {self.n_labels} and "
                             f"{other.n_labels} labels")
        return LabelRankingState(self.sums + other.sums, self.n + other.n, self.n_labels,
                                 self.weighted or other.weighted)

    def _export(self) -> dict[str, Any]:
        return {"sums": self.sums, "n": int(self.n), "n_labels": int(self.n_labels),
                "weighted": bool(self.weighted)}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> LabelRankingState:
        sums = base.field(d, "sums", kinds="f", ndim=1, shape=(kernel.N_SUMS,),
                          dtype=np.float64).copy()
        n = base.integer(d, "n")
        n_labels = base.integer(d, "n_labels", minimum=1)
        weighted = base.flag(d, "weighted")
        if not np.isfinite(sums).all():
            raise base.StateError("label ranking sums must be finite")
        cov, ap, loss, w = sums.tolist()
        if not weighted:
            if w != n:
                raise base.StateError("unweighted, the weight sum is the number of samples")
            if not (0 <= cov <= n * n_labels and 0 <= ap <= n and 0 <= loss <= n):
                raise base.StateError("label ranking sums out of their range")
        return cls(sums, n, n_labels, weighted)


def _multilabel_only(state: LabelRankingState) -> None:
    if state.n_labels == 1:  # an (n, 1) column is binary, not a label indicator matrix
        raise ValueError("binary format is not supported")


def _mean(state: LabelRankingState, slot: int) -> float:
    """np.average's weighted mean of a per-sample value (its error when weights sum to 0)."""
    w = state.sums[kernel.WEIGHT]
    if w == 0:
        raise ZeroDivisionError(_ZERO_SUM)
    return float(state.sums[slot] / w)


def coverage(state: LabelRankingState) -> float:
    """``coverage_error`` of a state."""
    _multilabel_only(state)
    return _mean(state, kernel.COVERAGE)


def coverage_of(y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None = None,
                n_threads: int | None = None) -> float:
    """``coverage_error`` of arrays without a state: the hot path of the one-shot function,
    whose kernel pass scans each row once and sorts none (the state's pass sorts for the
    other two metrics). The same checks, errors and value as ``coverage(from_arrays(...))``."""
    out, n, L, has_w = _pass(y_true, y_score, sample_weight, n_threads, False,
                             coverage_only=True)
    # a state of the coverage and weight sums only, never handed out
    return coverage(LabelRankingState(out, n, L, has_w))


def ranking_loss(state: LabelRankingState) -> float:
    """``label_ranking_loss`` of a state."""
    _multilabel_only(state)
    return _mean(state, kernel.LOSS)


def lrap(state: LabelRankingState) -> float:
    """``label_ranking_average_precision_score`` of a state (scikit-learn divides by the
    weight sum without np.average: weights summing to zero give nan or inf, with numpy's
    warning)."""
    return float(state.sums[kernel.LRAP] / state.sums[kernel.WEIGHT])
