"""Regression metrics from one pass of sums (scikit-learn's names and signatures).

One kernel pass (:mod:`fastmetrics._regression`) fills a small state (sum of weights, of
absolute errors, of squared errors, of relative errors, of Huber losses, and the weighted mean
and spread of ``y_true``); MAE, MSE, RMSE, R², MAPE and the Huber loss are functions of it, so
computing several together (:func:`regression_summary`) costs one pass. The median absolute
error needs a selection over the errors (one O(n) array of errors).

Conventions and differences from scikit-learn
---------------------------------------------
* 1-D targets (and (n, 1) columns). 2-D targets with several outputs raise ``ValueError``;
  ``multioutput`` accepts "raw_values" (an array of one value) and "uniform_average" (and
  "variance_weighted" for R²); custom output weights raise the same ``ValueError`` as
  scikit-learn for single-output targets.
* float32 and float64 inputs are read as they are (no copy; other numeric dtypes are
  converted to float64 once) and all sums are float64. scikit-learn computes float32 inputs in
  float32, so for float32 inputs the results agree with scikit-learn to float32 precision
  (and to float64 precision with scikit-learn on the same values as float64).
* R² uses a two-pass spread per block of 2048 samples, merged exactly (Chan et al.): the
  denominator is as accurate as scikit-learn's two-pass one. A constant ``y_true`` gives a
  denominator of exactly 0 (scikit-learn's mean of, say, ``[0.1, 0.1, 0.1]`` is not exactly
  0.1, so its denominator can be ~1e-33 and its score a huge negative number; here
  ``force_finite`` applies as documented).
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from ._kernels import sums as _regression
from ._threads import threads_for
from ._validation import (
    check_consistent_length,
    check_sample_weight,
    native,
    zero_weight_sum_error,
)
from .exceptions import UndefinedMetricWarning
from .percentiles import median

__all__ = [
    "STORY_POINT_BINS",
    "RegressionSummary",
    "UndefinedMetricWarning",
    "adjusted_r2_score",
    "huber_loss",
    "mae_by_bin",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "median_absolute_error",
    "r2_score",
    "regression_summary",
    "root_mean_squared_error",
]

# state layout (see _regression.pyx)
_W, _ABS, _SQ, _APE, _HUBER, _MEAN, _M2, _N, _CONST, _FIRST = range(10)
_N_STATE = 10
_FLAG_APE, _FLAG_HUBER, _FLAG_R2 = 1, 2, 4

#: The harness' story-point bins (inclusive ranges of ``y_true``) for :func:`mae_by_bin`.
STORY_POINT_BINS = {"1-3": (1, 3), "5-8": (5, 8), "13-21": (13, 21), "34+": (34, math.inf)}


def _median(a: np.ndarray) -> float:
    """The one place regression computes a median: O(N) selection, np.median's value."""
    return float(median(a))


# --------------------------------------------------------------------------------------
# validation


def _as_target(y, name: str) -> np.ndarray:
    a = y if type(y) is np.ndarray else np.asarray(y)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    if a.ndim == 0:
        raise ValueError(f"{name} must be a 1-D array-like, got a scalar: {y!r}")
    if a.ndim != 1:
        raise ValueError(
            f"{name} has shape {a.shape}: fastmetrics' regression metrics support 1-D targets "
            "(or (n, 1) columns) only, not multioutput targets"
        )
    if a.dtype.char not in "fd":
        if a.dtype.kind not in "iub":
            raise ValueError(f"{name} must hold numbers, got dtype {a.dtype}")
        a = a.astype(np.float64)
    return native(a)


def _check_multioutput(multioutput, allowed=("raw_values", "uniform_average"), *,
                       output_weights=False):
    """Single-output targets: the strings are all equivalent; custom output weights raise
    scikit-learn's ValueError, except where it averages them anyway (``output_weights``)."""
    if isinstance(multioutput, str):
        if multioutput not in allowed:
            raise ValueError(
                f"Allowed 'multioutput' string values are {allowed}. "
                f"You provided multioutput={multioutput!r}"
            )
        return
    if multioutput is None and "variance_weighted" in allowed:
        return
    if output_weights:
        mw = np.asarray(multioutput, dtype=np.float64)
        if mw.shape != (1,):
            raise ValueError(f"multioutput weights must have shape (1,) for one output, got {mw.shape}")
        if mw[0] == 0:
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        return
    raise ValueError("Custom weights are useful only in multi-output cases.")


def _targets(y_true, y_pred, sample_weight):
    yt = _as_target(y_true, "y_true")
    yp = _as_target(y_pred, "y_pred")
    n = check_consistent_length(y_true=yt, y_pred=yp)
    if n == 0:
        raise ValueError("y_true and y_pred are empty: need at least one sample")
    w = check_sample_weight(sample_weight, n)
    return yt, yp, w


