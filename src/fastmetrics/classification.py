"""Classification metrics with scikit-learn's signatures, all derived from one counting pass.

Every function here builds a :class:`~fastmetrics._state.ConfusionState` (one kernel pass
over the labels) and computes its result from that K x K table. Names, parameters, defaults,
return types and warnings follow ``sklearn.metrics`` (1.9) for 1-D (binary / multiclass)
targets and for multilabel indicator matrices ((n, L) arrays of 0/1, where scikit-learn
supports them: accuracy, precision/recall/F, multilabel confusion matrices and the report).
Multiclass-multioutput 2-D targets raise a ``ValueError``, as in scikit-learn.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ._mlstate import multilabel_route, multilabel_state
from ._state import ConfusionState, common_int, confusion_state

__all__ = [
    "UndefinedMetricWarning",
    "accuracy_score",
    "balanced_accuracy_score",
    "classification_report",
    "cohen_kappa_score",
    "confusion_matrix",
    "f1_score",
    "fbeta_score",
    "matthews_corrcoef",
    "multilabel_confusion_matrix",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
]

try:  # share scikit-learn's warning class when it is installed, so filters written for it apply
    from sklearn.exceptions import UndefinedMetricWarning
except ImportError:  # pragma: no cover - sklearn is optional at run time

    class UndefinedMetricWarning(UserWarning):  # type: ignore[no-redef]
        """Warning used when a metric is ill-defined (same meaning as scikit-learn's)."""


_AVERAGES = (None, "micro", "macro", "weighted", "samples")


# --------------------------------------------------------------------------- helpers


def _check_zero_division(zero_division):
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return np.float64(0.0)
        if zero_division == "nan":
            return np.nan
    elif isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool):
        if zero_division in (0, 1):
            return np.float64(zero_division)
        if math.isnan(zero_division):
            return np.nan
    raise ValueError(
        f"zero_division must be 'warn', 0, 1 or np.nan, got {zero_division!r}"
    )


def _single_label_warning():
    warnings.warn(
        "A single label was found in 'y_true' and 'y_pred'. For the confusion matrix to "
        "have the correct shape, use the 'labels' parameter to pass all known labels.",
        UserWarning,
        stacklevel=3,
    )


def _warn_prf(average, modifier, msg_start, result_size):
    axis0, axis1 = "sample", "label"
    if average == "samples":  # pragma: no cover - samples average is rejected earlier
        axis0, axis1 = axis1, axis0
    msg = (
        f"{msg_start} ill-defined and being set to 0.0 {{0}} no {modifier} {axis0}s. "
        "Use `zero_division` parameter to control this behavior."
    )
    msg = msg.format("due to" if result_size == 1 else f"in {axis1}s with")
    warnings.warn(msg, UndefinedMetricWarning, stacklevel=4)


def _prf_divide(num, den, metric, modifier, average, warn_for, zero_division):
    mask = den == 0
    if not mask.any():
        return np.true_divide(num, den, dtype=np.float64)
    den = np.array(den, dtype=np.float64)
    den[mask] = 1
    result = np.asarray(num, dtype=np.float64) / den
    result[mask] = _check_zero_division(zero_division)
    if zero_division != "warn" or metric not in warn_for:
        return result
    _warn_prf(average, modifier, f"{metric.capitalize()} is", result.shape[0])
    return result


def _nanaverage(a, weights=None):
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


