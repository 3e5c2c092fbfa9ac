"""Regression metrics on (n, m) targets (``multioutput``): parity with scikit-learn for every
``multioutput`` option, C / F / strided layouts read without copies, weights, scikit-learn's
errors, streaming chunks, state export / load and Dask."""

import math
import pickle
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics.regression import UndefinedMetricWarning
from fastmetrics.states import RegressionState, StateError
from fastmetrics.streaming import RegressionAccumulator

SK = ["mean_absolute_error", "mean_squared_error", "root_mean_squared_error",
      "mean_absolute_percentage_error", "r2_score", "median_absolute_error"]
R2_OPTIONS = ("variance_weighted",)


def close(got, want, rtol=1e-12, atol=1e-13):
    """Floats to 1e-12 relative (R² near 0 is 1 minus a ratio near 1: an absolute 1e-13)."""
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    else:
        assert type(got) is float and type(want) is float
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want, rel=rtol, abs=atol)


def options(name, m):
    opts = ["raw_values", "uniform_average", list(np.arange(1.0, m + 1.0))]
    return opts + (["variance_weighted"] if name == "r2_score" else [])


def layouts(a):
    """The same values C-ordered, F-ordered and as a strided view of a wider array."""
    wide = np.zeros((a.shape[0], 2 * a.shape[1]), dtype=a.dtype)
    wide[:, ::2] = a
    return {"C": np.ascontiguousarray(a), "F": np.asfortranarray(a), "strided": wide[:, ::2]}


@st.composite
def case(draw):
    n = draw(st.integers(2, 300))
    m = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # integers: ties for the medians and exactly constant columns
    yt = rng.integers(-5, 6, (n, m)).astype(float) if draw(st.booleans()) \
        else rng.normal(size=(n, m))
    yt[:, 0] = draw(st.sampled_from([0.0, 1.0, 2.0]))  # one constant column
    yp = yt + rng.normal(size=(n, m)) * draw(st.sampled_from([0.0, 1.0]))
    w = rng.integers(0, 4, n).astype(float) if draw(st.booleans()) else None
    if w is not None:
        w[0] = 1.0
    return yt, yp, w


@settings(max_examples=60, deadline=None)
@given(case(), st.sampled_from(["C", "F", "strided"]), st.sampled_from(SK))
def test_matches_sklearn(c, layout, name):
    yt, yp, w = c
    a, b = layouts(yt)[layout], layouts(yp)[layout]
    for mo in options(name, yt.shape[1]):
        got = getattr(fm, name)(a, b, sample_weight=w, multioutput=mo)
        want = getattr(skm, name)(yt, yp, sample_weight=w, multioutput=mo)
        close(got, want)


@settings(max_examples=30, deadline=None)
@given(case())
def test_each_output_is_its_1d_metric_and_summary_averages(c):
    yt, yp, w = c
    m = yt.shape[1]
    for name in SK:
        raw = getattr(fm, name)(yt, yp, sample_weight=w, multioutput="raw_values")
        one = [getattr(fm, name)(yt[:, j], yp[:, j], sample_weight=w) for j in range(m)]
        np.testing.assert_allclose(raw, one, rtol=1e-12, atol=1e-13)
    s = fm.regression_summary(yt, yp, sample_weight=w)
    close(s.mae, skm.mean_absolute_error(yt, yp, sample_weight=w))
    close(s.mse, skm.mean_squared_error(yt, yp, sample_weight=w))
    close(s.rmse, skm.root_mean_squared_error(yt, yp, sample_weight=w))
    close(s.r2, skm.r2_score(yt, yp, sample_weight=w))
    assert s.n_samples == yt.shape[0]
    close(fm.huber_loss(yt, yp, sample_weight=w),
          float(np.mean([fm.huber_loss(yt[:, j], yp[:, j], sample_weight=w)
                         for j in range(m)])))


def test_inputs_are_read_in_place_float32_and_integers():
    rng = np.random.default_rng(1)
    yt = rng.normal(size=(1000, 3)).astype(np.float32)
    yp = (yt + rng.normal(size=(1000, 3))).astype(np.float32)
    before = yt.copy(), yp.copy()
    for name in SK:
        got = getattr(fm, name)(np.asfortranarray(yt), yp, multioutput="raw_values")
        if name == "median_absolute_error":  # computed in float32, as scikit-learn does
            close(got, getattr(skm, name)(yt, yp, multioutput="raw_values"), rtol=1e-6)
        else:  # float64 sums of the float32 values
            close(got, getattr(skm, name)(yt.astype(float), yp.astype(float),
                                          multioutput="raw_values"))
    assert (yt == before[0]).all() and (yp == before[1]).all()
    yi, pi = rng.integers(0, 9, (50, 3)), rng.integers(0, 9, (50, 3))
    for name in SK:
        close(getattr(fm, name)(yi, pi), getattr(skm, name)(yi, pi))


def test_large_input_uses_lanes_and_threads_agree():
    rng = np.random.default_rng(2)
    yt = rng.normal(size=(300_000, 3))
    yp = yt + rng.normal(size=yt.shape)
    for name in SK[:5]:
        want = getattr(skm, name)(yt, yp, multioutput="raw_values")
        got = [getattr(fm, name)(np.asfortranarray(yt), yp, multioutput="raw_values",
                                 n_threads=t) for t in (1, 2, 3)]
        close(got[0], want)
        assert all((g == got[0]).all() for g in got)


