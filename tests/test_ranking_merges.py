"""Exact ranking states merged in linear time: the merge walk is bit for bit the merge it
replaced (a sort of the union), ``merge_all`` is the left fold, the accumulator that keeps
chunks' rows gives the one pass's state and numbers, whatever the split, the classes each
chunk holds, the bound on its rows, and bad chunks keep nothing."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics._kernels import ranking as kernel
from fastmetrics._states import ranking
from fastmetrics.states import RankingState
from fastmetrics.streaming import RankingAccumulator
from test_streaming import splits


def sorted_union_merge(a: RankingState, b: RankingState) -> RankingState:
    """The merge law as it was written before the merge walk: the union of the thresholds
    sorted by ``np.unique``, each class's weights added by ``np.bincount``."""
    classes = np.union1d(a.classes, b.classes)
    k = classes.shape[0]
    ia, ib = np.searchsorted(classes, a.classes), np.searchsorted(classes, b.classes)
    counts = np.zeros(k, dtype=np.int64)
    counts[ia] += a.counts
    counts[ib] += b.counts
    ma, mb = a.thresholds.shape[0], b.thresholds.shape[0]
    both = np.zeros((k, ma + mb))
    both[ia, :ma] = a.weights
    both[ib, ma:] = b.weights
    u, inv = np.unique(-np.concatenate([a.thresholds, b.thresholds]), return_inverse=True)
    wts = np.empty((k, u.shape[0]))
    for j in range(k):
        wts[j] = np.bincount(inv, weights=both[j], minlength=u.shape[0])
    return RankingState(-u + 0.0, wts, classes, counts, None, a.weighted or b.weighted)


def bits(a: RankingState, b: RankingState) -> None:
    """The same state, bit for bit (dtypes included)."""
    for name in ("thresholds", "weights", "classes", "counts"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name
    assert a.weighted == b.weighted and a.binned == b.binned


def close(a: RankingState, b: RankingState) -> None:
    for name in ("thresholds", "classes", "counts"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_allclose(a.weights, b.weights, rtol=1e-12, atol=1e-13)


# scores from a few values (ties within and across chunks) or continuous; weights with zeros
problems = st.integers(0, 150).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n),
    st.lists(st.sampled_from([-0.0, 0.0, 0.1, 0.3, 0.9]) | st.floats(-5, 5, width=32),
             min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5]) | st.floats(1e-3, 5.0), min_size=n,
             max_size=n),
))
LABELS = [(0, 1), (-3, 7), ("no", "yes")]


def data(d, weighted, labels, one_class):
    y, s, w = (np.array(v) for v in d)
    if one_class:
        y = np.zeros_like(y)
    return np.array(labels)[y] if y.size else np.array(labels)[:0], s, (w if weighted else None)


def parts_of(bounds, y, s, w):
    return [RankingState.from_arrays(y[a:b], s[a:b], None if w is None else w[a:b],
                                     allow_empty=True, allow_zero_sum=True)
            for a, b in zip(bounds[:-1], bounds[1:])]


@given(problems, st.booleans(), st.sampled_from(LABELS), st.booleans(), st.data())
def test_merge_walk_is_the_sorted_union_bit_for_bit(d, weighted, labels, one_class, draw):
    y, s, w = data(d, weighted, labels, one_class)
    bounds, order, _ = draw.draw(splits(len(y)))
    parts = [parts_of(bounds, y, s, w)[i] for i in order]
    ours, theirs = parts[0], parts[0]
    for p in parts[1:]:
        ours, theirs = ours.merge(p), sorted_union_merge(theirs, p)
        bits(ours, theirs)


