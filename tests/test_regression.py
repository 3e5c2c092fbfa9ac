"""Regression metrics: parity with scikit-learn (values and warnings), numpy references for
Huber / adjusted R² / MAE by bin, state merging, bad inputs, layouts, threads and memory."""

import math
import threading
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.exceptions import UndefinedMetricWarning as SkUndefined

import fastmetrics as fm
from fastmetrics._kernels import sums as _regression
from fastmetrics.regression import STORY_POINT_BINS, UndefinedMetricWarning

RTOL = 1e-12
MEAN_METRICS = [
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_absolute_percentage_error",
]
ALL_SK = MEAN_METRICS + ["r2_score", "median_absolute_error"]


def close(got, expected, rtol=RTOL, atol=0.0):
    if isinstance(expected, np.ndarray):
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    elif math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=rtol, abs=atol)


@st.composite
def reg_case(draw, min_size=1, max_size=200):
    n = draw(st.integers(min_size, max_size))
    # no magnitudes whose squares underflow to subnormals (precision is lost there)
    # (tiny values are flushed to 0 rather than filtered out: filtering elements of arrays of
    # thousands made hypothesis' filter health check fail at random)
    elems = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(
        lambda v: v if abs(v) > 1e-100 else 0.0)
    yt = draw(hnp.arrays(np.float64, n, elements=elems))
    yp = draw(hnp.arrays(np.float64, n, elements=elems))
    w = None
    if draw(st.booleans()):
        w = draw(hnp.arrays(np.float64, n, elements=st.floats(0.01, 100)))
    return yt, yp, w


def sk_value(name, yt, yp, w, **kw):
    if name == "r2_score" and np.all(yt == yt[0]) and yt.shape[0] >= 2:
        # Documented deviation: for a constant y_true scikit-learn's mean may be off by an
        # ulp (e.g. mean([0.1] * 3) != 0.1), giving a tiny nonzero denominator and a huge
        # score; fastmetrics' denominator is exactly 0 and force_finite applies.
        perfect = np.sum((w if w is not None else 1.0) * (yt - yp) ** 2) == 0
        return 1.0 if perfect else 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkUndefined)
        warnings.simplefilter("ignore", RuntimeWarning)
        return getattr(skm, name)(yt, yp, sample_weight=w, **kw)


# ----------------------------------------------------------------------------------------
# parity with scikit-learn


@given(reg_case(min_size=2), st.sampled_from(ALL_SK))
def test_metrics_match_sklearn(case, name):
    yt, yp, w = case
    expected = sk_value(name, yt, yp, w)
    got = getattr(fm, name)(yt, yp, sample_weight=w)
    assert type(got) is float
    if name == "r2_score":
        # 1 - num/den: compare num/den to 1e-12 relative
        close(1.0 - got, 1.0 - expected, rtol=1e-11, atol=1e-12)
    else:
        close(got, expected)


@given(reg_case(min_size=2), st.sampled_from(ALL_SK))
def test_float32_inputs(case, name):
    yt, yp, w = case
    y32, p32 = yt.astype(np.float32), yp.astype(np.float32)
    got = getattr(fm, name)(y32, p32, sample_weight=w)
    # same values as scikit-learn on the float32 values held as float64 ...
    if name == "median_absolute_error":
        close(got, sk_value(name, y32, p32, w))  # computed in float32, as scikit-learn
    elif name == "r2_score":
        e = sk_value(name, y32.astype(np.float64), p32.astype(np.float64), w)
        close(1.0 - got, 1.0 - e, rtol=1e-11, atol=1e-12)
    else:
        close(got, sk_value(name, y32.astype(np.float64), p32.astype(np.float64), w))
    # ... and scikit-learn's float32 arithmetic to float32 precision
    if name not in ("r2_score", "mean_absolute_percentage_error"):
        close(got, sk_value(name, y32, p32, w), rtol=1e-4, atol=1e-3)


def test_mixed_and_integer_dtypes():
    rng = np.random.default_rng(0)
    yt = rng.integers(-50, 50, 500)
    yp = rng.normal(size=500).astype(np.float32)
    for name in ALL_SK:
        close(getattr(fm, name)(yt, yp), sk_value(name, yt.astype(np.float64), yp.astype(np.float64), None),
              rtol=1e-11)
        close(getattr(fm, name)(yp, yp.astype(np.float64) + 1), sk_value(name, yp.astype(np.float64),
              yp.astype(np.float64) + 1, None), rtol=1e-11)
    assert fm.mean_absolute_error([True, False], [1, 1]) == 0.5


