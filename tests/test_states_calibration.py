"""The calibration state (fastmetrics.states.CalibrationState): any split into chunks merged in
any order or tree equals one pass; exported to plain arrays (npz, JSON) and pickles and back,
checked on load (tampered states refused); accumulators pickled by 0.1.0 still load; every
table row's accumulator method and Dask function gives the one-shot value; and the cases where
scikit-learn 1.9 answered otherwise (asked live, never hard-coded)."""

import inspect
import io
import json
import pathlib
import pickle
import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import brier_score_loss as sk_brier

import fastmetrics as fm
from fastmetrics import _table
from fastmetrics._kernels import bins as layout
from fastmetrics._states import bins as cal
from fastmetrics.states import CalibrationState, StateError, load_state
from fastmetrics.streaming import CalibrationAccumulator

DATA = pathlib.Path(__file__).parent / "data"
RTOL = 1e-12


# ----------------------------------------------------------------------------- helpers


@st.composite
def plans(draw, n):
    """Chunk boundaries of range(n) (empty chunks allowed), a merge order and tree/fold."""
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
        if len(states) % 2:
            nxt.append(states[-1])
        states = nxt
    return states[0]


def chunk_states(plan, build, *arrays):
    bounds, order, tree = plan
    states = [build(*(None if a is None else a[lo:hi] for a in arrays))
              for lo, hi in zip(bounds[:-1], bounds[1:])]
    return merged(states, order, tree)


def same_state(a, b, rtol=RTOL):
    assert (a.mode, a.n_classes, a.weighted, a.any_weight) == (
        b.mode, b.n_classes, b.weighted, b.any_weight)
    np.testing.assert_array_equal(a.edges, b.edges)
    np.testing.assert_array_equal(a.sums[:, layout.N], b.sums[:, layout.N])  # counts: exact
    cols = [layout.W, layout.SP, layout.SY]
    np.testing.assert_allclose(a.sums[:, cols], b.sums[:, cols], rtol=rtol, atol=1e-13)
    # the Brier column: only its total is meaningful (the unweighted kernel keeps it in bin 0)
    np.testing.assert_allclose(a.sums[:, layout.SQ].sum(), b.sums[:, layout.SQ].sum(),
                               rtol=rtol, atol=1e-13)


binary_data = st.integers(1, 200).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.5, 0.7, 1.0]) | st.floats(0.0, 1.0),
             min_size=n, max_size=n),
    st.lists(st.floats(0.0, 10.0), min_size=n, max_size=n),
))


# ----------------------------------------------------------------------------- the merge law


@given(binary_data, st.integers(1, 12), st.booleans(), st.data())
def test_binary_any_split_any_order_equals_one_pass(d, n_bins, weighted, data):
    y, p, w = (np.array(v) for v in d)
    w = w if weighted else None
    one = CalibrationState.from_arrays(y, p, w, n_bins=n_bins)
    got = chunk_states(data.draw(plans(len(y))),
                       lambda yc, pc, wc: CalibrationState.from_arrays(
                           yc, pc, wc, n_bins=n_bins, allow_empty=True), y, p, w)
    same_state(got, one)
    assert got.n_samples == one.n_samples == len(y)
    if got.sums[:, layout.W].sum() > 0:
        assert cal.ece(got) == pytest.approx(
            fm.expected_calibration_error(y, p, n_bins=n_bins, sample_weight=w), rel=1e-9,
            abs=1e-12)


@given(st.integers(1, 150), st.integers(2, 5), st.integers(1, 10), st.booleans(),
       st.integers(0, 2**32 - 1), st.data())
def test_top_label_any_split_any_order_equals_one_pass(n, K, n_bins, weighted, seed, data):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(K), n)
    y = rng.integers(0, K, n)
    w = rng.random(n) * 3 if weighted else None
    edges = np.array([0.0, 0.3, 0.5, 0.55, 1.0]) if n_bins == 1 else None  # given edges too
    one = CalibrationState.from_arrays(y, P, w, n_bins=n_bins, edges=edges)
    got = chunk_states(data.draw(plans(n)),
                       lambda yc, pc, wc: CalibrationState.from_arrays(
                           yc, pc, wc, n_bins=n_bins, edges=edges, allow_empty=True), y, P, w)
    same_state(got, one)
    assert got.class_sq is None  # a top-label pass of calibration keeps no multiclass sum


