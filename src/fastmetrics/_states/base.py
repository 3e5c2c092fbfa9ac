"""What every state type shares: the merge operator, export to plain arrays and validated load.

A *state* is the small summary one kernel pass leaves behind (a confusion table, per-bin sums,
regression sums, a sorted score summary, sketch buckets). Every metric is a function of a
state, and two states of the same family merge into the state of both inputs: that single law
is what the one-shot functions, the streaming accumulators and the Dask functions share.

Export and load
---------------
``state.to_dict()`` gives plain values only: numpy arrays of numbers, booleans or fixed-width
strings, and Python scalars and strings. So the dict can be written with ``numpy.savez`` and
read back with ``numpy.load(..., allow_pickle=False)``, or (``to_dict(as_lists=True)``) written
as JSON. ``StateType.from_dict(d)`` (or :func:`load_state`, which picks the type from
``d["kind"]``) checks every invariant before it builds anything: shapes, dtypes, non-negative
counts, totals that agree, sorted label tables. A state that fails is refused with
``ValueError``. Pickling goes through the same two functions, so a pickle names only the
public state classes and a doctored pickle is refused like a doctored dict. Only the array
form is safe to load from an untrusted source: unpickling runs whatever the pickle names.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import DTypeLike
    from typing_extensions import Self

__all__ = ["FORMAT", "LABEL_KINDS", "State", "StateError", "field", "flag", "integer", "labels",
           "load_state", "number", "text"]

FORMAT = 1  # version of the exported form; a later format keeps reading this one
LABEL_KINDS = "iufbU"  # dtype kinds a label table may have (never objects)

_TYPES: dict[str, type[State]] = {}


class StateError(ValueError):
    """A state (dict, npz file or pickle) that breaks an invariant of its type.

    See Also
    --------
    load_state : Raises it for a state that breaks an invariant.
    State.from_dict : The same, for one type.

    Examples
    --------
    >>> from fastmetrics.states import StateError, load_state
    >>> try:
    ...     load_state({"kind": "nothing"})
    ... except StateError as exc:
    ...     print(type(exc).__mro__[1].__name__)
    ValueError
    """


class State:
    """Base of the state types (one per family): merge, export, validated load, pickling.

    A subclass sets ``kind`` (its name in exported dicts), implements ``merge``,
    ``n_samples``, ``_export`` (its fields as plain values) and ``_load`` (the fields back,
    checked); the base turns these into ``to_dict`` / ``from_dict`` and pickling.

    See Also
    --------
    load_state : Loads any state from its exported form.
    fastmetrics.streaming.Accumulator : Holds a state, updated chunk by chunk.

    Examples
    --------
    >>> from fastmetrics.states import ConfusionState, State
    >>> isinstance(ConfusionState.from_arrays([0, 1], [0, 0]), State)
    True
    """

    __slots__ = ()
    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        # fastmetrics' own state types only: a user's subclass neither takes over loading
        # nor loses its own module (pickles name it)
        if "kind" in cls.__dict__ and cls.__module__.startswith("fastmetrics._states."):
            _TYPES.setdefault(cls.kind, cls)
            # exported under fastmetrics.states: pickles and reprs name that stable path
            cls.__module__ = "fastmetrics.states"

    # ------------------------------------------------------------------ the merge law
    def merge(self, other: Self) -> Self:  # pragma: no cover - every state type defines it
        """The state of both inputs' samples (neither input is modified).

        Parameters
        ----------
        other : State
            A state of the same type.

        Returns
        -------
        state : State
            The state of both inputs' samples.

        See Also
        --------
        load_state : Loads a state exported by :meth:`to_dict`.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> a = ConfusionState.from_arrays([0, 1], [0, 0])
        >>> a.merge(ConfusionState.from_arrays([1], [1])).n_samples
        3
        """
        raise NotImplementedError

    @classmethod
    def merge_all(cls, states: Sequence[Self]) -> Self:
        """The state of all inputs' samples: the same as merging them pairwise from left to
        right (what this base does; a type whose merge is more than a sum merges them all in
        one walk).

        Parameters
        ----------
        states : sequence of State
            At least one state of this type.

        Returns
        -------
        state : State
            The state of all inputs' samples (a single input is returned as it is).

        See Also
        --------
        State.merge : Two states.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> parts = [ConfusionState.from_arrays([0, 1], [0, 0]) for _ in range(3)]
        >>> ConfusionState.merge_all(parts).n_samples
        6
        """
        states = cls._merge_inputs(states)
        out = states[0]
        for st in states[1:]:
            out = out.merge(st)
        return out

    @classmethod
    def merge_each(cls, groups: Sequence[Sequence[Self]]) -> list[Self]:
        """For each group of states, its first state merged with all the others merged
        among themselves (``merge_all([first, merge_all(others)])``): a state that grew
        over many chunks merged with its newest chunks' states, the larger state walked
        once. A type that can merge every group in one call (the exact ranking states,
        on threads) does.

        Parameters
        ----------
        groups : sequence of sequences of State
            Each with at least two states of this type.

        Returns
        -------
        states : list of State
            Each group's merged state, in order.

        See Also
        --------
        State.merge_all : The states of one group.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> a = ConfusionState.from_arrays([0, 1], [0, 0])
        >>> [st.n_samples for st in ConfusionState.merge_each([[a, a], [a, a, a]])]
        [4, 6]
        """
        return [cls.merge_all([g[0], cls.merge_all(g[1:])]) for g in groups]

    def same_layout(self, other: object) -> bool:
        """Whether ``other`` is a state of this type over the same labels, classes, edges
        or outputs: then :meth:`merge` cannot refuse it. False says only that the merge
        may refuse (this base knows no layout: a type that can tell says so).

        Parameters
        ----------
        other : object
            Another state.

        Returns
        -------
        bool

        See Also
        --------
        State.merge_all : Merges states of one layout in one walk.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> a = ConfusionState.from_arrays([0, 1], [0, 0])
        >>> a.same_layout(ConfusionState.from_arrays([2], [2])), a.same_layout(None)
        (False, False)
        >>> a.same_layout(ConfusionState.from_arrays([0, 1], [1, 1]))
        True
        """
        return type(other) is type(self) and self._same_layout(other)

    def _same_layout(self, other: Any) -> bool:
        """:meth:`same_layout` for ``other`` of this type (a type that can tell says so)."""
        return False

    @classmethod
    def _merge_inputs(cls, states: Sequence[Self]) -> list[Self]:
        """``merge_all``'s inputs as a list: at least one, each of the first one's type."""
        out = list(states)
        if not out:
            raise ValueError("merge_all needs at least one state")
        for st in out[1:]:
            out[0]._check_mergeable(st)
        return out

    def __add__(self, other: Any) -> Self:
        if type(other) is not type(self):
            return NotImplemented
        return self.merge(other)

    @property
    def n_samples(self) -> int:  # pragma: no cover - every state type defines it
        """The number of samples the state summarises (every state type defines it)."""
        raise NotImplementedError

    def _check_mergeable(self, other: object) -> None:
        if type(other) is not type(self):
            raise TypeError(f"cannot merge {type(self).__name__} with {type(other).__name__}")

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:  # pragma: no cover - every state type defines it
        raise NotImplementedError

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> Self:  # pragma: no cover - every state type defines it
        raise NotImplementedError

    def to_dict(self, *, as_lists: bool = False) -> dict[str, Any]:
        """The state as plain values: ``kind``, ``format`` and the type's fields.

        Parameters
        ----------
        as_lists : bool, default=False
            Arrays as (nested) lists, ready for ``json.dumps``; otherwise numpy arrays, ready
            for ``numpy.savez``.

        Returns
        -------
        d : dict
            ``kind``, ``format`` and the type's fields: numpy arrays (or lists) of numbers, bools or
            fixed-width strings, and Python scalars and strings.

        See Also
        --------
        State.from_dict : The state back, checked.
        load_state : The same for any state type.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> d = ConfusionState.from_arrays([0, 1], [0, 0]).to_dict(as_lists=True)
        >>> d["kind"], d["cm"]
        ('confusion', [[1, 0], [1, 0]])
        """
        d: dict[str, Any] = {"kind": self.kind, "format": FORMAT}
        d.update(self._export())
        if as_lists:
            d = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in d.items()}
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Self:
        """Rebuild a state from :meth:`to_dict`'s values (a dict, an ``NpzFile`` or parsed
        JSON), checking every invariant first; ``StateError`` (a ``ValueError``) when one
        fails.

        Parameters
        ----------
        d : mapping
            :meth:`to_dict`'s values: a dict, an ``NpzFile`` of ``numpy.load`` or parsed JSON.

        Returns
        -------
        state : State
            A state of the type ``d["kind"]`` names (this class's own kind when called on a
            subclass).

        Raises
        ------
        StateError
            If ``d`` is not a mapping, names an unknown kind or another type's kind, has a format
            this version does not read, or breaks an invariant of the type.

        See Also
        --------
        State.to_dict : The exported form.
        load_state : The same, called on the base type.

        Examples
        --------
        >>> from fastmetrics.states import ConfusionState
        >>> s = ConfusionState.from_arrays([0, 1], [0, 0])
        >>> ConfusionState.from_dict(s.to_dict()).n_samples
        2
        """
        if not hasattr(d, "keys") or not hasattr(d, "__getitem__"):
            raise StateError(f"a state must be a mapping, got {type(d).__name__}")
        kind = text(d, "kind")
        # the base loads any kind, a subclass only its own
        state_type = _TYPES.get(kind) if cls is State else cls
        if state_type is None:
            raise StateError(f"unknown state kind {kind!r}; known: {sorted(_TYPES)}")
        if kind != state_type.kind:
            raise StateError(f"a {kind!r} state cannot be loaded as {state_type.__name__}")
        fmt = integer(d, "format")
        if fmt != FORMAT:
            raise StateError(f"state format {fmt} is not one this version reads ({FORMAT})")
        # the base's call gives whichever type ``kind`` names
        return cast("Self", state_type._load(d))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self).from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_samples={self.n_samples})"


class OutputSums(State):
    """Base of the states whose ``sums`` are float slots, one row per output (a 1-D row for
    1-D targets), with ``weighted`` telling whether sample weights were given. A subclass
    sets ``count_slot``, the slot holding the sample count.

    Its merge adds the sums (a subclass whose sums do not simply add overrides ``merge``).
    """

    __slots__ = ("sums", "weighted")
    count_slot: ClassVar[int] = -1

    def __init__(self, sums: np.ndarray, weighted: bool):
        self.sums = sums
        self.weighted = weighted

    @property
    def n_samples(self) -> int:
        return int(self.sums[..., self.count_slot].flat[0])

    @property
    def n_outputs(self) -> int:
        """The number of outputs (1 for 1-D targets)."""
        return 1 if self.sums.ndim == 1 else self.sums.shape[0]

    def merge(self, other: Self) -> Self:
        """The state of both inputs: the sums add. An empty state is the identity."""
        self._check_outputs(other)
        if other.n_samples == 0:
            return self
        if self.n_samples == 0:
            return other
        return type(self)(self.sums + other.sums, self.weighted or other.weighted)

    def _check_outputs(self, other: OutputSums) -> None:
        self._check_mergeable(other)
        if other.n_samples and self.n_samples and self.sums.shape != other.sums.shape:
            raise ValueError(
                f"cannot merge {self.kind.replace('_', ' ')} states of different numbers of "
                f"outputs ({self.n_outputs} and {other.n_outputs})")


def load_state(d: Mapping[str, Any]) -> State:
    """Any state from its :meth:`State.to_dict` form, the type taken from ``d["kind"]``.

    Parameters
    ----------
    d : mapping
        A state's :meth:`State.to_dict` form: a dict, an ``NpzFile`` of ``numpy.load`` or
        parsed JSON.

    Returns
    -------
    state : State
        A state of the type ``d["kind"]`` names, checked.

    Raises
    ------
    StateError
        If ``d`` names an unknown kind, has a format this version does not read, or breaks an
        invariant of its type (a ``ValueError``).

    See Also
    --------
    State.to_dict : The exported form.
    State.from_dict : The same, for one type.

    Examples
    --------
    >>> import json
    >>> from fastmetrics.states import ConfusionState, load_state
    >>> text = json.dumps(ConfusionState.from_arrays([0, 1], [0, 0]).to_dict(as_lists=True))
    >>> load_state(json.loads(text)).n_samples
    2
    """
    return State.from_dict(d)


# ---------------------------------------------------------------------- load helpers


def _get(d: Mapping[str, Any], key: str) -> Any:
    try:
        return d[key]
    except KeyError:
        raise StateError(f"the state has no {key!r}") from None


def field(d: Mapping[str, Any], key: str, *, kinds: str, ndim: int,
          shape: tuple[int, ...] | None = None, dtype: DTypeLike | None = None) -> np.ndarray:
    """``d[key]`` as a numpy array of one of the dtype ``kinds`` ('i', 'u', 'f', 'b', 'U'),
    ``ndim`` dimensions (and ``shape`` where given; -1 is any length); ``dtype`` converts
    lists from JSON back to the exported dtype, and only when every value survives the
    conversion unchanged. Object arrays are never accepted."""
    v = _get(d, key)
    if dtype is not None and isinstance(v, list):  # from JSON: typed from the exact values
        try:
            a = np.array(v, dtype=dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise StateError(f"state field {key!r} does not fit its dtype: {exc}") from None
        if np.dtype(dtype).kind in "iubU" and a.tolist() != v:
            raise StateError(f"state field {key!r} does not fit its dtype {np.dtype(dtype)}")
        v = a
    try:
        a = np.asarray(v)
    except (TypeError, ValueError) as exc:
        raise StateError(f"state field {key!r} is not an array: {exc}") from None
    empty_list = a.size == 0 and a.dtype.kind == "f"  # [] from JSON
    if a.dtype.kind == "O" or (a.dtype.kind not in kinds and not empty_list):
        raise StateError(f"state field {key!r} has dtype {a.dtype}, expected kind in {kinds!r}")
    if a.ndim != ndim:
        raise StateError(f"state field {key!r} has {a.ndim} dimensions, expected {ndim}")
    if shape is not None and any(s != -1 and s != t for s, t in zip(shape, a.shape)):
        raise StateError(f"state field {key!r} has shape {a.shape}, expected {shape}")
    if empty_list and dtype is None:
        dtype = {"i": np.int64, "u": np.uint64, "b": bool, "U": str}.get(kinds[0])
    if dtype is not None and a.dtype != np.dtype(dtype):
        try:
            with np.errstate(all="ignore"):
                b = a.astype(dtype)
            # NaN stays NaN (only where the target holds NaN: cast to an integer it is garbage)
            same = a.size == 0 or bool(np.all((b == a) | ((a != a) & (b != b))))
        except (TypeError, ValueError, OverflowError):
            same = False
        if not same:
            raise StateError(f"state field {key!r} does not fit its dtype {np.dtype(dtype)}")
        a = b
    return a


def labels(d: Mapping[str, Any], key: str, *, kinds: str = LABEL_KINDS) -> np.ndarray:
    """A 1-D label table ``d[key]`` in the dtype ``d[key + "_dtype"]`` names (numbers, bools
    or fixed-width strings; never objects), exactly as exported."""
    name = text(d, key + "_dtype")
    try:
        dtype = np.dtype(name)
    except TypeError:
        raise StateError(f"state field '{key}_dtype' is not a dtype: {name!r}") from None
    if dtype.kind not in kinds:
        raise StateError(f"{key} of dtype {dtype} are not allowed in a state")
    return field(d, key, kinds=kinds, ndim=1, dtype=dtype)


def integer(d: Mapping[str, Any], key: str, *, minimum: int | None = 0) -> int:
    v = _get(d, key)
    v = v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise StateError(f"state field {key!r} must be an integer, got {v!r}")
    if minimum is not None and v < minimum:
        raise StateError(f"state field {key!r} must be >= {minimum}, got {v}")
    return int(v)


def number(d: Mapping[str, Any], key: str, *, finite: bool = True) -> float:
    v = _get(d, key)
    v = v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise StateError(f"state field {key!r} must be a number, got {v!r}")
    if finite and not math.isfinite(v):
        raise StateError(f"state field {key!r} must be finite, got {v!r}")
    return float(v)


def flag(d: Mapping[str, Any], key: str) -> bool:
    v = _get(d, key)
    v = v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
    if isinstance(v, np.bool_):
        v = bool(v)
    if not isinstance(v, bool):
        raise StateError(f"state field {key!r} must be a bool, got {v!r}")
    return v


def text(d: Mapping[str, Any], key: str) -> str:
    v = _get(d, key)
    v = v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
    if not isinstance(v, str):
        raise StateError(f"state field {key!r} must be a string, got {v!r}")
    return v
