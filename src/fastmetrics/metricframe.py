"""Metrics by group with fairlearn's ``MetricFrame`` interface, computed from grouped states.

:class:`MetricFrame` answers what ``fairlearn.metrics.MetricFrame`` (fairlearn 0.15) answers, with
the same pandas objects (index names and dtypes, shapes), the same errors and the same
bootstrap intervals for the same ``random_state``. What differs is how the values are found:

1. every sensitive and control feature becomes one int64 code per row and a table of its
   levels (a hash pass, no sorting of the rows);
2. the combinations of features that occur become one group code per row;
3. the metrics recognised by :func:`fastmetrics._slicing.grouped_values` are computed for all
   groups at once from those codes (one pass per state family, no slicing of the data); any
   other callable is called on each group's rows, as fairlearn does, so any metric works;
4. the per-group values become the pandas objects, built as fairlearn's ``groupby().apply()``
   would build them, so the dtypes agree.

Bootstrap samples (``n_boot``) are drawn row by row exactly as fairlearn draws them (one seed
per sample, pandas' sampling with replacement) and go through the same codes -> values step.

Beyond fairlearn: ``min_group_size`` (groups with fewer rows get NaN and are listed in
:attr:`MetricFrame.small_groups`) and ``n_threads``. pandas is needed (it is an optional
dependency of fastmetrics): it is imported when a MetricFrame is made.
"""

from __future__ import annotations

import inspect
import math
import numbers
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ._inputs import EMPTY, group_keys, inconsistent_lengths
from ._slicing import grouped_values, recognise
from .exceptions import invalid_parameter

__all__ = ["MetricFrame"]

# Messages users (and fairlearn's tests) match on: fairlearn's wording.
_DICT_FEATURES_FAILED = (
    "DataFrame.from_dict() failed on sensitive features. Please ensure each array is strictly "
    "1-D. The __cause__ field of this exception may contain further information."
)
_LIST_NOT_SCALARS = "Feature lists must be of scalar types"
_COLUMN_NAME_NOT_STR = "DataFrame column names must be strings. Name '{0}' is of type {1}"
_SERIES_NAME_NOT_STR = "Series name must be a string. Value '{0}' was of type {1}"
_DUPLICATE_NAME = "Detected duplicate feature name: '{0}'"
_TOO_MANY_DIMS = "Feature array has too many dimensions"
_MISSING_VALUES = ("Feature '{0}' contains missing values. Remove or replace them before "
                   "constructing a MetricFrame")
_PARAMS_NOT_DICT = "Sample parameters must be a dictionary"
_PARAMS_KEYS = "Keys in 'sample_params' do not match those in 'metric'"
_METRIC_NONE = "Found 'None' instead of metric function"
_METRIC_NOT_CALLABLE = "Object passed as metric function not callable"
_NO_NAME = "Supplied 'func' had no __name__ attribute"
_METHODS = ("between_groups", "to_overall")
_BAD_METHOD = "Unrecognised comparison method: {0}"
_ERRORS = ["raise", "coerce"]
_BAD_ERRORS = f"Invalid error value specified. Valid values are {_ERRORS}"
_NON_SCALAR = ("Metric frame contains non-scalar cells. Please remove non-scalar columns from "
               "your metric frame or use parameter errors='coerce'.")
_NEED_BOTH = "Must specify both n_boot and ci_quantiles"
_BAD_N_BOOT = "Must have n_boot be a positive integer"
_BAD_QUANTILES = "Must have all ci_quantiles be floats in (0, 1)"
_NO_BOOTSTRAP = ("Could not compute confidence intervals: Bootstrapping parameters n_boot and "
                 "ci_quantiles were not specified in the MetricFrame constructor.")
_QUANTILE_FAILED = ("Error calling numpy.quantiles. Most likely due to a metric returning a "
                    "non-scalar result")

#: the seeds of the bootstrap samples are drawn below this bound (as fairlearn draws them)
_SEED_BOUND = int(np.iinfo(np.uint32).max)
#: value types that make a plain float64 frame without asking pandas to infer anything
_PLAIN_FLOATS = (float, np.float64)


def _pandas() -> Any:
    """pandas, or an ImportError saying how to get it (it is an optional dependency)."""
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - pandas is installed where tests run
        raise ImportError(
            "fastmetrics.MetricFrame returns pandas objects and needs pandas: "
            "pip install pandas"
        ) from exc
    return pandas


def _n_rows(x: Any) -> int:
    """The number of samples of an input, as scikit-learn's length check counts them."""
    shape = getattr(x, "shape", None)
    if shape is not None and not callable(shape):
        if len(shape) == 0:
            raise TypeError(f"Singleton array {x!r} cannot be considered a valid collection.")
        return int(shape[0])
    try:
        return len(x)
    except TypeError:
        raise TypeError(f"Expected sequence or array-like, got {type(x)}") from None


def _as_rows(y: Any) -> np.ndarray:
    """``y`` as an ndarray without unit dimensions (one element stays 1-D): the arrays the
    metrics are called with."""
    a = np.asarray(y)
    if a.size > 1:
        return np.squeeze(a)
    if a.size == 1:
        return a.reshape(1)
    return a


class _GroupFeature:
    """One sensitive or control feature: its name and its values (an ndarray, or the pandas
    Series it came as, whose dtype says how to read it)."""

    __slots__ = ("name_", "values")

    def __init__(self, name: str, values: Any) -> None:
        self.name_ = name
        self.values = values

    def encode(self) -> tuple[np.ndarray, list[Any]]:
        """One int64 code per row, and the levels in the order pandas sorts them.

        The levels are plain Python scalars, as a list of the values would hold them (a
        categorical's unused categories are not levels, and its levels sort by value, not
        by category order: a grouping by these values would see the same).
        """
        pd = _pandas()
        v = self.values
        if isinstance(v, pd.Series) and isinstance(v.dtype, pd.CategoricalDtype):
            raw = np.asarray(v.cat.codes, dtype=np.int64)
            categories = v.cat.categories
            used = np.flatnonzero(np.bincount(raw, minlength=len(categories)))
            table = categories.take(used)
            order = np.asarray(table.argsort())
            rank = np.zeros(len(categories), dtype=np.int64)
            rank[used[order]] = np.arange(len(used), dtype=np.int64)
            return rank[raw], list(table.take(order).to_list())
        if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind in "iubU":
            # numbers and fixed-width text: fastmetrics' one hash pass (or none, for
            # integers filling a range) gives pandas' sorted levels and codes
            keys = group_keys(v, name=str(self.name_))
            return (np.asarray(keys.codes, dtype=np.int64),
                    keys.keys[0].tolist())
        codes, uniques = pd.factorize(v, sort=True)
        levels = uniques.tolist() if isinstance(uniques, np.ndarray) else uniques.to_list()
        return np.asarray(codes, dtype=np.int64), list(levels)


