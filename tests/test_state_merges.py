"""Every state type's ``merge_all`` against the left fold of its ``merge``: bit for bit the same
exported state, for any split (empty chunks, one-class chunks, ties across chunks, weights) in
any order, and the one law (one pass's state) still holds for it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_states import CASES, _assert_same_state

import fastmetrics as fm
from fastmetrics.states import ContingencyState, RegressionState


# the ranking state's merge_all (a k-way merge) is being rewritten in another change
AUDITED = {kind: case for kind, case in CASES.items() if not kind.startswith("ranking")}
AUDITED["regression_kept"] = (  # every error kept; unweighted data weighted on some chunks
    CASES["regression"][0],
    lambda a, w: RegressionState.from_arrays(*a, w, keep_values=True, allow_empty=True,
                                             allow_zero_sum=True))


def _assert_bits_equal(a, b):
    da, db = a.to_dict(), b.to_dict()
    assert da.keys() == db.keys()
    for k in da:
        x, y = da[k], db[k]
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape, k
            assert x.tobytes() == y.tobytes(), k
        else:
            assert type(x) is type(y), k
            assert x == y or (x != x and y != y), (k, x, y)


def _chunk_weights(kind, data, w, i, j):
    if w is not None or kind != "regression_kept" or not data.draw(st.booleans()):
        return None if w is None else w[i:j]
    return np.array(data.draw(st.lists(st.floats(0.0, 4.0), min_size=j - i, max_size=j - i)))


@pytest.mark.parametrize("kind", list(AUDITED))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_merge_all_is_the_left_fold_bit_for_bit(kind, data):
    strategy, build = AUDITED[kind]
    arrays, w = data.draw(strategy)
    n = arrays[0].shape[0]
    if data.draw(st.booleans()):  # rows sorted by the first array: one-class chunks
        order = np.argsort(arrays[0].reshape(n, -1)[:, 0], kind="stable")
        arrays = tuple(a[order] for a in arrays)
        w = None if w is None else w[order]
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=6)))  # repeats: empty chunks
    bounds = [0, *cuts, n]
    states, rows, weights = [], [], []
    for i, j in zip(bounds[:-1], bounds[1:]):
        cw = _chunk_weights(kind, data, w, i, j)
        try:
            states.append(build(tuple(a[i:j] for a in arrays), cw))
        except ValueError:  # a type that refuses an empty chunk or one of zero weights
            continue
        rows.append(np.arange(i, j))
        weights.append(np.ones(j - i) if cw is None else cw)
    if not states:
        return
    order = data.draw(st.permutations(range(len(states))))
    states = [states[i] for i in order]
    fold = states[0]
    for s in states[1:]:
        fold = fold.merge(s)
    merged = type(states[0]).merge_all(states)
    assert type(merged) is type(fold)
    _assert_bits_equal(merged, fold)
    # and the law: one pass over the rows kept, in merge order
    kept = np.concatenate([rows[i] for i in order])
    some_weighted = w is not None or (kind == "regression_kept" and any(
        not np.array_equal(weights[i], np.ones(len(weights[i]))) for i in order))
    kw = np.concatenate([weights[i] for i in order]) if some_weighted else None
    if kw is not None and not kw.any():
        return  # one pass over zero weights alone is refused
    whole = build(tuple(a[kept] for a in arrays), kw)
    if kind == "regression_kept" and kw is not None and not merged.weighted:
        return  # chunks weighted 1.0 by hand merge as unweighted ones
    _assert_same_state(kind.replace("_kept", ""), merged, whole)


def test_merge_all_of_one_state_is_that_state_and_of_none_an_error():
    s = ContingencyState.from_arrays([0, 1], [1, 1])
    for cls in (ContingencyState, fm.states.PairedConfusionState, fm.states.MultilabelState,
                RegressionState):
        with pytest.raises(ValueError, match="at least one state"):
            cls.merge_all([])
    assert ContingencyState.merge_all([s]) is s
    assert ContingencyState.merge_all(iter([s, ContingencyState.empty()])) is s


@pytest.mark.parametrize("make", [
    lambda: ContingencyState.from_arrays([0, 1], [1, 1]),
    lambda: fm.states.PairedConfusionState.from_arrays([0, 1], [1, 1], [0, 0]),
    lambda: fm.states.MultilabelState.from_arrays(np.array([[1, 0]]), np.array([[1, 1]])),
    lambda: RegressionState.from_arrays([1.0, 2.0], [1.5, 2.0], keep_values=True),
])
def test_merge_all_checks_what_it_merges(make):
    s = make()
    other = fm.states.SketchState.from_arrays([1.0])
    with pytest.raises(TypeError, match="cannot merge"):
        type(s).merge_all([s, s, other])


def test_merge_all_raises_what_the_fold_raises():
    a = ContingencyState.from_arrays([0, 1], [1, 1])
    b = ContingencyState.from_arrays(["x"], [1])
    with pytest.raises(ValueError, match="Mix of label input types"):
        ContingencyState.merge_all([a, a, b])
    r1 = RegressionState.from_arrays([[1.0, 2.0]], [[1.0, 3.0]])
    r2 = RegressionState.from_arrays([1.0], [2.0])
    with pytest.raises(ValueError, match="different numbers of outputs"):
        RegressionState.merge_all([r1, r1, r2])
    with pytest.raises(ValueError, match="Huber delta"):
        RegressionState.merge_all([r2, RegressionState.from_arrays([1.0], [2.0], delta=2.0)])
