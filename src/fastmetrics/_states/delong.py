"""DeLong's variance of ROC AUC and the paired DeLong test.

DeLong, DeLong & Clarke-Pearson (1988, Biometrics 44: 837-845): with ``m`` positives and ``n``
negatives the AUC is the mean of the structural components (placements)

    V10(x) = (negatives scored below x + 1/2 those tied with x) / n     one per positive,
    V01(y) = (positives scored above y + 1/2 those tied with y) / m     one per negative,

and its variance is ``S10 / m + S01 / n``, ``S10`` and ``S01`` their sample variances (ddof 1).
The covariance of two AUCs on the same rows is the same sum over the products of their
centred placements (the paired test).

A placement depends on the score only (every positive at one distinct score has the same
V10), so the sorted distinct-score summary of a :class:`~fastmetrics.states.RankingState` -- the
count of each class at each score -- gives all of them with two cumulative sums: Sun & Xu's
(2014) midrank algorithm, whose sort is the ranking kernel's radix sort, then O(distinct
scores). :func:`ci` therefore derives from any ranking state, merged ones included
(streaming, Dask).

The one-shot :func:`fastmetrics.delong_ci` forms the same sums in one kernel call without
building a state (:func:`rows_ci`, :mod:`fastmetrics._kernels.delong`). The covariance of two
models needs the placements row by row, which no summary keeps: :func:`placements` radix
sorts each score vector and writes every row's placement where the row is (the two models'
sorts on two threads). Everything is then one formula: each AUC ``k`` has the per-row vector

    psi_k(r) = (placement_k(r) - AUC_k) / sqrt(m_k (m_k - 1))   r positive for problem k,
    psi_k(r) = (placement_k(r) - AUC_k) / sqrt(n_k (n_k - 1))   r negative,

and ``Cov(AUC_j, AUC_k) = sum_r psi_j(r) psi_k(r)``: DeLong's variance (j = k) and paired
covariance (same positives) exactly. For one-vs-rest problems, whose positives differ, the
same sum is the covariance of their per-row (influence) terms: it forms the variance of a
macro or weighted average of the classes' AUCs.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, cast

import numpy as np

from .._inputs import nonfinite_error
from .._kernels import delong as kernel
from .._threads import threads_for
from .ranking import RankingState, check_ap_pos_label, check_average, check_multi_class
from .ranking import pos_neg_summary

__all__ = [
    "ALTERNATIVES",
    "DeLongResult",
    "DeLongTest",
    "ONE_CLASS",
    "averaged",
    "check_alternative",
    "check_confidence_level",
    "check_sides",
    "check_transform",
    "ci",
    "interval",
    "paired",
    "paired_result",
    "paired_rows",
    "placements",
    "psi",
    "rows_ci",
]

ALTERNATIVES = ("two-sided", "greater", "less")
ONE_CLASS = ("Only one class is present in y_true. DeLong's variance of ROC AUC is not defined "
             "in that case.")


@dataclass(frozen=True)
class DeLongResult:
    """ROC AUC with DeLong's variance and confidence interval.

    What :func:`fastmetrics.delong_ci` returns (frozen).

    Parameters
    ----------
    auc : float
        The ROC AUC (one-vs-rest: the macro or weighted average of the classes').
    variance : float
        DeLong's variance of ``auc``.
    standard_error : float
        ``sqrt(variance)``.
    confidence_interval : tuple of float
        ``(low, high)``, within [0, 1].
    confidence_level : float
        The level of ``confidence_interval``, in (0, 1).
    transform : str or None
        None: the normal interval ``auc -+ z * standard_error``, clipped to [0, 1] (as R's
        pROC); ``"logit"``: that interval on the logit scale, mapped back.
    n_positive : int or None
        Positive samples (None for a one-vs-rest average).
    n_negative : int or None
        Negative samples (None for a one-vs-rest average).
    per_class : tuple of DeLongResult or None, default=None
        One-vs-rest: each class against the rest, in the order of ``classes``.
    classes : tuple or None, default=None
        One-vs-rest: the labels of ``per_class``.

    See Also
    --------
    fastmetrics.delong_ci : The function that returns this record.
    DeLongTest : The record of the paired test.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import delong_ci
    >>> r = delong_ci(np.array([0, 0, 1, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8, 0.3, 0.7]))
    >>> r.n_positive, r.n_negative
    (3, 3)
    """

    auc: float
    variance: float
    standard_error: float
    confidence_interval: tuple[float, float]
    confidence_level: float
    transform: str | None
    n_positive: int | None
    n_negative: int | None
    per_class: tuple[DeLongResult, ...] | None = None
    classes: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class DeLongTest:
    """DeLong's paired test of two ROC AUCs on the same rows.

    What :func:`fastmetrics.delong_test` returns (frozen).

    Parameters
    ----------
    auc_a : float
        Model A's AUC (one-vs-rest: averaged over the classes).
    auc_b : float
        Model B's AUC (one-vs-rest: averaged over the classes).
    difference : float
        ``auc_b - auc_a``.
    variance : float
        Of the difference: ``var_a + var_b - 2 cov``.
    standard_error : float
        ``sqrt(variance)``.
    correlation : float
        Of the two AUC estimates (nan when either has variance 0).
    statistic : float
        ``difference / standard_error`` (0 when both are 0, as pROC).
    pvalue : float
        Under the normal law, for ``alternative``.
    confidence_interval : tuple of float
        Of the difference, within [-1, 1] (one-sided for a one-sided alternative).
    confidence_level : float
        The level of ``confidence_interval``, in (0, 1).
    alternative : str
        ``"two-sided"``, ``"greater"`` (B's AUC greater than A's) or ``"less"``.
    per_class : tuple of DeLongTest or None, default=None
        One-vs-rest: each class against the rest.
    classes : tuple or None, default=None
        One-vs-rest: the labels of ``per_class``.

    See Also
    --------
    fastmetrics.delong_test : The function that returns this record.
    DeLongResult : One model's AUC with its interval.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import delong_test
    >>> y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    >>> t = delong_test(y, np.linspace(0, 1, 8), y * 0.5 + 0.25)
    >>> t.alternative, round(t.auc_b, 4)
    ('two-sided', 1.0)
    """

    auc_a: float
    auc_b: float
    difference: float
    variance: float
    standard_error: float
    correlation: float
    statistic: float
    pvalue: float
    confidence_interval: tuple[float, float]
    confidence_level: float
    alternative: str
    per_class: tuple[DeLongTest, ...] | None = None
    classes: tuple[Any, ...] | None = None


DeLongResult.__module__ = "fastmetrics.significance"
DeLongTest.__module__ = "fastmetrics.significance"


# ----------------------------------------------------------------------------- checks


def check_confidence_level(confidence_level: object) -> float:
    if (isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real)
            or not 0 < float(confidence_level) < 1):
        raise ValueError(f"confidence_level must be a number in (0, 1), got "
                         f"{confidence_level!r}")
    return float(confidence_level)


def check_transform(transform: object) -> None:
    if transform is not None and transform != "logit":
        raise ValueError(f"transform must be None or 'logit', got {transform!r}")


def check_alternative(alternative: object) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")


def check_sides(m: int, n: int, label: Any = None) -> None:
    """DeLong's sample variances need two samples on each side."""
    if m == 0 or n == 0:
        raise ValueError(ONE_CLASS)
    if m < 2 or n < 2:
        what = "" if label is None else f" (class {label!r} against the rest)"
        raise ValueError(f"DeLong's variance needs at least two positive and two negative "
                         f"samples{what}: got {m} positive and {n} negative")


# ----------------------------------------------------------------------------- intervals


def _z(p: float) -> float:
    return NormalDist().inv_cdf(p)


def interval(auc: float, se: float, level: float, transform: str | None = None
             ) -> tuple[float, float]:
    """The two-sided interval of an AUC: normal, clipped to [0, 1], or on the logit scale."""
    if not se > 0:
        return (auc, auc)
    z = _z(0.5 + level / 2)
    if transform == "logit":
        if not 0 < auc < 1:
            return (auc, auc)
        centre = math.log(auc / (1 - auc))
        half = z * se / (auc * (1 - auc))
        return (1 / (1 + math.exp(-(centre - half))), 1 / (1 + math.exp(-(centre + half))))
    return (max(0.0, auc - z * se), min(1.0, auc + z * se))


def _result(auc: float, var: float, level: float, transform: str | None, m: int | None = None,
            n: int | None = None, per_class: tuple[DeLongResult, ...] | None = None,
            classes: tuple[Any, ...] | None = None) -> DeLongResult:
    var = max(float(var), 0.0)
    se = math.sqrt(var)
    return DeLongResult(float(auc), var, se, interval(float(auc), se, level, transform), level,
                        transform, m, n, per_class, classes)


def paired_result(auc_a: float, auc_b: float, var_a: float, var_b: float, cov: float,
                  level: float, alternative: str,
                  per_class: tuple[DeLongTest, ...] | None = None,
                  classes: tuple[Any, ...] | None = None) -> DeLongTest:
    """:class:`DeLongTest` from the two AUCs, their variances and covariance."""
    diff = float(auc_b - auc_a)
    var = max(float(var_a + var_b - 2 * cov), 0.0)
    se = math.sqrt(var)
    corr = float(cov / math.sqrt(var_a * var_b)) if var_a > 0 and var_b > 0 else math.nan
    if se > 0:
        z = diff / se
    else:  # pROC: no difference and no variance is no evidence (z = 0)
        z = 0.0 if diff == 0 else math.copysign(math.inf, diff)
    if alternative == "two-sided":
        p = math.erfc(abs(z) / math.sqrt(2))
        half = _z(0.5 + level / 2) * se
        ci = (max(-1.0, diff - half), min(1.0, diff + half))
    elif alternative == "greater":
        p = 0.5 * math.erfc(z / math.sqrt(2))
        ci = (max(-1.0, diff - _z(level) * se), 1.0)
    else:
        p = 0.5 * math.erfc(-z / math.sqrt(2))
        ci = (-1.0, min(1.0, diff + _z(level) * se))
    return DeLongTest(float(auc_a), float(auc_b), diff, var, se, corr, float(z), float(p), ci,
                      level, alternative, per_class, classes)


# ----------------------------------------------------------------------------- from a state


def _summary_placements(p: np.ndarray, q: np.ndarray
                        ) -> tuple[float, np.ndarray, np.ndarray, float, float]:
    """``(auc, v10, v01, m, n)`` of a summary: positive / negative counts ``p`` / ``q`` at
    each distinct score, scores decreasing."""
    m, n = float(p.sum()), float(q.sum())
    neg_below = n - np.cumsum(q)
    pos_above = np.cumsum(p) - p
    # twice the placements' numerators: integers, so the AUC's sum is exact below 2**53
    a2 = 2 * neg_below + q
    auc = float(np.sum(p * a2)) / (2 * m * n)
    return auc, a2 / (2 * n), (2 * pos_above + p) / (2 * m), m, n


def _summary_variance(p: np.ndarray, q: np.ndarray, auc: float, v10: np.ndarray,
                      v01: np.ndarray, m: float, n: float) -> float:
    """DeLong's variance of the AUC from a summary's placements (two or more of each
    class); numpy's pairwise sums, not BLAS dot products: the same for any thread count."""
    s10 = float(np.sum(p * (v10 - auc) ** 2)) / (m - 1)
    s01 = float(np.sum(q * (v01 - auc) ** 2)) / (n - 1)
    return s10 / m + s01 / n


def ci(state: RankingState, confidence_level: float = 0.95, transform: str | None = None,
       multi_class: str = "raise", average: str | None = "macro",
       pos_label: Any = None) -> DeLongResult:
    """:func:`fastmetrics.delong_ci` of a (binary, unweighted) ranking state: ``pos_label``
    positive (None: the greater class). A binned state's scores are taken as tied within
    each bin. ``multi_class`` and ``average`` are checked and, for binary data, ignored, as
    ``roc_auc_score`` does."""
    level = check_confidence_level(confidence_level)
    check_transform(transform)
    check_multi_class(multi_class)
    check_average(average)
    if state.weighted:
        raise ValueError("DeLong's variance is defined for unweighted samples: this state was "
                         "built with sample_weight")
    if state.classes.shape[0] < 2:
        raise ValueError(ONE_CLASS)
    check_ap_pos_label(state.classes, pos_label if pos_label is not None
                       else state.classes[-1])
    _, p, q = pos_neg_summary(state, pos_label)
    auc, v10, v01, m, n = _summary_placements(p, q)
    check_sides(int(m), int(n))
    return _result(auc, _summary_variance(p, q, auc, v10, v01, m, n), level, transform,
                   int(m), int(n))


# ----------------------------------------------------------------------------- row by row


def _scratch(nrow: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    nk, nt, nh = kernel.scratch_sizes(nrow)
    return np.empty((k, nk), np.uint64), np.empty((k, nt)), np.empty((k, nh), np.uint64)


def rows_ci(y: np.ndarray, pos: Any, s: np.ndarray, level: float,
            transform: str | None = None, n_threads: int | None = None) -> DeLongResult:
    """:class:`DeLongResult` of one binary problem from its rows (positive: ``y == pos``,
    ``pos`` of ``y``'s dtype) in one kernel call: the sums :func:`ci` forms from a state,
    without building one."""
    nk, _, nh = kernel.scratch_sizes(s.shape[0])
    out = np.empty(5)
    bad = kernel.variance(y, pos, s, np.empty(nk, np.uint64), np.empty(nh, np.uint64), out,
                          threads_for("delong", s.shape[0], n_threads))
    if bad >= 0:
        raise nonfinite_error(s, None)
    m, n = int(out[0]), int(out[1])
    check_sides(m, n)
    auc = out[2] / (2.0 * m * n)
    return _result(auc, out[3] / (m * (m - 1)) + out[4] / (n * (n - 1)), level, transform,
                   m, n)


def placements(y: np.ndarray, pos: Any, s_a: np.ndarray, s_b: np.ndarray | None = None,
               n_threads: int | None = None
               ) -> tuple[int, int, tuple[float, np.ndarray], Any]:
    """``(m, n, (auc_a, v_a), (auc_b, v_b))``: every row's placement -- V10 for a positive
    (``y == pos``), V01 for a negative -- of one or two score vectors (``s_b`` None: the
    second pair is None), one radix sort each, the two on two threads."""
    nrow = s_a.shape[0]
    if s_b is not None and s_b.dtype != s_a.dtype:  # the kernel reads both in one dtype
        s_a, s_b = s_a.astype(np.float64), s_b.astype(np.float64)
    k = 1 if s_b is None else 2
    keys, tags, hist = _scratch(nrow, k)
    v_a = np.empty(nrow)
    v_b = np.empty(nrow if k == 2 else 0)
    out = np.empty(6, dtype=np.int64)
    # one score vector is one sort on one thread (n 0: n_threads checked, OpenMP not asked)
    threads = threads_for("delong", 2 * nrow if k == 2 else 0, n_threads)
    kernel.placements(y, pos, s_a, s_a[:0] if s_b is None else s_b, v_a, v_b, keys, tags,
                      hist, out, threads)
    for bad, s in ((out[4], s_a), (out[5], s_b)):
        if bad >= 0:
            raise nonfinite_error(cast("np.ndarray", s), None)
    m, n = int(out[0]), int(out[1])
    den = 2.0 * m * n
    first = (out[2] / den if den else math.nan, v_a)
    return m, n, first, None if s_b is None else (out[3] / den if den else math.nan, v_b)


def psi(pos: np.ndarray, v: np.ndarray, auc: float, m: float, n: float) -> np.ndarray:
    """The centred, scaled per-row placements (module docstring): ``sum(psi_j * psi_k)``
    is the covariance of two AUCs."""
    scale = np.where(pos, 1 / math.sqrt(m * (m - 1)), 1 / math.sqrt(n * (n - 1)))
    return (v - auc) * scale


def paired(y: np.ndarray, pos: Any, s_a: np.ndarray, s_b: np.ndarray, label: Any = None,
           n_threads: int | None = None) -> tuple[float, float, np.ndarray, np.ndarray]:
    """``(auc_a, auc_b, psi_a, psi_b)`` of two score vectors on the same rows (positive:
    ``y == pos``)."""
    m, n, (auc_a, v_a), (auc_b, v_b) = placements(y, pos, s_a, s_b, n_threads)
    check_sides(m, n, label)
    mask = y == pos
    return auc_a, auc_b, psi(mask, v_a, auc_a, m, n), psi(mask, v_b, auc_b, m, n)


def paired_rows(y: np.ndarray, pos: Any, s_a: np.ndarray, s_b: np.ndarray, level: float,
                alternative: str, n_threads: int | None = None) -> DeLongTest:
    """:class:`DeLongTest` of one binary problem (positive: ``y == pos``) from its rows: the
    placements of both models, then their sums of squares and products in one pass."""
    m, n, (auc_a, v_a), (auc_b, v_b) = placements(y, pos, s_a, s_b, n_threads)
    check_sides(m, n)
    s = np.empty(6)
    kernel.paired_sums(y, pos, v_a, v_b, auc_a, auc_b, s)
    fp, fn = 1.0 / (m * (m - 1)), 1.0 / (n * (n - 1))
    return paired_result(auc_a, auc_b, s[0] * fp + s[3] * fn, s[1] * fp + s[4] * fn,
                         s[2] * fp + s[5] * fn, level, alternative)


def averaged(codes: np.ndarray, s2d: np.ndarray, classes: np.ndarray, average: str,
             level: float, transform: str | None = None, s2d_b: np.ndarray | None = None,
             alternative: str = "two-sided", n_threads: int | None = None
             ) -> DeLongResult | DeLongTest:
    """One-vs-rest: each class's DeLong result (or paired test, with ``s2d_b``) and those
    of the ``average`` of the classes' AUCs, their covariance from the per-row terms."""
    k = s2d.shape[1]
    counts = np.bincount(codes, minlength=k)
    coef = np.full(k, 1.0 / k) if average == "macro" else counts / counts.sum()
    labels = tuple(classes.tolist())
    g_a = np.zeros(codes.shape[0])
    g_b = np.zeros(codes.shape[0])
    auc_a = np.empty(k)
    auc_b = np.empty(k)
    per: list[Any] = []
    for j in range(k):
        check_sides(int(counts[j]), int(codes.shape[0] - counts[j]), labels[j])
        if s2d_b is None:
            m, n, (auc_a[j], v), _ = placements(codes, j, s2d[:, j], n_threads=n_threads)
            p = psi(codes == j, v, auc_a[j], m, n)
            per.append(_result(auc_a[j], np.sum(p * p), level, transform, m, n))
            g_a += coef[j] * p
            continue
        auc_a[j], auc_b[j], pa, pb = paired(codes, j, s2d[:, j], s2d_b[:, j], labels[j],
                                            n_threads)
        per.append(paired_result(auc_a[j], auc_b[j], np.sum(pa * pa), np.sum(pb * pb),
                                 np.sum(pa * pb), level, alternative))
        g_a += coef[j] * pa
        g_b += coef[j] * pb
    if s2d_b is None:
        return _result(np.sum(coef * auc_a), np.sum(g_a * g_a), level, transform,
                       per_class=tuple(per), classes=labels)
    return paired_result(np.sum(coef * auc_a), np.sum(coef * auc_b), np.sum(g_a * g_a),
                         np.sum(g_b * g_b), np.sum(g_a * g_b), level, alternative,
                         tuple(per), labels)


# ------------------------------------------------------------------ placements, second read


class Placements:
    """Each distinct score's DeLong placements in one model's exact ranking states (one a
    segment: the whole table's, or each slice's), concatenated for lookup, so that a second
    read of the rows gives each row its placement (V10 for a positive, V01 for a negative)
    without keeping the rows. The paired covariance of two models' AUCs on the same rows is
    the sum of the products of their centred placements (:func:`paired_interval`).

    Parameters
    ----------
    states : sequence of RankingState or None
        Segment ``j``'s unweighted exact state (None or empty: a segment without rows).
    pos_label : object
        The positive class.

    Examples
    --------
    >>> import numpy as np
    >>> st = RankingState.from_arrays([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4])
    >>> pl = Placements([st], 1)
    >>> pl.centred(np.zeros(4, dtype=np.int64), np.array([0.1, 0.8, 0.4, 0.4]),
    ...            np.array([False, True, True, False])).tolist()
    [0.125, 0.125, -0.125, -0.125]
    """

    def __init__(self, states: Any, pos_label: Any) -> None:
        thr, v10, v01, sizes = [], [], [], []
        k = len(states)
        self.auc, self.var = np.full(k, np.nan), np.full(k, np.nan)
        self.m, self.n = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
        for j, st in enumerate(states):
            if st is None or st.n_samples == 0 or st.classes.shape[0] < 2:
                sizes.append(0)
                continue
            t, p, q = pos_neg_summary(st, pos_label)
            auc, a, b, m, n = _summary_placements(p, q)
            thr.append(np.asarray(t, dtype=np.float64))
            v10.append(a)
            v01.append(b)
            sizes.append(t.shape[0])
            self.auc[j], self.m[j], self.n[j] = auc, int(m), int(n)
            if m >= 2 and n >= 2:  # (as :func:`ci` gives it)
                self.var[j] = _summary_variance(p, q, auc, a, b, m, n)
        self.offsets = np.zeros(k + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.offsets[1:])
        empty = np.zeros(0)
        self.thr = np.concatenate(thr) if thr else empty
        self.v10 = np.concatenate(v10) if v10 else empty
        self.v01 = np.concatenate(v01) if v01 else empty
        # one segment of many scores: equal buckets of the score range, each with the
        # positions of its scores, narrow each row's bisection to a few of them
        self.starts, self.top, self.scale = np.zeros(0, dtype=np.int64), 0.0, 0.0
        size = self.thr.shape[0]
        if k == 1 and size > 64 and self.thr[0] > self.thr[-1]:
            n_b = min(1 << 16, 4 * size)
            top, bottom = float(self.thr[0]), float(self.thr[-1])
            scale = n_b / (top - bottom)
            if math.isfinite(scale):
                edges = top - np.arange(n_b + 1) / scale
                self.starts = np.searchsorted(-self.thr, -edges, side="left").astype(np.int64)
                self.top, self.scale = top, scale

    @property
    def nbytes(self) -> int:
        """Bytes held."""
        return int(self.thr.nbytes + self.v10.nbytes + self.v01.nbytes + self.starts.nbytes)

    def centred(self, seg: np.ndarray, scores: np.ndarray, positive: np.ndarray) -> np.ndarray:
        """Each row's placement in its segment's state minus the segment's AUC.

        Parameters
        ----------
        seg : ndarray of int64 (n_rows,)
            Each row's segment.
        scores : ndarray (n_rows,)
            Each row's score (one the segment's state counted).
        positive : ndarray of bool (n_rows,)
            Whether the row is a positive.

        Returns
        -------
        ndarray of float64 (n_rows,)

        Raises
        ------
        ValueError
            A score the segment's state has not counted (rows other than the first
            read's).
        """
        v = np.empty(scores.shape[0])
        missing = kernel.centred_in_segments(
            seg, np.asarray(scores, dtype=np.float64), positive.view(np.uint8), self.offsets,
            self.thr, self.v10, self.v01, self.auc, v, self.starts, self.top, self.scale)
        if missing:
            raise ValueError(f"{missing} rows of the second read have scores that the first "
                             "read did not count (was the data changed between the reads?)")
        return v


def paired_interval(base: Placements, cand: Placements, j: int, cross10: float,
                    cross01: float, level: float) -> tuple[float, float] | None:
    """DeLong's two-sided interval of ``cand``'s AUC minus ``base``'s on segment ``j``,
    from the sums over its positives (``cross10``) and negatives (``cross01``) of the
    products of the two models' centred placements of the same rows (None where it is not
    defined: fewer than two positives or negatives).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1, 1, 0, 1, 0])
    >>> a, b = np.array([.1, .8, .4, .4, .3, .2]), np.array([.2, .9, .7, .1, .6, .5])
    >>> pa = Placements([RankingState.from_arrays(y, a)], 1)
    >>> pb = Placements([RankingState.from_arrays(y, b)], 1)
    >>> seg, pos = np.zeros(6, dtype=np.int64), y == 1
    >>> prod = pa.centred(seg, a, pos) * pb.centred(seg, b, pos)
    >>> lo, hi = paired_interval(pa, pb, 0, prod[pos].sum(), prod[~pos].sum(), 0.95)
    >>> lo < 0.1667 < hi
    True
    """
    m, n = int(base.m[j]), int(base.n[j])
    if m < 2 or n < 2 or math.isnan(base.var[j]) or math.isnan(cand.var[j]):
        return None
    cov = cross10 / (m * (m - 1)) + cross01 / (n * (n - 1))
    test = paired_result(float(base.auc[j]), float(cand.auc[j]), float(base.var[j]),
                         float(cand.var[j]), cov, level, "two-sided")
    lo, hi = test.confidence_interval
    return float(lo), float(hi)
