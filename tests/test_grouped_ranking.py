"""Exact ranking states by group: the chunk validated once, its rows ordered by group, each
group's run sorted into its state by the kernel. Each group's state is the one its rows
alone give (``RankingState.from_arrays``), and the grouped accumulator's values are
scikit-learn's on each group's rows, for any thread count and chunking."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastmetrics._states.ranking import grouped_exact
from fastmetrics.states import RankingState
from fastmetrics.streaming import GroupedAccumulator

skm = pytest.importorskip("sklearn.metrics")


@st.composite
def chunks(draw):
    n = draw(st.integers(1, 300))
    n_groups = draw(st.integers(1, 9))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = rng.integers(0, n_groups, n)
    _, codes = np.unique(codes, return_inverse=True)  # every group holds rows
    kind = draw(st.sampled_from(["int", "text", "bool", "one", "pm1"]))
    y = rng.integers(0, 2, n)
    y = {"int": y, "text": np.array(["no", "yes"])[y], "bool": y.astype(bool),
         "one": np.full(n, 7), "pm1": 2 * y - 1}[kind]
    ties = draw(st.booleans())
    s = np.round(rng.random(n), 1) if ties else rng.random(n)
    if draw(st.booleans()):
        s = s.astype(np.float32)
    w = None if draw(st.booleans()) else rng.random(n) * 3
    return codes.astype(np.int64), int(codes.max()) + 1, y, s, w


@settings(max_examples=300, deadline=None)
@given(chunks(), st.sampled_from([1, 2, 3]))
def test_each_group_state_is_its_rows_state(chunk, n_threads):
    codes, n_groups, y, s, w = chunk
    states = grouped_exact(codes, n_groups, y, s, w, n_threads)
    assert states is not None and len(states) == n_groups
    for g, got in enumerate(states):
        rows = codes == g
        want = RankingState.from_arrays(y[rows], s[rows], None if w is None else w[rows])
        np.testing.assert_array_equal(got.thresholds, want.thresholds)
        np.testing.assert_array_equal(got.classes, want.classes)
        assert got.classes.dtype == want.classes.dtype
        np.testing.assert_array_equal(got.counts, want.counts)
        assert got.weights.shape == want.weights.shape and got.weighted == want.weighted
        if w is None:
            np.testing.assert_array_equal(got.weights, want.weights)
        else:
            np.testing.assert_allclose(got.weights, want.weights, rtol=1e-13)


def test_grouped_auc_and_ap_equal_sklearn_over_chunks():
    rng = np.random.default_rng(3)
    n = 20_000
    g = rng.choice(["a", "b", "c", "d", "e"], n)
    y = rng.integers(0, 2, n)
    s = np.round(np.clip(0.3 * y + rng.random(n), 0, 1), 3)
    w = rng.random(n)
    acc = GroupedAccumulator("ranking")
    for i in range(0, n, 3_000):
        acc.update(y[i:i + 3_000], s[i:i + 3_000], groups=g[i:i + 3_000],
                   sample_weight=w[i:i + 3_000])
    auc = acc.metric("roc_auc_score")
    ap = acc.metric("average_precision_score")
    for k in "abcde":
        m = g == k
        assert auc[k] == pytest.approx(skm.roc_auc_score(y[m], s[m], sample_weight=w[m]),
                                       rel=1e-12)
        assert ap[k] == pytest.approx(
            skm.average_precision_score(y[m], s[m], sample_weight=w[m]), rel=1e-12)


def test_refusals_are_the_one_call_errors():
    codes = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="NaN"):
        GroupedAccumulator("ranking").update([0, 1, 0, 1], [0.1, np.nan, 0.3, 0.4],
                                             groups=codes)
    with pytest.raises(ValueError, match="more than two labels"):
        GroupedAccumulator("ranking").update([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4],
                                             groups=codes)
    with pytest.raises(ValueError, match="infinity|NaN"):
        GroupedAccumulator("ranking").update([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4],
                                             groups=codes, sample_weight=[1, np.inf, 1, 1])
    acc = GroupedAccumulator("ranking").update([0, 1], [0.1, 0.2], groups=[0, 0])
    with pytest.raises(ValueError):  # a refused chunk changes nothing
        acc.update([0, 1, 0], [0.5, np.nan, 0.2], groups=[0, 1, 1])
    assert acc.keys() == [0] and acc[0].n_samples == 2


def test_a_key_without_rows_is_not_a_group():
    assert grouped_exact(np.array([0, 2]), 3, [0, 1], [0.2, 0.4], None) is None


def test_threads_give_the_same_states_and_views_export_and_merge():
    """Many groups sorted on threads: the same states for 1 and 4 threads; a group's
    state (a view of the chunk's summary buffers) pickles, exports and merges as any."""
    import pickle

    from fastmetrics.states import load_state

    rng = np.random.default_rng(8)
    n, G = 60_000, 300
    codes = rng.integers(0, G, n)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 3)
    one = grouped_exact(codes, G, y, s, None, 1)
    four = grouped_exact(codes, G, y, s, None, 4)
    for a, b in zip(one, four):
        np.testing.assert_array_equal(a.thresholds, b.thresholds)
        np.testing.assert_array_equal(a.weights, b.weights)
    st = one[17]
    again = pickle.loads(pickle.dumps(st))
    loaded = load_state(st.to_dict())
    for other in (again, loaded):
        np.testing.assert_array_equal(other.thresholds, st.thresholds)
        np.testing.assert_array_equal(other.weights, st.weights)
    rows = np.flatnonzero((codes == 17) | (codes == 18))
    merged = one[17].merge(one[18])
    want = RankingState.from_arrays(y[rows], s[rows])
    np.testing.assert_array_equal(merged.thresholds, want.thresholds)
    np.testing.assert_array_equal(merged.weights, want.weights)