@given(problems, st.booleans(), st.sampled_from(LABELS), st.booleans(), st.data())
def test_merge_all_is_the_left_fold(d, weighted, labels, one_class, draw):
    y, s, w = data(d, weighted, labels, one_class)
    bounds, order, _ = draw.draw(splits(len(y)))
    parts = [parts_of(bounds, y, s, w)[i] for i in order]
    fold = parts[0]
    for p in parts[1:]:
        fold = fold.merge(p)
    tree = RankingState.merge_all(parts)
    # counts (unweighted weights) are exact in any order; sample weights are added in the
    # tree's order
    (bits if w is None else close)(tree, fold)
    if len(y):
        (bits if w is None else close)(
            tree, RankingState.from_arrays(y, s, w, allow_zero_sum=True))


def pairwise_tree(parts):
    """``merge_all``'s balanced tree written with two-state merges (neighbours level by
    level, the odd last one carried up)."""
    level = list(parts)
    while len(level) > 1:
        nxt = [level[i].merge(level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + level[len(nxt) * 2:]
    return level[0]


@given(problems, st.booleans(), st.sampled_from(LABELS), st.booleans(), st.data(),
       st.integers(3, 12))
def test_merge_all_of_many_is_the_pairwise_tree_bit_for_bit(d, weighted, labels, one_class,
                                                            draw, k):
    # the one-call merge of three or more exact states: the tree of two-state merges, bit
    # for bit, weights included (the same additions in the same order), whatever classes
    # each part holds (a part may lack one, or hold none)
    y, s, w = data(d, weighted, labels, one_class)
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(y)), min_size=k - 1,
                                     max_size=k - 1)))
    parts = parts_of([0, *cuts, len(y)], y, s, w)
    if draw.draw(st.booleans()):  # parts of one class only, met in any order
        parts = [RankingState.from_arrays(y[y == c], s[y == c],
                                          None if w is None else w[y == c],
                                          allow_empty=True, allow_zero_sum=True)
                 for c in np.unique(y)] + parts
    bits(RankingState.merge_all(parts), pairwise_tree(parts))


def test_merge_all_of_many_mixed_integer_dtypes_and_refusals():
    parts = [RankingState.from_arrays(np.array(y, dtype=dt), [0.2, 0.4][:len(y)])
             for y, dt in (([0, 1], np.int8), ([1], np.int64), ([0], np.uint16))]
    bits(RankingState.merge_all(parts), pairwise_tree(parts))
    with pytest.raises(ValueError, match="more than two labels"):
        RankingState.merge_all([*parts, RankingState.from_arrays([2], [0.3])])
    binned = RankingState.from_arrays([0, 1], [0.1, 0.2], edges=np.array([0.15]))
    with pytest.raises(ValueError, match="different thresholds"):
        RankingState.merge_all([*parts, binned])
    t, w, r = np.array([0.5, 0.1]), np.ones((2, 2)), np.array([[0, 1]] * 3, dtype=np.int64)
    out_t, out_w = np.empty(6), np.empty((2, 6))
    assert kernel.merge_tree([t] * 3, [w] * 3, r, out_t, out_w) == 2
    np.testing.assert_array_equal(out_w[:, :2], 3.0)
    with pytest.raises(ValueError, match="too small"):
        kernel.merge_tree([t] * 3, [w] * 3, r, np.empty(5), np.empty((2, 5)))
    with pytest.raises(ValueError, match="do not match"):
        kernel.merge_tree([t] * 3, [w, w, np.ones((2, 3))], r, out_t, out_w)
    with pytest.raises(ValueError, match="disagree"):
        kernel.merge_tree([t] * 3, [w] * 3, r[:2], out_t, out_w)
    with pytest.raises(ValueError, match="without classes"):
        kernel.merge_tree([t], [w], np.empty((1, 0), dtype=np.int64), out_t, np.empty((0, 6)))


@given(problems, st.booleans(), st.sampled_from(LABELS), st.booleans(), st.data(),
       st.sampled_from([None, 0, 64]))
