"""Supervised clustering metrics: parity with scikit-learn (hypothesis and scikit-learn's edge
cases), errors and warnings, the contingency state (merge in any split, export, pickling),
the streaming accumulator and the Dask functions."""

import json
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cluster as skc
from sklearn.metrics.cluster._expected_mutual_info_fast import (
    expected_mutual_information as sk_emi,
)

import fastmetrics as fm
import fastmetrics.cluster as fmc
from fastmetrics._states import contingency as cs
from fastmetrics.states import ContingencyState, StateError, load_state
from fastmetrics.streaming import ContingencyAccumulator

SCORES = ["rand_score", "adjusted_rand_score", "mutual_info_score",
          "adjusted_mutual_info_score", "normalized_mutual_info_score", "homogeneity_score",
          "completeness_score", "v_measure_score", "fowlkes_mallows_score"]
ARRAYS = ["contingency_matrix", "pair_confusion_matrix"]
AVERAGES = ["min", "geometric", "arithmetic", "max"]


def _close(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        return
    assert type(got) is type(want), (type(got), type(want))
    if want == 0.0:
        assert abs(got) <= 1e-15
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=0), (got, want)


def _same(name, *args, **kw):
    """fastmetrics' and scikit-learn's function of that name give the same value, or raise
    the same exception type (v_measure_score with beta=0 divides by zero in both)."""
    try:
        want = getattr(skc, name)(*args, **kw)
    except Exception as exc:
        with pytest.raises(type(exc)):
            getattr(fm, name)(*args, **kw)
        return
    _close(getattr(fm, name)(*args, **kw), want)


def _check_all(a, b):
    for name in SCORES + ARRAYS + ["homogeneity_completeness_v_measure"]:
        _same(name, a, b)
    for m in AVERAGES:
        _same("adjusted_mutual_info_score", a, b, average_method=m)
        _same("normalized_mutual_info_score", a, b, average_method=m)
    for beta in (0.0, 0.5, 2.0):
        _same("v_measure_score", a, b, beta=beta)
        _same("homogeneity_completeness_v_measure", a, b, beta=beta)


@st.composite
def labellings(draw, max_k=8):
    n = draw(st.integers(1, 60))
    kt = draw(st.integers(1, max_k))
    kp = draw(st.integers(1, max_k))
    a = np.array(draw(st.lists(st.integers(0, kt - 1), min_size=n, max_size=n)))
    b = np.array(draw(st.lists(st.integers(0, kp - 1), min_size=n, max_size=n)))
    kind = draw(st.sampled_from(["int", "neg", "str", "int8", "uint64", "float", "wide",
                                 "bool", "mixed"]))
    if kind == "neg":
        a, b = a - 3, -b
    elif kind == "str":
        a, b = np.array([f"c{v}" for v in a]), np.array([f"k{v}" for v in b])
    elif kind == "int8":
        a, b = a.astype(np.int8), b.astype(np.int8)
    elif kind == "uint64":
        a, b = a.astype(np.uint64) + np.uint64(2**63), b.astype(np.uint64)
    elif kind == "float":
        a, b = a.astype(float), b.astype(float) * 2
    elif kind == "wide":  # beyond the dense range: encoded
        a, b = a * 10**9, b * -(10**12)
    elif kind == "bool":
        a, b = a % 2 == 0, b % 2 == 1
    elif kind == "mixed":  # two integer dtypes
        a, b = a.astype(np.int16), b.astype(np.uint32)
    return a, b


@given(labellings())
def test_parity_with_sklearn(ab):
    _check_all(*ab)


@given(labellings(max_k=60))
def test_parity_many_clusters(ab):
    _check_all(*ab)


@given(labellings(), st.integers(1, 5), st.randoms(use_true_random=False))
def test_merge_in_any_split(ab, parts, rnd):
    a, b = ab
    cuts = sorted(rnd.sample(range(len(a) + 1), min(parts, len(a) + 1)))
    whole = ContingencyState.from_arrays(a, b)
    pieces = [ContingencyState.from_arrays(a[i:j], b[i:j])
              for i, j in zip([0] + cuts, cuts + [len(a)])]
    rnd.shuffle(pieces)
    merged = pieces[0]
    for p in pieces[1:]:
        merged = merged + p
    np.testing.assert_array_equal(cs.table(merged), cs.table(whole))
    np.testing.assert_array_equal(merged.true_values, whole.true_values)
    np.testing.assert_array_equal(merged.pred_values, whole.pred_values)
    acc = ContingencyAccumulator()
    for i, j in zip([0] + cuts, cuts + [len(a)]):
        acc.update(a[i:j], b[i:j])
    for name in SCORES + ARRAYS:
        _close(getattr(acc, name)(), getattr(fm, name)(a, b))
    _close(acc.adjusted_mutual_info_score(average_method="max"),
           fm.adjusted_mutual_info_score(a, b, average_method="max"))
    _close(acc.v_measure_score(beta=3.0), fm.v_measure_score(a, b, beta=3.0))


