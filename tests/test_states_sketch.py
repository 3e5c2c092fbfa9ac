"""The quantile states (``SketchState``, ``ExactQuantileState``) and their accumulator: the
merge law (bucket counts are integers, so any split merged in any order or tree gives the
identical sketch), export round trips (npz without pickle, JSON), tampered states refused,
pickles of every protocol, and the accumulators pickled by fastmetrics 0.1.0."""

import io
import json
import pathlib
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastmetrics.states import ExactQuantileState, SketchState, State, StateError, load_state
from fastmetrics.streaming import QuantileAccumulator, QuantileResult

DATA = pathlib.Path(__file__).parent / "data"
QS = [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0]
NUMPY_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
                 "median_unbiased"]

values = st.lists(
    st.floats(-1e300, 1e300) | st.floats(1e-6, 1e6) | st.floats(-1e6, -1e-6) | st.just(0.0)
    | st.integers(-5, 5).map(float),
    min_size=1, max_size=150,
)


@st.composite
def plans(draw, n):
    """Chunk boundaries of range(n) (empty chunks allowed), a merge order and shape."""
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=6)))
    bounds = [0, *cuts, n]
    return bounds, draw(st.permutations(range(len(bounds) - 1))), draw(st.booleans())


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


def split_merged(make, x, plan):
    bounds, order, tree = plan
    return merged([make(x[a:b]) for a, b in zip(bounds[:-1], bounds[1:])], order, tree)


def as_lists(state):
    return state.to_dict(as_lists=True)


def holding(state, mode="sketch"):
    """A QuantileAccumulator whose state is ``state`` (through its exported form)."""
    config = {"mode": mode}
    if mode == "sketch":
        config.update(relative_accuracy=state.relative_accuracy, max_buckets=state.max_buckets)
    return QuantileAccumulator.from_dict({"accumulator": "QuantileAccumulator", "format": 1,
                                          "weighted": False, "config": config,
                                          "state": state.to_dict()})


def sample_sketch(max_buckets=128, alpha=0.05):
    """49 values over 92 positive buckets and 7 negative ones (not collapsed)."""
    x = np.r_[np.geomspace(0.01, 100.0, 40), -np.geomspace(0.5, 9.0, 7), [0.0, 0.0]]
    return SketchState.from_arrays(x, alpha, max_buckets)


# ------------------------------------------------------------------------------ merge law


@given(values, st.sampled_from([1, 2, 8, 64, 2048]), st.sampled_from([0.001, 0.01, 0.3]),
       st.data())
def test_sketch_any_split_any_order_is_identical(vals, max_buckets, alpha, data):
    x = np.array(vals)
    whole = SketchState.from_arrays(x, alpha, max_buckets)
    got = split_merged(lambda c: SketchState.from_arrays(c, alpha, max_buckets), x,
                       data.draw(plans(len(x))))
    assert as_lists(got) == as_lists(whole)
    assert got.collapsed == whole.collapsed and got.n_samples == len(x)
    assert (got.min, got.max) == (x.min(), x.max())
    # the streaming update counts a chunk into copies of the stores: the same counts
    cut = data.draw(st.integers(0, len(x)), label="cut")
    first = SketchState.from_arrays(x[:cut], alpha, max_buckets)
    assert as_lists(first.extended(x[cut:])) == as_lists(whole)
    for method in ("linear", "lower", "higher", "nearest"):
        np.testing.assert_array_equal(
            holding(got).result(QS, method=method).values,
            QuantileAccumulator(relative_accuracy=alpha, max_buckets=max_buckets).update(
                x).result(QS, method=method).values)


@given(st.lists(st.integers(-2**15 + 1, 2**15 - 1), min_size=1, max_size=100))
def test_sketch_reads_every_dtype_as_its_float64_value(ints):
    x = np.array(ints)
    for data in (x, np.abs(x)):
        want = as_lists(SketchState.from_arrays(data.astype(np.float64)))
        kinds = "iu" if data.min() >= 0 else "i"
        for dtype in (np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64,
                      np.float32, ">f8", ">i8", "<i4"):
            if np.dtype(dtype).kind in kinds + "f":
                assert as_lists(SketchState.from_arrays(data.astype(dtype))) == want, dtype