def test_merge_refuses_other_edges_modes_and_types():
    a = CalibrationState.from_arrays([0, 1], [0.2, 0.7])
    with pytest.raises(ValueError, match="different edges"):
        a.merge(CalibrationState.from_arrays([0, 1], [0.2, 0.7], n_bins=5))
    with pytest.raises(ValueError, match="binary and top-label"):
        a.merge(CalibrationState.from_arrays([0, 1], [[0.8, 0.2], [0.3, 0.7]]))
    with pytest.raises(ValueError, match="different K"):
        CalibrationState.from_arrays([0, 1], [[0.8, 0.2], [0.3, 0.7]]).merge(
            CalibrationState.from_arrays([0, 1], [[0.8, 0.1, 0.1], [0.3, 0.6, 0.1]]))
    with pytest.raises(TypeError, match="cannot merge"):
        a.merge(fm.states.ConfusionState.from_arrays([0, 1], [0, 1]))
    assert a.__add__(3) is NotImplemented


# ----------------------------------------------------------------------------- export / load


def _states():
    rng = np.random.default_rng(7)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(np.int64)
    P = rng.dirichlet(np.ones(4), 300)
    yk = rng.integers(0, 4, 300)
    Y = rng.integers(0, 2, (300, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "binary": CalibrationState.from_arrays(y, p),
            "binary weighted": CalibrationState.from_arrays(y, p, rng.random(300) - 0.3),
            "binary quantile": CalibrationState.from_arrays(
                y, p, edges=np.percentile(p, np.linspace(0, 100, 6))),
            "top label": CalibrationState.from_arrays(yk, P, n_bins=15),
            "brier multiclass": CalibrationState.for_brier(yk, P),
            "brier multilabel": CalibrationState.for_brier(Y, P[:, :3], rng.random(300)),
            "zero weights": CalibrationState.from_arrays(y, p, np.zeros(300)),
            "empty": CalibrationState.from_arrays([], [], allow_empty=True),
        }


def _same_export(a, b):
    da, db = a.to_dict(), b.to_dict()
    assert da.keys() == db.keys()
    for k in da:
        if isinstance(da[k], np.ndarray):
            np.testing.assert_array_equal(da[k], db[k])
            assert da[k].dtype == db[k].dtype
        else:
            assert da[k] == db[k] and type(da[k]) is type(db[k]), k


@pytest.mark.parametrize("name", list(_states()))
def test_npz_json_and_pickle_round_trips(name, tmp_path):
    s = _states()[name]
    np.savez(tmp_path / "s.npz", **s.to_dict())
    with np.load(tmp_path / "s.npz", allow_pickle=False) as f:
        _same_export(load_state(f), s)
        _same_export(CalibrationState.from_dict(f), s)
    _same_export(CalibrationState.from_dict(json.loads(json.dumps(s.to_dict(as_lists=True)))), s)
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        blob = pickle.dumps(s, protocol=proto)
        assert b"fastmetrics.states" in blob and b"_states" not in blob
        _same_export(pickle.loads(blob), s)
    assert type(s).__module__ == "fastmetrics.states"
    if s.n_samples and s.sums[:, layout.W].sum() and s.mode != "multilabel":
        assert type(cal.summary(s)).__module__ == "fastmetrics.calibration"


def same_flat(a, b):
    """Two flat result dicts equal, NaN (an empty bin's mean) equal to NaN."""
    assert a.keys() == b.keys()
    for k in a:
        assert a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]), k


def _tampered(d, **changes):
    d = dict(d)
    d.update(changes)
    return d


def _sums(d, row, col, value):
    s = np.array(d["sums"], dtype=float)
    s[row, col] = value
    return s


