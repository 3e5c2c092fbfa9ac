"""fastmetrics.ranking against scikit-learn 1.9.1: values, curves, warnings and errors."""

import threading
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import fastmetrics as fm
from fastmetrics._states import ranking
from fastmetrics.states import RankingState

RTOL = 1e-12

BINARY_FUNCS = ["roc_auc_score", "average_precision_score"]


def _call(fn, *args, **kwargs):
    """(result, [(category, message)], exception type or None), for both libraries."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            res = fn(*args, **kwargs)
            exc = None
        except ValueError as e:
            res, exc = None, type(e)
    return res, [(w.category, str(w.message)) for w in rec], exc


def _same(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.shape == b.shape
    assert a.dtype == b.dtype or (a.ndim == 0 and b.ndim == 0), (a.dtype, b.dtype)
    np.testing.assert_allclose(b, a, rtol=RTOL, atol=1e-15, equal_nan=True)


def check_parity(name, *args, **kwargs):
    ref, ref_w, ref_exc = _call(getattr(skm, name), *args, **kwargs)
    got, got_w, got_exc = _call(getattr(fm, name), *args, **kwargs)
    assert (ref_exc is None) == (got_exc is None), (ref_exc, got_exc)
    if ref_exc is None:
        _same(ref, got)
        assert type(got) is type(ref) or isinstance(got, (float, np.floating))
    assert ref_w == got_w
    return got


# ----------------------------------------------------------------------------- strategies
@st.composite
def binary_problem(draw, max_n=60):
    n = draw(st.integers(1, max_n))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 1)))
    n_levels = draw(st.sampled_from([1, 2, 3, 10, 1000]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    levels = draw(hnp.arrays(np.float64, n, elements=st.integers(0, n_levels - 1)))
    scale = draw(st.sampled_from([1.0, 1e-3, -7.5, 1e300]))
    s = (levels * scale).astype(dtype) if scale != 1e300 else levels.astype(dtype)
    w = None
    if draw(st.booleans()):
        w = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25])))
        if not w.any():
            w[0] = 1.0
    return y, s, w


@given(binary_problem())
def test_binary_scores_match_sklearn(prob):
    y, s, w = prob
    for name in BINARY_FUNCS:
        check_parity(name, y, s, sample_weight=w)
    if len(np.unique(y)) == 2:
        for max_fpr in (0.25, 0.5, 1.0):
            check_parity("roc_auc_score", y, s, sample_weight=w, max_fpr=max_fpr)


@given(binary_problem(), st.booleans())
def test_binary_curves_match_sklearn(prob, drop):
    y, s, w = prob
    check_parity("roc_curve", y, s, sample_weight=w, drop_intermediate=drop)
    check_parity("precision_recall_curve", y, s, sample_weight=w, drop_intermediate=drop)


@pytest.mark.parametrize("n", [1, 2, 5, 1000, 20000, 300000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_and_tied(n, dtype):
    rng = np.random.default_rng(n)
    y = rng.integers(0, 2, n)
    for s in (rng.random(n), rng.integers(0, 7, n), np.full(n, 0.5), rng.normal(size=n) * 1e10):
        s = s.astype(dtype)
        for name in BINARY_FUNCS:
            check_parity(name, y, s)
        check_parity("roc_curve", y, s)
        check_parity("precision_recall_curve", y, s)
    w = rng.random(n)
    check_parity("roc_auc_score", y, s, sample_weight=w)
    check_parity("average_precision_score", y, s, sample_weight=w)


def test_huge_n_against_sklearn():
    rng = np.random.default_rng(3)
    n = 2_000_000
    y = rng.random(n) < 0.1
    s = np.round(rng.random(n), 4)
    for name in BINARY_FUNCS:
        check_parity(name, y, s)


# ----------------------------------------------------------------------------- the key sort
def _sort_cases():
    """(name, n) pairs on both sides of every switch in fm_sort_u64: insertion (<= 48 keys),
    MSD recursion, in-cache LSD buckets (> 1024 keys), and plain LSD in
    [LSD_FROM, LSD_UNTIL)."""
    from fastmetrics._kernels import ranking as _rank

    sizes = [0, 1, 2, 48, 49, 1000, 5000, _rank.LSD_FROM - 1, _rank.LSD_FROM,
             _rank.LSD_UNTIL - 1, _rank.LSD_UNTIL, 1_500_000]
    return sizes


def _key_sets(n, rng):
    u = rng.integers(0, 2**64, n, dtype=np.uint64)
    yield "random", u
    yield "few distinct", rng.integers(0, 5, n).astype(np.uint64) << np.uint64(40)
    yield "constant", np.full(n, 12345, dtype=np.uint64)
    yield "low bits only", u & np.uint64(0x3FF)
    yield "high bits only", u & np.uint64(0xFFF0000000000000)
    sk = u >> np.uint64(20)  # one huge bucket and a few outliers
    sk[: max(n // 1000, 1)] |= np.uint64(1 << 63)
    yield "skewed", sk
    yield "float keys", np.sort(rng.random(n)).view(np.uint64)[::-1].copy()


@pytest.mark.parametrize("n", _sort_cases())
def test_key_sort_is_a_stable_sort(n):
    from fastmetrics._kernels import ranking as _rank

    rng = np.random.default_rng(n)
    for name, keys in _key_sets(n, rng):
        w = np.arange(n, dtype=np.float64)  # original positions: checks stability
        got, gw = _rank._py_sort_keys(keys, w)
        order = np.argsort(keys, kind="stable")
        np.testing.assert_array_equal(got, keys[order], err_msg=name)
        np.testing.assert_array_equal(gw, w[order], err_msg=name)
        got2, none = _rank._py_sort_keys(keys)
        assert none is None
        np.testing.assert_array_equal(got2, keys[order], err_msg=name)


@pytest.mark.parametrize("n", [(1 << 17) - 1, 1 << 17, 400_001])
@pytest.mark.parametrize("kind", ["distinct", "ties at the cut", "one positive block"])
def test_split_walk_matches_serial_walk_and_threads(n, kind):
    """From 2^17 samples the statistics walk runs in two halves cut at a key: the result must
    equal the serial walk (curve summary) and sklearn, for any thread count."""
    rng = np.random.default_rng(n)
    y = rng.integers(0, 2, n)
    if kind == "distinct":
        s = rng.random(n)
    elif kind == "ties at the cut":
        s = np.where(rng.random(n) < 0.6, 0.5, rng.random(n))
    else:
        s = rng.random(n)
        y[:] = 0
        y[np.argsort(s)[-1000:]] = 1  # every positive above every negative
    state = RankingState.from_arrays(y, s)
    auc, ap = ranking.roc_auc(state), ranking.average_precision(state)
    got = {}
    for threads in (1, 2):
        got[threads] = (fm.roc_auc_score(y, s, n_threads=threads),
                        fm.average_precision_score(y, s, n_threads=threads))
    assert got[1] == got[2]
    assert got[1][0] == auc  # sums of integers: exact
    assert got[1][1] == pytest.approx(ap, rel=1e-14)
    assert got[1][0] == pytest.approx(skm.roc_auc_score(y, s), rel=RTOL)
    assert got[1][1] == pytest.approx(skm.average_precision_score(y, s), rel=RTOL)


# ----------------------------------------------------------------------------- small fast path
SMALL_MAX = 2048  # _rank.binary_plain's stack scratch limit


def _plain(y, s, mode):
    """_rank.binary_plain as ranking calls it (stack scratch when small, else the cache)."""
    return ranking.plain(y, s, mode)


@pytest.mark.parametrize("n", [1, 2, 3, 1000, SMALL_MAX, SMALL_MAX + 1, 300_000])
@pytest.mark.parametrize("ydt", [np.int8, np.int32, np.int64, np.uint8, bool, np.int16])
@pytest.mark.parametrize("sdt", [np.float32, np.float64])
def test_small_fast_path_matches_sklearn(n, ydt, sdt):
    rng = np.random.default_rng(n)
    y = (rng.integers(0, 2, n) if n > 2 else np.arange(n) % 2).astype(ydt)
    s = rng.integers(0, 50, n).astype(sdt) / 7  # ties
    taken = n > 1 and ydt is not np.int16
    for mode, name in enumerate(BINARY_FUNCS):
        got = _plain(y, s, mode)
        assert (got is not None) == taken
        if taken:
            assert got == pytest.approx(getattr(skm, name)(y, s), rel=RTOL)
        check_parity(name, y, s)


@pytest.mark.parametrize(
    "y, s",
    [
        ([0, 0, 0], [0.1, 0.2, 0.3]),  # one class: nan + warning / AP warning
        ([1, 1, 1], [0.1, 0.2, 0.3]),
        ([0, 1, 2], [0.1, 0.2, 0.3]),  # three classes
        ([0, 2, 2, 0], [0.1, 0.2, 0.3, 0.4]),  # AP: pos_label 1 not a label
        ([-1, 1, 1, -1], [0.1, 0.2, 0.3, 0.4]),
        ([0, 1, 1, 0], [0.1, np.nan, 0.3, 0.4]),  # non-finite score
        ([0, 1, 1, 0], [0.1, np.inf, 0.3, 0.4]),
        ([0, 1, 1], [0.1, 0.2, 0.3, 0.4]),  # length mismatch
        # large: the third label / the bad score comes late (found by the partition pass)
        (np.r_[np.zeros(3000, int), np.ones(3000, int), 2], np.linspace(0, 1, 6001)),
        (np.r_[np.ones(3000, int), np.zeros(3000, int)], np.r_[np.linspace(0, 1, 5999), np.nan]),
        (np.zeros(6000, int), np.linspace(0, 1, 6000)),
        (np.r_[np.zeros(3000, int), np.full(3000, 2)], np.linspace(0, 1, 6000)),
    ],
)
def test_small_fast_path_declines_or_agrees(y, s):
    y = np.array(y)
    s = np.array(s)
    for mode, name in enumerate(BINARY_FUNCS):
        got = _plain(y, s, mode)
        ref, _, exc = _call(getattr(skm, name), y, s)
        if got is not None:  # only clean binary input is answered
            assert exc is None and got == pytest.approx(ref, rel=RTOL)
        check_parity(name, y, s)


def test_small_fast_path_layouts():
    from fastmetrics._kernels import ranking as _rank

    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 600)
    s = rng.random(1200)[::2]
    ref = skm.roc_auc_score(y, s)
    assert _plain(y, s, 0) == pytest.approx(ref, rel=RTOL)  # strided scores
    assert _plain(y.astype(">i8"), s, 0) is None  # byte-swapped: general path
    assert _plain(y[:, None], s, 0) is None  # 2-D: general path
    assert _plain(list(y), s, 0) is None
    assert _rank.binary_plain(np.tile(y, 4), np.tile(s, 4), 0) is None  # large, no scratch
    for yy, ss in ((y.astype(">i8"), s), (y[:, None], s), (list(y), list(s))):
        assert fm.roc_auc_score(yy, ss) == pytest.approx(ref, rel=RTOL)
    # options other than the defaults take the general path with the same numbers
    assert fm.roc_auc_score(y, s, average="weighted") == pytest.approx(ref, rel=RTOL)
    assert fm.average_precision_score(y, s, pos_label=np.int64(1)) == pytest.approx(
        skm.average_precision_score(y, s), rel=RTOL)


# ----------------------------------------------------------------------------- labels
@pytest.mark.parametrize(
    "y, kwargs",
    [
        ([-1, 1, 1, -1, 1], {}),
        ([True, False, True, True, False], {}),
        (np.array([0, 1, 1, 0, 1], dtype=np.uint8), {}),
        (np.array([0, 1, 1, 0, 1], dtype=np.int16), {}),
        (np.array([0.0, 1.0, 1.0, 0.0, 1.0]), {}),
        (["a", "b", "b", "a", "b"], {"pos_label": "b"}),
        ([2, 3, 3, 2, 3], {"pos_label": 3}),
        ([1, 2, 3, 2, 3], {"pos_label": 2}),
        ([0, 0, 0, 0, 0], {}),
        ([1, 1, 1, 1, 1], {}),
        ([0, 1, 1, 0, 1], {"pos_label": 7}),
        ([1, 2, 2, 1, 2], {}),
        (["a", "b", "b", "a", "b"], {}),
    ],
)
def test_label_conventions(y, kwargs):
    s = np.array([0.1, 0.9, 0.4, 0.4, 0.7])
    for name in ("roc_curve", "precision_recall_curve"):
        check_parity(name, y, s, **kwargs)
    check_parity("average_precision_score", y, s, **kwargs) if "pos_label" in kwargs else None
    check_parity("roc_auc_score", y, s)
    check_parity("average_precision_score", y, s)


def test_single_class_warns_nan():
    with pytest.warns(skm._ranking.UndefinedMetricWarning, match="Only one class"):
        assert np.isnan(fm.roc_auc_score([1, 1, 1], [0.2, 0.3, 0.1]))
    with pytest.warns(UserWarning, match="No positive class found"):
        assert fm.average_precision_score([0, 0], [0.2, 0.3]) == 0.0


def test_summary_is_mergeable_state():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 500)
    s = rng.integers(0, 40, 500) / 8.0
    w = rng.random(500)
    whole = RankingState.from_arrays(y, s, w)
    a = RankingState.from_arrays(y[:200], s[:200], w[:200])
    b = RankingState.from_arrays(y[200:], s[200:], w[200:])
    merged = a.merge(b)
    np.testing.assert_array_equal(merged.thresholds, whole.thresholds)
    np.testing.assert_allclose(merged.weights, whole.weights, rtol=RTOL)
    auc, ap = ranking.roc_auc(merged), ranking.average_precision(merged)
    assert auc == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), rel=RTOL)
    assert ap == pytest.approx(skm.average_precision_score(y, s, sample_weight=w), rel=RTOL)
    _same(skm.roc_curve(y, s, sample_weight=w), ranking.roc(merged))


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", BINARY_FUNCS + ["roc_curve", "precision_recall_curve"])
@pytest.mark.parametrize(
    "y, s, kwargs, match",
    [
        ([0, 1, 1], [0.1, np.nan, 0.3], {}, "non-finite"),
        ([0, 1, 1], [0.1, np.inf, 0.3], {}, "non-finite"),
        ([0, 1, 1], [0.1, -np.inf, 0.3], {}, "non-finite"),
        ([0, 1, 1], [0.1, 0.2], {}, "inconsistent"),
        ([], [], {}, "empty"),
        ([0, 1, 1], [0.1, 0.2, 0.3], {"sample_weight": [1.0, np.nan, 1.0]}, "sample_weight"),
        ([0, 1, 1], [0.1, 0.2, 0.3], {"sample_weight": [0.0, 0.0, 0.0]}, "non-zero"),
    ],
)
def test_bad_input_raises(name, y, s, kwargs, match):
    with pytest.raises(ValueError, match=match):
        getattr(fm, name)(y, s, **kwargs)
    with pytest.raises((ValueError, IndexError)):  # sklearn's AP: IndexError on empty input
        getattr(skm, name)(y, s, **kwargs)


def test_not_binary_raises():
    for name in ("roc_curve", "precision_recall_curve"):
        with pytest.raises(ValueError):
            getattr(fm, name)([0, 1, 2], [0.1, 0.2, 0.3])
        with pytest.raises(ValueError, match="pos_label is not specified"):
            getattr(fm, name)([1, 2, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="not a valid label"):
        fm.average_precision_score([0, 2, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="continuous"):
        fm.roc_auc_score([0.5, 1.0], [0.1, 0.2])
    with pytest.raises(ValueError, match="max_fpr"):
        fm.roc_auc_score([0, 1], [0.1, 0.2], max_fpr=0)
    with pytest.raises(ValueError, match="multi_class"):
        fm.roc_auc_score([0, 1, 2], [[1, 0, 0], [0, 1, 0], [0, 0, 1]])


# ----------------------------------------------------------------------------- multiclass
def _proba(rng, n, k, ties):
    p = rng.random((n, k))
    if ties:
        p = np.round(p * 3)  + 0.5
    return p / p.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("average", ["macro", "weighted", None, "micro"])
@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
def test_multiclass_roc_auc(ties, average, multi_class):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, 300)
    p = _proba(rng, 300, 4, ties)
    if multi_class == "ovo" and average in (None, "micro"):
        with pytest.raises((ValueError, NotImplementedError)):
            fm.roc_auc_score(y, p, multi_class=multi_class, average=average)
        return
    check_parity("roc_auc_score", y, p, multi_class=multi_class, average=average)
    if multi_class == "ovr":
        w = rng.random(300)
        check_parity("roc_auc_score", y, p, multi_class="ovr", average=average, sample_weight=w)
        check_parity("roc_auc_score", np.array(list("abcd"))[y], p, multi_class="ovr",
                     average=average)


@pytest.mark.parametrize("average", ["macro", "weighted", "samples", "micro", None])
def test_multilabel_and_multiclass_ap_auc(average):
    rng = np.random.default_rng(5)
    Y = rng.integers(0, 2, (200, 5))
    S = np.round(rng.random((200, 5)), 2)
    w = rng.random(200)
    for name in BINARY_FUNCS:
        check_parity(name, Y, S, average=average)
        check_parity(name, Y.astype(bool), np.asfortranarray(S), average=average, sample_weight=w)
    y = rng.integers(0, 3, 200)
    check_parity("average_precision_score", y, S[:, :3], average=average)


# ----------------------------------------------------------------------------- layouts
def test_layouts_dtypes_and_no_modification():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 400)
    s = rng.random(800)[::2]  # strided
    ref = skm.roc_auc_score(y, s)
    for yy in (y, y.astype(np.int8), y.astype(np.uint64), y.astype(bool),
               y.astype(y.dtype.newbyteorder(">"))):
        for ss in (s, s.astype(s.dtype.newbyteorder(">")), np.ascontiguousarray(s)):
            yy2, ss2 = yy.copy(), ss.copy()
            yy2.flags.writeable = False
            ss2.flags.writeable = False
            assert fm.roc_auc_score(yy2, ss2) == pytest.approx(ref, rel=RTOL)
            np.testing.assert_array_equal(yy2, yy)
            np.testing.assert_array_equal(ss2, ss)
    assert fm.average_precision_score(y, s.astype(np.float32)) == pytest.approx(
        skm.average_precision_score(y, s.astype(np.float32)), rel=RTOL)


# ----------------------------------------------------------------------------- threads / memory
def test_threads_give_serial_result():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 20000)
    s = rng.random(20000)
    y.flags.writeable = False
    s.flags.writeable = False
    expected = (fm.roc_auc_score(y, s), fm.average_precision_score(y, s))
    errors = []

    def work():
        for _ in range(50):
            got = (fm.roc_auc_score(y, s), fm.average_precision_score(y, s))
            if got != expected:
                errors.append(got)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_no_memory_leak():
    psutil = pytest.importorskip("psutil")
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 5000)
    s = rng.random(5000)
    w = rng.random(5000)
    proc = psutil.Process()

    def run(k):
        for _ in range(k):
            fm.roc_auc_score(y, s, sample_weight=w)
            fm.roc_curve(y, s)
            fm.average_precision_score(y, s)

    run(200)
    before = proc.memory_info().rss
    run(3000)
    assert proc.memory_info().rss - before < 8 * 2**20


# ----------------------------------------------------------------------------- NDCG / MRR
@given(st.integers(1, 12), st.integers(2, 8), st.sampled_from([None, 1, 2, 5]),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_ndcg_matches_sklearn(n, m, k, ignore_ties, seed):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, 4, (n, m))
    ys = rng.integers(0, 3, (n, m)) * 0.5
    w = rng.random(n) + 0.1
    check_parity("ndcg_score", yt, ys, k=k, ignore_ties=ignore_ties)
    check_parity("ndcg_score", yt, ys, k=k, sample_weight=w)


def test_ndcg_bad_input():
    with pytest.raises(ValueError, match="k must be"):
        fm.ndcg_score([[1, 0]], [[0.1, 0.2]], k=0)
    with pytest.raises(ValueError, match="negative"):
        fm.ndcg_score([[-1, 0]], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="NaN"):
        fm.ndcg_score([[1, 0]], [[np.nan, 0.2]])
    with pytest.raises(ValueError, match="2-D"):
        fm.ndcg_score([1, 0], [0.1, 0.2])
    with pytest.raises(ValueError, match="more than 1 document"):
        fm.ndcg_score([[1], [0]], [[0.1], [0.2]])


def _mrr_slow(rel, s):
    out = []
    for r, row in zip(rel, s):
        if not r.any():
            out.append(0.0)
            continue
        best = max(row[j] for j in range(len(row)) if r[j])
        out.append(1.0 / (1 + sum(v > best for v in row)))
    return float(np.mean(out))


@given(st.integers(1, 20), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_mrr_matches_slow_reference(n, m, seed):
    rng = np.random.default_rng(seed)
    rel = rng.random((n, m)) < 0.3
    s = rng.integers(0, 4, (n, m)).astype(float)
    assert fm.mean_reciprocal_rank(rel, s) == pytest.approx(_mrr_slow(rel, s), rel=RTOL)
    idx = rng.integers(0, m, n)
    onehot = np.eye(m, dtype=bool)[idx]
    assert fm.mean_reciprocal_rank(idx, s) == pytest.approx(_mrr_slow(onehot, s), rel=RTOL)


def test_mrr_bad_input():
    with pytest.raises(ValueError, match="column indices"):
        fm.mean_reciprocal_rank([3], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="inconsistent"):
        fm.mean_reciprocal_rank([0, 1], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="NaN"):
        fm.mean_reciprocal_rank([0], [[np.nan, 0.2]])
