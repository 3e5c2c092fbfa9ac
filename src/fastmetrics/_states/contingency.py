"""The contingency state: one pass over (labels_true, labels_pred) -> the count of every pair
of (true cluster, predicted cluster), and every supervised clustering metric derived from it.

Storage
-------
The table is kept by its non-zero cells (``rows``, ``cols``, ``counts``, row-major sorted),
so memory is O(min(n_samples, K_true * K_pred)) whatever the number of clusters: a
100 x 100 table costs at most 10**4 cells, and a clustering into 10**6 singletons costs one
cell per sample, never 10**12 cells. :func:`table` gives the dense
``(K_true, K_pred)`` int64 table.

Counting
--------
* Two native integer (or bool) arrays of one dtype whose joint value range is at most
  :data:`DENSE_MAX_RANGE` wide are read in place by the confusion kernel (one nogil pass
  into a dense table over the range); the rows and columns that occur are kept.
* Other labels (strings, floats, objects, wide integer ranges) are encoded with one hash
  pass per array (:func:`fastmetrics._inputs.encode_labels`); the pairs of codes are
  counted into a dense table by the contingency kernel while ``K_true * K_pred`` is at
  most :data:`CELL_BUDGET` cells (32 MiB), and by sorting the ``true * K_pred + pred`` keys otherwise (O(n) memory for
  one call, never a K_true x K_pred allocation).

Every value follows scikit-learn 1.9's arithmetic in the same order over the same non-zero
cells (its CSR contingency matrix is row-major too), so integer results are equal and float
results equal to about 1e-15 relative; the expected mutual information (a sum of many
terms) is summed in another order and with its negligible tails cut (see the kernel).
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any
import numpy as np

from .._inputs import (
    INT_CHARS,
    encode_labels,
    inconsistent_lengths,
    label_input,
    native,
    union_all_labels,
)
from .._kernels import confusion as confusion_kernel
from .._kernels import contingency as kernel
from .._threads import threads_for
from .. import exceptions
from ..exceptions import invalid_parameter
from . import base

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import DTypeLike

    from .._typing import ArrayLike

__all__ = [
    "AVERAGE_METHODS",
    "CELL_BUDGET",
    "DENSE_MAX_RANGE",
    "ContingencyState",
    "adjusted_mutual_info",
    "adjusted_rand",
    "check_average",
    "check_beta",
    "check_clusterings",
    "check_matrix_options",
    "completeness",
    "expected_mutual_info",
    "fowlkes_mallows",
    "grouped_states",
    "homogeneity",
    "homogeneity_completeness_v",
    "matrix",
    "mutual_info",
    "normalized_mutual_info",
    "pair_confusion",
    "rand",
    "table",
    "true_entropy",
    "pred_entropy",
    "v_measure",
]

DENSE_MAX_RANGE = 1024  # integer labels spanning at most this many values are read in place
CELL_BUDGET = 1 << 22  # dense counting tables up to this many int64 cells (32 MiB)
AVERAGE_METHODS = ("min", "geometric", "arithmetic", "max")
_EPS = float(np.finfo("float64").eps)


# ---------------------------------------------------------------------------- labels


def _labels(y: ArrayLike, name: str) -> np.ndarray:
    """scikit-learn's ``check_clusterings`` for one array: 1-D, finite floats; continuous
    values warn (when ``warn``) and are clustered by value all the same."""
    a = label_input(y, name)  # data-frame text labels stay codes (Encoded)
    if a.dtype.kind == "c":
        raise ValueError("Complex data not supported")
    if a.dtype.kind == "f" and a.size and not np.isfinite(a).all():
        what = "NaN" if np.isnan(a).any() else "infinity or a value too large for dtype('float64')"
        raise ValueError(f"Input {name} contains {what}.")
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1D: shape is {a.shape!r}")
    return native(a) if a.dtype.kind in "iufb" else a


def _continuous(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" and a.size > 0 and not np.array_equal(a, np.floor(a))


def check_clusterings(labels_true: ArrayLike, labels_pred: ArrayLike, *, warn: bool = True
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The two label arrays, checked as scikit-learn checks them (NaN, continuous values,
    1-D, lengths)."""
    at = _labels(labels_true, "labels_true")
    ap = _labels(labels_pred, "labels_pred")
    if warn and (_continuous(at) or _continuous(ap)):
        kt = "continuous" if _continuous(at) else "discrete"
        kp = "continuous" if _continuous(ap) else "discrete"
        exceptions.warn("Clustering metrics expects discrete values but received "
                        f"{kt} values for label, and {kp} values for target", UserWarning)
    if at.shape[0] != ap.shape[0]:
        raise inconsistent_lengths(labels_true=at.shape[0], labels_pred=ap.shape[0])
    return at, ap


