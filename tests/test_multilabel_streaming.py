"""Multilabel indicator matrices streamed: ``MultilabelState(keep_rows=False)`` keeps the
per-label sums and a tally of the rows' (tp, pred, true) profiles, and every metric it
serves equals scikit-learn's on the concatenated chunks, however they were split, merged,
exported or pickled. What needs the rows is refused with a message that says so."""

from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastmetrics.states import MultilabelState, StateError
from fastmetrics.streaming import ConfusionAccumulator, GroupedAccumulator

skm = pytest.importorskip("sklearn.metrics")

#: (accumulator method, scikit-learn function, keyword arguments)
METRICS = [
    ("accuracy_score", skm.accuracy_score, {}),
    ("zero_one_loss", skm.zero_one_loss, {}),
    ("hamming_loss", skm.hamming_loss, {}),
    *[(m, getattr(skm, m), {"average": a, "zero_division": z})
      for m in ("f1_score", "precision_score", "recall_score")
      for a in ("samples", "micro", "macro", "weighted") for z in (0, 1)],
    ("fbeta_score", skm.fbeta_score, {"average": "samples", "beta": 0.5,
                                      "zero_division": 0}),
    *[("jaccard_score", skm.jaccard_score, {"average": a, "zero_division": z})
      for a in ("samples", "micro", "macro") for z in (0, 1)],
]


@st.composite
def problems(draw):
    n = draw(st.integers(1, 40))
    n_labels = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    density = draw(st.sampled_from([0.05, 0.5, 0.95]))
    yt = (rng.random((n, n_labels)) < density).astype(
        draw(st.sampled_from([np.int8, np.int64, np.uint8, bool])))
    yp = (rng.random((n, n_labels)) < density).astype(np.int64)
    kind = draw(st.sampled_from(["none", "int", "float"]))
    w = None if kind == "none" else rng.integers(1, 5, n).astype(np.float64) \
        if kind == "int" else rng.random(n) + 0.01
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, n - 1)), max_size=4))))
    return yt, yp, w, [0, *[c for c in cuts if c < n], n]


