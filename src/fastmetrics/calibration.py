"""Calibration metrics from one binning pass: ECE, MCE, Brier score, reliability diagrams.

One kernel pass (:mod:`fastmetrics._bins`) fills a per-bin state: sum of weights, sum of
confidence, sum of correctness, the Brier numerator and the count. Every metric here is a
function of that state, and states of two chunks with the same edges merge by addition.

Conventions
-----------
Bins are scikit-learn's: ``n_bins`` equal-width bins on [0, 1] (``strategy="uniform"``) or
bins with edges at the percentiles of the probabilities (``strategy="quantile"``). A
probability ``p`` goes to bin ``np.searchsorted(edges[1:-1], p, side="left")``: bins are closed
on the right, a value exactly on an inner edge goes to the lower bin, 0 goes to the first bin
and 1 to the last.

* Binary input (1-D ``y_prob``): the probability of the positive class; the per-bin
  "observed frequency" is the fraction of positives (this is ``calibration_curve``).
* Probability matrix ``(n, K)``: *top-label* calibration. Confidence is the row maximum,
  correctness is ``argmax == y_true`` where ``y_true`` holds class indices ``0..K-1`` (pass
  ``labels=`` with the K class values in column order to use other label values). A row that
  does not sum to 1 (tolerance ``1e-8 + sqrt(eps)``, as scikit-learn's ``brier_score_loss``)
  gives scikit-learn's ``UserWarning`` "The y_prob values do not sum to one", not an error.
* Probabilities outside [0, 1], NaN, non-finite weights, empty input: ``ValueError`` (unlike
  scikit-learn's ``calibration_curve``, NaN is never let through).
"""

from __future__ import annotations

import math
import numbers
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._kernels import bins as _bins
from ._threads import resolve_n_threads
from ._validation import (
    as_1d,
    check_consistent_length,
    check_sample_weight,
    is_fast_int,
    native,
    zero_weight_sum_error,
)
from .percentiles import percentile

__all__ = [
    "CalibrationBins",
    "CalibrationSummary",
    "ProbabilityReport",
    "brier_score_loss",
    "calibration_bins",
    "calibration_curve",
    "calibration_summary",
    "class_confidence_from_logprobs",
    "expected_calibration_error",
    "max_calibration_error",
    "reliability_diagram",
    "score_probabilities",
]

_W, _SP, _SY, _SQ, _N = range(5)  # columns of the per-bin state (see _bins.pyx)
_NOT_NORMALISED = "The y_prob values do not sum to one. Make sure to pass probabilities."


def _percentile(a: np.ndarray, q) -> np.ndarray:
    """The one place calibration computes percentiles (quantile bin edges): numpy's values,
    by O(N) selection without copying ``a``."""
    return percentile(a, q)


# --------------------------------------------------------------------------------------
# validation helpers


def _check_n_bins(n_bins) -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral):
        raise ValueError(f"n_bins must be an int >= 1, got {n_bins!r}")
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    return int(n_bins)


def _as_prob(y_prob, name: str = "y_prob") -> np.ndarray:
    """Probabilities as a float32/float64 native array (other dtypes: one float64 copy)."""
    a = y_prob if type(y_prob) is np.ndarray else np.asarray(y_prob)
    if a.dtype.char not in "fd":
        if a.dtype.kind not in "iubf":
            raise TypeError(f"{name} must hold numbers, got dtype {a.dtype}")
        a = a.astype(np.float64)
    return native(a)


def _fast_labels(y: np.ndarray) -> np.ndarray | None:
    """The label array the kernels read directly (bool as uint8), or None."""
    if y.dtype.kind == "b":
        return y.view(np.uint8)
    if is_fast_int(y):
        return native(y)
    return None


def _raise_bad(bad: int, kind: int, y_prob: np.ndarray, sample_weight) -> None:
    if bad < 0:
        return
    if kind == 2:
        raise ValueError(f"sample_weight contains NaN or infinity (first at index {bad})")
    if kind == 3:
        raise ValueError(
            f"y_true[{bad}] is not a class index in 0..{y_prob.shape[1] - 1}; pass labels= "
            "to map label values to the columns of y_prob"
        )
    row = y_prob[bad]
    v = row if row.ndim == 0 else row[~((row >= 0) & (row <= 1))][0]
    what = "NaN" if np.isnan(v) else f"value {float(v)!r}"
    raise ValueError(f"y_prob contains values outside [0, 1]: {what} in row {bad}")


