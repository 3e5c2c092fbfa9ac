"""Ranking metrics: ROC AUC, average precision and their curves, NDCG and MRR.

Every binary problem goes through one kernel call (:mod:`fastmetrics._rank`): scores become
order-preserving integer keys, positives and negatives are radix sorted separately, and one
merging walk over the two sorted runs yields either the metrics (AUC, AP) or the sorted
summary ``(threshold, positive weight, negative weight)``, the mergeable state from which
every curve is derived (:func:`_binary_summary`, :func:`_merge_summaries`,
:func:`_summary_roc_curve`, ...).

Numbers, warnings and output dtypes follow scikit-learn 1.9.1's ``sklearn.metrics``.
"""

from __future__ import annotations

import numbers
import threading
import warnings
from itertools import combinations

import numpy as np

from ._kernels import ranking as _rank
from ._threads import resolve_n_threads
from ._validation import check_sample_weight, native

__all__ = [
    "roc_auc_score",
    "average_precision_score",
    "roc_curve",
    "precision_recall_curve",
    "ndcg_score",
    "mean_reciprocal_rank",
]

from .exceptions import UndefinedMetricWarning  # scikit-learn's class when installed


# statistics row written by the kernels (mirrors _rank.pyx)
_NPOS, _NNEG, _P, _N, _AUC2, _AP, _NTHR = range(7)
_NSTATS = 7
_FAST_LABELS = frozenset("bhilqBHILQ")
_NO_W = np.empty(0, dtype=np.float64)
_ZERO_U8 = np.zeros(1, dtype=np.uint8)


# ----------------------------------------------------------------------------- inputs
def _scores(y_score, name="y_score", ndim=1):
    """float32/float64 native scores (other numeric dtypes are converted once)."""
    s = y_score if type(y_score) is np.ndarray else np.asarray(y_score)
    if s.dtype.char not in "fd":
        if s.dtype.kind not in "iubf":
            raise TypeError(f"{name} must be numeric, got dtype {s.dtype}")
        s = s.astype(np.float64)
    elif not s.dtype.isnative:
        s = native(s)
    if ndim == 1 and s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    return s


def _raise_bad(bad, name="y_score"):
    row, col, kind = int(bad[0]), int(bad[1]), int(bad[2])
    if kind == 1:
        raise ValueError(f"sample_weight contains a non-finite value (NaN or inf) at index {row}")
    where = f"index {row}" if col == 0 else f"row {row}, column {col}"
    raise ValueError(
        f"{name} contains a non-finite value (NaN or +/-inf) at {where}: scores must be finite"
    )


class _Labels:
    """1-D labels ready for the kernel: ``y`` (an int/uint dtype, read without copy for
    integer and bool input) and the sorted distinct values ``classes`` (all of them on the
    encoded path; at most two plus ``more`` on the fast path)."""

    __slots__ = ("y", "classes", "more", "encoded")

    def __init__(self, y_true, name="y_true"):
        a = y_true if type(y_true) is np.ndarray else np.asarray(y_true)
        if a.ndim == 2 and a.shape[1] == 1:
            a = a[:, 0]
        if a.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
        if a.shape[0] == 0:
            raise ValueError(f"{name} is empty: at least one sample is required")
        if a.dtype.kind == "b":
            a = a.view(np.uint8)
            kind_bool = True
        else:
            kind_bool = False
        if a.dtype.char in _FAST_LABELS:
            a = native(a)
            nd, v0, v1 = _rank.label_scan(a)
            vals = sorted({v0, v1})
            self.classes = np.array(vals, dtype=bool if kind_bool else a.dtype)
            self.more = nd > 2
            self.encoded = False
            self.y = a
        else:
            if a.dtype.kind == "f":
                if not np.isfinite(a).all():
                    raise ValueError(f"{name} contains NaN or infinity")
            classes, codes = np.unique(a, return_inverse=True)
            if a.dtype.kind == "f" and np.any(classes != np.floor(classes)):
                raise ValueError("continuous format is not supported")
            self.classes = classes
            self.more = classes.shape[0] > 2
            self.encoded = True
            self.y = codes.astype(np.int64, copy=False)

    def code(self, label):
        """Kernel value of ``label`` as a length-1 array of the kernel dtype, or None when
        no sample can equal it."""
        if self.encoded:
            idx = np.flatnonzero(self.classes == label) if _comparable(self.classes, label) else []  # type: ignore[var-annotated]
            return np.array([idx[0]], dtype=np.int64) if len(idx) else None
        if isinstance(label, (bool, np.bool_)):
            label = int(label)
        if isinstance(label, (str, bytes)) or not isinstance(label, numbers.Number):
            return None
        info = np.iinfo(self.y.dtype)
        if label != int(label) or not (info.min <= int(label) <= info.max):  # type: ignore[call-overload]
            return None
        return np.array([int(label)], dtype=self.y.dtype)  # type: ignore[call-overload]


