"""Regression metrics from one pass of sums (scikit-learn's names and signatures).

Every function validates its input, builds a :class:`~fastmetrics.states.RegressionState`
(one kernel pass: sums of weights, of absolute, squared, relative errors and Huber losses,
and the weighted mean and spread of ``y_true``) and returns a derivation of it, so computing
several metrics together (:func:`regression_summary`) costs one pass. The median absolute
error needs a selection over the errors (one O(n) array of errors, no state); ``mae_by_bin``
fills per-range sums with a kernel of its own (its ranges are arbitrary, overlapping, and it
has no streaming face).

Conventions and differences from scikit-learn
---------------------------------------------
* 1-D targets ((n, 1) columns are 1-D) and (n, m) targets with several outputs, C- or
  F-ordered or strided, read in place: one pass fills the sums of every output.
  ``multioutput`` as scikit-learn: "raw_values" (the array of per-output values),
  "uniform_average", "variance_weighted" for R², or custom output weights (one per output;
  for single-output targets they raise scikit-learn's ``ValueError``). ``huber_loss``,
  ``adjusted_r2_score`` and ``regression_summary`` (no ``multioutput`` parameter) give the
  uniform average over outputs (for ``regression_summary``'s RMSE: of the per-output RMSE,
  as ``root_mean_squared_error``).
* float32 and float64 inputs are read as they are (no copy; other real dtypes, float16
  included, are converted to float64 once) and all sums are float64. scikit-learn computes
  float32 (and float16) inputs in that dtype, so for them the results agree with
  scikit-learn to that dtype's precision (and to float64 precision with scikit-learn on the
  same values as float64).
* ``sample_weight`` must be an array (scikit-learn's parameter validation refuses scalars
  too).
* R² uses a two-pass spread per block of 2048 samples, merged exactly (Chan et al.): the
  denominator is as accurate as scikit-learn's two-pass one. A constant ``y_true`` gives a
  denominator of exactly 0 (scikit-learn's mean of, say, ``[0.1, 0.1, 0.1]`` is not exactly
  0.1, so its denominator can be ~1e-33 and its score a huge negative number; here
  ``force_finite`` applies as documented).
"""

from __future__ import annotations

import math

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from ._inputs import value_dtype
from ._kernels import sums as kernel
from ._states import pinball
from ._states import sums
from ._states.sums import RegressionState, RegressionSummary
from ._states import deviance
from ._states.deviance import SquaredLogState, TweedieState
from . import exceptions

if TYPE_CHECKING:  # the name ``__getattr__`` below gives, for type checkers and linters
    from sklearn.exceptions import UndefinedMetricWarning  # noqa: F401

    from ._typing import ArrayLike, FloatArray, MultiOutput, MultiOutputAverage

__all__ = [
    "STORY_POINT_BINS",
    "RegressionSummary",
    "UndefinedMetricWarning",
    "adjusted_r2_score",
    "explained_variance_score",
    "huber_loss",
    "mae_by_bin",
    "d2_absolute_error_score",
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
    # deviances and squared log errors (the deviance kernel)
    "d2_tweedie_score",
    "mean_gamma_deviance",
    "mean_poisson_deviance",
    "mean_squared_log_error",
    "mean_tweedie_deviance",
    "root_mean_squared_log_error",
]


# scikit-learn's warning class, looked up on first use (importing it costs a second)
__getattr__ = exceptions.lazy_warning_classes(__name__)


#: The harness' story-point bins (inclusive ranges of ``y_true``) for :func:`fastmetrics.mae_by_bin`.
#:
#: See Also
#: --------
#: fastmetrics.mae_by_bin : The MAE of each range.
#:
#: Examples
#: --------
#: >>> from fastmetrics.regression import STORY_POINT_BINS
#: >>> STORY_POINT_BINS["5-8"]
#: (5, 8)
STORY_POINT_BINS = {"1-3": (1, 3), "5-8": (5, 8), "13-21": (13, 21), "34+": (34, math.inf)}


# --------------------------------------------------------------------------------------
# public metrics


@overload
def mean_absolute_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                        sample_weight: ArrayLike | None = ..., multioutput: Literal["raw_values"],
                        n_threads: int | None = ...) -> FloatArray: ...


@overload
def mean_absolute_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                        sample_weight: ArrayLike | None = ...,
                        multioutput: MultiOutputAverage = ...,
                        n_threads: int | None = ...) -> float: ...