def _check_feature(feature: _GroupFeature) -> _GroupFeature:
    pd = _pandas()
    if bool(np.any(pd.isna(feature.values))):
        raise ValueError(_MISSING_VALUES.format(feature.name_))
    return feature


def _check_length(values: Any, n_rows: int, name: str) -> None:
    n = _n_rows(values)
    if n != n_rows:
        raise inconsistent_lengths(**{str(name): n, "y_true": n_rows})


def _series_feature(base_name: str, position: int, series: Any, n_rows: int) -> _GroupFeature:
    name = f"{base_name}{position}"
    _check_length(series, n_rows, name if series.name is None else series.name)
    if series.name is not None:
        if not isinstance(series.name, str):
            raise ValueError(_SERIES_NAME_NOT_STR.format(series.name, type(series.name)))
        name = series.name
    return _check_feature(_GroupFeature(name, series))


def _array_feature(base_name: str, position: int, values: np.ndarray,
                   n_rows: int) -> _GroupFeature:
    name = f"{base_name}{position}"
    _check_length(values, n_rows, name)
    return _check_feature(_GroupFeature(name, values))


def _frame_features(base_name: str, frame: Any, n_rows: int) -> list[_GroupFeature]:
    out = []
    for i in range(frame.shape[1]):
        # the label as the frame holds it (np.int64 for an int column label, which the
        # message shows), not as iteration would give it
        label = frame.columns[i]
        if not isinstance(label, str):
            raise ValueError(_COLUMN_NAME_NOT_STR.format(label, type(label)))
        out.append(_series_feature(base_name, i, frame.iloc[:, i], n_rows))
    return out


def _split_features(base_name: str, features: Any, n_rows: int) -> list[_GroupFeature]:
    """The features of any form fairlearn accepts, one :class:`_GroupFeature` per column,
    named after their Series/column/key or ``base_name`` and their position."""
    pd = _pandas()
    if isinstance(features, pd.Series):
        return [_series_feature(base_name, 0, features, n_rows)]
    if isinstance(features, pd.DataFrame):
        return _frame_features(base_name, features, n_rows)
    if isinstance(features, list):
        if not all(pd.api.types.is_scalar(f) for f in features):
            raise ValueError(_LIST_NOT_SCALARS)
        # object dtype: a list mixing numbers and strings keeps its numbers, and a missing
        # value stays missing instead of becoming the string 'nan'
        values = np.atleast_1d(np.squeeze(np.asarray(features, dtype=object)))
        return [_array_feature(base_name, 0, values, n_rows)]
    if isinstance(features, dict):
        try:
            frame = pd.DataFrame.from_dict(features)
        except ValueError as exc:
            raise ValueError(_DICT_FEATURES_FAILED) from exc
        return _frame_features(base_name, frame, n_rows)
    if isinstance(features, np.ndarray) and features.dtype != object:
        # a typed array keeps its dtype: its levels are read as Python scalars, which is what
        # an object copy of it would hold, without making that copy
        values = np.squeeze(features)
    else:
        values = np.squeeze(np.asarray(features, dtype=object))
    if values.ndim == 1:
        return [_array_feature(base_name, 0, values, n_rows)]
    if values.ndim == 2:
        return [_array_feature(base_name, i, values[:, i], n_rows)
                for i in range(values.shape[1])]
    raise ValueError(_TOO_MANY_DIMS)


class _Grouping:
    """The groups of a tuple of features: a group code per row, over the combinations of
    levels that occur, in the order pandas' ``groupby`` sorts them."""

    def __init__(self, features: list[_GroupFeature]) -> None:
        self.names = [f.name_ for f in features]
        encoded = [f.encode() for f in features]
        self.key_codes = [c for c, _ in encoded]
        self.levels = [lv for _, lv in encoded]
        self.sizes = [len(lv) for lv in self.levels]
        self.codes, self.combos = self._group_codes()
        self.n_groups = len(self.combos)
        self._labels: Any = None
        self._level_arrays: list[np.ndarray] | None = None
        self._counts: np.ndarray | None = None

    def counts(self) -> np.ndarray:
        """Each group's rows (counted once)."""
        if self._counts is None:
            self._counts = np.bincount(self.codes, minlength=self.n_groups)
        return self._counts

    def _group_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """(group code per row, (n_groups, n_keys) level codes of each group)."""
        if len(self.key_codes) == 1:
            return self.key_codes[0], np.arange(self.sizes[0], dtype=np.int64)[:, None]
        n = len(self.key_codes[0])
        total = math.prod(self.sizes)
        if total >= 2**62:
            # too many combinations for one int64: sort the rows of codes instead
            stacked = np.stack(self.key_codes, axis=1)
            combos, inverse = np.unique(stacked, axis=0, return_inverse=True)
            return inverse.reshape(-1).astype(np.int64), combos.astype(np.int64)
        combined = np.zeros(n, dtype=np.int64)
        for codes, size in zip(self.key_codes, self.sizes):
            combined *= size
            combined += codes
        if total <= max(4 * n, 1 << 20):
            # a count per combination: no sort of the rows
            seen = np.bincount(combined, minlength=total) > 0
            ids = np.flatnonzero(seen)
            lookup = np.cumsum(seen, dtype=np.int64) - 1
            codes_out = lookup[combined]
        else:
            ids, inverse = np.unique(combined, return_inverse=True)
            codes_out = inverse.reshape(-1).astype(np.int64)
        combos = np.stack(np.unravel_index(ids, self.sizes), axis=1).astype(np.int64)
        return codes_out, combos

    def level_arrays(self) -> list[np.ndarray]:
        """Each feature's levels as the ndarray ``np.unique`` gives of a pandas column of the
        feature (a str column gives an object array)."""
        if self._level_arrays is None:
            pd = _pandas()
            self._level_arrays = [np.asarray(pd.Series(lv)) for lv in self.levels]
        return self._level_arrays

    def labels(self) -> Any:
        """The index of all groups: the sorted levels for one feature, the product of the
        levels for more (what fairlearn reindexes its grouped results to)."""
        if self._labels is None:
            pd = _pandas()
            if len(self.names) == 1:
                self._labels = pd.Index(pd.Series(self.levels[0]), name=self.names[0])
            else:
                self._labels = pd.MultiIndex.from_product(self.level_arrays(), names=self.names)
        return self._labels

    def group_labels(self, groups: np.ndarray) -> Any:
        """The index labels of the given groups (positions in the group table)."""
        if len(self.names) == 1:
            return self.labels().take(self.combos[groups, 0])
        flat = np.ravel_multi_index(tuple(self.combos[groups].T), self.sizes)
        return self.labels().take(flat)

    def frame(self, names: list[Any], values: Mapping[Any, list[Any]], present: np.ndarray,
              rows: np.ndarray | None) -> Any:
        """The DataFrame of groupby-apply over these features: one row per group present
        (for one feature), or the product of the levels present among ``rows`` (for more),
        NaN where a combination has no rows."""
        pd = _pandas()
        groups = np.flatnonzero(present)
        table = [[values[name][g] for name in names] for g in groups]
        frame = _rows_frame(names, table, self.group_labels(groups))
        if len(self.names) == 1:
            return frame
        if rows is None:
            target = self.labels()
        else:
            arrays = []
            for codes, size, levels in zip(self.key_codes, self.sizes, self.level_arrays()):
                seen = np.bincount(codes[rows], minlength=size) > 0
                arrays.append(levels[seen])
            target = pd.MultiIndex.from_product(arrays, names=self.names)
        return frame.reindex(index=target)