def test_large_offset_r2_is_accurate():
    """R² of targets with a large common offset: no sum(y**2) - (sum y)**2/n cancellation."""
    rng = np.random.default_rng(1)
    yt = 1e9 + rng.normal(size=100_000)
    yp = yt + 0.1 * rng.normal(size=100_000)
    close(fm.r2_score(yt, yp), skm.r2_score(yt, yp), rtol=1e-9)
    w = rng.random(100_000)
    close(fm.r2_score(yt, yp, sample_weight=w), skm.r2_score(yt, yp, sample_weight=w), rtol=1e-9)


@pytest.mark.parametrize("force_finite", [True, False])
@pytest.mark.parametrize(
    "yt, yp",
    [
        ([1, 2, 3], [1, 2, 3]),
        ([1, 2, 3], [3, 2, 1]),
        ([-2, -2, -2], [-2, -2, -2]),
        ([-2, -2, -2], [-2, -2, -1.5]),
        ([5.0, 5.0], [5.0, 4.0]),
        ([0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]),
    ],
)
def test_r2_edge_cases_match_sklearn(yt, yp, force_finite):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = skm.r2_score(yt, yp, force_finite=force_finite)
    got = fm.r2_score(yt, yp, force_finite=force_finite)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected


def test_r2_constant_target_is_exactly_constant():
    yt, yp = [0.1, 0.1, 0.1], [0.1, 0.1, 0.2]
    assert skm.r2_score(yt, yp) < -1e10  # scikit-learn: denominator ~1e-33, not 0
    assert fm.r2_score(yt, yp) == 0.0
    assert fm.r2_score(yt, yp, force_finite=False) == -np.inf
    assert fm.r2_score(yt, yt) == 1.0


def test_r2_single_sample_warns_and_is_nan():
    with pytest.warns(SkUndefined, match="less than two samples"):
        expected = skm.r2_score([1.0], [2.0])
    with pytest.warns(UndefinedMetricWarning, match="less than two samples") as rec:
        got = fm.r2_score([1.0], [2.0])
    assert math.isnan(expected) and math.isnan(got)
    assert rec[0].category.__name__ == SkUndefined.__name__


@pytest.mark.parametrize("name", ALL_SK)
def test_multioutput_options(name):
    yt, yp = [3, -0.5, 2, 7], [2.5, 0.0, 2, 8]
    raw = getattr(fm, name)(yt, yp, multioutput="raw_values")
    np.testing.assert_allclose(raw, getattr(skm, name)(yt, yp, multioutput="raw_values"), rtol=RTOL)
    assert isinstance(raw, np.ndarray) and raw.shape == (1,)
    with pytest.raises(ValueError, match="multioutput"):
        getattr(fm, name)(yt, yp, multioutput="bogus")
    if name == "root_mean_squared_error":  # scikit-learn averages the one output anyway
        assert fm.root_mean_squared_error(yt, yp, multioutput=[2.0]) == pytest.approx(
            skm.root_mean_squared_error(yt, yp, multioutput=[2.0]), rel=RTOL)
    else:
        with pytest.raises(ValueError, match="Custom weights are useful only in multi-output"):
            getattr(skm, name)(yt, yp, multioutput=[1.0])
        with pytest.raises(ValueError, match="Custom weights are useful only in multi-output"):
            getattr(fm, name)(yt, yp, multioutput=[1.0])
    if name == "r2_score":
        assert fm.r2_score(yt, yp, multioutput="variance_weighted") == pytest.approx(
            skm.r2_score(yt, yp, multioutput="variance_weighted"), rel=RTOL)
    # several outputs: scikit-learn's per-output values (tests/test_regression_multioutput.py)
    y2, p2 = np.arange(8.0).reshape(4, 2), np.arange(8.0)[::-1].reshape(4, 2)
    close(getattr(fm, name)(y2, p2), getattr(skm, name)(y2, p2))
    # (n, 1) columns are 1-D targets
    close(getattr(fm, name)(np.array(yt)[:, None], np.array(yp)[:, None]), getattr(skm, name)(yt, yp))


@pytest.mark.parametrize("seed", range(5))
def test_weighted_median_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    yt = rng.integers(0, 5, n).astype(float)
    yp = rng.integers(0, 5, n).astype(float)
    w = rng.integers(0, 4, n).astype(float)
    w[0] = 1.0
    assert fm.median_absolute_error(yt, yp, sample_weight=w) == skm.median_absolute_error(yt, yp, sample_weight=w)
    w2 = np.ones(n)
    assert fm.median_absolute_error(yt, yp, sample_weight=w2) == skm.median_absolute_error(yt, yp, sample_weight=w2)


