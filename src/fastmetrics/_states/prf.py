"""Precision, recall, F-beta and the classification report, from per-label sums.

Both label states provide them: :class:`~fastmetrics._states.confusion.ConfusionState`
(binary / multiclass: the diagonal and margins of its table) and
:class:`~fastmetrics._states.multilabel.MultilabelState` (indicator matrices: per-column
counts, or per-row counts for ``average="samples"``). A state offers ``target_type``,
``present_labels`` and ``label_sums(labels, average)``; everything else is here, once, with
scikit-learn's checks, warnings and floating-point steps.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..exceptions import warn, undefined_metric_warning

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, NDArray

    from .._typing import Label, ZeroDivision

    #: precision, recall, F (per label: arrays, averaged: floats) and the support
    PRFS = tuple[Any, Any, Any, Any]

__all__ = ["AVERAGES", "check_zero_division", "f1", "f1_batch", "fbeta", "fbeta_batch",
           "nanaverage", "precision", "precision_batch", "prf_divide", "prf_from_sums", "prfs",
           "prfs_batch", "recall", "recall_batch", "report", "set_wise_labels"]

AVERAGES = (None, "micro", "macro", "weighted", "samples")


def check_zero_division(zero_division: object) -> float:
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return cast("float", np.float64(0.0))
        if zero_division == "nan":
            return np.nan
    elif isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool):
        if zero_division in (0, 1):
            return cast("float", np.float64(zero_division))
        if math.isnan(zero_division):
            return np.nan
    raise ValueError(
        f"zero_division must be 'warn', 0, 1 or np.nan, got {zero_division!r}"
    )


def _check_beta(beta: object) -> None:
    if type(beta) is float and beta >= 0:  # the common case, without an ABC check
        return
    # ``not beta >= 0`` also refuses NaN. typeshed's numbers.Real declares only < and <=, so
    # mypy rejects >= on it; every real type that arrives (int, float, Fraction, numpy
    # scalars) defines >=.
    if not isinstance(beta, numbers.Real) or isinstance(beta, bool) \
            or not beta >= 0:  # type: ignore[operator]
        raise ValueError(f"beta must be a real number >= 0, got {beta!r}")


def _warn_prf(average: str | None, modifier: str, msg_start: str, result_size: int) -> None:
    axis0, axis1 = "sample", "label"
    if average == "samples":
        axis0, axis1 = axis1, axis0
    msg = (
        f"{msg_start} ill-defined and being set to 0.0 {{0}} no {modifier} {axis0}s. "
        "Use `zero_division` parameter to control this behavior."
    )
    msg = msg.format("due to" if result_size == 1 else f"in {axis1}s with")
    warn(msg, undefined_metric_warning())


def prf_divide(num: NDArray[Any], den: NDArray[Any], metric: str, modifier: str,
               average: str | None, warn_for: Sequence[str],
               zero_division: ZeroDivision) -> NDArray[np.float64]:
    if np.count_nonzero(den) == den.shape[0]:  # no zero: no mask to build (small calls)
        return cast("NDArray[np.float64]", np.true_divide(num, den, dtype=np.float64))
    mask = den == 0
    den = np.array(den, dtype=np.float64)
    den[mask] = 1
    result: NDArray[np.float64] = np.asarray(num, dtype=np.float64) / den
    result[mask] = check_zero_division(zero_division)
    if zero_division != "warn" or metric not in warn_for:
        return result
    _warn_prf(average, modifier, f"{metric.capitalize()} is", result.shape[0])
    return result


def nanaverage(a: NDArray[Any], weights: ArrayLike | None = None) -> Any:
    """scikit-learn's NaN-ignoring (weighted) mean, with the same floating-point steps."""
    n = a.shape[0]
    if n == 0:
        return np.nan
    if weights is None:
        total = np.add.reduce(a)
        if total == total:  # no NaN: this is exactly what np.nanmean computes
            return total / n
    mask = np.isnan(a)
    if mask.all():
        return np.nan
    if weights is None:
        return np.nanmean(a)
    if mask.any():
        a, weights = a[~mask], np.asarray(weights)[~mask]
    wsum = np.sum(weights, dtype=np.float64)
    if wsum == 0:  # all weights zero: plain mean, as scikit-learn falls back to
        return np.mean(a)
    return np.multiply(a, weights, dtype=np.float64).sum() / wsum