def mean_absolute_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                        sample_weight: ArrayLike | None = None,
                        multioutput: MultiOutput = "uniform_average",
                        n_threads: int | None = None) -> float | FloatArray:
    """Mean absolute error regression loss.

    The weighted mean of ``|y_true - y_pred|``, per output. One kernel pass fills mergeable
    sums, so :class:`fastmetrics.streaming.RegressionAccumulator` and the Dask function give the
    same value over chunks. float32 inputs are read in place and summed in float64
    (scikit-learn sums them in float32: agreement to float32 precision).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        How per-output values are combined: "raw_values" returns them all as an array,
        "uniform_average" their mean, an array of weights their weighted mean (custom
        weights need several outputs).
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        The mean absolute error (non-negative, best 0.0); an array of per-output values
        for ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN,
        infinity or non-numbers, or have more than two dimensions; if ``sample_weight``
        is not an array of n_samples finite numbers or is all zero; if ``multioutput`` is
        an unknown string, or custom weights are given for one output or do not match the
        number of outputs; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.mean_absolute_error : The scikit-learn function this one matches.
    median_absolute_error : The median of the absolute errors instead of the mean.
    regression_summary : MAE, MSE, RMSE and R² from one pass.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.mean_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads, flags=0)
    result: float | FloatArray = sums.mae(state, multioutput)
    return result


@overload
def mean_squared_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                       sample_weight: ArrayLike | None = ..., multioutput: Literal["raw_values"],
                       n_threads: int | None = ...) -> FloatArray: ...


@overload
def mean_squared_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                       sample_weight: ArrayLike | None = ...,
                       multioutput: MultiOutputAverage = ...,
                       n_threads: int | None = ...) -> float: ...


def mean_squared_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                       sample_weight: ArrayLike | None = None,
                       multioutput: MultiOutput = "uniform_average",
                       n_threads: int | None = None) -> float | FloatArray:
    """Mean squared error regression loss.

    The weighted mean of ``(y_true - y_pred) ** 2``, per output, from one pass of mergeable
    sums (streaming and Dask faces give the same value). float32 inputs are summed in float64.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        How per-output values are combined: "raw_values" returns them all as an array,
        "uniform_average" their mean, an array of weights their weighted mean (custom
        weights need several outputs).
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        The mean squared error (non-negative, best 0.0); per output for
        ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN,
        infinity or non-numbers, or have more than two dimensions; if ``sample_weight``
        is not an array of n_samples finite numbers or is all zero; if ``multioutput`` is
        an unknown string, or custom weights are given for one output or do not match the
        number of outputs; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.mean_squared_error : The scikit-learn function this one matches.
    root_mean_squared_error : Its square root, per output.
    mean_squared_log_error : The squared error of ``log1p`` of the values.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads, flags=0)
    result: float | FloatArray = sums.mse(state, multioutput)
    return result


@overload
def root_mean_squared_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sample_weight: ArrayLike | None = ...,
                            multioutput: Literal["raw_values"],
                            n_threads: int | None = ...) -> FloatArray: ...


@overload
def root_mean_squared_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sample_weight: ArrayLike | None = ...,
                            multioutput: MultiOutputAverage = ...,
                            n_threads: int | None = ...) -> float: ...


def root_mean_squared_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sample_weight: ArrayLike | None = None,
                            multioutput: MultiOutput = "uniform_average",
                            n_threads: int | None = None) -> float | FloatArray:
    """Root mean squared error regression loss.

    The square root of each output's mean squared error, then combined as ``multioutput``
    says (so for several outputs it is the mean of per-output RMSEs, not the root of the
    mean MSE). One pass of mergeable sums; float32 inputs are summed in float64.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        How per-output values are combined: "raw_values" returns them all as an array,
        "uniform_average" their mean, an array of weights their weighted mean (as in
        scikit-learn, weights are not checked against the number of outputs here: numpy's
        ``average`` refuses a mismatch).
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        The root mean squared error (non-negative, best 0.0); per output for
        ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN,
        infinity or non-numbers, or have more than two dimensions; if ``sample_weight``
        is not an array of n_samples finite numbers or is all zero; if ``multioutput`` is
        an unknown string; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None, or if custom ``multioutput`` weights
        do not match the number of outputs (numpy's ``average``, as in scikit-learn).

    See Also
    --------
    sklearn.metrics.root_mean_squared_error : The scikit-learn function this one matches.
    mean_squared_error : The mean squared error, before the square root.
    root_mean_squared_log_error : The same on ``log1p`` of the values.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.root_mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.6123724356957945
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads, flags=0)
    result: float | FloatArray = sums.rmse(state, multioutput)
    return result


@overload
def mean_absolute_percentage_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                                   sample_weight: ArrayLike | None = ...,
                                   multioutput: Literal["raw_values"],
                                   n_threads: int | None = ...) -> FloatArray: ...


@overload
def mean_absolute_percentage_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                                   sample_weight: ArrayLike | None = ...,
                                   multioutput: MultiOutputAverage = ...,
                                   n_threads: int | None = ...) -> float: ...


def mean_absolute_percentage_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                                   sample_weight: ArrayLike | None = None,
                                   multioutput: MultiOutput = "uniform_average",
                                   n_threads: int | None = None) -> float | FloatArray:
    """Mean absolute percentage error, as a fraction: ``mean(|e| / max(|y_true|, eps))``.

    Like scikit-learn, ``eps`` is float64's machine epsilon, so a zero ``y_true`` gives a
    large but finite value, and the result is a fraction (0.5 means 50 %), not a percentage.
    One pass of mergeable sums; float32 inputs are summed in float64.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        How per-output values are combined: "raw_values" returns them all as an array,
        "uniform_average" their mean, an array of weights their weighted mean (custom
        weights need several outputs).
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        The MAPE (non-negative, best 0.0); per output for ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN,
        infinity or non-numbers, or have more than two dimensions; if ``sample_weight``
        is not an array of n_samples finite numbers or is all zero; if ``multioutput`` is
        an unknown string, or custom weights are given for one output or do not match the
        number of outputs; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.mean_absolute_percentage_error : The scikit-learn function this one
        matches.
    mean_absolute_error : The absolute error, not relative to ``y_true``.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.mean_absolute_percentage_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 4)
    0.3274
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                        flags=kernel.FLAG_APE)
    result: float | FloatArray = sums.mape(state, multioutput)
    return result


@overload
def explained_variance_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                             sample_weight: ArrayLike | None = ...,
                             multioutput: Literal["raw_values"], force_finite: bool = ...,
                             n_threads: int | None = ...) -> FloatArray: ...


@overload
def explained_variance_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                             sample_weight: ArrayLike | None = ...,
                             multioutput: MultiOutputAverage = ..., force_finite: bool = ...,
                             n_threads: int | None = ...) -> float: ...


