"""More regression metrics: ``max_error``. Parity with scikit-learn (1-D, float32, mixed
dtypes, scikit-learn's errors), streaming chunk splits merged as a max, state export / load
(and states saved before its slot existed), and Dask."""

import math
import pickle

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics._kernels import sums as kernel
from fastmetrics._states.sums import mae, max_ae as max_error
from fastmetrics.states import RegressionState, StateError
from fastmetrics.streaming import RegressionAccumulator


@st.composite
def pair(draw, dtype=np.float64):
    n = draw(st.integers(1, 400))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    yt = rng.normal(size=n) * draw(st.sampled_from([1e-3, 1.0, 1e6]))
    if draw(st.booleans()):
        yt = np.round(yt)  # ties: several samples share the largest error
    yp = yt + rng.normal(size=n) * draw(st.sampled_from([0.0, 1.0, 1e3]))
    return yt.astype(dtype), yp.astype(dtype), rng


def same(got, want):
    assert type(got) is float
    assert got == pytest.approx(want, rel=1e-12, abs=0.0)


@settings(max_examples=100, deadline=None)
@given(pair())
def test_max_error_matches_sklearn(p):
    yt, yp, _ = p
    same(fm.max_error(yt, yp), skm.max_error(yt, yp))
    same(fm.max_error(list(yt), list(yp)), skm.max_error(list(yt), list(yp)))
    # an (n, 1) column is one output
    same(fm.max_error(yt[:, None], yp[:, None]), skm.max_error(yt[:, None], yp[:, None]))


@settings(max_examples=100, deadline=None)
@given(pair(np.float32))
def test_max_error_float32_is_sklearn_exactly(p):
    yt, yp, _ = p
    # scikit-learn subtracts in float32: the same value, rounded the same way
    assert fm.max_error(yt, yp) == skm.max_error(yt, yp)
    assert fm.max_error(yt, yp.astype(np.float64)) == skm.max_error(yt, yp.astype(np.float64))


def test_max_error_other_dtypes():
    yt = np.array([3, 2, 7, 1], dtype=np.int64)
    yp = np.array([4, 2, 7, -5], dtype=np.int32)
    assert fm.max_error(yt, yp) == skm.max_error(yt, yp) == 6.0
    h = np.array([0.1, 2.7, -3.3], dtype=np.float16)
    g = np.array([1.9, 0.2, 4.4], dtype=np.float16)
    assert fm.max_error(h, g) == skm.max_error(h, g)


def test_max_error_ignores_nothing_and_reads_in_place():
    yt = np.arange(10.0)
    yp = yt.copy()
    yp[7] += 2.5
    before = (yt.copy(), yp.copy())
    assert fm.max_error(yt[::2], yp[::2]) == skm.max_error(yt[::2], yp[::2]) == 0.0
    assert fm.max_error(yt, yp) == 2.5
    np.testing.assert_array_equal(yt, before[0])
    np.testing.assert_array_equal(yp, before[1])


@pytest.mark.parametrize("yt, yp, exc", [
    (np.zeros((4, 2)), np.zeros((4, 2)), ValueError),  # several outputs
    ([], [], ValueError),
    ([1.0, 2.0], [1.0], ValueError),
    ([1.0, np.nan], [1.0, 2.0], ValueError),
    ([1.0, 2.0], [np.inf, 2.0], ValueError),
    (np.zeros((2, 2, 2)), np.zeros((2, 2, 2)), ValueError),
    (["a", "b"], ["a", "b"], ValueError),
])
def test_max_error_bad_inputs_as_sklearn(yt, yp, exc):
    with pytest.raises(exc) as sk_err:
        skm.max_error(yt, yp)
    with pytest.raises(exc) as fm_err:
        fm.max_error(yt, yp)
    if "Multioutput" in str(sk_err.value):
        assert str(fm_err.value) == str(sk_err.value)
    for word in ("NaN", "infinity"):  # the project's wording names the input too
        if word in str(sk_err.value):
            assert word in str(fm_err.value)


