"""det_curve, confusion_matrix_at_thresholds, metric_at_thresholds, auc, dcg_score and the
multilabel ranking metrics (coverage_error, LRAP, label_ranking_loss) against
scikit-learn: values, warnings and errors, streaming in any split, Dask, bad inputs."""

import pickle
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import fastmetrics as fm
import fastmetrics.streaming as fms
from fastmetrics.states import LabelRankingState, RankingState, StateError, load_state

from _parity import check_parity as parity

CURVES = ["det_curve", "confusion_matrix_at_thresholds"]
MULTILABEL = ["coverage_error", "label_ranking_average_precision_score", "label_ranking_loss"]


def check(name, *args, **kwargs):
    return parity(getattr(fm, name), getattr(skm, name), *args, **kwargs)


# ----------------------------------------------------------------------------- strategies
@st.composite
def binary_problem(draw, max_n=50):
    n = draw(st.integers(1, max_n))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 1)))
    n_levels = draw(st.sampled_from([1, 2, 3, 10, 1000]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    levels = draw(hnp.arrays(np.float64, n, elements=st.integers(0, n_levels - 1)))
    s = (levels * draw(st.sampled_from([1.0, 1e-3, -7.5]))).astype(dtype)
    w = None
    if draw(st.booleans()):
        w = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25])))
        if not w.any():
            w[0] = 1.0
    return y, s, w


@st.composite
def multilabel_problem(draw, max_n=25):
    n = draw(st.integers(1, max_n))
    L = draw(st.integers(2, 7))
    y = draw(hnp.arrays(draw(st.sampled_from([np.int64, np.uint8, bool, np.float64])), (n, L),
                        elements=st.integers(0, 1)))
    n_levels = draw(st.sampled_from([1, 2, 3, 100]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    s = draw(hnp.arrays(np.float64, (n, L), elements=st.integers(0, n_levels - 1)))
    s = (s * draw(st.sampled_from([1.0, 0.1, -3.0]))).astype(dtype)
    if draw(st.booleans()):
        s = np.asfortranarray(s)
    if draw(st.booleans()):
        y = np.asfortranarray(y)
    w = None
    if draw(st.booleans()):
        w = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 0.5, 1.0, 2.0])))
        if not w.any():
            w[0] = 1.0
    return y, s, w


# ----------------------------------------------------------------------------- curves
@given(binary_problem(), st.booleans())
def test_curves_match_sklearn(prob, drop):
    y, s, w = prob
    check("det_curve", y, s, sample_weight=w, drop_intermediate=drop)
    check("confusion_matrix_at_thresholds", y, s, sample_weight=w)


@given(binary_problem())
def test_curves_pos_label_and_strings(prob):
    y, s, w = prob
    text = np.array(["neg", "pos"])[y]
    for name in CURVES:
        check(name, text, s, pos_label="pos", sample_weight=w)
        check(name, text, s, sample_weight=w)  # pos_label needed: both raise
        check(name, y * 2 - 1, s, sample_weight=w)  # {-1, 1}
        check(name, y, s, pos_label=0, sample_weight=w)
        check(name, y + 1, s, pos_label=2, sample_weight=w)


