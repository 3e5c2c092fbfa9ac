"""The one table of mergeable metrics: name -> state family, derivation, one-shot function.

Every row is served by every face: the one-shot function is the row's ``function`` (written
by hand: its signature and docstring are the ones the other faces take), the accumulator of
the row's family in :mod:`fastmetrics.streaming` gets a method of the same name, and
:mod:`fastmetrics.dask` a function of the same name; both are generated from the row, so no
signature is written twice. A row's ``derive(state, ...)`` takes the one-shot function's
metric parameters (those that are neither data nor the state's configuration) with the same
defaults.

Adding a metric to a family: a derivation in the family's state module, the one-shot function
in its face module, and one row here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import calibration, classification, cluster, probabilities, regression, report
from . import significance
from . import ranking as ranking_face
from ._states import (bins, confusion, contingency, delong, deviance, hinge, labelrank,
                      onevsrest, pinball, prf, proba, ranking, sums)

if TYPE_CHECKING:
    from ._typing import AccumulatorKind

__all__ = ["DATA", "METRICS", "Metric", "by_family"]

#: parameters that carry data (or how to read it), never metric options
DATA = frozenset({"y_true", "y_pred", "y1", "y2", "y_prob", "y_proba", "y_score",
                  "labels_true", "labels_pred", "contingency", "sample_weight", "n_threads",
                  "pred_decision"})


@dataclass(frozen=True)
class Metric:
    """One row of the table.

    Attributes
    ----------
    name : str
        The one-shot function's name (and the method's and the Dask function's).
    family : str
        The state family: "confusion", "calibration", "regression", "pinball", "ranking",
        "label_ranking", "contingency", "proba", "hinge", "tweedie" or "squared_log".
    derive : callable
        ``derive(state, *args, **kwargs)``: the metric of a state.
    function : callable
        The one-shot function.
    fixed : tuple of (str, value) pairs
        Configuration the row itself fixes (``mean_poisson_deviance`` is the Tweedie
        deviance of power 1): the Dask function builds its accumulator with it, and an
        accumulator configured otherwise is refused by the derivation.
    config : tuple of str
        Parameters of the one-shot function that configure how the state is built (the
        accumulator's constructor arguments, e.g. ``n_bins``), or how the accumulator reads
        it (ranking's ``pos_label``): fixed per accumulator, given to ``derive`` too when it
        takes them. One the one-shot function lacks is not a parameter of the Dask function:
        there ``derive`` keeps its default.
    dask : bool
        Whether :mod:`fastmetrics.dask` serves it (False where merging would need the data,
        e.g. a median).
    batch : callable or None
        ``batch(state, tables, ...)``: the metric of many bootstrap resamples of a
        confusion state at once (``tables`` of shape (B, K, K)), with ``derive``'s
        parameters; it returns None where the resamples must be scored one by one.
    """

    name: str
    family: AccumulatorKind
    derive: Callable[..., Any]
    function: Callable[..., Any]
    config: tuple[str, ...] = ()
    dask: bool = True
    fixed: tuple[tuple[str, Any], ...] = ()
    batch: Callable[..., Any] | None = None

    @property
    def signature(self) -> inspect.Signature:
        return inspect.signature(self.function)

    def metric_parameters(self) -> list[inspect.Parameter]:
        """The one-shot parameters a method of an accumulator takes: neither data nor
        configuration."""
        return [p for p in self.signature.parameters.values()
                if p.name not in DATA and p.name not in self.config]




METRICS: tuple[Metric, ...] = (
    Metric("confusion_matrix", "confusion", confusion.matrix, classification.confusion_matrix),
    Metric("multilabel_confusion_matrix", "confusion", confusion.mcm,
           classification.multilabel_confusion_matrix),
    Metric("accuracy_score", "confusion", confusion.accuracy, classification.accuracy_score,
           batch=confusion.accuracy_batch),
    Metric("precision_recall_fscore_support", "confusion", prf.prfs,
           classification.precision_recall_fscore_support),
    Metric("fbeta_score", "confusion", prf.fbeta, classification.fbeta_score,
           batch=prf.fbeta_batch),
    Metric("f1_score", "confusion", prf.f1, classification.f1_score, batch=prf.f1_batch),
    Metric("precision_score", "confusion", prf.precision, classification.precision_score,
           batch=prf.precision_batch),
    Metric("recall_score", "confusion", prf.recall, classification.recall_score,
           batch=prf.recall_batch),
    Metric("matthews_corrcoef", "confusion", confusion.mcc, classification.matthews_corrcoef,
           batch=confusion.mcc_batch),
    Metric("balanced_accuracy_score", "confusion", confusion.balanced_accuracy,
           classification.balanced_accuracy_score, batch=confusion.balanced_accuracy_batch),
    Metric("cohen_kappa_score", "confusion", confusion.kappa, classification.cohen_kappa_score,
           batch=confusion.kappa_batch),
    Metric("classification_report", "confusion", prf.report,
           classification.classification_report),
    Metric("zero_one_loss", "confusion", confusion.zero_one, classification.zero_one_loss),
    Metric("hamming_loss", "confusion", confusion.hamming, classification.hamming_loss),
    Metric("jaccard_score", "confusion", onevsrest.jaccard, classification.jaccard_score),
    Metric("class_likelihood_ratios", "confusion", confusion.likelihood_ratios,
           classification.class_likelihood_ratios),
    Metric("specificity_score", "confusion", onevsrest.specificity,
           classification.specificity_score),
    Metric("false_positive_rate", "confusion", onevsrest.fpr,
           classification.false_positive_rate),
    Metric("false_negative_rate", "confusion", onevsrest.fnr,
           classification.false_negative_rate),
    Metric("oos_precision_recall", "confusion", confusion.oos, report.oos_precision_recall),
    Metric("score", "confusion", report.card_with_intervals, report.score),
    Metric("mean_absolute_error", "regression", sums.mae, regression.mean_absolute_error),
    Metric("mean_squared_error", "regression", sums.mse, regression.mean_squared_error),
    Metric("root_mean_squared_error", "regression", sums.rmse,
           regression.root_mean_squared_error),
    Metric("mean_absolute_percentage_error", "regression", sums.mape,
           regression.mean_absolute_percentage_error),
    Metric("explained_variance_score", "regression", sums.explained_variance,
           regression.explained_variance_score),
    Metric("max_error", "regression", sums.max_ae, regression.max_error),
    Metric("huber_loss", "regression", sums.huber, regression.huber_loss, config=("delta",)),
    Metric("r2_score", "regression", sums.r2, regression.r2_score),
    Metric("adjusted_r2_score", "regression", sums.adjusted_r2, regression.adjusted_r2_score),
    Metric("regression_summary", "regression", sums.summary, regression.regression_summary),
    # every error is needed: accumulators with keep_values=True only, never over dask
    Metric("median_absolute_error", "regression", sums.median_ae,
           regression.median_absolute_error, dask=False),
    # pinball: sums of both signs of the residual, from which every alpha's loss follows
    # (alpha is a metric parameter, not the accumulator's). d2_pinball_score and
    # d2_absolute_error_score need the quantile of all of y_true: no row, one-shot only
    Metric("mean_pinball_loss", "pinball", pinball.loss, regression.mean_pinball_loss),
    # calibration: the bins are the accumulator's (fixed, uniform or given edges)
    Metric("calibration_summary", "calibration", bins.summary, calibration.calibration_summary,
           config=("n_bins", "pos_label", "labels")),
    Metric("calibration_bins", "calibration", bins.binned, calibration.calibration_bins,
           config=("n_bins", "strategy", "pos_label", "labels")),
    Metric("expected_calibration_error", "calibration", bins.ece,
           calibration.expected_calibration_error,
           config=("n_bins", "strategy", "pos_label", "labels")),
    Metric("max_calibration_error", "calibration", bins.mce, calibration.max_calibration_error,
           config=("n_bins", "strategy", "pos_label", "labels")),
    Metric("calibration_curve", "calibration", bins.curve, calibration.calibration_curve,
           config=("pos_label", "n_bins", "strategy")),
    Metric("brier_score_loss", "calibration", bins.brier, calibration.brier_score_loss,
           config=("pos_label", "labels")),
    Metric("d2_brier_score", "calibration", bins.d2_brier, calibration.d2_brier_score,
           config=("pos_label", "labels")),
    # ranking: pos_label is the accumulator's (its state keeps every class's weights);
    # roc_auc_score's one-shot function has none, so its Dask function keeps the
    # derivation's default (the greater label positive, as scikit-learn)
    Metric("roc_auc_score", "ranking", ranking.roc_auc, ranking_face.roc_auc_score,
           config=("pos_label",)),
    Metric("average_precision_score", "ranking", ranking.average_precision,
           ranking_face.average_precision_score, config=("pos_label",)),
    Metric("roc_curve", "ranking", ranking.roc, ranking_face.roc_curve, config=("pos_label",)),
    Metric("precision_recall_curve", "ranking", ranking.precision_recall,
           ranking_face.precision_recall_curve, config=("pos_label",)),
    Metric("det_curve", "ranking", ranking.det, ranking_face.det_curve, config=("pos_label",)),
    Metric("confusion_matrix_at_thresholds", "ranking", ranking.confusion_at_thresholds,
           ranking_face.confusion_matrix_at_thresholds, config=("pos_label",)),
    # DeLong's variance depends on the distinct-score summary only: it merges as the state
    Metric("delong_ci", "ranking", delong.ci, significance.delong_ci, config=("pos_label",)),
    # multilabel ranking: weighted sums of per-sample values over (n, L) matrices
    Metric("coverage_error", "label_ranking", labelrank.coverage, ranking_face.coverage_error),
    Metric("label_ranking_average_precision_score", "label_ranking", labelrank.lrap,
           ranking_face.label_ranking_average_precision_score),
    Metric("label_ranking_loss", "label_ranking", labelrank.ranking_loss,
           ranking_face.label_ranking_loss),
    # supervised clustering: the contingency table of (labels_true, labels_pred)
    # (mutual_info_score's precomputed ``contingency=`` is data: the other faces count it)
    Metric("contingency_matrix", "contingency", contingency.matrix, cluster.contingency_matrix),
    Metric("pair_confusion_matrix", "contingency", contingency.pair_confusion,
           cluster.pair_confusion_matrix),
    Metric("rand_score", "contingency", contingency.rand, cluster.rand_score),
    Metric("adjusted_rand_score", "contingency", contingency.adjusted_rand,
           cluster.adjusted_rand_score),
    Metric("mutual_info_score", "contingency", contingency.mutual_info, cluster.mutual_info_score),
    Metric("adjusted_mutual_info_score", "contingency", contingency.adjusted_mutual_info,
           cluster.adjusted_mutual_info_score),
    Metric("normalized_mutual_info_score", "contingency", contingency.normalized_mutual_info,
           cluster.normalized_mutual_info_score),
    Metric("homogeneity_completeness_v_measure", "contingency",
           contingency.homogeneity_completeness_v, cluster.homogeneity_completeness_v_measure),
    Metric("homogeneity_score", "contingency", contingency.homogeneity,
           cluster.homogeneity_score),
    Metric("completeness_score", "contingency", contingency.completeness,
           cluster.completeness_score),
    Metric("v_measure_score", "contingency", contingency.v_measure, cluster.v_measure_score),
    Metric("fowlkes_mallows_score", "contingency", contingency.fowlkes_mallows,
           cluster.fowlkes_mallows_score),
    # probabilistic scores: labels (the columns of y_proba) are the accumulator's, so that
    # chunks lacking a class still map their columns
    Metric("log_loss", "proba", proba.loss, probabilities.log_loss, config=("labels",)),
    Metric("d2_log_loss_score", "proba", proba.d2_log_loss, probabilities.d2_log_loss_score,
           config=("labels",)),
    # k picks what the pass counts: an accumulator with k reads scores, not probabilities
    Metric("top_k_accuracy_score", "proba", proba.top_k, probabilities.top_k_accuracy_score,
           config=("k", "labels")),
    # decision values: the per-class hinge sums; labels (the multiclass columns) are the
    # accumulator's
    Metric("hinge_loss", "hinge", hinge.hinge, probabilities.hinge_loss, config=("labels",)),
    # Tweedie deviances: the power is the accumulator's (its sums depend on it)
    Metric("mean_tweedie_deviance", "tweedie", deviance.tweedie_deviance,
           regression.mean_tweedie_deviance, config=("power",)),
    Metric("mean_poisson_deviance", "tweedie", deviance.poisson_deviance,
           regression.mean_poisson_deviance, fixed=(("power", 1),)),
    Metric("mean_gamma_deviance", "tweedie", deviance.gamma_deviance,
           regression.mean_gamma_deviance, fixed=(("power", 2),)),
    Metric("d2_tweedie_score", "tweedie", deviance.d2_tweedie, regression.d2_tweedie_score,
           config=("power",)),
    # squared logarithmic errors (values > -1; 1-D or (n, m) targets)
    Metric("mean_squared_log_error", "squared_log", deviance.msle,
           regression.mean_squared_log_error),
    Metric("root_mean_squared_log_error", "squared_log", deviance.rmsle,
           regression.root_mean_squared_log_error),
)


def by_family(family: str) -> list[Metric]:
    return [m for m in METRICS if m.family == family]
