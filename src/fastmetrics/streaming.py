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
import threading
from typing import Any, ClassVar

import numpy as np

from . import _docstrings, _table
from ._states import bins as calibration
from ._states import confusion, contingency, ranking, sketch, sums
from ._states.base import FORMAT as STATE_FORMAT, State, StateError
from ._states.bins import CalibrationBins, CalibrationState, CalibrationSummary
from ._states.confusion import ConfusionState, PairCounts
from ._states.contingency import ContingencyState
from ._states.hinge import HingeState
from ._states.proba import ProbabilityState, check_k, label_table, sorted_labels
from ._states.labelrank import LabelRankingState
from ._states.pinball import PinballState
from ._states.ranking import RankingResult, RankingState
from ._states.sketch import ExactQuantileState, QuantileResult, SketchState
from ._states.sums import RegressionState
from ._states.deviance import SquaredLogState, TweedieState, check_power
from ._states.paired import PairedConfusionState
from .uncertainty import (
    BootstrapResult,
    ComparisonResult,
    McNemarResult,
    bootstrap_state,
    compare_state,
    mcnemar_from_counts,
)

__all__ = [
    "Accumulator",
    "CalibrationAccumulator",
    "ConfusionAccumulator",
    "ContingencyAccumulator",
    "ProbabilityAccumulator",
    "HingeAccumulator",
    "LabelRankingAccumulator",
    "PairedConfusionAccumulator",
    "PinballAccumulator",
    "QuantileAccumulator",
    "QuantileResult",
    "RankingAccumulator",
    "RankingResult",
    "RegressionAccumulator",
    "SquaredLogAccumulator",
    "TweedieAccumulator",
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

    A subclass names its ``family`` (its metrics come from the table of mergeable metrics
    as methods), its constructor arguments (``_config``: compared on merge, exported by
    :meth:`to_dict`) and builds the state of one chunk in ``update``, which it hands to
    ``_add``. Mixing weighted and unweighted chunks raises.

    Every accumulator updates in place and returns itself from ``update``, merges into a new
    accumulator (``merge``, ``a + b``, ``sum(accumulators)``), exports its configuration
    and state to plain values (``to_dict`` / ``from_dict``) and pickles through them.

    See Also
    --------
    fastmetrics.states.State : The states the accumulators hold.
    fastmetrics.dask.accumulate : An accumulator of dask inputs, built where the chunks
        live.

    Examples
    --------
    >>> from fastmetrics.streaming import Accumulator, ConfusionAccumulator
    >>> acc = ConfusionAccumulator().update([0, 1], [0, 0])
    >>> isinstance(acc, Accumulator), acc.n_samples
    (True, 2)
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
        any sample.

        See Also
        --------
        fastmetrics.states.State : The base of the state types.

        Examples
        --------
        >>> from fastmetrics.streaming import RegressionAccumulator
        >>> acc = RegressionAccumulator()
        >>> acc.state is None
        True
        >>> type(acc.update([1.0, 2.0], [1.5, 2.0]).state).__name__
        'RegressionState'
        """
        return self._state

    @property
    def n_samples(self) -> int:
        """Number of samples seen so far.

        See Also
        --------
        fastmetrics.streaming.Accumulator.state : The state they are counted in.

        Examples
        --------
        >>> from fastmetrics.streaming import ConfusionAccumulator
        >>> ConfusionAccumulator().update([0, 1, 1], [0, 1, 0]).n_samples
        3
        """
        st = self.state
        return 0 if st is None else int(st.n_samples)

    def require_state(self):
        """The state of everything seen; ``ValueError`` when no sample was seen yet.

        Returns
        -------
        State
            The accumulated state (a :mod:`fastmetrics.states` type).

        Raises
        ------
        ValueError
            If no sample has been seen yet.

        See Also
        --------
        fastmetrics.streaming.Accumulator.state : The same state, or None before data.

        Examples
        --------
        >>> from fastmetrics.streaming import ConfusionAccumulator
        >>> ConfusionAccumulator().update([0, 1], [0, 1]).require_state().n_samples
        2
        """
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
        """The constructor arguments of this accumulator.

        Two accumulators merge only when their configurations are equal.

        Returns
        -------
        dict
            Argument name -> value, as the accumulator holds them (labels and edges as
            arrays).

        See Also
        --------
        fastmetrics.streaming.Accumulator.to_dict : The configuration and the state as plain
            values.

        Examples
        --------
        >>> from fastmetrics.streaming import RegressionAccumulator
        >>> RegressionAccumulator(delta=2.0).config()
        {'delta': 2.0, 'keep_values': False}
        """
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
        """A new accumulator holding both inputs' samples (inputs untouched).

        ``a + b`` and ``sum(accumulators)`` call it. Merges are associative and
        commutative: any order and tree of merges gives the same counts (float sums to
        about 1e-12 relative).

        Parameters
        ----------
        other : Accumulator
            An accumulator of the same class and configuration.

        Returns
        -------
        Accumulator
            A new accumulator of the same class holding the samples of both.

        Raises
        ------
        TypeError
            If ``other`` is not an accumulator of the same class.
        ValueError
            If the configurations differ (labels, edges, thresholds, ``pos_label``...), or
            one accumulator saw weighted chunks and the other unweighted ones.

        See Also
        --------
        fastmetrics.states.State.merge : The merge of the states underneath.

        Examples
        --------
        >>> from fastmetrics.streaming import ConfusionAccumulator
        >>> a = ConfusionAccumulator().update([0, 1], [0, 1])
        >>> b = ConfusionAccumulator().update([1, 1], [0, 1])
        >>> a.merge(b).accuracy_score(), (a + b).n_samples, a.n_samples
        (0.75, 4, 2)
        """
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
        :meth:`~fastmetrics.states.State.to_dict` (None before any sample).

        Parameters
        ----------
        as_lists : bool, default=False
            Give arrays as lists (for JSON); False keeps numpy arrays.

        Returns
        -------
        dict
            ``accumulator`` (the class name), ``format``, ``config``, ``weighted`` (None
            before any sample) and ``state``; :meth:`from_dict` loads it back.

        See Also
        --------
        fastmetrics.streaming.Accumulator.from_dict : The accumulator back from these values.

        Examples
        --------
        >>> import json
        >>> from fastmetrics.streaming import ConfusionAccumulator
        >>> acc = ConfusionAccumulator().update([0, 1, 1], [0, 1, 0])
        >>> d = json.loads(json.dumps(acc.to_dict(as_lists=True)))
        >>> ConfusionAccumulator.from_dict(d).accuracy_score()
        0.6666666666666666
        """
        st = self.state
        config = {k: (v.tolist() if as_lists and isinstance(v, np.ndarray) else v)
                  for k, v in self.config().items()}
        return {"accumulator": type(self).__name__, "format": _FORMAT, "config": config,
                "weighted": self._weighted,
                "state": None if st is None else st.to_dict(as_lists=as_lists)}

    @classmethod
    def from_dict(cls, d):
        """Rebuild an accumulator from :meth:`to_dict`'s values, checking its state.

        Parameters
        ----------
        d : dict
            What :meth:`to_dict` gave (arrays or lists), for this class.

        Returns
        -------
        Accumulator
            An accumulator of this class with the exported configuration and state.

        Raises
        ------
        fastmetrics.states.StateError
            A ``ValueError``: if ``d`` is not an exported accumulator of this class and
            format, its settings are invalid, or its state breaks an invariant of its type.

        See Also
        --------
        fastmetrics.streaming.Accumulator.to_dict : The values this reads.
        fastmetrics.states.load_state : Load a state on its own.

        Examples
        --------
        >>> from fastmetrics.streaming import RegressionAccumulator
        >>> acc = RegressionAccumulator().update([3.0, 1.0], [2.5, 1.0])
        >>> RegressionAccumulator.from_dict(acc.to_dict()).mean_absolute_error()
        0.25
        """
        try:
            name, fmt, config = d["accumulator"], d["format"], dict(d["config"])
            weighted, st = d["weighted"], d["state"]
        except (KeyError, TypeError) as exc:
            raise StateError(f"not an exported accumulator: {exc!r}") from None
        if name != cls.__name__ or fmt != _FORMAT:
            raise StateError(f"a {name!r} (format {fmt}) cannot be loaded as {cls.__name__}")
        if weighted not in (None, True, False):
            raise StateError(f"'weighted' must be None, True or False, got {weighted!r}")
        try:
            out = cls(**config)
        except (TypeError, ValueError) as exc:
            raise StateError(f"invalid {cls.__name__} settings {config!r}: {exc}") from None
        state = None if st is None else State.from_dict(st)
        # the rule against mixing weighted and unweighted chunks holds after a load too
        if state is not None and state.n_samples > 0 and (
                weighted is None or bool(weighted) != bool(getattr(state, "weighted", weighted))):
            raise StateError(f"'weighted' ({weighted!r}) disagrees with the state's")
        out._weighted = weighted
        out._set_state(state)
        return out

    def _set_state(self, st) -> None:
        if st is not None and not isinstance(st, self._state_type()):
            raise StateError(f"a {type(st).__name__} cannot be the state of {type(self).__name__}")
        self._state = st

    def _state_type(self) -> type[State]:  # pragma: no cover - every subclass defines it
        """The state type this accumulator holds (a method of the instance: a
        QuantileAccumulator's depends on its mode)."""
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
        for p in config:  # the accumulator's setting; None leaves the derivation's default
            v = getattr(self, p)
            if v is not None:
                bound[p] = v
        return derive(self.require_state(), **bound)

    method.__name__ = row.name
    # inspect.signature reads __signature__, which typeshed does not declare on functions
    method.__signature__ = sig  # type: ignore[attr-defined]
    return method


def _attach_metrics(cls: type[Accumulator]) -> type[Accumulator]:
    """Give ``cls`` one method per table row of its family."""
    for row in _table.by_family(cls.family):
        m = _metric_method(row)
        m.__qualname__ = f"{cls.__name__}.{row.name}"
        m.__doc__ = _docstrings.accumulator_method_doc(row, cls.__name__)
        setattr(cls, row.name, m)
    return cls


def _bootstrap_method(self, metric, *, n_resamples=1000, confidence_level=0.95,
                      method="percentile", random_state=None, **metric_kwargs) -> BootstrapResult:
    """As :func:`fastmetrics.bootstrap` on every sample seen, the resamples drawn from the
    state's cells.

    Unweighted chunks only: weighted resamples need the rows. The accumulator's settings
    (``pos_label``) apply as they do to its metric methods. Each resample costs O(cells),
    whatever the number of samples seen.

    Parameters
    ----------
    metric : str or callable
        A metric of the accumulator's family, by name (``"f1_score"``) or as the
        fastmetrics function (``fastmetrics.f1_score``).
    n_resamples : int, default=1000
        Number of bootstrap resamples.
    confidence_level : float, default=0.95
        Level of the confidence interval, in (0, 1).
    method : {"percentile", "basic", "bca"}, default="percentile"
        The interval, as ``scipy.stats.bootstrap`` defines it.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the resampling (the same seed gives the same result).
    **metric_kwargs
        Passed to the metric (``average="macro"``, ``labels=...``).

    Returns
    -------
    BootstrapResult
        ``value``, ``confidence_interval``, ``standard_error``,
        ``bootstrap_distribution`` and ``resampled`` (``"cells"``).

    Raises
    ------
    ValueError
        If no sample has been seen yet, the chunks were weighted, ``metric`` is not a
        metric of the accumulator's family, or a resampling parameter is out of range.

    See Also
    --------
    fastmetrics.bootstrap : The same interval from the arrays.
    fastmetrics.bootstrap_state : The same interval from a state.
    fastmetrics.dask.bootstrap : The same interval over dask inputs.

    Examples
    --------
    >>> from fastmetrics.streaming import ConfusionAccumulator
    >>> acc = ConfusionAccumulator().update([0, 1, 1, 0] * 25, [0, 1, 0, 0] * 25)
    >>> r = acc.bootstrap("accuracy_score", n_resamples=200, random_state=0)
    >>> r.value, r.resampled
    (0.75, 'cells')
    """
    rows = [r for r in _table.by_family(self.family)
            if r.name == metric or r.function is metric]
    if rows:
        takes = inspect.signature(rows[0].derive).parameters
        for p in rows[0].config:
            v = getattr(self, p, None)
            if p in takes and v is not None and p not in metric_kwargs:
                metric_kwargs[p] = v
    return bootstrap_state(self.require_state(), metric, n_resamples=n_resamples,
                           confidence_level=confidence_level, method=method,
                           random_state=random_state, **metric_kwargs)


def _attach_bootstrap(cls: type[Accumulator]) -> type[Accumulator]:
    m = _bootstrap_method
    setattr(cls, "bootstrap", m)
    return cls


# --------------------------------------------------------------------------- confusion

# the name of the running table in fastmetrics 0.1 pickles (unpickled, then left unread)
_PairTable = PairCounts


class ConfusionAccumulator(Accumulator):
    """Streaming confusion state: every classification metric and the report card.

    Parameters
    ----------
    labels : array-like, default=None
        The fixed label set. Chunks are counted straight into a K x K table over these
        labels and a label outside them raises ``ValueError``; the report card lists them in
        this order (as ``score(..., labels=labels)``). None: labels are discovered as they
        come and states over different label sets are aligned when they merge.

    Raises
    ------
    ValueError
        If ``labels`` is empty or holds duplicates.

    See Also
    --------
    fastmetrics.score : The report card in one pass over arrays.
    fastmetrics.states.ConfusionState : The state it holds.
    fastmetrics.dask.accumulate : The same accumulator over dask inputs
        (``kind="confusion"``).

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
        self._table = PairCounts.around(self._values, True)  # discovered: set by update

    @classmethod
    def _state_type(cls) -> type[State]:
        return ConfusionState

    def __repr__(self) -> str:
        lab = "None" if self.labels is None else str(self.labels.tolist())
        return f"ConfusionAccumulator(labels={lab}, n_samples={self.n_samples})"

    @property
    def state(self) -> ConfusionState | None:
        """The accumulated :class:`~fastmetrics.states.ConfusionState` (None before data):
        the stored state with the running table folded in.

        See Also
        --------
        fastmetrics.states.ConfusionState : The state type.

        Examples
        --------
        >>> from fastmetrics.streaming import ConfusionAccumulator
        >>> ConfusionAccumulator().update([0, 1], [1, 1]).state.n_samples
        2
        """
        if self._table is not None:
            with self._lock:
                self._fold()
        return self._state

    def _fold(self) -> None:
        """Fold the running table into the stored state (the caller holds the lock, and has
        seen that there is a table: it is never removed once made)."""
        assert self._table is not None
        st = self._table.take()
        if st is not None:
            self._state = st if self._state is None else self._state.merge(st)

    def _set_state(self, st) -> None:
        super()._set_state(st)
        if st is not None and self._values is not None:
            self._state = st.over(self._values)
        if self._table is None and self._values is None and st is not None and not st.weighted:
            self._table = PairCounts.around(st.values, False)

    def update(self, y_true, y_pred, sample_weight=None, *, n_threads=None):
        """Count one chunk. Returns ``self``.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,)
            Labels of the chunk (any dtype :func:`fastmetrics.confusion_matrix` takes).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads for the counting kernel, as in the one-shot functions: None is what
            OpenMP allows (``OMP_NUM_THREADS``, threadpoolctl limits), and chunks under
            2**18 samples always use one. Pass 1 on a machine busy with other work: OpenMP's
            spinning worker then competes with it on every chunk (README, Streaming).

        Returns
        -------
        ConfusionAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or are not 1-D labels, a label is
            outside the fixed ``labels``, the labels mix types across chunks, or weights
            are given for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import ConfusionAccumulator
        >>> acc = ConfusionAccumulator(labels=[0, 1])
        >>> acc.update([0, 1, 1], [0, 1, 0]).update([1], [1]).confusion_matrix().tolist()
        [[1, 0], [1, 2]]

        Notes
        -----
        Integer labels spanning at most 64 values (the fixed ones, or with discovered
        labels those of the first chunk, in a table at least 16 wide) are counted straight
        into a running table when a chunk is a pair of native 1-D arrays of one integer
        dtype: no per-chunk state is built. Other chunks take the general path. Updates of
        one accumulator from several Python threads at once are safe.
        """
        t = self._table
        if t is not None and sample_weight is None and self._weighted is not True:
            counts = t.count(y_true, y_pred, n_threads)
            if counts is not None:
                with self._lock:
                    self._note_weighted(False)
                    t.add(counts, y_true.shape[0])
                return self
            # not a chunk the table takes, or a value outside it: the general path below
            # counts it, or raises (a value outside the fixed labels)
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
                self._table = PairCounts.around(st.values, False)
        return self

    def __setstate__(self, d):
        """Accumulators pickled by fastmetrics 0.1.0 (a plain ``__dict__``)."""
        stored = d.get("_stored", d.get("_state"))
        # the class's constructor, as from_dict's cls(**config) runs it: the same call as
        # self.__init__(...), which mypy refuses on an instance
        type(self).__init__(self, d.get("labels"))
        self._weighted = d.get("_weighted")
        if stored is not None:
            try:  # the same checks as any load: rebuilt from its exported form
                stored = ConfusionState.from_dict(stored.to_dict())
            except (AttributeError, TypeError) as exc:
                raise StateError(f"not a fastmetrics 0.1 ConfusionAccumulator: {exc}") from None
        self._set_state(stored)

    def result(self, *, oos_label=None):
        """The report card: ``fastmetrics.score(y_true, y_pred, labels=labels,
        oos_label=oos_label, sample_weight=...)`` of everything seen.

        Parameters
        ----------
        oos_label : label, default=None
            The out-of-scope (abstain) label: adds ``oos_recall`` and ``oos_precision``.

        Returns
        -------
        ClassificationMetrics
            Accuracy, macro / weighted F1, per-class precision, recall and F1 and the
            rest of :func:`fastmetrics.score`'s card.

        Raises
        ------
        ValueError
            If no sample has been seen yet.

        See Also
        --------
        fastmetrics.score : The same card in one pass over arrays.

        Examples
        --------
        >>> from fastmetrics.streaming import ConfusionAccumulator
        >>> acc = ConfusionAccumulator().update([0, 1, 2, 2], [0, 1, 2, 1]).update([-1], [-1])
        >>> m = acc.result(oos_label=-1)
        >>> m.accuracy, m.oos_recall
        (0.8, 1.0)
        """
        return confusion.card(self.require_state(), self.labels, oos_label).metrics


_attach_metrics(ConfusionAccumulator)
_attach_bootstrap(ConfusionAccumulator)


# --------------------------------------------------------------------------- calibration

class CalibrationAccumulator(Accumulator):
    """Streaming calibration bins over fixed edges: ECE, MCE, Brier and the curve.

    Parameters
    ----------
    n_bins : int, default=10
        Equal-width bins on [0, 1] (scikit-learn's ``strategy="uniform"``).
    edges : array-like, default=None
        Explicit bin edges instead: strictly increasing, from 0.0 to 1.0. Bins are closed
        on the right, as in :func:`fastmetrics.calibration_bins`.
    strategy : {"uniform"}, default="uniform"
        Only fixed bins stream: quantile bins need all the data first (``ValueError``).
    pos_label : label, default=None
        Positive class of binary ``y_true`` (None: 1 for {0, 1} / {-1, 1} labels).
    labels : array-like, default=None
        Class values of the columns of an (n, K) probability matrix (top-label mode).

    Raises
    ------
    ValueError
        If ``n_bins`` is not a positive integer, ``edges`` are not strictly increasing from
        0.0 to 1.0, or ``strategy`` is not "uniform".

    See Also
    --------
    fastmetrics.calibration_summary : ECE, MCE and Brier score in one pass over arrays.
    fastmetrics.calibration_curve : The calibration curve in one pass.
    fastmetrics.states.CalibrationState : The state it holds.

    Notes
    -----
    ``result()`` equals ``calibration_summary(y_true, y_prob, n_bins=n_bins, ...)`` on the
    concatenated chunks, ``curve()`` equals ``calibration_curve(y_true, y_prob,
    n_bins=n_bins)``, and each metric method (``expected_calibration_error()``,
    ``brier_score_loss(scale_by_half=...)``...) the function of the same name; counts
    exactly, the float sums to 1e-12 relative. ``brier_score_loss`` is binary here: the
    multiclass Brier score needs the classes of all the data.

    Examples
    --------
    >>> from fastmetrics.streaming import CalibrationAccumulator
    >>> acc = CalibrationAccumulator(n_bins=2)
    >>> acc = acc.update([0, 0], [0.5, 0.5]) + CalibrationAccumulator(2).update([1, 1], [0.75, 1.0])
    >>> acc.result().as_row()
    {'ece': 0.3125, 'mce': 0.5, 'brier': 0.140625, 'n_bins': 2}
    """

    family = "calibration"
    _config = ("edges", "pos_label", "labels")
    labels: Any

    def __init__(self, n_bins=10, *, edges=None, strategy="uniform", pos_label=None,
                 labels=None):
        self._start()
        self.edges = calibration.fixed_edges(n_bins, edges, strategy)
        self.strategy = "uniform"
        self.pos_label = pos_label
        self.labels = None if labels is None else np.asarray(labels)

    @classmethod
    def _state_type(cls) -> type[State]:
        return CalibrationState

    def __repr__(self) -> str:
        return f"CalibrationAccumulator(n_bins={self.n_bins}, n_samples={self.n_samples})"

    @property
    def n_bins(self) -> int:
        """Number of bins (``len(edges) - 1``).

        See Also
        --------
        fastmetrics.streaming.CalibrationAccumulator.bins : The counts and sums of each bin.

        Examples
        --------
        >>> from fastmetrics.streaming import CalibrationAccumulator
        >>> CalibrationAccumulator(edges=[0.0, 0.5, 0.9, 1.0]).n_bins
        3
        """
        return int(self.edges.shape[0] - 1)

    def _set_state(self, st) -> None:
        if st is not None and (st.edges.shape != self.edges.shape
                               or not np.array_equal(st.edges, self.edges)):
            raise StateError("the state's edges are not the accumulator's")
        super()._set_state(st)

    def update(self, y_true, y_prob, sample_weight=None, *, n_threads=None):
        """Bin one chunk: ``y_prob`` 1-D (binary) or (n, K) (top label). Returns ``self``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels (binary, or the classes of the columns in top-label mode).
        y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
            Probabilities of the positive class, or of every class (top label).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the kernel pass over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        CalibrationAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape, a probability is outside
            [0, 1], binary and top-label chunks are mixed, or weights are given for some
            chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import CalibrationAccumulator
        >>> acc = CalibrationAccumulator(n_bins=2).update([0, 1], [0.25, 0.75])
        >>> acc.update([1], [0.5]).bins().counts.tolist()
        [2, 1]
        """
        p = calibration.probabilities(y_prob)
        held = self._state
        if held is not None and p.shape[0]:
            before = "binary" if held.mode == "binary" else held.n_classes
            now = "binary" if p.ndim == 1 else p.shape[1]
            if before != now:
                raise ValueError(
                    f"y_prob changed shape between chunks ({before!r} then {now!r} columns): "
                    "binary and top-label chunks cannot be mixed"
                )
        st = CalibrationState.from_arrays(y_true, p, sample_weight, edges=self.edges,
                                          pos_label=self.pos_label, labels=self.labels,
                                          n_threads=n_threads, allow_empty=True)
        if st.n_samples:
            self._add(st, sample_weight is not None)
        return self

    def __setstate__(self, d):
        """Accumulators pickled by fastmetrics 0.1.0 (a plain ``__dict__`` holding the
        per-bin sums as an array, the mode as "binary" or K)."""
        try:
            type(self).__init__(self, edges=d["edges"], pos_label=d.get("pos_label"),
                                labels=d.get("labels"))
            self._weighted = d.get("_weighted")
            mode, sums = d.get("_mode"), d.get("_state")
            st = None
            if mode is not None:  # the same checks as any load
                st = CalibrationState.from_sums(
                    self.edges, sums, 0 if mode == "binary" else mode,
                    weighted=bool(self._weighted),
                    # unweighted samples always carry weight; 0.1 kept the flag only if weighted
                    any_weight=bool(d.get("_any_weight", not self._weighted)))
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(f"not a fastmetrics 0.1 CalibrationAccumulator: {exc}") from None
        self._set_state(st)

    def bins(self) -> CalibrationBins:
        """The :class:`~fastmetrics.CalibrationBins` of everything seen.

        Returns
        -------
        CalibrationBins
            Edges, and per bin the count, weight, mean confidence and observed frequency.

        Raises
        ------
        ValueError
            If no sample has been seen yet.

        See Also
        --------
        fastmetrics.calibration_bins : The same bins in one pass over arrays.

        Examples
        --------
        >>> from fastmetrics.streaming import CalibrationAccumulator
        >>> acc = CalibrationAccumulator(n_bins=2).update([0, 1, 1], [0.25, 0.75, 0.5])
        >>> acc.bins().observed_frequency.tolist()
        [0.5, 1.0]
        """
        return calibration.binned(self.require_state())

    def result(self) -> CalibrationSummary:
        """ECE, MCE and Brier score (:class:`~fastmetrics.CalibrationSummary`).

        Returns
        -------
        CalibrationSummary
            ``ece``, ``mce``, ``brier`` and ``n_bins`` of everything seen.

        Raises
        ------
        ValueError
            If no sample has been seen yet.

        See Also
        --------
        fastmetrics.calibration_summary : The same summary in one pass over arrays.

        Examples
        --------
        >>> from fastmetrics.streaming import CalibrationAccumulator
        >>> acc = CalibrationAccumulator(n_bins=2).update([0, 1], [0.25, 0.75])
        >>> acc.result().ece
        0.25
        """
        return calibration.summary(self.require_state())

    def curve(self) -> tuple[np.ndarray, np.ndarray]:
        """``(prob_true, prob_pred)`` as :func:`fastmetrics.calibration_curve` (binary,
        unweighted chunks only).

        Returns
        -------
        prob_true : ndarray
            Fraction of positives in each non-empty bin.
        prob_pred : ndarray
            Mean predicted probability in each non-empty bin.

        Raises
        ------
        ValueError
            If no sample has been seen yet, or the chunks were weighted or top-label.

        See Also
        --------
        fastmetrics.calibration_curve : The same curve in one pass over arrays.

        Examples
        --------
        >>> from fastmetrics.streaming import CalibrationAccumulator
        >>> acc = CalibrationAccumulator(n_bins=2).update([0, 1, 1], [0.25, 0.75, 0.5])
        >>> [v.tolist() for v in acc.curve()]
        [[0.5, 1.0], [0.375, 0.75]]
        """
        st = self._state
        if st is not None and (st.mode != "binary" or st.weighted):
            raise ValueError("curve() needs binary, unweighted chunks (as calibration_curve)")
        return calibration.curve(self.require_state())


_attach_metrics(CalibrationAccumulator)


# --------------------------------------------------------------------------- regression

class RegressionAccumulator(Accumulator):
    """Streaming regression sums: MAE, MSE, RMSE, R², MAPE, Huber loss.

    Parameters
    ----------
    delta : float, default=1.0
        The Huber loss' ``delta``.
    keep_values : bool, default=False
        Also keep every absolute error (and weight) so that ``median_absolute_error()`` is
        exact. This is O(N) memory (8 bytes per sample and output, plus 8 with weights);
        without it the accumulator is 10 floats per output.

    Raises
    ------
    ValueError
        If ``delta`` is not a finite number > 0.

    See Also
    --------
    fastmetrics.regression_summary : MAE, MSE, RMSE and R² in one pass over arrays.
    fastmetrics.states.RegressionState : The state it holds.

    Notes
    -----
    Chunks may be (n, m) targets with m outputs (``multioutput`` as the one-shot functions);
    every chunk must then have the same m. Sums merge with Chan et al.'s formula for the
    spread of ``y_true`` (no cancellation), so
    every metric equals the one-shot function on the concatenated chunks to 1e-12 relative.

    Examples
    --------
    >>> from fastmetrics.streaming import RegressionAccumulator
    >>> acc = RegressionAccumulator().update([3, -0.5], [2.5, 0.0]).update([2, 7], [2, 8])
    >>> acc.mean_absolute_error(), acc.mean_squared_error()
    (0.5, 0.375)
    """

    family = "regression"
    _config = ("delta", "keep_values")

    def __init__(self, *, delta=1.0, keep_values=False):
        self._start()
        self.delta = sums.check_delta(delta)
        self.keep_values = bool(keep_values)

    @classmethod
    def _state_type(cls) -> type[State]:
        return RegressionState

    def update(self, y_true, y_pred, sample_weight=None, *, n_threads=None):
        """Add one chunk of targets and predictions. Returns ``self``.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets and predictions of the chunk (every chunk with the same outputs).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the kernel pass over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        RegressionAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape (or number of outputs from the
            earlier chunks), a value is not finite, or weights are given
            for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import RegressionAccumulator
        >>> acc = RegressionAccumulator().update([3.0, -0.5], [2.5, 0.0])
        >>> acc.update([2.0, 7.0], [2.0, 8.0]).n_samples
        4
        """
        st = RegressionState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                         delta=self.delta, keep_values=self.keep_values,
                                         allow_empty=True, allow_zero_sum=True)
        if st.n_samples:
            self._add(st, st.weighted)
        return self

    def __setstate__(self, d):
        """Accumulators pickled by fastmetrics 0.1.0 (a plain ``__dict__``)."""
        try:
            type(self).__init__(self, delta=d["delta"], keep_values=d["keep_values"])
            self._weighted = d.get("_weighted")
            st = RegressionState.from_legacy(  # checked like any load
                d["_state"], self.delta, bool(self._weighted),
                list(d["_errors"]) if self.keep_values else None, list(d["_weights"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(f"not a fastmetrics 0.1 RegressionAccumulator: {exc}") from None
        self._set_state(st if st.n_samples else None)

    def result(self) -> sums.RegressionSummary:
        """MAE, MSE, RMSE and R² (:class:`~fastmetrics.regression.RegressionSummary`), as
        :func:`fastmetrics.regression_summary`.

        Returns
        -------
        RegressionSummary
            ``mae``, ``mse``, ``rmse``, ``r2`` and ``n_samples`` of everything seen.

        Raises
        ------
        ValueError
            If no sample has been seen yet.

        See Also
        --------
        fastmetrics.regression_summary : The same summary in one pass over arrays.

        Examples
        --------
        >>> from fastmetrics.streaming import RegressionAccumulator
        >>> acc = RegressionAccumulator().update([3.0, -0.5], [2.5, 0.0])
        >>> acc.update([2.0, 7.0], [2.0, 8.0]).result().mse
        0.375
        """
        return sums.summary(self.require_state())


_attach_metrics(RegressionAccumulator)


# --------------------------------------------------------------------------- pinball


class PinballAccumulator(Accumulator):
    """Streaming pinball (quantile) loss: ``mean_pinball_loss(alpha=...)`` of any ``alpha``.

    The state is the weight total and the weighted sums of both signs of the residual
    (4 floats per output), from which the loss of every quantile level follows, so one
    accumulator answers several ``alpha``. Chunks may be (n, m) targets (every chunk with
    the same m). ``d2_pinball_score`` and ``d2_absolute_error_score`` are not served: their
    baseline is a quantile of all of ``y_true``.

    See Also
    --------
    fastmetrics.mean_pinball_loss : The loss in one pass over arrays.
    fastmetrics.states.PinballState : The state it holds.

    Examples
    --------
    >>> from fastmetrics.streaming import PinballAccumulator
    >>> acc = PinballAccumulator().update([1, 2], [0, 2]).update([3], [3])
    >>> acc.mean_pinball_loss(alpha=0.1)
    0.03333333333333333
    """

    family = "pinball"
    _config = ()

    def __init__(self):
        self._start()

    @classmethod
    def _state_type(cls) -> type[State]:
        return PinballState

    def update(self, y_true, y_pred, sample_weight=None, *, n_threads=None):
        """Add one chunk of targets and predictions. Returns ``self``.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets and predictions of the chunk (every chunk with the same outputs).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the kernel pass over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        PinballAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape (or number of outputs from the
            earlier chunks), a value is not finite, or weights are given
            for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import PinballAccumulator
        >>> PinballAccumulator().update([1, 2], [0, 2]).update([3], [3]).n_samples
        3
        """
        st = PinballState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                      allow_empty=True, allow_zero_sum=True)
        if st.n_samples:
            self._add(st, st.weighted)
        return self


_attach_metrics(PinballAccumulator)


# --------------------------------------------------------------------------- deviances


class TweedieAccumulator(Accumulator):
    """Streaming Tweedie deviance of one ``power``: ``mean_tweedie_deviance`` and
    ``d2_tweedie_score`` (and ``mean_poisson_deviance`` with power 1,
    ``mean_gamma_deviance`` with power 2).

    Parameters
    ----------
    power : float, default=0
        The Tweedie power (<= 0 or >= 1). The sums depend on it: accumulators of different
        powers do not merge.

    Raises
    ------
    ValueError
        If ``power`` is in (0, 1) or not a finite number.

    See Also
    --------
    fastmetrics.mean_tweedie_deviance : The deviance in one pass over arrays.
    fastmetrics.d2_tweedie_score : D² in one pass.
    fastmetrics.states.TweedieState : The state it holds.

    Notes
    -----
    The state is six sums (see :class:`~fastmetrics.states.TweedieState`): the D² score
    needs no second pass. Values outside the power's domain are counted as they come and
    refused (scikit-learn's ``ValueError``) when a metric is asked.

    Examples
    --------
    >>> from fastmetrics.streaming import TweedieAccumulator
    >>> acc = TweedieAccumulator(power=1).update([2, 0], [0.5, 0.5]).update([1, 4], [2., 2.])
    >>> round(acc.mean_poisson_deviance(), 6)
    1.426015
    """

    family = "tweedie"
    _config = ("power",)

    def __init__(self, *, power=0):
        self._start()
        self.power = check_power(power, "TweedieAccumulator")

    @classmethod
    def _state_type(cls) -> type[State]:
        return TweedieState

    def _set_state(self, st) -> None:
        if st is not None and float(st.power) != float(self.power):
            raise StateError("the state's power is not the accumulator's")
        super()._set_state(st)

    def update(self, y_true, y_pred, sample_weight=None, *, n_threads=None):
        """Add one chunk of targets and predictions. Returns ``self``.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets and predictions of the chunk (every chunk with the same outputs).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the kernel pass over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        TweedieAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape (or number of outputs from the
            earlier chunks), a value is not finite, or weights are given
            for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import TweedieAccumulator
        >>> TweedieAccumulator(power=1).update([2, 0], [0.5, 0.5]).n_samples
        2
        """
        st = TweedieState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                      power=self.power, allow_empty=True)
        if st.n_samples:
            self._add(st, st.weighted)
        return self


_attach_metrics(TweedieAccumulator)


class SquaredLogAccumulator(Accumulator):
    """Streaming squared logarithmic errors: ``mean_squared_log_error`` and
    ``root_mean_squared_log_error``.

    Chunks may be (n, m) targets with m outputs (``multioutput`` as the one-shot functions);
    every chunk must then have the same m. Values <= -1 are counted as they come and
    refused (scikit-learn's ``ValueError``) when a metric is asked.

    See Also
    --------
    fastmetrics.mean_squared_log_error : The error in one pass over arrays.
    fastmetrics.states.SquaredLogState : The state it holds.

    Examples
    --------
    >>> from fastmetrics.streaming import SquaredLogAccumulator
    >>> acc = SquaredLogAccumulator().update([3, 5], [2.5, 5]).update([2.5, 7], [4, 8])
    >>> round(acc.mean_squared_log_error(), 6)
    0.03973
    """

    family = "squared_log"

    def __init__(self):
        self._start()

    @classmethod
    def _state_type(cls) -> type[State]:
        return SquaredLogState

    def update(self, y_true, y_pred, sample_weight=None, *, n_threads=None):
        """Add one chunk of targets and predictions. Returns ``self``.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets and predictions of the chunk (every chunk with the same outputs).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the kernel pass over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        SquaredLogAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape (or number of outputs from the
            earlier chunks), a value is not finite, or weights are given
            for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import SquaredLogAccumulator
        >>> SquaredLogAccumulator().update([3, 5], [2.5, 5]).n_samples
        2
        """
        st = SquaredLogState.from_arrays(y_true, y_pred, sample_weight, n_threads,
                                         allow_empty=True)
        if st.n_samples:
            self._add(st, st.weighted)
        return self


_attach_metrics(SquaredLogAccumulator)


# --------------------------------------------------------------------------- probabilities


class ProbabilityAccumulator(Accumulator):
    """Streaming probabilistic scores: ``log_loss`` and ``d2_log_loss_score``, or (with
    ``k``) ``top_k_accuracy_score``.

    Parameters
    ----------
    labels : array-like, default=None
        The classes of the columns of ``y_proba`` (taken sorted, as the one-shot
        functions take them). Give them whenever a chunk may lack a class: a chunk's
        columns are the sorted classes of all the data, which the chunk alone cannot know.
        With None, every chunk must hold every class (``ValueError`` otherwise) and chunks
        merge only over the same classes. With ``k``, scikit-learn's rule for
        ``top_k_accuracy_score``: labels unique and sorted.
    k : int, default=None
        Count the samples whose class is among the ``k`` best scores
        (``top_k_accuracy_score(k=k)``); the chunks are then scores (decision values
        allowed), and the log loss is not computed.

    Raises
    ------
    ValueError
        If ``k`` is not an integer >= 1.

    Warns
    -----
    UserWarning
        If ``labels`` are not given sorted (without ``k``), as scikit-learn's ``log_loss``
        warns: the columns of ``y_proba`` are the sorted classes.

    See Also
    --------
    fastmetrics.log_loss : The loss in one pass over arrays.
    fastmetrics.top_k_accuracy_score : Top-k accuracy in one pass.
    fastmetrics.states.ProbabilityState : The state it holds.

    Notes
    -----
    ``log_loss(normalize=...)`` and ``d2_log_loss_score()`` equal the one-shot functions on
    the concatenated chunks (with ``labels`` given: ``log_loss(..., labels=labels)``) to
    1e-12 relative: the state is the weighted log loss, the weight total and the weight of
    each class. The warning for rows that do not sum to one comes with the metric, as in
    one pass.

    Examples
    --------
    >>> from fastmetrics.streaming import ProbabilityAccumulator
    >>> acc = ProbabilityAccumulator(labels=[0, 1, 2])
    >>> acc = acc.update([0, 1], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1]]).update([2], [[0.1, 0.1, 0.8]])
    >>> round(acc.log_loss(), 6)
    0.267654
    """

    family = "proba"
    _config = ("labels", "k")
    labels: Any

    def __init__(self, labels=None, *, k=None):
        self._start()
        self.k = None if k is None else check_k(k)
        self.labels = None if labels is None else (
            sorted_labels(labels) if k is None else np.asarray(labels))

    @classmethod
    def _state_type(cls) -> type[State]:
        return ProbabilityState

    def _set_state(self, st) -> None:
        if st is not None and st.k != (self.k or 0):
            raise StateError("the state's k is not the accumulator's")
        if st is not None and self.labels is not None and st.n_classes and (
                st.classes.shape != self.labels.shape or np.any(st.classes != self.labels)):
            raise StateError("the state's classes are not the accumulator's labels")
        super()._set_state(st)

    def update(self, y_true, y_proba, sample_weight=None, *, n_threads=None):
        """Add one chunk: ``y_proba`` (n, K) over the sorted classes, or 1-D (binary).
        Returns ``self``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
            True labels of the chunk, or a multilabel indicator matrix.
        y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
            Probabilities, one column per class in sorted order (scores with ``k``); 1-D:
            the probability of the greater of two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the kernel pass over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        ProbabilityAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape, a class is outside ``labels``,
            or (without ``labels``) the chunk lacks a class of the columns, or weights are
            given
            for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import ProbabilityAccumulator
        >>> acc = ProbabilityAccumulator(labels=[0, 1])
        >>> round(acc.update([0], [[0.8, 0.2]]).update([1], [[0.4, 0.6]]).log_loss(), 6)
        0.366985
        """
        st = ProbabilityState.from_arrays(y_true, y_proba, sample_weight, labels=self.labels,
                                          k=self.k or 0, n_threads=n_threads,
                                          allow_empty=True, streamed=True)
        if st.n_samples:
            self._add(st, st.weighted)
        return self


_attach_metrics(ProbabilityAccumulator)


class HingeAccumulator(Accumulator):
    """Streaming ``hinge_loss`` of decision values.

    Parameters
    ----------
    labels : array-like, default=None
        As ``hinge_loss(labels=...)``: more than two classes make the problem multiclass
        with (n, K) decisions over them, so chunks may lack classes. None: binary chunks
        (1-D decisions) may hold one class or both, the -1 / +1 mapping of all the data is
        taken at the end; multiclass chunks must each hold every class.

    See Also
    --------
    fastmetrics.hinge_loss : The loss in one pass over arrays.
    fastmetrics.states.HingeState : The state it holds.

    Notes
    -----
    ``hinge_loss()`` equals :func:`fastmetrics.hinge_loss` on the concatenated chunks (with
    ``labels`` when given) to 1e-12 relative: the state is the weighted loss per class of
    ``y_true`` (binary: as the positive and as the negative class) and the weight total.

    Examples
    --------
    >>> from fastmetrics.streaming import HingeAccumulator
    >>> acc = HingeAccumulator().update([1, 1], [0.5, 2.0]).update([0], [-0.25])
    >>> acc.hinge_loss()
    0.4166666666666667
    """

    family = "hinge"
    _config = ("labels",)
    labels: Any

    def __init__(self, labels=None):
        self._start()
        self.labels = None if labels is None else label_table(labels)

    @classmethod
    def _state_type(cls) -> type[State]:
        return HingeState

    def _set_state(self, st) -> None:
        n_labels = 0 if self.labels is None else int(np.unique(self.labels).shape[0])
        if st is not None and st.n_samples and st.n_labels != n_labels:
            raise StateError("the state's labels are not the accumulator's")
        super()._set_state(st)

    def update(self, y_true, pred_decision, sample_weight=None, *, n_threads=None):
        """Add one chunk: ``pred_decision`` 1-D (binary) or (n, K) over the sorted classes
        (multiclass). Returns ``self``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels of the chunk.
        pred_decision : array-like of shape (n_samples,) or (n_samples, n_classes)
            Decision values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the kernel pass over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        HingeAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape, or a class is outside
            ``labels``, or weights are given
            for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import HingeAccumulator
        >>> HingeAccumulator().update([1, 1], [0.5, 2.0]).update([0], [-0.25]).n_samples
        3
        """
        st = HingeState.from_arrays(y_true, pred_decision, sample_weight, labels=self.labels,
                                    n_threads=n_threads, allow_empty=True, streamed=True)
        if st.n_samples:
            self._add(st, st.weighted)
        return self


_attach_metrics(HingeAccumulator)


# --------------------------------------------------------------------------- ranking


class RankingAccumulator(Accumulator):
    """Streaming binary ROC AUC, average precision and their curves.

    Parameters
    ----------
    pos_label : label, default=1
        The positive class of the methods and of ``result()``; every other label is
        negative. None: each method's scikit-learn default (``roc_auc_score``: the greater
        label, as :func:`fastmetrics.roc_auc_score`; ``average_precision_score``: 1; the
        curves: 1 for {0, 1} / {-1, 1} labels) and, for ``result()``, the greater label for
        both AUC and AP. The state does not depend on it: the weight of each class is kept.
        At most two distinct labels may be seen over the whole stream.
    thresholds : array-like, default=None
        None: exact mode. The accumulator keeps the sorted summary (distinct score, weight of
        each class) and merges summaries by threshold: memory grows with the number of
        distinct scores (O(N) at worst, 24 bytes each). Scores given: binned mode, constant
        memory. ``len(thresholds) + 1`` bins ``(-inf, t0], (t0, t1], ..., (t_last, inf)``
        each keep the weight of each class; the result gives the scores with the samples of
        a bin taken as tied, and bounds for any order inside the bins.

    Raises
    ------
    ValueError
        If ``thresholds`` is not a non-empty, finite, strictly increasing 1-D array.

    See Also
    --------
    fastmetrics.roc_auc_score : ROC AUC in one pass over arrays.
    fastmetrics.average_precision_score : Average precision in one pass.
    fastmetrics.states.RankingState : The state it holds.

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
    def _state_type(cls) -> type[State]:
        return RankingState

    def __repr__(self) -> str:
        mode = "exact" if self.thresholds is None else f"binned({self.thresholds.shape[0] + 1})"
        return f"RankingAccumulator({mode}, n_samples={self.n_samples})"

    @property
    def mode(self) -> str:
        """``"exact"`` (no ``thresholds``) or ``"binned"``.

        See Also
        --------
        fastmetrics.streaming.RankingResult : Its ``guarantee`` says what each mode promises.

        Examples
        --------
        >>> from fastmetrics.streaming import RankingAccumulator
        >>> RankingAccumulator().mode, RankingAccumulator(thresholds=[0.5]).mode
        ('exact', 'binned')
        """
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

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary labels of the chunk.
        y_score : array-like of shape (n_samples,)
            Scores (higher: more likely positive).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the sort over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        RankingAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape, a score is not finite, or more
            than two labels are seen over the stream, or weights are given
            for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import RankingAccumulator
        >>> acc = RankingAccumulator().update([0, 0], [0.1, 0.4]).update([1, 1], [0.35, 0.8])
        >>> acc.roc_auc_score()
        0.75
        """
        st = RankingState.from_arrays(y_true, y_score, sample_weight, n_threads,
                                      edges=self.thresholds, allow_empty=True,
                                      allow_zero_sum=True)
        if st.n_samples:
            self._add(st, sample_weight is not None)
        return self

    def __setstate__(self, d):
        """Accumulators pickled by fastmetrics 0.1.0 (a plain ``__dict__``)."""
        type(self).__init__(self, pos_label=d.get("pos_label", 1), thresholds=d.get("thresholds"))
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
                self.thresholds, bool(self._weighted))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise StateError(f"not a fastmetrics 0.1 RankingAccumulator: {exc}") from None
        self._set_state(st)

    def summary(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(thresholds, positive weight, negative weight)``, thresholds decreasing. Binned
        mode: one row per bin, labelled by the bin's upper edge (inf for the last).

        Returns
        -------
        thresholds : ndarray
            The distinct scores (binned mode: the bins' upper edges), decreasing.
        positive : ndarray
            Weight of the positive class at each threshold.
        negative : ndarray
            Weight of the other class at each threshold.

        Raises
        ------
        ValueError
            If no sample has been seen yet.

        See Also
        --------
        fastmetrics.streaming.RankingAccumulator.roc_curve : The ROC curve of this summary.

        Examples
        --------
        >>> from fastmetrics.streaming import RankingAccumulator
        >>> acc = RankingAccumulator().update([0, 1, 1], [0.2, 0.3, 0.5])
        >>> [v.tolist() for v in acc.summary()]
        [[0.5, 0.3, 0.2], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        """
        return ranking.pos_neg_summary(self.require_state(), self.pos_label)

    def result(self) -> RankingResult:
        """:class:`RankingResult`: AUC and AP, with bounds and the mode's guarantee.

        Returns
        -------
        RankingResult
            ROC AUC and average precision of everything seen, their bounds (binned mode),
            the class counts, the mode and its guarantee in words.

        Raises
        ------
        ValueError
            If no sample has been seen yet.

        See Also
        --------
        fastmetrics.roc_auc_score : ROC AUC in one pass over arrays.
        fastmetrics.average_precision_score : Average precision in one pass.

        Examples
        --------
        >>> from fastmetrics.streaming import RankingAccumulator
        >>> acc = RankingAccumulator(thresholds=[0.5]).update([0, 1, 1], [0.2, 0.3, 0.9])
        >>> r = acc.result()
        >>> r.mode, r.roc_auc, [float(b) for b in r.roc_auc_bounds]
        ('binned', 0.75, [0.5, 1.0])
        """
        return ranking.result(self.require_state(), self.pos_label)


