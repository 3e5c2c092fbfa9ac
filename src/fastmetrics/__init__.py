"""fastmetrics: scikit-learn-compatible evaluation metrics from nogil compiled kernels.

Each public function validates its input, runs one kernel pass that fills a small *state*
(:mod:`fastmetrics.states`: counts, bin sums, sorted summaries) and derives its metrics from
that state. States of two chunks merge, which is what streaming (:mod:`fastmetrics.streaming`),
threads and clusters (:mod:`fastmetrics.dask`) build on.
"""

try:
    # the thread policy first: it loads the OpenMP runtime with its wait policy
    from ._threads import openmp_enabled
    from ._kernels import confusion  # noqa: F401  (fail early, with a clear message)
except ImportError as exc:  # pragma: no cover - only on a broken install
    raise ImportError(
        "fastmetrics' compiled kernels could not be imported. If you are running from a "
        "source checkout, build them first: `pip install .` (or "
        "`python setup.py build_ext --inplace`)."
    ) from exc

# -- classification / report card --
from .classification import (
    accuracy_score,
    balanced_accuracy_score,
    class_likelihood_ratios,
    classification_report,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    false_negative_rate,
    false_positive_rate,
    fbeta_score,
    hamming_loss,
    jaccard_score,
    matthews_corrcoef,
    multilabel_confusion_matrix,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
    specificity_score,
    zero_one_loss,
)
from .report import (
    ClassificationMetrics,
    PerClassMetrics,
    flatten,
    format_metrics_row,
    oos_precision_recall,
    results_columns,
    results_header,
    score,
)

# -- percentiles / timing --
from .percentiles import median, percentile, quantile
from .timing import (
    RESULTS_HEADER,
    BatchStats,
    LatencyStats,
    ModelBenchmark,
    append_results,
    benchmark_model,
    latency_stats,
    measure_batch,
    measure_latency,
    throughput_per_minute,
)

# -- calibration / regression --
from .calibration import (
    CalibrationBins,
    CalibrationSummary,
    ProbabilityReport,
    brier_score_loss,
    calibration_bins,
    calibration_curve,
    calibration_summary,
    class_confidence_from_logprobs,
    d2_brier_score,
    expected_calibration_error,
    max_calibration_error,
    reliability_diagram,
    score_probabilities,
)
from .regression import (
    adjusted_r2_score,
    explained_variance_score,
    huber_loss,
    mae_by_bin,
    d2_absolute_error_score,  # pinball (quantile) losses
    d2_pinball_score,
    mean_pinball_loss,
    max_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    median_absolute_error,
    r2_score,
    regression_summary,
    root_mean_squared_error,
)
from .regression import (
    d2_tweedie_score,
    mean_gamma_deviance,
    mean_poisson_deviance,
    mean_squared_log_error,
    mean_tweedie_deviance,
    root_mean_squared_log_error,
)

# -- ranking --
from .ranking import (
    auc,
    average_precision_score,
    confusion_matrix_at_thresholds,
    coverage_error,
    dcg_score,
    det_curve,
    label_ranking_average_precision_score,
    label_ranking_loss,
    mean_reciprocal_rank,
    metric_at_thresholds,
    ndcg_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)

# -- ROC AUC significance (DeLong) --
from .significance import DeLongResult, DeLongTest, delong_ci, delong_test

# -- supervised clustering --
from .cluster import (
    adjusted_mutual_info_score,
    adjusted_rand_score,
    completeness_score,
    contingency_matrix,
    expected_mutual_information,
    fowlkes_mallows_score,
    homogeneity_completeness_v_measure,
    homogeneity_score,
    mutual_info_score,
    normalized_mutual_info_score,
    pair_confusion_matrix,
    rand_score,
    v_measure_score,
)
# -- probabilistic classification scores --
from .probabilities import d2_log_loss_score, hinge_loss, log_loss, top_k_accuracy_score

# -- array API inputs (torch, DLPack) and scikit-learn's array_api_dispatch: every face
# function above wrapped once, here, before the metric table (imported by streaming) keeps
# references to them --
from . import calibration, classification, cluster, fairness, lm, percentiles  # noqa: E402
from . import probabilities, ranking, regression, report, significance  # noqa: E402
from ._array_api import accept_foreign_updates, follow_namespaces  # noqa: E402

follow_namespaces(globals(), classification, report, percentiles, calibration, regression,
                  ranking, significance, cluster, probabilities, lm, fairness)

# -- streaming accumulators and the state types: their own modules and __all__ --
from . import cluster, states, streaming  # noqa: E402,F401

accept_foreign_updates(streaming)  # the accumulators' update() reads torch and DLPack too

