"""The confusion *state*: one kernel pass over (y_true, y_pred[, weights]) -> K x K table.

Every classification metric in fastmetrics is a function of a :class:`ConfusionState`. Two
states over the same label values merge by adding their tables (see ``merge``), which is what
the streaming and parallel code build on.

Label handling
--------------
* int8..int64, uint8..uint64 and bool arrays are read in place by the kernel (bool through a
  zero-copy ``uint8`` view). The kernel counts into a dense table over the value range
  ``lo .. lo + k - 1``; the range check is part of the counting pass.
* Floats holding integers are converted to int64 once (after a finiteness/integrality check);
  strings, objects and sparse huge integer ranges are encoded once with ``np.unique`` and then
  take the same kernel path over their codes.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._kernels import confusion as _confusion
from ._threads import threads_for
from ._validation import as_1d, native

__all__ = ["ConfusionState", "confusion_state"]

_INT_CHARS = frozenset("bhilqBHILQ")
_PROBE = 1 << 16  # elements sampled to guess the value range of large inputs
_DENSE_MAX_RANGE = 1024  # value ranges wider than this are encoded instead of tabled
_LANE_MIN = 1 << 16  # at least this many elements per lane
_MAX_LANES = 64
_CELL_BUDGET = 1 << 22  # table cells over all lanes (32 MiB)
_PARALLEL_MIN = 1 << 18  # below this, one thread: OpenMP start-up costs more than it saves
_U64 = 1 << 64
# read-only "every label present" masks, sliced instead of allocated on the hot path
_ALL_PRESENT = np.ones(_DENSE_MAX_RANGE, dtype=bool)
_ALL_PRESENT.setflags(write=False)


class ConfusionState:
    """A K x K confusion table over sorted label ``values``.

    Attributes
    ----------
    values : ndarray (K,)
        Sorted label values: those present in y_true or y_pred, plus requested labels.
    cm : ndarray (K, K)
        ``cm[i, j]`` = count (int64) or weight sum (float64) of samples with true label
        ``values[i]`` and predicted label ``values[j]``.
    present : ndarray of bool (K,)
        Which values occur in y_true or y_pred (requested-only labels are False).
    n_samples : int
    weight_sum : float or None
        Sum of sample weights (None when unweighted).
    int_weights : bool
        Weights were integer/bool typed (scikit-learn then reports int64 matrices).
    in_true : ndarray of bool (K,)
        Which values occur in y_true.
    margins : ndarray (2, K) or None
        Weighted only: per-label weight sums over y_true (row 0) and y_pred (row 1), added
        in input order like ``np.bincount(..., weights=)`` (equal to the row/column sums of
        ``cm`` up to rounding).
    """

    __slots__ = ("values", "cm", "present", "n_samples", "weight_sum", "int_weights",
                 "in_true", "margins")

    def __init__(self, values, cm, present, n_samples, weight_sum=None, int_weights=False,
                 in_true=None, margins=None):
        self.values = values
        self.cm = cm
        self.present = present
        self.n_samples = n_samples
        self.weight_sum = weight_sum
        self.int_weights = int_weights
        self.in_true = present if in_true is None else in_true
        self.margins = margins

    @property
    def weighted(self) -> bool:
        return self.weight_sum is not None

    @property
    def present_labels(self) -> np.ndarray:
        return self.values[self.present]

    @property
    def y_type(self) -> str:
        """'binary' or 'multiclass', by scikit-learn's rule (number of present labels)."""
        return "binary" if int(np.count_nonzero(self.present)) <= 2 else "multiclass"

    def merge(self, other: "ConfusionState") -> "ConfusionState":
        """Sum of two states (label sets are unioned)."""
        values = np.union1d(self.values, other.values)
        k = len(values)
        dtype = np.float64 if (self.weighted or other.weighted) else np.int64
        cm = np.zeros((k, k), dtype=dtype)
        present = np.zeros(k, dtype=bool)
        in_true = np.zeros(k, dtype=bool)
        margins = np.zeros((2, k)) if dtype is np.float64 else None
        for s in (self, other):
            ix = np.searchsorted(values, s.values)
            cm[np.ix_(ix, ix)] += s.cm
            present[ix] |= s.present
            in_true[ix] |= s.in_true
            if margins is not None:
                margins[:, ix] += s.margins if s.margins is not None else np.stack(
                    [s.cm.sum(axis=1), s.cm.sum(axis=0)])
        ws = None
        if self.weighted or other.weighted:
            ws = (self.weight_sum if self.weighted else float(self.n_samples)) + (
                other.weight_sum if other.weighted else float(other.n_samples)
            )
        return ConfusionState(
            values, cm, present, self.n_samples + other.n_samples, ws,
            self.int_weights and other.int_weights, in_true, margins,
        )