def test_max_error_same_for_any_thread_count():
    rng = np.random.default_rng(1)
    yt = rng.normal(size=3_000_000)
    yp = yt + rng.standard_cauchy(yt.shape[0])
    want = skm.max_error(yt, yp)
    for t in (1, 2, 3):
        assert fm.max_error(yt, yp, n_threads=t) == want


@settings(max_examples=60, deadline=None)
@given(pair(), st.lists(st.floats(0, 1), max_size=5), st.booleans())
def test_streaming_any_split(p, cuts, weighted):
    yt, yp, rng = p
    n = yt.shape[0]
    w = rng.random(n) if weighted else None
    edges = sorted({0, n, *(int(c * n) for c in cuts)})
    acc = RegressionAccumulator()
    for a, b in zip(edges[:-1], edges[1:]):
        acc.update(yt[a:b], yp[a:b], None if w is None else w[a:b])
    want = skm.max_error(yt, yp)  # weights do not change which error is largest
    assert acc.max_error() == want
    # merging in any order, and through export / load, keeps the max exactly
    states = [RegressionState.from_arrays(yt[a:b], yp[a:b], allow_empty=True)
              for a, b in zip(edges[:-1], edges[1:])]
    merged = states[-1]
    for s in states[-2::-1]:
        merged = merged + s
    assert max_error(merged) == want
    loaded = RegressionState.from_dict(merged.to_dict())
    assert max_error(loaded) == want
    assert pickle.loads(pickle.dumps(acc)).max_error() == want


def test_zero_weight_samples_still_count():
    # scikit-learn's max_error has no weights; a zero-weight chunk still holds its errors
    acc = RegressionAccumulator().update([0.0, 0.0], [0.0, 5.0], [1.0, 0.0])
    assert acc.max_error() == 5.0


def test_state_without_the_max_raises():
    s = RegressionState.from_arrays([1.0, 2.0], [1.0, 4.0], flags=kernel.FLAG_R2)
    with pytest.raises(ValueError, match="maximum absolute error"):
        max_error(s)
    both = s + RegressionState.from_arrays([1.0], [9.0])
    with pytest.raises(ValueError, match="maximum absolute error"):
        max_error(both)
    assert both.sums[kernel.MAXABS] == 0.0


def test_load_checks_the_max():
    d = RegressionState.from_arrays([1.0, 2.0], [1.0, 4.0]).to_dict()
    s = np.array(d["sums"])
    s[kernel.MAXABS] = -1.0
    with pytest.raises(StateError, match="non-negative"):
        RegressionState.from_dict(dict(d, sums=s))
    s = np.array(d["sums"])
    with pytest.raises(StateError, match="absent sum"):
        RegressionState.from_dict(dict(d, sums=s, flags=d["flags"] & ~kernel.FLAG_MAX))


def test_state_saved_before_the_max_slot_loads():
    st_ = RegressionState.from_arrays([1.0, 2.0, 4.0], [1.5, 2.0, 3.0])
    d = st_.to_dict()
    old = dict(d, sums=np.array(d["sums"])[:kernel.MAXABS],
               flags=d["flags"] & ~(kernel.FLAG_MAX | kernel.FLAG_EV))
    loaded = RegressionState.from_dict(old)
    assert mae(loaded) == mae(st_)
    with pytest.raises(ValueError, match="maximum absolute error"):
        max_error(loaded)


def test_dask_chunks():
    da = pytest.importorskip("dask.array")
    import dask

    import fastmetrics.dask as fmd
    rng = np.random.default_rng(5)
    yt = rng.normal(size=5000)
    yp = yt + rng.standard_cauchy(5000)
    with dask.config.set(scheduler="synchronous"):
        a = da.from_array(yt, chunks=(1000, 2500, 1500))
        b = da.from_array(yp, chunks=700)
        assert fmd.max_error(a, b) == skm.max_error(yt, yp)
        with pytest.raises(ValueError, match="Multioutput not supported"):
            fmd.max_error(da.from_array(np.zeros((10, 2))), da.from_array(np.zeros((10, 2))))


