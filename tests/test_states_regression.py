"""The regression sums state (RegressionState): any split of the data into chunks, merged in
any order or tree, equals one pass; exported states round-trip through npz and JSON and
tampered ones are refused; RegressionAccumulator pickles (protocols 0-5, and those pickled by
fastmetrics 0.1.0); every table row's accumulator method and Dask function equals its one-shot
function; the wrong numbers and errors of issue 13's regression list, against scikit-learn."""

import copyreg
import inspect
import io
import json
import math
import pathlib
import pickle
import re
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning as SkUndefined

import fastmetrics as fm
import fastmetrics.regression as reg
from fastmetrics import _table
from fastmetrics._kernels import sums as kernel
from fastmetrics._states import sums
from fastmetrics.states import RegressionState, StateError, load_state
from fastmetrics.streaming import RegressionAccumulator

DATA = pathlib.Path(__file__).parent / "data"
ROWS = _table.by_family("regression")


def close(a, b, rtol=1e-12, atol=0.0):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def state(yt, yp, w=None, **kw):
    kw.setdefault("allow_empty", True)
    kw.setdefault("allow_zero_sum", True)
    return RegressionState.from_arrays(yt, yp, w, **kw)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


# ----------------------------------------------------------------------------- merge law

values = st.floats(-1e4, 1e4, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-100)
reg_data = st.integers(1, 120).flatmap(
    lambda n: st.tuples(
        st.lists(values | st.sampled_from([0.0, 2.5]), min_size=n, max_size=n),
        st.lists(values, min_size=n, max_size=n),
        st.lists(st.floats(0.01, 10.0), min_size=n, max_size=n),
    )
)


@st.composite
def plans(draw, n):
    """Chunk boundaries of range(n) (empty chunks allowed) and a merge order and shape."""
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=6)))
    bounds = [0, *cuts, n]
    order = draw(st.permutations(range(len(bounds) - 1)))
    return bounds, order, draw(st.booleans())


def merged(states, order, tree):
    states = [states[i] for i in order]
    if not tree:
        out = states[0]
        for s in states[1:]:
            out = out.merge(s)
        return out
    while len(states) > 1:
        nxt = [states[i] + states[i + 1] for i in range(0, len(states) - 1, 2)]
        states = nxt + ([states[-1]] if len(states) % 2 else [])
    return states[0]


@given(reg_data, st.booleans(), st.sampled_from([np.float64, np.float32]), st.data())
def test_any_split_any_order_equals_one_pass(d, weighted, dtype, data):
    yt, yp = np.array(d[0], dtype=dtype), np.array(d[1], dtype=dtype)
    w = np.array(d[2]) if weighted else None
    bounds, order, tree = data.draw(plans(len(yt)))
    parts = [state(yt[a:b], yp[a:b], None if w is None else w[a:b], delta=2.0,
                   keep_values=True) for a, b in zip(bounds[:-1], bounds[1:])]
    got = merged(parts, order, tree)
    one = state(yt, yp, w, delta=2.0, keep_values=True)
    s, o = got.sums, one.sums
    assert s[kernel.N] == o[kernel.N] == len(yt) and s[kernel.CONST] == o[kernel.CONST]
    assert got.flags == one.flags == sums.ALL_FLAGS and got.weighted == weighted
    # float sums in another order: 1e-12 relative to the size of their terms
    scale = {kernel.W: o[kernel.W], kernel.ABS: o[kernel.ABS], kernel.SQ: o[kernel.SQ],
             kernel.APE: o[kernel.APE], kernel.HUBER: o[kernel.HUBER]}
    for k, size in scale.items():
        assert abs(s[k] - o[k]) <= 1e-12 * size
    ty = yt.astype(np.float64)
    assert abs(s[kernel.MEAN] - o[kernel.MEAN]) <= 1e-12 * max(np.abs(ty).max(), 1e-300)
    # the spread: relative to itself, plus the rounding of the mean it is taken around
    assert abs(s[kernel.M2] - o[kernel.M2]) <= 1e-12 * o[kernel.M2] + 1e-14 * (
        o[kernel.W] * np.abs(ty).max() ** 2)
    # every derivation, the median of the kept errors exactly
    for f in (sums.mae, sums.mse, sums.rmse, sums.mape, sums.huber):
        close(f(got), f(one))
    r2g, r2o = quiet(sums.r2, got), quiet(sums.r2, one)
    assert (math.isnan(r2g) and math.isnan(r2o)) or abs(r2g - r2o) <= 1e-11 * max(1, abs(1 - r2o))
    assert sums.median_ae(got) == sums.median_ae(one) == fm.median_absolute_error(
        yt, yp, sample_weight=w)
    assert got.errors.dtype == one.errors.dtype == np.dtype(dtype)


