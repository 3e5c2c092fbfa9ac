"""Metrics per group (fairness): one counting pass into a (group x K x K) confusion state.

``group_metrics(y_true, y_pred, groups, metric="accuracy")`` gives the metric within each
group, over all samples (``global_value``), the worst group, the fairness gap (max - min over
groups) and each group's disparity (its value minus the global value).

Each group's value equals the scikit-learn metric on that group's samples alone (labels are
those present in the group's ``y_true`` or ``y_pred``, as scikit-learn's default), with
``zero_division=0`` for precision/recall/F1. Labels and groups of any integer dtype are read in
place when their value ranges are small (labels within 1,024 values, groups within 65,536);
other labels or groups (strings, objects, categoricals, wide ranges) are hash-encoded once
first. Labels are checked as by :func:`accuracy_score`: floats must hold integers (they are
converted to int64), and strings do not mix with numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._states import grouped
from ._states.grouped import GROUP_METRICS, GroupedConfusionState, GroupMetrics

if TYPE_CHECKING:
    from ._typing import ArrayLike

__all__ = ["GROUP_METRICS", "GroupMetrics", "group_metrics"]


def group_metrics(y_true: ArrayLike, y_pred: ArrayLike, groups: ArrayLike,
                  metric: str = "accuracy", *, n_threads: int | None = None) -> GroupMetrics:
    """A classification metric within each group of samples, and the gaps between groups.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Class labels.
    groups : array-like of shape (n_samples,)
        The group of each sample (ints, strings, bools...).
    metric : str, default="accuracy"
        One of :data:`fastmetrics.fairness.GROUP_METRICS`: "accuracy",
        "balanced_accuracy", "f1_macro", "f1_weighted", "f1_micro", "precision_macro",
        "recall_macro".
    n_threads : int or None, default=None
        Threads of the counting pass over large inputs (None: what OpenMP allows, honouring
        ``OMP_NUM_THREADS``); the result is the same for any value.

    Returns
    -------
    GroupMetrics
        The metric per group, over all samples, the worst group, the gap between the best
        and the worst group and each group's disparity from the global value.

    Raises
    ------
    ValueError
        Different lengths, no samples, an unknown metric, NaN/None labels or groups.

    See Also
    --------
    fastmetrics.score : The report card over all samples.
    sklearn.metrics.accuracy_score : The metric each group's value equals on its samples.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.group_metrics([0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1], [0, 0, 0, 1, 1, 1])
    >>> r.per_group, round(r.global_value, 4), r.worst_group, round(r.gap, 4)
    ({0: 0.6666666666666666, 1: 1.0}, 0.8333, 0, 0.3333)
    """
    grouped.metric_fn(metric)
    state = GroupedConfusionState.from_arrays(y_true, y_pred, groups, n_threads)
    return grouped.summary(state, metric)
