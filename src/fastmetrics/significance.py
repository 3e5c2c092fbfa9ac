"""Is B better than A? DeLong's confidence interval and paired test for ROC AUC.

:func:`delong_ci` gives the AUC of one model with DeLong's variance and interval;
:func:`delong_test` compares two models scored on the same rows. Both are binary (the greater
label positive, or ``pos_label``) or one-vs-rest (``multi_class="ovr"``, each class and the
macro or weighted average). ``fastmetrics._states.delong`` holds the algebra and says how
the average's variance is formed.

Samples are unweighted: DeLong's variance counts samples, and a weighted version is no
standard method, so neither function takes ``sample_weight``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from ._inputs import label_input, nonfinite_error
from ._states import delong, ranking
from ._states.delong import DeLongResult, DeLongTest

if TYPE_CHECKING:
    from typing import Any, Literal
    from ._typing import ArrayLike, IntArray, Label, NDArray

__all__ = ["DeLongResult", "DeLongTest", "delong_ci", "delong_test"]

_AVERAGES = ("macro", "weighted")


def _check_options(multi_class: str, average: str) -> None:
    ranking.check_multi_class(multi_class)
    if average not in _AVERAGES:
        raise ValueError(f"average must be one of {_AVERAGES} for DeLong's method (per-class "
                         "results are in the result's per_class)")


def _is_multiclass(lab: ranking.Labels, s: NDArray[Any], multi_class: str,
                   pos_label: Label | None) -> bool:
    """Whether the input is one-vs-rest (and allowed to be)."""
    if not (lab.more or (s.ndim == 2 and s.shape[1] > 2)):
        return False
    if multi_class != "ovr":
        raise ValueError("DeLong's method for multiclass y_true is one-vs-rest: pass "
                         f"multi_class='ovr' (got {multi_class!r})")
    if pos_label is not None:
        raise ValueError("pos_label is for binary y_true; one-vs-rest takes every class "
                         "positive in turn")
    return True


def _multiclass(y_true: ArrayLike, lab: ranking.Labels,
                *scores: NDArray[Any]) -> tuple[IntArray, NDArray[Any]]:
    """``(codes, classes)`` of multiclass labels, each (n, K) score matrix checked as
    ``roc_auc_score`` checks it (probabilities, one column per class)."""
    n = lab.y.shape[0]
    a = label_input(y_true, "y_true", encoded=False).reshape(-1)
    classes = lab.classes if lab.encoded else np.unique(a)
    for s in scores:
        ranking.scores_2d(s, n)  # roc_auc_score's shape and length errors
        if not np.isfinite(s).all():
            raise nonfinite_error(s, None)
        if len(classes) != s.shape[1]:
            raise ValueError(
                "Number of classes in y_true not equal to the number of columns in 'y_score'")
        if not np.allclose(1, s.sum(axis=1)):
            raise ValueError(
                "Target scores need to be probabilities for multiclass roc_auc, i.e. they "
                "should sum up to 1.0 over classes")
    return np.searchsorted(classes, a).astype(np.int64), classes


def _positive_code(lab: ranking.Labels, pos_label: Label | None) -> np.integer[Any]:
    """The kernel value of the positive class (None: the greater label), checked."""
    if lab.classes.shape[0] < 2:
        raise ValueError(delong.ONE_CLASS)
    positive = lab.classes[-1] if pos_label is None else pos_label
    ranking.check_ap_pos_label(lab.classes, positive)
    code = lab.code(positive)
    if code is None:  # a class of the labels always has a code
        raise ValueError(f"pos_label={positive!r} is not a valid label")
    return cast("np.integer[Any]", code[0])


def _binary_scores(s: np.ndarray, n: int) -> None:
    if s.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {s.shape} instead.")
    ranking.check_score_lengths(n, s.shape[0])


def delong_ci(y_true: ArrayLike, y_score: ArrayLike, *, confidence_level: float = 0.95,
              transform: Literal["logit"] | None = None, pos_label: Label | None = None,
              multi_class: Literal["raise", "ovr", "ovo"] = "raise",
              average: Literal["macro", "weighted"] = "macro",
              n_threads: int | None = None) -> DeLongResult:
    """ROC AUC with DeLong's variance, standard error and confidence interval.

    Not in scikit-learn. DeLong, DeLong & Clarke-Pearson (1988) with the fast algorithm of
    Sun & Xu (2014): the structural components (placements) of every sample come from one
    radix sort of each class's scores and one merging walk over the distinct scores
    (``fastmetrics._kernels.delong``); tied scores count one half, as in
    ``roc_auc_score``. The AUC equals ``roc_auc_score(y_true, y_score)``; the interval is R
    pROC's ``ci.auc`` (``method="delong"``). Mergeable: the accumulator method
    ``RankingAccumulator.delong_ci`` and ``fastmetrics.dask.delong_ci`` give the same numbers
    over chunks. Samples are unweighted (DeLong's variance counts samples), so there is no
    ``sample_weight``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels: two classes, or more with ``multi_class="ovr"``.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores of the positive class (binary), or class probabilities (one-vs-rest); finite.
    confidence_level : float, default=0.95
        Level of the interval, in (0, 1).
    transform : {None, "logit"}, default=None
        None: the normal interval ``auc -+ z * se`` clipped to [0, 1]. ``"logit"``: the
        normal interval of ``logit(auc)`` (standard error ``se / (auc (1 - auc))``) mapped
        back, which stays inside (0, 1) and is asymmetric near the bounds.
    pos_label : int, float, bool or str, default=None
        Binary only: the positive class (None: the greater label, as ``roc_auc_score``).
    multi_class : {"raise", "ovr"}, default="raise"
        Multiclass ``y_true``: ``"ovr"`` (one-vs-rest) is required; ``"ovo"`` is not
        implemented. Ignored for binary ``y_true``.
    average : {"macro", "weighted"}, default="macro"
        One-vs-rest: the average of the classes' AUCs (weighted: by their prevalence). Its
        variance is ``sum_r (sum_j c_j psi_j(r))**2`` over the rows, ``psi_j`` each row's
        centred DeLong component of class ``j`` (``fastmetrics._states.delong``), which
        counts the covariance between the classes' AUCs. Ignored for binary ``y_true``.
    n_threads : int or None, default=None
        Threads of the binary sort (the two classes' runs, one per thread) on inputs of
        2**17 samples or more. None uses what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits), capped at the CPUs no other process is running on; an int
        >= 1 sets the count. The result is the same for any value.

    Returns
    -------
    result : DeLongResult
        ``auc``, ``variance``, ``standard_error``, ``confidence_interval``, the counts of
        each side; one-vs-rest adds ``per_class`` (each class against the rest) and
        ``classes``.

    Raises
    ------
    ValueError
        If ``y_true`` has one class, or fewer than two samples on a side; if the scores
        hold NaN or infinity, differ in length from ``y_true``, or are 2-D for binary
        ``y_true``; if ``confidence_level`` is not in (0, 1), ``transform``,
        ``multi_class`` or ``average`` is not an allowed value, or ``pos_label`` is not a
        label (or is given for multiclass ``y_true``); for multiclass ``y_true``: if
        ``multi_class`` is not "ovr", the columns are not one per class, or the rows do not
        sum to 1; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.roc_auc_score : scikit-learn's AUC, without a variance.
    delong_test : The paired test of two models' AUCs.
    fastmetrics.bootstrap : A resampled interval for any metric.

    Notes
    -----
    Binary: 16 bytes of sort scratch per sample, nothing per sample kept. One-vs-rest: each
    class's components row by row (about 100 bytes per sample while a class is done).

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import delong_ci
    >>> r = delong_ci(np.array([0, 0, 1, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8, 0.3, 0.7]))
    >>> round(r.auc, 4), round(r.standard_error, 4)
    (0.8889, 0.1571)
    >>> [round(x, 4) for x in r.confidence_interval]
    [0.5809, 1.0]
    """
    level = delong.check_confidence_level(confidence_level)
    delong.check_transform(transform)
    _check_options(multi_class, average)
    lab = ranking.Labels(y_true)
    s = ranking.scores(y_score)
    if _is_multiclass(lab, s, multi_class, pos_label):
        codes, classes = _multiclass(y_true, lab, s)
        return cast(DeLongResult, delong.averaged(codes, s, classes, average, level, transform,
                                                  n_threads=n_threads))
    n = lab.y.shape[0]
    _binary_scores(s, n)
    return delong.rows_ci(lab.y, _positive_code(lab, pos_label), s, level, transform,
                          n_threads)


def delong_test(y_true: ArrayLike, y_score_a: ArrayLike, y_score_b: ArrayLike, *,
                confidence_level: float = 0.95,
                alternative: Literal["two-sided", "less", "greater"] = "two-sided",
                pos_label: Label | None = None,
                multi_class: Literal["raise", "ovr", "ovo"] = "raise",
                average: Literal["macro", "weighted"] = "macro",
                n_threads: int | None = None) -> DeLongTest:
    """DeLong's paired test of two ROC AUCs scored on the same rows: is B better than A?

    Not in scikit-learn. The difference ``auc_b - auc_a`` has variance
    ``var_a + var_b - 2 cov``, the covariance from the two models' structural components row
    by row (DeLong, DeLong & Clarke-Pearson 1988); ``z = difference / standard_error`` is
    referred to the normal law. Matches R pROC's
    ``roc.test(roc_b, roc_a, method="delong", paired=TRUE)``. Each score vector is radix
    sorted once (the two on two threads) and every row's component written where the row
    is: no pairwise comparison. Not mergeable (the covariance needs every row's components),
    so there is no accumulator or Dask form.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels: two classes, or more with ``multi_class="ovr"``.
    y_score_a : array-like of shape (n_samples,) or (n_samples, n_classes)
        Model A's scores of the rows; finite.
    y_score_b : array-like of shape (n_samples,) or (n_samples, n_classes)
        Model B's scores of the same rows (same shape as ``y_score_a``); finite.
    confidence_level : float, default=0.95
        Of the difference's interval, in (0, 1).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: B's AUC is greater than A's; ``"less"``: smaller.
    pos_label : int, float, bool or str, default=None
        Binary only: the positive class (None: the greater label).
    multi_class : {"raise", "ovr"}, default="raise"
        Multiclass ``y_true``: ``"ovr"`` is required. Ignored for binary ``y_true``.
    average : {"macro", "weighted"}, default="macro"
        One-vs-rest: the paired test of the averaged AUCs (its variance from the per-row
        components of every class and both models, as in :func:`delong_ci`); each class's
        own test is in ``per_class``.
    n_threads : int or None, default=None
        Threads of the two sorts on inputs of 2**16 rows or more. None uses what OpenMP
        allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other
        process is running on; an int >= 1 sets the count. The result is the same for any
        value.

    Returns
    -------
    result : DeLongTest
        ``auc_a``, ``auc_b``, ``difference``, ``variance``, ``standard_error``,
        ``correlation``, ``statistic``, ``pvalue``, ``confidence_interval``. With zero
        variance: ``statistic`` 0 and ``pvalue`` 1 when the AUCs are equal (as pROC), else
        infinite and 0.

    Raises
    ------
    ValueError
        If ``y_true`` has one class, or fewer than two samples on a side; if the scores
        hold NaN or infinity, differ in length from ``y_true`` or in shape from each other,
        or are 2-D for binary ``y_true``; if ``confidence_level`` is not in (0, 1),
        ``alternative``, ``multi_class`` or ``average`` is not an allowed value, or
        ``pos_label`` is not a label (or is given for multiclass ``y_true``); for multiclass
        ``y_true``: if ``multi_class`` is not "ovr", the columns are not one per class, or
        the rows do not sum to 1; if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.roc_auc_score : scikit-learn's AUC of each model, without a test.
    delong_ci : One model's AUC with its interval.
    fastmetrics.compare : A paired bootstrap comparison of any metric.

    Notes
    -----
    Memory: 80 bytes per row (each model's sort scratch, keys and row tags, and its
    components).

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import delong_test
    >>> y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    >>> a = np.array([0.1, 0.4, 0.35, 0.8, 0.3, 0.7, 0.6, 0.2])
    >>> b = np.array([0.1, 0.3, 0.5, 0.9, 0.2, 0.8, 0.4, 0.45])
    >>> t = delong_test(y, a, b)
    >>> round(t.auc_a, 4), round(t.auc_b, 4), round(t.difference, 4)
    (0.6875, 1.0, 0.3125)
    >>> round(t.statistic, 3), round(t.pvalue, 4)
    (1.405, 0.1601)
    """
    level = delong.check_confidence_level(confidence_level)
    delong.check_alternative(alternative)
    _check_options(multi_class, average)
    lab = ranking.Labels(y_true)
    sa = ranking.scores(y_score_a)
    sb = ranking.scores(y_score_b)
    if sa.shape != sb.shape:
        raise ValueError(f"y_score_a and y_score_b have different shapes: {sa.shape} and "
                         f"{sb.shape}")
    if _is_multiclass(lab, sa, multi_class, pos_label):
        codes, classes = _multiclass(y_true, lab, sa, sb)
        return cast(DeLongTest, delong.averaged(codes, sa, classes, average, level, s2d_b=sb,
                                                alternative=alternative, n_threads=n_threads))
    n = lab.y.shape[0]
    for s in (sa, sb):
        _binary_scores(s, n)
    return delong.paired_rows(lab.y, _positive_code(lab, pos_label), sa, sb, level,
                              alternative, n_threads)
