"""The bootstrap law of the count states: resampling rows is a multinomial draw of cells.

Drawing N rows with replacement from N rows puts each draw into cell ``c`` (a (true,
predicted) pair, a (score, class) pair, a contingency cell) with probability ``n_c / N``,
so the cell counts of a resample are multinomial with those probabilities. Every metric of
such a state depends on the rows only through the cell counts: the metric of a state drawn
this way has exactly the distribution of the metric of a row resample, and a resample
costs O(cells), whatever N.

The jackknife that BCa intervals need is as cheap: leaving one row out lowers one cell by
one, so there are as many distinct leave-one-out states as non-empty cells, each standing
for ``n_c`` rows.

Only unweighted states follow this law: with sample weights, a resample's cell sums depend
on which weights were drawn, not only on how many rows (the faces resample rows then).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any, cast

import numpy as np

from .. import _intervals
from .base import State
from .confusion import ClassificationMetrics, ConfusionState, card
from .contingency import ContingencyState
from .ranking import RankingState

__all__ = ["HEADLINE", "card_intervals", "cells", "draws", "jackknife", "replicate",
           "resampled", "supports", "with_intervals"]

#: the report card's numbers that get an interval
HEADLINE = ("accuracy", "macro_f1", "weighted_f1", "micro_f1", "oos_recall", "oos_precision")


def supports(state: State) -> bool:
    """Whether ``state`` resamples by its cells (an unweighted count state)."""
    if isinstance(state, ConfusionState):
        return not state.weighted and state.cm.dtype.kind == "i"
    if isinstance(state, RankingState):
        return not state.weighted and not state.binned
    return isinstance(state, ContingencyState)


def cells(state: State) -> np.ndarray:
    """The cell counts of a supported state, flat (int64), zeros included."""
    if isinstance(state, ConfusionState):
        return state.cm.reshape(-1)
    if isinstance(state, RankingState):
        return state.weights.reshape(-1).astype(np.int64)
    if isinstance(state, ContingencyState):
        return state.counts
    raise TypeError(f"{type(state).__name__} has no cell law")


def draws(counts: np.ndarray, rng: np.random.Generator, n_resamples: int) -> np.ndarray:
    """``(n_resamples, len(counts))`` multinomial cell counts of row resamples (empty cells
    stay empty and cost nothing)."""
    n = int(counts.sum())
    nz = np.flatnonzero(counts)
    out = np.zeros((n_resamples, counts.shape[0]), dtype=np.int64)
    if n and nz.shape[0]:
        out[:, nz] = rng.multinomial(n, counts[nz] / n, size=n_resamples)
    return out


def replicate(state: State, counts: np.ndarray) -> State:
    """The state whose cell counts are ``counts`` (same layout as :func:`cells`)."""
    if isinstance(state, ConfusionState):
        k = state.cm.shape[0]
        cm = counts.reshape(k, k)
        rows = cm.sum(axis=1) != 0
        return ConfusionState(state.values, cm, rows | (cm.sum(axis=0) != 0),
                              int(counts.sum()), None, False, rows)
    if isinstance(state, RankingState):
        w = counts.reshape(state.weights.shape)
        per_class = w.sum(axis=1)
        keep_c = per_class != 0
        if not keep_c.all():
            w = w[keep_c]
        keep_t = w.sum(axis=0) != 0  # a threshold no sample reaches is none
        return RankingState(state.thresholds[keep_t], w[:, keep_t].astype(np.float64),
                            state.classes[keep_c], per_class[keep_c].astype(np.int64))
    if isinstance(state, ContingencyState):
        keep = counts != 0
        r, c, n = state.rows[keep], state.cols[keep], counts[keep]
        # labels no sample keeps leave the table, as np.unique of the resample would
        ur, r = np.unique(r, return_inverse=True)
        uc, c = np.unique(c, return_inverse=True)
        return ContingencyState(state.true_values[ur], state.pred_values[uc],
                                r.reshape(-1).astype(np.int64), c.reshape(-1).astype(np.int64),
                                n.astype(np.int64), int(n.sum()))
    raise TypeError(f"{type(state).__name__} has no cell law")


def jackknife(state: State) -> Iterator[tuple[State, int]]:
    """``(state without one row, how many rows give that state)`` for every non-empty
    cell."""
    counts = cells(state)
    for i in np.flatnonzero(counts).tolist():
        c = counts.copy()
        c[i] -= 1
        yield replicate(state, c), int(counts[i])


def resampled(state: State, rng: np.random.Generator, n_resamples: int) -> Iterator[State]:
    """``n_resamples`` states of row resamples of a supported state."""
    for c in draws(cells(state), rng, n_resamples):
        yield replicate(state, c)


def card_intervals(states: Iterable[State], labels: list[Any], oos_label: Any,
                   level: float) -> dict[str, tuple[float, float]]:
    """Percentile intervals of the report card's headline numbers over resampled
    ``states``, each scored over the same pinned ``labels`` (so macro F1 averages the same
    classes in every resample)."""
    values = []
    for s in states:
        # the states of a report card are confusion states
        m = card(cast(ConfusionState, s), labels, oos_label).metrics
        values.append([np.nan if getattr(m, k) is None else getattr(m, k) for k in HEADLINE])
    theta_b = np.array(values, dtype=np.float64).reshape(-1, len(HEADLINE))
    low, high = _intervals.interval(np.zeros(len(HEADLINE)), theta_b, level, "percentile")
    return {k: (float(lo), float(hi)) for k, lo, hi in zip(HEADLINE, low, high)
            if not (oos_label is None and k.startswith("oos"))}


def with_intervals(metrics: ClassificationMetrics, states: Iterable[State], oos_label: Any,
                   level: float) -> ClassificationMetrics:
    """``metrics`` with the intervals of its headline numbers over resampled ``states``."""
    ci = card_intervals(states, metrics.labels, oos_label, level)
    return dataclasses.replace(metrics, intervals=ci, confidence_level=level)
