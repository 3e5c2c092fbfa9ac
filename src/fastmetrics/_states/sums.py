"""The regression sums state: one kernel pass over (y_true, y_pred[, weights]) -> a float64
array of sums, and every regression metric derived from it.

The sums (slots ``sums.W``, ``sums.ABS``, ``sums.SQ``, ``sums.APE``, ``sums.HUBER``,
``sums.MEAN``, ``sums.M2``, ``sums.N``, ``sums.CONST``, ``sums.FIRST`` of the kernel's
``sums.pxd``) hold the weight total, the weighted absolute, squared, relative and Huber
errors, and the weighted mean and spread of ``y_true``. The optional ones (relative errors,
Huber losses, mean and spread) are computed only when asked for with the kernel's
``FLAG_*`` bits; the state records which it holds, and a metric that needs an absent sum
raises instead of reading a zero. States merge with Chan et al.'s update (the kernel's
``merge``), so the spread keeps two-pass accuracy over any split of the data.

The median absolute error needs every error: a state built with ``keep_values=True`` also
keeps the absolute errors (and weights), O(N), merged by concatenation.

Inputs
------
1-D targets (and (n, 1) columns): ``sums`` has shape (N_STATE,). (n, m) targets with m >= 2
outputs (multioutput, any strides: C, F or sliced, never copied): ``sums`` has shape
(m, N_STATE), one row of sums per output, filled by the kernel's ``sums2d`` in one pass; a
state merges only with one of the same number of outputs. float32 and float64 are read in
place, other real dtypes (float16, integers, bool) converted to float64 once
(:func:`fastmetrics._inputs.float_values`). NaN and infinity are not checked element by
element: they show up as a non-finite sum, and only then is the culprit named.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._inputs import (
    NONZERO,
    float_values,
    inconsistent_lengths,
    nonfinite_error,
    sample_weight as check_weights,
    zero_weight_sum_error,
)
from .._kernels import sums as kernel
from .._threads import threads_for
from ..exceptions import warn, undefined_metric_warning
from .._order import numpy_median as median
from . import base
from .stacked import Stacked

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import ArrayLike, NDArray

    from .._typing import MultiOutput

__all__ = [
    "ALL_FLAGS",
    "ERROR_INTERVAL_METRICS",
    "RegressionStack",
    "RegressionState",
    "RegressionSummary",
    "abs_errors",
    "adjusted_r2",
    "average",
    "check_delta",
    "check_multioutput",
    "error_intervals",
    "error_mean_interval",
    "grouped_rows",
    "median_error_interval",
    "explained_fractions",
    "grouped",
    "grouped_stack",
    "explained_variance",
    "huber",
    "mae",
    "mape",
    "max_ae",
    "median_ae",
    "median_of",
    "medians",
    "mse",
    "n_outputs",
    "nonfinite_input",
    "out",
    "paired_error_intervals",
    "r2",
    "rmse",
    "summary",
    "target",
    "targets",
    "weights",
]

#: every optional sum: relative errors, Huber losses, mean and spread of y_true, max error,
#: mean and spread of the errors
ALL_FLAGS = (kernel.FLAG_APE | kernel.FLAG_HUBER | kernel.FLAG_R2 | kernel.FLAG_MAX
             | kernel.FLAG_EV)
#: the optional sums of fastmetrics 0.1 states (which had no MAXABS slot)
_LEGACY_FLAGS = kernel.FLAG_APE | kernel.FLAG_HUBER | kernel.FLAG_R2
_FLAG_NAMES = {kernel.FLAG_APE: "relative errors (MAPE)", kernel.FLAG_HUBER: "Huber losses",
               kernel.FLAG_R2: "mean and spread of y_true (R²)",
               kernel.FLAG_MAX: "maximum absolute error",
               kernel.FLAG_EV: "mean and spread of the errors (explained variance)"}
_LOSSES = (kernel.ABS, kernel.SQ, kernel.APE, kernel.HUBER)  # non-negative when unweighted
_ERROR_DTYPES = ("<f4", "<f8", "=f4", "=f8", "|f4", "|f8")
_NO_WEIGHTS = np.empty(0)
# scikit-learn's message for empty targets, with which inputs they were
_EMPTY = ("Found array with 0 sample(s) (shape=(0,)) while a minimum of 1 is required "
          "(y_true and y_pred are empty).")


# ---------------------------------------------------------------------- input policy


def target(y: ArrayLike, name: str) -> np.ndarray:
    """One target array: 1-D (an (n, 1) column raveled) or (n, m) with m >= 2 outputs,
    float32/float64 read in place, other real dtypes converted to float64 once."""
    a = y if type(y) is np.ndarray else np.asarray(y)
    if a.ndim != 1:
        if a.ndim == 2 and a.shape[1] == 1:
            a = a[:, 0]
        elif a.ndim == 0:
            raise ValueError(f"{name} must be a 1-D array-like, got a scalar: {y!r}")
        elif a.ndim > 2:
            raise ValueError(f"Found array with dim {a.ndim}. None expected <= 2.")
        elif a.shape[1] == 0:
            raise ValueError(f"Found array with 0 feature(s) (shape={a.shape}) while a "
                             "minimum of 1 is required.")
    if a.dtype.char in "fd" and a.dtype.isnative:
        return a
    return float_values(a, name)


def _plain_pair(y_true: ArrayLike, y_pred: ArrayLike) -> bool:
    """Two native, non-empty 1-D numpy arrays of one float32/float64 dtype and one length:
    what the kernel reads in place, with nothing to validate or convert."""
    return (type(y_true) is np.ndarray and type(y_pred) is np.ndarray
            and y_true.ndim == 1 and y_pred.ndim == 1 and y_true.dtype is y_pred.dtype
            and y_true.dtype.char in "fd" and y_true.dtype.isnative
            and 0 < y_true.shape[0] == y_pred.shape[0])


def n_outputs(a: np.ndarray) -> int:
    """The number of outputs of a target from :func:`target`."""
    return 1 if a.ndim == 1 else a.shape[1]


def targets(y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None = None, *,
            allow_empty: bool = False
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(yt, yp, w)`` validated: two targets of one length and one number of outputs,
    weights through the one weight validator (:func:`fastmetrics._inputs.sample_weight`).
    Their values (NaN, infinity, all zero) are left to the pass that reads them: the
    kernel's sums, or :func:`abs_errors` and :func:`median_of`."""
    yt = target(y_true, "y_true")
    yp = target(y_pred, "y_pred")
    n = yt.shape[0]
    if yp.shape[0] != n:
        try:
            w_len = np.shape(sample_weight)[:1] if sample_weight is not None else ()
        except ValueError:  # ragged
            w_len = ()
        raise inconsistent_lengths(y_true=n, y_pred=yp.shape[0],
                                   sample_weight=w_len[0] if w_len else None)
    if n_outputs(yt) != n_outputs(yp):
        raise ValueError("y_true and y_pred have different number of output "
                         f"({n_outputs(yt)}!={n_outputs(yp)})")
    w = None if sample_weight is None else weights(sample_weight, n)
    if n == 0 and not allow_empty:
        raise ValueError(_EMPTY)
    return yt, yp, w


