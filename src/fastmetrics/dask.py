"""Metrics over dask arrays and dask dataframe columns: the kernels run on each chunk where
the chunk lives, only the small states travel, and a tree of merges reduces them.

Every function takes the same arguments as the top-level function of the same name and
returns the same value (exactly for counts, to about 1e-12 relative for float sums), plus
two keywords: ``compute=True`` (False: a :class:`dask.delayed.Delayed` of the result) and
``split_every=8`` (fan-in of the merge tree). The active scheduler is used: with a
``distributed.Client`` the chunks are scored on the cluster's workers.

Inputs may be :class:`dask.array.Array`, dask dataframe columns (``df["y"]``) and numpy
arrays, mixed. When every input is a dataframe column of the same partitioning, the
partitions are scored as pandas columns where they live: string and categorical labels are
encoded on the workers (by their codes), and only the small label tables travel. Arrays of
other chunkings are rechunked to ``y_true``'s. Dataframe columns
with the same number of partitions are paired partition by partition, without computing
their lengths first (a partition pair of unequal lengths raises ``ValueError``); otherwise
unknown chunk sizes are computed before the graph is built.

What travels from a worker: one accumulator of :mod:`fastmetrics.streaming` per chunk
(a K x K confusion state, ``n_bins`` x 5 calibration sums, 10 regression sums, the non-zero
cells of a contingency table; for the exact
ranking metrics, the sorted (score, weight of each class) summary, 24 bytes per distinct score
of the chunk, so ``roc_auc_score`` finds the greater label positive in one graph run). Never
the data.

Needs the ``dask`` extra: ``pip install "fastmetrics-kernels[dask]"``. ``import fastmetrics``
does not import dask, and importing this module does not either until a function is called.

Examples
--------
>>> import numpy as np
>>> import dask
>>> import dask.array as da
>>> import fastmetrics.dask as fmd
>>> y_true = da.from_array(np.array([0, 1, 2, 2, 1, 0]), chunks=4)
>>> y_pred = da.from_array(np.array([0, 2, 2, 2, 1, 1]), chunks=3)
>>> with dask.config.set(scheduler="synchronous"):
...     acc = fmd.accumulate("confusion", y_true, y_pred)
>>> acc.accuracy_score(), acc.confusion_matrix().tolist()
(0.6666666666666666, [[1, 1, 0], [0, 1, 1], [0, 0, 2]])
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import TYPE_CHECKING

import numpy as np

from . import _docstrings, _table
from ._inputs import proba_argument
from . import uncertainty as _uncertainty
from .exceptions import recording_warnings

from .streaming import KINDS, GroupedAccumulator


if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ._typing import AccumulatorKind

__all__ = ["accumulate", "bootstrap", "compare",
           *(row.name for row in _table.METRICS if row.dask)]

_KINDS = KINDS
_SECOND = {"confusion": "y_pred", "calibration": "y_prob", "regression": "y_pred",
           "ranking": "y_score", "contingency": "labels_pred", "proba": "y_proba",
           "label_ranking": "y_score", "pinball": "y_pred", "hinge": "pred_decision",
           "tweedie": "y_pred", "squared_log": "y_pred"}
# inputs read as (n_samples, K) matrices, chunked by rows only
_MATRICES = {"calibration": frozenset({"y_prob"}),
             "proba": frozenset({"y_true", "y_proba"}),
             "hinge": frozenset({"pred_decision"}),
             "regression": frozenset({"y_true", "y_pred"}),
             "label_ranking": frozenset({"y_true", "y_score"}),
             "pinball": frozenset({"y_true", "y_pred"}),
             "squared_log": frozenset({"y_true", "y_pred"})}

_MISSING = (
    'fastmetrics.dask needs dask and distributed: pip install "fastmetrics-kernels[dask]"'
)


def _dask() -> tuple[Any, Any]:
    """``(dask, dask.array)``, or ImportError naming the extra."""
    try:
        import dask
        import dask.array as da
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return dask, da


# --------------------------------------------------------------------------- inputs


def _to_dask_or_numpy(x: Any, name: str, da: Any, allow_2d: bool) -> Any:
    """A dask array (dataframe columns converted lazily) or a numpy array, 1-D (or 2-D
    where ``allow_2d``); (n, 1) columns are raveled."""
    if hasattr(x, "to_dask_array") and hasattr(x, "npartitions"):  # dask Series / DataFrame
        x = x.to_dask_array()
    elif hasattr(x, "__dask_graph__") and not isinstance(x, da.Array):
        raise TypeError(
            f"{name} is a {type(x).__name__}: pass a dask array, a dask dataframe column, or "
            "a numpy array"
        )
    elif not isinstance(x, da.Array):
        x = np.asarray(x)
    if x.ndim == 2 and x.shape[1] == 1 and not allow_2d:
        x = x[:, 0]
    if x.ndim == 0:
        raise ValueError(f"{name} must be a 1-D array-like, got a scalar")
    if x.ndim != 1 and not (allow_2d and x.ndim == 2):
        want = "1-D or (n_samples, n_classes)" if allow_2d else "1-D (or an (n, 1) column)"
        raise ValueError(f"{name} must be {want}, got shape {x.shape}{_WHY_1D.get(name, '')}")
    return x


_NUMPY_ROWS = 1 << 22
_WHY_1D = {"y_score": ": the ranking metrics over dask are binary (multiclass and multilabel "
                      "scores are not merged over chunks)"}


def _is_series(x: Any) -> bool:
    """A dask dataframe column (1-D), not an array or a frame."""
    return (hasattr(x, "to_dask_array") and hasattr(x, "npartitions")
            and getattr(x, "ndim", 2) == 1)


def _known(x: Any) -> bool:
    return not any(np.isnan(c) for c in x.chunks[0])


def _align(arrays: dict[str, Any], da: Any,
           allow_2d: frozenset[str] = frozenset()) -> list[Any]:
    """The inputs as dask arrays with the same row blocks. Arrays of unknown chunk lengths
    and the same block count are paired block by block (each task checks the lengths);
    otherwise unknown lengths are computed and all is rechunked to the first dask input."""
    conv = {k: _to_dask_or_numpy(v, k, da, k in allow_2d) for k, v in arrays.items()}
    lazy = [v for v in conv.values() if isinstance(v, da.Array)]
    if not lazy:  # all numpy: chunks of 2**22 rows (object arrays cannot be auto-chunked)
        key = next(iter(conv))
        conv[key] = da.from_array(conv[key], chunks=(_NUMPY_ROWS,) + conv[key].shape[1:])
        lazy = [conv[key]]
    paired = all(isinstance(v, da.Array) for v in conv.values()) and len(
        {v.numblocks[0] for v in lazy}) == 1
    unchecked = paired and not all(_known(v) for v in lazy)
    if not unchecked:
        conv = {k: v.compute_chunk_sizes() if isinstance(v, da.Array) and not _known(v) else v
                for k, v in conv.items()}
        ref = next(v for v in conv.values() if isinstance(v, da.Array))
        lengths = {k: int(v.shape[0]) for k, v in conv.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                + ", ".join(f"{k}={n}" for k, n in lengths.items())
            )
        rows = ref.chunks[0]
        out = {}
        for k, v in conv.items():
            if not isinstance(v, da.Array):
                v = da.from_array(v, chunks=(rows,) + v.shape[1:])
            elif v.chunks[0] != rows or (v.ndim == 2 and v.numblocks[1] != 1):
                v = v.rechunk((rows,) + v.shape[1:])
            out[k] = v
        conv = out
    else:
        conv = {k: v.rechunk({1: -1}) if v.ndim == 2 and v.numblocks[1] != 1 else v
                for k, v in conv.items()}
    return list(conv.values())


# --------------------------------------------------------------------------- the graph


def _chunk_state(factory: Callable[..., Any], init_kw: dict[str, Any], update_kw: dict[str, Any],
                 names: list[str], index: int, *blocks: Any) -> Any:
    """One chunk's accumulator (runs on a worker)."""
    lengths = {n: int(np.shape(b)[0]) for n, b in zip(names, blocks)}
    if len(set(lengths.values())) > 1:
        raise ValueError(
            f"chunk {index} of the inputs has inconsistent lengths ("
            + ", ".join(f"{k}={n}" for k, n in lengths.items())
            + "): their partitions do not line up; pass dask arrays with known chunk sizes "
            "(e.g. series.to_dask_array(lengths=True))"
        )
    by_name = {n: b for n, b in zip(names, blocks) if n in ("groups", "sample_weight")}
    data = [b for n, b in zip(names, blocks) if n not in by_name]
    acc = factory(**init_kw).update(*data, **by_name, **update_kw)
    acc.state  # noqa: B018 - an accumulator keeping rows sorts them here, beside its chunk
    return acc


