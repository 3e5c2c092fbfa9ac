"""The ranking state (fastmetrics.states.RankingState): any split merged in any order equals
one pass; export to npz / JSON and back; tampered states and pickles refused; the accumulator
pickles (protocols 0-5, and those of fastmetrics 0.1); every generated accumulator method and
Dask function equals the one-shot function; the wrong numbers and errors of the issue,
compared live with scikit-learn."""

import dataclasses
import json
import pathlib
import pickle
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics import _table
from fastmetrics._states import ranking
from fastmetrics.states import RankingState, StateError, load_state
from fastmetrics.streaming import RankingAccumulator, RankingResult
from test_streaming import combine, splits  # any split into chunks, any merge order or tree

DATA = pathlib.Path(__file__).parent / "data"
RTOL = 1e-12


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def close(a, b):
    if dataclasses.is_dataclass(a) and not isinstance(a, type):  # delong_ci's result
        assert type(a) is type(b)
        close(tuple(getattr(a, f.name) for f in dataclasses.fields(a)),
              tuple(getattr(b, f.name) for f in dataclasses.fields(b)))
        return
    if a is None or isinstance(a, str):
        assert a == b
        return
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-15, equal_nan=True)


def same_state(a: RankingState, b: RankingState, exact: bool):
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_array_equal(a.classes, b.classes)
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.binned == b.binned
    if exact:
        np.testing.assert_array_equal(a.weights, b.weights)
    else:
        np.testing.assert_allclose(a.weights, b.weights, rtol=RTOL, atol=1e-12)


# ----------------------------------------------------------------------------- merge law

problems = st.integers(1, 120).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.9]) | st.floats(-5, 5), min_size=n,
             max_size=n),
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5]) | st.floats(1e-3, 5.0), min_size=n,
             max_size=n),
))


@given(problems, st.booleans(), st.sampled_from([None, [0.0], [-1.0, 0.2, 0.5, 3.0]]),
       st.sampled_from([(0, 1), (2, 5), ("a", "b")]), st.data())
def test_any_split_any_order_equals_one_pass(d, weighted, edges, labels, data):
    y, s, w = (np.array(v) for v in d)
    y = np.array(labels)[y]
    w = w if weighted else None
    e = None if edges is None else np.array(edges)
    whole = RankingState.from_arrays(y, s, w, edges=e, allow_zero_sum=True)
    bounds, order, tree = data.draw(splits(len(y)))
    parts = [RankingState.from_arrays(y[a:b], s[a:b], None if w is None else w[a:b], edges=e,
                                      allow_empty=True, allow_zero_sum=True)
             for a, b in zip(bounds[:-1], bounds[1:])]
    got = combine(parts, order, tree)
    # unweighted: the weights are counts, sums of integers in float64 (exact)
    same_state(got, whole, exact=not weighted)
    assert got.n_samples == len(y)
    for pos in (None, labels[0], labels[1]):
        close(ranking.bounds(got, pos), ranking.bounds(whole, pos))


def test_state_matches_one_shot_functions():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500) * 3 + 2  # labels {2, 5}
    s = rng.integers(0, 40, 500) / 8.0
    w = rng.random(500)
    state = RankingState.from_arrays(y, s, w)
    close(ranking.roc_auc(state), skm.roc_auc_score(y, s, sample_weight=w))
    close(ranking.roc_auc(state, max_fpr=0.3), skm.roc_auc_score(y, s, sample_weight=w,
                                                                 max_fpr=0.3))
    for pos in (2, 5):
        close(ranking.average_precision(state, pos_label=pos),
              skm.average_precision_score(y, s, sample_weight=w, pos_label=pos))
        close(ranking.roc(state, pos), skm.roc_curve(y, s, sample_weight=w, pos_label=pos))
        close(ranking.precision_recall(state, pos, drop_intermediate=True),
              skm.precision_recall_curve(y, s, sample_weight=w, pos_label=pos,
                                         drop_intermediate=True))
    # the greater label is positive without pos_label, whatever the chunk saw first
    a = RankingState.from_arrays(y[y == 2], s[y == 2], w[y == 2])
    b = RankingState.from_arrays(y[y == 5], s[y == 5], w[y == 5])
    close(ranking.roc_auc(b + a), skm.roc_auc_score(y, s, sample_weight=w))