def weights(sample_weight: ArrayLike, n: int) -> np.ndarray:
    """Sample weights for ``n`` targets, through the one weight validator; their values are
    left to the pass that reads them."""
    w: np.ndarray = check_weights(sample_weight, {"y_true": n, "y_pred": n},
                                  allow_zero_sum=True, check_values=False)
    return w


def nonfinite_input(yt: np.ndarray, yp: np.ndarray, w: np.ndarray | None) -> None:
    """Error path only: scikit-learn's error for the first input holding NaN or infinity
    (nothing when none does: the sums overflowed on finite values)."""
    for name, a in (("y_true", yt), ("y_pred", yp), ("sample_weight", w)):
        if a is not None and a.shape[0] and not np.isfinite(a).all():
            raise nonfinite_error(a, name)


def check_delta(delta: object) -> float:
    """The Huber ``delta`` as a float (finite, > 0)."""
    # ``not delta > 0`` also refuses NaN. typeshed's numbers.Real declares only < and <=, so
    # mypy rejects > on it; every real type that arrives (int, float, Fraction, numpy
    # scalars) defines >.
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) \
            or not delta > 0 or not math.isfinite(delta):  # type: ignore[operator]
        raise ValueError(f"delta must be a finite number > 0, got {delta!r}")
    return float(delta)


def check_multioutput(multioutput: MultiOutput | None,
                      allowed: Sequence[str] = ("raw_values", "uniform_average"), *,
                      output_weights: bool = False, outputs: int = 1) -> None:
    """``multioutput`` checked as scikit-learn does for targets of ``outputs`` outputs.

    Single output: the strings are all equivalent; custom output weights raise
    scikit-learn's ValueError, except where it averages them anyway (``output_weights``).
    Several outputs: custom weights must be finite numbers, one per output (except with
    ``output_weights``, where, as scikit-learn, only the average checks them)."""
    if isinstance(multioutput, str):
        if multioutput not in allowed:
            raise ValueError(
                f"Allowed 'multioutput' string values are {allowed}. "
                f"You provided multioutput={multioutput!r}"
            )
        return
    if multioutput is None and "variance_weighted" in allowed:
        return
    if outputs > 1:
        if not output_weights:
            mw = float_values(np.asarray(multioutput), "multioutput")
            if mw.ndim == 0:
                raise ValueError(f"Expected 2D array, got scalar array instead:\n"
                                 f"array={multioutput!r}.")
            if np.isnan(mw).any():  # scikit-learn's check_array words, no input name
                raise ValueError("Input contains NaN.")
            if not np.isfinite(mw).all():
                raise ValueError("Input contains infinity or a value too large for "
                                 f"{mw.dtype!r}.")
            if mw.shape[0] != outputs:
                raise ValueError("There must be equally many custom weights "
                                 f"({mw.shape[0]}) as outputs ({outputs}).")
        return
    if output_weights:
        mw = np.asarray(multioutput, dtype=np.float64)
        if mw.shape != (1,):
            raise ValueError(
                f"multioutput weights must have shape (1,) for one output, got {mw.shape}")
        if mw[0] == 0:
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        return
    raise ValueError("Custom weights are useful only in multi-output cases.")


def out(value: float, multioutput: MultiOutput | None) -> Any:
    """A metric's value as the one-output result: an array of one for "raw_values"."""
    if isinstance(multioutput, str) and multioutput == "raw_values":
        return np.array([value])
    return float(value)


def average(values: np.ndarray, multioutput: MultiOutput | None, weights: Any = None) -> Any:
    """Per-output values as scikit-learn returns them: the array for "raw_values", else
    their average (uniform, or weighted by ``weights`` / the custom output weights) as a
    float."""
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return values
    elif multioutput is not None:
        weights = multioutput
    return float(np.average(values, weights=weights))


def _per_output(state: RegressionState, value: Any, multioutput: MultiOutput | None,
                weights: Any = None) -> Any:
    """``value`` (a scalar for a one-output state, per output else) as the metric's result."""
    if state.sums.ndim == 1:
        return out(value, multioutput)
    return average(value, multioutput, weights)


class RegressionStack(Stacked):
    """Every group's regression sums (one output, every optional sum), row g group g's:
    merged row by row by Chan et al.'s update, as :meth:`RegressionState.merge` does."""

    __slots__ = ()
    empty = (0.0,)
    weighs = True

    def _merge_rows(self, other: Stacked, rows: np.ndarray) -> None:
        kernel.merge_rows(self.arrays[0], other.arrays[0], rows)

    def states(self) -> list[RegressionState]:
        """Every group's state, group ``g``'s at position ``g``."""
        out = self.arrays[0].copy()  # (each state owns its row of one copy)
        flags, delta, weighted = self.layout
        return [RegressionState(out[g], flags, delta, weighted) for g in range(out.shape[0])]


def grouped(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_pred: ArrayLike,
            sample_weight: ArrayLike | None, *, delta: float = 1.0,
            n_threads: int | None = None) -> list[RegressionState] | None:
    """:func:`grouped_stack`'s groups as states (None where it gives None).

    Examples
    --------
    >>> import numpy as np
    >>> states = grouped(np.array([0, 1, 0]), 2, [1.0, 2.0, 3.0], [1.5, 2.0, 2.0], None)
    >>> [mae(st) for st in states]
    [0.75, 0.0]
    """
    stack = grouped_stack(codes, n_groups, y_true, y_pred, sample_weight, delta=delta,
                          n_threads=n_threads)
    return None if stack is None else stack.states()


def grouped_stack(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_pred: ArrayLike,
                  sample_weight: ArrayLike | None, *, delta: float = 1.0,
                  n_threads: int | None = None) -> RegressionStack | None:
    """The state of each group's rows from one pass over all of them (no ordering of the
    rows by group), or None where that pass does not apply and each group's state is built
    on its own: targets of several outputs, negative weights (whose running weight may
    cross zero), or values that are not finite (the per-group pass then names them).

    Parameters
    ----------
    codes : ndarray of integers (n_samples,)
        Each row's group, in ``range(n_groups)``.
    n_groups : int
    y_true, y_pred, sample_weight : array-like of shape (n_samples,)
        As :meth:`RegressionState.from_arrays` takes them.
    delta : float, default=1.0
        The Huber loss' ``delta``.
    n_threads : int or None, default=None
        Threads of the pass (the states are the same for any value).

    Returns
    -------
    stack : RegressionStack or None
        Group g's sums at row g (every optional sum; empty for a group without rows): what
        :meth:`RegressionState.from_arrays` gives on its rows, to rounding.

    Raises
    ------
    ValueError
        Targets or weights :meth:`RegressionState.from_arrays` refuses; a code outside
        ``range(n_groups)``.

    Examples
    --------
    >>> import numpy as np
    >>> stack = grouped_stack(np.array([0, 1, 0]), 2, [1.0, 2.0, 3.0], [1.5, 2.0, 2.0], None)
    >>> stack.sizes
    array([2, 1])
    """
    yt, yp, w = targets(y_true, y_pred, sample_weight, allow_empty=True)
    n = yt.shape[0]
    if yt.ndim != 1 or yp.ndim != 1 or n == 0 or codes.shape[0] != n:
        return None
    if w is not None and w.shape[0] and float(w.min()) < 0:
        return None
    out = np.zeros((n_groups, kernel.N_STATE))
    bad = kernel.grouped_sums(codes, n_groups, yt.astype(np.float64, copy=False),
                              yp.astype(np.float64, copy=False),
                              _NO_WEIGHTS if w is None else w, w is not None, ALL_FLAGS,
                              delta, out, threads_for("sums", n, n_threads))
    if bad >= 0:
        raise ValueError(f"group code {codes[bad]} at row {bad} is outside [0, {n_groups})")
    totals = out[:, kernel.W] + out[:, kernel.ABS] + out[:, kernel.SQ] + out[:, kernel.MEAN]
    if not np.isfinite(totals).all():
        return None
    return RegressionStack((out,), (ALL_FLAGS, delta, w is not None),
                           out[:, kernel.N].astype(np.int64))


