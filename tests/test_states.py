"""Every state type held to the one law (any split of the data, states merged in any order
and tree shape, equals one pass), to its export (arrays and JSON round trips, checked loads:
a doctored state is refused) and to pickling; and the accumulators pickled by fastmetrics
0.1.0 still load and answer as they did."""

from __future__ import annotations

import io
import json
import pathlib
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics.streaming import GroupedAccumulator
from fastmetrics.states import (
    ConfusionState,
    GroupedConfusionState,
    GroupedState,
    MultilabelState,
    State,
    StateError,
    load_state,
)

DATA = pathlib.Path(__file__).parent / "data"


# ----------------------------------------------------------------------------- the law

def _labels(draw, n, dtype):
    k = draw(st.integers(1, 6))
    lo = draw(st.integers(-3, 3)) if np.dtype(dtype).kind == "i" else 0
    yt = np.array(draw(st.lists(st.integers(lo, lo + k - 1), min_size=n, max_size=n)), dtype)
    yp = np.array(draw(st.lists(st.integers(lo, lo + k - 1), min_size=n, max_size=n)), dtype)
    return yt, yp


@st.composite
def paired_data(draw):
    """(y_true, model A's labels, model B's labels), unweighted (the paired state counts)."""
    n = draw(st.integers(1, 60))
    dtype = draw(st.sampled_from([np.int8, np.int64, np.uint16, "str"]))
    yt, ya = _labels(draw, n, np.int64 if dtype == "str" else dtype)
    _, yb = _labels(draw, n, np.int64 if dtype == "str" else dtype)
    if dtype == "str":
        yt, ya, yb = yt.astype(str), ya.astype(str), yb.astype(str)
    return (yt, ya, yb), None


@st.composite
def confusion_data(draw):
    n = draw(st.integers(1, 60))
    dtype = draw(st.sampled_from([np.int8, np.int64, np.uint16, "str"]))
    yt, yp = _labels(draw, n, np.int64 if dtype == "str" else dtype)
    if dtype == "str":
        yt, yp = yt.astype(str), yp.astype(str)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0.0, 4.0), min_size=n, max_size=n)))
        w[0] = 1.0  # never all zero
    return (yt, yp), w


@st.composite
def contingency_data(draw):
    n = draw(st.integers(1, 60))
    dtype = draw(st.sampled_from([np.int8, np.int64, np.uint16, "str", "wide"]))
    yt, yp = _labels(draw, n, np.int64 if dtype in ("str", "wide") else dtype)
    if dtype == "str":
        yt = yt.astype(str)  # the two labellings need not share a type
    elif dtype == "wide":
        yt, yp = yt * 10**10, yp - 10**9
    return (yt, yp), None


@st.composite
def multilabel_data(draw):
    n = draw(st.integers(1, 40))
    L = draw(st.integers(1, 5))
    bits = st.lists(st.lists(st.integers(0, 1), min_size=L, max_size=L), min_size=n, max_size=n)
    yt, yp = np.array(draw(bits), np.int8), np.array(draw(bits), np.int8)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
        w[0] = 1.0
    return (yt, yp), w


@st.composite
def grouped_data(draw):
    n = draw(st.integers(1, 60))
    yt, yp = _labels(draw, n, np.int32)
    g = np.array(draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)))
    return (yt, yp, g), None


def _grouped_state(a, w):
    """The grouped regression state of a chunk; an empty chunk's is the empty one (the
    accumulator holds no state before a row)."""
    st_ = GroupedAccumulator("regression").update(a[0], a[1], groups=a[2], sample_weight=w).state
    return st_ if st_ is not None else GroupedState((a[2][:0],), ("groups",), [])


@st.composite
def grouped_regression_data(draw):
    n = draw(st.integers(1, 60))
    finite = st.floats(-100, 100, allow_nan=False)
    yt = np.array(draw(st.lists(finite, min_size=n, max_size=n)))
    yp = np.array(draw(st.lists(finite, min_size=n, max_size=n)))
    g = np.array(draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)))
    return (yt, yp, g), _weights(draw, n, zero_ok=False)


