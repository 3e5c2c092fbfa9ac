"""Type aliases of the public signatures, imported by the face modules for type checkers only
(under ``TYPE_CHECKING``: importing the package never imports this module)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ArrayLike", "NDArray", "FloatArray", "IntArray", "PRFSArrays", "PRFSFloats",
           "Label", "Average", "RankingAverage", "AverageMethod", "Scoring", "ZeroDivision",
           "Normalize", "MultiOutput", "MultiOutputAverage", "QuantileMethod", "Quantiles",
           "Weights", "RandomState", "AccumulatorKind"]

#: results
FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
#: precision_recall_fscore_support's results: per label (support: counts, or weights when
#: weighted), or averaged (support None)
PRFSArrays = tuple[FloatArray, FloatArray, FloatArray, Union[IntArray, FloatArray]]
PRFSFloats = tuple[float, float, float, None]
#: one class label (``pos_label``): integers, strings, booleans or numpy scalars
Label = Union[int, str, bool, float, np.generic]
#: ``average`` of the precision/recall/F family, jaccard_score and the one-vs-rest rates
Average = Literal["binary", "micro", "macro", "weighted", "samples"]
#: ``zero_division``: "warn" (0 and a warning), 0.0, 1.0 or nan
ZeroDivision = Union[Literal["warn"], float]
#: ``average`` of roc_auc_score and average_precision_score (None: per class)
RankingAverage = Literal["micro", "macro", "samples", "weighted"]
#: ``average_method`` of the normalised mutual informations
AverageMethod = Literal["min", "geometric", "arithmetic", "max"]
#: ``scoring`` of check_scoring: a name, a callable, or several of either
Scoring = Union[str, Callable[..., Any], Sequence[str], Mapping[str, Any], None]
#: ``kind`` of fastmetrics.dask.accumulate: an accumulator family
AccumulatorKind = Literal["confusion", "calibration", "regression", "ranking", "contingency",
                          "proba", "hinge", "label_ranking", "pinball", "tweedie",
                          "squared_log", "paired"]
#: ``normalize`` of confusion_matrix
Normalize = Literal["true", "pred", "all"]
#: ``multioutput`` of the regression metrics: a name or per-output weights
MultiOutput = Union[Literal["raw_values", "uniform_average", "variance_weighted"],
                    NDArray[Any], Sequence[float]]
#: the ``multioutput`` values that average the outputs into one number
MultiOutputAverage = Union[Literal["uniform_average", "variance_weighted"], NDArray[Any],
                           Sequence[float]]
#: ``q`` of quantile/percentile: one probability (percentage) or several
Quantiles = Union[float, Sequence[float], NDArray[Any]]
#: weights read by numpy itself (``np.average``)
Weights = Union[NDArray[Any], Sequence[float], None]
#: ``method`` of quantile/percentile: numpy's nine sample-quantile methods and its four
#: legacy names
QuantileMethod = Literal["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                         "interpolated_inverted_cdf", "hazen", "weibull", "linear",
                         "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint",
                         "nearest"]
#: a seed or generator
RandomState = Union[int, np.random.Generator, np.random.RandomState, None]
