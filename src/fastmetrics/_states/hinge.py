"""The hinge state: one kernel pass over (y_true, decision values[, weights]) -> the weighted
hinge loss per class of ``y_true``, and ``hinge_loss`` derived from it.

Binary and multiclass, as scikit-learn decides
----------------------------------------------
scikit-learn counts the classes of ``labels`` (when given) or of ``y_true``. More than two:
multiclass, the decisions are (n, K) over the sorted classes and a sample's loss is
``max(0, 1 - (d[c] - max_{j != c} d[j]))``. At most two: binary, the decisions are 1-D and
``y_true`` is mapped to -1 / +1 by a ``LabelBinarizer`` fitted on ``y_true`` alone (the
greater of two classes +1; a single class all -1; more classes, possible when ``labels``
holds at most two: the first class +1, the others -1), the loss ``max(0, 1 - y * d)``.

Sums
----
``sums`` holds the slots of ``fastmetrics._kernels.proba`` used here (``W`` the weight
total, ``LOSS`` the weighted loss summed in sample order, ``N`` samples, ``NAN``, ``MAXP``,
``MINP`` the checks of the pass). ``per_class``
(3, K) holds per class of ``y_true`` its sample count and, binary, the weighted loss of its
samples were it the positive class (``max(0, 1 - d)``) and the negative one
(``max(0, 1 + d)``); multiclass, the weighted loss in the second row. Binary states keep the
classes of ``y_true`` only and merge over the union of them, so the -1 / +1 mapping of all
the data is taken when the metric is derived (``LOSS``, summed under a chunk's own mapping,
is NaN once states over other classes merge; while it holds, it is the sum used: the order
of a single pass); multiclass states merge over the same columns.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import (
    Encoded,
    column,
    float_values,
    inconsistent_lengths,
    label_input,
    sample_weight as check_weights,
    union_labels,
)
from .._kernels import proba as kernel
from .._threads import threads_for
from . import base
from .proba import STREAMED, encode, label_table, undeclared

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._typing import ArrayLike

__all__ = ["HingeState", "hinge"]

_NO_WEIGHTS = np.empty(0)
_NO_WEIGHTS.setflags(write=False)
_ALL = ("Please include all labels in y_true or pass labels as third argument")


def _one_d_error(n: int, n_classes: int, shape: tuple[int, ...]) -> ValueError:
    return ValueError(
        "The shape of pred_decision cannot be 1d arraywith a multiclass target. "
        "pred_decision shape must be (n_samples, n_classes), that is "
        f"({n}, {n_classes}). Got: {shape}")


def _decisions(pred_decision: ArrayLike) -> np.ndarray:
    """scikit-learn's ``check_array(pred_decision, ensure_2d=False)``: numbers, at most 2-D,
    read in place when float32 / float64."""
    a = pred_decision if type(pred_decision) is np.ndarray else np.asarray(pred_decision)
    if a.dtype.kind in "US":
        raise ValueError("dtype='numeric' is not compatible with arrays of bytes/strings."
                         "Convert your data to numeric values explicitly instead.")
    D = float_values(a, "pred_decision")
    if D.ndim > 2:
        raise ValueError(f"Found array with dim {D.ndim}. None expected <= 2.")
    if D.ndim == 0:
        raise ValueError(f"pred_decision must be an array of decision values, got a scalar: "
                         f"{pred_decision!r}")
    return D


class HingeState(base.State):
    """The per-class hinge sums of one or more passes over (y_true, decisions[, weights]).

    Parameters
    ----------
    classes : ndarray (K,)
        Binary: the sorted classes of ``y_true`` seen; multiclass: the sorted classes of the
        columns of the decisions.
    binary : bool
        The decisions were 1-D (scikit-learn's binary case).
    n_labels : int
        The number of distinct ``labels`` given (0: none), which decides binary or
        multiclass as in scikit-learn.
    sums : ndarray (proba.N_SUMS,), float64
        ``W``, ``LOSS``, ``N``, ``NAN``, ``MAXP``, ``MINP`` (the other slots are 0; binary
        ``LOSS`` NaN when the mapping of its classes changed on a merge).
    per_class : ndarray (3, K), float64
        Per class: the sample count, the weighted loss as the positive class (multiclass:
        the weighted loss), the weighted loss as the negative class (multiclass: 0).
    weighted, any_weight : bool
        Sample weights were given; some weight is non-zero.

    See Also
    --------
    HingeState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.HingeAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.hinge_loss : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import HingeState
    >>> a = HingeState.from_arrays([1, 1], [0.5, 2.0])
    >>> b = HingeState.from_arrays([0], [-0.25])
    >>> (a + b).classes.tolist(), round(float((a + b).sums[0]), 1)
    ([0, 1], 3.0)
    """

    kind = "hinge"
    __slots__ = ("classes", "binary", "n_labels", "sums", "per_class", "weighted",
                 "any_weight")

    def __init__(self, classes: np.ndarray, binary: bool, n_labels: int, sums: np.ndarray,
                 per_class: np.ndarray, weighted: bool, any_weight: bool) -> None:
        self.classes = classes
        self.binary = binary
        self.n_labels = n_labels
        self.sums = sums
        self.per_class = per_class
        self.weighted = weighted
        self.any_weight = any_weight

    @property
    def n_samples(self) -> int:
        """The number of samples the state summarises."""
        return int(self.sums[kernel.N])

    def __repr__(self) -> str:
        return (f"HingeState(binary={self.binary}, n_classes={self.classes.shape[0]}, "
                f"n_samples={self.n_samples})")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, y_true: ArrayLike, pred_decision: ArrayLike,
                    sample_weight: ArrayLike | None = None, *, labels: ArrayLike | None = None,
                    n_threads: int | None = None, allow_empty: bool = False,
                    streamed: bool = False) -> HingeState:
        """One kernel pass, with scikit-learn's checks and errors; ``allow_empty`` accepts
        an empty chunk, ``streamed`` words the errors for a chunk of a stream.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        pred_decision : array-like of shape (n_samples,) or (n_samples, n_classes)
            Decision values: 1-D for binary, one column per class for multiclass.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        labels : array-like of shape (n_classes,) or None, default=None
            The classes of the columns (multiclass; None: the classes of ``y_true``).
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.
        streamed : bool, default=False
            Word the errors for a chunk of a stream.

        Returns
        -------
        state : HingeState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording where it has one (lengths, NaN or infinity,
            shapes, dtypes), and for empty input unless ``allow_empty``.

        See Also
        --------
        HingeState.merge : The state of two chunks.
        fastmetrics.streaming.HingeAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.hinge_loss : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import HingeState
        >>> a = HingeState.from_arrays([1, 1], [0.5, 2.0])
        >>> a.n_samples
        2
        """
        yt = label_input(y_true, "y_true")  # data-frame text labels stay codes (Encoded)
        D = _decisions(pred_decision)
        n = D.shape[0]
        n_y = yt.shape[0] if yt.ndim else 1
        w_len = None if sample_weight is None else (np.shape(sample_weight) or (1,))[0]
        if n_y != n or (w_len is not None and w_len != n):
            raise inconsistent_lengths(y_true=n_y, pred_decision=n, sample_weight=w_len)
        if yt.ndim == 2 and yt.shape[1] != 1:
            raise ValueError(f"y should be a 1d array, got an array of shape {yt.shape} "
                             "instead.")
        y = yt if isinstance(yt, Encoded) else column(yt, "y_true")
        w = check_weights(sample_weight, {"y_true": n, "pred_decision": n},
                          allow_zero_sum=True)
        given = None if labels is None else np.unique(label_table(labels))
        n_labels = 0 if given is None else int(given.shape[0])
        if n == 0:
            if not allow_empty:
                raise ValueError(f"Found array with 0 sample(s) (shape={D.shape}) while a "
                                 "minimum of 1 is required.")
            return cls._empty(given if given is not None and n_labels > 2
                              else np.zeros(0, np.int64), n_labels <= 2 and D.ndim == 1,
                              n_labels)
        if given is not None and n_labels > 2:
            classes: np.ndarray = given
            coded = False
        else:
            classes, yk, lo, lut = encode(y, None, None)
            coded = True
        K = classes.shape[0]
        if (n_labels or K) > 2:
            if D.ndim == 1:
                raise _one_d_error(y.shape[0], K, D.shape)
            if D.shape[1] != K:
                if given is None:
                    raise ValueError(_ALL + (STREAMED.replace("y_proba", "pred_decision")
                                             if streamed else ""))
                raise ValueError(
                    "The shape of pred_decision is not consistent with the number of "
                    "classes. With a multiclass target, pred_decision shape must be "
                    f"(n_samples, n_classes), that is ({n}, {K}). Got: {D.shape}")
            binary = False
            if not coded:
                try:
                    _, yk, lo, lut = encode(y, labels, classes)
                except ValueError:
                    raise _unseen(y, classes) from None
        else:
            if D.ndim == 2 and D.shape[1] != 1:
                raise ValueError(
                    f"y should be a 1d array, got an array of shape {D.shape} instead."
                    + (STREAMED.replace("y_proba", "pred_decision") if streamed else ""))
            binary = True
            D = D.reshape(n, 1) if D.ndim == 1 else D
        sums = np.zeros(kernel.N_SUMS)
        sums[kernel.MAXP], sums[kernel.MINP] = -math.inf, math.inf
        per_class = np.zeros((3, K))
        sign = np.full(K, -1, dtype=np.int8)
        if binary and K > 1:  # LabelBinarizer: the greater of two classes, else the first
            sign[1 if K == 2 else 0] = 1
        bad = kernel.hinge(D, binary, yk, lo, lut, sign,
                           _NO_WEIGHTS if w is None else w, w is not None, sums, per_class,
                           n_threads=threads_for("proba", n, n_threads))
        if bad >= 0:
            raise _unseen(y, classes)
        if sums[kernel.NAN] or not (math.isfinite(sums[kernel.MAXP])
                                    and math.isfinite(sums[kernel.MINP])):
            what = ("NaN" if sums[kernel.NAN]
                    else f"infinity or a value too large for {np.dtype(np.float64)!r}")
            raise ValueError(f"Input contains {what}.")
        return cls(classes, binary, n_labels, sums, per_class, w is not None,
                   w is None or bool(np.any(w)))

    @classmethod
    def _empty(cls, classes: np.ndarray, binary: bool, n_labels: int) -> HingeState:
        sums = np.zeros(kernel.N_SUMS)
        sums[kernel.MAXP], sums[kernel.MINP] = -math.inf, math.inf
        return cls(classes, binary, n_labels, sums, np.zeros((3, classes.shape[0])), False,
                   False)

    # ------------------------------------------------------------------ merge
    def merge(self, other: HingeState) -> HingeState:
        """The state of both inputs: sums add; binary states over the union of their
        classes, multiclass ones over the same columns (an empty state is the identity).

        Parameters
        ----------
        other : HingeState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : HingeState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        HingeState.from_arrays : The state of one chunk.
        fastmetrics.streaming.HingeAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.hinge_loss : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import HingeState
        >>> a = HingeState.from_arrays([1, 1], [0.5, 2.0])
        >>> b = HingeState.from_arrays([0], [-0.25])
        >>> a.merge(b).classes
        array([0, 1])
        """
        self._check_mergeable(other)
        if other.n_samples == 0:
            return self
        if self.n_samples == 0:
            return other
        if self.n_labels != other.n_labels:
            raise ValueError("cannot merge hinge states built with different labels")
        if self.binary != other.binary:
            raise ValueError("cannot merge a hinge state of 1-D decisions (binary) with one "
                             "of (n, K) decisions (multiclass)")
        s = self.sums + other.sums
        s[kernel.MAXP] = max(self.sums[kernel.MAXP], other.sums[kernel.MAXP])
        s[kernel.MINP] = min(self.sums[kernel.MINP], other.sums[kernel.MINP])
        if self.binary:
            classes, ia, ib = union_labels(self.classes, other.classes)
            if ia is None:
                per_class = self.per_class + other.per_class
            else:
                per_class = np.zeros((3, classes.shape[0]))
                per_class[:, ia] += self.per_class
                per_class[:, ib] += other.per_class
                s[kernel.LOSS] = math.nan  # summed under the mappings of fewer classes
        else:
            if self.classes.shape != other.classes.shape or \
                    not np.array_equal(self.classes, other.classes):
                raise ValueError(
                    f"cannot merge hinge states over different classes "
                    f"({self.classes.tolist()} and {other.classes.tolist()}): give every "
                    "chunk the same labels= (the columns of pred_decision)")
            classes, per_class = self.classes, self.per_class + other.per_class
        return HingeState(classes, self.binary, self.n_labels, s, per_class,
                          self.weighted or other.weighted,
                          self.any_weight or other.any_weight)

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        return {
            "classes": self.classes.copy(),
            "classes_dtype": self.classes.dtype.str,
            "binary": bool(self.binary),
            "n_labels": int(self.n_labels),
            "sums": self.sums.copy(),
            "per_class": self.per_class.copy(),
            "weighted": bool(self.weighted),
            "any_weight": bool(self.any_weight),
        }

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> HingeState:
        classes = base.labels(d, "classes")
        K = classes.shape[0]
        if K and np.any(classes[1:] <= classes[:-1]):
            raise base.StateError("the classes must be sorted and unique")
        binary = base.flag(d, "binary")
        n_labels = base.integer(d, "n_labels")
        if n_labels < 0 or n_labels == 0 and not binary and K and K <= 2 \
                or n_labels > 2 and binary or 0 < n_labels <= 2 and not binary:
            raise base.StateError("n_labels does not fit binary / multiclass")
        s = base.field(d, "sums", kinds="f", ndim=1, shape=(kernel.N_SUMS,),
                       dtype=np.float64).copy()
        pc = base.field(d, "per_class", kinds="f", ndim=2, shape=(3, K),
                        dtype=np.float64).copy()
        weighted, any_weight = base.flag(d, "weighted"), base.flag(d, "any_weight")
        plain = [kernel.W, kernel.N]
        if not (binary and math.isnan(s[kernel.LOSS])):
            plain.append(kernel.LOSS)
        if any(s[i] != 0 for i in (kernel.UNNORMED, kernel.NAN, kernel.HITS, kernel.HITS0)):
            raise base.StateError("a sum this state was not built for must be 0")
        if not (np.isfinite(s[plain]).all() and np.isfinite(pc).all()):
            raise base.StateError("the sums of a hinge state must be finite")
        n = s[kernel.N]
        if n < 0 or n != math.floor(n) or n >= 2.0**53:
            raise base.StateError(f"the sample count must be a non-negative integer, got {n}")
        counts = pc[0]
        if np.any(counts < 0) or np.any(counts != np.floor(counts)) or counts.sum() != n:
            raise base.StateError("the class counts must be non-negative integers summing to "
                                  "the sample count")
        if not binary and np.any(pc[2] != 0):
            raise base.StateError("a multiclass hinge state has no negative-class losses")
        if n == 0:
            if s[kernel.W] != 0 or s[kernel.LOSS] != 0 or pc.any() \
                    or s[kernel.MAXP] != -math.inf \
                    or s[kernel.MINP] != math.inf or weighted or any_weight:
                raise base.StateError("an empty hinge state must hold zero sums")
            return cls(classes, binary, n_labels, s, pc, False, False)
        if binary and np.any(counts == 0):
            raise base.StateError("a binary hinge state holds the classes seen only")
        if not (s[kernel.MINP] <= s[kernel.MAXP] and np.isfinite(s[[kernel.MINP,
                                                                     kernel.MAXP]]).all()):
            raise base.StateError("the smallest and largest values must be finite, in order")
        if not weighted:
            if not any_weight or s[kernel.W] != n:
                raise base.StateError("unweighted samples weigh 1")
            if np.any(pc[1:] < 0) or s[kernel.LOSS] < 0:
                raise base.StateError("unweighted, the losses are non-negative")
        elif s[kernel.W] != 0 and not any_weight:
            raise base.StateError("the weights sum to non-zero but any_weight is False")
        return cls(classes, binary, n_labels, s, pc, weighted, any_weight)


def _unseen(y: np.ndarray | Encoded, classes: np.ndarray) -> ValueError:
    """scikit-learn's ``LabelEncoder`` error for labels of ``y_true`` outside ``labels``."""
    if isinstance(y, Encoded):
        y = y.decoded()
    try:
        diff = np.setdiff1d(np.unique(y), classes)
    except TypeError:
        return undeclared(y, classes, classes)
    return ValueError(f"y contains previously unseen labels: {list(diff)}")


# ---------------------------------------------------------------------- derivation


def hinge(state: HingeState) -> float:
    """``hinge_loss``: the weighted mean of the hinge loss, the -1 / +1 mapping of a binary
    state taken from all the classes of ``y_true`` it saw (scikit-learn's
    ``LabelBinarizer``)."""
    if state.n_samples == 0:
        raise ValueError("Found array with 0 sample(s) (shape=(0,)) while a minimum of 1 is "
                         "required.")
    pc = state.per_class
    loss = float(state.sums[kernel.LOSS])
    if state.binary:
        seen = np.flatnonzero(pc[0])
        if (state.n_labels or seen.shape[0]) > 2:  # chunks of a multiclass y_true
            raise _one_d_error(state.n_samples, seen.shape[0], (state.n_samples,))
        if not math.isnan(loss):
            total = loss
        elif seen.shape[0] == 1:
            total = float(pc[2, seen[0]])
        elif seen.shape[0] == 2:
            total = float(pc[2, seen[0]] + pc[1, seen[1]])
        else:
            total = float(pc[1, seen[0]] + np.sum(pc[2, seen[1:]]))
    else:
        total = loss
    W = float(state.sums[kernel.W])
    if W == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return total / W