def _merge_all(*accs: Any) -> Any:
    # one merge of all of a node's inputs (a k-way walk for exact ranking states)
    return type(accs[0]).merge_all(accs)


def _graph(kind: str, arrays: dict[str, Any], init_kw: dict[str, Any],
           update_kw: dict[str, Any], split_every: int | None) -> Any:
    """A Delayed of the merged accumulator of ``kind`` over the aligned ``arrays``."""
    dask, da = _dask()
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {sorted(_KINDS)}, got {kind!r}")
    if split_every is None:
        split_every = 8
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2, got {split_every!r}")
    factory: Callable[..., Any] = _KINDS[kind]
    if arrays.get("groups") is not None:  # one state per group in each chunk
        factory = functools.partial(GroupedAccumulator, kind)
    factory(**init_kw)  # bad parameters fail here, on the client, before any work
    names = [k for k, v in arrays.items() if v is not None]
    allow_2d = _MATRICES.get(kind, frozenset())
    series = [arrays[k] for k in names]
    if all(_is_series(v) for v in series) and len({v.npartitions for v in series}) == 1:
        # dataframe columns partition by partition, as the workers hold them: categorical
        # and arrow string columns reach the accumulators as they are (encoded there by
        # their codes, never converted to Python objects); each task checks the lengths
        blocks = [list(v.to_delayed()) for v in series]
    else:
        aligned = _align({k: arrays[k] for k in names}, da, allow_2d)
        blocks = [a.to_delayed().reshape(-1) for a in aligned]
    # impure: fresh keys per call, so a call never picks up states still held from another
    chunk = dask.delayed(_chunk_state, pure=False)
    level = [chunk(factory, init_kw, update_kw, names, i, *b)
             for i, b in enumerate(zip(*blocks))]
    merge = dask.delayed(_merge_all, pure=False)
    while len(level) > 1:
        level = [merge(*level[i:i + split_every]) for i in range(0, len(level), split_every)]
    return level[0]