TAMPER = {
    "negative count": lambda d: _tampered(d, sums=_sums(d, 0, layout.N, -1.0)),
    "fractional count": lambda d: _tampered(d, sums=_sums(d, 1, layout.N, 2.5)),
    "NaN sum": lambda d: _tampered(d, sums=_sums(d, 2, layout.SP, np.nan)),
    "infinite sum": lambda d: _tampered(d, sums=_sums(d, 2, layout.W, np.inf)),
    "weight is not the count": lambda d: _tampered(d, sums=_sums(d, 3, layout.W, 1e6)),
    "more positives than samples": lambda d: _tampered(d, sums=_sums(d, 3, layout.SY, 1e6)),
    "negative confidence": lambda d: _tampered(d, sums=_sums(d, 3, layout.SP, -1.0)),
    "sums of an empty bin": lambda d: _tampered(
        d, sums=_sums(_tampered(d, sums=_sums(d, 0, layout.N, 0.0)), 0, layout.W, 0.0)),
    "rows != bins": lambda d: _tampered(d, sums=np.array(d["sums"])[:-1]),
    "columns": lambda d: _tampered(d, sums=np.array(d["sums"])[:, :4]),
    "1-D sums": lambda d: _tampered(d, sums=np.array(d["sums"]).reshape(-1)),
    "edges decrease": lambda d: _tampered(d, edges=np.array(d["edges"])[::-1].copy()),
    "edges beyond 1": lambda d: _tampered(d, edges=np.array(d["edges"]) * 2),
    "NaN edge": lambda d: _tampered(d, edges=np.where(np.arange(len(d["edges"])) == 3, np.nan,
                                                      d["edges"])),
    "one edge": lambda d: _tampered(d, edges=np.array([0.0]), sums=np.zeros((0, 5))),
    "text sums": lambda d: _tampered(d, sums=np.full(np.shape(d["sums"]), "many")),
    "unknown mode": lambda d: _tampered(d, mode="sideways"),
    "binary with K": lambda d: _tampered(d, n_classes=3),
    "top label without K": lambda d: _tampered(d, mode="top_label"),
    "negative K": lambda d: _tampered(d, n_classes=-2),
    "any_weight off": lambda d: _tampered(d, any_weight=False),
    "binary with a class sum": lambda d: _tampered(d, has_class_sq=True, class_sq=1.0),
    "flag not a bool": lambda d: _tampered(d, weighted="no"),
    "missing field": lambda d: {k: v for k, v in d.items() if k != "any_weight"},
    "other kind": lambda d: _tampered(d, kind="confusion"),
    "future format": lambda d: _tampered(d, format=99),
}


@pytest.mark.parametrize("how", list(TAMPER))
def test_tampered_states_are_refused(how):
    s = _states()["binary"]
    with pytest.raises(StateError):
        CalibrationState.from_dict(TAMPER[how](s.to_dict()))


def test_tampered_top_label_and_multilabel_states_are_refused():
    d = _states()["brier multiclass"].to_dict()
    for bad in (dict(class_sq=np.nan), dict(class_sq=-1.0), dict(class_sq=1e9),
                dict(n_classes=1)):
        with pytest.raises(StateError):
            CalibrationState.from_dict(_tampered(d, **bad))
    d = _states()["brier multilabel"].to_dict()
    with pytest.raises(StateError, match="Brier sum"):
        CalibrationState.from_dict(_tampered(d, has_class_sq=False))
    d = _states()["binary weighted"].to_dict()
    with pytest.raises(StateError, match="any_weight"):
        CalibrationState.from_dict(_tampered(d, any_weight=False))


class _Doctored:
    """Pickles as a call of ``target`` with the doctored dict (what an attacker can write)."""

    def __init__(self, target, d):
        self.target, self.d = target, d

    def __reduce__(self):
        return self.target, (self.d,)


