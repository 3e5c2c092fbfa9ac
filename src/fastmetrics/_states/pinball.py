"""The pinball (quantile) loss state: one kernel pass over (y_true, y_pred[, weights]) -> the
weight total and the weighted sums of the two signs of the residual, and the metrics
derived from it.

The sums (slots ``pinball.W``, ``pinball.OVER``, ``pinball.UNDER``, ``pinball.N`` of the
kernel's ``pinball.pxd``) give the mean pinball loss of every ``alpha`` at once:
``(alpha * OVER + (1 - alpha) * UNDER) / W``. So the state records no ``alpha``: states built
for any ``alpha`` are the same and merge by adding their sums; the derivation takes
``alpha``. (The Huber loss' ``delta`` is part of the regression state because its sum depends
on it; the pinball sums do not.)

The D² pinball score compares the loss with the loss of the (weighted) ``alpha``-quantile of
``y_true``: it needs every ``y_true`` value, so it has no state (:func:`d2_score` takes the
arrays). The quantile is scikit-learn's ``_weighted_percentile(..., average=True)``:
unweighted, an O(N) selection of one or two order statistics read in place
(:mod:`fastmetrics._kernels.select`); weighted, scikit-learn's sort and cumulative weights.

Inputs as the regression sums state (:mod:`fastmetrics._states.sums`): 1-D or (n, m)
targets read in place, any strides; float32 and float64 read as they are.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import NONZERO, zero_weight_sum_error
from .._kernels import pinball as kernel
from .._kernels import select as selection
from .._threads import threads_for
from ..exceptions import invalid_parameter, warn, undefined_metric_warning
from . import base
from .sums import (average, check_multioutput, explained_fractions, grouped_rows, n_outputs,
                   nonfinite_input, out, targets)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from numpy.typing import DTypeLike

    from .._typing import ArrayLike, MultiOutput

__all__ = ["PinballState", "check_alpha", "check_pinball_multioutput", "d2_score",
           "grouped_states", "loss", "quantiles"]

_NO_WEIGHTS = np.empty(0)
_ALLOWED = ("raw_values", "uniform_average")


def check_alpha(alpha: object, function: str = "mean_pinball_loss") -> float:
    """``alpha`` as a float in [0, 1] (scikit-learn's parameter error otherwise)."""
    # bools are accepted, as scikit-learn's Interval(Real, 0, 1) accepts them
    if not isinstance(alpha, numbers.Real) or not 0 <= alpha <= 1:  # type: ignore[operator]
        raise invalid_parameter(
            f"The 'alpha' parameter of {function} must be a float in the range [0.0, 1.0]. "
            f"Got {alpha!r} instead.")
    return float(alpha)


def check_pinball_multioutput(multioutput: MultiOutput | None, outputs: int,
                              function: str = "mean_pinball_loss") -> None:
    """``multioutput`` checked as scikit-learn does: "raw_values", "uniform_average" or
    custom output weights (for several outputs: finite, one per output)."""
    if multioutput is None or (isinstance(multioutput, str) and multioutput not in _ALLOWED):
        raise invalid_parameter(
            f"The 'multioutput' parameter of {function} must be a str among "
            f"{{'raw_values', 'uniform_average'}} or an array-like. Got {multioutput!r} "
            "instead.")
    check_multioutput(multioutput, _ALLOWED, outputs=outputs)


class PinballState(base.OutputSums):
    """The pinball sums of one or more kernel passes over (y_true, y_pred[, weights]).

    Parameters
    ----------
    sums : ndarray of float64, shape (4,) or (n_outputs, 4)
        The kernel's sums, slots named in ``pinball.pxd`` (``W``, ``OVER``, ``UNDER``,
        ``N``); one row per output for (n, m) targets.
    weighted : bool
        Whether sample weights were given.

    See Also
    --------
    PinballState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.PinballAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.mean_pinball_loss : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import PinballState
    >>> s = PinballState.from_arrays([1.0, 2.0], [2.0, 2.0])
    >>> (s + PinballState.from_arrays([3.0], [1.0])).n_samples
    3
    """

    kind = "pinball"
    count_slot = kernel.N
    __slots__ = ()

    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred: ArrayLike,
                    sample_weight: ArrayLike | None = None, n_threads: int | None = None, *,
                    allow_empty: bool = False, allow_zero_sum: bool = False) -> PinballState:
        """The sums of one kernel pass. Raises scikit-learn's errors for bad input (lengths,
        NaN / infinity, weights that sum to zero unless ``allow_zero_sum``, empty input
        unless ``allow_empty``).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
            True values.
        y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Predicted values.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.
        allow_zero_sum : bool, default=False
            Accept sample weights that sum to zero (a chunk of a stream) instead of raising
            scikit-learn's error.

        Returns
        -------
        state : PinballState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording where it has one (lengths, NaN or infinity,
            shapes, dtypes), and for empty input unless ``allow_empty``.

        See Also
        --------
        State.merge : The state of two chunks (``a + b``).
        fastmetrics.streaming.PinballAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.mean_pinball_loss : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import PinballState
        >>> a = PinballState.from_arrays([1.0, 2.0], [2.0, 2.0])
        >>> a.n_samples
        2
        """
        yt, yp, w = targets(y_true, y_pred, sample_weight, allow_empty=allow_empty)
        return cls(_pass(yt, yp, w, n_threads, allow_zero_sum), w is not None)

    def _export(self) -> dict[str, Any]:
        return {"sums": self.sums.copy(), "weighted": bool(self.weighted)}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> PinballState:
        nd = 2 if "sums" in d and np.ndim(d["sums"]) == 2 else 1
        s = base.field(d, "sums", kinds="f", ndim=nd, shape=(-1, kernel.N_STATE)[-nd:],
                       dtype=np.float64).copy()
        if nd == 2 and s.shape[0] < 2:
            raise base.StateError("a multioutput pinball state has 2 outputs or more")
        weighted = base.flag(d, "weighted")
        if not np.isfinite(s).all():
            raise base.StateError("the sums of a pinball state must be finite")
        rows = s.reshape(-1, kernel.N_STATE)
        if (rows[:, kernel.N] != rows[0, kernel.N]).any() \
                or (rows[:, kernel.W] != rows[0, kernel.W]).any():
            raise base.StateError("every output has the same count and weight total")
        n = rows[0, kernel.N]
        if n < 0 or n != math.floor(n) or n >= 2.0**53:
            raise base.StateError(f"the sample count must be a non-negative integer, got {n}")
        if n == 0 and s.any():
            raise base.StateError("an empty pinball state must hold zero sums")
        if not weighted:
            if rows[0, kernel.W] != n:
                raise base.StateError(
                    f"unweighted, the weight total must equal the count ({rows[0, kernel.W]} "
                    f"vs {n})")
            if (rows[:, kernel.OVER] < 0).any() or (rows[:, kernel.UNDER] < 0).any():
                raise base.StateError("unweighted sums of losses must be non-negative")
        return cls(s, weighted)

    def __repr__(self) -> str:
        outputs = f", n_outputs={self.n_outputs}" if self.sums.ndim == 2 else ""
        return f"PinballState(n_samples={self.n_samples}{outputs}, weighted={self.weighted})"


