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
from typing import TYPE_CHECKING, overload

import numpy as np

from . import _order
from ._order import METHODS

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any
    from ._typing import ArrayLike, NDArray, QuantileMethod, Quantiles

__all__ = ["METHODS", "median", "percentile", "quantile"]


def _as_data(a: ArrayLike, axis: int | tuple[int, ...] | None) -> NDArray[Any]:
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


def _check_q(q: NDArray[Any], scale_name: str) -> None:
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


@overload
def quantile(a: ArrayLike, q: float, axis: None = ..., *,
             method: QuantileMethod = ...) -> np.floating[Any]: ...


@overload
def quantile(a: ArrayLike, q: float, axis: int | tuple[int, ...], *,
             method: QuantileMethod = ...) -> NDArray[Any]: ...


@overload
def quantile(a: ArrayLike, q: Sequence[float] | NDArray[Any],
             axis: int | tuple[int, ...] | None = ..., *,
             method: QuantileMethod = ...) -> NDArray[Any]: ...


def quantile(a: ArrayLike, q: Quantiles, axis: int | tuple[int, ...] | None = None, *,
             method: QuantileMethod = "linear") -> Any:
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
    numpy.quantile : numpy's function, same arguments, values and dtypes.
    percentile : The same with ``q`` in percent.
    median : The middle value, as :func:`numpy.median`.
    fastmetrics.streaming.QuantileAccumulator : Quantiles over chunks (exact or a sketch).

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
    _order.check_method(method)
    weak_q = type(q) in (int, float)
    qa = np.asanyarray(q)
    _check_q(qa, "Quantiles")
    if arr.dtype.char not in _order.KERNEL_CHARS:
        # bool, float16, longdouble, datetimes, objects: numpy's own code (which copies)
        return np.quantile(arr, q, method=method)
    return _order.quantiles(arr, qa, method, weak_q)


@overload
def percentile(a: ArrayLike, q: float, axis: None = ..., *,
               method: QuantileMethod = ...) -> np.floating[Any]: ...


@overload
def percentile(a: ArrayLike, q: float, axis: int | tuple[int, ...], *,
               method: QuantileMethod = ...) -> NDArray[Any]: ...


@overload
def percentile(a: ArrayLike, q: Sequence[float] | NDArray[Any],
               axis: int | tuple[int, ...] | None = ..., *,
               method: QuantileMethod = ...) -> NDArray[Any]: ...


def percentile(a: ArrayLike, q: Quantiles, axis: int | tuple[int, ...] | None = None, *,
               method: QuantileMethod = "linear") -> Any:
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

    See Also
    --------
    numpy.percentile : numpy's function, same arguments, values and dtypes.
    quantile : The same with ``q`` in ``[0, 1]``.
    median : The middle value, as :func:`numpy.median`.

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
    _order.check_method(method)
    weak_q = type(q) in (int, float)
    qa = np.asanyarray(np.true_divide(q, 100))
    _check_q(qa, "Percentiles")
    if arr.dtype.char not in _order.KERNEL_CHARS:
        return np.percentile(arr, q, method=method)
    return _order.quantiles(arr, qa, method, weak_q)


def median(a: ArrayLike) -> np.floating[Any]:
    """The median of ``a``, exactly as :func:`numpy.median` computes it.

    numpy averages the two middle order statistics with ``np.mean`` (not the ``lerp`` of
    ``percentile(a, 50)``, which can differ in the last bit); this does the same, after
    selecting them in place in O(N).

    Parameters
    ----------
    a : array_like of real numbers
        Input data; N-D input is flattened (numpy's ``axis=None``). The dtypes and layouts of
        :func:`quantile`.

    Returns
    -------
    median : numpy scalar
        Same value and dtype as ``numpy.median(a)``: float64 for integer input, the input's
        float dtype otherwise; NaN when ``a`` holds a NaN.

    Raises
    ------
    ValueError
        If ``a`` is empty (numpy returns NaN with a warning).

    See Also
    --------
    numpy.median : numpy's function, same values and dtypes.
    percentile : Any percentile, numpy's 13 methods.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> float(fm.median([3.0, 1.0, 4.0, 1.5]))
    2.25
    """
    return _order.numpy_median(a)