def accumulate(kind: AccumulatorKind, y_true: Any, y_pred: Any, *, sample_weight: Any = None,
               compute: bool = True, split_every: int | None = None,
               n_threads: int | None = None, groups: Any = None, **params: Any) -> Any:
    """The merged :mod:`fastmetrics.streaming` accumulator of dask inputs.

    One graph execution gives every metric of the accumulator: ask it for several without
    reading the data again.

    Parameters
    ----------
    kind : {"confusion", "calibration", "regression", "pinball", "ranking", \
"label_ranking", "contingency", "proba", "hinge", "tweedie", "squared_log"}
        :class:`~fastmetrics.streaming.ConfusionAccumulator`,
        :class:`~fastmetrics.streaming.CalibrationAccumulator`,
        :class:`~fastmetrics.streaming.RegressionAccumulator`,
        :class:`~fastmetrics.streaming.PinballAccumulator`,
        :class:`~fastmetrics.streaming.RankingAccumulator`,
        :class:`~fastmetrics.streaming.LabelRankingAccumulator` ((n_samples, L) matrices),
        :class:`~fastmetrics.streaming.ContingencyAccumulator` (``y_true`` and ``y_pred``
        are then ``labels_true`` and ``labels_pred``) or
        :class:`~fastmetrics.streaming.ProbabilityAccumulator` or
        :class:`~fastmetrics.streaming.HingeAccumulator` (without ``labels=``, the
        classes of ``y_true`` are found first, in one more pass over it),
        :class:`~fastmetrics.streaming.TweedieAccumulator` (``power=``) or
        :class:`~fastmetrics.streaming.SquaredLogAccumulator`.
    y_true, y_pred : dask array, dask dataframe column or array-like of shape (n_samples,)
        Labels or targets and predictions (probabilities of shape (n_samples,) or
        (n_samples, K) for calibration and proba, scores for ranking).
    sample_weight : same kinds, of shape (n_samples,), default=None
        Sample weights.
    compute : bool, default=True
        False: return a :class:`dask.delayed.Delayed` of the accumulator.
    split_every : int, default=8
        How many accumulators each merge task combines.
    n_threads : int, default=None
        Threads of the kernel pass on each chunk (workers of ``distributed`` run with
        ``OMP_NUM_THREADS=1`` by default).
    groups : same kinds, of shape (n_samples,), default=None
        The group (slice) of each sample: the result is then a
        :class:`~fastmetrics.streaming.GroupedAccumulator` of ``kind``, one accumulator
        per group.
    **params
        Arguments of the accumulator (``labels=``, ``n_bins=``, ``pos_label=``,
        ``thresholds=``, ``delta=``...).

    Returns
    -------
    Accumulator or Delayed
        The accumulator of ``kind`` holding every sample (its metric methods, ``result()``
        and ``to_dict()`` then need no more graph runs), or a
        :class:`dask.delayed.Delayed` of it with ``compute=False``.

    Raises
    ------
    ValueError
        If ``kind`` is not one of the kinds above, the inputs have different numbers of
        samples (or a pair of dataframe partitions differs in length), ``split_every`` is
        not an integer >= 2, or the accumulator refuses ``params`` or a chunk.
    TypeError
        If an input is a dask collection other than an array or a dataframe column, or
        ``params`` holds an argument the accumulator does not take.
    ImportError
        If dask is not installed (the ``dask`` extra).

    See Also
    --------
    fastmetrics.streaming.ConfusionAccumulator : The accumulator of ``kind="confusion"``;
        the other kinds are listed above.
    fastmetrics.dask.f1_score : One metric of dask inputs in one call (every mergeable
        metric has such a function).

    Examples
    --------
    >>> import numpy as np
    >>> import dask
    >>> import dask.array as da
    >>> import fastmetrics.dask as fmd
    >>> y = da.from_array(np.array([3.0, -0.5, 2.0, 7.0]), chunks=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     acc = fmd.accumulate("regression", y, np.array([2.5, 0.0, 2.0, 8.0]))
    >>> acc.mean_absolute_error(), acc.mean_squared_error()
    (0.5, 0.375)
    """
    update_kw = {}
    if n_threads is not None:
        update_kw["n_threads"] = n_threads
    shape = tuple(getattr(y_true, "shape", np.shape(y_true)))
    if kind in ("proba", "hinge") and params.get("labels") is None \
            and (len(shape) < 2 or shape[1] == 1):
        # the columns of y_proba are the sorted classes of all of y_true, which a chunk
        # alone does not know: one pass over y_true finds them first (a multilabel
        # indicator's columns are its classes)
        params = dict(params, labels=_classes(y_true))
    arrays = {"y_true": y_true, _SECOND.get(kind, "y_pred"): y_pred,
              "sample_weight": sample_weight, "groups": groups}
    out = _graph(kind, arrays, params, update_kw, split_every)
    if not compute:
        return out
    return out.compute()


