"""The deviance states: one pass of the deviance kernel over (y_true, y_pred[, weights]) ->
a few float64 sums, and the Tweedie deviances, their D² score and the squared logarithmic
errors derived from them.

:class:`TweedieState` holds, for one Tweedie ``power``, the weight total, the count, the
weighted sum of the unit deviances and (``d2``) the sums the deviance of ``y_true`` against
its own weighted mean ``mu = SY / W`` decomposes into, so that ``d2_tweedie_score`` merges
without a second pass:

* the weighted mean of ``y_true`` and its deviance against that mean, summed
  per block of the kernel against the block mean (sample by sample, scikit-learn's
  expression) and merged with the Bregman form of Chan et al.'s update (see the kernel;
  the merge terms by their Taylor series, free of cancellation): as accurate as
  scikit-learn's per-sample sum against the overall mean. Measured against 50-digit
  arithmetic (5,000 targets ``100 (1 + cv z)``): both within 1e-14 at cv = 0.1, ~1e-13 at
  0.01, 1e-13..4e-11 at 0.001, where the per-sample expression (theirs and ours) loses
  digits; ours and scikit-learn's differ by no more than their own errors.
* power < 0, where a mean (of a block, of the data) is not positive (``y_true`` may take
  any sign; the unit deviance then is undefined): the decomposition ``2 (T / ((1-p)(2-p)) -
  SY mu**(1-p) / (1-p) + W mu**(2-p) / (2-p))`` with ``T = sum w max(y, 0)**(2-p)``. It is
  a difference of sums of size ``T``, so it carries an absolute rounding error of about
  ``eps * T``: the score agrees with scikit-learn to about ``1e-15 * T / D0`` relative
  (``D0`` the deviance against the mean), 1e-12 and better unless the ``y_true`` hardly
  vary. With positive means (the common case) power < 0 takes the first form: measured
  as above, power -1: 3e-16, 2e-13, 3e-11 at cv = 0.1, 0.01, 0.001 (scikit-learn's own
  error: 3e-15, 4e-14, 6e-12); the decomposition alone gave 1e-14, 7e-13, 4e-10.

Blocks whose weights sum to exactly 0 without all being 0 (negative weights) have no mean
to center on: their D² is NaN (power >= 0).

:class:`SquaredLogState` holds, per output of 1-D or (n, m) targets, the weight total, the
count and the weighted sum of ``(log1p(y_true) - log1p(y_pred))**2``.

Both count the values outside the loss' domain (``BAD``) in the same pass: the state
records them and the derivations raise scikit-learn's error, worded for the metric asked
(the state does not know which one will be). States of one family merge by adding sums
(Tweedie states only of the same power).
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import NONZERO
from .._kernels import deviance as kernel
from .._threads import threads_for
from ..exceptions import invalid_parameter, warn, undefined_metric_warning
from . import base
from .sums import (average, check_multioutput, grouped_rows, n_outputs, nonfinite_input,
                   out, targets)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._typing import ArrayLike, MultiOutput

__all__ = [
    "SquaredLogState",
    "TweedieState",
    "check_power",
    "d2_tweedie",
    "gamma_deviance",
    "grouped_squared_log",
    "msle",
    "poisson_deviance",
    "rmsle",
    "tweedie_deviance",
]

_NO_WEIGHTS = np.empty(0)
_DOMAIN = {  # scikit-learn's requirement per form of the power
    kernel.FORM_EXTREME: "strictly positive y_pred.",
    kernel.FORM_POISSON: "non-negative y and strictly positive y_pred.",
    kernel.FORM_COMPOUND: "non-negative y and strictly positive y_pred.",
    kernel.FORM_GAMMA: "strictly positive y and y_pred.",
    kernel.FORM_POSITIVE: "strictly positive y and y_pred.",
}
_WEIGHTS_CANCEL = "Weights sum to zero, can't be normalized"


def check_power(power: object, function: str = "mean_tweedie_deviance") -> float:
    """scikit-learn's validation of the Tweedie ``power`` (a real <= 0 or >= 1): the power
    as given (an int stays an int, so messages print it as scikit-learn does)."""
    if not isinstance(power, numbers.Real) or not (float(power) <= 0 or float(power) >= 1) \
            or not math.isfinite(power):
        raise invalid_parameter(
            f"The 'power' parameter of {function} must be a float in the range (-inf, 0.0] "
            f"or a float in the range [1.0, inf). Got {power!r} instead.")
    if isinstance(power, bool):
        return int(power)
    if isinstance(power, numbers.Integral):
        return int(power)
    return float(power)


def _check_1d(yt: np.ndarray, function: str) -> None:
    if yt.ndim != 1:
        raise ValueError(f"Multioutput not supported in {function}")


def _pair(y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None,
          allow_empty: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(yt, yp, w)`` through the regression input policy; weights that are all zero
    raise scikit-learn's error here (weights that cancel out: when a metric divides)."""
    yt, yp, w = targets(y_true, y_pred, sample_weight, allow_empty=allow_empty)
    if w is not None and w.shape[0] and not allow_empty and not w.any():
        raise ValueError(NONZERO)
    return yt, yp, w