# ------------------------------------------------------------------ scikit-learn's cases


@pytest.mark.parametrize("a, b", [
    ([0, 0, 0, 0], [1, 1, 1, 1]),             # a single cluster each
    ([0, 1, 2, 3], [3, 2, 1, 0]),             # all singletons
    ([0, 1, 2, 3], [0, 0, 0, 0]),             # singletons against one cluster
    ([0, 0, 0, 0], [0, 1, 2, 3]),
    ([0], [0]),
    ([0, 0, 1, 1], [1, 1, 0, 0]),
    ([0, 0, 0, 1, 1, 1], [0, 1, 0, 1, 2, 2]),
    ([-5, -5, 7, 7, 7], [3, 1, 1, 1, 2]),
    (["a", "b", "a", "c"], ["x", "x", "y", "y"]),
    ([1.0, 2.0, 1.0], [0, 0, 3]),
    (list(range(100)), list(range(100))),
    (list(range(100)), [0] * 100),
])
def test_edge_cases(a, b):
    _check_all(np.array(a), np.array(b))
    _check_all(a, b)


def test_empty_labellings_as_sklearn():
    # scikit-learn accepts empty labellings (ensure_min_samples=0) and returns these values
    # (mutual_info_score raises math's "math domain error" ValueError, and so do we)
    for name in SCORES + ["homogeneity_completeness_v_measure"]:
        _same(name, [], [])
    with pytest.raises(ValueError):
        fm.mutual_info_score([], [])
    np.testing.assert_array_equal(fm.pair_confusion_matrix([], []),
                                  skc.pair_confusion_matrix([], []))
    assert fm.contingency_matrix([], []).shape == (0, 0)


def test_single_cluster_and_singletons_large():
    rng = np.random.default_rng(3)
    a = rng.permutation(5000)
    b = rng.integers(0, 3, 5000)
    _check_all(a, b)  # 5000 x 3 singletons table, encoded path (beyond the dense range)
    _check_all(np.zeros(500, dtype=np.int64), np.arange(500))


def test_many_clusters_never_dense():
    # 3e5 x 3e5 clusters: 9e10 cells would be 720 GB dense; the state holds the 3e5 cells
    n = 300_000
    a = np.arange(n) * 7
    b = np.arange(n)[::-1].copy()
    s = ContingencyState.from_arrays(a, b)
    assert s.shape == (n, n) and s.counts.shape == (n,)
    assert fm.adjusted_rand_score(a, b) == skc.adjusted_rand_score(a, b)
    assert fm.fowlkes_mallows_score(a, b) == skc.fowlkes_mallows_score(a, b)
    m = fm.contingency_matrix(a, b, sparse=True)
    assert m.nnz == n and m.shape == (n, n)


def test_generated_int_paths_agree():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 40, 3000)
    b = rng.integers(-20, 20, 3000)
    want = fm.contingency_matrix(a, b)
    for ta in (np.int8, np.int16, np.int32, np.uint16, np.float64, str):
        got = fm.contingency_matrix(a.astype(ta), b.astype(np.int64))
        np.testing.assert_array_equal(got, want if ta is not str else skc.contingency_matrix(
            a.astype(str), b))


def test_large_random_ami_bit_parity():
    rng = np.random.default_rng(5)
    for n, k in ((20_000, 30), (5_000, 100), (300, 50)):
        a = rng.integers(0, k, n)
        b = (a + rng.integers(0, 3, n)) % k
        for x, y in ((a, b), (a, rng.integers(0, k, n))):
            _close(fm.adjusted_mutual_info_score(x, y), skc.adjusted_mutual_info_score(x, y))
            s = ContingencyState.from_arrays(x, y)
            want = sk_emi(skc.contingency_matrix(x, y, sparse=True), n)
            assert cs.expected_mutual_info(s) == pytest.approx(want, rel=1e-13)