def grouped_rows(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_pred: ArrayLike,
                 sample_weight: ArrayLike | None, n_state: int, fill: Any, finite: int,
                 count: int) -> np.ndarray | None:
    """The (n_groups, n_state) sums that a grouped kernel ``fill(codes, yt, yp, out)``
    (returning the first row of a bad code, or -1) adds each row of the targets into,
    checked as the one-shot pass checks them; None where that pass does not apply and the
    caller builds each group's state from its rows: weights, several outputs, a group
    without rows. A code outside ``range(n_groups)`` raises, and so does NaN or infinity
    in the targets, named as the one-shot pass names it (``finite``: the slot they make
    non-finite; ``count``: the slot of the rows).

    Examples
    --------
    >>> from fastmetrics._kernels import pinball
    >>> s = grouped_rows(np.array([0, 1, 0]), 2, [1.0, 2.0, 3.0], [2.0, 2.0, 1.0], None,
    ...                  pinball.N_STATE, pinball.grouped_sums, pinball.UNDER, pinball.N)
    >>> s[:, pinball.N].tolist()
    [2.0, 1.0]
    """
    if sample_weight is not None:
        return None
    yt, yp, _ = targets(y_true, y_pred, None)
    if yt.ndim != 1 or yp.ndim != 1 or codes.shape[0] != yt.shape[0]:
        return None
    s = np.zeros((n_groups, n_state))
    bad = fill(codes, yt, yp, s)
    if bad >= 0:
        raise ValueError(f"group code {codes[bad]} at row {bad} is outside [0, {n_groups})")
    if not np.isfinite(s[:, finite]).all():  # NaN or infinity somewhere
        nonfinite_input(yt, yp, None)
    return s if s[:, count].all() else None


