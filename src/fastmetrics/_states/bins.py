"""The calibration state: one binning pass over (y_true, probabilities[, weights]) -> per-bin
sums, and every calibration metric derived from them.

Bins
----
Bins are scikit-learn's: a probability ``p`` goes to bin ``np.searchsorted(edges[1:-1], p,
side="left")``, so bins are closed on the right, a value on an inner edge goes to the lower
bin, 0 goes to the first bin and 1 to the last. Equal-width edges (``linspace(0, 1)``) take the
kernel's arithmetic path; other edges (given, or quantiles computed by the caller) a binary
search, with the same answer.

Modes
-----
* ``"binary"`` (1-D probabilities of the positive class): confidence is ``p``, correctness
  ``y == pos_label``; the per-bin observed frequency is the fraction of positives.
* ``"top_label"`` (an (n, K) matrix): confidence is the row maximum, correctness ``argmax ==
  y_true`` where ``y_true`` holds column indices ``0..K-1`` (or label values, with ``labels=``
  listing the class of each column).
* ``"multilabel"`` (only from :meth:`CalibrationState.for_brier`: an (n, K) indicator matrix
  and (n, K) probabilities): no bins, only scikit-learn's Brier sum.

Each sample adds its weight, weighted confidence, weighted correctness and Brier term to its
bin (the columns ``fastmetrics._kernels.bins.W`` ... ``N`` of ``CalibrationState.sums``),
so states over the same edges and mode merge by addition.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field as dc_field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import (
    EMPTY,
    INT_CHARS,
    column,
    encode_labels,
    float_values,
    inconsistent_lengths,
    label_input,
    native,
    nonfinite_error,
    same_labels,
    sample_weight as check_weights,
    zero_weight_sum_error,
)
from .._kernels import bins as kernel
from .._threads import threads_for
from ..exceptions import warn
from . import base, proba
from .stacked import Stacked

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import DTypeLike

    from .._typing import ArrayLike, Label

__all__ = [
    "CalibrationBins",
    "CalibrationStack",
    "CalibrationState",
    "CalibrationSummary",
    "NOT_NORMALISED",
    "binned",
    "brier",
    "check_n_bins",
    "check_probabilities",
    "check_scale_by_half",
    "curve",
    "d2_brier",
    "ece",
    "ece_replicates",
    "fixed_edges",
    "grouped_binary",
    "grouped_stack",
    "mce",
    "probabilities",
    "summary",
    "uniform_edges",
]

NOT_NORMALISED = "The y_prob values do not sum to one. Make sure to pass probabilities."
MODES = ("binary", "top_label", "multilabel")
_NO_WEIGHTS = np.empty(0)
_NO_WEIGHTS.setflags(write=False)
_CACHED_BINS = 1024  # uniform edges of at most this many bins are built once and shared
_UNIFORM: dict[int, tuple[np.ndarray, np.ndarray]] = {}


# ---------------------------------------------------------------------- edges


def check_n_bins(n_bins: object) -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral):
        raise ValueError(f"n_bins must be an int >= 1, got {n_bins!r}")
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    return int(n_bins)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _uniform(n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(edges, padded edges) of ``n_bins`` equal-width bins, read-only (shared by every
    state over them: the common call builds no edge arrays)."""
    got = _UNIFORM.get(n_bins)
    if got is None:
        edges = _read_only(np.linspace(0.0, 1.0, n_bins + 1))
        got = edges, _read_only(_padded(edges))
        if n_bins <= _CACHED_BINS:
            _UNIFORM[n_bins] = got
    return got


def uniform_edges(n_bins: int) -> np.ndarray:
    """The edges of ``n_bins`` equal-width bins on [0, 1] (``np.linspace(0, 1, n_bins +
    1)``), a read-only array."""
    return _uniform(check_n_bins(n_bins))[0]


def _padded(edges: np.ndarray) -> np.ndarray:
    """The kernels' edge array: ``[-inf, inner edges..., +inf]``."""
    out = np.empty(edges.shape[0])
    out[0], out[-1] = -np.inf, np.inf
    out[1:-1] = edges[1:-1]
    return out


def _edge_array(edges: ArrayLike) -> np.ndarray:
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.shape[0] < 2:
        raise ValueError(f"edges must be a 1-D array of at least 2 values, got shape {e.shape}")
    return e


def fixed_edges(n_bins: int = 10, edges: ArrayLike | None = None, strategy: str = "uniform"
                ) -> np.ndarray:
    """The edges a streamed state is binned over: ``n_bins`` equal-width bins, or ``edges``
    (strictly increasing from 0.0 to 1.0). Only such fixed edges merge: quantile edges need
    all the data first."""
    if strategy != "uniform":
        raise ValueError(
            f"strategy={strategy!r}: only fixed uniform bins (strategy='uniform') can be "
            "streamed or merged; quantile edges need all the data first"
        )
    if edges is None:
        return uniform_edges(n_bins)
    e = _edge_array(edges)
    if not (np.all(np.diff(e) > 0) and e[0] == 0.0 and e[-1] == 1.0):
        raise ValueError("edges must be strictly increasing from 0.0 to 1.0")
    u = _uniform(e.shape[0] - 1)
    return u[0] if np.array_equal(e, u[0]) else _read_only(e.copy())


def _edges_for(n_bins: int, edges: ArrayLike | None) -> tuple[np.ndarray, np.ndarray, bool]:
    """(edges, padded edges, uniform) of a pass: ``n_bins`` equal-width bins when ``edges``
    is None, else the given edges (finite, non-decreasing, within [0, 1]: quantile edges may
    repeat)."""
    if edges is None:
        u = _UNIFORM.get(n_bins) if type(n_bins) is int else None
        e, padded = u if u is not None else _uniform(check_n_bins(n_bins))
        return e, padded, True
    u = _UNIFORM.get(edges.shape[0] - 1) if type(edges) is np.ndarray else None
    if u is not None and edges is u[0]:  # an accumulator's uniform edges
        return u[0], u[1], True
    e = _edge_array(edges)
    # NaN fails the comparisons, and monotonic edges within [0, 1] are finite
    if not (e[0] >= 0.0 and e[-1] <= 1.0 and (e[1:] >= e[:-1]).all()):
        raise ValueError("edges must be finite, non-decreasing and within [0, 1]")
    # other edges take the kernel's binary search (the same bins as the arithmetic path)
    e = _read_only(e.copy())
    return e, _padded(e), False


# ---------------------------------------------------------------------- input checks


def probabilities(y_prob: ArrayLike, name: str = "y_prob") -> np.ndarray:
    """Probabilities as a float32/float64 native array: 1-D, or (n, K) (an (n, 1) column is
    raveled)."""
    p = float_values(y_prob, name)
    if p.ndim == 2 and p.shape[1] == 1:
        return p[:, 0]
    if p.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or (n_samples, n_classes), got shape {p.shape}")
    return p


def _probability_error(p: np.ndarray, name: str, row: int | None = None) -> ValueError:
    """The error for probabilities outside [0, 1], in scikit-learn's order: NaN anywhere,
    then infinity, then a value above 1 or below 0 (the first in ``row`` when a kernel
    reported that row, else the first of all), with where the value is."""
    K = p.shape[1] if p.ndim == 2 else 1
    flat = p.reshape(-1)
    for bad in (np.isnan(flat), np.isinf(flat)):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            break
    else:
        start = 0 if row is None else row * K
        part = flat[start:] if row is None else flat[start:start + K]
        i = start + int(np.flatnonzero(~((part >= 0) & (part <= 1)))[0])
    v = float(flat[i])
    where = f"row {i}" if p.ndim == 1 else f"row {i // K}, column {i % K}"
    if math.isnan(v):
        return nonfinite_error(flat[i:i + 1], name, detail=f"NaN in {where}")
    if math.isinf(v):
        return nonfinite_error(flat[i:i + 1], name, detail=f"value {v} in {where}")
    side = "greater than 1" if v > 1 else "less than 0"
    # our wording first (users and the command line match on it), scikit-learn's in the
    # parenthesis: it names the probabilities y_prob here, whatever the parameter
    return ValueError(f"y_prob contains values outside [0, 1]: value {v!r} in {where} "
                      f"(y_prob contains values {side})")


