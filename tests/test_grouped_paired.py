"""The paired counts by group (two models' labels of the same rows, per slice) from one
counting pass: each group's state is the one its rows alone give, for every integer label
dtype; other labels, wide ranges and weights go to each group's own build.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastmetrics._states import paired
from fastmetrics.states import PairedConfusionState
from fastmetrics.streaming import GroupedAccumulator


def _same(a, b):
    da, db = a.to_dict(), b.to_dict()
    assert sorted(da) == sorted(db)
    for k in da:
        x, y = np.asarray(da[k]), np.asarray(db[k])
        assert x.dtype == y.dtype and x.tolist() == y.tolist(), k


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), n_groups=st.integers(1, 12), k=st.integers(1, 5),
       lo=st.integers(-3, 3), dtype=st.sampled_from(["int8", "int64", "uint16", "bool"]),
       seed=st.integers(0, 2**16))
def test_each_group_is_its_rows_state(n, n_groups, k, lo, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        cols = [rng.integers(0, 2, n).astype(bool) for _ in range(3)]
    else:
        lo = max(lo, 0) if dtype.startswith("u") else lo
        cols = [(lo + rng.integers(0, k, n)).astype(dtype) for _ in range(3)]
    codes = rng.integers(0, n_groups, n)
    states = paired.grouped(codes, n_groups, *cols)
    assert states is not None and len(states) == n_groups
    for g, state in enumerate(states):
        rows = codes == g
        if not rows.any():
            assert state.n_samples == 0
            continue
        _same(state, PairedConfusionState.from_arrays(*(c[rows] for c in cols)))


def test_labels_the_pass_does_not_take_go_to_each_group():
    codes = np.array([0, 1, 1])
    assert paired.grouped(codes, 2, ["a", "b", "a"], ["a", "a", "b"], ["b", "b", "a"]) is None
    wide = np.array([0, 10**6, 5], dtype=np.int64)
    assert paired.grouped(codes, 2, wide, wide, wide) is None
    # and the grouped accumulator gives the same states through either road
    acc = GroupedAccumulator("paired").update(["a", "b", "a"], ["a", "a", "b"],
                                             ["b", "b", "a"], groups=codes)
    assert acc[1].state.n_samples == 2


def test_uint64_labels_past_int64_go_to_each_group():
    big = np.array([2**64 - 2, 2**64 - 1, 2**64 - 1], dtype=np.uint64)
    other = big[::-1].copy()
    codes = np.array([0, 0, 1])
    assert paired.grouped(codes, 2, big, other, big) is None  # past the kernel's int64
    acc = GroupedAccumulator("paired").update(big, other, big, groups=codes)
    for g in range(2):
        rows = codes == g
        _same(acc[g].state, PairedConfusionState.from_arrays(big[rows], other[rows],
                                                             big[rows]))


def test_bad_codes_and_lengths_are_named():
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="group code 5 at row 2"):
        paired.grouped(np.array([0, 1, 5]), 2, y, y, y)
    with pytest.raises(ValueError, match="group code -1 at row 0"):
        paired.grouped(np.array([-1, 1, 0]), 2, y, y, y)
    with pytest.raises(ValueError, match="same length|inconsistent|lengths"):
        paired.grouped(np.array([0, 1]), 2, y, y, y)


def test_grouped_accumulator_uses_the_pass_and_matches_the_generic_rule():
    rng = np.random.default_rng(2)
    n = 5_000
    y, a, b = (rng.integers(0, 3, n) for _ in range(3))
    g = rng.integers(0, 40, n)
    fast = GroupedAccumulator("paired").update(y, a, b, groups=g)
    slow = GroupedAccumulator("paired")
    slow._counted = lambda *args: None  # each group built on its own
    slow.update(y, a, b, groups=g)
    assert fast.keys() == slow.keys()
    for key in fast.keys():
        _same(fast[key].state, slow[key].state)
