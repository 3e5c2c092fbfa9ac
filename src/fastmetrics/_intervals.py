"""Bootstrap confidence intervals from resampled values: percentile, basic and BCa.

The definitions are those of ``scipy.stats.bootstrap`` (Efron & Tibshirani, *An
Introduction to the Bootstrap*, 14.3 and 15.4), so that given the same resampled values the
intervals agree with scipy's; scipy is not needed at run time: the normal distribution's
quantile function comes from :class:`statistics.NormalDist`.

Resampled values are stacked along the first axis, so a metric that returns an array (one
value per class) gets one interval per element.
"""

from __future__ import annotations

import math
import numbers
from statistics import NormalDist
from typing import Any, Union, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["METHODS", "acceleration", "check_level", "check_method", "check_resamples",
           "ci_level", "generator", "interval", "ndtr", "ndtri", "pvalue"]

METHODS = ("percentile", "basic", "bca")

_NORMAL = NormalDist()

# one value per element of the metric's result: a numpy scalar where the metric returns one
Float64s = Union[NDArray[np.float64], np.float64]


def ndtr(x: ArrayLike) -> NDArray[np.float64]:
    """The standard normal distribution function, elementwise."""
    x = np.asarray(x, dtype=np.float64)
    flat = [0.5 * math.erfc(-v / math.sqrt(2.0)) if not math.isnan(v) else math.nan
            for v in x.reshape(-1).tolist()]
    return np.array(flat, dtype=np.float64).reshape(x.shape)


def ndtri(p: ArrayLike) -> NDArray[np.float64]:
    """The standard normal quantile function, elementwise (``-inf``/``inf`` at 0 and 1,
    NaN outside [0, 1])."""
    p = np.asarray(p, dtype=np.float64)
    out = []
    for v in p.reshape(-1).tolist():
        if v == 0.0:
            out.append(-math.inf)
        elif v == 1.0:
            out.append(math.inf)
        elif 0.0 < v < 1.0:
            out.append(_NORMAL.inv_cdf(v))
        else:
            out.append(math.nan)
    return np.array(out, dtype=np.float64).reshape(p.shape)


def check_level(confidence_level: object) -> float:
    """``confidence_level`` as a float in (0, 1), or ``ValueError``."""
    if isinstance(confidence_level, (bool, np.bool_)) or not isinstance(
            confidence_level, numbers.Real):
        raise TypeError(
            f"confidence_level must be a number in (0, 1), got {confidence_level!r}")
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
    return level


def ci_level(ci: object) -> float | None:
    """A report's ``ci`` argument as a level: None/False off, True 0.95, else a number in
    (0, 1)."""
    if ci is None or ci is False:
        return None
    if ci is True:
        return 0.95
    return check_level(ci)


def generator(random_state: Any) -> np.random.Generator:
    """A numpy Generator from None, an int, a SeedSequence, a Generator or a legacy
    RandomState (which seeds a new one)."""
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"random_state must be None, an int, a numpy Generator or "
                         f"RandomState, got {random_state!r} ({exc})") from None


def check_method(method: object) -> str:
    if not isinstance(method, str) or method.lower() not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    return method.lower()


def check_resamples(n_resamples: object) -> int:
    if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if int(n_resamples) < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    return int(n_resamples)


def acceleration(jack: ArrayLike, counts: ArrayLike | None = None) -> Float64s:
    """BCa's acceleration from jackknife values (first axis: the leave-one-out samples).

    ``counts`` (optional) is how many samples share each row of ``jack``: a state whose
    samples fall into a few cells has only as many distinct leave-one-out values as
    non-empty cells, and the sums below are weighted by the cell counts, which is the
    same sum as over every sample.
    """
    jack = np.asarray(jack, dtype=np.float64)
    w = np.ones(jack.shape[0]) if counts is None else np.asarray(counts, dtype=np.float64)
    n = float(w.sum())
    wb = w.reshape((-1,) + (1,) * (jack.ndim - 1))
    mean = (wb * jack).sum(axis=0) / n
    u = (n - 1.0) * (mean - jack)
    num = (wb * u**3).sum(axis=0) / n**3
    den = (wb * u**2).sum(axis=0) / n**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return cast(Float64s, num / (6.0 * den**1.5))


def interval(theta_hat: ArrayLike, theta_b: ArrayLike, level: float, method: str,
             accel: Float64s | None = None) -> tuple[Any, Any]:
    """``(low, high)`` of the ``level`` interval from the resampled values ``theta_b``
    (first axis: the resamples); ``accel``: BCa's acceleration (:func:`acceleration`)."""
    theta_b = np.asarray(theta_b, dtype=np.float64)
    theta_hat = np.asarray(theta_hat, dtype=np.float64)
    alpha = (1.0 - level) / 2.0
    if method == "bca":
        b = theta_b.shape[0]
        below = (np.count_nonzero(theta_b < theta_hat, axis=0)
                 + np.count_nonzero(theta_b <= theta_hat, axis=0))
        z0 = ndtri(np.asarray(below, dtype=np.float64) / (2 * b))
        z_alpha = float(ndtri(np.float64(alpha)))
        num1 = z0 + z_alpha
        num2 = z0 - z_alpha
        # BCa is always given its acceleration
        a = cast(Float64s, accel)
        with np.errstate(divide="ignore", invalid="ignore"):
            a1 = ndtr(z0 + num1 / (1.0 - a * num1))
            a2 = ndtr(z0 + num2 / (1.0 - a * num2))
        low = _quantile_each(theta_b, a1)
        high = _quantile_each(theta_b, a2)
        return low, high
    low, high = (np.quantile(theta_b, [alpha, 1.0 - alpha], axis=0) if theta_b.shape[0]
                 else (np.full(theta_hat.shape, np.nan),) * 2)
    if method == "basic":
        low, high = 2.0 * theta_hat - high, 2.0 * theta_hat - low
    return low, high


def _quantile_each(theta_b: NDArray[np.float64], q: ArrayLike) -> NDArray[np.float64]:
    """Quantile ``q[i]`` of column ``i`` (NaN where ``q`` is NaN: a degenerate BCa)."""
    flat = theta_b.reshape(theta_b.shape[0], -1)
    qs = np.asarray(q, dtype=np.float64).reshape(-1)
    out = np.full(qs.shape[0], np.nan)
    for i, qi in enumerate(qs.tolist()):
        if not math.isnan(qi):
            out[i] = np.quantile(flat[:, i], qi)
    return out.reshape(np.shape(q))


def pvalue(delta: ArrayLike, delta_b: ArrayLike) -> Float64s:
    """Two-sided p-value of "no difference" from a paired bootstrap: the share of
    resampled differences at least as far from the observed one as the observed one is
    from zero (the bootstrap distribution shifted to the null), counted as ``(1 + hits) /
    (1 + B)`` so it is never 0."""
    delta = np.asarray(delta, dtype=np.float64)
    delta_b = np.asarray(delta_b, dtype=np.float64)
    hits = np.count_nonzero(np.abs(delta_b - delta) >= np.abs(delta), axis=0)
    return cast(Float64s, (1.0 + hits) / (1.0 + delta_b.shape[0]))
