"""Streaming accumulators: metrics over data that arrives in chunks, in memory independent
of the number of rows seen.

Each accumulator holds the same small *state* the one-shot functions compute in their
kernel pass, and derives its metrics from it with the same code. Chunks are added with
``update(...)``; two accumulators (from other threads, processes or machines) combine with
``merge(other)`` or ``a + b`` (a new accumulator: the inputs are left untouched), in any order
and any tree shape; ``sum(accumulators)`` works too.

Every accumulator holds one state of :mod:`fastmetrics.states` (``acc.state``) and has a
method for each mergeable metric of its family, generated from the one-shot function of the
same name (same keyword arguments, less the data): ``acc.f1_score(average="macro")`` is
``fastmetrics.f1_score`` on every sample seen. Accumulators export to ``to_dict()`` and back
(``from_dict``), and pickle through the same checked path.

Guarantees
----------
* Integer states (confusion counts, bin counts, sketch buckets) merge exactly: any split of
  the data into chunks, merged in any order, gives the one-shot result bit for bit.
* Float sums (sample weights, calibration sums, regression sums, ranking weights) are added
  in another order than in one pass: results agree with the one-shot functions to about
  1e-12 relative (1e-15 per addition).
* Memory is O(state): K x K counts, ``n_bins`` bins, 10 regression sums, ``len(thresholds)``
  ranking bins or at most ``max_buckets`` sketch buckets, whatever the number of rows. Three
  modes keep O(N) data and say so: ``RegressionAccumulator(keep_values=True)`` (exact median
  absolute error), exact ranking (``thresholds=None``: one entry per distinct score) and
  ``QuantileAccumulator(mode="exact")``.
* An empty accumulator costs a few small arrays; ``update`` with an empty chunk is a no-op.
* Mixing weighted and unweighted updates, or merging accumulators configured differently
  (other labels, edges, thresholds, ``pos_label``...) raises ``ValueError``.

Examples
--------
>>> import numpy as np
>>> from fastmetrics.streaming import ConfusionAccumulator
>>> acc = ConfusionAccumulator(labels=[0, 1, 2])
>>> for chunk in np.array_split(np.array([[0, 0], [1, 2], [2, 2], [2, 1]]), 2):
...     acc.update(chunk[:, 0], chunk[:, 1])
ConfusionAccumulator(labels=[0, 1, 2], n_samples=2)
ConfusionAccumulator(labels=[0, 1, 2], n_samples=4)
>>> acc.result().accuracy, acc.f1_score(average="macro")
(0.5, 0.5)
"""

from __future__ import annotations

import inspect
import math
import threading
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from . import _table
from . import calibration as _cal
from . import regression as _reg
from ._inputs import INT_CHARS, plain_int_pair
from ._kernels import confusion as _confusion
from ._kernels import sketch as _sketch
from ._kernels import sums as _regression
from ._states import confusion, ranking
from ._states.base import State, StateError
from ._states.confusion import ConfusionState
from ._states.ranking import RankingResult, RankingState
from ._threads import threads_for
from ._validation import as_1d, check_consistent_length, check_sample_weight, native
from .percentiles import quantile as _exact_quantile

__all__ = [
    "Accumulator",
    "CalibrationAccumulator",
    "ConfusionAccumulator",
    "QuantileAccumulator",
    "QuantileResult",
    "RankingAccumulator",
    "RankingResult",
    "RegressionAccumulator",
]

_FORMAT = 1
_MIXED_WEIGHTS = (
    "sample_weight was given for some chunks and not for others: pass weights for every "
    "chunk (ones where unweighted) or for none"
)


def _no_data(what: str) -> ValueError:
    return ValueError(f"{what}: no samples seen yet (call update() with data first)")


