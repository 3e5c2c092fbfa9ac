"""Order statistics over the selection kernel, with numpy's formulas: quantiles of every
method and the median, bit for bit (a radix select, ``csrc/fm_select.c``, finds the wanted
order statistics in place; numpy's index arithmetic and interpolation then run on the handful
of selected values). Used by :mod:`fastmetrics.percentiles` and by the states that need a
median.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, cast, get_args

import numpy as np
from numpy.typing import NDArray

from ._inputs import native
from ._kernels import select as _select

__all__ = ["KERNEL_CHARS", "METHODS", "check_method", "numpy_median", "quantile_of", "quantiles"]

# dtype chars the kernel reads directly: int8..int64, uint8..uint64, float32, float64
KERNEL_CHARS = frozenset("bhilqBHILQfd")

_ALPHA_BETA = {
    # continuous methods of Hyndman & Fan: virtual index n*q + alpha + q*(1-alpha-beta) - 1
    "interpolated_inverted_cdf": (0, 1),
    "hazen": (0.5, 0.5),
    "weibull": (0, 0),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
}

# numpy's quantile methods: the type numpy's stubs ask of ``method``, and the tuple of them
Method = Literal[
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "linear",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
]
METHODS: tuple[str, ...] = get_args(Method)
"""The names of numpy's 13 percentile methods, in numpy's order (``method=`` of
:func:`~fastmetrics.percentile` and :func:`~fastmetrics.quantile`)."""

# Methods whose virtual index is already an integer index: no interpolation.
_DISCRETE = frozenset({"inverted_cdf", "closest_observation", "lower", "higher", "nearest"})


# -- numpy's index arithmetic, restated (numpy/lib/_function_base_impl.py) -----------------
# Every expression keeps numpy's operand order and types so that results agree to the bit.


def _round_to_boundary(
    index: NDArray[Any],
    take_previous: Callable[[NDArray[Any], NDArray[Any]], NDArray[np.bool_]],
) -> NDArray[np.intp]:
    """The discrete methods: floor(index) where take_previous(gamma, index), else floor + 1,
    clipped at 0."""
    previous = np.floor(index)
    gamma = index - previous
    res: NDArray[np.intp] = np.where(take_previous(gamma, index), previous,
                                     previous + 1).astype(np.intp)
    res[res < 0] = 0
    return res


# an array, or a numpy scalar for a 0-d ``q``
def _virtual_index(method: str, n: int, q: NDArray[Any]) -> Any:
    if method == "linear":
        return (n - 1) * q
    if method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        return n * q + (alpha + q * (1 - alpha - beta)) - 1
    if method == "averaged_inverted_cdf":
        return (n * q) - 1
    if method == "inverted_cdf":
        return _round_to_boundary((n * q) - 1, lambda g, _: g == 0)
    if method == "closest_observation":
        # H&F: nearest even order statistic (1-based) at g == 0
        return _round_to_boundary(
            (n * q) - 1 - 0.5, lambda g, idx: (g == 0) & (np.floor(idx) % 2 == 1)
        )
    if method == "lower":
        return np.floor((n - 1) * q).astype(np.intp)
    if method == "higher":
        return np.ceil((n - 1) * q).astype(np.intp)
    if method == "midpoint":
        return 0.5 * (np.floor((n - 1) * q) + np.ceil((n - 1) * q))
    if method == "nearest":
        return np.around((n - 1) * q).astype(np.intp)
    raise AssertionError(method)  # pragma: no cover - checked by _check_method


def _neighbours(virtual: NDArray[Any], n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """numpy's ``_get_indexes``: floor and floor + 1, both -1 (the last) at or past the end
    and both 0 before the start."""
    previous = np.asanyarray(np.floor(virtual))
    following = np.asanyarray(previous + 1)
    above = virtual >= n - 1
    if np.any(above):
        previous[above] = -1
        following[above] = -1
    below = virtual < 0
    if np.any(below):
        previous[below] = 0
        following[below] = 0
    return previous.astype(np.intp), following.astype(np.intp)


def _gamma(method: str, virtual: NDArray[Any], previous: NDArray[Any]) -> NDArray[Any]:
    gamma = np.asanyarray(virtual - previous)
    if method == "averaged_inverted_cdf":
        gamma = np.where(gamma == 0, 0.5, np.full(gamma.shape, 1.0))
    elif method == "midpoint":
        gamma = np.where(virtual % 1 == 0, 0.0, np.full(gamma.shape, 0.5))
    return np.asanyarray(gamma, dtype=virtual.dtype)


def _lerp(a: NDArray[Any], b: NDArray[Any], t: NDArray[Any] | float) -> Any:
    """numpy's ``_lerp``: a + (b-a)*t, and b - (b-a)*(1-t) where t >= 0.5."""
    diff_b_a = b - a
    res = np.asarray(np.add(a, diff_b_a * t))
    np.subtract(b, diff_b_a * (1 - t), out=res, where=t >= 0.5, casting="unsafe", dtype=res.dtype)
    if res.ndim == 0:
        res = res[()]
    return res