def abs_errors(yt: np.ndarray, yp: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """``|y_pred - y_true|`` in the inputs' common float dtype (one O(n) array), NaN and
    infinity named."""
    e: np.ndarray = np.subtract(yp, yt, dtype=np.result_type(yt.dtype, yp.dtype))
    np.abs(e, out=e)
    if e.size and (not np.isfinite(e.max()) or (w is not None and not np.isfinite(w.sum()))):
        nonfinite_input(yt, yp, w)
    return e


# ---------------------------------------------------------------------- the state


class RegressionState(base.OutputSums):
    """The sums of one or more kernel passes over (y_true, y_pred[, weights]).

    Parameters
    ----------
    sums : ndarray of float64, shape (sums.N_STATE,)
        The kernel's sums, slots named in ``sums.pxd`` (``sums.W``, ``sums.MEAN``...).
    flags : int
        The optional sums it holds (the kernel's ``FLAG_*`` bits).
    delta : float
        The Huber loss' ``delta`` the ``HUBER`` sum was computed with.
    weighted : bool
        Whether sample weights were given.
    kept : tuple of ndarray or None
        With ``keep_values``: the absolute errors, chunk by chunk (read :attr:`errors`).
    kept_weights : tuple of ndarray or None
        With ``keep_values`` and weights: the weights, chunk by chunk.

    See Also
    --------
    RegressionState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.RegressionAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.mean_squared_error : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import RegressionState
    >>> s = RegressionState.from_arrays([3, -0.5], [2.5, 0.0])
    >>> (s + RegressionState.from_arrays([2, 7], [2, 8])).n_samples
    4
    """

    kind = "regression"
    count_slot = kernel.N
    __slots__ = ("flags", "delta", "kept", "kept_weights")

    def __init__(self, sums: np.ndarray, flags: int, delta: float, weighted: bool,
                 kept: tuple[np.ndarray, ...] | None = None,
                 kept_weights: tuple[np.ndarray, ...] | None = None) -> None:
        self.sums = sums
        self.flags = flags
        self.delta = delta
        self.weighted = weighted
        self.kept = kept
        self.kept_weights = kept_weights

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred: ArrayLike,
                    sample_weight: ArrayLike | None = None, n_threads: int | None = None, *,
                    flags: int = ALL_FLAGS, delta: float = 1.0, keep_values: bool = False,
                    allow_empty: bool = False, allow_zero_sum: bool = False
                    ) -> RegressionState:
        """The sums of one kernel pass (the optional sums ``flags`` asks for; all by
        default), and with ``keep_values`` every absolute error (and weight).

        ``n_threads`` as in the one-shot functions (the sums are the same for any value);
        ``delta`` is the Huber loss' (> 0). Raises scikit-learn's errors for bad input
        (lengths, NaN / infinity, weights that sum to zero unless ``allow_zero_sum``, empty
        input unless ``allow_empty``).

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
        flags : int, default=31
            The optional sums to compute (the kernel's ``FLAG_*`` bits; all by default).
        delta : float, default=1.0
            The Huber loss' ``delta`` (> 0).
        keep_values : bool, default=False
            Also keep every absolute error (and weight), for the median absolute error.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.
        allow_zero_sum : bool, default=False
            Accept sample weights that sum to zero (a chunk of a stream) instead of raising
            scikit-learn's error.

        Returns
        -------
        state : RegressionState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording where it has one (lengths, NaN or infinity,
            shapes, dtypes), and for empty input unless ``allow_empty``.

        See Also
        --------
        RegressionState.merge : The state of two chunks.
        fastmetrics.streaming.RegressionAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.mean_squared_error : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import RegressionState
        >>> a = RegressionState.from_arrays([3, -0.5], [2.5, 0.0])
        >>> a.n_samples
        2
        """
        if flags & ~ALL_FLAGS:
            raise ValueError(f"flags must combine the kernel's FLAG_* bits, got {flags!r}")
        if delta != 1.0 or type(delta) is not float:
            delta = check_delta(delta)
        yt: np.ndarray
        yp: np.ndarray
        w: np.ndarray | None
        if _plain_pair(y_true, y_pred):  # the common call: targets read as they are
            yt, yp = cast("np.ndarray", y_true), cast("np.ndarray", y_pred)
            w = None if sample_weight is None else weights(sample_weight, yt.shape[0])
        else:
            yt, yp, w = targets(y_true, y_pred, sample_weight, allow_empty=allow_empty)
        n = yt.shape[0]
        nt = threads_for("sums", n * n_outputs(yt), n_threads)
        s: NDArray[np.float64]
        if yt.ndim == 2:  # several outputs: one row of sums per output, one pass
            s = np.zeros((yt.shape[1], kernel.N_STATE))
            if n:
                kernel.sums2d(yt, yp, _NO_WEIGHTS if w is None else w, w is not None, flags,
                              delta, s, nt)
        else:
            s = np.zeros(kernel.N_STATE)
            if n:
                kernel.sums(yt, yp, _NO_WEIGHTS if w is None else w, w is not None, flags,
                            delta, s, nt)
        if n:
            # Python floats: cheaper to test than numpy scalars
            v: list[float] = s.tolist() if s.ndim == 1 else s.sum(axis=0).tolist()
            # NaN / infinity anywhere make one of these sums non-finite (so does an
            # overflow of finite values, which the error path then lets through)
            if not math.isfinite(v[kernel.W] + v[kernel.ABS] + v[kernel.SQ] + v[kernel.MEAN]):
                nonfinite_input(yt, yp, w)
            if not allow_zero_sum and v[kernel.W] == 0:
                raise zero_weight_sum_error(w)
        kept: tuple[np.ndarray, ...] | None = None
        kept_weights: tuple[np.ndarray, ...] | None = None
        if keep_values:
            kept = (abs_errors(yt, yp, w),)
            if w is not None:  # a copy: the caller may reuse its array
                kept_weights = (w.astype(np.float64),)
        return cls(s, flags, delta, w is not None, kept, kept_weights)

    @classmethod
    def from_legacy(cls, sums: ArrayLike, delta: float, weighted: bool,
                    errors: Sequence[ArrayLike] | None = None,
                    weights: Sequence[ArrayLike] | None = None) -> RegressionState:
        """The state of a ``RegressionAccumulator`` pickled by fastmetrics 0.1.0 (its sums
        array, computed with every optional sum, and its lists of kept errors and weights),
        checked like any load.

        Parameters
        ----------
        sums : ndarray of float64
            The 0.1.0 accumulator's sums (every optional sum computed).
        delta : float
            The Huber loss' ``delta``.
        weighted : bool
            Whether sample weights were given.
        errors : list of ndarray or None, default=None
            Kept absolute errors, chunk by chunk.
        weights : list of ndarray or None, default=None
            Kept weights, chunk by chunk.

        Returns
        -------
        state : RegressionState
            The state, checked as any loaded state.

        Raises
        ------
        StateError
            If the sums break an invariant.

        See Also
        --------
        State.from_dict : The current exported form.

        Examples
        --------
        >>> from fastmetrics.states import RegressionState
        >>> s = RegressionState.from_arrays([3, -0.5], [2.5, 0.0], flags=7)  # 0.1.0's sums
        >>> RegressionState.from_legacy(s.sums, 1.0, False).n_samples
        2
        """
        sums = np.array(sums, dtype=np.float64)
        if sums.shape == (kernel.MAXABS,):  # 0.1.0 had no slots from MAXABS on: absent
            sums = np.append(sums, np.zeros(kernel.N_STATE - kernel.MAXABS))
        if sums.shape == (kernel.N_STATE,) and sums[kernel.CONST] == 0.0:
            sums[kernel.FIRST] = 0.0  # then 0.1.0 kept the first value; now FIRST is 0
        d = {"kind": cls.kind, "format": base.FORMAT, "sums": sums,
             "flags": _LEGACY_FLAGS, "delta": delta, "weighted": bool(weighted),
             "keep_values": errors is not None}
        e = np.concatenate(errors) if errors else np.zeros(0)
        d["errors"], d["errors_dtype"] = e, e.dtype.str
        d["weights"] = np.concatenate(weights) if weights else np.zeros(0)
        return cls.from_dict(d)

    # ------------------------------------------------------------------ properties
    @property
    def keeps_values(self) -> bool:
        """Whether the absolute errors are kept (``keep_values=True``)."""
        return self.kept is not None

    @property
    def errors(self) -> np.ndarray:
        """Every absolute error (``keep_values`` only), in sample order."""
        if self.kept is None:
            raise ValueError(
                "median_absolute_error needs every error: this state keeps none (create the "
                "accumulator with keep_values=True, O(N) memory)"
            )
        if len(self.kept) != 1:  # joined once, on first read (rows of 2-D errors)
            self.kept = (np.concatenate(self.kept),)
        return self.kept[0]

    @property
    def weights(self) -> np.ndarray | None:
        """The kept weights (``keep_values`` and weighted), else None."""
        if self.kept_weights is None:
            return None
        if len(self.kept_weights) != 1:
            self.kept_weights = (np.concatenate(self.kept_weights),)
        return self.kept_weights[0]

    def sum(self, slot: int) -> Any:
        """The sum of ``slot`` (per output for several outputs); ``ValueError`` when it is
        an optional sum this state was not computed with.

        Parameters
        ----------
        slot : int
            A slot of the kernel's sums (``W``, ``ABS``, ``SQ``...).

        Returns
        -------
        value : float or ndarray of shape (n_outputs,)
            The sum (per output for several outputs).

        Raises
        ------
        ValueError
            If it is an optional sum this state was not computed with.

        See Also
        --------
        RegressionState.total : The weight total.

        Examples
        --------
        >>> from fastmetrics.states import RegressionState
        >>> s = RegressionState.from_arrays([3, -0.5], [2.5, 0.0])
        >>> float(s.sum(1))  # slot ABS: the sum of absolute errors
        1.0
        """
        need = _FLAG_OF.get(slot, 0)
        if need and not self.flags & need:
            raise ValueError(
                f"this regression state holds no {_FLAG_NAMES[need]}: build it with the "
                f"kernel flag {need} (a state built for another metric cannot give this one)"
            )
        return self.sums[slot] if self.sums.ndim == 1 else self.sums[:, slot]

    def total(self) -> float:
        """The weight total (the count when unweighted); ``ValueError`` when it is zero.
        Every output has the same (one weight per sample, summed in the same order).

        Returns
        -------
        total : float
            The weight total (the count when unweighted), the same for every output.

        Raises
        ------
        ValueError
            If the total is zero.

        See Also
        --------
        RegressionState.sum : Any sum of the state.

        Examples
        --------
        >>> from fastmetrics.states import RegressionState
        >>> float(RegressionState.from_arrays([3, -0.5], [2.5, 0.0], [1.0, 3.0]).total())
        4.0
        """
        s = self.sums
        w: float = s[kernel.W] if s.ndim == 1 else s[0, kernel.W]
        if w == 0:
            raise ValueError(NONZERO)
        return w

    # ------------------------------------------------------------------ merge
    def merge(self, other: RegressionState) -> RegressionState:
        """The state of both inputs: sums add (mean and spread by Chan et al.'s update),
        the optional sums both hold are kept, kept errors are concatenated. An empty state
        is the identity.

        Parameters
        ----------
        other : RegressionState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : RegressionState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        RegressionState.from_arrays : The state of one chunk.
        fastmetrics.streaming.RegressionAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.mean_squared_error : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import RegressionState
        >>> a = RegressionState.from_arrays([3, -0.5], [2.5, 0.0])
        >>> b = RegressionState.from_arrays([2, 7], [2, 8])
        >>> a.merge(b).n_samples
        4
        """
        return self.merge_all([self, other])

    def _same_layout(self, other: Any) -> bool:
        # the merge refuses other output counts and Huber deltas only
        return bool(other.sums.shape == self.sums.shape and other.delta == self.delta)

    @classmethod
    def merge_all(cls, states: Sequence[RegressionState]) -> RegressionState:
        """The state of all inputs' samples, bit for bit the left fold of :meth:`merge`: the
        sums merged left to right (Chan et al.'s update is not associative in floats), the
        kept errors and weights gathered into one tuple of chunks (the fold copies the
        tuple built so far at every step: O(k**2) for k chunks).

        Parameters
        ----------
        states : sequence of RegressionState
            At least one state.

        Returns
        -------
        state : RegressionState
            The state of all inputs' samples (an input is returned as it is when no other
            holds samples).

        See Also
        --------
        RegressionState.merge : Two states.

        Examples
        --------
        >>> from fastmetrics.states import RegressionState
        >>> parts = [RegressionState.from_arrays([1.0, 2.0], [i, 2.0], keep_values=True)
        ...          for i in range(3)]
        >>> RegressionState.merge_all(parts).errors
        array([1., 0., 0., 0., 1., 0.])
        """
        states = cls._merge_inputs(states)
        acc = states[0]
        if len(states) > 2 and all(
                st.kept is None and st.sums.ndim == 1 and st.flags == acc.flags
                and st.delta == acc.delta for st in states):
            # the common stream (one output, the same sums, no kept errors): the same left
            # fold, without the general loop's per-state bookkeeping
            live = [st for st in states if st.sums[kernel.N] != 0.0]
            if len(live) < 2:
                return live[0] if live else acc
            s = live[0].sums.copy()
            for st in live[1:]:
                kernel.merge(s, st.sums)
            _drop_absent(s, acc.flags)
            return cls(s, acc.flags, acc.delta, any(st.weighted for st in live), None, None)
        s, flags, weighted = acc.sums, acc.flags, acc.weighted
        kept = None if acc.kept is None else list(acc.kept)
        kept_w = None if acc.kept_weights is None else list(acc.kept_weights)
        merged = False  # whether s is a merge of two inputs' sums (then new and owned here)
        for st in states[1:]:
            acc._check_outputs(st)  # acc holds samples unless every input so far is empty
            if acc.delta != st.delta:
                raise ValueError(
                    f"cannot merge regression states of different Huber delta ({acc.delta} "
                    f"and {st.delta})")
            if st.n_samples == 0:
                continue
            if acc.n_samples == 0:  # the identity: st as it is so far
                acc, s, flags, weighted, merged = st, st.sums, st.flags, st.weighted, False
                kept = None if st.kept is None else list(st.kept)
                kept_w = None if st.kept_weights is None else list(st.kept_weights)
                continue
            n = int(s[..., kernel.N].flat[0])
            if not merged:
                s, merged = s.copy(), True
            for a, b in zip(s.reshape(-1, kernel.N_STATE), st.sums.reshape(-1, kernel.N_STATE)):
                kernel.merge(a, b)
            flags &= st.flags
            _drop_absent(s, flags)
            if kept is not None and st.kept is not None:
                if weighted or st.weighted:
                    if kept_w is None:
                        kept_w = [np.ones(n)]
                    kept_w.extend(_weights_or_ones(st))
                kept.extend(st.kept)
            else:
                kept = kept_w = None
            weighted = weighted or st.weighted
        if not merged:
            return acc
        return cls(s, flags, acc.delta, weighted, None if kept is None else tuple(kept),
                   None if kept_w is None else tuple(kept_w))

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        e = self.errors if self.kept is not None else np.zeros(0)
        w = self.weights
        return {
            "sums": self.sums.copy(),
            "flags": int(self.flags),
            "delta": float(self.delta),
            "weighted": bool(self.weighted),
            "keep_values": self.kept is not None,
            "errors": e,
            "errors_dtype": e.dtype.str,
            "weights": w if w is not None else np.zeros(0),
        }

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> RegressionState:
        nd = 2 if isinstance(d, dict) and "sums" in d and np.ndim(d["sums"]) == 2 else 1
        if isinstance(d, dict) and "sums" in d and isinstance(d.get("flags"), int) \
                and not d["flags"] & (kernel.FLAG_MAX | kernel.FLAG_EV):
            d = _with_new_slots(d)
        s = base.field(d, "sums", kinds="f", ndim=nd, shape=(-1, kernel.N_STATE)[-nd:],
                       dtype=np.float64).copy()
        if nd == 2 and s.shape[0] < 2:
            raise base.StateError("a multioutput regression state has 2 outputs or more")
        flags = base.integer(d, "flags")
        if flags & ~ALL_FLAGS:
            raise base.StateError(f"state field 'flags' has unknown bits: {flags}")
        delta = base.number(d, "delta")
        if not delta > 0:
            raise base.StateError(f"the Huber delta must be > 0, got {delta}")
        weighted = base.flag(d, "weighted")
        keep = base.flag(d, "keep_values")
        if not np.isfinite(s).all():
            raise base.StateError("the sums of a regression state must be finite")
        rows = s.reshape(-1, kernel.N_STATE)
        if (rows[:, kernel.N] != rows[0, kernel.N]).any() \
                or (rows[:, kernel.W] != rows[0, kernel.W]).any():
            raise base.StateError("every output has the same count and weight total")
        for row in rows:
            _check_row(row, flags, weighted)
        n = s[..., kernel.N].flat[0]
        kept = kept_weights = None
        if keep:
            dt = base.text(d, "errors_dtype")
            if dt not in _ERROR_DTYPES:
                raise base.StateError(f"kept errors must be float32 or float64, got {dt!r}")
            e = base.field(d, "errors", kinds="f", ndim=nd,
                           shape=(int(n),) + s.shape[:nd - 1], dtype=np.dtype(dt))
            if not (e >= 0).all():
                raise base.StateError("kept absolute errors must be non-negative numbers")
            kept = (e.copy(),)
            if weighted:
                w = base.field(d, "weights", kinds="f", ndim=1, shape=(int(n),),
                               dtype=np.float64)
                if not np.isfinite(w).all():
                    raise base.StateError("kept weights must be finite")
                tol = 1e-9 * max(1.0, float(np.abs(w).sum()))
                if abs(float(w.sum()) - rows[0, kernel.W]) > tol:
                    raise base.StateError(
                        f"the kept weights sum to {float(w.sum())}, the weight total is "
                        f"{rows[0, kernel.W]}")
                kept_weights = (w.copy(),)
        return cls(s, flags, delta, weighted, kept, kept_weights)

    def __repr__(self) -> str:
        outputs = f", n_outputs={self.n_outputs}" if self.sums.ndim == 2 else ""
        return (f"RegressionState(n_samples={self.n_samples}{outputs}, "
                f"weighted={self.weighted}, keep_values={self.kept is not None})")