def _raise_non_finite(yt, yp, w) -> None:
    """Error path only: name the input holding the first NaN or infinity."""
    for name, a in (("y_true", yt), ("y_pred", yp), ("sample_weight", w)):
        if a is None:
            continue
        bad = ~np.isfinite(a)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            what = "NaN" if np.isnan(a[i]) else "infinity"
            raise ValueError(f"Input {name} contains {what} (first at index {i}).")


def _state(y_true, y_pred, sample_weight, flags=0, delta=1.0, n_threads=None) -> np.ndarray:
    """Validate and run the one pass. Returns the float64 state."""
    yt, yp, w = _targets(y_true, y_pred, sample_weight)
    state = _checked_sums(yt, yp, w, flags, delta, n_threads)
    if state[_W] == 0:
        raise zero_weight_sum_error(w)
    return state


def _checked_sums(yt, yp, w, flags, delta, n_threads=None) -> np.ndarray:
    """The kernel pass over validated arrays, NaN / infinity named (zero weights allowed:
    a streamed chunk may have them)."""
    state = np.zeros(_N_STATE)
    _regression.sums(yt, yp, w if w is not None else np.empty(0), w is not None, flags,
                     float(delta), state, threads_for("sums", len(yt), n_threads))
    if not (math.isfinite(state[_W]) and math.isfinite(state[_ABS])
            and math.isfinite(state[_MEAN]) and math.isfinite(state[_SQ])):
        _raise_non_finite(yt, yp, w)
    return state


def _out(value: float, multioutput):
    if isinstance(multioutput, str) and multioutput == "raw_values":
        return np.array([value])
    return float(value)


def _mae(s):
    return s[_ABS] / s[_W]


def _mse(s):
    return s[_SQ] / s[_W]


def _mape(s):
    return s[_APE] / s[_W]


def _huber(s) -> float:
    return float(s[_HUBER] / s[_W])