def test_doctored_pickles_are_refused():
    s = _states()["binary"]
    d = s.to_dict()
    d["sums"] = _sums(d, 0, layout.SY, 1e6)  # a "perfectly calibrated" pile of positives
    with pytest.raises(StateError):
        pickle.loads(pickle.dumps(_Doctored(CalibrationState.from_dict, d)))
    acc = CalibrationAccumulator(10).update([0, 1, 1], [0.1, 0.8, 0.9])
    a = acc.to_dict()
    a["state"] = d
    with pytest.raises(StateError):
        pickle.loads(pickle.dumps(_Doctored(CalibrationAccumulator.from_dict, a)))
    a = acc.to_dict()
    a["config"] = dict(a["config"], edges=np.linspace(0, 1, 6))  # edges the state is not over
    with pytest.raises(StateError, match="edges"):
        CalibrationAccumulator.from_dict(a)


# ----------------------------------------------------------------------------- accumulators


def _accumulators():
    rng = np.random.default_rng(11)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(np.int64)
    P = rng.dirichlet(np.ones(3), 200)
    yk = rng.integers(0, 3, 200)
    names = np.array(["ant", "bee", "cat"])
    return {
        "empty": CalibrationAccumulator(7),
        "binary": CalibrationAccumulator(7).update(y[:90], p[:90]).update(y[90:], p[90:]),
        "weighted": CalibrationAccumulator(edges=[0, 0.2, 0.5, 1]).update(y, p, rng.random(200)),
        "top label": CalibrationAccumulator(4).update(yk, P),
        "string labels": CalibrationAccumulator(4, labels=names).update(names[yk], P),
        "pos_label": CalibrationAccumulator(3, pos_label="b").update(
            np.where(y == 1, "b", "a"), p),
    }


@pytest.mark.parametrize("name", list(_accumulators()))
def test_accumulator_pickle_protocols_and_export(name, tmp_path):
    acc = _accumulators()[name]
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(acc, protocol=proto))
        assert back.config().keys() == acc.config().keys()
        assert back.n_samples == acc.n_samples and back.n_bins == acc.n_bins
        if acc.n_samples:
            same_flat(back.result().to_flat_dict(), acc.result().to_flat_dict())
            _same_export(back.state, acc.state)
    back = CalibrationAccumulator.from_dict(json.loads(json.dumps(acc.to_dict(as_lists=True))))
    assert back.n_samples == acc.n_samples
    if acc.n_samples:
        same_flat(back.result().to_flat_dict(), acc.result().to_flat_dict())


@pytest.mark.parametrize("path", ["legacy_accumulators.pkl", "legacy_accumulators_p2.pkl"])
def test_accumulators_pickled_by_0_1_load_and_answer_as_then(path):
    with open(DATA / path, "rb") as f:
        accs = pickle.load(f)
    answers = json.loads((DATA / "legacy_accumulators.json").read_text())
    for name in ("calibration_binary", "calibration_top_label"):
        acc, want = accs[name], answers[name]
        r = acc.result()
        assert acc.n_samples == want["n_samples"]
        assert r.bins.counts.tolist() == want["counts"]
        assert (r.ece, r.mce, r.brier) == (want["ece"], want["mce"], want["brier"])
        again = pickle.loads(pickle.dumps(acc))  # and today's pickle of it
        same_flat(again.result().to_flat_dict(), r.to_flat_dict())
    # a legacy accumulator keeps counting, with the chunk's mode
    acc = accs["calibration_binary"]
    acc.update([0, 1], [0.3, 0.9])
    assert acc.n_samples == answers["calibration_binary"]["n_samples"] + 2


def test_legacy_pickle_with_a_doctored_state_is_refused():
    acc = CalibrationAccumulator.__new__(CalibrationAccumulator)
    with pytest.raises(StateError):
        acc.__setstate__({"edges": np.linspace(0, 1, 3), "pos_label": None, "labels": None,
                          "_state": np.array([[1.0, 0.5, 3.5, 0.0, 1.0], [0.0] * 5]),
                          "_mode": "binary", "_weighted": False})


def test_accumulator_takes_uniform_strategy_only():
    assert CalibrationAccumulator(4, strategy="uniform").n_bins == 4
    with pytest.raises(ValueError, match="quantile"):
        CalibrationAccumulator(4, strategy="quantile")
    # given edges equal to the uniform ones merge with the uniform accumulator
    a = CalibrationAccumulator(4).update([0, 1], [0.2, 0.9])
    b = CalibrationAccumulator(edges=np.linspace(0, 1, 5)).update([1], [0.6])
    assert (a + b).n_samples == 3