def _edges(y_prob: np.ndarray, n_bins: int, strategy: str) -> tuple[np.ndarray, bool]:
    if strategy == "uniform":
        return np.linspace(0.0, 1.0, n_bins + 1), True
    if strategy == "quantile":
        return np.asarray(_percentile(y_prob, np.linspace(0, 1, n_bins + 1) * 100), np.float64), False
    raise ValueError(
        f"strategy must be either 'quantile' or 'uniform', got {strategy!r}"
    )


def _padded(edges: np.ndarray) -> np.ndarray:
    """The kernels' edge array: ``[-inf, inner edges..., +inf]``."""
    return np.concatenate(([-np.inf], np.asarray(edges[1:-1], np.float64), [np.inf]))


def _weights(sample_weight, n):
    w = check_sample_weight(sample_weight, n)
    return (w, True) if w is not None else (np.empty(0, np.float64), False)


def _label_value(pos, dtype) -> int | None:
    """``pos`` as an int in the range of the integer ``dtype``; None if no value equals it."""
    try:
        i = int(pos)
        if i != pos:
            return None
    except (TypeError, ValueError, OverflowError):
        return None
    info = np.iinfo(dtype)
    return i if info.min <= i <= info.max else None


def _classes_message(y) -> str:
    return ", ".join(repr(c) for c in np.unique(y).tolist())


# --------------------------------------------------------------------------------------
# the binary pass


def _binary_pass(y_true, y_prob, edges, uniform, sample_weight, pos_label, *, brier_rule=False,
                 n_threads=None):
    """One binning pass over binary labels. Returns the (n_bins, 5) state.

    ``pos_label=None`` follows scikit-learn: labels in {0, 1} or {-1, 1} (or one of them)
    mean positive = 1; otherwise ``calibration_curve`` raises and ``brier_score_loss``
    (``brier_rule=True``) takes the greater label, for non-string labels.
    """
    y = as_1d(y_true, "y_true")
    p = as_1d(y_prob, "y_prob")
    n = check_consistent_length(y_true=y, y_prob=p)
    if n == 0:
        raise ValueError("y_true and y_prob are empty: need at least one sample")
    w, has_w = _weights(sample_weight, n)
    yk = _fast_labels(y)
    if yk is None:
        # strings, objects, floats: decide the positive label once, then read booleans
        classes = np.unique(y)
        if classes.shape[0] > 2:
            raise ValueError(
                f"y_true must be binary, got {classes.shape[0]} labels: {classes.tolist()}"
            )
        if pos_label is None:
            if classes.dtype.kind in "OUS" or not (
                np.all(np.isin(classes, [0, 1])) or np.all(np.isin(classes, [-1, 1]))
            ):
                if not brier_rule or classes.dtype.kind in "OUS":
                    raise ValueError(
                        f"y_true takes value in {{{_classes_message(y)}}} and pos_label is "
                        "not specified: either make y_true take value in {0, 1} or {-1, 1} "
                        "or pass pos_label explicitly."
                    )
                pos_label = classes[-1]
            else:
                pos_label = 1
        yk = np.asarray(y == pos_label).view(np.uint8)
        pos_label = 1
    pos_given = pos_label is not None
    pos = 1 if pos_label is None else pos_label
    state = np.zeros((edges.shape[0] - 1, 5))
    inner = _padded(edges)
    for _attempt in range(2):
        pos_value = _label_value(pos, yk.dtype)
        state[...] = 0.0
        bad, kind, n_other, other = _bins.bin_binary(
            yk, p, w, has_w, 0 if pos_value is None else pos_value, pos_value is not None,
            inner, uniform, state, resolve_n_threads(n_threads)
        )
        _raise_bad(bad, kind, p, sample_weight)
        if n_other == 2:
            classes = np.unique(yk)
            if classes.shape[0] > 2 or not pos_given:
                if pos_given or not brier_rule or classes.shape[0] > 2:
                    raise ValueError(
                        f"y_true must be binary, got labels {{{_classes_message(yk)}}}"
                        + ("" if pos_given else "; pass pos_label explicitly")
                    )
                pos, pos_given = classes[-1].item(), True
                continue
        if not pos_given and n_other == 1 and other not in (0, -1):  # other: the smallest
            if not brier_rule:
                raise ValueError(
                    f"y_true takes value in {{{_classes_message(yk)}}} and pos_label is not "
                    "specified: either make y_true take value in {0, 1} or {-1, 1} or pass "
                    "pos_label explicitly."
                )
            classes = np.unique(yk)
            pos, pos_given = classes[-1].item(), True
            continue
        return state
    return state


