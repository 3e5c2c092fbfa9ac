"""Robustness of a model to perturbed inputs: how often its predictions stay the same, and how
far a metric moves (the reference harness's ``consistency_rate`` and ``robustness_score``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from typing import TYPE_CHECKING

import numpy as np

from ._inputs import column
from ._states.confusion import ConfusionState
from ._states.grouped import metric_fn

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._typing import ArrayLike

__all__ = ["RobustnessReport", "consistency_rate", "robustness_report", "robustness_score"]


def consistency_rate(pred_orig: ArrayLike, pred_perturbed: ArrayLike) -> float:
    """Fraction of samples whose prediction is the same on the original and the perturbed
    input.

    Parameters
    ----------
    pred_orig, pred_perturbed : array-like of shape (n_samples,)
        Predictions (labels of any type; compared with ``==``; NaN never equals NaN).

    Returns
    -------
    float in [0, 1]
        The share of samples whose two predictions are equal.

    Raises
    ------
    ValueError
        Different lengths, or no samples.

    See Also
    --------
    fastmetrics.robustness_report : The metric's change and this rate together.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.consistency_rate([0, 1, 2, 2], [0, 1, 1, 2])
    0.75
    """
    a = column(pred_orig, "pred_orig")
    b = column(pred_perturbed, "pred_perturbed")
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"pred_orig and pred_perturbed must have the same length, got {a.shape[0]} and "
            f"{b.shape[0]}"
        )
    if a.shape[0] == 0:
        raise ValueError("consistency_rate needs at least one prediction")
    return float(np.count_nonzero(a == b) / a.shape[0])


def robustness_score(metric_orig: float, metric_perturbed: float) -> float:
    """``max(0, min(1, 1 - |metric_orig - metric_perturbed|))``: 1 = no degradation, 0 = the
    metric collapsed (for metrics on a [0, 1] scale).

    Parameters
    ----------
    metric_orig : float
        The metric on the original inputs.
    metric_perturbed : float
        The metric on the perturbed inputs.

    Returns
    -------
    float in [0, 1]
        The robustness score.

    Raises
    ------
    ValueError
        If either value is NaN or infinite.

    See Also
    --------
    fastmetrics.robustness_report : The metric on both inputs and this score.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.robustness_score(0.9, 0.5)
    0.6
    """
    a, b = float(metric_orig), float(metric_perturbed)
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError(f"metric values must be finite, got {a} and {b}")
    return max(0.0, min(1.0, 1.0 - abs(a - b)))


@dataclass(frozen=True)
class RobustnessReport:
    """A metric on original and perturbed inputs, its robustness score and the prediction
    consistency.

    With named perturbations, ``worst_perturbation`` is the one of the lowest robustness
    score and ``perturbed`` the metric under it; ``robustness_score`` and
    ``consistency_rate`` are the lowest over the perturbations; ``perturbations`` holds each
    one's own report.

    Parameters
    ----------
    metric : str
        The metric's name (one of ``GROUP_METRICS``).
    original : float
        The metric on the original predictions.
    perturbed : float
        The metric on the perturbed predictions (under the worst perturbation).
    robustness_score : float
        :func:`robustness_score` of the two (the lowest over the perturbations).
    consistency_rate : float
        :func:`consistency_rate` of the predictions (the lowest over the perturbations).
    n_samples : int
        Number of samples.
    perturbations : dict, default={}
        Name -> the report of each named perturbation (empty for a single one).
    worst_perturbation : str or None, default=None
        The name of the perturbation with the lowest robustness score.

    See Also
    --------
    fastmetrics.robustness_report : What builds it.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.robustness_report([0, 1, 1, 0], [0, 1, 1, 1], [0, 1, 0, 1])
    >>> r.metric, r.n_samples, r.perturbations
    ('accuracy', 4, {})
    """

    metric: str
    original: float
    perturbed: float
    robustness_score: float
    consistency_rate: float
    n_samples: int
    perturbations: dict[str, RobustnessReport] = field(default_factory=dict)
    worst_perturbation: Any = None

    def to_flat_dict(self) -> dict[str, Any]:
        """The reference harness's keys: ``<metric>.original``, ``<metric>.perturbed``,
        ``robustness_score``, ``consistency_rate``, ``n_samples`` and, with named
        perturbations, ``worst_perturbation`` and ``perturbations.<name>.*``.

        Returns
        -------
        dict
            Those keys (and ``metric``) to scalars.

        See Also
        --------
        fastmetrics.run_metrics : A run's metrics, which include these keys.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> r = fm.robustness_report([0, 1, 1, 0], [0, 1, 1, 1], {"typos": [0, 1, 0, 1]})
        >>> r.to_flat_dict()["perturbations.typos.robustness_score"]
        0.75
        """
        out = {"metric": self.metric, f"{self.metric}.original": self.original,
               f"{self.metric}.perturbed": self.perturbed,
               "robustness_score": self.robustness_score,
               "consistency_rate": self.consistency_rate, "n_samples": self.n_samples}
        if self.perturbations:
            out["worst_perturbation"] = self.worst_perturbation
        for name, r in self.perturbations.items():
            out[f"perturbations.{name}.{self.metric}"] = r.perturbed
            out[f"perturbations.{name}.robustness_score"] = r.robustness_score
            out[f"perturbations.{name}.consistency_rate"] = r.consistency_rate
        return out


def _one(fn: Callable[[ConfusionState], float], metric: str, y_true: ArrayLike,
         pred_orig: ArrayLike, orig: float, n: int, pred_perturbed: ArrayLike,
         n_threads: int | None) -> RobustnessReport:
    rate = consistency_rate(pred_orig, pred_perturbed)
    pert = float(fn(ConfusionState.from_arrays(y_true, pred_perturbed, n_threads=n_threads)))
    return RobustnessReport(metric, orig, pert, robustness_score(orig, pert), rate, n)


def robustness_report(y_true: ArrayLike, pred_orig: ArrayLike,
                      pred_perturbed: ArrayLike | Mapping[str, ArrayLike], *,
                      metric: str = "accuracy", n_threads: int | None = None) -> RobustnessReport:
    """Metric on the original and the perturbed predictions (one counting pass each),
    robustness score and consistency rate; for one perturbation or several named ones.

    ``metric`` is a name of :data:`fastmetrics.fairness.GROUP_METRICS` ("accuracy",
    "f1_macro", ...; scikit-learn's value with ``zero_division=0``).

    Parameters
    ----------
    y_true, pred_orig : array-like of shape (n_samples,)
        True labels and the predictions on the original inputs.
    pred_perturbed : array-like of shape (n_samples,), or dict name -> array-like
        The predictions on the perturbed inputs; a dict holds one per named perturbation
        (``{"typos": ..., "paraphrase": ...}``), each compared with the original.
    metric : str, default="accuracy"
        One of ``GROUP_METRICS``: "accuracy", "balanced_accuracy", "f1_macro",
        "f1_weighted", "f1_micro", "precision_macro", "recall_macro".
    n_threads : int or None, default=None
        Threads of the counting passes over large inputs (None: what OpenMP allows); the
        result is the same for any value.

    Returns
    -------
    RobustnessReport
        For a dict: the lowest ``robustness_score`` and ``consistency_rate`` over the
        perturbations, ``perturbed`` under the ``worst_perturbation``, and each
        perturbation's report in ``perturbations`` (flat keys
        ``perturbations.<name>.robustness_score``...).

    Raises
    ------
    ValueError
        An unknown ``metric``, inputs of different lengths or with no samples, or an empty
        dict of perturbations.

    See Also
    --------
    fastmetrics.consistency_rate : The prediction consistency alone.
    fastmetrics.group_metrics : The same metrics per group of samples.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> r = fm.robustness_report([0, 1, 1, 0], [0, 1, 1, 1], [0, 1, 0, 1])
    >>> r.original, r.perturbed, r.robustness_score, r.consistency_rate
    (0.75, 0.5, 0.75, 0.75)
    >>> r = fm.robustness_report([0, 1, 1, 0], [0, 1, 1, 1],
    ...                          {"typos": [0, 1, 0, 1], "case": [0, 1, 1, 1]})
    >>> r.worst_perturbation, r.robustness_score, r.perturbations["case"].robustness_score
    ('typos', 0.75, 1.0)
    """
    fn = metric_fn(metric)
    st = ConfusionState.from_arrays(y_true, pred_orig, n_threads=n_threads)
    orig = float(fn(st))
    if not isinstance(pred_perturbed, Mapping):
        return _one(fn, metric, y_true, pred_orig, orig, st.n_samples, pred_perturbed,
                    n_threads)
    if not pred_perturbed:
        raise ValueError("pred_perturbed is an empty dict: name at least one perturbation")
    reports = {name: _one(fn, metric, y_true, pred_orig, orig, st.n_samples, p, n_threads)
               for name, p in pred_perturbed.items()}
    worst = min(reports, key=lambda k: reports[k].robustness_score)  # first on ties
    return RobustnessReport(
        metric, orig, reports[worst].perturbed,
        min(r.robustness_score for r in reports.values()),
        min(r.consistency_rate for r in reports.values()), st.n_samples, reports, worst)