def _row_series(names: list[Any], row: list[Any]) -> Any:
    pd = _pandas()
    if not names:
        return pd.Series(dtype=float)
    return pd.Series(dict(zip(names, row)))


def _rows_frame(names: list[Any], table: list[list[Any]], index: Any) -> Any:
    """The frame pandas' groupby-apply makes of one Series per group: rows stacked as one
    ndarray, and column dtypes inferred only where that ndarray is of objects."""
    pd = _pandas()
    if names and all(type(v) in _PLAIN_FLOATS for row in table for v in row):
        # the common case, without a Series per group: what stacking them would give
        data = np.array(table, dtype=np.float64).reshape(len(table), len(names))
        columns = _row_series(names, [0.0] * len(names)).index.copy()
        return pd.DataFrame(data, index=index, columns=columns)
    series = [_row_series(names, row) for row in table]
    if not series:
        columns = _row_series(names, [0.0] * len(names)).index.copy()
        return pd.DataFrame(np.empty((0, len(names))), index=index, columns=columns)
    stacked: Any = np.vstack([np.asarray(s) for s in series])
    if stacked.dtype == object:
        stacked = stacked.tolist()
    return pd.DataFrame(stacked, index=index, columns=series[0].index.copy())


def _scalar_or_nan(value: Any) -> Any:
    return value if np.isscalar(value) else np.nan


def _below_one(value: Any) -> Any:
    return 1 / value if value > 1 else value


def _scalars_only(frame: Any) -> Any:
    """``frame`` with every cell that is not a scalar (an array, None) set to NaN."""
    if all(d == np.float64 for d in frame.dtypes):
        return frame.copy()  # every cell of a float64 frame is a scalar already
    return frame.apply(lambda column: column.apply(_scalar_or_nan))


class _Disaggregated:
    """The metrics overall (per control group) and by group, as pandas objects that do not
    depend on whether one callable or a dict of them was given; the aggregates over the
    sensitive groups are computed from them."""

    def __init__(self, overall: Any, by_group: Any) -> None:
        self.overall = overall
        self.by_group = by_group

    def extreme(self, how: str, controls: list[str] | None, errors: str) -> Any:
        if errors not in _ERRORS:
            raise ValueError(_BAD_ERRORS)
        frame = self.by_group if errors == "raise" else _scalars_only(self.by_group)
        try:
            if not controls:
                return frame.agg(how, axis=0)
            return frame.groupby(level=controls).agg(how)
        except ValueError as exc:
            if errors == "raise":
                raise ValueError(_NON_SCALAR) from exc
            raise  # with every cell a scalar, the error is about the values themselves

    def difference(self, controls: list[str] | None, method: str, errors: str) -> Any:
        if errors not in _ERRORS:
            raise ValueError(_BAD_ERRORS)
        if method == "between_groups":
            reference = self.extreme("min", controls, errors)
        elif method == "to_overall":
            reference = self.overall
        else:
            raise ValueError(_BAD_METHOD.format(method))
        gaps = (_scalars_only(self.by_group) - reference).abs()
        return gaps.max() if controls is None else gaps.groupby(level=controls).max()

    def ratio(self, controls: list[str] | None, method: str, errors: str) -> Any:
        if errors not in _ERRORS:
            raise ValueError(_BAD_ERRORS)
        if method == "between_groups":
            return (self.extreme("min", controls, errors)
                    / self.extreme("max", controls, errors))
        if method != "to_overall":
            raise ValueError(_BAD_METHOD.format(method))
        if controls is not None:
            # with control features, each (metric, control group) column is divided by its
            # own overall value
            ratios = (self.by_group.unstack(level=controls)
                      / self.overall.unstack(level=controls))
        else:
            ratios = self.by_group / self.overall
        # not coerced to scalars first (fairlearn's ratio to overall is not either): an
        # array-valued metric raises here, whatever ``errors`` says
        ratios = ratios.apply(lambda column: column.transform(_below_one))
        return ratios.min().unstack(0) if controls else ratios.min()


def _none_to_nan(target: Any) -> Any:
    return target.where(target.notna(), np.nan)