_mix_msg = "Mix of label input types (string and number)"


def _check_float_labels(a: np.ndarray, name: str) -> np.ndarray:
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or infinity; labels must be finite")
    if not np.array_equal(a, np.floor(a)):
        raise ValueError(
            f"{name} contains non-integer float values (continuous targets): "
            "classification metrics need discrete labels"
        )
    if a.size and (a.min() < -(2.0**63) or a.max() >= 2.0**63):
        raise ValueError(f"{name} holds integral floats outside the int64 range")
    return a.astype(np.int64)


def _object_kind(a: np.ndarray, name: str) -> str:
    """'str' or 'num' for an object array, else raise."""
    has_str = has_num = False
    for v in set(a.tolist()) if a.size < 1_000_000 else set(np.unique(a.astype(str)).tolist()):
        if isinstance(v, str):
            has_str = True
        elif isinstance(v, (numbers.Number, np.generic)) and not isinstance(v, complex):
            has_num = True
        elif v is None:
            raise ValueError(f"{name} contains None; labels must be numbers or strings")
        else:
            raise TypeError(f"{name} contains an unsupported label type {type(v).__name__}")
    if has_str and has_num:
        raise ValueError(_mix_msg)
    return "str" if has_str else "num"


def _prepare(a: np.ndarray, name: str):
    """Return (array for the kernel or None, label dtype, kind) with kind in
    {'int', 'str'}; floats and numeric objects become int64."""
    ch = a.dtype.char
    if ch in _INT_CHARS:
        return native(a), a.dtype, "int"
    k = a.dtype.kind
    if k == "b":
        return a.view(np.uint8), a.dtype, "int"
    if k == "f":
        return _check_float_labels(a, name), a.dtype, "int"
    if k in "US":
        return a, a.dtype, "str"
    if k == "O":
        if _object_kind(a, name) == "str":
            return a.astype(str), np.dtype(str), "str"
        conv = np.array(a.tolist())
        if conv.dtype.kind == "O":
            raise TypeError(f"{name}: unsupported object labels")
        return _prepare(conv, name)
    raise TypeError(f"{name} has unsupported dtype {a.dtype} for class labels")


def _next_pow2(x: int) -> int:
    return 1 << max(0, (x - 1).bit_length())