def check_probabilities(y_prob: ArrayLike, name: str = "y_prob") -> np.ndarray:
    """``y_prob`` as the float array a pass reads, every value checked to lie in [0, 1]
    (one vectorised pass: for callers that read the values before the kernel does, as
    quantile edges do)."""
    p = probabilities(y_prob, name)
    if p.size and not (p.min() >= 0 and p.max() <= 1):  # NaN fails both
        raise _probability_error(p, name)
    return p


def _input_error(kind: int, bad: int, p: np.ndarray, w: np.ndarray | None, name: str,
                 K: int = 0) -> Exception:
    """The error for the first bad value a kernel reported, in scikit-learn's order: NaN or
    infinite probabilities anywhere, then non-finite weights, then the reported value."""
    if not np.isfinite(p).all():
        return _probability_error(p, name)
    if w is not None and not np.isfinite(w).all():
        return nonfinite_error(w, "sample_weight")
    if kind == kernel.BAD_PROB:
        return _probability_error(p, name, bad)
    if kind == kernel.BAD_LABEL:
        return ValueError(
            f"y_true[{bad}] is not a class index in 0..{K - 1}; pass labels= to map label "
            f"values to the columns of {name}"
        )
    return MemoryError("calibration pass: out of memory")  # pragma: no cover


def _labels_1d(y_true: ArrayLike, n_prob: int, sample_weight: ArrayLike | None,
              name: str) -> np.ndarray:
    # data-frame text labels gathered from their codes (no Python objects)
    y = column(label_input(y_true, "y_true", encoded=False), "y_true")
    if y.shape[0] != n_prob:
        w_len = None if sample_weight is None else np.shape(sample_weight)[:1]
        raise inconsistent_lengths(y_true=y.shape[0], **{name: n_prob},
                                   sample_weight=w_len[0] if w_len else None)
    return y


def _fast_labels(y: np.ndarray) -> np.ndarray | None:
    """The label array the kernels read directly (bool as uint8), or None."""
    if y.dtype.char in INT_CHARS:
        return native(y)
    if y.dtype.kind == "b":
        return y.view(np.uint8)
    return None


def _label_value(pos: Any, dtype: DTypeLike) -> int | None:
    """``pos`` as an int in the range of the integer ``dtype``; None if no value equals it."""
    if type(pos) is int and 0 <= pos <= 127:  # in every integer dtype's range
        return pos
    try:
        i = int(pos)
        if i != pos:
            return None
    except (TypeError, ValueError, OverflowError):
        return None
    info = np.iinfo(dtype)
    return i if info.min <= i <= info.max else None


def _classes_message(y: ArrayLike) -> str:
    return ", ".join(repr(c) for c in np.unique(y).tolist())


def _no_pos_label(y: ArrayLike) -> ValueError:
    return ValueError(
        f"y_true takes value in {{{_classes_message(y)}}} and pos_label is not specified: "
        "either make y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly."
    )


def _not_binary(classes: np.ndarray, greater_label: bool, kind: str = "multiclass") -> ValueError:
    """scikit-learn's error for labels that are not binary: ``brier_score_loss``'s
    (``greater_label``) or ``calibration_curve``'s."""
    if greater_label:
        return ValueError(
            f"The type of the target inferred from y_true is {kind} but should be binary "
            f"according to the shape of y_prob. (y_true takes {classes.shape[0]} values: "
            f"{{{', '.join(repr(c) for c in classes[:10].tolist())}"
            f"{', ...' if classes.shape[0] > 10 else ''}}})"
        )
    return ValueError(f"Only binary classification is supported. Provided labels {classes}.")


def _finite_labels(y: np.ndarray) -> None:
    if y.dtype.kind == "f" and y.size and not np.isfinite(y).all():
        raise nonfinite_error(y, "y_true")


# ---------------------------------------------------------------------- the state


class CalibrationStack(Stacked):
    """Every group's binary calibration bins, row g group g's: merged row by row as
    :meth:`CalibrationState.merge` does (the bins' sums add)."""

    __slots__ = ()
    empty = (0.0, False)
    weighs = True

    def _merge_rows(self, other: Stacked, rows: np.ndarray) -> None:
        self.arrays[0][rows] += other.arrays[0]
        self.arrays[1][rows] |= other.arrays[1]

    def states(self) -> list[CalibrationState]:
        """Every group's state, group ``g``'s at position ``g``."""
        sums, any_weight = self.arrays[0].copy(), self.arrays[1].tolist()
        edges, weighted = self.layout
        return [CalibrationState(edges, sums[g], "binary", 0, weighted, any_weight[g])
                for g in range(sums.shape[0])]


def grouped_binary(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_prob: ArrayLike,
                   sample_weight: ArrayLike | None, *, edges: np.ndarray,
                   pos_label: Label | None) -> list[CalibrationState] | None:
    """:func:`grouped_stack`'s groups as states (None where it gives None).

    Examples
    --------
    >>> import numpy as np
    >>> states = grouped_binary(np.array([0, 1, 1]), 2, np.array([0, 1, 1]), [0.2, 0.7, 0.9],
    ...                         None, edges=uniform_edges(2), pos_label=None)
    >>> [st.n_samples for st in states]
    [1, 2]
    """
    stack = grouped_stack(codes, n_groups, y_true, y_prob, sample_weight, edges=edges,
                          pos_label=pos_label)
    return None if stack is None else stack.states()


def grouped_stack(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_prob: ArrayLike,
                  sample_weight: ArrayLike | None, *, edges: np.ndarray,
                  pos_label: Label | None) -> CalibrationStack | None:
    """The binary state of each group's rows from one pass over all of them (no ordering of
    the rows by group), or None where that pass does not apply and each group's state is
    built on its own: labels that are not integers or booleans, or whose positive class a
    group could read otherwise than the whole (labels of more than two values, or not
    {0, 1} / {-1, 1} without ``pos_label``).

    Parameters
    ----------
    codes : ndarray of integers (n_samples,)
        Each row's group, in ``range(n_groups)``.
    n_groups : int
    y_true, y_prob, sample_weight : array-like of shape (n_samples,)
        As :meth:`CalibrationState.binary` takes them.
    edges : ndarray
        The bins' edges.
    pos_label : label or None

    Returns
    -------
    stack : CalibrationStack or None
        Group g's bins at row g (empty for a group without rows): its counts exactly
        those of :meth:`CalibrationState.binary` on its rows, its sums to rounding (added
        in row order).

    Raises
    ------
    ValueError
        A probability outside [0, 1], NaN, or a weight that is not finite (as
        :meth:`CalibrationState.binary`); a code outside ``range(n_groups)``.

    Examples
    --------
    >>> import numpy as np
    >>> stack = grouped_stack(np.array([0, 1, 1]), 2, np.array([0, 1, 1]), [0.2, 0.7, 0.9],
    ...                       None, edges=uniform_edges(2), pos_label=None)
    >>> stack.sizes
    array([1, 2])
    """
    p = probabilities(y_prob)
    y = y_true if type(y_true) is np.ndarray else None
    if y is None or p.ndim != 1 or y.ndim != 1 or codes.ndim != 1 \
            or not y.shape[0] == p.shape[0] == codes.shape[0] or y.shape[0] == 0:
        return None
    yk = _fast_labels(y)
    if yk is None:
        return None
    lo, hi = yk.min().item(), yk.max().item()
    if pos_label is None:  # scikit-learn's rule, read alike by every subset of the labels
        if not (0 <= lo and hi <= 1 or (lo == -1 and hi in (-1, 1)
                                        and not bool((yk == 0).any()))):
            return None
        pos = 1
    else:
        value = _label_value(pos_label, yk.dtype)
        if value is None or (lo != hi and value not in (lo, hi)) or (
                lo != hi and not bool(((yk == lo) | (yk == hi)).all())):
            return None
        pos = value
    n = y.shape[0]
    w = check_weights(sample_weight, {"y_true": n, "y_prob": n}, allow_zero_sum=True,
                      check_values=False)
    e, padded, uniform = _edges_for(edges.shape[0] - 1, edges)
    sums = np.zeros((n_groups, e.shape[0] - 1, kernel.N_COLS))
    positive = (yk == pos).view(np.uint8)
    bad, kind = kernel.bin_binary_grouped(codes, positive, p,
                                          _NO_WEIGHTS if w is None else w, w is not None,
                                          padded, uniform, sums,
                                          threads_for("bins", n, None))
    if bad >= 0 and kind == kernel.BAD_GROUP:
        raise ValueError(f"group code {codes[bad]} at row {bad} is outside [0, {n_groups})")
    if bad >= 0:
        raise _input_error(kind, bad, p, w, "y_prob")
    if w is None:
        any_weight = np.ones(n_groups, dtype=bool)
    else:  # as binary(): a weight sum of 0 may still come from non-zero weights
        any_weight = (sums[:, :, kernel.W].sum(axis=1) != 0) | (
            np.bincount(codes, weights=(w != 0), minlength=n_groups)[:n_groups] > 0)
    return CalibrationStack((sums, any_weight), (e, w is not None),
                            sums[:, :, kernel.N].sum(axis=1).astype(np.int64))


