"""Multilabel-indicator targets: (n, L) 0/1 matrices -> per-label counts in one pass.

scikit-learn treats a 2-D target whose values are all 0 or 1 as 'multilabel-indicator':
label j is column j. This module validates such input and fills the per-label state
(tp, predicted, true sums; the number of rows predicted exactly) with one kernel pass.
"""

from __future__ import annotations

import numpy as np

from ._kernels import multilabel as _multilabel
from ._validation import native

__all__ = ["MultilabelState", "multilabel_route", "multilabel_state"]

_INT_CHARS = frozenset("bhilqBHILQ")
_EMPTY_W = np.zeros(0, dtype=np.float64)


def _ndim(y) -> int:
    nd = getattr(y, "ndim", None)
    return np.ndim(y) if nd is None else nd


def _is_multi_2d(y) -> bool:
    if _ndim(y) != 2:
        return False
    shape = getattr(y, "shape", None) or np.shape(y)
    return shape[1] != 1


def _type_1d(y) -> str:
    a = np.asarray(y).reshape(-1)
    if a.dtype.kind == "f" and a.size and not np.array_equal(a, np.floor(a)):
        return "continuous"
    return "binary" if np.unique(a).size <= 2 else "multiclass"


def multilabel_route(y_true, y_pred) -> bool:
    """True when both targets are 2-D indicator-like matrices; raises for a mixture of a
    2-D target with a 1-D one (scikit-learn's message)."""
    if getattr(y_true, "ndim", 0) == 1 and getattr(y_pred, "ndim", 0) == 1:
        return False  # the common case, decided without a call
    mt, mp = _is_multi_2d(y_true), _is_multi_2d(y_pred)
    if mt and mp:
        return True
    if mt or mp:
        t = "multilabel-indicator" if mt else _type_1d(y_true)
        p = "multilabel-indicator" if mp else _type_1d(y_pred)
        raise ValueError(f"Classification metrics can't handle a mix of {t} and {p} targets")
    return False


class MultilabelState:
    """Per-label sums over L columns: ``tp``, ``pred``, ``true`` (int64 counts, float64 when
    weighted), ``exact`` rows (count or weight),
    ``n_samples``, ``weight_sum`` (None unweighted) and the validated matrices (kept for the
    sample-wise average, which needs per-row counts)."""

    __slots__ = ("tp", "pred", "true", "exact", "n_samples", "weight_sum", "yt", "yp", "w")

    def __init__(self, tp, pred, true, exact, n_samples, weight_sum, yt, yp, w):
        self.tp, self.pred, self.true = tp, pred, true
        self.exact, self.n_samples, self.weight_sum = exact, n_samples, weight_sum
        self.yt, self.yp, self.w = yt, yp, w

    @property
    def n_labels(self) -> int:
        return self.tp.shape[0]

    @property
    def weighted(self) -> bool:
        return self.weight_sum is not None

    def row_sums(self, idx):
        """Per-sample (tp, pred, true) over the columns ``idx`` (O(n) memory: the
        sample-wise average is the one multilabel path that is not a per-label state)."""
        a = self.yt[:, idx] != 0
        b = self.yp[:, idx] != 0
        ab = a & b
        counts = ab.sum(1), b.sum(1), a.sum(1)
        if self.w is None:
            return counts
        return tuple(c * self.w for c in counts)  # scikit-learn: count times the weight


def _as_indicator(y, name):
    a = native(np.asarray(y))
    if a.dtype.kind == "b":
        return a.view(np.uint8)
    if a.dtype.char in _INT_CHARS:
        return a
    if a.dtype.kind == "f":
        if not np.isin(a, (0.0, 1.0)).all():
            raise ValueError(
                f"{name} is 2-D with values other than 0 and 1: multiclass-multioutput / "
                "continuous-multioutput targets are not supported"
            )
        return a.astype(np.int8)
    raise ValueError(
        f"{name} is 2-D with {a.dtype} values: multiclass-multioutput is not supported"
    )


def multilabel_state(y_true, y_pred, sample_weight=None) -> MultilabelState:
    yt = _as_indicator(y_true, "y_true")
    yp = _as_indicator(y_pred, "y_pred")
    n = yt.shape[0]
    if yp.shape[0] != n:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"y_true={n}, y_pred={yp.shape[0]}"
        )
    if yt.shape[1] != yp.shape[1]:
        raise ValueError("Multi-label binary indicator input with different numbers of labels")
    if n == 0:
        raise ValueError(
            "Found empty input array (e.g., `y_true` or `y_pred`) while a minimum of 1 "
            "sample is required."
        )
    if yt.dtype != yp.dtype:
        common = np.promote_types(yt.dtype, yp.dtype)
        if common.kind not in "iu":
            common = np.dtype(np.int64)
        yt, yp = yt.astype(common), yp.astype(common)
    L = yt.shape[1]
    w = None
    if sample_weight is not None:
        w = np.asarray(sample_weight)
        if w.ndim != 1 or w.shape[0] != n:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"y_true={n}, sample_weight={w.shape[0] if w.ndim else 'scalar'}"
            )
        if w.dtype.kind not in "iufb":
            raise TypeError(f"sample_weight must be numeric, got dtype {w.dtype}")
        w = native(w.astype(np.float64, copy=False))
        if not np.isfinite(w).all():
            raise ValueError("sample_weight contains NaN or infinity")
        if not w.any():
            raise ValueError("sample_weight must contain at least one non-zero weight")
    icols = np.zeros((3, L), dtype=np.int64)
    fcols = np.zeros((3, L), dtype=np.float64)
    bad_i, bad_j, exact = _multilabel.count(yt, yp, _EMPTY_W if w is None else w,
                                            w is not None, icols, fcols)
    if bad_i >= 0:
        which = "y_true" if yt[bad_i, bad_j] not in (0, 1) else "y_pred"
        raise ValueError(
            f"{which} is 2-D with a value other than 0 and 1 at [{bad_i}, {bad_j}]: "
            "multiclass-multioutput is not supported"
        )
    cols = fcols if w is not None else icols
    return MultilabelState(cols[0], cols[1], cols[2], exact, n,
                           None if w is None else float(np.sum(w)), yt, yp, w)
