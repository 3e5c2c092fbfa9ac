"""Pinball (quantile) losses: ``mean_pinball_loss``, ``d2_pinball_score`` and
``d2_absolute_error_score`` against scikit-learn (values, warnings, errors), on 1-D and
(n, m) targets in every layout, float32, any thread count; the pinball state's merge law,
export and load; accumulator chunks and Dask against the one-shot function."""

import json
import math
import pickle

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics.states import PinballState, StateError, load_state
from fastmetrics.streaming import PinballAccumulator

from _parity import run

NAMES = ("mean_pinball_loss", "d2_pinball_score", "d2_absolute_error_score")
ALPHAS = (0.0, 0.01, 0.1, 0.25, 0.5, 0.9, 0.99, 1.0, 1 / 3)


def close(got, want, rtol=1e-12, atol=1e-13):
    """Floats to 1e-12 relative (a D² near 0 is 1 minus a ratio near 1: 1e-13 absolute)."""
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.shape == want.shape, (got, want)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    else:
        assert type(got) is float and type(want) is float, (got, want)
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want, rel=rtol, abs=atol)


def same_as_sklearn(name, *args, rtol=1e-12, **kwargs):
    """Same value, same warnings, or the same exception type (and message) as scikit-learn."""
    got, gexc, gw = run(getattr(fm, name), *args, **kwargs)
    want, wexc, ww = run(getattr(skm, name), *args, **kwargs)
    if wexc is not None:
        assert gexc is not None, (name, got, wexc)
        assert isinstance(gexc, type(wexc)) or type(wexc).__name__ == "InvalidParameterError" \
            and isinstance(gexc, ValueError), (gexc, wexc)
        return None
    assert gexc is None, (name, gexc)
    close(got, want, rtol=rtol)
    assert sorted({(c.__name__, m) for c, m in gw}) == sorted({(c.__name__, m) for c, m in ww})
    return got


def _kwargs(name, alpha):
    return {} if name == "d2_absolute_error_score" else {"alpha": alpha}


# ----------------------------------------------------------------------------- parity


@st.composite
def one_output(draw):
    n = draw(st.integers(1, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["ints", "normal", "constant", "perfect"]))
    yt = rng.integers(-4, 5, n).astype(float) if kind == "ints" else rng.normal(size=n) * 10
    if kind == "constant":
        yt[:] = draw(st.sampled_from([0.0, 0.1, -3.0]))
    yp = yt.copy() if kind == "perfect" else yt + rng.normal(size=n)
    if draw(st.booleans()):
        yp = np.round(yp)
    w = draw(st.sampled_from([None, "ints", "zeros", "floats"]))
    if w == "ints":
        w = rng.integers(0, 4, n).astype(float)
    elif w == "zeros":  # mostly zero weights: the quantile skips them
        w = (rng.random(n) < 0.3).astype(float) * rng.integers(1, 3, n)
    elif w == "floats":
        w = rng.random(n)
    alpha = draw(st.sampled_from(ALPHAS) | st.floats(0, 1))
    return yt, yp, w, alpha


@settings(max_examples=300, deadline=None)
@given(one_output())
def test_one_output_matches_sklearn(case):
    yt, yp, w, alpha = case
    for name in NAMES:
        for mo in ("uniform_average", "raw_values"):
            same_as_sklearn(name, yt, yp, sample_weight=w, multioutput=mo,
                            **_kwargs(name, alpha))


@settings(max_examples=100, deadline=None)
@given(one_output())
def test_d2_absolute_error_is_d2_pinball_at_one_half(case):
    yt, yp, w, _ = case
    if w is not None and not w.any():
        return
    a, _, _ = run(fm.d2_absolute_error_score, yt, yp, sample_weight=w)
    b, _, _ = run(fm.d2_pinball_score, yt, yp, sample_weight=w, alpha=0.5)
    assert a == b or (math.isnan(a) and math.isnan(b))


def test_negative_weights_as_sklearn():
    rng = np.random.default_rng(3)
    yt, yp = rng.normal(size=40), rng.normal(size=40)
    w = rng.normal(size=40)
    for name in NAMES:
        same_as_sklearn(name, yt, yp, sample_weight=w, **_kwargs(name, 0.3))