def explained_variance_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                             sample_weight: ArrayLike | None = None,
                             multioutput: MultiOutput = "uniform_average",
                             force_finite: bool = True,
                             n_threads: int | None = None) -> float | FloatArray:
    """Explained variance regression score: ``1 - Var(y_true - y_pred) / Var(y_true)``.

    The variances come from one pass of mergeable sums (spreads per block merged exactly), so
    a constant ``y_true`` has a variance of exactly 0 here; scikit-learn's two-pass variance
    of such a column can be a rounding error instead, which changes its score.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average", "variance_weighted"} or array-like of \
    shape (n_outputs,), default="uniform_average"
        "raw_values" returns the per-output scores; "uniform_average" their mean;
        "variance_weighted" their mean weighted by the variance of each output's ``y_true``;
        an array of weights their weighted mean (custom weights need several outputs).
    force_finite : bool, default=True
        If True, a constant ``y_true`` scores 1.0 for perfect predictions and 0.0 otherwise,
        instead of NaN or -inf.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_outputs,)
        The explained variance (best 1.0, may be negative); per output for
        ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN,
        infinity or non-numbers, or have more than two dimensions; if ``sample_weight``
        is not an array of n_samples finite numbers or is all zero; if ``multioutput`` is
        an unknown string, or custom weights are given for one output or do not match the
        number of outputs; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.explained_variance_score : The scikit-learn function this one matches.
    r2_score : The coefficient of determination, which also counts a biased mean error.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.explained_variance_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
    0.957173
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                        flags=kernel.FLAG_R2 | kernel.FLAG_EV)
    result: float | FloatArray = sums.explained_variance(state, multioutput, force_finite)
    return result


def max_error(y_true: ArrayLike, y_pred: ArrayLike, *, n_threads: int | None = None) -> float:
    """The maximum residual error: the largest ``|y_true - y_pred|`` of any sample.

    A single output only, as scikit-learn. The maximum merges over chunks, so it has a
    streaming and a Dask face too.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,)
        Estimated target values.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    max_error : float
        The maximum absolute error (non-negative, best 0.0). As scikit-learn, float32 (or
        float16) inputs give it rounded to that dtype (the state holds it in float64: an
        accumulator gives the unrounded value).

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length, are empty, hold NaN, infinity or
        non-numbers, or have several outputs ("Multioutput not supported in max_error");
        if ``n_threads`` < 1.
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.max_error : The scikit-learn function this one matches.
    mean_absolute_error : The mean of the same absolute errors.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.max_error([3, 2, 7, 1], [4, 2, 7, 1])
    1.0
    """
    state = RegressionState.from_arrays(y_true, y_pred, None, n_threads,
                                        flags=kernel.FLAG_MAX)
    value = sums.max_ae(state)
    # scikit-learn subtracts in the inputs' common dtype; the difference of two float32
    # (float16) values is exact in float64 and rounding is monotonic, so rounding the
    # largest one gives its largest rounded difference
    dt = np.result_type(value_dtype(y_true), value_dtype(y_pred))
    if dt.kind == "f" and dt.itemsize < 8:
        return float(dt.type(value))
    return value


def huber_loss(y_true: ArrayLike, y_pred: ArrayLike, *, delta: float = 1.0,
               sample_weight: ArrayLike | None = None, n_threads: int | None = None) -> float:
    """Mean Huber loss: ``e**2 / 2`` for ``|e| <= delta``, ``delta * (|e| - delta / 2)`` above.

    scikit-learn has no Huber loss metric (only the estimator's loss); this one is a weighted
    mean from the same one-pass sums as the other regression metrics, mergeable over chunks.
    For several outputs it gives the mean over outputs.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    delta : float, default=1.0
        Where the loss turns from quadratic to linear (a finite number > 0).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. The result is the same for any value.

    Returns
    -------
    loss : float
        The weighted mean Huber loss (non-negative, best 0.0).

    Raises
    ------
    ValueError
        If ``delta`` is not a finite number > 0; if ``y_true`` and ``y_pred`` differ in
        length or shape, are empty, hold NaN, infinity or non-numbers; if
        ``sample_weight`` is not an array of n_samples finite numbers or is all zero; if
        ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero.
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.linear_model.HuberRegressor : scikit-learn's estimator fitted with this loss.
    mean_squared_error : The loss for ``delta`` -> infinity (times two).
    mean_absolute_error : The loss's slope for large errors.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.huber_loss([0.0, 0.0], [0.5, 3.0])
    1.3125
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                        flags=kernel.FLAG_HUBER, delta=sums.check_delta(delta))
    return sums.huber(state)


@overload
def r2_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = ...,
             multioutput: Literal["raw_values"], force_finite: bool = ...,
             n_threads: int | None = ...) -> FloatArray: ...


@overload
def r2_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = ...,
             multioutput: MultiOutputAverage = ..., force_finite: bool = ...,
             n_threads: int | None = ...) -> float: ...