def _weights(draw, n, *, zero_ok=True):
    if not draw(st.booleans()):
        return None
    w = np.array(draw(st.lists(st.floats(0.0 if zero_ok else 0.1, 4.0), min_size=n,
                               max_size=n)))
    w[0] = 1.0  # never all zero
    return w


@st.composite
def calibration_data(draw):
    n = draw(st.integers(1, 60))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    grid = st.integers(0, 20).map(lambda i: i / 20)  # values on the bin edges too
    p = np.array(draw(st.lists(grid | st.floats(0.0, 1.0), min_size=n, max_size=n)))
    return (y, p), _weights(draw, n)


@st.composite
def proba_data(draw):
    n = draw(st.integers(1, 60))
    y = np.array(draw(st.lists(st.sampled_from([2, 5, 9]), min_size=n, max_size=n)))
    grid = st.integers(0, 10).map(lambda i: i / 10)  # 0 and 1 (clipped) too
    p = np.array(draw(st.lists(st.tuples(grid | st.floats(0.0, 1.0), grid, grid),
                               min_size=n, max_size=n)), dtype=float).reshape(n, 3)
    return (y, p), _weights(draw, n)


@st.composite
def hinge_data(draw):
    n = draw(st.integers(1, 60))
    y = np.array(draw(st.lists(st.sampled_from([2, 5, 9]), min_size=n, max_size=n)))
    d = np.array(draw(st.lists(st.floats(-3, 3) | st.sampled_from([-1.0, 0.0, 1.0]),
                               min_size=3 * n, max_size=3 * n))).reshape(n, 3)
    return (y, d), _weights(draw, n)


@st.composite
def regression_data(draw):
    n = draw(st.integers(1, 60))
    x = st.floats(-1e3, 1e3) | st.integers(-3, 3).map(float)
    yt = np.array(draw(st.lists(x, min_size=n, max_size=n)))
    yp = np.array(draw(st.lists(x, min_size=n, max_size=n)))
    return (yt, yp), _weights(draw, n)


@st.composite
def positive_data(draw):
    """Targets in every Tweedie power's domain ((n, 2) for the squared log errors)."""
    n = draw(st.integers(1, 60))
    x = st.floats(0.01, 1e3) | st.integers(1, 3).map(float)
    yt = np.array(draw(st.lists(x, min_size=n, max_size=n)))
    yp = np.array(draw(st.lists(x, min_size=n, max_size=n)))
    return (yt, yp), _weights(draw, n)


@st.composite
def ranking_data(draw):
    n = draw(st.integers(1, 60))
    y = np.array(draw(st.lists(st.sampled_from([2, 5]), min_size=n, max_size=n)))
    s = np.array(draw(st.lists(st.integers(0, 12).map(lambda i: i / 12) | st.floats(0, 1),
                               min_size=n, max_size=n)))
    return (y, s), _weights(draw, n, zero_ok=False)


@st.composite
def label_ranking_data(draw):
    n = draw(st.integers(1, 30))
    L = draw(st.integers(2, 5))
    bits = st.lists(st.lists(st.integers(0, 1), min_size=L, max_size=L), min_size=n, max_size=n)
    yt = np.array(draw(bits), np.int8)
    s = np.array(draw(st.lists(st.lists(st.integers(0, 4).map(lambda i: i / 4), min_size=L,
                                        max_size=L), min_size=n, max_size=n)))
    return (yt, s), _weights(draw, n)


@st.composite
def value_data(draw):
    v = st.floats(-1e6, 1e6) | st.just(0.0) | st.floats(1e-3, 1e3)
    return (np.array(draw(st.lists(v, min_size=1, max_size=80))),), None