class CalibrationState(base.State):
    """Per-bin sums of one or more binning passes over the same edges.

    Parameters
    ----------
    edges : ndarray (n_bins + 1,)
        Bin edges (read-only); bin b is ``(edges[b], edges[b + 1]]``, the first bin also
        holding ``edges[0]``.
    sums : ndarray (n_bins, N_COLS), float64
        Columns ``bins.W`` (sum of weights), ``SP`` (of weight x confidence), ``SY`` (of
        weight x correctness), ``SQ`` (of weight x two-column Brier term; only the column's
        total is meaningful) and ``N`` (number of samples) of ``fastmetrics._kernels.bins``.
    mode : {"binary", "top_label", "multilabel"}
    n_classes : int
        K, the columns of the probability matrix (0 for binary).
    weighted : bool
        Sample weights were given.
    any_weight : bool
        Some sample weight is non-zero (unweighted samples weigh 1): when the weights sum to
        zero this picks scikit-learn's error in ``brier_score_loss`` (ValueError when every
        weight is zero, ZeroDivisionError when they cancel).
    class_sq : float or None
        scikit-learn's multiclass (or multilabel) Brier numerator, ``sum_i w_i sum_k (y_ik -
        p_ik)**2`` with y the one-hot (indicator) rows over the sorted classes of all the
        data: known to a one-shot ``brier_score_loss`` pass only (None otherwise, and after a
        merge: chunks do not know the classes of the others).
    class_w : ndarray (K,) or None
        Sum of the weights of each class (column) of ``y_true``, known with ``class_sq``
        when the pass was asked for it (``d2_brier_score``'s baseline); None otherwise.

    See Also
    --------
    CalibrationState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.CalibrationAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.calibration_curve : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import CalibrationState
    >>> a = CalibrationState.from_arrays([0, 0], [0.5, 0.5], n_bins=2)
    >>> b = CalibrationState.from_arrays([1, 1], [0.75, 1.0], n_bins=2)
    >>> (a + b).sums[:, 4]
    array([2., 2.])
    """

    kind = "calibration"
    __slots__ = ("edges", "sums", "mode", "n_classes", "weighted", "any_weight", "class_sq",
                 "class_w")

    def __init__(self, edges: np.ndarray, sums: np.ndarray, mode: str, n_classes: int,
                 weighted: bool, any_weight: bool, class_sq: float | None = None,
                 class_w: np.ndarray | None = None) -> None:
        self.edges = edges
        self.sums = sums
        self.mode = mode
        self.n_classes = n_classes
        self.weighted = weighted
        self.any_weight = any_weight
        self.class_sq = class_sq
        self.class_w = class_w

    @property
    def n_samples(self) -> int:
        """The number of samples the state summarises."""
        return int(self.sums[:, kernel.N].sum())

    @property
    def n_bins(self) -> int:
        """The number of bins."""
        return int(self.sums.shape[0])

    def __repr__(self) -> str:
        what = "binary" if self.mode == "binary" else f"{self.mode}, K={self.n_classes}"
        return f"CalibrationState({what}, n_bins={self.n_bins}, n_samples={self.n_samples})"

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_prob: ArrayLike,
                    sample_weight: ArrayLike | None = None, *, n_bins: int = 10,
                    edges: ArrayLike | None = None, pos_label: Label | None = None,
                    labels: ArrayLike | None = None, n_threads: int | None = None,
                    allow_empty: bool = False) -> CalibrationState:
        """Bin one pass: :meth:`binary` for 1-D ``y_prob``, :meth:`top_label` for an (n, K)
        matrix. ``edges`` (None: ``n_bins`` equal-width bins) are used as given.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
            Positive-class probabilities (binary), or a probability matrix (top-label).
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        n_bins : int, default=10
            Number of equal-width bins over [0, 1] when ``edges`` is None.
        edges : array-like of shape (n_bins + 1,) or None, default=None
            Increasing bin edges, used as given.
        pos_label : int, float, bool, str or None, default=None
            The positive class of binary labels (None: scikit-learn's rule, see :meth:`binary`).
        labels : array-like of shape (n_classes,) or None, default=None
            Top-label: the class of each column.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.

        Returns
        -------
        state : CalibrationState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording where it has one (lengths, NaN or infinity,
            shapes, dtypes), and for empty input unless ``allow_empty``.

        See Also
        --------
        CalibrationState.merge : The state of two chunks.
        fastmetrics.streaming.CalibrationAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.calibration_curve : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import CalibrationState
        >>> a = CalibrationState.from_arrays([0, 0], [0.5, 0.5], n_bins=2)
        >>> a.n_samples
        2
        """
        p = probabilities(y_prob, "y_prob")
        if p.ndim == 1:
            return cls.binary(y_true, p, sample_weight, n_bins=n_bins, edges=edges,
                              pos_label=pos_label, n_threads=n_threads,
                              allow_empty=allow_empty)
        return cls.top_label(y_true, p, sample_weight, n_bins=n_bins, edges=edges,
                             labels=labels, n_threads=n_threads, allow_empty=allow_empty)

    @classmethod
    def binary(cls, y_true: ArrayLike, y_prob: ArrayLike,
               sample_weight: ArrayLike | None = None, *, n_bins: int = 10,
               edges: ArrayLike | None = None, pos_label: Label | None = None,
               n_threads: int | None = None, allow_empty: bool = False,
               greater_label: bool = False, name: str = "y_prob") -> CalibrationState:
        """One pass over binary labels and positive-class probabilities.

        ``pos_label=None`` follows scikit-learn: labels in {0, 1} or {-1, 1} (or one of them)
        mean positive = 1; otherwise ``calibration_curve`` raises, and with
        ``greater_label`` (``brier_score_loss``'s rule) the greater label is positive,
        for non-string labels.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary labels.
        y_prob : array-like of shape (n_samples,)
            Probabilities of the positive class, in [0, 1].
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        n_bins : int, default=10
            Number of equal-width bins over [0, 1] when ``edges`` is None.
        edges : array-like of shape (n_bins + 1,) or None, default=None
            Increasing bin edges, used as given.
        pos_label : int, float, bool, str or None, default=None
            The positive class (None: see above).
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.
        greater_label : bool, default=False
            ``brier_score_loss``'s rule for ``pos_label=None`` (see above).
        name : str, default="y_prob"
            The name of the probabilities in error messages.

        Returns
        -------
        state : CalibrationState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording where it has one (lengths, NaN or infinity,
            shapes, dtypes), and for empty input unless ``allow_empty``.

        See Also
        --------
        CalibrationState.merge : The state of two chunks.
        fastmetrics.streaming.CalibrationAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.calibration_curve : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import CalibrationState
        >>> a = CalibrationState.from_arrays([0, 0], [0.5, 0.5], n_bins=2)
        >>> a.n_samples
        2
        """
        p = probabilities(y_prob, name)
        if p.ndim != 1:
            raise ValueError(f"{name} must be 1-D (the probability of the positive class), "
                             f"got shape {p.shape}")
        nt = threads_for("bins", p.shape[0], n_threads)
        y = _labels_1d(y_true, p.shape[0], sample_weight, name)
        n = y.shape[0]
        w = check_weights(sample_weight, {"y_true": n, name: n}, allow_zero_sum=True,
                          check_values=False)
        e, padded, uniform = _edges_for(n_bins, edges)
        if n == 0:
            if not allow_empty:
                raise ValueError(EMPTY)
            return cls(e, np.zeros((e.shape[0] - 1, kernel.N_COLS)), "binary", 0, w is not None,
                       False)
        yk = _fast_labels(y)
        if yk is None:
            # strings, objects, floats: decide the positive label once, then read booleans
            _finite_labels(y)
            classes = np.unique(y)
            if greater_label and classes.dtype.kind == "f" and np.any(classes != np.floor(classes)):
                raise _not_binary(classes, greater_label, "continuous")
            if classes.shape[0] > 2:
                raise _not_binary(classes, greater_label)
            if pos_label is None:
                if classes.dtype.kind in "OUS" or not (
                    np.all(np.isin(classes, [0, 1])) or np.all(np.isin(classes, [-1, 1]))
                ):
                    if not greater_label or classes.dtype.kind in "OUS":
                        raise _no_pos_label(y)
                    pos_label = classes[-1]
                else:
                    pos_label = 1
            yk = np.asarray(y == pos_label).view(np.uint8)
            pos_label = 1
        pos_given = pos_label is not None
        pos = 1 if pos_label is None else pos_label
        sums = np.zeros((e.shape[0] - 1, kernel.N_COLS))
        for _attempt in range(2):
            pos_value = _label_value(pos, yk.dtype)
            bad, kind, n_other, other = kernel.bin_binary(
                yk, p, _NO_WEIGHTS if w is None else w, w is not None,
                0 if pos_value is None else pos_value, pos_value is not None, padded, uniform,
                sums, nt)
            if bad >= 0:
                raise _input_error(kind, bad, p, w, name)
            if n_other == 2:  # two or more labels other than the positive one
                classes = np.unique(yk)
                if classes.shape[0] > 2:
                    raise _not_binary(classes, greater_label)
                if not pos_given:
                    if not greater_label:
                        raise _no_pos_label(yk)
                    pos, pos_given = classes[-1].item(), True
                    sums[...] = 0.0
                    continue
            if not pos_given and n_other == 1 and other not in (0, -1):  # other: the smallest
                if not greater_label:
                    raise _no_pos_label(yk)
                pos, pos_given = np.unique(yk)[-1].item(), True
                sums[...] = 0.0
                continue
            break
        any_weight = w is None or sums[:, kernel.W].sum() != 0 or bool(w.any())
        return cls(e, sums, "binary", 0, w is not None, any_weight)

    @classmethod
    def top_label(cls, y_true: ArrayLike, y_prob: ArrayLike,
                  sample_weight: ArrayLike | None = None, *, n_bins: int = 10,
                  edges: ArrayLike | None = None, labels: ArrayLike | None = None,
                  n_threads: int | None = None, allow_empty: bool = False,
                  classes: bool = False, class_weights: bool = False,
                  name: str = "y_prob") -> CalibrationState:
        """One top-label pass over a probability matrix (n, K).

        ``y_true`` holds column indices ``0..K-1``, or (with ``labels``, the class of each
        column in column order) label values. ``classes=True`` is ``brier_score_loss``'s
        rule instead: columns are the sorted classes of ``y_true`` (or of ``labels``), every
        one of them present, and the state keeps the multiclass Brier sum (and, with
        ``class_weights``, the weight of each class). The pass runs on
        one thread (``n_threads`` is validated only).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Column indices, or (with ``labels``) label values.
        y_prob : array-like of shape (n_samples, n_classes)
            A probability matrix.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        n_bins : int, default=10
            Number of equal-width bins over [0, 1] when ``edges`` is None.
        edges : array-like of shape (n_bins + 1,) or None, default=None
            Increasing bin edges, used as given.
        labels : array-like of shape (n_classes,) or None, default=None
            The class of each column, in column order.
        n_threads : int or None, default=None
            Validated only: this pass runs on one thread.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.
        classes : bool, default=False
            ``brier_score_loss``'s rule (see above).
        class_weights : bool, default=False
            With ``classes``: also keep the weight of each class.
        name : str, default="y_prob"
            The name of the probabilities in error messages.

        Returns
        -------
        state : CalibrationState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording where it has one (lengths, NaN or infinity,
            shapes, dtypes), and for empty input unless ``allow_empty``.

        See Also
        --------
        CalibrationState.merge : The state of two chunks.
        fastmetrics.streaming.CalibrationAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.calibration_curve : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import CalibrationState
        >>> a = CalibrationState.from_arrays([0, 0], [0.5, 0.5], n_bins=2)
        >>> a.n_samples
        2
        """
        P = probabilities(y_prob, name)
        if P.ndim != 2:
            raise ValueError(f"{name} must be (n_samples, n_classes), got shape {P.shape}")
        threads_for("bins", 0, n_threads)
        y = _labels_1d(y_true, P.shape[0], sample_weight, name)
        n, K = P.shape
        w = check_weights(sample_weight, {"y_true": n, name: n}, allow_zero_sum=True,
                          check_values=False)
        e, padded, uniform = _edges_for(n_bins, edges)
        nb = e.shape[0] - 1
        if n == 0:
            if not allow_empty:
                raise ValueError(EMPTY)
            return cls(e, np.zeros((nb, kernel.N_COLS)), "top_label", K, w is not None, False)
        yk, direct = _class_indices(y, labels, K, classes)
        tol = 1e-8 + math.sqrt(np.finfo(P.dtype).eps)
        for _attempt in range(2):
            sums = np.zeros((nb, kernel.N_COLS))
            extra = np.zeros(1)
            seen = np.zeros(K, np.int64)
            bad, kind, n_unnorm = kernel.bin_top_label(
                yk, P, _NO_WEIGHTS if w is None else w, w is not None, padded, uniform, tol,
                sums, extra, seen)
            if (bad >= 0 and kind == kernel.BAD_LABEL and classes and direct
                    and np.isfinite(P).all()):
                # integer labels that are not 0..K-1: scikit-learn's sorted classes
                yk, direct = _class_indices(y, None, K, True, encode=True), False
                continue
            break
        if bad >= 0:
            raise _input_error(kind, bad, P, w, name, K)
        if classes and direct and np.any(seen == 0):
            # the labels are some of 0..K-1: fewer classes than columns
            _class_indices(y, None, K, True, encode=True)
        if n_unnorm:
            warn(NOT_NORMALISED, UserWarning)
        any_weight = w is None or sums[:, kernel.W].sum() != 0 or bool(w.any())
        class_w = None
        if classes and class_weights:
            # unweighted, the kernel's per-class counts are the weights; else one bincount
            class_w = (seen.astype(np.float64) if w is None
                       else np.bincount(yk, weights=w, minlength=K).astype(np.float64))
        return cls(e, sums, "top_label", K, w is not None, any_weight,
                   float(extra[0]) if classes else None, class_w)

    @classmethod
    def for_brier(cls, y_true: ArrayLike, y_proba: ArrayLike,
                  sample_weight: ArrayLike | None = None, *, pos_label: Label | None = None,
                  labels: ArrayLike | None = None, n_threads: int | None = None,
                  class_weights: bool = False) -> CalibrationState:
        """The one-bin state ``brier_score_loss`` reads, by scikit-learn's rules: 1-D
        ``y_proba`` is binary (the greater label positive when ``pos_label`` is None and the
        labels are not {0, 1} / {-1, 1}); an (n, K) matrix is multiclass (columns in sorted
        class order) or, with an (n, K) indicator matrix ``y_true``, multilabel.
        ``class_weights``: a multiclass or multilabel state also keeps the weight of each
        class (binary states always know theirs: ``SY`` and ``W - SY``).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
            Labels, or a multilabel indicator matrix.
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Probabilities.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        pos_label : int, float, bool, str or None, default=None
            The positive class of binary labels.
        labels : array-like or None, default=None
            The classes of the columns (multiclass).
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        class_weights : bool, default=False
            Multiclass or multilabel: also keep the weight of each class.

        Returns
        -------
        state : CalibrationState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording.

        See Also
        --------
        CalibrationState.merge : The state of two chunks.
        fastmetrics.streaming.CalibrationAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.calibration_curve : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import CalibrationState
        >>> a = CalibrationState.from_arrays([0, 0], [0.5, 0.5], n_bins=2)
        >>> a.n_samples
        2
        """
        p = probabilities(y_proba, "y_proba")
        if p.ndim == 1:
            return cls.binary(y_true, p, sample_weight, n_bins=1, pos_label=pos_label,
                              n_threads=n_threads, greater_label=True, name="y_proba")
        y = label_input(y_true, "y_true", encoded=False)
        if y.ndim == 2 and y.shape[1] > 1:
            return cls._indicator(y, p, sample_weight, labels)
        return cls.top_label(y, p, sample_weight, n_bins=1, labels=labels, classes=True,
                             class_weights=class_weights, n_threads=n_threads, name="y_proba")

    @classmethod
    def _indicator(cls, Y: np.ndarray, P: np.ndarray, sample_weight: ArrayLike | None,
                   labels: ArrayLike | None) -> CalibrationState:
        """scikit-learn's Brier sum of an (n, K) indicator matrix: the multiclass formula
        with the indicator rows as targets (vectorised numpy: no kernel has this form)."""
        n, K = P.shape
        # scikit-learn's order: range, lengths, weights, the targets, row sums, classes
        if P.size and not ((P >= 0) & (P <= 1)).all():
            raise _probability_error(P, "y_proba")
        if Y.shape[0] != n:
            w_len = None if sample_weight is None else np.shape(sample_weight)[:1]
            raise inconsistent_lengths(y_true=Y.shape[0], y_proba=n,
                                       sample_weight=w_len[0] if w_len else None)
        w = check_weights(sample_weight, {"y_true": n, "y_proba": n})
        if n == 0:
            raise ValueError(EMPTY)
        if Y.dtype.kind not in "iubf" or not np.isin(Y, (0, 1)).all():
            raise ValueError(
                "Multioutput target data is not supported with label binarization (a 2-D "
                "y_true must be a multilabel indicator matrix of 0 and 1)"
            )
        if labels is not None:
            raise ValueError(
                "labels= is for 1-D y_true: the columns of a multilabel indicator matrix are "
                "its classes"
            )
        Pd = P.astype(np.float64, copy=False)
        tol = 1e-8 + math.sqrt(np.finfo(P.dtype).eps)
        if np.any(np.abs(Pd.sum(axis=1) - 1.0) > tol):
            warn(NOT_NORMALISED, UserWarning)
        if Y.shape[1] != K:
            raise ValueError(
                f"y_true and y_prob contain different number of classes: {Y.shape[1]} vs {K}. "
                "Please provide the true labels explicitly through the labels argument. "
                f"Classes found in y_true: {np.arange(Y.shape[1])}"
            )
        row_sq = ((Y - Pd) ** 2).sum(axis=1)
        sums = np.zeros((1, kernel.N_COLS))
        sums[0, kernel.N] = n
        Yd = Y.astype(np.float64, copy=False)
        if w is None:
            sums[0, kernel.W] = n
            class_sq = float(row_sq.sum())
            class_w = Yd.sum(axis=0)
        else:
            wd = w.astype(np.float64, copy=False)
            sums[0, kernel.W] = float(w.sum(dtype=np.float64))
            class_sq = float(np.dot(wd, row_sq))
            class_w = wd @ Yd
        any_weight = w is None or bool(w.any())
        return cls(_uniform(1)[0], sums, "multilabel", K, w is not None, any_weight, class_sq,
                   class_w)

    @classmethod
    def from_sums(cls, edges: ArrayLike, sums: Any, n_classes: int = 0, *, weighted: bool,
                  any_weight: bool) -> CalibrationState:
        """A state from its per-bin sums (e.g. kept by an older version), checked as any
        loaded state: ``n_classes`` 0 for binary, K for top-label.

        Parameters
        ----------
        edges : array-like of shape (n_bins + 1,)
            Increasing bin edges.
        sums : array-like of shape (n_bins, N_COLS)
            The per-bin sums (see the class).
        n_classes : int, default=0
            0 for binary, K for top-label.
        weighted : bool
            Sample weights were given.
        any_weight : bool
            Some sample weight is non-zero.

        Returns
        -------
        state : CalibrationState
            The state, checked as any loaded state.

        Raises
        ------
        StateError
            If the sums break an invariant (shapes, negative counts...).

        See Also
        --------
        CalibrationState.from_arrays : The state of data.

        Examples
        --------
        >>> from fastmetrics.states import CalibrationState
        >>> s = CalibrationState.from_arrays([0, 1], [0.2, 0.9], n_bins=2)
        >>> CalibrationState.from_sums(s.edges, s.sums, weighted=False, any_weight=True).n_samples
        2
        """
        return cls.from_dict({
            "kind": cls.kind, "format": base.FORMAT, "edges": np.asarray(edges),
            "sums": np.asarray(sums), "mode": "binary" if n_classes == 0 else "top_label",
            "n_classes": n_classes, "weighted": weighted, "any_weight": any_weight,
            "has_class_sq": False, "class_sq": 0.0,
        })

    # ------------------------------------------------------------------ merge
    def _same_layout(self, other: Any) -> bool:
        # the merge refuses other edges, modes or class counts, and multilabel states
        return bool(other.mode == self.mode != "multilabel"
                    and other.n_classes == self.n_classes
                    and same_labels(self.edges, other.edges))

    def merge(self, other: CalibrationState) -> CalibrationState:
        """The state of both inputs: same edges and mode required, sums add.

        Parameters
        ----------
        other : CalibrationState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : CalibrationState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        CalibrationState.from_arrays : The state of one chunk.
        fastmetrics.streaming.CalibrationAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.calibration_curve : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import CalibrationState
        >>> a = CalibrationState.from_arrays([0, 0], [0.5, 0.5], n_bins=2)
        >>> b = CalibrationState.from_arrays([1, 1], [0.75, 1.0], n_bins=2)
        >>> a.merge(b).n_samples
        4
        """
        self._check_mergeable(other)
        if self.edges.shape != other.edges.shape or not np.array_equal(self.edges, other.edges):
            raise ValueError("cannot merge calibration states with different edges")
        if self.mode != other.mode or self.n_classes != other.n_classes:
            raise ValueError(
                f"cannot merge binary and top-label (or different K) calibration states "
                f"({self._what()} and {other._what()})"
            )
        if self.mode == "multilabel":
            raise ValueError("multilabel Brier states do not merge (one-shot only)")
        return CalibrationState(self.edges, self.sums + other.sums, self.mode, self.n_classes,
                                self.weighted or other.weighted,
                                self.any_weight or other.any_weight, None)

    def _what(self) -> str:
        return "binary" if self.mode == "binary" else f"{self.mode} with K={self.n_classes}"

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        return {
            "edges": np.array(self.edges),
            "sums": self.sums.copy(),
            "mode": self.mode,
            "n_classes": int(self.n_classes),
            "weighted": bool(self.weighted),
            "any_weight": bool(self.any_weight),
            "has_class_sq": self.class_sq is not None,
            "class_sq": 0.0 if self.class_sq is None else float(self.class_sq),
            "has_class_w": self.class_w is not None,
            "class_w": np.zeros(0) if self.class_w is None else np.array(self.class_w),
        }

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> CalibrationState:
        edges = base.field(d, "edges", kinds="f", ndim=1, dtype=np.float64)
        nb = edges.shape[0] - 1
        if nb < 1:
            raise base.StateError("a calibration state needs at least 2 edges")
        if not (np.isfinite(edges).all() and np.all(edges[1:] >= edges[:-1])
                and edges[0] >= 0.0 and edges[-1] <= 1.0):
            raise base.StateError("edges must be finite, non-decreasing and within [0, 1]")
        sums = base.field(d, "sums", kinds="f", ndim=2, shape=(nb, kernel.N_COLS),
                          dtype=np.float64)
        if not np.isfinite(sums).all():
            raise base.StateError("the per-bin sums must be finite")
        mode = base.text(d, "mode")
        if mode not in MODES:
            raise base.StateError(f"mode must be one of {MODES}, got {mode!r}")
        K = base.integer(d, "n_classes")
        if (mode == "binary") != (K == 0) or (mode != "binary" and K < 2):
            raise base.StateError(f"a {mode} state cannot have n_classes={K}")
        weighted, any_weight = base.flag(d, "weighted"), base.flag(d, "any_weight")
        counts = sums[:, kernel.N]
        if np.any(counts < 0) or np.any(counts != np.floor(counts)):
            raise base.StateError("the per-bin counts must be non-negative integers")
        empty = counts == 0
        if np.any(sums[empty][:, [kernel.W, kernel.SP, kernel.SY]] != 0):
            raise base.StateError("a bin without samples must have zero sums")
        n = float(counts.sum())
        if not weighted:
            W, SP, SY = sums[:, kernel.W], sums[:, kernel.SP], sums[:, kernel.SY]
            if not np.array_equal(W, counts):
                raise base.StateError("unweighted: the weight of a bin must be its count")
            if np.any(SY != np.floor(SY)) or np.any(SY < 0) or np.any(SY > counts):
                raise base.StateError("unweighted: the correct (positive) samples of a bin "
                                      "must be an integer between 0 and its count")
            if np.any(SP < 0) or np.any(SP > counts):
                raise base.StateError("unweighted: the confidences of a bin must sum to "
                                      "between 0 and its count")
            if np.any(sums[:, kernel.SQ] < 0) or sums[:, kernel.SQ].sum() > 2 * n:
                raise base.StateError("unweighted: the Brier terms must lie in [0, 2]")
            if n and not any_weight:
                raise base.StateError("unweighted samples weigh 1: any_weight must be True")
        elif sums[:, kernel.W].sum() != 0 and not any_weight:
            raise base.StateError("the weights sum to non-zero but any_weight is False")
        class_sq = None
        if base.flag(d, "has_class_sq"):
            if mode == "binary":
                raise base.StateError("a binary state keeps no multiclass Brier sum")
            class_sq = base.number(d, "class_sq")
            if not weighted and not 0.0 <= class_sq <= K * n:
                raise base.StateError("unweighted: the multiclass Brier sum must lie in "
                                      "[0, K x n_samples]")
        elif mode == "multilabel":
            raise base.StateError("a multilabel state must keep its Brier sum")
        class_w = None
        if "has_class_w" in d and base.flag(d, "has_class_w"):  # absent: saved before it
            if class_sq is None:
                raise base.StateError("class weights come with the multiclass Brier sum")
            class_w = base.field(d, "class_w", kinds="f", ndim=1, shape=(K,),
                                 dtype=np.float64)
            if not np.isfinite(class_w).all():
                raise base.StateError("the class weights must be finite")
            if not weighted and (np.any(class_w < 0) or np.any(class_w != np.floor(class_w))
                                 or (mode == "top_label" and class_w.sum() != n)):
                raise base.StateError("unweighted: the class weights must be counts (summing "
                                      "to n_samples for one label a sample)")
            class_w = class_w.copy()
        return cls(_read_only(edges.copy()), sums.copy(), mode, K, weighted, any_weight,
                   class_sq, class_w)