def r2_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
             multioutput: MultiOutput = "uniform_average", force_finite: bool = True,
             n_threads: int | None = None) -> float | FloatArray:
    """R² (coefficient of determination) regression score.

    The denominator (the spread of ``y_true``) uses a two-pass spread per block of 2048
    samples merged exactly (Chan et al.), as accurate as scikit-learn's two-pass one and
    mergeable over chunks. A constant ``y_true`` gives a denominator of exactly 0, where
    scikit-learn's can be a rounding error (~1e-33) and its score a huge negative number;
    here ``force_finite`` applies as documented.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average", "variance_weighted"}, array-like of \
    shape (n_outputs,) or None, default="uniform_average"
        Per-output scores ("raw_values"), their mean ("uniform_average"), their mean
        weighted by the variance of each output's ``y_true`` ("variance_weighted"; uniform
        when all are 0; None means the same), or by custom weights. For one output all give
        the same score ("raw_values" as an array).
    force_finite : bool, default=True
        If True, a constant ``y_true`` scores 1.0 for perfect predictions and 0.0 otherwise,
        instead of NaN or -inf.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    z : float or ndarray of shape (n_outputs,)
        The R² score (best 1.0, may be negative); per output for
        ``multioutput="raw_values"``; NaN for fewer than two samples.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN,
        infinity or non-numbers, or have more than two dimensions; if ``sample_weight``
        is not an array of n_samples finite numbers or is all zero; if ``multioutput`` is
        an unknown string, or custom weights are given for one output or do not match the
        number of outputs; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        For fewer than two samples (the score is NaN).

    See Also
    --------
    sklearn.metrics.r2_score : The scikit-learn function this one matches.
    adjusted_r2_score : R² corrected for the number of predictors.
    explained_variance_score : The same ratio without the mean error.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.r2_score([1, 2, 3], [3, 2, 1])
    -3.0
    >>> fm.r2_score([-2, -2, -2], [-2, -2, -1.5], force_finite=False)
    -inf
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                        flags=kernel.FLAG_R2)
    result: float | FloatArray = sums.r2(state, multioutput, force_finite)
    return result


def adjusted_r2_score(y_true: ArrayLike, y_pred: ArrayLike, *, n_features: int,
                      sample_weight: ArrayLike | None = None, force_finite: bool = True,
                      n_threads: int | None = None) -> float:
    """Adjusted R²: ``1 - (1 - R²) (n - 1) / (n - n_features - 1)``.

    Not in scikit-learn. R² is computed as :func:`r2_score` (weighted when weights are
    given); ``n`` is the number of samples, not the weight total. Several outputs give the
    uniform average of their R² before the adjustment.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    n_features : int
        Number of predictors of the model (>= 0, and < n_samples - 1).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights for R²; None weighs every sample 1.
    force_finite : bool, default=True
        As in :func:`r2_score`: finite R² for a constant ``y_true``.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. The result is the same for any value.

    Returns
    -------
    score : float
        The adjusted R² (best 1.0, may be negative).

    Raises
    ------
    ValueError
        If ``n_features`` is not an int >= 0, or n_samples <= ``n_features`` + 1; if
        ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN, infinity
        or non-numbers; if ``sample_weight`` is not an array of n_samples finite numbers or
        is all zero; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero.
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.r2_score : scikit-learn's unadjusted R².
    r2_score : The unadjusted score.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.adjusted_r2_score([1, 2, 3, 4, 5], [1, 2, 3, 4, 6], n_features=1)
    0.8666666666666667
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                        flags=kernel.FLAG_R2)
    return sums.adjusted_r2(state, n_features, force_finite)


@overload
def median_absolute_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                          multioutput: Literal["raw_values"],
                          sample_weight: ArrayLike | None = ...) -> FloatArray: ...


@overload
def median_absolute_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                          multioutput: MultiOutputAverage = ...,
                          sample_weight: ArrayLike | None = ...) -> float: ...


