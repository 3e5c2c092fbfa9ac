"""Classification metrics with scikit-learn's signatures, all derived from one counting pass.

Every function here validates its input, builds a state (a
:class:`~fastmetrics.states.ConfusionState` of 1-D labels in one kernel pass, or a
:class:`~fastmetrics.states.MultilabelState` of indicator matrices) and returns a derivation
of it. Names, parameters, defaults, return types and warnings follow ``sklearn.metrics``
(1.9) for 1-D (binary / multiclass) targets and for multilabel indicator matrices ((n, L)
arrays of 0/1, where scikit-learn supports them: accuracy, precision/recall/F, multilabel
confusion matrices, the report, Jaccard, Hamming and zero-one losses). Multiclass-multioutput
2-D targets raise a ``ValueError``, as in scikit-learn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from ._states import confusion, multilabel, onevsrest, prf
from ._states.confusion import ConfusionState
from ._states.multilabel import MultilabelState, is_multilabel_pair
from ._threads import resolve_n_threads
from . import exceptions

if TYPE_CHECKING:  # the name ``__getattr__`` below gives, for type checkers and linters
    from sklearn.exceptions import UndefinedMetricWarning  # noqa: F401

    from ._typing import (ArrayLike, Average, FloatArray, Label, NDArray, Normalize,
                          PRFSArrays, PRFSFloats, ZeroDivision)

__all__ = [
    "UndefinedMetricWarning",
    "accuracy_score",
    "balanced_accuracy_score",
    "class_likelihood_ratios",
    "classification_report",
    "cohen_kappa_score",
    "confusion_matrix",
    "f1_score",
    "false_negative_rate",
    "false_positive_rate",
    "fbeta_score",
    "hamming_loss",
    "jaccard_score",
    "matthews_corrcoef",
    "multilabel_confusion_matrix",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "specificity_score",
    "zero_one_loss",
]


# scikit-learn's warning class, looked up on first use (importing it costs a second)
__getattr__ = exceptions.lazy_warning_classes(__name__)


def label_state(y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None = None,
                n_threads: int | None = None) -> ConfusionState | MultilabelState:
    """The state of two label arrays: a :class:`~fastmetrics.states.MultilabelState` for
    two indicator matrices, else a :class:`~fastmetrics.states.ConfusionState`."""
    if is_multilabel_pair(y_true, y_pred):
        resolve_n_threads(n_threads)  # one kernel thread counts indicator matrices: checked only
        return MultilabelState.from_arrays(y_true, y_pred, sample_weight)
    return ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads)


def _one_dimensional(y_true: ArrayLike, y_pred: ArrayLike) -> None:
    if is_multilabel_pair(y_true, y_pred):
        raise ValueError("multilabel-indicator is not supported")


def confusion_matrix(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                     sample_weight: ArrayLike | None = None, normalize: Normalize | None = None,
                     n_threads: int | None = None) -> NDArray[np.int64] | NDArray[np.float64]:
    """Compute the confusion matrix (scikit-learn compatible).

    ``C[i, j]`` is the number (or weight) of samples with true label ``labels[i]`` predicted
    as ``labels[j]``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Class labels: any integer or bool dtype is read in place; floats holding integers,
        strings and objects are encoded once.
    labels : array-like of shape (n_classes,), default=None
        Labels to index the matrix, in this order; samples with other labels are ignored.
        Default: the sorted labels present in ``y_true`` or ``y_pred``.
    sample_weight : array-like of shape (n_samples,), default=None
    normalize : {'true', 'pred', 'all'}, default=None
        Normalise over the true (rows), predicted (columns) labels or all samples.
    n_threads : int, default=None
        Threads for large inputs (None: OpenMP default, honouring ``OMP_NUM_THREADS``).

    Returns
    -------
    C : ndarray of shape (n_classes, n_classes)
        int64 counts; float64 with float weights or ``normalize``.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.confusion_matrix([2, 0, 2, 2, 0, 1], [0, 0, 2, 2, 0, 2])
    array([[2, 0, 0],
           [0, 0, 1],
           [1, 0, 2]])
    """
    _one_dimensional(y_true, y_pred)
    state = ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads)
    return confusion.matrix(state, labels, normalize)


def multilabel_confusion_matrix(y_true: ArrayLike, y_pred: ArrayLike, *,
                                sample_weight: ArrayLike | None = None,
                                labels: ArrayLike | None = None, samplewise: bool = False,
                                n_threads: int | None = None
                                ) -> NDArray[np.int64] | NDArray[np.float64]:
    """One-vs-rest 2 x 2 confusion matrices, one per label (or per sample, ``samplewise``).

    ``MCM[i]`` is ``[[tn, fp], [fn, tp]]`` for ``labels[i]``. Multiclass targets: derived
    from the K x K table. Multilabel indicator matrices: from per-column counts.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.multilabel_confusion_matrix(["cat", "ant", "cat"], ["ant", "ant", "cat"],
    ...                                 labels=["ant", "cat"])
    array([[[1, 1],
            [0, 1]],
    <BLANKLINE>
           [[1, 0],
            [1, 1]]])
    """
    state = label_state(y_true, y_pred, sample_weight, n_threads)
    if isinstance(state, MultilabelState):
        return multilabel.mcm(state, labels, samplewise)
    return confusion.mcm(state, labels, samplewise)


def accuracy_score(y_true: ArrayLike, y_pred: ArrayLike, *, normalize: bool = True,
                   sample_weight: ArrayLike | None = None,
                   n_threads: int | None = None) -> float:
    """Fraction (or number, ``normalize=False``) of correctly classified samples.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.accuracy_score([0, 1, 2, 3], [0, 2, 1, 3])
    0.5
    """
    state = label_state(y_true, y_pred, sample_weight, n_threads)
    if isinstance(state, MultilabelState):  # subset accuracy: rows predicted exactly
        return multilabel.accuracy(state, normalize)
    return confusion.accuracy(state, normalize)


@overload
def precision_recall_fscore_support(y_true: ArrayLike, y_pred: ArrayLike, *, beta: float = ...,
                                    labels: ArrayLike | None = ..., pos_label: Label = ...,
                                    average: None = ..., warn_for: Sequence[str] = ...,
                                    sample_weight: ArrayLike | None = ...,
                                    zero_division: ZeroDivision = ...,
                                    n_threads: int | None = ...) -> PRFSArrays: ...


@overload
def precision_recall_fscore_support(y_true: ArrayLike, y_pred: ArrayLike, *, beta: float = ...,
                                    labels: ArrayLike | None = ..., pos_label: Label = ...,
                                    average: Average, warn_for: Sequence[str] = ...,
                                    sample_weight: ArrayLike | None = ...,
                                    zero_division: ZeroDivision = ...,
                                    n_threads: int | None = ...) -> PRFSFloats: ...


def precision_recall_fscore_support(y_true: ArrayLike, y_pred: ArrayLike, *, beta: float = 1.0,
                                    labels: ArrayLike | None = None, pos_label: Label = 1,
                                    average: Average | None = None,
                                    warn_for: Sequence[str] = ("precision", "recall", "f-score"),
                                    sample_weight: ArrayLike | None = None,
                                    zero_division: ZeroDivision = "warn",
                                    n_threads: int | None = None) -> PRFSArrays | PRFSFloats:
    """Precision, recall, F-beta and support per label, or averaged (scikit-learn compatible).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    beta : float, default=1.0
    labels : array-like, default=None
        Labels to include (and their order when ``average=None``).
    pos_label : int, float, bool or str, default=1
        The positive class when ``average='binary'``.
    average : {'binary', 'micro', 'macro', 'weighted'} or None, default=None
    warn_for : tuple of str
        Which ill-defined metrics warn (with ``zero_division='warn'``).
    sample_weight : array-like of shape (n_samples,), default=None
    zero_division : {'warn', 0.0, 1.0, np.nan}, default='warn'
    n_threads : int, default=None

    Returns
    -------
    precision, recall, fbeta_score : float or ndarray
    support : ndarray or None
        None when averaged.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> p, r, f, s = skm.precision_recall_fscore_support([0, 1, 2, 0, 1, 2],
    ...                                                  [0, 2, 1, 0, 0, 1])
    >>> p.round(3), s
    (array([0.667, 0.   , 0.   ]), array([2, 2, 2]))
    """
    return prf.prfs(label_state(y_true, y_pred, sample_weight, n_threads), beta=beta,
                    labels=labels, pos_label=pos_label, average=average, warn_for=warn_for,
                    zero_division=zero_division)


@overload
def fbeta_score(y_true: ArrayLike, y_pred: ArrayLike, *, beta: float,
                labels: ArrayLike | None = ..., pos_label: Label = ..., average: Average = ...,
                sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
                n_threads: int | None = ...) -> float: ...


@overload
def fbeta_score(y_true: ArrayLike, y_pred: ArrayLike, *, beta: float,
                labels: ArrayLike | None = ..., pos_label: Label = ..., average: None,
                sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
                n_threads: int | None = ...) -> FloatArray: ...


def fbeta_score(y_true: ArrayLike, y_pred: ArrayLike, *, beta: float,
                labels: ArrayLike | None = None, pos_label: Label = 1,
                average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                zero_division: ZeroDivision = "warn",
                n_threads: int | None = None) -> float | FloatArray:
    """F-beta score (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> round(skm.fbeta_score([0, 1, 1, 0], [0, 1, 0, 0], beta=0.5), 6)
    0.833333
    """
    return prf.fbeta(label_state(y_true, y_pred, sample_weight, n_threads), beta=beta,
                     labels=labels, pos_label=pos_label, average=average,
                     zero_division=zero_division)


@overload
def f1_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
             pos_label: Label = ..., average: Average = ...,
             sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
             n_threads: int | None = ...) -> float: ...


@overload
def f1_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
             pos_label: Label = ..., average: None, sample_weight: ArrayLike | None = ...,
             zero_division: ZeroDivision = ..., n_threads: int | None = ...) -> FloatArray: ...


def f1_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
             pos_label: Label = 1, average: Average | None = "binary",
             sample_weight: ArrayLike | None = None, zero_division: ZeroDivision = "warn",
             n_threads: int | None = None) -> float | FloatArray:
    """F1 score, the harmonic mean of precision and recall (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.f1_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro")
    0.26666666666666666
    """
    return prf.f1(label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                  pos_label=pos_label, average=average, zero_division=zero_division)


@overload
def precision_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                    pos_label: Label = ..., average: Average = ...,
                    sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
                    n_threads: int | None = ...) -> float: ...


@overload
def precision_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                    pos_label: Label = ..., average: None,
                    sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
                    n_threads: int | None = ...) -> FloatArray: ...


def precision_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                    pos_label: Label = 1, average: Average | None = "binary",
                    sample_weight: ArrayLike | None = None,
                    zero_division: ZeroDivision = "warn",
                    n_threads: int | None = None) -> float | FloatArray:
    """Precision ``tp / (tp + fp)`` (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.precision_score([0, 1, 1, 0], [0, 1, 1, 1])
    0.6666666666666666
    """
    return prf.precision(label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                         pos_label=pos_label, average=average, zero_division=zero_division)


@overload
def recall_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                 pos_label: Label = ..., average: Average = ...,
                 sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
                 n_threads: int | None = ...) -> float: ...


@overload
def recall_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                 pos_label: Label = ..., average: None, sample_weight: ArrayLike | None = ...,
                 zero_division: ZeroDivision = ...,
                 n_threads: int | None = ...) -> FloatArray: ...


def recall_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                 pos_label: Label = 1, average: Average | None = "binary",
                 sample_weight: ArrayLike | None = None, zero_division: ZeroDivision = "warn",
                 n_threads: int | None = None) -> float | FloatArray:
    """Recall ``tp / (tp + fn)`` (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.recall_score([0, 1, 1, 0], [0, 1, 0, 0])
    0.5
    """
    return prf.recall(label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                      pos_label=pos_label, average=average, zero_division=zero_division)


def matthews_corrcoef(y_true: ArrayLike, y_pred: ArrayLike, *,
                      sample_weight: ArrayLike | None = None,
                      n_threads: int | None = None) -> float:
    """Matthews correlation coefficient (multiclass, scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> round(skm.matthews_corrcoef([+1, +1, +1, -1], [+1, -1, +1, +1]), 6)
    -0.333333
    """
    _one_dimensional(y_true, y_pred)
    return confusion.mcc(ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads))


def balanced_accuracy_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sample_weight: ArrayLike | None = None, adjusted: bool = False,
                            n_threads: int | None = None) -> float:
    """Balanced accuracy: the mean of per-class recall (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.balanced_accuracy_score([0, 1, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1])
    0.625
    """
    _one_dimensional(y_true, y_pred)
    state = ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads)
    return confusion.balanced_accuracy(state, adjusted)


def cohen_kappa_score(y1: ArrayLike, y2: ArrayLike, *, labels: ArrayLike | None = None,
                      weights: Literal["linear", "quadratic"] | None = None,
                      sample_weight: ArrayLike | None = None,
                      replace_undefined_by: float = np.nan,
                      n_threads: int | None = None) -> float:
    """Cohen's kappa: agreement between two annotators (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.cohen_kappa_score(["neg", "pos", "neg", "neu", "pos"],
    ...                       ["neg", "pos", "neg", "neu", "neg"])
    0.6875
    """
    _one_dimensional(y1, y2)
    state = ConfusionState.from_arrays(y1, y2, sample_weight, n_threads)
    return confusion.kappa(state, labels, weights, replace_undefined_by)


@overload
def classification_report(y_true: ArrayLike, y_pred: ArrayLike, *,
                          labels: ArrayLike | None = ...,
                          target_names: Sequence[str] | None = ...,
                          sample_weight: ArrayLike | None = ..., digits: int = ...,
                          output_dict: Literal[False] = ..., zero_division: ZeroDivision = ...,
                          n_threads: int | None = ...) -> str: ...


@overload
def classification_report(y_true: ArrayLike, y_pred: ArrayLike, *,
                          labels: ArrayLike | None = ...,
                          target_names: Sequence[str] | None = ...,
                          sample_weight: ArrayLike | None = ..., digits: int = ...,
                          output_dict: Literal[True], zero_division: ZeroDivision = ...,
                          n_threads: int | None = ...) -> dict[str, Any]: ...


def classification_report(y_true: ArrayLike, y_pred: ArrayLike, *,
                          labels: ArrayLike | None = None,
                          target_names: Sequence[str] | None = None,
                          sample_weight: ArrayLike | None = None, digits: int = 2,
                          output_dict: bool = False, zero_division: ZeroDivision = "warn",
                          n_threads: int | None = None) -> str | dict[str, Any]:
    """Text (or dict) report of per-class precision, recall, F1 and support.

    One counting pass: every row and average is derived from the same confusion state.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> print(skm.classification_report([0, 1, 2, 2, 2], [0, 0, 2, 2, 1]))
                  precision    recall  f1-score   support
    <BLANKLINE>
               0       0.50      1.00      0.67         1
               1       0.00      0.00      0.00         1
               2       1.00      0.67      0.80         3
    <BLANKLINE>
        accuracy                           0.60         5
       macro avg       0.50      0.56      0.49         5
    weighted avg       0.70      0.60      0.61         5
    <BLANKLINE>
    """
    return prf.report(label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                      target_names=target_names, digits=digits, output_dict=output_dict,
                      zero_division=zero_division)


def zero_one_loss(y_true: ArrayLike, y_pred: ArrayLike, *, normalize: bool = True,
                  sample_weight: ArrayLike | None = None,
                  n_threads: int | None = None) -> float:
    """Zero-one classification loss: the fraction (or number, ``normalize=False``) of
    misclassified samples; for indicator matrices, of rows not predicted exactly.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.zero_one_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    """
    state = label_state(y_true, y_pred, sample_weight, n_threads)
    if isinstance(state, MultilabelState):
        return multilabel.zero_one(state, normalize)
    return confusion.zero_one(state, normalize)


def hamming_loss(y_true: ArrayLike, y_pred: ArrayLike, *,
                 sample_weight: ArrayLike | None = None,
                 n_threads: int | None = None) -> float:
    """Hamming loss: the fraction of wrong labels (scikit-learn compatible).

    1-D targets: the (weighted) fraction of wrong predictions. Indicator matrices: the
    fraction of wrong cells.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.hamming_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    >>> skm.hamming_loss(np.array([[0, 1], [1, 1]]), np.zeros((2, 2)))
    0.75
    """
    state = label_state(y_true, y_pred, sample_weight, n_threads)
    if isinstance(state, MultilabelState):
        return multilabel.hamming(state)
    return confusion.hamming(state)


@overload
def jaccard_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                  pos_label: Label = ..., average: Average = ...,
                  sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
                  n_threads: int | None = ...) -> float: ...


@overload
def jaccard_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                  pos_label: Label = ..., average: None, sample_weight: ArrayLike | None = ...,
                  zero_division: ZeroDivision = ...,
                  n_threads: int | None = ...) -> FloatArray: ...


def jaccard_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                  pos_label: Label = 1, average: Average | None = "binary",
                  sample_weight: ArrayLike | None = None, zero_division: ZeroDivision = "warn",
                  n_threads: int | None = None) -> float | FloatArray:
    """Jaccard similarity coefficient ``tp / (tp + fp + fn)`` (scikit-learn compatible).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Labels, or indicator matrices.
    labels : array-like, default=None
    pos_label : int, float, bool or str, default=1
    average : {'binary', 'micro', 'macro', 'samples', 'weighted'} or None, default='binary'
        ``'samples'`` only for indicator matrices.
    sample_weight : array-like of shape (n_samples,), default=None
    zero_division : {'warn', 0.0, 1.0}, default='warn'
    n_threads : int, default=None

    Returns
    -------
    score : float or ndarray of shape (n_labels,)

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.jaccard_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="micro")
    0.2
    """
    return onevsrest.jaccard(label_state(y_true, y_pred, sample_weight, n_threads),
                             labels=labels, pos_label=pos_label, average=average,
                             zero_division=zero_division)


def class_likelihood_ratios(y_true: ArrayLike, y_pred: ArrayLike, *,
                            labels: ArrayLike | None = None,
                            sample_weight: ArrayLike | None = None,
                            replace_undefined_by: float | dict[str, float] = np.nan,
                            n_threads: int | None = None) -> tuple[float, float]:
    """Positive and negative likelihood ratios of a binary problem (scikit-learn
    compatible): ``LR+ = recall / fpr`` and ``LR- = fnr / specificity``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    labels : array-like of shape (2,), default=None
        ``[negative, positive]``; default: the sorted labels present.
    sample_weight : array-like of shape (n_samples,), default=None
    replace_undefined_by : np.nan, 1.0 or dict, default=np.nan
        What an undefined ratio is reported as: ``1.0`` for both (the worst scores), or
        ``{"LR+": value_1, "LR-": value_2}``.
    n_threads : int, default=None

    Returns
    -------
    (positive_likelihood_ratio, negative_likelihood_ratio) : tuple of two floats

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.class_likelihood_ratios([0, 1, 0, 1, 0], [1, 1, 0, 0, 0])
    (1.5, 0.75)
    """
    if is_multilabel_pair(y_true, y_pred):
        raise ValueError(
            "class_likelihood_ratios only supports binary classification problems, got "
            "targets of type: multilabel-indicator"
        )
    state = ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads)
    return confusion.likelihood_ratios(state, labels, replace_undefined_by)


@overload
def specificity_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                      pos_label: Label = ..., average: Average = ...,
                      sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
                      n_threads: int | None = ...) -> float: ...


@overload
def specificity_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                      pos_label: Label = ..., average: None,
                      sample_weight: ArrayLike | None = ..., zero_division: ZeroDivision = ...,
                      n_threads: int | None = ...) -> FloatArray: ...


def specificity_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                      pos_label: Label = 1, average: Average | None = "binary",
                      sample_weight: ArrayLike | None = None,
                      zero_division: ZeroDivision = "warn",
                      n_threads: int | None = None) -> float | FloatArray:
    """Specificity (true negative rate, selectivity) ``tn / (tn + fp)``.

    scikit-learn has no such function; this one takes ``recall_score``'s parameters, with
    its rules: ``average="binary"`` scores ``pos_label``; the others score each label one
    vs rest (``'weighted'`` weights each by its support, as imbalanced-learn's
    ``specificity_score``); ``zero_division`` replaces ``0 / 0`` (no negative sample).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.specificity_score([0, 1, 1, 0, 0], [0, 1, 0, 1, 0])
    0.6666666666666666
    """
    return onevsrest.specificity(label_state(y_true, y_pred, sample_weight, n_threads),
                                 labels=labels, pos_label=pos_label, average=average,
                                 zero_division=zero_division)


@overload
def false_positive_rate(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                        pos_label: Label = ..., average: Average = ...,
                        sample_weight: ArrayLike | None = ...,
                        zero_division: ZeroDivision = ...,
                        n_threads: int | None = ...) -> float: ...


@overload
def false_positive_rate(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                        pos_label: Label = ..., average: None,
                        sample_weight: ArrayLike | None = ...,
                        zero_division: ZeroDivision = ...,
                        n_threads: int | None = ...) -> FloatArray: ...


def false_positive_rate(y_true: ArrayLike, y_pred: ArrayLike, *,
                        labels: ArrayLike | None = None, pos_label: Label = 1,
                        average: Average | None = "binary",
                        sample_weight: ArrayLike | None = None,
                        zero_division: ZeroDivision = "warn",
                        n_threads: int | None = None) -> float | FloatArray:
    """False positive rate (fall-out) ``fp / (fp + tn)``, one minus specificity.

    ``recall_score``'s parameters and rules (see :func:`specificity_score`).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.false_positive_rate([0, 1, 1, 0, 0], [0, 1, 0, 1, 0])
    0.3333333333333333
    """
    return onevsrest.fpr(
        label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
        pos_label=pos_label, average=average, zero_division=zero_division)


@overload
def false_negative_rate(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                        pos_label: Label = ..., average: Average = ...,
                        sample_weight: ArrayLike | None = ...,
                        zero_division: ZeroDivision = ...,
                        n_threads: int | None = ...) -> float: ...


@overload
def false_negative_rate(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = ...,
                        pos_label: Label = ..., average: None,
                        sample_weight: ArrayLike | None = ...,
                        zero_division: ZeroDivision = ...,
                        n_threads: int | None = ...) -> FloatArray: ...


def false_negative_rate(y_true: ArrayLike, y_pred: ArrayLike, *,
                        labels: ArrayLike | None = None, pos_label: Label = 1,
                        average: Average | None = "binary",
                        sample_weight: ArrayLike | None = None,
                        zero_division: ZeroDivision = "warn",
                        n_threads: int | None = None) -> float | FloatArray:
    """False negative rate (miss rate) ``fn / (fn + tp)``, one minus recall.

    ``recall_score``'s parameters and rules (see :func:`specificity_score`).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.false_negative_rate([0, 1, 1, 0, 0], [0, 1, 0, 1, 0])
    0.5
    """
    return onevsrest.fnr(
        label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
        pos_label=pos_label, average=average, zero_division=zero_division)
