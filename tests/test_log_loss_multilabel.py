"""log_loss and d2_log_loss_score of a multilabel indicator y_true against scikit-learn:
values, warnings, errors, streaming any split, Dask and the state's export."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import d2_log_loss_score as sk_d2
from sklearn.metrics import log_loss as sk_log_loss

import fastmetrics as fm
from fastmetrics.states import ProbabilityState, StateError, load_state
from fastmetrics.streaming import ProbabilityAccumulator

from _parity import check_parity, run

# the columns of a multilabel problem need not sum to one: both libraries warn (the
# parity tests compare the warnings themselves)
pytestmark = pytest.mark.filterwarnings("ignore:The y_prob values do not sum to one")


@st.composite
def problems(draw):
    """(Y, P, kwargs): an (n, L) indicator (bool, int, float 0/1, or {0, 2}), probabilities
    normalised per row or not (1-D ones when L = 2), weights with zeros."""
    L = draw(st.integers(2, 5))
    n = draw(st.integers(1, 30))
    Y = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=L, max_size=L),
                               min_size=n, max_size=n)))
    Y = draw(st.sampled_from([Y, Y.astype(bool), Y.astype(float), Y.astype(np.int8), 2 * Y]))
    cell = st.sampled_from([0.0, 1.0, 0.5, 1e-17]) | st.floats(0.0, 1.0)
    P = np.array(draw(st.lists(st.lists(cell, min_size=L, max_size=L), min_size=n,
                               max_size=n)))
    if draw(st.booleans()):
        s = P.sum(axis=1, keepdims=True)
        P = np.where(s > 0, P / np.where(s > 0, s, 1), 1.0 / L)
    if L == 2 and draw(st.booleans()):
        P = P[:, 1]
    kw = {}
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 3.0]) | st.floats(0, 5),
                                   min_size=n, max_size=n)))
        kw["sample_weight"] = w
    return Y, P, kw


@settings(max_examples=300, deadline=None)
@given(problems(), st.booleans())
def test_log_loss_matches_sklearn(problem, normalize):
    Y, P, kw = problem
    check_parity(fm.log_loss, sk_log_loss, Y, P, normalize=normalize, **kw)


@settings(max_examples=200, deadline=None)
@given(problems())
def test_d2_log_loss_matches_sklearn(problem):
    Y, P, kw = problem
    # 1 - (a ratio of two nearly equal losses): where it cancels to about 0, both sides
    # differ by an ulp of 1, which no relative tolerance admits
    check_parity(fm.d2_log_loss_score, sk_d2, Y, P, rtol=1e-11, atol=1e-15, **kw)


@settings(max_examples=100, deadline=None)
@given(problems(), st.lists(st.integers(1, 29), max_size=4))
def test_streaming_any_split_equals_one_pass(problem, cuts):
    Y, P, kw = problem
    want, exc, _ = run(fm.log_loss, Y, P, **kw)
    want_d2, exc_d2, _ = run(fm.d2_log_loss_score, Y, P, **kw)
    w = kw.get("sample_weight")
    n = Y.shape[0]
    bounds = [0, *sorted({c for c in cuts if c < n}), n]
    acc = ProbabilityAccumulator()
    for i, j in zip(bounds[:-1], bounds[1:]):
        acc.update(Y[i:j], P[i:j], None if w is None else w[i:j])
    got, gexc, _ = run(acc.log_loss)
    assert (gexc is None) == (exc is None), (gexc, exc)
    if exc is None:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-300)
    got_d2, gexc_d2, _ = run(acc.d2_log_loss_score)
    assert (gexc_d2 is None) == (exc_d2 is None), (gexc_d2, exc_d2)
    if exc_d2 is None:
        assert got_d2 == pytest.approx(want_d2, rel=1e-11, abs=1e-12, nan_ok=True)
    back = load_state(acc.state.to_dict())
    assert isinstance(back, ProbabilityState) and back.multilabel
    np.testing.assert_array_equal(back.class_weight, acc.state.class_weight)


def test_errors_as_sklearn():
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    P = np.full((3, 3), 1 / 3)
    for f in (sk_log_loss, fm.log_loss):
        with pytest.raises(ValueError, match="not fitted with multilabel input"):
            f(Y, P, labels=[0, 1, 2])
        with pytest.raises(ValueError, match="different number of classes: 3 vs 2"):
            f(Y, P[:, :2])
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            f(Y, P[:2])
        with pytest.raises(ValueError, match="greater than 1"):
            f(Y, P * 4)
    for f in (sk_d2, fm.d2_log_loss_score):
        with pytest.raises(ZeroDivisionError):
            f(np.zeros((3, 3), int), P)
    with pytest.raises(ValueError, match="Multioutput target data"):
        fm.log_loss(np.array([[0, 1], [2, 1]]), np.full((2, 2), 0.5))


def test_layouts_and_threads():
    rng = np.random.default_rng(1)
    n, L = 600_000, 4
    Y = rng.integers(0, 2, (n, L))
    P = np.asfortranarray(rng.random((n, L)))
    w = rng.random(n)
    got = {t: fm.log_loss(Y, P, sample_weight=w, n_threads=t) for t in (1, 2, 3)}
    assert len(set(got.values())) == 1, got
    assert got[1] == pytest.approx(sk_log_loss(Y, P, sample_weight=w), rel=1e-12)
    P32 = P[:2000].astype(np.float32)
    assert fm.log_loss(Y[:2000], P32) == pytest.approx(sk_log_loss(Y[:2000], P32), rel=1e-5)


def test_accumulator_refuses_mixing_and_labels():
    acc = ProbabilityAccumulator().update(np.array([[1, 0], [0, 1]]), [[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(ValueError, match="multilabel"):
        acc.update([0, 1], [[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(ValueError, match="not fitted with multilabel input"):
        ProbabilityAccumulator(labels=[0, 1]).update(np.array([[1, 0], [0, 1]]),
                                                     [[0.9, 0.1], [0.2, 0.8]])
    d = acc.state.to_dict()
    with pytest.raises(StateError):
        load_state(dict(d, classes=np.array([1, 2])))


def test_dask_equals_one_shot():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    fmd = pytest.importorskip("fastmetrics.dask")
    rng = np.random.default_rng(2)
    Y = rng.integers(0, 2, (200, 3))
    P = rng.dirichlet(np.ones(3), 200)
    with dask.config.set(scheduler="synchronous"):
        got = fmd.log_loss(da.from_array(Y, chunks=(60, 3)), da.from_array(P, chunks=(60, 3)))
        got_d2 = fmd.d2_log_loss_score(da.from_array(Y, chunks=(60, 3)), P)
    assert got == pytest.approx(sk_log_loss(Y, P), rel=1e-12)
    assert got_d2 == pytest.approx(sk_d2(Y, P), rel=1e-12)