def _class_indices(y: np.ndarray, labels: Any, K: int, classes: bool, *,
                   encode: bool = False) -> Any:
    """``(indices, direct)``: ``y`` as column indices for the top-label kernel (which checks
    the range), and whether they are ``y`` itself (integers read in place).

    With ``labels``, column k is ``labels[k]`` (``classes``: the k-th of the sorted labels,
    scikit-learn's ``brier_score_loss``). Without, integer ``y`` are the indices; with
    ``classes`` other labels are encoded as their rank among the sorted classes of ``y``,
    which must number K (``encode``: do that now; returns the indices only)."""
    if labels is not None:
        return _mapped(y, labels, K, classes), False
    yk = _fast_labels(y)
    if yk is not None and not encode:
        return yk, True
    if not classes:
        raise TypeError(
            f"y_true must hold integer class indices 0..{K - 1} (got dtype {y.dtype}); pass "
            "labels= to map other label values to the columns of y_prob"
        )
    _finite_labels(y)
    (inverse,), found = encode_labels(y)  # one hash pass; only the distinct labels sorted
    if found.shape[0] == 1:
        raise ValueError(
            f"y_true contains only one label ({found[0]}). Please provide the list of all "
            "expected class labels explicitly through the labels argument. (y_true and y_prob "
            f"contain different number of classes: 1 vs {K})"
        )
    if found.shape[0] != K:
        raise ValueError(
            f"y_true and y_prob contain different number of classes: {found.shape[0]} vs "
            f"{K}. Please provide the true labels explicitly through the labels argument. "
            f"Classes found in y_true: {found}"
        )
    idx = inverse.reshape(-1).astype(np.int64)
    return idx if encode else (idx, False)