# ----------------------------------------------------------------------------- table: every face

rng = np.random.default_rng(5)
YB = (rng.random(3001) < 0.4).astype(np.int64)
PB = np.clip(rng.random(3001) * 0.6 + YB * 0.3, 0, 1)
WB = rng.random(3001) + 0.05
YK = rng.integers(0, 4, 3001)
PK = rng.dirichlet(np.ones(4), 3001)
ROWS = _table.by_family("calibration")


def _call_kwargs(row, weighted):
    kw = {"n_bins": 7} if "n_bins" in row.signature.parameters else {}
    if weighted and "sample_weight" in row.signature.parameters:
        kw["sample_weight"] = WB
    return kw


def _same(a, b):
    if isinstance(a, fm.CalibrationBins):
        a = (a.edges, a.counts, a.weights, a.mean_confidence, a.observed_frequency, a.state)
        b = (b.edges, b.counts, b.weights, b.mean_confidence, b.observed_frequency, b.state)
    if hasattr(a, "to_flat_dict"):
        a, b = a.to_flat_dict(), b.to_flat_dict()
        assert a.keys() == b.keys()
        a, b = list(a.values()), list(b.values())
    if isinstance(a, tuple):
        for x, y in zip(a, b):
            _same(x, y)
        return
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=RTOL, atol=1e-15)


CASES = [(r, w) for r in ROWS for w in (False, True)
         if not w or "sample_weight" in r.signature.parameters]


@pytest.mark.parametrize("row, weighted", CASES,
                         ids=[f"{r.name}{' weighted' if w else ''}" for r, w in CASES])
def test_every_row_one_shot_method_and_dask_agree(row, weighted):
    kw = _call_kwargs(row, weighted)
    one = row.function(YB, PB, **kw)
    acc = CalibrationAccumulator(kw.get("n_bins", 10))
    for lo in range(0, 3001, 1000):
        acc.update(YB[lo:lo + 1000], PB[lo:lo + 1000],
                   None if "sample_weight" not in kw else WB[lo:lo + 1000])
    _same(getattr(acc, row.name)(), one)
    dask = pytest.importorskip("dask")
    import dask.array as da
    import fastmetrics.dask as fmd

    with dask.config.set(scheduler="synchronous"):
        got = getattr(fmd, row.name)(da.from_array(YB, chunks=700), PB, **kw)
    _same(got, one)
    if row.name == "brier_score_loss":
        for s in (True, False):
            want = row.function(YB, PB, scale_by_half=s, **kw)
            _same(acc.brier_score_loss(scale_by_half=s), want)


def test_rows_signatures():
    for row in ROWS:
        method = getattr(CalibrationAccumulator, row.name)
        want = [p.name for p in row.metric_parameters()]
        assert list(inspect.signature(method).parameters)[1:] == want


def test_top_label_rows_and_the_binary_only_brier():
    acc = CalibrationAccumulator(6).update(YK[:1500], PK[:1500]).update(YK[1500:], PK[1500:])
    for name in ("calibration_summary", "expected_calibration_error", "max_calibration_error",
                 "calibration_bins"):
        _same(getattr(acc, name)(), getattr(fm, name)(YK, PK, n_bins=6))
    with pytest.raises(ValueError, match="binary"):
        acc.brier_score_loss()  # the multiclass Brier score needs the classes of all the data
    with pytest.raises(ValueError, match="unweighted"):
        acc.calibration_curve()
    assert fm.brier_score_loss(YK, PK) == pytest.approx(sk_brier(YK, PK), rel=RTOL)


# ----------------------------------------------------------------------------- scikit-learn