def test_few_large_groups_keep_their_rows(monkeypatch):
    """Fewer groups than threads, each large: kept as rows (their metrics from one threaded
    pass each); many groups: the grouped kernel."""
    import fastmetrics.streaming as streaming

    calls = []
    real = streaming.ranking.grouped_exact

    def spy(*a, **k):
        calls.append(a[1])
        return real(*a, **k)

    monkeypatch.setattr(streaming.ranking, "grouped_exact", spy)
    monkeypatch.setattr(streaming, "threads_for", lambda kernel, n, nt=None: 4)
    rng = np.random.default_rng(9)
    n = 20_000
    y, s = rng.integers(0, 2, n), rng.random(n)
    few = GroupedAccumulator("ranking").update(y, s, groups=rng.integers(0, 2, n))
    assert calls == []
    many = GroupedAccumulator("ranking").update(y, s, groups=rng.integers(0, 50, n))
    assert calls == [50]
    for acc in (few, many):
        for key, value in acc.roc_auc_score().items():
            assert 0.4 < value < 0.6, key


def test_kernel_refuses_offsets_and_shapes():
    from fastmetrics._kernels import ranking as kr

    pos, s = np.zeros((4, 1), np.uint8), np.zeros((4, 1))
    out = [np.empty(4) for _ in range(3)]
    stats, m, bad = np.zeros((2, kr.N_STATS)), np.zeros(2, np.int64), np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="offsets"):
        kr.grouped_summaries(pos, s, np.empty(0), False, np.array([0, 3, 2]), *out, stats,
                             m, bad)
    with pytest.raises(ValueError, match="inconsistent"):
        kr.grouped_summaries(pos, s[:3], np.empty(0), False, np.array([0, 2, 4]), *out,
                             stats, m, bad)
    s[2, 0] = np.nan
    assert kr.grouped_summaries(pos, s, np.empty(0), False, np.array([0, 2, 4]), *out,
                                stats, m, bad) == 1 and bad[1] == kr.BAD_SCORE