def _comparable(classes, label):
    if classes.dtype.kind in "OUS":
        return isinstance(label, (str, bytes)) or classes.dtype.kind == "O"
    return isinstance(label, numbers.Number)


def _type_of(lab):
    return "multiclass" if lab.more else "binary"


_PAR_MIN = 1 << 17  # the kernel sorts the two runs on two threads from this size


_SCRATCH_CACHE_MAX = 1 << 25  # samples: larger scratch (> 512 MiB) is never kept
_tls = threading.local()


def _scratch(n, has_w):
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
        buf = (keys, tmp, w, wtmp, np.empty(_rank.hist_size(max(m, 1 << 20)), np.uint64))
        if m <= _SCRATCH_CACHE_MAX:
            _tls.scratch = buf
    return buf


def _threads(n):
    return resolve_n_threads(None) if n >= _PAR_MIN else 1


def _plain_binary(y_true, y_score, mode):
    """AUC (mode 0) / AP (mode 1) of plain binary input in one kernel call, or None (then the
    general path validates, warns or raises): see ``_rank.binary_plain``."""
    if type(y_true) is np.ndarray and y_true.ndim == 1 and y_true.shape[0] > _rank.SMALL:
        n = y_true.shape[0]
        return _rank.binary_plain(y_true, y_score, mode, _scratch(n, False), _threads(n))
    return _rank.binary_plain(y_true, y_score, mode)


def _weights(sample_weight, n, allow_zero=False):
    w = check_sample_weight(sample_weight, n)
    if w is None:
        return _NO_W, False
    if n and not allow_zero and not w.any():
        raise ValueError("Sample weights must contain at least one non-zero number.")
    return w, True


# ----------------------------------------------------------------------------- kernels
def _check_lengths(n, n_score, n_w=None):
    if n != n_score or (n_w is not None and n_w != n):
        lens = [n, n_score] + ([] if n_w is None else [n_w])
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {lens}")


def _stats_1d(y, pos, s, w, has_w):
    """Statistics row for ``y == pos`` (pos: length-1 array or None) against the rest."""
    if pos is None:  # nothing is positive
        y = np.broadcast_to(_ZERO_U8, (s.shape[0],))
        pos = np.ones(1, dtype=np.uint8)
    out = np.empty((1, _NSTATS))
    bad = np.full(3, -1, dtype=np.int64)
    zero = np.zeros(1, dtype=np.int64)
    if _rank.binary_stats(y[:, None], s[:, None], w, has_w, zero, zero, pos, pos, True, out,
                          bad, _scratch(s.shape[0], has_w), _threads(s.shape[0])) < 0:
        _raise_bad(bad)
    return out[0]


def _summary_1d(y, pos, s, w, has_w, with_stats=False):
    """``(thresholds, pos_weight, neg_weight)`` (and the statistics row when
    ``with_stats``) of ``y == pos`` against the rest."""
    if pos is None:
        y = np.broadcast_to(_ZERO_U8, (s.shape[0],))
        pos = np.ones(1, dtype=np.uint8)
    n = s.shape[0]
    stats = np.empty(_NSTATS)
    thr = np.empty(n)
    p = np.empty(n)
    q = np.empty(n)
    bad = np.full(3, -1, dtype=np.int64)
    m = _rank.binary_summary(y[:, None], s[:, None], w, has_w, pos[0], stats, thr, p, q, bad,
                             _scratch(n, has_w), _threads(n))
    if m < 0:
        _raise_bad(bad)
    if m < n:
        thr, p, q = thr[:m].copy(), p[:m].copy(), q[:m].copy()
    return (thr, p, q, stats) if with_stats else (thr, p, q)


def _prepare_binary(y_true, y_score, sample_weight, allow_zero_weights=False):
    lab = _Labels(y_true)
    s = _scores(y_score)
    if s.ndim != 1:
        raise ValueError(f"y_score must be 1-D for a binary problem, got shape {s.shape}")
    n = lab.y.shape[0]
    _check_lengths(n, s.shape[0])
    w, has_w = _weights(sample_weight, n, allow_zero_weights)
    return lab, s, w, has_w


def _curve_pos_label(lab, pos_label):
    """scikit-learn's rules for the curves: binary y_true (or any y_true with an explicit
    pos_label); pos_label None only for {0, 1} / {-1, 1} style labels."""
    if lab.more and pos_label is None:
        raise ValueError("multiclass format is not supported")
    if pos_label is None:
        c = lab.classes
        ok = c.dtype.kind not in "OUS" and any(
            c.shape == np.shape(ref) and np.all(c == ref)
            for ref in ([0, 1], [-1, 1], [0], [-1], [1])
        )
        if not ok:
            classes_repr = ", ".join(repr(v) for v in c.tolist())
            raise ValueError(
                f"y_true takes value in {{{classes_repr}}} and pos_label is not "
                "specified: either make y_true take value in {0, 1} or {-1, 1} or pass "
                "pos_label explicitly."
            )
        pos_label = 1
    return lab.code(pos_label)


