"""Calibration metrics from one binning pass: ECE, MCE, Brier score, reliability diagrams.

Every function here validates its input, bins it in one kernel pass into a
:class:`~fastmetrics.states.CalibrationState` (per bin: sum of weights, of confidence, of
correctness, the Brier numerator and the count) and returns a derivation of it; states of
two chunks with the same edges merge by addition (:mod:`fastmetrics.streaming`,
:mod:`fastmetrics.dask`).

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
* Probabilities outside [0, 1], NaN, non-finite weights, empty input: ``ValueError`` with
  scikit-learn's wording (``Input y_prob contains NaN (NaN in row 3).``, ``y_prob contains
  values greater than 1: ...``); unlike scikit-learn's ``calibration_curve``, NaN is never let
  through.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ._states import bins, proba
from ._states.bins import CalibrationBins, CalibrationState, CalibrationSummary
from ._inputs import inconsistent_lengths
from ._prob_order import agreement_table, check_column_order, one_column_table
from .percentiles import percentile


if TYPE_CHECKING:
    import pathlib
    from typing import Literal
    from ._typing import ArrayLike, FloatArray, Label

__all__ = [
    "CalibrationBins",
    "CalibrationSummary",
    "ProbabilityReport",
    "brier_score_loss",
    "calibration_bins",
    "calibration_curve",
    "calibration_summary",
    "class_confidence_from_logprobs",
    "d2_brier_score",
    "expected_calibration_error",
    "max_calibration_error",
    "reliability_diagram",
    "score_probabilities",
]


def _state(y_true: ArrayLike, y_prob: ArrayLike, n_bins: int, strategy: str,
           sample_weight: ArrayLike | None, pos_label: Label | None, labels: ArrayLike | None,
           n_threads: int | None, *, binary: bool = False) -> CalibrationState:
    """Validate and bin: the one pass every function here reads (``binary``: 1-D ``y_prob``
    only, as ``calibration_curve``)."""
    if strategy == "uniform":
        edges = None
    elif strategy == "quantile":
        # edges at the percentiles of the (top-label) confidences: numpy's values, by O(N)
        # selection. The 0th and 100th are the least and the greatest (NaN if any is), so
        # edges within [0, 1] mean confidences within [0, 1]; the pass checks every value.
        y_prob = bins.probabilities(y_prob)
        if y_prob.shape[0] == 0:
            edges = None  # the pass raises: empty input
        else:
            q = np.linspace(0, 1, bins.check_n_bins(n_bins) + 1) * 100
            conf = y_prob.max(axis=1) if y_prob.ndim == 2 else y_prob
            with np.errstate(invalid="ignore"):  # infinity: refused below
                edges = np.asarray(percentile(conf, q), np.float64)
            if not (edges[0] >= 0 and edges[-1] <= 1):
                bins.check_probabilities(y_prob)  # raises, naming the first bad value
    else:
        raise ValueError(f"strategy must be either 'quantile' or 'uniform', got {strategy!r}")
    if binary:
        return CalibrationState.binary(y_true, y_prob, sample_weight, n_bins=n_bins,
                                       edges=edges, pos_label=pos_label, n_threads=n_threads)
    return CalibrationState.from_arrays(y_true, y_prob, sample_weight, n_bins=n_bins,
                                        edges=edges, pos_label=pos_label, labels=labels,
                                        n_threads=n_threads)


def calibration_bins(y_true: ArrayLike, y_prob: ArrayLike, *, n_bins: int = 10,
                     strategy: Literal["uniform", "quantile"] = "uniform",
                     sample_weight: ArrayLike | None = None, pos_label: Label | None = None,
                     labels: ArrayLike | None = None,
                     n_threads: int | None = None) -> CalibrationBins:
    """Bin probabilities and count, in one pass, what every calibration metric needs.

    Not in scikit-learn: the bins behind :func:`calibration_curve`, the ECE, the MCE and the
    Brier score, returned whole. Bins are scikit-learn's (closed on the right, 0 in the
    first). Bins with the same edges merge by adding their sums
    (:meth:`CalibrationBins.merge`; the streaming accumulator and the Dask function do it).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (with 1-D ``y_prob``) or class indices ``0..K-1`` (with an (n, K)
        ``y_prob``; see ``labels``).
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or a probability matrix (top-label binning:
        confidence is the row maximum, correctness ``argmax == y_true``).
    n_bins : int, default=10
        Number of bins (>= 1).
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or edges at the percentiles of the (top-label)
        probabilities.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    pos_label : int, float, bool or str, default=None
        Positive class of binary ``y_true``; None means 1 for labels in {0, 1} or {-1, 1}.
    labels : array-like of shape (n_classes,), default=None
        Class values of the columns of a probability matrix, in column order; None means
        ``y_true`` holds column indices.
    n_threads : int or None, default=None
        Threads for the binary pass over large inputs (the top-label pass uses one). None
        uses what OpenMP allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the
        CPUs no other process is running on; an int >= 1 sets the count. The result is the
        same for any value.

    Returns
    -------
    bins : CalibrationBins
        Edges, counts, weights, mean confidence and observed frequency per bin, with
        ``ece``, ``mce`` and ``brier`` properties.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_prob`` differ in length or are empty; if ``y_prob`` holds NaN
        or values outside [0, 1]; if 1-D ``y_prob`` comes with more than two classes, or
        labels other than {0, 1} / {-1, 1} without a ``pos_label``; if a class index is
        outside ``0..K-1`` or ``labels`` does not list K classes; if ``n_bins`` is not an
        int >= 1 or ``strategy`` is unknown; if ``sample_weight`` has the wrong length or
        holds NaN or infinity; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UserWarning
        If a row of a probability matrix does not sum to 1.

    See Also
    --------
    sklearn.calibration.calibration_curve : scikit-learn's per-bin frequencies, without
        counts or weights.
    calibration_curve : The non-empty bins' frequencies, as scikit-learn returns them.
    reliability_diagram : A picture of these bins.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> b = fm.calibration_bins([0, 0, 1, 1], [0.1, 0.3, 0.3, 0.9], n_bins=2)
    >>> b.counts
    array([3, 1])
    >>> b.observed_frequency
    array([0.33333333, 1.        ])
    """
    state = _state(y_true, y_prob, n_bins, strategy, sample_weight, pos_label, labels,
                   n_threads)
    return bins.binned(state)


def calibration_curve(y_true: ArrayLike, y_prob: ArrayLike, *, pos_label: Label | None = None,
                      n_bins: int = 5, strategy: Literal["uniform", "quantile"] = "uniform",
                      n_threads: int | None = None) -> tuple[FloatArray, FloatArray]:
    """True and predicted probabilities for a calibration curve (scikit-learn's).

    Binary only. The bins come from one mergeable pass (streaming and Dask faces give the
    same curve). Unlike scikit-learn, NaN probabilities are refused rather than binned.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_prob : array-like of shape (n_samples,)
        Probabilities of the positive class.
    pos_label : int, float, bool or str, default=None
        The positive label; None means 1 for labels in {0, 1} or {-1, 1}.
    n_bins : int, default=5
        Number of bins (>= 1).
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or edges at the percentiles of ``y_prob`` (bins with
        about the same number of samples).
    n_threads : int or None, default=None
        Threads for the binning pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    prob_true : ndarray of shape (n_nonempty_bins,)
        Fraction of positives in each non-empty bin.
    prob_pred : ndarray of shape (n_nonempty_bins,)
        Mean predicted probability in each non-empty bin.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_prob`` differ in length or are empty; if ``y_prob`` is not
        1-D, holds NaN or values outside [0, 1]; if ``y_true`` has more than two classes,
        or labels other than {0, 1} / {-1, 1} without a ``pos_label``; if ``n_bins`` is
        not an int >= 1 or ``strategy`` is unknown; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.calibration.calibration_curve : The scikit-learn function this one matches.
    calibration_bins : Every bin, with counts and weights.
    expected_calibration_error : One number from the same bins.

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
    state = _state(y_true, y_prob, n_bins, strategy, None, pos_label, None, n_threads,
                   binary=True)
    return bins.curve(state)


def expected_calibration_error(y_true: ArrayLike, y_prob: ArrayLike, *, n_bins: int = 10,
                               strategy: Literal["uniform", "quantile"] = "uniform",
                               sample_weight: ArrayLike | None = None,
                               pos_label: Label | None = None, labels: ArrayLike | None = None,
                               n_threads: int | None = None) -> float:
    """Expected calibration error: ``sum_b (W_b / W) * |observed_b - confidence_b|``.

    Not in scikit-learn. Binary ``y_prob`` (1-D) compares the fraction of positives to the
    mean probability per bin; an (n, K) matrix compares top-label accuracy to top-label
    confidence. One binning pass, mergeable over chunks.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (with 1-D ``y_prob``) or class indices ``0..K-1`` (with an (n, K)
        ``y_prob``; see ``labels``).
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or a probability matrix (top-label).
    n_bins : int, default=10
        Number of bins (>= 1).
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or edges at the percentiles of the (top-label)
        probabilities.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    pos_label : int, float, bool or str, default=None
        Positive class of binary ``y_true``; None means 1 for labels in {0, 1} or {-1, 1}.
    labels : array-like of shape (n_classes,), default=None
        Class values of the columns of a probability matrix, in column order.
    n_threads : int or None, default=None
        Threads for the binary pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. The result is the same for any value.

    Returns
    -------
    ece : float
        The ECE, in [0, 1].

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_prob`` differ in length or are empty; if ``y_prob`` holds NaN
        or values outside [0, 1]; if 1-D ``y_prob`` comes with more than two classes, or
        labels other than {0, 1} / {-1, 1} without a ``pos_label``; if a class index is
        outside ``0..K-1`` or ``labels`` does not list K classes; if ``n_bins`` is not an
        int >= 1 or ``strategy`` is unknown; if ``sample_weight`` has the wrong length,
        holds NaN or infinity, or sums to zero; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UserWarning
        If a row of a probability matrix does not sum to 1.

    See Also
    --------
    sklearn.calibration.calibration_curve : scikit-learn's per-bin frequencies this
        summarises.
    max_calibration_error : The largest per-bin gap instead of the weighted mean.
    calibration_summary : ECE, MCE and Brier score together.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.expected_calibration_error([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2)
    0.3125
    """
    state = _state(y_true, y_prob, n_bins, strategy, sample_weight, pos_label, labels,
                   n_threads)
    return bins.ece(state)


def max_calibration_error(y_true: ArrayLike, y_prob: ArrayLike, *, n_bins: int = 10,
                          strategy: Literal["uniform", "quantile"] = "uniform",
                          sample_weight: ArrayLike | None = None, pos_label: Label | None = None,
                          labels: ArrayLike | None = None, n_threads: int | None = None) -> float:
    """Maximum calibration error: the largest ``|observed_b - confidence_b|`` over non-empty
    bins.

    Not in scikit-learn. Binary or top-label, as :func:`expected_calibration_error`; one
    binning pass, mergeable over chunks.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (with 1-D ``y_prob``) or class indices ``0..K-1`` (with an (n, K)
        ``y_prob``; see ``labels``).
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or a probability matrix (top-label).
    n_bins : int, default=10
        Number of bins (>= 1).
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or edges at the percentiles of the (top-label)
        probabilities.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    pos_label : int, float, bool or str, default=None
        Positive class of binary ``y_true``; None means 1 for labels in {0, 1} or {-1, 1}.
    labels : array-like of shape (n_classes,), default=None
        Class values of the columns of a probability matrix, in column order.
    n_threads : int or None, default=None
        Threads for the binary pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. The result is the same for any value.

    Returns
    -------
    mce : float
        The MCE, in [0, 1].

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_prob`` differ in length or are empty; if ``y_prob`` holds NaN
        or values outside [0, 1]; if 1-D ``y_prob`` comes with more than two classes, or
        labels other than {0, 1} / {-1, 1} without a ``pos_label``; if a class index is
        outside ``0..K-1`` or ``labels`` does not list K classes; if ``n_bins`` is not an
        int >= 1 or ``strategy`` is unknown; if ``sample_weight`` has the wrong length,
        holds NaN or infinity, or sums to zero; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UserWarning
        If a row of a probability matrix does not sum to 1.

    See Also
    --------
    sklearn.calibration.calibration_curve : scikit-learn's per-bin frequencies this
        summarises.
    expected_calibration_error : The weighted mean per-bin gap.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.max_calibration_error([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2)
    0.5
    """
    state = _state(y_true, y_prob, n_bins, strategy, sample_weight, pos_label, labels,
                   n_threads)
    return bins.mce(state)


def brier_score_loss(y_true: ArrayLike, y_proba: ArrayLike, *,
                     sample_weight: ArrayLike | None = None, pos_label: Label | None = None,
                     labels: ArrayLike | None = None,
                     scale_by_half: bool | Literal["auto"] = "auto",
                     n_threads: int | None = None) -> float:
    """Brier score loss (scikit-learn's), binary, multiclass or multilabel.

    The weighted mean over samples of ``sum_k (y_k - p_k)**2`` over the two columns of a
    binary problem, the K classes (one-hot ``y``) of a multiclass one or the K columns of a
    multilabel indicator matrix. The binary state merges over chunks (streaming, Dask); the
    multiclass and multilabel ones are one-shot.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, or a multilabel indicator matrix (of 0 and 1, with a 2-D ``y_proba``).
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or one column per class in sorted label order.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    pos_label : int, float, bool or str, default=None
        Positive label for 1-D ``y_proba``; None: 1 for labels in {0, 1} / {-1, 1}, else the
        greater label (non-string labels).
    labels : array-like of shape (n_classes,), default=None
        Class labels of the columns of a 2-D ``y_proba``, taken in sorted order (a
        ``UserWarning`` when given in another, as scikit-learn); inferred from ``y_true`` if
        None.
    scale_by_half : bool or "auto", default="auto"
        Halve the score (range [0, 1]); "auto" halves for 1-D or two-column ``y_proba``.
    n_threads : int or None, default=None
        Threads for the pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float
        The Brier score loss (best 0.0).

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_proba`` differ in length or are empty; if ``y_proba`` holds
        NaN or values outside [0, 1]; if 1-D ``y_proba`` comes with a multiclass
        ``y_true``, or string labels other than {0, 1} / {-1, 1} without a ``pos_label``;
        if the number of classes differs from the number of columns, or ``y_true`` holds a
        value not in ``labels``; if ``scale_by_half`` is neither a bool nor "auto"; if
        ``sample_weight`` has the wrong length, holds NaN or is all zero; if ``n_threads``
        < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UserWarning
        If a row of ``y_proba`` does not sum to 1, or ``labels`` is not in sorted order.

    See Also
    --------
    sklearn.metrics.brier_score_loss : The scikit-learn function this one matches.
    d2_brier_score : The fraction of the Brier score explained.
    log_loss : The logarithmic loss of the same probabilities.

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
    bins.check_scale_by_half(scale_by_half)
    state = CalibrationState.for_brier(y_true, y_proba, sample_weight, pos_label=pos_label,
                                       labels=labels, n_threads=n_threads)
    return bins.brier(state, scale_by_half)


def d2_brier_score(y_true: ArrayLike, y_proba: ArrayLike, *,
                   sample_weight: ArrayLike | None = None, pos_label: Label | None = None,
                   labels: ArrayLike | None = None, n_threads: int | None = None) -> float:
    """D^2 score for the Brier score (scikit-learn's): the fraction of Brier score explained.

    ``1 - brier(y, p) / brier(y, q)``, where the null model ``q`` predicts every class's
    weighted frequency in ``y_true``; its Brier score is ``sum_k q_k (1 - q_k)``, so the
    state of :func:`brier_score_loss` plus the weight of each class gives both. Binary
    states merge (streaming, Dask); the multiclass and multilabel ones are one-shot, as for
    :func:`brier_score_loss`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, or a multilabel indicator matrix (with a 2-D ``y_proba``).
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or one column per class in sorted label order.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    pos_label : int, float, bool or str, default=None
        Positive label for 1-D ``y_proba``; None: 1 for labels in {0, 1} / {-1, 1}, else the
        greater label (non-string labels).
    labels : array-like of shape (n_classes,), default=None
        Class labels of the columns of a 2-D ``y_proba`` (sorted order); inferred from
        ``y_true`` if None.
    n_threads : int or None, default=None
        Threads for the pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    score : float
        The D^2 score (1 is best; 0 is the null model's; it can be negative). NaN for fewer
        than two samples; for a constant ``y_true`` (zero baseline) -inf, or NaN for a
        perfect score, as scikit-learn.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_proba`` differ in length; if ``y_proba`` holds NaN or values
        outside [0, 1]; if 1-D ``y_proba`` comes with a multiclass ``y_true``, or string
        labels other than {0, 1} / {-1, 1} without a ``pos_label``; if the number of
        classes differs from the number of columns, or ``y_true`` holds a value not in
        ``labels``; if ``sample_weight`` has the wrong length, holds NaN or is all zero; if
        ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        For fewer than two samples (the score is NaN).
    RuntimeWarning
        For a constant ``y_true`` (numpy's division by a zero baseline).
    UserWarning
        If a row of ``y_proba`` does not sum to 1.

    See Also
    --------
    sklearn.metrics.d2_brier_score : The scikit-learn function this one matches.
    brier_score_loss : The loss itself.
    d2_log_loss_score : The same fraction for the log loss.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.d2_brier_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]), 6)
    0.85
    """
    n = _first_dim(y_proba)
    if n < 2:
        lengths = {"y_proba": n, "y_true": _first_dim(y_true),
                   "sample_weight": None if sample_weight is None else _first_dim(sample_weight)}
        if len({v for v in lengths.values() if v is not None}) > 1:
            raise inconsistent_lengths(**lengths)
        return proba.too_few()
    state = CalibrationState.for_brier(y_true, y_proba, sample_weight, pos_label=pos_label,
                                       labels=labels, n_threads=n_threads, class_weights=True)
    return bins.d2_brier(state)


def _first_dim(a: ArrayLike) -> int:
    shape = np.shape(a)
    return int(shape[0]) if shape else 1


# --------------------------------------------------------------------------------------
# report card


def calibration_summary(y_true: ArrayLike, y_prob: ArrayLike, *, n_bins: int = 10,
                        sample_weight: ArrayLike | None = None, pos_label: Label | None = None,
                        labels: ArrayLike | None = None,
                        n_threads: int | None = None) -> CalibrationSummary:
    """ECE, MCE and Brier score (10 equal-width bins by default) from one kernel pass.

    Not in scikit-learn. For a probability matrix all three are top-label: Brier is
    ``mean((conf - correct)**2)`` (the harness' definition), not scikit-learn's multiclass
    Brier. For binary probabilities it equals ``brier_score_loss``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (with 1-D ``y_prob``) or class indices ``0..K-1`` (with an (n, K)
        ``y_prob``; see ``labels``).
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or a probability matrix (top-label).
    n_bins : int, default=10
        Number of equal-width bins (>= 1).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    pos_label : int, float, bool or str, default=None
        Positive class of binary ``y_true``; None means 1 for labels in {0, 1} or {-1, 1}.
    labels : array-like of shape (n_classes,), default=None
        Class values of the columns of a probability matrix, in column order.
    n_threads : int or None, default=None
        Threads for the binary pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. The result is the same for any value.

    Returns
    -------
    summary : CalibrationSummary
        ``ece``, ``mce``, ``brier``, ``n_bins`` and the bins they came from.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_prob`` differ in length or are empty; if ``y_prob`` holds NaN
        or values outside [0, 1]; if 1-D ``y_prob`` comes with more than two classes, or
        labels other than {0, 1} / {-1, 1} without a ``pos_label``; if a class index is
        outside ``0..K-1`` or ``labels`` does not list K classes; if ``n_bins`` is not an
        int >= 1; if ``sample_weight`` has the wrong length, holds NaN or infinity, or sums
        to zero; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UserWarning
        If a row of a probability matrix does not sum to 1.

    See Also
    --------
    sklearn.metrics.brier_score_loss : scikit-learn's Brier score (binary case equal).
    expected_calibration_error : The ECE alone.
    score_probabilities : The report card plus this summary.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> s = fm.calibration_summary([0, 0, 1, 1], [0.5, 0.5, 0.75, 1.0], n_bins=2)
    >>> s.as_row()
    {'ece': 0.3125, 'mce': 0.5, 'brier': 0.140625, 'n_bins': 2}
    """
    state = _state(y_true, y_prob, n_bins, "uniform", sample_weight, pos_label, labels,
                   n_threads)
    return bins.summary(state)


@dataclass(frozen=True)
class ProbabilityReport:
    """A classification report card plus the calibration of the probabilities.

    The record :func:`score_probabilities` returns (frozen).

    Parameters
    ----------
    classification : ClassificationMetrics
        The report card of ``fastmetrics.score`` for the predicted labels.
    calibration : CalibrationSummary
        ECE, MCE and Brier score of the probabilities.

    See Also
    --------
    score_probabilities : The function that returns this record.
    fastmetrics.score : The report card alone.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.score_probabilities([0, 1, 1, 0], [0, 1, 0, 0], [0.2, 0.9, 0.4, 0.1], n_bins=2)
    >>> r.calibration.n_bins
    2
    """

    classification: Any  # a ClassificationMetrics
    calibration: CalibrationSummary

    def as_row(self) -> dict[str, Any]:
        """The report card's row plus the calibration scalars under ``calibration.`` keys.

        Returns
        -------
        row : dict
            The scalar metrics as one flat table row.

        See Also
        --------
        ProbabilityReport.to_flat_dict : The same with per-class and per-bin values.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> r = fm.score_probabilities([0, 1, 1, 0], [0, 1, 0, 0], [0.2, 0.9, 0.4, 0.1], n_bins=2)
        >>> r.as_row()["calibration.n_bins"]
        2
        """
        row = dict(self.classification.as_row())
        row.update({f"calibration.{k}": v for k, v in self.calibration.as_row().items()})
        return row

    def to_flat_dict(self) -> dict[str, Any]:
        """Every value of the report card and of the calibration under dot keys.

        Returns
        -------
        values : dict
            The report card's flat dict plus ``calibration.*`` keys (per-bin values included).

        See Also
        --------
        ProbabilityReport.as_row : The scalar metrics only.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> r = fm.score_probabilities([0, 1, 1, 0], [0, 1, 0, 0], [0.2, 0.9, 0.4, 0.1], n_bins=2)
        >>> r.to_flat_dict()["calibration.bins.0.count"]
        3
        """
        out = dict(self.classification.to_flat_dict())
        out.update({f"calibration.{k}": v for k, v in self.calibration.to_flat_dict().items()})
        return out


def score_probabilities(y_true: ArrayLike, y_pred: ArrayLike, y_prob: ArrayLike, *,
                        n_bins: int = 10, allow_prob_mismatch: bool = False,
                        **score_kwargs: Any) -> ProbabilityReport:
    """``fastmetrics.score(y_true, y_pred, **score_kwargs)`` plus ECE, MCE and Brier score of
    ``y_prob`` (binary probabilities, or an (n, K) matrix for top-label calibration).

    Not in scikit-learn. The calibration uses the same ``sample_weight`` and ``labels`` (for a
    probability matrix) as the report card, with equal-width bins.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (class indices ``0..K-1`` with an (n, K) ``y_prob`` unless ``labels``
        is given).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or a probability matrix.
    n_bins : int, default=10
        Number of equal-width calibration bins (>= 1).
    allow_prob_mismatch : bool, default=False
        The predictions are checked against the probabilities: when the predicted label is
        the most probable column on fewer than half the rows while another order of the
        columns agrees on far more (at least half, twice as many), the columns were taken
        in the wrong order and ``ValueError`` names the likely one (a binary ``y_prob``:
        when the predicted label is 1 exactly where ``y_prob`` is under 0.5, on at least
        half the rows and twice as many as where it is at least 0.5). True: a warning, and
        the report as the columns were given.
    **score_kwargs : dict
        Keyword arguments of ``fastmetrics.score`` (``sample_weight``, ``labels``, ...).

    Returns
    -------
    report : ProbabilityReport
        The report card and the calibration summary.

    Raises
    ------
    ValueError
        For the inputs ``fastmetrics.score`` or :func:`calibration_summary` refuse (lengths
        that differ, probabilities outside [0, 1] or NaN, a bad ``n_bins``, ...), and for
        probability columns that the predictions say are out of order (see
        ``allow_prob_mismatch``).
    TypeError
        If ``score_kwargs`` holds a keyword ``fastmetrics.score`` does not take.

    See Also
    --------
    sklearn.metrics.classification_report : scikit-learn's per-class text report.
    calibration_summary : The calibration part alone.
    fastmetrics.score : The report card alone.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.score_probabilities([0, 1, 1, 0], [0, 1, 0, 0], [0.2, 0.9, 0.4, 0.1], n_bins=2)
    >>> r.classification.accuracy
    0.75
    """
    from .report import score  # lazily: the report card is a separate module

    labels = score_kwargs.get("labels") if np.ndim(y_prob) == 2 else None
    summary = calibration_summary(
        y_true, y_prob, n_bins=n_bins, sample_weight=score_kwargs.get("sample_weight"),
        labels=labels,
    )
    card = score(y_true, y_pred, **score_kwargs)
    table, classes = _order_table(y_pred, y_prob, labels)
    if np.ndim(y_prob) == 1:
        check_column_order(table, classes, allow=allow_prob_mismatch, column="y_prob",
                           fix="y_prob is the probability of the positive label, 1",
                           allow_hint="allow_prob_mismatch=True reports anyway")
    else:
        check_column_order(table, classes, allow=allow_prob_mismatch,
                           fix="pass the columns' classes in their order as labels=",
                           allow_hint="allow_prob_mismatch=True reports anyway")
    return ProbabilityReport(card, summary)


def _order_table(y_pred: ArrayLike, y_prob: ArrayLike, labels: Any) -> tuple[np.ndarray, list[Any]]:
    """The agreement table of the predictions with the probabilities (validated by then):
    a matrix's columns are ``labels`` or the class indices ``0..K-1``; a binary
    probability is that of label 1 (:func:`one_column_table`)."""
    pred = np.asarray(y_pred).reshape(-1)
    prob = np.asarray(y_prob, dtype=np.float64)
    if prob.ndim == 1:
        return one_column_table(pred == 1, prob), [1]
    k = prob.shape[1]
    classes = list(range(k)) if labels is None else np.asarray(labels).tolist()
    where = {c: j for j, c in enumerate(classes)}
    values, inverse = np.unique(pred, return_inverse=True)
    cols = np.array([where.get(v, -1) for v in values.tolist()], dtype=np.int64)
    return agreement_table(cols[inverse.reshape(-1)], prob), classes


# --------------------------------------------------------------------------------------
# log-probabilities and plots


def _candidates(logprobs: Any) -> list[tuple[str, float]]:
    """(token, logprob) pairs from a mapping, pairs, dicts or objects with token/logprob;
    a first entry with ``top_logprobs`` means: the candidates of the first generated token."""
    if isinstance(logprobs, dict):
        return [(str(t), float(lp)) for t, lp in logprobs.items()]
    items = list(logprobs)
    if not items:
        return []

    def get(x: Any, key: str) -> Any:
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


def class_confidence_from_logprobs(logprobs: Any, label_tokens: Any) -> dict[str, float]:
    """Class probabilities from the log-probabilities of candidate tokens.

    Not in scikit-learn. A stable softmax (``exp(lp - max lp)``) over the candidates, the
    probabilities of all token variants of each label summed, then normalised to sum to 1
    over the labels. When no variant of any label is among the candidates, every label gets
    ``1 / n_labels``.

    Parameters
    ----------
    logprobs : mapping, sequence of (token, logprob), or sequence of token entries
        Candidates of the first generated token. Entries may be dicts or objects with
        ``token`` and ``logprob``; if the first entry has ``top_logprobs``, those are used.
    label_tokens : dict[str, list[str]]
        For each label, its token representations (matched exactly).

    Returns
    -------
    probabilities : dict[str, float]
        Probability of each label, in the order of ``label_tokens``.

    Raises
    ------
    ValueError
        If ``label_tokens`` is empty, a log-probability is NaN or not a number.
    TypeError
        If a candidate entry has no ``token`` / ``logprob`` (its log-probability is then
        None).

    See Also
    --------
    sklearn.utils.extmath.softmax : scikit-learn's softmax of a score matrix.
    expected_calibration_error : Calibration of the probabilities this gives.

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


@overload
def reliability_diagram(bins_or_arrays: CalibrationBins | ArrayLike,
                        path: str | os.PathLike[str], output_path: None = ...,
                        n_bins: int = ..., *, strategy: Literal["uniform", "quantile"] = ...,
                        title: str | None = ...) -> pathlib.Path: ...


@overload
def reliability_diagram(bins_or_arrays: ArrayLike, path: ArrayLike,
                        output_path: str | os.PathLike[str], n_bins: int = ..., *,
                        strategy: Literal["uniform", "quantile"] = ...,
                        title: str | None = ...) -> pathlib.Path: ...


def reliability_diagram(bins_or_arrays: Any, path: Any,
                        output_path: str | os.PathLike[str] | None = None, n_bins: int = 10, *,
                        strategy: Literal["uniform", "quantile"] = "uniform",
                        title: str | None = None) -> pathlib.Path:
    """Save a reliability diagram as a PNG: bars = observed frequency (accuracy) per bin,
    dashed diagonal = perfect calibration. Needs matplotlib (``pip install
    fastmetrics-kernels[plot]``).

    Two calls:

    * ``reliability_diagram(bins_or_arrays, path)``: bins from :func:`calibration_bins`, or
      a ``(y_true, y_prob)`` pair to bin (scikit-learn's order);
    * ``reliability_diagram(confs, corrects, output_path, n_bins=10)`` (the harness'): each
      prediction's confidence and whether it was correct (bool or 0/1), binned as
      ``calibration_bins(corrects, confs, pos_label=1)``.

    Parameters
    ----------
    bins_or_arrays : CalibrationBins, tuple (y_true, y_prob), or array-like of confidences
        What to draw: computed bins, a pair to bin, or (harness' call) the confidences.
    path : str or os.PathLike, or array-like of corrects
        Where to write the PNG; with ``output_path``, the corrects.
    output_path : str or os.PathLike, default=None
        Where to write the PNG in the harness' call.
    n_bins : int, default=10
        Number of bins when arrays are given.
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning when arrays are given, as in :func:`calibration_bins`.
    title : str, default=None
        Figure title; None shows the ECE.

    Returns
    -------
    path : pathlib.Path
        The path written.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    TypeError
        If no path is given where one is needed, the corrects of the harness' call are a
        path, or ``bins_or_arrays`` is neither bins nor a pair.
    ValueError
        For inputs :func:`calibration_bins` refuses.

    See Also
    --------
    sklearn.calibration.CalibrationDisplay : scikit-learn's calibration curve plot.
    calibration_bins : The bins drawn.

    Examples
    --------
    >>> import os, tempfile
    >>> import fastmetrics as fm
    >>> out = os.path.join(tempfile.mkdtemp(), "reliability.png")
    >>> fm.reliability_diagram(([0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9]), out).name
    'reliability.png'
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
    if output_path is not None:  # the harness' (confs, corrects, output_path)
        if isinstance(path, (str, os.PathLike)):
            raise TypeError("reliability_diagram(confs, corrects, output_path): corrects "
                            f"must be an array, got the path {path!r}")
        binned = calibration_bins(path, bins_or_arrays, n_bins=n_bins, strategy=strategy,
                                  pos_label=1)
        path = output_path
    elif not isinstance(path, (str, os.PathLike)):
        raise TypeError("reliability_diagram needs the PNG's path: (bins_or_arrays, path) or "
                        f"(confs, corrects, output_path); got a {type(path).__name__} as path")
    elif isinstance(bins_or_arrays, CalibrationBins):
        binned = bins_or_arrays
    elif isinstance(bins_or_arrays, tuple | list) and len(bins_or_arrays) == 2:
        binned = calibration_bins(*bins_or_arrays, n_bins=n_bins, strategy=strategy)
    else:
        raise TypeError("bins_or_arrays must be CalibrationBins or a (y_true, y_prob) pair")
    edges = binned.edges
    fig = Figure(figsize=(5, 5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    freq = np.nan_to_num(binned.observed_frequency, nan=0.0)
    ax.bar(edges[:-1], freq, width=np.diff(edges), align="edge", edgecolor="black",
           color="tab:blue", alpha=0.8, label="observed")
    ax.plot([0, 1], [0, 1], "--", color="gray", label="perfect calibration")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence")
    ax.set_ylabel("accuracy")
    ax.set_title(title if title is not None else f"ECE = {binned.ece:.4f}")
    ax.legend(loc="upper left")
    out = pathlib.Path(os.fspath(path))
    fig.savefig(out, format="png")
    return out