def test_public_expected_mutual_information():
    rng = np.random.default_rng(8)
    for t in (np.array([[70000]]), np.array([[2, 1], [0, 3]]), np.array([[5, 0], [0, 0]]),
              rng.integers(0, 30, (12, 9)), np.array([[1, 2, 3]])):
        for c in (t, sp.csr_matrix(t)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # log(0) of an empty row, in both
                want = sk_emi(c, int(t.sum()))
                got = fmc.expected_mutual_information(c, int(t.sum()))
            assert type(got) is float and got == pytest.approx(want, rel=1e-13, abs=1e-300)
    with pytest.raises(TypeError, match="n_samples"):
        fmc.expected_mutual_information(np.ones((2, 2)), 4.0)


def test_expected_mutual_info_overflow_and_int_overflow():
    s = ContingencyState.from_table(np.array([[70000]]))
    assert cs.expected_mutual_info(s) <= 1
    x = np.array([1] * (52632 + 2529) + [2] * (14660 + 793) + [3] * (3271 + 204)
                 + [4] * (814 + 39) + [5] * (316 + 20))
    y = np.array([0] * 52632 + [1] * 2529 + [0] * 14660 + [1] * 793 + [0] * 3271
                 + [1] * 204 + [0] * 814 + [1] * 39 + [0] * 316 + [1] * 20)
    _close(fm.mutual_info_score(x, y), skc.mutual_info_score(x, y))
    _close(fm.fowlkes_mallows_score(x, y), skc.fowlkes_mallows_score(x, y))
    big = np.zeros(100_000, dtype=np.int64)
    big[50_000:] = 1
    _close(fm.adjusted_rand_score(big, big[::-1].copy()),
           skc.adjusted_rand_score(big, big[::-1].copy()))


# ------------------------------------------------------------------ contingency_matrix


def test_contingency_matrix_options():
    a, b = [0, 2, 2, 1, 1, 5], [1, 1, 1, 0, 3, 3]
    for kw in ({}, {"eps": 0.5}, {"dtype": np.float32}, {"dtype": np.int32}, {"eps": 0}):
        got, want = fm.contingency_matrix(a, b, **kw), skc.contingency_matrix(a, b, **kw)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    got = fm.contingency_matrix(a, b, sparse=True)
    want = skc.contingency_matrix(a, b, sparse=True)
    assert type(got) is type(want) and got.dtype == want.dtype
    np.testing.assert_array_equal(got.toarray(), want.toarray())
    with pytest.raises(ValueError, match="Cannot set 'eps' when sparse=True"):
        fm.contingency_matrix(a, b, eps=1e-10, sparse=True)
    with pytest.raises(ValueError, match="'eps' parameter"):
        fm.contingency_matrix(a, b, eps=-1.0)
    with pytest.raises(ValueError, match="'eps' parameter"):  # checked first, as sklearn
        fm.contingency_matrix(a, b, eps=-1.0, sparse=True)


def test_mutual_info_with_contingency():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 5, 200), rng.integers(0, 7, 200)
    dense = skc.contingency_matrix(a, b)
    for c in (dense, dense.astype(float), dense.tolist(), sp.csr_matrix(dense),
              sp.coo_matrix(dense), sp.csc_matrix(dense), dense[:, :1], np.zeros((3, 3)),
              np.array([[0, 2, 0], [1, 0, 0], [0, 0, 0]])):
        _same("mutual_info_score", None, None, contingency=c)


# ------------------------------------------------------------------ errors and warnings


@pytest.mark.parametrize("name", SCORES + ["pair_confusion_matrix"])
def test_errors_as_sklearn(name):
    f = getattr(fm, name)
    with pytest.raises(ValueError,
                       match=r"Found input variables with inconsistent numbers of samples: "
                             r"\[2, 3\]"):
        f([0, 1], [1, 1, 1])
    with pytest.raises(ValueError, match=r"labels_true must be 1D: shape is \(2"):
        f([[0, 1], [1, 0]], [1, 1, 1])
    with pytest.raises(ValueError, match=r"labels_pred must be 1D: shape is \(2"):
        f([0, 1, 0], [[1, 1], [0, 0]])
    with pytest.raises(ValueError, match=r"labels_true must be 1D: shape is \(3, 1\)"):
        f(np.zeros((3, 1)), [0, 1, 0])
    with pytest.raises(ValueError, match="Input labels_true contains NaN"):
        f([0.0, np.nan], [0, 1])
    with pytest.raises(ValueError, match="Input labels_pred contains infinity"):
        f([0, 1], [0.0, np.inf])