class Accumulator:
    """Base of the accumulators: one state, updated chunk by chunk, merged with others.

    A subclass names its ``family`` (its metrics come from the table of
    :mod:`fastmetrics._table` as methods), its constructor arguments (``_config``: compared
    on merge, exported by :meth:`to_dict`) and builds the state of one chunk in ``update``,
    which it hands to :meth:`_add`. Mixing weighted and unweighted chunks raises.
    """

    family: ClassVar[str] = ""
    _config: ClassVar[tuple[str, ...]] = ()

    def _start(self) -> None:
        self._state: Any = None
        self._weighted: bool | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ state
    @property
    def state(self):
        """The state of everything seen (a :mod:`fastmetrics.states` type), None before
        any sample."""
        return self._state

    @property
    def n_samples(self) -> int:
        """Number of samples seen so far."""
        st = self.state
        return 0 if st is None else int(st.n_samples)

    def _checked_state(self):
        st = self.state
        if st is None or st.n_samples == 0:
            raise _no_data(type(self).__name__)
        return st

    def _note_weighted(self, weighted: bool) -> None:
        if self._weighted is None:
            self._weighted = weighted
        elif self._weighted != weighted:
            raise ValueError(_MIXED_WEIGHTS)

    def _add(self, st, weighted: bool) -> None:
        """Merge a chunk's state in (under the lock: updates may come from threads)."""
        with self._lock:
            self._note_weighted(weighted)
            self._state = st if self._state is None else self._state.merge(st)

    # ------------------------------------------------------------------ merging
    def config(self) -> dict:
        """The constructor arguments of this accumulator."""
        return {k: getattr(self, k) for k in self._config}

    def _empty_like(self):
        return type(self)(**self.config())

    def _config_differences(self, other) -> list[str]:
        out = []
        for k in self._config:
            a, b = getattr(self, k), getattr(other, k)
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                same = (a is not None and b is not None and np.shape(a) == np.shape(b)
                        and np.array_equal(a, b))
            else:
                same = type(a) is type(b) and a == b
            if not same:
                out.append(k)
        return out

    def merge(self, other):
        """A new accumulator holding both inputs' samples (inputs untouched)."""
        if type(other) is not type(self):
            raise TypeError(f"cannot merge {type(self).__name__} with {type(other).__name__}")
        differ = self._config_differences(other)
        if differ:
            raise ValueError(
                f"cannot merge {type(self).__name__}s with different {' / '.join(differ)} "
                f"configurations ({self._describe()} vs {other._describe()})"
            )
        if None not in (self._weighted, other._weighted) and self._weighted != other._weighted:
            raise ValueError(_MIXED_WEIGHTS)
        out = self._empty_like()
        out._weighted = self._weighted if self._weighted is not None else other._weighted
        a, b = self.state, other.state
        out._state = b if a is None else a if b is None else a.merge(b)
        return out

    def _describe(self) -> str:
        return ", ".join(f"{k}={_shown(v)}" for k, v in self.config().items())

    def __add__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self.merge(other)

    def __radd__(self, other):
        if isinstance(other, int) and other == 0:  # sum(accumulators) starts from 0
            return self.merge(self._empty_like())
        return NotImplemented

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._describe()}, n_samples={self.n_samples})"

    # ------------------------------------------------------------------ export / load
    def to_dict(self, *, as_lists: bool = False) -> dict:
        """The accumulator as plain values: its configuration and its state's
        :meth:`~fastmetrics.states.State.to_dict` (None before any sample)."""
        st = self.state
        config = {k: (v.tolist() if as_lists and isinstance(v, np.ndarray) else v)
                  for k, v in self.config().items()}
        return {"accumulator": type(self).__name__, "format": _FORMAT, "config": config,
                "weighted": self._weighted,
                "state": None if st is None else st.to_dict(as_lists=as_lists)}

    @classmethod
    def from_dict(cls, d):
        """Rebuild an accumulator from :meth:`to_dict`'s values, checking its state."""
        try:
            name, fmt, config = d["accumulator"], d["format"], dict(d["config"])
            weighted, st = d["weighted"], d["state"]
        except (KeyError, TypeError) as exc:
            raise StateError(f"not an exported accumulator: {exc!r}") from None
        if name != cls.__name__ or fmt != _FORMAT:
            raise StateError(f"a {name!r} (format {fmt}) cannot be loaded as {cls.__name__}")
        if weighted not in (None, True, False):
            raise StateError(f"'weighted' must be None, True or False, got {weighted!r}")
        out = cls(**config)
        out._weighted = weighted
        out._set_state(None if st is None else State.from_dict(st))
        return out

    def _set_state(self, st) -> None:
        if st is not None and not isinstance(st, self._state_type()):
            raise StateError(f"a {type(st).__name__} cannot be the state of {type(self).__name__}")
        self._state = st

    @classmethod
    def _state_type(cls) -> type:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __reduce__(self):
        return (type(self).from_dict, (self.to_dict(),))


def _shown(v) -> str:
    return str(v.tolist()) if isinstance(v, np.ndarray) else repr(v)


def _metric_method(row: _table.Metric):
    """The accumulator method of one table row: the one-shot function's metric parameters
    (its signature less data and configuration), applied to the accumulator's state."""
    params = row.metric_parameters()
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + params)
    takes = inspect.signature(row.derive).parameters
    config = tuple(p for p in row.config if p in takes)
    derive = row.derive

    def method(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs).arguments
        del bound["self"]
        for p in config:
            bound[p] = getattr(self, p)
        return derive(self._checked_state(), **bound)

    method.__name__ = row.name
    method.__signature__ = sig  # type: ignore[attr-defined]
    method.__doc__ = (
        f"As :func:`fastmetrics.{row.name}` on every sample seen (same keyword arguments, "
        "less the data" + (", and " + ", ".join(row.config) + " from the accumulator"
        if row.config else "") + ")."
    )
    return method


def _attach_metrics(cls: type) -> type:
    """Give ``cls`` one method per table row of its family."""
    for row in _table.by_family(cls.family):
        m = _metric_method(row)
        m.__qualname__ = f"{cls.__name__}.{row.name}"
        setattr(cls, row.name, m)
    return cls


# --------------------------------------------------------------------------- confusion

_TABLE_SPAN = 64  # integer labels spanning at most this many values take the fast path
_U64_CHARS = frozenset(c for c in "LQ" if np.dtype(c) == np.uint64)


class _PairTable:
    """Running pair counts over the offsets ``0 .. 2**shift - 1`` from ``lo``: the fast
    update path of a ConfusionAccumulator whose integer labels span at most 64 values.

    With fixed labels, only their offsets are ``allowed`` (a count elsewhere is an error).
    With discovered labels the table covers the range of the first chunk's labels (at least
    16 wide), every offset is allowed, and only chunks of ``dtype`` are counted into it (so
    the labels keep the one-shot dtype)."""

    def __init__(self, lo: int, shift: int, values: np.ndarray | None, dtype=None):
        self.lo = lo
        self.mod_lo = lo % (1 << 64)  # the kernel subtracts modulo 2**64
        self.shift = shift
        self.dtype = dtype
        # modulo 2**64 a uint64 value v >= 2**63 would land on the negative label v - 2**64
        self.skip = _U64_CHARS if lo < 0 else frozenset()
        self.values = values
        self.allowed = np.ones(1 << shift, dtype=bool)
        if values is not None:
            self.allowed[:] = False
            self.allowed[values.astype(np.int64) - lo] = True
        self.counts = np.zeros(1 << (2 * shift), dtype=np.int64)
        self.n = 0

    @classmethod
    def around(cls, values, fixed: bool) -> _PairTable | None:
        """A table for sorted integer label ``values`` if they fit one: the fixed labels, or
        (``fixed=False``) those of a first unweighted chunk, whose dtype it then keeps."""
        if values is None or values.dtype.char not in INT_CHARS:
            return None
        lo, hi = int(values[0]), int(values[-1])
        if hi - lo >= _TABLE_SPAN or hi >= 1 << 63:
            return None
        if fixed:
            return cls(lo, (hi - lo).bit_length(), values)
        return cls(lo, max(4, (hi - lo).bit_length()), None, values.dtype)

    def take(self) -> ConfusionState | None:
        """The counts so far as a state (None when empty), and a clean table."""
        if not self.n:
            return None
        st = ConfusionState.from_pair_counts(self.counts, self.lo, self.shift, self.n,
                                             self.values, self.dtype)
        self.counts = np.zeros_like(self.counts)
        self.n = 0
        return st


