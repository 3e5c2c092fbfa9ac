"""Grouped accumulators whose chunks come from a grouped kernel hold every group's state as
rows of one stack, merged chunk by chunk by the family's law on whole arrays: each group's
state is, bit for bit, its chunk states merged as they came; chunks of another layout,
weights, reads, hand-outs of a group's accumulator, pickles and merges all keep that."""

import pickle

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fastmetrics.streaming import GroupedAccumulator

FAMILIES = ["confusion", "paired", "calibration", "proba", "regression"]
WEIGHTED = {"calibration", "proba", "regression"}


def make(kind):
    # (log loss groups need every class: a group may lack one)
    return GroupedAccumulator(kind, labels=[0, 1]) if kind == "proba" else \
        GroupedAccumulator(kind)


def chunk_data(kind, rng, n, n_groups, weighted, labels=2, every_label=True):
    """A chunk of ``n`` rows; with ``every_label`` (and ``n >= labels``) every label shows
    in each column, so that its label layout is the stack's (a chunk of other labels leaves
    the stack)."""
    g = rng.integers(0, n_groups, n)
    if every_label:
        y, p, q = (rng.permutation(np.resize(np.arange(labels), n)) for _ in range(3))
    else:
        y, p, q = (rng.integers(0, labels, n) for _ in range(3))
    if kind == "confusion":
        cols = (y, p)
    elif kind == "paired":
        cols = (y, p, q)
    elif kind in ("calibration", "proba"):
        cols = (y, np.round(rng.random(n), 3))
    else:
        cols = (rng.normal(size=n), rng.normal(size=n))
    w = rng.random(n) + 0.1 if weighted else None
    return cols, g, w


def merged_on_arrival(kind, chunks):
    """Each group's state: each chunk's own grouped accumulator's state of the group,
    merged into what came before as the chunks came."""
    out = {}
    for cols, g, w in chunks:
        one = make(kind).update(*cols, groups=g, sample_weight=w)
        for key, state in zip(one.keys(), one.state.states):
            out[key] = state if key not in out else out[key].merge(state)
    return out


def same_state(a, b):
    da, db = a.to_dict(), b.to_dict()
    assert da.keys() == db.keys()
    for k in da:
        x, y = da[k], db[k]
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, k
            assert x.tobytes() == y.tobytes(), k
        else:
            assert x == y, k


def close_state(a, b):
    da, db = a.to_dict(), b.to_dict()
    if type(a).__name__ == "CalibrationState":
        # the Brier column's bins differ between passes, only its total means something
        for d in (da, db):
            d["sums"] = np.concatenate([np.delete(d["sums"], 3, axis=1).ravel(),
                                        [d["sums"][:, 3].sum()]])
    for k in da:
        if isinstance(da[k], np.ndarray) and da[k].dtype.kind == "f":
            np.testing.assert_allclose(da[k], db[k], rtol=1e-12, atol=1e-12, err_msg=k)
        elif isinstance(da[k], np.ndarray):
            np.testing.assert_array_equal(da[k], db[k], err_msg=k)
        else:
            assert da[k] == db[k], k


def check(acc, want, same=same_state):
    assert acc.keys() == list(want)
    for key, state in zip(acc.keys(), acc.state.states):
        same(state, want[key])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FAMILIES), st.booleans(), st.integers(1, 6), st.integers(1, 40),
       st.booleans(), st.integers(0, 2**32 - 1))
# (its second chunk is one row of label 1: another layout)
@example(kind="confusion", weighted=False, n_chunks=2, n_groups=2, every_label=False, seed=200)
def test_stacked_groups_are_their_chunks_merged_as_they_came(kind, weighted, n_chunks,
                                                              n_groups, every_label, seed):
    weighted = weighted and kind in WEIGHTED
    rng = np.random.default_rng(seed)
    # chunks of varying sizes bring new groups and leave some out; some may lack a label
    # (a small chunk of one label has another layout: it leaves the stack, still right)
    chunks = [chunk_data(kind, rng, int(rng.integers(2 if every_label else 1, 200)),
                         int(rng.integers(1, n_groups + 1)), weighted,
                         every_label=every_label)
              for _ in range(n_chunks)]
    acc = make(kind)
    for i, (cols, g, w) in enumerate(chunks):
        acc.update(*cols, groups=g, sample_weight=w)
        if every_label:
            assert acc._stack is not None  # (every chunk went to the stack)
        if i == 1:  # a read between chunks changes nothing
            check(acc, merged_on_arrival(kind, chunks[:2]))
    check(acc, merged_on_arrival(kind, chunks))