def _with_new_slots(d: Mapping[str, Any]) -> Mapping[str, Any]:
    """A state saved before the slots from MAXABS on existed (float sums of that width):
    the same state, with those sums absent (zero); anything else as it is, for the checks."""
    try:
        a = np.asarray(d["sums"])
    except (TypeError, ValueError):
        return d
    if a.dtype.kind != "f" or a.shape[-1:] != (kernel.MAXABS,):
        return d
    pad = np.zeros(a.shape[:-1] + (kernel.N_STATE - kernel.MAXABS,))
    return dict(d, sums=np.concatenate([a.astype(np.float64), pad], axis=-1))


def _check_row(s: np.ndarray, flags: int, weighted: bool) -> None:
    """The checks of one output's sums on load (what a pass could have made)."""
    n = s[kernel.N]
    if n < 0 or n != math.floor(n) or n >= 2.0**53:
        raise base.StateError(f"the sample count must be a non-negative integer, got {n}")
    if s[kernel.CONST] not in (0.0, 1.0):
        raise base.StateError("the CONST slot must be 0 or 1")
    if s[kernel.CONST] == 0.0 and s[kernel.FIRST] != 0.0:
        raise base.StateError("FIRST is the value of a constant y_true: 0 when not CONST")
    for flag, slots in ((kernel.FLAG_APE, (kernel.APE,)),
                        (kernel.FLAG_HUBER, (kernel.HUBER,)),
                        (kernel.FLAG_R2, (kernel.MEAN, kernel.M2)),
                        (kernel.FLAG_MAX, (kernel.MAXABS,)),
                        (kernel.FLAG_EV, (kernel.MEANE, kernel.M2E))):
        if not flags & flag and any(s[k] != 0 for k in slots):
            raise base.StateError(f"an absent sum ({_FLAG_NAMES[flag]}) must be 0")
    if s[kernel.MAXABS] < 0:
        raise base.StateError("the maximum absolute error must be non-negative")
    if n == 0:
        if s.any():
            raise base.StateError("an empty regression state must hold zero sums")
    else:
        if s[kernel.CONST] == 1.0:
            if s[kernel.M2] != 0:
                raise base.StateError("a constant y_true (CONST) has a zero spread")
            # unweighted, the mean of a constant is its value up to rounding
            first, mean = s[kernel.FIRST], s[kernel.MEAN]
            if (flags & kernel.FLAG_R2 and not weighted
                    and abs(mean - first) > 1e-9 * abs(first)):
                raise base.StateError(
                    f"a constant y_true (CONST, FIRST={first}) has its value as the "
                    f"mean, not {mean}")
        if not weighted:
            if s[kernel.W] != n:
                raise base.StateError(
                    f"unweighted, the weight total must equal the count ({s[kernel.W]} "
                    f"vs {n})")
            if any(s[k] < 0 for k in _LOSSES) or s[kernel.M2] < 0 or s[kernel.M2E] < 0:
                raise base.StateError("unweighted sums of losses must be non-negative")