class ConfusionAccumulator(Accumulator):
    """Streaming confusion state: every classification metric and the report card.

    Parameters
    ----------
    labels : array-like, default=None
        The fixed label set. Chunks are counted straight into a K x K table over these
        labels and a label outside them raises ``ValueError``; the report card lists them in
        this order (as ``score(..., labels=labels)``). None: labels are discovered as they
        come and states over different label sets are aligned when they merge.

    Notes
    -----
    ``result()`` equals ``fastmetrics.score(y_true, y_pred, labels=labels, oos_label=...,
    sample_weight=...)`` on the concatenated chunks, and each metric method equals the
    function of the same name (scikit-learn's keyword arguments) on the concatenated chunks:
    exactly for counts, to 1e-12 relative for float weights. Labels are 1-D (binary or
    multiclass); multilabel indicator matrices are not streamed.

    Examples
    --------
    >>> from fastmetrics.streaming import ConfusionAccumulator
    >>> a = ConfusionAccumulator().update([0, 1, 1], [0, 1, 0])
    >>> (a + ConfusionAccumulator().update([2], [2])).confusion_matrix()
    array([[1, 0, 0],
           [1, 1, 0],
           [0, 0, 1]])
    """

    family = "confusion"
    _config = ("labels",)
    labels: Any

    def __init__(self, labels=None):
        self._start()
        self._values = None
        if labels is None:
            self.labels = None
        else:
            lab = np.asarray(labels).reshape(-1)
            if lab.size == 0:
                raise ValueError("labels must contain at least one label")
            values = np.unique(lab)
            if values.shape[0] != lab.shape[0]:
                raise ValueError("labels must not contain duplicates")
            self.labels = lab
            self._values = values
        self._table = _PairTable.around(self._values, True)  # discovered: set by update

    @classmethod
    def _state_type(cls) -> type:
        return ConfusionState

    def __repr__(self) -> str:
        lab = "None" if self.labels is None else str(self.labels.tolist())
        return f"ConfusionAccumulator(labels={lab}, n_samples={self.n_samples})"

    @property
    def state(self) -> ConfusionState | None:
        """The accumulated :class:`~fastmetrics.states.ConfusionState` (None before data):
        the stored state with the running table folded in."""
        if self._table is not None:
            with self._lock:
                self._fold()
        return self._state

    def _fold(self) -> None:
        """Fold the running table into the stored state (the caller holds the lock)."""
        st = self._table.take()
        if st is not None:
            self._state = st if self._state is None else self._state.merge(st)

    def _set_state(self, st) -> None:
        super()._set_state(st)
        if st is not None and self._values is not None:
            self._state = st.over(self._values)
        if self._table is None and self._values is None and st is not None and not st.weighted:
            self._table = _PairTable.around(st.values, False)

    def update(self, y_true, y_pred, sample_weight=None, *, n_threads=None):
        """Count one chunk. Returns ``self``.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,)
            Labels of the chunk (any dtype :func:`fastmetrics.confusion_matrix` takes).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights: give them for every chunk or for none.
        n_threads : int, default=None
            Threads for the counting kernel, as in the one-shot functions: None is what
            OpenMP allows (``OMP_NUM_THREADS``, threadpoolctl limits), and chunks under
            2**18 samples always use one. Pass 1 on a machine busy with other work: OpenMP's
            spinning worker then competes with it on every chunk (README, Streaming).

        Notes
        -----
        Integer labels spanning at most 64 values (the fixed ones, or with discovered
        labels those of the first chunk, in a table at least 16 wide) are counted straight
        into a running table when a chunk is a pair of native 1-D arrays of one integer
        dtype: no per-chunk state is built. Other chunks take the general path. Updates of
        one accumulator from several Python threads at once are safe.
        """
        t = self._table
        if (t is not None and sample_weight is None and self._weighted is not True
                and plain_int_pair(y_true, y_pred) and y_true.dtype.char not in t.skip
                and (t.dtype is None or y_true.dtype == t.dtype)):
            n = y_true.shape[0]
            counts = _confusion.count_fixed(y_true, y_pred, t.mod_lo, t.shift, t.allowed,
                                            threads_for("confusion", n, n_threads))
            if counts is not None:
                with self._lock:
                    self._note_weighted(False)
                    t.counts += counts
                    t.n += n
                return self
            # a value outside the table: the general path below counts it, or raises (a
            # value outside the fixed labels)
        st = ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                        allow_empty=True)
        if st.n_samples == 0:
            return self
        if self._values is not None:
            st = st.over(self._values)
        with self._lock:
            self._note_weighted(st.weighted)
            if self._table is not None:
                self._fold()  # so that a mix of label types raises here, not in a later read
            self._state = st if self._state is None else self._state.merge(st)
            if self._table is None and self._values is None and not st.weighted:
                self._table = _PairTable.around(st.values, False)
        return self

    def __setstate__(self, d):
        """Accumulators pickled by fastmetrics 0.1.0 (a plain ``__dict__``)."""
        stored = d.get("_stored", d.get("_state"))
        self.__init__(d.get("labels"))
        self._weighted = d.get("_weighted")
        if stored is not None:
            try:  # the same checks as any load: rebuilt from its exported form
                stored = ConfusionState.from_dict(stored.to_dict())
            except (AttributeError, TypeError) as exc:
                raise StateError(f"not a fastmetrics 0.1 ConfusionAccumulator: {exc}") from None
        self._set_state(stored)

    def result(self, *, oos_label=None):
        """The report card: ``fastmetrics.score(y_true, y_pred, labels=labels,
        oos_label=oos_label, sample_weight=...)`` of everything seen."""
        return confusion.card(self._checked_state(), self.labels, oos_label).metrics


_attach_metrics(ConfusionAccumulator)


# --------------------------------------------------------------------------- calibration

class _Accumulator(Accumulator):
    """The merge protocol of the accumulators not yet built on a state type."""

    def _check_other(self, other) -> None:
        if type(other) is not type(self):
            raise TypeError(
                f"cannot merge {type(self).__name__} with {type(other).__name__}"
            )
        if None not in (self._weighted, other._weighted) and self._weighted != other._weighted:
            raise ValueError(_MIXED_WEIGHTS)

    def _merged_weighted(self, other):
        return self._weighted if self._weighted is not None else other._weighted

    __reduce__ = object.__reduce__  # pickled as before (a plain __dict__)