def test_merge_refusals():
    a = RankingState.from_arrays([0, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="more than two labels"):
        a.merge(RankingState.from_arrays([2], [0.5]))
    with pytest.raises(ValueError, match="Mix of label input types"):
        RankingState.from_arrays([0], [0.1]).merge(RankingState.from_arrays(["0"], [0.1]))
    binned = RankingState.from_arrays([0, 1], [0.1, 0.2], edges=np.array([0.15]))
    with pytest.raises(ValueError, match="different thresholds"):
        a.merge(binned)
    with pytest.raises(ValueError, match="different thresholds"):
        binned.merge(RankingState.from_arrays([0], [0.1], edges=np.array([0.16])))
    with pytest.raises(TypeError):
        a.merge(object())
    with pytest.raises(ValueError, match="more than two labels"):
        RankingState.from_arrays([0, 1, 2], [0.1, 0.2, 0.3])
    # numbers of other dtypes are the same labels: bool with int, uint8 with int64
    m = RankingState.from_arrays(np.array([True, False]), [0.1, 0.2]).merge(
        RankingState.from_arrays(np.array([1], np.uint8), [0.3]))
    assert m.classes.tolist() == [0, 1] and m.counts.tolist() == [1, 2]


# ----------------------------------------------------------------------------- export / load


def examples():
    rng = np.random.default_rng(5)
    y, s, w = rng.integers(0, 2, 80), rng.random(80).round(2), rng.random(80)
    yield RankingState.from_arrays(y, s)
    yield RankingState.from_arrays(y, s, w)
    yield RankingState.from_arrays(np.array(["cat", "dog"])[y], s, w)
    yield RankingState.from_arrays(y.astype(bool), s)
    yield RankingState.from_arrays(np.ones(5, np.uint64) * (2**64 - 1), s[:5])
    yield RankingState.from_arrays(y, s, edges=np.array([0.1, 0.5, 0.9]))
    yield RankingState.from_arrays([0, 1], [0.1, 0.2], [0.0, 0.0], allow_zero_sum=True)
    yield RankingState.from_arrays([], [], allow_empty=True)


@pytest.mark.parametrize("state", list(examples()), ids=lambda s: repr(s.to_dict()["classes"]))
def test_npz_json_and_pickle_round_trips(state, tmp_path):
    path = tmp_path / "state.npz"
    np.savez(path, **state.to_dict())
    with np.load(path, allow_pickle=False) as f:
        back = load_state(f)
    same_state(back, state, exact=True)
    back = RankingState.from_dict(json.loads(json.dumps(state.to_dict(as_lists=True))))
    same_state(back, state, exact=True)
    assert back.classes.dtype == state.classes.dtype
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        same_state(pickle.loads(pickle.dumps(state, protocol=protocol)), state, exact=True)


def tampered():
    good = RankingState.from_arrays([0, 1, 1, 0], [0.1, 0.4, 0.35, 0.8],
                                    [1.0, 2.0, 1.0, 1.0]).to_dict()
    binned = RankingState.from_arrays([0, 1], [0.1, 0.4], edges=np.array([0.2])).to_dict()

    def change(d, **kw):
        return {**d, **kw}

    w = good["weights"]
    yield "negative counts", change(good, counts=np.array([-1, 3]))
    yield "zero counts", change(good, counts=np.array([0, 2]))
    yield "counts shape", change(good, counts=np.array([1, 1, 1]))
    yield "weights shape", change(good, weights=w[:, :2])
    yield "NaN weight", change(good, weights=np.where(w > 1, np.nan, w))
    yield "negative weight", change(good, weights=-w)
    yield "inf threshold", change(good, thresholds=np.r_[np.inf, good["thresholds"][1:]])
    yield "increasing thresholds", change(good, thresholds=good["thresholds"][::-1].copy())
    yield "weightless threshold", change(good, weights=np.zeros_like(w))
    yield "three classes", change(good, classes=np.array([0, 1, 2]), counts=np.array([1, 1, 2]),
                                  weights=np.vstack([w, w[:1]]))
    yield "unsorted classes", change(good, classes=np.array([1, 0]))
    yield "object classes", change(good, classes=np.array([0, 1], dtype=object),
                                   classes_dtype="|O")
    yield "float counts", change(good, counts=np.array([1.5, 2.5]))
    yield "edges not increasing", change(binned, edges=np.array([0.5, 0.2]),
                                         weights=np.zeros((2, 3)))
    yield "binned weights shape", change(binned, weights=np.zeros((2, 5)))
    yield "missing field", {k: v for k, v in good.items() if k != "counts"}
    yield "other kind", change(good, kind="confusion")


@pytest.mark.parametrize("name, d", list(tampered()), ids=[n for n, _ in tampered()])
def test_tampered_states_are_refused(name, d):
    with pytest.raises(StateError):
        RankingState.from_dict(d)


class _Doctored:
    """Unpickles as the call ``fn(arg)``: what a doctored pickle can ask for."""

    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg

    def __reduce__(self):
        return (self.fn, (self.arg,))


def test_doctored_pickles_are_refused():
    st_ = RankingState.from_arrays([0, 1, 1], [0.2, 0.3, 0.9])
    d = st_.to_dict()
    d["counts"] = np.array([-5, 9])
    with pytest.raises(StateError):
        pickle.loads(pickle.dumps(_Doctored(RankingState.from_dict, d)))
    acc = RankingAccumulator().update([0, 1, 1], [0.2, 0.3, 0.9]).to_dict()
    acc["state"]["weights"] = acc["state"]["weights"] * 3.5 - 10  # negative weights
    with pytest.raises(StateError):
        pickle.loads(pickle.dumps(_Doctored(RankingAccumulator.from_dict, acc)))
    binned = RankingAccumulator(thresholds=[0.5]).to_dict()
    binned["state"] = st_.to_dict()  # an exact state in a binned accumulator
    with pytest.raises(StateError):
        RankingAccumulator.from_dict(binned)


# ----------------------------------------------------------------------------- accumulators


@pytest.mark.parametrize("protocol", range(6))
@pytest.mark.parametrize("kw", [{}, {"thresholds": [0.2, 0.5, 0.8]}, {"pos_label": "b"},
                                {"pos_label": None}])
def test_accumulator_pickles(protocol, kw):
    rng = np.random.default_rng(protocol)
    y = np.array(["a", "b"])[rng.integers(0, 2, 300)]
    s, w = rng.random(300).round(2), rng.random(300)
    acc = RankingAccumulator(**kw).update(y[:100], s[:100], w[:100])
    back = pickle.loads(pickle.dumps(acc, protocol=protocol))
    assert b"fastmetrics._states" not in pickle.dumps(acc, protocol=protocol)
    for a in (acc, back):
        a.update(y[100:], s[100:], w[100:])
    ra, rb = quiet(acc.result), quiet(back.result)
    assert ra == rb and isinstance(rb, RankingResult)
    assert back.config().keys() == acc.config().keys() and repr(back) == repr(acc)
    assert pickle.loads(pickle.dumps(RankingAccumulator(**kw), protocol=protocol)).state is None


@pytest.mark.parametrize("blob", ["legacy_accumulators.pkl", "legacy_accumulators_p2.pkl"])
def test_legacy_pickles_load_and_answer_as_recorded(blob):
    accs = pickle.loads((DATA / blob).read_bytes())
    answers = json.loads((DATA / "legacy_accumulators.json").read_text())
    for name in ("ranking_exact", "ranking_binned"):
        acc, want = accs[name], answers[name]
        assert isinstance(acc, RankingAccumulator) and isinstance(acc.state, RankingState)
        r = acc.result()
        close(r.roc_auc, want["roc_auc"])
        close(r.average_precision, want["ap"])
        assert (r.n_positive, r.n_negative) == (want["n_positive"], want["n_negative"])
        assert acc.mode == name.split("_")[1]
        again = pickle.loads(pickle.dumps(acc))  # and they pickle on, the new way
        assert again.result() == r


def test_legacy_pickle_whose_negatives_were_merged_is_refused():
    acc = RankingAccumulator.__new__(RankingAccumulator)
    d = {"pos_label": 1, "thresholds": None, "_summary": (np.array([0.5]), np.zeros(1),
         np.array([2.0])), "_counts": np.array([0, 2]), "_classes": [0, 2], "_weighted": False}
    with pytest.raises(StateError, match="0.1 RankingAccumulator"):
        acc.__setstate__(d)


def test_pos_label_of_the_accumulator():
    rng = np.random.default_rng(9)
    y, s = rng.integers(0, 2, 400) * 3 + 2, rng.random(400)
    acc = RankingAccumulator(pos_label=None).update(y[:150], s[:150]).update(y[150:], s[150:])
    close(acc.roc_auc_score(), skm.roc_auc_score(y, s))  # the greater label, as scikit-learn
    close(acc.result().roc_auc, skm.roc_auc_score(y, s))
    two = RankingAccumulator(pos_label=2).update(y, s)
    close(two.roc_auc_score(), 1 - skm.roc_auc_score(y, s))  # 2 positive, as before
    close(two.average_precision_score(), skm.average_precision_score(y, s, pos_label=2))
    close(two.roc_curve(), skm.roc_curve(y, s, pos_label=2))
    with pytest.raises(ValueError, match="pos_label is not specified"):
        acc.roc_curve()
    with pytest.raises(ValueError, match="labels is for multiclass"):
        acc.roc_auc_score(labels=[2, 5])
    with pytest.raises(ValueError, match="average has to be one of"):
        acc.roc_auc_score(average="bogus")
    close(acc.roc_auc_score(average="weighted", multi_class="ovr"), skm.roc_auc_score(y, s))


def _table_calls():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 3001)
    s = rng.integers(0, 300, 3001) / 300.0  # ties inside and across chunks
    w = rng.random(3001)
    for row in _table.by_family("ranking"):
        kws = [{}]
        if row.name == "roc_auc_score":
            kws += [{"max_fpr": 0.4}, {"average": "weighted"}]
        if row.name in ("roc_curve", "precision_recall_curve"):
            kws += [{"drop_intermediate": not row.signature.parameters[
                "drop_intermediate"].default}, {"pos_label": 0}]
        if row.name == "average_precision_score":
            kws += [{"pos_label": 0}]
        if row.name == "delong_ci":
            kws += [{"pos_label": 0}, {"transform": "logit", "confidence_level": 0.9}]
        weights = (None, w) if "sample_weight" in row.signature.parameters else (None,)
        for kw in kws:
            for sw in weights:
                yield row, y, s, sw, kw