def _binary_summary(y_true, y_score, sample_weight=None, pos_label=None):
    """The mergeable state of one binary problem.

    Returns ``(thresholds, pos_weight, neg_weight)``: the distinct scores in decreasing order
    (float64, zero-weight samples left out) with the positive / negative weight tied at each.
    Two summaries merge with :func:`_merge_summaries`; the curves and scores follow from
    :func:`_summary_roc_curve`, :func:`_summary_pr_curve` and :func:`_summary_scores`.
    """
    lab, s, w, has_w = _prepare_binary(y_true, y_score, sample_weight)
    return _summary_1d(lab.y, _curve_pos_label(lab, pos_label), s, w, has_w)


def _merge_summaries(a, b):
    """Merge two summaries (same layout as :func:`_binary_summary`): union of thresholds,
    weights of equal thresholds added."""
    thr = np.concatenate([a[0], b[0]])
    u, inv = np.unique(-thr, return_inverse=True)
    p = np.bincount(inv, weights=np.concatenate([a[1], b[1]]), minlength=u.shape[0])
    q = np.bincount(inv, weights=np.concatenate([a[2], b[2]]), minlength=u.shape[0])
    return -u + 0.0, p, q


def _summary_scores(summary):
    """``(P, N, roc_auc, average_precision)`` of a summary (no warnings; nan where
    undefined)."""
    st = np.zeros(_NSTATS)
    _rank.summary_stats(np.ascontiguousarray(summary[1]), np.ascontiguousarray(summary[2]), st)
    P, N = st[_P], st[_N]
    auc = st[_AUC2] / (2.0 * P * N) if P > 0 and N > 0 else np.nan
    ap = max(0.0, st[_AP] / P) if P != 0 else 0.0
    return P, N, auc, ap


def _keep_corners(a, b):
    """scikit-learn's drop_intermediate mask: first, last and points where a or b bends."""
    keep = np.ones(a.shape[0], dtype=bool)
    keep[1:-1] = np.logical_or(np.diff(a, 2), np.diff(b, 2))
    return keep