def _with_labels(state: ConfusionState, labels) -> tuple[ConfusionState, np.ndarray]:
    """``state`` extended (zero rows/columns) so that it holds every label in ``labels``;
    returns it and the positions of ``labels`` in it."""
    lab = labels if type(labels) is np.ndarray else np.asarray(labels)
    lab = lab.reshape(-1)
    vals = state.values
    if lab.size == 0:
        return state, np.zeros(0, dtype=np.intp)
    if _kind(lab) != _kind(vals):
        # labels of another kind than the data (e.g. pos_label=1 for string labels) match
        # nothing: they get zero rows and columns, appended after the data's labels
        return _append_labels(state, lab)
    vals, lab = common_int(vals, lab)
    try:
        pos = np.searchsorted(vals, lab)
    except TypeError as exc:
        raise ValueError(f"labels {lab!r} cannot be compared with the data labels") from exc
    pos_c = np.minimum(pos, len(vals) - 1)
    found = vals[pos_c] == lab if len(vals) else np.zeros(lab.shape, dtype=bool)
    if np.all(found):
        return state, pos_c
    extra = np.unique(lab[~found])
    k0 = len(vals)
    if vals.dtype.kind in "USO" or extra.dtype.kind in "USO":
        new_vals = np.concatenate([vals.astype(str), extra.astype(str)])
    else:
        new_vals = np.concatenate([vals, extra])
    order = np.argsort(new_vals, kind="stable")
    new_vals = new_vals[order]
    k = len(new_vals)
    cm = np.zeros((k, k), dtype=state.cm.dtype)
    inv = np.empty(k, dtype=np.intp)
    inv[order] = np.arange(k)
    old = inv[:k0]
    cm[np.ix_(old, old)] = state.cm
    present = np.zeros(k, dtype=bool)
    present[old] = state.present
    in_true = np.zeros(k, dtype=bool)
    in_true[old] = state.in_true
    margins = None
    if state.margins is not None:
        margins = np.zeros((2, k))
        margins[:, old] = state.margins
    ext = ConfusionState(new_vals, cm, present, state.n_samples, state.weight_sum,
                         state.int_weights, in_true, margins)
    return ext, np.searchsorted(new_vals, lab)


def _kind(a) -> str:
    if a.dtype.kind == "O":
        return "str" if a.size and all(isinstance(v, str) for v in a.tolist()) else "num"
    return "str" if a.dtype.kind in "US" else "num"


def _append_labels(state: ConfusionState, lab: np.ndarray):
    extra = list(dict.fromkeys(lab.tolist()))
    k0 = len(state.values)
    k = k0 + len(extra)
    values = np.empty(k, dtype=object)
    values[:k0] = state.values.tolist()
    values[k0:] = extra
    cm = np.zeros((k, k), dtype=state.cm.dtype)
    cm[:k0, :k0] = state.cm
    present = np.zeros(k, dtype=bool)
    present[:k0] = state.present
    in_true = np.zeros(k, dtype=bool)
    in_true[:k0] = state.in_true
    margins = None
    if state.margins is not None:
        margins = np.zeros((2, k))
        margins[:, :k0] = state.margins
    ext = ConfusionState(values, cm, present, state.n_samples, state.weight_sum,
                         state.int_weights, in_true, margins)
    return ext, np.array([k0 + extra.index(v) for v in lab.tolist()], dtype=np.intp)


def _state(y_true, y_pred, sample_weight, n_threads=None) -> ConfusionState:
    return confusion_state(y_true, y_pred, sample_weight, n_threads=n_threads)


# --------------------------------------------------------------------------- confusion


def _confusion_from_state(state, labels, normalize, *, caller="y_true"):
    if normalize not in (None, "true", "pred", "all"):
        raise ValueError(
            f"normalize must be one of 'true', 'pred', 'all' or None, got {normalize!r}"
        )
    if labels is None:
        cm = state.cm[np.ix_(state.present, state.present)] if not state.present.all() else state.cm
    else:
        lab = np.asarray(labels).reshape(-1)
        if lab.size == 0:
            raise ValueError("'labels' should contain at least one label.")
        st, idx = _with_labels(state, lab)
        if not st.in_true[idx].any():
            raise ValueError("At least one label specified must be in y_true")
        cm = st.cm[np.ix_(idx, idx)]
    if state.weighted and not state.int_weights:
        cm = np.array(cm, dtype=np.float64)
    else:
        cm = np.array(cm, dtype=np.int64)
    if normalize is not None:
        with np.errstate(all="ignore"):
            if normalize == "true":
                cm = cm / cm.sum(axis=1, keepdims=True)
            elif normalize == "pred":
                cm = cm / cm.sum(axis=0, keepdims=True)
            else:
                cm = cm / cm.sum()
            cm = np.nan_to_num(cm)
    if cm.shape == (1, 1):
        _single_label_warning()
    return cm