# --------------------------------------------------------------------------------------
# the top-label pass


def _class_indices(y: np.ndarray, labels, K: int, *, all_classes: bool):
    """``y`` as class indices 0..K-1 (the kernel checks the range), or raise.

    With ``labels``, column k of the probability matrix is ``labels[k]``; with
    ``all_classes`` (scikit-learn's multiclass Brier) columns are the sorted classes."""
    if labels is not None:
        lab = np.asarray(labels)
        if lab.ndim != 1 or lab.shape[0] != K:
            raise ValueError(f"labels must list the {K} classes of the columns of y_prob, got {lab.shape[0] if lab.ndim == 1 else lab.shape}")
        if np.unique(lab).shape[0] != K:
            raise ValueError("labels must not contain duplicates")
        order = np.argsort(lab, kind="stable")
        pos = np.searchsorted(lab[order], y)
        pos = np.minimum(pos, K - 1)
        found = lab[order][pos] == y
        if not np.all(found):
            bad = np.flatnonzero(~found)[0]
            raise ValueError(f"y_true[{bad}] = {y[bad]!r} is not in labels")
        return order[pos].astype(np.int64)
    yk = _fast_labels(y)
    if yk is not None and not all_classes:
        return yk
    classes, inverse = np.unique(y, return_inverse=True)
    if all_classes and classes.shape[0] != K:
        raise ValueError(
            f"y_true and y_prob contain different number of classes: {classes.shape[0]} vs "
            f"{K}. Please provide the true labels explicitly through the labels argument. "
            f"Classes found in y_true: {classes}"
        )
    if not all_classes:
        raise TypeError(
            f"y_true must hold integer class indices 0..{K - 1} (got dtype {y.dtype}); pass "
            "labels= to map other label values to the columns of y_prob"
        )
    return inverse.astype(np.int64)


def _top_label_pass(y_true, y_prob, edges, uniform, sample_weight, labels, *, all_classes=False):
    """One top-label pass over a probability matrix. Returns (state, multiclass_sq_sum)."""
    y = as_1d(y_true, "y_true")
    P = y_prob
    if P.ndim != 2 or P.shape[1] < 1:
        raise ValueError(f"y_prob must be 1-D or (n_samples, n_classes), got shape {P.shape}")
    n = check_consistent_length(y_true=y, y_prob=P)
    if n == 0:
        raise ValueError("y_true and y_prob are empty: need at least one sample")
    K = P.shape[1]
    w, has_w = _weights(sample_weight, n)
    yk = _class_indices(y, labels, K, all_classes=all_classes)
    state = np.zeros((edges.shape[0] - 1, 5))
    extra = np.zeros(1)
    seen = np.zeros(K, np.int64)
    inner = _padded(edges)
    tol = 1e-8 + math.sqrt(np.finfo(P.dtype).eps)
    bad, kind, n_unnorm = _bins.bin_top_label(yk, P, w, has_w, inner, uniform, tol, state, extra, seen)
    _raise_bad(bad, kind, P, sample_weight)
    if all_classes and labels is None and np.any(seen == 0):
        # y_true is in 0..K-1 but misses a class: scikit-learn's classes would not match
        _class_indices(y, None, K, all_classes=True)
    if n_unnorm:
        warnings.warn(_NOT_NORMALISED, UserWarning, stacklevel=3)
    return state, float(extra[0])