def test_curves_edge_cases():
    s = np.array([0.1, 0.4, 0.35, 0.8])
    for y in ([1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 2, 1]):
        for name in CURVES:
            check(name, np.array(y), s)
            check(name, np.array(y), s, pos_label=1)
    # multiclass with a pos_label: the thresholds serve, the DET curve does not
    check("confusion_matrix_at_thresholds", np.array([0, 1, 2, 1]), s, pos_label=2)
    with pytest.raises(ValueError, match="Only one class"):
        fm.det_curve(np.array([0, 1, 2, 1]), s, pos_label=2)
    # finite thresholds reaching fpr = 0 and the inf point
    check("det_curve", np.array([0, 0, 1, 1]), np.array([0.1, 0.2, 0.8, 0.8]))
    check("det_curve", np.array([1, 0, 1, 0]), np.array([0.9, 0.9, 0.1, 0.1]))
    # positional pos_label: scikit-learn's confusion_matrix_at_thresholds still takes it
    check("confusion_matrix_at_thresholds", np.array([1, 1, 2, 2]), s, 2)
    with pytest.warns(FutureWarning, match="Pass pos_label=None as keyword arg"):
        fm.confusion_matrix_at_thresholds(np.array([0, 1, 1, 0]), s, None)
    # positional pos_label, as scikit-learn's det_curve takes it
    check("det_curve", np.array([1, 1, 2, 2]), s, 2)
    # scores of other dtypes keep their dtype in the thresholds
    check("confusion_matrix_at_thresholds", np.array([0, 1, 1, 0]), np.array([3, 1, 2, 2]))
    check("confusion_matrix_at_thresholds", [0, 1, 1, 0], [0.3, 0.1, 0.2, 0.2])


@pytest.mark.parametrize("name", CURVES)
def test_curves_bad_inputs(name):
    f = getattr(fm, name)
    with pytest.raises(ValueError, match="NaN"):
        f([0, 1], [0.5, np.nan])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        f([0, 1, 1], [0.5, 0.2])
    with pytest.raises(ValueError, match="multiclass format is not supported"):
        f([0, 1, 2], [0.5, 0.2, 0.1])
    with pytest.raises(ValueError, match="continuous format is not supported"):
        f([0.5, 1], [0.5, 0.2])
    with pytest.raises(ValueError, match="negative"):
        f([0, 1], [0.5, 0.2], sample_weight=[1, -1])
    for n_threads in (0, -1):
        with pytest.raises(ValueError, match="n_threads"):
            f([0, 1], [0.5, 0.2], n_threads=n_threads)


@pytest.mark.parametrize("n", [5, 10_000, 300_000])
def test_curves_large_same_for_any_threads(n):
    rng = np.random.default_rng(n)
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 50, n) / 7.0
    for name in CURVES:
        want = check(name, y, s)
        for t in (1, 2, 3):
            got = getattr(fm, name)(y, s, n_threads=t)
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a, b)


@given(binary_problem(), st.lists(st.integers(0, 50), max_size=4))
@settings(max_examples=40)
def test_curves_streaming_any_split(prob, cuts):
    y, s, w = prob
    edges = sorted({min(c, y.shape[0]) for c in cuts} | {0, y.shape[0]})
    acc = fms.RankingAccumulator(pos_label=None)
    for a, b in zip(edges[:-1], edges[1:]):
        acc.update(y[a:b], s[a:b], None if w is None else w[a:b])
    s64 = s.astype(np.float64)  # the accumulator's thresholds are float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for drop in (False, True):
            if np.unique(y).shape[0] == 2:
                got = acc.det_curve(drop_intermediate=drop)
                want = fm.det_curve(y, s64, sample_weight=w, drop_intermediate=drop)
                for a, b in zip(got, want):
                    np.testing.assert_allclose(a, b, rtol=1e-12)
        got = acc.confusion_matrix_at_thresholds()
        want = fm.confusion_matrix_at_thresholds(y, s64, sample_weight=w)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_curves_dask():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    import fastmetrics.dask as fmd
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 1000)
    s = rng.integers(0, 30, 1000) / 3.0
    w = rng.random(1000)
    with dask.config.set(scheduler="synchronous"):
        for name in CURVES:
            got = getattr(fmd, name)(da.from_array(y, chunks=170), da.from_array(s, chunks=333),
                                     sample_weight=w)
            want = getattr(fm, name)(y, s, sample_weight=w)
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=1e-12)
        got = fmd.det_curve(da.from_array(np.array(["a", "b"])[y], chunks=100), s,
                            pos_label="a", drop_intermediate=True)
        want = skm.det_curve(np.array(["a", "b"])[y], s, pos_label="a", drop_intermediate=True)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)