def confusion_matrix(y_true, y_pred, *, labels=None, sample_weight=None, normalize=None,
                     n_threads=None):
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
    _no_multilabel(y_true, y_pred)
    state = _state(y_true, y_pred, sample_weight, n_threads)
    return _confusion_from_state(state, labels, normalize)


def multilabel_confusion_matrix(y_true, y_pred, *, sample_weight=None, labels=None,
                                samplewise=False, n_threads=None):
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
    if multilabel_route(y_true, y_pred):
        ms = multilabel_state(y_true, y_pred, sample_weight)
        idx = _ml_labels(ms, labels)
        if samplewise:
            tp, pred, true = ms.row_sums(idx)
            if ms.weighted:
                total = ms.w * len(idx)
            else:
                total = len(idx)
        else:
            tp, pred, true = ms.tp[idx], ms.pred[idx], ms.true[idx]
            total = ms.weight_sum if ms.weighted else ms.n_samples
        fp, fn = pred - tp, true - tp
        return np.stack([total - tp - fp - fn, fp, fn, tp]).T.reshape(-1, 2, 2)
    state = _state(y_true, y_pred, sample_weight, n_threads)
    if samplewise:
        raise ValueError(
            "Samplewise metrics are not available outside of multilabel classification."
        )
    return _mcm_from_state(state, labels)


def _sums(state, labels):
    """Per-label (tp, pred_sum, true_sum) for ``labels`` (default: present labels), with
    scikit-learn's dtypes: int64 unweighted, float64 weighted, and its float64 quirk when no
    sample at all is correctly predicted."""
    if labels is None:
        st, idx = state, None if state.present.all() else np.flatnonzero(state.present)
    else:
        st, idx = _with_labels(state, labels)
    cm = st.cm
    diag = np.diagonal(cm)
    if st.margins is not None:  # weighted: sums in scikit-learn's (bincount's) order
        tp, pred, true = diag, st.margins[1], st.margins[0]
    else:
        tp, pred, true = diag, cm.sum(axis=0), cm.sum(axis=1)
    if idx is not None:
        tp, pred, true = tp[idx], pred[idx], true[idx]
    if st.weighted:
        tp, pred, true = (np.asarray(x, dtype=np.float64) for x in (tp, pred, true))
        # scikit-learn recovers these as tp + fp and tp + fn from its 2 x 2 matrices
        pred = tp + (pred - tp)
        true = tp + (true - tp)
    elif not diag.any():
        # scikit-learn's multilabel_confusion_matrix makes tp a float zero array when no
        # sample is predicted correctly, which turns every derived count float64.
        tp, pred, true = (np.asarray(x, dtype=np.float64) for x in (tp, pred, true))
    return tp, pred, true


def _mcm_from_state(state, labels):
    tp, pred, true = _sums(state, labels)
    fp = pred - tp
    fn = true - tp
    total = state.weight_sum if state.weighted else state.n_samples
    tn = total - tp - fp - fn
    return np.array([tn, fp, fn, tp]).T.reshape(-1, 2, 2)


# --------------------------------------------------------------------------- accuracy


def accuracy_score(y_true, y_pred, *, normalize=True, sample_weight=None, n_threads=None):
    """Fraction (or number, ``normalize=False``) of correctly classified samples.

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.accuracy_score([0, 1, 2, 3], [0, 2, 1, 3])
    0.5
    """
    if multilabel_route(y_true, y_pred):  # subset accuracy: rows predicted exactly
        ms = multilabel_state(y_true, y_pred, sample_weight)
        if not normalize:
            return float(ms.exact)
        return float(ms.exact / (ms.weight_sum if ms.weighted else ms.n_samples))
    state = _state(y_true, y_pred, sample_weight, n_threads)
    return _accuracy_from_state(state, normalize)


