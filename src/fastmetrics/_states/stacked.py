"""Every group's state of one family stacked into arrays (group g's at row g of each), over
one layout: what a grouped pass counts or sums before any group's state object is built.

A grouped accumulator fed chunk after chunk of many groups used to build, for every chunk,
one state object per group and merge it into that group's state: per chunk, a few
microseconds of Python per group, family and model, which at 1,000 groups was most of an
evaluation's time. Stacked, a chunk's groups are added into the accumulator's rows by the
family's merge law applied to whole arrays (counts and sums add, extremes take the max or
min, the running means and spreads merge by Chan's update in one kernel call), and the
group states are built once, when they are read.

Only states of one layout stack (the same labels, edges, classes, Huber delta and
weighting): each family's law is then the merge law of its states, row by row, and a
group's row built into a state is the state the per-group merges would give (bit for bit:
the same operations in the same order, each chunk merged into what came before).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._inputs import same_labels

__all__ = ["Stacked"]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                and same_labels(a, b))
    return bool(a == b)


class Stacked:
    """Every group's state of one family, as rows of arrays over one layout.

    A family subclasses it with its merge law (:meth:`_merge_rows`), the row of a group
    without samples (:attr:`empty`), whether it takes weights (:attr:`weighs`) and how
    rows become states (:meth:`states`).

    Parameters
    ----------
    arrays : tuple of ndarray
        Each with one row per group (first axis), group ``g``'s at row ``g``.
    layout : tuple
        What two stacks must share to merge row by row (labels, edges, settings;
        arrays compared by value and dtype).
    sizes : ndarray of int64 (n_groups,)
        Each group's number of samples.
    """

    __slots__ = ("arrays", "layout", "sizes")

    #: each array's row for a group without samples (the merge law's identity)
    empty: tuple[Any, ...] = ()
    #: whether the family takes sample weights: then the layout's last item says whether
    #: the states were built with them
    weighs = False

    def __init__(self, arrays: tuple[np.ndarray, ...], layout: tuple[Any, ...],
                 sizes: np.ndarray) -> None:
        self.arrays = arrays
        self.layout = layout
        self.sizes = sizes

    @property
    def weighted(self) -> bool:
        """Whether the states were built with sample weights."""
        return self.weighs and bool(self.layout[-1])

    @property
    def n_groups(self) -> int:
        """The number of groups (rows)."""
        return int(self.sizes.shape[0])

    def same_layout(self, other: object) -> bool:
        """Whether ``other`` stacks states of this family over the same layout: then its
        rows merge into these by the family's law."""
        return (type(other) is type(self) and len(other.layout) == len(self.layout)
                and all(_same(a, b) for a, b in zip(self.layout, other.layout)))

    def take(self, rows: np.ndarray) -> Any:
        """The stack of the groups at ``rows`` only (in that order)."""
        return type(self)(tuple(a[rows] for a in self.arrays), self.layout, self.sizes[rows])

    def empty_like(self, n_groups: int) -> Any:
        """A stack of ``n_groups`` groups without samples, over this layout."""
        arrays = []
        for a, e in zip(self.arrays, self.empty):
            b = np.empty((n_groups, *a.shape[1:]), dtype=a.dtype)
            b[...] = e
            arrays.append(b)
        return type(self)(tuple(arrays), self.layout, np.zeros(n_groups, dtype=np.int64))

    def grown(self, n_groups: int) -> Any:
        """This stack with groups without samples appended up to ``n_groups`` rows (self
        when it has them)."""
        if n_groups <= self.n_groups:
            return self
        out = self.empty_like(n_groups)
        for a, b in zip(out.arrays, self.arrays):
            a[:self.n_groups] = b
        out.sizes[:self.n_groups] = self.sizes
        return out

    def merge_in(self, other: Stacked, rows: np.ndarray) -> None:
        """Merge ``other``'s group ``g`` into this stack's group ``rows[g]``, in place
        (``rows`` distinct and within this stack; the layouts the same).

        Parameters
        ----------
        other : Stacked
            A stack of the same family and layout.
        rows : ndarray of int64 (other.n_groups,)
            Where each of its groups lands here.
        """
        self._merge_rows(other, rows)
        self.sizes[rows] += other.sizes

    def _merge_rows(self, other: Stacked, rows: np.ndarray) -> None:
        """The family's merge law, row ``g`` of ``other`` into row ``rows[g]`` (the plain
        one: every array adds)."""
        for a, b in zip(self.arrays, other.arrays):
            a[rows] += b

    def total(self) -> Any:
        """A stack of one group holding every group's samples: the rows folded by the
        family's merge law in halves (log2(groups) merges of whole arrays, not one merge
        of states per group). Counts as one pass's; float sums to rounding.

        Examples
        --------
        >>> import numpy as np
        >>> st = Stacked((np.array([[1, 2], [3, 4], [5, 6]]),), (), np.array([1, 1, 2]))
        >>> t = st.total()
        >>> t.arrays[0].tolist(), t.sizes.tolist()
        ([[9, 12]], [4])
        """
        out = self.take(np.arange(self.n_groups))  # (a copy: this stack is left as it is)
        n = out.n_groups
        while n > 1:
            half = (n + 1) // 2
            upper = out.take(np.arange(half, n))
            out = out.take(np.arange(half))
            out.merge_in(upper, np.arange(n - half))
            n = half
        return out

    def states(self) -> list[Any]:
        """Every group's state, group ``g``'s at position ``g``."""
        raise NotImplementedError