_EDGES = np.linspace(0.1, 0.9, 9)
# kind -> (data strategy, build(arrays, weights) -> State)
CASES = {
    "confusion": (confusion_data(), lambda a, w: ConfusionState.from_arrays(*a, w)),
    "paired_confusion": (paired_data(),
                         lambda a, w: fm.states.PairedConfusionState.from_arrays(*a)),
    "multilabel": (multilabel_data(), lambda a, w: MultilabelState.from_arrays(*a, w)),
    "grouped_confusion": (grouped_data(), lambda a, w: GroupedConfusionState.from_arrays(*a)),
    # one regression state per group (the rule every family's grouped state follows)
    "grouped": (grouped_regression_data(), lambda a, w: _grouped_state(a, w)),
    "contingency": (contingency_data(), lambda a, w: fm.states.ContingencyState.from_arrays(*a)),
    "calibration": (calibration_data(),
                    lambda a, w: fm.states.CalibrationState.from_arrays(*a, w, n_bins=5)),
    "regression": (regression_data(), lambda a, w: fm.states.RegressionState.from_arrays(*a, w)),
    "pinball": (regression_data(), lambda a, w: fm.states.PinballState.from_arrays(*a, w)),
    "ranking": (ranking_data(), lambda a, w: fm.states.RankingState.from_arrays(*a, w)),
    "tweedie": (positive_data(), lambda a, w: fm.states.TweedieState.from_arrays(
        *a, w, power=1.5, allow_empty=True)),
    "squared_log": (positive_data(), lambda a, w: fm.states.SquaredLogState.from_arrays(
        np.c_[a[0], a[1]], np.c_[a[1], a[0]], w, allow_empty=True)),
    "ranking_binned": (ranking_data(), lambda a, w: fm.states.RankingState.from_arrays(
        *a, w, edges=_EDGES)),
    "probability": (proba_data(), lambda a, w: fm.states.ProbabilityState.from_arrays(
        *a, w, labels=[2, 5, 9])),
    "label_ranking": (label_ranking_data(),
                      lambda a, w: fm.states.LabelRankingState.from_arrays(*a, w)),
    # multiclass (the columns fixed by labels); binary states merging chunks of other
    # classes keep only their per-class sums (tests/test_hinge.py)
    "hinge": (hinge_data(), lambda a, w: fm.states.HingeState.from_arrays(
        *a, w, labels=[2, 5, 9])),
    "sketch": (value_data(), lambda a, w: fm.states.SketchState.from_arrays(*a)),
    "exact_quantile": (value_data(), lambda a, w: fm.states.ExactQuantileState.from_arrays(*a)),
}
# states that keep rows, in merge order: compared as multisets of rows
_ROWS = {"multilabel": ("y_true", "y_pred", "sample_weight"), "exact_quantile": ("values",)}


def _canonical(kind, st_):
    if kind == "grouped":  # keys in the order first seen: compared key by key
        order = sorted(range(st_.n_groups), key=st_.key)
        d = {f"key.{i}": np.asarray(st_.key(g)) for i, g in enumerate(order)}
        for i, g in enumerate(order):
            d.update({f"{i}.{k}": v for k, v in st_[g].to_dict().items()})
        return d
    d = st_.to_dict()
    keys = _ROWS.get(kind, ())
    rows = [np.asarray(d[k]) for k in keys if np.asarray(d[k]).size]
    if rows:
        cols = [r.reshape(r.shape[0], -1) for r in rows]
        order = np.lexsort(np.concatenate(cols, axis=1).T[::-1])
        for k in keys:
            a = np.asarray(d[k])
            if a.size:
                d[k] = a[order]
    return d


def _assert_same_state(kind, merged, whole):
    a, b = _canonical(kind, merged), _canonical(kind, whole)
    assert a.keys() == b.keys()
    for k in a:
        va, vb = np.asarray(a[k]), np.asarray(b[k])
        assert va.shape == vb.shape, (kind, k)
        if va.dtype.kind == "f" and vb.dtype.kind == "f":
            scale = max(1.0, float(np.abs(vb[np.isfinite(vb)]).max(initial=0.0)))
            np.testing.assert_allclose(va, vb, rtol=1e-12, atol=1e-12 * scale, err_msg=k)
        else:
            np.testing.assert_array_equal(va, vb, err_msg=f"{kind}: {k}")


