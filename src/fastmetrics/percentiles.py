"""Exact percentiles and quantiles in linear time, without copying the input.

``percentile`` and ``quantile`` give numpy's results (values, dtypes, NaN behaviour) for all 13
of numpy's methods on 1-D input (and on N-D input with ``axis=None``). numpy copies the whole
input and partitions the copy; here a radix select (``csrc/fm_select.c``) reads the input in
place and finds every wanted order statistic in the same few passes, with memory that does not
depend on the input's size. The interpolation between the selected neighbours then runs on a
handful of values with numpy's own formulas, so the results match numpy's bit for bit.
"""

from __future__ import annotations

import operator

import numpy as np

from ._kernels import select as _select
from ._inputs import native

__all__ = ["median", "percentile", "quantile"]

# dtype chars the kernel reads directly: int8..int64, uint8..uint64, float32, float64
_KERNEL_CHARS = frozenset("bhilqBHILQfd")

_ALPHA_BETA = {
    # continuous methods of Hyndman & Fan: virtual index n*q + alpha + q*(1-alpha-beta) - 1
    "interpolated_inverted_cdf": (0, 1),
    "hazen": (0.5, 0.5),
    "weibull": (0, 0),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
}

METHODS = (
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
)

# Methods whose virtual index is already an integer index: no interpolation.
_DISCRETE = frozenset({"inverted_cdf", "closest_observation", "lower", "higher", "nearest"})


# -- numpy's index arithmetic, restated (numpy/lib/_function_base_impl.py) -----------------
# Every expression keeps numpy's operand order and types so that results agree to the bit.


def _round_to_boundary(index, take_previous):
    """The discrete methods: floor(index) where take_previous(gamma, index), else floor + 1,
    clipped at 0."""
    previous = np.floor(index)
    gamma = index - previous
    res = np.where(take_previous(gamma, index), previous, previous + 1).astype(np.intp)
    res[res < 0] = 0
    return res


def _virtual_index(method, n, q):
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


def _neighbours(virtual, n):
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


def _gamma(method, virtual, previous):
    gamma = np.asanyarray(virtual - previous)
    if method == "averaged_inverted_cdf":
        gamma = np.where(gamma == 0, 0.5, np.full(gamma.shape, 1.0))
    elif method == "midpoint":
        gamma = np.where(virtual % 1 == 0, 0.0, np.full(gamma.shape, 0.5))
    return np.asanyarray(gamma, dtype=virtual.dtype)


def _lerp(a, b, t):
    """numpy's ``_lerp``: a + (b-a)*t, and b - (b-a)*(1-t) where t >= 0.5."""
    diff_b_a = b - a
    res = np.asarray(np.add(a, diff_b_a * t))
    np.subtract(b, diff_b_a * (1 - t), out=res, where=t >= 0.5, casting="unsafe", dtype=res.dtype)
    if res.ndim == 0:
        res = res[()]
    return res


# -- the public functions --------------------------------------------------------------------


def _as_data(a, axis):
    arr = np.asarray(a)
    if arr.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    if axis is not None:
        if arr.ndim != 1:
            raise ValueError(
                f"axis={axis!r} is not supported for {arr.ndim}-D input: fastmetrics computes "
                "percentiles of 1-D data; pass a 1-D array, or axis=None to use all elements"
            )
        axes = axis if isinstance(axis, tuple) else (axis,)
        try:
            ok = len(axes) == 1 and operator.index(axes[0]) in (0, -1)
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"axis {axis!r} is out of bounds for a 1-D array")
    if arr.ndim != 1:
        arr = arr.reshape(-1)  # a view when the layout allows it, else a copy (as numpy)
    if arr.shape[0] == 0:
        raise ValueError(
            "a is empty: the percentiles of no values are undefined (numpy raises IndexError "
            "here; fastmetrics raises ValueError)"
        )
    return arr


def _check_method(method):
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {', '.join(METHODS)}")


def _check_q(q, scale_name):
    # numpy's _quantile_is_valid, with the NaN named in the message
    if q.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    if q.ndim == 1 and q.size < 10:
        ok = all(0.0 <= q[i] <= 1.0 for i in range(q.size))
    else:
        ok = bool(q.min() >= 0 and q.max() <= 1)
    if not ok:
        raise ValueError(f"{scale_name} must be in the range {_RANGES[scale_name]} (and not NaN)")


_RANGES = {"Percentiles": "[0, 100]", "Quantiles": "[0, 1]"}


def _quantile(arr, q, method, weak_q):
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
        gamma = _gamma(method, virtual, previous)
        gamma = float(gamma) if weak_q else gamma.reshape(virtual.shape)
        result = _lerp(lower, upper, gamma)
    if n_nan:
        # numpy: any NaN makes every result NaN; a scalar result is then the NaN itself
        if np.ndim(result) == 0:
            return data.dtype.type(np.nan)
        np.copyto(result, np.nan)
    return result


