"""d2_brier_score: parity with scikit-learn (binary, multiclass, multilabel, labels, weights,
errors and warnings), streaming over any chunk split, state export/load, Dask."""

import pickle
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import d2_brier_score as sk_d2_brier

import fastmetrics as fm
import fastmetrics.dask as fmd
from fastmetrics.states import CalibrationState
from fastmetrics.streaming import CalibrationAccumulator

from _parity import run


def check_parity(ours, ref, *args, **kwargs):
    """Same exception type, same warnings, and the same score: ``1 - d2`` (the ratio of the
    Brier scores, which the two compute by different sums) to 1e-12 relative, so a score
    near 0 is not held to digits that ``1 - ratio`` cancels."""
    o, oe, ow = run(ours, *args, **kwargs)
    r, re_, rw = run(ref, *args, **kwargs)
    if oe is not None or re_ is not None:
        assert oe is not None and re_ is not None, (oe, re_)
        assert isinstance(oe, type(re_)) or isinstance(re_, type(oe)), (oe, re_)
        return
    assert sorted({(c.__name__, m) for c, m in ow}) == sorted({(c.__name__, m) for c, m in rw})
    assert type(o) is float
    if np.isnan(r) or np.isinf(r):
        assert o == r or (np.isnan(o) and np.isnan(r)), (o, r)
    else:
        assert abs((1 - o) - (1 - r)) <= 1e-12 * abs(1 - r), (o, r)


probs = st.floats(0.0, 1.0, allow_nan=False)
# a class weighing below ~1e-4 of the total loses digits in the binary baseline (W - SY)
weights = st.floats(0.5, 10.0) | st.sampled_from([0.0, 1.0, 2.5])


@st.composite
def binary_case(draw):
    n = draw(st.integers(2, 60))
    kind = draw(st.sampled_from(["01", "pm1", "int", "str"]))
    classes = {"01": [0, 1], "pm1": [-1, 1], "int": [2, 7], "str": ["no", "yes"]}[kind]
    y = np.array(draw(st.lists(st.sampled_from(classes), min_size=n, max_size=n)))
    p = np.array(draw(st.lists(probs, min_size=n, max_size=n)))
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(weights, min_size=n, max_size=n)))
    pos = draw(st.sampled_from([None, classes[0], classes[1]]))
    return y, p, w, pos


@given(binary_case())
def test_binary_matches_sklearn(case):
    y, p, w, pos = case
    check_parity(fm.d2_brier_score, sk_d2_brier, y, p, sample_weight=w, pos_label=pos)


@st.composite
def multiclass_case(draw):
    K = draw(st.integers(2, 5))
    n = draw(st.integers(2, 60))
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    seed = draw(st.integers(0, 2**32 - 1))
    P = np.random.default_rng(seed).dirichlet(np.ones(K), n)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(weights, min_size=n, max_size=n)))
    names = draw(st.sampled_from(["int", "str"]))
    labels = None
    if names == "str":
        y = np.array(["c%d" % v for v in y])
        all_labels = ["c%d" % k for k in range(K)]
    else:
        all_labels = list(range(K))
    if draw(st.booleans()):
        labels = all_labels  # classes missing from y_true are allowed then
    return y, P, w, labels


@given(multiclass_case())
def test_multiclass_matches_sklearn(case):
    y, P, w, labels = case
    check_parity(fm.d2_brier_score, sk_d2_brier, y, P, sample_weight=w, labels=labels)


@given(st.integers(2, 40), st.integers(2, 4), st.integers(0, 2**32 - 1), st.booleans())
@settings(max_examples=40)
def test_multilabel_matches_sklearn(n, K, seed, weighted):
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, 2, (n, K))
    P = rng.random((n, K))
    w = rng.random(n) if weighted else None
    check_parity(fm.d2_brier_score, sk_d2_brier, Y, P, sample_weight=w)