def _state_for(y_true, y_prob, n_bins, strategy, sample_weight, pos_label, labels, n_threads=None):
    """Validate and run the right pass. Returns (state, edges, multiclass_sq or None).

    ``n_threads`` serves the binary pass; the top-label pass runs on one thread."""
    resolve_n_threads(n_threads)  # a bad value is an error on either path
    n_bins = _check_n_bins(n_bins)
    p = _as_prob(y_prob)
    if p.ndim == 2 and p.shape[1] == 1:
        p = p[:, 0]
    if p.ndim == 2:
        if p.shape[0] == 0:
            raise ValueError("y_true and y_prob are empty: need at least one sample")
        # quantile edges of the top-label confidences (one extra pass, O(n) memory)
        edges, uniform = _edges(p.max(axis=1) if strategy == "quantile" and p.shape[0] else p,
                                n_bins, strategy)
        state, mc = _top_label_pass(y_true, p, edges, uniform, sample_weight, labels)
        return state, edges, mc
    if p.ndim != 1:
        raise ValueError(f"y_prob must be 1-D or (n_samples, n_classes), got shape {p.shape}")
    if p.shape[0] == 0:
        raise ValueError("y_true and y_prob are empty: need at least one sample")
    edges, uniform = _edges(p, n_bins, strategy)
    state = _binary_pass(y_true, p, edges, uniform, sample_weight, pos_label, n_threads=n_threads)
    return state, edges, None


# --------------------------------------------------------------------------------------
# results


def _ece_mce(state: np.ndarray) -> tuple[float, float]:
    W = state[:, _W]
    total = W.sum()
    if total == 0:
        raise ValueError("sample_weight sums to zero: calibration is undefined")
    nz = W != 0
    gap = np.abs(state[nz, _SY] / W[nz] - state[nz, _SP] / W[nz])
    ece = float(np.sum(W[nz] / total * gap))
    return ece, float(gap.max())


@dataclass(frozen=True)
class CalibrationBins:
    """Per-bin calibration state and the statistics derived from it.

    Attributes
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
        The raw kernel state (W, sum w*conf, sum w*correct, Brier numerator, count); states
        of two chunks with the same edges add.
    """

    edges: np.ndarray
    counts: np.ndarray
    weights: np.ndarray
    mean_confidence: np.ndarray
    observed_frequency: np.ndarray
    state: np.ndarray = field(repr=False)

    @classmethod
    def from_state(cls, state: np.ndarray, edges: np.ndarray) -> CalibrationBins:
        W = state[:, _W]
        with np.errstate(invalid="ignore", divide="ignore"):
            conf = np.where(W != 0, state[:, _SP] / W, np.nan)
            freq = np.where(W != 0, state[:, _SY] / W, np.nan)
        return cls(edges, state[:, _N].astype(np.int64), W.copy(), conf, freq, state)

    @property
    def n_bins(self) -> int:
        return int(self.counts.shape[0])

    @property
    def ece(self) -> float:
        """Expected calibration error: sum over bins of (W_b / W) * |freq_b - conf_b|."""
        return _ece_mce(self.state)[0]

    @property
    def mce(self) -> float:
        """Maximum calibration error: the largest |freq_b - conf_b| over non-empty bins."""
        return _ece_mce(self.state)[1]

    @property
    def brier(self) -> float:
        """Brier score of the confidences: mean (conf - correct)**2 (binary: (p - y)**2)."""
        return float(0.5 * self.state[:, _SQ].sum() / self.state[:, _W].sum())

    def merge(self, other: CalibrationBins) -> CalibrationBins:
        """The bins of both inputs together (same edges required)."""
        if not np.array_equal(self.edges, other.edges):
            raise ValueError("cannot merge calibration bins with different edges")
        return CalibrationBins.from_state(self.state + other.state, self.edges)