def test_empty_state_is_the_identity_and_flags_intersect():
    a = state([1.0, 2.0, 4.0], [1.5, 2.0, 3.0])
    empty = state([], [])
    assert empty.n_samples == 0 and not empty.sums.any()
    assert a.merge(empty) is a and empty.merge(a) is a
    ape = state([1.0, 2.0], [1.0, 3.0], flags=kernel.FLAG_APE)
    r2 = state([3.0, 5.0], [3.0, 4.0], flags=kernel.FLAG_R2)
    both = ape + r2
    assert both.flags == 0 and both.n_samples == 4
    assert both.sums[kernel.APE] == both.sums[kernel.MEAN] == both.sums[kernel.M2] == 0
    assert sums.mae(both) == fm.mean_absolute_error([1.0, 2.0, 3.0, 5.0], [1.0, 3.0, 3.0, 4.0])
    for f in (sums.mape, sums.r2, sums.summary, sums.huber):
        with pytest.raises(ValueError, match="holds no"):
            f(both)
    with pytest.raises(ValueError, match="keep"):
        sums.median_ae(both)
    with pytest.raises(ValueError, match="different Huber delta"):
        a.merge(state([1.0], [2.0], delta=2.0))
    with pytest.raises(TypeError, match="cannot merge"):
        a.merge(fm.states.ConfusionState.from_arrays([0], [1]))


@pytest.mark.parametrize("flags", range(sums.ALL_FLAGS + 1))
def test_every_flag_set_holds_only_its_sums_and_round_trips(flags):
    # e.g. explained variance's state (R² and error spread, no maximum) once carried the
    # maximum error too, and its own to_dict was then refused on load
    y, p = np.array([1.0, -2.0, 4.0, 0.5]), np.array([1.5, -2.0, 3.0, 2.0])
    st_ = state(y, p, flags=flags)
    absent = [slot for slot, flag in ((kernel.APE, kernel.FLAG_APE),
                                      (kernel.HUBER, kernel.FLAG_HUBER),
                                      (kernel.MEAN, kernel.FLAG_R2), (kernel.M2, kernel.FLAG_R2),
                                      (kernel.MAXABS, kernel.FLAG_MAX),
                                      (kernel.MEANE, kernel.FLAG_EV),
                                      (kernel.M2E, kernel.FLAG_EV)) if not flags & flag]
    assert not st_.sums[absent].any()
    back = RegressionState.from_dict(json.loads(json.dumps(st_.to_dict(as_lists=True))))
    np.testing.assert_array_equal(back.sums, st_.sums)
    assert back.flags == flags