def _weighted(w):
    """The weights as a keyword, left out when None (delong_ci takes none)."""
    return {} if w is None else {"sample_weight": w}


def _split_kw(row, kw):
    config = {k: v for k, v in kw.items() if k in row.config}
    return config, {k: v for k, v in kw.items() if k not in row.config}


def test_generated_methods_equal_the_one_shot_functions():
    for row, y, s, w, kw in _table_calls():
        want = row.function(y, s, **_weighted(w), **kw)
        config, metric = _split_kw(row, kw)
        if "pos_label" not in config and row.name != "average_precision_score":
            config["pos_label"] = None  # the one-shot default of the curves / ROC AUC
        acc = RankingAccumulator(**config)
        for a, b in ((0, 1000), (1000, 1001), (1001, 3001)):
            acc.update(y[a:b], s[a:b], None if w is None else w[a:b])
        got = getattr(acc, row.name)(**metric)
        if row.name == "precision_recall_curve":
            assert got[2].dtype == want[2].dtype
        close(got, want)


def test_generated_dask_functions_equal_the_one_shot_functions():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    import fastmetrics.dask as fmd

    with dask.config.set(scheduler="synchronous"):
        for row, y, s, w, kw in _table_calls():
            want = row.function(y, s, **_weighted(w), **kw)
            dw = None if w is None else da.from_array(w, chunks=700)
            got = getattr(fmd, row.name)(da.from_array(y, chunks=1000), s, **_weighted(dw),
                                         **kw)
            close(got, want)
            lazy = getattr(fmd, row.name)(y, da.from_array(s, chunks=999), **_weighted(w),
                                          compute=False, **kw)
            close(lazy.compute(), want)
        y5 = np.where(np.arange(50) % 3, 5, 2)  # labels {2, 5}: one graph, greater positive
        s5 = np.linspace(0, 1, 50) ** 2
        close(fmd.roc_auc_score(da.from_array(y5, chunks=7), s5), skm.roc_auc_score(y5, s5))
        with pytest.raises(ValueError, match="binary"):
            fmd.roc_auc_score(y5, np.ones((50, 3)) / 3)
        with pytest.raises(ValueError, match="labels is for multiclass"):
            fmd.roc_auc_score(y5, s5, labels=[2, 5])