def _n_lanes(n: int, cells: int) -> int:
    return max(1, min(_MAX_LANES, n // _LANE_MIN, _CELL_BUDGET // cells))


def _count_weighted(yt, yp, w, lo: int, k: int, nt: int):
    """Weighted kernel over the value range [lo, lo + k): (table k x k, seen (2, k),
    margins (2, k)), or None when a value falls outside the range."""
    n = yt.shape[0]
    lanes = _n_lanes(n, k * k + 4 * k)
    tables = np.zeros((lanes, k * k), dtype=np.float64)
    seen = np.zeros((lanes, 2 * k), dtype=np.int64)
    margins = np.zeros((lanes, 2 * k), dtype=np.float64)
    bad = np.full((lanes, 2), -1, dtype=np.int64)
    _confusion.count_weighted(yt, yp, w, lo % _U64, k, tables, seen, margins, bad, nt)
    if bad[:, 0].max() >= 0:
        if (bad[:, 1][bad[:, 0] >= 0] == 3).any():
            raise ValueError("sample_weight contains NaN or infinity")
        return None
    # lanes are summed in lane order: the same bits whatever the thread count
    return (np.add.reduce(tables, axis=0).reshape(k, k), seen.sum(axis=0).reshape(2, k),
            np.add.reduce(margins, axis=0).reshape(2, k))


def common_int(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer label arrays ``a`` and ``b`` in one integer dtype that holds both exactly.

    numpy compares int64 with uint64 as float64, which merges labels near 2**63; here the
    uint64 side becomes int64 when its values are below 2**63, or the signed side uint64 when
    it has no negative values, and a mix that no integer type holds raises ValueError.
    Other pairs come back unchanged.
    """
    if (a.dtype.kind not in "iu" or b.dtype.kind not in "iu"
            or np.promote_types(a.dtype, b.dtype).kind != "f"):
        return a, b
    ua = a.dtype.kind == "u"
    u, s = (a, b) if ua else (b, a)
    if u.size == 0 or int(u.max()) < 2**63:
        u = u.astype(np.int64)
    elif s.size == 0 or int(s.min()) >= 0:
        s = s.astype(np.uint64)
    else:
        raise ValueError(
            "labels mix negative values and uint64 values >= 2**63, which no integer type "
            "holds together"
        )
    return (u, s) if ua else (s, u)


def _minmax(a, stop=None):
    return _confusion.minmax(a, a.shape[0] if stop is None else stop)


def plain_int_pair(y_true, y_pred) -> bool:
    """Two native, non-empty 1-D numpy arrays of one integer dtype and one length: what the
    counting kernels read in place, with nothing to validate or convert."""
    return (type(y_true) is np.ndarray and type(y_pred) is np.ndarray
            and y_true.ndim == 1 and y_pred.ndim == 1 and y_true.dtype is y_pred.dtype
            and y_true.dtype.char in _INT_CHARS and y_true.dtype.isnative
            and 0 < y_true.shape[0] == y_pred.shape[0])


def confusion_state(y_true, y_pred, sample_weight=None, n_threads=None,
                    *, allow_empty=False) -> ConfusionState:
    """Count (y_true, y_pred) pairs into a :class:`ConfusionState` (one kernel pass).

    The state holds the labels that occur in the data; metrics that take ``labels=`` extend
    it with zero rows (``classification._with_labels``). Raises ``ValueError``/``TypeError``
    naming the argument for bad input; empty input is an error unless ``allow_empty``.
    """
    # Hot path (the common call: two native 1-D integer arrays of one dtype, unweighted):
    # straight to the kernel, so small calls cost microseconds.
    if sample_weight is None and plain_int_pair(y_true, y_pred):
        nt = threads_for(n_threads, y_true.shape[0], _PARALLEL_MIN)
        res = _confusion.dense_state(y_true, y_pred, _DENSE_MAX_RANGE, nt)
        if res is not None:
            values, cm, in_true = res
            if values.dtype is not y_true.dtype:
                values = values.astype(y_true.dtype)
            return ConfusionState(values, cm, _ALL_PRESENT[: values.shape[0]],
                                  y_true.shape[0], None, False, in_true)
    yt = as_1d(y_true, "y_true")
    yp = as_1d(y_pred, "y_pred")
    n = yt.shape[0]
    nt = threads_for(n_threads, n, _PARALLEL_MIN)
    if yp.shape[0] != n:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"y_true={n}, y_pred={yp.shape[0]}"
        )
    w = None
    int_weights = False
    if sample_weight is not None:
        sw = sample_weight if type(sample_weight) is np.ndarray else np.asarray(sample_weight)
        if sw.ndim != 1:
            raise ValueError(f"sample_weight must be a 1-D array, got shape {sw.shape}")
        if sw.shape[0] != n:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"y_true={n}, sample_weight={sw.shape[0]}"
            )
        if sw.dtype.kind in "iub":
            int_weights = True
            sw = sw.astype(np.float64)
        elif sw.dtype.char not in "fd":
            if sw.dtype.kind != "f":
                raise TypeError(f"sample_weight must be numeric, got dtype {sw.dtype}")
            sw = sw.astype(np.float64)
        w = native(sw)
        if n and not w.any():
            raise ValueError("sample_weight must contain at least one non-zero weight")
    if n == 0 and not allow_empty:
        raise ValueError(
            "Found empty input array (e.g., `y_true` or `y_pred`) while a minimum of 1 "
            "sample is required."
        )

    at, dt_t, kt = _prepare(yt, "y_true")
    ap, dt_p, kp = _prepare(yp, "y_pred")
    if kt != kp:
        raise ValueError(_mix_msg)
    out_dtype = np.result_type(dt_t, dt_p)
    if n == 0:
        return ConfusionState(np.empty(0, dtype=out_dtype), np.zeros((0, 0), dtype=np.int64),
                              np.zeros(0, dtype=bool), 0, None if w is None else 0.0,
                              int_weights, None, None if w is None else np.zeros((2, 0)))
    if kt == "int":
        if at.dtype != ap.dtype:
            at, ap = common_int(at, ap)
            common = np.promote_types(at.dtype, ap.dtype)
            at = at.astype(common, copy=False)
            ap = ap.astype(common, copy=False)
            if out_dtype.kind == "f" and dt_t.kind in "iu" and dt_p.kind in "iu":
                out_dtype = common  # int64 with uint64: integers, not float64
        if w is None:
            res = _confusion.dense_state(at, ap, _DENSE_MAX_RANGE, nt)
            if res is not None:
                values, cm, in_true = res
                return ConfusionState(values.astype(out_dtype, copy=False), cm,
                                      _ALL_PRESENT[: values.shape[0]], n, None, False, in_true)
        else:
            res = _weighted_int(at, ap, w, nt)
            if res is not None:
                values, cm, present, in_true, margins = res
                return ConfusionState(values.astype(out_dtype, copy=False), cm, present, n,
                                      _wsum(w), int_weights, in_true, margins)
    return _state_encoded(at, ap, kt, out_dtype, w, int_weights, nt)


def _wsum(w) -> float:
    return float(np.sum(w, dtype=np.float64))


def _weighted_int(at, ap, w, nt):
    """Weighted dense-table path for integer arrays: (values int64, cm, present, in_true,
    margins) over the values that occur, or None when the value range is too wide."""
    n = at.shape[0]
    exact = n <= _PROBE
    lo_t, hi_t = _minmax(at, min(n, _PROBE))
    lo_p, hi_p = _minmax(ap, min(n, _PROBE))
    lo, hi = min(lo_t, lo_p), max(hi_t, hi_p)
    if not exact:
        lo = min(lo, 0)
    res = None
    if hi - lo < _DENSE_MAX_RANGE:
        k = _next_pow2(hi - lo + 1)
        res = _count_weighted(at, ap, w, lo, k if exact else max(k, 16), nt)
    if res is None and not exact:  # a value beyond the probed range: measure it exactly
        lo_t, hi_t = _minmax(at)
        lo_p, hi_p = _minmax(ap)
        lo, hi = min(lo_t, lo_p), max(hi_t, hi_p)
        if hi - lo < _DENSE_MAX_RANGE:
            res = _count_weighted(at, ap, w, lo, _next_pow2(hi - lo + 1), nt)
    if res is None:
        return None
    table, seen, margins = res
    in_true = seen[0] > 0
    present = in_true | (seen[1] > 0)
    idx = np.flatnonzero(present)
    return idx + lo, table[np.ix_(idx, idx)], present[idx], in_true[idx], margins[:, idx]


def _state_encoded(at, ap, kind, out_dtype, w, int_weights, nt) -> ConfusionState:
    """Encode labels prepared by ``_prepare`` (integers of one dtype, or strings) with
    np.unique, then count the codes with the kernel; numeric labels come back as
    ``out_dtype``."""
    n = at.shape[0]
    ut, it = np.unique(at, return_inverse=True)
    up, ip = np.unique(ap, return_inverse=True)
    values = np.union1d(ut, up)
    ct = np.searchsorted(values, ut)[it.reshape(-1)]
    cp = np.searchsorted(values, up)[ip.reshape(-1)]
    k = len(values)
    margins = None
    res = None
    if k <= _DENSE_MAX_RANGE:
        res = (_confusion.dense_state(ct, cp, _DENSE_MAX_RANGE, nt) if w is None
               else _count_weighted(ct, cp, w, 0, _next_pow2(k), nt))
    if res is None:  # very many distinct labels: bincount on the codes (still exact)
        if w is None:
            cm = np.bincount(ct * k + cp, minlength=k * k).reshape(k, k).astype(np.int64)
        else:
            if not np.isfinite(w).all():
                raise ValueError("sample_weight contains NaN or infinity")
            cm = np.bincount(ct * k + cp, weights=w, minlength=k * k).reshape(k, k)
            margins = np.stack([np.bincount(ct, weights=w, minlength=k),
                                np.bincount(cp, weights=w, minlength=k)])
    elif w is None:
        cm = res[1]  # every code occurs, so the compact table is the full k x k one
    else:
        cm = res[0][:k, :k]
        margins = res[2][:, :k]  # type: ignore[assignment]
    present = np.ones(k, dtype=bool)
    in_true = np.isin(values, ut)
    if kind == "int":
        values = values.astype(out_dtype, copy=False)
    return ConfusionState(values, cm, present, n, None if w is None else _wsum(w), int_weights,
                          in_true, margins)