def _mapped(y: np.ndarray, labels: Any, K: int, classes: bool) -> np.ndarray:
    """Column indices of ``y`` among ``labels`` (see :func:`_class_indices`)."""
    lab = np.asarray(labels)
    if classes:  # scikit-learn: the sorted unique labels, whatever the order given
        found = np.unique(lab)
        if lab.ndim != 1 or lab.shape[0] != found.shape[0] or np.any(lab != found):
            warn(f"Labels passed were {labels}. But this function assumes labels are ordered "
                 f"lexicographically. Pass the ordered labels={found.tolist()} and ensure "
                 "that the columns of y_prob correspond to this ordering.", UserWarning)
        lab = found
    else:
        if lab.ndim != 1 or lab.shape[0] != K:
            got = lab.shape[0] if lab.ndim == 1 else lab.shape
            raise ValueError(f"labels must list the {K} classes of the columns of y_prob, "
                             f"got {got}")
        if np.unique(lab).shape[0] != K:
            raise ValueError("labels must not contain duplicates")
    k = lab.shape[0]
    if k == 0:
        raise ValueError("labels must contain at least one label")
    order = np.argsort(lab, kind="stable")
    pos = np.minimum(np.searchsorted(lab[order], y), k - 1)
    found_y = lab[order][pos] == y
    if not np.all(found_y):
        bad = int(np.flatnonzero(~found_y)[0])
        if classes:
            raise ValueError(
                f"y_true contains values {set(np.unique(y[~found_y]).tolist())} not belonging "
                f"to the passed labels {labels}. (y_true[{bad}] = {y[bad]!r} is not in labels)"
            )
        raise ValueError(f"y_true[{bad}] = {y[bad]!r} is not in labels")
    if classes and k == 1:
        raise ValueError(f"The labels array needs to contain at least two labels, got {lab}.")
    if classes and k != K:
        raise ValueError("The number of classes in labels is different from that in y_prob. "
                         f"Classes found in labels: {lab}")
    idx: np.ndarray = order[pos].astype(np.int64)
    return idx