def _total(s: np.ndarray) -> float:
    """The weight total; ``ValueError`` / ``ZeroDivisionError`` as scikit-learn when 0."""
    w = s[kernel.W] if s.ndim == 1 else s[0, kernel.W]
    if w == 0:  # weights that are all zero were refused with the data
        raise ZeroDivisionError(_WEIGHTS_CANCEL)
    return float(w)


def _check_sums(s: np.ndarray) -> None:
    """The checks of loaded sums that every deviance state shares."""
    n = s[..., kernel.N].flat[0] if s.size else 0.0
    rows = s.reshape(-1, kernel.N_STATE)
    if n < 0 or n != math.floor(n) or n >= 2.0**53:
        raise base.StateError(f"the sample count must be a non-negative integer, got {n}")
    if (rows[:, kernel.N] != n).any() or (rows[:, kernel.W] != rows[0, kernel.W]).any():
        raise base.StateError("every output has the same count and weight total")
    bad = rows[0, kernel.BAD]
    if (bad < 0 or bad != math.floor(bad) or bad > n * rows.shape[0]
            or (rows[1:, kernel.BAD] != 0).any()):
        raise base.StateError(f"the count of values outside the domain is wrong: {bad}")
    if n == 0 and s.any():
        raise base.StateError("an empty deviance state must hold zero sums")
    finite = np.isfinite(np.delete(s, kernel.DM, axis=-1))  # DM may be NaN (kernel notes)
    if not finite.all() and not bad:  # only values outside the domain make NaN sums
        raise base.StateError("the sums of a deviance state must be finite")


# ---------------------------------------------------------------------- Tweedie