def _sk_error(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the error scikit-learn raises is the answer
        return exc
    return None


INVALID_NAN_INF = [  # scikit-learn's test_common: invalids_nan_inf
    ([0, 1], [np.inf, np.inf]),
    ([0, 1], [np.nan, np.nan]),
    ([0, 1], [np.nan, np.inf]),
    ([0, 1], [np.inf, 1]),
    ([0, 1], [np.nan, 1]),
]


@pytest.mark.parametrize("y, p", INVALID_NAN_INF)
def test_nan_and_infinite_probabilities_worded_as_scikit_learn(y, p):
    want = _sk_error(lambda: sk_brier(y, p))
    assert isinstance(want, ValueError) and re.search(r"contains (NaN|infinity)", str(want))
    kind = "NaN" if "NaN" in str(want) else "infinity"
    for fn in (fm.brier_score_loss, fm.calibration_curve, fm.expected_calibration_error):
        with pytest.raises(ValueError, match=rf"Input y_proba? contains {kind}"):
            fn(y, p)
    with pytest.raises(ValueError, match=rf"contains {kind}"):
        fm.brier_score_loss([0, 1, 2], np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5],
                                                 [0.1, p[0], 0.2]]))
    with pytest.raises(ValueError, match=rf"contains {kind}"):
        CalibrationAccumulator().update(y, p)


def test_out_of_range_probabilities_worded_as_scikit_learn():
    for p, fragment in (([1.8, 0.6, 0.4, 0.2], "y_prob contains values greater than 1"),
                        ([-0.8, 0.6, 0.4, 0.2], "y_prob contains values less than 0")):
        assert fragment in str(_sk_error(lambda: sk_brier([0, 1, 0, 1], p)))
        with pytest.raises(ValueError, match=r"outside \[0, 1\]: value .* in row 0 \(" + fragment):
            fm.brier_score_loss([0, 1, 0, 1], p)


@pytest.mark.parametrize("K", [2, 3, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_brier_multilabel_indicator_matches_scikit_learn(K, weighted):
    r = np.random.default_rng(K)
    Y = r.integers(0, 2, (40, K))
    P = r.random((40, K))
    w = r.random(40) if weighted else None
    for scale in ("auto", True, False):
        with warnings.catch_warnings(record=True) as rec_sk:
            warnings.simplefilter("always")
            want = sk_brier(Y, P, sample_weight=w, scale_by_half=scale)
        with warnings.catch_warnings(record=True) as rec_fm:
            warnings.simplefilter("always")
            got = fm.brier_score_loss(Y, P, sample_weight=w, scale_by_half=scale)
        assert got == pytest.approx(want, rel=RTOL)
        assert [str(x.message) for x in rec_fm] == [str(x.message) for x in rec_sk]
    # scikit-learn's test_common: sample order and label permutation invariance
    P /= P.sum(axis=1, keepdims=True)
    perm, cols = r.permutation(40), r.permutation(K)
    one = fm.brier_score_loss(Y, P)
    assert fm.brier_score_loss(Y[perm], P[perm]) == pytest.approx(one, rel=RTOL)
    assert fm.brier_score_loss(Y[:, cols], P[:, cols]) == pytest.approx(one, rel=RTOL)


def test_brier_multilabel_errors_as_scikit_learn():
    P = np.full((3, 3), 0.3)
    cases = [
        (np.array([[0, 2, 1], [1, 0, 1], [1, 1, 0]]), P, {}),  # multiclass-multioutput
        (np.array([[0, 1], [1, 0], [1, 1]]), P, {}),  # 2 vs 3 columns
        (np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]]), P, {"sample_weight": [0, 0, 0]}),
    ]
    for Y, Q, kw in cases:
        for action in ("error", "ignore"):  # the row-sum warning comes first, as there
            with warnings.catch_warnings():
                warnings.simplefilter(action)
                want = _sk_error(lambda: sk_brier(Y, Q, **kw))
                with pytest.raises(type(want), match=re.escape(str(want))):
                    fm.brier_score_loss(Y, Q, **kw)
    with pytest.raises(ValueError, match="labels"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn: "not fitted with multilabel input"
        fm.brier_score_loss(cases[0][0] % 2, P, labels=[0, 1, 2])


def test_brier_labels_in_another_order_than_sorted_as_scikit_learn():
    y = ["a", "b", "c", "a"]
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]])
    for labels in (["b", "a", "c"], np.array(["c", "b", "a"])):
        with pytest.warns(UserWarning) as rec_sk:
            want = sk_brier(y, P, labels=labels)
        with pytest.warns(UserWarning) as rec_fm:
            got = fm.brier_score_loss(y, P, labels=labels)
        assert got == pytest.approx(want, rel=RTOL)  # the columns are the sorted labels
        assert str(rec_fm[0].message) == str(rec_sk[0].message)