def test_accumulator_is_one_pass(d, weighted, labels, one_class, draw, bound):
    """Rows kept and sorted once give the one pass's state bit for bit (weighted too); a
    bound small enough to sort every few chunks and merge still gives its counts exactly."""
    y, s, w = data(d, weighted, labels, one_class)
    bounds, _, _ = draw.draw(splits(len(y)))
    acc = RankingAccumulator()
    if bound is not None:
        acc.ROWS_BYTES = bound
    for a, b in zip(bounds[:-1], bounds[1:]):
        acc.update(y[a:b], s[a:b], None if w is None else w[a:b])
    assert acc.n_samples == len(y)
    if not len(y):
        assert acc.state is None
        return
    whole = RankingState.from_arrays(y, s, w, allow_zero_sum=True)
    (bits if bound is None or w is None else close)(acc.state, whole)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_label", [1, 0, None])
def test_auc_and_ap_of_rows_are_the_one_shot_numbers(weighted, pos_label):
    rng = np.random.default_rng(3)
    n = 300_000  # past the size where the statistics walk runs in two halves
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 3)
    w = rng.random(n) if weighted else None
    acc = RankingAccumulator(pos_label=pos_label)
    for i in range(0, n, 70_000):
        acc.update(y[i:i + 70_000], s[i:i + 70_000], None if w is None else w[i:i + 70_000])
    auc = fm.roc_auc_score(y, s, sample_weight=w) if pos_label in (1, None) else \
        fm.roc_auc_score(1 - y, s, sample_weight=w)
    ap = fm.average_precision_score(y, s, sample_weight=w,
                                    pos_label=1 if pos_label is None else pos_label)
    assert acc.roc_auc_score() == auc
    assert acc.average_precision_score() == ap
    assert acc.state is not None  # the rows sorted into a state on request: same numbers
    assert acc.roc_auc_score() == pytest.approx(auc, rel=1e-12, abs=0)
    assert acc.average_precision_score() == pytest.approx(ap, rel=1e-12, abs=0)
    assert acc.roc_auc_score(max_fpr=0.3) == pytest.approx(
        fm.roc_auc_score(y, s, sample_weight=w, max_fpr=0.3) if pos_label in (1, None)
        else fm.roc_auc_score(1 - y, s, sample_weight=w, max_fpr=0.3), rel=1e-12)


@pytest.mark.parametrize("chunks", [
    [[1, 1], [0, 0]],        # the greater class first, the lesser later
    [[0, 0], [1, 1]],
    [[1], [0, 1], [0]],
    [["b", "b"], ["a"]],
    [[True], [False, True]],
])
def test_classes_met_in_any_order(chunks):
    acc = RankingAccumulator(pos_label=None)
    y_all, s_all = [], []
    for i, ys in enumerate(chunks):
        s = np.linspace(0, 1, len(ys)) + i / 7
        acc.update(np.array(ys), s)
        y_all += ys
        s_all += s.tolist()
    whole = RankingState.from_arrays(np.array(y_all), np.array(s_all))
    bits(acc.state, whole)


def test_bad_chunks_keep_nothing():
    acc = RankingAccumulator().update([0, 1, 1], [0.1, 0.5, 0.7])
    with pytest.raises(ValueError, match="more than two labels"):
        acc.update([2, 0], [0.3, 0.4])
    with pytest.raises(ValueError, match="more than two labels"):
        acc.update([0, 1, 2], [0.3, 0.4, 0.5])
    with pytest.raises(ValueError, match=r"Input contains NaN \(non-finite value at index 1\)"):
        acc.update([0, 1], [0.3, np.nan])
    with pytest.raises(ValueError, match="Input contains infinity"):
        acc.update([0, 1], [0.3, -np.inf])
    with pytest.raises(ValueError, match="given for some chunks and not for others"):
        acc.update([0, 1], [0.3, 0.2], sample_weight=[1.0, 2.0])
    assert acc.n_samples == 3
    bits(acc.state, RankingState.from_arrays([0, 1, 1], [0.1, 0.5, 0.7]))
    wacc = RankingAccumulator().update([0, 1], [0.1, 0.5], sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match="Input sample_weight contains NaN"):
        wacc.update([0, 1], [0.3, 0.2], sample_weight=[np.nan, 1.0])
    # a sum that overflows is not a non-finite score
    big = RankingAccumulator().update([0, 1, 1], [1e308, 1e308, -1e308])
    assert big.n_samples == 3