def _quantiles(quantiles: list[float], samples: list[Any]) -> list[Any]:
    """The quantiles over bootstrap samples of one result: per element of a Series (all
    samples have the same index), or per cell of DataFrames aligned on the union of their
    rows (a group missing from a sample is NaN there and skipped)."""
    pd = _pandas()
    first = samples[0]
    if isinstance(first, pd.Series):
        try:
            # a plain quantile: a sample's NaN (a metric undefined there) makes it NaN
            values = np.quantile(samples, q=quantiles, axis=0)
        except ValueError as exc:
            raise ValueError(_QUANTILE_FAILED) from exc
        return [pd.Series(name=first.name, index=first.index, data=values[i, :])
                for i in range(values.shape[0])]
    index = first.index
    for sample in samples[1:]:
        index = index.union(sample.index)
    aligned = [sample.reindex(index) for sample in samples]
    try:
        values = np.nanquantile(aligned, q=quantiles, axis=0)
    except ValueError as exc:
        raise ValueError(_QUANTILE_FAILED) from exc
    return [pd.DataFrame(columns=first.columns, index=index, data=values[i, :, :])
            for i in range(values.shape[0])]


def _bootstrap_seeds(n_boot: int, random_state: Any) -> np.ndarray:
    """One seed per bootstrap sample, drawn as fairlearn draws them (so that a given
    ``random_state`` gives fairlearn's samples)."""
    if random_state is None:
        return np.random.default_rng().integers(0, _SEED_BOUND, size=n_boot, dtype=np.uint32)
    if isinstance(random_state, np.random.RandomState):
        return random_state.randint(low=0, high=_SEED_BOUND, size=n_boot, dtype=np.uint32)
    if isinstance(random_state, numbers.Integral):
        rng = np.random.default_rng(seed=int(random_state))
        return rng.integers(0, _SEED_BOUND, size=n_boot, dtype=np.uint32)
    raise ValueError(f"Unsupported random_state: {random_state}")


def _takes_threads() -> bool:
    """Whether the grouped kernels' entry point takes ``n_threads`` (asked each time: a
    microsecond beside a grouped pass, and never stale)."""
    return "n_threads" in inspect.signature(grouped_values).parameters


