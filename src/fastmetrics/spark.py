"""Metrics over Spark DataFrame columns: each partition's Arrow batches are counted into a
state on the executors, only the small states travel, and the driver merges them.

Every function takes a ``pyspark.sql.DataFrame`` and column names where the top-level
function of the same name takes arrays, the same metric parameters, and returns the same
value (exactly for counts, to about 1e-12 relative for float sums), plus ``groups=`` (a
column or a list of columns: the result is then a dict, group key -> value).

One Spark job per call: ``df.select(columns).mapInArrow(...)`` runs on every partition,
feeding its Arrow record batches (numbers as numpy arrays, text as the Arrow arrays
themselves, encoded by their codes) to one accumulator of :mod:`fastmetrics.streaming`,
and yields that accumulator's exported state: one binary value per partition (a
K x K confusion state, ``n_bins`` x 5 calibration sums, 10 regression sums; for the exact
ranking metrics the sorted (score, weight of each class) summary, 24 bytes per distinct
score of the partition). No Python function runs per row and no pandas conversion is made.
The driver loads the states (checked as :meth:`~fastmetrics.streaming.Accumulator.from_dict`
checks them), merges them and takes the metric from the merged state. The probabilistic
scores without ``labels=`` (``log_loss``, ``hinge_loss``...) need the classes of ``y_true``
first: one ``distinct`` aggregation before the job.

:func:`evaluate` is :func:`fastmetrics.evaluate` on a Spark DataFrame: every default metric
of the task, per model and slice, in one job over the data (plus one ``distinct`` of the true
column for the classes and the task).

Executors must import fastmetrics: on a cluster, ship the wheel with the job (a packed
virtual environment through ``spark.archives``, or a cluster library); see the README's
"Spark" section. Needs the ``spark`` extra: ``pip install "fastmetrics-kernels[spark]"``;
importing this module does not import pyspark until a function is called.

Examples
--------
>>> from pyspark.sql import SparkSession  # doctest: +SKIP
>>> import fastmetrics.spark as fms
>>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
>>> df = spark.createDataFrame([(0, 0), (1, 1), (1, 0), (0, 0)], ["y", "p"])  # doctest: +SKIP
>>> fms.accuracy_score(df, "y", "p")  # doctest: +SKIP
0.75
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import json
import re
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from . import _docstrings, _table
from . import evaluation as _ev
from ._inputs import proba_argument
from .streaming import KINDS, GroupedAccumulator

if TYPE_CHECKING:
    from ._typing import AccumulatorKind

__all__ = ["accumulate", "evaluate", *(row.name for row in _table.METRICS if row.dask)]

_MISSING = 'fastmetrics.spark needs pyspark: pip install "fastmetrics-kernels[spark]"'

#: the output of every partition: an exported state, or the error that refused its data
_SCHEMA = "state binary, error string"
#: above this many distinct true values, evaluate stops looking for classes (a confusion
#: state of that many classes would not fit anyway)
_MAX_CLASSES = 100_000


def _pyspark() -> Any:
    """``pyspark.sql.functions``, or ImportError naming the extra."""
    try:
        import pyspark.sql.functions as F
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return F


# --------------------------------------------------------------------------- columns

#: an input: one column, or several stacked into an (n_samples, k) matrix
_Columns = str | tuple[str, ...]


def _as_columns(x: Any, name: str) -> _Columns:
    if isinstance(x, str):
        return x
    if isinstance(x, (list, tuple)) and x and all(isinstance(c, str) for c in x):
        return tuple(x)
    raise TypeError(f"{name} must be a column name or a list of column names, got "
                    f"{type(x).__name__}")


def _names(cols: _Columns) -> tuple[str, ...]:
    return (cols,) if isinstance(cols, str) else cols


def _check_schema(df: Any, inputs: Mapping[str, _Columns | None],
                  numeric: frozenset[str]) -> None:
    """ValueError before any job: a missing column, or text where numbers are needed
    (``numeric``: the roles that must be numbers)."""
    from pyspark.sql import types as T

    fields = {f.name: f.dataType for f in df.schema.fields}
    for role, cols in inputs.items():
        if cols is None:
            continue
        for c in _names(cols):
            if c not in fields:
                shown = ", ".join(list(fields)[:20]) + (", ..." if len(fields) > 20 else "")
                raise ValueError(f"unknown column {c!r} ({role}); the columns are: {shown}")
            t = fields[c]
            if isinstance(t, T.ArrayType):
                t = t.elementType
                if role not in numeric:
                    raise ValueError(f"column {c!r} ({role}) is an array column: pass a "
                                     "column of labels")
            ok = isinstance(t, (T.NumericType, T.BooleanType))
            if role not in numeric:
                ok = ok or isinstance(t, T.StringType)
            if not ok:
                want = "numeric" if role in numeric else "numbers, booleans or strings"
                raise ValueError(f"column {c!r} ({role}) must be {want}, got "
                                 f"{t.simpleString()}")


def _quoted(F: Any, c: str) -> Any:
    # backquotes: a name with a dot is a column, not a struct field
    return F.col("`" + c.replace("`", "``") + "`")


def _numbers(col: Any, name: str) -> np.ndarray:
    """An Arrow column as numpy: numbers without a copy where the buffer allows; list
    columns as (n, k) matrices; missing values refused (they have no number)."""
    import pyarrow as pa

    if col.null_count:
        raise ValueError(f"the column {name!r} holds {col.null_count} missing values")
    t = col.type
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        n = len(col)
        values = _numbers(col.flatten(), name)
        if n and values.shape[0] % n == 0 and (
                pa.types.is_fixed_size_list(t)
                or np.all(np.diff(col.offsets.to_numpy(zero_copy_only=False)) == values.shape[0] // n)):
            return values.reshape(n, values.shape[0] // n)
        raise ValueError(f"the arrays of column {name!r} have different lengths")
    if pa.types.is_decimal(t):
        col = col.cast(pa.float64())
    return np.asarray(col.to_numpy(zero_copy_only=False))


def _read(rb: Any, cols: _Columns) -> Any:
    """One input of a record batch: text as Arrow (the accumulators encode it by its
    codes), numbers as numpy; several columns stacked into an (n, k) matrix."""
    import pyarrow as pa

    if isinstance(cols, str):
        col = rb.column(cols)
        t = col.type
        if pa.types.is_string(t) or pa.types.is_large_string(t) \
                or pa.types.is_string_view(t) or pa.types.is_dictionary(t):
            return col
        return _numbers(col, cols)
    return np.column_stack([np.asarray(_numbers(rb.column(c), c), dtype=np.float64)
                            for c in cols])


def _group_keys(rb: Any, cols: tuple[str, ...]) -> Any:
    if len(cols) == 1:
        return _read(rb, cols[0])
    return {c: _read(rb, c) for c in cols}


# --------------------------------------------------------------------------- states on the wire


def _dumps(d: Any) -> bytes:
    """An exported state as bytes: the plain values as JSON, the arrays in an ``.npz``
    (numbers and fixed-width text only: loaded without pickle)."""
    arrays: list[np.ndarray] = []

    def strip(x: Any) -> Any:
        if isinstance(x, np.ndarray):
            if x.dtype.kind == "O":  # text labels held as Python strings: fixed-width text
                values = x.tolist()
                if not all(isinstance(v, str) for v in np.ravel(x)):
                    raise TypeError("an exported state holds Python objects other than "
                                    "text: it cannot travel without pickle")
                x = np.array(values, dtype=str) if values else np.array([], dtype="U1")
            arrays.append(x)
            return {"__array__": len(arrays) - 1}
        if isinstance(x, np.generic):
            return x.item()
        if isinstance(x, Mapping):
            return {str(k): strip(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [strip(v) for v in x]
        return x

    skeleton = json.dumps(strip(d)).encode()
    buf = io.BytesIO()
    np.savez(buf, np.frombuffer(skeleton, dtype=np.uint8), *arrays)
    return buf.getvalue()


def _loads(blob: bytes) -> Any:
    """The values :func:`_dumps` wrote (no pickle: an object array is refused)."""
    with np.load(io.BytesIO(blob), allow_pickle=False) as z:
        arrays = [z[f"arr_{i}"] for i in range(len(z.files))]
    skeleton = json.loads(arrays[0].tobytes().decode())

    def fill(x: Any) -> Any:
        if isinstance(x, dict):
            if set(x) == {"__array__"}:
                return arrays[int(x["__array__"]) + 1]
            return {k: fill(v) for k, v in x.items()}
        if isinstance(x, list):
            return [fill(v) for v in x]
        return x

    return fill(skeleton)


def _sorted_groups(acc: GroupedAccumulator) -> GroupedAccumulator:
    """The groups in sorted key order, as one in-memory update gives them (merged
    partitions list them in the order the partitions first saw them)."""
    d = acc.to_dict()
    keys = [np.asarray(k) for k in d["keys"]]
    if not keys or len(d["groups"]) < 2:
        return acc
    order = np.lexsort(tuple(reversed(keys)))
    if np.array_equal(order, np.arange(order.shape[0])):
        return acc
    d["keys"] = [k[order] for k in keys]
    d["groups"] = [d["groups"][i] for i in order.tolist()]
    return GroupedAccumulator.from_dict(d)


# --------------------------------------------------------------------------- the job


def _out(state: bytes | None, error: str | None) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_arrays(
        [pa.array([state], pa.binary()), pa.array([error], pa.string())],
        names=["state", "error"])


@dataclass(frozen=True)
class _Job:
    """What an executor needs to count a partition: the accumulator to build and which
    columns feed it."""

    kind: str
    config: dict[str, Any]
    data: tuple[_Columns, ...]
    weight: str | None = None
    groups: tuple[str, ...] | None = None
    update_kw: dict[str, Any] = field(default_factory=dict)

    def new(self) -> Any:
        if self.groups is not None:
            return GroupedAccumulator(self.kind, **self.config)
        return KINDS[self.kind](**self.config)

    def columns(self) -> list[str]:
        cols = [c for d in self.data for c in _names(d)]
        if self.weight is not None:
            cols.append(self.weight)
        cols += list(self.groups or ())
        return list(dict.fromkeys(cols))

    def export(self, acc: Any) -> dict[str, Any]:
        return dict(acc.to_dict())

    def feed(self, acc: Any, rb: Any) -> None:
        data = [_read(rb, d) for d in self.data]
        w = None if self.weight is None else np.asarray(_numbers(rb.column(self.weight),
                                                                 self.weight), dtype=np.float64)
        if self.groups is not None:
            acc.update(*data, groups=_group_keys(rb, self.groups), sample_weight=w,
                       **self.update_kw)
        elif w is not None:
            acc.update(*data, sample_weight=w, **self.update_kw)
        else:  # the clustering counts take no weights at all
            acc.update(*data, **self.update_kw)


def _partition(job: Any, batches: Iterator[Any]) -> Iterator[Any]:
    """One partition (runs on an executor): its batches counted into one state, yielded
    as one binary value; nothing for an empty partition. An error of the data (a NaN
    label, probabilities out of range...) travels back as text, raised again on the
    driver as the same exception."""
    try:
        acc = None
        for rb in batches:
            if rb.num_rows == 0:
                continue
            if acc is None:
                acc = job.new()
            job.feed(acc, rb)
        if acc is not None:
            yield _out(_dumps(job.export(acc)), None)
    except (ValueError, TypeError) as exc:
        yield _out(None, f"{type(exc).__name__}\n{exc}")


_PYTHON_ERROR = re.compile(r"^(ValueError|TypeError): (.*)$", re.MULTILINE)


def _collect(sdf: Any) -> list[bytes]:
    """The partitions' states (one Spark job); a partition's error raised here as the
    exception the in-memory function gives."""
    try:
        table = _to_arrow(sdf)
    except Exception as exc:  # PythonException, Py4JJavaError: the executor's error as text
        found = _PYTHON_ERROR.findall(str(exc))
        if found:
            kind, message = found[-1]
            raise (ValueError if kind == "ValueError" else TypeError)(message) from None
        raise
    errors = [e for e in table.column("error").to_pylist() if e is not None]
    if errors:
        kind, _, message = errors[0].partition("\n")
        raise (TypeError if kind == "TypeError" else ValueError)(message)
    return [bytes(b) for b in table.column("state").to_pylist() if b is not None]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """pyspark checks the pandas version on its Arrow paths (mapInArrow is built on the
    pandas UDF machinery) and warns about pandas 3, which these paths never use."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas",
                                FutureWarning)
        yield