def test_first_chunk_refused_leaves_weights_open():
    acc = RankingAccumulator()
    with pytest.raises(ValueError, match="NaN"):
        acc.update([0, 1], [np.nan, 0.1], sample_weight=[1.0, 1.0])
    acc.update([0, 1], [0.2, 0.1])  # unweighted is still allowed
    assert acc.n_samples == 2


def test_rows_survive_pickles_merges_and_dicts():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 1000), rng.random(1000)
    a = RankingAccumulator().update(y[:400], s[:400])
    b = RankingAccumulator().update(y[400:], s[400:])
    whole = RankingState.from_arrays(y, s)
    bits(pickle.loads(pickle.dumps(a)).merge(b).state, whole)
    bits(RankingAccumulator.merge_all([a, b]).state, whole)
    bits(sum([a, b]).state, whole)
    bits(RankingAccumulator.from_dict(a.to_dict()).merge(b).state, whole)
    assert a.n_samples == 400 and b.n_samples == 600  # inputs untouched


def test_merge_all_refusals():
    with pytest.raises(ValueError, match="at least one"):
        RankingState.merge_all([])
    with pytest.raises(ValueError, match="at least one"):
        RankingAccumulator.merge_all([])
    a = RankingAccumulator().update([0, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="pos_label"):
        RankingAccumulator.merge_all([a, RankingAccumulator(pos_label=0).update([1], [0.3])])
    with pytest.raises(ValueError, match="given for some chunks"):
        RankingAccumulator.merge_all([a, RankingAccumulator().update([1], [0.3], [2.0])])
    with pytest.raises(TypeError):
        RankingAccumulator.merge_all([a, fm.streaming.ConfusionAccumulator()])
    with pytest.raises(ValueError, match="more than two labels"):
        RankingState.merge_all([RankingState.from_arrays([0, 1], [0.1, 0.2]),
                                RankingState.from_arrays([2], [0.3])])
    binned = RankingState.from_arrays([0, 1], [0.1, 0.2], edges=np.array([0.15]))
    with pytest.raises(ValueError, match="different thresholds"):
        RankingState.merge_all([binned, RankingState.from_arrays([0], [0.3])])
    one = RankingState.from_arrays([0], [0.3])
    assert RankingState.merge_all([one]) is one


def test_merge_kernel_refuses_mismatched_arrays():
    t, w, r = np.array([0.5, 0.1]), np.ones((2, 2)), np.array([0, 1], dtype=np.int64)
    out_t, out_w = np.empty(4), np.empty((2, 4))
    assert kernel.merge_runs(t, w, r, t, w, r, out_t, out_w) == 2
    np.testing.assert_array_equal(out_w[:, :2], 2.0)
    with pytest.raises(ValueError, match="too small"):
        kernel.merge_runs(t, w, r, t, w, r, np.empty(3), np.empty((2, 3)))
    with pytest.raises(ValueError, match="do not match"):
        kernel.merge_runs(t, np.ones((2, 3)), r, t, w, r, out_t, out_w)
    with pytest.raises(ValueError, match="do not match"):
        kernel.merge_runs(t, w, np.array([0, 5], dtype=np.int64), t, w, r, out_t, out_w)
    with pytest.raises(ValueError, match="class rows"):
        kernel.merge_runs(t, w, r[:1], t, w, r, out_t, out_w)


def test_merged_binned_states_unchanged():
    e = np.array([0.2, 0.5, 0.8])
    rng = np.random.default_rng(9)
    y, s, w = rng.integers(0, 2, 500), rng.random(500), rng.random(500)
    parts = [RankingState.from_arrays(y[i:i + 100], s[i:i + 100], w[i:i + 100], edges=e)
             for i in range(0, 500, 100)]
    fold = parts[0]
    for p in parts[1:]:
        fold = fold.merge(p)
    close(RankingState.merge_all(parts), fold)
    close(fold, RankingState.from_arrays(y, s, w, edges=e))


def test_rows_reuse_their_buffers_across_accumulators():
    """Buffers let go by one stream serve the next: values do not leak between them."""
    rng = np.random.default_rng(11)
    for _ in range(3):
        y, s = rng.integers(0, 2, 5000), rng.random(5000)
        acc = RankingAccumulator()
        for i in range(0, 5000, 1000):
            acc.update(y[i:i + 1000], s[i:i + 1000])
        bits(acc.state, RankingState.from_arrays(y, s))


def test_dask_warnings_reach_the_client():
    import dask
    import dask.array as da

    import fastmetrics.dask as fmd
    from fastmetrics.exceptions import UndefinedMetricWarning
    y = da.from_array(np.zeros(20, dtype=int), chunks=7)
    s = da.from_array(np.linspace(0, 1, 20), chunks=7)
    with dask.config.set(scheduler="synchronous"):
        with pytest.warns(UndefinedMetricWarning, match="Only one class"):
            assert np.isnan(fmd.roc_auc_score(y, s))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y2 = da.from_array(np.arange(20) % 2, chunks=7)
            assert fmd.roc_auc_score(y2, s) == fm.roc_auc_score(np.arange(20) % 2,
                                                              np.linspace(0, 1, 20))


def test_positive_statistics_of_rows_and_state_agree():
    rng = np.random.default_rng(2)
    y, s = rng.integers(0, 2, 2000), np.round(rng.random(2000), 2)
    rows = ranking.RankingRows()
    lab, sc, w, has_w = ranking.binary_inputs(y, s, None)
    rows.append(lab, sc, w, has_w)
    st = RankingState.from_arrays(y, s)
    for pos in (0, 1, 5):
        np.testing.assert_allclose(ranking.positive_statistics(rows, pos),
                                   ranking.positive_statistics(st, pos), rtol=1e-12)


def test_dask_calls_from_threads_keep_the_process_warnings():
    """The last task records its warnings in its own context: concurrent calls neither
    swap them nor leave the process's warning filters changed."""
    from concurrent.futures import ThreadPoolExecutor

    import dask
    import dask.array as da

    import fastmetrics.dask as fmd
    from fastmetrics.exceptions import UndefinedMetricWarning
    y = da.from_array(np.zeros(40, dtype=int), chunks=9)
    s = da.from_array(np.linspace(0, 1, 40), chunks=9)
    filters = list(warnings.filters)

    def call(_):
        # (no catch_warnings here: it is what is not thread-safe) the test run turns
        # warnings into errors, so each call's warning, raised again on the client, raises
        try:
            fmd.roc_auc_score(y, s)
        except UndefinedMetricWarning:
            return True
        return False

    with dask.config.set(scheduler="threads"):
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(call, range(16)))
    assert warnings.filters == filters
    assert all(results)
    with pytest.warns(UserWarning, match="still shown"):
        warnings.warn("still shown", UserWarning)