def test_doc_value():
    assert fm.max_error([3, 2, 7, 1], [4, 2, 7, 1]) == 1.0
    assert not math.isnan(fm.max_error([0.0], [0.0]))


# ------------------------------------------------------------------ explained variance

EV_OPTIONS = ("raw_values", "uniform_average", "variance_weighted")


def ev_close(got, want, rtol=1e-12, atol=1e-13):
    """1e-12 relative (a score near 0 is 1 minus a ratio near 1: an absolute 1e-13)."""
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    else:
        assert type(got) is float and type(want) is float
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want, rel=rtol, abs=atol)


@st.composite
def ev_case(draw):
    n = draw(st.integers(2, 300))
    m = draw(st.sampled_from([0, 2, 3]))  # 0: 1-D
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    shape = (n,) if m == 0 else (n, m)
    yt = rng.integers(-5, 6, shape).astype(float) if draw(st.booleans()) \
        else rng.normal(size=shape) * 10 + draw(st.sampled_from([0.0, 1e3]))
    noise = draw(st.sampled_from([0.0, 1.0]))
    # an exactly constant output (its mean is exact), with errors that are not all equal:
    # where both spreads are 0 the score is 0/0, decided by rounding noise in scikit-learn's
    # error mean (see test_explained_variance_zero_over_zero)
    if noise and draw(st.booleans()):
        if m:
            yt[:, 0] = draw(st.sampled_from([0.0, 1.0, 2.0]))
        else:
            yt[:] = 2.0
    # small integer weights: scikit-learn's weighted mean of a constant y_true is then exact
    # (else its spread is rounding noise, not 0: see r2_score's note in fastmetrics.regression)
    w = rng.integers(0, 4, n).astype(float) if draw(st.booleans()) else None
    if w is not None:
        w[0] = 1.0
    # a constant shift: zero error spread (not with weights and no noise: scikit-learn's
    # weighted mean of equal errors can be an ulp off, see test_explained_variance_zero_over_zero)
    shift = draw(st.sampled_from([0.0, 3.0])) if noise or w is None else 0.0
    yp = yt + rng.normal(size=shape) * noise + shift
    return yt, yp, w, m


@settings(max_examples=150, deadline=None)
@given(ev_case(), st.booleans())
def test_explained_variance_matches_sklearn(case, force_finite):
    yt, yp, w, m = case
    opts = list(EV_OPTIONS) + ([list(np.arange(1.0, m + 1.0))] if m else [])
    for mo in opts:
        with np.errstate(all="ignore"):  # unforced 0/0 and x/0: numpy's warnings, both
            want = skm.explained_variance_score(yt, yp, sample_weight=w, multioutput=mo,
                                                force_finite=force_finite)
            got = fm.explained_variance_score(yt, yp, sample_weight=w, multioutput=mo,
                                              force_finite=force_finite)
        ev_close(got, want)


@settings(max_examples=60, deadline=None)
@given(ev_case())
def test_explained_variance_float32(case):
    yt, yp, w, _ = case
    a, b = yt.astype(np.float32), yp.astype(np.float32)
    got = fm.explained_variance_score(a, b, sample_weight=w, multioutput="raw_values")
    # the same values as float64 to float64 precision; scikit-learn's float32 arithmetic
    # to float32's
    want64 = skm.explained_variance_score(a.astype(float), b.astype(float), sample_weight=w,
                                          multioutput="raw_values")
    ev_close(got, want64)
    want32 = skm.explained_variance_score(a, b, sample_weight=w, multioutput="raw_values")
    np.testing.assert_allclose(got, want32, rtol=1e-3, atol=1e-3)