def calibration_bins(y_true, y_prob, *, n_bins=10, strategy="uniform", sample_weight=None,
                     pos_label=None, labels=None, n_threads=None) -> CalibrationBins:
    """Bin probabilities and count, in one pass, what every calibration metric needs.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (with 1-D ``y_prob``) or class indices ``0..K-1`` (with an (n, K)
        ``y_prob``; see ``labels``).
    y_prob : array-like of shape (n_samples,) or (n_samples, K)
        Probability of the positive class, or a probability matrix (top-label binning).
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or edges at the percentiles of the (top-label)
        probabilities.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    pos_label : int, float, bool or str, default=None
        Positive class of binary ``y_true``; None means 1 for labels in {0, 1} or {-1, 1}.
    labels : array-like of shape (K,), default=None
        Class values of the columns of a probability matrix.

    n_threads : int, default=None
        Threads for the binary pass over large inputs (the top-label pass uses one). None:
        the OpenMP default (honours ``OMP_NUM_THREADS`` and threadpoolctl limits). The
        result is the same for any value.
    Returns
    -------
    CalibrationBins
        Edges, counts, weights, mean confidence and observed frequency per bin, with
        ``ece``, ``mce`` and ``brier`` properties.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> b = fm.calibration_bins([0, 0, 1, 1], [0.1, 0.3, 0.3, 0.9], n_bins=2)
    >>> b.counts
    array([3, 1])
    >>> b.observed_frequency
    array([0.33333333, 1.        ])
    """
    state, edges, _ = _state_for(y_true, y_prob, n_bins, strategy, sample_weight, pos_label,
                                 labels, n_threads)
    return CalibrationBins.from_state(state, edges)


def calibration_curve(y_true, y_prob, *, pos_label=None, n_bins=5, strategy="uniform"):
    """True and predicted probabilities for a calibration curve (scikit-learn's).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_prob : array-like of shape (n_samples,)
        Probabilities of the positive class.
    pos_label : int, float, bool or str, default=None
        The positive label; None means 1 for labels in {0, 1} or {-1, 1}.
    n_bins : int, default=5
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins, or bins with the same number of samples.

    Returns
    -------
    prob_true : ndarray
        Fraction of positives in each non-empty bin.
    prob_pred : ndarray
        Mean predicted probability in each non-empty bin.

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> y_true = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1])
    >>> y_pred = np.array([0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9,  1.])
    >>> prob_true, prob_pred = fm.calibration_curve(y_true, y_pred, n_bins=3)
    >>> prob_true
    array([0. , 0.5, 1. ])
    >>> prob_pred
    array([0.2  , 0.525, 0.85 ])
    """
    p = as_1d(_as_prob(y_prob), "y_prob")
    n_bins = _check_n_bins(n_bins)
    if p.shape[0] == 0:
        raise ValueError("y_true and y_prob are empty: need at least one sample")
    edges, uniform = _edges(p, n_bins, strategy)
    state = _binary_pass(y_true, p, edges, uniform, None, pos_label)
    return _curve_from_state(state)