def _sk(fn, yt, yp, w, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(yt, yp, sample_weight=w, **kw)


def _ours(acc, method, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(acc, method)(**kw)


@settings(max_examples=150, deadline=None)
@given(problems())
def test_streamed_metrics_equal_sklearn_for_any_split(problem):
    yt, yp, w, bounds = problem
    acc = ConfusionAccumulator()
    for a, b in zip(bounds[:-1], bounds[1:]):
        acc.update(yt[a:b], yp[a:b], None if w is None else w[a:b])
    copies = [acc, pickle.loads(pickle.dumps(acc)),
              ConfusionAccumulator.from_dict(json.loads(json.dumps(acc.to_dict(as_lists=True))))]
    for method, fn, kw in METRICS:
        want = _sk(fn, yt, yp, w, kw)
        for c in copies:
            got = _ours(c, method, kw)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), (method, kw)


@settings(max_examples=100, deadline=None)
@given(problems())
def test_states_with_and_without_rows_merge_to_the_same_values(problem):
    """Chunks kept with their rows or without, merged in any order: the profiles of the
    whole, and every served metric, are the one-pass state's."""
    yt, yp, w, bounds = problem
    parts = [MultilabelState.from_arrays(yt[a:b], yp[a:b], None if w is None else w[a:b],
                                         keep_rows=bool(i % 2))
             for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    merged = MultilabelState.merge_all(parts[::-1]).without_rows()
    whole = MultilabelState.from_arrays(yt, yp, w, keep_rows=False)
    assert np.array_equal(merged.profiles, whole.profiles)
    if w is None:
        assert np.array_equal(merged.profile_weights, whole.profile_weights)
        assert np.array_equal(merged.tp, whole.tp) and merged.exact == whole.exact
    else:
        np.testing.assert_allclose(merged.profile_weights, whole.profile_weights, rtol=1e-12)
    assert merged.n_samples == whole.n_samples == yt.shape[0]


def test_profiles_decode_to_each_rows_counts():
    yt = np.array([[1, 0, 1], [0, 0, 0], [1, 0, 1], [1, 1, 0]])
    yp = np.array([[1, 1, 0], [0, 0, 0], [1, 1, 0], [0, 1, 0]])
    st = MultilabelState.from_arrays(yt, yp, keep_rows=False)
    tp, pred, true, weights = st.samples(np.arange(3))
    rows = sorted(zip(tp.tolist(), pred.tolist(), true.tolist(), weights.tolist()))
    assert rows == [(0, 0, 0, 1), (1, 1, 2, 1), (1, 2, 2, 2)]


def test_wide_matrices_tally_by_sorting():
    """Past a million possible profiles the tally sorts instead of counting densely."""
    rng = np.random.default_rng(0)
    yt = (rng.random((500, 120)) < 0.1).astype(np.int8)
    yp = (rng.random((500, 120)) < 0.1).astype(np.int8)
    w = rng.random(500)
    st = MultilabelState.from_arrays(yt, yp, w, keep_rows=False)
    assert (121 ** 3) > (1 << 20)
    for fn, kw in [(skm.f1_score, {"average": "samples", "zero_division": 0}),
                   (skm.jaccard_score, {"average": "samples", "zero_division": 1})]:
        acc = ConfusionAccumulator().update(yt, yp, w)
        name = fn.__name__
        assert getattr(acc, name)(**kw) == pytest.approx(fn(yt, yp, sample_weight=w, **kw),
                                                         rel=1e-12)
    assert st.profile_weights.sum() == pytest.approx(w.sum(), rel=1e-12)


def test_grouped_indicators_equal_sklearn_per_group():
    rng = np.random.default_rng(1)
    n = 3_000
    yt = (rng.random((n, 4)) < 0.3).astype(np.int64)
    yp = (rng.random((n, 4)) < 0.3).astype(np.int64)
    g = rng.choice(["a", "b", "c", "d"], n)
    w = rng.random(n)
    acc = GroupedAccumulator("confusion")
    for i in range(0, n, 700):
        acc.update(yt[i:i + 700], yp[i:i + 700], groups=g[i:i + 700],
                   sample_weight=w[i:i + 700])
    got = acc.metric("f1_score", average="samples", zero_division=0)
    hl = acc.metric("hamming_loss")
    for k in "abcd":
        m = g == k
        assert got[k] == pytest.approx(skm.f1_score(yt[m], yp[m], average="samples",
                                                    sample_weight=w[m], zero_division=0),
                                       rel=1e-12)
        assert hl[k] == pytest.approx(skm.hamming_loss(yt[m], yp[m], sample_weight=w[m]),
                                      rel=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda a: a.multilabel_confusion_matrix(samplewise=True), "per-sample matrices"),
    (lambda a: a.f1_score(average="samples", labels=[0, 2]), "subset of the labels"),
    (lambda a: a.result(), "report card of 1-D labels"),
    (lambda a: a.confusion_matrix(), "multilabel-indicator is not supported"),
    (lambda a: a.matthews_corrcoef(), "multilabel-indicator is not supported"),
    (lambda a: a.update([0, 1, 1], [0, 1, 0]), "the same for every chunk"),
    (lambda a: a.update(np.ones((2, 3)), np.full((2, 3), 2)), "other than 0 and 1"),
])
def test_what_needs_the_rows_or_1d_labels_is_refused(call, match):
    a = ConfusionAccumulator().update(np.eye(3, dtype=int), np.eye(3, dtype=int)[::-1])
    with pytest.raises(ValueError, match=match):
        call(a)
    assert a.n_samples == 3  # a refused chunk adds nothing


def test_per_label_metrics_still_take_a_subset_of_labels():
    rng = np.random.default_rng(2)
    yt, yp = rng.integers(0, 2, (200, 4)), rng.integers(0, 2, (200, 4))
    a = ConfusionAccumulator().update(yt, yp)
    assert a.f1_score(average="macro", labels=[0, 2]) == pytest.approx(
        skm.f1_score(yt, yp, average="macro", labels=[0, 2]), rel=1e-12)
    np.testing.assert_array_equal(a.multilabel_confusion_matrix(),
                                  skm.multilabel_confusion_matrix(yt, yp))


def test_labels_first_then_indicators_and_fixed_labels_are_refused():
    with pytest.raises(ValueError, match="the same for every chunk"):
        ConfusionAccumulator().update([0, 1], [1, 1]).update(np.eye(2), np.eye(2))
    with pytest.raises(ValueError, match="labels= fixes 1-D labels"):
        ConfusionAccumulator(labels=[0, 1]).update(np.eye(2), np.eye(2))


@pytest.mark.parametrize("edit, match", [
    (lambda d: d.update(profiles=d["profiles"][::-1]), "distinct sorted codes"),
    (lambda d: d.update(profile_weights=d["profile_weights"] + 1), "disagree"),
    (lambda d: d.update(tp=d["tp"] + 1), "disagree"),
    (lambda d: d.update(n_labels=0), "n_labels"),
    (lambda d: d.update(profiles=np.array([10**6, 10**7])), "shape|distinct"),
])
def test_bad_exported_states_are_refused(edit, match):
    st = MultilabelState.from_arrays(np.array([[1, 0], [0, 1], [1, 1]]),
                                     np.array([[1, 1], [0, 1], [0, 0]]), keep_rows=False)
    d = st.to_dict()
    assert MultilabelState.from_dict(d).profiles.tolist() == st.profiles.tolist()
    edit(d)
    with pytest.raises(StateError, match=match):
        MultilabelState.from_dict(d)