@pytest.mark.parametrize("alpha", [0.5, 0.2])
def test_quantile_ties_and_exact_ranks(alpha):
    # ranks that fall exactly on a sample (the averaged neighbours) and between two
    for n in range(2, 12):
        yt = np.arange(n, dtype=float)[::-1] % 4
        yp = np.zeros(n)
        for w in (None, np.ones(n), np.arange(n) % 3 * 1.0, np.r_[np.zeros(n - 1), 1.0]):
            if w is not None and not w.any():
                continue
            for name in NAMES:
                same_as_sklearn(name, yt, yp, sample_weight=w, **_kwargs(name, alpha))


def test_constant_y_true_and_perfect_predictions():
    y = np.full(7, 0.1)
    assert fm.d2_pinball_score(y, y, alpha=0.3) == skm.d2_pinball_score(y, y, alpha=0.3) == 1.0
    p = y + np.arange(7)
    assert fm.d2_absolute_error_score(y, p) == skm.d2_absolute_error_score(y, p) == 0.0
    # one constant output among several: the force-finite cases per output
    yt = np.c_[y, np.arange(7.0)]
    for yp in (yt, yt + 1):
        for name in NAMES[1:]:
            same_as_sklearn(name, yt, yp, multioutput="raw_values")


def test_too_few_samples_warn_and_give_nan():
    for name in NAMES[1:]:
        for mo in ("raw_values", "uniform_average"):
            got = same_as_sklearn(name, [1.0], [2.0], multioutput=mo)
            assert type(got) is float and math.isnan(got)
        same_as_sklearn(name, [[1.0, 2.0]], [[2.0, 3.0]], multioutput="raw_values")


def test_float32_inputs():
    rng = np.random.default_rng(5)
    yt = rng.normal(size=500).astype(np.float32)
    yp = (yt + rng.normal(size=500)).astype(np.float32)
    w = rng.random(500).astype(np.float32)
    for name in NAMES:
        for ww in (None, w):
            kw = dict(sample_weight=ww, **_kwargs(name, 0.7))
            got = getattr(fm, name)(yt, yp, **kw)
            # float64 sums of the float32 values: scikit-learn on the same values as float64
            # (the quantile is taken in float32, as scikit-learn takes it)
            kw64 = dict(kw, sample_weight=None if ww is None else ww.astype(np.float64))
            want64 = getattr(skm, name)(yt.astype(np.float64), yp.astype(np.float64), **kw64)
            want32 = getattr(skm, name)(yt, yp, **kw)
            assert got == pytest.approx(want32, rel=1e-5, abs=1e-6)  # D² near 0: absolute
            if name == "mean_pinball_loss":
                assert got == pytest.approx(want64, rel=1e-12)


def test_float32_d2_within_float32_precision():
    yt = np.arange(10, dtype=np.float32)
    yp = np.zeros(10, dtype=np.float32)
    for alpha in (0.3, 0.7, 0.1, 0.9, 0.55):
        want = skm.d2_pinball_score(yt, yp, alpha=alpha)
        assert fm.d2_pinball_score(yt, yp, alpha=alpha) == pytest.approx(want, abs=1e-6)
        same_as_sklearn("d2_pinball_score", yt.astype(np.float64), yp.astype(np.float64),
                        alpha=alpha)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 2**32 - 1),
       alpha=st.sampled_from(ALPHAS) | st.floats(0, 1),
       dtype=st.sampled_from([np.float32, np.float64]),
       weights=st.sampled_from([None, "ints", "zeros", "floats"]))
def test_the_quantile_is_sklearns_bit_for_bit(n, seed, alpha, dtype, weights):
    """The baseline quantile equals scikit-learn's ``_weighted_percentile(average=True)``
    exactly, in its dtype: ranks that land on a sample, zero weights skipped, ties."""
    from sklearn.utils.stats import _weighted_percentile

    from fastmetrics._states.pinball import quantiles
    rng = np.random.default_rng(seed)
    y = (rng.integers(-3, 4, (n, 2)) / 3).astype(dtype)
    w = None
    if weights == "ints":
        w = rng.integers(0, 4, n).astype(dtype)
    elif weights == "zeros":
        w = (rng.random(n) < 0.4).astype(dtype)
    elif weights == "floats":
        w = rng.random(n).astype(dtype)
    if w is not None and not w.any():
        return
    want = _weighted_percentile(y, np.ones(n, dtype) if w is None else w, alpha * 100,
                                average=True)
    got = quantiles(y, w, alpha, np.dtype(dtype))
    np.testing.assert_array_equal(got, np.asarray(want, dtype=np.float64))
    got1 = quantiles(np.asfortranarray(y)[:, 1], w, alpha, np.dtype(dtype))
    np.testing.assert_array_equal(got1, np.asarray(want[1:], dtype=np.float64))