def _tree_merge(states, order, shape):
    """Merge ``states`` visited in ``order``, pairing neighbours (``shape`` True) or left to
    right."""
    states = [states[i] for i in order]
    if not shape:
        out = states[0]
        for s in states[1:]:
            out = out.merge(s)
        return out
    while len(states) > 1:
        states = [states[i].merge(states[i + 1]) if i + 1 < len(states) else states[i]
                  for i in range(0, len(states), 2)]
    return states[0]


@pytest.mark.parametrize("kind", list(CASES))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_split_merged_in_any_order_equals_one_pass(kind, data):
    """The one law of every state type: the data cut anywhere into chunks, the chunks'
    states merged in any order and tree shape, give the state of one pass (exactly for
    counts, to 1e-12 for float sums; rows kept in merge order compared as multisets)."""
    strategy, build = CASES[kind]
    arrays, w = data.draw(strategy)
    n = arrays[0].shape[0]
    cuts = sorted(data.draw(st.lists(st.integers(1, max(1, n - 1)), max_size=4, unique=True)))
    bounds = [0, *(c for c in cuts if 0 < c < n), n]
    pieces = [(i, j) for i, j in zip(bounds[:-1], bounds[1:])
              if w is None or w[i:j].any()]  # a chunk of zero weights alone is refused
    states = [build(tuple(a[i:j] for a in arrays), None if w is None else w[i:j])
              for i, j in pieces]
    order = data.draw(st.permutations(range(len(states))))
    merged = _tree_merge(states, order, data.draw(st.booleans()))
    kept = np.concatenate([np.arange(i, j) for i, j in pieces])
    whole = build(tuple(a[kept] for a in arrays), None if w is None else w[kept])
    assert type(merged) is type(whole) and merged.n_samples == whole.n_samples
    _assert_same_state(kind, merged, whole)


def test_the_law_covers_every_state_type():
    kinds = {cls.kind for cls in _all_state_types()}
    built = {kind.replace("_binned", "") for kind in CASES}
    assert kinds <= built, kinds - built


def _all_state_types():
    out, todo = [], [State]
    while todo:
        for sub in todo.pop().__subclasses__():
            out.append(sub)
            todo.append(sub)
    return [c for c in out if c.kind]


def test_merge_checks_what_it_merges():
    a = ConfusionState.from_arrays([0, 1], [0, 1])
    with pytest.raises(TypeError, match="cannot merge"):
        a.merge(MultilabelState.from_arrays([[0, 1]], [[0, 1]]))
    with pytest.raises(ValueError, match="Mix of label input types"):
        a.merge(ConfusionState.from_arrays(["a"], ["b"]))
    # int64 with uint64 beyond 2**63: compared exactly, never through float64
    big = ConfusionState.from_arrays(np.uint64([2**63 + 5]), np.uint64([2**63 + 5]))
    with pytest.raises(ValueError, match="no integer type holds"):
        ConfusionState.from_arrays(np.array([-1]), np.array([-1])).merge(big)
    near = ConfusionState.from_arrays(np.array([2**60, 2**60 + 1]), np.array([2**60, 2**60 + 1]))
    m = near.merge(ConfusionState.from_arrays(np.uint64([7]), np.uint64([7])))
    assert m.values.tolist() == [7, 2**60, 2**60 + 1] and m.cm.sum() == 3 == m.n_samples
    assert (a + a).n_samples == 4


# ----------------------------------------------------------------------------- export