class TweedieState(base.State):
    """The Tweedie deviance sums of one or more passes, for one ``power``.

    Parameters
    ----------
    sums : ndarray of float64, shape (deviance.N_STATE,)
        The kernel's sums (slots named in ``deviance.pxd``).
    power : int or float
        The Tweedie power (<= 0 or >= 1).
    d2 : bool
        Whether it holds the sums of ``d2_tweedie_score``.
    weighted : bool
        Whether sample weights were given.

    See Also
    --------
    TweedieState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.TweedieAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.mean_poisson_deviance : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import TweedieState
    >>> s = TweedieState.from_arrays([2, 0], [0.5, 0.5], power=1)
    >>> (s + TweedieState.from_arrays([1, 4], [2.0, 2.0], power=1)).n_samples
    4
    """

    kind = "tweedie"
    __slots__ = ("sums", "power", "d2", "weighted")

    def __init__(self, sums: np.ndarray, power: float, d2: bool, weighted: bool) -> None:
        self.sums = sums
        self.power = power
        self.d2 = d2
        self.weighted = weighted

    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred: ArrayLike,
                    sample_weight: ArrayLike | None = None, n_threads: int | None = None, *,
                    power: float = 0, d2: bool = True, allow_empty: bool = False,
                    function: str = "mean_tweedie_deviance") -> TweedieState:
        """The sums of one kernel pass over 1-D targets (``function`` names the metric in
        scikit-learn's errors: several outputs, a bad ``power``). Values outside the
        power's domain are counted, not refused (the derivations refuse them).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True values.
        y_pred : array-like of shape (n_samples,)
            Predicted values.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        power : float, default=0
            The Tweedie power (<= 0 or >= 1).
        d2 : bool, default=True
            Also keep the sums of ``d2_tweedie_score``.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.
        function : str, default="mean_tweedie_deviance"
            The metric named in scikit-learn's errors.

        Returns
        -------
        state : TweedieState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input (lengths, NaN or infinity, several outputs, a bad ``power``), with
            scikit-learn's wording, and for empty input unless ``allow_empty``.

        See Also
        --------
        TweedieState.merge : The state of two chunks.
        fastmetrics.streaming.TweedieAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.mean_poisson_deviance : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import TweedieState
        >>> a = TweedieState.from_arrays([2, 0], [0.5, 0.5], power=1)
        >>> a.n_samples
        2
        """
        power = check_power(power, function)
        yt, yp, w = _pair(y_true, y_pred, sample_weight, allow_empty)
        _check_1d(yt, function)
        n = yt.shape[0]
        s = np.zeros(kernel.N_STATE)
        if n:
            kernel.tweedie(yt, yp, _NO_WEIGHTS if w is None else w, w is not None, power,
                           kernel.FLAG_D2 if d2 else 0, s, threads_for("deviance", n, n_threads))
            v = s.tolist()
            if not math.isfinite(v[kernel.W] + v[kernel.DEV] + v[kernel.SY] + v[kernel.T]
                                 + v[kernel.MEAN]):
                nonfinite_input(yt, yp, w)  # NaN sums also come from values off the domain
        return cls(s, power, bool(d2), w is not None)

    @property
    def n_samples(self) -> int:
        """The number of samples the state summarises."""
        return int(self.sums[kernel.N])

    def merge(self, other: TweedieState) -> TweedieState:
        """The state of both inputs: sums add (the spread by Chan et al.'s update); only
        states of the same power merge. An empty state is the identity.

        Parameters
        ----------
        other : TweedieState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : TweedieState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        TweedieState.from_arrays : The state of one chunk.
        fastmetrics.streaming.TweedieAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.mean_poisson_deviance : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import TweedieState
        >>> a = TweedieState.from_arrays([2, 0], [0.5, 0.5], power=1)
        >>> b = TweedieState.from_arrays([1, 4], [2.0, 2.0], power=1)
        >>> a.merge(b).n_samples
        4
        """
        self._check_mergeable(other)
        if float(self.power) != float(other.power):
            raise ValueError(f"cannot merge Tweedie states of different powers ({self.power} "
                             f"and {other.power})")
        if other.n_samples == 0:
            return self
        if self.n_samples == 0:
            return other
        s = self.sums.copy()
        kernel.merge(s, other.sums, float(self.power))
        d2 = self.d2 and other.d2
        if not d2:
            s[[kernel.SY, kernel.T, kernel.MEAN, kernel.DM, kernel.YMIN, kernel.YMAX]] = 0.0
        return TweedieState(s, self.power, d2, self.weighted or other.weighted)

    def _export(self) -> dict[str, Any]:
        return {"sums": self.sums.copy(), "power": self.power, "d2": bool(self.d2),
                "weighted": bool(self.weighted)}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> TweedieState:
        s = base.field(d, "sums", kinds="f", ndim=1, shape=(kernel.N_STATE,),
                       dtype=np.float64).copy()
        raw = d["power"] if "power" in d else None
        raw = raw.item() if isinstance(raw, (np.ndarray, np.generic)) else raw
        if isinstance(raw, bool) or not isinstance(raw, numbers.Real) \
                or not (float(raw) <= 0 or float(raw) >= 1):
            raise base.StateError(f"state field 'power' must be a number <= 0 or >= 1, got "
                                  f"{raw!r}")
        power = int(raw) if isinstance(raw, numbers.Integral) else float(raw)
        d2 = base.flag(d, "d2")
        weighted = base.flag(d, "weighted")
        _check_sums(s)
        n = s[kernel.N]
        if not d2 and s[[kernel.SY, kernel.T, kernel.MEAN, kernel.DM, kernel.YMIN,
                         kernel.YMAX]].any():
            raise base.StateError("a state without the D² sums must hold zeros there")
        if kernel.form_of(power) != kernel.FORM_EXTREME and (s[kernel.SY] or s[kernel.T]):
            raise base.StateError("a power >= 0 keeps MEAN and DM, not SY and T")
        if n and d2 and not s[kernel.YMIN] <= s[kernel.YMAX]:
            raise base.StateError("the smallest y_true exceeds the largest")
        if not weighted and n and s[kernel.W] != n:
            raise base.StateError("unweighted, the weight total must equal the count")
        return cls(s, power, d2, weighted)

    def __repr__(self) -> str:
        return (f"TweedieState(power={self.power}, n_samples={self.n_samples}, "
                f"weighted={self.weighted})")


def _domain(state: TweedieState) -> None:
    if state.sums[kernel.BAD]:
        form = kernel.form_of(state.power)
        raise ValueError(f"Mean Tweedie deviance error with power={state.power} can only be "
                         f"used on {_DOMAIN[form]}")


def tweedie_deviance(state: TweedieState) -> float:
    """Mean Tweedie deviance of the state's power."""
    _domain(state)
    return float(state.sums[kernel.DEV] / _total(state.sums))


def _of_power(state: TweedieState, power: int, function: str) -> float:
    if float(state.power) != power:
        raise ValueError(f"{function} is the Tweedie deviance of power {power}: this state "
                         f"has power {state.power} (accumulate with power={power})")
    return tweedie_deviance(state)


