"""hinge_loss against scikit-learn: values, errors, every face (one-shot, streaming any
split, Dask), layouts, dtypes and thread counts, and the state's export."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import hinge_loss as sk_hinge

import fastmetrics as fm
from fastmetrics.states import HingeState, StateError, load_state
from fastmetrics.streaming import HingeAccumulator

from _parity import check_parity, run

VALUES = [-1, 2, 5, 9, 11]
TEXT = ["ant", "bee", "cat", "dog", "eel"]


@st.composite
def problems(draw):
    """(y_true, pred_decision, kwargs): binary 1-D decisions (y_true of one or two classes,
    labels of at most two classes given or not) or multiclass (n, K) (labels given with
    classes missing from y_true, or every class in y_true), numbers or text, weights with
    zeros, integer decisions now and then."""
    classes = draw(st.sampled_from([VALUES, TEXT]))
    n = draw(st.integers(1, 40))
    binary = draw(st.booleans())
    kw = {}
    if binary:
        pool = classes[: draw(st.integers(1, 2))]
        if draw(st.booleans()):
            kw["labels"] = classes[:2]
    else:
        K = draw(st.integers(3, 5))
        cols = classes[:K]
        if draw(st.booleans()):
            kw["labels"] = cols
            pool = cols[: draw(st.integers(1, K))]
        else:
            pool = cols
    y = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    if not binary and "labels" not in kw:
        if n < len(pool):
            return problems_fallback()
        y[: len(pool)] = pool
        y = y[np.argsort(draw(st.permutations(range(n))))]
    cell = st.sampled_from([0.0, 1.0, -1.0, 0.5, -2.0]) | st.floats(-5, 5)
    shape = (n,) if binary else (n, len(kw.get("labels", pool)))
    D = np.array(draw(st.lists(cell, min_size=int(np.prod(shape)),
                               max_size=int(np.prod(shape))))).reshape(shape)
    if draw(st.integers(0, 4)) == 0:
        D = np.round(D).astype(np.int64)
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]) | st.floats(0, 10),
                                   min_size=n, max_size=n)))
        if w.sum() == 0:
            w[0] = 1.0
        kw["sample_weight"] = w
    return y, D, kw


def problems_fallback():
    y = np.array([2, 5, 9, 2])
    return y, np.array([[1.0, 0.5, -1.0], [0.1, 2.0, 0.3], [0.0, 0.0, 1.0],
                        [-1.0, 2.0, 0.0]]), {}


@settings(max_examples=400, deadline=None)
@given(problems())
def test_hinge_loss_matches_sklearn(problem):
    y, D, kw = problem
    check_parity(fm.hinge_loss, sk_hinge, y, D, **kw)


@settings(max_examples=100, deadline=None)
@given(problems(), st.lists(st.integers(1, 39), max_size=5))
def test_streaming_any_split_equals_one_pass(problem, cuts):
    y, D, kw = problem
    want, exc, _ = run(fm.hinge_loss, y, D, **kw)
    if exc is not None:
        return
    acc = HingeAccumulator(labels=kw.get("labels"))
    w = kw.get("sample_weight")
    n = y.shape[0]
    bounds = [0, *sorted({c for c in cuts if c < n}), n]
    for i, j in zip(bounds[:-1], bounds[1:]):
        try:
            acc.update(y[i:j], D[i:j], None if w is None else w[i:j])
        except ValueError as e:  # a multiclass chunk lacking a class, without labels
            assert "labels" not in kw and D.ndim == 2, e
            return
    assert acc.hinge_loss() == pytest.approx(want, rel=1e-12, abs=1e-15)
    back = pickle.loads(pickle.dumps(acc))
    assert back.hinge_loss() == acc.hinge_loss()
    st_ = load_state(acc.state.to_dict())
    assert isinstance(st_, HingeState)
    assert st_.to_dict().keys() == acc.state.to_dict().keys()
    for k, v in acc.state.to_dict().items():
        np.testing.assert_array_equal(np.asarray(st_.to_dict()[k]), np.asarray(v))


def test_binary_chunks_of_one_class_take_the_mapping_of_all_the_data():
    y = np.array([0, 0, 1, 1, 1])
    D = np.array([-0.5, 0.3, 0.2, 1.5, -2.0])
    acc = HingeAccumulator().update(y[:2], D[:2]).update(y[2:], D[2:])
    assert acc.hinge_loss() == pytest.approx(sk_hinge(y, D), rel=1e-12)
    one = HingeAccumulator().update(y[2:], D[2:])  # one class alone: all -1, as sklearn
    assert one.hinge_loss() == sk_hinge(y[2:], D[2:])
    # chunks of three classes without labels: scikit-learn's multiclass error at the end
    acc = HingeAccumulator().update([0, 1], [0.5, 1.0]).update([2], [0.1])
    with pytest.raises(ValueError, match="cannot be 1d array"):
        acc.hinge_loss()
    # labels of two classes with a third in y_true: scikit-learn's first class is +1
    acc = HingeAccumulator(labels=[0, 1]).update([1, 2], [0.5, 1.0]).update([0], [0.1])
    assert acc.hinge_loss() == pytest.approx(
        sk_hinge([1, 2, 0], [0.5, 1.0, 0.1], labels=[0, 1]), rel=1e-12)
    # a column of labels streams over Dask as a 1-D one
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    fmd = pytest.importorskip("fastmetrics.dask")
    with dask.config.set(scheduler="synchronous"):
        got = fmd.hinge_loss(da.from_array(y[:, None], chunks=(2, 1)), D)
    assert got == pytest.approx(sk_hinge(y, D), rel=1e-12)


def test_sklearn_examples_exactly():
    # scikit-learn's test_classification hinge tests (exact equality there too)
    y_true = np.array([-1, 1, 1, -1])
    pred = np.array([-8.5, 0.5, 1.5, -0.3])
    assert fm.hinge_loss(y_true, pred) == 1.2 / 4
    assert fm.hinge_loss(np.array([0, 2, 2, 0]), pred) == 1.2 / 4
    P = np.array([[+0.36, -0.17, -0.58, -0.99], [-0.54, -0.37, -0.48, -0.58],
                  [-1.45, -0.58, -0.38, -0.17], [-0.54, -0.38, -0.48, -0.58],
                  [-2.36, -0.79, -0.27, +0.24], [-1.45, -0.58, -0.38, -0.17]])
    y = np.array([0, 1, 2, 1, 3, 2])
    assert fm.hinge_loss(y, P) == sk_hinge(y, P)
    text = ["blue", "green", "red", "green", "white", "red"]
    assert fm.hinge_loss(text, P.tolist()) == sk_hinge(text, P.tolist())
    assert fm.hinge_loss(y[:5], P[:5], labels=[0, 1, 2, 3]) == \
        sk_hinge(y[:5], P[:5], labels=[0, 1, 2, 3])
    P3 = np.array([[+0.36, -0.17, -0.58], [-0.15, -0.58, -0.48], [-1.45, -0.58, -0.38],
                   [-0.55, -0.78, -0.42], [-1.45, -0.58, -0.38]])
    y3 = np.array([0, 2, 2, 0, 2])
    assert fm.hinge_loss(y3, P3, labels=[0, 1, 2]) == sk_hinge(y3, P3, labels=[0, 1, 2])
    # labels of at most two classes keep the binary mapping of y_true's own classes
    for yy, lab in (([1, 1, 1], [0, 1]), ([0, 1, 2], [0, 1])):
        assert fm.hinge_loss(yy, [0.5, -0.2, 0.3], labels=lab) == \
            sk_hinge(yy, [0.5, -0.2, 0.3], labels=lab)


BAD = [
    ([0, 1, 2, 2], np.ones((4, 4)), {}, "Please include all labels in y_true or pass labels "
     "as third argument"),
    ([2, 1, 0, 1, 0, 1, 1], np.array([0, 1, 2, 1, 0, 2, 1]), {},
     re.escape("The shape of pred_decision cannot be 1d arraywith a multiclass target. "
               "pred_decision shape must be (n_samples, n_classes), that is (7, 3). "
               "Got: (7,)")),
    ([2, 1, 0, 1, 0, 1, 1], np.ones((7, 2)), {"labels": [0, 1, 2]},
     re.escape("The shape of pred_decision is not consistent with the number of classes. "
               "With a multiclass target, pred_decision shape must be (n_samples, "
               "n_classes), that is (7, 3). Got: (7, 2)")),
    ([0, 1, 3], np.ones((3, 3)), {"labels": [0, 1, 2]}, "previously unseen labels"),
    ([0, 1], np.ones((2, 2)), {}, re.escape("y should be a 1d array, got an array of shape "
                                            "(2, 2) instead.")),
    ([0, 1], [0.5, np.nan], {}, "Input contains NaN"),
    ([0, 1], [0.5, np.inf], {}, "Input contains infinity"),
    ([0, 1], [0.5, 2.0, 3.0], {}, "inconsistent numbers of samples"),
    ([0, 1, 2], np.ones((3, 3)), {"sample_weight": [1, 2]}, "inconsistent numbers"),
    ([], [], {}, "0 sample"),
    (["a", "b"], ["x", "y"], {}, "not compatible with arrays of bytes/strings"),
    ([[0, 1], [1, 0]], [0.5, 2.0], {}, "y should be a 1d array"),
]


@pytest.mark.parametrize("y, D, kw, msg", BAD)
def test_bad_input_raises_as_sklearn(y, D, kw, msg):
    with pytest.raises(ValueError, match=msg):
        sk_hinge(y, D, **kw)
    with pytest.raises(ValueError, match=msg):
        fm.hinge_loss(y, D, **kw)


def test_zero_weights_divide_by_zero_as_sklearn():
    for f in (sk_hinge, fm.hinge_loss):
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
            f([0, 1], [0.5, 2.0], sample_weight=[0, 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided", "readonly"])
def test_layouts_and_dtypes_read_in_place(dtype, layout):
    rng = np.random.default_rng(3)
    n, K = 3000, 5
    y = rng.integers(0, K, n)
    base = rng.normal(size=(n, 2 * K)).astype(dtype)
    D = {"C": np.ascontiguousarray(base[:, :K]), "F": np.asfortranarray(base[:, :K]),
         "strided": base[:, ::2], "readonly": np.ascontiguousarray(base[:, :K])}[layout]
    if layout == "readonly":
        D.setflags(write=False)
    before = D.copy()
    w = rng.random(n)
    # float32 margins are formed in float32 by both; scikit-learn's unweighted mean is a
    # float32 sum, so float32 agrees to its precision
    rtol = 1e-12 if dtype == np.float64 else 2e-6
    assert fm.hinge_loss(y, D) == pytest.approx(sk_hinge(y, D), rel=rtol)
    assert fm.hinge_loss(y, D, sample_weight=w) == \
        pytest.approx(sk_hinge(y, D, sample_weight=w), rel=1e-12)
    d1 = D[:, 0]  # binary: scikit-learn multiplies by integer -1/+1, in float64
    yb = y % 2
    assert fm.hinge_loss(yb, d1) == pytest.approx(sk_hinge(yb, d1), rel=1e-12)
    np.testing.assert_array_equal(D, before)


def test_every_thread_count_gives_the_same_bits():
    rng = np.random.default_rng(5)
    n = 700_000  # several lanes
    y = rng.integers(0, 3, n)
    D = rng.normal(size=(n, 3))
    w = rng.random(n)
    got = {t: fm.hinge_loss(y, D, sample_weight=w, n_threads=t) for t in (1, 2, 3, None)}
    assert len(set(got.values())) == 1, got
    assert got[1] == pytest.approx(sk_hinge(y, D, sample_weight=w), rel=1e-12)
    yb = y % 2
    got = {t: fm.hinge_loss(yb, D[:, 0], n_threads=t) for t in (1, 2, 3)}
    assert len(set(got.values())) == 1, got
    assert got[1] == pytest.approx(sk_hinge(yb, D[:, 0]), rel=1e-12)


def test_dask_equals_one_shot():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    fmd = pytest.importorskip("fastmetrics.dask")
    rng = np.random.default_rng(8)
    n = 300
    y = np.sort(rng.integers(0, 4, n))  # chunks lack classes
    D = rng.normal(size=(n, 4))
    w = rng.random(n)
    with dask.config.set(scheduler="synchronous"):
        for kw in ({}, {"sample_weight": w}, {"labels": [0, 1, 2, 3]}):
            got = fmd.hinge_loss(da.from_array(y, chunks=70), da.from_array(D, chunks=(70, 4)),
                                 **{k: (da.from_array(v, chunks=70) if k == "sample_weight"
                                        else v) for k, v in kw.items()})
            assert got == pytest.approx(fm.hinge_loss(y, D, **kw), rel=1e-12)
        yb = np.sort(rng.integers(0, 2, n))
        got = fmd.hinge_loss(da.from_array(yb, chunks=70), da.from_array(D[:, 0], chunks=70))
        assert got == pytest.approx(sk_hinge(yb, D[:, 0]), rel=1e-12)


def test_doctored_states_and_mixed_merges_are_refused():
    a = HingeState.from_arrays([0, 1, 1], [0.5, -0.3, 2.0])
    b = HingeState.from_arrays([0, 1, 2], np.eye(3))
    with pytest.raises(ValueError, match="binary"):
        a.merge(b)
    d = a.to_dict()
    for key, bad in (("sums", np.full_like(d["sums"], 1.0)),
                     ("per_class", -np.abs(d["per_class"]) - 1),
                     ("binary", False), ("n_labels", 3)):
        with pytest.raises(StateError):
            load_state(dict(d, **{key: bad}))
    with pytest.raises(ValueError, match="weight"):
        HingeAccumulator().update([0, 1], [0.1, 0.2]).update([0, 1], [0.1, 0.2], [1.0, 2.0])