def _label_repr(labels: ArrayLike) -> str:
    """Labels as scikit-learn prints them in this message (a numpy array's repr)."""
    return str(np.asarray(labels))


def set_wise_labels(state: Any, average: str | None, labels: ArrayLike | None,
                    pos_label: Label | None) -> Any:
    """scikit-learn's label checks for set-wise metrics: the labels to score."""
    if average not in AVERAGES and average != "binary":
        raise ValueError("average has to be one of " + str(AVERAGES))
    if average == "samples" and state.target_type != "multilabel-indicator":
        raise ValueError(
            "Samplewise metrics are not available outside of multilabel classification."
        )
    if average == "binary":
        y_type = state.target_type
        if y_type == "binary":
            present = state.present_labels
            if len(present) >= 2 and pos_label not in present.tolist():
                raise ValueError(
                    f"pos_label={pos_label} is not a valid label. It should be one of "
                    f"{_label_repr(present)}"
                )
            return [pos_label]
        options = [None, "micro", "macro", "weighted"]
        if y_type == "multilabel-indicator":
            options.append("samples")
        raise ValueError(
            f"Target is {y_type} but average='binary'. Please choose another average "
            f"setting, one of {options}."
        )
    if pos_label not in (None, 1):
        warn(
            f"Note that pos_label (set to {pos_label!r}) is ignored when average != "
            f"'binary' (got {average!r}). You may use labels=[pos_label] to specify a "
            "single positive class.",
            UserWarning)
    return labels


def prf_from_sums(tp: NDArray[Any], pred: NDArray[Any], true: NDArray[Any], *, beta: float,
                  average: str | None, warn_for: Sequence[str],
                  zero_division: ZeroDivision, need: str,
                  sample_weight: NDArray[Any] | None = None) -> PRFS:
    """Precision, recall, F-beta (and support) from per-label or per-sample sums."""
    if average == "micro":
        tp = np.array([tp.sum()])
        pred = np.array([pred.sum()])
        true = np.array([true.sum()])
    f_inf = beta == np.inf
    need_p = "p" in need or "precision" in warn_for or ("f" in need and beta == 0)
    need_r = "r" in need or "recall" in warn_for or ("f" in need and f_inf)
    precision = recall = f = None
    if need_p:
        precision = prf_divide(tp, pred, "precision", "predicted", average, warn_for,
                                zero_division)
    if need_r:
        recall = prf_divide(tp, true, "recall", "true", average, warn_for, zero_division)
    if "f" in need or "f-score" in warn_for:
        if f_inf:
            f = recall
        elif beta == 0:
            f = precision
        else:
            beta2 = beta**2
            if beta2 == 1:  # same floating-point values, three array operations fewer
                num, denom = tp * 2.0, true + pred
            else:
                num = (1 + beta2) * tp.astype(np.float64)
                denom = beta2 * true.astype(np.float64) + pred.astype(np.float64)
            f = prf_divide(num, denom, "f-score", "true nor predicted", average, warn_for,
                            zero_division)
    if average is not None:
        weights = true if average == "weighted" else sample_weight if average == "samples" else None
        return cast("PRFS", tuple(
            None if v is None else float(nanaverage(v, weights)) for v in (precision, recall, f)
        ) + (None,))
    return precision, recall, f, true


def prfs(state: Any, *, beta: float = 1.0, labels: ArrayLike | None = None,
         pos_label: Label | None = 1, average: str | None = None,
         warn_for: Sequence[str] = ("precision", "recall", "f-score"),
         zero_division: ZeroDivision = "warn", need: str = "prf") -> PRFS:
    """``precision_recall_fscore_support`` of a label state.

    ``need`` names the outputs the caller uses ('p', 'r', 'f'); the others are skipped
    (they would only have warned if named in ``warn_for``) and returned as None.
    """
    check_zero_division(zero_division)
    _check_beta(beta)
    labels = set_wise_labels(state, average, labels, pos_label)
    tp, pred, true, sample_weight = state.label_sums(labels, average)
    return prf_from_sums(tp, pred, true, beta=beta, average=average, warn_for=warn_for,
                         zero_division=zero_division, need=need, sample_weight=sample_weight)