# ---------------------------------------------------------------------- result types


def _ece_mce(sums: np.ndarray) -> tuple[float, float]:
    W = sums[:, kernel.W]
    total = W.sum()
    if total == 0:
        raise ValueError("sample_weight sums to zero: calibration is undefined")
    nz = W != 0
    Wn = W[nz]
    gap = np.abs(sums[nz, kernel.SY] / Wn - sums[nz, kernel.SP] / Wn)
    return float(np.sum(Wn / total * gap)), float(gap.max())


def _top_brier(sums: np.ndarray) -> float:
    return float(0.5 * sums[:, kernel.SQ].sum() / sums[:, kernel.W].sum())


@dataclass(frozen=True)
class CalibrationBins:
    """Per-bin calibration state and the statistics derived from it.

    What :func:`fastmetrics.calibration_bins` returns. Bins with the same edges merge by
    adding their per-bin sums (:meth:`merge`).

    Parameters
    ----------
    edges : ndarray of shape (n_bins + 1,)
        Bin edges; bin b is ``(edges[b], edges[b + 1]]`` (the first bin also holds ``edges[0]``).
    counts : ndarray of shape (n_bins,), int64
        Number of samples per bin.
    weights : ndarray of shape (n_bins,)
        Sum of sample weights per bin (equal to ``counts`` without weights).
    mean_confidence : ndarray of shape (n_bins,)
        Weighted mean confidence (probability) per bin, NaN for empty bins.
    observed_frequency : ndarray of shape (n_bins,)
        Weighted fraction of positives (binary) or of correct top labels, NaN for empty bins.
    state : ndarray of shape (n_bins, 5)
        The per-bin sums (W, sum w*conf, sum w*correct, Brier numerator, count: the columns
        of ``CalibrationState.sums``); sums of two chunks with the
        same edges add.

    See Also
    --------
    fastmetrics.calibration_bins : The function that returns these bins.
    fastmetrics.reliability_diagram : A picture of them.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> b = fm.calibration_bins([0, 0, 1, 1], [0.1, 0.3, 0.3, 0.9], n_bins=2)
    >>> b.n_bins, b.counts.tolist()
    (2, [3, 1])
    """

    edges: np.ndarray
    counts: np.ndarray
    weights: np.ndarray
    mean_confidence: np.ndarray
    observed_frequency: np.ndarray
    state: np.ndarray = dc_field(repr=False)

    @classmethod
    def from_state(cls, state: np.ndarray, edges: np.ndarray) -> CalibrationBins:
        """The bins of per-bin sums ``state`` (n_bins, 5) over ``edges``.

        Parameters
        ----------
        state : ndarray of shape (n_bins, 5)
            Per-bin sums, in the column order of ``CalibrationBins.state``.
        edges : ndarray of shape (n_bins + 1,)
            The bin edges.

        Returns
        -------
        bins : CalibrationBins
            Counts, weights, mean confidence and observed frequency derived from the sums.

        See Also
        --------
        CalibrationBins.merge : Adds two bins' sums and calls this.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> from fastmetrics.calibration import CalibrationBins
        >>> b = fm.calibration_bins([0, 1], [0.2, 0.8], n_bins=2)
        >>> CalibrationBins.from_state(b.state, b.edges).counts.tolist()
        [1, 1]
        """
        W = state[:, kernel.W]
        with np.errstate(invalid="ignore", divide="ignore"):
            conf = np.where(W != 0, state[:, kernel.SP] / W, np.nan)
            freq = np.where(W != 0, state[:, kernel.SY] / W, np.nan)
        return cls(edges, state[:, kernel.N].astype(np.int64), W.copy(), conf, freq, state)

    @property
    def n_bins(self) -> int:
        """Number of bins.

        See Also
        --------
        fastmetrics.CalibrationBins : The record whose ``edges`` holds the ``n_bins + 1`` edges.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.calibration_bins([0, 1], [0.2, 0.8], n_bins=4).n_bins
        4
        """
        return int(self.counts.shape[0])

    @property
    def ece(self) -> float:
        """Expected calibration error: sum over bins of ``(W_b / W) * |freq_b - conf_b|``.

        See Also
        --------
        fastmetrics.expected_calibration_error : The same number from arrays.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.calibration_bins([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2).ece
        0.3125
        """
        return _ece_mce(self.state)[0]

    @property
    def mce(self) -> float:
        """Maximum calibration error: the largest ``|freq_b - conf_b|`` over non-empty bins.

        See Also
        --------
        fastmetrics.max_calibration_error : The same number from arrays.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.calibration_bins([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2).mce
        0.5
        """
        return _ece_mce(self.state)[1]

    @property
    def brier(self) -> float:
        """Brier score of the confidences: mean (conf - correct)**2 (binary: (p - y)**2).

        See Also
        --------
        fastmetrics.brier_score_loss : scikit-learn's Brier score (equal for binary input).

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.calibration_bins([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2).brier
        0.140625
        """
        return _top_brier(self.state)

    def merge(self, other: CalibrationBins) -> CalibrationBins:
        """The bins of both inputs together (same edges required).

        Parameters
        ----------
        other : CalibrationBins
            Bins of another chunk, over the same edges.

        Returns
        -------
        merged : CalibrationBins
            The bins of both chunks' samples (per-bin sums added).

        Raises
        ------
        ValueError
            If the two bins' edges differ.

        See Also
        --------
        fastmetrics.streaming.CalibrationAccumulator : Merges chunks as they arrive.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> a = fm.calibration_bins([0, 1], [0.2, 0.8], n_bins=2)
        >>> b = fm.calibration_bins([1, 1], [0.9, 0.4], n_bins=2)
        >>> a.merge(b).counts.tolist()
        [2, 2]
        """
        if not np.array_equal(self.edges, other.edges):
            raise ValueError("cannot merge calibration bins with different edges")
        return CalibrationBins.from_state(self.state + other.state, self.edges)