def grouped_states(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_pred: ArrayLike,
                   sample_weight: ArrayLike | None) -> list[PinballState] | None:
    """Each group's state (its counts those of :meth:`PinballState.from_arrays` of its
    rows, its sums to rounding) from one pass over every row, or None where that pass does
    not apply (:func:`~fastmetrics._states.sums.grouped_rows`).

    Examples
    --------
    >>> import numpy as np
    >>> states = grouped_states(np.array([0, 1, 0]), 2, [1.0, 2.0, 3.0], [2.0, 2.0, 1.0],
    ...                         None)
    >>> [s.sums.tolist() for s in states]
    [[2.0, 2.0, 1.0, 2.0], [1.0, 0.0, 0.0, 1.0]]
    """
    s = grouped_rows(codes, n_groups, y_true, y_pred, sample_weight, kernel.N_STATE,
                     kernel.grouped_sums, kernel.UNDER, kernel.N)
    return None if s is None else [PinballState(row.copy(), False) for row in s]


def _pass(yt: np.ndarray, yp: np.ndarray, w: np.ndarray | None, n_threads: int | None,
          allow_zero_sum: bool) -> np.ndarray:
    """The kernel's sums of validated targets (``yp`` may be a stride-0 broadcast)."""
    n = yt.shape[0]
    nt = threads_for("pinball", n * n_outputs(yt), n_threads)
    ww = _NO_WEIGHTS if w is None else w
    s: np.ndarray
    if yt.ndim == 2:
        s = np.zeros((yt.shape[1], kernel.N_STATE))
        if n:
            kernel.sums2d(yt, yp, ww, w is not None, s, nt)
    else:
        s = np.zeros(kernel.N_STATE)
        if n:
            kernel.sums(yt, yp, ww, w is not None, s, nt)
    if n:
        v = s.sum(axis=0) if s.ndim == 2 else s
        # NaN / infinity anywhere make one of these non-finite (so does an overflow of
        # finite values, which the error path then lets through)
        if not math.isfinite(v[kernel.W] + v[kernel.OVER] + v[kernel.UNDER]):
            nonfinite_input(yt, yp, w)
        if not allow_zero_sum and v[kernel.W] == 0:
            raise zero_weight_sum_error(w)
    return s