def _accuracy_from_state(state, normalize=True):
    correct = np.trace(state.cm)
    if not state.weighted:
        return float(correct / state.n_samples) if normalize else float(correct)
    if not normalize:
        return float(correct)
    if state.weight_sum == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return float(correct / state.weight_sum)


# --------------------------------------------------------------------------- P / R / F


def _check_set_wise_labels(y_type, state, average, labels, pos_label):
    """scikit-learn's label checks for set-wise metrics; ``y_type`` None means: ask
    ``state`` (only needed for average='binary')."""
    if average not in _AVERAGES and average != "binary":
        raise ValueError("average has to be one of " + str(_AVERAGES))
    if average == "samples" and y_type != "multilabel-indicator":
        raise ValueError(
            "Samplewise metrics are not available outside of multilabel classification."
        )
    if average == "binary":
        if y_type is None:
            y_type = state.y_type
        if y_type == "binary":
            present = state.present_labels.tolist()
            if pos_label not in present and len(present) >= 2:
                raise ValueError(
                    f"pos_label={pos_label} is not a valid label. It should be one of "
                    f"{present}"
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
        warnings.warn(
            f"Note that pos_label (set to {pos_label!r}) is ignored when average != "
            f"'binary' (got {average!r}). You may use labels=[pos_label] to specify a "
            "single positive class.",
            UserWarning,
            stacklevel=4,
        )
    return labels


def _prfs_from_state(state, *, beta=1.0, labels=None, pos_label=1, average=None,
                     warn_for=("precision", "recall", "f-score"), zero_division="warn",
                     need="prf"):
    """scikit-learn's precision_recall_fscore_support computed from a state.

    ``need`` names the outputs the caller uses ('p', 'r', 'f'); the others are skipped
    (they would only have warned if named in ``warn_for``) and returned as None.
    """
    _check_zero_division(zero_division)
    _check_beta(beta)
    labels = _check_set_wise_labels(None, state, average, labels, pos_label)
    tp, pred, true = _sums(state, labels)
    return _prf_from_sums(tp, pred, true, beta=beta, average=average, warn_for=warn_for,
                          zero_division=zero_division, need=need)


def _check_beta(beta):
    if not isinstance(beta, numbers.Real) or isinstance(beta, bool) or not beta >= 0:
        raise ValueError(f"beta must be a real number >= 0, got {beta!r}")


def _prf_from_sums(tp, pred, true, *, beta, average, warn_for, zero_division, need,
                   sample_weight=None):
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
        precision = _prf_divide(tp, pred, "precision", "predicted", average, warn_for,
                                zero_division)
    if need_r:
        recall = _prf_divide(tp, true, "recall", "true", average, warn_for, zero_division)
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
            f = _prf_divide(num, denom, "f-score", "true nor predicted", average, warn_for,
                            zero_division)
    if average is not None:
        weights = true if average == "weighted" else sample_weight if average == "samples" else None
        return tuple(
            None if v is None else float(_nanaverage(v, weights)) for v in (precision, recall, f)
        ) + (None,)
    return precision, recall, f, true


def _ml_labels(ms, labels):
    """Column indices for ``labels`` (scikit-learn's checks for multilabel targets)."""
    L = ms.n_labels
    if labels is None:
        return np.arange(L)
    lab = np.asarray(labels).reshape(-1)
    if lab.size and not np.array_equal(lab, np.arange(L)):
        if lab.max() > L - 1:
            raise ValueError(
                "All labels must be in [0, n labels) for multilabel targets. "
                f"Got {lab.max()} > {L - 1}"
            )
        if lab.min() < 0:
            raise ValueError(
                f"All labels must be in [0, n labels) for multilabel targets. Got {lab.min()} < 0"
            )
    return lab.astype(np.intp)


def _ml_prfs(ms, *, beta=1.0, labels=None, pos_label=1, average=None,
             warn_for=("precision", "recall", "f-score"), zero_division="warn", need="prf"):
    _check_zero_division(zero_division)
    _check_beta(beta)
    _check_set_wise_labels("multilabel-indicator", None, average, labels, pos_label)
    idx = _ml_labels(ms, labels)
    if average == "samples":
        tp, pred, true = ms.row_sums(idx)
    else:
        tp, pred, true = ms.tp[idx], ms.pred[idx], ms.true[idx]
    if ms.weighted:  # scikit-learn recovers these as tp + fp and tp + fn
        pred = tp + (pred - tp)
        true = tp + (true - tp)
    return _prf_from_sums(tp, pred, true, beta=beta, average=average, warn_for=warn_for,
                          zero_division=zero_division, need=need, sample_weight=ms.w)


def _prfs_dispatch(y_true, y_pred, sample_weight, n_threads, **kw):
    if multilabel_route(y_true, y_pred):
        return _ml_prfs(multilabel_state(y_true, y_pred, sample_weight), **kw)
    state = _state(y_true, y_pred, sample_weight, n_threads)
    return _prfs_from_state(state, **kw)


def _no_multilabel(y_true, y_pred):
    if multilabel_route(y_true, y_pred):
        raise ValueError("multilabel-indicator is not supported")


def precision_recall_fscore_support(y_true, y_pred, *, beta=1.0, labels=None, pos_label=1,
                                    average=None, warn_for=("precision", "recall", "f-score"),
                                    sample_weight=None, zero_division="warn", n_threads=None):
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
    return _prfs_dispatch(y_true, y_pred, sample_weight, n_threads, beta=beta, labels=labels,
                          pos_label=pos_label, average=average, warn_for=warn_for,
                          zero_division=zero_division)


def fbeta_score(y_true, y_pred, *, beta, labels=None, pos_label=1, average="binary",
                sample_weight=None, zero_division="warn", n_threads=None):
    """F-beta score (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> round(skm.fbeta_score([0, 1, 1, 0], [0, 1, 0, 0], beta=0.5), 6)
    0.833333
    """
    return _prfs_dispatch(y_true, y_pred, sample_weight, n_threads, beta=beta, labels=labels,
                          pos_label=pos_label, average=average, warn_for=("f-score",),
                          zero_division=zero_division, need="f")[2]


def f1_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
             sample_weight=None, zero_division="warn", n_threads=None):
    """F1 score, the harmonic mean of precision and recall (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.f1_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro")
    0.26666666666666666
    """
    if multilabel_route(y_true, y_pred):
        return _ml_prfs(multilabel_state(y_true, y_pred, sample_weight), labels=labels,
                        pos_label=pos_label, average=average, warn_for=("f-score",),
                        zero_division=zero_division, need="f")[2]
    # the most common call: spelled out rather than dispatched, it stays under 20 us
    return _prfs_from_state(_state(y_true, y_pred, sample_weight, n_threads), labels=labels,
                            pos_label=pos_label, average=average, warn_for=("f-score",),
                            zero_division=zero_division, need="f")[2]


