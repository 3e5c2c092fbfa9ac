"""Tweedie deviances, D² Tweedie score and squared log errors vs scikit-learn: every power
case, weights (zeros included), multioutput for the log errors, domain errors, float32,
thread counts, chunked accumulators, Dask and state export."""

import json
import pickle
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics import states
from fastmetrics.streaming import SquaredLogAccumulator, TweedieAccumulator

from _parity import run

POWERS = [-2.5, -1, -0.5, 0, 1, 1.2, 1.5, 1.9, 2, 2.5, 3]
EPS = np.finfo(np.float64).eps


def _positive(power) -> bool:
    return power >= 2


def _values(power, size, lo=0.0):
    """Values in the domain of ``power`` for y_true (floats of a few digits)."""
    low = 0.05 if _positive(power) else lo
    return st.lists(st.floats(low, 50, allow_nan=False).map(lambda v: round(v, 3)),
                    min_size=size, max_size=size)


@st.composite
def tweedie_case(draw, power):
    n = draw(st.integers(2, 40))
    y = draw(_values(power, n, -20.0 if power <= 0 else 0.0))
    p = draw(_values(power, n, -20.0 if power == 0 else 0.05))
    p = [max(v, 0.05) if power != 0 else v for v in p]
    w = draw(st.none() | st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5, 7.0]), min_size=n,
                                  max_size=n).filter(lambda ws: sum(ws) > 0))
    return np.array(y), np.array(p), None if w is None else np.array(w)


def _d2_tolerance(y, w, power, d2):
    """What the decomposition of the deviance at the mean may lose (module notes of
    fastmetrics.states TweedieState): its terms' size times a few hundred eps, relative to
    the deviance at the mean, times |1 - d2|."""
    w = np.ones_like(y) if w is None else w
    mu = np.average(y, weights=w)
    q = 2 - power
    if power == 0:
        return 1e-12
    if power in (1, 2):
        terms = np.sum(w * (np.abs(y * np.log(np.maximum(y, 1e-300))) + np.abs(y) + mu))
    else:
        terms = np.sum(w * (np.maximum(y, 0) ** q + np.abs(y) * abs(mu) ** (1 - power)
                            + abs(mu) ** q))
    num = skm.mean_tweedie_deviance(y, np.full(len(y), mu), sample_weight=w, power=power)
    den = num * np.sum(w)
    if den == 0:
        return np.inf
    return 1e-12 + 1e3 * EPS * terms / abs(den) * abs(1 - d2)