def test_absent_sums_raise_never_read_zero():
    s = RegressionState.from_arrays([1.0, 2.0, 3.0], [1.0, 2.0, 4.0], flags=0)
    assert sums.mae(s) == 1 / 3
    for f in (sums.mape, sums.huber, sums.r2, sums.summary):
        with pytest.raises(ValueError, match="holds no"):
            f(s)
    with pytest.raises(ValueError, match="holds no"):
        sums.adjusted_r2(s, 0)
    zero = state([1.0, 2.0], [1.0, 3.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="at least one non-zero"):
        sums.mae(zero)


# ----------------------------------------------------------------------------- export / load


def some_states():
    rng = np.random.default_rng(3)
    yt, yp, w = rng.normal(size=50), rng.normal(size=50), rng.random(50)
    return {
        "plain": state(yt, yp),
        "weighted": state(yt, yp, w, delta=0.5),
        "kept": state(yt, yp, keep_values=True),
        "kept weighted": state(yt, yp, w, keep_values=True),
        "kept float32": state(yt.astype(np.float32), yp.astype(np.float32), keep_values=True),
        "mae only": state(yt, yp, flags=0),
        "constant": state(np.full(7, 0.1), yp[:7]),
        "empty": state([], []),
        "merged": state(yt[:20], yp[:20], keep_values=True) + state(yt[20:], yp[20:],
                                                                     keep_values=True),
    }


def same_state(a, b):
    assert type(a) is type(b) is RegressionState
    np.testing.assert_array_equal(a.sums, b.sums)
    assert (a.flags, a.delta, a.weighted, a.keeps_values) == (b.flags, b.delta, b.weighted,
                                                            b.keeps_values)
    if a.keeps_values:
        assert a.errors.dtype == b.errors.dtype
        np.testing.assert_array_equal(a.errors, b.errors)
        assert (a.weights is None) == (b.weights is None)
        if a.weights is not None:
            np.testing.assert_array_equal(a.weights, b.weights)


@pytest.mark.parametrize("name", list(some_states()))
def test_round_trips(name, tmp_path):
    s = some_states()[name]
    path = tmp_path / "state.npz"
    np.savez(path, **s.to_dict())
    with np.load(path, allow_pickle=False) as f:
        same_state(RegressionState.from_dict(f), s)
        same_state(load_state(f), s)
    text = json.dumps(s.to_dict(as_lists=True))
    same_state(RegressionState.from_dict(json.loads(text)), s)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        same_state(pickle.loads(pickle.dumps(s, protocol=protocol)), s)
    assert "RegressionState(n_samples=" in repr(s)
    if s.n_samples and s.flags == sums.ALL_FLAGS:
        assert quiet(sums.summary, RegressionState.from_dict(s.to_dict())) == quiet(sums.summary, s)


def tampered():
    """(name, change of an exported dict) pairs that must be refused."""
    def sums_at(slot, value):
        def f(d):
            d["sums"] = d["sums"].copy()
            d["sums"][slot] = value
        return f

    def put(key, value):
        return lambda d: d.__setitem__(key, value)

    return [
        ("short sums", put("sums", np.zeros(kernel.N_STATE - 1))),
        ("2-D sums", put("sums", np.zeros((1, kernel.N_STATE)))),
        ("NaN sum", sums_at(kernel.SQ, np.nan)),
        ("infinite weight total", sums_at(kernel.W, np.inf)),
        ("negative count", sums_at(kernel.N, -3.0)),
        ("fractional count", sums_at(kernel.N, 49.5)),
        ("weight total is not the count", sums_at(kernel.W, 49.0)),
        ("negative absolute errors", sums_at(kernel.ABS, -1.0)),
        ("negative spread", sums_at(kernel.M2, -1.0)),
        ("CONST not 0/1", sums_at(kernel.CONST, 0.5)),
        ("CONST with a spread", sums_at(kernel.CONST, 1.0)),
        ("unknown flag bits", put("flags", 8)),
        ("negative flags", put("flags", -1)),
        ("flags as text", put("flags", "7")),
        ("zero delta", put("delta", 0.0)),
        ("NaN delta", put("delta", np.nan)),
        ("weighted not a bool", put("weighted", "no")),
        ("kept errors too short", lambda d: d.__setitem__("errors", d["errors"][:-1])),
        ("negative kept error", lambda d: d.__setitem__("errors", -d["errors"])),
        ("NaN kept error", lambda d: d.__setitem__("errors", d["errors"] * np.nan)),
        ("kept errors as integers", put("errors_dtype", "<i8")),
        ("kept errors as objects", put("errors_dtype", "|O")),
        ("another kind", put("kind", "confusion")),
        ("unknown kind", put("kind", "bogus")),
        ("a later format", put("format", 2)),
        ("no sums", lambda d: d.pop("sums")),
    ]


@pytest.mark.parametrize("name, change", tampered(), ids=[t[0] for t in tampered()])
def test_tampered_state_is_refused(name, change):
    d = some_states()["kept"].to_dict()
    change(d)
    loader = load_state if name in ("another kind", "unknown kind") else RegressionState.from_dict
    with pytest.raises(StateError):
        loader(d)


def test_tampered_weighted_and_optional_sums_are_refused():
    d = some_states()["kept weighted"].to_dict()
    d["weights"] = d["weights"] * 2  # no longer the weight total
    with pytest.raises(StateError, match="kept weights sum"):
        RegressionState.from_dict(d)
    d = some_states()["kept weighted"].to_dict()
    d["weights"] = d["weights"][:-1]
    with pytest.raises(StateError, match="weights"):
        RegressionState.from_dict(d)
    d = some_states()["mae only"].to_dict()
    d["sums"] = d["sums"].copy()
    d["sums"][kernel.APE] = 1.0  # a sum the flags say is absent
    with pytest.raises(StateError, match="absent"):
        RegressionState.from_dict(d)
    d = some_states()["empty"].to_dict()
    d["sums"] = d["sums"].copy()
    d["sums"][kernel.ABS] = 1.0
    with pytest.raises(StateError, match="empty"):
        RegressionState.from_dict(d)
    d = some_states()["constant"].to_dict()
    d["sums"] = d["sums"].copy()
    d["sums"][kernel.FIRST] = 5.0  # CONST, but not the mean's value
    with pytest.raises(StateError, match="constant"):
        RegressionState.from_dict(d)


class _Doctored:
    """Pickles as a call of ``loader`` on ``d``: what a doctored pickle of a state or an
    accumulator holds."""

    def __init__(self, loader, d):
        self.loader, self.d = loader, d

    def __reduce__(self):
        return (self.loader, (self.d,))


class _LegacyDoctored:
    """Pickles like a fastmetrics 0.1.0 RegressionAccumulator (a class and its __dict__)."""

    def __init__(self, d):
        self.d = d

    def __reduce__(self):
        return (copyreg._reconstructor, (RegressionAccumulator, object, None), self.d)


def test_doctored_pickles_are_refused():
    s = some_states()["plain"]
    d = s.to_dict()
    d["sums"] = d["sums"].copy()
    d["sums"][kernel.ABS] = -350.0  # would report a negative MAE
    with pytest.raises(StateError):
        pickle.loads(pickle.dumps(_Doctored(RegressionState.from_dict, d)))
    acc = RegressionAccumulator().update([1.0, 2.0, 3.0], [1.0, 2.0, 5.0])
    ad = acc.to_dict()
    ad["state"]["sums"] = ad["state"]["sums"].copy()
    ad["state"]["sums"][kernel.N] = 1.5
    with pytest.raises(StateError):
        pickle.loads(pickle.dumps(_Doctored(RegressionAccumulator.from_dict, ad)))
    ad = acc.to_dict()
    ad["state"] = fm.states.ConfusionState.from_arrays([0], [0]).to_dict()
    with pytest.raises(StateError, match="cannot be the state"):
        RegressionAccumulator.from_dict(ad)
    legacy = {"delta": 1.0, "keep_values": False, "_errors": [], "_weights": [],
              "_weighted": False,
              "_state": np.array([3.0, -1.0, 2.0, 0.0, 0.0, 1.0, 1.0, 3.0, 0.0, 1.0])}
    with pytest.raises(StateError, match="0.1 RegressionAccumulator"):
        pickle.loads(pickle.dumps(_LegacyDoctored(legacy)))
    legacy["_state"] = legacy["_state"][:5]
    with pytest.raises(StateError):
        pickle.loads(pickle.dumps(_LegacyDoctored(legacy)))


# ----------------------------------------------------------------------------- accumulator


@pytest.mark.parametrize("keep_values", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_accumulator_pickle_protocols(keep_values, weighted):
    rng = np.random.default_rng(5)
    yt, yp, w = rng.normal(size=200), rng.normal(size=200), rng.random(200)
    w = w if weighted else None
    acc = RegressionAccumulator(delta=0.7, keep_values=keep_values)
    acc.update(yt[:120], yp[:120], None if w is None else w[:120]).update(
        yt[120:], yp[120:], None if w is None else w[120:])
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        blob = pickle.dumps(acc, protocol=protocol)
        assert b"_states" not in blob  # only public names: the checked loaders
        back = pickle.loads(blob)
        assert back.config() == acc.config() and back.n_samples == 200
        assert back.result() == acc.result() and back.huber_loss() == acc.huber_loss()
        if keep_values:
            assert back.median_absolute_error() == fm.median_absolute_error(
                yt, yp, sample_weight=w)
        with pytest.raises(ValueError, match="sample_weight was given"):
            back.update(yt[:3], yp[:3], None if weighted else np.ones(3))
    assert pickle.loads(pickle.dumps(RegressionAccumulator())).state is None
    text = json.dumps(acc.to_dict(as_lists=True))
    assert RegressionAccumulator.from_dict(json.loads(text)).result() == acc.result()


@pytest.mark.parametrize("fixture", ["legacy_accumulators.pkl", "legacy_accumulators_p2.pkl"])
def test_legacy_pickles_load_and_answer_as_recorded(fixture):
    answers = json.loads((DATA / "legacy_accumulators.json").read_text())
    accs = pickle.loads((DATA / fixture).read_bytes())
    for name in ("regression", "regression_keep_values"):
        acc, want = accs[name], answers[name]
        assert isinstance(acc, RegressionAccumulator)
        # 0.1.0 states hold every optional sum of their time: not the max, nor the error spread
        assert isinstance(acc.state, RegressionState) \
            and acc.state.flags == sums.ALL_FLAGS & ~(kernel.FLAG_MAX | kernel.FLAG_EV)
        got = {"n_samples": acc.n_samples, "mae": acc.mean_absolute_error(),
               "mse": acc.mean_squared_error(), "r2": acc.r2_score(), "huber": acc.huber_loss()}
        if acc.keep_values:
            got["median_ae"] = acc.median_absolute_error()
        assert got == want
        # and they go on: a new chunk, a new pickle
        again = pickle.loads(pickle.dumps(acc.update(
            [1.0, 2.0], [2.0, 2.0], [1.0, 1.0] if acc.state.weighted else None)))
        assert again.n_samples == want["n_samples"] + 2


def test_accumulator_config_and_errors():
    a = RegressionAccumulator(keep_values=True).update([1.0, 2.0], [1.0, 3.0])
    with pytest.raises(ValueError, match="keep_values"):
        a.merge(RegressionAccumulator())
    with pytest.raises(ValueError, match="delta"):
        RegressionAccumulator(delta=0)
    a.update([], [])  # an empty chunk is a no-op
    assert a.n_samples == 2
    zero = RegressionAccumulator().update([1.0, 2.0], [1.0, 3.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="at least one non-zero"):
        zero.mean_absolute_error()
    with pytest.raises(ValueError, match="keep_values=True"):
        RegressionAccumulator().update([1.0], [2.0]).median_absolute_error()
    assert "delta=1.0, keep_values=True, n_samples=2" in repr(a)


# ----------------------------------------------------------------------------- the table


def call_args(row):
    """Metric arguments a row needs (none has a default-less one but adjusted R²)."""
    return {"n_features": 2} if row.name == "adjusted_r2_score" else {}


def test_table_rows():
    names = {r.name for r in ROWS}
    assert names == {"mean_absolute_error", "mean_squared_error", "root_mean_squared_error",
                     "mean_absolute_percentage_error", "huber_loss", "r2_score",
                     "adjusted_r2_score", "regression_summary", "median_absolute_error",
                     "max_error", "explained_variance_score"}
    assert [r.name for r in ROWS if not r.dask] == ["median_absolute_error"]
    for row in ROWS:
        assert row.function is getattr(fm, row.name) is getattr(reg, row.name)
        takes = inspect.signature(row.derive).parameters
        for p in row.metric_parameters():  # a derivation takes every metric parameter
            assert p.name in takes and takes[p.name].default == p.default, (row.name, p.name)


def weight_arg(row, w):
    """``sample_weight=w`` for a function that takes weights (max_error takes none, as
    scikit-learn's: an accumulator fed weights gives the same, unweighted, max)."""
    return {"sample_weight": w} if "sample_weight" in row.signature.parameters else {}


@pytest.mark.parametrize("weighted", [False, True])
def test_every_method_equals_the_one_shot_function(weighted):
    rng = np.random.default_rng(11)
    yt, yp, w = rng.normal(2, 1, 300), rng.normal(2, 1, 300), rng.random(300)
    w = w if weighted else None
    acc = RegressionAccumulator(delta=0.8, keep_values=True)
    for part in np.array_split(np.arange(300), 4):
        acc.update(yt[part], yp[part], None if w is None else w[part])
    for row in ROWS:
        method = getattr(RegressionAccumulator, row.name)
        sig = inspect.signature(method)
        assert list(sig.parameters)[1:] == [p.name for p in row.metric_parameters()]
        config = {"delta": 0.8} if "delta" in row.config else {}
        one = row.function(yt, yp, **weight_arg(row, w), **config, **call_args(row))
        got = getattr(acc, row.name)(**call_args(row))
        if row.name == "regression_summary":
            close(list(got.as_row().values()), list(one.as_row().values()))
        elif row.name == "median_absolute_error":
            assert got == one
        else:
            close(got, one, rtol=1e-11)
    assert acc.mean_absolute_error(multioutput="raw_values").shape == (1,)


def test_every_dask_function_equals_the_one_shot_function():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    import fastmetrics.dask as fmd

    rng = np.random.default_rng(12)
    yt, yp, w = rng.normal(2, 1, 500), rng.normal(2, 1, 500), rng.random(500)
    assert not hasattr(fmd, "median_absolute_error")
    assert "median_absolute_error" not in fmd.__all__
    with dask.config.set(scheduler="synchronous"):
        for row in ROWS:
            if not row.dask:
                continue
            f = getattr(fmd, row.name)
            assert row.name in fmd.__all__
            params = list(inspect.signature(f).parameters)
            assert params == list(row.signature.parameters) + ["compute", "split_every",
                                                                 "groups"]
            config = {"delta": 0.3} if "delta" in row.config else {}
            for sw in (None, w):
                one = row.function(yt, yp, **weight_arg(row, sw), **config, **call_args(row))
                got = f(da.from_array(yt, chunks=170), yp, **weight_arg(row, sw), **config,
                        **call_args(row))
                if row.name == "regression_summary":
                    close(list(got.as_row().values()), list(one.as_row().values()))
                else:
                    close(got, one, rtol=1e-11)
        lazy = fmd.huber_loss(da.from_array(yt, chunks=100), yp, delta=0.3, compute=False)
        close(lazy.compute(), fm.huber_loss(yt, yp, delta=0.3))


# ----------------------------------------------------------------------------- scikit-learn


def raised(fn, *a, **k):
    try:
        fn(*a, **k)
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return exc
    raise AssertionError(f"{fn.__name__} did not raise")


def same_error(ours, theirs):
    """Our error is scikit-learn's: the same type, its message (first line, without its
    final period and its function's name) starting ours."""
    assert type(ours) is type(theirs) or isinstance(ours, type(theirs)), (ours, theirs)
    want = str(theirs).splitlines()[0].rstrip(".")
    want = re.sub(r"parameter of \w+ must", "parameter must", want)
    assert str(ours).startswith(want), (str(ours), str(theirs))


SK_NAMES = ["mean_absolute_error", "mean_squared_error", "root_mean_squared_error",
            "mean_absolute_percentage_error", "r2_score", "median_absolute_error"]


def test_median_absolute_error_with_all_zero_weights_raises_as_sklearn():
    args = ([1.0, 2.0, 4.0], [1.0, 3.0, 3.0])
    same_error(raised(fm.median_absolute_error, *args, sample_weight=[0.0, 0.0, 0.0]),
               raised(skm.median_absolute_error, *args, sample_weight=[0.0, 0.0, 0.0]))
    acc = RegressionAccumulator(keep_values=True).update(*args, sample_weight=[0.0] * 3)
    same_error(raised(acc.median_absolute_error),
               raised(skm.median_absolute_error, *args, sample_weight=[0.0, 0.0, 0.0]))
    # weights that cancel are not all zero: scikit-learn's weighted median is defined
    w = [1.0, -1.0, 1.0]
    assert fm.median_absolute_error(*args, sample_weight=w) == skm.median_absolute_error(
        *args, sample_weight=w)


@pytest.mark.parametrize("name", SK_NAMES)
def test_float16_targets_are_computed(name):
    rng = np.random.default_rng(13)
    yt = rng.normal(size=40).astype(np.float16)
    yp = (yt + rng.normal(size=40)).astype(np.float16)
    f, g = getattr(fm, name), getattr(skm, name)
    for w in (None, rng.random(40)):
        got = f(yt, yp, sample_weight=w)
        assert type(got) is float
        # the float16 values, computed in float64 (as float32 inputs are) ...
        close(got, g(yt.astype(np.float64), yp.astype(np.float64), sample_weight=w),
              rtol=1e-12)
        # ... and scikit-learn's float16 arithmetic to float16 precision
        close(got, g(yt, yp, sample_weight=w), rtol=1e-2, atol=1e-3)
    acc = RegressionAccumulator(keep_values=True).update(yt, yp)
    assert getattr(acc, name)() == f(yt, yp)


def test_r2_of_one_sample_is_a_scalar_nan_with_its_warning():
    for multioutput in ("raw_values", "uniform_average", "variance_weighted"):
        with pytest.warns(SkUndefined, match="less than two samples"):
            want = skm.r2_score([1.0], [2.0], multioutput=multioutput)
        with pytest.warns(SkUndefined, match="less than two samples"):
            got = fm.r2_score([1.0], [2.0], multioutput=multioutput)
        assert np.ndim(want) == np.ndim(got) == 0 and math.isnan(want) and math.isnan(got)
        assert type(got) is float
        acc = RegressionAccumulator().update([1.0], [2.0])
        with pytest.warns(SkUndefined, match="less than two samples"):
            assert math.isnan(acc.r2_score(multioutput=multioutput))
    # two samples and more: raw_values is an array of one, as in scikit-learn
    assert fm.r2_score([1.0, 2.0, 3.0], [1.0, 2.5, 3.0], multioutput="raw_values").shape == \
        skm.r2_score([1.0, 2.0, 3.0], [1.0, 2.5, 3.0], multioutput="raw_values").shape


BAD_WEIGHTS = {
    "wrong length": lambda rs: rs.random_sample(49),
    "infinity": lambda rs: np.r_[np.inf, rs.random_sample(49)],
    "NaN": lambda rs: np.r_[rs.random_sample(30), np.nan, rs.random_sample(19)],
    "2-D": lambda rs: rs.random_sample(100).reshape(50, 2),
    "complex": lambda rs: np.full(50, 1 + 2j),
    "scalar": lambda rs: 2.0,
    "all zero": lambda rs: np.zeros(50),
    "cancelling": lambda rs: np.r_[np.ones(25), -np.ones(25)],
}


@pytest.mark.parametrize("case", list(BAD_WEIGHTS))
@pytest.mark.parametrize("name", SK_NAMES)
def test_bad_weights_raise_sklearns_errors(name, case):
    rs = np.random.RandomState(0)
    yt, yp = rs.random_sample(50), rs.random_sample(50)
    w = BAD_WEIGHTS[case](rs)
    if name == "median_absolute_error" and case == "cancelling":
        # scikit-learn's weighted median is defined for them: the same number
        assert fm.median_absolute_error(yt, yp, sample_weight=w) == \
            skm.median_absolute_error(yt, yp, sample_weight=w)
        return
    same_error(raised(getattr(fm, name), yt, yp, sample_weight=w),
               raised(getattr(skm, name), yt, yp, sample_weight=w))


def test_scalar_weight_is_refused_by_the_accumulator_too():
    with pytest.raises(ValueError, match="must be an array-like or None"):
        RegressionAccumulator().update([1.0, 2.0], [1.0, 3.0], sample_weight=2.0)
    with pytest.raises(ValueError, match="must be an array-like or None"):
        fm.huber_loss([1.0, 2.0], [1.0, 3.0], sample_weight=2.0)


def test_nonfinite_targets_and_empty_input_use_sklearns_wording():
    with pytest.raises(ValueError, match=re.escape("Input y_true contains NaN")):
        fm.mean_absolute_error([1.0, np.nan], [1.0, 2.0])
    msg = "Input y_pred contains infinity or a value too large for dtype('float64')"
    with pytest.raises(ValueError, match=re.escape(msg)):
        fm.r2_score([1.0, 2.0], [1.0, -np.inf])
    with pytest.raises(ValueError, match=re.escape(msg)):
        RegressionAccumulator(keep_values=True).update([1.0, 2.0], [1.0, np.inf])
    same_error(raised(fm.mean_squared_error, [], []), raised(skm.mean_squared_error, [], []))
    same_error(raised(fm.mean_squared_error, np.ones((3, 2)), np.ones((3, 3))),
               raised(skm.mean_squared_error, np.ones((3, 2)), np.ones((3, 3))))


def test_summary_type_stays_in_fastmetrics_regression():
    assert reg.RegressionSummary is sums.RegressionSummary
    assert reg.RegressionSummary.__module__ == "fastmetrics.regression"
    s = fm.regression_summary([1.0, 2.0, 3.0], [1.5, 2.0, 2.0])
    assert pickle.loads(pickle.dumps(s)) == s
    assert RegressionState.__module__ == "fastmetrics.states"
    buf = io.BytesIO()
    pickle.dump(some_states()["kept"], buf)
    assert b"fastmetrics._states" not in buf.getvalue()
