"""A grouped accumulator's chunk states that wait to be merged: a group's state from a
chunk of its own layout (labels, classes, edges) is kept aside and merged with the others
in one walk when enough rows have come or when the accumulator is read. What it holds must
be what merging every chunk on arrival holds, and a chunk that cannot merge must still be
refused on update, leaving every group as it was.
"""

import numpy as np
import pytest

from fastmetrics import streaming
from fastmetrics.streaming import KINDS, GroupedAccumulator


def _close(a, b, where=""):
    """Exported states: integers and text exactly, floats to 1e-12 relative."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), where
        for k in a:
            _close(a[k], b[k], f"{where}.{k}")
        return
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{i}]")
        return
    x, y = np.asarray(a), np.asarray(b)
    assert x.shape == y.shape, where
    if x.dtype.kind in "fc" or y.dtype.kind in "fc":
        np.testing.assert_allclose(x.astype(float), y.astype(float), rtol=1e-12, atol=1e-15,
                                   equal_nan=True, err_msg=where)
    else:
        assert x.tolist() == y.tolist(), where


def _chunks(kind, seed, n_chunks=6):
    """(data, groups, weights) chunks of one family, groups 0..7 (not all in every chunk)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_chunks):
        n = int(rng.integers(1, 400))
        g = rng.integers(0, int(rng.integers(1, 9)), n)
        y = rng.integers(0, 2, n)
        p = np.round(rng.random(n), 2)  # ties across chunks
        if kind == "confusion":
            data = (rng.integers(0, 3, n), rng.integers(0, 3, n))
        elif kind == "paired":
            data = (y, rng.integers(0, 2, n), rng.integers(0, 2, n))
        elif kind == "regression":
            data = (rng.normal(size=n), rng.normal(size=n))
        else:
            data = (y, p)
        out.append((data, g, rng.random(n) + 0.5))
    return out


CONFIGS = {"confusion": {}, "paired": {}, "regression": {}, "ranking": {},
           "proba": {"labels": [0, 1]}, "calibration": {"n_bins": 5}}


@pytest.mark.parametrize("fold_rows", [1, 300, 1 << 40])
@pytest.mark.parametrize("kind, weighted", [(k, w) for k in CONFIGS for w in (False, True)
                                            if not (w and k == "paired")])  # (no weights)
def test_waiting_states_are_the_states_merged_on_arrival(monkeypatch, kind, fold_rows,
                                                         weighted):
    monkeypatch.setattr(streaming, "_FOLD_ROWS", fold_rows)
    cfg = CONFIGS[kind]
    acc = GroupedAccumulator(kind, **cfg)
    refs = {}
    for data, g, w in _chunks(kind, seed=len(kind) + fold_rows % 7):
        acc.update(*data, groups=g, sample_weight=w if weighted else None)
        for key in np.unique(g):
            rows = g == key
            ref = refs.setdefault(int(key), KINDS[kind](**cfg))
            part = [d[rows] for d in data]
            if weighted:
                ref.update(*part, sample_weight=w[rows])
            else:
                ref.update(*part)
    assert sorted(acc.keys()) == sorted(refs)
    for key, ref in refs.items():
        _close(_comparable(acc[key].state), _comparable(ref.state), f"group {key}")


def _comparable(state):
    d = state.to_dict()
    if d["kind"] == "calibration":
        # the bins' squared-error column is read as its total only: the grouped kernel
        # keeps it by bin, the one-group kernel in the first bin
        sums = np.array(d["sums"], dtype=float)
        sums[0, 3], sums[1:, 3] = sums[:, 3].sum(), 0.0
        d["sums"] = sums
    return d


@pytest.mark.parametrize("fold_rows", [1, 1 << 40])
def test_reading_between_chunks_changes_nothing(monkeypatch, fold_rows):
    monkeypatch.setattr(streaming, "_FOLD_ROWS", fold_rows)
    chunks = _chunks("ranking", seed=3)
    read, unread = GroupedAccumulator("ranking"), GroupedAccumulator("ranking")
    for data, g, _ in chunks:
        read.update(*data, groups=g)
        unread.update(*data, groups=g)
        read.roc_auc_score(errors="nan")  # merges what waits
    for key in unread.keys():
        _close(read[key].state.to_dict(), unread[key].state.to_dict(), f"group {key}")