@dataclass(frozen=True)
class CalibrationSummary:
    """ECE, MCE and Brier score from one binning pass, with the bins they came from.

    What :func:`fastmetrics.calibration_summary` returns (frozen).

    Parameters
    ----------
    ece : float
        Expected calibration error.
    mce : float
        Maximum calibration error.
    brier : float
        Brier score of the (top-label) confidences.
    n_bins : int
        Number of bins.
    bins : CalibrationBins
        The bins the three values came from.

    See Also
    --------
    fastmetrics.calibration_summary : The function that returns this record.
    CalibrationBins : The bins.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.calibration_summary([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2).ece
    0.3125
    """

    ece: float
    mce: float
    brier: float
    n_bins: int
    bins: CalibrationBins = dc_field(repr=False)

    def as_row(self) -> dict[str, float]:
        """The scalar metrics as a flat dict (one table row).

        Returns
        -------
        row : dict[str, float]
            ``ece``, ``mce``, ``brier`` and ``n_bins``.

        See Also
        --------
        CalibrationSummary.to_flat_dict : The same plus per-bin values.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.calibration_summary([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2).as_row()
        {'ece': 0.3125, 'mce': 0.5, 'brier': 0.140625, 'n_bins': 2}
        """
        return {"ece": self.ece, "mce": self.mce, "brier": self.brier, "n_bins": self.n_bins}

    def to_flat_dict(self) -> dict[str, float]:
        """Scalars plus per-bin values under dot keys (``bins.3.count``, ...).

        Returns
        -------
        values : dict[str, float]
            The row of :meth:`as_row` plus ``bins.<i>.lower``, ``.upper``, ``.count``,
            ``.confidence`` and ``.accuracy`` for every bin.

        See Also
        --------
        CalibrationSummary.as_row : The scalars only.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> s = fm.calibration_summary([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2)
        >>> s.to_flat_dict()["bins.1.count"]
        2
        """
        out: dict[str, float] = dict(self.as_row())
        b = self.bins
        for i in range(b.n_bins):
            out[f"bins.{i}.lower"] = float(b.edges[i])
            out[f"bins.{i}.upper"] = float(b.edges[i + 1])
            out[f"bins.{i}.count"] = int(b.counts[i])
            out[f"bins.{i}.confidence"] = float(b.mean_confidence[i])
            out[f"bins.{i}.accuracy"] = float(b.observed_frequency[i])
        return out


# public under their face module: reprs, pickles and docs name fastmetrics.calibration
CalibrationBins.__module__ = CalibrationSummary.__module__ = "fastmetrics.calibration"


# ---------------------------------------------------------------------- derivations


def _binned_sums(state: CalibrationState) -> np.ndarray:
    if state.mode == "multilabel":
        raise ValueError("a multilabel Brier state has no calibration bins (brier_score_loss "
                         "only)")
    return state.sums


def binned(state: CalibrationState) -> CalibrationBins:
    """``calibration_bins``: edges, counts, weights, mean confidence and observed frequency
    per bin."""
    return CalibrationBins.from_state(_binned_sums(state).copy(), np.array(state.edges))


def ece(state: CalibrationState) -> float:
    """``expected_calibration_error``: ``sum_b (W_b / W) * |observed_b - confidence_b|``."""
    return _ece_mce(_binned_sums(state))[0]