def _losses(s: np.ndarray, alpha: float) -> Any:
    """The mean pinball loss per row of sums (a scalar for one output)."""
    return (alpha * s[..., kernel.OVER] + (1 - alpha) * s[..., kernel.UNDER]) / s[..., kernel.W]


# ---------------------------------------------------------------------- derivations


def loss(state: PinballState, alpha: float = 0.5,
         multioutput: MultiOutput = "uniform_average") -> Any:
    """Mean pinball loss of quantile level ``alpha`` (per output, averaged as
    ``multioutput`` says)."""
    alpha = check_alpha(alpha)
    check_pinball_multioutput(multioutput, state.n_outputs)
    s = state.sums
    w = s[kernel.W] if s.ndim == 1 else s[0, kernel.W]
    if w == 0:  # as the regression states: a stream of zero weights has no mean
        raise ValueError(NONZERO)
    value = _losses(s, alpha)
    if s.ndim == 1:
        return out(value, multioutput)
    return average(value, multioutput)


def quantiles(yt: np.ndarray, w: np.ndarray | None, alpha: float, dtype: np.dtype[Any]
              ) -> np.ndarray:
    """scikit-learn's ``_weighted_percentile(yt, w, alpha * 100, average=True)`` per output
    (float64 array of the values, computed in ``dtype``: scikit-learn's common float dtype
    of the inputs). Unweighted: the one or two order statistics it averages, selected in
    place; weighted: its sort and cumulative weights."""
    dt = np.dtype(dtype)
    cols = [yt] if yt.ndim == 1 else [yt[:, j] for j in range(yt.shape[1])]
    if w is None:
        return np.array([_unweighted_quantile(c, alpha, dt) for c in cols], dtype=np.float64)
    wd = w.astype(dt, copy=False)
    return np.array([_weighted_quantile(c.astype(dt, copy=False), wd, alpha, dt)
                     for c in cols], dtype=np.float64)


def _rank(alpha: float, total: Any, dt: DTypeLike) -> Any:
    """scikit-learn's ``alpha * 100 / 100 * total`` in ``dt``, moved off 0."""
    target = np.asarray(alpha * 100, dtype=dt) / 100 * total
    if target == 0:
        target = np.nextafter(target, target + 1)
    return target


