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

from ._states import confusion, onevsrest, prf
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
    as ``labels[j]``. One counting pass, no copy of integer labels.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels. Integer and bool arrays are read in place; floats holding integers,
        strings, objects and categorical columns are encoded once.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, as ``y_true``.
    labels : array-like of shape (n_classes,), default=None
        The labels indexing the rows and columns, in this order; samples whose true or
        predicted label is not among them are left out. None: the sorted labels present in
        ``y_true`` or ``y_pred``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    normalize : {"true", "pred", "all"} or None, default=None
        Divide by the row sums (``"true"``), the column sums (``"pred"``) or the total
        (``"all"``). None keeps counts.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    C : ndarray of shape (n_classes, n_classes)
        ``C[i, j]`` counts the samples of true label ``labels[i]`` predicted as ``labels[j]``:
        int64 counts, float64 with float weights or ``normalize``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multilabel indicator matrices or multiclass-multioutput, or
        ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.
    ValueError
        If ``labels`` is empty, holds none of the labels of ``y_true``, or ``normalize`` is not
        one of its values.

    Warns
    -----
    UserWarning
        When ``y_true`` and ``y_pred`` hold a single label between them (scikit-learn's warning:
        pass ``labels`` to fix the shape).

    See Also
    --------
    sklearn.metrics.confusion_matrix : scikit-learn's function, same arguments and values.
    multilabel_confusion_matrix : One-vs-rest 2 x 2 matrices per label.
    fastmetrics.streaming.ConfusionAccumulator : The same matrix over chunks.

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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    labels : array-like, default=None
        The labels (or, for indicator matrices, column indices) to report, in this order.
        None: the sorted labels present, or every column.
    samplewise : bool, default=False
        Indicator matrices only: one 2 x 2 matrix per sample instead of per label.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    multi_confusion : ndarray of shape (n_outputs, 2, 2)
        ``[[tn, fp], [fn, tp]]`` of each label (or sample); int64 counts, float64 with float
        weights.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, or ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.
    ValueError
        If ``samplewise=True`` with 1-D targets.

    See Also
    --------
    sklearn.metrics.multilabel_confusion_matrix : scikit-learn's function, same arguments
        and values.
    confusion_matrix : The K x K matrix of 1-D targets.

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
    return confusion.mcm(state, labels, samplewise)