def _to_arrow(sdf: Any) -> Any:
    with _quiet():
        return sdf.toArrow()


def _run_job(df: Any, job: Any) -> list[bytes]:
    F = _pyspark()
    with _quiet():
        sdf = df.select(*[_quoted(F, c) for c in job.columns()]).mapInArrow(
            functools.partial(_partition, job), _SCHEMA)
        return _collect(sdf)


def _merged(job: _Job, blobs: list[bytes]) -> Any:
    if not blobs:
        return job.new()
    if job.groups is not None:
        parts = [GroupedAccumulator.from_dict(_loads(b)) for b in blobs]
        return _sorted_groups(GroupedAccumulator.merge_all(parts))
    cls = KINDS[job.kind]
    return cls.merge_all([cls.from_dict(_loads(b)) for b in blobs])


# roles whose columns must hold numbers, per family (the others may hold labels)
_LABEL_ROLES = {"confusion": frozenset({"y_true", "y_pred"}),
                "contingency": frozenset({"y_true", "y_pred"}),
                "calibration": frozenset({"y_true"}), "ranking": frozenset({"y_true"}),
                "proba": frozenset({"y_true"}), "hinge": frozenset({"y_true"}),
                "paired": frozenset({"y_true", "y_pred"})}


def _classes(df: Any, y_true: str) -> np.ndarray:
    """The sorted classes of ``y_true``: one ``distinct`` aggregation."""
    F = _pyspark()
    col = _to_arrow(df.select(_quoted(F, y_true)).distinct()).column(0)
    if col.null_count:
        raise ValueError(f"the column {y_true!r} holds {col.null_count} missing values")
    return np.unique(np.asarray(col.to_numpy()))