def precision_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                    sample_weight=None, zero_division="warn", n_threads=None):
    """Precision ``tp / (tp + fp)`` (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.precision_score([0, 1, 1, 0], [0, 1, 1, 1])
    0.6666666666666666
    """
    return _prfs_dispatch(y_true, y_pred, sample_weight, n_threads, labels=labels,
                          pos_label=pos_label, average=average, warn_for=("precision",),
                          zero_division=zero_division, need="p")[0]


def recall_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                 sample_weight=None, zero_division="warn", n_threads=None):
    """Recall ``tp / (tp + fn)`` (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.recall_score([0, 1, 1, 0], [0, 1, 0, 0])
    0.5
    """
    return _prfs_dispatch(y_true, y_pred, sample_weight, n_threads, labels=labels,
                          pos_label=pos_label, average=average, warn_for=("recall",),
                          zero_division=zero_division, need="r")[1]


# --------------------------------------------------------------------------- others


def _present_cm(state):
    cm = state.cm[np.ix_(state.present, state.present)] if not state.present.all() else state.cm
    if cm.shape == (1, 1):
        _single_label_warning()
    return cm


def _mcc_from_state(state):
    C = _present_cm(state)
    t_sum = C.sum(axis=1, dtype=np.float64)
    p_sum = C.sum(axis=0, dtype=np.float64)
    n_correct = np.trace(C, dtype=np.float64)
    n_samples = p_sum.sum()
    cov_ytyp = n_correct * n_samples - np.dot(t_sum, p_sum)
    cov_ypyp = n_samples**2 - np.dot(p_sum, p_sum)
    cov_ytyt = n_samples**2 - np.dot(t_sum, t_sum)
    cov = cov_ypyp * cov_ytyt
    if cov == 0:
        return 0.0
    return float(cov_ytyp / np.sqrt(cov))