def test_brier_label_errors_worded_as_scikit_learn():
    cases = [
        (["eggs", "ham", "spam"], [[1, 0, 0], [0, 1, 0], [0, 1, 0]],
         ["eggs", "spam", "ham", "yams"]),
        (["eggs"], [[0.9, 0.1]], None),
        ([1, 2, 0], [[0.5, 0.3, 0.2]] * 3, [0, 2]),
        ([0, 0, 0], [[0.5, 0.3, 0.2]] * 3, [0]),
        ([1, 2, 1], [[0.5, 0.3, 0.2]] * 3, None),
        ([0, 1, 2, 0], [0.8, 0.6, 0.4, 0.2], None),  # multiclass y_true, 1-D y_proba
        ([0.5, 1.5, 0.5], [0.8, 0.6, 0.4], None),  # continuous y_true
    ]
    for y, P, labels in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = _sk_error(lambda: sk_brier(y, P, labels=labels))
            assert isinstance(want, ValueError)
            with pytest.raises(ValueError, match=re.escape(str(want))):
                fm.brier_score_loss(y, P, labels=labels)


def test_sample_weight_errors_worded_as_scikit_learn():
    y = np.arange(20) % 2
    p = np.linspace(0.05, 0.95, 20)
    for w, fragment in ((np.where(np.arange(20) == 4, np.nan, 1.0), None),
                        (np.ones(19), None),
                        (np.zeros(20), None)):
        want = _sk_error(lambda: sk_brier(y, p, sample_weight=w))
        fragment = str(want).rstrip(".")
        for fn in (fm.brier_score_loss, fm.expected_calibration_error):
            if fn is fm.expected_calibration_error and not w.any():
                continue  # the calibration error of zero total weight is its own error
            with pytest.raises(type(want), match=re.escape(fragment)):
                fn(y, p, sample_weight=w)
    want = _sk_error(lambda: sk_brier(y, p, sample_weight=2.0))
    with pytest.raises(type(want)):
        fm.brier_score_loss(y, p, sample_weight=2.0)


def test_zero_weight_sum_errors_through_every_face():
    y, p = np.array([0, 1, 1, 0]), np.array([0.1, 0.9, 0.8, 0.3])
    for w in (np.zeros(4), np.array([1.0, -1.0, 0.5, -0.5])):
        want = _sk_error(lambda: sk_brier(y, p, sample_weight=w))
        with pytest.raises(type(want), match=re.escape(str(want))):
            fm.brier_score_loss(y, p, sample_weight=w)
        acc = CalibrationAccumulator().update(y[:2], p[:2], w[:2]).update(y[2:], p[2:], w[2:])
        with pytest.raises(type(want), match=re.escape(str(want))):
            acc.brier_score_loss()
        acc = pickle.loads(pickle.dumps(acc))
        with pytest.raises(type(want), match=re.escape(str(want))):
            acc.brier_score_loss()
        with pytest.raises(ValueError, match="sums to zero"):
            acc.expected_calibration_error()


def test_nan_labels_worded_as_scikit_learn():
    want = _sk_error(lambda: sk_brier([np.nan, 1.0, 0.0], [0.2, 0.5, 0.3]))
    assert "contains NaN" in str(want)
    with pytest.raises(ValueError, match="Input y_true contains NaN"):
        fm.brier_score_loss([np.nan, 1.0, 0.0], [0.2, 0.5, 0.3])


def test_state_repr_and_io_of_a_buffer():
    s = _states()["top label"]
    assert repr(s) == "CalibrationState(top_label, K=4, n_bins=15, n_samples=300)"
    buf = io.BytesIO()
    np.savez(buf, **s.to_dict())
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as f:
        assert load_state(f).n_samples == 300
