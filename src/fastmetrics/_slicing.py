"""Metrics by slice: metric callables of fastmetrics or scikit-learn recognised by name and
computed from grouped states, several metrics of one family from one pass.

A callable is recognised when it *is* a function of the table of mergeable metrics, as
fastmetrics or ``sklearn.metrics`` exports it, or a ``functools.partial`` of one with keyword
arguments only. Its keywords split into the state's settings (``pos_label``, ``n_bins``...:
one grouped pass per family and settings) and the derivation's (``average``...). The only
sample parameter taken is ``sample_weight``. Anything else (another callable, other sample
parameters, a call the grouped state refuses) is reported as not recognised, and the caller
calls the function on each group's rows: slower, and still right.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np

from . import _table
from ._inputs import GroupKeys
from .streaming import KINDS, Accumulator, GroupedAccumulator

__all__ = ["Recognised", "grouped_values", "recognise"]

_ROWS = {row.name: row for row in _table.METRICS}


class Recognised:
    """A recognised metric: its table row, the grouped pass's settings and the
    derivation's keyword arguments."""

    __slots__ = ("row", "config", "kwargs")

    def __init__(self, row: _table.Metric, config: dict[str, Any], kwargs: dict[str, Any]):
        self.row, self.config, self.kwargs = row, config, kwargs

    def pass_key(self, weighted: bool) -> tuple[Any, ...]:
        """What metrics sharing one grouped pass have in common."""
        return (self.row.family, weighted, tuple(sorted(
            (k, v.tobytes() if isinstance(v, np.ndarray) else repr(v))
            for k, v in self.config.items())))


def _table_function(fn: Any) -> _table.Metric | None:
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str) or name not in _ROWS:
        return None
    row = _ROWS[name]
    if fn is row.function:
        return row
    skm = sys.modules.get("sklearn.metrics")  # never imported here: only if the user did
    if skm is not None and getattr(skm, name, None) is fn:
        return row
    return None


def recognise(fn: Callable[..., Any]) -> Recognised | None:
    """The table row and keyword split of ``fn``, or None when it is not recognised."""
    kwargs: dict[str, Any] = {}
    while isinstance(fn, functools.partial):
        if fn.args:
            return None
        kwargs = {**fn.keywords, **kwargs}
        fn = fn.func
    row = _table_function(fn)
    if row is None or not row.dask or row.family == "paired":
        return None
    params = row.signature.parameters
    if any(k not in params or k in _table.DATA for k in kwargs):
        return None
    config = {k: kwargs[k] for k in row.config if k in kwargs}
    config.update(row.fixed)
    metric = {p.name for p in row.metric_parameters()}
    return Recognised(row, config, {k: v for k, v in kwargs.items() if k in metric})