def matthews_corrcoef(y_true, y_pred, *, sample_weight=None, n_threads=None):
    """Matthews correlation coefficient (multiclass, scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> round(skm.matthews_corrcoef([+1, +1, +1, -1], [+1, -1, +1, +1]), 6)
    -0.333333
    """
    _no_multilabel(y_true, y_pred)
    return _mcc_from_state(_state(y_true, y_pred, sample_weight, n_threads))


def _balanced_from_state(state, adjusted=False):
    C = _present_cm(state)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_class = np.diagonal(C) / C.sum(axis=1)
    if np.isnan(per_class).any():
        warnings.warn("y_pred contains classes not in y_true", UserWarning, stacklevel=3)
        per_class = per_class[~np.isnan(per_class)]
    score = np.mean(per_class)
    if adjusted:
        n_classes = per_class.shape[0]
        chance = 1 / n_classes
        score -= chance
        score /= 1 - chance
    return float(score)


def balanced_accuracy_score(y_true, y_pred, *, sample_weight=None, adjusted=False,
                            n_threads=None):
    """Balanced accuracy: the mean of per-class recall (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.balanced_accuracy_score([0, 1, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1])
    0.625
    """
    _no_multilabel(y_true, y_pred)
    return _balanced_from_state(_state(y_true, y_pred, sample_weight, n_threads), adjusted)


def cohen_kappa_score(y1, y2, *, labels=None, weights=None, sample_weight=None,
                      replace_undefined_by=np.nan, n_threads=None):
    """Cohen's kappa: agreement between two annotators (scikit-learn compatible).

    Examples
    --------
    >>> import fastmetrics as skm
    >>> skm.cohen_kappa_score(["neg", "pos", "neg", "neu", "pos"],
    ...                       ["neg", "pos", "neg", "neu", "neg"])
    0.6875
    """
    _no_multilabel(y1, y2)
    state = confusion_state(y1, y2, sample_weight, n_threads=n_threads)
    return _kappa_from_state(state, labels, weights, replace_undefined_by)