def poisson_deviance(state: TweedieState) -> float:
    """Mean Poisson deviance (a state of power 1)."""
    return _of_power(state, 1, "mean_poisson_deviance")


def gamma_deviance(state: TweedieState) -> float:
    """Mean Gamma deviance (a state of power 2)."""
    return _of_power(state, 2, "mean_gamma_deviance")


def _deviance_at_mean(state: TweedieState) -> float:
    """The summed deviance of ``y_true`` against its weighted mean (module notes)."""
    s = state.sums
    if s[kernel.YMIN] == s[kernel.YMAX]:  # a constant y_true is its own mean
        return float(s[kernel.W] * _constant_deviance(state.power, s[kernel.YMIN]))
    p = state.power
    if kernel.form_of(p) != kernel.FORM_EXTREME or math.isfinite(s[kernel.DM]):
        return float(s[kernel.DM])
    w, sy, t = np.float64(s[kernel.W]), np.float64(s[kernel.SY]), np.float64(s[kernel.T])
    mu = sy / w
    # numpy's power: a negative mean gives NaN with numpy's warning, as scikit-learn's
    return float(2 * (t / ((1 - p) * (2 - p)) - sy * np.power(mu, 1 - p) / (1 - p)
                      + w * np.power(mu, 2 - p) / (2 - p)))


def _constant_deviance(p: float, c: float) -> float:
    """The unit deviance of ``c`` against itself, by scikit-learn's numpy expression (so
    with its value and warnings: 0, or NaN where it takes 0 * inf)."""
    y, mu = np.array([c]), np.float64(c)
    if p < 0:
        dev = 2 * (np.power(np.where(y > 0, y, 0.0), 2 - p) / ((1 - p) * (2 - p))
                   - y * np.power(mu, 1 - p) / (1 - p) + np.power(mu, 2 - p) / (2 - p))
    elif p == 0:
        dev = (y - mu) ** 2
    elif p == 1:
        ratio = y / mu
        with np.errstate(divide="ignore", invalid="ignore"):
            xlogy = np.where(y == 0.0, 0.0, y * np.log(ratio))
        dev = 2 * (xlogy - y + mu)
    elif p == 2:
        dev = 2 * (np.log(mu / y) + y / mu - 1)
    else:
        dev = 2 * (np.power(y, 2 - p) / ((1 - p) * (2 - p)) - y * np.power(mu, 1 - p) / (1 - p)
                   + np.power(mu, 2 - p) / (2 - p))
    return float(dev[0])


def d2_tweedie(state: TweedieState) -> float:
    """D² score: the fraction of the Tweedie deviance explained, against the weighted mean
    of ``y_true``; NaN with ``UndefinedMetricWarning`` for fewer than two samples, and
    scikit-learn's ``ZeroDivisionError`` for a constant ``y_true``."""
    if not state.d2:
        raise ValueError("this Tweedie state holds no D² sums (build it with d2=True)")
    if state.n_samples < 2:
        warn("D^2 score is not well-defined with less than two samples.",
             undefined_metric_warning())
        return float("nan")
    numerator = tweedie_deviance(state)
    denominator = _deviance_at_mean(state) / _total(state.sums)
    return 1 - numerator / denominator


# ---------------------------------------------------------------------- squared log


