"""Grouped states: one state per group (slice) of the rows, of any family, and the one rule
that builds them.

The rule is the same for every family: order the rows by group with a stable counting sort
(``_kernels/groups.pyx``: one pass counts each group's rows, one more per input column
writes each row's bytes to its group's next slot), and run the family's ordinary build over each group's
contiguous run of rows. So ``grouped[g]`` *is* the ordinary state of group ``g``'s rows,
built by the same kernel in the same row order as a one-shot call on those rows, and every
derivation of the family applies to it unchanged. Rows are taken in blocks of at most
:data:`BLOCK` rows, so the extra memory is bounded by the block, not by the data; a group
whose rows span several blocks gets one state per block, merged by the family's law.

A family that has a faster grouped kernel (the confusion family: one counting pass into a
G x K x K table) uses it instead; its per-group states are the same.

Grouped states merge with groups aligned by key (new keys are appended), and export,
load and pickle like the other states: the keys' columns, and each group's state's fields
under the prefix ``"<g>."``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .._inputs import MIXED_LABELS, label_kind
from .._kernels import groups as kernel
from . import base

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["BLOCK", "GroupedState", "align_by_key", "concat_keys", "group_runs",
           "ordered_blocks"]

T = TypeVar("T")

#: rows ordered at a time (the extra memory of a grouped pass: one copy of each input's
#: rows of a block, in group order)
BLOCK = 1 << 24


def group_runs(codes: np.ndarray, n_groups: int, columns: Sequence[np.ndarray | None],
               block: int = BLOCK) -> Iterator[tuple[int, list[np.ndarray | None]]]:
    """``(g, columns of group g's rows)`` for each group with rows, block by block.

    Parameters
    ----------
    codes : ndarray of integers, shape (n_samples,)
        Each row's group, in ``range(n_groups)``.
    n_groups : int
    columns : sequence of ndarray or None
        Row-aligned inputs (1-D or 2-D, rows first); None passes through.
    block : int
        Rows ordered at a time.

    Yields
    ------
    (g, columns)
        A group and its rows of the block, in their original order: contiguous arrays.
    """
    n = codes.shape[0]
    if n_groups == 1 and n <= block:  # one group: its rows are the input as it is
        sizes = np.zeros(1, dtype=np.int64)
        bad = kernel.group_sizes(codes, 1, sizes)
        if bad >= 0:
            raise ValueError(f"group code {codes[bad]} at row {bad} is outside [0, 1)")
        if n:
            yield 0, list(columns)
        return
    for offsets, grouped in ordered_blocks(codes, n_groups, columns, block):
        for g in np.flatnonzero(np.diff(offsets)).tolist():
            lo, hi = int(offsets[g]), int(offsets[g + 1])
            yield g, [None if c is None else c[lo:hi] for c in grouped]


def ordered_blocks(codes: np.ndarray, n_groups: int, columns: Sequence[np.ndarray | None],
                   block: int = BLOCK
                   ) -> Iterator[tuple[np.ndarray, list[np.ndarray | None]]]:
    """The rows ordered by group (a stable counting sort), block by block:
    ``(offsets, columns)`` where group g's rows of the block are
    ``offsets[g]:offsets[g + 1]`` of each column, in their original order (None passes
    through). A code outside ``range(n_groups)`` raises ``ValueError`` naming its row."""
    n = codes.shape[0]
    for start in range(0, n, block):
        stop = min(n, start + block)
        part = codes[start:stop]
        sizes = np.zeros(n_groups, dtype=np.int64)
        bad = kernel.group_sizes(part, n_groups, sizes)
        if bad >= 0:
            raise ValueError(f"group code {part[bad]} at row {start + bad} is outside "
                             f"[0, {n_groups})")
        offsets = np.zeros(n_groups + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        yield offsets, [None if c is None else _grouped_rows(c[start:stop], part, offsets)
                        for c in columns]


def _grouped_rows(c: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The rows of ``c`` ordered by group (stable): scattered by their raw bytes; objects
    (which must keep their reference counts) gathered by an order of the rows."""
    if c.dtype.hasobject or c.ndim == 0:
        order = np.empty(codes.shape[0], dtype=np.int64)
        kernel.group_order(codes, offsets[:-1].copy(), order)
        return np.take(c, order, axis=0)
    src = np.ascontiguousarray(c)
    out = np.empty_like(src)
    n = src.shape[0]
    kernel.scatter_rows(codes, offsets[:-1].copy(), src.view(np.uint8).reshape(n, -1),
                        out.view(np.uint8).reshape(n, -1))
    return out


def align_by_key(inputs: Sequence[tuple[Sequence[np.ndarray], Sequence[T]]]
                 ) -> tuple[list[np.ndarray], dict[tuple[Any, ...], int], list[list[T]]]:
    """Groups of several inputs (each: its key columns and one item per group) aligned by
    key: ``(key columns, key -> position, the items of each position)``, keys in the order
    first seen (the merge of grouped states and of grouped accumulators)."""
    index: dict[tuple[Any, ...], int] = {}
    parts: list[list[T]] = []
    keys: list[np.ndarray] = [k[:0] for k in inputs[0][0]] if inputs else []
    for cols, items in inputs:
        new = []
        for g, key in enumerate(_key_tuples(cols)):
            i = index.get(key)
            if i is None:
                index[key] = len(parts)
                parts.append([items[g]])
                new.append(g)
            else:
                parts[i].append(items[g])
        if new:
            keys = [concat_keys(k, c[new]) for k, c in zip(keys, cols)]
    return keys, index, parts


def _key_tuples(keys: Sequence[np.ndarray]) -> list[tuple[Any, ...]]:
    return list(zip(*(k.tolist() for k in keys)))


def concat_keys(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two key columns one after the other (text and numbers never mix)."""
    if a.shape[0] and b.shape[0] and label_kind(a) != label_kind(b):
        raise ValueError(f"group keys: {MIXED_LABELS}")
    return np.concatenate([a, b])


class GroupedState(base.State):
    """One state of a family per group of rows: ``grouped[g]`` is the ordinary state of the
    rows of group ``g``.

    Parameters
    ----------
    keys : tuple of ndarray
        One array per key column, ``n_groups`` values each: group ``g``'s key is
        ``tuple(k[g] for k in keys)``.
    names : tuple of str
        The key columns' names.
    states : list of State
        Group ``g``'s state at position ``g``, all of one type.

    See Also
    --------
    fastmetrics.streaming.GroupedAccumulator : Builds them chunk by chunk.
    fastmetrics.MetricFrame : Metrics by group from them.

    Examples
    --------
    >>> from fastmetrics.streaming import GroupedAccumulator
    >>> acc = GroupedAccumulator("regression").update([1.0, 2.0, 4.0], [1.0, 3.0, 4.0],
    ...                                               groups=["a", "b", "b"])
    >>> st = acc.state
    >>> st.n_groups, st.key(1), st[1].n_samples
    (2, 'b', 2)
    """

    kind = "grouped"
    __slots__ = ("keys", "names", "states")

    def __init__(self, keys: tuple[np.ndarray, ...], names: tuple[str, ...],
                 states: list[base.State]) -> None:
        self.keys, self.names, self.states = keys, names, states

    @property
    def n_groups(self) -> int:
        """The number of groups."""
        return len(self.states)

    @property
    def n_samples(self) -> int:
        """The number of samples of every group together."""
        return sum(int(st.n_samples) for st in self.states)

    def __len__(self) -> int:
        return len(self.states)

    def __getitem__(self, g: int) -> base.State:
        return self.states[g]

    def key(self, g: int) -> Any:
        """Group ``g``'s key: its value (one key column) or the tuple of its values.

        Parameters
        ----------
        g : int
            A group's position.

        Returns
        -------
        key : scalar or tuple

        See Also
        --------
        GroupedState.state_of : The state of a key.

        Examples
        --------
        >>> from fastmetrics.streaming import GroupedAccumulator
        >>> acc = GroupedAccumulator("regression").update([1.0, 2.0], [1.0, 3.0],
        ...                                               groups=[[1, 1], ["x", "y"]])
        >>> acc.state.key(1)
        (1, 'y')
        """
        if len(self.keys) == 1:
            return self.keys[0][g].item()
        return tuple(k[g].item() for k in self.keys)

    def state_of(self, key: Any) -> base.State:
        """The state of the group whose key is ``key`` (a value, or a tuple for several key
        columns); ``KeyError`` when no row had it.

        Parameters
        ----------
        key : scalar or tuple

        Returns
        -------
        state : State

        See Also
        --------
        GroupedState.key : A group's key.

        Examples
        --------
        >>> from fastmetrics.streaming import GroupedAccumulator
        >>> acc = GroupedAccumulator("regression").update([1.0, 2.0], [1.0, 3.0],
        ...                                               groups=["x", "y"])
        >>> acc.state.state_of("y").n_samples
        1
        """
        want = key if isinstance(key, tuple) else (key,)
        for g, k in enumerate(_key_tuples(self.keys)):
            if k == want:
                return self.states[g]
        raise KeyError(key)

    # ------------------------------------------------------------------ merging
    def merge(self, other: Self) -> Self:
        """Both inputs' samples: the states of a key in both merge, new keys are appended.

        Parameters
        ----------
        other : GroupedState
            A grouped state of the same key columns and state type.

        Returns
        -------
        state : GroupedState

        See Also
        --------
        GroupedState.merge_all : Many at once.

        Examples
        --------
        >>> from fastmetrics.streaming import GroupedAccumulator
        >>> a = GroupedAccumulator("regression").update([1.0], [1.0], groups=["x"]).state
        >>> b = GroupedAccumulator("regression").update([1.0, 2.0], [1.0, 2.0],
        ...                                             groups=["y", "x"]).state
        >>> m = a.merge(b)
        >>> [m.key(g) for g in range(m.n_groups)], m[0].n_samples
        (['x', 'y'], 2)
        """
        return self.merge_all([self, other])

    @classmethod
    def merge_all(cls, states: Sequence[Self]) -> Self:
        """The state of all inputs' samples: each key's states merged by their family's
        ``merge_all``, keys in the order they first occur.

        Parameters
        ----------
        states : sequence of GroupedState
            At least one, all of the same key columns and state type.

        Returns
        -------
        state : GroupedState

        See Also
        --------
        GroupedState.merge : Two of them.

        Examples
        --------
        >>> from fastmetrics.streaming import GroupedAccumulator
        >>> from fastmetrics.states import GroupedState
        >>> parts = [GroupedAccumulator("confusion").update([0, 1], [0, 1], groups=[g, g]).state
        ...          for g in ("a", "b", "a")]
        >>> GroupedState.merge_all(parts)[0].n_samples
        4
        """
        items = cls._merge_inputs(states)
        keys, _, parts = align_by_key([(st.keys, st.states) for st in items])
        merged = [p[0] if len(p) == 1 else type(p[0]).merge_all(p) for p in parts]
        return cls(tuple(keys), items[0].names, merged)

    def _check_mergeable(self, other: object) -> None:
        super()._check_mergeable(other)
        assert isinstance(other, GroupedState)
        if other.names != self.names:
            raise ValueError(f"cannot merge grouped states of different key columns "
                             f"({list(self.names)} and {list(other.names)})")
        if self.states and other.states and type(self.states[0]) is not type(other.states[0]):
            raise TypeError(f"cannot merge grouped states of {type(self.states[0]).__name__} "
                            f"with grouped states of {type(other.states[0]).__name__}")

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        d: dict[str, Any] = {"names": np.array(self.names, dtype=str),
                             "n_groups": self.n_groups}
        for j, k in enumerate(self.keys):
            d[f"key_{j}"] = k
            d[f"key_{j}_dtype"] = k.dtype.str
        for g, st in enumerate(self.states):
            for name, v in st.to_dict().items():
                d[f"{g}.{name}"] = v
        return d

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> GroupedState:
        n_groups = base.integer(d, "n_groups")
        names = tuple(base.field(d, "names", kinds="U", ndim=1, dtype=str).tolist())
        if not names:
            raise base.StateError("a grouped state needs at least one key column")
        keys = tuple(base.labels(d, f"key_{j}") for j in range(len(names)))
        for j, k in enumerate(keys):
            if k.shape[0] != n_groups:
                raise base.StateError(f"key_{j} holds {k.shape[0]} keys for {n_groups} groups")
            if k.dtype.kind == "f" and np.isnan(k).any():
                raise base.StateError(f"key_{j} holds NaN")
        if len(set(_key_tuples(keys))) != n_groups:
            raise base.StateError("the keys of a grouped state must be unique")
        fields: list[dict[str, Any]] = [{} for _ in range(n_groups)]
        for name in d.keys():
            head, dot, rest = str(name).partition(".")
            if not dot:
                continue
            if not head.isdigit() or int(head) >= n_groups:
                raise base.StateError(f"state field {name!r} names no group")
            fields[int(head)][rest] = d[name]
        states = [base.load_state(f) for f in fields]
        if any(type(st) is not type(states[0]) for st in states):
            raise base.StateError("the groups of a grouped state must hold one state type")
        if any(isinstance(st, GroupedState) for st in states):
            raise base.StateError("a grouped state does not nest")
        return cls(keys, names, states)

    def __repr__(self) -> str:
        inner = type(self.states[0]).__name__ if self.states else "State"
        return f"GroupedState({inner}, n_groups={self.n_groups}, n_samples={self.n_samples})"