@pytest.mark.parametrize("args, kwargs", [
    (([1, 1, 1], [0.2, 0.3, 0.9]), {}),                      # constant y: -inf, RuntimeWarning
    (([1, 1], [1.0, 1.0]), {}),                               # 0 / 0: nan, RuntimeWarning
    (([0], [0.2]), {}),                                       # fewer than two samples
    (([], []), {}),
    (([0], [1.5]), {}),                                       # not validated below two samples
    (([0], [0.5]), {"sample_weight": [1, 2]}),
    (([0, 1], [0.2, 0.3]), {"sample_weight": [0, 0]}),        # ValueError
    (([0, 1, 1], [0.2, 0.3, 0.5]), {"sample_weight": [1, -1, 0]}),  # ZeroDivisionError
    (([0, 1, 1], [0.2, 0.3, 0.5]), {"sample_weight": [1, 2]}),
    (([0, 1, 1], [1.2, 0.8, 0.3]), {}),
    (([0, 1, 1], [-0.2, 0.8, 0.3]), {}),
    (([0, 1, 1], [np.nan, 0.8, 0.3]), {}),
    ((["a", "b", "b"], [0.2, 0.8, 0.3]), {}),                 # strings need pos_label
    ((["a", "b", "b"], [0.2, 0.8, 0.3]), {"pos_label": "a"}),
    (([0, 1, 2], [0.2, 0.8, 0.3]), {}),                       # not binary
    (([0, 1, 1], [[0.2, 0.3, 0.5]] * 3), {}),                 # fewer classes than columns
    (([0, 1, 1], [[0.2, 0.3, 0.5]] * 3), {"labels": [0, 1, 2]}),
    (([0, 1, 1], [[0.2, 0.3, 0.5]] * 3), {"labels": [2, 1, 0]}),  # unsorted: UserWarning
    (([0, 1, 2], [[0.2, 0.3, 0.6]] * 3), {}),                 # rows not summing to 1
    (([0, 1, 1], [[0.2, 0.8]] * 3), {}),                      # two columns
    (([0, 1, 1], [[0.2], [0.8], [0.3]]), {}),                 # one column: binary
    (([0, 5, 1], [[0.2, 0.3, 0.5]] * 3), {"labels": [0, 1, 2]}),
    (([0, 0, 0], [[0.5, 0.3, 0.2]] * 3), {"labels": [0]}),
    (([1, 1, 1], [[0.5, 0.5]] * 3), {}),                      # only one label
    ((np.array([[1, 0, 1, 0], [2, 3, 3, 2]]), [[0.3, 0.3, 0.2, 0.2], [0.4, 0.1, 0.3, 0.2]]),
     {}),                                                     # multioutput
    (([0, 1, 0, 0, 1, 1, 0], [0.8, 0.6, 0.4, 0.2]), {}),      # lengths
])
def test_edge_cases_match_sklearn(args, kwargs):
    check_parity(fm.d2_brier_score, sk_d2_brier, *args, **kwargs)