def _check_pair(ours, theirs, rtol=1e-12, atol=0.0):
    r, e, ws = run(ours)
    r2, e2, ws2 = run(theirs)
    assert (e is None) == (e2 is None), (e, e2)
    if e is not None:
        assert type(e2) in type(e).__mro__ or type(e) in type(e2).__mro__, (e, e2)
        if "Input contains" in str(e2):  # fastmetrics also names the input and position
            word = "NaN" if "NaN" in str(e2) else "infinity"
            assert str(e).startswith("Input ") and word in str(e), (e, e2)
        elif "multioutput" in str(e2):  # the shared multioutput check's wording
            assert "multioutput" in str(e), (e, e2)
        else:  # scikit-learn's message, at most with what fastmetrics adds (which inputs)
            assert str(e).startswith(str(e2).rstrip(".")), (e, e2)
        return
    assert sorted({(c.__name__, m) for c, m in ws}) == sorted({(c.__name__, m) for c, m in ws2})
    assert type(r) is type(r2), (r, r2)
    np.testing.assert_allclose(r, r2, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------- parity


def _deviance_atol(y, p, w, power):
    """What either side of a Tweedie deviance may lose to cancellation: its three terms'
    (weighted mean) size times a few eps. For power outside {0, 1, 2} the unit deviance
    2 (y^(2-p) / ((1-p)(2-p)) - y mu^(1-p) / (1-p) + mu^(2-p) / (2-p)) of a prediction near
    its target is a small difference of large terms (y = 36, mu = 36.077, power -2.5: terms
    of 6e5 for a deviance of 1e-4), so scikit-learn's and this library's sums of the same
    formula differ by about eps times the terms, not times the result."""
    if power in (0, 1, 2):
        return 1e-13
    w = np.ones_like(y) if w is None else w
    q = 2 - power
    terms = (np.maximum(y, 0) ** q / abs((1 - power) * q) + np.abs(y) * p ** (1 - power)
             / abs(1 - power) + p ** q / abs(q))
    return 1e-13 + 64 * EPS * np.average(terms, weights=w)


@pytest.mark.parametrize("power", POWERS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_tweedie_deviance_matches_sklearn(power, data):
    y, p, w = data.draw(tweedie_case(power))
    _check_pair(lambda: fm.mean_tweedie_deviance(y, p, sample_weight=w, power=power),
                lambda: skm.mean_tweedie_deviance(y, p, sample_weight=w, power=power),
                atol=_deviance_atol(y, p, w, power))
    if power == 1:
        _check_pair(lambda: fm.mean_poisson_deviance(y, p, sample_weight=w),
                    lambda: skm.mean_poisson_deviance(y, p, sample_weight=w), atol=1e-13)
    if power == 2:
        _check_pair(lambda: fm.mean_gamma_deviance(y, p, sample_weight=w),
                    lambda: skm.mean_gamma_deviance(y, p, sample_weight=w), atol=1e-13)


@pytest.mark.parametrize("power", POWERS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_d2_tweedie_matches_sklearn(power, data):
    y, p, w = data.draw(tweedie_case(power))
    yw = y if w is None else y[w > 0]
    if np.ptp(y) == 0 or np.ptp(yw) == 0 or (power < 0 and np.average(y, weights=w) <= 0):
        return  # constant targets: test_d2_constant_targets; NaN means: test_d2_nan_mean
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = skm.d2_tweedie_score(y, p, sample_weight=w, power=power)
        got = fm.d2_tweedie_score(y, p, sample_weight=w, power=power)
    assert type(got) is float
    assert abs(got - want) <= _d2_tolerance(y, w, power, want) * max(1.0, abs(want))


@pytest.mark.parametrize("power", [-1.5, 0, 1, 1.5, 2, 3])
def test_d2_accuracy_on_large_data(power):
    """Measured agreement of the one-pass decomposition with scikit-learn's per-sample
    sums, on varied targets."""
    rng = np.random.default_rng(3)
    y, p, w = rng.gamma(2.0, size=100_000), rng.gamma(2.0, size=100_000), rng.random(100_000)
    want = skm.d2_tweedie_score(y, p, sample_weight=w, power=power)
    assert fm.d2_tweedie_score(y, p, sample_weight=w, power=power) == pytest.approx(want,
                                                                                    rel=1e-12)


@pytest.mark.parametrize("power", POWERS)
@pytest.mark.parametrize("c", [0.0, 1.0, 2.0])
def test_d2_constant_targets(power, c):
    if c == 0.0 and power >= 2:
        return  # outside the domain
    _check_pair(lambda: fm.d2_tweedie_score([c, c, c], [1.0, 2.0, 2.0], power=power),
                lambda: skm.d2_tweedie_score([c, c, c], [1.0, 2.0, 2.0], power=power))


def test_d2_nan_mean():
    # power < 0 with a negative mean: numpy's power of a negative base, NaN and its warning
    _check_pair(lambda: fm.d2_tweedie_score([-1.0, -2.0], [1.0, 2.0], power=-0.5),
                lambda: skm.d2_tweedie_score([-1.0, -2.0], [1.0, 2.0], power=-0.5))
    _check_pair(lambda: fm.d2_tweedie_score([-1.0, -2.0], [1.0, 2.0], power=-1),
                lambda: skm.d2_tweedie_score([-1.0, -2.0], [1.0, 2.0], power=-1))


def test_d2_one_sample():
    for power in (0, 1, 2):  # NaN with a warning, before the domain is checked
        _check_pair(lambda: fm.d2_tweedie_score([-1.0], [1.0], power=power),
                    lambda: skm.d2_tweedie_score([-1.0], [1.0], power=power))


@st.composite
def log_case(draw):
    n = draw(st.integers(1, 30))
    m = draw(st.sampled_from([0, 1, 3]))
    shape = (n,) if m == 0 else (n, m)
    vals = st.floats(-0.99, 1e3, allow_nan=False).map(lambda v: round(v, 3))
    y = np.array(draw(st.lists(vals, min_size=int(np.prod(shape)),
                               max_size=int(np.prod(shape))))).reshape(shape)
    p = np.array(draw(st.lists(vals, min_size=y.size, max_size=y.size))).reshape(shape)
    w = draw(st.none() | st.lists(st.sampled_from([0.0, 1.0, 3.5]), min_size=n,
                                  max_size=n).filter(lambda ws: sum(ws) > 0))
    multi = draw(st.sampled_from(["raw_values", "uniform_average", "weights"]))
    if multi == "weights":
        multi = list(np.arange(1.0, max(m, 1) + 1))
    return y, p, None if w is None else np.array(w), multi


@settings(max_examples=150, deadline=None)
@given(log_case())
def test_squared_log_errors_match_sklearn(case):
    y, p, w, multi = case
    for ours, theirs in ((fm.mean_squared_log_error, skm.mean_squared_log_error),
                         (fm.root_mean_squared_log_error, skm.root_mean_squared_log_error)):
        _check_pair(lambda: ours(y, p, sample_weight=w, multioutput=multi),
                    lambda: theirs(y, p, sample_weight=w, multioutput=multi), atol=1e-15)


def test_squared_log_strided_and_fortran():
    rng = np.random.default_rng(0)
    y, p = rng.random((200, 6)), rng.random((200, 6))
    for yy, pp in ((y[:, ::2], p[:, ::2]), (np.asfortranarray(y), np.asfortranarray(p)),
                   (y[::3], p[::3])):
        np.testing.assert_allclose(
            fm.mean_squared_log_error(yy, pp, multioutput="raw_values"),
            skm.mean_squared_log_error(yy, pp, multioutput="raw_values"), rtol=1e-12)


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize("power,y,p", [
    (-1, [1.0, 2.0], [0.0, 1.0]), (1, [-1.0, 2.0], [1.0, 1.0]), (1, [1.0, 2.0], [0.0, 1.0]),
    (1.5, [-0.1, 2.0], [1.0, 1.0]), (2, [0.0, 2.0], [1.0, 1.0]), (3, [1.0, 2.0], [1.0, -1.0]),
    (2.0, [1.0, 2.0], [-1.0, 1.0]), (1.0, [-1.0, 2.0], [1.0, 1.0])])
def test_domain_errors(power, y, p):
    for ours, theirs in ((fm.mean_tweedie_deviance, skm.mean_tweedie_deviance),
                         (fm.d2_tweedie_score, skm.d2_tweedie_score)):
        _check_pair(lambda: ours(y, p, power=power), lambda: theirs(y, p, power=power))
    if power == 1:
        _check_pair(lambda: fm.mean_poisson_deviance(y, p),
                    lambda: skm.mean_poisson_deviance(y, p))
    if power == 2:
        _check_pair(lambda: fm.mean_gamma_deviance(y, p), lambda: skm.mean_gamma_deviance(y, p))


@pytest.mark.parametrize("y,p", [([-1.0, 2.0], [1.0, 1.0]), ([1.0, 2.0], [1.0, -1.5]),
                                 ([[1.0, -1.0]], [[1.0, 1.0]])])
def test_log_domain_errors(y, p):
    for ours, theirs in ((fm.mean_squared_log_error, skm.mean_squared_log_error),
                         (fm.root_mean_squared_log_error, skm.root_mean_squared_log_error)):
        _check_pair(lambda: ours(y, p), lambda: theirs(y, p))


@pytest.mark.parametrize("call", [
    lambda m: m.mean_tweedie_deviance([1.0, 2.0], [1.0, 2.0], power=0.5),
    lambda m: m.d2_tweedie_score([1.0, 2.0], [1.0, 2.0], power=float("nan")),
    lambda m: m.d2_tweedie_score([1.0, 2.0], [1.0, 2.0], power=float("inf")),
    lambda m: m.d2_tweedie_score([1.0, 2.0], [1.0, 2.0], power="1"),
    lambda m: m.mean_tweedie_deviance([[1.0, 2.0]], [[1.0, 2.0]], power=1),
    lambda m: m.d2_tweedie_score([[1.0, 2.0], [2, 3]], [[1.0, 2.0], [2, 3]]),
    lambda m: m.mean_tweedie_deviance([np.nan, 2.0], [1.0, 2.0], power=1),
    lambda m: m.mean_poisson_deviance([1.0, 2.0], [np.inf, 2.0]),
    lambda m: m.mean_tweedie_deviance([1.0, 2.0], [1.0, 2.0], sample_weight=[0.0, 0.0]),
    lambda m: m.mean_tweedie_deviance([1.0, 2.0], [1.0, 2.0], sample_weight=[1.0, -1.0]),
    lambda m: m.mean_tweedie_deviance([1.0, 2.0], [1.0], power=1),
    lambda m: m.mean_tweedie_deviance([], [], power=1),
    lambda m: m.mean_squared_log_error([1.0, 2.0], [1.0, 2.0], multioutput=[1.0]),
    lambda m: m.root_mean_squared_log_error([[1.0, 2.0]], [[1.0, 2.0]], multioutput=[1.0]),
    lambda m: m.mean_squared_log_error([1.0, 2.0], [1.0, 2.0], multioutput="bad"),
    lambda m: m.mean_squared_log_error([1.0, np.nan], [1.0, 2.0]),
    lambda m: m.mean_squared_log_error([1.0, 2.0], [1.0, 2.0], sample_weight=[0.0, 0.0]),
    lambda m: m.mean_squared_log_error([1.0, 2.0], [1.0, 2.0], sample_weight=[1.0, -1.0]),
])
def test_bad_input_raises_as_sklearn(call):
    _check_pair(lambda: call(fm), lambda: call(skm))


def test_float32_and_integers():
    rng = np.random.default_rng(5)
    y, p = rng.gamma(2.0, size=1000).astype(np.float32), rng.gamma(2.0, size=1000)
    for power in (0, 1, 1.5, 2, 3):
        want = skm.mean_tweedie_deviance(y.astype(np.float64), p, power=power)
        assert fm.mean_tweedie_deviance(y, p, power=power) == pytest.approx(want, rel=1e-12)
        want = skm.d2_tweedie_score(y.astype(np.float64), p.astype(np.float32), power=power)
        got = fm.d2_tweedie_score(y, p.astype(np.float32), power=power)
        assert got == pytest.approx(want, rel=1e-6)  # scikit-learn: float32 arithmetic
    yi, pi = rng.integers(0, 9, 50), rng.integers(1, 9, 50)
    assert fm.mean_poisson_deviance(yi, pi) == pytest.approx(
        skm.mean_poisson_deviance(yi, pi), rel=1e-12)
    assert fm.mean_squared_log_error(yi, pi) == pytest.approx(
        skm.mean_squared_log_error(yi, pi), rel=1e-12)


def test_inputs_untouched_and_read_only():
    y, p = np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 2.5])
    y.flags.writeable = p.flags.writeable = False
    assert fm.mean_gamma_deviance(y, p) == pytest.approx(skm.mean_gamma_deviance(y, p))
    assert fm.mean_squared_log_error(y, p) == pytest.approx(skm.mean_squared_log_error(y, p))


# ---------------------------------------------------------------------- threads


def test_any_thread_count_gives_the_same_sums():
    rng = np.random.default_rng(11)
    n = 700_001
    y, p, w = rng.gamma(2.0, size=n), rng.gamma(2.0, size=n), rng.random(n)
    for power in (0, 1, 1.5, 2, -1):
        got = {fm.d2_tweedie_score(y, p, sample_weight=w, power=power, n_threads=t)
               for t in (1, 2, 3, 8)}
        assert len(got) == 1
    Y, P = y[:600_000].reshape(-1, 3), p[:600_000].reshape(-1, 3)
    got = {tuple(fm.mean_squared_log_error(Y, P, multioutput="raw_values", n_threads=t))
           for t in (1, 2, 5)}
    assert len(got) == 1


# ---------------------------------------------------------------------- streaming / dask


@pytest.mark.parametrize("power", [-1, 0, 1, 1.5, 2, 3])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_accumulator_equals_one_shot(power, data):
    y, p, w = data.draw(tweedie_case(power))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(y)), max_size=4)))
    accs = []
    for a, b in zip([0] + cuts, cuts + [len(y)]):
        accs.append(TweedieAccumulator(power=power).update(
            y[a:b], p[a:b], None if w is None else w[a:b]))
    order = data.draw(st.permutations(range(len(accs))))
    acc = sum(accs[i] for i in order)
    assert acc.mean_tweedie_deviance() == pytest.approx(
        fm.mean_tweedie_deviance(y, p, sample_weight=w, power=power), rel=1e-12, abs=1e-14)
    if np.ptp(y):
        r, e, _ = run(acc.d2_tweedie_score)
        r2, e2, _ = run(fm.d2_tweedie_score, y, p, sample_weight=w, power=power)
        assert (e is None) == (e2 is None)
        if e is None and np.isfinite(r2):
            assert r == pytest.approx(r2, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(log_case(), st.lists(st.integers(0, 30), max_size=3))
def test_squared_log_accumulator_equals_one_shot(case, cuts):
    y, p, w, multi = case
    cuts = sorted(min(c, len(y)) for c in cuts)
    acc = SquaredLogAccumulator()
    for a, b in zip([0] + cuts, cuts + [len(y)]):
        acc.update(y[a:b], p[a:b], None if w is None else w[a:b])
    for name in ("mean_squared_log_error", "root_mean_squared_log_error"):
        r, e, _ = run(getattr(acc, name), multioutput=multi)
        r2, e2, _ = run(getattr(fm, name), y, p, sample_weight=w, multioutput=multi)
        assert (e is None) == (e2 is None) and str(e) == str(e2)
        if e is None:
            np.testing.assert_allclose(r, r2, rtol=1e-12, atol=1e-15)


def test_accumulator_power_rules():
    a = TweedieAccumulator(power=1).update([1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="power"):
        a.merge(TweedieAccumulator(power=2).update([1.0, 2.0], [1.0, 1.0]))
    with pytest.raises(ValueError, match="power 2"):
        a.mean_gamma_deviance()
    assert a.mean_poisson_deviance() == skm.mean_poisson_deviance([1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="power"):
        TweedieAccumulator(power=0.5)
    # values off the domain are refused when a metric is asked, with scikit-learn's words
    b = TweedieAccumulator(power=2).update([0.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="strictly positive y and y_pred"):
        b.mean_gamma_deviance()
    with pytest.raises(ValueError, match="no samples"):
        TweedieAccumulator().mean_tweedie_deviance()


def test_dask_equals_one_shot():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    import fastmetrics.dask as fmd
    rng = np.random.default_rng(2)
    y, p, w = rng.gamma(2.0, size=1000), rng.gamma(2.0, size=1000), rng.random(1000)
    with dask.config.set(scheduler="synchronous"):
        for power in (0, 1.5, 3):
            for name in ("mean_tweedie_deviance", "d2_tweedie_score"):
                got = getattr(fmd, name)(da.from_array(y, chunks=170), p, sample_weight=w,
                                         power=power)
                assert got == pytest.approx(getattr(fm, name)(y, p, sample_weight=w,
                                                              power=power), rel=1e-12)
        for name in ("mean_poisson_deviance", "mean_gamma_deviance"):
            got = getattr(fmd, name)(da.from_array(y, chunks=333), da.from_array(p, chunks=333))
            assert got == pytest.approx(getattr(fm, name)(y, p), rel=1e-12)
        Y, P = y.reshape(-1, 2), p.reshape(-1, 2)
        for name in ("mean_squared_log_error", "root_mean_squared_log_error"):
            got = getattr(fmd, name)(da.from_array(Y, chunks=(90, 2)), P,
                                     multioutput="raw_values")
            np.testing.assert_allclose(got, getattr(fm, name)(Y, P, multioutput="raw_values"),
                                       rtol=1e-12)


# ---------------------------------------------------------------------- states


def _states():
    rng = np.random.default_rng(4)
    y, p, w = rng.gamma(2.0, size=50), rng.gamma(2.0, size=50), rng.random(50)
    out = [states.TweedieState.from_arrays(y, p, w, power=pw) for pw in (-1, 0, 1, 1.5, 2, 3)]
    out.append(states.TweedieState.from_arrays(y, p, power=1, d2=False))
    out.append(states.SquaredLogState.from_arrays(y, p, w))
    out.append(states.SquaredLogState.from_arrays(y.reshape(-1, 5), p.reshape(-1, 5)))
    return out


@pytest.mark.parametrize("st_", _states(), ids=repr)
def test_state_round_trips(st_):
    d = st_.to_dict()
    back = states.load_state(d)
    assert type(back) is type(st_) and np.array_equal(back.sums, st_.sums)
    j = states.load_state(json.loads(json.dumps(st_.to_dict(as_lists=True))))
    assert np.array_equal(j.sums, st_.sums)
    assert np.array_equal(pickle.loads(pickle.dumps(st_)).sums, st_.sums)
    if isinstance(st_, states.TweedieState):
        assert back.power == st_.power and type(back.power) is type(st_.power)


def test_accumulators_round_trip():
    a = TweedieAccumulator(power=1.5).update([1.0, 2.0, 0.0], [1.0, 1.0, 3.0])
    b = TweedieAccumulator.from_dict(json.loads(json.dumps(a.to_dict(as_lists=True))))
    assert b.d2_tweedie_score() == a.d2_tweedie_score()
    c = SquaredLogAccumulator().update([[1.0, 2.0]], [[1.0, 3.0]])
    assert pickle.loads(pickle.dumps(c)).mean_squared_log_error() == c.mean_squared_log_error()
    bad = a.to_dict()
    bad["config"] = {"power": 2}
    with pytest.raises(ValueError, match="power"):
        TweedieAccumulator.from_dict(bad)


@pytest.mark.parametrize("change", [
    {"power": 0.5}, {"power": "1"}, {"power": True}, {"d2": 1}, {"weighted": "no"},
    {"sums": [1.0] * 3}, {"sums": "x"},
])
def test_bad_tweedie_dicts_are_refused(change):
    d = states.TweedieState.from_arrays([1.0, 2.0], [1.0, 2.0], power=1).to_dict()
    d.update(change)
    with pytest.raises(ValueError):
        states.load_state(d)


@pytest.mark.parametrize("slot,value", [("N", -1.0), ("N", 2.5), ("W", 7.0), ("BAD", 5.0),
                                        ("BAD", 0.5), ("DEV", np.nan), ("T", 1.0),
                                        ("YMIN", 9.0)])
def test_bad_tweedie_sums_are_refused(slot, value):
    from fastmetrics._kernels import deviance as k
    d = states.TweedieState.from_arrays([1.0, 2.0], [1.0, 2.0], power=1).to_dict()
    d["sums"][getattr(k, slot)] = value
    with pytest.raises(ValueError):
        states.load_state(d)


@pytest.mark.parametrize("slot,value", [("N", -1.0), ("W", 7.0), ("BAD", 0.5), ("SY", 1.0),
                                        ("DEV", -1.0), ("DEV", np.inf)])
def test_bad_squared_log_sums_are_refused(slot, value):
    from fastmetrics._kernels import deviance as k
    d = states.SquaredLogState.from_arrays([[1.0, 2.0], [2, 3]], [[1.0, 2.0], [2, 4]]).to_dict()
    d["sums"][1, getattr(k, slot)] = value
    with pytest.raises(ValueError):
        states.load_state(d)
    one = states.SquaredLogState.from_arrays([[1.0, 2.0]], [[1.0, 2.0]]).to_dict()
    one["sums"] = one["sums"][:1]  # a 2-D state of one output
    with pytest.raises(ValueError):
        states.load_state(one)


def test_negative_power_with_a_chunk_of_negative_mean():
    """A chunk whose mean is not positive has no unit deviance to center on: the state
    falls back to the sums of powers, still scikit-learn's score."""
    y, p = np.array([-5.0, -3.0, 10.0, 20.0, 7.0]), np.array([1.0, 2.0, 9.0, 18.0, 8.0])
    acc = TweedieAccumulator(power=-1).update(y[:2], p[:2]).update(y[2:], p[2:])
    want = skm.d2_tweedie_score(y, p, power=-1)
    assert acc.d2_tweedie_score() == pytest.approx(want, rel=1e-12)
    assert fm.d2_tweedie_score(y, p, power=-1) == pytest.approx(want, rel=1e-12)
    from fastmetrics._kernels import deviance as k
    assert np.isnan(acc.state.sums[k.DM])  # the fallback was taken