# ----------------------------------------------------------------------------- sweeps, auc
@given(binary_problem())
@settings(max_examples=40)
def test_metric_at_thresholds_matches_sklearn(prob):
    y, s, w = prob
    check("metric_at_thresholds", y, s, skm.accuracy_score, sample_weight=w)
    check("metric_at_thresholds", y, s, skm.precision_recall_fscore_support, sample_weight=w,
          metric_params={"average": "binary", "zero_division": 0.0})


def test_metric_at_thresholds_bad_inputs():
    with pytest.raises(TypeError, match="metric_func"):
        fm.metric_at_thresholds([0, 1], [0.1, 0.2], "accuracy")
    with pytest.raises(ValueError, match="NaN"):
        fm.metric_at_thresholds([0, 1], [0.1, np.nan], skm.accuracy_score)
    with pytest.raises(ValueError, match="inconsistent"):
        fm.metric_at_thresholds([0, 1, 0], [0.1, 0.2], skm.accuracy_score)
    with pytest.raises(ValueError, match="at least one sample"):
        fm.metric_at_thresholds([], [], skm.accuracy_score)
    with pytest.raises(ValueError, match="non-zero sample_weight"):
        fm.metric_at_thresholds([0, 1], [0.1, 0.2], skm.accuracy_score, sample_weight=[0, 0])


@given(hnp.arrays(np.float64, st.integers(0, 12), elements=st.floats(-5, 5)),
       st.sampled_from(["up", "down", "any"]), st.integers(0, 2**32 - 1))
def test_auc_matches_sklearn(x, order, seed):
    if order == "up":
        x = np.sort(x)
    elif order == "down":
        x = np.sort(x)[::-1]
    y = np.random.default_rng(seed).random(x.shape[0])
    check("auc", x, y)


def test_auc_edge_cases():
    check("auc", [0, 1], [0, 1, 2])
    check("auc", [[0], [1]], [1, 1])
    check("auc", [[0, 1]], [1, 1])
    check("auc", [1], [1])
    check("auc", [0, 1, 0.5], [1, 1, 1])
    check("auc", np.array([1, 1, 0], dtype=np.float32), np.array([0.5, 0.2, 1.0]))