def _classes(y_true: Any) -> np.ndarray:
    """The sorted classes of ``y_true`` (a dask input is computed: one pass)."""
    _, da = _dask()
    y = _to_dask_or_numpy(y_true, "y_true", da, False)
    if isinstance(y, da.Array):
        return np.asarray(da.unique(y).compute())
    return np.unique(y)


def _finish(acc: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    return fn(acc, *args)


def _finish_recorded(acc: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """``(fn(acc, *args), warnings raised)``: the last task, where the merged state is.
    Recorded in this task's context only (other threads of the worker, or of a threaded
    scheduler in the client's process, warn as usual)."""
    with recording_warnings() as caught:
        value = fn(acc, *args)
    return value, caught


def _run(kind: AccumulatorKind, y_true: Any, y_pred: Any, sample_weight: Any,
         init_kw: dict[str, Any], fn: Callable[..., Any], args: tuple[Any, ...] = (), *,
         compute: bool, split_every: int | None, n_threads: int | None = None,
         groups: Any = None) -> Any:
    """Build the graph and apply ``fn(acc, *args)`` to the merged accumulator as its last
    task, where the merged state is: only the result travels to the client (an exact
    ranking state is 24 bytes a distinct score), and ``compute=True`` raises its warnings
    again on the client, as one pass would."""
    acc = accumulate(kind, y_true, y_pred, sample_weight=sample_weight, compute=False,
                     split_every=split_every, n_threads=n_threads, groups=groups, **init_kw)
    dask, _ = _dask()
    if not compute:
        return dask.delayed(_finish, pure=False)(acc, fn, args)
    value, caught = dask.delayed(_finish_recorded, pure=False)(acc, fn, args).compute()
    for category, message in caught:
        warnings.warn(message, category, stacklevel=3)
    return value


# --------------------------------------------------------------------------- the table

_PARAM = inspect.Parameter
_EXTRA = [_PARAM("compute", _PARAM.KEYWORD_ONLY, default=True),
          _PARAM("split_every", _PARAM.KEYWORD_ONLY, default=None),
          _PARAM("groups", _PARAM.KEYWORD_ONLY, default=None)]


def _derive(acc: Any, derive: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    if isinstance(acc, GroupedAccumulator):
        return {key: derive(acc[key].require_state(), **kwargs) for key in acc.keys()}
    return derive(acc.require_state(), **kwargs)


def _function(row: _table.Metric) -> Callable[..., Any]:
    """The Dask function of one table row: the one-shot function's signature plus
    ``compute`` and ``split_every``; the data's chunks are counted into accumulators of the
    row's family, merged, and the row's derivation applied to the merged state."""
    one_shot = row.signature
    sig = one_shot.replace(parameters=list(one_shot.parameters.values()) + _EXTRA)
    first, second = list(one_shot.parameters)[:2]
    takes = inspect.signature(row.derive).parameters
    metric = [p.name for p in row.metric_parameters()]

    def fn(*args: Any, **kwargs: Any) -> Any:
        b = sig.bind(*args, **kwargs)
        b.apply_defaults()
        a = b.arguments
        config = {p: a[p] for p in row.config if p in a}  # see _table.Metric.config
        config.update(row.fixed)
        kw = {p: a[p] for p in metric}
        kw.update({p: v for p, v in config.items() if p in takes})
        if "y_pred" in a and second == "y_proba":  # scikit-learn's deprecated spelling
            a[second] = proba_argument(a[second], a["y_pred"])
        return _run(row.family, a[first], a[second],
                    a.get("sample_weight"), config, _derive, (row.derive, kw),
                    compute=a["compute"], split_every=a["split_every"],
                    n_threads=a.get("n_threads"), groups=a["groups"])

    fn.__name__ = fn.__qualname__ = row.name
    fn.__module__ = __name__
    # inspect.signature reads __signature__, which typeshed does not declare on functions
    fn.__signature__ = sig  # type: ignore[attr-defined]
    fn.__doc__ = _docstrings.dask_function_doc(row, _KINDS[row.family].__name__)
    return fn


if TYPE_CHECKING:  # the static signatures of the functions generated below
    from ._dask_signatures import *  # noqa: F401,F403
else:
    for _row in _table.METRICS:
        if _row.dask:
            globals()[_row.name] = _function(_row)


# --------------------------------------------------------------------------- intervals


def _cell_row(metric: str | Callable[..., Any]) -> _table.Metric:
    for row in _table.METRICS:
        if (row.name == metric or row.function is metric) and row.family in (
                "confusion", "ranking", "contingency"):
            return row
    raise ValueError(
        f"{getattr(metric, '__name__', metric)!r} is not a confusion, ranking or clustering "
        "metric: fastmetrics.dask.bootstrap draws its resamples from those states' cells "
        "(other metrics need the rows)")


def _acc_bootstrap(acc: Any, metric: str | Callable[..., Any], kw: dict[str, Any]) -> Any:
    return acc.bootstrap(metric, **kw)


def _acc_compare(acc: Any, metric: str | Callable[..., Any], kw: dict[str, Any]) -> Any:
    return acc.compare(metric, **kw)


_INTERVAL_EXAMPLES = {
    2: [">>> import numpy as np",
        ">>> import dask",
        ">>> import dask.array as da",
        ">>> import fastmetrics.dask as fmd",
        ">>> y_true = da.from_array(np.array([0, 1, 1, 0, 1, 0, 1, 1] * 25), chunks=64)",
        ">>> y_pred = da.from_array(np.array([0, 1, 0, 0, 1, 1, 1, 0] * 25), chunks=64)",
        '>>> with dask.config.set(scheduler="synchronous"):',
        '...     r = fmd.bootstrap("accuracy_score", y_true, y_pred, n_resamples=200,',
        "...                       random_state=0)",
        ">>> r.value, r.resampled",
        "(0.625, 'cells')"],
    3: [">>> import numpy as np",
        ">>> import dask",
        ">>> import dask.array as da",
        ">>> import fastmetrics.dask as fmd",
        ">>> y_true = da.from_array(np.array([0, 1, 1, 0] * 25), chunks=32)",
        ">>> a = da.from_array(np.array([0, 1, 0, 0] * 25), chunks=32)",
        ">>> b = da.from_array(np.array([0, 1, 1, 0] * 25), chunks=32)",
        '>>> with dask.config.set(scheduler="synchronous"):',
        '...     r = fmd.compare("accuracy_score", y_true, a, b, n_resamples=200,',
        "...                     random_state=0)",
        ">>> r.difference, r.resampled",
        "(0.25, 'cells')"],
}


def _interval_function(local: Callable[..., Any], n_data: int) -> Callable[..., Any]:
    """The Dask face of :func:`fastmetrics.bootstrap` (``n_data`` 2) or
    :func:`fastmetrics.compare` (3): the chunks' states are merged in one graph run and
    the resamples drawn from the merged state's cells on the client (O(cells) each; the
    data is read once). Its signature is the local function's (``sample_weight`` must be
    None: weighted resamples need the rows) plus ``compute`` and ``split_every``."""
    sig = inspect.signature(local)
    params = list(sig.parameters.values())
    extra = [inspect.Parameter("compute", inspect.Parameter.KEYWORD_ONLY, default=True),
             inspect.Parameter("split_every", inspect.Parameter.KEYWORD_ONLY, default=None)]
    params = params[:-1] + extra + params[-1:]  # **metric_kwargs stays last
    new_sig = sig.replace(parameters=params)

    def fn(*args: Any, **kwargs: Any) -> Any:
        bound = new_sig.bind(*args, **kwargs)
        bound.apply_defaults()
        a = dict(bound.arguments)
        metric_kwargs = a.pop("metric_kwargs", {})
        metric = a.pop("metric")
        data = [a.pop(p.name) for p in params[1:1 + n_data]]
        compute, split_every, n_threads = a.pop("compute"), a.pop("split_every"), \
            a.pop("n_threads")
        if a.pop("sample_weight") is not None:
            raise ValueError("fastmetrics.dask draws resamples from the merged state's cells, "
                             "which needs unweighted data: weighted resamples need the rows "
                             f"(call fastmetrics.{local.__name__} on the computed arrays)")
        row = _cell_row(metric)
        update_kw = {} if n_threads is None else {"n_threads": n_threads}
        if n_data == 2:
            config = {p: metric_kwargs[p] for p in row.config if p in metric_kwargs}
            acc = _graph(row.family, {"y_true": data[0],
                                      _SECOND.get(row.family, "y_pred"): data[1]},
                         config, update_kw, split_every)
            run = _acc_bootstrap
        else:
            if row.family != "confusion":
                raise ValueError(f"{row.name} is not a confusion metric: "
                                 "fastmetrics.dask.compare draws paired resamples from the "
                                 "joint confusion table")
            acc = _graph("paired", dict(zip(("y_true", "y_pred_a", "y_pred_b"), data)), {},
                         update_kw, split_every)
            run = _acc_compare
        dask, _ = _dask()
        out = dask.delayed(run, pure=False)(acc, metric, {**a, **metric_kwargs})
        return out.compute() if compute else out

    fn.__name__ = fn.__qualname__ = local.__name__
    fn.__signature__ = new_sig  # type: ignore[attr-defined]
    fn.__doc__ = _docstrings.dask_interval_doc(
        local, new_sig, "confusion, ranking and clustering" if n_data == 2 else "confusion",
        _INTERVAL_EXAMPLES[n_data])
    return fn


if not TYPE_CHECKING:  # declared by ._dask_signatures
    bootstrap = _interval_function(_uncertainty.bootstrap, 2)
    compare = _interval_function(_uncertainty.compare, 3)