def grouped_states(codes: np.ndarray, n_groups: int, labels_true: ArrayLike,
                   labels_pred: ArrayLike) -> list[ContingencyState] | None:
    """Each group's state from one counting pass over every row (the confusion family's
    grouped kernel fills a G x K x K table of the chunk's labels; group g's non-zero
    cells are its state's), or None where that pass does not apply and each group's
    state is built from its rows: labels that are not integers (or booleans) of one
    dtype, a range or a table past the dense bounds, a group without rows.

    Parameters
    ----------
    codes : ndarray of integers (n_samples,)
        Each row's group, in ``range(n_groups)``.
    n_groups : int
    labels_true, labels_pred : array-like of shape (n_samples,)
        As :meth:`ContingencyState.from_arrays` takes them (checked alike).

    Returns
    -------
    states : list of ContingencyState or None
        Group g's at position g: equal to :meth:`ContingencyState.from_arrays` of its rows.

    Examples
    --------
    >>> import numpy as np
    >>> states = grouped_states(np.array([0, 0, 1]), 2, [1, 2, 2], [5, 5, 7])
    >>> [(s.true_values.tolist(), s.pred_values.tolist(), s.n_samples) for s in states]
    [([1, 2], [5], 2), ([2], [7], 1)]
    """
    from .grouped import GroupedConfusionState

    at, ap = check_clusterings(labels_true, labels_pred)
    vt, vp = _int_view(at), _int_view(ap)
    if at.shape[0] == 0 or vt.dtype != vp.dtype or vt.dtype.char not in INT_CHARS:
        return None
    try:
        table = GroupedConfusionState.from_arrays(vt, vp, codes, n_groups=n_groups)
    except ValueError as exc:
        if "too many" in str(exc):  # a dense table would not fit
            return None
        raise
    if table.groups.shape[0] != n_groups or table.labels.shape[0] > DENSE_MAX_RANGE:
        return None
    values = table.labels
    states = []
    for cm in table.table:
        in_true, in_pred = cm.any(axis=1), cm.any(axis=0)
        sub = cm[np.ix_(in_true, in_pred)]
        r, c = np.nonzero(sub)
        states.append(ContingencyState(values[in_true].astype(at.dtype),
                                       values[in_pred].astype(ap.dtype), r.astype(np.int64),
                                       c.astype(np.int64), sub[r, c].astype(np.int64),
                                       int(sub.sum())))
    return states


def _int_view(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint8) if a.dtype.kind == "b" else a