def _kappa_from_state(state, labels, weights, replace_undefined_by):
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    try:
        confusion = _confusion_from_state(state, labels, None)
    except ValueError as e:
        if "At least one label specified must be in y_true" in str(e):
            raise ValueError(
                "At least one label in `labels` must be present in `y1` (even though "
                "`cohen_kappa_score` is otherwise agnostic to the order of `y1` and `y2`)."
            ) from e
        raise
    n_classes = confusion.shape[0]
    confusion = confusion.astype(np.float64, copy=False)
    sum0 = np.sum(confusion, axis=0)
    sum1 = np.sum(confusion, axis=1)
    numerator = np.outer(sum0, sum1)
    denominator = np.sum(sum0)
    if denominator == 0:
        warnings.warn(
            "`y2` contains no labels that are present in both `y1` and `labels`."
            "`cohen_kappa_score` is undefined and set to the value defined by the "
            f"`replace_undefined_by` param, which is set to {replace_undefined_by}.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return replace_undefined_by
    expected = numerator / denominator
    if weights is None:
        w_mat = np.ones([n_classes, n_classes], dtype=np.float64)
        np.fill_diagonal(w_mat, 0)
    else:
        w_mat = np.zeros([n_classes, n_classes], dtype=np.float64)
        w_mat += np.arange(n_classes)
        w_mat = np.abs(w_mat - w_mat.T) if weights == "linear" else (w_mat - w_mat.T) ** 2
    k = np.sum(w_mat * confusion)
    d = np.sum(w_mat * expected)
    if d == 0:
        warnings.warn(
            "`y1`, `y2` and `labels` have only one label in common. `cohen_kappa_score` is "
            "undefined and set to the value defined by the the `replace_undefined_by` "
            f"param, which is set to {replace_undefined_by}.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return replace_undefined_by
    return float(1 - k / d)


def classification_report(y_true, y_pred, *, labels=None, target_names=None,
                          sample_weight=None, digits=2, output_dict=False,
                          zero_division="warn", n_threads=None):
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
    if multilabel_route(y_true, y_pred):
        ms = multilabel_state(y_true, y_pred, sample_weight)
        present = np.arange(ms.n_labels)
        averages: tuple[str, ...] = ("micro", "macro", "weighted", "samples")

        def prfs(**kw):
            return _ml_prfs(ms, **kw)

        multilabel = True
    else:
        state = _state(y_true, y_pred, sample_weight, n_threads)
        return _report_from_state(state, labels, target_names, digits, output_dict,
                                  zero_division)
    return _report(prfs, present, averages, multilabel, labels, target_names, digits,
                   output_dict, zero_division)


def _report_from_state(state, labels, target_names, digits, output_dict, zero_division):
    """classification_report of a (binary / multiclass) confusion state."""

    def prfs(**kw):
        return _prfs_from_state(state, **kw)

    return _report(prfs, state.present_labels, ("micro", "macro", "weighted"), False, labels,
                   target_names, digits, output_dict, zero_division)


def _report(prfs, present, averages, multilabel, labels, target_names, digits, output_dict,
            zero_division):
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
            warnings.warn(
                f"labels size, {len(labels)}, does not match size of target_names, "
                f"{len(target_names)}",
                UserWarning,
                stacklevel=3,
            )
        else:
            raise ValueError(
                f"Number of classes, {len(labels)}, does not match size of target_names, "
                f"{len(target_names)}. Try specifying the labels parameter"
            )
    if target_names is None:
        target_names = ["%s" % lab for lab in labels]
    headers = ["precision", "recall", "f1-score", "support"]
    p, r, f1, s = prfs(labels=labels, average=None, zero_division=zero_division)
    rows = list(zip(target_names, p, r, f1, s))
    if output_dict:
        report_dict = {row[0]: dict(zip(headers, [float(v) for v in row[1:]])) for row in rows}
    else:
        width = max(max(len(cn) for cn in target_names), len("weighted avg"), digits)
        head_fmt = "{:>{width}s} " + " {:>9}" * len(headers)
        report = head_fmt.format("", *headers, width=width) + "\n\n"
        row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
        for row in rows:
            report += row_fmt.format(*row, width=width, digits=digits)
        report += "\n"
    for average in averages:
        heading = "accuracy" if average == "micro" and micro_is_accuracy else average + " avg"
        ap, ar, af, _ = prfs(labels=labels, average=average, zero_division=zero_division)
        avg = [ap, ar, af, np.sum(s)]
        if output_dict:
            report_dict[heading] = dict(zip(headers, [float(v) for v in avg]))
        elif heading == "accuracy":
            fmt = "{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}" + " {:>9}\n"
            report += fmt.format(heading, "", "", *avg[2:], width=width, digits=digits)
        else:
            report += row_fmt.format(heading, *avg, width=width, digits=digits)
    if output_dict:
        if "accuracy" in report_dict:
            report_dict["accuracy"] = report_dict["accuracy"]["precision"]  # type: ignore[assignment]
        return report_dict
    return report