# ----------------------------------------------------------------------------- threads


@pytest.mark.parametrize("weighted", [False, True])
def test_same_result_for_any_thread_count(weighted):
    rng = np.random.default_rng(12)
    n = (1 << 17) + 5000
    y = rng.integers(0, 2, n).astype(np.int16)  # not the plain path: the general one
    s = np.round(rng.random(n), 3)
    w = rng.random(n) if weighted else None
    for name in ("roc_auc_score", "average_precision_score", "roc_curve",
                 "precision_recall_curve"):
        fn = getattr(fm, name)
        ref = fn(y, s, sample_weight=w, n_threads=1)
        for nt in (2, 3, None):
            got = fn(y, s, sample_weight=w, n_threads=nt)
            for a, b in zip(got, ref) if isinstance(ref, tuple) else [(got, ref)]:
                np.testing.assert_array_equal(a, b)  # bit for bit
    Y = rng.integers(0, 2, (n, 3))
    S = rng.random((n, 3))
    assert fm.roc_auc_score(Y, S, n_threads=1) == fm.roc_auc_score(Y, S, n_threads=2)
    with pytest.raises(ValueError, match="n_threads"):
        fm.roc_auc_score([0, 1], [0.1, 0.2], n_threads=0)
    with pytest.raises(TypeError, match="n_threads"):
        fm.roc_curve([0, 1], [0.1, 0.2], n_threads="2")
    acc = RankingAccumulator().update(y, s, w, n_threads=2)
    close(acc.roc_auc_score(), fm.roc_auc_score(y, s, sample_weight=w))