@pytest.mark.parametrize("kind", ["confusion", "paired"])
def test_a_chunk_of_other_labels_leaves_the_stack(kind):
    rng = np.random.default_rng(1)
    chunks = [chunk_data(kind, rng, 300, 5, False, labels=2),
              chunk_data(kind, rng, 300, 7, False, labels=3),
              chunk_data(kind, rng, 300, 6, False, labels=2)]
    acc = make(kind)
    for cols, g, w in chunks:
        acc.update(*cols, groups=g)
    assert acc._stack is None
    check(acc, merged_on_arrival(kind, chunks))


@pytest.mark.parametrize("kind", sorted(WEIGHTED))
def test_weighted_after_unweighted_is_refused_and_changes_nothing(kind):
    rng = np.random.default_rng(2)
    first = chunk_data(kind, rng, 300, 5, False)
    acc = make(kind).update(*first[0], groups=first[1])
    before = {k: v.to_dict() for k, v in zip(acc.keys(), acc.state.states)}
    cols, g, w = chunk_data(kind, rng, 100, 8, True)
    with pytest.raises(ValueError, match="weights"):
        acc.update(*cols, groups=g, sample_weight=w)
    assert acc.keys() == list(before)
    for key, state in zip(acc.keys(), acc.state.states):
        same_state(state, type(state).from_dict(before[key]))


@pytest.mark.parametrize("kind", FAMILIES)
def test_a_group_handed_out_keeps_its_updates(kind):
    rng = np.random.default_rng(3)
    chunks = [chunk_data(kind, rng, 400, 4, False) for _ in range(3)]
    acc = make(kind)
    acc.update(*chunks[0][0], groups=chunks[0][1])
    key = acc.keys()[0]
    one = acc[key]
    rows = chunks[1][1] == key
    one.update(*(c[rows] for c in chunks[1][0]))  # the group's accumulator, updated
    acc.update(*chunks[2][0], groups=chunks[2][1])
    # the handed-out accumulator's rows count, and later chunks still reach every group
    # (its own pass sums in another order than the grouped one: to rounding)
    sub = [chunks[0], ([c[rows] for c in chunks[1][0]], chunks[1][1][rows], None), chunks[2]]
    check(acc, merged_on_arrival(kind, sub), close_state)


@pytest.mark.parametrize("kind", FAMILIES)
def test_stacked_accumulators_pickle_merge_and_load(kind):
    rng = np.random.default_rng(4)
    chunks = [chunk_data(kind, rng, 500, 9, False) for _ in range(4)]
    a, b = make(kind), make(kind)
    for cols, g, _ in chunks[:2]:
        a.update(*cols, groups=g)
    for cols, g, _ in chunks[2:]:
        b.update(*cols, groups=g)
    want = merged_on_arrival(kind, chunks)
    a2 = pickle.loads(pickle.dumps(a))
    merged = GroupedAccumulator.merge_all([a2, b])
    assert sorted(merged.keys()) == sorted(want)
    for key, state in zip(merged.keys(), merged.state.states):
        assert state.n_samples == want[key].n_samples
    loaded = GroupedAccumulator.from_dict(a.to_dict())
    check(loaded, merged_on_arrival(kind, chunks[:2]))
    # the pickled and loaded copies take more chunks as the original does
    cols, g, _ = chunks[2]
    for x in (a, a2, loaded):
        x.update(*cols, groups=g)
    want3 = merged_on_arrival(kind, chunks[:3])
    for x in (a, a2, loaded):
        for key, state in zip(x.keys(), x.state.states):
            assert state.n_samples == want3[key].n_samples
    check(a, want3)


def test_metrics_of_stacked_groups_equal_each_groups_rows():
    rng = np.random.default_rng(5)
    acc = GroupedAccumulator("regression")
    ys, ps, gs = [], [], []
    for _ in range(5):
        (y, p), g, _ = chunk_data("regression", rng, 1000, 20, False)
        acc.update(y, p, groups=g)
        ys.append(y), ps.append(p), gs.append(g)
    y, p, g = (np.concatenate(v) for v in (ys, ps, gs))
    got = acc.mean_squared_error()
    for key in got:
        rows = g == key
        assert got[key] == pytest.approx(np.mean((y[rows] - p[rows]) ** 2), rel=1e-12)


@pytest.mark.parametrize("kind, metric", [
    ("confusion", "accuracy_score"), ("calibration", "brier_score_loss"),
    ("proba", "log_loss"), ("regression", "mean_squared_error"),
    ("ranking", "roc_auc_score")])