def _summary_roc_curve(summary, drop_intermediate=True, warn=True):
    thr, p, q = summary
    tps = np.cumsum(p)
    fps = np.cumsum(q)
    if drop_intermediate and fps.shape[0] > 2:
        keep = _keep_corners(fps, tps)
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    tps = np.concatenate([[0.0], tps])
    fps = np.concatenate([[0.0], fps])
    thresholds = np.concatenate([[np.inf], thr])
    if fps[-1] <= 0:
        if warn:
            warnings.warn(
                "No negative samples in y_true, false positive value should be meaningless",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        if warn:
            warnings.warn(
                "No positive samples in y_true, true positive value should be meaningless",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return fpr, tpr, thresholds


def _summary_pr_curve(summary, drop_intermediate=False, warn=True):
    thr, p, q = summary
    tps = np.cumsum(p)
    fps = np.cumsum(q)
    if drop_intermediate and fps.shape[0] > 2:
        keep = np.ones(tps.shape[0], dtype=bool)
        keep[1:-1] = np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    ps = tps + fps
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(ps != 0, tps / np.where(ps != 0, ps, 1.0), 0.0)
    if tps[-1] == 0:
        if warn:
            warnings.warn(
                "No positive class found in y_true, recall is set to one for all thresholds.",
                stacklevel=3,
            )
        recall = np.full(tps.shape, 1.0)
    else:
        recall = tps / tps[-1]
    return (
        np.concatenate([precision[::-1], [1.0]]),
        np.concatenate([recall[::-1], [0.0]]),
        thr[::-1],
    )


# ----------------------------------------------------------------------------- curves
def roc_curve(y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=True):
    """Compute Receiver operating characteristic (ROC), like ``sklearn.metrics.roc_curve``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels. If labels are not either {-1, 1} or {0, 1}, then
        ``pos_label`` should be explicitly given.
    y_score : array-like of shape (n_samples,)
        Target scores (probabilities or decision values); must be finite.
    pos_label : int, float, bool or str, default=None
        The label of the positive class (1 when ``None`` and y_true is {0, 1} / {-1, 1}).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; zero-weight samples do not create thresholds.
    drop_intermediate : bool, default=True
        Drop thresholds whose point is collinear with its neighbours in ROC space.

    Returns
    -------
    fpr : ndarray of shape (>2,)
        Increasing false positive rates.
    tpr : ndarray of shape (>2,)
        Increasing true positive rates.
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing thresholds (float64); the first one is ``np.inf``.

    Notes
    -----
    The scores are sorted by a radix sort of order-preserving integer keys; the call
    allocates 2 N uint64 keys (plus 2 N doubles with sample weights) and the outputs.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import roc_curve
    >>> fpr, tpr, thresholds = roc_curve(np.array([1, 1, 2, 2]),
    ...                                  np.array([0.1, 0.4, 0.35, 0.8]), pos_label=2)
    >>> fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    >>> tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    >>> thresholds
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])
    """
    summary = _binary_summary(y_true, y_score, sample_weight, pos_label)
    return _summary_roc_curve(summary, drop_intermediate)


def precision_recall_curve(
    y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=False
):
    """Compute precision-recall pairs for different thresholds, like
    ``sklearn.metrics.precision_recall_curve``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels. If labels are not either {-1, 1} or {0, 1}, then
        ``pos_label`` should be explicitly given.
    y_score : array-like of shape (n_samples,)
        Target scores; must be finite.
    pos_label : int, float, bool or str, default=None
        The label of the positive class.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    drop_intermediate : bool, default=False
        Keep only the first and last threshold of each run of equal true-positive weight.

    Returns
    -------
    precision : ndarray of shape (n_thresholds + 1,)
        Precision at each threshold; the last element is 1.
    recall : ndarray of shape (n_thresholds + 1,)
        Decreasing recall; the last element is 0.
    thresholds : ndarray of shape (n_thresholds,)
        Increasing thresholds, in ``y_score``'s dtype.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import precision_recall_curve
    >>> precision, recall, thresholds = precision_recall_curve(
    ...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> precision
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    >>> thresholds
    array([0.1 , 0.35, 0.4 , 0.8 ])
    """
    a = y_score if type(y_score) is np.ndarray else np.asarray(y_score)
    summary = _binary_summary(y_true, a, sample_weight, pos_label)
    precision, recall, thr = _summary_pr_curve(summary, drop_intermediate)
    return precision, recall, thr.astype(a.dtype.newbyteorder("="), copy=False)


# ----------------------------------------------------------------------------- scores
def _roc_auc_from_stats(st, max_fpr, summary_fn):
    """scikit-learn's ``_binary_roc_auc_score`` on one statistics row."""
    if st[_NPOS] == 0 or st[_NNEG] == 0:
        warnings.warn(
            "Only one class is present in y_true. ROC AUC score is not defined in that case.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return np.nan
    if max_fpr is not None and max_fpr != 1:
        fpr, tpr, _ = _summary_roc_curve(summary_fn(), True)
        stop = np.searchsorted(fpr, max_fpr, "right")
        x_interp = [fpr[stop - 1], fpr[stop]]
        y_interp = [tpr[stop - 1], tpr[stop]]
        tpr = np.append(tpr[:stop], np.interp(max_fpr, x_interp, y_interp))
        fpr = np.append(fpr[:stop], max_fpr)
        if fpr.shape[0] < 2:
            raise ValueError(
                "At least 2 points are needed to compute area under curve, but x.shape = "
                f"{fpr.shape[0]}"
            )
        partial_auc = float(np.trapezoid(tpr, fpr))
        min_area = 0.5 * max_fpr**2
        max_area = max_fpr
        return 0.5 * (1 + (partial_auc - min_area) / (max_area - min_area))
    P, N = st[_P], st[_N]
    if N <= 0:
        warnings.warn(
            "No negative samples in y_true, false positive value should be meaningless",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    if P <= 0:
        warnings.warn(
            "No positive samples in y_true, true positive value should be meaningless",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    if P <= 0 or N <= 0:
        return np.nan
    return float(st[_AUC2] / (2.0 * P * N))


def _ap_from_stats(st):
    """scikit-learn's step-wise AP on one statistics row (warning when no positives)."""
    if st[_P] == 0:
        warnings.warn(
            "No positive class found in y_true, recall is set to one for all thresholds.",
            stacklevel=3,
        )
        return 0.0
    return float(max(0.0, st[_AP] / st[_P]))


def _check_average(average, options):
    if average not in options:
        raise ValueError(f"average has to be one of {options}")


def _columns_stats(y2d, ycol, s2d, w, has_w, pos, neg=None):
    """Statistics rows of many binary problems in one kernel call (no Python loop)."""
    k = ycol.shape[0]
    out = np.empty((k, _NSTATS))
    bad = np.full(3, -1, dtype=np.int64)
    scol = np.arange(k, dtype=np.int64) if s2d.shape[1] == k else ycol
    neg_any = neg is None
    if _rank.binary_stats(y2d, s2d, w, has_w, ycol, scol, pos, pos if neg_any else neg,
                          neg_any, out, bad, _scratch(s2d.shape[0], has_w),
                          _threads(s2d.shape[0])) < 0:
        _raise_bad(bad)
    return out


def _average_columns(metric, y_ind, s2d, average, sample_weight):
    """scikit-learn's ``_average_binary_score`` over an (n, K) indicator matrix ``y_ind``
    (any int/bool dtype, values 0/1) and scores ``s2d``; ``metric(stats_row)``."""
    n, k = s2d.shape
    yk = y_ind.view(np.uint8) if y_ind.dtype.kind == "b" else native(y_ind)
    if yk.dtype.char not in _FAST_LABELS:
        yk = yk.astype(np.int64)
    if average == "micro":
        w = None
        if sample_weight is not None:
            w = np.repeat(check_sample_weight(sample_weight, n), k)  # type: ignore[arg-type]
        ww, has_w = _weights(w, n * k)
        y1 = np.ascontiguousarray(yk).reshape(-1)
        s1 = np.ascontiguousarray(s2d).reshape(-1)
        return metric(_stats_1d(y1, np.ones(1, dtype=y1.dtype), s1, ww, has_w))
    average_weight = None
    ww, has_w = _weights(sample_weight, n)
    if average == "weighted":
        if has_w:
            average_weight = (yk.astype(ww.dtype) * ww[:, None]).sum(axis=0)
        else:
            average_weight = yk.sum(axis=0)
        if np.isclose(average_weight.sum(), 0):
            return 0
    elif average == "samples":
        average_weight = None if not has_w else ww
        yk, s2d = yk.T, s2d.T
        ww, has_w = _NO_W, False
    kk = s2d.shape[1]
    ycol = np.arange(kk, dtype=np.int64)
    stats = _columns_stats(yk, ycol, s2d, ww, has_w, np.ones(kk, dtype=yk.dtype))
    score = np.array([metric(row) for row in stats])
    if average is None:
        return score
    if average_weight is not None:
        score[average_weight == 0] = 0
    return float(np.average(score, weights=average_weight))


def _indicator(y_true):
    """(n, K) multilabel indicator y_true (values 0/1), or None when y_true is 1-D."""
    a = y_true if type(y_true) is np.ndarray else np.asarray(y_true)
    if a.ndim != 2 or a.shape[1] == 1:
        return None
    if a.dtype.kind not in "biuf":
        raise ValueError("multiclass-multioutput format is not supported")
    if a.size and (a.min() < 0 or a.max() > 1 or (a.dtype.kind == "f" and np.any(a % 1))):
        raise ValueError("multiclass-multioutput format is not supported")
    if a.shape[0] == 0:
        raise ValueError("y_true is empty: at least one sample is required")
    return a if a.dtype.kind != "f" else a.astype(np.int8)


def _scores_2d(y_score, n, k=None):
    s = _scores(y_score, ndim=2)
    if s.ndim != 2:
        raise ValueError(
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` "
            f"contains multiple classes. Got `y_score.shape={s.shape}`."
        )
    if s.shape[0] != n:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: [{n}, {s.shape[0]}]"
        )
    if k is not None and s.shape[1] != k:
        raise ValueError(f"y_score has {s.shape[1]} columns, expected {k}")
    return s


def roc_auc_score(
    y_true,
    y_score,
    *,
    average="macro",
    sample_weight=None,
    max_fpr=None,
    multi_class="raise",
    labels=None,
):
    """Area under the ROC curve, like ``sklearn.metrics.roc_auc_score``.

    Binary, multilabel-indicator and multiclass (``multi_class="ovr"`` or ``"ovo"``)
    targets. A tied positive/negative pair counts one half (trapezoidal rule).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels or a binary label indicator matrix.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Target scores; finite. For binary ``y_true``, the score of the greater label.
    average : {'micro', 'macro', 'samples', 'weighted'} or None, default='macro'
        Averaging over classes (multilabel / multiclass); ignored for binary ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    max_fpr : float > 0 and <= 1, default=None
        If set, the standardized (McClish-corrected) partial AUC over [0, max_fpr].
    multi_class : {'raise', 'ovr', 'ovo'}, default='raise'
        Multiclass scheme: one-vs-rest or Hand & Till's one-vs-one.
    labels : array-like of shape (n_classes,), default=None
        Multiclass only: the labels indexing the columns of ``y_score``.

    Returns
    -------
    auc : float or ndarray
        The score (an array per class with ``average=None``); nan with an
        ``UndefinedMetricWarning`` when ``y_true`` has one class.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import roc_auc_score
    >>> roc_auc_score(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    0.75
    """
    if (
        sample_weight is None
        and max_fpr is None
        and labels is None
        and type(average) is str
        and average == "macro"
        and type(multi_class) is str
        and multi_class == "raise"
    ):
        auc = _plain_binary(y_true, y_score, 0)
        if auc is not None:
            return auc
    if max_fpr is not None and (
        isinstance(max_fpr, bool)
        or not isinstance(max_fpr, numbers.Real)
        or not (0 < max_fpr <= 1)  # type: ignore[operator]
    ):
        raise ValueError(f"max_fpr must be a float in the range (0.0, 1.0] or None, got {max_fpr!r}")
    if multi_class not in ("raise", "ovr", "ovo"):
        raise ValueError(f"multi_class must be one of 'raise', 'ovr', 'ovo', got {multi_class!r}")
    _check_average(average, (None, "micro", "macro", "weighted", "samples"))
    ind = _indicator(y_true)
    if ind is not None:  # multilabel-indicator
        s = _scores_2d(y_score, ind.shape[0], ind.shape[1])
        return _average_columns(
            lambda st: _roc_auc_from_stats(st, max_fpr, lambda: None) if max_fpr in (None, 1)
            else _roc_auc_partial_column(ind, s, st, max_fpr, sample_weight),
            ind, s, average, sample_weight,
        )
    lab = _Labels(y_true)
    s = _scores(y_score)
    if lab.more or (s.ndim == 2 and s.shape[1] > 2):
        if max_fpr is not None and max_fpr != 1.0:
            raise ValueError(
                "Partial AUC computation not available in multiclass setting, 'max_fpr' must "
                f"be set to `None`, received `max_fpr={max_fpr}` instead"
            )
        if multi_class == "raise":
            raise ValueError("multi_class must be in ('ovo', 'ovr')")
        return _multiclass_roc_auc(y_true, lab, s, labels, multi_class, average, sample_weight)
    if s.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {s.shape} instead.")
    n = lab.y.shape[0]
    _check_lengths(n, s.shape[0])
    w, has_w = _weights(sample_weight, n)
    # binary: the positive class is the greater label
    pos = lab.code(lab.classes[-1]) if lab.classes.shape[0] == 2 else None
    st = _stats_1d(lab.y, pos, s, w, has_w)
    return _roc_auc_from_stats(st, max_fpr, lambda: _summary_1d(lab.y, pos, s, w, has_w))


def _roc_auc_partial_column(ind, s, st, max_fpr, sample_weight):  # pragma: no cover - rare
    raise NotImplementedError("max_fpr with multilabel y_true is not supported by fastmetrics")


def _multiclass_roc_auc(y_true, lab, s, labels, multi_class, average, sample_weight):
    if s.ndim != 2:
        raise ValueError(
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
            f"multiple classes. Got `y_score.shape={s.shape}`."
        )
    n = lab.y.shape[0]
    if s.shape[0] != n:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: [{n}, {s.shape[0]}]"
        )
    if not np.allclose(1, s.sum(axis=1)):
        raise ValueError(
            "Target scores need to be probabilities for multiclass roc_auc, i.e. they should "
            "sum up to 1.0 over classes"
        )
    average_options = ("macro", "weighted", None)
    if multi_class == "ovr":
        average_options = ("micro",) + average_options  # type: ignore[assignment]
    if average not in average_options:
        raise ValueError(f"average must be one of {average_options} for multiclass problems")
    if average is None and multi_class == "ovo":
        raise NotImplementedError("average=None is not implemented for multi_class='ovo'.")
    a = y_true if type(y_true) is np.ndarray else np.asarray(y_true)
    a = a.reshape(-1)
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
                f"in 'y_score', {s.shape[1]}"
            )
        if len(np.setdiff1d(a, classes)):
            raise ValueError("'y_true' contains labels not in parameter 'labels'")
    else:
        classes = lab.classes if lab.encoded else np.unique(a)
        if len(classes) != s.shape[1]:
            raise ValueError(
                "Number of classes in y_true not equal to the number of columns in 'y_score'"
            )
    codes = np.searchsorted(classes, a).astype(np.int64)
    k = classes.shape[0]
    if multi_class == "ovo":
        if sample_weight is not None:
            raise ValueError(
                "sample_weight is not supported for multiclass one-vs-one ROC AUC, "
                "'sample_weight' must be None in this case."
            )
        present = np.unique(codes)
        pairs = list(combinations(present.tolist(), 2))
        pa = np.array([p for ab in pairs for p in ab], dtype=np.int64)
        pb = np.array([q for a_, b_ in pairs for q in (b_, a_)], dtype=np.int64)
        out = np.empty((pa.shape[0], _NSTATS))
        bad = np.full(3, -1, dtype=np.int64)
        zero = np.zeros(pa.shape[0], dtype=np.int64)
        if _rank.binary_stats(codes[:, None], s, _NO_W, False, zero, pa, pa, pb, False, out,
                              bad, _scratch(n, False), _threads(n)) < 0:
            _raise_bad(bad)
        auc = np.array([_roc_auc_from_stats(row, None, None) for row in out])
        pair_scores = (auc[0::2] + auc[1::2]) / 2
        prevalence = None
        if average == "weighted":
            prevalence = (out[0::2, _NPOS] + out[0::2, _NNEG]) / n
        return float(np.average(pair_scores, weights=prevalence))
    # ovr: problem j reads the one codes column, positive where code == j
    if average == "micro":
        ind = codes[:, None] == np.arange(k)
        return _average_columns(
            lambda st: _roc_auc_from_stats(st, None, None), ind, s, average, sample_weight
        )
    ww, has_w = _weights(sample_weight, n)
    stats = _columns_stats(codes[:, None], np.zeros(k, dtype=np.int64), s, ww, has_w,
                           np.arange(k, dtype=np.int64))
    score = np.array([_roc_auc_from_stats(row, None, None) for row in stats])
    if average is None:
        return score
    average_weight = None
    if average == "weighted":
        average_weight = stats[:, _P] if has_w else stats[:, _NPOS]
        if np.isclose(average_weight.sum(), 0):
            return 0
        score[average_weight == 0] = 0
    return float(np.average(score, weights=average_weight))


def average_precision_score(y_true, y_score, *, average="macro", pos_label=1, sample_weight=None):
    """Average precision (AP) from prediction scores, like
    ``sklearn.metrics.average_precision_score``.

    ``AP = sum_n (R_n - R_{n-1}) P_n`` over the thresholds (the step-wise sum, not a
    trapezoid).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True binary labels, a label indicator matrix, or multiclass labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Target scores; finite.
    average : {'micro', 'samples', 'weighted', 'macro'} or None, default='macro'
        Averaging over classes; ignored for binary ``y_true``.
    pos_label : int, float, bool or str, default=1
        The positive class (binary ``y_true`` only).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    average_precision : float or ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import average_precision_score
    >>> average_precision_score(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    0.8333333333333333
    """
    if (
        sample_weight is None
        and type(pos_label) is int
        and pos_label == 1
        and type(average) is str
        and average == "macro"
    ):
        ap = _plain_binary(y_true, y_score, 1)
        if ap is not None:
            return ap
    _check_average(average, (None, "micro", "macro", "weighted", "samples"))
    ind = _indicator(y_true)
    if ind is not None:
        if pos_label != 1:
            raise ValueError(
                "Parameter pos_label is fixed to 1 for multilabel-indicator y_true. Do not set "
                "pos_label or set pos_label to 1."
            )
        s = _scores_2d(y_score, ind.shape[0])
        if s.shape != ind.shape:
            raise ValueError(f"y_true and y_score have different shapes: {ind.shape} and {s.shape}")
        return _average_columns(_ap_from_stats, ind, s, average, sample_weight)
    lab = _Labels(y_true)
    if lab.more:
        if pos_label != 1:
            raise ValueError(
                "Parameter pos_label is fixed to 1 for multiclass y_true. Do not set pos_label "
                "or set pos_label to 1."
            )
        a = y_true if type(y_true) is np.ndarray else np.asarray(y_true)
        classes = lab.classes if lab.encoded else np.unique(a)
        codes = lab.y if lab.encoded else np.searchsorted(classes, a.reshape(-1))
        s = _scores_2d(y_score, lab.y.shape[0])
        if s.shape[1] != classes.shape[0]:
            raise ValueError(
                "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` "
                f"contains multiple classes. Got `y_score.shape={s.shape}`."
            )
        ind = codes[:, None] == np.arange(classes.shape[0])
        return _average_columns(_ap_from_stats, ind, s, average, sample_weight)
    lab_, s, w, has_w = lab, _scores(y_score), None, None
    if s.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {s.shape} instead.")
    n = lab.y.shape[0]
    _check_lengths(n, s.shape[0])
    w, has_w = _weights(sample_weight, n)
    if lab_.classes.shape[0] == 2 and not np.any(lab_.classes == pos_label):
        raise ValueError(
            f"pos_label={pos_label} is not a valid label. It should be one of {lab_.classes}"
        )
    st = _stats_1d(lab.y, lab.code(pos_label), s, w, has_w)
    return _ap_from_stats(st)


# ----------------------------------------------------------------------------- NDCG / MRR
def _check_k(k):
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an int >= 1 or None, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return int(k)


def _matrix(a, name):
    a = a if type(a) is np.ndarray else np.asarray(a)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {a.dtype}")
    if a.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D (n_samples, n_labels) array, got shape {a.shape}"
        )
    if a.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one sample is required")
    a = a.astype(np.float64, copy=False)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return a


def _dcg(gains, scores, discount, ignore_ties):
    """Per-row DCG: gains ranked by decreasing scores, ties averaged (all rows at once)."""
    n, m = gains.shape
    if ignore_ties:
        ranking = np.argsort(scores)[:, ::-1]  # the same order scikit-learn uses
        ranked = np.take_along_axis(gains, ranking, axis=1)
        return discount.dot(ranked.T)
    order = np.argsort(-scores, axis=1, kind="stable")
    s = np.take_along_axis(scores, order, axis=1)
    g = np.take_along_axis(gains, order, axis=1)
    start = np.ones((n, m), dtype=bool)
    start[:, 1:] = s[:, 1:] != s[:, :-1]
    gid = np.cumsum(start.ravel()) - 1
    n_groups = gid[-1] + 1
    cnt = np.bincount(gid, minlength=n_groups)
    gsum = np.bincount(gid, weights=g.ravel(), minlength=n_groups)
    dsum = np.bincount(gid, weights=np.broadcast_to(discount, (n, m)).ravel(),
                       minlength=n_groups)
    row = np.broadcast_to(np.arange(n)[:, None], (n, m))[start]
    return np.bincount(row, weights=gsum / cnt * dsum, minlength=n)


def ndcg_score(y_true, y_score, *, k=None, sample_weight=None, ignore_ties=False):
    """Normalized Discounted Cumulative Gain, like ``sklearn.metrics.ndcg_score``.

    Gains ``y_true`` are ranked by decreasing ``y_score`` with a ``1 / log2(rank + 1)``
    discount, summed over the first ``k`` ranks and divided by the best possible DCG. Tied
    scores share the average gain of their group (unless ``ignore_ties``). All rows are
    handled at once by vectorised numpy (a sort per row, no Python loop over rows).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Non-negative relevance of each label.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores; finite.
    k : int, default=None
        Only the ``k`` highest-ranked positions count (``k >= 1``).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the average.
    ignore_ties : bool, default=False
        Assume no ties (faster; ties are then broken by ``np.argsort``'s order).

    Returns
    -------
    normalized_discounted_cumulative_gain : float in [0., 1.]

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import ndcg_score
    >>> ndcg_score(np.array([[10, 0, 0, 1, 5]]), np.array([[.1, .2, .3, 4, 70]]))
    0.6956940443813076
    """
    k = _check_k(k)
    yt = _matrix(y_true, "y_true")
    ys = _matrix(y_score, "y_score")
    if yt.shape != ys.shape:
        raise ValueError(f"y_true and y_score have different shapes: {yt.shape} and {ys.shape}")
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, yt.shape[0])
    if yt.min() < 0:
        raise ValueError("ndcg_score should not be used on negative y_true values.")
    if yt.shape[1] <= 1:
        raise ValueError(
            "Computing NDCG is only meaningful when there is more than 1 document. "
            f"Got {yt.shape[1]} instead."
        )
    m = yt.shape[1]
    discount = 1 / (np.log(np.arange(m) + 2) / np.log(2))
    if k is not None:
        discount[k:] = 0
    gain = _dcg(yt, ys, discount, ignore_ties)
    norm = discount.dot(-np.sort(-yt, axis=1).T)
    irrelevant = norm == 0
    gain[irrelevant] = 0
    gain[~irrelevant] /= norm[~irrelevant]
    return float(np.average(gain, weights=sample_weight))


def mean_reciprocal_rank(y_true, y_score, *, sample_weight=None):
    """Mean reciprocal rank of the first relevant label.

    For each sample, the labels are ranked by decreasing score; the rank of the first
    relevant label is ``1 +`` the number of labels scored strictly higher than the best
    scored relevant label (ties are resolved in the relevant label's favour). Samples
    with no relevant label contribute 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels) or (n_samples,)
        Relevance (> 0 is relevant), or for 1-D input the column index of the one correct
        label of each sample.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores; finite.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.

    Returns
    -------
    mrr : float in [0., 1.]

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import mean_reciprocal_rank
    >>> mean_reciprocal_rank(np.array([2, 0]), np.array([[.1, .5, .4], [.7, .2, .1]]))
    0.75
    """
    ys = _matrix(y_score, "y_score")
    n, m = ys.shape
    yt = y_true if type(y_true) is np.ndarray else np.asarray(y_true)
    if yt.ndim == 1:
        if yt.shape[0] != n:
            raise ValueError(
                f"Found input variables with inconsistent numbers of samples: [{yt.shape[0]}, {n}]"
            )
        if yt.dtype.kind not in "iu" or (yt.size and (yt.min() < 0 or yt.max() >= m)):
            raise ValueError(
                f"1-D y_true must hold column indices in [0, {m}) of the correct label"
            )
        best = np.take_along_axis(ys, yt.astype(np.intp)[:, None], axis=1)[:, 0]
        has = np.ones(n, dtype=bool)
    else:
        rel = _matrix(yt, "y_true")
        if rel.shape != ys.shape:
            raise ValueError(
                f"y_true and y_score have different shapes: {rel.shape} and {ys.shape}"
            )
        rel = rel > 0
        best = np.where(rel, ys, -np.inf).max(axis=1)
        has = rel.any(axis=1)
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, n)
    rank = (ys > best[:, None]).sum(axis=1) + 1
    rr = np.where(has, 1.0 / rank, 0.0)
    return float(np.average(rr, weights=sample_weight))
