"""The ranking state: the distinct scores of a binary problem in decreasing order with the
weight of each class at each score, and every ranking metric derived from it.

One binary problem (one *column*) is one kernel pass (:mod:`fastmetrics._kernels.ranking`):
scores become order-preserving integer keys, the samples of one class and of the other are
radix sorted separately, and one merging walk over the two sorted runs visits the distinct
scores in decreasing order. That walk either writes the summary (score, weight of each class)
-- a :class:`RankingState`, which merges with another by threshold -- or accumulates in the
same pass the statistics (``kernel.NPOS`` ... ``kernel.NTHR``) that ROC AUC and average
precision reduce to.

Two forms, on purpose
---------------------
The one-shot ``roc_auc_score`` and ``average_precision_score`` (without ``max_fpr``) ask the
kernel for the statistics only (:func:`statistics`, :func:`plain`, :func:`column_statistics`):
a state would write 24 bytes per distinct score only to reduce them to four numbers (measured:
a state costs 35-45% more per call on 10^3 samples, 5% on 10^6).
Everything that needs the thresholds -- the curves, ``max_fpr``, merging, streaming -- builds
the state. Both end in the same two functions (:func:`auc_value`, :func:`ap_value`).

Classes, not positive and negative
----------------------------------
The state keeps the weight of each class seen (at most two), not of "positive" and "negative"
relative to a ``pos_label`` fixed when the data was counted. So a merged state answers ROC
AUC with the greater label positive, as scikit-learn does, without knowing the classes in
advance, and any ``pos_label`` afterwards.

Binned form
-----------
With fixed, increasing threshold ``edges`` (``RankingAccumulator(thresholds=...)``) the state
keeps one row per bin ``(-inf, e0], (e0, e1], ..., (e_last, inf)`` whatever the number of
samples, labelled by its upper edge: derivations take the samples of a bin as tied, and
:func:`bounds` gives the interval in which the true AUC and AP lie.
"""

from __future__ import annotations

import math
import numbers
import threading
from dataclasses import dataclass
from itertools import combinations
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import (
    INT_CHARS,
    NONZERO,
    encode_labels,
    float_values,
    inconsistent_lengths,
    label_input,
    native,
    nonfinite_error,
    same_labels,
    sample_weight as check_weights,
    union_labels,
)
from .._kernels import ranking as kernel
from .._threads import resolve_n_threads, threads_for
from ..exceptions import warn, undefined_metric_warning
from . import base
from .groups import ordered_blocks

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .._typing import ArrayLike

__all__ = [
    "BYTES_LABELS",
    "DET_ONE_CLASS",
    "Labels",
    "RankingResult",
    "RankingRows",
    "RankingState",
    "ap_interval",
    "ap_value",
    "auc_value",
    "average_columns",
    "average_precision",
    "binary_inputs",
    "bounds",
    "check_ap_pos_label",
    "check_average",
    "check_binary",
    "check_max_fpr",
    "check_multi_class",
    "check_score_lengths",
    "column_statistics",
    "confusion_at_thresholds",
    "curve_points",
    "curve_pos_label",
    "det",
    "grouped_exact",
    "indicator",
    "multiclass_roc_auc",
    "plain",
    "pos_neg_summary",
    "positive_statistics",
    "precision_recall",
    "result",
    "roc",
    "roc_auc",
    "scores",
    "scores_2d",
    "statistics",
    "weights",
]

_NO_W = np.empty(0, dtype=np.float64)
_ZERO_U8 = np.zeros(1, dtype=np.uint8)
_AVERAGES = (None, "micro", "macro", "weighted", "samples")
BYTES_LABELS = ("Support for labels represented as bytes is not supported. Convert the labels "
                "to a string or integer format.")
DET_ONE_CLASS = ("Only one class is present in y_true. Detection error tradeoff curve is not "
                 "defined in that case.")


# ----------------------------------------------------------------------------- inputs


def _is_bytes(a: np.ndarray) -> bool:
    return a.dtype.kind == "S" or (a.dtype.kind == "O" and a.size > 0
                                   and isinstance(a.reshape(-1)[0], bytes))


class Labels:
    """1-D labels ready for the kernel: ``y`` (an int/uint dtype, read without a copy for
    integer and bool input, else the codes of :func:`encode_labels`) and the sorted distinct values
    ``classes`` (all of them when encoded; at most two, plus ``more``, on the fast path)."""

    __slots__ = ("y", "classes", "more", "encoded")

    def __init__(self, y_true: Any, name: str = "y_true", *, allow_empty: bool = False) -> None:
        a = label_input(y_true, name)  # data-frame text labels stay codes (Encoded)
        if a.ndim == 2 and a.shape[1] == 1:
            a = a[:, 0]
        if a.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
        if _is_bytes(a):
            raise TypeError(BYTES_LABELS)
        if a.shape[0] == 0 and not allow_empty:
            raise ValueError("Found array with 0 sample(s) (shape=(0,)) while a minimum of 1 "
                             f"is required ({name} is empty).")
        kind_bool = a.dtype.kind == "b"
        if kind_bool:
            a = a.view(np.uint8)
        if a.dtype.char in INT_CHARS:
            a = native(a)
            nd, v0, v1 = kernel.label_scan(a)
            vals = sorted({v0, v1}) if nd else []
            self.classes = np.array(vals, dtype=bool if kind_bool else a.dtype)
            self.more = nd > 2
            self.encoded = False
            self.y = a
        else:
            if a.dtype.kind == "f" and not np.isfinite(a).all():
                raise nonfinite_error(a, name)
            if a.dtype.kind == "c":
                raise ValueError("Complex data not supported")
            (codes,), classes = encode_labels(a)
            if a.dtype.kind == "f" and np.any(classes != np.floor(classes)):
                raise ValueError("continuous format is not supported")
            self.classes = _plain_classes(classes)
            self.more = classes.shape[0] > 2
            self.encoded = True
            self.y = codes.reshape(-1).astype(np.int64, copy=False)

    @classmethod
    def of_codes(cls, codes: np.ndarray, classes: np.ndarray) -> Labels:
        """Labels already coded: ``codes[i]`` is the place of sample i's label in the
        sorted ``classes`` (at most two)."""
        lab = cls.__new__(cls)
        lab.y, lab.classes, lab.more, lab.encoded = codes, classes, False, True
        return lab

    def code(self, label: Any) -> Any:
        """Kernel value of ``label`` as a length-1 array of the kernel dtype, or None when
        no sample can equal it."""
        if self.encoded:
            idx = _index(self.classes, label)
            return None if idx is None else np.array([idx], dtype=self.y.dtype)
        if isinstance(label, (bool, np.bool_)):
            label = int(label)
        if isinstance(label, (str, bytes)) or not isinstance(label, numbers.Number):
            return None
        info = np.iinfo(self.y.dtype)
        # typeshed's numbers.Number declares no __int__, so mypy finds no int() for it: every
        # real label converts (a complex one raises TypeError here, as it always has)
        if label != int(label) or not (info.min <= int(label) <= info.max):  # type: ignore[call-overload]
            return None
        return np.array([int(label)], dtype=self.y.dtype)  # type: ignore[call-overload]

    def where(self, label: Any) -> np.ndarray:
        """Boolean mask of the samples equal to ``label``."""
        c = self.code(label)
        return np.zeros(self.y.shape[0], dtype=bool) if c is None else self.y == c[0]


def _plain_classes(c: np.ndarray) -> np.ndarray:
    """Object class tables as plain arrays where they are (strings, numbers), so that a state
    exports them."""
    if c.dtype.kind != "O" or c.size == 0:
        return c
    if all(isinstance(v, str) for v in c.tolist()):
        return c.astype(str)
    conv = np.array(c.tolist())
    return conv if conv.dtype.kind in "iufb" else c


def _comparable(classes: np.ndarray, label: Any) -> bool:
    if classes.dtype.kind in "OUS":
        return isinstance(label, (str, bytes)) or classes.dtype.kind == "O"
    return isinstance(label, (numbers.Number, np.bool_))


def _index(classes: np.ndarray, label: Any) -> int | None:
    """Position of ``label`` in ``classes`` (labels of the other kind never match)."""
    if label is None or not _comparable(classes, label):
        return None
    if classes.shape[0] <= 2:  # a state's classes: Python's equality, without numpy calls
        for i, c in enumerate(classes.tolist()):
            if c == label:
                return i
        return None
    idx = np.flatnonzero(classes == label)
    return int(idx[0]) if idx.size else None


def scores(y_score: Any, ndim: int = 1) -> np.ndarray:
    """float32/float64 native scores (other real dtypes are converted once); an (n, 1)
    column is raveled when ``ndim`` is 1."""
    s = float_values(y_score, "y_score")
    if ndim == 1 and s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    return s


def weights(sample_weight: ArrayLike | None, lengths: dict[str, Any], *,
            allow_zero_sum: bool = False) -> Any:
    """``(w, has_w)``: validated non-negative weights (an empty array when unweighted).

    Negative weights are refused: they make the cumulative weights non-monotonic, and the
    curves and areas meaningless (scikit-learn returns such numbers or fails later). NaN and
    infinity are found by the kernel in its pass (:func:`_raise_bad` words the error)."""
    w = check_weights(sample_weight, lengths, non_negative=True, allow_zero_sum=allow_zero_sum,
                      check_values=False)
    return (_NO_W, False) if w is None else (w, True)


def _check_finite_weights(w: Any, has_w: bool) -> None:
    """For the paths where no kernel pass reads the weights."""
    if has_w and not np.isfinite(w).all():
        raise nonfinite_error(w, "sample_weight")