class ContingencyState(base.State):
    """The contingency table of two labellings, by its non-zero cells.

    Parameters
    ----------
    true_values, pred_values : ndarray (K_true,), (K_pred,)
        The sorted distinct labels of ``labels_true`` and of ``labels_pred``.
    rows, cols : ndarray of int64 (nnz,)
        The cells that hold samples, sorted row-major (``rows[k] * K_pred + cols[k]``
        increasing).
    counts : ndarray of int64 (nnz,)
        Samples in each cell (all > 0).
    n_samples : int

    See Also
    --------
    ContingencyState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.ContingencyAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.contingency_matrix : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import ContingencyState
    >>> s = ContingencyState.from_arrays([0, 0, 1], ["a", "b", "b"])
    >>> m = s + ContingencyState.from_arrays([2], ["a"])
    >>> m.n_samples, m.shape
    (4, (3, 2))
    """

    kind = "contingency"
    n_samples: int  # a slot here, where State declares a read-only property
    __slots__ = ("true_values", "pred_values", "rows", "cols", "counts", "n_samples")

    def __init__(self, true_values: np.ndarray, pred_values: np.ndarray, rows: np.ndarray,
                 cols: np.ndarray, counts: np.ndarray, n_samples: int) -> None:
        self.true_values = true_values
        self.pred_values = pred_values
        self.rows = rows
        self.cols = cols
        self.counts = counts
        self.n_samples = n_samples

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, labels_true: ArrayLike, labels_pred: ArrayLike,
                    n_threads: int | None = None, *, warn: bool = True) -> ContingencyState:
        """Count the pairs of labels (one kernel pass); ``warn``: scikit-learn's warning
        for continuous values (its ``contingency_matrix`` does not warn).

        Parameters
        ----------
        labels_true : array-like of shape (n_samples,)
            Ground-truth class labels.
        labels_pred : array-like of shape (n_samples,)
            Cluster labels.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        warn : bool, default=True
            Emit scikit-learn's warning for continuous label values.

        Returns
        -------
        state : ContingencyState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input (lengths, 2-D labels), with scikit-learn's wording.

        See Also
        --------
        ContingencyState.merge : The state of two chunks.
        fastmetrics.streaming.ContingencyAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.contingency_matrix : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import ContingencyState
        >>> a = ContingencyState.from_arrays([0, 0, 1], ['a', 'b', 'b'])
        >>> a.n_samples
        3
        """
        at, ap = check_clusterings(labels_true, labels_pred, warn=warn)
        n = at.shape[0]
        if n == 0:
            return cls.empty()
        vt, vp = _int_view(at), _int_view(ap)
        if vt.dtype is vp.dtype or vt.dtype == vp.dtype:
            if vt.dtype.char in INT_CHARS:
                res = confusion_kernel.dense_state(
                    vt, vp.astype(vt.dtype, copy=False), DENSE_MAX_RANGE,
                    threads_for("confusion", n, n_threads))
                if res is not None:
                    values, cm, in_true = res
                    in_pred = cm.any(axis=0)
                    sub = cm if in_true.all() and in_pred.all() else cm[np.ix_(in_true,
                                                                              in_pred)]
                    r, c = np.nonzero(sub)
                    return cls(values[in_true].astype(at.dtype),
                               values[in_pred].astype(ap.dtype), r.astype(np.int64),
                               c.astype(np.int64), sub[r, c], n)
        (it,), ut = encode_labels(at)
        (ip,), up = encode_labels(ap)
        it = it.reshape(-1).astype(np.int64, copy=False)
        ip = ip.reshape(-1).astype(np.int64, copy=False)
        kt, kp = ut.shape[0], up.shape[0]
        if kt * kp <= CELL_BUDGET:
            dense = np.zeros((kt, kp), dtype=np.int64)
            kernel.count_codes(it, ip, dense)
            r, c = np.nonzero(dense)
            counts = dense[r, c]
        else:  # too many cells for a dense table: the distinct pairs, by sorting
            keys, counts = np.unique(it * kp + ip, return_counts=True)
            r, c = np.divmod(keys, kp)
        return cls(ut, up, r.astype(np.int64), c.astype(np.int64),
                   counts.astype(np.int64, copy=False), n)

    @classmethod
    def empty(cls) -> ContingencyState:
        """The state of no samples: the identity of :meth:`merge`.

        Returns
        -------
        state : ContingencyState
            An empty state.

        See Also
        --------
        ContingencyState.merge : Merging with it changes nothing.

        Examples
        --------
        >>> from fastmetrics.states import ContingencyState
        >>> ContingencyState.empty().n_samples
        0
        """
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, z, z, 0)

    @classmethod
    def from_table(cls, contingency: Any) -> ContingencyState:
        """The state of a given contingency table (scikit-learn's ``contingency=``: a
        dense array or a scipy sparse matrix, converted to int64 as scikit-learn does);
        its labels are the row and column indices. Rows or columns without samples are
        kept (they count in scikit-learn's marginals).

        Parameters
        ----------
        contingency : array-like or scipy sparse matrix of shape (n_classes, n_clusters)
            A contingency table of counts.

        Returns
        -------
        state : ContingencyState
            The state of the table.

        See Also
        --------
        ContingencyState.from_arrays : The state of two labellings.
        fastmetrics.mutual_info_score : Takes such a table as ``contingency=``.

        Examples
        --------
        >>> from fastmetrics.states import ContingencyState
        >>> ContingencyState.from_table([[2, 0], [1, 3]]).n_samples
        6
        """
        if hasattr(contingency, "tocoo") and hasattr(contingency, "nnz"):  # scipy sparse
            coo = contingency.tocoo()
            coo.sum_duplicates()
            shape = coo.shape
            r = np.asarray(coo.row, dtype=np.int64)
            c = np.asarray(coo.col, dtype=np.int64)
            v = _int64_counts(np.asarray(coo.data))
        else:
            t = np.asarray(contingency)
            if t.ndim != 2:
                raise ValueError(
                    f"Expected 2D array, got {t.ndim}D array instead: the contingency table "
                    "must be (n_classes, n_clusters)")
            t = _int64_counts(t)
            shape = t.shape
            r, c = np.nonzero(t)
            v = t[r, c]
        keep = v != 0
        order = np.lexsort((c[keep], r[keep]))
        v = v[keep][order]
        return cls(np.arange(shape[0], dtype=np.int64), np.arange(shape[1], dtype=np.int64),
                   r[keep][order], c[keep][order], v, int(v.sum()))

    # ------------------------------------------------------------------ shape
    @property
    def shape(self) -> tuple[int, int]:
        """``(K_true, K_pred)``: the dense table's shape."""
        return self.true_values.shape[0], self.pred_values.shape[0]

    def margins(self) -> tuple[np.ndarray, np.ndarray]:
        """The int64 row sums (true cluster sizes) and column sums (predicted sizes).

        Returns
        -------
        row_sums : ndarray of int64 of shape (K_true,)
            True class sizes.
        col_sums : ndarray of int64 of shape (K_pred,)
            Cluster sizes.

        See Also
        --------
        fastmetrics.contingency_matrix : The dense table.

        Examples
        --------
        >>> from fastmetrics.states import ContingencyState
        >>> ContingencyState.from_arrays([0, 0, 1], [0, 1, 1]).margins()
        (array([2, 1]), array([1, 2]))
        """
        kt, kp = self.shape
        a = np.zeros(kt, dtype=np.int64)
        b = np.zeros(kp, dtype=np.int64)
        np.add.at(a, self.rows, self.counts)
        np.add.at(b, self.cols, self.counts)
        return a, b

    # ------------------------------------------------------------------ merge
    def merge(self, other: ContingencyState) -> ContingencyState:
        """The state of both inputs: the label tables unioned, the counts added (exact).
        An empty state is the identity.

        Parameters
        ----------
        other : ContingencyState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : ContingencyState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        ContingencyState.from_arrays : The state of one chunk.
        fastmetrics.streaming.ContingencyAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.contingency_matrix : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import ContingencyState
        >>> a = ContingencyState.from_arrays([0, 0, 1], ['a', 'b', 'b'])
        >>> b = ContingencyState.from_arrays([2], ['a'])
        >>> a.merge(b).n_samples
        4
        """
        return self.merge_all([self, other])

    @classmethod
    def merge_all(cls, states: Sequence[ContingencyState]) -> ContingencyState:
        """The state of all inputs' samples, bit for bit the left fold of :meth:`merge`, in
        one walk: the label tables unioned once, every input's cells re-indexed once and
        their sorted runs merged by one stable sort (O(N log k) for N cells in k runs; the
        fold re-sorts the cells merged so far at every step).

        Parameters
        ----------
        states : sequence of ContingencyState
            At least one state.

        Returns
        -------
        state : ContingencyState
            The state of all inputs' samples (an input is returned as it is when no other
            holds samples).

        See Also
        --------
        ContingencyState.merge : Two states.

        Examples
        --------
        >>> from fastmetrics.states import ContingencyState
        >>> parts = [ContingencyState.from_arrays([i, 0], ["a", "b"]) for i in range(3)]
        >>> ContingencyState.merge_all(parts).shape
        (3, 2)
        """
        states = cls._merge_inputs(states)
        full = [st for st in states if st.n_samples]  # an empty state is the identity
        if len(full) < 2:
            return full[0] if full else states[0]
        tv, tmaps = union_all_labels([st.true_values for st in full])
        pv, pmaps = union_all_labels([st.pred_values for st in full])
        kp = pv.shape[0]
        # each input's keys stay sorted under the increasing maps: the stable sort merges runs
        key = np.concatenate([(st.rows if ti is None else ti[st.rows]) * kp
                              + (st.cols if pi is None else pi[st.cols])
                              for st, ti, pi in zip(full, tmaps, pmaps)])
        counts = np.concatenate([st.counts for st in full])
        order = np.argsort(key, kind="stable")
        key, counts = key[order], counts[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        r, c = np.divmod(key[starts], kp)
        return cls(tv, pv, r, c, np.add.reduceat(counts, starts),
                   sum(st.n_samples for st in full))

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        return {"true_values": self.true_values, "true_values_dtype": self.true_values.dtype.str,
                "pred_values": self.pred_values, "pred_values_dtype": self.pred_values.dtype.str,
                "rows": self.rows, "cols": self.cols, "counts": self.counts,
                "n_samples": self.n_samples}

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> ContingencyState:
        tv = base.labels(d, "true_values")
        pv = base.labels(d, "pred_values")
        rows = base.field(d, "rows", kinds="iu", ndim=1, dtype=np.int64)
        cols = base.field(d, "cols", kinds="iu", ndim=1, shape=rows.shape, dtype=np.int64)
        counts = base.field(d, "counts", kinds="iu", ndim=1, shape=rows.shape, dtype=np.int64)
        n = base.integer(d, "n_samples")
        for name, v in (("true_values", tv), ("pred_values", pv)):
            if v.shape[0] > 1 and not np.all(v[1:] > v[:-1]):
                raise base.StateError(f"{name} must be sorted and distinct")
        kt, kp = tv.shape[0], pv.shape[0]
        if rows.size and (rows.min() < 0 or rows.max() >= kt or cols.min() < 0
                          or cols.max() >= kp):
            raise base.StateError("a cell lies outside the label tables")
        if counts.size and counts.min() <= 0:
            raise base.StateError("cell counts must be positive")
        key = rows * kp + cols
        if key.size > 1 and not np.all(key[1:] > key[:-1]):
            raise base.StateError("cells must be distinct and sorted row-major")
        if int(counts.sum(dtype=np.int64)) != n or counts.sum() < 0:
            raise base.StateError(f"the counts sum to {int(counts.sum())}, not n_samples={n}")
        return cls(tv, pv, rows, cols, counts, n)


def _int64_counts(t: np.ndarray) -> np.ndarray:
    """scikit-learn's ``check_array(contingency, dtype=[int, np.int32, np.int64])``."""
    if t.dtype.kind == "f" and t.size and not np.isfinite(t).all():
        raise ValueError("Input contains NaN." if np.isnan(t).any() else
                         "Input contains infinity or a value too large for dtype('float64').")
    if t.dtype in (np.dtype(int), np.dtype(np.int32), np.dtype(np.int64)):
        return t.astype(np.int64, copy=False)
    try:
        return t.astype(np.int64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the contingency table must hold numbers: {exc}") from None


# ---------------------------------------------------------------------------- derivations


def table(state: ContingencyState, dtype: DTypeLike = np.int64) -> np.ndarray:
    """The dense ``(K_true, K_pred)`` table."""
    t = np.zeros(state.shape, dtype=dtype)
    t[state.rows, state.cols] = state.counts.astype(dtype, copy=False)
    return t


def check_matrix_options(eps: object, sparse: bool) -> None:
    """scikit-learn's checks of ``contingency_matrix``'s options, in its order."""
    if eps is not None and (not isinstance(eps, numbers.Real) or not float(eps) >= 0):
        raise invalid_parameter(
            f"The 'eps' parameter of contingency_matrix must be a float in the range "
            f"[0.0, inf) or None. Got {eps!r} instead.")
    if eps is not None and sparse:
        raise ValueError("Cannot set 'eps' when sparse=True")


def matrix(state: ContingencyState, eps: float | None = None, sparse: bool = False,
           dtype: DTypeLike = np.int64) -> Any:
    """scikit-learn's ``contingency_matrix``: dense (plus ``eps``) or a scipy CSR matrix."""
    check_matrix_options(eps, sparse)
    if sparse:
        from scipy import sparse as sp  # only this result needs scipy
        return sp.csr_matrix((state.counts.astype(dtype, copy=False), (state.rows, state.cols)),
                             shape=state.shape, dtype=dtype)
    t = table(state, dtype)
    return t if eps is None else t + eps


def pair_confusion(state: ContingencyState) -> np.ndarray:
    """scikit-learn's ``pair_confusion_matrix``: the 2 x 2 int64 pair counts."""
    n = np.int64(state.n_samples)
    a, b = state.margins()
    c = state.counts
    sum_squares = (c ** 2).sum()
    out = np.empty((2, 2), dtype=np.int64)
    out[1, 1] = sum_squares - n
    out[0, 1] = (c * b[state.cols]).sum() - sum_squares
    out[1, 0] = (c * a[state.rows]).sum() - sum_squares
    out[0, 0] = n ** 2 - out[0, 1] - out[1, 0] - sum_squares
    return out


def rand(state: ContingencyState) -> float:
    c = pair_confusion(state)
    numerator = c.diagonal().sum()
    denominator = c.sum()
    if numerator == denominator or denominator == 0:
        return 1.0
    return float(numerator / denominator)


def adjusted_rand(state: ContingencyState) -> float:
    (tn, fp), (fn, tp) = pair_confusion(state)
    tn, fp, fn, tp = int(tn), int(fp), int(fn), int(tp)
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def _mi(state: ContingencyState) -> float:
    pi, pj = state.margins()
    if pi.size == 1 or pj.size == 1:
        return 0.0
    nz_val = state.counts
    contingency_sum = nz_val.sum()
    log_contingency_nm = np.log(nz_val)
    contingency_nm = nz_val / contingency_sum
    outer = pi.take(state.rows) * pj.take(state.cols)
    log_outer = -np.log(outer) + math.log(pi.sum()) + math.log(pj.sum())
    mi = (contingency_nm * (log_contingency_nm - math.log(contingency_sum))
          + contingency_nm * log_outer)
    mi = np.where(np.abs(mi) < np.finfo(mi.dtype).eps, 0.0, mi)
    return float(np.clip(mi.sum(), 0.0, None))


def mutual_info(state: ContingencyState) -> float:
    """scikit-learn's ``mutual_info_score`` (natural logarithm)."""
    return _mi(state)


def _entropy(sizes: np.ndarray, n: int) -> float:
    if n == 0:
        return 1.0
    pi = sizes.astype(np.float64)
    if pi.size == 1:
        return 0.0
    pi_sum = np.sum(pi)
    return float(-np.sum((pi / pi_sum) * (np.log(pi) - math.log(pi_sum))))


def true_entropy(state: ContingencyState) -> float:
    """The entropy of ``labels_true`` (scikit-learn's private ``_entropy``)."""
    return _entropy(state.margins()[0], state.n_samples)


def pred_entropy(state: ContingencyState) -> float:
    """The entropy of ``labels_pred``."""
    return _entropy(state.margins()[1], state.n_samples)


def check_beta(beta: Any, function: str = "homogeneity_completeness_v_measure") -> Any:
    """scikit-learn's validation of ``beta`` (a real >= 0) and its error."""
    if not isinstance(beta, numbers.Real) or not float(beta) >= 0:
        raise invalid_parameter(
            f"The 'beta' parameter of {function} must be a float in the range [0.0, inf). "
            f"Got {beta!r} instead.")
    return beta


def homogeneity_completeness_v(state: ContingencyState, beta: float = 1.0
                               ) -> tuple[float, float, float]:
    """scikit-learn's ``homogeneity_completeness_v_measure``."""
    beta = check_beta(beta)
    if state.n_samples == 0:
        return 1.0, 1.0, 1.0
    a, b = state.margins()
    entropy_c = _entropy(a, state.n_samples)
    entropy_k = _entropy(b, state.n_samples)
    mi = _mi(state)
    h = mi / entropy_c if entropy_c else 1.0
    c = mi / entropy_k if entropy_k else 1.0
    if h + c == 0.0:
        v = 0.0
    else:
        v = (1 + beta) * h * c / (beta * h + c)
    return float(h), float(c), float(v)


def homogeneity(state: ContingencyState) -> float:
    return homogeneity_completeness_v(state)[0]


def completeness(state: ContingencyState) -> float:
    return homogeneity_completeness_v(state)[1]


def v_measure(state: ContingencyState, beta: float = 1.0) -> float:
    return homogeneity_completeness_v(state, beta=beta)[2]


def _average(u: float, v: float, average_method: str) -> Any:
    if average_method == "min":
        return min(u, v)
    if average_method == "geometric":
        return np.sqrt(u * v)
    if average_method == "arithmetic":
        return np.mean([u, v])
    if average_method == "max":
        return max(u, v)
    raise ValueError("'average_method' must be 'min', 'geometric', 'arithmetic', or 'max'")


def check_average(average_method: object, function: str = "adjusted_mutual_info_score") -> str:
    """scikit-learn's validation of ``average_method`` and its error."""
    if not isinstance(average_method, str) or average_method not in AVERAGE_METHODS:
        raise invalid_parameter(
            f"The 'average_method' parameter of {function} must be a str among "
            f"{{'arithmetic', 'geometric', 'max', 'min'}}. Got {average_method!r} instead.")
    return average_method


def _gammaln(x: np.ndarray) -> np.ndarray:
    """``lgamma`` of a float64 array: scipy's ``gammaln`` (scikit-learn's, so the sums
    agree to the last bits) where scipy is installed, else C's ``lgamma``."""
    try:
        from scipy.special import gammaln
    except ImportError:  # pragma: no cover - scipy comes with scikit-learn, not with us
        out = np.empty(x.shape, dtype=np.float64)
        kernel.log_gamma(np.ascontiguousarray(x, dtype=np.float64), out)
        return out
    g: np.ndarray = gammaln(x)
    return g


def expected_mutual_info(state: ContingencyState, n_samples: int | None = None) -> float:
    """The expected mutual information of labellings of the state's cluster sizes
    (scikit-learn's sum from the same tables, its negligible tails cut: the kernel) over
    ``n_samples`` (default: the state's). The per-``nij`` tables hold
    ``max(cluster size) + 1`` floats each, as scikit-learn's."""
    a, b = state.margins()
    if a.size == 1 or b.size == 1:
        return 0.0
    n = state.n_samples if n_samples is None else int(n_samples)
    nijs = np.arange(0, max(np.max(a), np.max(b)) + 1, dtype="float")
    nijs[0] = 1  # never used (scikit-learn's guard against log(0))
    log_nnij = np.log(n) + np.log(nijs)
    gln_nnij = _gammaln(nijs + 1) + _gammaln(np.array([n + 1.0]))[0]
    return kernel.expected_mutual_information(
        a, b, n, np.log(a), np.log(b), _gammaln(a + 1), _gammaln(b + 1),
        _gammaln(n - a + 1), _gammaln(n - b + 1), nijs / n, log_nnij, gln_nnij)


def adjusted_mutual_info(state: ContingencyState, average_method: str = "arithmetic"
                         ) -> float:
    """scikit-learn's ``adjusted_mutual_info_score``."""
    check_average(average_method)
    kt, kp = state.shape
    if kt == kp == 1 or kt == kp == 0:
        return 1.0
    if kt == 1 or kp == 1:
        return 0.0
    mi = _mi(state)
    emi = expected_mutual_info(state)
    a, b = state.margins()
    normalizer = _average(_entropy(a, state.n_samples), _entropy(b, state.n_samples),
                          average_method)
    denominator = normalizer - emi
    if denominator < 0:
        denominator = min(denominator, -_EPS)
    else:
        denominator = max(denominator, _EPS)
    numerator = mi - emi
    if numerator < 0:
        numerator = min(numerator, -_EPS)
    else:
        numerator = max(numerator, _EPS)
    return float(numerator / denominator)


def normalized_mutual_info(state: ContingencyState, average_method: str = "arithmetic"
                           ) -> float:
    """scikit-learn's ``normalized_mutual_info_score``."""
    check_average(average_method, "normalized_mutual_info_score")
    kt, kp = state.shape
    if kt == kp == 1 or kt == kp == 0:
        return 1.0
    mi = _mi(state)
    if mi == 0:
        return 0.0
    a, b = state.margins()
    normalizer = _average(_entropy(a, state.n_samples), _entropy(b, state.n_samples),
                          average_method)
    return float(mi / normalizer)


def fowlkes_mallows(state: ContingencyState) -> float:
    """scikit-learn's ``fowlkes_mallows_score``."""
    n = state.n_samples
    c = state.counts
    a, b = state.margins()
    tk = np.dot(c, c) - n
    pk = np.sum(b ** 2) - n
    qk = np.sum(a ** 2) - n
    return float(np.sqrt(tk / pk) * np.sqrt(tk / qk)) if tk != 0.0 else 0.0