# ----------------------------------------------------------------------------- the cases


def _outcome(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*a, **k), None
        except Exception as e:  # noqa: BLE001 - compared by type and message below
            return None, e


def test_negative_weights_are_refused():
    y, s, w = [0, 0, 1, 1], [0.9, 0.1, 0.8, 0.2], [-1.0, 2.0, 1.0, 1.0]
    _, sk_err = _outcome(skm.roc_auc_score, y, s, sample_weight=w)
    assert isinstance(sk_err, ValueError)  # scikit-learn fails too (x is not monotonic)
    for name in ("roc_auc_score", "average_precision_score", "roc_curve",
                 "precision_recall_curve"):
        with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
            getattr(fm, name)(y, s, sample_weight=w)
    with pytest.raises(ValueError, match="Negative values"):
        RankingAccumulator().update(y, s, w)
    with pytest.raises(ValueError, match="Negative values"):
        fm.roc_auc_score(np.eye(4, 2, dtype=int), np.ones((4, 2)), sample_weight=w)


@pytest.mark.parametrize("average", ["micro", "macro", "weighted", "samples", None])
@pytest.mark.parametrize("name", ["roc_auc_score", "average_precision_score"])
def test_all_zero_weights_as_scikit_learn(name, average):
    rng = np.random.default_rng(1)
    z = np.zeros(6)
    cases = [((rng.integers(0, 2, (6, 3)), rng.random((6, 3))), {"average": average})]
    P = rng.random((6, 3))
    P /= P.sum(axis=1, keepdims=True)
    if average != "samples":
        kw = {"average": average}
        if name == "roc_auc_score":
            kw["multi_class"] = "ovr"
        cases.append(((np.array([0, 1, 2, 0, 1, 2]), P), kw))
    cases.append(((np.array([0, 1, 1, 0, 1, 0]), rng.random(6)), {"average": average}))
    for (y, s), kw in cases:
        ref, ref_err = _outcome(getattr(skm, name), y, s, sample_weight=z, **kw)
        got, got_err = _outcome(getattr(fm, name), y, s, sample_weight=z, **kw)
        if ref_err is None:
            assert got_err is None and got == ref, (y.shape, kw, got, got_err)
        else:
            assert type(got_err) is type(ref_err) and str(got_err) == str(ref_err)


def _prefix(ours: Exception, theirs: Exception):
    """Our message is scikit-learn's first line (its final period aside), then our detail."""
    assert type(ours) is type(theirs) or isinstance(ours, type(theirs)), (ours, theirs)
    first = str(theirs).splitlines()[0].rstrip(".")
    assert str(ours).startswith(first), (str(ours), str(theirs))


@pytest.mark.parametrize("name", ["roc_auc_score", "average_precision_score", "roc_curve",
                                  "precision_recall_curve"])