_FLAG_OF = {kernel.APE: kernel.FLAG_APE, kernel.HUBER: kernel.FLAG_HUBER,
            kernel.MEAN: kernel.FLAG_R2, kernel.M2: kernel.FLAG_R2,
            kernel.MAXABS: kernel.FLAG_MAX, kernel.MEANE: kernel.FLAG_EV,
            kernel.M2E: kernel.FLAG_EV}


def _drop_absent(s: np.ndarray, flags: int) -> None:
    """Zero the optional sums of ``s`` that ``flags`` does not hold (merged from states of
    which one lacks them, they mean nothing)."""
    if not flags & kernel.FLAG_APE:
        s[..., kernel.APE] = 0.0
    if not flags & kernel.FLAG_HUBER:
        s[..., kernel.HUBER] = 0.0
    if not flags & kernel.FLAG_R2:
        s[..., kernel.MEAN] = s[..., kernel.M2] = 0.0
    if not flags & kernel.FLAG_MAX:
        s[..., kernel.MAXABS] = 0.0
    if not flags & kernel.FLAG_EV:
        s[..., kernel.MEANE] = s[..., kernel.M2E] = 0.0


def _weights_or_ones(st: RegressionState) -> tuple[np.ndarray, ...]:
    return st.kept_weights if st.kept_weights is not None else (np.ones(st.n_samples),)


# ---------------------------------------------------------------------- result type


@dataclass(frozen=True)
class RegressionSummary:
    """MAE, MSE, RMSE and R² of one pass, with the number of samples.

    The record :func:`fastmetrics.regression_summary` returns (frozen).

    Parameters
    ----------
    mae : float
        Mean absolute error.
    mse : float
        Mean squared error.
    rmse : float
        Root mean squared error (for several outputs, the mean of per-output RMSEs).
    r2 : float
        R² with ``force_finite=True``; NaN for fewer than two samples.
    n_samples : int
        Number of samples read.

    See Also
    --------
    fastmetrics.regression_summary : The function that returns this record.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.regression_summary([1, 2, 3], [1, 2, 4]).mae
    0.3333333333333333
    """

    mae: float
    mse: float
    rmse: float
    r2: float
    n_samples: int

    def as_row(self) -> dict[str, float]:
        """The record as a dict, one key per field.

        Returns
        -------
        row : dict[str, float]
            ``{"mae": ..., "mse": ..., "rmse": ..., "r2": ..., "n_samples": ...}``.

        See Also
        --------
        fastmetrics.regression_summary : The function that returns the record.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.regression_summary([1, 2, 3], [1, 2, 3]).as_row()["r2"]
        1.0
        """
        return {"mae": self.mae, "mse": self.mse, "rmse": self.rmse, "r2": self.r2,
                "n_samples": self.n_samples}


RegressionSummary.__module__ = "fastmetrics.regression"


# ---------------------------------------------------------------------- derivations


def _check(state: RegressionState, multioutput: MultiOutput | None,
           allowed: Sequence[str] = ("raw_values", "uniform_average"),
           output_weights: bool = False) -> None:
    if type(multioutput) is str and multioutput in allowed:  # the common call, kept cheap
        return
    check_multioutput(multioutput, allowed, output_weights=output_weights,
                      outputs=state.n_outputs)


def mae(state: RegressionState, multioutput: MultiOutput = "uniform_average") -> Any:
    """Mean absolute error (per output, averaged as ``multioutput`` says)."""
    _check(state, multioutput)
    return _per_output(state, state.sum(kernel.ABS) / state.total(), multioutput)