def test_sketch_merge_is_exact_above_2_53():
    big = 2**53 + 1  # float64 would round the sum to 2**53 + 2
    d = SketchState.from_arrays([3.0]).to_dict()
    d["pos"] = d["pos"].copy()
    d["pos"][-1] = big
    d["n_samples"] = big
    a = SketchState.from_dict(d)
    b = SketchState.from_arrays([3.0, 2.0, -1.0])
    for m in (a + b, b + a, (a + b) + (b + a)):
        assert int(m.pos.sum()) + int(m.neg.sum()) == m.n_samples and m.pos.dtype == np.int64
    assert int((a + b).pos[-1]) == big + 1


def test_sketch_merge_refuses_other_settings_and_types():
    with pytest.raises(ValueError, match="relative_accuracy / max_buckets"):
        sample_sketch(128) + sample_sketch(32)
    with pytest.raises(ValueError, match="relative_accuracy / max_buckets"):
        sample_sketch(alpha=0.05).merge(sample_sketch(alpha=0.01))
    with pytest.raises(TypeError, match="cannot merge"):
        sample_sketch().merge(ExactQuantileState.from_arrays([1.0]))
    assert sample_sketch().__add__(3) is NotImplemented


def test_states_are_values():
    s = sample_sketch()
    for a in (s.pos, s.neg, s.meta, ExactQuantileState.from_arrays([1, 2]).parts):
        with pytest.raises(ValueError):
            a[0] = 7
    x = np.array([1.0, 2.0])
    e = ExactQuantileState.from_arrays(x)
    x[0] = 9.0  # the state keeps its own copy
    assert e.values.tolist() == [1.0, 2.0]