@pytest.mark.slow
def test_float32_unit_weights_stop_counting_at_2_to_24():
    """scikit-learn's cumulative sum of float32 ones stops at 2**24: the ranks follow it."""
    from sklearn.utils.stats import _weighted_percentile

    from fastmetrics._states.pinball import quantiles
    n = 2**24 + 2**20
    y = np.arange(n, dtype=np.float32)[::-1] / 4
    ones = np.ones(n, np.float32)
    for alpha in (1.0, 0.99):
        want = _weighted_percentile(y, ones, alpha * 100, average=True)
        assert quantiles(y, None, alpha, np.dtype(np.float32))[0] == want


# ----------------------------------------------------------------------------- multioutput


def layouts(a):
    """The same values C-ordered, F-ordered and as a strided view of a wider array."""
    wide = np.zeros((a.shape[0], 2 * a.shape[1]), dtype=a.dtype)
    wide[:, ::2] = a
    return {"C": np.ascontiguousarray(a), "F": np.asfortranarray(a), "strided": wide[:, ::2]}


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 200), m=st.integers(2, 5), seed=st.integers(0, 2**32 - 1),
       weighted=st.booleans(), alpha=st.sampled_from(ALPHAS))
def test_multioutput_every_layout_matches_sklearn(n, m, seed, weighted, alpha):
    rng = np.random.default_rng(seed)
    yt = rng.integers(-5, 6, (n, m)).astype(float)
    yt[:, 0] = 2.0  # a constant output
    yp = yt + rng.normal(size=(n, m)) * rng.integers(0, 2, m)  # some perfect outputs
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    if w is not None and not w.any():
        w[0] = 1.0
    for name in NAMES:
        want = {mo if isinstance(mo, str) else "custom":
                same_as_sklearn(name, yt, yp, sample_weight=w, multioutput=mo,
                                **_kwargs(name, alpha))
                for mo in ("raw_values", "uniform_average", list(np.arange(1.0, m + 1)))}
        for lay_t in layouts(yt).values():
            for lay_p in layouts(yp).values():
                got = getattr(fm, name)(lay_t, lay_p, sample_weight=w,
                                        multioutput="raw_values", **_kwargs(name, alpha))
                close(got, want["raw_values"])


def test_multioutput_errors_as_sklearn():
    yt, yp = np.arange(12.0).reshape(6, 2), np.ones((6, 2))
    for name in NAMES:
        for mo in ([1.0, 2.0, 3.0], [0.0, 0.0], "variance_weighted", None, "bad", [1.0]):
            same_as_sklearn(name, yt, yp, multioutput=mo)
            same_as_sklearn(name, yt[:, 0], yp[:, 0], multioutput=mo)
        same_as_sklearn(name, yt, yp[:, :1])
        same_as_sklearn(name, np.ones((3, 2, 2)), np.ones((3, 2, 2)))


# ----------------------------------------------------------------------------- bad input


def test_alpha_is_checked_as_sklearn():
    for name in NAMES[:2]:
        for alpha in (-0.1, 1.5, float("nan"), "0.5", None, [0.5]):
            with pytest.raises(ValueError, match=f"'alpha' parameter of {name} must be a "
                               r"float in the range \[0.0, 1.0\]") as exc:
                getattr(fm, name)([1.0, 2.0], [1.0, 3.0], alpha=alpha)
            assert isinstance(exc.value, TypeError)  # InvalidParameterError, as sklearn
            with pytest.raises(type(exc.value)):
                getattr(skm, name)([1.0, 2.0], [1.0, 3.0], alpha=alpha)
        for alpha in (0, 1, True, np.float32(0.25), 0.5):
            same_as_sklearn(name, [1.0, 2.0, 4.0], [1.0, 3.0, 2.0], alpha=alpha)


@pytest.mark.parametrize("name", NAMES)
def test_bad_data_as_sklearn(name):
    yt, yp = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.5, 2.0])
    for bad in (np.nan, np.inf, -np.inf):
        for which in (0, 1):
            args = [yt.copy(), yp.copy()]
            args[which][1] = bad
            same_as_sklearn(name, *args)
        same_as_sklearn(name, yt, yp, sample_weight=np.array([1.0, bad, 1.0]))
    with pytest.raises(ValueError, match="Input y_pred contains NaN"):
        getattr(fm, name)(yt, np.array([1.0, np.nan, 2.0]))
    same_as_sklearn(name, yt, yp, sample_weight=np.zeros(3))
    same_as_sklearn(name, yt, yp, sample_weight=np.array([1.0, -1.0, 0.0]))
    same_as_sklearn(name, yt, yp[:2])
    same_as_sklearn(name, yt, yp, sample_weight=np.ones(2))
    same_as_sklearn(name, [], [])
    same_as_sklearn(name, 1.0, 2.0)
    same_as_sklearn(name, yt, yp, sample_weight=2.0)