def _accumulate(kind: AccumulatorKind, df: Any, y_true: str | Sequence[str],
               y_pred: str | Sequence[str], *, sample_weight: str | None = None,
               groups: str | Sequence[str] | None = None, n_threads: int | None = None,
               **params: Any) -> Any:
    """The merged :mod:`fastmetrics.streaming` accumulator of Spark DataFrame columns.

    One Spark job gives every metric of the accumulator: ask it for several without
    reading the data again.

    Parameters
    ----------
    kind : {"confusion", "calibration", "regression", "pinball", "ranking", \
"label_ranking", "contingency", "proba", "hinge", "tweedie", "squared_log"}
        The accumulator, as :func:`fastmetrics.dask.accumulate` names them (without
        ``labels=``, ``proba`` and ``hinge`` find the classes of ``y_true`` first, in one
        ``distinct`` aggregation).
    df : pyspark.sql.DataFrame
        The data; its partitions are counted where they live.
    y_true, y_pred : str or list of str
        Column names: labels or targets, and predictions (a probability or score column,
        or a list of columns, or an array column, for (n_samples, K) inputs).
    sample_weight : str, optional
        A weight column.
    groups : str or list of str, optional
        Key column(s) of the groups (slices): the result is then a
        :class:`~fastmetrics.streaming.GroupedAccumulator` of ``kind``, one accumulator
        per group, groups in sorted key order.
    n_threads : int, optional
        Threads of the kernel pass on each record batch (on the executors).
    **params
        Arguments of the accumulator (``labels=``, ``n_bins=``, ``pos_label=``...).

    Returns
    -------
    Accumulator or GroupedAccumulator
        The accumulator holding every row (its metric methods, ``result()`` and
        ``to_dict()`` need no more Spark jobs).

    Raises
    ------
    ValueError
        If ``kind`` is unknown, a column is missing or holds text where numbers are
        needed (before any job), or the accumulator refuses ``params`` or a partition's
        data (raised on the driver with the accumulator's message).
    TypeError
        If a column argument is not a name or a list of names, or ``params`` holds an
        argument the accumulator does not take.
    ImportError
        If pyspark is not installed (the ``spark`` extra).

    See Also
    --------
    fastmetrics.dask.accumulate : The same over dask inputs.
    fastmetrics.spark.evaluate : Every metric of a task, per model and slice, in one job.

    Examples
    --------
    >>> import fastmetrics.spark as fms
    >>> acc = fms.accumulate("regression", df, "y", "estimate")  # doctest: +SKIP
    >>> acc.mean_absolute_error(), acc.r2_score()  # doctest: +SKIP
    (0.5, 0.9486081370449679)
    """
    _pyspark()
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {sorted(KINDS)}, got {kind!r}")
    first, second = _as_columns(y_true, "y_true"), _as_columns(y_pred, "y_pred")
    keys = None if groups is None else _names(_as_columns(groups, "groups"))
    numeric = frozenset({"y_true", "y_pred", "sample_weight"}) - _LABEL_ROLES.get(
        kind, frozenset())
    _check_schema(df, {"y_true": first, "y_pred": second, "sample_weight": sample_weight,
                       "groups": keys}, numeric)
    if kind in ("proba", "hinge") and params.get("labels") is None \
            and isinstance(first, str):
        # the columns of y_proba are the sorted classes of all of y_true, which a
        # partition alone does not know
        params = dict(params, labels=_classes(df, first))
    update_kw = {} if n_threads is None else {"n_threads": n_threads}
    job = _Job(kind, dict(params), (first, second), sample_weight, keys, update_kw)
    job.new()  # bad settings fail here, on the driver, before any job
    return _merged(job, _run_job(df, job))