def test_parameter_errors():
    with pytest.raises(ValueError, match="'beta' parameter of v_measure_score"):
        fm.v_measure_score([0, 1], [0, 1], beta=-1)
    with pytest.raises(ValueError, match="'beta' parameter"):
        fm.homogeneity_completeness_v_measure([0, 1], [0, 1], beta="x")
    for f in (fm.adjusted_mutual_info_score, fm.normalized_mutual_info_score):
        with pytest.raises(ValueError, match="'average_method' parameter"):
            f([0, 1], [0, 1], average_method="median")
    with pytest.raises(ValueError, match="Mix of label input types"):
        ContingencyState.from_arrays([0], [0]) + ContingencyState.from_arrays(["a"], [0])


def test_continuous_warning():
    rng = np.random.default_rng(42)
    x, y = rng.random(50), np.linspace(0.01, 1, 50)
    msg = ("Clustering metrics expects discrete values but received continuous values for "
           "label, and continuous values for target")
    with pytest.warns(UserWarning, match=msg):
        got = fm.adjusted_rand_score(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert got == skc.adjusted_rand_score(x, y)
    with pytest.warns(UserWarning, match="discrete values for label, and continuous"):
        fm.rand_score([0, 1], [0.5, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # contingency_matrix does not warn (scikit-learn)
        fm.contingency_matrix([0.5, 1.5], [0, 1])


def test_inputs_never_modified():
    a = np.array([3, 1, 2, 2], dtype=np.int32)
    b = np.array(["x", "y", "x", "z"])
    a0, b0 = a.copy(), b.copy()
    _check_all(a, b.astype(object))
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_namespace():
    for name in fmc.__all__:
        assert getattr(fm, name) is getattr(fmc, name)
        assert name in fm.__all__


# ------------------------------------------------------------------ the state


def test_state_export_round_trip():
    a = np.array(["a", "b", "b", "c", "a"])
    b = np.array([3, -1, 3, 3, 7], dtype=np.int16)
    s = ContingencyState.from_arrays(a, b)
    for d in (s.to_dict(), json.loads(json.dumps(s.to_dict(as_lists=True)))):
        t = load_state(d)
        assert type(t) is ContingencyState
        assert t.true_values.dtype == s.true_values.dtype
        assert t.pred_values.dtype == s.pred_values.dtype
        np.testing.assert_array_equal(cs.table(t), cs.table(s))
        assert cs.adjusted_mutual_info(t) == cs.adjusted_mutual_info(s)
    t = pickle.loads(pickle.dumps(s))
    np.testing.assert_array_equal(cs.table(t), cs.table(s))
    acc = ContingencyAccumulator().update(a, b)
    acc2 = pickle.loads(pickle.dumps(acc))
    assert acc2.adjusted_rand_score() == acc.adjusted_rand_score()
    acc3 = ContingencyAccumulator.from_dict(acc.to_dict())
    assert acc3.v_measure_score() == acc.v_measure_score()
    empty = ContingencyState.empty()
    assert load_state(empty.to_dict()).n_samples == 0
    assert (empty + s) is s and (s + empty) is s


@pytest.mark.parametrize("key, value, match", [
    ("counts", np.array([1, 0, 1, 1, 1, 1]), "positive"),
    ("rows", np.array([0, 0, 1, 2, 2, 9]), "outside"),
    ("cols", np.array([-1, 0, 0, 0, 0, 0]), "outside"),
    ("n_samples", 7, "sum to"),
    ("true_values", np.array(["b", "a", "c"]), "sorted"),
    ("rows", np.array([0, 0, 0, 1, 2, 2]), "row-major"),
])
def test_state_load_checks(key, value, match):
    s = ContingencyState.from_arrays(["a", "a", "b", "c", "c", "b"], [1, 2, 2, 1, 2, 1])
    d = s.to_dict()
    assert d["counts"].shape == (6,)
    d[key] = value
    with pytest.raises(StateError, match=match):
        load_state(d)


def test_accumulator_basics():
    acc = ContingencyAccumulator()
    with pytest.raises(ValueError, match="no samples seen"):
        acc.adjusted_rand_score()
    acc.update([], [])
    assert acc.n_samples == 0
    acc.update([0, 1], ["a", "b"])
    other = ContingencyAccumulator().update([2, 2], ["a", "c"])
    both = sum([acc, other])
    assert both.n_samples == 4
    _close(both.mutual_info_score(), fm.mutual_info_score([0, 1, 2, 2], ["a", "b", "a", "c"]))
    _close(both.result(), fm.homogeneity_completeness_v_measure([0, 1, 2, 2],
                                                                ["a", "b", "a", "c"]))
    with pytest.raises(ValueError, match="Mix of label input types"):
        acc.update(["x"], ["a"])


# ------------------------------------------------------------------ dask


def test_dask_functions():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    fmd = pytest.importorskip("fastmetrics.dask")
    rng = np.random.default_rng(11)
    a = rng.integers(-3, 9, 3001)
    b = rng.integers(0, 40, 3001).astype(str)
    with dask.config.set(scheduler="synchronous"):
        for name in SCORES + ARRAYS:
            got = getattr(fmd, name)(da.from_array(a, chunks=700), da.from_array(b, chunks=500))
            _close(got, getattr(fm, name)(a, b))
        _close(fmd.adjusted_mutual_info_score(da.from_array(a, chunks=1000), b,
                                              average_method="geometric", split_every=2),
               fm.adjusted_mutual_info_score(a, b, average_method="geometric"))
        got = fmd.contingency_matrix(da.from_array(a, chunks=999), b, sparse=True)
        np.testing.assert_array_equal(got.toarray(), fm.contingency_matrix(a, b))
        lazy = fmd.v_measure_score(da.from_array(a, chunks=999), b, beta=2.0, compute=False)
        _close(lazy.compute(), fm.v_measure_score(a, b, beta=2.0))
        acc = fmd.accumulate("contingency", da.from_array(a, chunks=300), b)
        _close(acc.fowlkes_mallows_score(), fm.fowlkes_mallows_score(a, b))


def test_same_state_for_any_thread_count():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 100, 600_000).astype(np.int32)
    b = rng.integers(-50, 50, 600_000).astype(np.int32)
    one = ContingencyState.from_arrays(a, b, n_threads=1)
    for nt in (2, 3):
        other = ContingencyState.from_arrays(a, b, n_threads=nt)
        np.testing.assert_array_equal(cs.table(other), cs.table(one))
    np.testing.assert_array_equal(cs.table(one), skc.contingency_matrix(a, b))
    acc = ContingencyAccumulator().update(a, b, n_threads=2)
    assert acc.adjusted_rand_score() == skc.adjusted_rand_score(a, b)


def test_python_threads_match_serial():
    import threading

    rng = np.random.default_rng(6)
    a = rng.integers(0, 30, 300_000)
    b = np.where(rng.random(300_000) < 0.6, a, rng.integers(0, 30, 300_000))
    calls = [lambda: fm.adjusted_mutual_info_score(a, b), lambda: fm.adjusted_rand_score(a, b),
             lambda: fm.v_measure_score(a.astype(np.int16), b),
             lambda: fm.contingency_matrix(a[:5000].astype(str), b[:5000]).tolist()]
    expected = [c() for c in calls]
    errors = []

    def worker(seed):
        for i in np.random.default_rng(seed).permutation(len(calls) * 3) % len(calls):
            got = calls[i]()
            if got != expected[i]:
                errors.append((i, got))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_no_allocation_proportional_to_n():
    import tracemalloc

    rng = np.random.default_rng(5)
    peaks = []
    for n in (100_000, 3_000_000):
        a = rng.integers(0, 50, n).astype(np.int32)
        b = rng.integers(0, 50, n).astype(np.int32)
        fm.adjusted_rand_score(a, b)  # warm up
        tracemalloc.start()
        try:
            fm.adjusted_rand_score(a, b)
            fm.v_measure_score(a, b)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    # integer labels are read in place: a copy of the 3e6 labels alone would be 12 MB
    assert max(peaks) < 2**21, peaks


def test_repeated_calls_do_not_leak():
    import gc

    psutil = pytest.importorskip("psutil")
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, 5_000).astype(str)
    b = rng.integers(0, 9, 5_000)

    def many(k):
        for _ in range(k):
            fm.adjusted_mutual_info_score(a, b)
            ContingencyAccumulator().update(a, b).update(a, b).fowlkes_mallows_score()

    many(100)
    gc.collect()
    before = psutil.Process().memory_info().rss
    many(1_000)
    gc.collect()
    grown = psutil.Process().memory_info().rss - before
    assert grown < 4 * 2**20, f"RSS grew by {grown / 2**20:.1f} MiB"