def test_inputs_are_not_modified():
    rng = np.random.default_rng(1)
    yt, yp, w = rng.normal(size=(50, 3)), rng.normal(size=(50, 3)), rng.random(50)
    keep = [a.copy() for a in (yt, yp, w)]
    for a in (yt, yp, w):
        a.flags.writeable = False  # read-only inputs are fine
    for name in NAMES:
        getattr(fm, name)(yt, yp, sample_weight=w)
        getattr(fm, name)(yt[:, 0], yp[:, 0])
    for a, b in zip((yt, yp, w), keep):
        np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------- threads


def test_any_thread_count_gives_the_same_bits():
    rng = np.random.default_rng(2)
    n = 700_000  # several lanes
    yt, yp, w = rng.normal(size=n), rng.normal(size=n), rng.random(n)
    y2, p2 = rng.normal(size=(n // 2, 3)), rng.normal(size=(n // 2, 3))
    for name in NAMES:
        for args, kw in (((yt, yp), {}), ((yt, yp), {"sample_weight": w}),
                         ((y2, p2), {"multioutput": "raw_values"}),
                         ((np.asfortranarray(y2), p2), {"multioutput": "raw_values"})):
            got = [getattr(fm, name)(*args, n_threads=t, **kw) for t in (1, 2, 3, 8)]
            for g in got[1:]:
                np.testing.assert_array_equal(g, got[0])
        close(getattr(fm, name)(yt, yp, sample_weight=w),
              getattr(skm, name)(yt, yp, sample_weight=w), rtol=1e-11)
    with pytest.raises(ValueError, match="n_threads"):
        fm.mean_pinball_loss(yt[:10], yp[:10], n_threads=0)


# ----------------------------------------------------------------------------- streaming


@settings(max_examples=60, deadline=None)
@given(one_output(), st.lists(st.integers(1, 119), max_size=4, unique=True),
       st.booleans())
def test_accumulator_chunks_equal_one_shot(case, cuts, two_d):
    yt, yp, w, alpha = case
    if w is not None and not w.any():
        return
    if two_d:
        yt, yp = np.c_[yt, -yt, yt * 2], np.c_[yp, yp, yp]
    n = yt.shape[0]
    bounds = [0, *sorted(c for c in cuts if c < n), n]
    acc = PinballAccumulator()
    for i, j in zip(bounds[:-1], bounds[1:]):
        acc.update(yt[i:j], yp[i:j], None if w is None else w[i:j])
    for mo in ("raw_values", "uniform_average"):
        want = fm.mean_pinball_loss(yt, yp, sample_weight=w, alpha=alpha, multioutput=mo)
        close(acc.mean_pinball_loss(alpha=alpha, multioutput=mo), want)
        # one accumulator answers every alpha
        close(acc.mean_pinball_loss(alpha=0.5, multioutput=mo),
              fm.mean_pinball_loss(yt, yp, sample_weight=w, multioutput=mo))
    back = PinballAccumulator.from_dict(json.loads(json.dumps(acc.to_dict(as_lists=True))))
    assert back.mean_pinball_loss(alpha=alpha) == acc.mean_pinball_loss(alpha=alpha)


def test_accumulator_rules():
    acc = PinballAccumulator()
    with pytest.raises(ValueError, match="no samples seen"):
        acc.mean_pinball_loss()
    acc.update([], [])  # an empty chunk is a no-op
    acc.update([1.0, 2.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="sample_weight was given"):
        acc.update([1.0], [2.0], [1.0])
    with pytest.raises(ValueError, match="alpha"):
        acc.mean_pinball_loss(alpha=2)
    with pytest.raises(ValueError, match="numbers of outputs"):
        acc.update(np.ones((3, 2)), np.ones((3, 2)))
    a = PinballAccumulator().update([1.0], [2.0])
    b = PinballAccumulator().update([5.0], [2.0])
    assert (a + b).mean_pinball_loss(alpha=0.25) == fm.mean_pinball_loss(
        [1.0, 5.0], [2.0, 2.0], alpha=0.25) == sum([a, b]).mean_pinball_loss(alpha=0.25)
    z = PinballAccumulator().update([1.0, 2.0], [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="at least one non-zero"):
        z.mean_pinball_loss()
    assert pickle.loads(pickle.dumps(acc)).mean_pinball_loss() == acc.mean_pinball_loss()


def test_dask_equals_one_shot():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    import fastmetrics.dask as fmd
    rng = np.random.default_rng(4)
    yt, yp, w = rng.normal(size=(1000, 3)), rng.normal(size=(1000, 3)), rng.random(1000)
    with dask.config.set(scheduler="synchronous"):
        for args in ((yt, yp), (yt[:, 1], yp[:, 1])):
            for alpha in (0.1, 0.5, 0.93):
                got = fmd.mean_pinball_loss(da.from_array(args[0], chunks=(170, -1)
                                                          if args[0].ndim == 2 else 170),
                                            args[1], sample_weight=w, alpha=alpha,
                                            multioutput="raw_values")
                close(got, fm.mean_pinball_loss(*args, sample_weight=w, alpha=alpha,
                                                multioutput="raw_values"))
        acc = fmd.accumulate("pinball", da.from_array(yt, chunks=(300, 1)), yp)
        close(acc.mean_pinball_loss(alpha=0.3), fm.mean_pinball_loss(yt, yp, alpha=0.3))
    assert not hasattr(fmd, "d2_pinball_score") and not hasattr(fmd, "d2_absolute_error_score")
    assert not hasattr(PinballAccumulator, "d2_pinball_score")


# ----------------------------------------------------------------------------- the state


def test_state_round_trip_and_merge():
    rng = np.random.default_rng(6)
    for yt, yp, w in ((rng.normal(size=30), rng.normal(size=30), None),
                      (rng.normal(size=(30, 3)), rng.normal(size=(30, 3)), rng.random(30))):
        s = PinballState.from_arrays(yt, yp, w)
        for d in (s.to_dict(), json.loads(json.dumps(s.to_dict(as_lists=True)))):
            back = load_state(d)
            assert type(back) is PinballState and back.weighted == s.weighted
            np.testing.assert_array_equal(back.sums, s.sums)
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(s)).sums, s.sums)
        half = PinballState.from_arrays(yt[:11], yp[:11], None if w is None else w[:11])
        rest = PinballState.from_arrays(yt[11:], yp[11:], None if w is None else w[11:])
        np.testing.assert_allclose((half + rest).sums, s.sums, rtol=1e-13)
        assert (half + rest).n_samples == 30
        assert "PinballState(n_samples=30" in repr(s)


def test_state_refusals():
    s = PinballState.from_arrays([1.0, 2.0, 3.0], [2.0, 2.0, 2.0])
    m = PinballState.from_arrays(np.ones((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="numbers of outputs"):
        s.merge(m)
    with pytest.raises(TypeError, match="cannot merge"):
        s.merge(fm.states.RegressionState.from_arrays([1.0], [2.0]))

    def doctored(state, **changes):
        d = state.to_dict()
        d.update(changes)
        return d

    bad = [
        doctored(s, sums=np.array([3.0, 1.0, 1.0, 2.0])),          # W != N unweighted
        doctored(s, sums=np.array([3.0, -1.0, 1.0, 3.0])),         # negative loss
        doctored(s, sums=np.array([3.0, 1.0, 1.0, 2.5])),          # fractional count
        doctored(s, sums=np.array([3.0, np.nan, 1.0, 3.0])),       # not finite
        doctored(s, sums=np.array([0.0, 1.0, 0.0, 0.0])),          # empty with sums
        doctored(s, sums=np.array([3.0, 1.0, 1.0])),               # wrong length
        doctored(s, sums=np.array(["a", "b", "c", "d"])),          # not numbers
        doctored(s, weighted="yes"),
        doctored(m, sums=np.array([[3.0, 1.0, 1.0, 3.0], [3.0, 1.0, 1.0, 2.0]])),  # counts
        doctored(m, sums=np.array([[3.0, 1.0, 1.0, 3.0]])),        # one row as 2-D
        doctored(s, kind="regression"),
    ]
    for d in bad:
        with pytest.raises(StateError):
            PinballState.from_dict(d)
    d = s.to_dict()
    del d["weighted"]
    with pytest.raises(StateError):
        PinballState.from_dict(d)
    # weighted states may hold any finite signs (negative weights)
    w = PinballState.from_arrays([1.0, 2.0], [0.0, 0.0], [1.0, -3.0])
    assert load_state(w.to_dict()).sums.tolist() == w.sums.tolist()