def _curve_from_state(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``calibration_curve``'s (prob_true, prob_pred) of an unweighted binary state."""
    nz = state[:, _N] != 0
    return state[nz, _SY] / state[nz, _N], state[nz, _SP] / state[nz, _N]


def expected_calibration_error(y_true, y_prob, *, n_bins=10, strategy="uniform",
                               sample_weight=None, pos_label=None, labels=None,
                               n_threads=None) -> float:
    """Expected calibration error: ``sum_b (W_b / W) * |observed_b - confidence_b|``.

    Binary ``y_prob`` (1-D) compares the fraction of positives to the mean probability per
    bin; an (n, K) matrix compares top-label accuracy to top-label confidence. Parameters as
    :func:`calibration_bins`.

    Returns
    -------
    float
        The ECE, in [0, 1].

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.expected_calibration_error([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2)
    0.3125
    """
    state, _, _ = _state_for(y_true, y_prob, n_bins, strategy, sample_weight, pos_label,
                             labels, n_threads)
    return _ece_mce(state)[0]


def max_calibration_error(y_true, y_prob, *, n_bins=10, strategy="uniform",
                          sample_weight=None, pos_label=None, labels=None,
                          n_threads=None) -> float:
    """Maximum calibration error: the largest ``|observed_b - confidence_b|`` over non-empty
    bins. Parameters as :func:`calibration_bins`.

    Returns
    -------
    float
        The MCE, in [0, 1].

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.max_calibration_error([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2)
    0.5
    """
    state, _, _ = _state_for(y_true, y_prob, n_bins, strategy, sample_weight, pos_label,
                             labels, n_threads)
    return _ece_mce(state)[1]


def brier_score_loss(y_true, y_proba, *, sample_weight=None, pos_label=None, labels=None,
                     scale_by_half="auto") -> float:
    """Brier score loss (scikit-learn's), binary or multiclass.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or one column per class in sorted label order.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    pos_label : int, float, bool or str, default=None
        Positive label for 1-D ``y_proba``; None: 1 for labels in {0, 1} / {-1, 1}, else the
        greater label (non-string labels).
    labels : array-like, default=None
        Class labels of the columns of a 2-D ``y_proba``; inferred from ``y_true`` if None.
    scale_by_half : bool or "auto", default="auto"
        Halve the score (range [0, 1]); "auto" halves for 1-D or two-column ``y_proba``.

    Returns
    -------
    float
        The Brier score loss.

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> y_true = np.array([0, 1, 1, 0])
    >>> y_prob = np.array([0.1, 0.9, 0.8, 0.3])
    >>> round(fm.brier_score_loss(y_true, y_prob), 6)
    0.0375
    >>> round(fm.brier_score_loss(y_true, y_prob, scale_by_half=False), 6)
    0.075
    """
    _check_scale_by_half(scale_by_half)
    p = _as_prob(y_proba, "y_proba")
    if p.ndim == 2 and p.shape[1] == 1:
        p = p[:, 0]
    if p.ndim == 1:
        state = _binary_pass(y_true, p, np.array([0.0, 1.0]), True, sample_weight, pos_label,
                             brier_rule=True)
        num, W = state[0, _SQ], state[0, _W]
        two_columns = True
    elif p.ndim == 2:
        state, num = _top_label_pass(y_true, p, np.array([0.0, 1.0]), True, sample_weight,
                                     labels, all_classes=True)
        W = state[0, _W]
        two_columns = p.shape[1] < 3
    else:
        raise ValueError(f"y_proba must be 1-D or 2-D, got shape {p.shape}")
    return _brier_from_sums(num, W, two_columns, scale_by_half, sample_weight)


def _check_scale_by_half(scale_by_half) -> None:
    if not (isinstance(scale_by_half, bool | np.bool_) or scale_by_half == "auto"):
        raise ValueError(f"scale_by_half must be a bool or 'auto', got {scale_by_half!r}")


def _brier_from_sums(num, W, two_columns: bool, scale_by_half, weights) -> float:
    """The Brier score from the weighted sum of squared errors ``num`` and the weight sum
    ``W`` (shared by :func:`brier_score_loss` and ``fastmetrics.dask``). ``weights``: the
    sample weights, or an array non-zero somewhere exactly when they are; read only when
    ``W`` is zero, to pick scikit-learn's error (ValueError when every weight is zero or
    none were given, ZeroDivisionError when they cancel)."""
    if W == 0:
        raise zero_weight_sum_error(np.asarray(weights))
    score = num / W
    if scale_by_half == "auto":
        scale_by_half = two_columns
    return float(score * 0.5 if scale_by_half else score)


# --------------------------------------------------------------------------------------
# report card


@dataclass(frozen=True)
class CalibrationSummary:
    """ECE, MCE and Brier score from one binning pass, with the bins they came from."""

    ece: float
    mce: float
    brier: float
    n_bins: int
    bins: CalibrationBins = field(repr=False)

    def as_row(self) -> dict[str, float]:
        """The scalar metrics as a flat dict (one table row)."""
        return {"ece": self.ece, "mce": self.mce, "brier": self.brier, "n_bins": self.n_bins}

    def to_flat_dict(self) -> dict[str, float]:
        """Scalars plus per-bin values under dot keys (``bins.3.count``, ...)."""
        out: dict[str, float] = dict(self.as_row())
        b = self.bins
        for i in range(b.n_bins):
            out[f"bins.{i}.lower"] = float(b.edges[i])
            out[f"bins.{i}.upper"] = float(b.edges[i + 1])
            out[f"bins.{i}.count"] = int(b.counts[i])
            out[f"bins.{i}.confidence"] = float(b.mean_confidence[i])
            out[f"bins.{i}.accuracy"] = float(b.observed_frequency[i])
        return out


def calibration_summary(y_true, y_prob, *, n_bins=10, sample_weight=None, pos_label=None,
                        labels=None, n_threads=None) -> CalibrationSummary:
    """ECE, MCE and Brier score (10 equal-width bins by default) from one kernel pass.

    For a probability matrix all three are top-label: Brier is ``mean((conf - correct)**2)``
    (the harness' definition), not scikit-learn's multiclass Brier. For binary probabilities
    it equals ``brier_score_loss``.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> s = fm.calibration_summary([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2)
    >>> s.as_row()
    {'ece': 0.3125, 'mce': 0.5, 'brier': 0.140625, 'n_bins': 2}
    """
    bins = calibration_bins(y_true, y_prob, n_bins=n_bins, sample_weight=sample_weight,
                            pos_label=pos_label, labels=labels, n_threads=n_threads)
    return _summary_from_bins(bins)


def _summary_from_bins(bins: CalibrationBins) -> CalibrationSummary:
    ece, mce = _ece_mce(bins.state)
    return CalibrationSummary(ece, mce, bins.brier, bins.n_bins, bins)


@dataclass(frozen=True)
class ProbabilityReport:
    """A classification report card plus the calibration of the probabilities."""

    classification: Any  # a ClassificationMetrics
    calibration: CalibrationSummary

    def as_row(self) -> dict:
        row = dict(self.classification.as_row())
        row.update({f"calibration.{k}": v for k, v in self.calibration.as_row().items()})
        return row

    def to_flat_dict(self) -> dict:
        out = dict(self.classification.to_flat_dict())
        out.update({f"calibration.{k}": v for k, v in self.calibration.to_flat_dict().items()})
        return out


def score_probabilities(y_true, y_pred, y_prob, *, n_bins=10, **score_kwargs) -> ProbabilityReport:
    """``fastmetrics.score(y_true, y_pred, **score_kwargs)`` plus ECE, MCE and Brier score of
    ``y_prob`` (binary probabilities, or an (n, K) matrix for top-label calibration).

    The calibration uses the same ``sample_weight`` and ``labels`` as the report card.
    """
    from .report import score  # lazily: the report card is a separate module

    summary = calibration_summary(
        y_true, y_prob, n_bins=n_bins, sample_weight=score_kwargs.get("sample_weight"),
        labels=score_kwargs.get("labels") if np.ndim(y_prob) == 2 else None,
    )
    return ProbabilityReport(score(y_true, y_pred, **score_kwargs), summary)


# --------------------------------------------------------------------------------------
# log-probabilities and plots


def _candidates(logprobs) -> list[tuple[str, float]]:
    """(token, logprob) pairs from a mapping, pairs, dicts or objects with token/logprob;
    a first entry with ``top_logprobs`` means: the candidates of the first generated token."""
    if isinstance(logprobs, dict):
        return [(str(t), float(lp)) for t, lp in logprobs.items()]
    items = list(logprobs)
    if not items:
        return []

    def get(x, key):
        return x.get(key) if isinstance(x, dict) else getattr(x, key, None)

    first = items[0]
    top = get(first, "top_logprobs") if not isinstance(first, tuple | list) else None
    if top:
        items = list(top)
    out = []
    for x in items:
        if isinstance(x, tuple | list):
            t, lp = x
        else:
            t, lp = get(x, "token"), get(x, "logprob")
        out.append((str(t), float(lp)))
    return out


def class_confidence_from_logprobs(logprobs, label_tokens) -> dict[str, float]:
    """Class probabilities from the log-probabilities of candidate tokens.

    A stable softmax (``exp(lp - max lp)``) over the candidates, the probabilities of all
    token variants of each label summed, then normalised to sum to 1 over the labels. When no
    variant of any label is among the candidates, every label gets ``1 / n_labels``.

    Parameters
    ----------
    logprobs : mapping, sequence of (token, logprob), or sequence of token entries
        Candidates of the first generated token. Entries may be dicts or objects with
        ``token`` and ``logprob``; if the first entry has ``top_logprobs``, those are used.
    label_tokens : dict[str, list[str]]
        For each label, its token representations (matched exactly).

    Returns
    -------
    dict[str, float]
        Probability of each label, in the order of ``label_tokens``.

    Examples
    --------
    >>> import math
    >>> import fastmetrics as fm
    >>> lp = {"yes": math.log(0.6), "Yes": math.log(0.2), "no": math.log(0.1), "x": math.log(0.1)}
    >>> p = fm.class_confidence_from_logprobs(lp, {"yes": ["yes", "Yes"], "no": ["no"]})
    >>> {k: round(v, 6) for k, v in p.items()}
    {'yes': 0.888889, 'no': 0.111111}
    """
    cands = _candidates(logprobs)
    if not label_tokens:
        raise ValueError("label_tokens is empty: need at least one label")
    lps = np.array([lp for _, lp in cands], dtype=np.float64)
    if np.isnan(lps).any():
        raise ValueError("logprobs contains NaN")
    probs: dict[str, float] = {}
    if cands and np.isfinite(lps.max()):
        e = np.exp(lps - lps.max())
        by_token: dict[str, float] = {}
        for (t, _), v in zip(cands, e / e.sum()):
            by_token[t] = by_token.get(t, 0.0) + float(v)
        for label, variants in label_tokens.items():
            probs[label] = math.fsum(by_token.get(t, 0.0) for t in set(variants))
    total = math.fsum(probs.values())
    if total == 0.0:
        return {label: 1.0 / len(label_tokens) for label in label_tokens}
    return {label: v / total for label, v in probs.items()}


def reliability_diagram(bins_or_arrays, path, *, n_bins=10, strategy="uniform", title=None):
    """Save a reliability diagram as a PNG: bars = observed frequency (accuracy) per bin,
    dashed diagonal = perfect calibration. Needs matplotlib (``pip install
    fastmetrics-kernels[plot]``).

    Parameters
    ----------
    bins_or_arrays : CalibrationBins or tuple (y_true, y_prob)
        Bins from :func:`calibration_bins`, or the arrays to bin. The harness' ``(confs,
        corrects)`` are ``(corrects, confs)`` here (scikit-learn order).
    path : str or os.PathLike
        Where to write the PNG.
    n_bins, strategy
        Binning when arrays are given.
    title : str, default=None
        Figure title (default: the ECE).

    Returns
    -------
    pathlib.Path
        The path written.
    """
    import pathlib

    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "reliability_diagram needs matplotlib, which is not installed: "
            "`pip install matplotlib` (or the `plot` extra: "
            "`pip install fastmetrics-kernels[plot]`)"
        ) from exc
    if isinstance(bins_or_arrays, CalibrationBins):
        bins = bins_or_arrays
    elif isinstance(bins_or_arrays, tuple | list) and len(bins_or_arrays) == 2:
        bins = calibration_bins(*bins_or_arrays, n_bins=n_bins, strategy=strategy)
    else:
        raise TypeError("bins_or_arrays must be CalibrationBins or a (y_true, y_prob) pair")
    edges = bins.edges
    fig = Figure(figsize=(5, 5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    freq = np.nan_to_num(bins.observed_frequency, nan=0.0)
    ax.bar(edges[:-1], freq, width=np.diff(edges), align="edge", edgecolor="black",
           color="tab:blue", alpha=0.8, label="observed")
    ax.plot([0, 1], [0, 1], "--", color="gray", label="perfect calibration")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence")
    ax.set_ylabel("accuracy")
    ax.set_title(title if title is not None else f"ECE = {bins.ece:.4f}")
    ax.legend(loc="upper left")
    out = pathlib.Path(os.fspath(path))
    fig.savefig(out, format="png")
    return out