def test_overall_is_every_row_in_one_accumulator(kind, metric):
    from fastmetrics.streaming import KINDS

    rng = np.random.default_rng(6)
    acc, plain = make(kind), KINDS[kind](**({"labels": [0, 1]} if kind == "proba" else {}))
    assert acc.overall().n_samples == 0
    for _ in range(3):
        cols, g, _ = chunk_data("calibration" if kind == "ranking" else kind, rng, 2000, 30,
                                False)
        acc.update(*cols, groups=g)
        plain.update(*cols)
    whole = acc.overall()
    assert type(whole) is type(plain) and whole.n_samples == plain.n_samples == 6000
    got, want = getattr(whole, metric)(), getattr(plain, metric)()
    if kind in ("confusion", "ranking"):  # (counts: exactly)
        assert got == want
    else:
        assert got == pytest.approx(want, rel=1e-12)
    # a new accumulator: the groups are untouched by what is done to it
    whole.update(*cols)
    assert acc.overall().n_samples == 6000


def test_a_chunk_the_kernels_do_not_take_keeps_the_stacked_rows():
    # negative weights: the regression chunk goes group by group, after stacked chunks
    # (read or not in between), and stacked chunks come again after it
    yt = np.arange(6.0)
    yp = yt + 1
    g = list("aabbab")
    w2 = np.ones(4)
    w2[0] = -0.5
    for read in (False, True):
        acc = GroupedAccumulator("regression")
        acc.update(yt, yp, groups=g, sample_weight=np.ones(6))
        if read:
            acc.mean_absolute_error()
        acc.update(yt[:4], yp[:4], groups=list("accc"), sample_weight=w2)
        acc.update(yt, yp, groups=g, sample_weight=np.ones(6))
        assert {k: acc[k].n_samples for k in acc.keys()} == {"a": 7, "b": 6, "c": 3}
        assert acc.mean_absolute_error() == pytest.approx({"a": 1.0, "b": 1.0, "c": 1.0})


def test_weighted_confusion_after_stacked_chunks_is_refused():
    y, p, g = [0, 1, 1, 0, 1, 0], [0, 1, 0, 0, 1, 1], list("aabbab")
    acc = GroupedAccumulator("confusion").update(y, p, groups=g)
    with pytest.raises(ValueError, match="weights"):
        acc.update(y, p, groups=g, sample_weight=np.ones(6))
    assert {k: acc[k].n_samples for k in acc.keys()} == {"a": 3, "b": 3}


def test_a_chunk_too_large_for_a_table_after_a_stacked_one():
    # many classes: the second chunk's G x K x K table would pass the dense bound and goes
    # group by group; the first chunk's stacked rows stay
    rng = np.random.default_rng(8)
    chunks = [(rng.integers(0, 200, 4000), rng.integers(0, 200, 4000),
               rng.integers(0, n_groups, 4000)) for n_groups in (300, 500)]
    acc = GroupedAccumulator("confusion")
    for y, p, g in chunks:
        acc.update(y, p, groups=g)
    y, p, g = (np.concatenate(c) for c in zip(*chunks))
    got = acc.accuracy_score()
    assert sum(acc[k].n_samples for k in acc.keys()) == 8000
    for key in list(got)[:20]:
        assert got[key] == pytest.approx(np.mean(y[g == key] == p[g == key]))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.int8, bool])
def test_contingency_groups_from_one_count_are_each_groups_own_state(dtype):
    from fastmetrics._states.contingency import ContingencyState, grouped_states

    rng = np.random.default_rng(5)
    n, k = 4_000, 40
    g = rng.integers(0, k, n)
    a = rng.integers(0, 7, n).astype(dtype)
    b = rng.integers(0, 5, n).astype(dtype)
    states = grouped_states(g, k, a, b)
    assert states is not None and len(states) == k
    for key, state in enumerate(states):
        same_state(state, ContingencyState.from_arrays(a[g == key], b[g == key]))
    # the accumulator takes them, chunk by chunk, and agrees with scikit-learn per group
    acc = GroupedAccumulator("contingency")
    for s in range(0, n, 1_500):
        acc.update(a[s:s + 1_500], b[s:s + 1_500], groups=g[s:s + 1_500])
    got = acc.metric("adjusted_rand_score")
    import sklearn.metrics as skm

    for key in range(k):
        assert got[key] == pytest.approx(skm.adjusted_rand_score(a[g == key], b[g == key]),
                                         rel=1e-12, abs=1e-15)