_attach_metrics(RankingAccumulator)
_attach_bootstrap(RankingAccumulator)


# --------------------------------------------------------------------------- multilabel ranking


class LabelRankingAccumulator(Accumulator):
    """Streaming multilabel ranking: coverage error, label ranking average precision and
    label ranking loss over (n, L) label indicator and score matrices.

    Notes
    -----
    The state is four weighted sums and two counts (every chunk has the same number of
    labels L); each metric equals the one-shot function on the concatenated chunks to 1e-12
    relative.

    See Also
    --------
    fastmetrics.label_ranking_loss : The loss in one pass over arrays.
    fastmetrics.coverage_error : Coverage error in one pass.
    fastmetrics.states.LabelRankingState : The state it holds.

    Examples
    --------
    >>> from fastmetrics.streaming import LabelRankingAccumulator
    >>> acc = LabelRankingAccumulator().update([[1, 0, 0]], [[0.75, 0.5, 1]])
    >>> acc.update([[0, 0, 1]], [[1, 0.2, 0.1]]).label_ranking_loss()
    0.75
    """

    family = "label_ranking"
    _config = ()

    def __init__(self):
        self._start()

    @classmethod
    def _state_type(cls) -> type[State]:
        return LabelRankingState

    def update(self, y_true, y_score, sample_weight=None, *, n_threads=None):
        """Add one chunk of (n, L) labels and scores. Returns ``self``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples, n_labels)
            Label indicator matrix of the chunk.
        y_score : array-like of shape (n_samples, n_labels)
            Scores of each label.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: give them for every chunk or for none.
        n_threads : int or None, default=None
            Threads of the kernel pass over a large chunk (None: what OpenMP allows,
            honouring ``OMP_NUM_THREADS``); the result is the same for any value.

        Returns
        -------
        LabelRankingAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape (or number of labels from the
            earlier chunks), or weights are given
            for some chunks and not for others.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import LabelRankingAccumulator
        >>> LabelRankingAccumulator().update([[1, 0, 0]], [[0.75, 0.5, 1]]).n_samples
        1
        """
        st = LabelRankingState.from_arrays(y_true, y_score, sample_weight, n_threads,
                                           allow_empty=True)
        if st.n_samples:
            self._add(st, st.weighted)
        return self