def quantile(a, q, axis=None, *, method="linear"):
    """Compute the q-th quantile of the data, exactly as :func:`numpy.quantile` does.

    The input is read in place (never copied or modified) and the selection runs in O(N) with
    memory independent of N; several quantiles in one call cost about one pass over the data.

    Parameters
    ----------
    a : array_like of real numbers
        Input data: int8..int64, uint8..uint64, float32 or float64 run in the compiled kernel
        (any stride, read-only fine; non-native byte order is converted once). Other dtypes
        (bool, float16, longdouble, ...) are handed to numpy.
    q : array_like of float
        Probability or sequence of probabilities, in ``[0, 1]`` inclusive (scalar, 1-D or 2-D).
    axis : None, 0 or -1, optional
        ``None`` uses all elements (N-D input is flattened: a view when the layout allows it,
        else a copy, like numpy). A 1-D axis is accepted for 1-D input only.
    method : str, default "linear"
        One of numpy's 13 methods: 'inverted_cdf', 'averaged_inverted_cdf',
        'closest_observation', 'interpolated_inverted_cdf', 'hazen', 'weibull', 'linear',
        'median_unbiased', 'normal_unbiased', 'lower', 'higher', 'midpoint', 'nearest'.

    Returns
    -------
    quantile : scalar or ndarray
        Same value, shape and dtype as ``numpy.quantile(a, q, method=method)``: float64 for
        integer input with interpolating methods, the input dtype for the discrete methods,
        NaN (everywhere) when ``a`` holds a NaN.

    Raises
    ------
    ValueError
        If ``q`` is outside ``[0, 1]`` or NaN, ``a`` is empty (numpy raises ``IndexError``
        there), ``axis`` is not supported, or ``method`` is unknown.
    TypeError
        If ``a`` is complex.

    See Also
    --------
    percentile : the same with q in percent.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import quantile
    >>> a = np.array([10, 7, 4, 3, 2, 1])
    >>> quantile(a, 0.5)
    np.float64(3.5)
    >>> quantile(a, [0.25, 0.75], method="lower")
    array([2, 4])
    """
    arr = _as_data(a, axis)
    _check_method(method)
    weak_q = type(q) in (int, float)
    qa = np.asanyarray(q)
    _check_q(qa, "Quantiles")
    if arr.dtype.char not in _KERNEL_CHARS:
        # bool, float16, longdouble, datetimes, objects: numpy's own code (which copies)
        return np.quantile(arr, q, method=method)
    return _quantile(arr, qa, method, weak_q)


def percentile(a, q, axis=None, *, method="linear"):
    """Compute the q-th percentile of the data, exactly as :func:`numpy.percentile` does.

    The input is read in place (never copied or modified) and the selection runs in O(N) with
    memory independent of N; several percentiles in one call cost about one pass.

    Parameters
    ----------
    a : array_like of real numbers
        Input data; see :func:`quantile` for the dtypes and layouts.
    q : array_like of float
        Percentage or sequence of percentages, in ``[0, 100]`` inclusive.
    axis : None, 0 or -1, optional
        ``None`` uses all elements; a 1-D axis is accepted for 1-D input only.
    method : str, default "linear"
        One of numpy's 13 methods (see :func:`quantile`).

    Returns
    -------
    percentile : scalar or ndarray
        Same value, shape and dtype as ``numpy.percentile(a, q, method=method)``.

    Raises
    ------
    ValueError
        If ``q`` is outside ``[0, 100]`` or NaN, ``a`` is empty (numpy raises ``IndexError``
        there), ``axis`` is not supported, or ``method`` is unknown.
    TypeError
        If ``a`` is complex.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics import percentile
    >>> a = np.array([[10, 7, 4], [3, 2, 1]])
    >>> percentile(a, 50)
    np.float64(3.5)
    >>> percentile(np.arange(101.0), [50, 95, 99])
    array([50., 95., 99.])
    """
    arr = _as_data(a, axis)
    _check_method(method)
    weak_q = type(q) in (int, float)
    qa = np.asanyarray(np.true_divide(q, 100))
    _check_q(qa, "Percentiles")
    if arr.dtype.char not in _KERNEL_CHARS:
        return np.percentile(arr, q, method=method)
    return _quantile(arr, qa, method, weak_q)


def median(a):
    """The median of 1-D ``a``, exactly as :func:`numpy.median` computes it.

    numpy averages the two middle order statistics with ``np.mean`` (not the ``lerp`` of
    ``percentile(a, 50)``, which can differ in the last bit); this does the same, after
    selecting them in place in O(N). NaN anywhere gives NaN. Empty input: ``ValueError``.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> float(fm.median([3.0, 1.0, 4.0, 1.5]))
    2.25
    """
    data = native(np.asarray(a)).reshape(-1)
    n = data.shape[0]
    if n == 0:
        raise ValueError("median of an empty array is undefined")
    if data.dtype.char not in _KERNEL_CHARS:
        return np.median(data)
    ranks = np.unique(np.array([(n - 1) // 2, n // 2], dtype=np.int64))
    values = np.empty(ranks.shape[0], dtype=data.dtype)
    if _select.select(data, ranks, values):
        return np.float64(np.nan) if data.dtype.kind != "f" else data.dtype.type(np.nan)
    return np.mean(values)