def raised(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            f(*a, **k)
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            return type(exc), str(exc)
    return None


@pytest.mark.parametrize("name", SK)
def test_sklearns_errors(name):
    y2, y3, y1 = np.ones((4, 2)), np.ones((4, 3)), np.ones(4)
    for a, b, kw in [(y2, y3, {}), (y1, y2, {}), (y2, y1, {}),
                     (y2, y2 + 1, {"multioutput": [1.0, 2.0, 3.0]}),
                     (y2, y2 + 1, {"multioutput": [1.0]}),
                     (y2, y2 + 1, {"multioutput": [np.nan, 1.0]}),
                     (y2, y2 + 1, {"multioutput": [0.0, 0.0]}),
                     (y2, y2 + 1, {"multioutput": "bogus"}),
                     (np.ones((4, 0)), np.ones((4, 0)), {})]:
        ours, theirs = raised(getattr(fm, name), a, b, **kw), \
            raised(getattr(skm, name), a, b, **kw)
        assert (ours is None) == (theirs is None), (a.shape, b.shape, kw, ours, theirs)
        if ours is not None and not (kw.get("multioutput") == "bogus"
                                     or a.shape[1:] == (0,)):
            # InvalidParameterError is a ValueError: the same base type, the same words
            assert issubclass(theirs[0], ours[0]) and ours[1] == theirs[1], (ours, theirs)
        elif ours is not None:
            assert issubclass(theirs[0], ours[0])


def test_r2_constant_columns_and_variance_weighted():
    yt = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])
    for yp in (yt, yt + [[0.0, 0.5]] * 3, yt + 1):
        for ff in (True, False):
            for mo in ("raw_values", "uniform_average", "variance_weighted"):
                with np.errstate(all="ignore"):
                    want = skm.r2_score(yt, yp, multioutput=mo, force_finite=ff)
                got = fm.r2_score(yt, yp, multioutput=mo, force_finite=ff)
                if isinstance(want, np.ndarray):
                    np.testing.assert_array_equal(got, want)
                else:
                    assert got == want or (math.isnan(got) and math.isnan(want))
    # one sample: NaN (a scalar) with scikit-learn's warning
    with pytest.warns(UndefinedMetricWarning):
        got = fm.r2_score([[1.0, 2.0]], [[1.0, 3.0]], multioutput="raw_values")
    assert type(got) is float and math.isnan(got)


@settings(max_examples=25, deadline=None)
@given(case(), st.lists(st.integers(0, 300), max_size=4), st.booleans())
def test_streaming_chunks_equal_one_shot(c, cuts, keep):
    yt, yp, w = c
    edges = [0] + sorted(min(x, yt.shape[0]) for x in cuts) + [yt.shape[0]]
    acc = RegressionAccumulator(keep_values=keep)
    for lo, hi in zip(edges, edges[1:]):
        acc.update(np.asfortranarray(yt[lo:hi]), yp[lo:hi],
                   None if w is None else w[lo:hi])
    for name in SK if keep else SK[:5]:
        for mo in options(name, yt.shape[1]):
            close(getattr(acc, name)(multioutput=mo),
                  getattr(fm, name)(yt, yp, sample_weight=w, multioutput=mo))
    s = acc.state
    back = RegressionState.from_dict(s.to_dict(as_lists=True))
    assert back.n_outputs == yt.shape[1] and np.array_equal(back.sums, s.sums)
    acc2 = pickle.loads(pickle.dumps(acc))
    close(acc2.r2_score(multioutput="raw_values"), acc.r2_score(multioutput="raw_values"))


def test_states_of_different_outputs_do_not_merge():
    a = RegressionAccumulator().update(np.ones((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="numbers of outputs"):
        a.update(np.ones((3, 3)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="numbers of outputs"):
        a.update(np.ones(3), np.zeros(3))
    d = a.state.to_dict()
    bad = dict(d, sums=d["sums"][:1])
    with pytest.raises(StateError):
        RegressionState.from_dict(bad)
    s = d["sums"].copy()
    s[1, 0] += 1  # outputs of one pass share their weight total
    with pytest.raises(StateError):
        RegressionState.from_dict(dict(d, sums=s))


def test_dask_two_d_chunks():
    da = pytest.importorskip("dask.array")
    import dask

    import fastmetrics.dask as fmd
    rng = np.random.default_rng(3)
    yt = rng.normal(size=(5000, 4))
    yp = yt + rng.normal(size=yt.shape)
    w = rng.random(5000)
    with dask.config.set(scheduler="synchronous"):
        a = da.from_array(yt, chunks=((1000, 2500, 1500), (2, 2)))
        b = da.from_array(np.asfortranarray(yp), chunks=(700, 4))
        for name in SK[:5]:
            for mo in options(name, 4):
                close(getattr(fmd, name)(a, b, sample_weight=w, multioutput=mo),
                      getattr(skm, name)(yt, yp, sample_weight=w, multioutput=mo))
        close(fmd.regression_summary(a, b).r2, skm.r2_score(yt, yp))