class SquaredLogState(base.OutputSums):
    """The squared logarithmic error sums of one or more passes, per output.

    Parameters
    ----------
    sums : ndarray of float64, shape (deviance.N_STATE,) or (n_outputs, deviance.N_STATE)
        The kernel's sums: ``W``, ``N``, ``DEV`` (the squared log errors), ``BAD`` (values
        <= -1, in the first output's row).
    weighted : bool
        Whether sample weights were given.

    See Also
    --------
    SquaredLogState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.SquaredLogAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.mean_squared_log_error : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import SquaredLogState
    >>> s = SquaredLogState.from_arrays([3, 5], [2.5, 5])
    >>> (s + SquaredLogState.from_arrays([2.5, 7], [4, 8])).n_samples
    4
    """

    kind = "squared_log"
    count_slot = kernel.N
    __slots__ = ()

    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_pred: ArrayLike,
                    sample_weight: ArrayLike | None = None, n_threads: int | None = None, *,
                    allow_empty: bool = False) -> SquaredLogState:
        """The sums of one kernel pass over 1-D or (n, m) targets (read in place, any
        strides). Values <= -1 are counted, not refused (the derivations refuse them).

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

        Returns
        -------
        state : SquaredLogState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording where it has one (lengths, NaN or infinity,
            shapes, dtypes), and for empty input unless ``allow_empty``.

        See Also
        --------
        State.merge : The state of two chunks (``a + b``).
        fastmetrics.streaming.SquaredLogAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.mean_squared_log_error : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import SquaredLogState
        >>> a = SquaredLogState.from_arrays([3, 5], [2.5, 5])
        >>> a.n_samples
        2
        """
        yt, yp, w = _pair(y_true, y_pred, sample_weight, allow_empty)
        n, m = yt.shape[0], n_outputs(yt)
        s = np.zeros((m, kernel.N_STATE))
        if n:
            # a 1-D target is read as an (n, 1) view: one kernel for both
            kernel.squared_log(yt if yt.ndim == 2 else yt[:, None],
                               yp if yp.ndim == 2 else yp[:, None],
                               _NO_WEIGHTS if w is None else w, w is not None, s,
                               threads_for("deviance", n * m, n_threads))
            if not math.isfinite(float(s[:, kernel.DEV].sum() + s[0, kernel.W])):
                nonfinite_input(yt, yp, w)
        return cls(s[0].copy() if yt.ndim == 1 else s, w is not None)

    def _export(self) -> dict[str, Any]:
        return {"sums": self.sums.copy(), "weighted": bool(self.weighted)}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> SquaredLogState:
        nd = 2 if hasattr(d, "keys") and "sums" in d and np.ndim(d["sums"]) == 2 else 1
        s = base.field(d, "sums", kinds="f", ndim=nd, shape=(-1, kernel.N_STATE)[-nd:],
                       dtype=np.float64).copy()
        if nd == 2 and s.shape[0] < 2:
            raise base.StateError("a multioutput squared log state has 2 outputs or more")
        weighted = base.flag(d, "weighted")
        _check_sums(s)
        unused = [kernel.SY, kernel.T, kernel.MEAN, kernel.DM, kernel.YMIN, kernel.YMAX]
        if s[..., unused].any():
            raise base.StateError("a squared log state holds no D² sums")
        n = s[..., kernel.N].flat[0]
        if n and not weighted and (s[..., kernel.W].flat[0] != n
                                   or (s[..., kernel.DEV] < 0).any()):
            raise base.StateError("unweighted, the weight total is the count and the "
                                  "squared errors are non-negative")
        return cls(s, weighted)


def grouped_squared_log(codes: np.ndarray, n_groups: int, y_true: ArrayLike,
                        y_pred: ArrayLike, sample_weight: ArrayLike | None
                        ) -> list[SquaredLogState] | None:
    """Each group's squared log state (its counts of rows and of values <= -1 those of
    :meth:`SquaredLogState.from_arrays` of its rows, its sum to rounding) from one pass over
    every row, or None where that pass does not apply
    (:func:`~fastmetrics._states.sums.grouped_rows`).

    Examples
    --------
    >>> import numpy as np
    >>> states = grouped_squared_log(np.array([0, 1, 0]), 2, [3.0, 5.0, 1.0],
    ...                              [3.0, 4.0, 1.0], None)
    >>> [s.n_samples for s in states]
    [2, 1]
    """
    s = grouped_rows(codes, n_groups, y_true, y_pred, sample_weight, kernel.N_STATE,
                     kernel.grouped_squared_log, kernel.DEV, kernel.N)
    return None if s is None else [SquaredLogState(row.copy(), False) for row in s]


def _per_output(state: SquaredLogState, multioutput: MultiOutput, root: bool,
                function: str) -> Any:
    if type(multioutput) is not str or multioutput not in ("raw_values", "uniform_average"):
        check_multioutput(multioutput, outputs=state.n_outputs)
    if state.sums[..., kernel.BAD].flat[0]:
        raise ValueError(f"{function} cannot be used when targets contain values less than "
                         "or equal to -1.")
    values = state.sums[..., kernel.DEV] / _total(state.sums)
    if root:
        values = np.sqrt(values)
    if state.sums.ndim == 1:
        return out(float(values), multioutput)
    return average(values, multioutput)


def msle(state: SquaredLogState, multioutput: MultiOutput = "uniform_average") -> Any:
    """Mean squared logarithmic error per output, averaged as ``multioutput`` says."""
    return _per_output(state, multioutput, False, "Mean Squared Logarithmic Error")


def rmsle(state: SquaredLogState, multioutput: MultiOutput = "uniform_average") -> Any:
    """Root mean squared logarithmic error per output, averaged as ``multioutput`` says."""
    return _per_output(state, multioutput, True, "Root Mean Squared Logarithmic Error")