# ----------------------------------------------------------------------------------------
# metrics without a scikit-learn twin: numpy references


@given(reg_case(), st.floats(0.01, 1e3))
def test_huber_matches_numpy_reference(case, delta):
    yt, yp, w = case
    e = np.abs(yt - yp)
    loss = np.where(e <= delta, 0.5 * e**2, delta * (e - 0.5 * delta))
    expected = np.average(loss, weights=w)
    close(fm.huber_loss(yt, yp, delta=delta, sample_weight=w), expected, rtol=1e-11)


@given(reg_case(min_size=3), st.integers(0, 3))
def test_adjusted_r2(case, p):
    yt, yp, w = case
    n = yt.shape[0]
    if n - p - 1 <= 0:
        with pytest.raises(ValueError, match="n_samples > n_features"):
            fm.adjusted_r2_score(yt, yp, n_features=p)
        return
    r2 = sk_value("r2_score", yt, yp, w)
    expected = 1 - (1 - r2) * (n - 1) / (n - p - 1)
    close(1 - fm.adjusted_r2_score(yt, yp, n_features=p, sample_weight=w), 1 - expected, rtol=1e-11, atol=1e-12)


def test_mae_by_bin_story_points():
    rng = np.random.default_rng(2)
    sp = np.array([1, 2, 3, 5, 8, 13, 21, 34, 55])
    yt = rng.choice(sp, 2000).astype(float)
    yp = yt + rng.normal(scale=2, size=2000)
    w = rng.random(2000)
    got = fm.mae_by_bin(yt, yp, STORY_POINT_BINS)
    gotw = fm.mae_by_bin(yt, yp, STORY_POINT_BINS, sample_weight=w)
    assert list(got) == ["1-3", "5-8", "13-21", "34+"]
    for name, (lo, hi) in STORY_POINT_BINS.items():
        m = (yt >= lo) & (yt <= hi)
        close(got[name], skm.mean_absolute_error(yt[m], yp[m]), rtol=1e-11)
        close(gotw[name], skm.mean_absolute_error(yt[m], yp[m], sample_weight=w[m]), rtol=1e-11)
    empty = fm.mae_by_bin([1.0, 2.0], [1.5, 2.0], {"low": (0, 1), "none": (100, 200), "all": (-1, 9)})
    assert empty["low"] == 0.5 and math.isnan(empty["none"]) and empty["all"] == 0.25
    for bad in ({}, {"a": (2, 1)}, {"a": ("x", 1)}, [(1, 2)], {"a": (float("nan"), 1)}):
        with pytest.raises(ValueError, match="bin"):
            fm.mae_by_bin([1.0], [1.0], bad)


@given(reg_case(min_size=2))
def test_summary_is_one_pass_of_the_same_numbers(case):
    yt, yp, w = case
    s = fm.regression_summary(yt, yp, sample_weight=w)
    assert s.mae == fm.mean_absolute_error(yt, yp, sample_weight=w)
    assert s.mse == fm.mean_squared_error(yt, yp, sample_weight=w)
    assert s.rmse == fm.root_mean_squared_error(yt, yp, sample_weight=w)
    assert s.r2 == fm.r2_score(yt, yp, sample_weight=w)
    assert s.as_row()["n_samples"] == yt.shape[0]


@given(reg_case(min_size=2, max_size=6000), st.data())
def test_states_merge(case, data):
    yt, yp, w = case
    k = data.draw(st.integers(0, yt.shape[0]))
    wz = np.empty(0) if w is None else w

    def state(a, b, ww):
        s = np.zeros(_regression.N_STATE)
        _regression.sums(a, b, ww if w is not None else wz, w is not None, 7, 1.0, s)
        return s

    whole = state(yt, yp, w)
    left = state(yt[:k], yp[:k], None if w is None else w[:k])
    _regression.merge(left, state(yt[k:], yp[k:], None if w is None else w[k:]))
    np.testing.assert_allclose(left, whole, rtol=1e-10, atol=1e-9 * (1 + np.abs(whole).max()))
    assert left[7] == yt.shape[0] and left[8] == whole[8]


# ----------------------------------------------------------------------------------------
# bad inputs