_attach_metrics(LabelRankingAccumulator)


# --------------------------------------------------------------------------- contingency


class ContingencyAccumulator(Accumulator):
    """Streaming contingency table: every supervised clustering metric.

    The state (:class:`~fastmetrics.states.ContingencyState`) holds the sorted labels of
    each labelling and the non-zero cells of their contingency table: memory grows with the
    number of distinct (true, predicted) pairs, never with the number of samples beyond it.

    Notes
    -----
    Each metric method equals the function of the same name on the concatenated chunks,
    exactly (the state is integer counts and the derivations are the one-shot functions').
    ``mutual_info_score()`` takes no ``contingency=``: the table is the accumulator's.
    Chunks are checked as the one-shot functions check their labels (1-D, no NaN; floats
    that are not integers warn); labels of text and numbers do not mix across chunks.

    See Also
    --------
    fastmetrics.adjusted_rand_score : One clustering metric in one pass over arrays.
    fastmetrics.contingency_matrix : The table in one pass.
    fastmetrics.states.ContingencyState : The state it holds.

    Examples
    --------
    >>> from fastmetrics.streaming import ContingencyAccumulator
    >>> acc = ContingencyAccumulator().update([0, 0, 1], [1, 1, 0]).update([1], [0])
    >>> acc.adjusted_rand_score(), acc.contingency_matrix().tolist()
    (1.0, [[0, 2], [2, 0]])
    """

    family = "contingency"

    def __init__(self):
        self._start()

    @classmethod
    def _state_type(cls) -> type[State]:
        return ContingencyState

    def update(self, labels_true, labels_pred, *, n_threads=None):
        """Count one chunk of (labels_true, labels_pred). Returns ``self``.

        Parameters
        ----------
        labels_true : array-like of shape (n_samples,)
            Ground-truth class labels of the chunk.
        labels_pred : array-like of shape (n_samples,)
            Cluster labels of the chunk.
        n_threads : int or None, default=None
            Threads of the counting pass over a large chunk of integer labels (None: what
            OpenMP allows); the counts are the same for any value.

        Returns
        -------
        ContingencyAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the chunk's arrays differ in length or shape, a label is NaN, or labels of
            text and numbers mix.

        Warns
        -----
        UserWarning
            If labels are floats that are not integers (scikit-learn's "Clustering metrics
            expects discrete values" warning); they are counted by value all the same.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import ContingencyAccumulator
        >>> ContingencyAccumulator().update([0, 0, 1], [1, 1, 0]).n_samples
        3
        """
        st = ContingencyState.from_arrays(labels_true, labels_pred, n_threads)
        if st.n_samples:
            self._add(st, False)
        return self

    def result(self) -> tuple:
        """``homogeneity_completeness_v_measure()`` of everything seen.

        Returns
        -------
        homogeneity : float
            Homogeneity of the clustering.
        completeness : float
            Its completeness.
        v_measure : float
            Their harmonic mean.

        Raises
        ------
        ValueError
            If no sample has been seen yet.

        See Also
        --------
        fastmetrics.homogeneity_completeness_v_measure : The same in one pass over arrays.

        Examples
        --------
        >>> from fastmetrics.streaming import ContingencyAccumulator
        >>> ContingencyAccumulator().update([0, 0, 1], [1, 1, 0]).result()
        (1.0, 1.0, 1.0)
        """
        return contingency.homogeneity_completeness_v(self.require_state())