# -- LM / groups / robustness --
from .lm import (
    ContinuationBatch,
    Window,
    continuation_batch,
    multiple_choice_accuracy,
    perplexity,
    rolling_loglik,
    rolling_windows,
    sequence_loglik,
    token_logprobs,
)
from .fairness import GroupMetrics, group_metrics
from .metricframe import MetricFrame
from .evaluation import Evaluation, evaluate
from .parsing import ParsedPredictions, parse_failures
from .robustness import RobustnessReport, consistency_rate, robustness_report, robustness_score
from .stability import Stability, stability_summary
from .energy import (
    EmissionsReport,
    EmissionsRun,
    gco2_per_f1_point,
    gco2_per_mae_unit,
    track_emissions,
)
from .export import METRIC_KEYS, metrics_pivot, run_metrics
from .llm_timing import parse_ollama_timings
# scikit-learn scorer objects on fastmetrics' functions (scikit-learn imported on first use)
from .scorers import check_scoring, get_scorer, get_scorer_names, make_scorer, sklearn_scorers
# plots drawn by scikit-learn's displays (matplotlib and scikit-learn imported on first use)
from .plots import plot_confusion_matrix, plot_det_curve, plot_precision_recall_curve, plot_roc_curve
from .uncertainty import (
    BootstrapResult,
    ComparisonResult,
    ConfidenceInterval,
    McNemarResult,
    bootstrap,
    bootstrap_state,
    compare,
    compare_state,
    mcnemar_test,
)

__version__ = "0.1.0"

__all__ = [
    "openmp_enabled",
    # -- is B better than A? --
    "BootstrapResult",
    "ComparisonResult",
    "ConfidenceInterval",
    "McNemarResult",
    "bootstrap",
    "bootstrap_state",
    "compare",
    "compare_state",
    "mcnemar_test",
    # -- classification / report card --
    "ClassificationMetrics",
    "PerClassMetrics",
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
    "format_metrics_row",
    "hamming_loss",
    "jaccard_score",
    "matthews_corrcoef",
    "multilabel_confusion_matrix",
    "oos_precision_recall",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "score",
    "specificity_score",
    "zero_one_loss",
    # -- percentiles / timing --
    "median",
    "percentile",
    # -- plots (the `plot` extra) --
    "plot_confusion_matrix",
    "plot_det_curve",
    "plot_precision_recall_curve",
    "plot_roc_curve",
    "quantile",
    "LatencyStats",
    "BatchStats",
    "ModelBenchmark",
    "RESULTS_HEADER",
    "results_header",
    "results_columns",
    "latency_stats",
    "measure_latency",
    "measure_batch",
    "benchmark_model",
    "append_results",
    # -- calibration / regression --
    "CalibrationBins",
    "CalibrationSummary",
    "ProbabilityReport",
    "brier_score_loss",
    "d2_brier_score",
    "calibration_bins",
    "calibration_curve",
    "calibration_summary",
    "class_confidence_from_logprobs",
    "expected_calibration_error",
    "max_calibration_error",
    "reliability_diagram",
    "score_probabilities",
    "adjusted_r2_score",
    "explained_variance_score",
    "huber_loss",
    "mae_by_bin",
    "d2_absolute_error_score",  # pinball (quantile) losses
    "d2_pinball_score",
    "mean_pinball_loss",
    "max_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "median_absolute_error",
    "r2_score",
    "regression_summary",
    "root_mean_squared_error",
    "mean_tweedie_deviance",
    "mean_poisson_deviance",
    "mean_gamma_deviance",
    "d2_tweedie_score",
    "mean_squared_log_error",
    "root_mean_squared_log_error",
    # -- ranking --
    "roc_auc_score",
    "average_precision_score",
    "roc_curve",
    "precision_recall_curve",
    "det_curve",
    "confusion_matrix_at_thresholds",
    "metric_at_thresholds",
    "auc",
    "ndcg_score",
    "dcg_score",
    "coverage_error",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "mean_reciprocal_rank",
    # -- ROC AUC significance (DeLong) --
    "delong_ci",
    "delong_test",
    "DeLongResult",
    "DeLongTest",
    # -- supervised clustering --
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "completeness_score",
    "contingency_matrix",
    "expected_mutual_information",
    "fowlkes_mallows_score",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "pair_confusion_matrix",
    "rand_score",
    "v_measure_score",
    # -- probabilistic classification scores --
    "log_loss",
    "d2_log_loss_score",
    "top_k_accuracy_score",
    "hinge_loss",
    # -- LM / groups / robustness --
    "ContinuationBatch",
    "Window",
    "continuation_batch",
    "multiple_choice_accuracy",
    "perplexity",
    "rolling_loglik",
    "rolling_windows",
    "sequence_loglik",
    "token_logprobs",
    "GroupMetrics",
    "group_metrics",
    "MetricFrame",
    "Evaluation",
    "evaluate",
    "RobustnessReport",
    "consistency_rate",
    "robustness_report",
    "robustness_score",
    "Stability",
    "stability_summary",
    "ParsedPredictions",
    "parse_failures",
    "throughput_per_minute",
    "flatten",
    # -- energy and CO2 (the `energy` extra) --
    "EmissionsReport",
    "EmissionsRun",
    "gco2_per_f1_point",
    "gco2_per_mae_unit",
    "track_emissions",
    # -- the harness' metric keys and the run x metric table --
    "METRIC_KEYS",
    "metrics_pivot",
    "run_metrics",
    "parse_ollama_timings",
    "get_scorer",
    "get_scorer_names",
    "make_scorer",
    "check_scoring",
    "sklearn_scorers",
]