def mse(state: RegressionState, multioutput: MultiOutput = "uniform_average") -> Any:
    """Mean squared error."""
    _check(state, multioutput)
    return _per_output(state, state.sum(kernel.SQ) / state.total(), multioutput)


def rmse(state: RegressionState, multioutput: MultiOutput = "uniform_average") -> Any:
    """Root mean squared error per output (custom output weights are averaged, as
    scikit-learn does, without its length check)."""
    _check(state, multioutput, output_weights=True)
    return _per_output(state, np.sqrt(state.sum(kernel.SQ) / state.total()), multioutput)


def mape(state: RegressionState, multioutput: MultiOutput = "uniform_average") -> Any:
    """Mean absolute percentage error (a fraction)."""
    _check(state, multioutput)
    return _per_output(state, state.sum(kernel.APE) / state.total(), multioutput)


def max_ae(state: RegressionState) -> float:
    """The largest absolute error of any sample (whatever its weight; an empty state has
    none). One output only, as scikit-learn."""
    if state.sums.ndim == 2:
        raise ValueError("Multioutput not supported in max_error")
    if state.n_samples == 0:
        raise ValueError(_EMPTY)
    return float(state.sum(kernel.MAXABS))


def huber(state: RegressionState) -> float:
    """Mean Huber loss, with the state's ``delta`` (several outputs: their uniform
    average)."""
    return float(np.mean(state.sum(kernel.HUBER) / state.total()))


def _few_samples(state: RegressionState) -> bool:
    """Fewer than two samples: scikit-learn's R² warning (the caller returns NaN)."""
    state.sum(kernel.M2)
    state.total()
    if state.n_samples < 2:
        warn("R^2 score is not well-defined with less than two samples.",
             undefined_metric_warning())
        return True
    return False


def _r2(state: RegressionState, force_finite: bool) -> float:
    s = state.sums
    if _few_samples(state):
        return float("nan")
    if s.ndim == 2:
        return float(np.mean(_r2_outputs(state, force_finite)))
    num, m2 = s[kernel.SQ], s[kernel.M2]
    if not force_finite:
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(1.0 - np.float64(num) / np.float64(m2))
    if num == 0:
        return 1.0
    if m2 == 0:
        return 0.0
    return float(1.0 - num / m2)


def _r2_outputs(state: RegressionState, force_finite: bool) -> np.ndarray:
    """R² per output (scikit-learn's ``_assemble_fraction_of_explained_deviance``)."""
    return explained_fractions(state.sums[:, kernel.SQ], state.sums[:, kernel.M2], force_finite)


def explained_fractions(num: np.ndarray, den: np.ndarray,
                        force_finite: bool = True) -> np.ndarray:
    """``1 - num / den`` per output (the D² and R² family), with scikit-learn's
    ``force_finite`` cases: 1.0 for a zero numerator, 0.0 for a zero denominator under a
    non-zero numerator."""
    if not force_finite:
        with np.errstate(divide="ignore", invalid="ignore"):
            return cast("np.ndarray", 1 - num / den)
    scores = np.ones(num.shape[0])
    valid = (num != 0) & (den != 0)
    scores[valid] = 1 - num[valid] / den[valid]
    scores[(num != 0) & (den == 0)] = 0.0
    return scores


def r2(state: RegressionState, multioutput: MultiOutput | None = "uniform_average",
       force_finite: bool = True) -> Any:
    """R² (coefficient of determination) per output; NaN with ``UndefinedMetricWarning``
    (a scalar, as scikit-learn returns it, whatever ``multioutput``) for fewer than two
    samples. "variance_weighted" weighs outputs by the spread of their ``y_true`` (uniform
    when every spread is 0)."""
    _check(state, multioutput, ("raw_values", "uniform_average", "variance_weighted"))
    if state.sums.ndim == 1:
        value = _r2(state, force_finite)
        if math.isnan(value) and state.sums[kernel.N] < 2:
            return value
        return out(value, multioutput)
    if _few_samples(state):
        return float("nan")
    scores = _r2_outputs(state, force_finite)
    den = state.sums[:, kernel.M2]
    weights = None
    if isinstance(multioutput, str) and multioutput == "variance_weighted" and den.any():
        weights = den
    return average(scores, multioutput, weights)


def explained_variance(state: RegressionState,
                       multioutput: MultiOutput | None = "uniform_average",
                       force_finite: bool = True) -> Any:
    """Explained variance per output: 1 - (spread of the errors) / (spread of y_true),
    both two-pass accurate (Chan et al. merges of block spreads). "variance_weighted"
    weighs outputs by the spread of their ``y_true`` (uniform when every spread is 0)."""
    _check(state, multioutput, ("raw_values", "uniform_average", "variance_weighted"))
    num, den = state.sum(kernel.M2E), state.sum(kernel.M2)
    state.total()
    scores = explained_fractions(np.atleast_1d(num), np.atleast_1d(den), force_finite)
    if state.sums.ndim == 1:
        return out(scores[0], multioutput)
    weights = None
    if isinstance(multioutput, str) and multioutput == "variance_weighted" and den.any():
        weights = den
    return average(scores, multioutput, weights)


def adjusted_r2(state: RegressionState, n_features: int, force_finite: bool = True) -> float:
    """Adjusted R²: ``1 - (1 - R²) (n - 1) / (n - n_features - 1)`` (several outputs: of
    their uniform average R², which is the average of their adjusted R²)."""
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) \
            or n_features < 0:
        raise ValueError(f"n_features must be an int >= 0, got {n_features!r}")
    n, n_features = state.n_samples, int(n_features)
    if n - n_features - 1 <= 0:
        raise ValueError(
            f"adjusted R² needs n_samples > n_features + 1, got n_samples={n}, "
            f"n_features={n_features}"
        )
    return float(1.0 - (1.0 - _r2(state, force_finite)) * (n - 1) / (n - n_features - 1))


def summary(state: RegressionState) -> RegressionSummary:
    """MAE, MSE, RMSE and R² (``force_finite=True``) of one state (several outputs: each
    the uniform average over outputs, as the functions' default ``multioutput``)."""
    total = state.total()
    if state.sums.ndim == 2:
        sq = state.sums[:, kernel.SQ] / total
        return RegressionSummary(float(np.mean(state.sums[:, kernel.ABS] / total)),
                                 float(np.mean(sq)), float(np.mean(np.sqrt(sq))),
                                 _r2(state, True), state.n_samples)
    m = float(state.sums[kernel.SQ] / total)
    return RegressionSummary(float(state.sums[kernel.ABS] / total), m, math.sqrt(m),
                             _r2(state, True), state.n_samples)


def median_ae(state: RegressionState, multioutput: MultiOutput = "uniform_average") -> Any:
    """Median absolute error of the kept errors (a state built with ``keep_values``)."""
    _check(state, multioutput)
    e = state.errors
    state.total()
    return medians(e, state.weights, multioutput)