def _examples():
    rng = np.random.default_rng(0)
    yt, yp = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
    w = rng.random(50)
    yield ConfusionState.from_arrays(yt, yp)
    yield ConfusionState.from_arrays(yt.astype(np.uint8), yp.astype(np.uint8), w)
    yield ConfusionState.from_arrays(yt, yp, rng.integers(1, 5, 50))  # integer weights
    yield ConfusionState.from_arrays(yt.astype(str), yp.astype(str))
    yield ConfusionState.from_arrays(np.uint64([2**63 + 1, 3]), np.uint64([3, 3]))
    yield MultilabelState.from_arrays(rng.integers(0, 2, (20, 3)), rng.integers(0, 2, (20, 3)))
    yield MultilabelState.from_arrays(rng.integers(0, 2, (20, 3)), rng.integers(0, 2, (20, 3)),
                                      rng.random(20))
    yield GroupedConfusionState.from_arrays(yt, yp, rng.integers(0, 3, 50))
    yield fm.states.ContingencyState.from_arrays(yt.astype(str), yp - 10**12)
    yield fm.states.ProbabilityState.from_arrays(yt, rng.dirichlet(np.ones(4), 50), w)
    yield fm.states.ProbabilityState.from_arrays(yt.astype(str), rng.dirichlet(np.ones(4), 50))
    yield fm.states.ProbabilityState.from_arrays(rng.integers(0, 2, (50, 3)),
                                                 rng.random((50, 3)), w)
    yield fm.states.HingeState.from_arrays(yt, rng.normal(size=(50, 4)), w)
    yield fm.states.HingeState.from_arrays(yt.astype(str) == "1", rng.normal(size=50))
    yield (fm.states.HingeState.from_arrays([0, 0], [0.5, 1.0])
           + fm.states.HingeState.from_arrays([1], [2.0]))


def _same_state(a, b):
    da, db = a.to_dict(), b.to_dict()
    assert da.keys() == db.keys()
    for k in da:
        va, vb = np.asarray(da[k]), np.asarray(db[k])
        assert va.dtype == vb.dtype and va.shape == vb.shape, k
        np.testing.assert_array_equal(va, vb)


@pytest.mark.parametrize("state", list(_examples()), ids=lambda s: s.kind)
def test_round_trips_through_npz_json_and_pickle(state):
    d = state.to_dict()
    assert d["kind"] == state.kind and d["format"] == 1
    buf = io.BytesIO()
    np.savez(buf, **d)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as z:
        back = load_state(z)
    assert type(back) is type(state)
    _same_state(back, state)
    text = json.dumps(state.to_dict(as_lists=True))
    _same_state(type(state).from_dict(json.loads(text)), state)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        blob = pickle.dumps(state, protocol=protocol)
        assert b"fastmetrics.states" in blob and b"_states" not in blob
        _same_state(pickle.loads(blob), state)


def _doctored(state, **changes):
    d = state.to_dict()
    for k, v in changes.items():
        d[k] = v(d[k]) if callable(v) else v
    return d


def test_doctored_states_are_refused():
    s = ConfusionState.from_arrays([0, 1, 1, 2], [0, 1, 0, 2])
    cases = {
        "negative count": _doctored(s, cm=lambda cm: cm - 5),
        "counts disagree with n_samples": _doctored(s, n_samples=3),
        "wrong shape": _doctored(s, cm=np.zeros((2, 2), np.int64)),
        "unsorted labels": _doctored(s, values=lambda v: v[::-1].copy()),
        "object labels": _doctored(s, values_dtype="|O"),
        "row outside y_true": _doctored(s, in_true=np.array([True, False, True])),
        "bad kind": _doctored(s, kind="calibration"),
        "future format": _doctored(s, format=2),
        "missing field": {k: v for k, v in s.to_dict().items() if k != "present"},
    }
    for what, d in cases.items():
        with pytest.raises(StateError):
            ConfusionState.from_dict(d)
        assert issubclass(StateError, ValueError), what
    w = ConfusionState.from_arrays([0, 1], [0, 1], [0.5, 2.0])
    with pytest.raises(StateError, match="finite"):
        ConfusionState.from_dict(_doctored(w, weight_sum=float("nan")))
    g = GroupedConfusionState.from_arrays([0, 1], [0, 1], ["a", "b"])
    with pytest.raises(StateError, match="non-negative"):
        GroupedConfusionState.from_dict(_doctored(g, table=lambda t: -t))
    with pytest.raises(StateError, match="unknown state kind"):
        load_state({"kind": "nothing", "format": 1})
    with pytest.raises(StateError, match="mapping"):
        load_state([1, 2])


