"""Probabilistic classification scores from one kernel pass: ``log_loss``,
``d2_log_loss_score``, ``top_k_accuracy_score`` and ``hinge_loss`` (scikit-learn's names,
parameters and warnings).

Each function validates its input, reads the probabilities once into a
:class:`~fastmetrics.states.ProbabilityState` (the weighted log loss, the weight of each
class of ``y_true``) and returns a derivation of it; states over the same classes merge by
addition (:class:`fastmetrics.streaming.ProbabilityAccumulator`, :mod:`fastmetrics.dask`).

Conventions
-----------
* ``y_proba`` is an (n, K) matrix whose columns are the sorted classes (of ``labels`` when
  given, else of ``y_true``), or the 1-D probabilities of the greater of two classes. It is
  read in place (float32 / float64, C or Fortran order, strided); other real dtypes are
  converted to float64 once.
* Probabilities are clipped to ``[eps, 1 - eps]``, eps of their dtype, as scikit-learn does.
  scikit-learn then takes the logarithm and sums in that dtype; here the logarithm of the
  clipped value is taken and summed in float64: for float64 input the results agree to
  1e-12 relative, for float32 input to float32's precision (ours is the more accurate).
* ``y_true`` may be a multilabel indicator (n, K) for ``log_loss`` and
  ``d2_log_loss_score``, as scikit-learn accepts it: a sample's loss is then
  ``sum_j y[i, j] * -log(clip(p[i, j]))`` over the K columns (``labels`` cannot be given).
* ``hinge_loss`` reads decision values (:class:`~fastmetrics.states.HingeState`).
* A row that does not sum to one (``|sum - 1| > 1e-8 + sqrt(eps)``) gives scikit-learn's
  ``UserWarning``; values outside [0, 1], NaN, infinity, labels outside ``labels`` and a
  class count that does not match the columns raise scikit-learn's ``ValueError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._inputs import proba_argument
from ._states import hinge, proba
from ._states.hinge import HingeState
from ._states.proba import ProbabilityState

if TYPE_CHECKING:
    from typing import Any, Literal

    from ._typing import ArrayLike

__all__ = ["d2_log_loss_score", "hinge_loss", "log_loss", "top_k_accuracy_score"]


def log_loss(y_true: ArrayLike, y_proba: ArrayLike | None = None, *, normalize: bool = True,
             sample_weight: ArrayLike | None = None, labels: ArrayLike | None = None,
             y_pred: ArrayLike | Literal["deprecated"] = "deprecated",
             n_threads: int | None = None) -> float:
    """Log loss (cross-entropy) of predicted probabilities, as scikit-learn's.

    The weighted mean (or sum) over samples of ``-log p[i, class of y_true[i]]``, the
    probabilities clipped to ``[eps, 1 - eps]`` (eps of their dtype). One pass into a
    mergeable state (streaming and Dask faces give the same value). The logarithms are
    summed in float64 even for float32 input (scikit-learn sums in the input's dtype:
    agreement to float32 precision there, 1e-12 relative for float64).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, or a multilabel indicator matrix.
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities, one column per class in sorted label order; 1-D: the
        probability of the greater of two classes.
    normalize : bool, default=True
        Return the mean loss per sample (weighted); False: the (weighted) sum.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    labels : array-like of shape (n_classes,), default=None
        The classes of the columns of ``y_proba`` (taken sorted, with scikit-learn's
        ``UserWarning`` when given in another order); None: the classes of ``y_true``.
        Needed when ``y_true`` lacks some class.
    y_pred : array-like, default="deprecated"
        scikit-learn 1.9's old name of ``y_proba`` (a ``FutureWarning``).
    n_threads : int or None, default=None
        Threads of the pass over a large input. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float
        The log loss (best 0.0).

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_proba`` differ in length or are empty; if ``y_proba`` holds
        NaN, infinity or values outside [0, 1]; if ``y_true`` has one class and no
        ``labels``, ``labels`` has fewer than two classes or misses a label of ``y_true``,
        or the number of classes differs from the columns; if both ``y_proba`` and
        ``y_pred`` are given; if ``sample_weight`` has the wrong length, holds NaN or is
        all zero; if ``n_threads`` < 1.
    TypeError
        If neither ``y_proba`` nor ``y_pred`` is given, or ``n_threads`` is neither an int
        nor None.

    Warns
    -----
    UserWarning
        If a row of ``y_proba`` does not sum to 1, or ``labels`` is not sorted.
    FutureWarning
        If the deprecated ``y_pred`` is used.

    See Also
    --------
    sklearn.metrics.log_loss : The scikit-learn function this one matches.
    d2_log_loss_score : The fraction of log loss explained.
    fastmetrics.brier_score_loss : The squared-error loss of the same probabilities.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.log_loss(["spam", "ham", "ham", "spam"],
    ...                   [[.1, .9], [.9, .1], [.8, .2], [.35, .65]]), 5)
    0.21616
    """
    y_proba = proba_argument(y_proba, y_pred)
    state = ProbabilityState.from_arrays(y_true, y_proba, sample_weight, labels=labels,
                                         n_threads=n_threads)
    return proba.loss(state, normalize)


def d2_log_loss_score(y_true: ArrayLike, y_proba: ArrayLike | None = None, *,
                      sample_weight: ArrayLike | None = None, labels: ArrayLike | None = None,
                      y_pred: ArrayLike | Literal["deprecated"] = "deprecated",
                      n_threads: int | None = None) -> float:
    """D² score: the fraction of log loss explained, as scikit-learn's.

    ``1 - log_loss(y_true, y_proba) / log_loss(y_true, null)`` where the null model
    predicts every class's (weighted) frequency in ``y_true``; 1 is best, 0 the null model,
    and it may be negative. The class weights are part of the same mergeable state as the
    loss, so the score has streaming and Dask faces.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, or a multilabel indicator matrix.
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities (columns as in :func:`log_loss`).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    labels : array-like of shape (n_classes,), default=None
        The classes of the columns of ``y_proba``; None: the classes of ``y_true``.
    y_pred : array-like, default="deprecated"
        scikit-learn 1.9's old name of ``y_proba`` (a ``FutureWarning``).
    n_threads : int or None, default=None
        Threads of the pass over a large input. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    score : float
        The D² score; NaN for fewer than two samples.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_proba`` differ in length; if ``y_proba`` holds NaN, infinity
        or values outside [0, 1]; if ``y_true`` has one class and no ``labels``, ``labels``
        has fewer than two classes or misses a label of ``y_true``, or the number of classes
        differs from the columns; if both ``y_proba`` and ``y_pred`` are given; if
        ``sample_weight`` has the wrong length, holds NaN or is all zero; if ``n_threads``
        < 1.
    TypeError
        If neither ``y_proba`` nor ``y_pred`` is given, or ``n_threads`` is neither an int
        nor None.

    Warns
    -----
    UndefinedMetricWarning
        For fewer than two samples (the score is NaN).
    UserWarning
        If a row of ``y_proba`` does not sum to 1, or ``labels`` is not sorted.
    FutureWarning
        If the deprecated ``y_pred`` is used.

    See Also
    --------
    sklearn.metrics.d2_log_loss_score : The scikit-learn function this one matches.
    log_loss : The loss itself.
    fastmetrics.d2_brier_score : The same fraction for the Brier score.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.d2_log_loss_score([0, 1, 1, 0], [0.2, 0.7, 0.9, 0.4]), 6)
    0.568633
    """
    y_proba = proba_argument(y_proba, y_pred)
    if _n_rows(y_proba) < 2:
        n_true = _n_rows(y_true)
        if n_true != _n_rows(y_proba):  # scikit-learn checks the lengths first
            ProbabilityState.from_arrays(y_true, y_proba, sample_weight, labels=labels)
        return proba.too_few()
    state = ProbabilityState.from_arrays(y_true, y_proba, sample_weight, labels=labels,
                                         n_threads=n_threads)
    return proba.d2_log_loss(state)


def top_k_accuracy_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int = 2,
                         normalize: bool = True, sample_weight: ArrayLike | None = None,
                         labels: ArrayLike | None = None, n_threads: int | None = None) -> float:
    """Top-k accuracy: the (weighted) fraction of samples whose class is among the ``k``
    best scores, as scikit-learn's.

    Among equal scores the higher column ranks first (scikit-learn's reversed stable sort).
    Binary problems take 1-D scores of the greater class: ``k`` = 1 predicts it above 0.5
    (scores within [0, 1]) or above 0 (other scores), ``k`` >= 2 is always right. One pass
    into a mergeable state (streaming and Dask faces).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores (probabilities or decision values), one column per class in the order of
        ``labels`` (or of the sorted classes of ``y_true``).
    k : int, default=2
        Number of best scores considered (>= 1).
    normalize : bool, default=True
        The fraction of correct samples; False: their number (weight).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    labels : array-like of shape (n_classes,), default=None
        The classes of the columns of ``y_score``, unique and sorted; needed when ``y_true``
        lacks some class.
    n_threads : int or None, default=None
        Threads of the pass over a large input. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    score : float
        The top-k accuracy (fraction, or weight of correct samples with
        ``normalize=False``).

    Raises
    ------
    ValueError
        If ``k`` is not an int >= 1 (scikit-learn's ``InvalidParameterError``, a
        ``ValueError``); if ``y_true`` and ``y_score`` differ in length or are empty, or
        ``y_score`` holds NaN or infinity; if ``y_true`` is not 1-D, the number of classes
        differs from the columns, ``labels`` is not sorted or misses a label of ``y_true``,
        or multiclass ``y_true`` comes with 1-D scores; if ``sample_weight`` has the wrong
        length or holds NaN; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        If ``k`` >= the number of classes (every sample is then right).

    See Also
    --------
    sklearn.metrics.top_k_accuracy_score : The scikit-learn function this one matches.
    fastmetrics.accuracy_score : The top-1 accuracy of predicted labels.

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> y_score = np.array([[0.5, 0.2, 0.2], [0.3, 0.4, 0.2], [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]])
    >>> fm.top_k_accuracy_score([0, 1, 2, 2], y_score, k=2)
    0.75
    """
    k = proba.check_k(k)
    state = ProbabilityState.from_arrays(y_true, y_score, sample_weight, labels=labels, k=k,
                                         n_threads=n_threads)
    return proba.top_k(state, k, normalize)


def hinge_loss(y_true: ArrayLike, pred_decision: ArrayLike, *, labels: ArrayLike | None = None,
               sample_weight: ArrayLike | None = None, n_threads: int | None = None) -> float:
    """Average hinge loss (non-regularized), as scikit-learn's.

    Binary (at most two classes in ``labels``, or in ``y_true``): ``y_true`` is mapped to
    -1 / +1 (the greater class +1) and the loss of a sample is ``max(0, 1 - y * d)``.
    Multiclass (Crammer-Singer): ``max(0, 1 - (d[y] - max_{j != y} d[j]))``. The (weighted)
    mean over samples, from one pass into a mergeable state (streaming and Dask faces).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (binary: two classes; multiclass: more).
    pred_decision : array-like of shape (n_samples,) or (n_samples, n_classes)
        Decision values (``decision_function``): 1-D for a binary problem, one column per
        class in sorted label order for a multiclass one. Read in place (float32 / float64,
        C or Fortran order).
    labels : array-like of shape (n_classes,), default=None
        All the classes of a multiclass problem (the columns of ``pred_decision``); needed
        when ``y_true`` lacks some.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    n_threads : int or None, default=None
        Threads of the pass over a large input. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float
        The mean hinge loss (best 0.0).

    Raises
    ------
    ValueError
        If ``y_true`` and ``pred_decision`` differ in length, are empty, or
        ``pred_decision`` holds NaN or infinity; if ``y_true`` is not 1-D; if multiclass
        ``y_true`` comes with 1-D decisions, or classes are missing from ``y_true`` without
        ``labels``, or ``y_true`` holds a label not in ``labels``; if ``sample_weight`` has
        the wrong length or holds NaN; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.hinge_loss : The scikit-learn function this one matches.
    log_loss : The loss of probabilities rather than decision values.

    Notes
    -----
    As scikit-learn: with ``labels`` of at most two classes the problem is binary and
    ``y_true``'s own classes are mapped (a single class is all -1). Multiclass float32
    decisions are subtracted in float32 as scikit-learn does; every sum is in float64 (more
    accurate than scikit-learn's float32 mean of float32 input without weights).

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.hinge_loss([-1, 1, 1], [-2.18, 2.36, 0.09]), 6)
    0.303333
    >>> round(fm.hinge_loss([0, 2, 1], [[2.0, 0.5, -1.0], [0.1, 0.2, 1.0], [0.0, 0.5, 1.0]]), 6)
    0.566667
    """
    state = HingeState.from_arrays(y_true, pred_decision, sample_weight, labels=labels,
                                   n_threads=n_threads)
    return hinge.hinge(state)


def _n_rows(a: Any) -> int:
    shape = getattr(a, "shape", None)
    if shape is None:
        try:
            return len(a)
        except TypeError:
            return 1
    return int(shape[0]) if len(shape) else 1