def fbeta(state: Any, *, beta: float, labels: ArrayLike | None = None,
          pos_label: Label | None = 1, average: str | None = "binary",
          zero_division: ZeroDivision = "warn") -> Any:
    """``fbeta_score`` of a label state."""
    return prfs(state, beta=beta, labels=labels, pos_label=pos_label, average=average,
                warn_for=("f-score",), zero_division=zero_division, need="f")[2]


def f1(state: Any, *, labels: ArrayLike | None = None, pos_label: Label | None = 1,
       average: str | None = "binary", zero_division: ZeroDivision = "warn") -> Any:
    """``f1_score`` of a label state."""
    return prfs(state, labels=labels, pos_label=pos_label, average=average,
                warn_for=("f-score",), zero_division=zero_division, need="f")[2]


def precision(state: Any, *, labels: ArrayLike | None = None, pos_label: Label | None = 1,
              average: str | None = "binary", zero_division: ZeroDivision = "warn") -> Any:
    """``precision_score`` of a label state."""
    return prfs(state, labels=labels, pos_label=pos_label, average=average,
                warn_for=("precision",), zero_division=zero_division, need="p")[0]


def recall(state: Any, *, labels: ArrayLike | None = None, pos_label: Label | None = 1,
           average: str | None = "binary", zero_division: ZeroDivision = "warn") -> Any:
    """``recall_score`` of a label state."""
    return prfs(state, labels=labels, pos_label=pos_label, average=average,
                warn_for=("recall",), zero_division=zero_division, need="r")[1]


def report(state: Any, *, labels: Any = None,
           target_names: Sequence[str] | None = None, digits: int = 2,
           output_dict: bool = False,
           zero_division: ZeroDivision = "warn") -> str | dict[str, Any]:
    """``classification_report`` of a label state: text, or a dict with ``output_dict``."""
    multilabel = state.target_type == "multilabel-indicator"
    averages = ("micro", "macro", "weighted") + (("samples",) if multilabel else ())
    present = state.present_labels
    if labels is None:
        labels = present
        labels_given = False
    else:
        labels = np.asarray(labels)
        labels_given = True
    micro_is_accuracy = not multilabel and (
        not labels_given or set(labels.tolist()) >= set(present.tolist())
    )
    if target_names is not None and len(labels) != len(target_names):
        if labels_given:
            warn(
                f"labels size, {len(labels)}, does not match size of target_names, "
                f"{len(target_names)}",
                UserWarning)
        else:
            raise ValueError(
                f"Number of classes, {len(labels)}, does not match size of target_names, "
                f"{len(target_names)}. Try specifying the labels parameter"
            )
    if target_names is None:
        target_names = ["%s" % lab for lab in labels]
    p, r, f, s = prfs(state, labels=labels, average=None, zero_division=zero_division)
    rows = list(zip(target_names, p, r, f, s))
    summary = []
    for average in averages:
        heading = "accuracy" if average == "micro" and micro_is_accuracy else average + " avg"
        ap, ar, af, _ = prfs(state, labels=labels, average=average, zero_division=zero_division)
        summary.append((heading, ap, ar, af, np.sum(s)))
    if output_dict:
        return report_dict(rows, summary)
    return render_report(rows, summary, digits)


_HEADERS = ["precision", "recall", "f1-score", "support"]


def report_dict(rows: Sequence[tuple[Any, ...]],
                summary: Sequence[tuple[Any, ...]]) -> dict[str, Any]:
    """The report as scikit-learn's ``output_dict`` (the accuracy row as one number)."""
    out: dict[str, float | dict[str, float]] = {
        row[0]: dict(zip(_HEADERS, [float(v) for v in row[1:]])) for row in rows}
    for heading, *values in summary:
        out[heading] = (float(values[2]) if heading == "accuracy"
                        else dict(zip(_HEADERS, [float(v) for v in values])))
    return out