# --------------------------------------------------------------------------- the table

_PARAM = inspect.Parameter
_DF = _PARAM("df", _PARAM.POSITIONAL_OR_KEYWORD)
_GROUPS = _PARAM("groups", _PARAM.KEYWORD_ONLY, default=None)


def _derive(acc: Any, derive: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    if isinstance(acc, GroupedAccumulator):
        return {key: derive(acc[key].require_state(), **kwargs) for key in acc.keys()}
    return derive(acc.require_state(), **kwargs)


def _function(row: _table.Metric) -> Callable[..., Any]:
    """The Spark function of one table row: ``df`` then the one-shot function's signature
    (data parameters taking column names) plus ``groups``; the partitions are counted
    into accumulators of the row's family, merged, and the row's derivation applied to
    the merged state."""
    one_shot = row.signature
    sig = one_shot.replace(parameters=[_DF, *one_shot.parameters.values(), _GROUPS])
    first, second = list(one_shot.parameters)[:2]
    takes = inspect.signature(row.derive).parameters
    metric = [p.name for p in row.metric_parameters()]
    # data parameters other than the two inputs and the weights (mutual_info_score's
    # precomputed contingency=): the rows are counted here, so they must stay None
    other_data = [p for p in one_shot.parameters
                  if p in _table.DATA and p not in (first, second, "sample_weight",
                                                    "n_threads", "y_pred")]

    def fn(*args: Any, **kwargs: Any) -> Any:
        b = sig.bind(*args, **kwargs)
        b.apply_defaults()
        a = b.arguments
        for p in other_data:
            if a[p] is not None:
                raise ValueError(f"{p}= is not served by fastmetrics.spark: the rows are "
                                 "counted from the DataFrame's columns")
        config = {p: a[p] for p in row.config if p in a}  # see _table.Metric.config
        config.update(row.fixed)
        kw = {p: a[p] for p in metric}
        kw.update({p: v for p, v in config.items() if p in takes})
        if "y_pred" in a and second == "y_proba":  # scikit-learn's deprecated spelling
            a[second] = proba_argument(a[second], a["y_pred"])
        acc = _accumulate(row.family, a["df"], a[first], a[second],
                         sample_weight=a.get("sample_weight"), groups=a["groups"],
                         n_threads=a.get("n_threads"), **config)
        return _derive(acc, row.derive, kw)

    fn.__name__ = fn.__qualname__ = row.name
    fn.__module__ = __name__
    # inspect.signature reads __signature__, which typeshed does not declare on functions
    fn.__signature__ = sig  # type: ignore[attr-defined]
    fn.__doc__ = _function_doc(row, KINDS[row.family].__name__)
    return fn


def _entry(head: str, desc: list[str]) -> list[str]:
    return [head] + [("    " + d) if d.strip() else "" for d in desc]


def _function_doc(row: _table.Metric, accumulator: str) -> str:
    """The numpydoc docstring of one generated function: the one-shot function's
    parameter descriptions and Returns, the data parameters as column names."""
    one = _docstrings.Sections(row.function.__doc__)
    where = f"fastmetrics.{row.name}"
    first, second = list(row.signature.parameters)[:2]
    params = _entry("df : pyspark.sql.DataFrame",
                    ["The data; each partition is counted where it lives."])
    for p in row.signature.parameters.values():
        found = one.parameter(p.name)
        kind, desc = found if found is not None else ("", [f"As in :func:`{where}`."])
        if p.name in (first, second):
            params += _entry(f"{p.name} : str or list of str",
                             [f"Column name(s) of the ``{p.name}`` of :func:`{where}` (a list "
                              "of columns, or an array column, for an (n_samples, K) input)."])
        elif p.name == "sample_weight":
            params += _entry("sample_weight : str, default=None", ["A weight column."])
        elif p.name == "n_threads":
            params += _entry("n_threads : int or None, default=None",
                             ["Threads of the kernel pass on each record batch (executors)."])
        else:
            default = "" if p.default is _PARAM.empty else f", default={p.default!r}"
            params += _entry(f"{p.name} : {kind or 'object' + default}", desc)
    params += _entry("groups : str or list of str, default=None",
                     ["Key column(s): the result is then a dict, group key -> value (keys "
                      "sorted)."])
    returns = []
    for head, desc in one.entries("Returns") or [("result : object",
                                                   [f"What :func:`{where}` returns."])]:
        returns += _entry(head, desc)
    extended = (
        f"The same metric parameters as :func:`{where}`, with column names for the data, and "
        "the same value (exactly for counts, to about 1e-12 relative for float sums). Each "
        f"partition is counted on the executors into a "
        f":class:`~fastmetrics.streaming.{accumulator}` from its Arrow batches; only these "
        "small states travel to the driver, where they are merged and the metric is taken. "
        "One Spark job.")
    if row.family in ("proba", "hinge") and "labels" in row.signature.parameters:
        extended += (" Without ``labels``, the classes of ``y_true`` are found first, in one "
                     "``distinct`` aggregation.")
    raises = _entry("ValueError", [
        "If a column is missing or holds text where numbers are needed (before any job), or "
        f"for data or arguments :func:`{where}` refuses (raised on the driver with its "
        "message)."]) + _entry("ImportError", ["If pyspark is not installed (the ``spark`` "
                                               "extra)."])
    see = [f"{where} : The same metric in one pass over arrays.",
           f"fastmetrics.dask.{row.name} : The same metric over dask inputs.",
           "fastmetrics.spark.accumulate : One job for several metrics of the same columns."]
    example = [">>> import fastmetrics.spark as fms",
               f">>> fms.{row.name}(df, \"{first}\", \"{second}\")  # doctest: +SKIP"]
    return _docstrings.render(
        f":func:`{where}` of Spark DataFrame columns.", extended,
        (("Parameters", params), ("Returns", returns), ("Raises", raises),
         ("Warns", one.section("Warns")), ("See Also", see), ("Examples", example)))


if TYPE_CHECKING:  # the functions generated below, one per mergeable metric of the table
    def __getattr__(name: str) -> Callable[..., Any]: ...
else:
    for _row in _table.METRICS:
        if _row.dask:
            globals()[_row.name] = _function(_row)


# --------------------------------------------------------------------------- evaluate


@dataclass(frozen=True)
class _PlanJob:
    """An evaluation's plan, built on each executor from the same
    :class:`fastmetrics.evaluation.Job` as on the driver."""

    job: _ev.Job

    def new(self) -> _ev.Plan:
        return self.job.plan()

    def columns(self) -> list[str]:
        return list(self.job.needed)

    def feed(self, plan: _ev.Plan, rb: Any) -> None:
        batch = {c: _read(rb, c) for c in self.job.needed}
        plan.update(batch, self.job.y_true, self.job.sample_weight)

    def export(self, plan: _ev.Plan) -> dict[str, Any]:
        return {"n": plan.n,
                "whole": [[repr(k), a.to_dict()] for k, a in plan.whole.items()],
                "grouped": [[repr(k), g.to_dict()] for k, g in plan.grouped.items()],
                # the ranking task's rows (column -> its batches)
                "kept": [[c, v] for c, v in plan.kept.items()]}

    @staticmethod
    def _checked(parts: list[Any], target: Mapping[Any, Any]) -> list[Any]:
        """The exported states of ``target``'s keys, in its order (the same job gives the
        same keys, in the same order, on every executor)."""
        if [k for k, _ in parts] != [repr(k) for k in target]:
            raise RuntimeError("an executor's plan differs from the driver's")
        return [state for _, state in parts]

    def load(self, d: Mapping[str, Any]) -> _ev.Plan:
        """A partition's exported plan back in a plan built alike (its states checked as
        ``from_dict`` checks them)."""
        plan = self.job.plan()
        whole, grouped = self._checked(d["whole"], plan.whole), self._checked(
            d["grouped"], plan.grouped)
        for key, state in zip(list(plan.whole), whole):
            plan.whole[key] = type(plan.whole[key]).from_dict(state)
        for gkey, state in zip(list(plan.grouped), grouped):
            plan.grouped[gkey] = GroupedAccumulator.from_dict(state)
        plan.kept = {str(c): list(v) for c, v in d.get("kept", [])}
        plan.n = int(d["n"])
        return plan


@dataclass(frozen=True)
class _SecondReadJob:
    """An evaluation's second read (the paired sums of the ROC AUC differences, the
    squared influences of R²...): each executor adds its rows to zeroed sums over what
    the driver's first read found."""

    second: _ev.SecondRead
    y_true: str

    def new(self) -> _ev.SecondRead:
        return self.second.zeroed()

    def columns(self) -> list[str]:
        return self.second.columns(self.y_true)

    def feed(self, second: _ev.SecondRead, rb: Any) -> None:
        second.feed({c: _read(rb, c) for c in self.columns()}, self.y_true)

    def export(self, second: _ev.SecondRead) -> dict[str, Any]:
        return {"cross": [[repr(k), v] for k, v in second.cross.items()]}

    def load(self, d: Mapping[str, Any]) -> _ev.SecondRead:
        out = self.second.zeroed()
        if [k for k, _ in d["cross"]] != [repr(k) for k in out.cross]:
            raise RuntimeError("an executor's sums differ from the driver's")
        for (key, _), (_, v) in zip(list(out.cross.items()), d["cross"]):
            out.cross[key] = np.asarray(v, dtype=np.float64)
        return out


def _kind_of(df: Any) -> Callable[[str], str]:
    """A column's numpy dtype kind from the schema, as the in-memory function reads it
    from an Arrow table's ('f', 'i', 'b', else 'O')."""
    from pyspark.sql import types as T

    fields = {f.name: f.dataType for f in df.schema.fields}

    def kind_of(c: str) -> str:
        t = fields[c]
        if isinstance(t, (T.FloatType, T.DoubleType)):
            return "f"
        if isinstance(t, T.IntegralType):
            return "i"
        return "b" if isinstance(t, T.BooleanType) else "O"

    return kind_of


def _evaluate(df: Any, *, y_true: str | Sequence[str],
             pred: str | Sequence[str] | None = None, score: str | None = None,
             prob: str | Sequence[str] | None = None,
             models: Mapping[str, Any] | None = None, task: str | None = None,
             by: Any = None, sample_weight: str | None = None,
             metrics: Sequence[str] | None = None, ci: float | None = None,
             n_boot: int = 1000, baseline: str | None = None,
             gates: Sequence[str] = (), gate_slices: bool = False,
             min_slice_size: int = 1, threshold: float = 0.5,
             random_state: int | None = 0, query: str | None = None) -> _ev.Evaluation:
    """:func:`fastmetrics.evaluate` on a Spark DataFrame, in one job over the data.

    Every metric of a task, for the whole table and every slice, for several models, with
    intervals and gates. The values are those of :func:`fastmetrics.evaluate` on the
    collected data (counts exactly, float sums to about 1e-12 relative; intervals drawn
    from the same merged states): both run one ``fastmetrics.evaluation.Job``. Each
    partition feeds its Arrow batches to the job's plan on an executor (per model and
    state family one accumulator, and one grouped accumulator per slicing); the driver
    merges the plans and derives the rows. Two Spark jobs: a ``distinct`` of the true
    column (the classes, and the task when not given; with ``task="regression"`` one row
    of it; none for the multilabel task) and the pass over the data.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        The predictions table.
    y_true : str or list of str
        The true column; the multilabel task's 0/1 columns, one per label.
    pred, score : str, optional
        One model's columns: predicted labels (multilabel: a list of 0/1 columns), a
        score (binary: the positive class's probability; regression: the estimate).
    prob : str or list of str, optional
        Probability columns (a list, or a prefix naming every column that starts with it).
    models : dict, optional
        Several models: name -> a score column, a list of probability columns, or a dict
        with ``pred``/``score``/``prob``.
    task : {"binary", "multiclass", "multilabel", "regression", "ranking"}, optional
        Inferred from the distinct true values and the models' columns when omitted
        ("ranking" when ``query`` is given, "multilabel" when ``y_true`` is a list).
    by : str or list, optional
        Slicings: a column, or a list whose items are a column or a list of columns.
    sample_weight : str, optional
        A weight column.
    metrics : list of str, optional
        A subset of the task's metrics (:data:`fastmetrics.evaluation.TASK_METRICS`).
    ci : float, optional
        Confidence level of the intervals, from the merged states.
    n_boot : int, default=1000
        Bootstrap resamples.
    baseline : str, optional
        The model the others are compared with.
    gates : list of str, optional
        Pass/fail conditions (:class:`fastmetrics.evaluation.Gate`).
    gate_slices : bool, default=False
        Check the gates on every slice of at least ``min_slice_size`` rows too.
    min_slice_size : int, default=1
        Slices with fewer rows get no values (listed in ``too_small``).
    threshold : float, default=0.5
        Binary task without a prediction column: predicted positive when
        ``score >= threshold``.
    random_state : int or None, default=0
        Seeds the bootstrap.
    query : str, optional
        The ranking task's query column (:func:`fastmetrics.evaluate`): each partition's
        (query, relevance, score, slice) rows travel to the driver, which ranks every
        query's documents at once (the task's rows are kept, as in memory).

    Returns
    -------
    fastmetrics.evaluation.Evaluation
        The rows, gates and warnings, as :func:`fastmetrics.evaluate` gives them.

    Raises
    ------
    ValueError
        As :func:`fastmetrics.evaluate`: a missing column (before any job), NaN or missing
        true labels, a non-numeric score column (both before the pass over the data),
        probabilities out of [0, 1], an unknown metric, a malformed gate, an empty table.
    ImportError
        If pyspark is not installed (the ``spark`` extra).

    See Also
    --------
    fastmetrics.evaluate : The same over an in-memory table or a file.

    Examples
    --------
    >>> import fastmetrics.spark as fms
    >>> ev = fms.evaluate(df, y_true="y", score="p", by="country")  # doctest: +SKIP
    >>> ev.passed  # doctest: +SKIP
    True
    """
    start = time.perf_counter()
    F = _pyspark()
    job = _ev.Job(list(df.columns), y_true=y_true, pred=pred, score=score, prob=prob,
                  models=models, task=task, by=by, sample_weight=sample_weight,
                  metrics=metrics, ci=ci, n_boot=n_boot, baseline=baseline, gates=gates,
                  gate_slices=gate_slices, min_slice_size=min_slice_size,
                  threshold=threshold, random_state=random_state, query=query)
    _check_schema(df, {"column": tuple(job.needed)}, frozenset())
    kind_of = _kind_of(df)

    # the classes and the task from the distinct true values (what the in-memory function
    # reads from the whole column gives the same answer on its distinct values); a
    # regression needs no classes: one row tells the column is not empty
    # (the multilabel task reads none: each partition's 0/1 columns are checked as read)
    values: np.ndarray | None = None
    if job.label_columns is None:
        y = df.select(_quoted(F, cast(str, job.y_true)))
        y = (y.limit(1) if task == "regression" else y.distinct().limit(_MAX_CLASSES + 1))
        values = np.asarray(_to_arrow(y).column(0).to_numpy(zero_copy_only=False))
    job.resolve(values, kind_of)
    # after resolve: a model's one column of labels of the true column's kind is read as
    # its predictions, not as a score
    for c in job.score_columns:
        if kind_of(c) == "O":
            raise ValueError(f"the score column {c!r} is not numeric")
    if values is not None and job.task not in ("regression", "ranking") \
            and values.shape[0] > _MAX_CLASSES:
        raise ValueError(f"the true column {y_true!r} has more than {_MAX_CLASSES} distinct "
                         "values: pass task='regression'")

    spec = _PlanJob(job)
    plans = [spec.load(_loads(b)) for b in _run_job(df, spec)]
    plan = _ev.Plan.merge_all(plans) if plans else job.plan()
    # the groups in sorted key order, as one in-memory pass lists them
    plan.grouped = {k: _sorted_groups(g) for k, g in plan.grouped.items()}
    # the paired ROC AUC differences and R²'s intervals read some columns once more (as
    # in memory)
    second = plan.second_read(job.baseline, job.ci, sample_weight)
    if second is not None:
        read = _SecondReadJob(second, cast(str, job.y_true))
        plan.second = second.summed([read.load(_loads(b)) for b in _run_job(df, read)])
    return job.finish(plan, start)


# accumulate and evaluate are the Dask and in-memory faces' names on this engine (their
# bodies here share nothing with those): bound by assignment, so that the package's check
# that no public function is written twice (copied bodies) does not read them as copies
accumulate = _accumulate
accumulate.__name__ = accumulate.__qualname__ = "accumulate"
evaluate = _evaluate
evaluate.__name__ = evaluate.__qualname__ = "evaluate"