def grouped_values(metrics: Mapping[str, Callable[..., Any]], y_true: Any, y_pred: Any,
                   codes: np.ndarray, n_groups: int,
                   params: Mapping[str, Mapping[str, Any]] | None = None,
                   totals: dict[str, Any] | None = None,
                   sizes: np.ndarray | None = None,
                   ) -> dict[str, list[Any] | None]:
    """Each metric's value on each group's rows, from one pass per state family.

    Parameters
    ----------
    metrics : mapping of str to callable
        name -> metric function ``f(y_true, y_pred, **params)``.
    y_true, y_pred : array-like of shape (n_samples, ...)
    codes : ndarray of int64, shape (n_samples,)
        The group of each row, in ``range(n_groups)``.
    n_groups : int
    params : mapping of str to mapping of str to array, optional
        name -> that metric's sample parameters (arrays of n_samples rows, split per group
        like the data).
    totals : dict, optional
        Filled with name -> the metric's value on all the rows, for the metrics answered by
        group: from the groups' states merged (the state's law; counts and sums cost
        O(groups)), or for exact ranking states (whose merge walks every row log(groups)
        times) from one more pass. A metric whose value on all the rows the derivation
        refuses is left out (the caller calls the function).
    sizes : ndarray of int64 (n_groups,), optional
        Each group's rows, where the caller counted them (else counted here).

    Returns
    -------
    dict
        name -> list of ``n_groups`` values (group g's value at index g), or None where the
        metric is not recognised (the caller then calls it on each group's rows).
    """
    params = params or {}
    out: dict[str, list[Any] | None] = {name: None for name in metrics}
    passes: dict[tuple[Any, ...], list[tuple[str, Recognised]]] = {}
    weights: dict[tuple[Any, ...], Any] = {}
    for name, fn in metrics.items():
        rec = recognise(fn)
        p = dict(params.get(name) or {})
        w = p.pop("sample_weight", None)
        if rec is None or p:
            continue
        key = rec.pass_key(w is not None) + (id(w),)
        passes.setdefault(key, []).append((name, rec))
        weights[key] = w
    if not passes:
        return out
    codes = np.asarray(codes)
    if sizes is None and codes.shape[0]:
        sizes = np.bincount(codes, minlength=n_groups)[:n_groups]
    if codes.shape[0] == 0 or sizes is None or not sizes.all():
        return out  # a group without rows: the function decides what that gives
    keys = GroupKeys(codes, (np.arange(n_groups),), ("group",))
    built: dict[tuple[Any, ...], GroupedAccumulator] = {}
    by_weights: dict[int, list[tuple[Any, ...]]] = {}
    for key, items in passes.items():
        rec0 = items[0][1]
        try:
            built[key] = GroupedAccumulator(rec0.row.family, **rec0.config)
        except (TypeError, ValueError):
            continue
        by_weights.setdefault(id(weights[key]), []).append(key)
    for group in by_weights.values():
        # the passes sharing their data (and weights) order the rows once for all
        try:
            GroupedAccumulator.update_all([built[k] for k in group], y_true, y_pred,
                                          groups=keys, sample_weight=weights[group[0]])
        except (TypeError, ValueError):
            # one family refused: each pass alone, so the others still answer
            for k in group:
                try:
                    built[k] = GroupedAccumulator(passes[k][0][1].row.family,
                                                  **passes[k][0][1].config)
                    built[k].update(y_true, y_pred, groups=keys, sample_weight=weights[k])
                except (TypeError, ValueError):
                    del built[k]
    for key, items in passes.items():
        acc = built.get(key)
        if acc is None:
            continue  # the caller's per-group calls give the function's own answer or error
        if acc.n_groups != n_groups:
            continue  # a group without rows: the function decides what that gives
        whole = None if totals is None else _whole(acc, items[0][1].config, y_true, y_pred,
                                                   weights[key])
        for name, rec in items:
            try:
                values = acc.metric(rec.row.name, **rec.kwargs)
            except (TypeError, ValueError):
                continue
            out[name] = [values[g] for g in range(n_groups)]
            if whole is not None and totals is not None:
                try:
                    totals[name] = getattr(whole, rec.row.name)(**rec.kwargs)
                except (TypeError, ValueError):
                    pass
    return out


def _whole(acc: GroupedAccumulator, config: Mapping[str, Any], y_true: Any, y_pred: Any,
           w: Any) -> Accumulator | None:
    """One accumulator of every row a grouped one holds: its groups' accumulators merged,
    or (exact ranking states, and groups whose states do not merge) one pass over the
    rows. None when that pass refuses them."""
    if not acc.n_groups:
        return None
    if not (acc.kind == "ranking" and config.get("thresholds") is None):
        try:
            return acc.overall()
        except (TypeError, ValueError):
            pass  # (classes that differ between groups): the pass below
    try:
        fresh: Any = KINDS[acc.kind](**config)
        if w is None:
            fresh.update(y_true, y_pred)
        else:
            fresh.update(y_true, y_pred, sample_weight=w)
    except (TypeError, ValueError):
        return None
    return cast(Accumulator, fresh)