class CalibrationAccumulator(_Accumulator):
    """Streaming calibration bins over fixed edges: ECE, MCE, Brier and the curve.

    Parameters
    ----------
    n_bins : int, default=10
        Equal-width bins on [0, 1] (scikit-learn's ``strategy="uniform"``).
    edges : array-like, default=None
        Explicit bin edges instead: strictly increasing, from 0.0 to 1.0. Bins are closed
        on the right, as in :func:`fastmetrics.calibration_bins`. Quantile bins need all
        the data first and cannot be streamed.
    pos_label : label, default=None
        Positive class of binary ``y_true`` (None: 1 for {0, 1} / {-1, 1} labels).
    labels : array-like, default=None
        Class values of the columns of an (n, K) probability matrix (top-label mode).

    Notes
    -----
    ``result()`` equals ``calibration_summary(y_true, y_prob, n_bins=n_bins, ...)`` on the
    concatenated chunks, ``curve()`` equals ``calibration_curve(y_true, y_prob,
    n_bins=n_bins)``; counts exactly, the float sums to 1e-12 relative.

    Examples
    --------
    >>> from fastmetrics.streaming import CalibrationAccumulator
    >>> acc = CalibrationAccumulator(n_bins=2)
    >>> acc = acc.update([0, 0], [0.5, 0.5]) + CalibrationAccumulator(2).update([1, 1], [0.75, 1.0])
    >>> acc.result().as_row()
    {'ece': 0.3125, 'mce': 0.5, 'brier': 0.140625, 'n_bins': 2}
    """

    labels: Any
    # whether some sample weight seen is non-zero (unweighted samples weigh 1): picks the
    # error of brier_score_loss when the weights sum to zero, as in the one-shot function.
    # A class default for accumulators pickled before it existed
    _any_weight: bool = False

    def __init__(self, n_bins=10, *, edges=None, pos_label=None, labels=None):
        if edges is None:
            n_bins = _cal._check_n_bins(n_bins)
            self.edges = np.linspace(0.0, 1.0, n_bins + 1)
            self._uniform = True
        else:
            e = np.asarray(edges, dtype=np.float64)
            if e.ndim != 1 or e.shape[0] < 2:
                raise ValueError(f"edges must be a 1-D array of at least 2 values, got shape {e.shape}")
            if not (np.all(np.diff(e) > 0) and e[0] == 0.0 and e[-1] == 1.0):
                raise ValueError("edges must be strictly increasing from 0.0 to 1.0")
            self.edges = e
            self._uniform = False
        self.pos_label = pos_label
        self.labels = None if labels is None else np.asarray(labels)
        self._state = np.zeros((self.edges.shape[0] - 1, 5))
        self._mode: str | int | None = None  # "binary", or K for top-label
        self._weighted = None
        self._any_weight = False

    def __repr__(self) -> str:
        return f"CalibrationAccumulator(n_bins={self.n_bins}, n_samples={self.n_samples})"

    @property
    def n_bins(self) -> int:
        return int(self.edges.shape[0] - 1)

    @property
    def n_samples(self) -> int:
        return int(self._state[:, _cal._N].sum())

    def update(self, y_true, y_prob, sample_weight=None, *, n_threads=None):
        """Bin one chunk: ``y_prob`` 1-D (binary) or (n, K) (top label). Returns ``self``.

        ``n_threads``: threads of the binary pass over a large chunk (None: the OpenMP
        default; the result is the same for any value).
        """
        p = _cal._as_prob(y_prob)
        if p.ndim == 2 and p.shape[1] == 1:
            p = p[:, 0]
        if p.ndim not in (1, 2):
            raise ValueError(f"y_prob must be 1-D or (n_samples, n_classes), got shape {p.shape}")
        y = as_1d(y_true, "y_true")
        check_consistent_length(y_true=y, y_prob=p)
        if p.shape[0] == 0:
            return self
        mode = "binary" if p.ndim == 1 else int(p.shape[1])
        if self._mode is not None and mode != self._mode:
            raise ValueError(
                f"y_prob changed shape between chunks ({self._mode!r} then {mode!r} "
                "columns): binary and top-label chunks cannot be mixed"
            )
        weighted = sample_weight is not None
        if p.ndim == 1:
            st = _cal._binary_pass(y, p, self.edges, self._uniform, sample_weight,
                                   self.pos_label, n_threads=n_threads)
        else:
            st, _ = _cal._top_label_pass(y, p, self.edges, self._uniform, sample_weight,
                                         self.labels)
        self._note_weighted(weighted)
        self._mode = mode
        self._state = self._state + st
        if not self._any_weight:  # the weights are read only when the chunk's sum is zero
            self._any_weight = bool(st[:, _cal._W].sum() != 0) or (
                weighted and bool(np.any(np.asarray(sample_weight))))
        return self

    def _empty_like(self):
        out = CalibrationAccumulator.__new__(CalibrationAccumulator)
        out.edges, out._uniform = self.edges, self._uniform
        out.pos_label, out.labels = self.pos_label, self.labels
        out._state = np.zeros_like(self._state)
        out._mode = None
        out._weighted = None
        out._any_weight = False
        return out

    def merge(self, other: CalibrationAccumulator) -> CalibrationAccumulator:
        """A new accumulator holding both inputs' samples (inputs untouched)."""
        self._check_other(other)
        if self.edges.shape != other.edges.shape or not np.array_equal(self.edges, other.edges):
            raise ValueError("cannot merge CalibrationAccumulators with different edges")
        if self.pos_label != other.pos_label or (self.labels is None) != (other.labels is None) \
                or (self.labels is not None and not np.array_equal(self.labels, other.labels)):
            raise ValueError(
                "cannot merge CalibrationAccumulators with different pos_label / labels"
            )
        if None not in (self._mode, other._mode) and self._mode != other._mode:
            raise ValueError("cannot merge binary and top-label (or different K) calibration")
        out = self._empty_like()
        out._state = self._state + other._state
        out._mode = self._mode if self._mode is not None else other._mode
        out._weighted = self._merged_weighted(other)
        out._any_weight = self._any_weight or other._any_weight
        return out

    def bins(self) -> _cal.CalibrationBins:
        """The :class:`~fastmetrics.CalibrationBins` of everything seen."""
        if self._mode is None:
            raise _no_data("CalibrationAccumulator")
        return _cal.CalibrationBins.from_state(self._state.copy(), self.edges)

    def result(self) -> _cal.CalibrationSummary:
        """ECE, MCE and Brier score (:class:`~fastmetrics.CalibrationSummary`)."""
        return _cal._summary_from_bins(self.bins())

    def curve(self) -> tuple[np.ndarray, np.ndarray]:
        """``(prob_true, prob_pred)`` as :func:`fastmetrics.calibration_curve` (binary,
        unweighted chunks only)."""
        if self._mode not in (None, "binary") or self._weighted:
            raise ValueError("curve() needs binary, unweighted chunks (as calibration_curve)")
        self.bins()  # raises without data
        return _cal._curve_from_state(self._state)