# -- the public functions --------------------------------------------------------------------


def quantiles(arr: NDArray[Any], q: NDArray[Any], method: str, weak_q: bool) -> Any:
    """numpy's ``_quantile`` for 1-D ``arr`` with the partition replaced by the kernel."""
    n = arr.shape[0]
    data = native(arr)
    virtual = np.asanyarray(_virtual_index(method, n, q))
    discrete = method in _DISCRETE or (
        method == "linear" and np.issubdtype(virtual.dtype, np.integer)
    )
    if discrete:
        wanted = virtual.ravel()
    else:
        previous, following = _neighbours(virtual, n)
        wanted = np.concatenate((previous.ravel(), following.ravel()))
    wanted = np.where(wanted < 0, wanted + n, wanted)
    ranks = np.unique(wanted).astype(np.int64)
    values = np.empty(ranks.shape[0], dtype=data.dtype)
    n_nan = _select.select(data, ranks, values) if ranks.shape[0] else 0
    if discrete:
        result = np.take(values, np.searchsorted(ranks, virtual), axis=0)
    else:
        lower = values[np.searchsorted(ranks, np.where(previous < 0, previous + n, previous))]
        upper = values[np.searchsorted(ranks, np.where(following < 0, following + n, following))]
        gamma: NDArray[Any] | float
        gamma = _gamma(method, virtual, previous)
        gamma = float(gamma) if weak_q else gamma.reshape(virtual.shape)
        result = _lerp(lower, upper, gamma)
    if n_nan:
        # numpy: any NaN makes every result NaN; a scalar result is then the NaN itself
        if np.ndim(result) == 0:
            return data.dtype.type(np.nan)
        np.copyto(result, np.nan)
    return result


def numpy_median(a: Any) -> np.floating[Any]:
    """numpy's median of ``a`` (flattened): the mean of the two middle order statistics,
    selected in place in O(N); NaN anywhere gives NaN. Empty input: ``ValueError``."""
    data = native(np.asarray(a)).reshape(-1)
    n = data.shape[0]
    if n == 0:
        raise ValueError("median of an empty array is undefined")
    if data.dtype.char not in KERNEL_CHARS:
        return cast("np.floating[Any]", np.median(data))
    ranks = np.unique(np.array([(n - 1) // 2, n // 2], dtype=np.int64))
    values = np.empty(ranks.shape[0], dtype=data.dtype)
    if _select.select(data, ranks, values):
        return (np.float64(np.nan) if data.dtype.kind != "f"
                else cast("np.floating[Any]", data.dtype.type(np.nan)))
    return np.mean(values)


def check_method(method: object) -> None:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {', '.join(METHODS)}")


def quantile_of(arr: NDArray[Any], q: NDArray[Any], method: Method) -> Any:
    """numpy's ``quantile(arr, q, method=method)`` of a non-empty 1-D ``arr`` (``q`` and
    ``method`` checked by the caller): the kernel for its dtypes, numpy for the others (bool,
    float16, longdouble...), which copies."""
    if arr.dtype.char not in KERNEL_CHARS:
        return np.quantile(arr, q, method=method)
    return quantiles(arr, q, method, False)