def medians(e: np.ndarray, w: np.ndarray | None, multioutput: MultiOutput | None) -> Any:
    """The median of the absolute errors ``e`` (per column of 2-D errors), as the median
    absolute error's result."""
    if e.ndim == 1:
        return out(median_of(e, w), multioutput)
    return average(np.array([median_of(e[:, j], w) for j in range(e.shape[1])]),
                   multioutput)


def median_of(e: np.ndarray, w: np.ndarray | None) -> float:
    """The median of the absolute errors ``e``: O(N) selection unweighted (numpy's value,
    in ``e``'s dtype), scikit-learn's averaged inverted-CDF weighted median with weights
    (which must not all be zero)."""
    if w is None:
        return float(median(e))
    if not w.any():
        raise ValueError(NONZERO)
    return _weighted_median(e, w)


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


#: the metrics :func:`error_intervals` gives intervals of
ERROR_INTERVAL_METRICS = ("mean_absolute_error", "mean_squared_error",
                          "root_mean_squared_error")


def _kept_errors(state: RegressionState) -> np.ndarray | None:
    """The absolute errors of an unweighted one-output state that keeps them (two or more),
    else None."""
    if state.weighted or not state.keeps_values or state.n_samples < 2:
        return None
    a = state.errors
    return a if a.ndim == 1 else None


def _normal(values: np.ndarray, level: float) -> tuple[float, float]:
    """``mean +- z sd / sqrt(n)``: the central limit interval of the mean of ``values``."""
    z = NormalDist().inv_cdf(0.5 + level / 2)
    m = float(np.mean(values))
    half = z * float(np.std(values, ddof=1)) / math.sqrt(values.shape[0])
    return m - half, m + half


def error_intervals(state: RegressionState, level: float) -> dict[str, tuple[float, float]]:
    """Normal (central limit) intervals of the mean absolute and squared errors, from the
    kept absolute errors: the mean of the rows' values plus or minus ``z`` standard errors
    (lower ends held at 0); the root mean squared error's is the root of the squared
    error's ends. Empty where they do not apply (weights, no kept errors, one row).

    Examples
    --------
    >>> st = RegressionState.from_arrays([1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 2.0, 5.0],
    ...                                  keep_values=True)
    >>> [round(v, 4) for v in error_intervals(st, 0.95)["mean_absolute_error"]]
    [0.1559, 1.0941]
    """
    a = _kept_errors(state)
    if a is None:
        return {}
    out = {}
    for name, v in (("mean_absolute_error", a), ("mean_squared_error", a * a)):
        lo, hi = _normal(v, level)
        out[name] = (max(lo, 0.0), hi)
    lo, hi = out["mean_squared_error"]
    out["root_mean_squared_error"] = (math.sqrt(lo), math.sqrt(hi))
    return out


def error_mean_interval(state: RegressionState, level: float) -> tuple[float, float] | None:
    """The central limit interval of the mean of the errors ``y_true - y_pred``, from the
    state's mean and spread of the errors: ``mean +- z sd / sqrt(n)``, ``sd`` with n - 1
    degrees of freedom. The values need not be kept: a stream of per-row losses fed as
    ``y_true`` (``y_pred`` zero) gives the interval of their mean. None where it does not
    apply (weights, fewer than two rows, no spread of the errors in the state).

    Examples
    --------
    >>> st = RegressionState.from_arrays([0.2, 0.4, 0.1, 0.5], [0.0, 0.0, 0.0, 0.0])
    >>> [round(v, 4) for v in error_mean_interval(st, 0.95)]
    [0.1211, 0.4789]
    """
    v = state.sums
    if state.weighted or v.ndim != 1 or not state.flags & kernel.FLAG_EV \
            or v[kernel.N] < 2:
        return None
    n = float(v[kernel.N])
    z = NormalDist().inv_cdf(0.5 + level / 2)
    half = z * math.sqrt(max(float(v[kernel.M2E]), 0.0) / (n - 1) / n)
    mean = float(v[kernel.MEANE])
    return mean - half, mean + half


def median_error_interval(state: RegressionState, level: float
                          ) -> tuple[float, float] | None:
    """The distribution-free interval of the median absolute error, from the kept
    absolute errors: sorted, ``[a_(l), a_(u)]`` with ranks ``l = floor((n - z sqrt(n)) /
    2)`` and ``u = ceil(1 + (n + z sqrt(n)) / 2)`` (1-based, held in ``[1, n]``): the
    number of errors below the true median is binomial(n, 1/2), so the pair covers it
    with about the level's probability (the normal approximation of that binomial),
    whatever the errors' law. Two selections, no sort. None where it does not apply
    (weights, no kept errors, fewer than two rows).

    Examples
    --------
    >>> st = RegressionState.from_arrays(np.arange(100.0), np.zeros(100), keep_values=True)
    >>> median_error_interval(st, 0.95)
    (39.0, 60.0)
    """
    a = _kept_errors(state)
    if a is None:
        return None
    n = a.shape[0]
    spread = NormalDist().inv_cdf(0.5 + level / 2) * math.sqrt(n)
    lo = min(max(math.floor((n - spread) / 2), 1), n) - 1
    hi = min(max(math.ceil(1 + (n + spread) / 2), 1), n) - 1
    part = np.partition(a, (lo, hi))
    return float(part[lo]), float(part[hi])


def paired_error_intervals(state: RegressionState, baseline: RegressionState, level: float
                           ) -> dict[str, tuple[float, float]]:
    """Normal intervals of the differences of the mean absolute and squared errors of two
    models' states of the same rows in the same order (each row's difference, its mean plus
    or minus ``z`` standard errors: the paired interval), and of the difference of their
    root mean squared errors (the delta method: the root's slope at each model's mean
    squared error weighs its rows' squared errors, ``e_a**2 / (2 rmse_a) - e_b**2 /
    (2 rmse_b)``, whose spread is the difference's; centred on the difference). Empty
    where they do not apply.

    Examples
    --------
    >>> y = [1.0, 2.0, 3.0, 4.0, 5.0]
    >>> a = RegressionState.from_arrays(y, [1.1, 2.1, 2.9, 4.2, 5.0], keep_values=True)
    >>> b = RegressionState.from_arrays(y, [1.5, 2.4, 2.0, 4.9, 5.6], keep_values=True)
    >>> lo, hi = paired_error_intervals(a, b, 0.95)["mean_absolute_error"]
    >>> hi < 0
    True
    """
    a, b = _kept_errors(state), _kept_errors(baseline)
    if a is None or b is None or a.shape != b.shape:
        return {}
    sq_a, sq_b = a * a, b * b
    out = {"mean_absolute_error": _normal(a - b, level),
           "mean_squared_error": _normal(sq_a - sq_b, level)}
    rmse_a, rmse_b = math.sqrt(float(np.mean(sq_a))), math.sqrt(float(np.mean(sq_b)))
    if rmse_a > 0 and rmse_b > 0:  # (the root has no slope at 0)
        lo, hi = _normal(sq_a / (2 * rmse_a) - sq_b / (2 * rmse_b), level)
        half, d = (hi - lo) / 2, rmse_a - rmse_b
        out["root_mean_squared_error"] = (d - half, d + half)
    return out