@pytest.mark.parametrize("name", ALL_SK + ["huber_loss"])
@pytest.mark.parametrize(
    "args, exc, match",
    [
        (([1.0, np.nan], [1.0, 2.0]), ValueError, "y_true contains NaN"),
        (([1.0, 2.0], [np.inf, 2.0]), ValueError, "y_pred contains infinity"),
        (([1.0, 2.0], [1.0, -np.inf]), ValueError, "y_pred contains infinity"),
        (([1.0, 2.0, 3.0], [1.0, 2.0]), ValueError, "inconsistent numbers of samples"),
        (([], []), ValueError, "empty"),
        ((3.0, 3.0), ValueError, "scalar"),
        ((np.ones((2, 2, 2)), np.ones((2, 2, 2))), ValueError, "Found array with dim 3"),
        ((["a", "b"], [1.0, 2.0]), ValueError, "numbers"),
    ],
)
def test_bad_inputs(name, args, exc, match):
    with pytest.raises(exc, match=match):
        getattr(fm, name)(*args)


@pytest.mark.parametrize("name", ALL_SK + ["huber_loss"])
def test_bad_weights(name):
    f = getattr(fm, name)
    with pytest.raises(ValueError, match="sample_weight"):
        f([1.0, 2.0], [1.0, 3.0], sample_weight=[1.0, np.nan])
    with pytest.raises(ValueError, match="sample_weight"):
        f([1.0, 2.0], [1.0, 3.0], sample_weight=[1.0, 2.0, 3.0])
    if name != "median_absolute_error":
        with pytest.raises(ValueError, match="at least one non-zero"):
            f([1.0, 2.0], [1.0, 3.0], sample_weight=[0.0, 0.0])
        if hasattr(skm, name):
            with pytest.raises(ValueError, match="at least one non-zero"):
                getattr(skm, name)([1.0, 2.0], [1.0, 3.0], sample_weight=[0.0, 0.0])


def test_bad_parameters():
    for delta in (0, -1.0, np.nan, np.inf, "1", True):
        with pytest.raises(ValueError, match="delta"):
            fm.huber_loss([1.0], [2.0], delta=delta)
    for nf in (-1, 1.5, True, None):
        with pytest.raises(ValueError, match="n_features"):
            fm.adjusted_r2_score([1.0, 2.0, 3.0], [1.0, 2.0, 2.0], n_features=nf)
    with pytest.raises(ValueError, match="n_samples > n_features"):
        fm.adjusted_r2_score([1.0, 2.0, 3.0], [1.0, 2.0, 2.0], n_features=2)
    with pytest.raises(ValueError, match="inconsistent"):
        _regression.sums(np.zeros(3), np.zeros(2), np.empty(0), False, 0, 1.0, np.zeros(10))


# ----------------------------------------------------------------------------------------
# layouts, threads, memory


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layout_matrix(dtype):
    rng = np.random.default_rng(3)
    yt = rng.normal(size=301).astype(dtype)
    yp = rng.normal(size=301).astype(dtype)
    expected = {n: getattr(fm, n)(yt, yp) for n in ALL_SK}
    ro_t, ro_p = yt.copy(), yp.copy()
    ro_t.flags.writeable = False
    ro_p.flags.writeable = False
    layouts = [
        (np.repeat(yt, 3)[::3], np.repeat(yp, 3)[::3]),
        (ro_t, ro_p),
        (yt.astype(yt.dtype.newbyteorder("S")), yp.astype(yp.dtype.newbyteorder("S"))),
    ]
    for a, b in layouts:
        a0, b0 = a.copy(), b.copy()
        for n in ALL_SK:
            assert getattr(fm, n)(a, b) == expected[n]
        np.testing.assert_array_equal(a, a0)
        np.testing.assert_array_equal(b, b0)


def test_threads_give_serial_result():
    rng = np.random.default_rng(4)
    yt = rng.normal(size=300_000)
    yp = rng.normal(size=300_000)
    yt.flags.writeable = False
    yp.flags.writeable = False
    expected = fm.regression_summary(yt, yp).as_row()
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(fm.regression_summary(yt, yp).as_row())
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 160 and all(r == expected for r in results)


def test_no_memory_leak():
    psutil = pytest.importorskip("psutil")
    rng = np.random.default_rng(5)
    yt = rng.normal(size=1000)
    yp = rng.normal(size=1000)
    bad = yp.copy()
    bad[500] = np.nan
    proc = psutil.Process()

    def burst():
        for _ in range(1000):
            fm.regression_summary(yt, yp)
            fm.mean_absolute_percentage_error(yt, yp)
            fm.median_absolute_error(yt, yp)
            fm.mae_by_bin(yt, yp, STORY_POINT_BINS)
            try:
                fm.r2_score(yt, bad)
            except ValueError:
                pass

    burst()
    before = proc.memory_info().rss
    burst()
    burst()
    assert proc.memory_info().rss - before < 8 * 2**20