def _unweighted_quantile(col: np.ndarray, alpha: float, dt: np.dtype[Any]) -> Any:
    """The quantile with unit weights: their cumulative sum is i + 1 at sorted position i
    (up to where ``dt`` counts ones exactly: 2**24 for float32, where scikit-learn's sum
    stops growing), so the positions follow without a sort."""
    n = col.shape[0]
    cap = 2 ** (np.finfo(dt).nmant + 1)
    target = _rank(alpha, dt.type(min(n, cap)), dt)
    i = min(max(math.ceil(float(target)) - 1, 0), n - 1)  # searchsorted(cdf, target)
    exact = not dt.type(min(i + 1, cap)) - target > np.finfo(dt).eps
    j = min(i + 1, n - 1) if exact else i
    ranks = np.array(sorted({i, j}), dtype=np.int64)
    values = np.empty(ranks.shape[0], dtype=col.dtype)
    selection.select(col, ranks, values)
    lo, hi = dt.type(values[0]), dt.type(values[-1])
    return (lo + hi) / 2 if exact else lo


def _weighted_quantile(col: np.ndarray, w: np.ndarray, alpha: float, dt: np.dtype[Any]) -> Any:
    """scikit-learn's averaged inverted-CDF weighted percentile of one column, step by
    step (its sort, its cumulative sum in ``dt``, its tolerance and its skip of
    zero-weight neighbours), so that ties and float rounding fall the same way."""
    n = col.shape[0]
    order = np.argsort(col)
    cdf = np.cumsum(w[order])
    target = _rank(alpha, cdf[-1], dt)
    i = min(max(int(np.searchsorted(cdf, target)), 0), n - 1)
    if cdf[i] - target > np.finfo(dt).eps:
        return col[order[i]]
    j = min(i + 1, n - 1)
    if w[order[j]] == 0:
        j = int(np.searchsorted(cdf, cdf[i], side="right"))
        if j > n - 1:
            j = i
    return (col[order[i]] + col[order[j]]) / 2


def _common_float(*arrays: Any) -> np.dtype[Any]:
    """scikit-learn's computation dtype: the common float dtype of the inputs that have one
    (float32 only when every float input is float32; float16 is computed as float64 here,
    as every regression function converts it), float64 when none has."""
    floats = [a.dtype for a in arrays if isinstance(getattr(a, "dtype", None), np.dtype)
              and a.dtype.kind == "f"]
    if floats and np.result_type(*floats) == np.float32:
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def d2_score(y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None = None,
             alpha: float = 0.5, multioutput: MultiOutput = "uniform_average",
             n_threads: int | None = None, function: str = "d2_pinball_score") -> Any:
    """D² pinball score: ``1 - loss(y_pred) / loss(alpha-quantile of y_true)`` per output,
    scikit-learn's ``force_finite`` cases; NaN with ``UndefinedMetricWarning`` for fewer
    than two samples."""
    alpha = check_alpha(alpha, function)
    if multioutput is None or isinstance(multioutput, str):
        check_pinball_multioutput(multioutput, 1, function)
    dt = _common_float(y_true, y_pred, sample_weight)
    yt, yp, w = targets(y_true, y_pred, sample_weight)
    check_pinball_multioutput(multioutput, n_outputs(yt), function)
    num = _pass(yt, yp, w, n_threads, False)
    if yt.shape[0] < 2:
        warn("D^2 score is not well-defined with less than two samples.",
             undefined_metric_warning())
        return float("nan")
    q = quantiles(yt, w, alpha, dt)
    base_pred = np.broadcast_to(q if yt.ndim == 2 else q[0], yt.shape)  # stride 0: no copy
    den = _pass(yt, base_pred, w, n_threads, True)
    scores = explained_fractions(np.atleast_1d(_losses(num, alpha)),
                                 np.atleast_1d(_losses(den, alpha)))
    if yt.ndim == 1:
        return out(scores[0], multioutput)
    return average(scores, multioutput)