def check_score_lengths(n: int, n_score: int, sample_weight: Any = None) -> None:
    """scikit-learn's error for labels and scores of different lengths (naming the
    weights' length too, as its ``check_consistent_length`` does)."""
    if n != n_score:
        nw = int(np.shape(sample_weight)[0]) if np.ndim(sample_weight) else None
        raise inconsistent_lengths(y_true=n, y_score=n_score, sample_weight=nw)


def binary_inputs(y_true: Any, y_score: Any, sample_weight: ArrayLike | None, *,
                  allow_empty: bool = False, allow_zero_sum: bool = False) -> Any:
    """``(labels, scores, w, has_w)`` of a binary problem, validated."""
    lab = Labels(y_true, allow_empty=allow_empty)
    s = scores(y_score)
    if s.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {s.shape} instead.")
    n = lab.y.shape[0]
    check_score_lengths(n, s.shape[0], sample_weight)
    w, has_w = weights(sample_weight, {"y_true": n, "y_score": n},
                       allow_zero_sum=allow_zero_sum or n == 0)
    return lab, s, w, has_w


def check_binary(lab: Labels) -> None:
    """``ValueError`` for labels of more than two classes (a ranking state's are binary)."""
    if lab.more:
        raise ValueError("y_true holds more than two labels: a ranking state is binary (one "
                         "class against the other)")


def check_average(average: str | None, options: Any = _AVERAGES) -> None:
    if average not in options:
        raise ValueError(f"average has to be one of {options}")


# ----------------------------------------------------------------------------- kernel calls

_SCRATCH_CACHE_MAX = 1 << 25  # samples: larger scratch (> 512 MiB) is never kept
_tls = threading.local()


def _scratch(n: int, has_w: bool) -> Any:
    """Sort scratch for n samples: (keys, tmp, w, wtmp, hist), 16 bytes per sample (32 with
    weights). Each thread keeps its largest scratch up to ``_SCRATCH_CACHE_MAX`` samples and
    reuses it: fresh pages cost as much as a radix pass, and repeated calls are the norm."""
    buf = getattr(_tls, "scratch", None)
    m = max(n, 1)
    if buf is None or buf[0].shape[0] < m or (has_w and buf[2].shape[0] < m):
        wm = m if has_w else (1 if buf is None else buf[2].shape[0])
        if buf is not None and buf[0].shape[0] >= m:
            keys, tmp = buf[0], buf[1]
        else:
            keys, tmp = np.empty(m, np.uint64), np.empty(m, np.uint64)
        if buf is not None and buf[2].shape[0] >= wm:
            w, wtmp = buf[2], buf[3]
        else:
            w, wtmp = np.empty(wm), np.empty(wm)
        buf = (keys, tmp, w, wtmp, np.empty(kernel.hist_size(max(m, 1 << 20)), np.uint64))
        if m <= _SCRATCH_CACHE_MAX:
            _tls.scratch = buf
    return buf


def _raise_bad(bad: Any, s: Any, w: Any) -> Any:
    if int(bad[2]) == kernel.BAD_WEIGHT:
        raise nonfinite_error(w, "sample_weight")
    raise nonfinite_error(s, None)


def plain(y_true: Any, y_score: Any, mode: int, n_threads: int | None = None) -> Any:
    """ROC AUC (mode 0, the greater label positive) or AP (mode 1, label 1 positive) of
    plain binary input in one kernel call, or None (then the general path validates, warns
    or raises): see ``kernel.binary_plain``. No state: the hot path of the one-shot
    functions."""
    if type(y_true) is np.ndarray and y_true.ndim == 1 and y_true.shape[0] > kernel.SMALL:
        n = y_true.shape[0]
        return kernel.binary_plain(y_true, y_score, mode, _scratch(n, False),
                                   threads_for("ranking", n, n_threads))
    if n_threads is not None:
        resolve_n_threads(n_threads)
    return kernel.binary_plain(y_true, y_score, mode)


def statistics(lab: Labels, s: Any, w: Any, has_w: bool, label: Any,
               n_threads: int | None = None) -> np.ndarray:
    """The statistics row (``kernel.NPOS`` ... ``kernel.NTHR``) of ``label`` against every
    other class, from the merging walk, without the summary."""
    pos = lab.code(label)
    y = lab.y
    if pos is None:  # nothing is positive
        y = np.broadcast_to(_ZERO_U8, (s.shape[0],))
        pos = np.ones(1, dtype=np.uint8)
    out = np.empty((1, kernel.N_STATS))
    bad = np.full(3, -1, dtype=np.int64)
    zero = np.zeros(1, dtype=np.int64)
    n = s.shape[0]
    if kernel.binary_stats(y[:, None], s[:, None], w, has_w, zero, zero, pos, pos, True, out,
                           bad, _scratch(n, has_w), threads_for("ranking", n, n_threads)) < 0:
        _raise_bad(bad, s, w)
    stats: np.ndarray = out[0]
    return stats


def column_statistics(y2d: Any, ycol: Any, scol: Any, s2d: Any, w: Any, has_w: bool, pos: Any,
                      neg: Any = None, n_threads: int | None = None) -> Any:
    """Statistics rows of many binary problems in one kernel call (no Python loop): problem
    ``j`` reads labels ``y2d[:, ycol[j]]`` (positive where ``== pos[j]``; negative: ``== neg[j]``
    or, when ``neg`` is None, every other row) and scores ``s2d[:, scol[j]]``."""
    k = ycol.shape[0]
    out = np.empty((k, kernel.N_STATS))
    bad = np.full(3, -1, dtype=np.int64)
    neg_any = neg is None
    n = s2d.shape[0]
    nt = threads_for("ranking", n, n_threads)
    if kernel.binary_stats(y2d, s2d, w, has_w, ycol, scol, pos, pos if neg_any else neg,
                           neg_any, out, bad, _scratch(n, has_w), nt) < 0:
        _raise_bad(bad, s2d, w)
    return out


def _summary_stats(p: Any, q: Any, npos: Any = 0, nneg: Any = 0) -> np.ndarray:
    st = np.zeros(kernel.N_STATS)
    kernel.summary_stats(np.ascontiguousarray(p), np.ascontiguousarray(q), st)
    st[kernel.NPOS], st[kernel.NNEG] = npos, nneg
    return st


# ----------------------------------------------------------------------------- the state