def _r2_from_state(state: np.ndarray, force_finite: bool) -> float:
    if state[_N] < 2:
        warnings.warn(
            "R^2 score is not well-defined with less than two samples.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    num, den = state[_SQ], state[_M2]
    if not force_finite:
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(1.0 - np.float64(num) / np.float64(den))
    if num == 0:
        return 1.0
    if den == 0:
        return 0.0
    return float(1.0 - num / den)


# --------------------------------------------------------------------------------------
# public metrics


def mean_absolute_error(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average",
                        n_threads=None):
    """Mean absolute error regression loss.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average"}, default="uniform_average"
        "raw_values" returns an array with the one output's value.

    n_threads : int, default=None
        Threads for the kernel pass over large inputs. None: the OpenMP default (honours
        ``OMP_NUM_THREADS`` and threadpoolctl limits). The result is the same for any value.
    Returns
    -------
    float or ndarray
        The MAE (non-negative, best 0.0).

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.mean_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    _check_multioutput(multioutput)
    s = _state(y_true, y_pred, sample_weight, n_threads=n_threads)
    return _out(_mae(s), multioutput)


def mean_squared_error(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average",
                       n_threads=None):
    """Mean squared error regression loss.

    Parameters as :func:`mean_absolute_error`.

    n_threads : int, default=None
        Threads for the kernel pass over large inputs. None: the OpenMP default (honours
        ``OMP_NUM_THREADS`` and threadpoolctl limits). The result is the same for any value.
    Returns
    -------
    float or ndarray
        The MSE (non-negative, best 0.0).

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    """
    _check_multioutput(multioutput)
    s = _state(y_true, y_pred, sample_weight, n_threads=n_threads)
    return _out(_mse(s), multioutput)


def root_mean_squared_error(y_true, y_pred, *, sample_weight=None,
                            multioutput="uniform_average", n_threads=None):
    """Root mean squared error regression loss.

    Parameters as :func:`mean_absolute_error`.

    n_threads : int, default=None
        Threads for the kernel pass over large inputs. None: the OpenMP default (honours
        ``OMP_NUM_THREADS`` and threadpoolctl limits). The result is the same for any value.
    Returns
    -------
    float or ndarray
        The RMSE (non-negative, best 0.0).

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.root_mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.6123724356957945
    """
    _check_multioutput(multioutput, output_weights=True)
    s = _state(y_true, y_pred, sample_weight, n_threads=n_threads)
    return _out(math.sqrt(_mse(s)), multioutput)


def mean_absolute_percentage_error(y_true, y_pred, *, sample_weight=None,
                                   multioutput="uniform_average", n_threads=None):
    """Mean absolute percentage error, as a fraction: ``mean(|e| / max(|y_true|, eps))``.

    Like scikit-learn, ``eps`` is float64's machine epsilon, so a zero ``y_true`` gives a
    large but finite value. Parameters as :func:`mean_absolute_error`.

    n_threads : int, default=None
        Threads for the kernel pass over large inputs. None: the OpenMP default (honours
        ``OMP_NUM_THREADS`` and threadpoolctl limits). The result is the same for any value.
    Returns
    -------
    float or ndarray
        The MAPE (non-negative, best 0.0; 0.5 means 50 %).

    Examples
    --------
    >>> import fastmetrics as fm
    >>> round(fm.mean_absolute_percentage_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 4)
    0.3274
    """
    _check_multioutput(multioutput)
    s = _state(y_true, y_pred, sample_weight, _FLAG_APE, n_threads=n_threads)
    return _out(_mape(s), multioutput)


def huber_loss(y_true, y_pred, *, delta=1.0, sample_weight=None, n_threads=None) -> float:
    """Mean Huber loss: ``e**2 / 2`` for ``|e| <= delta``, ``delta * (|e| - delta / 2)`` above.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Targets and predictions.
    delta : float, default=1.0
        Where the loss turns from quadratic to linear (> 0).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    n_threads : int, default=None
        Threads for the kernel pass over large inputs. None: the OpenMP default (honours
        ``OMP_NUM_THREADS`` and threadpoolctl limits). The result is the same for any value.
    Returns
    -------
    float
        The weighted mean Huber loss.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.huber_loss([0.0, 0.0], [0.5, 3.0])
    1.3125
    """
    _check_delta(delta)
    s = _state(y_true, y_pred, sample_weight, _FLAG_HUBER, delta, n_threads=n_threads)
    return _huber(s)


def r2_score(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average",
             force_finite=True, n_threads=None):
    """R² (coefficient of determination) regression score.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Targets and predictions.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average", "variance_weighted"} or None
        For one output all give the same score ("raw_values" as an array).
    force_finite : bool, default=True
        For constant ``y_true``: 1.0 for perfect predictions, else 0.0, instead of NaN /
        -inf.

    n_threads : int, default=None
        Threads for the kernel pass over large inputs. None: the OpenMP default (honours
        ``OMP_NUM_THREADS`` and threadpoolctl limits). The result is the same for any value.
    Returns
    -------
    float or ndarray
        The R² score; NaN with ``UndefinedMetricWarning`` for fewer than two samples.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.r2_score([1, 2, 3], [3, 2, 1])
    -3.0
    >>> fm.r2_score([-2, -2, -2], [-2, -2, -1.5], force_finite=False)
    -inf
    """
    _check_multioutput(multioutput, ("raw_values", "uniform_average", "variance_weighted"))
    s = _state(y_true, y_pred, sample_weight, _FLAG_R2, n_threads=n_threads)
    return _out(_r2_from_state(s, force_finite), multioutput)


def adjusted_r2_score(y_true, y_pred, *, n_features, sample_weight=None, force_finite=True,
                      n_threads=None):
    """Adjusted R²: ``1 - (1 - R²) (n - 1) / (n - n_features - 1)``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Targets and predictions.
    n_features : int
        Number of predictors of the model (>= 0, and < n_samples - 1).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (R² is weighted; n is the number of samples).
    force_finite : bool, default=True
        As in :func:`r2_score`.

    n_threads : int, default=None
        Threads for the kernel pass over large inputs. None: the OpenMP default (honours
        ``OMP_NUM_THREADS`` and threadpoolctl limits). The result is the same for any value.
    Returns
    -------
    float
        The adjusted R².

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.adjusted_r2_score([1, 2, 3, 4, 5], [1, 2, 3, 4, 6], n_features=1)
    0.8666666666666667
    """
    _check_n_features(n_features)
    s = _state(y_true, y_pred, sample_weight, _FLAG_R2, n_threads=n_threads)
    return _adjusted_r2_from_state(s, n_features, force_finite)


def _check_n_features(n_features) -> None:
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) \
            or n_features < 0:
        raise ValueError(f"n_features must be an int >= 0, got {n_features!r}")


def _check_delta(delta) -> None:
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not delta > 0 \
            or not math.isfinite(delta):
        raise ValueError(f"delta must be a finite number > 0, got {delta!r}")


def _adjusted_r2_from_state(s, n_features, force_finite) -> float:
    n = int(s[_N])
    if n - n_features - 1 <= 0:
        raise ValueError(
            f"adjusted R² needs n_samples > n_features + 1, got n_samples={n}, "
            f"n_features={n_features}"
        )
    r2 = _r2_from_state(s, force_finite)
    return float(1.0 - (1.0 - r2) * (n - 1) / (n - n_features - 1))


def median_absolute_error(y_true, y_pred, *, multioutput="uniform_average", sample_weight=None):
    """Median absolute error regression loss.

    Unweighted: ``median(|y_pred - y_true|)`` computed in the inputs' common dtype, as
    scikit-learn does. Weighted: scikit-learn's averaged inverted-CDF weighted median
    (a sort, O(n log n)).

    Parameters as :func:`mean_absolute_error`.

    Returns
    -------
    float or ndarray
        The median absolute error.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.median_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    _check_multioutput(multioutput)
    yt, yp, w = _targets(y_true, y_pred, sample_weight)
    e = _abs_errors(yt, yp, w)
    return _out(_median_from_errors(e, w), multioutput)


def _abs_errors(yt: np.ndarray, yp: np.ndarray, w) -> np.ndarray:
    """``|y_pred - y_true|`` in the inputs' common float dtype (one O(n) array), checked."""
    e = np.subtract(yp, yt, dtype=np.result_type(yt.dtype, yp.dtype))
    np.abs(e, out=e)
    if e.shape[0] and (not np.isfinite(e.max()) or (w is not None and not np.isfinite(w.sum()))):
        _raise_non_finite(yt, yp, w)
    return e


def _median_from_errors(e: np.ndarray, w) -> float:
    return _median(e) if w is None else _weighted_median(e, w)


def _weighted_median(e: np.ndarray, w: np.ndarray) -> float:
    """Averaged inverted-CDF weighted median (scikit-learn's ``_weighted_percentile(...,
    50, average=True)``)."""
    n = e.shape[0]
    order = np.argsort(e)
    # scikit-learn casts the weights to the errors' float dtype and accumulates in it
    es, ws = e[order], w[order].astype(e.dtype, copy=False)
    cdf = np.cumsum(ws)
    target = e.dtype.type(50) / 100 * cdf[-1]
    if target == 0:
        target = np.nextafter(target, target + 1)
    i = min(int(np.searchsorted(cdf, target)), n - 1)
    if cdf[i] - target > np.finfo(e.dtype).eps:
        return float(es[i])
    j = min(i + 1, n - 1)
    if ws[j] == 0:
        j = int(np.searchsorted(cdf, cdf[i], side="right"))
        if j > n - 1:
            j = i
    return float((es[i] + es[j]) / 2)


@dataclass(frozen=True)
class RegressionSummary:
    """MAE, MSE, RMSE and R² of one pass, with the state they came from."""

    mae: float
    mse: float
    rmse: float
    r2: float
    n_samples: int

    def as_row(self) -> dict[str, float]:
        return {"mae": self.mae, "mse": self.mse, "rmse": self.rmse, "r2": self.r2,
                "n_samples": self.n_samples}


def regression_summary(y_true, y_pred, *, sample_weight=None, n_threads=None) -> RegressionSummary:
    """MAE, MSE, RMSE and R² (``force_finite=True``) together, from one kernel pass.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Ground truth and estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    n_threads : int, default=None
        Threads for the kernel pass over large inputs. None: the OpenMP default (honours
        ``OMP_NUM_THREADS`` and threadpoolctl limits). The result is the same for any value.
    Returns
    -------
    RegressionSummary
        ``mae``, ``mse``, ``rmse``, ``r2`` and ``n_samples``.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.regression_summary([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]).as_row()
    {'mae': 0.5, 'mse': 0.375, 'rmse': 0.6123724356957945, 'r2': 0.9486081370449679, 'n_samples': 4}
    """
    return _summary_from_state(_state(y_true, y_pred, sample_weight, _FLAG_R2, n_threads=n_threads))


def _summary_from_state(s: np.ndarray) -> RegressionSummary:
    mse = _mse(s)
    return RegressionSummary(float(_mae(s)), float(mse), math.sqrt(mse),
                             _r2_from_state(s, True), int(s[_N]))


def mae_by_bin(y_true, y_pred, bins, *, sample_weight=None) -> dict[str, float]:
    """MAE restricted to ranges of ``y_true``, one pass for all ranges.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Targets and predictions.
    bins : dict[str, tuple[float, float]]
        Name -> inclusive ``(low, high)`` range of ``y_true`` (``high`` may be ``math.inf``);
        ranges may overlap. :data:`STORY_POINT_BINS` holds the harness' story-point bins.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    dict[str, float]
        MAE per bin, NaN for a bin with no samples (or zero total weight).

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
    yt, yp, w = _targets(y_true, y_pred, sample_weight)
    state = _state(yt, yp, w)  # validates finiteness in the same kind of pass
    del state
    out = np.zeros((lo.shape[0], 3))
    _regression.binned_abs_error(yt, yp, w if w is not None else np.empty(0), w is not None,
                                 lo, hi, out)
    with np.errstate(invalid="ignore", divide="ignore"):
        mae = np.where(out[:, 0] != 0, out[:, 1] / out[:, 0], np.nan)
    return {name: float(v) for name, v in zip(bins, mae)}