# --------------------------------------------------------------------------- regression

_ALL_FLAGS = _reg._FLAG_APE | _reg._FLAG_HUBER | _reg._FLAG_R2


class RegressionAccumulator(_Accumulator):
    """Streaming regression sums: MAE, MSE, RMSE, R², MAPE, Huber loss.

    Parameters
    ----------
    delta : float, default=1.0
        The Huber loss' ``delta``.
    keep_values : bool, default=False
        Also keep every absolute error (and weight) so that ``median_absolute_error()`` is
        exact. This is O(N) memory (8 bytes per sample, 16 with weights); without it the
        accumulator is 10 floats.

    Notes
    -----
    Sums merge with Chan et al.'s formula for the spread of ``y_true`` (no cancellation), so
    every metric equals the one-shot function on the concatenated chunks to 1e-12 relative.

    Examples
    --------
    >>> from fastmetrics.streaming import RegressionAccumulator
    >>> acc = RegressionAccumulator().update([3, -0.5], [2.5, 0.0]).update([2, 7], [2, 8])
    >>> acc.mean_absolute_error(), acc.mean_squared_error()
    (0.5, 0.375)
    """

    def __init__(self, *, delta=1.0, keep_values=False):
        _reg._check_delta(delta)
        self.delta = float(delta)
        self.keep_values = bool(keep_values)
        self._state = np.zeros(_reg._N_STATE)
        self._errors: list[np.ndarray] = []
        self._weights: list[np.ndarray] = []
        self._weighted = None

    def __repr__(self) -> str:
        return f"RegressionAccumulator(n_samples={self.n_samples})"

    @property
    def n_samples(self) -> int:
        return int(self._state[_reg._N])

    def update(self, y_true, y_pred, sample_weight=None, *, n_threads=None):
        """Add one chunk of targets and predictions. Returns ``self``.

        ``n_threads``: threads of the kernel pass over a large chunk (None: the OpenMP
        default; the result is the same for any value).
        """
        yt = _reg._as_target(y_true, "y_true")
        yp = _reg._as_target(y_pred, "y_pred")
        n = check_consistent_length(y_true=yt, y_pred=yp)
        w = check_sample_weight(sample_weight, n)
        if n == 0:
            return self
        st = _reg._checked_sums(yt, yp, w, _ALL_FLAGS, self.delta, n_threads)
        errors = _reg._abs_errors(yt, yp, w) if self.keep_values else None
        self._note_weighted(w is not None)
        merged = self._state.copy()
        _regression.merge(merged, st)
        self._state = merged
        if errors is not None:
            self._errors.append(errors)  # merge builds new lists: never shared
            if w is not None:
                self._weights.append(w.copy())
        return self

    def _empty_like(self):
        return RegressionAccumulator(delta=self.delta, keep_values=self.keep_values)

    def merge(self, other: RegressionAccumulator) -> RegressionAccumulator:
        """A new accumulator holding both inputs' samples (inputs untouched)."""
        self._check_other(other)
        if self.delta != other.delta or self.keep_values != other.keep_values:
            raise ValueError(
                "cannot merge RegressionAccumulators with different delta / keep_values"
            )
        out = self._empty_like()
        out._state = self._state.copy()
        _regression.merge(out._state, other._state)
        out._errors = self._errors + other._errors
        out._weights = self._weights + other._weights
        out._weighted = self._merged_weighted(other)
        return out

    def _s(self) -> np.ndarray:
        if self.n_samples == 0:
            raise _no_data("RegressionAccumulator")
        if self._state[_reg._W] == 0:
            raise _reg.zero_weight_sum_error(np.zeros(1))
        return self._state

    def result(self) -> _reg.RegressionSummary:
        """MAE, MSE, RMSE and R² (:class:`~fastmetrics.regression.RegressionSummary`), as
        :func:`fastmetrics.regression_summary`."""
        return _reg._summary_from_state(self._s())

    def mean_absolute_error(self, *, multioutput="uniform_average"):
        _reg._check_multioutput(multioutput)
        return _reg._out(_reg._mae(self._s()), multioutput)

    def mean_squared_error(self, *, multioutput="uniform_average"):
        _reg._check_multioutput(multioutput)
        return _reg._out(_reg._mse(self._s()), multioutput)

    def root_mean_squared_error(self, *, multioutput="uniform_average"):
        _reg._check_multioutput(multioutput, output_weights=True)
        return _reg._out(math.sqrt(_reg._mse(self._s())), multioutput)

    def mean_absolute_percentage_error(self, *, multioutput="uniform_average"):
        _reg._check_multioutput(multioutput)
        return _reg._out(_reg._mape(self._s()), multioutput)

    def huber_loss(self) -> float:
        """Mean Huber loss with the accumulator's ``delta``."""
        return _reg._huber(self._s())

    def r2_score(self, *, multioutput="uniform_average", force_finite=True):
        _reg._check_multioutput(multioutput, ("raw_values", "uniform_average",
                                              "variance_weighted"))
        return _reg._out(_reg._r2_from_state(self._s(), force_finite), multioutput)

    def adjusted_r2_score(self, *, n_features, force_finite=True) -> float:
        _reg._check_n_features(n_features)
        return _reg._adjusted_r2_from_state(self._s(), n_features, force_finite)

    def median_absolute_error(self, *, multioutput="uniform_average"):
        """Exact median absolute error; needs ``keep_values=True`` (O(N) memory)."""
        _reg._check_multioutput(multioutput)
        if not self.keep_values:
            raise ValueError(
                "median_absolute_error needs every error: create the accumulator with "
                "keep_values=True (O(N) memory)"
            )
        self._s()
        e = np.concatenate(self._errors)
        w = np.concatenate(self._weights) if self._weighted else None
        return _reg._out(_reg._median_from_errors(e, w), multioutput)