# ----------------------------------------------------------------------------- dcg
@given(st.integers(1, 10), st.integers(2, 7), st.sampled_from([None, 1, 2, 5]),
       st.sampled_from([2, 10, 0.5, np.e]), st.booleans(), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_dcg_matches_sklearn(n, m, k, base, ties, weighted, seed):
    rng = np.random.default_rng(seed)
    yt = rng.integers(-1, 4, (n, m)).astype(float)
    ys = rng.integers(0, 3, (n, m)) / 2.0
    w = rng.random(n) if weighted else None
    check("dcg_score", yt, ys, k=k, log_base=base, sample_weight=w, ignore_ties=ties)


def test_dcg_bad_inputs():
    y = np.array([[1, 0, 2], [0, 1, 1]])
    s = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
    check("dcg_score", y[0], s[0])
    check("dcg_score", y, s, log_base=0)
    with pytest.raises(ValueError, match="log_base"):
        fm.dcg_score(y, s, log_base=-1)
    with pytest.raises(ValueError, match="Only"):
        fm.dcg_score(y[:, :1], s[:, :1])
    with pytest.raises(ValueError, match="NaN"):
        fm.dcg_score(y, s * np.nan)


# ----------------------------------------------------------------------------- multilabel ranking
@given(multilabel_problem())
def test_multilabel_ranking_matches_sklearn(prob):
    y, s, w = prob
    for name in MULTILABEL:
        check(name, y, s, sample_weight=w)


def test_multilabel_ranking_edge_cases():
    s = np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]])
    for y in ([[0, 0, 0], [0, 0, 0]], [[1, 1, 1], [1, 1, 1]], [[1, 0, 1], [0, 0, 0]]):
        for name in MULTILABEL:
            check(name, np.array(y), s)
            check(name, np.array(y), np.zeros((2, 3)))
    for name in MULTILABEL:
        check(name, np.array([[1], [0]]), np.array([[0.5], [0.2]]))  # one column
        check(name, np.array([1, 0]), np.array([0.5, 0.2]))  # 1-D
        check(name, np.array([[1, 2], [0, 1]]), s[:, :2])  # not 0/1
        check(name, np.array([[1, 0.5], [0, 1]]), s[:, :2])  # continuous
        check(name, np.array([[1, 0], [0, 1]]), s)  # shapes differ
        check(name, np.array([[1, 0], [0, 1]]), s[:, :2], sample_weight=[1.0, -1.0])
        check(name, np.array([[1, 0], [0, 1]]), s[:, :2], sample_weight=[1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="NaN"):
            getattr(fm, name)(np.array([[1, 0], [0, 1]]), np.array([[0.5, np.nan], [1, 2]]))
        with pytest.raises(ValueError, match="0 sample"):
            getattr(fm, name)(np.zeros((0, 3), int), np.zeros((0, 3)))
    # the scores' values are checked before the target type, as scikit-learn does
    for name in MULTILABEL:
        check(name, [0, 1], [np.nan, 1.0])
        check(name, [[0, 1]], [[np.inf, 1.0]])
        with pytest.raises(ValueError, match="NaN"):
            getattr(fm, name)([[0, 1]], [[np.nan, 1.0]])
    for y_true, y_score in (([1, 0, 1], [0.25, 0.5, 0.5]), ([1, 0, 1], [[0.25, 0.5, 0.5]]),
                            ([[1, 0, 1]], [0.25, 0.5, 0.5])):
        with pytest.raises(ValueError, match="Expected 2D array, got 1D array instead"):
            fm.coverage_error(y_true, y_score)
    # weights summing to zero: np.average's error, or LRAP's nan with numpy's warning
    y = np.array([[1, 0], [0, 1]])
    for name in ("coverage_error", "label_ranking_loss"):
        with pytest.raises(ZeroDivisionError):
            getattr(fm, name)(y, s[:, :2], sample_weight=[1.0, -1.0])
    with pytest.warns(RuntimeWarning):
        assert np.isnan(fm.label_ranking_average_precision_score(
            np.array([[1, 1], [1, 1]]), s[:, :2], sample_weight=[0.0, 0.0]))


@pytest.mark.parametrize("n,L", [(1, 2), (5000, 3), (40_000, 12), (3000, 200)])
def test_multilabel_ranking_large_any_threads(n, L):
    rng = np.random.default_rng(n + L)
    y = (rng.random((n, L)) < 0.3).astype(np.int8)
    s = np.asfortranarray((rng.integers(0, 20, (n, L)) / 4).astype(np.float32))
    w = rng.random(n)
    for name in MULTILABEL:
        want = check(name, y, s, sample_weight=w)
        for t in (1, 2, 4):
            assert getattr(fm, name)(y, s, sample_weight=w, n_threads=t) == want
    assert fm.coverage_error(y, s) == skm.coverage_error(y, s)  # integer sums: exact


@pytest.mark.parametrize("L,density", [(10, 0.3), (40, 0.6), (64, 0.1)])
def test_coverage_pass_equals_state_pass(L, density):
    """coverage_error's own pass (one scan a row, no sort) and the state's pass (relevant
    scores counted, or the row sorted when it has more than 16) give the same value to the
    bit; both agree with scikit-learn, ties and signed zeros included."""
    rng = np.random.default_rng(L)
    y = (rng.random((3000, L)) < density).astype(np.int64)
    s = rng.integers(-3, 4, (3000, L)) * 0.5
    s[rng.random(s.shape) < 0.05] = -0.0
    w = rng.random(3000)
    acc = fms.LabelRankingAccumulator().update(y, s, sample_weight=w)
    assert fm.coverage_error(y, s, sample_weight=w) == acc.coverage_error()
    for name in MULTILABEL:
        check(name, y, s, sample_weight=w)


def test_sparse_y_true():
    sp = pytest.importorskip("scipy.sparse")
    y = sp.csr_matrix(np.array([[1, 0, 0], [0, 1, 1]]))
    s = np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]])
    for name in ("label_ranking_average_precision_score", "label_ranking_loss"):
        check(name, y, s)