def test_a_chunk_of_another_layout_is_still_refused_on_update():
    # group 0 holds classes {0, 1} (one chunk merged, one waiting); a chunk whose rows of
    # group 0 hold the classes {1, 2} cannot merge: refused on update, nothing changed
    acc = GroupedAccumulator("ranking")
    acc.update([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6], groups=[0, 0, 1, 1])
    acc.update([1, 0, 0, 1], [0.7, 0.2, 0.4, 0.9], groups=[0, 0, 1, 1])
    before = acc.roc_auc_score()
    with pytest.raises(ValueError, match="two"):
        acc.update([1, 2, 5], [0.5, 0.4, 0.3], groups=[0, 0, 2])
    assert acc.keys() == [0, 1]
    assert acc.roc_auc_score() == before
    # a chunk of another layout that merges (one class only) merges at once
    acc.update([0], [0.05], groups=[0])
    assert acc[0].n_samples == 5


def test_weighted_chunk_into_a_group_with_waiting_states_is_refused():
    acc = GroupedAccumulator("regression")
    acc.update([1.0, 2.0], [1.5, 2.0], groups=["a", "b"])
    acc.update([3.0, 4.0], [3.0, 3.0], groups=["a", "b"])  # waits
    before = acc.to_dict()
    with pytest.raises(ValueError, match="weight"):
        acc.update([1.0], [1.0], groups=["a"], sample_weight=[2.0])
    _close(acc.to_dict(), before)
    assert acc.mean_absolute_error() == {"a": 0.25, "b": 0.5}


def test_a_fold_on_update_merges_every_waiting_group(monkeypatch):
    # groups that the chunk that triggers the merge does not hold are merged too
    # (exact ranking states: the counting families are stacked, nothing waits)
    monkeypatch.setattr(streaming, "_FOLD_ROWS", 5)
    acc = GroupedAccumulator("ranking")
    acc.update([0, 1, 0, 1], [0.1, 0.9, 0.6, 0.4], groups=[0, 0, 1, 1])
    acc.update([1, 0, 0, 1], [0.8, 0.2, 0.7, 0.3], groups=[0, 0, 1, 1])
    assert acc._pending  # both groups wait
    acc.update([0, 1], [0.5, 0.5], groups=[2, 2])  # 6 rows since the last merge: all merged
    assert not acc._pending
    assert acc.roc_auc_score() == {0: 1.0, 1: 0.0, 2: 0.5}


@pytest.mark.parametrize("seed", range(4))
def test_one_walk_merges_are_the_pairwise_fold_bit_for_bit(seed):
    import functools

    from fastmetrics.states import ConfusionState, RegressionState

    rng = np.random.default_rng(seed)
    sizes = [int(rng.integers(0, 50)) for _ in range(6)]
    regs = [RegressionState.from_arrays(rng.normal(size=n), rng.normal(size=n))
            for n in sizes]
    want = functools.reduce(lambda a, b: a.merge(b), regs)
    got = RegressionState.merge_all(regs)
    assert got.sums.tobytes() == want.sums.tobytes() and got.flags == want.flags
    tables = [ConfusionState.from_arrays(rng.integers(0, 3, n + 1), rng.integers(0, 3, n + 1))
              for n in sizes]
    same = [t for t in tables if t.same_layout(tables[0])]
    for group in (tables, same):  # (other label sets take the pairwise road)
        want = functools.reduce(lambda a, b: a.merge(b), group)
        got = ConfusionState.merge_all(group)
        _close(got.to_dict(), want.to_dict())
        assert got.cm.dtype == want.cm.dtype


def test_every_group_state_at_once_is_each_group_state():
    from fastmetrics.states import GroupedConfusionState

    rng = np.random.default_rng(5)
    y, p = rng.integers(0, 4, 500), rng.integers(0, 4, 500)
    g = rng.integers(0, 30, 500)
    y[g == 3], p[g == 3] = 0, 1  # a group holding two of the four labels
    table = GroupedConfusionState.from_arrays(y, p, g)
    states = table.group_states()
    assert len(states) == table.groups.shape[0]
    for i, st in enumerate(states):
        _close(st.to_dict(), table.group_state(i).to_dict(), f"group {i}")
    states[0].cm[0, 0] += 1  # each state's table is its own
    assert states[1].cm.sum() == table.group_state(1).cm.sum()
    assert table.table[0, 0, 0] == table.group_state(0).cm[0, 0]


def test_chunks_as_large_as_the_bound_never_wait(monkeypatch):
    # what waits pins its chunk's buffers (exact ranking states): chunks of the bound's
    # size are merged as they come, as if nothing waited
    monkeypatch.setattr(streaming, "_FOLD_ROWS", 20)
    rng = np.random.default_rng(0)
    acc = GroupedAccumulator("ranking")
    for _ in range(3):
        acc.update(rng.integers(0, 2, 20), rng.random(20), groups=rng.integers(0, 2, 20))
        assert not acc._pending and acc._pending_rows == 0