class MetricFrame:
    """Metrics overall and by group, with fairlearn's ``MetricFrame`` interface.

    A drop-in for ``fairlearn.metrics.MetricFrame`` (fairlearn 0.15): the same arguments,
    attributes, pandas results and errors. Metrics that fastmetrics recognises are computed
    for all groups in one pass over the data; any other callable
    ``f(y_true, y_pred, **sample_params)`` is called on each group's rows.

    Parameters
    ----------
    metrics : callable or dict of str to callable
        The metric, or metrics by name. With one callable the results are scalars and
        Series; with a dict (even of one entry) they are Series and DataFrames with a
        column per metric. Other arguments of a metric go through
        ``functools.partial``.
    y_true, y_pred : array-like
        The true and predicted values (lists, ndarrays, Series, DataFrames; unit dimensions
        are squeezed).
    sensitive_features : array-like, Series, DataFrame or dict of 1-D arrays
        The features whose groups are compared. Names come from the Series, the columns or
        the keys (they must be strings), else ``sensitive_feature_0``, ... Missing values
        raise ``ValueError``.
    control_features : same as sensitive_features, optional
        Features the comparisons are made within: the results get one row per control group
        (names default to ``control_feature_0``, ...).
    sample_params : dict, optional
        Per-sample arrays passed to the metric as keyword arguments and split with the data:
        ``{param: array}`` for one callable, ``{metric name: {param: array}}`` for a dict.
    n_boot : int, optional
        Bootstrap samples for confidence intervals (with ``ci_quantiles``).
    ci_quantiles : list of float, optional
        Quantiles in (0, 1) of the bootstrap distribution the ``*_ci`` results give.
    random_state : int, numpy.random.RandomState or None, optional
        Seeds the bootstrap samples (fairlearn's samples for the same value).
    min_group_size : int, optional
        Groups (rows of :attr:`by_group`) with fewer rows than this get NaN instead of a
        value (their metrics are not computed) and are listed in ``small_groups``; the
        aggregates skip them. Applies to the bootstrap samples' groups too.
    n_threads : int, optional
        Threads of the grouped passes (None: what OpenMP allows); the values do not depend
        on it.

    Attributes
    ----------
    min_group_size : int or None
        As given.
    small_groups : list
        The labels of :attr:`by_group` rows below ``min_group_size`` (tuples with several
        features); empty without ``min_group_size``.
    n_threads : int or None
        As given.

    Raises
    ------
    ValueError
        Inputs of different lengths, features with missing values, non-string or
        duplicate feature names, bad sample parameters, bad bootstrap parameters,
        ``min_group_size`` below 1, ``n_threads`` below 1.
    ImportError
        pandas is not installed.

    See Also
    --------
    fastmetrics.group_metrics : One classification metric per group, without pandas.

    Examples
    --------
    >>> from fastmetrics import MetricFrame, accuracy_score, recall_score
    >>> y_true = [1, 1, 1, 1, 1, 0, 0, 1, 1, 0]
    >>> y_pred = [0, 1, 1, 1, 1, 0, 0, 0, 1, 1]
    >>> sex = ["Female"] * 5 + ["Male"] * 5
    >>> mf = MetricFrame(metrics={"accuracy": accuracy_score, "recall": recall_score},
    ...                  y_true=y_true, y_pred=y_pred, sensitive_features=sex)
    >>> mf.by_group  # doctest: +NORMALIZE_WHITESPACE
                         accuracy  recall
    sensitive_feature_0
    Female                    0.8     0.8
    Male                      0.6     0.5
    >>> mf.difference()
    accuracy    0.2
    recall      0.3
    dtype: float64
    """

    def __init__(self, *, metrics: Callable[..., Any] | dict[str, Callable[..., Any]],
                 y_true: Any, y_pred: Any, sensitive_features: Any,
                 control_features: Any = None,
                 sample_params: dict[str, Any] | dict[str, dict[str, Any]] | None = None,
                 n_boot: int | None = None, ci_quantiles: list[float] | None = None,
                 random_state: int | np.random.RandomState | None = None,
                 min_group_size: int | None = None, n_threads: int | None = None) -> None:
        _pandas()
        if min_group_size is not None:
            if isinstance(min_group_size, bool) or not isinstance(min_group_size,
                                                                  numbers.Integral):
                raise invalid_parameter(
                    f"min_group_size must be an int >= 1 or None, got {min_group_size!r}")
            if min_group_size < 1:
                raise ValueError(f"min_group_size must be >= 1, got {min_group_size}")
        if n_threads is not None:
            if isinstance(n_threads, bool) or not isinstance(n_threads, numbers.Integral):
                raise invalid_parameter(
                    f"n_threads must be an int >= 1 or None, got {n_threads!r}")
            if n_threads < 1:
                raise ValueError(f"n_threads must be >= 1, got {n_threads}")
        self.min_group_size = None if min_group_size is None else int(min_group_size)
        self.n_threads = None if n_threads is None else int(n_threads)

        n_true, n_pred = _n_rows(y_true), _n_rows(y_pred)
        if n_true != n_pred:
            raise inconsistent_lengths(y_true=n_true, y_pred=n_pred)
        self._y_true = _as_rows(y_true)
        self._y_pred = _as_rows(y_pred)
        n = len(self._y_true) if self._y_true.ndim else 0
        self._n = n
        self._read_metrics(metrics, sample_params, n)

        sensitive = self._process_features("sensitive_feature_", sensitive_features,
                                           self._y_true)
        self._sf_names = [f.name_ for f in sensitive]
        controls: list[_GroupFeature] = []
        self._cf_names: list[str] | None = None
        if control_features is not None:
            controls = self._process_features("control_feature_", control_features,
                                              self._y_true)
            self._cf_names = [f.name_ for f in controls]
        seen: set[str] = set()
        for name in self._sf_names + (self._cf_names or []):
            if name in seen:
                raise ValueError(_DUPLICATE_NAME.format(name))
            seen.add(name)

        if n == 0:
            # no groups to compare (fairlearn fails here too, stacking no rows)
            raise ValueError(EMPTY)
        # the by-group rows are keyed by the control features first, as fairlearn's are
        self._groups = _Grouping(controls + sensitive)
        self._control_groups = _Grouping(controls) if controls else None
        self._cache: dict[tuple[str, ...], tuple[bool, Any]] = {}
        self.small_groups: list[Any] = []
        self._result = self._disaggregate(None, record_small=True)

        self._ci_quantiles = ci_quantiles
        self._n_boot = n_boot
        wants_ci = ci_quantiles is not None and len(ci_quantiles) > 0
        if n_boot is not None and wants_ci:
            assert ci_quantiles is not None
            if not isinstance(n_boot, numbers.Integral) or n_boot < 1:
                raise ValueError(_BAD_N_BOOT)
            for q in ci_quantiles:
                if not isinstance(q, float) or q <= 0 or q >= 1:
                    raise ValueError(_BAD_QUANTILES)
            self._bootstrap(int(n_boot), random_state, list(ci_quantiles))
        elif (n_boot is not None) != wants_ci:
            raise ValueError(_NEED_BOTH)

    # ------------------------------------------------------------------ inputs

    def _read_metrics(self, metrics: Any, sample_params: Any, n: int) -> None:
        if sample_params is not None and not isinstance(sample_params, dict):
            raise ValueError(_PARAMS_NOT_DICT)
        sample_params = sample_params or {}
        if not isinstance(metrics, dict):
            self._user_supplied_callable = True
            name = self._metric_name(metrics)
            named = {name: metrics}
            per_metric = {name: sample_params}
        else:
            self._user_supplied_callable = False
            if not set(sample_params).issubset(set(metrics)):
                raise ValueError(_PARAMS_KEYS)
            named = {}
            per_metric = {}
            for name, func in metrics.items():
                self._check_callable(func)
                named[name] = func
                per_metric[name] = sample_params.get(name, {})
        self._metrics: dict[Any, Callable[..., Any]] = named
        self._names = list(named)
        self._params: dict[Any, dict[str, np.ndarray]] = {}
        for name, params in per_metric.items():
            if not isinstance(params, dict):
                raise ValueError(_PARAMS_NOT_DICT)
            arrays = {}
            for key, value in params.items():
                if value is None:
                    continue
                arr = np.asarray(value)
                if (arr.shape[0] if arr.ndim else 1) != n:
                    raise inconsistent_lengths(**{key: arr.shape[0] if arr.ndim else 1,
                                                  "y_true": n})
                arrays[key] = arr
            self._params[name] = arrays

    @staticmethod
    def _check_callable(func: Any) -> None:
        if func is None:
            raise ValueError(_METRIC_NONE)
        if not callable(func):
            raise ValueError(_METRIC_NOT_CALLABLE)

    def _metric_name(self, func: Any) -> str:
        self._check_callable(func)
        name = getattr(func, "__name__", None)
        if name is None:
            warnings.warn(_NO_NAME, stacklevel=4)
            return "metric"
        return str(name)

    def _process_features(self, base_name: str, features: Any,
                          sample_array: Any) -> list[_GroupFeature]:
        """The features, one object with a ``name_`` per column, checked against the
        length of ``sample_array``."""
        return _split_features(base_name, features, _n_rows(sample_array))

    def _none_to_nan(self, target: Any) -> Any:
        """``target`` with None (any missing value) as NaN."""
        return _none_to_nan(target)

    # ------------------------------------------------------------------ values

    def _values(self, codes: np.ndarray, n_groups: int, rows: np.ndarray | None,
                totals: dict[str, Any] | None = None,
                sizes: np.ndarray | None = None) -> dict[Any, list[Any]]:
        """Each metric's value on each group, group g's at index g: the rows are ``rows`` of
        the data (all rows when None), ``codes`` their groups (``sizes``: each group's rows,
        when counted already). ``totals``, when given, gets the values on all these rows of
        the metrics answered from grouped states."""
        y_true = self._y_true if rows is None else self._y_true[rows]
        y_pred = self._y_pred if rows is None else self._y_pred[rows]
        params = {name: (p if rows is None else {k: v[rows] for k, v in p.items()})
                  for name, p in self._params.items()}
        extra = {"n_threads": self.n_threads} if _takes_threads() else {}
        answered = grouped_values(self._metrics, y_true, y_pred, codes, n_groups, params,
                                  totals=totals, sizes=sizes, **extra)
        out: dict[Any, list[Any]] = {}
        todo = []
        for name in self._names:
            got = answered.get(name)
            if got is None:
                todo.append(name)
                out[name] = [None] * n_groups
            else:
                out[name] = list(got)
        if not todo:
            return out
        if n_groups == 1:
            selections: list[Any] = [slice(None)]
        else:
            # each group's rows in their order in the data, as a groupby hands them over
            order = np.argsort(codes, kind="stable")
            bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n_groups))))
            selections = [order[bounds[g]:bounds[g + 1]] for g in range(n_groups)]
        for g, sel in enumerate(selections):
            for name in todo:
                kwargs = {k: v[sel] for k, v in params[name].items()}
                out[name][g] = self._metrics[name](y_true[sel], y_pred[sel], **kwargs)
        return out

    def _all_recognised(self) -> bool:
        """Whether every metric is a function the grouped states may answer (of
        fastmetrics or scikit-learn, with no sample parameter but weights)."""
        return all(recognise(fn) is not None
                   and not set(self._params.get(name) or {}) - {"sample_weight"}
                   for name, fn in self._metrics.items())

    def _grouped(self, grouping: _Grouping, rows: np.ndarray | None, min_size: int | None,
                 totals: dict[str, Any] | None = None
                 ) -> tuple[dict[Any, list[Any]], np.ndarray, np.ndarray]:
        """(values per group of the whole table, groups present among the rows, groups
        present but below ``min_size``). Absent and small groups are not computed.
        ``totals`` gets the values on all the rows that the groups' states give, when every
        group is computed."""
        codes = grouping.codes if rows is None else grouping.codes[rows]
        counts = grouping.counts() if rows is None else \
            np.bincount(codes, minlength=grouping.n_groups)
        present = counts > 0
        computed = present if min_size is None else counts >= min_size
        if computed.all():
            return (self._values(codes, grouping.n_groups, rows, totals, counts), present,
                    ~computed)
        keep = computed[codes]
        lookup = np.cumsum(computed, dtype=np.int64) - 1
        sub_rows = np.flatnonzero(keep) if rows is None else rows[keep]
        n_computed = int(computed.sum())
        sub = (self._values(lookup[codes[keep]], n_computed, sub_rows) if n_computed
               else {name: [] for name in self._names})
        where = np.flatnonzero(computed)
        full: dict[Any, list[Any]] = {}
        for name, got in sub.items():
            column: list[Any] = [math.nan] * grouping.n_groups
            for j, g in enumerate(where):
                column[g] = got[j]
            full[name] = column
        return full, present, present & ~computed

    def _disaggregate(self, rows: np.ndarray | None, record_small: bool = False) -> _Disaggregated:
        """The overall and by-group frames of the data (rows None) or of a bootstrap sample
        (its row indices)."""
        if self._control_groups is None and self._all_recognised():
            # the groups' states merged give the metrics on all the rows (no second pass);
            # only functions of fastmetrics or scikit-learn are called, so the order of
            # the calls (fairlearn's: all the rows first) is not seen
            totals: dict[str, Any] = {}
            got, present, small = self._grouped(self._groups, rows, self.min_group_size,
                                                totals)
            by_group = self._groups.frame(self._names, got, present, rows)
            missing = [name for name in self._names if name not in totals]
            if missing:
                # what the groups' states did not answer: computed on all the rows
                codes = np.zeros(self._n if rows is None else len(rows), dtype=np.int64)
                whole = self._values(codes, 1, rows)
                totals.update({name: whole[name][0] for name in missing})
            overall = _row_series(self._names, [totals[name] for name in self._names])
        elif self._control_groups is None:
            codes = np.zeros(self._n if rows is None else len(rows), dtype=np.int64)
            got = self._values(codes, 1, rows)
            overall = _row_series(self._names, [got[name][0] for name in self._names])
            got, present, small = self._grouped(self._groups, rows, self.min_group_size)
            by_group = self._groups.frame(self._names, got, present, rows)
        else:
            got, present, _ = self._grouped(self._control_groups, rows, None)
            overall = self._control_groups.frame(self._names, got, present, rows)
            got, present, small = self._grouped(self._groups, rows, self.min_group_size)
            by_group = self._groups.frame(self._names, got, present, rows)
        if record_small and small.any():
            self.small_groups = list(self._groups.group_labels(np.flatnonzero(small)).tolist())
        return _Disaggregated(overall, by_group)

    # ------------------------------------------------------------------ results

    def _extract(self, result: Any, no_control_levels: bool) -> Any:
        """A result in the form the metrics were given in: one callable's results are its
        column (or its one value), a dict's stay frames and Series."""
        if not self._user_supplied_callable:
            return result
        if self.control_levels or no_control_levels:
            return result.iloc[:, 0]
        return result.iloc[0]

    def _cached(self, key: tuple[str, ...], compute: Callable[[], Any]) -> Any:
        # an error is kept too: asking again raises it again, without recomputing
        if key not in self._cache:
            try:
                self._cache[key] = (True, compute())
            except Exception as exc:
                self._cache[key] = (False, exc)
        ok, value = self._cache[key]
        if not ok:
            raise value
        return value

    def _bootstrap(self, n_boot: int, random_state: Any, quantiles: list[float]) -> None:
        seeds = _bootstrap_seeds(n_boot, random_state)
        n = self._n
        samples = []
        for seed in seeds:
            # pandas' DataFrame.sample(frac=1, replace=True, random_state=seed)
            rows = np.random.RandomState(seed).choice(n, size=n, replace=True)
            samples.append(self._disaggregate(np.asarray(rows, dtype=np.intp)))
        controls = self.control_levels
        ci: dict[tuple[str, ...], list[Any]] = {}
        ci["overall",] = [self._extract(x, False)
                          for x in _quantiles(quantiles, [s.overall for s in samples])]
        ci["by_group",] = [self._extract(x, True)
                           for x in _quantiles(quantiles, [s.by_group for s in samples])]
        for how in ("min", "max"):
            got = _quantiles(quantiles, [s.extreme(how, controls, "raise") for s in samples])
            ci["group_" + how,] = [self._extract(x, False) for x in got]
        for kind in ("difference", "ratio"):
            for method in _METHODS:
                raw = [_none_to_nan(getattr(s, kind)(controls, method, "raise"))
                       for s in samples]
                ci[kind, method] = [self._extract(x, False) for x in _quantiles(quantiles, raw)]
        self._ci = ci

    def _check_bootstrap(self) -> None:
        if not self._ci_quantiles or self._n_boot is None:
            raise ValueError(_NO_BOOTSTRAP)

    @property
    def overall(self) -> Any:
        """The metrics on all rows (per control group when there are control features).

        Returns
        -------
        object, pandas.Series or pandas.DataFrame
            One callable: its value (a Series by control group with control features).
            A dict: a Series by metric name (a DataFrame of control groups x metrics with
            control features).

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1], y_pred=[1, 1, 1, 0],
        ...                  sensitive_features=["a", "a", "b", "b"])
        >>> float(mf.overall)
        0.5
        """
        return self._cached(("overall",), lambda: self._extract(self._result.overall, False))

    @property
    def by_group(self) -> Any:
        """The metrics on each group's rows.

        Returns
        -------
        pandas.Series or pandas.DataFrame
            Indexed by the groups (the control features' levels first, then the sensitive
            features'); with several features every combination of levels is a row, NaN
            where it has no rows. One callable gives a Series named after it, a dict a
            DataFrame with a column per metric.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1], y_pred=[1, 1, 1, 0],
        ...                  sensitive_features=["a", "a", "b", "b"])
        >>> mf.by_group
        sensitive_feature_0
        a    0.5
        b    0.5
        Name: accuracy_score, dtype: float64
        """
        return self._cached(("by_group",), lambda: self._extract(self._result.by_group, True))

    @property
    def overall_ci(self) -> list[Any]:
        """:attr:`overall` at each of ``ci_quantiles`` of the bootstrap samples.

        Returns
        -------
        list
            One result per quantile, each of the type of :attr:`overall`.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, mean_squared_error
        >>> mf = MetricFrame(metrics=mean_squared_error, y_true=[1, 0, 1, 1, 0, 1],
        ...                  y_pred=[1, 1, 1, 0, 0, 1], sensitive_features=[0, 0, 0, 1, 1, 1],
        ...                  n_boot=20, ci_quantiles=[0.1, 0.9], random_state=0)
        >>> len(mf.overall_ci)
        2
        """
        self._check_bootstrap()
        return self._ci["overall",]

    @property
    def by_group_ci(self) -> list[Any]:
        """:attr:`by_group` at each of ``ci_quantiles`` of the bootstrap samples.

        Returns
        -------
        list
            One result per quantile, each of the type of :attr:`by_group`.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, mean_squared_error
        >>> mf = MetricFrame(metrics=mean_squared_error, y_true=[1, 0, 1, 1, 0, 1],
        ...                  y_pred=[1, 1, 1, 0, 0, 1], sensitive_features=[0, 0, 0, 1, 1, 1],
        ...                  n_boot=20, ci_quantiles=[0.1, 0.9], random_state=0)
        >>> mf.by_group_ci[0].index.tolist()
        [0, 1]
        """
        self._check_bootstrap()
        return self._ci["by_group",]

    @property
    def control_levels(self) -> list[str] | None:
        """The names of the control features (the first levels of :attr:`by_group`'s index),
        or None without control features.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1], y_pred=[1, 1, 1, 0],
        ...                  sensitive_features=["a", "a", "b", "b"],
        ...                  control_features={"site": [0, 1, 0, 1]})
        >>> mf.control_levels
        ['site']
        """
        return self._cf_names

    @property
    def sensitive_levels(self) -> list[str]:
        """The names of the sensitive features (levels of :attr:`by_group`'s index).

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1], y_pred=[1, 1, 1, 0],
        ...                  sensitive_features=["a", "a", "b", "b"])
        >>> mf.sensitive_levels
        ['sensitive_feature_0']
        """
        return self._sf_names

    @property
    def ci_quantiles(self) -> list[float] | None:
        """The quantiles given for the bootstrap intervals (None when not given).

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1], y_pred=[1, 1, 1, 0],
        ...                  sensitive_features=["a", "a", "b", "b"])
        >>> mf.ci_quantiles is None
        True
        """
        return self._ci_quantiles

    @property
    def n_boot(self) -> int | None:
        """The number of bootstrap samples given (None when not given).

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1], y_pred=[1, 1, 1, 0],
        ...                  sensitive_features=["a", "a", "b", "b"])
        >>> mf.n_boot is None
        True
        """
        return self._n_boot

    def _extreme(self, how: str, errors: str) -> Any:
        if errors not in _ERRORS:
            raise ValueError(_BAD_ERRORS)
        return self._cached(
            ("group_" + how, errors),
            lambda: self._extract(self._result.extreme(how, self.control_levels, errors),
                                  False))

    def group_min(self, errors: str = "raise") -> Any:
        """The smallest value of each metric over the sensitive groups.

        Parameters
        ----------
        errors : {"raise", "coerce"}, default="raise"
            With "raise", a metric with non-scalar values (arrays) raises ``ValueError``;
            with "coerce" such values count as NaN.

        Returns
        -------
        object, pandas.Series or pandas.DataFrame
            Of the type of :attr:`overall` (per control group with control features).

        See Also
        --------
        group_max : The largest value over the groups.
        group_min_ci : Its bootstrap quantiles.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1, 0],
        ...                  y_pred=[1, 1, 1, 1, 0], sensitive_features=list("aabbb"))
        >>> float(mf.group_min())
        0.5
        """
        return self._extreme("min", errors)

    def group_max(self, errors: str = "raise") -> Any:
        """The largest value of each metric over the sensitive groups.

        Parameters
        ----------
        errors : {"raise", "coerce"}, default="raise"
            With "raise", a metric with non-scalar values (arrays) raises ``ValueError``;
            with "coerce" such values count as NaN.

        Returns
        -------
        object, pandas.Series or pandas.DataFrame
            Of the type of :attr:`overall` (per control group with control features).

        See Also
        --------
        group_min : The smallest value over the groups.
        group_max_ci : Its bootstrap quantiles.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1, 0],
        ...                  y_pred=[1, 1, 1, 1, 0], sensitive_features=list("aabbb"))
        >>> float(mf.group_max())
        1.0
        """
        return self._extreme("max", errors)

    def _compare(self, kind: str, method: str, errors: str) -> Any:
        if errors not in _ERRORS:
            raise ValueError(_BAD_ERRORS)
        if method not in _METHODS:
            raise ValueError(_BAD_METHOD.format(method))

        def compute() -> Any:
            raw = getattr(self._result, kind)(self.control_levels, method, errors)
            return self._extract(_none_to_nan(raw), False)

        return self._cached((kind, method, errors), compute)

    def difference(self, method: str = "between_groups", errors: str = "coerce") -> Any:
        """The largest absolute difference of each metric between groups.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            "between_groups": the largest group value minus the smallest;
            "to_overall": the largest absolute difference of a group's value from
            :attr:`overall` (from its control group's with control features).
        errors : {"raise", "coerce"}, default="coerce"
            With "raise", a metric with non-scalar values raises ``ValueError``; with
            "coerce" its result is NaN.

        Returns
        -------
        object, pandas.Series or pandas.DataFrame
            Of the type of :attr:`overall`.

        See Also
        --------
        ratio : The smallest ratio between groups.
        difference_ci : Its bootstrap quantiles.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1, 0],
        ...                  y_pred=[1, 1, 1, 1, 0], sensitive_features=list("aabbb"))
        >>> float(mf.difference())
        0.5
        >>> round(float(mf.difference(method="to_overall")), 6)
        0.3
        """
        return self._compare("difference", method, errors)

    def ratio(self, method: str = "between_groups", errors: str = "coerce") -> Any:
        """The smallest ratio (at most 1) of each metric between groups.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            "between_groups": the smallest group value over the largest; "to_overall": the
            smallest of each group's value over :attr:`overall` and its inverse.
        errors : {"raise", "coerce"}, default="coerce"
            With "raise", a metric with non-scalar values raises ``ValueError``; with
            "coerce" its result is NaN.

        Returns
        -------
        object, pandas.Series or pandas.DataFrame
            Of the type of :attr:`overall`.

        See Also
        --------
        difference : The largest difference between groups.
        ratio_ci : Its bootstrap quantiles.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, accuracy_score
        >>> mf = MetricFrame(metrics=accuracy_score, y_true=[1, 0, 1, 1, 0],
        ...                  y_pred=[1, 1, 1, 1, 0], sensitive_features=list("aabbb"))
        >>> float(mf.ratio())
        0.5
        """
        return self._compare("ratio", method, errors)

    def group_min_ci(self) -> list[Any]:
        """:meth:`group_min` at each of ``ci_quantiles`` of the bootstrap samples.

        Returns
        -------
        list
            One result per quantile, each of the type of :meth:`group_min`'s.

        See Also
        --------
        group_min : The value on all rows.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, mean_squared_error
        >>> mf = MetricFrame(metrics=mean_squared_error, y_true=[1, 0, 1, 1, 0, 1],
        ...                  y_pred=[1, 1, 1, 0, 0, 1], sensitive_features=[0, 0, 0, 1, 1, 1],
        ...                  n_boot=20, ci_quantiles=[0.5], random_state=0)
        >>> len(mf.group_min_ci())
        1
        """
        self._check_bootstrap()
        return self._ci["group_min",]

    def group_max_ci(self) -> list[Any]:
        """:meth:`group_max` at each of ``ci_quantiles`` of the bootstrap samples.

        Returns
        -------
        list
            One result per quantile, each of the type of :meth:`group_max`'s.

        See Also
        --------
        group_max : The value on all rows.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, mean_squared_error
        >>> mf = MetricFrame(metrics=mean_squared_error, y_true=[1, 0, 1, 1, 0, 1],
        ...                  y_pred=[1, 1, 1, 0, 0, 1], sensitive_features=[0, 0, 0, 1, 1, 1],
        ...                  n_boot=20, ci_quantiles=[0.5], random_state=0)
        >>> len(mf.group_max_ci())
        1
        """
        self._check_bootstrap()
        return self._ci["group_max",]

    def difference_ci(self, method: str = "between_groups") -> list[Any]:
        """:meth:`difference` at each of ``ci_quantiles`` of the bootstrap samples.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            As for :meth:`difference`.

        Returns
        -------
        list
            One result per quantile, each of the type of :meth:`difference`'s.

        See Also
        --------
        difference : The value on all rows.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, mean_squared_error
        >>> mf = MetricFrame(metrics=mean_squared_error, y_true=[1, 0, 1, 1, 0, 1],
        ...                  y_pred=[1, 1, 1, 0, 0, 1], sensitive_features=[0, 0, 0, 1, 1, 1],
        ...                  n_boot=20, ci_quantiles=[0.5], random_state=0)
        >>> len(mf.difference_ci(method="to_overall"))
        1
        """
        if method not in _METHODS:
            raise ValueError(_BAD_METHOD.format(method))
        self._check_bootstrap()
        return self._ci["difference", method]

    def ratio_ci(self, method: str = "between_groups") -> list[Any]:
        """:meth:`ratio` at each of ``ci_quantiles`` of the bootstrap samples.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            As for :meth:`ratio`.

        Returns
        -------
        list
            One result per quantile, each of the type of :meth:`ratio`'s.

        See Also
        --------
        ratio : The value on all rows.

        Examples
        --------
        >>> from fastmetrics import MetricFrame, mean_squared_error
        >>> mf = MetricFrame(metrics=mean_squared_error, y_true=[1, 0, 1, 1, 0, 1],
        ...                  y_pred=[1, 1, 1, 0, 0, 1], sensitive_features=[0, 0, 0, 1, 1, 1],
        ...                  n_boot=20, ci_quantiles=[0.5], random_state=0)
        >>> len(mf.ratio_ci())
        1
        """
        if method not in _METHODS:
            raise ValueError(_BAD_METHOD.format(method))
        self._check_bootstrap()
        return self._ci["ratio", method]