def render_report(rows: Sequence[tuple[Any, ...]], summary: Sequence[tuple[Any, ...]],
                  digits: int) -> str:
    """The report as scikit-learn's text table: one row per label ``(name, precision,
    recall, f1, support)``, then the averages (``accuracy`` shows only F1 and support)."""
    names = [row[0] for row in rows]
    width = max(max((len(cn) for cn in names), default=0), len("weighted avg"), digits)
    head_fmt = "{:>{width}s} " + " {:>9}" * len(_HEADERS)
    text = head_fmt.format("", *_HEADERS, width=width) + "\n\n"
    row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
    for row in rows:
        text += row_fmt.format(*row, width=width, digits=digits)
    text += "\n"
    for heading, *values in summary:
        if heading == "accuracy":
            fmt = "{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}" + " {:>9}\n"
            text += fmt.format(heading, "", "", *values[2:], width=width, digits=digits)
        else:
            text += row_fmt.format(heading, *values, width=width, digits=digits)
    return text


# ---------------------------------------------------------------------- many tables at once

#: tables of at most this many labels have their margins added slice by slice
_SLICED_MARGINS = 16


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of numpy's sum of an array of ``dtype`` (bools and small integers
    widened to 64 bits)."""
    total: np.ndarray = np.zeros(1, dtype).sum(keepdims=True)
    return total.dtype


def table_margins(cms: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """``(true, predicted)`` margins of a stack of (B, K, K) tables: ``cms.sum(axis=2)``
    and ``cms.sum(axis=1)``, the same values (added in the same order). For small K the K
    slices are added whole: numpy's reduction over a short axis pays per output, about 10x
    the time at K = 2 and B = 10^6 resampled tables.

    Examples
    --------
    >>> t, p = table_margins(np.arange(8).reshape(2, 2, 2))
    >>> t.tolist(), p.tolist()
    ([[1, 5], [9, 13]], [[2, 4], [10, 12]])
    """
    k = cms.shape[2]
    if k > _SLICED_MARGINS or k == 0:
        return cms.sum(axis=2), cms.sum(axis=1)
    dt = _sum_dtype(cms.dtype)
    rows = cms[:, :, 0].astype(dt)
    cols = cms[:, 0, :].astype(dt)
    for j in range(1, k):
        rows += cms[:, :, j]
        cols += cms[:, j, :]
    return rows, cols


def row_sums(a: NDArray[Any]) -> NDArray[Any]:
    """``a.sum(axis=1)`` of a (B, K) array of counts, its K columns added whole for small K
    (exact for integers).

    Examples
    --------
    >>> row_sums(np.arange(6).reshape(3, 2)).tolist()
    [1, 5, 9]
    >>> row_sums(np.array([[True, True], [False, True]])).tolist()
    [2, 1]
    """
    if a.shape[1] > _SLICED_MARGINS or a.shape[1] == 0:
        return np.asarray(a.sum(axis=1))
    out = a[:, 0].astype(_sum_dtype(a.dtype))  # bools are counted, small ints widened
    for j in range(1, a.shape[1]):
        out += a[:, j]
    return out


def table_trace(cms: NDArray[Any]) -> NDArray[Any]:
    """The diagonal sums of a stack of (B, K, K) tables (``np.trace(cms, axis1=1,
    axis2=2)``, added in the same order).

    Examples
    --------
    >>> table_trace(np.arange(8).reshape(2, 2, 2)).tolist()
    [3, 11]
    """
    out = cms[:, 0, 0].astype(_sum_dtype(cms.dtype))
    for j in range(1, cms.shape[1]):
        out += cms[:, j, j]
    return out


def _divide_all(num: NDArray[Any], den: ArrayLike, zd: float) -> NDArray[np.float64]:
    den = np.asarray(den)
    zero = den == 0
    if not zero.any():
        return cast("NDArray[np.float64]", np.true_divide(num, den, dtype=np.float64))
    out: NDArray[np.float64] = np.asarray(num, dtype=np.float64) / np.where(zero, 1, den)
    out[zero] = zd
    return out


def prfs_batch(state: Any, cms: NDArray[Any], *, beta: float = 1.0,
               labels: ArrayLike | None = None, pos_label: Label | None = 1,
               average: str | None = None, zero_division: ZeroDivision = "warn",
               ) -> tuple[NDArray[np.float64], ...] | None:
    """``(precision, recall, f)`` of many confusion tables over ``state``'s labels (``cms``
    of shape (B, K, K): bootstrap resamples of ``state``), one value per table, with the
    floating-point steps of :func:`prfs`; None where the tables must go one by one (a
    resample that lacks a label, given ``labels``, per-label or NaN ``zero_division``
    results). ``state`` itself has been scored by :func:`prfs` (its checks and warnings)."""
    if labels is not None or average not in ("micro", "macro", "weighted", "binary"):
        return None
    zd = check_zero_division(zero_division)
    if zd != zd or getattr(state, "weighted", True) or state.target_type == "multilabel-indicator":
        return None
    rows, cols = table_margins(cms)
    if not (((rows != 0) | (cols != 0)) == state.present).all():
        return None
    if average == "binary":
        values = state.values.tolist()
        if state.target_type != "binary" or pos_label not in values:
            return None
        idx = np.array([values.index(pos_label)])
    else:
        idx = np.flatnonzero(state.present)
    diag = np.diagonal(cms, axis1=1, axis2=2)
    tp, pred, true = diag[:, idx], cols[:, idx], rows[:, idx]
    if average == "micro":
        tp, pred, true = (x.sum(axis=1, keepdims=True) for x in (tp, pred, true))
    p = _divide_all(tp, pred, zd)
    r = _divide_all(tp, true, zd)
    if beta == np.inf:
        f = r
    elif beta == 0:
        f = p
    elif beta**2 == 1:
        f = _divide_all(tp * 2.0, true + pred, zd)
    else:
        b2 = beta**2
        f = _divide_all((1 + b2) * tp.astype(np.float64),
                        b2 * true.astype(np.float64) + pred.astype(np.float64), zd)
    if average == "weighted":
        wsum = np.sum(true, axis=1, dtype=np.float64)
        if np.any(wsum == 0):
            return None
        return tuple(np.multiply(v, true, dtype=np.float64).sum(axis=1) / wsum
                     for v in (p, r, f))
    n = tp.shape[1]
    return tuple(np.add.reduce(v, axis=1) / n for v in (p, r, f))


def f1_batch(state: Any, cms: NDArray[Any], *, labels: ArrayLike | None = None,
             pos_label: Label | None = 1, average: str | None = "binary",
             zero_division: ZeroDivision = "warn") -> NDArray[np.float64] | None:
    """:func:`f1` of many tables (:func:`prfs_batch`)."""
    out = prfs_batch(state, cms, labels=labels, pos_label=pos_label, average=average,
                     zero_division=zero_division)
    return None if out is None else out[2]


def fbeta_batch(state: Any, cms: NDArray[Any], *, beta: float,
                labels: ArrayLike | None = None, pos_label: Label | None = 1,
                average: str | None = "binary",
                zero_division: ZeroDivision = "warn") -> NDArray[np.float64] | None:
    """:func:`fbeta` of many tables (:func:`prfs_batch`)."""
    _check_beta(beta)
    out = prfs_batch(state, cms, beta=beta, labels=labels, pos_label=pos_label,
                     average=average, zero_division=zero_division)
    return None if out is None else out[2]


def precision_batch(state: Any, cms: NDArray[Any], *, labels: ArrayLike | None = None,
                    pos_label: Label | None = 1, average: str | None = "binary",
                    zero_division: ZeroDivision = "warn") -> NDArray[np.float64] | None:
    """:func:`precision` of many tables (:func:`prfs_batch`)."""
    out = prfs_batch(state, cms, labels=labels, pos_label=pos_label, average=average,
                     zero_division=zero_division)
    return None if out is None else out[0]


def recall_batch(state: Any, cms: NDArray[Any], *, labels: ArrayLike | None = None,
                 pos_label: Label | None = 1, average: str | None = "binary",
                 zero_division: ZeroDivision = "warn") -> NDArray[np.float64] | None:
    """:func:`recall` of many tables (:func:`prfs_batch`)."""
    out = prfs_batch(state, cms, labels=labels, pos_label=pos_label, average=average,
                     zero_division=zero_division)
    return None if out is None else out[1]
