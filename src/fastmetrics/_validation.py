"""Input checks shared by every public function.

The rule: check shapes and dtypes here (cheap, O(1) in N); checks that need to look at every
element (ranges, NaN) are fused into the kernels' single pass.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "as_1d",
    "check_consistent_length",
    "check_sample_weight",
    "native",
]

_FAST_INT_CHARS = frozenset("bhilqBHILQ")  # int8..int64, uint8..uint64 (C type chars)


def native(a: np.ndarray) -> np.ndarray:
    """``a`` in native byte order: a view when it already is, else one converted copy."""
    if a.dtype.isnative:
        return a
    return a.astype(a.dtype.newbyteorder("="))


def as_1d(y, name: str, *, allow_2d_column: bool = True) -> np.ndarray:
    """Return ``y`` as a 1-D ndarray (no copy for ndarrays); (n, 1) columns are raveled.

    Raises ``ValueError`` naming ``name`` for scalars, 3-D input and (n, m>1) input.
    """
    a = y if type(y) is np.ndarray else np.asarray(y)
    if a.ndim == 1:
        return a
    if a.ndim == 2 and allow_2d_column and a.shape[1] == 1:
        return a[:, 0]
    if a.ndim == 0:
        raise ValueError(f"{name} must be a 1-D array-like, got a scalar: {y!r}")
    if a.ndim == 2:
        raise ValueError(
            f"{name} has shape {a.shape}: pass a 1-D array (or an (n, 1) column) of labels "
            "(multilabel indicator matrices are accepted by the scikit-learn-named "
            "classification functions, not here)"
        )
    raise ValueError(f"{name} must be 1-D (or an (n, 1) column), got {a.ndim}-D with shape {a.shape}")


def check_consistent_length(**arrays) -> int:
    """All arrays have the same first dimension; returns it. Keyword names go in the message."""
    it = iter(arrays.items())
    name0, a0 = next(it)
    n = a0.shape[0]
    for name, a in it:
        if a is not None and a.shape[0] != n:
            lens = ", ".join(f"{k}={v.shape[0]}" for k, v in arrays.items() if v is not None)
            raise ValueError(f"Found input variables with inconsistent numbers of samples: {lens}")
    return n


def check_sample_weight(sample_weight, n: int) -> np.ndarray | None:
    """1-D float32/float64 native weights of length ``n``, or None.

    Integer and bool weights are converted to float64 (one copy: weights are rarely the
    bottleneck). A scalar weight is broadcast like scikit-learn does. Finiteness is checked
    by the kernels in their pass.
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number):
        return np.full(n, float(sample_weight), dtype=np.float64)  # type: ignore[arg-type]
    w = sample_weight if type(sample_weight) is np.ndarray else np.asarray(sample_weight)
    if w.ndim != 1:
        if w.ndim == 2 and w.shape[1] == 1:
            w = w[:, 0]
        else:
            raise ValueError(f"sample_weight must be 1-D, got shape {w.shape}")
    if w.shape[0] != n:
        raise ValueError(
            f"sample_weight has {w.shape[0]} elements but the labels have {n}: lengths must match"
        )
    if w.dtype.char not in "fd":
        if w.dtype.kind not in "iub" and w.dtype.kind != "f":
            raise TypeError(f"sample_weight must be numeric, got dtype {w.dtype}")
        w = w.astype(np.float64)
    return native(w)


def is_fast_int(a: np.ndarray) -> bool:
    """True for the dtypes the kernels read directly (int8..uint64 native, and bool)."""
    return a.dtype.char in _FAST_INT_CHARS or a.dtype.kind == "b"


def zero_weight_sum_error(w: np.ndarray | None) -> Exception:
    """The error scikit-learn raises when weights sum to zero: ValueError when they are all
    zero, ZeroDivisionError when they cancel out."""
    if w is not None and not np.any(w):
        return ValueError("Sample weights must contain at least one non-zero number.")
    return ZeroDivisionError("Weights sum to zero, can't be normalized")