class RankingState(base.State):
    """The sorted score summary of a binary problem: distinct thresholds (decreasing) with
    the weight of each class at each.

    Parameters
    ----------
    thresholds : ndarray (m,)
        Distinct scores in decreasing order (float64). Samples of zero weight make none.
        Binned: the upper edge of each bin, ``inf`` first.
    weights : ndarray (k, m)
        ``weights[j, i]``: weight of class ``classes[j]`` at ``thresholds[i]`` (the sample
        count when unweighted).
    classes : ndarray (k,)
        The sorted labels seen, at most two.
    counts : ndarray of int64 (k,)
        Samples of each class, whatever their weight.
    edges : ndarray or None
        Binned form: the fixed, increasing threshold edges (None: exact).
    weighted : bool
        Built from sample weights (unweighted, ``weights`` are sample counts that add up to
        ``counts``).

    See Also
    --------
    RankingState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.RankingAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.roc_auc_score : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import RankingState
    >>> a = RankingState.from_arrays([0, 1], [0.1, 0.8])
    >>> b = RankingState.from_arrays([1, 0], [0.4, 0.4])
    >>> s = a + b
    >>> s.thresholds, s.weights.tolist()
    (array([0.8, 0.4, 0.1]), [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    """

    kind = "ranking"
    __slots__ = ("thresholds", "weights", "classes", "counts", "edges", "weighted")

    def __init__(self, thresholds: np.ndarray, weights: np.ndarray, classes: np.ndarray,
                 counts: np.ndarray, edges: np.ndarray | None = None,
                 weighted: bool = False) -> None:
        self.thresholds = thresholds
        self.weights = weights
        self.classes = classes
        self.counts = counts
        # read where ``binned`` said it is set
        self.edges: Any = edges
        self.weighted = weighted

    @property
    def n_samples(self) -> int:
        """The number of samples the state summarises."""
        return sum(self.counts.tolist())  # at most two counts: no numpy reduction

    @property
    def binned(self) -> bool:
        """Whether the state is binned (fixed ``edges``) rather than exact."""
        return self.edges is not None

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_score: ArrayLike,
                    sample_weight: ArrayLike | None = None, n_threads: int | None = None, *,
                    edges: ArrayLike | None = None, allow_empty: bool = False,
                    allow_zero_sum: bool = False) -> RankingState:
        """The state of binary labels and scores (one kernel pass; ``edges``: the binned
        form). More than two classes raise ``ValueError``; empty input too unless
        ``allow_empty``, and weights that are all zero unless ``allow_zero_sum``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary labels (at most two classes).
        y_score : array-like of shape (n_samples,)
            Scores, finite.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        edges : array-like or None, default=None
            Increasing threshold edges: the binned form (None: exact).
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.
        allow_zero_sum : bool, default=False
            Accept sample weights that sum to zero (a chunk of a stream) instead of raising
            scikit-learn's error.

        Returns
        -------
        state : RankingState
            The state of these samples.

        Raises
        ------
        ValueError
            For more than two classes, bad input (lengths, NaN or infinity, negative weights),
            and empty input unless ``allow_empty``.

        See Also
        --------
        RankingState.merge : The state of two chunks.
        fastmetrics.streaming.RankingAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.roc_auc_score : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import RankingState
        >>> a = RankingState.from_arrays([0, 1], [0.1, 0.8])
        >>> a.n_samples
        2
        """
        lab, s, w, has_w = binary_inputs(y_true, y_score, sample_weight, allow_empty=allow_empty,
                                         allow_zero_sum=allow_zero_sum)
        check_binary(lab)
        return cls.from_labels(lab, s, w, has_w, n_threads, edges)

    @classmethod
    def from_labels(cls, lab: Labels, s: Any, w: Any, has_w: bool, n_threads: int | None = None,
                    edges: Any = None) -> RankingState:
        """The state of validated inputs (labels of at most two classes).

        Parameters
        ----------
        lab : Labels
            Labels validated by the input policy (at most two classes).
        s : ndarray of float64 of shape (n_samples,)
            The scores, validated.
        w : ndarray of float64 of shape (n_samples,) or None
            The sample weights, validated.
        has_w : bool
            Whether sample weights were given.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        edges : array-like or None, default=None
            Increasing threshold edges: the binned form (None: exact).

        Returns
        -------
        state : RankingState
            The state of these inputs.

        See Also
        --------
        RankingState.from_arrays : The same from raw arrays, validating them first.

        Examples
        --------
        It is what :meth:`from_arrays` calls after validating its inputs::

            lab, s, w, has_w = binary_inputs(y_true, y_score, sample_weight)
            state = RankingState.from_labels(lab, s, w, has_w)
        """
        classes = lab.classes
        k, n = classes.shape[0], s.shape[0]
        if edges is not None:
            return cls._binned(lab, s, w, has_w, edges)
        if n == 0:
            return cls(np.empty(0), np.zeros((0, 0)), classes, np.zeros(0, np.int64), None,
                       has_w)
        pos = lab.code(classes[-1])
        stats = np.empty(kernel.N_STATS)
        thr = np.empty(n)
        wts = np.empty((2, n))
        bad = np.full(3, -1, dtype=np.int64)
        # the greater class is the kernel's "positive" run (row 1), the other row 0
        m = kernel.binary_summary(lab.y[:, None], s[:, None], w, has_w, pos[0], stats, thr,
                                  wts[1], wts[0], bad, _scratch(n, has_w),
                                  threads_for("ranking", n, n_threads))
        if m < 0:
            _raise_bad(bad, s, w)
        if k == 2:
            counts = np.array([stats[kernel.NNEG], stats[kernel.NPOS]], dtype=np.int64)
            wts = wts[:, :m].copy() if m < n else wts
        else:
            counts = np.array([stats[kernel.NPOS]], dtype=np.int64)
            wts = wts[1:, :m].copy()
        return cls(thr[:m].copy() if m < n else thr, wts, classes, counts, None, has_w)

    @classmethod
    def _binned(cls, lab: Any, s: Any, w: Any, has_w: bool, edges: Any) -> RankingState:
        if s.size and not np.isfinite(s).all():
            raise nonfinite_error(s, None)
        _check_finite_weights(w, has_w)
        k, nb = lab.classes.shape[0], edges.shape[0] + 1
        cls_of = (lab.where(lab.classes[1]).astype(np.intp) if k == 2
                  else np.zeros(s.shape[0], dtype=np.intp))
        b = np.searchsorted(edges, s, side="left")
        wts = np.bincount(cls_of * nb + b, weights=w if has_w else None, minlength=k * nb)
        wts = wts.astype(np.float64, copy=False).reshape(k, nb)[:, ::-1].copy()
        counts = np.bincount(cls_of, minlength=k).astype(np.int64)
        return cls(_bin_thresholds(edges), wts, lab.classes, counts, edges, has_w)

    @classmethod
    def from_positive_negative(cls, thresholds: Any, p: Any, q: Any, classes: Any, n_pos: int,
                               n_neg: int, pos_label: Any, edges: Any = None,
                               weighted: bool = False) -> RankingState:
        """A state from a summary of ``pos_label`` against the rest (the form fastmetrics
        0.1 kept): ``p`` / ``q`` the positive / negative weight at each of ``thresholds``
        (decreasing; None for binned ``edges``), ``classes`` the labels seen. Raises
        ``ValueError`` when the negatives of two classes cannot be told apart (``pos_label``
        was neither).

        Parameters
        ----------
        thresholds : ndarray of shape (m,) or None
            Distinct scores, decreasing (None for the binned form).
        p : ndarray of shape (m,)
            The positive class's weight at each threshold.
        q : ndarray of shape (m,)
            The negative classes' weight at each threshold.
        classes : ndarray
            The labels seen.
        n_pos : int
            Positive samples.
        n_neg : int
            Negative samples.
        pos_label : int, float, bool or str
            The positive class.
        edges : array-like or None, default=None
            The binned form's edges.
        weighted : bool, default=False
            Built from sample weights.

        Returns
        -------
        state : RankingState
            The state of that summary.

        Raises
        ------
        ValueError
            If the negatives are of two classes that the summary cannot tell apart.

        See Also
        --------
        RankingState.from_arrays : The state of labels and scores.

        Examples
        --------
        >>> import numpy as np
        >>> from fastmetrics.states import RankingState
        >>> s = RankingState.from_positive_negative(np.array([0.8, 0.1]), np.array([1.0, 0.0]),
        ...                                         np.array([0.0, 1.0]), np.array([0, 1]), 1, 1, 1)
        >>> s.weights.tolist()
        [[0.0, 1.0], [1.0, 0.0]]
        """
        classes = _plain_classes(np.unique(np.asarray(classes)))
        p = np.asarray(p, dtype=np.float64)
        q = np.asarray(q, dtype=np.float64)
        thr = _bin_thresholds(edges) if edges is not None else np.asarray(thresholds, np.float64)
        k, idx = classes.shape[0], _index(classes, pos_label)
        if k > 2 or (k == 2 and idx is None):
            raise ValueError(f"the weights of classes {classes.tolist()} were not kept apart "
                             f"(pos_label={pos_label!r} is not one of them)")
        wts = np.zeros((k, thr.shape[0]))
        counts = np.zeros(k, dtype=np.int64)
        if idx is None:
            if k:
                wts[0], counts[0] = q, n_neg
        else:
            wts[idx], counts[idx] = p, n_pos
            if k == 2:
                wts[1 - idx], counts[1 - idx] = q, n_neg
        # through the checked loader, as any state from outside
        return cls.from_dict(cls(thr, wts, classes, counts, edges, bool(weighted)).to_dict())

    # ------------------------------------------------------------------ the merge law
    def _same_layout(self, other: Any) -> bool:
        # exact states over the same classes (binned ones: the same edges) always merge
        if other.binned != self.binned:
            return False
        if self.binned and not (other.edges.shape == self.edges.shape
                                and np.array_equal(other.edges, self.edges)):
            return False
        return same_labels(self.classes, other.classes)

    def merge(self, other: RankingState) -> RankingState:
        """The state of both inputs' samples: thresholds united, the weights of equal
        thresholds added class by class (binned: bin by bin, same edges only).

        Parameters
        ----------
        other : RankingState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : RankingState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        RankingState.from_arrays : The state of one chunk.
        fastmetrics.streaming.RankingAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.roc_auc_score : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import RankingState
        >>> a = RankingState.from_arrays([0, 1], [0.1, 0.8])
        >>> b = RankingState.from_arrays([1, 0], [0.4, 0.4])
        >>> a.merge(b).thresholds
        array([0.8, 0.4, 0.1])
        """
        self._check_mergeable(other)
        if self.binned != other.binned or (self.binned and not (
                self.edges.shape == other.edges.shape and np.array_equal(self.edges, other.edges))):
            raise ValueError("cannot merge ranking states with different thresholds (binned "
                             "edges, or binned with exact)")
        classes, ia, ib = _union(self.classes, other.classes)
        weighted = self.weighted or other.weighted
        k = classes.shape[0]
        counts = np.zeros(k, dtype=np.int64)
        counts[ia] += self.counts
        counts[ib] += other.counts
        ma, mb = self.thresholds.shape[0], other.thresholds.shape[0]
        if self.binned:
            wts = np.zeros((k, ma))
            wts[ia] += self.weights
            wts[ib] += other.weights
            return RankingState(self.thresholds, wts, classes, counts, self.edges, weighted)
        # one walk over the two sorted runs (ranking kernel), each class's row found by place
        thr, wts = np.empty(ma + mb), np.empty((k, ma + mb))
        m = kernel.merge_runs(_f64(self.thresholds), _f64(self.weights), _rows(ia, k),
                              _f64(other.thresholds), _f64(other.weights), _rows(ib, k), thr,
                              wts)
        if m < ma + mb:
            thr, wts = thr[:m].copy(), wts[:, :m].copy()
        return RankingState(thr, wts, classes, counts, None, weighted)

    @classmethod
    def merge_all(cls, states: Sequence[RankingState]) -> RankingState:
        """The state of all inputs' samples: neighbours merged pairwise in a balanced tree,
        each merge one walk over two sorted threshold runs (no sort), so k states of m
        thresholds in all cost O(m log k), not the O(m k) of merging them one after another.

        Counts, and weights when unweighted, are exact whatever the order; sample weights
        are summed in the tree's order (to about 1e-16 relative of any other order).

        Parameters
        ----------
        states : sequence of RankingState
            At least one state, all exact or all binned with the same edges.

        Returns
        -------
        state : RankingState
            The state of all inputs' samples; no input is modified (one input is returned
            as it is).

        Raises
        ------
        ValueError
            If the states cannot merge (binned edges differ, binned with exact, more than
            two classes over all of them).

        See Also
        --------
        RankingState.merge : Two states.
        fastmetrics.streaming.RankingAccumulator : Builds one from chunks.

        Examples
        --------
        >>> from fastmetrics.states import RankingState
        >>> parts = [RankingState.from_arrays([0, 1], [s, s + 0.5]) for s in (0.1, 0.2, 0.3)]
        >>> RankingState.merge_all(parts).thresholds
        array([0.8, 0.7, 0.6, 0.3, 0.2, 0.1])
        """
        level = cls._merge_inputs(states)
        if len(level) > 2 and not any(st.binned for st in level):
            return cls._merge_exact(level)
        while len(level) > 1:
            nxt = [level[i].merge(level[i + 1]) for i in range(0, len(level) - 1, 2)]
            if len(level) % 2:
                nxt.append(level[-1])
            level = nxt
        return level[0]

    @classmethod
    def merge_each(cls, groups: Sequence[Sequence[RankingState]]) -> list[RankingState]:
        """For each group of states, its first state merged with all the others merged
        among themselves (``merge_all([first, merge_all(others)])``, bit for bit): exact
        states of one class table per group are merged in one kernel call, groups on
        threads (each merged state's thresholds a view of one packed buffer).

        Parameters
        ----------
        groups : sequence of sequences of RankingState
            Each with at least two states.

        Returns
        -------
        states : list of RankingState
            Each group's merged state, in order.

        See Also
        --------
        RankingState.merge_all : The states of one group.

        Examples
        --------
        >>> from fastmetrics.states import RankingState
        >>> a = RankingState.from_arrays([0, 1], [0.1, 0.8])
        >>> b = RankingState.from_arrays([1, 0], [0.4, 0.4])
        >>> RankingState.merge_each([[a, b], [b, a, a]])[1].thresholds
        array([0.8, 0.4, 0.1])
        """
        lists = [list(g) for g in groups]
        fast = [all(not st.binned and same_labels(g[0].classes, st.classes) for st in g)
                and 0 < g[0].classes.shape[0] and len(g) > 1 for g in lists]
        out: list[Any] = [None if f else super(RankingState, cls).merge_each([g])[0]
                          for g, f in zip(lists, fast)]
        todo = [i for i, f in enumerate(fast) if f]
        # at most this many thresholds a call: the new states of one call share its
        # buffers, and the old ones are let go call by call
        limit, i = 1 << 21, 0
        while i < len(todo):
            part: list[int] = []
            size = 0
            while i < len(todo) and (not part or size < limit):
                part.append(todo[i])
                size += sum(st.thresholds.shape[0] for st in lists[todo[i]])
                i += 1
            for j, st in zip(part, cls._merge_groups([lists[j] for j in part], size)):
                out[j] = st
        return out

    @classmethod
    def _merge_groups(cls, groups: list[list[RankingState]], size: int
                      ) -> list[RankingState]:
        """:meth:`merge_each` of exact groups, each of one class table, in one call."""
        for g in groups:
            cls._merge_inputs(g)
        first = np.zeros(len(groups) + 1, dtype=np.int64)
        first[1:] = np.cumsum([len(g) for g in groups])
        ks = np.array([g[0].classes.shape[0] for g in groups], dtype=np.int64)
        flat = [st for g in groups for st in g]
        thr, wts = np.empty(size), np.empty((2, size))
        n_out = np.empty(len(groups), dtype=np.int64)
        m = kernel.merge_each([_f64(st.thresholds) for st in flat],
                              [_f64(st.weights) for st in flat], first, ks, thr, wts, n_out,
                              threads_for("slices", size, None))
        # packed: each group's thresholds a view of one copy of the used part, its
        # weights a copy of their own (contiguous, as the next merge and the
        # derivations read them)
        thr = thr[:m].copy()
        out, at = [], 0
        for g, k, mg in zip(groups, ks.tolist(), n_out.tolist()):
            out.append(RankingState(thr[at:at + mg], wts[:k, at:at + mg].copy(),
                                    g[0].classes, _counts_of(g), None,
                                    any(st.weighted for st in g)))
            at += mg
        return out

    @classmethod
    def _merge_exact(cls, states: list[RankingState]) -> RankingState:
        """:meth:`merge_all` of exact states: the same tree of walks, in one kernel call
        (the pairwise merges' Python and buffers were most of a merge of small states)."""
        classes = states[0].classes
        if all(same_labels(classes, st.classes) for st in states[1:]):
            # (the common case: every state over the same classes)
            k = classes.shape[0]
            rows = np.broadcast_to(np.arange(k, dtype=np.int64), (len(states), k)).copy()
            counts = _counts_of(states)
        else:
            for st in states[1:]:
                classes = _union(classes, st.classes)[0]
            k = classes.shape[0]
            rows = np.empty((len(states), k), dtype=np.int64)
            counts = np.zeros(k, dtype=np.int64)
            for i, st in enumerate(states):
                place = _union(classes, st.classes)[2]
                rows[i] = _rows(place, k)
                counts[place] += st.counts
        total = sum(st.thresholds.shape[0] for st in states)
        thr, wts = np.empty(total), np.empty((k, total))
        m = kernel.merge_tree([_f64(st.thresholds) for st in states],
                              [_f64(st.weights) for st in states], rows, thr, wts)
        if m < total:
            thr, wts = thr[:m].copy(), wts[:, :m].copy()
        return RankingState(thr, wts, classes, counts, None,
                            any(st.weighted for st in states))

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        if self.classes.dtype.kind not in base.LABEL_KINDS:
            raise TypeError(
                f"labels of dtype {self.classes.dtype} cannot be exported as plain arrays")
        return {
            "binned": self.binned,
            "thresholds": np.empty(0) if self.binned else self.thresholds,
            "edges": self.edges if self.binned else np.empty(0),
            "weights": self.weights,
            "classes": self.classes,
            "classes_dtype": self.classes.dtype.str,
            "counts": self.counts,
            "weighted": bool(self.weighted),
        }

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> RankingState:
        classes = base.labels(d, "classes")
        k = classes.shape[0]
        if k > 2:
            raise base.StateError(f"a ranking state holds at most two classes, got {k}")
        if k == 2 and not classes[1] > classes[0]:
            raise base.StateError("the classes of a ranking state must be sorted and unique")
        # read as stored (JSON integers come back int64): a float count is refused, not cut
        counts = base.field(d, "counts", kinds="iu", ndim=1, shape=(k,)).astype(np.int64)
        if np.any(counts <= 0):
            raise base.StateError("every class of a ranking state must have been seen "
                                  "(counts > 0)")
        binned = base.flag(d, "binned")
        if binned:
            edges = base.field(d, "edges", kinds="f", ndim=1, dtype=np.float64)
            if edges.shape[0] < 1 or not np.isfinite(edges).all() or np.any(np.diff(edges) <= 0):
                raise base.StateError("binned edges must be finite and strictly increasing")
            thr = _bin_thresholds(edges)
            edges = edges.copy()
        else:
            edges = None
            thr = base.field(d, "thresholds", kinds="f", ndim=1, dtype=np.float64).copy()
            if not np.isfinite(thr).all() or np.any(np.diff(thr) >= 0):
                raise base.StateError("thresholds must be finite and strictly decreasing")
        m = thr.shape[0]
        if k == 0:
            raw = np.asarray(base.field(d, "weights", kinds="f", ndim=np.ndim(d["weights"]),
                                        dtype=np.float64))
            if raw.size:
                raise base.StateError("a state without classes has no weights")
            wts = np.zeros((0, m))
        else:
            wts = base.field(d, "weights", kinds="f", ndim=2, shape=(k, m),
                             dtype=np.float64).copy()
        if not np.isfinite(wts).all() or (wts.size and wts.min() < 0):
            raise base.StateError("weights must be finite and non-negative")
        if not binned and m and (k == 0 or np.any(wts.sum(axis=0) <= 0)):
            raise base.StateError("every threshold of an exact state carries some weight")
        weighted = base.flag(d, "weighted")
        if not weighted and (np.any(wts != np.floor(wts))
                             or not np.array_equal(wts.sum(axis=1), counts.astype(np.float64))):
            raise base.StateError("unweighted, the weights are sample counts that add up to "
                                  "each class's count")
        return cls(thr, wts, classes.copy(), counts.copy(), edges, weighted)