def test_a_doctored_pickle_is_refused():
    """Pickles go through the checked loader: a pickle whose counts were edited (here to
    report an accuracy of 3.5) does not load."""
    acc = fm.streaming.ConfusionAccumulator().update(np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]))
    blob = pickle.dumps(acc)
    assert pickle.loads(blob).accuracy_score() == 0.75
    cm = acc.state.cm
    doctored = blob.replace(cm.tobytes(), np.array([[7, 0], [0, 7]], cm.dtype).tobytes())
    assert doctored != blob
    with pytest.raises(StateError, match="sum to"):
        pickle.loads(doctored)


# ----------------------------------------------------------------------------- old pickles

@pytest.mark.parametrize("name", ["legacy_accumulators.pkl", "legacy_accumulators_p2.pkl"])
def test_accumulators_pickled_by_fastmetrics_0_1_load_and_answer_as_then(name):
    accs = pickle.loads((DATA / name).read_bytes())
    want = json.loads((DATA / "legacy_accumulators.json").read_text())
    assert accs.keys() == want.keys()
    close = {"rel": 1e-12, "abs": 1e-15}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, a in accs.items():
            w = want[key]
            if "n_samples" in w:
                assert a.n_samples == w["n_samples"], key
            if key.startswith("confusion") and "confusion_matrix" in w:
                assert a.confusion_matrix().tolist() == w["confusion_matrix"], key
                assert a.accuracy_score() == pytest.approx(w["accuracy"], **close)
                assert a.f1_score(average="macro") == pytest.approx(w["f1_macro"], **close)
                assert [str(v) for v in a.result().labels] == w["labels"]
            elif key.startswith("calibration"):
                r = a.result()
                assert (r.ece, r.mce, r.brier) == pytest.approx(
                    (w["ece"], w["mce"], w["brier"]), **close), key
                assert r.bins.counts.tolist() == w["counts"]
            elif key.startswith("regression"):
                got = (a.mean_absolute_error(), a.mean_squared_error(), a.r2_score(),
                       a.huber_loss())
                assert got == pytest.approx((w["mae"], w["mse"], w["r2"], w["huber"]), **close)
                if "median_ae" in w:
                    assert a.median_absolute_error() == pytest.approx(w["median_ae"], **close)
            elif key.startswith("ranking"):
                r = a.result()
                assert (r.roc_auc, r.average_precision) == pytest.approx((w["roc_auc"], w["ap"]),
                                                                         **close), key
                assert (r.n_positive, r.n_negative) == (w["n_positive"], w["n_negative"])
            elif key.startswith("quantile"):
                r = a.result([0.1, 0.5, 0.99])
                np.testing.assert_allclose(r.values, w["values"], rtol=1e-12)
            # and they go on: merged, and pickled again by today's code
            again = pickle.loads(pickle.dumps(a + a))
            assert again.n_samples == 2 * a.n_samples, key


def test_every_state_type_is_exported():
    kinds = {cls.kind for cls in _all_state_types()}
    exported = {getattr(fm.states, n).kind for n in fm.states.__all__
                if isinstance(getattr(fm.states, n), type)
                and issubclass(getattr(fm.states, n), State) and getattr(fm.states, n) is not State}
    assert kinds <= exported


# ----------------------------------------------------------------------------- loader checks
def test_an_empty_state_is_the_identity_of_merge():
    """An empty chunk (float labels, no counts) merged in changes nothing: integers beyond
    2**53 keep their exact values."""
    big = ConfusionState.from_arrays(np.array([2**60, 2**60 + 1]), np.array([2**60, 2**60]))
    empty = ConfusionState.from_arrays(np.array([], float), np.array([], float), allow_empty=True)
    for m in (big.merge(empty), empty.merge(big)):
        _same_state(m, big)
        assert m.values.tolist() == [2**60, 2**60 + 1]


def test_grouped_states_refuse_text_labels_beside_numbers():
    a = GroupedConfusionState.from_arrays([0, 1], [0, 1], ["g", "g"])
    b = GroupedConfusionState.from_arrays(["0", "1"], ["0", "1"], ["g", "g"])
    with pytest.raises(ValueError, match="Mix of label input types"):
        a.merge(b)


