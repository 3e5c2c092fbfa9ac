"""The quantile states: a mergeable log-bucket sketch, the exact form that keeps every value,
and the quantiles derived from either.

The sketch (DDSketch-style) counts every value ``x`` in the bucket
``i = ceil(log_gamma(|x|))`` with ``gamma = (1 + alpha) / (1 - alpha)``: positive and
negative values in a store each (a dense window of ``max_buckets`` counts ending at the
store's highest bucket), zeros in a counter. A bucket is reported as ``2 gamma**i / (gamma +
1)``, within ``alpha`` (relatively) of any value of the bucket. When a store's values span
more than ``max_buckets`` buckets its lowest buckets are collapsed into the window's lowest
slot; a value's slot is ``max(i, hi - max_buckets + 1)`` whatever the order of the values,
so the counts of any split of the data, merged in any order, are identical.

The meta array the kernel fills has the slots of ``_kernels/sketch.pxd`` (``kernel.POS_HI``
...), the exported form names them (``pos_hi``...), so a file written today stays readable if
the kernel's layout changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import native, nonfinite_error
from .._kernels import sketch as kernel
from .. import _order
from . import base

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._typing import ArrayLike, QuantileMethod, Quantiles

__all__ = [
    "METHODS",
    "ExactQuantileState",
    "QuantileResult",
    "RunningSketch",
    "SketchState",
    "probabilities",
    "quantiles",
    "real_values",
    "settings",
]

#: the numpy methods the sketch follows (the others interpolate in ways a bucket cannot)
METHODS = ("linear", "lower", "higher", "nearest")
_I64 = 1 << 63


def settings(relative_accuracy: object, max_buckets: object) -> tuple[float, int]:
    """``(relative_accuracy, max_buckets)`` checked: a number in (0, 1) whose ``gamma`` is
    above 1 in float64, and an int >= 1. ``ValueError`` otherwise."""
    a = relative_accuracy
    if isinstance(a, bool) or not isinstance(a, (int, float, np.floating)) or not 0 < a < 1:
        raise ValueError(f"relative_accuracy must be a number in (0, 1), got {a!r}")
    if _gamma(float(a)) <= 1.0:  # log(gamma) would be 0: no bucket index
        raise ValueError(f"relative_accuracy {a!r} is too small: (1 + a) / (1 - a) rounds to 1")
    if isinstance(max_buckets, bool) or not isinstance(max_buckets, (int, np.integer)) \
            or max_buckets < 1:
        raise ValueError(f"max_buckets must be an int >= 1, got {max_buckets!r}")
    return float(a), int(max_buckets)


def _gamma(alpha: float) -> float:
    return (1.0 + alpha) / (1.0 - alpha)


def real_values(values: ArrayLike) -> np.ndarray:
    """``values`` (any real dtype, any shape) as a 1-D array; ``TypeError`` for others."""
    a = values if type(values) is np.ndarray else np.asarray(values)
    if a.dtype.kind not in "iufb":
        raise TypeError(f"values must be real numbers, got dtype {a.dtype}")
    return a if a.ndim == 1 else a.reshape(-1)


def _nonfinite(a: np.ndarray, first: int) -> ValueError:
    return nonfinite_error(a, "values", detail=f"first NaN or infinity at index {first}")


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)  # states are values: merges share arrays, nobody writes them
    return a


# ---------------------------------------------------------------------- the sketch


def _count_into(values: ArrayLike, alpha: float, pos: np.ndarray, neg: np.ndarray,
                meta: np.ndarray, minmax: np.ndarray) -> int:
    """One kernel pass counting ``values`` into the stores in place; the number counted.
    NaN or infinity raises ``ValueError`` with the stores untouched."""
    a = real_values(values)
    if a.dtype.kind not in "fi" or a.dtype.itemsize not in (4, 8):
        a = a.astype(np.float64)  # the kernel reads float32/64 and int32/64 in place
    a = native(a)
    bad = kernel.add(a, 1.0 / math.log(_gamma(alpha)), pos, neg, meta, minmax)
    if bad >= 0:
        raise _nonfinite(a, bad)
    n: int = a.shape[0]
    return n


class SketchState(base.State):
    """Log-bucket counts of real values: a quantile sketch with relative error ``alpha``.

    Parameters
    ----------
    pos, neg : ndarray of int64 of shape (max_buckets,)
        Counts of the positive and negative values' buckets: slot ``k`` of a store is the
        bucket ``hi - max_buckets + 1 + k`` (its slot 0 also holds the collapsed buckets).
    meta : ndarray of int64 of shape (``kernel.N_META``,)
        Per store its highest bucket, its count and its lowest bucket ever seen (slots
        ``kernel.POS_HI``, ``POS_N``, ``POS_LO``, ``NEG_HI``...), and the zero count
        (``kernel.ZEROS``); 0 for the buckets of an empty store.
    lo, hi : float
        The exact smallest and largest value (0.0 when empty; the ``min`` and ``max``
        attributes).
    relative_accuracy : float
        ``alpha``; ``gamma = (1 + alpha) / (1 - alpha)``.
    n_samples : int
        Values counted.

    See Also
    --------
    SketchState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.QuantileAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.quantile : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import SketchState
    >>> s = SketchState.from_arrays([1.0, 2.0, 0.0]) + SketchState.from_arrays([-4.0])
    >>> s.n_samples, s.min, s.max, s.collapsed
    (4, -4.0, 2.0, False)
    """

    kind = "sketch"
    n_samples: int  # a slot here, where State declares a read-only property
    __slots__ = ("pos", "neg", "meta", "min", "max", "relative_accuracy", "n_samples")

    def __init__(self, pos: np.ndarray, neg: np.ndarray, meta: np.ndarray, lo: float,
                 hi: float, relative_accuracy: float, n_samples: int) -> None:
        self.pos = _readonly(pos)
        self.neg = _readonly(neg)
        self.meta = _readonly(meta)
        self.min = lo
        self.max = hi
        self.relative_accuracy = relative_accuracy
        self.n_samples = n_samples

    @classmethod
    def from_arrays(cls, values: ArrayLike, relative_accuracy: float = 0.01,
                    max_buckets: int = 2048) -> SketchState:
        """Count ``values`` (any real dtype, raveled) in one kernel pass. NaN or infinity
        raises ``ValueError``.

        Parameters
        ----------
        values : array-like
            Real values (any dtype, raveled).
        relative_accuracy : float, default=0.01
            ``alpha``: every quantile is within a factor ``1 +- alpha`` of a value of the data.
        max_buckets : int, default=2048
            Buckets per sign; beyond, the lowest buckets are collapsed.

        Returns
        -------
        state : SketchState
            The state of these samples.

        Raises
        ------
        ValueError
            If a value is NaN or infinite, or ``relative_accuracy`` or ``max_buckets`` is out of
            range.

        See Also
        --------
        SketchState.merge : The state of two chunks.
        fastmetrics.streaming.QuantileAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.quantile : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import SketchState
        >>> a = SketchState.from_arrays([1.0, 2.0, 0.0])
        >>> a.n_samples
        3
        """
        alpha, cap = settings(relative_accuracy, max_buckets)
        return cls._counted(values, np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64),
                            np.zeros(kernel.N_META, dtype=np.int64), None, alpha)

    def extended(self, values: ArrayLike) -> SketchState:
        """This state with ``values`` counted in: the counts of ``self.merge(
        SketchState.from_arrays(values, ...))`` in one kernel pass over copies of the stores
        (no second pair of stores to build and shift).

        Parameters
        ----------
        values : array-like
            Real values to count in.

        Returns
        -------
        state : SketchState
            A new state; this one is not modified.

        Raises
        ------
        ValueError
            If a value is NaN or infinite.

        See Also
        --------
        SketchState.merge : The same with a state.
        fastmetrics.streaming.QuantileAccumulator : Uses it on every update.

        Examples
        --------
        >>> from fastmetrics.states import SketchState
        >>> SketchState.from_arrays([1.0, 2.0]).extended([3.0]).n_samples
        3
        """
        return self._counted(values, self.pos.copy(), self.neg.copy(), self.meta.copy(), self,
                             self.relative_accuracy)

    @classmethod
    def _counted(cls, values: ArrayLike, pos: np.ndarray, neg: np.ndarray, meta: np.ndarray,
                 start: SketchState | None, alpha: float) -> SketchState:
        """The kernel pass over ``values`` into the stores ``pos`` / ``neg`` / ``meta``
        (empty, or copies of ``start``'s)."""
        minmax = (np.array([start.min, start.max]) if start is not None and start.n_samples
                  else np.array([np.inf, -np.inf]))
        n = _count_into(values, alpha, pos, neg, meta, minmax)
        n += start.n_samples if start is not None else 0
        lo, hi = minmax.tolist() if n else (0.0, 0.0)
        return cls(pos, neg, meta, lo, hi, alpha, n)

    # ------------------------------------------------------------------ properties
    @property
    def max_buckets(self) -> int:
        """Buckets per sign before the lowest are collapsed."""
        return int(self.pos.shape[0])

    @property
    def gamma(self) -> float:
        """The bucket ratio ``(1 + alpha) / (1 - alpha)``."""
        return _gamma(self.relative_accuracy)

    @property
    def collapsed(self) -> bool:
        """Whether a store ever spanned more than ``max_buckets`` buckets."""
        m, cap = self.meta, self.max_buckets
        return bool((m[kernel.POS_N] > 0 and m[kernel.POS_LO] < m[kernel.POS_HI] - cap + 1)
                    or (m[kernel.NEG_N] > 0 and m[kernel.NEG_LO] < m[kernel.NEG_HI] - cap + 1))

    # ------------------------------------------------------------------ merge
    def merge(self, other: SketchState) -> SketchState:
        """The sketch of both inputs' values: integer shifts of the stores, exact for any
        count (no float64 rounding above 2**53).

        Parameters
        ----------
        other : SketchState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : SketchState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        SketchState.from_arrays : The state of one chunk.
        fastmetrics.streaming.QuantileAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.quantile : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import SketchState
        >>> a = SketchState.from_arrays([1.0, 2.0, 0.0])
        >>> b = SketchState.from_arrays([-4.0])
        >>> a.merge(b).min
        -4.0
        """
        self._check_mergeable(other)
        if (self.relative_accuracy, self.max_buckets) != (other.relative_accuracy,
                                                          other.max_buckets):
            raise ValueError(
                "cannot merge sketches with different relative_accuracy / max_buckets "
                f"({self.relative_accuracy}, {self.max_buckets} vs "
                f"{other.relative_accuracy}, {other.max_buckets})")
        if other.n_samples == 0:
            return self
        if self.n_samples == 0:
            return other
        m, o = self.meta, other.meta
        meta = np.zeros(kernel.N_META, dtype=np.int64)
        stores = []
        for a, b, HI, N, LO in ((self.pos, other.pos, kernel.POS_HI, kernel.POS_N, kernel.POS_LO),
                                (self.neg, other.neg, kernel.NEG_HI, kernel.NEG_N, kernel.NEG_LO)):
            out, meta[HI] = _merge_store(a, m[HI], m[N], b, o[HI], o[N])
            stores.append(out)
            meta[N] = m[N] + o[N]
            # the lowest bucket ever seen, an empty store's (0) not counting
            meta[LO] = o[LO] if not m[N] else m[LO] if not o[N] else min(m[LO], o[LO])
        meta[kernel.ZEROS] = m[kernel.ZEROS] + o[kernel.ZEROS]
        return SketchState(stores[0], stores[1], meta, min(self.min, other.min),
                           max(self.max, other.max), self.relative_accuracy,
                           self.n_samples + other.n_samples)

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        m = self.meta
        return {"pos": self.pos, "neg": self.neg,
                "pos_hi": int(m[kernel.POS_HI]), "pos_lo": int(m[kernel.POS_LO]),
                "neg_hi": int(m[kernel.NEG_HI]), "neg_lo": int(m[kernel.NEG_LO]),
                "zeros": int(m[kernel.ZEROS]), "min": self.min, "max": self.max,
                "relative_accuracy": self.relative_accuracy, "max_buckets": self.max_buckets,
                "n_samples": int(self.n_samples)}

    @classmethod
    def from_legacy(cls, pos: ArrayLike, neg: ArrayLike, meta: ArrayLike, minmax: ArrayLike,
                    relative_accuracy: float, max_buckets: int,
                    n_samples: int) -> SketchState:
        """The state of a fastmetrics 0.1 accumulator's arrays (its stores, the kernel's
        meta slots and the min/max), through the same checks as any exported state.

        Parameters
        ----------
        pos : ndarray of int64
            The positive values' bucket store.
        neg : ndarray of int64
            The negative values' bucket store.
        meta : ndarray of int64
            The kernel's meta slots.
        minmax : ndarray of float64 of shape (2,)
            The smallest and largest value.
        relative_accuracy : float
            ``alpha``.
        max_buckets : int
            Buckets per sign.
        n_samples : int
            Values counted.

        Returns
        -------
        state : SketchState
            The state, checked as any loaded state.

        Raises
        ------
        StateError
            If the arrays break an invariant.

        See Also
        --------
        State.from_dict : The current exported form.

        Examples
        --------
        >>> from fastmetrics.states import SketchState
        >>> s = SketchState.from_arrays([1.0, 2.0])
        >>> SketchState.from_legacy(s.pos, s.neg, s.meta, [s.min, s.max], s.relative_accuracy,
        ...                         s.max_buckets, s.n_samples).n_samples
        2
        """
        meta, minmax = np.asarray(meta), np.asarray(minmax)
        return cls.from_dict({
            "kind": cls.kind, "format": base.FORMAT, "pos": pos, "neg": neg,
            "pos_hi": meta[kernel.POS_HI], "pos_lo": meta[kernel.POS_LO],
            "neg_hi": meta[kernel.NEG_HI], "neg_lo": meta[kernel.NEG_LO],
            "zeros": meta[kernel.ZEROS], "min": minmax[0], "max": minmax[1],
            "relative_accuracy": relative_accuracy, "max_buckets": max_buckets,
            "n_samples": n_samples})

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> SketchState:
        try:
            alpha, cap = settings(base.number(d, "relative_accuracy"),
                                  base.integer(d, "max_buckets", minimum=1))
        except ValueError as exc:
            raise base.StateError(str(exc)) from None
        n = base.integer(d, "n_samples")
        zeros = _int64(d, "zeros", 0)
        meta = np.zeros(kernel.N_META, dtype=np.int64)
        meta[kernel.ZEROS] = zeros
        stores, total = [], zeros
        for name, HI, N, LO in (("pos", kernel.POS_HI, kernel.POS_N, kernel.POS_LO),
                                ("neg", kernel.NEG_HI, kernel.NEG_N, kernel.NEG_LO)):
            store = _counts(d, name, cap)
            count = int(store.sum(dtype=object))  # Python ints: a tampered sum cannot wrap
            hi, lo = _int64(d, f"{name}_hi", None), _int64(d, f"{name}_lo", None)
            _check_store(name, store, count, hi, lo)
            meta[HI], meta[N], meta[LO] = hi, count, lo
            stores.append(store)
            total += count
        if total != n:
            raise base.StateError(
                f"the stores and zeros count {total} values, n_samples says {n}")
        vmin, vmax = base.number(d, "min"), base.number(d, "max")
        _check_extremes(vmin, vmax, int(meta[kernel.POS_N]), int(meta[kernel.NEG_N]), zeros)
        for v, name, HI in ((vmax, "pos", kernel.POS_HI), (-vmin, "neg", kernel.NEG_HI)):
            if v > 0 and _bucket(v, alpha) != meta[HI]:
                raise base.StateError(
                    f"{name}_hi is {meta[HI]}, but the largest magnitude {v!r} lies in "
                    f"bucket {_bucket(v, alpha)}")
        return cls(stores[0], stores[1], meta, vmin, vmax, alpha, n)


class RunningSketch:
    """The mutable stores a stream counts into in place (a :class:`SketchState` is
    read-only): a small chunk costs one kernel pass, no copy of the stores. The owner
    serialises :meth:`add` and :meth:`snapshot`.

    Examples
    --------
    >>> r = RunningSketch(None, 0.01, 2048)
    >>> r.add([1.0, 2.0]), r.add([-4.0]), r.snapshot().n_samples
    (2, 1, 3)
    """

    __slots__ = ("pos", "neg", "meta", "minmax", "n_samples", "relative_accuracy")

    def __init__(self, start: SketchState | None, relative_accuracy: float, max_buckets: int):
        if start is not None and start.n_samples:
            self.pos, self.neg, self.meta = start.pos.copy(), start.neg.copy(), start.meta.copy()
            self.minmax = np.array([start.min, start.max])
            self.n_samples = start.n_samples
        else:
            self.pos = np.zeros(max_buckets, dtype=np.int64)
            self.neg = np.zeros(max_buckets, dtype=np.int64)
            self.meta = np.zeros(kernel.N_META, dtype=np.int64)
            self.minmax = np.array([np.inf, -np.inf])
            self.n_samples = 0
        self.relative_accuracy = relative_accuracy

    def add(self, values: ArrayLike) -> int:
        """Count ``values`` in; the number counted. NaN or infinity raises ``ValueError``
        and counts nothing."""
        n = _count_into(values, self.relative_accuracy, self.pos, self.neg, self.meta,
                        self.minmax)
        self.n_samples += n
        return n

    def snapshot(self) -> SketchState:
        """The state of everything counted so far (copies of the stores)."""
        lo, hi = self.minmax.tolist() if self.n_samples else (0.0, 0.0)
        return SketchState(self.pos.copy(), self.neg.copy(), self.meta.copy(), lo, hi,
                           self.relative_accuracy, self.n_samples)


def _merge_store(a: np.ndarray, hi_a: int, n_a: int, b: np.ndarray, hi_b: int, n_b: int
                 ) -> tuple[np.ndarray, int]:
    """Two stores as one (the kernel's rule: bucket ``i`` in slot ``max(i, hi - cap + 1)``
    of the window ending at ``hi``)."""
    if n_b == 0:
        return a, hi_a
    if n_a == 0:
        return b, hi_b
    cap = a.shape[0]
    hi = max(hi_a, hi_b)
    out = np.zeros(cap, dtype=np.int64)
    for store, h in ((a, hi_a), (b, hi_b)):
        # slot k of a store ending at h lands at k - d in the window ending at hi (d = hi -
        # h), the slots below d in its lowest slot: integer shifts, exact for any count
        d = int(min(hi - h, cap))
        out[:cap - d] += store[d:]
        out[0] += store[:d].sum()
    return out, hi


def _bucket(v: float, alpha: float) -> int:
    """The bucket of the positive value ``v``, computed by the kernel itself (so that its
    rounding is the one the counts were made with)."""
    pos, neg = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    meta = np.zeros(kernel.N_META, dtype=np.int64)
    kernel.add(np.array([v]), 1.0 / math.log(_gamma(alpha)), pos, neg, meta,
               np.array([np.inf, -np.inf]))
    return int(meta[kernel.POS_HI])


def _int64(d: Mapping[str, Any], key: str, minimum: int | None) -> int:
    v = base.integer(d, key, minimum=minimum)
    if not -_I64 <= v < _I64:
        raise base.StateError(f"state field {key!r} does not fit int64: {v}")
    return v


def _counts(d: Mapping[str, Any], key: str, cap: int) -> np.ndarray:
    """A store: ``cap`` non-negative integer counts (int64)."""
    a = base.field(d, key, kinds="iu", ndim=1, shape=(cap,))
    if a.dtype.kind == "u" and a.size and int(a.max()) >= _I64:
        raise base.StateError(f"state field {key!r} holds counts that do not fit int64")
    a = a.astype(np.int64)  # a copy: the state never shares the caller's arrays
    if a.size and int(a.min()) < 0:
        raise base.StateError(f"state field {key!r} holds negative counts")
    return a


def _check_store(name: str, store: np.ndarray, count: int, hi: int, lo: int) -> None:
    """Buckets that agree with the counts: none for an empty store; else the highest
    bucket counted in the last slot, and the lowest counted slot at the lowest bucket ever
    seen (or slot 0 when buckets were collapsed)."""
    cap = store.shape[0]
    if count >= _I64:
        raise base.StateError(f"the {name} store counts {count} values: more than int64 holds")
    if count == 0:
        if hi or lo:
            raise base.StateError(f"the {name} store is empty but {name}_hi / {name}_lo are "
                                  f"{hi} / {lo} (0 / 0 expected)")
        return
    if lo > hi or hi - cap + 1 < -_I64:
        raise base.StateError(f"{name}_lo {lo} / {name}_hi {hi} do not fit a store")
    if store[cap - 1] == 0:
        raise base.StateError(f"the {name} store's last slot (bucket {name}_hi) is empty")
    first = int(np.flatnonzero(store)[0])
    if first != max(lo - (hi - cap + 1), 0):
        raise base.StateError(
            f"the {name} store's lowest count is in slot {first}, but {name}_lo = {lo} and "
            f"{name}_hi = {hi} put it in slot {max(lo - (hi - cap + 1), 0)}")


def _check_extremes(lo: float, hi: float, n_pos: int, n_neg: int, zeros: int) -> None:
    """min and max agree with the counts: 0.0 / 0.0 when empty, else min <= max with the
    signs the counts give (min < 0 exactly when there are negatives, and so on)."""
    if n_pos + n_neg + zeros == 0:
        if lo != 0.0 or hi != 0.0:
            raise base.StateError(f"an empty sketch has min = max = 0.0, got {lo!r}, {hi!r}")
        return
    want_lo = -1 if n_neg else 0 if zeros else 1
    want_hi = 1 if n_pos else 0 if zeros else -1
    if lo > hi or np.sign(lo) != want_lo or np.sign(hi) != want_hi:
        raise base.StateError(
            f"min {lo!r} / max {hi!r} disagree with the counts ({n_neg} negative, {zeros} "
            f"zero, {n_pos} positive values)")


# ---------------------------------------------------------------------- every value


class ExactQuantileState(base.State):
    """Every value seen (O(N) memory), for numpy's exact quantiles.

    The values are kept as the chunks they came in (read-only copies): a merge joins the
    two inputs' chunks in O(1), so streaming many chunks stays linear; they are concatenated
    when quantiles are asked for (and on export).

    Parameters
    ----------
    parts : tuple of ndarray
        The values, chunk by chunk (read-only).
    n_samples : int
        The number of values.

    See Also
    --------
    ExactQuantileState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.QuantileAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.quantile : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import ExactQuantileState
    >>> s = ExactQuantileState.from_arrays([3, 1]) + ExactQuantileState.from_arrays([2])
    >>> s.n_samples, s.values
    (3, array([3, 1, 2]))
    """

    kind = "exact_quantile"
    n_samples: int  # a slot here, where State declares a read-only property
    __slots__ = ("parts", "n_samples")

    def __init__(self, parts: Any, n_samples: int) -> None:
        self.parts = parts  # an array, or a pair of parts: a tree merged in O(1)
        self.n_samples = n_samples

    @classmethod
    def from_arrays(cls, values: ArrayLike) -> ExactQuantileState:
        """A copy of ``values`` (any real dtype, raveled). NaN or infinity raises
        ``ValueError``.

        Parameters
        ----------
        values : array-like
            Real values (any dtype, raveled).

        Returns
        -------
        state : ExactQuantileState
            The state of these samples.

        Raises
        ------
        ValueError
            If a value is NaN or infinite.

        See Also
        --------
        ExactQuantileState.merge : The state of two chunks.
        fastmetrics.streaming.QuantileAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.quantile : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import ExactQuantileState
        >>> a = ExactQuantileState.from_arrays([3, 1])
        >>> a.n_samples
        2
        """
        a = real_values(values)
        if a.dtype.kind == "f" and a.size and not np.isfinite(a).all():
            raise _nonfinite(a, int(np.flatnonzero(~np.isfinite(a))[0]))
        return cls(_readonly(a.copy()), int(a.shape[0]))

    @property
    def values(self) -> np.ndarray:
        """Every value, in the order seen (numpy's promotion of the chunks' dtypes)."""
        chunks, stack = [], [self.parts]
        while stack:  # a loop, not recursion: a long fold of merges is a deep tree
            p = stack.pop()
            if isinstance(p, tuple):
                stack.extend(reversed(p))
            else:
                chunks.append(p)
        return chunks[0].copy() if len(chunks) == 1 else np.concatenate(chunks)

    def merge(self, other: ExactQuantileState) -> ExactQuantileState:
        """The values of both inputs (this one's first).

        Parameters
        ----------
        other : ExactQuantileState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : ExactQuantileState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        ExactQuantileState.from_arrays : The state of one chunk.
        fastmetrics.streaming.QuantileAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.quantile : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import ExactQuantileState
        >>> a = ExactQuantileState.from_arrays([3, 1])
        >>> b = ExactQuantileState.from_arrays([2])
        >>> a.merge(b).values
        array([3, 1, 2])
        """
        self._check_mergeable(other)
        if other.n_samples == 0:
            return self
        if self.n_samples == 0:
            return other
        return ExactQuantileState((self.parts, other.parts), self.n_samples + other.n_samples)

    def _export(self) -> dict[str, Any]:
        return {"values": self.values}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> ExactQuantileState:
        a = base.field(d, "values", kinds="iufb", ndim=1)
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise base.StateError("state field 'values' holds NaN or infinity")
        return cls(_readonly(np.array(a)), int(a.shape[0]))


# ---------------------------------------------------------------------- derivations


@dataclass(frozen=True)
class QuantileResult:
    """Quantiles from a :class:`QuantileAccumulator`.

    Parameters
    ----------
    q : ndarray
        The probabilities asked for, in [0, 1].
    values : ndarray
        The quantiles (float64).
    method : str
        numpy's ``method`` they follow.
    mode : {"exact", "sketch"}
        Whether the values are exact or a sketch's estimates.
    relative_accuracy : float or None
        Sketch mode: the guaranteed relative error ``alpha`` (None when exact).
    n_samples : int
        Number of values seen.
    min, max : float
        Exact smallest and largest values seen.
    guarantee : str
        What the numbers promise, in words.

    See Also
    --------
    fastmetrics.streaming.QuantileAccumulator.result : What builds it.

    Examples
    --------
    >>> from fastmetrics.streaming import QuantileAccumulator
    >>> r = QuantileAccumulator(mode="exact").update([1.0, 2.0, 3.0]).result([0.5])
    >>> r.values.tolist(), r.mode, r.min, r.max
    ([2.0], 'exact', 1.0, 3.0)
    """

    q: np.ndarray
    values: np.ndarray
    method: str
    mode: str
    relative_accuracy: float | None
    n_samples: int
    min: float
    max: float
    guarantee: str

    def as_dict(self) -> dict[float, float]:
        """``{q: value}``.

        Returns
        -------
        dict
            Each probability asked for -> its quantile, as Python floats.

        See Also
        --------
        fastmetrics.streaming.QuantileAccumulator.result : The quantiles' source.

        Examples
        --------
        >>> from fastmetrics.streaming import QuantileAccumulator
        >>> QuantileAccumulator(mode="exact").update([1.0, 3.0]).result([0.5, 1.0]).as_dict()
        {0.5: 2.0, 1.0: 3.0}
        """
        return {float(a): float(b) for a, b in zip(self.q, self.values)}


QuantileResult.__module__ = "fastmetrics.streaming"  # its public home (reprs, pickles)


def probabilities(q: Quantiles) -> np.ndarray:
    """``q`` as a non-empty 1-D float64 array of probabilities in [0, 1]."""
    qa = np.atleast_1d(np.asarray(q, dtype=np.float64))
    if qa.ndim != 1 or qa.size == 0 or not np.all((qa >= 0) & (qa <= 1)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    return qa


def quantiles(state: SketchState | ExactQuantileState, q: Quantiles = (0.5, 0.9, 0.95, 0.99),
              method: QuantileMethod = "linear") -> QuantileResult:
    """The quantiles ``q`` of a quantile state, as :class:`QuantileResult`.

    An :class:`ExactQuantileState` gives numpy's values for any of numpy's methods; a
    :class:`SketchState` follows ``method`` "linear", "lower", "higher" or "nearest", each
    value within ``relative_accuracy`` of numpy's ("linear": when the two order statistics
    it interpolates have the same sign).
    """
    qa = probabilities(q)
    if state.n_samples == 0:
        raise ValueError("no samples: the quantiles of an empty state are undefined")
    if isinstance(state, ExactQuantileState):
        x = state.values
        _order.check_method(method)
        v = np.asarray(_order.quantile_of(x, qa, method), dtype=np.float64)
        return QuantileResult(qa, v, method, "exact", None, state.n_samples,
                              float(x.min()), float(x.max()),
                              "exact: numpy's quantile of every value seen (O(N) memory)")
    if method not in METHODS:
        raise ValueError(f"sketch mode supports method in {METHODS}, got {method!r}")
    vals, counts = _buckets(state)
    cum = np.cumsum(counts)
    idx = qa * (state.n_samples - 1)
    lo, hi = state.min, state.max

    def at(rank: Any) -> Any:  # the value of the order statistic ``rank`` (0-based)
        return np.clip(vals[np.searchsorted(cum, rank, side="right")], lo, hi)

    below = np.floor(idx)
    if method == "lower":
        v = at(below)
    elif method == "higher":
        v = at(np.ceil(idx))
    elif method == "nearest":
        v = at(np.around(idx))
    else:
        frac = idx - below
        a, b = at(below), at(np.ceil(idx))
        v = a + frac * (b - a)
    alpha = state.relative_accuracy
    collapsed = ("LOWEST BUCKETS COLLAPSED: the smallest magnitudes are overestimated; "
                 if state.collapsed else "")
    return QuantileResult(
        qa, v.astype(np.float64), method, "sketch", alpha, state.n_samples, lo, hi,
        f"sketch: each value within {alpha:g} relative of numpy's (method={method!r}); "
        f"{collapsed}memory {2 * state.max_buckets} counts",
    )


def _buckets(state: SketchState) -> tuple[np.ndarray, np.ndarray]:
    """Representative values (increasing) and their counts over both stores and zero."""
    cap, g, m = state.max_buckets, state.gamma, state.meta

    def rep(store: np.ndarray, hi: int) -> tuple[np.ndarray, np.ndarray]:
        idx = np.arange(hi - cap + 1, hi + 1, dtype=np.float64)
        nz = store != 0
        return 2.0 * np.power(g, idx[nz]) / (g + 1.0), store[nz]

    empty = (np.empty(0), np.empty(0, np.int64))
    pv, pc = rep(state.pos, m[kernel.POS_HI]) if m[kernel.POS_N] else empty
    nv, nc = rep(state.neg, m[kernel.NEG_HI]) if m[kernel.NEG_N] else empty
    vals = np.concatenate([-nv[::-1], [0.0], pv])
    counts = np.concatenate([nc[::-1], [m[kernel.ZEROS]], pc])
    return vals, counts