def median_absolute_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                          multioutput: MultiOutput = "uniform_average",
                          sample_weight: ArrayLike | None = None) -> float | FloatArray:
    """Median absolute error regression loss.

    Unweighted: ``median(|y_pred - y_true|)`` computed in the inputs' common dtype, as
    scikit-learn does, by an O(n) selection. Weighted: scikit-learn's averaged inverted-CDF
    weighted median (a sort, O(n log n)). A median needs every error, so this function has
    no streaming accumulator and no Dask face, and takes no ``n_threads``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        How per-output values are combined: "raw_values" returns them all as an array,
        "uniform_average" their mean, an array of weights their weighted mean (custom
        weights need several outputs).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        The median absolute error (non-negative, best 0.0); per output for
        ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN,
        infinity or non-numbers, or have more than two dimensions; if ``sample_weight``
        is not an array of n_samples finite numbers; if ``multioutput`` is an unknown
        string, or custom weights are given for one output or do not match the number of
        outputs.

    See Also
    --------
    sklearn.metrics.median_absolute_error : The scikit-learn function this one matches.
    mean_absolute_error : The mean of the absolute errors (mergeable).

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.median_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    yt, yp, w = sums.targets(y_true, y_pred, sample_weight)  # no state: O(N) selection
    sums.check_multioutput(multioutput, outputs=sums.n_outputs(yt))
    result: float | FloatArray = sums.medians(sums.abs_errors(yt, yp, w), w, multioutput)
    return result


# --------------------------------------------------------------------------------------
# pinball (quantile) losses: their own kernel pass (sums of both signs of the residual)


@overload
def mean_pinball_loss(y_true: ArrayLike, y_pred: ArrayLike, *,
                      sample_weight: ArrayLike | None = ..., alpha: float = ...,
                      multioutput: Literal["raw_values"],
                      n_threads: int | None = ...) -> FloatArray: ...


@overload
def mean_pinball_loss(y_true: ArrayLike, y_pred: ArrayLike, *,
                      sample_weight: ArrayLike | None = ..., alpha: float = ...,
                      multioutput: MultiOutputAverage = ...,
                      n_threads: int | None = ...) -> float: ...


def mean_pinball_loss(y_true: ArrayLike, y_pred: ArrayLike, *,
                      sample_weight: ArrayLike | None = None, alpha: float = 0.5,
                      multioutput: MultiOutput = "uniform_average",
                      n_threads: int | None = None) -> float | FloatArray:
    """Pinball loss for quantile regression.

    ``alpha * (y_true - y_pred)`` where ``y_true >= y_pred``, ``(1 - alpha) * (y_pred -
    y_true)`` below, averaged with the sample weights. The state (weighted sums of both
    signs of the residual) serves every ``alpha``: accumulators and the Dask function
    merge it exactly.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    alpha : float, default=0.5
        The quantile level, in [0, 1]; 0.5 gives half the mean absolute error.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        How per-output values are combined: "raw_values" returns them all as an array,
        "uniform_average" their mean, an array of weights their weighted mean (custom
        weights need several outputs).
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        The weighted mean pinball loss (non-negative for non-negative weights, best 0.0);
        per output for ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If ``alpha`` is not a number in [0, 1] or ``multioutput`` is not one of the allowed
        values (scikit-learn's ``InvalidParameterError``, a ``ValueError``), or custom
        weights are given for one output or do not match the number of outputs; if
        ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN, infinity
        or non-numbers; if ``sample_weight`` is not an array of n_samples finite numbers or
        is all zero; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.mean_pinball_loss : The scikit-learn function this one matches.
    d2_pinball_score : The fraction of pinball loss explained.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.mean_pinball_loss([1, 2, 3], [0, 2, 3], alpha=0.1)
    0.03333333333333333
    """
    alpha = pinball.check_alpha(alpha)
    if multioutput is None or isinstance(multioutput, str):  # before the data, as sklearn
        pinball.check_pinball_multioutput(multioutput, 1)
    state = pinball.PinballState.from_arrays(y_true, y_pred, sample_weight, n_threads)
    result: float | FloatArray = pinball.loss(state, alpha, multioutput)
    return result


@overload
def d2_pinball_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                     sample_weight: ArrayLike | None = ..., alpha: float = ...,
                     multioutput: Literal["raw_values"],
                     n_threads: int | None = ...) -> FloatArray: ...


@overload
def d2_pinball_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                     sample_weight: ArrayLike | None = ..., alpha: float = ...,
                     multioutput: MultiOutputAverage = ...,
                     n_threads: int | None = ...) -> float: ...


def d2_pinball_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                     sample_weight: ArrayLike | None = None, alpha: float = 0.5,
                     multioutput: MultiOutput = "uniform_average",
                     n_threads: int | None = None) -> float | FloatArray:
    """D² regression score with the pinball loss: the fraction of pinball loss explained.

    ``1 - loss(y_true, y_pred) / loss(y_true, q)`` where ``q`` is the (weighted)
    ``alpha``-quantile of ``y_true`` (scikit-learn's averaged inverted-CDF
    ``_weighted_percentile``). Not mergeable: the quantile needs every ``y_true``, so this
    function has no accumulator method and no Dask function. Unweighted, the quantile is an
    O(N) selection read in place; weighted, a sort (as scikit-learn). Then one kernel pass
    gives the loss against it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    alpha : float, default=0.5
        The quantile level, in [0, 1].
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        "raw_values" returns the array of per-output scores, "uniform_average" their mean,
        an array of weights their weighted mean (custom weights need several outputs).
    n_threads : int or None, default=None
        Threads for the kernel passes over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_outputs,)
        The D² score (best 1.0, may be negative; 1.0 for perfect predictions, 0.0 when
        ``y_true`` equals its quantile everywhere but the predictions do not). NaN for fewer
        than two samples.

    Raises
    ------
    ValueError
        If ``alpha`` is not a number in [0, 1] or ``multioutput`` is not one of the allowed
        values (scikit-learn's ``InvalidParameterError``, a ``ValueError``), or custom
        weights are given for one output or do not match the number of outputs; if
        ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN, infinity
        or non-numbers; if ``sample_weight`` is not an array of n_samples finite numbers or
        is all zero; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        For fewer than two samples (the score is NaN).

    See Also
    --------
    sklearn.metrics.d2_pinball_score : The scikit-learn function this one matches.
    mean_pinball_loss : The loss itself (mergeable).
    d2_absolute_error_score : This score with ``alpha=0.5``.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.d2_pinball_score([1, 2, 3], [1, 3, 3], alpha=0.9), 6)
    0.666667
    """
    result: float | FloatArray = pinball.d2_score(y_true, y_pred, sample_weight, alpha,
                                                  multioutput, n_threads, "d2_pinball_score")
    return result


@overload
def d2_absolute_error_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sample_weight: ArrayLike | None = ...,
                            multioutput: Literal["raw_values"],
                            n_threads: int | None = ...) -> FloatArray: ...


@overload
def d2_absolute_error_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sample_weight: ArrayLike | None = ...,
                            multioutput: MultiOutputAverage = ...,
                            n_threads: int | None = ...) -> float: ...


def d2_absolute_error_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sample_weight: ArrayLike | None = None,
                            multioutput: MultiOutput = "uniform_average",
                            n_threads: int | None = None) -> float | FloatArray:
    """D² regression score with the absolute error: :func:`d2_pinball_score` with
    ``alpha=0.5`` (the baseline is the median of ``y_true``).

    Not mergeable (the median needs every ``y_true``): no accumulator method and no Dask
    function.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        "raw_values" returns the array of per-output scores, "uniform_average" their mean,
        an array of weights their weighted mean (custom weights need several outputs).
    n_threads : int or None, default=None
        Threads for the kernel passes over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    score : float or ndarray of shape (n_outputs,)
        The D² score (best 1.0, may be negative); per output for
        ``multioutput="raw_values"``; NaN for fewer than two samples.

    Raises
    ------
    ValueError
        If ``multioutput`` is not one of the allowed values (scikit-learn's
        ``InvalidParameterError``, a ``ValueError``), or custom weights are given for one
        output or do not match the number of outputs; if ``y_true`` and ``y_pred`` differ in
        length or shape, are empty, hold NaN, infinity or non-numbers; if ``sample_weight``
        is not an array of n_samples finite numbers or is all zero; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        For fewer than two samples (the score is NaN).

    See Also
    --------
    sklearn.metrics.d2_absolute_error_score : The scikit-learn function this one matches.
    d2_pinball_score : The same score for any quantile level.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.d2_absolute_error_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.7647058823529411
    """
    result: float | FloatArray = pinball.d2_score(y_true, y_pred, sample_weight, 0.5,
                                                  multioutput, n_threads, "d2_absolute_error_score")
    return result


def regression_summary(y_true: ArrayLike, y_pred: ArrayLike, *,
                       sample_weight: ArrayLike | None = None,
                       n_threads: int | None = None) -> RegressionSummary:
    """MAE, MSE, RMSE and R² (``force_finite=True``) together, from one kernel pass.

    Not in scikit-learn: the four values equal :func:`mean_absolute_error`,
    :func:`mean_squared_error`, :func:`root_mean_squared_error` and :func:`r2_score` with
    their defaults (for several outputs, the uniform average over outputs).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. The result is the same for any value.

    Returns
    -------
    summary : RegressionSummary
        ``mae``, ``mse``, ``rmse``, ``r2`` and ``n_samples``.

    Raises
    ------
    ValueError
        If ``y_true`` and ``y_pred`` differ in length or shape, are empty, hold NaN,
        infinity or non-numbers, or have more than two dimensions; if ``sample_weight``
        is not an array of n_samples finite numbers or is all zero; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero.
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        For fewer than two samples (``r2`` is NaN).

    See Also
    --------
    sklearn.metrics.r2_score : scikit-learn computes each of the four metrics separately.
    fastmetrics.regression.RegressionSummary : The record returned.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.regression_summary([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]).as_row()
    {'mae': 0.5, 'mse': 0.375, 'rmse': 0.6123724356957945, 'r2': 0.9486081370449679, 'n_samples': 4}
    """
    state = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                        flags=kernel.FLAG_R2)
    return sums.summary(state)


def mae_by_bin(y_true: ArrayLike, y_pred: ArrayLike, bins: Mapping[str, tuple[float, float]], *,
               sample_weight: ArrayLike | None = None) -> dict[str, float]:
    """MAE restricted to ranges of ``y_true``, one pass for all ranges.

    Not in scikit-learn. Each named range selects the samples whose ``y_true`` lies in it
    (both ends included); a kernel of its own fills every range's sums in one pass. Ranges are
    arbitrary and may overlap, so this function has no streaming or Dask face.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,)
        Estimated target values.
    bins : dict[str, tuple[float, float]]
        Name -> inclusive ``(low, high)`` range of ``y_true`` (``high`` may be ``math.inf``);
        ranges may overlap. :data:`~fastmetrics.regression.STORY_POINT_BINS` holds the harness' story-point bins.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.

    Returns
    -------
    mae : dict[str, float]
        MAE per bin, in the order of ``bins``; NaN for a bin with no samples (or zero total
        weight).

    Raises
    ------
    ValueError
        If ``bins`` is not a non-empty dict, a bin is not a ``(low, high)`` pair of numbers,
        or has NaN or ``low > high``; if the targets are not 1-D, differ in length, are
        empty, hold NaN, infinity or non-numbers; if ``sample_weight`` is not an array of
        n_samples finite numbers or is all zero.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero.

    See Also
    --------
    sklearn.metrics.mean_absolute_error : scikit-learn's MAE over all samples.
    mean_absolute_error : The MAE over all samples.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> from fastmetrics.regression import STORY_POINT_BINS
    >>> fm.mae_by_bin([1, 3, 8, 40], [2, 3, 5, 20], STORY_POINT_BINS)
    {'1-3': 0.5, '5-8': 3.0, '13-21': nan, '34+': 20.0}
    """
    if not isinstance(bins, dict) or not bins:
        raise ValueError("bins must be a non-empty dict of name -> (low, high)")
    try:
        lo = np.array([float(v[0]) for v in bins.values()])
        hi = np.array([float(v[1]) for v in bins.values()])
    except (TypeError, ValueError, IndexError) as exc:
        raise ValueError("each bin must be a (low, high) pair of numbers") from exc
    if np.isnan(lo).any() or np.isnan(hi).any() or (lo > hi).any():
        raise ValueError("each bin must satisfy low <= high (no NaN)")
    yt, yp, w = sums.targets(y_true, y_pred, sample_weight)
    if yt.ndim != 1:
        raise ValueError(f"mae_by_bin takes 1-D targets, got shape {yt.shape}")
    # the sums pass names NaN / infinity and refuses zero weight totals, as the metrics do
    RegressionState.from_arrays(yt, yp, w, flags=0)
    out = np.zeros((lo.shape[0], 3))
    kernel.binned_abs_error(yt, yp, w if w is not None else np.empty(0), w is not None,
                            lo, hi, out)
    with np.errstate(invalid="ignore", divide="ignore"):
        mae = np.where(out[:, 0] != 0, out[:, 1] / out[:, 0], np.nan)
    return {name: float(v) for name, v in zip(bins, mae)}


# --------------------------------------------------------------------------------------
# Tweedie deviances and squared logarithmic errors: one pass of the deviance kernel (its
# own states: the sums depend on the power, and the log errors on a log per value).
#
# float32 inputs are read in place and summed in float64 (scikit-learn computes them in
# float32: agreement to float32 precision, as for the other regression metrics).


def mean_tweedie_deviance(y_true: ArrayLike, y_pred: ArrayLike, *,
                          sample_weight: ArrayLike | None = None, power: float = 0,
                          n_threads: int | None = None) -> float:
    """Mean Tweedie deviance regression loss.

    One pass of the deviance kernel (a ``pow`` or ``log`` per value) into mergeable sums;
    float32 inputs are read in place and summed in float64 (scikit-learn computes them in
    float32: agreement to float32 precision). Single output only, as scikit-learn.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    power : float, default=0
        Tweedie power, <= 0 or >= 1: < 0 needs y_pred > 0; 0 is the squared error; 1
        (Poisson) and (1, 2) need y_true >= 0 and y_pred > 0; >= 2 (2: Gamma) need both
        > 0.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float
        The weighted mean deviance (non-negative, best 0.0).

    Raises
    ------
    ValueError
        If ``power`` is in (0, 1) (scikit-learn's ``InvalidParameterError``, a
        ``ValueError``), or the values are outside the power's domain (found in the same
        pass); if ``y_true`` and ``y_pred`` differ in length, are empty, hold NaN, infinity
        or non-numbers, or have several outputs; if ``sample_weight`` is not an array of
        n_samples finite numbers or is all zero; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.mean_tweedie_deviance : The scikit-learn function this one matches.
    mean_poisson_deviance : The deviance for ``power=1``.
    mean_gamma_deviance : The deviance for ``power=2``.
    d2_tweedie_score : The fraction of deviance explained.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.mean_tweedie_deviance([2, 0, 1, 4], [0.5, 0.5, 2., 2.], power=1), 6)
    1.426015
    """
    state = TweedieState.from_arrays(y_true, y_pred, sample_weight, n_threads, power=power,
                                     d2=False)
    return deviance.tweedie_deviance(state)


def mean_poisson_deviance(y_true: ArrayLike, y_pred: ArrayLike, *,
                          sample_weight: ArrayLike | None = None,
                          n_threads: int | None = None) -> float:
    """Mean Poisson deviance: the Tweedie deviance of power 1 (y_true >= 0, y_pred > 0).

    One pass of mergeable sums, as :func:`mean_tweedie_deviance`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth target values (>= 0).
    y_pred : array-like of shape (n_samples,)
        Estimated target values (> 0).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float
        The weighted mean deviance (non-negative, best 0.0).

    Raises
    ------
    ValueError
        If a ``y_true`` is negative or a ``y_pred`` is not positive; if ``y_true`` and
        ``y_pred`` differ in length, are empty, hold NaN, infinity or non-numbers, or have
        several outputs; if ``sample_weight`` is not an array of n_samples finite numbers
        or is all zero; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.mean_poisson_deviance : The scikit-learn function this one matches.
    mean_tweedie_deviance : The deviance for any power.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.mean_poisson_deviance([2, 0, 1, 4], [0.5, 0.5, 2., 2.]), 6)
    1.426015
    """
    state = TweedieState.from_arrays(y_true, y_pred, sample_weight, n_threads, power=1,
                                     d2=False)
    return deviance.poisson_deviance(state)


def mean_gamma_deviance(y_true: ArrayLike, y_pred: ArrayLike, *,
                        sample_weight: ArrayLike | None = None,
                        n_threads: int | None = None) -> float:
    """Mean Gamma deviance: the Tweedie deviance of power 2 (y_true > 0, y_pred > 0).

    One pass of mergeable sums, as :func:`mean_tweedie_deviance`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth target values (> 0).
    y_pred : array-like of shape (n_samples,)
        Estimated target values (> 0).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float
        The weighted mean deviance (non-negative, best 0.0).

    Raises
    ------
    ValueError
        If a ``y_true`` or ``y_pred`` is not positive; if ``y_true`` and ``y_pred`` differ
        in length, are empty, hold NaN, infinity or non-numbers, or have several outputs; if
        ``sample_weight`` is not an array of n_samples finite numbers or is all zero; if
        ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.mean_gamma_deviance : The scikit-learn function this one matches.
    mean_tweedie_deviance : The deviance for any power.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.mean_gamma_deviance([2, 0.5, 1, 4], [0.5, 0.5, 2., 2.]), 6)
    1.056853
    """
    state = TweedieState.from_arrays(y_true, y_pred, sample_weight, n_threads, power=2,
                                     d2=False)
    return deviance.gamma_deviance(state)


def d2_tweedie_score(y_true: ArrayLike, y_pred: ArrayLike, *,
                     sample_weight: ArrayLike | None = None, power: float = 0,
                     n_threads: int | None = None) -> float:
    """D² score: the fraction of the Tweedie deviance explained (best 1.0, may be negative).

    The deviance of the constant prediction ``mean(y_true)`` comes from sums of the same
    pass (see :mod:`fastmetrics.states` ``TweedieState``), so the score merges over chunks
    (streaming and Dask faces). A constant ``y_true`` is its own mean: its deviance is
    scikit-learn's expression at that value (0, so ``ZeroDivisionError`` as scikit-learn;
    NaN for all-zero targets with 1 < power < 2). scikit-learn's mean of a constant can be
    off by a rounding error, and its score then a huge number instead.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    power : float, default=0
        Tweedie power, <= 0 or >= 1, with the value domains of
        :func:`mean_tweedie_deviance`.
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    score : float
        The D² score; NaN for fewer than two samples.

    Raises
    ------
    ValueError
        If ``power`` is in (0, 1) (scikit-learn's ``InvalidParameterError``, a
        ``ValueError``), or the values are outside the power's domain; if ``y_true`` and
        ``y_pred`` differ in length, are empty, hold NaN, infinity or non-numbers, or have
        several outputs; if ``sample_weight`` is not an array of n_samples finite numbers
        or is all zero; if ``n_threads`` < 1.
    ZeroDivisionError
        If ``y_true`` is constant (the baseline deviance is 0), or the sample weights sum to
        zero without all being zero (both as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    Warns
    -----
    UndefinedMetricWarning
        For fewer than two samples (the score is NaN).

    See Also
    --------
    sklearn.metrics.d2_tweedie_score : The scikit-learn function this one matches.
    mean_tweedie_deviance : The deviance itself.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.d2_tweedie_score([0.5, 1, 2.5, 7], [1, 1, 5, 3.5], power=1), 6)
    0.487915
    """
    state = TweedieState.from_arrays(y_true, y_pred, sample_weight, n_threads, power=power,
                                     function="d2_tweedie_score")
    return deviance.d2_tweedie(state)


@overload
def mean_squared_log_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                           sample_weight: ArrayLike | None = ...,
                           multioutput: Literal["raw_values"],
                           n_threads: int | None = ...) -> FloatArray: ...


@overload
def mean_squared_log_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                           sample_weight: ArrayLike | None = ...,
                           multioutput: MultiOutputAverage = ...,
                           n_threads: int | None = ...) -> float: ...


def mean_squared_log_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                           sample_weight: ArrayLike | None = None,
                           multioutput: MultiOutput = "uniform_average",
                           n_threads: int | None = None) -> float | FloatArray:
    """Mean squared logarithmic error: the weighted mean of
    ``(log1p(y_true) - log1p(y_pred))**2`` (values must be > -1).

    One pass of the deviance kernel into mergeable sums (streaming and Dask faces);
    float32 inputs are summed in float64.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values (> -1).
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values (> -1).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        How per-output values are combined: "raw_values" returns them all as an array,
        "uniform_average" their mean, an array of weights their weighted mean (custom
        weights need several outputs).
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        The MSLE (non-negative, best 0.0); per output for ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If a value is <= -1; if ``y_true`` and ``y_pred`` differ in length or shape, are
        empty, hold NaN, infinity or non-numbers, or have more than two dimensions; if
        ``sample_weight`` is not an array of n_samples finite numbers or is all zero; if
        ``multioutput`` is an unknown string, or custom weights are given for one output or
        do not match the number of outputs; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.mean_squared_log_error : The scikit-learn function this one matches.
    root_mean_squared_log_error : Its square root, per output.
    mean_squared_error : The squared error of the values themselves.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8]), 6)
    0.03973
    """
    state = SquaredLogState.from_arrays(y_true, y_pred, sample_weight, n_threads)
    result: float | FloatArray = deviance.msle(state, multioutput)
    return result


@overload
def root_mean_squared_log_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                                sample_weight: ArrayLike | None = ...,
                                multioutput: Literal["raw_values"],
                                n_threads: int | None = ...) -> FloatArray: ...


@overload
def root_mean_squared_log_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                                sample_weight: ArrayLike | None = ...,
                                multioutput: MultiOutputAverage = ...,
                                n_threads: int | None = ...) -> float: ...


def root_mean_squared_log_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                                sample_weight: ArrayLike | None = None,
                                multioutput: MultiOutput = "uniform_average",
                                n_threads: int | None = None) -> float | FloatArray:
    """Root mean squared logarithmic error (per output, then averaged).

    One pass of mergeable sums, as :func:`mean_squared_log_error`; the square root is taken
    per output before ``multioutput`` combines them.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values (> -1).
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values (> -1).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample 1.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape (n_outputs,), \
    default="uniform_average"
        How per-output values are combined: "raw_values" returns them all as an array,
        "uniform_average" their mean, an array of weights their weighted mean (custom
        weights need several outputs).
    n_threads : int or None, default=None
        Threads for the kernel pass over large inputs. None uses what OpenMP allows
        (``OMP_NUM_THREADS``, threadpoolctl limits), capped at the CPUs no other process
        is running on; an int >= 1 sets the count. Not a scikit-learn parameter: the
        result is the same for any value.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        The RMSLE (non-negative, best 0.0); per output for ``multioutput="raw_values"``.

    Raises
    ------
    ValueError
        If a value is <= -1; if ``y_true`` and ``y_pred`` differ in length or shape, are
        empty, hold NaN, infinity or non-numbers, or have more than two dimensions; if
        ``sample_weight`` is not an array of n_samples finite numbers or is all zero; if
        ``multioutput`` is an unknown string, or custom weights are given for one output or
        do not match the number of outputs; if ``n_threads`` < 1.
    ZeroDivisionError
        If the sample weights sum to zero without all being zero (as scikit-learn).
    TypeError
        If ``n_threads`` is neither an int nor None.

    See Also
    --------
    sklearn.metrics.root_mean_squared_log_error : The scikit-learn function this one
        matches.
    mean_squared_log_error : The value before the square root.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.root_mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8]), 6)
    0.199324
    """
    state = SquaredLogState.from_arrays(y_true, y_pred, sample_weight, n_threads)
    result: float | FloatArray = deviance.rmsle(state, multioutput)
    return result