@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=120), st.data())
def test_exact_any_split_any_order_gives_numpy(vals, data):
    x = np.array(vals, dtype=np.int64)
    bounds, order, tree = data.draw(plans(len(x)))
    got = split_merged(ExactQuantileState.from_arrays, x, (bounds, order, tree))
    chunks = [x[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    assert sorted(got.values.tolist()) == sorted(vals) and got.n_samples == len(x)
    if not tree:  # a fold keeps the chunks in merge order
        assert got.values.tolist() == np.concatenate([chunks[i] for i in order]).tolist()
    acc = holding(got, "exact")
    for method in NUMPY_METHODS:
        np.testing.assert_array_equal(acc.result(QS, method=method).values,
                                      np.quantile(x, QS, method=method))


def test_exact_many_small_updates_stay_linear():
    """20,000 one-value updates: a merge is O(1) (a tree of chunks, flattened with a loop,
    not recursion)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(20_000)
    acc = QuantileAccumulator(mode="exact")
    for v in x:
        acc.update([v])
    np.testing.assert_array_equal(acc.state.values, x)
    np.testing.assert_array_equal(acc.result([0.5, 0.99]).values, np.quantile(x, [0.5, 0.99]))


# ------------------------------------------------------------------------------ round trips


def round_trip_npz(state):
    buf = io.BytesIO()
    np.savez(buf, **state.to_dict())
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as f:
        return load_state(f)


def round_trip_json(state):
    return State.from_dict(json.loads(json.dumps(state.to_dict(as_lists=True))))


ROUND_TRIP_STATES = {
    "sketch": lambda: sample_sketch(),
    "sketch collapsed": lambda: SketchState.from_arrays(np.geomspace(1e-9, 1e9, 300), 0.05, 8),
    "sketch one sign": lambda: SketchState.from_arrays([-1.0, -3.0], 0.01, 16),
    "sketch zeros only": lambda: SketchState.from_arrays(np.zeros(4)),
    "sketch empty": lambda: SketchState.from_arrays([]),
    "sketch int64": lambda: SketchState.from_arrays(np.arange(-50, 900)),
    "exact floats": lambda: ExactQuantileState.from_arrays([0.5, -2.0]).merge(
        ExactQuantileState.from_arrays([7.25])),
    "exact int64": lambda: ExactQuantileState.from_arrays(np.array([2**62, -3, 5])),
    "exact empty": lambda: ExactQuantileState.from_arrays([]),
}


@pytest.mark.parametrize("name", list(ROUND_TRIP_STATES))
@pytest.mark.parametrize("trip", [round_trip_npz, round_trip_json])
def test_round_trips(name, trip):
    s = ROUND_TRIP_STATES[name]()
    back = trip(s)
    assert type(back) is type(s) and as_lists(back) == as_lists(s)
    assert back.n_samples == s.n_samples
    if isinstance(s, SketchState):
        assert back.collapsed == s.collapsed
        np.testing.assert_array_equal(back.meta, s.meta)
    more = (SketchState.from_arrays([1.5, -0.5], s.relative_accuracy, s.max_buckets)
            if isinstance(s, SketchState) else ExactQuantileState.from_arrays([1.5, -0.5]))
    assert as_lists(back + more) == as_lists(s + more)


def test_accumulator_json_round_trip_and_config():
    for acc in (QuantileAccumulator(relative_accuracy=0.02, max_buckets=100).update(
            np.linspace(-3, 9, 50)), QuantileAccumulator(mode="exact").update([3, 1, 2]),
            QuantileAccumulator()):
        d = json.loads(json.dumps(acc.to_dict(as_lists=True)))
        back = QuantileAccumulator.from_dict(d)
        assert back.config() == acc.config() and back.n_samples == acc.n_samples
        if acc.n_samples:
            assert back.result(QS).values.tolist() == acc.result(QS).values.tolist()
        back.update([4.0])
        assert back.n_samples == acc.n_samples + 1


# ------------------------------------------------------------------------------ tampering


def _set(key, value):
    def edit(d):
        d[key] = value
    return edit


def _slot(key, index, value):
    def edit(d):
        d[key] = np.array(d[key])
        d[key][index] = value
    return edit


def _drop(key):
    def edit(d):
        del d[key]
    return edit


SKETCH_TAMPERING = {
    "negative count": _slot("pos", 10, -1),
    "count moved below pos_lo": _slot("pos", 0, 1),
    "counts that do not add up": _slot("pos", -1, 5),
    "empty last slot": lambda d: d.update(pos=np.r_[d["pos"][1:], 0]),
    "store too short": lambda d: d.update(pos=d["pos"][:-1]),
    "store 2-D": lambda d: d.update(neg=d["neg"].reshape(1, -1)),
    "float counts": lambda d: d.update(pos=d["pos"].astype(np.float64)),
    "bool counts": lambda d: d.update(pos=d["pos"] > 0),
    "uint64 count >= 2**63": lambda d: d.update(pos=d["pos"].astype(np.uint64) * 0
                                                + np.uint64(2**63)),
    "counts beyond int64": lambda d: d.update(pos=np.where(d["pos"] > 0, 2**62, 0),
                                              n_samples=int(np.count_nonzero(d["pos"]))
                                              * 2**62 + 9),
    "n_samples off by one": lambda d: d.update(n_samples=d["n_samples"] + 1),
    "negative zeros": lambda d: d.update(zeros=-1, n_samples=d["n_samples"] - 3),
    "pos_hi moved": lambda d: d.update(pos_hi=d["pos_hi"] + 1, pos_lo=d["pos_lo"] + 1),
    "pos_lo moved": lambda d: d.update(pos_lo=d["pos_lo"] + 1),
    "pos_lo above pos_hi": lambda d: d.update(pos_lo=d["pos_hi"] + 1),
    "hi not an int": _set("neg_hi", 2.5),
    "hi beyond int64": _set("neg_hi", 2**63),
    "min above max": lambda d: d.update(min=d["max"] + 1.0),
    "min NaN": _set("min", float("nan")),
    "max inf": _set("max", float("inf")),
    "min of the wrong sign": _set("min", 0.5),
    "max not the largest bucket": lambda d: d.update(max=d["max"] * 1.5),
    "relative_accuracy 0": _set("relative_accuracy", 0.0),
    "relative_accuracy 1": _set("relative_accuracy", 1.0),
    "relative_accuracy NaN": _set("relative_accuracy", float("nan")),
    "relative_accuracy text": _set("relative_accuracy", "0.05"),
    "relative_accuracy other": _set("relative_accuracy", 0.0501),
    "max_buckets 0": _set("max_buckets", 0),
    "max_buckets not the stores'": _set("max_buckets", 129),
    "no zeros": _drop("zeros"),
    "other kind": _set("kind", "exact_quantile"),
    "unknown kind": _set("kind", "sketchy"),
    "other format": _set("format", 99),
}


@pytest.mark.parametrize("name", list(SKETCH_TAMPERING))
def test_tampered_sketch_refused(name):
    d = sample_sketch().to_dict()
    good = SketchState.from_dict(dict(d))
    assert good.n_samples == 49 and not good.collapsed
    SKETCH_TAMPERING[name](d)
    with pytest.raises(StateError):
        SketchState.from_dict(d)
    with pytest.raises(StateError):
        load_state(json.loads(json.dumps({k: v.tolist() if isinstance(v, np.ndarray) else v
                                          for k, v in d.items()})))


def test_tampered_empty_stores_and_empty_sketch_refused():
    d = SketchState.from_arrays([1.0, 2.0]).to_dict()  # no negative values
    with pytest.raises(StateError, match="empty"):
        SketchState.from_dict({**d, "neg_hi": 3})
    e = SketchState.from_arrays([]).to_dict()
    with pytest.raises(StateError, match="empty sketch"):
        SketchState.from_dict({**e, "max": 1.0})


EXACT_TAMPERING = {
    "NaN": lambda d: d.update(values=np.array([1.0, np.nan])),
    "inf": lambda d: d.update(values=np.array([np.inf])),
    "2-D": lambda d: d.update(values=np.ones((2, 2))),
    "text": lambda d: d.update(values=np.array(["1", "2"])),
    "objects": lambda d: d.update(values=np.array([1, "a"], dtype=object)),
    "missing": _drop("values"),
}


@pytest.mark.parametrize("name", list(EXACT_TAMPERING))
def test_tampered_exact_refused(name):
    d = ExactQuantileState.from_arrays([1.0, 2.0]).to_dict()
    EXACT_TAMPERING[name](d)
    with pytest.raises(StateError):
        ExactQuantileState.from_dict(d)


class Doctored:
    """Pickles as ``call(*args)``, then (with ``state``) ``__setstate__(state)``: what an
    edited pickle stream does."""

    def __init__(self, call, args, state=None):
        self.reduced = (call, args) if state is None else (call, args, state)

    def __reduce__(self):
        return self.reduced


def test_doctored_pickles_refused():
    acc = QuantileAccumulator(relative_accuracy=0.05, max_buckets=64).update(
        np.r_[np.geomspace(0.01, 100.0, 40), -np.geomspace(0.5, 9.0, 7), [0.0, 0.0]])
    good = acc.to_dict()
    assert pickle.loads(pickle.dumps(Doctored(QuantileAccumulator.from_dict, (good,)))) \
        .to_dict(as_lists=True) == acc.to_dict(as_lists=True)
    for edit in (_slot("pos", 10, -1), _set("n_samples", 10**6), _set("min", -1e9)):
        d = dict(good, state=dict(good["state"]))
        edit(d["state"])
        for target, arg in ((QuantileAccumulator.from_dict, d),
                            (SketchState.from_dict, d["state"])):
            blob = pickle.dumps(Doctored(target, (arg,)))
            with pytest.raises(StateError):
                pickle.loads(blob)
    # the state does not match the accumulator's configuration, or is never weighted
    cases = [dict(good, config={"mode": "sketch", "relative_accuracy": 0.01,
                                "max_buckets": 64}),
             dict(good, config={"mode": "exact", "relative_accuracy": 0.05,
                                "max_buckets": 64}),
             dict(good, weighted=True)]
    for d in cases:
        with pytest.raises(StateError):
            pickle.loads(pickle.dumps(Doctored(QuantileAccumulator.from_dict, (d,))))


def test_doctored_old_style_pickle_refused():
    """The form fastmetrics 0.1.0 pickled (a plain ``__dict__``), edited."""
    ok = {"mode": "sketch", "relative_accuracy": 0.01, "max_buckets": 4,
          "_gamma": 1.0202, "_pos": np.array([0, 0, 1, 1]), "_neg": np.zeros(4, np.int64),
          "_meta": np.array([0, 2, 0, 0, 0, -1, 0]), "_minmax": np.array([0.99, 1.0]),
          "_values": [], "_n": 2, "_weighted": False}

    def load(d):
        return pickle.loads(pickle.dumps(
            Doctored(object.__new__, (QuantileAccumulator,), d), protocol=2))

    assert load(ok).n_samples == 2
    for bad in ({"_pos": np.array([0, 0, -1, 3])}, {"_n": 3}, {"_minmax": np.array([1, 5.0])},
                {"_meta": np.array([0, 2, 0, 0, 0, -9, 0])}, {"relative_accuracy": 2.0},
                {"_weighted": True}, {"mode": "exact", "_values": [np.array([np.nan])]},
                {"_pos": None}):
        with pytest.raises(StateError):
            load({**ok, **bad})
    with pytest.raises(StateError):
        load({k: v for k, v in ok.items() if k != "_meta"})


# ------------------------------------------------------------------------------ pickles


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_protocols(protocol):
    rng = np.random.default_rng(protocol)
    x = rng.lognormal(0, 2, 500) * rng.choice([-1, 1, 0], 500)
    for make in (lambda: QuantileAccumulator(), lambda: QuantileAccumulator(mode="exact"),
                 lambda: QuantileAccumulator(relative_accuracy=0.1, max_buckets=5)):
        empty = make()
        full = make().update(x[:300])
        for acc in (empty, full):
            blob = pickle.dumps(acc, protocol=protocol)
            assert b"fastmetrics._states" not in blob and b"_Accumulator" not in blob
            back = pickle.loads(blob)
            assert back.config() == acc.config() and back.n_samples == acc.n_samples
            assert back.to_dict(as_lists=True) == acc.to_dict(as_lists=True)
        back = pickle.loads(pickle.dumps(full, protocol=protocol)).update(x[300:])
        want = make().update(x)
        assert back.to_dict(as_lists=True)["state"] == want.to_dict(as_lists=True)["state"]
        np.testing.assert_array_equal(back.result(QS, method="lower").values,
                                      want.result(QS, method="lower").values)
        assert as_lists(pickle.loads(pickle.dumps(full.state, protocol=protocol))) == \
            as_lists(full.state)
    r = QuantileAccumulator().update(x).result()
    assert type(r).__module__ == "fastmetrics.streaming"
    back = pickle.loads(pickle.dumps(r, protocol=protocol))
    assert isinstance(back, QuantileResult) and back.as_dict() == r.as_dict()


# ------------------------------------------------------------------------------ old pickles


@pytest.mark.parametrize("name", ["legacy_accumulators.pkl", "legacy_accumulators_p2.pkl"])
def test_accumulators_pickled_by_0_1_load_and_answer(name):
    answers = json.loads((DATA / "legacy_accumulators.json").read_text())
    accs = pickle.loads((DATA / name).read_bytes())
    for key, state_type in (("quantile_sketch", SketchState),
                            ("quantile_exact", ExactQuantileState)):
        acc, want = accs[key], answers[key]
        assert type(acc) is QuantileAccumulator and type(acc.state) is state_type
        assert acc.n_samples == want["n_samples"]
        assert acc.result([0.1, 0.5, 0.99]).values.tolist() == want["values"]
        # and it goes on: exported, merged, updated like any other
        back = QuantileAccumulator.from_dict(json.loads(json.dumps(acc.to_dict(as_lists=True))))
        assert back.result([0.1, 0.5, 0.99]).values.tolist() == want["values"]
        more = (back + QuantileAccumulator(**acc.config()).update([1.0])).update([2.0, -3.0])
        assert more.n_samples == want["n_samples"] + 3


# ------------------------------------------------------------------------------ settings


def test_settings_and_input_errors():
    with pytest.raises(ValueError, match="too small"):
        QuantileAccumulator(relative_accuracy=1e-17)  # (1 + a) / (1 - a) rounds to 1
    for bad in (0, 1, -0.1, float("nan"), True, "0.1"):
        with pytest.raises(ValueError, match="relative_accuracy"):
            SketchState.from_arrays([1.0], relative_accuracy=bad)
    for bad in (0, 2.0, True):
        with pytest.raises(ValueError, match="max_buckets"):
            SketchState.from_arrays([1.0], max_buckets=bad)
    for make in (SketchState.from_arrays, ExactQuantileState.from_arrays):
        with pytest.raises(ValueError, match=r"Input values contains NaN \(first NaN or "
                                             r"infinity at index 2\)"):
            make([1.0, 2.0, np.nan])
        with pytest.raises(ValueError, match="Input values contains infinity"):
            make(np.array([-np.inf], dtype=np.float32))
        with pytest.raises(TypeError, match="real numbers"):
            make(np.array(["a"]))
    assert SketchState.from_arrays(np.ones((2, 3))).n_samples == 6  # anything that ravels


def test_concurrent_updates_of_one_accumulator():
    import threading

    rng = np.random.default_rng(4)
    chunks = [rng.lognormal(0, 3, 2000) * rng.choice([-1, 0, 1], 2000) for _ in range(48)]
    for mode in ("sketch", "exact"):
        acc = QuantileAccumulator(mode=mode)
        threads = [threading.Thread(target=lambda k=k: [acc.update(c) for c in chunks[k::6]])
                   for k in range(6)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        want = QuantileAccumulator(mode=mode).update(np.concatenate(chunks))
        assert acc.n_samples == want.n_samples == 96_000
        if mode == "sketch":
            assert as_lists(acc.state) == as_lists(want.state)
        else:
            assert sorted(acc.state.values.tolist()) == sorted(want.state.values.tolist())


def test_a_refused_chunk_leaves_the_running_sketch_as_it_was():
    """Streams count into their stores in place: a chunk with NaN or infinity anywhere
    (here after values that would move every store) counts nothing."""
    acc = QuantileAccumulator().update([1.0, -2.0, 0.0, 5.0])
    before = as_lists(acc.state)
    for bad in ([1e30, -1e-30, 0.0, np.nan], np.array([7.0, np.inf], dtype=np.float32)):
        with pytest.raises(ValueError, match="NaN|infinity"):
            acc.update(bad)
        assert as_lists(acc.state) == before and acc.n_samples == 4
    # reading the state between updates does not freeze or share the running stores
    snap = acc.state
    acc.update([3.0])
    assert snap.n_samples == 4 and acc.state.n_samples == 5
    assert as_lists(acc.state) == as_lists(SketchState.from_arrays([1.0, -2.0, 0.0, 5.0, 3.0]))
    # a merged or loaded accumulator counts on from its state
    both = acc + QuantileAccumulator().update([9.0])
    both.update([10.0])
    assert as_lists(both.state) == as_lists(SketchState.from_arrays(
        [1.0, -2.0, 0.0, 5.0, 3.0, 9.0, 10.0]))