def test_rows_let_go_after_a_sort():
    acc = RankingAccumulator()
    acc.ROWS_BYTES = 0  # sort the rows as soon as a second chunk comes
    acc.update(np.arange(100_000) % 2, np.zeros(100_000))
    assert acc._rows.rows == 100_000  # noqa: SLF001 - a chunk alone stays in rows
    acc.update(np.arange(100_000) % 2, np.zeros(100_000))
    rows = acc._rows  # noqa: SLF001 - what the accumulator holds after the sort
    assert rows.rows == 0 and rows.scores.base is None and rows.scores.shape == (0,)
    assert acc.state.thresholds.shape == (1,)


def test_merge_of_hand_built_states():
    """The constructor does not check its arrays: a NaN threshold or another dtype must not
    crash the merge walk (the checked loader refuses them)."""
    good = RankingState.from_arrays([0, 1], [0.2, 0.7])
    odd = RankingState(np.array([np.nan]), np.array([[1.0]]), np.array([1]),
                       np.array([1], dtype=np.int64))
    assert odd.merge(good).thresholds.shape[0] <= 3
    f32 = RankingState(np.array([0.5], dtype=np.float32), np.array([[1]], dtype=np.int64),
                       np.array([1]), np.array([1], dtype=np.int64))
    np.testing.assert_array_equal(f32.merge(good).thresholds, [0.7, 0.5, 0.2])