def test_inputs_never_modified():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, (50, 4)).astype(float)
    s = rng.random((50, 4))
    y0, s0 = y.copy(), s.copy()
    for name in MULTILABEL:
        getattr(fm, name)(y, s)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(s, s0)


@given(multilabel_problem(), st.lists(st.integers(0, 25), max_size=4))
@settings(max_examples=40)
def test_multilabel_streaming_any_split(prob, cuts):
    y, s, w = prob
    n = y.shape[0]
    edges = sorted({min(c, n) for c in cuts} | {0, n})
    parts = []
    for a, b in zip(edges[:-1], edges[1:]):
        parts.append(fms.LabelRankingAccumulator().update(
            y[a:b], s[a:b], None if w is None else w[a:b]))
    acc = parts[0]
    for p in parts[1:]:
        acc = acc + p
    for name in MULTILABEL:
        got = getattr(acc, name)()
        want = getattr(fm, name)(y, s, sample_weight=w)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    # the state survives export (arrays and JSON lists) and pickling
    st_ = acc.state
    for d in (st_.to_dict(), st_.to_dict(as_lists=True)):
        back = load_state(d)
        assert isinstance(back, LabelRankingState)
        np.testing.assert_array_equal(back.sums, st_.sums)
    assert pickle.loads(pickle.dumps(acc)).label_ranking_loss() == acc.label_ranking_loss()


def test_label_ranking_state_checked_on_load():
    good = LabelRankingState.from_arrays([[1, 0, 0], [0, 1, 1]], [[0.1, 0.2, 0.3], [1, 2, 3]])
    d = good.to_dict()
    for key, value in (("sums", np.array([1.0, 2.0])), ("n", -1), ("n_labels", 0),
                       ("weighted", "no"), ("sums", np.array([1.0, 0.5, 0.1, 7.0])),
                       ("sums", np.array([np.nan, 1, 0, 2])), ("kind", "ranking")):
        bad = dict(d, **{key: value})
        with pytest.raises(StateError):
            LabelRankingState.from_dict(bad)
    with pytest.raises(ValueError, match="labels"):
        good + LabelRankingState.from_arrays([[1, 0]], [[0.1, 0.2]])
    with pytest.raises(TypeError):
        good.merge(RankingState.from_arrays([0, 1], [0.1, 0.2]))
    with pytest.raises(ValueError, match="sample_weight"):
        fms.LabelRankingAccumulator().update([[1, 0]], [[0.1, 0.2]], [1.0]).update(
            [[1, 0]], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="no samples"):
        fms.LabelRankingAccumulator().coverage_error()


def test_multilabel_dask():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    import fastmetrics.dask as fmd
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, (1000, 6))
    s = rng.integers(0, 9, (1000, 6)) / 8
    w = rng.random(1000)
    with dask.config.set(scheduler="synchronous"):
        for name in MULTILABEL:
            got = getattr(fmd, name)(da.from_array(y, chunks=(170, 6)),
                                     da.from_array(s, chunks=(333, 3)), sample_weight=w)
            assert got == pytest.approx(getattr(skm, name)(y, s, sample_weight=w), rel=1e-12)
        acc = fmd.accumulate("label_ranking", da.from_array(y, chunks=(100, 6)), s)
        assert acc.coverage_error() == skm.coverage_error(y, s)