def test_baseline_closed_form():
    """The null model's Brier score is sum_k q_k (1 - q_k) of the class frequencies."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 1000)
    w = rng.random(1000)
    P = rng.dirichlet(np.ones(4), 1000)
    q = np.bincount(y, weights=w, minlength=4) / w.sum()
    onehot = np.eye(4)[y]
    null = np.average(((onehot - q) ** 2).sum(axis=1), weights=w)
    assert null == pytest.approx(np.sum(q * (1 - q)), rel=1e-12)
    brier = np.average(((onehot - P) ** 2).sum(axis=1), weights=w)
    assert fm.d2_brier_score(y, P, sample_weight=w) == pytest.approx(1 - brier / null, rel=1e-12)


def test_inputs_not_modified_and_large_counts():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 20_000)
    P = rng.dirichlet(np.ones(3), 20_000)
    y0, P0 = y.copy(), P.copy()
    got = fm.d2_brier_score(y, P)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(P, P0)
    assert got == pytest.approx(sk_d2_brier(y, P), rel=1e-12)


@st.composite
def split_plan(draw, n):
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=5)))
    return [0, *cuts, n]


@given(binary_case(), st.data())
def test_streaming_any_split_equals_one_shot(case, data):
    y, p, w, pos = case
    if pos is None and not (set(y.tolist()) <= {0, 1} or set(y.tolist()) <= {-1, 1}):
        # an accumulator cannot see the greater label of later chunks: it is given
        pos = y[0] if y.dtype.kind == "U" else y.max()
    bounds = data.draw(split_plan(len(y)))
    n_bins = data.draw(st.integers(1, 12))
    accs = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        acc = CalibrationAccumulator(n_bins, pos_label=pos)
        if b > a:
            acc.update(y[a:b], p[a:b], sample_weight=None if w is None else w[a:b])
        accs.append(acc)
    total = accs[0]
    for acc in accs[1:]:
        total = total + acc
    total = pickle.loads(pickle.dumps(total))
    with warnings.catch_warnings():  # constant y_true: numpy's RuntimeWarning, as sklearn
        warnings.simplefilter("ignore", RuntimeWarning)
        _check_streamed(total, y, p, w, pos)


def _check_streamed(total, y, p, w, pos):
    try:
        one = fm.d2_brier_score(y, p, sample_weight=w, pos_label=pos)
    except (ValueError, ZeroDivisionError) as exc:
        with pytest.raises(type(exc)):
            total.d2_brier_score()
        return
    got = total.d2_brier_score()
    if np.isnan(one) or np.isinf(one):
        assert got == one or (np.isnan(got) and np.isnan(one)), (got, one)
    else:  # the ratio of the Brier scores to 1e-12 (see check_parity)
        assert abs((1 - got) - (1 - one)) <= 1e-12 * abs(1 - one), (got, one)


def test_streaming_multiclass_is_one_shot_only():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 50)
    P = rng.dirichlet(np.ones(3), 50)
    acc = CalibrationAccumulator(10).update(y, P)
    with pytest.raises(ValueError, match="binary"):
        acc.d2_brier_score()


def test_state_keeps_class_weights_through_export():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    P = rng.dirichlet(np.ones(3), 200)
    w = rng.random(200)
    for sw in (None, w):
        s = CalibrationState.for_brier(y, P, sw, class_weights=True)
        np.testing.assert_allclose(s.class_w, np.bincount(y, weights=sw, minlength=3),
                                   rtol=1e-12)
        back = CalibrationState.from_dict(s.to_dict())
        np.testing.assert_array_equal(back.class_w, s.class_w)
        d = s.to_dict()
        d["class_w"] = np.zeros(2)
        with pytest.raises(Exception, match="class_w"):
            CalibrationState.from_dict(d)
    d = CalibrationState.for_brier(y, P, class_weights=True).to_dict()
    d["class_w"] = d["class_w"] + 0.5  # unweighted counts must be integers
    with pytest.raises(Exception, match="counts"):
        CalibrationState.from_dict(d)
    legacy = CalibrationState.for_brier(y, P).to_dict()
    del legacy["has_class_w"], legacy["class_w"]
    assert CalibrationState.from_dict(legacy).class_w is None


@pytest.mark.parametrize("weighted", [False, True])
def test_dask_equals_one_shot(weighted):
    rng = np.random.default_rng(4)
    n = 10_007
    y = rng.integers(0, 2, n)
    p = rng.random(n)
    w = rng.random(n) if weighted else None
    with dask.config.set(scheduler="synchronous"):
        got = fmd.d2_brier_score(da.from_array(y, chunks=999), da.from_array(p, chunks=999),
                                 sample_weight=None if w is None else da.from_array(w, chunks=999))
    assert got == pytest.approx(sk_d2_brier(y, p, sample_weight=w), rel=1e-12)
    assert got == pytest.approx(fm.d2_brier_score(y, p, sample_weight=w), rel=1e-12)


def test_same_bits_for_any_thread_count():
    rng = np.random.default_rng(5)
    n = 300_000
    y = rng.integers(0, 2, n)
    p = rng.random(n)
    w = rng.random(n)
    ref = fm.d2_brier_score(y, p, sample_weight=w, n_threads=1)
    for nt in (2, 8, None):
        assert fm.d2_brier_score(y, p, sample_weight=w, n_threads=nt) == ref
    with pytest.raises(ValueError, match="n_threads"):
        fm.d2_brier_score(y, p, n_threads=0)