_attach_metrics(ContingencyAccumulator)
_attach_bootstrap(ContingencyAccumulator)


# --------------------------------------------------------------------------- quantiles


class QuantileAccumulator(Accumulator):
    """Streaming quantiles (latencies, scores, errors): exact, or a mergeable sketch.

    Parameters
    ----------
    mode : {"sketch", "exact"}, default="sketch"
        "sketch": DDSketch-style log buckets counted by a compiled kernel
        (:class:`~fastmetrics.states.SketchState`). Every value ``x`` lands in the bucket
        ``i = ceil(log_gamma(|x|))`` with ``gamma = (1 + alpha) / (1 - alpha)``, reported as
        ``2 gamma**i / (gamma + 1)``, which is within ``alpha`` of any value of the bucket,
        relatively. Positive and negative values have a store each, zeros a counter.
        Memory: at most ``2 * max_buckets`` counts, whatever the stream.
        "exact": keeps every value (:class:`~fastmetrics.states.ExactQuantileState`, O(N)
        memory, 8 bytes per value) and gives :func:`fastmetrics.quantile`'s (numpy's) values.
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

    Raises
    ------
    ValueError
        If ``mode`` is not "sketch" or "exact", ``relative_accuracy`` is not in (0, 1), or
        ``max_buckets`` is not a positive integer.

    See Also
    --------
    fastmetrics.quantile : Exact quantiles in one pass over an array.
    fastmetrics.states.SketchState : The sketch state it holds.

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

    family = "sketch"  # no table rows: no one-shot function equals a sketch's quantiles
    _config = ("mode", "relative_accuracy", "max_buckets")

    def __init__(self, *, mode="sketch", relative_accuracy=0.01, max_buckets=2048):
        if mode not in ("sketch", "exact"):
            raise ValueError(f"mode must be 'sketch' or 'exact', got {mode!r}")
        self._start()
        self._running: sketch.RunningSketch | None = None  # sketch mode, once updated
        self._stale = False  # whether the running sketch has counts the state lacks
        self.mode = mode
        self.relative_accuracy, self.max_buckets = sketch.settings(relative_accuracy,
                                                                   max_buckets)

    def _state_type(self) -> type[State]:
        return SketchState if self.mode == "sketch" else ExactQuantileState

    def _set_state(self, st) -> None:
        if self._weighted:  # a loaded form may say so: updates would then all raise
            raise StateError("a QuantileAccumulator is never weighted")
        if isinstance(st, SketchState) and (st.relative_accuracy, st.max_buckets) != (
                self.relative_accuracy, self.max_buckets):
            raise StateError(
                f"a sketch of relative_accuracy={st.relative_accuracy}, max_buckets="
                f"{st.max_buckets} cannot be the state of {self!r}")
        super()._set_state(st)
        self._running, self._stale = None, False  # rebuilt from the state on the next update

    def _config_differences(self, other) -> list[str]:
        # named together, as they always were in the message (users may match on it)
        return list(self._config) if super()._config_differences(other) else []

    def __repr__(self) -> str:
        return f"QuantileAccumulator(mode={self.mode!r}, n_samples={self.n_samples})"

    @property
    def collapsed(self) -> bool:
        """Whether a store ever spanned more than ``max_buckets`` buckets (sketch mode).

        See Also
        --------
        fastmetrics.streaming.QuantileAccumulator : Its notes say what collapsing costs.

        Examples
        --------
        >>> from fastmetrics.streaming import QuantileAccumulator
        >>> QuantileAccumulator(max_buckets=8).update([1e-6, 1.0, 1e6]).collapsed
        True
        """
        st = self.state
        return isinstance(st, SketchState) and st.collapsed

    def update(self, values):
        """Add a chunk of values (any real dtype; 1-D or anything that ravels). Returns
        ``self``.

        Updates of one accumulator from several Python threads at once are safe.

        Parameters
        ----------
        values : array-like
            The chunk's values (raveled); finite.

        Returns
        -------
        QuantileAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If a value is NaN or infinite.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import QuantileAccumulator
        >>> QuantileAccumulator(mode="exact").update([3.0, 1.0]).update([[2.0]]).n_samples
        3
        """
        if self.mode == "exact":
            exact = ExactQuantileState.from_arrays(values)
            if exact.n_samples:
                self._add(exact, False)
            return self
        # the kernel counts the chunk straight into the running stores (no state built, no
        # stores copied or shifted per chunk); the state is a snapshot taken when read
        with self._lock:
            r = self._running
            if r is None:
                r = self._running = sketch.RunningSketch(self._state, self.relative_accuracy,
                                                         self.max_buckets)
            if r.add(values):
                self._note_weighted(False)
                self._stale = True
        return self

    @property
    def state(self):
        """The accumulated state (None before data).

        An :class:`~fastmetrics.states.ExactQuantileState`, or a snapshot of the running
        sketch as a :class:`~fastmetrics.states.SketchState`.

        See Also
        --------
        fastmetrics.states.SketchState : The sketch mode's state.
        fastmetrics.states.ExactQuantileState : The exact mode's state.

        Examples
        --------
        >>> from fastmetrics.streaming import QuantileAccumulator
        >>> type(QuantileAccumulator().update([1.0, 2.0]).state).__name__
        'SketchState'
        """
        if self._stale:
            with self._lock:
                if self._stale and self._running is not None:
                    self._state = self._running.snapshot()
                    self._stale = False
        return self._state

    @property
    def n_samples(self) -> int:
        """Number of samples seen so far.

        See Also
        --------
        fastmetrics.streaming.QuantileAccumulator.state : The state they are counted in.

        Examples
        --------
        >>> from fastmetrics.streaming import QuantileAccumulator
        >>> QuantileAccumulator().update([1.0, 2.0, 3.0]).n_samples
        3
        """
        with self._lock:
            r = self._running
            if r is not None:
                return int(r.n_samples)
        return super().n_samples

    def result(self, q=(0.5, 0.9, 0.95, 0.99), *, method="linear") -> QuantileResult:
        """The quantiles ``q`` (in [0, 1]) of everything seen, as :class:`QuantileResult`.

        Exact mode: any of numpy's methods, numpy's values. Sketch mode: ``method`` one of
        "linear", "lower", "higher", "nearest", each within ``relative_accuracy`` (see the
        class notes).

        Parameters
        ----------
        q : float or array-like of float, default=(0.5, 0.9, 0.95, 0.99)
            Probabilities of the quantiles, in [0, 1].
        method : str, default="linear"
            numpy's quantile method (sketch mode: "linear", "lower", "higher" or
            "nearest").

        Returns
        -------
        QuantileResult
            The quantiles, the mode and its guarantee, the count and the exact minimum and
            maximum.

        Raises
        ------
        ValueError
            If a probability is outside [0, 1], ``method`` is not one the mode supports, or
            no sample has been seen yet.

        See Also
        --------
        fastmetrics.quantile : Exact quantiles in one pass over an array.

        Examples
        --------
        >>> from fastmetrics.streaming import QuantileAccumulator
        >>> acc = QuantileAccumulator(mode="exact").update([1.0, 2.0]).update([3.0, 4.0])
        >>> acc.result([0.5]).as_dict()
        {0.5: 2.5}
        """
        if self.state is None:
            sketch.probabilities(q)  # a bad q is reported before the missing data
        return sketch.quantiles(self.require_state(), q, method)

    def __setstate__(self, d):
        """Accumulators pickled by fastmetrics 0.1.0 (a plain ``__dict__``): their arrays
        are loaded through the same checks as any exported state."""
        try:
            type(self).__init__(self, mode=d["mode"], relative_accuracy=d["relative_accuracy"],
                                max_buckets=d["max_buckets"])
            n, weighted = d["_n"], d.get("_weighted")
            st: State | None = None
            if n and self.mode == "exact":
                st = ExactQuantileState.from_dict({"kind": ExactQuantileState.kind,
                                                   "format": STATE_FORMAT,
                                                   "values": np.concatenate(d["_values"])})
            elif n:
                st = SketchState.from_legacy(d["_pos"], d["_neg"], d["_meta"], d["_minmax"],
                                             self.relative_accuracy, self.max_buckets, n)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            if isinstance(exc, StateError):
                raise
            raise StateError(f"not a fastmetrics 0.1 QuantileAccumulator: {exc!r}") from None
        self._weighted = weighted
        self._set_state(st)


_attach_metrics(QuantileAccumulator)


# --------------------------------------------------------------------------- paired


class PairedConfusionAccumulator(Accumulator):
    """Streaming joint counts of two models' labels of the same rows: the paired
    :func:`fastmetrics.compare` of any confusion metric and McNemar's test, from chunks.

    See Also
    --------
    fastmetrics.compare : The paired comparison in one pass over arrays.
    fastmetrics.mcnemar_test : McNemar's test in one pass.
    fastmetrics.dask.compare : The paired comparison over dask inputs.

    Examples
    --------
    >>> from fastmetrics.streaming import PairedConfusionAccumulator
    >>> acc = PairedConfusionAccumulator().update([0, 1, 1, 0] * 25, [0, 1, 0, 0] * 25,
    ...                                           [0, 1, 1, 0] * 25)
    >>> acc.compare("accuracy_score", random_state=0).difference
    0.25
    >>> acc.mcnemar_test().b_only
    25
    """

    family = "paired"

    def __init__(self):
        self._start()

    @classmethod
    def _state_type(cls) -> type[State]:
        return PairedConfusionState

    def update(self, y_true, y_pred_a, y_pred_b, *, n_threads=None):
        """Count one chunk of (y_true, A's labels, B's labels). Returns ``self``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels of the chunk.
        y_pred_a, y_pred_b : array-like of shape (n_samples,)
            The two models' labels of the same rows.
        n_threads : int or None, default=None
            Accepted for the other accumulators' signature; the counts are the same for
            any value.

        Returns
        -------
        PairedConfusionAccumulator
            This accumulator, updated (so that updates chain).

        Raises
        ------
        ValueError
            If the three arrays differ in length or are not 1-D labels.

        See Also
        --------
        fastmetrics.streaming.Accumulator.merge : Combine accumulators updated elsewhere.

        Examples
        --------
        >>> from fastmetrics.streaming import PairedConfusionAccumulator
        >>> PairedConfusionAccumulator().update([0, 1], [0, 0], [0, 1]).n_samples
        2
        """
        st = PairedConfusionState.from_arrays(y_true, y_pred_a, y_pred_b)
        self._add(st, False)
        return self


def _compare_method(self, metric, *, n_resamples=1000, confidence_level=0.95,
                    method="percentile", random_state=None, **metric_kwargs) -> ComparisonResult:
    """As :func:`fastmetrics.compare` on every row seen.

    The paired resamples are drawn from the joint (true, A, B) table's cells: O(cells)
    each, whatever the number of rows seen.

    Parameters
    ----------
    metric : str or callable
        A confusion metric, by name (``"accuracy_score"``) or as the fastmetrics function.
    n_resamples : int, default=1000
        Number of paired bootstrap resamples.
    confidence_level : float, default=0.95
        Level of the confidence interval of the difference, in (0, 1).
    method : {"percentile", "basic", "bca"}, default="percentile"
        The interval, as ``scipy.stats.bootstrap`` defines it.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the resampling.
    **metric_kwargs
        Passed to the metric (``average="macro"``...).

    Returns
    -------
    ComparisonResult
        ``value_a``, ``value_b``, ``difference`` (B - A), its ``confidence_interval``,
        ``standard_error``, ``pvalue`` and ``resampled``.

    Raises
    ------
    ValueError
        If no row has been seen yet, ``metric`` is not a confusion metric, or a resampling
        parameter is out of range.

    See Also
    --------
    fastmetrics.compare : The same comparison in one pass over arrays.

    Examples
    --------
    >>> from fastmetrics.streaming import PairedConfusionAccumulator
    >>> acc = PairedConfusionAccumulator().update([0, 1, 1, 0] * 25, [0, 1, 0, 0] * 25,
    ...                                           [0, 1, 1, 0] * 25)
    >>> r = acc.compare("accuracy_score", n_resamples=200, random_state=0)
    >>> r.value_a, r.value_b, r.resampled
    (0.75, 1.0, 'cells')
    """
    return compare_state(self.require_state(), metric, n_resamples=n_resamples,
                         confidence_level=confidence_level, method=method,
                         random_state=random_state, **metric_kwargs)


def _mcnemar_method(self, *, exact=True, correction=True) -> McNemarResult:
    """As :func:`fastmetrics.mcnemar_test` on every row seen.

    Parameters
    ----------
    exact : bool, default=True
        The exact binomial test; False: the chi-square statistic.
    correction : bool, default=True
        Continuity correction of the chi-square statistic (``exact=False`` only).

    Returns
    -------
    McNemarResult
        ``statistic``, ``pvalue``, ``a_only`` (A right, B wrong) and ``b_only``.

    Raises
    ------
    ValueError
        If no row has been seen yet.

    See Also
    --------
    fastmetrics.mcnemar_test : The same test in one pass over arrays.

    Examples
    --------
    >>> from fastmetrics.streaming import PairedConfusionAccumulator
    >>> acc = PairedConfusionAccumulator().update([0, 1, 1, 0, 1, 1], [0, 1, 0, 1, 0, 1],
    ...                                           [0, 1, 1, 0, 1, 1])
    >>> r = acc.mcnemar_test()
    >>> r.a_only, r.b_only, r.pvalue
    (0, 3, 0.25)
    """
    a_only, b_only = self.require_state().disagreements()
    return mcnemar_from_counts(a_only, b_only, exact=exact, correction=correction)


# methods attached, not defined in the class: a public name has one ``def`` (the face's)
setattr(PairedConfusionAccumulator, "compare", _compare_method)
setattr(PairedConfusionAccumulator, "mcnemar_test", _mcnemar_method)