def ece_replicates(states: Sequence[CalibrationState], rng: np.random.Generator,
                   n_resamples: int) -> np.ndarray:
    """The expected calibration error of ``n_resamples`` Poisson bootstrap resamples of
    each of several unweighted binary or top-label states of the same bins (the slices of
    one model, say), drawn from their bins at once: each (bin, right or wrong) cell's
    count in a resample is Poisson with the cell's count as its mean (each row drawn a
    Poisson(1) number of times; the total varies, and the error is over the resample's
    total), a cell of 30 rows or more by the normal law of that Poisson count (its skew
    there is at most 0.18; four times cheaper to draw). The confidence of each bin stays
    its mean (the state holds no spread of the confidences within a bin, which is at most
    the bin's width and small beside the Bernoulli spread of the outcomes). O(bins) a
    resample, whatever the rows.

    Returns
    -------
    values : ndarray of shape (len(states), n_resamples)
        Row i the resamples of ``states[i]``; NaN for a resample that draws no row, and
        the whole row for a weighted, multilabel or empty state.

    Examples
    --------
    >>> st = CalibrationState.from_arrays([0, 1, 1, 0, 1], [0.2, 0.7, 0.9, 0.4, 0.6],
    ...                                   n_bins=2)
    >>> v = ece_replicates([st], np.random.default_rng(0), 200)
    >>> v.shape, bool((v[~np.isnan(v)] >= 0).all())
    ((1, 200), True)
    """
    out = np.full((len(states), n_resamples), np.nan)
    by_bins: dict[int, list[int]] = {}  # states of as many bins are drawn together
    for i, st in enumerate(states):
        if not st.weighted and st.mode != "multilabel" and st.sums[:, kernel.N].any():
            by_bins.setdefault(st.sums.shape[0], []).append(i)
    for bins_, live in by_bins.items():
        # blocks of states whose draws take about 16 MiB
        step = max(1, (1 << 21) // max(1, n_resamples * 2 * bins_))
        for a in range(0, len(live), step):
            part = live[a:a + step]
            out[part] = _ece_draws(np.stack([states[i].sums for i in part]), rng,
                                   n_resamples)
    return out


def _ece_draws(s: np.ndarray, rng: np.random.Generator, n_resamples: int) -> np.ndarray:
    """:func:`ece_replicates` of the stacked sums ``s`` (states, bins, columns): shape
    (states, n_resamples)."""
    n_b = s[:, :, kernel.N]
    right = np.rint(s[:, :, kernel.SY])
    means = np.stack([right, n_b - right], axis=2).reshape(-1)  # each slice's cells
    conf = np.divide(s[:, :, kernel.SP], n_b, out=np.zeros_like(n_b), where=n_b != 0)
    d = np.zeros((n_resamples, means.shape[0]))
    large = means >= 30
    small = ~large & (means > 0)
    if small.any():
        d[:, small] = rng.poisson(means[small], size=(n_resamples, int(small.sum())))
    if large.any():
        m = means[large]
        d[:, large] = np.maximum(m + np.sqrt(m) * rng.standard_normal(
            (n_resamples, m.shape[0])), 0.0)
    cells = d.reshape(n_resamples, s.shape[0], -1, 2)
    drawn_right = cells[..., 0]
    drawn_n = drawn_right + cells[..., 1]
    total = drawn_n.sum(axis=2)
    # sum_b (n*_b / N*) |right*_b / n*_b - conf_b| = sum_b |right*_b - n*_b conf_b| / N*
    gaps = np.abs(drawn_right - drawn_n * conf).sum(axis=2)
    values: np.ndarray = np.divide(gaps, total, out=np.full(total.shape, np.nan),
                                   where=total > 0).T
    return values


def mce(state: CalibrationState) -> float:
    """``max_calibration_error``: the largest ``|observed_b - confidence_b|``."""
    return _ece_mce(_binned_sums(state))[1]


def summary(state: CalibrationState) -> CalibrationSummary:
    """``calibration_summary``: ECE, MCE and the (top-label) Brier score, with the bins."""
    b = binned(state)
    e, m = _ece_mce(b.state)
    return CalibrationSummary(e, m, _top_brier(b.state), b.n_bins, b)


def curve(state: CalibrationState) -> tuple[np.ndarray, np.ndarray]:
    """``calibration_curve``: (fraction of positives, mean probability) of each non-empty
    bin, of a binary unweighted state."""
    if state.mode != "binary" or state.weighted:
        raise ValueError("calibration_curve needs binary, unweighted chunks (1-D y_prob, no "
                         "sample_weight)")
    s = state.sums
    nz = s[:, kernel.N] != 0
    return s[nz, kernel.SY] / s[nz, kernel.N], s[nz, kernel.SP] / s[nz, kernel.N]


def check_scale_by_half(scale_by_half: object) -> None:
    if not (isinstance(scale_by_half, bool | np.bool_) or scale_by_half == "auto"):
        raise ValueError(f"scale_by_half must be a bool or 'auto', got {scale_by_half!r}")


def brier(state: CalibrationState, scale_by_half: bool | str = "auto") -> float:
    """``brier_score_loss``: the weighted mean of ``sum_k (y_k - p_k)**2`` over the two
    columns of a binary problem or the K of a multiclass (multilabel) one, halved for two
    columns with ``scale_by_half="auto"``. Merged top-label states do not know the classes
    of all the data, so they have none: binary only."""
    check_scale_by_half(scale_by_half)
    total = state.sums.sum(axis=0)
    if state.mode == "binary":
        num, two_columns = total[kernel.SQ], True
    elif state.class_sq is None:
        raise ValueError(
            "brier_score_loss of streamed or merged probabilities is binary: y_proba must be "
            "1-D (the multiclass Brier score needs the classes of all the data, so it is not "
            "merged over chunks)"
        )
    else:
        num, two_columns = state.class_sq, state.n_classes < 3
    W = total[kernel.W]
    if W == 0:
        # scikit-learn: ValueError when every weight is zero, ZeroDivisionError when they cancel
        raise zero_weight_sum_error(None if state.any_weight else _NO_WEIGHTS)
    score = float(num) / float(W)
    if scale_by_half == "auto":
        scale_by_half = two_columns
    return score * 0.5 if scale_by_half else score


def d2_brier(state: CalibrationState) -> float:
    """``d2_brier_score``: ``1 - brier / brier_null``, the null model predicting every class's
    weighted frequency ``q_k`` of ``y_true``, whose Brier score is ``sum_k q_k (1 - q_k)``
    (the mean of ``sum_k (y_k - q_k)**2``; multilabel too, column by column), computed as
    ``2 sum_{j<k} c_j c_k / W**2`` from the class weights ``c_k`` (binary: ``W - SY`` and
    ``SY``, so a class weighing less than about 1e-4 of the total loses digits to that
    difference; multilabel: ``sum_k c_k (W - c_k) / W**2``). A constant ``y_true`` gives a
    zero baseline: -inf or nan with numpy's RuntimeWarning, as scikit-learn."""
    if state.n_samples < 2:
        return proba.too_few()
    if state.mode != "binary" and state.class_w is None:
        raise ValueError(
            "d2_brier_score of streamed or merged probabilities is binary: y_proba must be 1-D "
            "(the multiclass baseline needs the classes of all the data, so it is not merged "
            "over chunks)"
        )
    score = brier(state, False)  # scikit-learn's errors (zero weights)
    total = state.sums.sum(axis=0)
    W = float(total[kernel.W])
    c: Any
    if state.mode == "binary":
        pos = float(total[kernel.SY])
        c = np.array([W - pos, pos])
    else:
        c = state.class_w
    if state.mode == "multilabel":  # columns are separate binary targets: c_k need not sum to W
        null_sum = float(np.dot(c, W - c))
    else:
        # one class a sample, sum_k c_k (W - c_k) = 2 sum_{j<k} c_j c_k: prefix sums have no
        # W - c_k cancellation
        null_sum = 2.0 * float(np.dot(c[1:], np.cumsum(c)[:-1]))
    null = np.array(null_sum / (W * W))
    return float(1.0 - np.divide(np.array(score), null))