def test_contingency_groups_fall_back_where_one_count_does_not_apply():
    from fastmetrics._states.contingency import ContingencyState, grouped_states

    g = np.array([0, 0, 1, 1])
    with pytest.warns(UserWarning, match="continuous"):  # (scikit-learn's, as one-shot)
        floats = grouped_states(g, 2, np.array([1.5, 2.0, 1.5, 3.0]), np.array([0, 1, 0, 1]))
    assert floats is None
    assert grouped_states(g, 2, np.array([1, 2, 1, 3], dtype=np.int32),
                          np.array([0, 1, 0, 1], dtype=np.int64)) is None  # two dtypes
    assert grouped_states(g, 3, np.array([1, 2, 1, 3]), np.array([0, 1, 0, 1])) is None
    wide, pred = np.array([0, 10**12, 1, 3]), np.array([0, 1, 0, 1])
    for key, state in enumerate(grouped_states(g, 2, wide, pred)):  # encoded: the same
        same_state(state, ContingencyState.from_arrays(wide[g == key], pred[g == key]))
    acc = GroupedAccumulator("contingency").update(["x", "y", "x", "z"], [0, 1, 0, 1],
                                                   groups=g)  # text: each group's own state
    assert acc.metric("adjusted_rand_score") == {0: 1.0, 1: 1.0}


def test_pinball_groups_from_one_pass_are_each_groups_own_state():
    from fastmetrics._states.pinball import PinballState, grouped_states

    rng = np.random.default_rng(8)
    n, k = 5_000, 30
    g = rng.integers(0, k, n)
    y = rng.normal(size=n)
    p = (y + rng.normal(size=n)).astype(np.float32)  # (float32 read as it is)
    states = grouped_states(g, k, y, p, None)
    for key, state in enumerate(states):
        want = PinballState.from_arrays(y[g == key], p[g == key])
        close_state(state, want)
        assert state.sums[3] == want.sums[3] == (g == key).sum()  # counts exactly
    # the accumulator takes them chunk by chunk; scikit-learn's loss per group, any alpha
    import sklearn.metrics as skm

    acc = GroupedAccumulator("pinball")
    for s in range(0, n, 1_700):
        acc.update(y[s:s + 1_700], p[s:s + 1_700], groups=g[s:s + 1_700])
    got = acc.metric("mean_pinball_loss", alpha=0.2)
    for key in range(k):
        assert got[key] == pytest.approx(
            skm.mean_pinball_loss(y[g == key], p[g == key], alpha=0.2), rel=1e-12)
    # where one pass does not apply: weights, a key without rows, two outputs
    assert grouped_states(g, k, y, p, np.ones(n)) is None
    assert grouped_states(g, k + 1, y, p, None) is None
    assert grouped_states(g, k, np.stack([y, y], 1), np.stack([p, p], 1), None) is None
    bad = y.copy()
    bad[7] = np.inf
    with pytest.raises(ValueError, match="infinity|too large|non-finite"):
        grouped_states(g, k, bad, p, None)


def test_squared_log_groups_from_one_pass_are_each_groups_own_state():
    from fastmetrics._states.deviance import SquaredLogState, grouped_squared_log

    rng = np.random.default_rng(9)
    n, k = 5_000, 30
    g = rng.integers(0, k, n)
    y = rng.gamma(2.0, 1.0, n)
    p = (y * rng.uniform(0.7, 1.3, n)).astype(np.float32)
    y[:5] = -1.5  # values <= -1 are counted, as the one-shot pass counts them
    states = grouped_squared_log(g, k, y, p, None)
    for key, state in enumerate(states):
        want = SquaredLogState.from_arrays(y[g == key], p[g == key])
        close_state(state, want)
    import sklearn.metrics as skm

    ok = y > -1  # scikit-learn refuses values <= -1; so do the groups that hold them
    acc = GroupedAccumulator("squared_log")
    for s in range(0, n, 1_700):
        acc.update(y[ok][s:s + 1_700], p[ok][s:s + 1_700], groups=g[ok][s:s + 1_700])
    got = acc.metric("mean_squared_log_error")
    for key in range(k):
        rows = g[ok] == key
        assert got[key] == pytest.approx(
            skm.mean_squared_log_error(y[ok][rows], p[ok][rows]), rel=1e-12)
    with pytest.raises(ValueError, match="less than or equal to -1|-1"):
        GroupedAccumulator("squared_log").update(y, p, groups=g).metric(
            "mean_squared_log_error")
    assert grouped_squared_log(g, k, y, p, np.ones(n)) is None
    assert grouped_squared_log(g, k + 1, y, p, None) is None
    bad = y.copy()
    bad[9] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        grouped_squared_log(g, k, bad, p, None)
