"""Metrics of one-vs-rest 2 x 2 tables: Jaccard, specificity and the two error rates.

Both label states give their per-label (or, for indicator matrices, per-sample) tables
``[[tn, fp], [fn, tp]]`` through their ``multilabel_confusion_matrix`` derivation; the
metrics here divide entries of those tables with scikit-learn's label checks, its
``zero_division`` handling and its averages (``precision_recall_fscore_support``'s
conventions, :mod:`fastmetrics._states.prf`).

scikit-learn has no specificity or error-rate function: :func:`specificity`, :func:`fpr`
and :func:`fnr` (the faces ``false_positive_rate``, ``false_negative_rate``) follow
``recall_score``'s parameters and rules (their ``"weighted"`` average weights each label by
its support, the number of true samples, as imbalanced-learn's ``specificity_score`` does).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import invalid_parameter
from . import confusion, multilabel
from .prf import check_zero_division, nanaverage, prf_divide, set_wise_labels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Label, ZeroDivision

__all__ = ["fnr", "fpr", "jaccard", "specificity", "tables"]


def tables(state: confusion.ConfusionState | multilabel.MultilabelState, labels: Any,
           average: str | None) -> tuple[np.ndarray, np.ndarray | None]:
    """The (n, 2, 2) one-vs-rest tables over ``labels``: per label, or per sample for
    ``average="samples"`` (indicator matrices only; the caller has checked), and the
    samples average's weights (the sample weights, or a streamed state's profile weights;
    None: equal)."""
    samplewise = average == "samples"
    if isinstance(state, multilabel.MultilabelState):
        if samplewise:
            return multilabel.sample_tables(state, labels)
        return multilabel.mcm(state, labels), None
    return confusion.mcm(state, labels, samplewise), None


def _check_jaccard_zero_division(zero_division: object) -> None:
    ok = zero_division == "warn" if isinstance(zero_division, str) else (
        isinstance(zero_division, numbers.Real) and zero_division in {0, 1})
    if not ok:
        raise invalid_parameter(
            "The 'zero_division' parameter of jaccard_score must be a float among {0, 1} "
            f"or a str among {{'warn'}}. Got {zero_division!r} instead."
        )


def jaccard(state: Any, *, labels: ArrayLike | None = None, pos_label: Label | None = 1,
            average: str | None = "binary", zero_division: ZeroDivision = "warn") -> Any:
    """``jaccard_score`` of a label state: ``tp / (tp + fp + fn)``."""
    _check_jaccard_zero_division(zero_division)
    labels = set_wise_labels(state, average, labels, pos_label)
    MCM, sample_weights = tables(state, labels, average)
    numerator = MCM[:, 1, 1]
    denominator = MCM[:, 1, 1] + MCM[:, 0, 1] + MCM[:, 1, 0]
    if average == "micro":
        numerator = np.array([numerator.sum()])
        denominator = np.array([denominator.sum()])
    score = prf_divide(numerator, denominator, "jaccard", "true or predicted", average,
                       ("jaccard",), zero_division)
    if average is None:
        return score
    weights = None
    if average == "weighted":
        weights = MCM[:, 1, 0] + MCM[:, 1, 1]
        if not np.any(weights):  # every score is 0 and has warned
            weights = None
    elif average == "samples":
        weights = sample_weights
    return float(np.average(score, weights=weights))


def _rate(state: Any, num_cell: int, den_cells: tuple[int, int], metric: str, modifier: str,
          labels: ArrayLike | None, pos_label: Label | None, average: str | None,
          zero_division: ZeroDivision) -> Any:
    """One ratio of table cells, ``recall_score``'s way: checks, warning and averages."""
    check_zero_division(zero_division)
    labels = set_wise_labels(state, average, labels, pos_label)
    MCM, sample_weights = tables(state, labels, average)
    MCM = MCM.reshape(-1, 4)  # tn, fp, fn, tp
    numerator = MCM[:, num_cell]
    denominator = MCM[:, den_cells[0]] + MCM[:, den_cells[1]]
    support = MCM[:, 2] + MCM[:, 3]
    if average == "micro":
        numerator = np.array([numerator.sum()])
        denominator = np.array([denominator.sum()])
    score = prf_divide(numerator, denominator, metric, modifier, average, (metric,),
                       zero_division)
    if average is None:
        return score
    weights = support if average == "weighted" else (
        sample_weights if average == "samples" else None)
    return float(nanaverage(score, weights))


def specificity(state: Any, *, labels: ArrayLike | None = None, pos_label: Label | None = 1,
                average: str | None = "binary", zero_division: ZeroDivision = "warn") -> Any:
    """``specificity_score`` of a label state: ``tn / (tn + fp)``, the true negative rate."""
    return _rate(state, 0, (0, 1), "specificity", "negative", labels, pos_label, average,
                 zero_division)


def fpr(state: Any, *, labels: ArrayLike | None = None, pos_label: Label | None = 1,
        average: str | None = "binary", zero_division: ZeroDivision = "warn") -> Any:
    """``false_positive_rate`` of a label state: ``fp / (fp + tn)`` (fall-out)."""
    return _rate(state, 1, (1, 0), "false positive rate", "negative", labels, pos_label,
                 average, zero_division)


def fnr(state: Any, *, labels: ArrayLike | None = None, pos_label: Label | None = 1,
        average: str | None = "binary", zero_division: ZeroDivision = "warn") -> Any:
    """``false_negative_rate`` of a label state: ``fn / (fn + tp)`` (miss rate)."""
    return _rate(state, 2, (2, 3), "false negative rate", "true", labels, pos_label,
                 average, zero_division)