def test_loaders_refuse_states_that_disagree_with_themselves():
    w = ConfusionState.from_arrays([0, 1, 1], [0, 1, 0], [0.5, 2.0, 1.0])
    with pytest.raises(StateError, match="disagree"):
        ConfusionState.from_dict(_doctored(w, weight_sum=0.5))
    with pytest.raises(StateError, match="disagree"):
        ConfusionState.from_dict(_doctored(w, margins=lambda m: m * 2))
    u = ConfusionState.from_arrays([0, 1, 1], [0, 1, 0])
    with pytest.raises(StateError, match="present labels"):  # a present label with no counts
        ConfusionState.from_dict(_doctored(
            u, values=np.array([0, 1, 2]), cm=np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0]]),
            present=np.array([True, True, True]), in_true=np.array([True, True, False])))
    r = fm.states.RankingState.from_arrays([0, 1, 1], [0.1, 0.8, 0.4])
    with pytest.raises(StateError, match="unweighted"):
        fm.states.RankingState.from_dict(_doctored(r, weights=lambda x: x * 1.5))
    g = GroupedConfusionState.from_arrays([0, 1], [0, 1], ["a", "b"])
    with pytest.raises(StateError, match="every group"):
        GroupedConfusionState.from_dict(_doctored(g, table=lambda t: t * np.array([1, 0])[:, None, None]))
    m = MultilabelState.from_arrays([[0, 1], [1, 1]], [[0, 1], [1, 0]], [1, 2])
    assert m.to_dict()["int_weights"]
    with pytest.raises(StateError, match="whole numbers"):
        MultilabelState.from_dict(_doctored(m, sample_weight=np.array([1.5, 2.0])))


def test_a_user_subclass_does_not_take_over_loading():
    class Mine(ConfusionState):
        kind = "confusion"

    s = ConfusionState.from_arrays([0, 1], [0, 1])
    assert type(load_state(s.to_dict())) is ConfusionState
    assert Mine.__module__ == __name__ and ConfusionState.__module__ == "fastmetrics.states"


def test_an_exported_accumulator_keeps_its_weighting_rule():
    acc = fm.streaming.ConfusionAccumulator().update([0, 1, 1], [0, 1, 0], sample_weight=[1, 2, 3])
    d = acc.to_dict()
    back = fm.streaming.ConfusionAccumulator.from_dict(d)
    assert back.f1_score(average="macro") == acc.f1_score(average="macro")
    with pytest.raises(ValueError):  # the loaded accumulator still refuses unweighted chunks
        back.update([0], [0])
    for lie in (False, None):
        with pytest.raises(StateError, match="weighted"):
            fm.streaming.ConfusionAccumulator.from_dict({**d, "weighted": lie})
    with pytest.raises(StateError, match="settings"):
        fm.streaming.ConfusionAccumulator.from_dict({**d, "config": {"no_such_option": 1}})


def test_a_ranking_accumulator_without_pos_label_uses_each_metrics_default():
    rng = np.random.default_rng(3)
    y, s = rng.integers(0, 2, 200) * 2 + 3, rng.random(200)  # labels 3 and 5
    acc = fm.streaming.RankingAccumulator(pos_label=None).update(y[:90], s[:90]).update(y[90:], s[90:])
    assert acc.roc_auc_score() == fm.roc_auc_score(y, s)
    assert acc.result().average_precision == fm.average_precision_score(y, s, pos_label=5)
    y01 = (y == 5).astype(int)
    acc01 = fm.streaming.RankingAccumulator(pos_label=None).update(y01, s)
    assert acc01.average_precision_score() == fm.average_precision_score(y01, s)


def test_group_values_keep_their_dtype_beyond_int64():
    g = np.uint64([2**63 + 1, 2**63 + 2, 2**63 + 1])
    r = fm.group_metrics([0, 1, 1], [0, 1, 0], g)
    assert sorted(r.per_group) == [2**63 + 1, 2**63 + 2]
    assert r.per_group[2**63 + 1] == 0.5 and r.per_group[2**63 + 2] == 1.0