# --------------------------------------------------------------------------- ranking


class RankingAccumulator(Accumulator):
    """Streaming binary ROC AUC, average precision and their curves.

    Parameters
    ----------
    pos_label : label, default=1
        The positive class of the methods and of ``result()``; every other label is
        negative. None: each method's scikit-learn default (``roc_auc_score``: the greater
        label, as :func:`fastmetrics.roc_auc_score`; the curves: 1 for {0, 1} / {-1, 1}
        labels). The state does not depend on it: the weight of each class is kept. At most
        two distinct labels may be seen over the whole stream.
    thresholds : array-like, default=None
        None: exact mode. The accumulator keeps the sorted summary (distinct score, weight of
        each class) and merges summaries by threshold: memory grows with the number of
        distinct scores (O(N) at worst, 24 bytes each). Scores given: binned mode, constant
        memory. ``len(thresholds) + 1`` bins ``(-inf, t0], (t0, t1], ..., (t_last, inf)``
        each keep the weight of each class; the result gives the scores with the samples of
        a bin taken as tied, and bounds for any order inside the bins.

    Notes
    -----
    Exact mode equals ``roc_auc_score(y, s)`` (when ``pos_label`` is the greater label, as
    scikit-learn picks it, or None), ``average_precision_score(y, s, pos_label=pos_label)``,
    ``roc_curve`` and ``precision_recall_curve`` on the concatenated chunks, to 1e-12
    relative (exactly for the counts).

    Examples
    --------
    >>> from fastmetrics.streaming import RankingAccumulator
    >>> acc = RankingAccumulator().update([0, 0], [0.1, 0.4]).update([1, 1], [0.35, 0.8])
    >>> r = acc.result()
    >>> r.roc_auc, round(r.average_precision, 6), r.mode
    (0.75, 0.833333, 'exact')
    """

    family = "ranking"
    _config = ("pos_label", "thresholds")
    thresholds: Any

    def __init__(self, *, pos_label=1, thresholds=None):
        self._start()
        self.pos_label = pos_label
        if thresholds is None:
            self.thresholds = None
        else:
            t = np.asarray(thresholds, dtype=np.float64)
            if t.ndim != 1 or t.shape[0] < 1:
                raise ValueError("thresholds must be a non-empty 1-D array of scores")
            if not np.isfinite(t).all() or not np.all(np.diff(t) > 0):
                raise ValueError("thresholds must be finite and strictly increasing")
            self.thresholds = t

    @classmethod
    def _state_type(cls) -> type:
        return RankingState

    def __repr__(self) -> str:
        mode = "exact" if self.thresholds is None else f"binned({self.thresholds.shape[0] + 1})"
        return f"RankingAccumulator({mode}, n_samples={self.n_samples})"

    @property
    def mode(self) -> str:
        return "exact" if self.thresholds is None else "binned"

    def _set_state(self, st) -> None:
        t = self.thresholds
        if st is not None and isinstance(st, RankingState) and (
                st.binned != (t is not None) or (st.binned and not (
                    st.edges.shape == t.shape and np.array_equal(st.edges, t)))):
            raise StateError("the state's thresholds are not the accumulator's")
        super()._set_state(st)

    def update(self, y_true, y_score, sample_weight=None, *, n_threads=None):
        """Add one chunk of binary labels and scores. Returns ``self``.

        ``n_threads``: threads of the sort on a large chunk (None: the OpenMP default; the
        result is the same for any value)."""
        st = RankingState.from_arrays(y_true, y_score, sample_weight, n_threads,
                                      edges=self.thresholds, allow_empty=True,
                                      allow_zero_sum=True)
        if st.n_samples:
            self._add(st, sample_weight is not None)
        return self

    def __setstate__(self, d):
        """Accumulators pickled by fastmetrics 0.1.0 (a plain ``__dict__``)."""
        self.__init__(pos_label=d.get("pos_label", 1), thresholds=d.get("thresholds"))
        self._weighted = d.get("_weighted")
        try:
            counts = np.asarray(d["_counts"], dtype=np.int64)
            if int(counts.sum()) == 0:
                return
            if self.thresholds is None:
                thr, p, q = d["_summary"]
            else:
                thr, p, q = None, np.asarray(d["_p"])[::-1], np.asarray(d["_q"])[::-1]
            st = RankingState.from_positive_negative(
                thr, p, q, d["_classes"], int(counts[0]), int(counts[1]), self.pos_label,
                self.thresholds)
            st = RankingState.from_dict(st.to_dict())  # the same checks as any load
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise StateError(f"not a fastmetrics 0.1 RankingAccumulator: {exc}") from None
        self._set_state(st)

    def summary(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(thresholds, positive weight, negative weight)``, thresholds decreasing. Binned
        mode: one row per bin, labelled by the bin's upper edge (inf for the last)."""
        return ranking.pos_neg_summary(self._checked_state(), self.pos_label)

    def result(self) -> RankingResult:
        """:class:`RankingResult`: AUC and AP, with bounds and the mode's guarantee."""
        return ranking.result(self._checked_state(), self.pos_label)


_attach_metrics(RankingAccumulator)


# --------------------------------------------------------------------------- quantiles


def _lowest(lo_a, n_a, lo_b, n_b):
    """Lowest bucket of two stores, an empty one (n == 0) not counting."""
    if not n_a:
        return lo_b
    if not n_b:
        return lo_a
    return min(lo_a, lo_b)


# the sketch's meta array, as the enum of _sketch.pyx: per store (positive, then negative)
# its highest bucket and its count, the zero count, then each store's lowest bucket ever seen
_POS_HI, _POS_N, _NEG_HI, _NEG_N, _ZEROS, _POS_LO, _NEG_LO, _N_META = range(8)

_SKETCH_METHODS = ("linear", "lower", "higher", "nearest")


@dataclass(frozen=True)
class QuantileResult:
    """Quantiles from a :class:`QuantileAccumulator`.

    Attributes
    ----------
    q : ndarray
        The probabilities asked for, in [0, 1].
    values : ndarray
        The quantiles (float64).
    method : str
        numpy's ``method`` they follow.
    mode : {"exact", "sketch"}
    relative_accuracy : float or None
        Sketch mode: the guaranteed relative error ``alpha`` (None when exact).
    n_samples : int
    min, max : float
        Exact smallest and largest values seen.
    guarantee : str
        What the numbers promise, in words.
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
        """``{q: value}``."""
        return {float(a): float(b) for a, b in zip(self.q, self.values)}


class QuantileAccumulator(_Accumulator):
    """Streaming quantiles (latencies, scores, errors): exact, or a mergeable sketch.

    Parameters
    ----------
    mode : {"sketch", "exact"}, default="sketch"
        "sketch": DDSketch-style log buckets counted by a compiled kernel. Every value ``x``
        lands in the bucket ``i = ceil(log_gamma(|x|))`` with ``gamma = (1 + alpha) / (1 -
        alpha)``, reported as ``2 gamma**i / (gamma + 1)``, which is within ``alpha`` of any
        value of the bucket, relatively. Positive and negative values have a store each,
        zeros a counter. Memory: at most ``2 * max_buckets`` counts, whatever the stream.
        "exact": keeps every value (O(N) memory, 8 bytes per value) and gives
        :func:`fastmetrics.quantile`'s (numpy's) values.
    relative_accuracy : float, default=0.01
        ``alpha`` in (0, 1), sketch mode.
    max_buckets : int, default=2048
        Buckets per store (sketch mode). When the values of a store span more buckets than
        this (a ratio above ``gamma ** max_buckets``, about 5e17 for alpha = 0.01), its lowest
        buckets are collapsed into one: the smallest magnitudes lose the guarantee (their
        estimate is too large), the rest keep it. ``collapsed`` tells whether it happened.

    Notes
    -----
    Guarantee (sketch): for ``method`` "lower", "higher" and "nearest" each returned value
    is within ``alpha`` (relative) of ``np.quantile(all_values, q, method=method)``; for
    "linear" too when the two order statistics it interpolates have the same sign. Counts
    are integers, so any split and merge order gives the same sketch. NaN or infinite
    values raise ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmetrics.streaming import QuantileAccumulator
    >>> acc = QuantileAccumulator(relative_accuracy=0.01)
    >>> for chunk in np.array_split(np.arange(1.0, 1001.0), 7):
    ...     _ = acc.update(chunk)
    >>> r = acc.result([0.5, 0.99], method="lower")
    >>> r.mode, np.abs(r.values / np.array([500.0, 990.0]) - 1).max() <= 0.01
    ('sketch', np.True_)
    """

    def __init__(self, *, mode="sketch", relative_accuracy=0.01, max_buckets=2048):
        if mode not in ("sketch", "exact"):
            raise ValueError(f"mode must be 'sketch' or 'exact', got {mode!r}")
        self.mode = mode
        a = relative_accuracy
        if isinstance(a, bool) or not isinstance(a, (int, float, np.floating)) or not 0 < a < 1:
            raise ValueError(f"relative_accuracy must be a number in (0, 1), got {a!r}")
        if isinstance(max_buckets, bool) or not isinstance(max_buckets, (int, np.integer)) \
                or max_buckets < 1:
            raise ValueError(f"max_buckets must be an int >= 1, got {max_buckets!r}")
        self.relative_accuracy = float(a)
        self.max_buckets = int(max_buckets)
        self._gamma = (1.0 + self.relative_accuracy) / (1.0 - self.relative_accuracy)
        cap = self.max_buckets if mode == "sketch" else 0
        self._pos = np.zeros(cap, dtype=np.int64)
        self._neg = np.zeros(cap, dtype=np.int64)
        self._meta = np.zeros(_N_META, dtype=np.int64)  # layout: _POS_HI ... _NEG_LO
        self._minmax = np.array([np.inf, -np.inf])
        self._values: list[np.ndarray] = []
        self._n = 0
        self._weighted = False

    def __repr__(self) -> str:
        return f"QuantileAccumulator(mode={self.mode!r}, n_samples={self._n})"

    @property
    def n_samples(self) -> int:
        return self._n

    @property
    def collapsed(self) -> bool:
        """Whether a store ever spanned more than ``max_buckets`` buckets (sketch mode)."""
        m, cap = self._meta, self.max_buckets
        return bool((m[_POS_N] > 0 and m[_POS_LO] < m[_POS_HI] - cap + 1)
                    or (m[_NEG_N] > 0 and m[_NEG_LO] < m[_NEG_HI] - cap + 1))

    def update(self, values):
        """Add a chunk of values (any real dtype; 1-D or anything that ravels). Returns
        ``self``."""
        a = values if type(values) is np.ndarray else np.asarray(values)
        if a.dtype.kind not in "iufb":
            raise TypeError(f"values must be real numbers, got dtype {a.dtype}")
        a = a.reshape(-1)
        if a.shape[0] == 0:
            return self
        if self.mode == "exact":
            if a.dtype.kind == "f" and not np.isfinite(a).all():
                bad = int(np.flatnonzero(~np.isfinite(a))[0])
                raise ValueError(f"values contains NaN or infinity (first at index {bad})")
            self._values.append(a.copy())  # merge builds a new list: not shared
            self._minmax = np.array([min(self._minmax[0], float(a.min())),
                                     max(self._minmax[1], float(a.max()))])
        else:
            if a.dtype.kind not in "fi" or a.dtype.itemsize not in (4, 8):
                a = a.astype(np.float64)  # the kernel reads float32/64 and int32/64
            a = native(a)
            pos, neg, meta, mm = self._pos.copy(), self._neg.copy(), self._meta.copy(), \
                self._minmax.copy()
            bad = _sketch.add(a, 1.0 / math.log(self._gamma), pos, neg, meta, mm)
            if bad >= 0:
                raise ValueError(f"values contains NaN or infinity (first at index {bad})")
            self._pos, self._neg, self._meta, self._minmax = pos, neg, meta, mm
        self._n += int(a.shape[0])
        return self

    def _empty_like(self):
        return QuantileAccumulator(mode=self.mode, relative_accuracy=self.relative_accuracy,
                                   max_buckets=self.max_buckets)

    @staticmethod
    def _merge_store(a, hi_a, n_a, b, hi_b, n_b):
        """Two stores as one (same rule as the kernel: slot ``max(i, hi - cap + 1)``)."""
        if n_b == 0:
            return a.copy(), hi_a
        if n_a == 0:
            return b.copy(), hi_b
        cap = a.shape[0]
        hi = max(hi_a, hi_b)
        out = np.zeros(cap, dtype=np.int64)
        for store, h in ((a, hi_a), (b, hi_b)):
            # slot k of a store ending at h lands at k - d in the window ending at hi (d =
            # hi - h), the slots below d in its lowest slot: integer shifts, exact for any count
            d = int(min(hi - h, cap))
            out[:cap - d] += store[d:]
            out[0] += store[:d].sum()
        return out, hi

    def merge(self, other: QuantileAccumulator) -> QuantileAccumulator:
        """A new accumulator holding both inputs' values (inputs untouched)."""
        self._check_other(other)
        if (self.mode, self.relative_accuracy, self.max_buckets) != (
                other.mode, other.relative_accuracy, other.max_buckets):
            raise ValueError(
                "cannot merge QuantileAccumulators with different mode / relative_accuracy / "
                "max_buckets"
            )
        out = self._empty_like()
        out._n = self._n + other._n
        out._minmax = np.array([min(self._minmax[0], other._minmax[0]),
                                max(self._minmax[1], other._minmax[1])])
        out._values = self._values + other._values
        if self.mode == "sketch":
            m, o = self._meta, other._meta
            out._pos, ph = self._merge_store(self._pos, m[_POS_HI], m[_POS_N],
                                             other._pos, o[_POS_HI], o[_POS_N])
            out._neg, nh = self._merge_store(self._neg, m[_NEG_HI], m[_NEG_N],
                                             other._neg, o[_NEG_HI], o[_NEG_N])
            meta = np.zeros(_N_META, dtype=np.int64)
            meta[_POS_HI], meta[_NEG_HI] = ph, nh
            meta[_POS_N], meta[_NEG_N] = m[_POS_N] + o[_POS_N], m[_NEG_N] + o[_NEG_N]
            meta[_ZEROS] = m[_ZEROS] + o[_ZEROS]
            meta[_POS_LO] = _lowest(m[_POS_LO], m[_POS_N], o[_POS_LO], o[_POS_N])
            meta[_NEG_LO] = _lowest(m[_NEG_LO], m[_NEG_N], o[_NEG_LO], o[_NEG_N])
            out._meta = meta
        return out

    def _buckets(self) -> tuple[np.ndarray, np.ndarray]:
        """Representative values (increasing) and their counts over both stores and zero."""
        cap = self.max_buckets
        g = self._gamma
        m = self._meta

        def rep(store, hi):
            idx = np.arange(hi - cap + 1, hi + 1, dtype=np.float64)
            nz = store != 0
            return 2.0 * np.power(g, idx[nz]) / (g + 1.0), store[nz]

        empty = (np.empty(0), np.empty(0, np.int64))
        pv, pc = rep(self._pos, m[_POS_HI]) if m[_POS_N] else empty
        nv, nc = rep(self._neg, m[_NEG_HI]) if m[_NEG_N] else empty
        vals = np.concatenate([-nv[::-1], [0.0], pv])
        counts = np.concatenate([nc[::-1], [m[_ZEROS]], pc])
        return vals, counts

    def result(self, q=(0.5, 0.9, 0.95, 0.99), *, method="linear") -> QuantileResult:
        """The quantiles ``q`` (in [0, 1]) of everything seen, as :class:`QuantileResult`.

        Exact mode: any of numpy's methods, numpy's values. Sketch mode: ``method`` one of
        "linear", "lower", "higher", "nearest", each within ``relative_accuracy`` (see the
        class notes)."""
        qa = np.atleast_1d(np.asarray(q, dtype=np.float64))
        if qa.ndim != 1 or qa.size == 0 or not np.all((qa >= 0) & (qa <= 1)):
            raise ValueError("Quantiles must be in the range [0, 1]")
        if self._n == 0:
            raise _no_data("QuantileAccumulator")
        lo, hi = float(self._minmax[0]), float(self._minmax[1])
        if self.mode == "exact":
            v = np.asarray(_exact_quantile(np.concatenate(self._values), qa, method=method),
                           dtype=np.float64)
            return QuantileResult(qa, v, method, "exact", None, self._n, lo, hi,
                                  "exact: numpy's quantile of every value seen (O(N) memory)")
        if method not in _SKETCH_METHODS:
            raise ValueError(f"sketch mode supports method in {_SKETCH_METHODS}, got {method!r}")
        vals, counts = self._buckets()
        cum = np.cumsum(counts)
        idx = qa * (self._n - 1)

        def at(rank):  # the value of the order statistic ``rank`` (0-based)
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
        a_ = self.relative_accuracy
        return QuantileResult(
            qa, v.astype(np.float64), method, "sketch", a_, self._n, lo, hi,
            f"sketch: each value within {a_:g} relative of numpy's (method={method!r}); "
            f"{'LOWEST BUCKETS COLLAPSED: the smallest magnitudes are overestimated; ' if self.collapsed else ''}"
            f"memory {2 * self.max_buckets} counts",
        )