def accuracy_score(y_true: ArrayLike, y_pred: ArrayLike, *, normalize: bool = True,
                   sample_weight: ArrayLike | None = None,
                   n_threads: int | None = None) -> float:
    """Fraction (or number, ``normalize=False``) of correctly classified samples.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    normalize : bool, default=True
        True: the fraction of correct samples. False: their number (weighted sum with
        ``sample_weight``).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float
        The fraction (or, with ``normalize=False``, the number or total weight) of samples
        predicted correctly; for indicator matrices, of rows predicted exactly.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, or ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.

    See Also
    --------
    sklearn.metrics.accuracy_score : scikit-learn's function, same arguments and values.
    balanced_accuracy_score : Accuracy that weighs classes equally.
    zero_one_loss : One minus accuracy.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.accuracy_score([0, 1, 2, 3], [0, 2, 1, 3])
    0.5
    """
    state = label_state(y_true, y_pred, sample_weight, n_threads)
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
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    beta : float, default=1.0
        Weight of recall against precision in the F-score.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default=None
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    warn_for : tuple or set of str, default=("precision", "recall", "f-score")
        The ill-defined metrics that warn when ``zero_division="warn"``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    precision : float or ndarray of shape (n_labels,)
        Precision, averaged to a float unless ``average=None``.
    recall : float or ndarray of shape (n_labels,)
        Recall, as ``precision``.
    fbeta_score : float or ndarray of shape (n_labels,)
        F-beta score, as ``precision``.
    support : ndarray of shape (n_labels,) or None
        The number (or weight) of true samples of each label; None when averaged.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.
    ValueError
        If ``beta`` is negative.

    Warns
    -----
    UndefinedMetricWarning
        When a score is ``0 / 0`` and ``zero_division="warn"`` (scikit-learn's warning class when
        it is installed).

    See Also
    --------
    sklearn.metrics.precision_recall_fscore_support : scikit-learn's function, same
        arguments and values.
    f1_score : The F1 score alone.
    classification_report : The same numbers as a table.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> p, r, f, s = skm.precision_recall_fscore_support([0, 1, 2, 0, 1, 2],
    ...                                                  [0, 2, 1, 0, 0, 1])
    >>> p.round(3), s
    (array([0.667, 0.   , 0.   ]), array([2, 2, 2]))
    """
    result: PRFSArrays | PRFSFloats
    result = prf.prfs(label_state(y_true, y_pred, sample_weight, n_threads), beta=beta,
                      labels=labels, pos_label=pos_label, average=average, warn_for=warn_for,
                      zero_division=zero_division)
    return result


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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    beta : float
        Weight of recall against precision: ``beta < 1`` favours precision, ``beta > 1``
        recall.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        The F-beta score; one value per label when ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.
    ValueError
        If ``beta`` is negative.

    Warns
    -----
    UndefinedMetricWarning
        When a score is ``0 / 0`` and ``zero_division="warn"`` (scikit-learn's warning class when
        it is installed).

    See Also
    --------
    sklearn.metrics.fbeta_score : scikit-learn's function, same arguments and values.
    f1_score : The case ``beta=1``.
    precision_recall_fscore_support : Precision, recall, F-beta and support together.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> round(skm.fbeta_score([0, 1, 1, 0], [0, 1, 0, 0], beta=0.5), 6)
    0.833333
    """
    result: float | FloatArray
    result = prf.fbeta(label_state(y_true, y_pred, sample_weight, n_threads), beta=beta,
                       labels=labels, pos_label=pos_label, average=average,
                       zero_division=zero_division)
    return result


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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        The F1 score; one value per label when ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UndefinedMetricWarning
        When a score is ``0 / 0`` and ``zero_division="warn"`` (scikit-learn's warning class when
        it is installed).

    See Also
    --------
    sklearn.metrics.f1_score : scikit-learn's function, same arguments and values.
    fbeta_score : F-score with a weight on recall.
    precision_recall_fscore_support : Precision, recall, F1 and support together.
    fastmetrics.streaming.ConfusionAccumulator : The same score over chunks.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.f1_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro")
    0.26666666666666666
    """
    result: float | FloatArray
    result = prf.f1(label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                    pos_label=pos_label, average=average, zero_division=zero_division)
    return result


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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        The precision; one value per label when ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UndefinedMetricWarning
        When a score is ``0 / 0`` and ``zero_division="warn"`` (scikit-learn's warning class when
        it is installed).

    See Also
    --------
    sklearn.metrics.precision_score : scikit-learn's function, same arguments and values.
    recall_score : ``tp / (tp + fn)``.
    precision_recall_fscore_support : Precision, recall, F1 and support together.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.precision_score([0, 1, 1, 0], [0, 1, 1, 1])
    0.6666666666666666
    """
    result: float | FloatArray
    result = prf.precision(label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                           pos_label=pos_label, average=average, zero_division=zero_division)
    return result


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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        The recall; one value per label when ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UndefinedMetricWarning
        When a score is ``0 / 0`` and ``zero_division="warn"`` (scikit-learn's warning class when
        it is installed).

    See Also
    --------
    sklearn.metrics.recall_score : scikit-learn's function, same arguments and values.
    precision_score : ``tp / (tp + fp)``.
    specificity_score : The recall of the negative class.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.recall_score([0, 1, 1, 0], [0, 1, 0, 0])
    0.5
    """
    result: float | FloatArray
    result = prf.recall(label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                        pos_label=pos_label, average=average, zero_division=zero_division)
    return result


def matthews_corrcoef(y_true: ArrayLike, y_pred: ArrayLike, *,
                      sample_weight: ArrayLike | None = None,
                      n_threads: int | None = None) -> float:
    """Matthews correlation coefficient (multiclass, scikit-learn compatible).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels. Integer and bool arrays are read in place; floats holding integers,
        strings, objects and categorical columns are encoded once.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, as ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    mcc : float
        Between -1 and +1: +1 a perfect prediction, 0 no better than chance, -1 total
        disagreement. 0.0 where it is undefined.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multilabel indicator matrices or multiclass-multioutput, or
        ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UserWarning
        When ``y_true`` and ``y_pred`` hold a single label between them (scikit-learn's warning:
        pass ``labels`` to fix the shape).

    See Also
    --------
    sklearn.metrics.matthews_corrcoef : scikit-learn's function, same arguments and values.
    cohen_kappa_score : Agreement corrected for chance.

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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels. Integer and bool arrays are read in place; floats holding integers,
        strings, objects and categorical columns are encoded once.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, as ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    adjusted : bool, default=False
        Rescale so that chance scores 0 and a perfect prediction 1.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    balanced_accuracy : float
        The mean recall of the classes present in ``y_true``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multilabel indicator matrices or multiclass-multioutput, or
        ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UserWarning
        When ``y_pred`` holds classes that ``y_true`` does not (scikit-learn's warning).

    See Also
    --------
    sklearn.metrics.balanced_accuracy_score : scikit-learn's function, same arguments and
        values.
    accuracy_score : The fraction of correct samples.
    recall_score : Per-class recall.

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

    Parameters
    ----------
    y1 : array-like of shape (n_samples,)
        Labels given by the first annotator.
    y2 : array-like of shape (n_samples,)
        Labels given by the second annotator, as ``y1``.
    labels : array-like of shape (n_classes,), default=None
        The labels to use; samples with other labels are left out. None: the labels present.
    weights : {"linear", "quadratic"} or None, default=None
        Weight disagreements by their distance in label order (None: every disagreement
        counts 1).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    replace_undefined_by : np.nan or float in [-1.0, 1.0], default=np.nan
        The value returned when kappa is undefined (a single label in common).
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    kappa : float
        Agreement corrected for chance: 1 complete agreement, 0 chance level, below 0 worse
        than chance.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multilabel indicator matrices or multiclass-multioutput, or
        ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.
    ValueError
        If ``weights`` is not one of its values.

    Warns
    -----
    UndefinedMetricWarning
        When kappa is undefined and replaced by ``replace_undefined_by``.

    See Also
    --------
    sklearn.metrics.cohen_kappa_score : scikit-learn's function, same arguments and values.
    matthews_corrcoef : Another chance-corrected agreement score.

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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    labels : array-like of shape (n_labels,), default=None
        The labels of the report's rows, in this order. None: the sorted labels present.
    target_names : list of str of shape (n_labels,), default=None
        Display names of the rows.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    digits : int, default=2
        Decimal places of the text report (the dict keeps full precision).
    output_dict : bool, default=False
        Return a dict instead of text.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    report : str or dict
        The text table, or ``{label: {"precision": ..., "recall": ..., "f1-score": ...,
        "support": ...}, "accuracy": ..., "macro avg": {...}, "weighted avg": {...}}``
        (``"micro avg"`` instead of ``"accuracy"`` when a subset of labels is reported).

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, or ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.
    ValueError
        If ``target_names`` does not have one name per label and ``labels`` is not given.

    Warns
    -----
    UndefinedMetricWarning
        When a score is ``0 / 0`` and ``zero_division="warn"`` (scikit-learn's warning class when
        it is installed).
    UserWarning
        If ``target_names`` does not have one name per label of the given ``labels``.

    See Also
    --------
    sklearn.metrics.classification_report : scikit-learn's function, same arguments and
        output.
    precision_recall_fscore_support : The same numbers as arrays.
    score : The harness' report card.

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
    result: str | dict[str, Any]
    result = prf.report(label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                        target_names=target_names, digits=digits, output_dict=output_dict,
                        zero_division=zero_division)
    return result


def zero_one_loss(y_true: ArrayLike, y_pred: ArrayLike, *, normalize: bool = True,
                  sample_weight: ArrayLike | None = None,
                  n_threads: int | None = None) -> float:
    """Zero-one classification loss: the fraction (or number, ``normalize=False``) of
    misclassified samples; for indicator matrices, of rows not predicted exactly.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    normalize : bool, default=True
        True: the fraction of misclassified samples. False: their number (weighted sum with
        ``sample_weight``).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    loss : float
        The fraction (or number) of misclassified samples; for indicator matrices, of rows not
        predicted exactly.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, or ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.

    See Also
    --------
    sklearn.metrics.zero_one_loss : scikit-learn's function, same arguments and values.
    accuracy_score : One minus this loss.
    hamming_loss : The fraction of wrong labels.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.zero_one_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    """
    state = label_state(y_true, y_pred, sample_weight, n_threads)
    return confusion.zero_one(state, normalize)


def hamming_loss(y_true: ArrayLike, y_pred: ArrayLike, *,
                 sample_weight: ArrayLike | None = None,
                 n_threads: int | None = None) -> float:
    """Hamming loss: the fraction of wrong labels (scikit-learn compatible).

    1-D targets: the (weighted) fraction of wrong predictions. Indicator matrices: the
    fraction of wrong cells.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    loss : float
        The (weighted) fraction of wrong predictions; for indicator matrices, of wrong cells.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, or ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.

    See Also
    --------
    sklearn.metrics.hamming_loss : scikit-learn's function, same arguments and values.
    zero_one_loss : The fraction of samples with any wrong label.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.hamming_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    >>> skm.hamming_loss(np.array([[0, 1], [1, 1]]), np.zeros((2, 2)))
    0.75
    """
    state = label_state(y_true, y_pred, sample_weight, n_threads)
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
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0}, default="warn"
        The value returned for a ``0 / 0`` ratio (no true or predicted sample of a label).
        ``"warn"`` returns 0.0 and emits an ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        The Jaccard similarity coefficient; one value per label when ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UndefinedMetricWarning
        When a score is ``0 / 0`` and ``zero_division="warn"`` (scikit-learn's warning class when
        it is installed).

    See Also
    --------
    sklearn.metrics.jaccard_score : scikit-learn's function, same arguments and values.
    f1_score : A score of the same counts, ``2 J / (1 + J)``.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.jaccard_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="micro")
    0.2
    """
    result: float | FloatArray
    result = onevsrest.jaccard(label_state(y_true, y_pred, sample_weight, n_threads),
                               labels=labels, pos_label=pos_label, average=average,
                               zero_division=zero_division)
    return result


def class_likelihood_ratios(y_true: ArrayLike, y_pred: ArrayLike, *,
                            labels: ArrayLike | None = None,
                            sample_weight: ArrayLike | None = None,
                            replace_undefined_by: float | dict[str, float] = np.nan,
                            n_threads: int | None = None) -> tuple[float, float]:
    """Positive and negative likelihood ratios of a binary problem (scikit-learn
    compatible): ``LR+ = recall / fpr`` and ``LR- = fnr / specificity``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels. Integer and bool arrays are read in place; floats holding integers,
        strings, objects and categorical columns are encoded once.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, as ``y_true``.
    labels : array-like of shape (2,), default=None
        ``[negative, positive]``. None: the sorted labels present.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    replace_undefined_by : np.nan, 1.0 or dict, default=np.nan
        The value reported for an undefined ratio: ``np.nan``, ``1.0`` for both ratios (their
        worst scores), or ``{"LR+": value, "LR-": value}``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    positive_likelihood_ratio : float
        ``LR+ = recall / false positive rate``; greater than 1 is informative.
    negative_likelihood_ratio : float
        ``LR- = false negative rate / specificity``; less than 1 is informative.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multilabel indicator matrices or multiclass-multioutput, or
        ``n_threads`` is below 1.
    TypeError
        If ``n_threads`` is not an int or None.
    ValueError
        If the targets are not binary, or ``replace_undefined_by`` is not one of its values.

    Warns
    -----
    UndefinedMetricWarning
        When a ratio is undefined (division by zero) and replaced by ``replace_undefined_by``.
    UserWarning
        When ``y_true`` and ``y_pred`` hold a single label between them.

    See Also
    --------
    sklearn.metrics.class_likelihood_ratios : scikit-learn's function, same arguments and
        values.
    specificity_score : The true negative rate.
    recall_score : The true positive rate.

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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        The specificity (true negative rate); one value per label when ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UndefinedMetricWarning
        When the rate is ``0 / 0`` and ``zero_division="warn"``.

    See Also
    --------
    sklearn.metrics.recall_score : scikit-learn's recall, whose parameters this takes.
    false_positive_rate : One minus specificity.
    recall_score : The true positive rate.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.specificity_score([0, 1, 1, 0, 0], [0, 1, 0, 1, 0])
    0.6666666666666666
    """
    result: float | FloatArray
    result = onevsrest.specificity(label_state(y_true, y_pred, sample_weight, n_threads),
                                   labels=labels, pos_label=pos_label, average=average,
                                   zero_division=zero_division)
    return result


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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        The false positive rate; one value per label when ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UndefinedMetricWarning
        When the rate is ``0 / 0`` and ``zero_division="warn"``.

    See Also
    --------
    sklearn.metrics.recall_score : scikit-learn's recall, whose parameters this takes.
    specificity_score : One minus this rate.
    false_negative_rate : The miss rate.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.false_positive_rate([0, 1, 1, 0, 0], [0, 1, 0, 1, 0])
    0.3333333333333333
    """
    result: float | FloatArray
    result = onevsrest.fpr(
        label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
        pos_label=pos_label, average=average, zero_division=zero_division)
    return result


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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix of 0/1. Integer and bool arrays are read
        in place; floats holding integers, strings, objects and categorical columns are encoded
        once.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or an indicator matrix, as ``y_true``.
    labels : array-like, default=None
        The labels to score and, with ``average=None``, their order. With an average, labels
        absent from the data count as zero; the default is the sorted labels present in
        ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        None returns one score per label. ``"binary"``: the score of ``pos_label`` (binary
        targets only). ``"micro"``: from the total true positives, false positives and false
        negatives. ``"macro"``: the unweighted mean over labels. ``"weighted"``: the mean
        weighted by each label's support. ``"samples"``: the mean over samples (indicator
        matrices only).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None weighs every sample 1.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value returned for a ``0 / 0`` ratio. ``"warn"`` returns 0.0 and emits an
        ``UndefinedMetricWarning``.
    n_threads : int or None, default=None
        Threads of the counting pass. None: what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is busy on; small inputs use
        one thread. The result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        The false negative rate; one value per label when ``average=None``.

    Raises
    ------
    ValueError
        If ``y_true``, ``y_pred`` and ``sample_weight`` differ in length, the labels contain NaN
        or infinity, the targets are multiclass-multioutput, ``n_threads`` is below 1,
        ``average`` is not one of its values, ``average="binary"`` is used with multiclass
        targets, or ``pos_label`` is not a present label.
    TypeError
        If ``n_threads`` is not an int or None.

    Warns
    -----
    UndefinedMetricWarning
        When the rate is ``0 / 0`` and ``zero_division="warn"``.

    See Also
    --------
    sklearn.metrics.recall_score : scikit-learn's recall, whose parameters this takes.
    recall_score : One minus this rate.
    false_positive_rate : The fall-out.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.false_negative_rate([0, 1, 1, 0, 0], [0, 1, 0, 1, 0])
    0.5
    """
    result: float | FloatArray
    result = onevsrest.fnr(
        label_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
        pos_label=pos_label, average=average, zero_division=zero_division)
    return result
