"""The probability state: one kernel pass over (y_true, probabilities[, weights]) -> the
weighted log loss, the weight of each class of ``y_true`` and a few checks, and the scores
derived from them (``log_loss``, ``d2_log_loss_score``).

Columns
-------
The columns of an (n, K) probability matrix are the sorted classes (scikit-learn's
``LabelBinarizer`` order): those of ``labels`` when given, else those of ``y_true``. 1-D
probabilities are of the second of two classes (scikit-learn's ``(1 - p, p)`` columns).
A state keeps its classes; states merge only over the same classes, so a stream whose
chunks may lack classes needs ``labels`` fixed up front (a chunk holding 3 of 4 classes
cannot tell which column is missing).

Sums
----
``sums`` holds the slots of ``fastmetrics._kernels.proba`` (``W`` weight total, ``LOSS``
the weighted sum of ``-log(clip(p[true class], eps, 1 - eps))`` with eps of the
probabilities' dtype, ``N`` samples, ``UNNORMED`` rows that do not sum to one, and the
checks ``NAN`` / ``MAXP`` / ``MINP`` of the pass), ``class_weight`` the weight of each
class. Both add on merge. The D² score's null model predicts every class's weighted
frequency ``class_weight / W``, so its log loss is ``sum_k class_weight[k] *
-log(clip(class_weight[k] / W))``: a function of the state.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import (
    Encoded,
    encode_labels,
    float_values,
    inconsistent_lengths,
    label_column,
    label_kind,
    native,
    nonfinite_error,
    prepare_labels,
    same_labels,
    sample_weight as check_weights,
    zero_weight_sum_error,
)
from .._kernels import proba as kernel
from .._threads import threads_for
from ..exceptions import invalid_parameter, warn, undefined_metric_warning
from . import base
from .stacked import Stacked

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._typing import ArrayLike

__all__ = ["NOT_NORMALISED", "STREAMED", "TOO_FEW", "ProbabilityStack", "ProbabilityState", "d2_log_loss",
           "encode", "grouped", "grouped_stack", "label_table", "loss", "check_k", "sorted_labels", "too_few", "top_k",
           "undeclared"]

NOT_NORMALISED = "The y_prob values do not sum to one. Make sure to pass probabilities."
TOO_FEW = "D^2 score is not well-defined with less than two samples."
_EPS64 = float(np.finfo(np.float64).eps)
_LUT_MAX = 1 << 22  # integer labels spanning at most this many values take a lookup table
_NO_WEIGHTS = np.empty(0)
_NO_WEIGHTS.setflags(write=False)
_SAMPLES = "Found array with 0 sample(s) (shape=(0,)) while a minimum of 1 is required."


# ---------------------------------------------------------------------- input checks


def _matrix(y_proba: ArrayLike) -> tuple[np.ndarray, bool, bool]:
    """``(P, binary, one_d)``: the probabilities as the 2-D view the kernel reads (an (n, 1)
    view of 1-D probabilities of the positive class, ``binary``), never a copy of float32 /
    float64 input; ``one_d``: they were 1-D."""
    p = float_values(y_proba, "y_proba")
    if p.ndim == 1:
        return p[:, None], True, True
    if p.ndim != 2:
        if p.ndim == 0:
            raise ValueError(f"y_proba must be an array of probabilities, got a scalar: "
                             f"{y_proba!r}")
        raise ValueError(f"Found array with dim {p.ndim}, while dim <= 2 is required. "
                         f"(y_proba has shape {p.shape})")
    return p, p.shape[1] == 1, False


def label_table(labels: ArrayLike) -> np.ndarray:
    lab = np.asarray(labels)
    if lab.ndim != 1:
        raise ValueError(f"labels must be a 1-D array-like, got shape {lab.shape}")
    if lab.dtype.kind == "O":
        lab = np.array(lab.tolist())
    if lab.dtype.kind not in base.LABEL_KINDS:
        raise TypeError(f"labels of dtype {lab.dtype} are not supported")
    return lab


def sorted_labels(labels: Any) -> np.ndarray:
    """The classes of ``labels`` (sorted, unique), with scikit-learn's warning when they
    were not given in that order (the columns of y_proba are the sorted classes)."""
    lab = label_table(labels)
    classes = np.unique(lab)
    if classes.shape[0] != lab.shape[0] or np.any(classes != lab):
        warn(f"Labels passed were {labels}. But this function assumes labels are ordered "
             f"lexicographically. Pass the ordered labels={classes.tolist()} and ensure that "
             "the columns of y_prob correspond to this ordering.", UserWarning)
    return classes


def undeclared(y: Any, classes: np.ndarray, labels: ArrayLike | None) -> ValueError:
    if isinstance(y, Encoded):
        y = y.decoded()
    if label_kind(y) != label_kind(classes):
        bad = set(np.unique(y).tolist())
    else:
        bad = set(np.setdiff1d(y, classes).tolist())
    shown = labels.tolist() if isinstance(labels, np.ndarray) else labels
    return ValueError(f"y_true contains values {bad} not belonging to the passed labels "
                      f"{shown}.")


def encode(y: np.ndarray | Encoded, labels: ArrayLike | None, classes: np.ndarray | None
           ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """``(classes, yk, lo, lut)``: the sorted classes, and the labels as the kernel reads
    them (the class of sample i is ``lut[yk[i] - lo]``, -1 for a label that is no class).
    Integer labels are read in place through a lookup table over their range; text and
    wide integer ranges are encoded once (:func:`encode_labels` / ``searchsorted``)."""
    a, dtype, kind = prepare_labels(y, "y_true")
    if kind == "int" and a.shape[0] and (classes is None or classes.dtype.kind in "iubf"):
        if classes is None:
            lo, hi = int(a.min()), int(a.max())
        else:
            lo, hi = int(classes.min()), int(classes.max())
        if a.dtype.kind != "u" or hi < 2**63:
            span = hi - lo + 1
            if span <= _LUT_MAX and lo >= -(2**63) and hi < 2**63:
                if classes is None:
                    seen = np.zeros(span, dtype=np.uint8)
                    kernel.present(a, lo, seen)
                    offsets = np.flatnonzero(seen)
                    classes = (offsets + lo).astype(dtype)
                else:
                    ci = classes.astype(np.int64)
                    if np.any(ci != classes):  # labels that are no integers: none matches
                        raise undeclared(y, classes, classes)
                    offsets = ci - lo
                lut = np.full(span, -1, dtype=np.int64)
                lut[offsets] = np.arange(offsets.shape[0])
                return classes, a, lo, lut
    # the general path: encoded once
    if classes is None:
        (inverse,), classes = encode_labels(a)
        if kind == "int" and dtype.kind in "iubf":
            classes = classes.astype(dtype)
        yk = inverse.reshape(-1).astype(np.int64)
    else:
        vals = a if kind == "int" else y
        # encoded labels: their table is looked up, then its positions gathered by code
        tab = vals.table if isinstance(vals, Encoded) else vals
        if label_kind(tab) != label_kind(classes):
            raise undeclared(y, classes, classes)
        pos = np.minimum(np.searchsorted(classes, tab), classes.shape[0] - 1)
        yk = np.where(classes[pos] == tab, pos, -1).astype(np.int64)
        if isinstance(vals, Encoded):
            yk = yk.take(vals.checked_codes())
    return classes, yk, 0, np.arange(classes.shape[0], dtype=np.int64)


# ---------------------------------------------------------------------- the state


class ProbabilityState(base.State):
    """The sums of one or more passes over (y_true, probabilities[, weights]) over one set
    of classes.

    Parameters
    ----------
    classes : ndarray (K,)
        The sorted classes: the columns of the probability matrices.
    sums : ndarray (proba.N_SUMS,), float64
        The slots of ``fastmetrics._kernels.proba`` (``W``, ``LOSS``, ``N``,
        ``UNNORMED``, ``NAN``, ``MAXP``, ``MINP``).
    class_weight : ndarray (K,), float64
        The weight (count when unweighted) of each class of ``y_true``.
    weighted : bool
        Sample weights were given.
    any_weight : bool
        Some weight is non-zero (picks scikit-learn's error when the weights sum to zero).
    k : int
        0: a pass over probabilities (the log loss); k > 0: a pass over scores counting the
        samples whose class is among the k best (``top_k_accuracy_score``), no log loss.
    multilabel : bool
        ``y_true`` was a multilabel indicator (n, K): the classes are the columns 0..K-1,
        a sample's loss is ``sum_j y[i, j] * -log(clip(p[i, j]))`` (scikit-learn's) and
        ``class_weight[j]`` the weighted sum of column j (so not summing to ``W``).

    See Also
    --------
    ProbabilityState.from_arrays : The state of one pass over data.
    fastmetrics.streaming.ProbabilityAccumulator : Holds one, updated chunk by chunk.
    fastmetrics.log_loss : A metric derived from it.

    Examples
    --------
    >>> from fastmetrics.states import ProbabilityState
    >>> a = ProbabilityState.from_arrays([0, 1], [[0.9, 0.1], [0.2, 0.8]])
    >>> b = ProbabilityState.from_arrays([1, 0], [[0.3, 0.7], [0.6, 0.4]])
    >>> (a + b).class_weight
    array([2., 2.])
    """

    kind = "probability"
    __slots__ = ("classes", "sums", "class_weight", "weighted", "any_weight", "k", "multilabel")

    def __init__(self, classes: np.ndarray, sums: np.ndarray, class_weight: np.ndarray,
                 weighted: bool, any_weight: bool, k: int = 0,
                 multilabel: bool = False) -> None:
        self.k = k
        self.multilabel = multilabel
        self.classes = classes
        self.sums = sums
        self.class_weight = class_weight
        self.weighted = weighted
        self.any_weight = any_weight

    @property
    def n_samples(self) -> int:
        """The number of samples the state summarises."""
        return int(self.sums[kernel.N])

    @property
    def n_classes(self) -> int:
        """The number of classes (columns)."""
        return int(self.classes.shape[0])

    def __repr__(self) -> str:
        return f"ProbabilityState(n_classes={self.n_classes}, n_samples={self.n_samples})"

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, y_true: ArrayLike, y_proba: ArrayLike,
                    sample_weight: ArrayLike | None = None, *, labels: ArrayLike | None = None,
                    k: int = 0, n_threads: int | None = None, allow_empty: bool = False,
                    streamed: bool = False) -> ProbabilityState:
        """One kernel pass. ``labels`` (None: the classes of ``y_true``) are the columns of
        ``y_proba``; ``k`` > 0 reads scores for ``top_k_accuracy_score`` instead (its rules
        for labels and shapes); ``allow_empty`` accepts empty input and weights that are all
        zero (a chunk of a stream); ``streamed`` words the errors for a chunk without
        ``labels``. Raises scikit-learn's errors for bad input.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
            True labels, or a multilabel indicator matrix.
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Probabilities (positive class for 1-D), or scores with ``k``.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample. None weighs every sample 1.
        labels : array-like of shape (n_classes,) or None, default=None
            The classes of the columns (None: the classes of ``y_true``).
        k : int, default=0
            0: a log-loss pass; k > 0: count the samples whose class is among the k best scores.
        n_threads : int or None, default=None
            Threads of the kernel pass. None: what OpenMP allows, capped at the CPUs no other
            process is busy on; small inputs use one thread. The state is the same for any value.
        allow_empty : bool, default=False
            Accept empty input (an empty state, e.g. a chunk of a stream) instead of raising.
        streamed : bool, default=False
            Word the errors for a chunk of a stream without ``labels``.

        Returns
        -------
        state : ProbabilityState
            The state of these samples.

        Raises
        ------
        ValueError
            For bad input, with scikit-learn's wording where it has one (lengths, NaN or infinity,
            shapes, dtypes), and for empty input unless ``allow_empty``.

        See Also
        --------
        ProbabilityState.merge : The state of two chunks.
        fastmetrics.streaming.ProbabilityAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.log_loss : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import ProbabilityState
        >>> a = ProbabilityState.from_arrays([0, 1], [[0.9, 0.1], [0.2, 0.8]])
        >>> a.n_samples
        2
        """
        if k:
            k = check_k(k)
        P, binary, one_d = _matrix(y_proba)
        if not k and _is_indicator(y_true):
            return cls._indicator(y_true, P, one_d, sample_weight, labels, n_threads,
                                  allow_empty)
        y = label_column(y_true, "y_true")
        n = P.shape[0]
        if y.shape[0] != n:
            try:
                w_len = np.shape(sample_weight)[:1] if sample_weight is not None else ()
            except ValueError:
                w_len = ()
            lengths = {"y_true": y.shape[0], "y_proba": n}
            if not k:  # log_loss names the probabilities first, as scikit-learn
                lengths = {"y_proba": n, "y_true": y.shape[0]}
            raise inconsistent_lengths(**lengths, sample_weight=w_len[0] if w_len else None)
        # top_k_accuracy_score leaves zero weight sums to its average (ZeroDivisionError)
        w = check_weights(sample_weight, {"y_true": n, "y_proba": n},
                          allow_zero_sum=allow_empty or k > 0)
        K = 2 if binary else P.shape[1]
        if k:
            given = None if labels is None else _top_k_labels(labels)
        else:
            given = None if labels is None else sorted_labels(labels)
        if n == 0:
            if not allow_empty:
                raise ValueError(_SAMPLES)
            classes = given if given is not None else np.zeros(0, dtype=np.int64)
            return cls._empty(classes, k)
        try:
            classes, yk, lo, lut = encode(y, labels, given)
        except ValueError as exc:
            if k and "continuous" in str(exc):
                raise ValueError("y type must be 'binary' or 'multiclass', got 'continuous' "
                                 f"instead. ({exc})") from None
            if k and given is not None and "not belonging" in str(exc):
                raise ValueError("'y_true' contains labels not in parameter 'labels'.") from None
            raise
        if k:
            binary = _top_k_shapes(classes, given is not None, P, one_d, streamed)
        elif classes.shape[0] == 1:
            if given is None:
                raise ValueError(
                    f"y_true contains only one label ({classes[0]}). Please provide the list "
                    "of all expected class labels explicitly through the labels argument."
                    + (STREAMED if streamed else ""))
            raise ValueError("The labels array needs to contain at least two labels, got "
                             f"{classes}.")
        if not k and classes.shape[0] != K:
            if given is None:
                raise ValueError(
                    f"y_true and y_prob contain different number of classes: "
                    f"{classes.shape[0]} vs {K}. Please provide the true labels explicitly "
                    f"through the labels argument. Classes found in y_true: {classes}"
                    + (STREAMED if streamed else ""))
            raise ValueError("The number of classes in labels is different from that in "
                             f"y_prob. Classes found in labels: {classes}")
        sums = np.zeros(kernel.N_SUMS)
        sums[kernel.MAXP], sums[kernel.MINP] = -math.inf, math.inf
        class_w = np.zeros(classes.shape[0])
        eps = float(np.finfo(P.dtype).eps)
        tol = 1e-8 + math.sqrt(eps)
        bad = kernel.scores(P, binary, yk, lo, lut, _NO_WEIGHTS if w is None else w,
                            w is not None, tol, sums, class_w, k=k,
                            n_threads=threads_for("proba", n, n_threads))
        if bad >= 0:
            if k and given is not None:
                raise ValueError("'y_true' contains labels not in parameter 'labels'.")
            raise undeclared(y, classes, labels if labels is not None else classes)
        _check_values(sums, P, scores=k > 0)
        return cls(classes, sums, class_w, w is not None,
                   w is None or bool(np.any(w)), k)

    @classmethod
    def _empty(cls, classes: np.ndarray, k: int = 0,
               multilabel: bool = False) -> ProbabilityState:
        sums = np.zeros(kernel.N_SUMS)
        sums[kernel.MAXP], sums[kernel.MINP] = -math.inf, math.inf
        return cls(classes, sums, np.zeros(classes.shape[0]), False, False, k, multilabel)

    @classmethod
    def _indicator(cls, y_true: ArrayLike, P: np.ndarray, one_d: bool,
                   sample_weight: ArrayLike | None, labels: ArrayLike | None,
                   n_threads: int | None, allow_empty: bool) -> ProbabilityState:
        """The pass over a multilabel indicator ``y_true`` (n, K), scikit-learn's rules:
        ``labels`` cannot be given, the probabilities have K columns (1-D ones when K = 2:
        the second column, the first formed as ``1 - p``)."""
        Y = _indicator_values(y_true)
        n, L = Y.shape
        if P.shape[0] != n:
            w_len = None if sample_weight is None else np.shape(sample_weight)[0]
            raise inconsistent_lengths(y_proba=P.shape[0], y_true=n, sample_weight=w_len)
        w = check_weights(sample_weight, {"y_true": n, "y_proba": n},
                          allow_zero_sum=allow_empty)
        if labels is not None:
            # scikit-learn fits its LabelBinarizer on labels, then cannot transform y_true
            raise ValueError("The object was not fitted with multilabel input.")
        if one_d and L == 2:
            P = np.concatenate([1 - P, P], axis=1)  # scikit-learn's two columns, one copy
        classes = np.arange(L)
        if P.shape[1] != L:
            raise ValueError(
                f"y_true and y_prob contain different number of classes: {L} vs "
                f"{P.shape[1]}. Please provide the true labels explicitly through the labels "
                f"argument. Classes found in y_true: {classes}")
        if n == 0:
            if not allow_empty:
                raise ValueError(_SAMPLES)
            return cls._empty(classes, multilabel=True)
        sums = np.zeros(kernel.N_SUMS)
        sums[kernel.MAXP], sums[kernel.MINP] = -math.inf, math.inf
        class_w = np.zeros(L)
        tol = 1e-8 + math.sqrt(float(np.finfo(P.dtype).eps))
        kernel.indicator(P, Y, _NO_WEIGHTS if w is None else w, w is not None, tol, sums,
                         class_w, n_threads=threads_for("proba", n, n_threads))
        _check_values(sums, P)
        return cls(classes, sums, class_w, w is not None, w is None or bool(np.any(w)), 0,
                   True)

    # ------------------------------------------------------------------ merge
    def _same_layout(self, other: Any) -> bool:
        # the merge refuses other k, multilabel-ness and classes only
        return bool(other.k == self.k and other.multilabel == self.multilabel
                    and _same(self, other))

    def merge(self, other: ProbabilityState) -> ProbabilityState:
        """The state of both inputs: sums and class weights add; the classes must be the
        same (an empty state is the identity).

        Parameters
        ----------
        other : ProbabilityState
            A state of the same type (and the same settings: edges, power, classes...).

        Returns
        -------
        state : ProbabilityState
            The state of both inputs' samples; neither input is modified. ``a + b`` is the same.

        See Also
        --------
        ProbabilityState.from_arrays : The state of one chunk.
        fastmetrics.streaming.ProbabilityAccumulator : Holds one, updated chunk by chunk.
        fastmetrics.log_loss : A metric derived from it.

        Examples
        --------
        >>> from fastmetrics.states import ProbabilityState
        >>> a = ProbabilityState.from_arrays([0, 1], [[0.9, 0.1], [0.2, 0.8]])
        >>> b = ProbabilityState.from_arrays([1, 0], [[0.3, 0.7], [0.6, 0.4]])
        >>> a.merge(b).class_weight
        array([2., 2.])
        """
        self._check_mergeable(other)
        if self.k != other.k:
            raise ValueError(f"cannot merge probability states of different k ({self.k} and "
                             f"{other.k})")
        if self.multilabel != other.multilabel:
            raise ValueError("cannot merge a state of multilabel indicator y_true with one of "
                             "1-D y_true")
        if other.n_samples == 0 and (other.n_classes == 0 or _same(self, other)):
            return self
        if self.n_samples == 0 and (self.n_classes == 0 or _same(self, other)):
            return other
        if not _same(self, other):
            raise ValueError(
                f"cannot merge probability states over different classes "
                f"({self.classes.tolist()} and {other.classes.tolist()}): give every chunk "
                "the same labels= (the columns of y_proba)")
        s = self.sums + other.sums
        s[kernel.MAXP] = max(self.sums[kernel.MAXP], other.sums[kernel.MAXP])
        s[kernel.MINP] = min(self.sums[kernel.MINP], other.sums[kernel.MINP])
        return ProbabilityState(self.classes, s, self.class_weight + other.class_weight,
                                self.weighted or other.weighted,
                                self.any_weight or other.any_weight, self.k, self.multilabel)

    # ------------------------------------------------------------------ export / load
    def _export(self) -> dict[str, Any]:
        return {
            "classes": self.classes.copy(),
            "classes_dtype": self.classes.dtype.str,
            "sums": self.sums.copy(),
            "class_weight": self.class_weight.copy(),
            "weighted": bool(self.weighted),
            "any_weight": bool(self.any_weight),
            "k": int(self.k),
            "multilabel": bool(self.multilabel),
        }

    @classmethod
    def _load(cls, d: Mapping[str, Any]) -> ProbabilityState:
        classes = base.labels(d, "classes")
        K = classes.shape[0]
        if K and np.any(classes[1:] <= classes[:-1]):
            raise base.StateError("the classes must be sorted and unique")
        if K == 1:
            raise base.StateError("a probability state has at least two classes (or none)")
        s = base.field(d, "sums", kinds="f", ndim=1, shape=(kernel.N_SUMS,),
                       dtype=np.float64).copy()
        cw = base.field(d, "class_weight", kinds="f", ndim=1, shape=(K,),
                        dtype=np.float64).copy()
        weighted, any_weight = base.flag(d, "weighted"), base.flag(d, "any_weight")
        k = base.integer(d, "k")
        multilabel = base.flag(d, "multilabel") if "multilabel" in d else False
        if multilabel and (k or not np.array_equal(classes, np.arange(K))):
            raise base.StateError("a multilabel state's classes are its columns 0..K-1, k = 0")
        plain = [kernel.W, kernel.LOSS, kernel.N, kernel.UNNORMED, kernel.NAN, kernel.HITS,
                 kernel.HITS0]
        absent = (kernel.LOSS, kernel.UNNORMED) if k else (kernel.HITS, kernel.HITS0)
        if any(s[i] != 0 for i in absent):
            raise base.StateError("a sum this state was not built for must be 0")
        if not (np.isfinite(s[plain]).all() and np.isfinite(cw).all()):
            raise base.StateError("the sums of a probability state must be finite")
        n = s[kernel.N]
        if n < 0 or n != math.floor(n) or n >= 2.0**53:
            raise base.StateError(f"the sample count must be a non-negative integer, got {n}")
        for slot in (kernel.UNNORMED, kernel.NAN):
            if s[slot] < 0 or s[slot] != math.floor(s[slot]):
                raise base.StateError("the row counts must be non-negative integers")
        if s[kernel.NAN] != 0:
            raise base.StateError("a state holds no NaN probabilities")
        if n == 0:
            if np.any(s[plain] != 0) or cw.any() or s[kernel.MAXP] != -math.inf \
                    or s[kernel.MINP] != math.inf or weighted or any_weight:
                raise base.StateError("an empty probability state must hold zero sums")
            return cls(classes, s, cw, False, False, k, multilabel)
        if K == 0:
            raise base.StateError("a probability state with samples has its classes")
        if not (s[kernel.MINP] <= s[kernel.MAXP] and np.isfinite(s[[kernel.MINP,
                                                                     kernel.MAXP]]).all()):
            raise base.StateError("the smallest and largest values must be finite, in order")
        if not k and not (0.0 <= s[kernel.MINP] and s[kernel.MAXP] <= 1.0):
            raise base.StateError("probabilities lie within [0, 1]")
        if s[kernel.LOSS] < 0 and not weighted:
            raise base.StateError("unweighted, the log loss is non-negative")
        if s[kernel.UNNORMED] > n:
            raise base.StateError("more unnormalised rows than samples")
        if multilabel:
            # the indicator's values weigh the columns: no tie between them and W
            if s[kernel.W] != 0 and not any_weight:
                raise base.StateError("the weights sum to non-zero but any_weight is False")
            if not weighted and (not any_weight or s[kernel.W] != n):
                raise base.StateError("unweighted samples weigh 1")
            return cls(classes, s, cw, weighted, any_weight, 0, True)
        tol = 1e-9 * max(1.0, float(np.abs(cw).sum()))
        if abs(float(cw.sum()) - s[kernel.W]) > tol:
            raise base.StateError("the class weights must sum to the weight total")
        if not weighted:
            if not any_weight:
                raise base.StateError("unweighted samples weigh 1: any_weight must be True")
            if s[kernel.W] != n or np.any(cw < 0) or np.any(cw != np.floor(cw)):
                raise base.StateError("unweighted, the class weights are the class counts")
            if s[kernel.LOSS] > n * -math.log(_EPS64) * (1 + 1e-12):
                raise base.StateError("unweighted, a sample's log loss is at most -log(eps)")
            for i in (kernel.HITS, kernel.HITS0):
                if s[i] < 0 or s[i] > n or s[i] != math.floor(s[i]):
                    raise base.StateError("unweighted, the hits are a count within n_samples")
        elif s[kernel.W] != 0 and not any_weight:
            raise base.StateError("the weights sum to non-zero but any_weight is False")
        return cls(classes, s, cw, weighted, any_weight, k)


STREAMED = (" (A chunk of a stream must hold every class of the columns of y_proba, or "
             "the accumulator needs labels=.)")


def _is_indicator(y_true: Any) -> bool:
    """A 2-D ``y_true`` of more than one column (scikit-learn's multilabel indicator)."""
    shape = np.shape(y_true) if not hasattr(y_true, "shape") else y_true.shape
    return len(shape) == 2 and shape[1] > 1


def _indicator_values(y_true: ArrayLike) -> np.ndarray:
    """The indicator as the kernel reads it (integers, bool as uint8, in place), or
    scikit-learn's error when it is no multilabel indicator (at most two distinct integral
    values)."""
    a = native(y_true if type(y_true) is np.ndarray else np.asarray(y_true))
    if a.dtype.kind not in "biuf":
        raise ValueError(f"y_true of dtype {a.dtype} is no multilabel indicator")
    vals = np.unique(a)
    if vals.shape[0] > 2 or (a.dtype.kind == "f" and np.any(vals != np.round(vals))):
        raise ValueError("Multioutput target data is not supported with label binarization")
    if a.dtype.kind == "b":
        return a.view(np.uint8)
    if a.dtype.kind == "f":
        return a.astype(np.int64)
    return a


def _same(a: ProbabilityState, b: ProbabilityState) -> bool:
    if same_labels(a.classes, b.classes):  # (the hot case: one dtype, equal bytes)
        return True
    # classes of two dtypes of one kind (int32 and int64...) are the same classes too
    return (a.classes.shape == b.classes.shape and label_kind(a.classes) ==
            label_kind(b.classes) and bool(np.all(a.classes == b.classes)))


class ProbabilityStack(Stacked):
    """Every group's log loss sums and class weights (1-D labels, no top-k), row g group
    g's: merged row by row as :meth:`ProbabilityState.merge` does (sums and weights add,
    the extreme probabilities take the max and min)."""

    __slots__ = ()
    empty = (np.array([0.0] * kernel.MAXP + [-math.inf, math.inf]), 0.0, False)
    weighs = True

    def _merge_rows(self, other: Stacked, rows: np.ndarray) -> None:
        a, b = self.arrays[0], other.arrays[0]
        mx = np.maximum(a[rows, kernel.MAXP], b[:, kernel.MAXP])
        mn = np.minimum(a[rows, kernel.MINP], b[:, kernel.MINP])
        a[rows] += b
        a[rows, kernel.MAXP], a[rows, kernel.MINP] = mx, mn
        self.arrays[1][rows] += other.arrays[1]
        self.arrays[2][rows] |= other.arrays[2]

    def states(self) -> list[ProbabilityState]:
        """Every group's state, group ``g``'s at position ``g``."""
        sums, class_w = self.arrays[0].copy(), self.arrays[1].copy()
        any_weight = self.arrays[2].tolist()
        classes, weighted = self.layout
        return [ProbabilityState(classes, sums[g], class_w[g], weighted, any_weight[g])
                for g in range(sums.shape[0])]


def grouped(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_proba: ArrayLike,
            sample_weight: ArrayLike | None, *, labels: ArrayLike | None = None,
            n_threads: int | None = None) -> list[ProbabilityState] | None:
    """:func:`grouped_stack`'s groups as states (None where it gives None).

    Examples
    --------
    >>> import numpy as np
    >>> states = grouped(np.array([0, 0, 1, 1]), 2, [0, 1, 0, 1], [0.2, 0.7, 0.4, 0.9], None)
    >>> [round(loss(st), 6) for st in states]
    [0.289909, 0.308093]
    """
    stack = grouped_stack(codes, n_groups, y_true, y_proba, sample_weight, labels=labels,
                          n_threads=n_threads)
    return None if stack is None else stack.states()


def grouped_stack(codes: np.ndarray, n_groups: int, y_true: ArrayLike, y_proba: ArrayLike,
                  sample_weight: ArrayLike | None, *, labels: ArrayLike | None = None,
                  n_threads: int | None = None) -> ProbabilityStack | None:
    """The log loss state of each group's rows from one pass over all of them (no ordering
    of the rows by group), or None where that pass does not apply and each group's state is
    built on its own: indicator targets, a group lacking a class of the chunk (without
    ``labels``, its own state would hold fewer classes), or values its own pass would
    refuse (that pass names them).

    Parameters
    ----------
    codes : ndarray of integers (n_samples,)
        Each row's group, in ``range(n_groups)``.
    n_groups : int
    y_true, y_proba, sample_weight : array-like
        As :meth:`ProbabilityState.from_arrays` takes them.
    labels : array-like or None, default=None
        The classes of the probability columns.
    n_threads : int or None, default=None
        Threads of the pass (the states are the same for any value).

    Returns
    -------
    stack : ProbabilityStack or None
        Group g's sums at row g (empty for a group without rows): what
        :meth:`ProbabilityState.from_arrays` gives on its rows (its sums to rounding,
        added in row order).

    Raises
    ------
    ValueError
        Weights that :meth:`ProbabilityState.from_arrays` refuses; a code outside
        ``range(n_groups)``.

    Examples
    --------
    >>> import numpy as np
    >>> stack = grouped_stack(np.array([0, 0, 1, 1, 1]), 2, [0, 1, 0, 1, 1],
    ...                       [0.2, 0.7, 0.4, 0.9, 0.6], None)
    >>> stack.sizes
    array([2, 3])
    """
    P, binary, _ = _matrix(y_proba)
    if _is_indicator(y_true):
        return None
    y = label_column(y_true, "y_true")
    n = P.shape[0]
    if y.shape[0] != n or codes.shape[0] != n or n == 0:
        return None
    w = check_weights(sample_weight, {"y_true": n, "y_proba": n}, allow_zero_sum=True)
    given = None if labels is None else sorted_labels(labels)
    try:
        classes, yk, lo, lut = encode(y, labels, given)
    except ValueError:
        return None
    K = 2 if binary else P.shape[1]
    if classes.shape[0] != K or K < 2:
        return None
    sums = np.zeros((n_groups, kernel.N_SUMS))
    sums[:, kernel.MAXP], sums[:, kernel.MINP] = -math.inf, math.inf
    class_w = np.zeros((n_groups, K))
    class_n = np.zeros((n_groups, K))
    tol = 1e-8 + math.sqrt(float(np.finfo(P.dtype).eps))
    bad = kernel.grouped_scores(codes.astype(np.int64, copy=False), n_groups, P, binary, yk,
                                lo, lut, _NO_WEIGHTS if w is None else w, w is not None, tol,
                                sums, class_w, class_n, threads_for("proba", n, n_threads))
    if bad < -1:
        row = -2 - bad
        raise ValueError(f"group code {codes[row]} at row {row} is outside [0, {n_groups})")
    if bad >= 0 or (given is None and not class_n.all()):
        return None
    if sums[:, kernel.NAN].any() or not np.isfinite(sums[:, kernel.LOSS]).all() \
            or sums[:, kernel.MAXP].max() > 1 or sums[:, kernel.MINP].min() < 0:
        return None
    any_weight = np.ones(n_groups, dtype=bool) if w is None else \
        np.bincount(codes, weights=(w != 0), minlength=n_groups)[:n_groups] > 0
    return ProbabilityStack((sums, class_w, any_weight), (classes, w is not None),
                            class_n.sum(axis=1).astype(np.int64))


def _check_values(sums: np.ndarray, P: np.ndarray, scores: bool = False) -> None:
    """scikit-learn's errors for probabilities that are NaN, infinite or outside [0, 1]
    (``scores``: NaN and infinity only)."""
    mx, mn = sums[kernel.MAXP], sums[kernel.MINP]
    if sums[kernel.NAN] or not (math.isfinite(mx) and math.isfinite(mn)):
        raise nonfinite_error(P, None)
    if scores:
        return
    if mx > 1:
        raise ValueError(f"y_prob contains values greater than 1: {P.dtype.type(mx)}")
    if mn < 0:
        raise ValueError(f"y_prob contains values lower than 0: {P.dtype.type(mn)}")


def check_k(k: object) -> int:
    """``top_k_accuracy_score``'s ``k``: an int >= 1 (scikit-learn's parameter error)."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise invalid_parameter("The 'k' parameter of top_k_accuracy_score must be an int in "
                                f"the range [1, inf). Got {k!r} instead.")
    return int(k)


def _top_k_labels(labels: ArrayLike) -> np.ndarray:
    """``top_k_accuracy_score``'s labels: unique and sorted, or scikit-learn's error."""
    lab = label_table(labels)
    classes = np.unique(lab)
    if classes.shape[0] != lab.shape[0]:
        raise ValueError("Parameter 'labels' must be unique.")
    if not np.array_equal(classes, lab):
        raise ValueError("Parameter 'labels' must be ordered.")
    return classes


def _top_k_shapes(classes: np.ndarray, given: bool, P: np.ndarray, one_d: bool,
                  streamed: bool) -> bool:
    """scikit-learn's checks of the scores' shape against the classes of
    ``top_k_accuracy_score``; whether the problem is binary (1-D scores)."""
    n_classes: int = classes.shape[0]
    n = P.shape[0]
    if n_classes <= 2 and not (P.shape[1] == 1):
        raise ValueError(f"`y_true` is binary while y_score is 2d with {P.shape[1]} classes. "
                         "If `y_true` does not contain all the labels, `labels` must be "
                         "provided." + (STREAMED if streamed else ""))
    if n_classes > 2 and one_d:
        raise ValueError("`y_score` needs to be of shape `(n_samples, n_classes)`, since "
                         f"`y_true` contains multiple classes. Got `y_score.shape={(n,)}`.")
    K = 2 if n_classes <= 2 else P.shape[1]
    if n_classes != K:
        if given:
            raise ValueError(f"Number of given labels ({n_classes}) not equal to the number "
                             f"of classes in 'y_score' ({K}).")
        raise ValueError(f"Number of classes in 'y_true' ({n_classes}) not equal to the "
                         f"number of classes in 'y_score' ({K}).You can provide a list of all "
                         "known classes by assigning it to the `labels` parameter."
                         + (STREAMED if streamed else ""))
    return n_classes == 2


# ---------------------------------------------------------------------- derivations


def _warn_unnormalised(state: ProbabilityState) -> None:
    if state.k:
        raise ValueError(f"this state counted top-{state.k} hits of scores, not the log loss "
                         "of probabilities (an accumulator with k= serves "
                         "top_k_accuracy_score only)")
    if state.sums[kernel.UNNORMED]:
        warn(NOT_NORMALISED, UserWarning)


def _total(state: ProbabilityState) -> float:
    W = float(state.sums[kernel.W])
    if W == 0:
        # scikit-learn: ValueError when every weight is zero, ZeroDivisionError when they
        # cancel
        raise zero_weight_sum_error(None if state.any_weight else _NO_WEIGHTS)
    return W


def loss(state: ProbabilityState, normalize: bool = True) -> float:
    """``log_loss``: the weighted mean (``normalize``) or sum of ``-log(clip(p[true
    class]))``."""
    _warn_unnormalised(state)
    if not normalize:
        if not state.any_weight:
            _total(state)
        return float(state.sums[kernel.LOSS])
    return float(state.sums[kernel.LOSS] / _total(state))


def too_few() -> float:
    """scikit-learn's D² answer for fewer than two samples: NaN, with a warning."""
    warn(TOO_FEW, undefined_metric_warning())
    return float("nan")


def d2_log_loss(state: ProbabilityState) -> float:
    """``d2_log_loss_score``: ``1 - log loss / log loss of the null model``, the null model
    predicting each class's weighted frequency in ``y_true``."""
    if state.n_samples < 2 and not state.k:
        return too_few()
    _warn_unnormalised(state)
    W = _total(state)
    cw = state.class_weight
    p = np.clip(cw / W, _EPS64, 1 - _EPS64)
    null = float(-np.sum(cw * np.log(p)))
    if null == 0:  # a multilabel indicator of zeros: scikit-learn divides by zero
        raise ZeroDivisionError("float division by zero")
    return float(1 - state.sums[kernel.LOSS] / null)


def top_k(state: ProbabilityState, k: int = 2, normalize: bool = True) -> float:
    """``top_k_accuracy_score``: the weighted fraction (``normalize``) or weight of the
    samples whose class is among the ``k`` best scores (ties: the higher column first);
    binary: ``k`` = 1 predicts the greater class above 0.5 (scores within [0, 1]) or 0,
    ``k`` >= 2 is always right."""
    if state.k == 0:
        raise ValueError("this state holds no top-k hits (build it with k=...)")
    if check_k(k) != state.k:
        raise ValueError(f"this state counted the top {state.k}, not the top {k}: k is the "
                         "accumulator's")
    if state.k >= state.n_classes:
        warn(f"'k' ({state.k}) greater than or equal to 'n_classes' ({state.n_classes}) will "
             "result in a perfect score and is therefore meaningless.", undefined_metric_warning())
    s = state.sums
    half = state.n_classes > 2 or (s[kernel.MINP] >= 0 and s[kernel.MAXP] <= 1)
    hits = float(s[kernel.HITS] if half else s[kernel.HITS0])
    if not normalize:
        return hits
    if s[kernel.W] == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return hits / float(s[kernel.W])