@given(st.lists(st.tuples(problems, st.integers(2, 6)), min_size=1, max_size=6),
       st.booleans(), st.sampled_from(LABELS), st.data())
def test_merge_each_is_each_groups_merge_bit_for_bit(groups, weighted, labels, draw):
    # every group's first state merged with the tree of its others, one call for all
    # (one-class groups, weights, a group of binned states left to the per-group rule)
    want, got_in = [], []
    for d, k in groups:
        y, s, w = data(d, weighted, labels, draw.draw(st.booleans()))
        cuts = sorted(draw.draw(st.lists(st.integers(0, len(y)), min_size=k - 1,
                                         max_size=k - 1)))
        parts = parts_of([0, *cuts, len(y)], y, s, w)
        got_in.append(parts)
        want.append(RankingState.merge_all([parts[0], RankingState.merge_all(parts[1:])]))
    edges = np.array([0.2, 0.5])
    binned = [RankingState.from_arrays([0, 1], [0.1, 0.7], edges=edges) for _ in range(3)]
    got_in.append(binned)
    want.append(RankingState.merge_all([binned[0], RankingState.merge_all(binned[1:])]))
    got = RankingState.merge_each(got_in)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        bits(a, b)


def test_merge_each_kernel_refusals():
    t, w = np.array([0.5, 0.1]), np.ones((2, 2))
    ks, first = np.array([2], dtype=np.int64), np.array([0, 2], dtype=np.int64)
    out_t, out_w, n = np.empty(4), np.empty((2, 4)), np.empty(1, dtype=np.int64)
    assert kernel.merge_each([t, t], [w, w], first, ks, out_t, out_w, n) == 2
    np.testing.assert_array_equal(out_w[:, :2], 2.0)
    with pytest.raises(ValueError, match="two summaries or more"):
        kernel.merge_each([t], [w], np.array([0, 1], dtype=np.int64), ks, out_t, out_w, n)
    with pytest.raises(ValueError, match="too small"):
        kernel.merge_each([t, t], [w, w], first, ks, np.empty(3), np.empty((2, 3)), n)
    with pytest.raises(ValueError, match="do not match"):
        kernel.merge_each([t, t], [w, np.ones((2, 3))], first, ks, out_t, out_w, n)
    with pytest.raises(ValueError, match="disagree"):
        kernel.merge_each([t, t], [w, w], np.array([0, 1], dtype=np.int64), ks, out_t,
                          out_w, n)


def test_merge_each_is_the_same_on_threads():
    rng = np.random.default_rng(11)
    groups = []
    for _ in range(40):
        # (the kernel's groups: every summary of a group over its classes)
        parts = [RankingState.from_arrays(np.r_[0, 1, rng.integers(0, 2, n)],
                                          np.round(rng.random(n + 2), 3))
                 for n in rng.integers(1, 400, int(rng.integers(2, 6)))]
        groups.append(parts)
    flat = [p for g in groups for p in g]
    first = np.concatenate([[0], np.cumsum([len(g) for g in groups])]).astype(np.int64)
    ks = np.array([g[0].classes.shape[0] for g in groups], dtype=np.int64)
    size = sum(p.thresholds.shape[0] for p in flat)
    outs = []
    for nt in (1, 2, 3):
        thr, wts, n = np.empty(size), np.empty((2, size)), np.empty(40, dtype=np.int64)
        m = kernel.merge_each([p.thresholds for p in flat],
                              [np.ascontiguousarray(p.weights) for p in flat], first, ks,
                              thr, wts, n, nt)
        outs.append((thr[:m].tobytes(), wts[:, :m].tobytes(), n.tobytes()))
    assert outs[0] == outs[1] == outs[2]