def test_explained_variance_large_offset_is_accurate():
    rng = np.random.default_rng(4)
    yt = 1e8 + rng.normal(size=100_000)
    yp = yt + 1e6 + rng.normal(size=yt.shape) * 0.1
    ev_close(fm.explained_variance_score(yt, yp), skm.explained_variance_score(yt, yp),
             rtol=1e-9)


@pytest.mark.parametrize("kw, match", [
    ({"multioutput": "bad"}, "multioutput"),
    ({"multioutput": [1.0, 2.0]}, "Custom weights are useful only in multi-output"),
    ({"sample_weight": [1.0, 2.0]}, "inconsistent numbers of samples"),
])
def test_explained_variance_bad_inputs(kw, match):
    yt, yp = [3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]
    with pytest.raises(ValueError, match=match):
        skm.explained_variance_score(yt, yp, **kw)
    with pytest.raises(ValueError, match=match):
        fm.explained_variance_score(yt, yp, **kw)
    for bad in ([3.0, np.nan, 2.0, 7.0], []):
        with pytest.raises(ValueError):
            fm.explained_variance_score(bad, bad)
    with pytest.raises(ValueError, match="different number of output"):
        fm.explained_variance_score(np.zeros((3, 2)), np.zeros((3, 3)))


@settings(max_examples=60, deadline=None)
@given(ev_case(), st.lists(st.floats(0, 1), max_size=5))
def test_explained_variance_streaming_any_split(case, cuts):
    yt, yp, w, m = case
    n = yt.shape[0]
    edges = sorted({0, n, *(int(c * n) for c in cuts)})
    acc = RegressionAccumulator()
    for a, b in zip(edges[:-1], edges[1:]):
        acc.update(yt[a:b], yp[a:b], None if w is None else w[a:b])
    for mo in EV_OPTIONS:
        ev_close(acc.explained_variance_score(multioutput=mo),
                 fm.explained_variance_score(yt, yp, sample_weight=w, multioutput=mo),
                 rtol=1e-10, atol=1e-12)


def test_explained_variance_dask():
    da = pytest.importorskip("dask.array")
    import dask

    import fastmetrics.dask as fmd
    rng = np.random.default_rng(6)
    yt = rng.normal(size=(5000, 3))
    yp = yt + rng.normal(size=yt.shape) + 2.0
    w = rng.random(5000)
    with dask.config.set(scheduler="synchronous"):
        a = da.from_array(yt, chunks=((1000, 2500, 1500), (2, 1)))
        for mo in EV_OPTIONS:
            ev_close(fmd.explained_variance_score(a, yp, sample_weight=w, multioutput=mo),
                     skm.explained_variance_score(yt, yp, sample_weight=w, multioutput=mo))
        ev_close(fmd.explained_variance_score(da.from_array(yt[:, 0], chunks=700), yp[:, 0]),
                 skm.explained_variance_score(yt[:, 0], yp[:, 0]))


def test_explained_variance_zero_over_zero():
    # constant y_true, perfect predictions: both spreads exactly 0, a score of 1.0
    for w in (None, [3.0, 1.0, 2.0]):
        for ff in (True, False):
            with np.errstate(all="ignore"):
                want = skm.explained_variance_score([2.0] * 3, [2.0] * 3, sample_weight=w,
                                                    force_finite=ff)
            ev_close(fm.explained_variance_score([2.0] * 3, [2.0] * 3, sample_weight=w,
                                                 force_finite=ff), want)
    # constant y_true, every error equal (3.0): scikit-learn's weighted error mean can be
    # off by an ulp, its error spread then rounding noise (> 0): 0.0 (NaN unforced)
    # where the exact spread is 0 and gives 1.0 (NaN); here the spread is as the kernel's
    # two-pass rounding leaves it. Unweighted, both are exact:
    ev_close(fm.explained_variance_score([4.0] * 5, [7.0] * 5),
             skm.explained_variance_score([4.0] * 5, [7.0] * 5))