def _all_finite(a: np.ndarray) -> bool:
    """Whether every value of ``a`` is finite: a sum is finite when every term is (one
    vectorised pass); only a sum that is not, or overflows, is checked value by value."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(a)
    return math.isfinite(total) or bool(np.isfinite(a).all())


class RankingRows:
    """Rows of a binary ranking problem kept as they came, until one kernel pass turns them
    all into a :class:`RankingState` (:meth:`take`).

    Each chunk's rows are checked and copied into growing buffers (:meth:`append`: the label
    as its place in the sorted classes, one byte; the score as float64; the weight). Sorting
    them once costs what one pass over the concatenated chunks costs -- and gives its state,
    bit for bit -- where a state per chunk, merged, costs a merge walk per chunk on top of
    the sorts. The exact ``RankingAccumulator`` keeps its chunks so, and takes a state when
    a metric is asked or the rows outgrow their bound. Buffers let go by :meth:`take` are
    kept for the next rows of any thread (one set, as the sort scratch is): fresh pages
    cost as much as the copy.
    """

    __slots__ = ("classes", "codes", "scores", "w", "rows", "has_w")

    _spare: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    _spare_lock = threading.Lock()

    def __init__(self) -> None:
        self._clear()

    def _clear(self) -> None:
        """No rows, and no view of any buffer (they may go)."""
        # the sorted classes of the rows kept (None before any)
        self.classes: Any = None
        self.codes = np.empty(0, dtype=np.uint8)
        self.scores = np.empty(0)
        self.w = np.empty(0)
        self.rows = 0
        self.has_w = False

    @property
    def nbytes(self) -> int:
        """Bytes the rows kept take (9 a row, 17 with weights)."""
        return self.rows * (17 if self.has_w else 9)

    def _room(self, n: int, has_w: bool) -> None:
        """Buffers for ``n`` more rows: the spare set when it is large enough, else twice
        the rows (the rows kept are copied over)."""
        need = self.rows + n
        if need <= self.scores.shape[0] and (not has_w or need <= self.w.shape[0]):
            return
        spare = None
        with RankingRows._spare_lock:
            if RankingRows._spare and RankingRows._spare[0][1].shape[0] >= need and (
                    not has_w or RankingRows._spare[0][2].shape[0] >= need):
                spare = RankingRows._spare.pop()
        if spare is None:
            # not more than twice the rows: a grouped accumulator holds one such set per
            # group (thousands) until its chunk is committed
            cap = max(need, 2 * self.rows, 1 << 10)
            spare = (np.empty(cap, dtype=np.uint8), np.empty(cap),
                     np.empty(cap) if has_w else np.empty(0))
        r = self.rows
        spare[0][:r] = self.codes[:r]
        spare[1][:r] = self.scores[:r]
        if has_w:
            spare[2][:r] = self.w[:r]
        self.codes, self.scores, self.w = spare

    def append(self, lab: Labels, s: np.ndarray, w: np.ndarray, has_w: bool) -> None:
        """Keep a chunk's validated rows (at most two classes; ``w`` empty unless
        ``has_w``). Raises ``ValueError``, keeping nothing of the chunk, for non-finite scores
        or weights (the one-pass functions' messages) and for more than two classes over all
        rows."""
        n = s.shape[0]
        if self.rows and has_w != self.has_w:
            raise ValueError("rows with and without sample weights cannot be kept together")
        classes = lab.classes
        union = classes if self.classes is None else _union(self.classes, classes)[0]
        self._room(n, has_w)
        r = self.rows
        sc = self.scores[r:r + n]
        sc[...] = s
        # checked on the copy, in cache
        if not _all_finite(sc):
            raise nonfinite_error(s, None)
        if has_w:
            wc = self.w[r:r + n]
            wc[...] = w
            if not _all_finite(wc):
                raise nonfinite_error(w, "sample_weight")
        codes = self.codes[r:r + n]
        if classes.shape[0] == 2:
            np.equal(lab.y, lab.code(classes[1])[0], out=codes.view(bool))
        else:
            codes[...] = 0 if _index(union, classes.tolist()[0]) == 0 else 1
        if self.classes is not None and self.classes.shape[0] == 1 and union.shape[0] == 2 \
                and _index(union, self.classes.tolist()[0]) == 1:
            # the rows kept held the only class, coded 0; the new one sorts first
            self.codes[:r] = 1
        self.classes = union
        self.rows = r + n
        self.has_w = has_w

    def statistics(self, positive: Any, n_threads: int | None = None) -> np.ndarray:
        """The statistics row (``kernel.NPOS`` ... ``kernel.NTHR``) of ``positive`` against
        the other class over the rows kept, from one sorting pass that writes no summary:
        what the one-shot functions compute on the concatenated chunks. The rows stay."""
        n = self.rows
        assert self.classes is not None
        lab = Labels.of_codes(self.codes[:n], self.classes)
        return statistics(lab, self.scores[:n], self.w[:n] if self.has_w else _NO_W,
                          self.has_w, positive, n_threads)

    def take(self, n_threads: int | None = None) -> RankingState | None:
        """The state of the rows kept (None when there are none); they are let go and the
        buffers kept for the next rows."""
        n = self.rows
        if n == 0 or self.classes is None:
            return None
        has_w = self.has_w
        lab = Labels.of_codes(self.codes[:n], self.classes)
        st = RankingState.from_labels(lab, self.scores[:n], self.w[:n] if has_w else _NO_W,
                                      has_w, n_threads)
        bufs = (self.codes, self.scores, self.w)
        self._clear()
        if bufs[1].shape[0] * 17 <= _SPARE_MAX_BYTES:
            with RankingRows._spare_lock:
                RankingRows._spare[:] = [bufs]
        return st


_SPARE_MAX_BYTES = 1 << 28


def grouped_exact(codes: np.ndarray, n_groups: int, y_true: Any, y_score: Any,
                  sample_weight: Any, n_threads: int = 1) -> list[RankingState] | None:
    """The exact state of each group's rows (``codes[i]``: row i's group, each of
    ``0..n_groups-1`` holding rows): the chunk's labels and scores validated once, its rows
    ordered by group (a counting sort), then every group's state from one kernel call that
    sorts each group's run on one of ``n_threads`` threads: what
    :meth:`RankingState.from_arrays` of each group's rows gives, bit for bit, without a
    label scan, a validation and a buffer per group. None where a group has no rows (the
    caller's rule skips it)."""
    lab, s, w, has_w = binary_inputs(y_true, y_score, sample_weight, allow_empty=True,
                                     allow_zero_sum=True)
    check_binary(lab)
    n = s.shape[0]
    k = lab.classes.shape[0]
    # each row's place among the chunk's classes: 1 for the greater (the state's positive)
    positive = lab.where(lab.classes[-1]).view(np.uint8) if k == 2 else \
        np.zeros(n, dtype=np.uint8)
    if n == 0:
        return None
    out: list[Any] = [None] * n_groups
    # (float32 scores and weights read as the doubles the kernel makes of them anyway)
    s64 = s.astype(np.float64, copy=False)
    w64 = w.astype(np.float64, copy=False) if has_w else None
    for offsets, (pos, sg, wg) in ordered_blocks(codes, n_groups, [positive, s64, w64]):
        assert pos is not None and sg is not None
        sizes = np.diff(offsets)
        # the groups' states are views of these (no copy of each group's summary: the
        # buffers hold every group's, so they take no more than the states would)
        thr, wts_all = np.empty(sg.shape[0]), np.empty((2, sg.shape[0]))
        stats = np.zeros((n_groups, kernel.N_STATS))
        m = np.zeros(n_groups, dtype=np.int64)
        bad = np.zeros(n_groups, dtype=np.int64)
        g_bad = kernel.grouped_summaries(pos[:, None], sg[:, None],
                                         wg if wg is not None else _NO_W, has_w, offsets,
                                         thr, wts_all[1], wts_all[0], stats, m, bad,
                                         n_threads)
        if g_bad >= 0:
            _raise_bad([0, 0, bad[g_bad]], s, w)
        for g in np.flatnonzero(sizes).tolist():
            a, mg = int(offsets[g]), int(m[g])
            n_pos = int(stats[g, kernel.NPOS])
            wts = wts_all[:, a:a + mg]
            if k == 2 and 0 < n_pos < sizes[g]:
                classes, counts = lab.classes, np.array([sizes[g] - n_pos, n_pos])
            elif n_pos:  # every row of the greater class: the kernel's positive run
                classes, counts, wts = lab.classes[-1:], np.array([n_pos]), wts[1:]
            else:  # every row of the one (or the smaller) class: the negative run
                classes, counts, wts = lab.classes[:1], np.array([sizes[g]]), wts[:1]
            st = RankingState(thr[a:a + mg], wts, classes, counts.astype(np.int64), None,
                              has_w)
            out[g] = st if out[g] is None else out[g].merge(st)
    if any(st is None for st in out):
        return None
    return out


def _bin_thresholds(edges: np.ndarray) -> np.ndarray:
    """The label of each bin, decreasing: its upper edge (inf for the last bin)."""
    thresholds: np.ndarray = np.concatenate([edges, [np.inf]])[::-1].copy()
    return thresholds


def _union(a: np.ndarray, b: np.ndarray) -> Any:
    """``(classes, ia, ib)``: the sorted union of two class tables (at most two) and where
    each table's classes land in it."""
    try:
        u, ia, ib = union_labels(a, b)
    except ValueError as exc:
        raise ValueError(f"{exc}: a ranking state of {a.tolist()} cannot merge with one of "
                         f"{b.tolist()}") from None
    if u.shape[0] > 2:
        raise ValueError(
            f"y_true holds more than two labels over the data ({u.tolist()[:5]}): a ranking "
            "state is binary (one class against the other)")
    ia = np.arange(a.shape[0]) if ia is None else ia
    ib = np.arange(b.shape[0]) if ib is None else ib
    return u, ia, ib


def _counts_of(states: Sequence[RankingState]) -> np.ndarray:
    """The class counts of states over the same classes, added."""
    counts: np.ndarray = np.stack([st.counts for st in states]).astype(np.int64).sum(axis=0)
    return counts


def _f64(a: np.ndarray) -> np.ndarray:
    """A state's array as the merge kernel reads it (states built by hand may hold others)."""
    return np.ascontiguousarray(a, dtype=np.float64)


def _rows(places: np.ndarray, k: int) -> np.ndarray:
    """For each class of a union of ``k``, the row of a state whose classes landed at
    ``places`` in it (-1: the state lacks that class)."""
    rows = np.full(k, -1, dtype=np.int64)
    rows[places] = np.arange(places.shape[0])
    return rows


# ----------------------------------------------------------------------------- derivations


def _split(state: RankingState, pos_label: Any) -> Any:
    """``(p, q, npos, nneg)``: the weight of ``pos_label`` and of every other class at each
    threshold, and their sample counts."""
    idx = _index(state.classes, pos_label)
    k, m = state.weights.shape[0], state.thresholds.shape[0]
    counts = state.counts.tolist()
    if idx is None:
        q = state.weights.sum(axis=0) if k else np.zeros(m)
        return np.zeros(m), q, 0, sum(counts)
    p = state.weights[idx]
    q = state.weights[1 - idx] if k == 2 else np.zeros(m)
    return p, q, counts[idx], sum(counts) - counts[idx]


def positive_statistics(source: RankingState | RankingRows, positive: Any) -> np.ndarray:
    """The statistics row of ``positive`` against the rest: from a state's summary, or from
    rows not yet sorted into one (:meth:`RankingRows.statistics`, no summary written)."""
    if isinstance(source, RankingRows):
        return source.statistics(positive)
    return _summary_stats(*_split(source, positive))


def _positive(state: RankingState | RankingRows, pos_label: Any) -> Any:
    """``pos_label``, or when None the greater class (scikit-learn's ROC AUC rule)."""
    if pos_label is None:
        return state.classes[-1] if state.classes.shape[0] == 2 else None
    return pos_label


def pos_neg_summary(state: RankingState, pos_label: Any = None) -> Any:
    """``(thresholds, positive weight, negative weight)``, thresholds decreasing, with
    ``pos_label`` positive (None: the greater class). Binned: one row per bin, labelled by
    its upper edge (inf for the last)."""
    p, q, _, _ = _split(state, _positive(state, pos_label))
    return state.thresholds.copy(), p.copy(), q.copy()


def curve_points(state: RankingState, pos_label: Any = None, points: int = 1000
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``(fpr, tpr, recall, precision)`` at no more than about ``points`` of the state's
    thresholds, evenly spaced in their order (the last included): exact vertices of the
    ROC and precision-recall curves, enough to draw them, from sums over blocks of
    thresholds (no array as long as the state's is made). ROC starts at (0, 0);
    precision-recall leaves out points where nothing is called positive yet (empty top
    bins of a binned state). None without both classes (``pos_label`` positive; None: the
    greater class).

    Examples
    --------
    >>> st = RankingState.from_arrays([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3])
    >>> fpr, tpr, recall, precision = curve_points(st)
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0, 1.0])
    >>> recall.tolist(), precision.round(3).tolist()
    ([0.5, 1.0, 1.0, 1.0], [1.0, 1.0, 0.667, 0.5])
    """
    p, q, _, _ = _split(state, _positive(state, pos_label))
    m = p.shape[0]
    if m == 0:
        return None
    starts = np.arange(0, m, max(1, -(-m // max(points, 1))))
    tp = np.cumsum(np.add.reduceat(np.asarray(p, dtype=np.float64), starts))
    fp = np.cumsum(np.add.reduceat(np.asarray(q, dtype=np.float64), starts))
    total_p, total_n = float(tp[-1]), float(fp[-1])
    if total_p <= 0 or total_n <= 0:
        return None
    fpr = np.concatenate([[0.0], fp / total_n])
    tpr = np.concatenate([[0.0], tp / total_p])
    called = tp + fp > 0  # (binned: empty top bins call nothing, precision undefined)
    return fpr, tpr, tp[called] / total_p, tp[called] / (tp + fp)[called]


def auc_value(st: Any) -> float:
    """scikit-learn's ``_binary_roc_auc_score`` on a statistics row (full area)."""
    if st[kernel.NPOS] == 0 or st[kernel.NNEG] == 0:
        warn("Only one class is present in y_true. ROC AUC score is not defined in that case.",
             undefined_metric_warning())
        return np.nan
    P, N = st[kernel.P], st[kernel.N]
    if N <= 0:
        _nothing_weighs("negative")
    if P <= 0:
        _nothing_weighs("positive")
    if P <= 0 or N <= 0:
        return np.nan
    return float(st[kernel.AUC2] / (2.0 * P * N))


def ap_value(st: Any) -> float:
    """scikit-learn's step-wise AP on a statistics row (a warning when no positives)."""
    if st[kernel.P] == 0:
        warn("No positive class found in y_true, recall is set to one for all thresholds.",
             UserWarning)
        return 0.0
    return float(max(0.0, st[kernel.AP] / st[kernel.P]))


def ap_interval(state: RankingState, value: float, pos_label: Any, level: float
                ) -> tuple[float, float] | None:
    """The logit interval of an average precision ``value`` of an unweighted exact or
    binned state (Boyd, Eng and Page, 2013): ``expit(logit(AP) +- z / sqrt(n_pos AP (1 -
    AP)))`` with ``n_pos`` the rows of ``pos_label`` (None: the greater class). It needs
    no resample of the scores, so it costs nothing at any size, stays inside (0, 1), and
    is the interval whose coverage that study found near its level. None where it does
    not apply: weights, no positives, AP of 0 or 1, or not finite.

    Examples
    --------
    >>> st = RankingState.from_arrays([0, 1, 1, 0, 1, 0, 1, 1], [.1, .8, .7, .3, .4, .5, .9, .2])
    >>> [round(v, 4) for v in ap_interval(st, 0.8, None, 0.95)]
    [0.309, 0.9728]
    """
    if state.weighted or not 0.0 < value < 1.0:
        return None
    pos = _positive(state, pos_label)
    idx = None if pos is None else _index(state.classes, pos)
    if idx is None:
        return None
    n_pos = int(state.counts[idx])
    if n_pos == 0:
        return None
    z = NormalDist().inv_cdf(0.5 + level / 2)
    centre = math.log(value / (1.0 - value))
    half = z / math.sqrt(n_pos * value * (1.0 - value))
    return (1.0 / (1.0 + math.exp(half - centre)), 1.0 / (1.0 + math.exp(-centre - half)))


def _partial_auc(thr: Any, p: Any, q: Any, max_fpr: float) -> float:
    """The standardized (McClish) partial AUC over [0, max_fpr]."""
    fpr, tpr, _ = _roc_points(thr, p, q, True)
    stop = np.searchsorted(fpr, max_fpr, "right")
    x_interp = [fpr[stop - 1], fpr[stop]]
    y_interp = [tpr[stop - 1], tpr[stop]]
    tpr = np.append(tpr[:stop], np.interp(max_fpr, x_interp, y_interp))
    fpr = np.append(fpr[:stop], max_fpr)
    if fpr.shape[0] < 2:
        raise ValueError("At least 2 points are needed to compute area under curve, but "
                         f"x.shape = {fpr.shape[0]}")
    partial_auc = float(np.trapezoid(tpr, fpr))
    min_area = 0.5 * max_fpr**2
    max_area = max_fpr
    return 0.5 * (1 + (partial_auc - min_area) / (max_area - min_area))


def check_max_fpr(max_fpr: object) -> None:
    # typeshed's numbers.Real declares only < and <=, so mypy rejects 0 < max_fpr; every real
    # type that arrives (int, float, Fraction, numpy scalars) defines it.
    if max_fpr is not None and (isinstance(max_fpr, bool) or not isinstance(max_fpr, numbers.Real)
                                or not (0 < max_fpr <= 1)):  # type: ignore[operator]
        raise ValueError(f"max_fpr must be a float in the range (0.0, 1.0] or None, got {max_fpr!r}")


def check_multi_class(multi_class: str) -> None:
    if multi_class not in ("raise", "ovr", "ovo"):
        raise ValueError(f"multi_class must be one of 'raise', 'ovr', 'ovo', got {multi_class!r}")


def roc_auc(state: RankingState | RankingRows, average: str | None = "macro", max_fpr: float | None = None,
            multi_class: str = "raise",
            labels: Any = None, pos_label: Any = None) -> float:
    """``roc_auc_score`` of a (binary) state: the greater class positive, as scikit-learn,
    or ``pos_label`` where given (the accumulator's). ``average`` and ``multi_class`` are
    checked and, as scikit-learn does for binary input, ignored; ``labels`` indexes the
    columns of multiclass scores, which a state never holds, so it raises."""
    check_max_fpr(max_fpr)
    check_multi_class(multi_class)
    check_average(average)
    if labels is not None:
        raise ValueError("labels is for multiclass y_true, which a ranking state (binary, over "
                         "chunks or dask) does not hold: y_true must be binary")
    positive = _positive(state, pos_label)
    if max_fpr is None or max_fpr == 1:
        return auc_value(positive_statistics(state, positive))
    assert isinstance(state, RankingState)  # rows answer only the full area
    p, q, npos, nneg = _split(state, positive)
    if npos == 0 or nneg == 0:
        return auc_value(_summary_stats(p, q, npos, nneg))
    return _partial_auc(state.thresholds, p, q, max_fpr)


def average_precision(state: RankingState | RankingRows, average: str | None = "macro",
                      pos_label: Any = 1) -> float:
    """``average_precision_score`` of a (binary) state, ``pos_label`` positive (``average``
    is checked and ignored, as scikit-learn does for binary input)."""
    check_average(average)
    check_ap_pos_label(state.classes, pos_label)
    return ap_value(positive_statistics(state, pos_label))


def check_ap_pos_label(classes: np.ndarray, pos_label: Any) -> None:
    if classes.shape[0] == 2 and _index(classes, pos_label) is None:
        raise ValueError(
            f"pos_label={pos_label} is not a valid label. It should be one of {classes}")


def curve_pos_label(classes: np.ndarray, pos_label: Any) -> Any:
    """scikit-learn's rule for the curves: with ``pos_label`` None, labels must be {0, 1} /
    {-1, 1} (or one of those values) and 1 is positive."""
    if pos_label is not None:
        return pos_label
    c = classes
    if c.dtype.kind in "OUS" or c.tolist() not in ([0, 1], [-1, 1], [0], [-1], [1]):
        classes_repr = ", ".join(repr(v) for v in c.tolist())
        raise ValueError(
            f"y_true takes value in {{{classes_repr}}} and pos_label is not specified: either "
            "make y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly.")
    return 1


def _keep_corners(a: Any, b: Any) -> Any:
    """scikit-learn's drop_intermediate mask: first, last and points where a or b bends."""
    keep = np.ones(a.shape[0], dtype=bool)
    keep[1:-1] = np.logical_or(np.diff(a, 2), np.diff(b, 2))
    return keep


def _roc_points(thr: Any, p: Any, q: Any, drop_intermediate: bool) -> Any:
    m = thr.shape[0]
    tps = np.empty(m + 1)  # the (0, 0) point first, then the cumulative weights
    fps = np.empty(m + 1)
    tps[0] = fps[0] = 0.0
    np.cumsum(p, out=tps[1:])
    np.cumsum(q, out=fps[1:])
    thresholds = np.empty(m + 1)
    thresholds[0] = np.inf
    thresholds[1:] = thr
    if drop_intermediate and m > 2:
        keep = np.ones(m + 1, dtype=bool)
        keep[2:-1] = _keep_corners(fps[1:], tps[1:])[1:-1]
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    return _rate(fps, "negative"), _rate(tps, "positive"), thresholds


def _rate(cum: Any, side: str) -> Any:
    """``cum / cum[-1]``, or nan with scikit-learn's warning when that side weighs nothing."""
    if cum[-1] <= 0:
        _nothing_weighs(side)
        return np.full(cum.shape, np.nan)
    return cum / cum[-1]


def _nothing_weighs(side: str) -> None:
    rate = "false" if side == "negative" else "true"
    warn(f"No {side} samples in y_true, {rate} positive value should be meaningless",
         undefined_metric_warning())


def roc(state: RankingState, pos_label: Any = None, drop_intermediate: bool = True) -> Any:
    """``roc_curve`` of a state: ``(fpr, tpr, thresholds)``."""
    p, q, _, _ = _split(state, curve_pos_label(state.classes, pos_label))
    return _roc_points(state.thresholds, p, q, drop_intermediate)


def precision_recall(state: RankingState, pos_label: Any = None,
                     drop_intermediate: bool = False) -> Any:
    """``precision_recall_curve`` of a state: ``(precision, recall, thresholds)``, the
    thresholds increasing, float64."""
    p, q, _, _ = _split(state, curve_pos_label(state.classes, pos_label))
    thr = state.thresholds
    tps = np.cumsum(p)
    fps = np.cumsum(q)
    if drop_intermediate and fps.shape[0] > 2:
        keep = np.ones(tps.shape[0], dtype=bool)
        keep[1:-1] = np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    ps = tps + fps
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(ps != 0, tps / np.where(ps != 0, ps, 1.0), 0.0)
    if tps.shape[0] == 0 or tps[-1] == 0:
        warn("No positive class found in y_true, recall is set to one for all thresholds.",
             UserWarning)
        recall = np.full(tps.shape, 1.0)
    else:
        recall = tps / tps[-1]
    return (np.concatenate([precision[::-1], [1.0]]), np.concatenate([recall[::-1], [0.0]]),
            thr[::-1].copy())


def confusion_at_thresholds(state: RankingState, pos_label: Any = None) -> Any:
    """``confusion_matrix_at_thresholds`` of a state: ``(tns, fps, fns, tps, thresholds)``,
    the thresholds decreasing (float64; the one-shot function gives them in the scores'
    dtype)."""
    p, q, _, _ = _split(state, curve_pos_label(state.classes, pos_label))
    tps = np.cumsum(p)
    fps = np.cumsum(q)
    return fps[-1] - fps, fps, tps[-1] - tps, tps, state.thresholds.copy()


def det(state: RankingState, pos_label: Any = None, drop_intermediate: bool = False) -> Any:
    """``det_curve`` of a state: ``(fpr, fnr, thresholds)``, the thresholds increasing and
    ``inf`` where no finite threshold reaches a false positive rate of 0."""
    p, q, _, _ = _split(state, curve_pos_label(state.classes, pos_label))
    m = state.thresholds.shape[0]
    # the point at inf first, where every sample is predicted negative
    tps = np.empty(m + 1)
    fps = np.empty(m + 1)
    tps[0] = fps[0] = 0.0
    np.cumsum(p, out=tps[1:])
    np.cumsum(q, out=fps[1:])
    if drop_intermediate and m + 1 > 2:
        thresholds = np.empty(m + 1)
        thresholds[0] = np.inf
        thresholds[1:] = state.thresholds
        keep = np.ones(m + 1, dtype=bool)
        keep[1:-1] = np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    else:
        thresholds = None  # only the kept slice is formed (below): no copy of all of them
    if state.classes.shape[0] != 2:
        raise ValueError(DET_ONE_CLASS)
    first = int(np.searchsorted(fps, fps[0], side="right")) - 1
    last = int(np.searchsorted(tps, tps[-1])) + 1
    sl = slice(first, last)
    # each output formed once, reversed, from the slice: the same operations on the same
    # numbers as dividing whole arrays and slicing them
    fnr = np.subtract(tps[-1], tps[sl][::-1])
    # a positive label that is neither class leaves no positive weight: nan, as numpy's 0 / 0
    fnr /= tps[-1]
    if thresholds is None:
        thresholds = np.empty(max(last - first, 0))
        if first >= 1:
            thresholds[:] = state.thresholds[first - 1:last - 1][::-1]
        elif last > 0:
            thresholds[:-1] = state.thresholds[:last - 1][::-1]
            thresholds[-1] = np.inf
        return fps[sl][::-1] / fps[-1], fnr, thresholds
    return fps[sl][::-1] / fps[-1], fnr, thresholds[sl][::-1].copy()


# ----------------------------------------------------------------------------- binned results


@dataclass(frozen=True)
class RankingResult:
    """ROC AUC and average precision of a :class:`~fastmetrics.streaming.RankingAccumulator`.

    Parameters
    ----------
    roc_auc, average_precision : float
        The scores. Exact mode: scikit-learn's values on all the data. Binned mode: the
        values when the scores of each bin are taken as tied.
    roc_auc_bounds, average_precision_bounds : tuple of float
        ``(low, high)``: the true scores lie in this interval whatever the order of the
        scores inside each bin (equal to the score in exact mode).
    n_positive, n_negative : int
        Samples seen of each class.
    mode : {"exact", "binned"}
        The accumulator's mode.
    guarantee : str
        What the numbers promise, in words.

    See Also
    --------
    fastmetrics.streaming.RankingAccumulator.result : What builds it.

    Examples
    --------
    >>> from fastmetrics.streaming import RankingAccumulator
    >>> r = RankingAccumulator().update([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).result()
    >>> r.roc_auc, r.n_positive, r.mode
    (0.75, 2, 'exact')
    """

    roc_auc: float
    average_precision: float
    roc_auc_bounds: tuple[float, float]
    average_precision_bounds: tuple[float, float]
    n_positive: int
    n_negative: int
    mode: str
    guarantee: str


RankingResult.__module__ = "fastmetrics.streaming"


def _ap_bounds(p: np.ndarray, q: np.ndarray, P: float) -> tuple[float, float]:
    """Bounds of the step-wise AP over every order of the samples inside each bin (bins in
    decreasing score order). Highest: a bin's positives first, as one block. Lowest: its
    negatives first, then each positive at the precision it would have if the positive
    weight arrived continuously (the integral of (T + x) / (T + F + x), below any order)."""
    T = np.concatenate([[0.0], np.cumsum(p)[:-1]])
    F = np.concatenate([[0.0], np.cumsum(q)[:-1]])
    with np.errstate(divide="ignore", invalid="ignore"):
        hi_den = T + F + p
        hi = np.where((p > 0) & (hi_den > 0), p * (T + p) / np.where(hi_den > 0, hi_den, 1), 0.0)
        Fq = F + q
        base_ = T + Fq
        lo = np.where((p > 0) & (Fq > 0) & (base_ > 0),
                      p - Fq * np.log1p(p / np.where(base_ > 0, base_, 1)), p)
        lo = np.where(p > 0, lo, 0.0)
    return float(max(0.0, lo.sum() / P)), float(min(1.0, hi.sum() / P))


def bounds(state: RankingState, pos_label: Any = None) -> Any:
    """``((auc_low, auc_high), (ap_low, ap_high))``: where the true ROC AUC and AP lie
    whatever the order of the samples inside each bin (a point for an exact state)."""
    p, q, npos, nneg = _split(state, _positive(state, pos_label))
    st = _summary_stats(p, q, npos, nneg)
    P, N = st[kernel.P], st[kernel.N]
    auc = float(st[kernel.AUC2] / (2.0 * P * N)) if P > 0 and N > 0 else math.nan
    ap = float(max(0.0, st[kernel.AP] / P)) if P > 0 else 0.0
    if not state.binned:
        return (auc, auc), (ap, ap)
    if P > 0 and N > 0:
        half = 0.5 * float(np.dot(p, q)) / (P * N)
        auc_b = (float(max(0.0, auc - half)), float(min(1.0, auc + half)))
    else:
        auc_b = (auc, auc)
    return auc_b, (_ap_bounds(p, q, P) if P > 0 else (ap, ap))


def result(state: RankingState, pos_label: Any = None) -> RankingResult:
    """:class:`RankingResult` of a state: AUC and AP with ``pos_label`` positive (None: the
    greater class), their bounds and the mode's guarantee."""
    p, q, npos, nneg = _split(state, _positive(state, pos_label))
    st = _summary_stats(p, q, npos, nneg)
    if st[kernel.P] == 0 and st[kernel.N] == 0:
        raise ValueError(NONZERO)
    auc = auc_value(st)
    ap = ap_value(st)
    if not state.binned:
        return RankingResult(auc, ap, (auc, auc), (ap, ap), npos, nneg, "exact",
                             "exact: scikit-learn's values on all the data seen")
    auc_b, ap_b = bounds(state, pos_label)
    return RankingResult(
        auc, ap, auc_b, ap_b, npos, nneg, "binned",
        f"binned into {p.shape[0]} score bins: values take each bin's scores as tied; "
        "the true AUC and AP (any order inside the bins) lie within the bounds",
    )


# ----------------------------------------------------------------------------- many columns
# Multilabel and multiclass scores: many binary problems, statistics only (not mergeable).


def indicator(y_true: Any) -> Any:
    """(n, K) multilabel indicator y_true (values 0/1), or None when y_true is 1-D."""
    a = label_input(y_true, "y_true")
    if a.ndim != 2 or a.shape[1] == 1:
        return None
    if _is_bytes(a):
        raise TypeError(BYTES_LABELS)
    if a.dtype.kind not in "biuf":
        raise ValueError("multiclass-multioutput format is not supported")
    if a.dtype.kind == "f" and a.size and not np.isfinite(a).all():
        raise nonfinite_error(a, "y_true")
    if a.size and (a.min() < 0 or a.max() > 1 or (a.dtype.kind == "f" and np.any(a % 1))):
        raise ValueError("multiclass-multioutput format is not supported")
    if a.shape[0] == 0:
        raise ValueError("Found array with 0 sample(s) (shape=(0, ...)) while a minimum of 1 "
                         "is required (y_true is empty).")
    return a if a.dtype.kind != "f" else a.astype(np.int8)


def scores_2d(y_score: Any, n: int, k: Any = None) -> Any:
    s = scores(y_score, ndim=2)
    if s.ndim != 2:
        raise ValueError(
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` "
            f"contains multiple classes. Got `y_score.shape={s.shape}`.")
    if s.shape[0] != n:
        raise inconsistent_lengths(y_true=n, y_score=s.shape[0])
    if k is not None and s.shape[1] != k:
        raise ValueError(f"y_true and y_score have different shapes: {(n, k)} and {s.shape}")
    return s


def average_columns(metric: Any, y_ind: Any, s2d: Any, average: str | None,
                    sample_weight: ArrayLike | None, n_threads: int | None = None, *,
                    of_state: Any = None) -> Any:
    """scikit-learn's ``_average_binary_score`` over an (n, K) indicator matrix ``y_ind``
    (any int/bool dtype, values 0/1) and scores ``s2d``: ``metric(stats_row)`` of every
    problem from one kernel call, or ``of_state(state)`` from each problem's
    :class:`RankingState` where the metric needs the thresholds (a partial AUC)."""
    n, k = s2d.shape
    yk = y_ind.view(np.uint8) if y_ind.dtype.kind == "b" else native(y_ind)
    if yk.dtype.char not in INT_CHARS:
        yk = yk.astype(np.int64)
    w, has_w = weights(sample_weight, {"y_true": n, "y_score": n}, allow_zero_sum=True)
    zero = has_w and n and not w.any()
    if average == "micro":
        if zero:
            raise ValueError(NONZERO)
        y1 = np.ascontiguousarray(yk).reshape(-1)
        s1 = np.ascontiguousarray(s2d).reshape(-1)
        lab, w1 = Labels(y1), (np.repeat(w, k) if has_w else w)
        if of_state is not None:
            return of_state(RankingState.from_labels(lab, s1, w1, has_w, n_threads))
        return metric(statistics(lab, s1, w1, has_w, 1, n_threads))
    average_weight = None
    if average == "weighted":
        average_weight = (yk.astype(w.dtype) * w[:, None]).sum(axis=0) if has_w \
            else yk.sum(axis=0)
        if np.isclose(average_weight.sum(), 0):
            return 0
    elif average == "samples":
        _check_finite_weights(w, has_w)
        average_weight = w if has_w else None  # np.average raises when they sum to zero
        yk, s2d = yk.T, s2d.T
        w, has_w, zero = _NO_W, False, False
    if zero:
        raise ValueError(NONZERO)
    kk = s2d.shape[1]
    if of_state is not None:
        score = np.array([of_state(RankingState.from_labels(Labels(yk[:, j]), s2d[:, j], w,
                                                            has_w, n_threads))
                          for j in range(kk)])
        return _averaged(score, average, average_weight)
    cols = np.arange(kk, dtype=np.int64)
    stats = column_statistics(yk, cols, cols, s2d, w, has_w, np.ones(kk, dtype=yk.dtype),
                              n_threads=n_threads)
    return _averaged(np.array([metric(row) for row in stats]), average, average_weight)


def _averaged(score: Any, average: str | None, average_weight: Any) -> Any:
    """scikit-learn's average of per-problem scores (those of zero weight count as 0)."""
    if average is None:
        return score
    if average_weight is not None:
        score[average_weight == 0] = 0
    return float(np.average(score, weights=average_weight))


def multiclass_roc_auc(y_true: Any, lab: Labels, s: Any, labels: Any, multi_class: str,
                       average: str | None, sample_weight: ArrayLike | None,
                       n_threads: int | None = None) -> Any:
    """scikit-learn's one-vs-rest / one-vs-one multiclass ROC AUC."""
    if s.ndim != 2:
        raise ValueError(
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
            f"multiple classes. Got `y_score.shape={s.shape}`.")
    n = lab.y.shape[0]
    if s.shape[0] != n:
        raise inconsistent_lengths(y_true=n, y_score=s.shape[0])
    if not np.allclose(1, s.sum(axis=1)):
        raise ValueError(
            "Target scores need to be probabilities for multiclass roc_auc, i.e. they should "
            "sum up to 1.0 over classes")
    average_options: tuple[str | None, ...] = ("macro", "weighted", None)
    if multi_class == "ovr":
        average_options = ("micro",) + average_options
    if average not in average_options:
        raise ValueError(f"average must be one of {average_options} for multiclass problems")
    if average is None and multi_class == "ovo":
        raise NotImplementedError("average=None is not implemented for multi_class='ovo'.")
    a = label_input(y_true, "y_true", encoded=False).reshape(-1)
    if labels is not None:
        classes = np.asarray(labels).reshape(-1)
        uniq = np.unique(classes)
        if len(uniq) != len(classes):
            raise ValueError("Parameter 'labels' must be unique")
        if not np.array_equal(uniq, classes):
            raise ValueError("Parameter 'labels' must be ordered")
        if len(classes) != s.shape[1]:
            raise ValueError(
                f"Number of given labels, {len(classes)}, not equal to the number of columns "
                f"in 'y_score', {s.shape[1]}")
        if len(np.setdiff1d(a, classes)):
            raise ValueError("'y_true' contains labels not in parameter 'labels'")
    else:
        classes = lab.classes if lab.encoded else np.unique(a)
        if len(classes) != s.shape[1]:
            raise ValueError(
                "Number of classes in y_true not equal to the number of columns in 'y_score'")
    codes = np.searchsorted(classes, a).astype(np.int64)
    k = classes.shape[0]
    if multi_class == "ovo":
        if sample_weight is not None:
            raise ValueError(
                "sample_weight is not supported for multiclass one-vs-one ROC AUC, "
                "'sample_weight' must be None in this case.")
        present = np.unique(codes)
        pairs = list(combinations(present.tolist(), 2))
        pa = np.array([p for ab in pairs for p in ab], dtype=np.int64)
        pb = np.array([q for a_, b_ in pairs for q in (b_, a_)], dtype=np.int64)
        # problem j: class pa[j] (its score column) against class pb[j], over the codes
        out = column_statistics(codes[:, None], np.zeros(pa.shape[0], dtype=np.int64), pa, s,
                                _NO_W, False, pa, pb, n_threads)
        auc = np.array([auc_value(row) for row in out])
        pair_scores = (auc[0::2] + auc[1::2]) / 2
        prevalence = None
        if average == "weighted":
            prevalence = (out[0::2, kernel.NPOS] + out[0::2, kernel.NNEG]) / n
        return float(np.average(pair_scores, weights=prevalence))
    # ovr: problem j reads the one codes column, positive where code == j
    if average == "micro":
        ind = codes[:, None] == np.arange(k)
        return average_columns(auc_value, ind, s, average, sample_weight, n_threads)
    w, has_w = weights(sample_weight, {"y_true": n, "y_score": n}, allow_zero_sum=True)
    zero = has_w and not w.any()
    if zero and average != "weighted":
        raise ValueError(NONZERO)
    cols = np.arange(k, dtype=np.int64)
    stats = column_statistics(codes[:, None], np.zeros(k, dtype=np.int64), cols, s, w, has_w,
                              cols, n_threads=n_threads)
    average_weight = None
    if average == "weighted":
        average_weight = stats[:, kernel.P] if has_w else stats[:, kernel.NPOS]
        if np.isclose(average_weight.sum(), 0):
            return 0
    return _averaged(np.array([auc_value(row) for row in stats]), average, average_weight)