def test_bad_input_messages_as_scikit_learn(name):
    y, s = [0, 0, 1, 1], [0.9, 0.1, 0.8, 0.2]
    cases = [
        ((y, [0.9, np.nan, 0.8, 0.2]), {}),
        ((y, [0.9, np.inf, 0.8, 0.2]), {}),
        ((y, [0.9, -np.inf, 0.8, 0.2]), {}),
        ((y, s), {"sample_weight": [1.0, 1.0, 1.0]}),
        ((y, s), {"sample_weight": [1.0, np.nan, 1.0, 1.0]}),
        ((y, s), {"sample_weight": [1.0, np.inf, 1.0, 1.0]}),
        ((y, s), {"sample_weight": [1.0, -np.inf, 1.0, 1.0]}),
        ((y, s), {"sample_weight": [1.0, np.nan, -1.0, 1.0]}),
        ((y, s), {"sample_weight": np.ones(4, dtype=complex)}),
        ((y, np.array(s, dtype=complex)), {}),
        (([0.0, np.nan, 1.0, 1.0], s), {}),
        (([b"a", b"b", b"a", b"b"], s), {}),
        ((y, s), {"sample_weight": np.zeros(4)}),
    ]
    rng = np.random.default_rng(2)
    y20, s20 = rng.integers(0, 2, 20), rng.random(20)
    cases.append(((y20, s20), {"sample_weight": np.ones(19)}))
    for args, kw in cases:
        _, theirs = _outcome(getattr(skm, name), *args, **kw)
        _, ours = _outcome(getattr(fm, name), *args, **kw)
        assert theirs is not None and ours is not None, (args, kw, ours)
        _prefix(ours, theirs)
    # the fragments earlier tests match are still there
    with pytest.raises(ValueError, match="non-finite"):
        getattr(fm, name)(y, [0.9, np.nan, 0.8, 0.2])


@pytest.mark.parametrize("thresholds", [None, [0.5]])
def test_accumulator_refuses_non_finite_input(thresholds):
    acc = RankingAccumulator(thresholds=thresholds)
    for s, w, match in (([0.1, np.nan], None, "Input contains NaN"),
                        ([0.1, 0.2], [1.0, np.nan], "Input sample_weight contains NaN"),
                        ([0.1, 0.2], [1.0, -np.inf], "Input sample_weight contains infinity"),
                        ([0.1, 0.2], [1.0, -1.0], "Negative values")):
        with pytest.raises(ValueError, match=match):
            acc.update([0, 1], s, w)
    assert acc.state is None and acc.n_samples == 0
    for avg in ("samples", "macro"):  # the samples average reads no weight in a kernel
        with pytest.raises(ValueError, match="Input sample_weight contains NaN"):
            fm.average_precision_score(np.eye(3, dtype=int), np.eye(3), average=avg,
                                       sample_weight=[1.0, np.nan, 1.0])


def test_ndcg_checks_values_before_shapes():
    for yt, ys in (([1.0, np.nan], [0.1, 0.2]), ([[1.0, 0.0]], [np.inf, 0.2]),
                   ([0, 1], [np.nan, np.inf]), ([0, 1], [np.inf, 1])):
        _, theirs = _outcome(skm.ndcg_score, yt, ys)
        _, ours = _outcome(fm.ndcg_score, yt, ys)
        _prefix(ours, theirs)
    _, theirs = _outcome(skm.ndcg_score, [[1, 0], [0, 1]], [[0.1, 0.2], [0.3, 0.1]],
                         sample_weight=[0.0, 0.0])
    _, ours = _outcome(fm.ndcg_score, [[1, 0], [0, 1]], [[0.1, 0.2], [0.3, 0.1]],
                       sample_weight=[0.0, 0.0])
    assert type(ours) is type(theirs) is ZeroDivisionError


def test_curves_of_more_than_two_labels_with_pos_label():
    y, s = np.array([1, 2, 3, 2, 3, 1]), np.array([0.1, 0.9, 0.4, 0.4, 0.7, 0.2])
    for name in ("roc_curve", "precision_recall_curve"):
        close(getattr(fm, name)(y, s, pos_label=2), getattr(skm, name)(y, s, pos_label=2))
        with pytest.raises(ValueError, match="multiclass format is not supported"):
            getattr(fm, name)(y, s)


@pytest.mark.parametrize("average", ["micro", "macro", "weighted", "samples", None])
def test_partial_auc_of_multilabel_targets(average):
    rng = np.random.default_rng(13)
    Y, S, w = rng.integers(0, 2, (300, 4)), rng.random((300, 4)).round(2), rng.random(300)
    for kw in ({}, {"sample_weight": w}):
        close(quiet(fm.roc_auc_score, Y, S, max_fpr=0.3, average=average, **kw),
              quiet(skm.roc_auc_score, Y, S, max_fpr=0.3, average=average, **kw))
