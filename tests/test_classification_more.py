"""Jaccard, Hamming, zero-one, likelihood ratios, specificity and the error rates: parity
with scikit-learn (values, dtypes, warnings, errors), streaming in any split, Dask.

scikit-learn has no specificity / false positive rate / false negative rate function: those
are checked against the same ratios taken from scikit-learn's
``multilabel_confusion_matrix``, with ``recall_score``'s label checks (its errors are
expected exactly where ``recall_score`` raises) and scikit-learn's NaN-ignoring average.
"""

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics._classification import _check_set_wise_labels
from sklearn.utils.extmath import _nanaverage

import fastmetrics as fm
from fastmetrics.exceptions import UndefinedMetricWarning
from fastmetrics.streaming import ConfusionAccumulator

from _parity import assert_same, check_parity, run
from test_classification import LABEL_SETS, indicator_pairs, label_pairs

AVERAGES = [None, "binary", "micro", "macro", "weighted"]
ZERO_DIV = ["warn", 0, 1, 0.0, 1.0, np.nan]
REPLACE = [np.nan, 1.0, {"LR+": np.inf, "LR-": 0.0}, {"LR+": 1.0, "LR-": np.nan},
           {"LR+": 3, "LR-": 1}, 2.0, 0.0, {"LR+": 0.5, "LR-": 0.0}, {"LR+": 2.0},
           {"LR+": 2.0, "LR-": 1.5}, {"LR+": "a", "LR-": 0.5}, "nan"]


def _pos_label(yt, average):
    v = yt[0] if average == "binary" else 1
    return v.item() if isinstance(v, np.generic) else v


# ----------------------------------------------------------------------------- reference

_CELLS = {  # numerator cell, denominator cells of (tn, fp, fn, tp)
    "specificity_score": (0, (0, 1)),
    "false_positive_rate": (1, (1, 0)),
    "false_negative_rate": (2, (2, 3)),
}


def _reference_rate(name, y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                    sample_weight=None, zero_division="warn"):
    """The ratio from scikit-learn's one-vs-rest tables, by ``recall_score``'s rules."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        skm.recall_score(y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
                         sample_weight=sample_weight, zero_division=zero_division)
        labels = _check_set_wise_labels(y_true, y_pred, average, labels, pos_label)
    mcm = skm.multilabel_confusion_matrix(y_true, y_pred, sample_weight=sample_weight,
                                          labels=labels, samplewise=average == "samples")
    cells = mcm.reshape(-1, 4)
    num_cell, (a, b) = _CELLS[name]
    num, den = cells[:, num_cell], cells[:, a] + cells[:, b]
    if average == "micro":
        num, den = np.array([num.sum()]), np.array([den.sum()])
    fill = 0.0 if zero_division == "warn" else float(zero_division)
    with np.errstate(all="ignore"):
        score = np.where(den == 0, fill, num / np.where(den == 0, 1, den)).astype(np.float64)
    if average is None:
        return score
    weights = None
    if average == "weighted":
        weights = cells[:, 2] + cells[:, 3]
    elif average == "samples":
        weights = sample_weight
    return float(_nanaverage(score, weights=weights))


# ----------------------------------------------------------------------------- 1-D parity


@given(label_pairs(), st.sampled_from(AVERAGES), st.sampled_from(ZERO_DIV))
def test_jaccard_parity(data, average, zero_division):
    yt, yp, w, labels = data
    check_parity(fm.jaccard_score, skm.jaccard_score, yt, yp, labels=labels,
                 pos_label=_pos_label(yt, average), average=average, sample_weight=w,
                 zero_division=zero_division)


def check_zero_one(yt, yp, normalize, w):
    """zero_one_loss is ``1 - accuracy`` (or ``total - correct``) as scikit-learn computes
    it: a difference of two rounded sums, so the two libraries (whose sums add in different
    orders) agree to rounding of the larger term, not relatively when the loss is ~0."""
    ours, oe, ow = run(fm.zero_one_loss, yt, yp, normalize=normalize, sample_weight=w)
    ref, re_, rw = run(skm.zero_one_loss, yt, yp, normalize=normalize, sample_weight=w)
    assert (oe is None) == (re_ is None), (oe, re_)
    if oe is not None:
        assert isinstance(oe, type(re_)) or isinstance(re_, type(oe)), (oe, re_)
        return
    assert isinstance(ours, float)
    scale = 1.0 if normalize else float(len(yt) if w is None else np.sum(w))
    assert abs(ours - float(ref)) <= 1e-12 * max(scale, 1.0), (ours, ref)
    assert sorted(map(str, ow)) == sorted(map(str, rw))


@given(label_pairs(), st.booleans())
def test_hamming_and_zero_one_parity(data, normalize):
    yt, yp, w, _ = data
    check_parity(fm.hamming_loss, skm.hamming_loss, yt, yp, sample_weight=w)
    check_zero_one(yt, yp, normalize, w)


@st.composite
def binary_pairs(draw):
    kind = draw(st.sampled_from(sorted(LABEL_SETS)))
    pool = draw(st.permutations(LABEL_SETS[kind]))
    k = min(len(pool), draw(st.sampled_from([1, 2, 2, 2, 3])))
    yt, yp, w, _ = draw(label_pairs())  # for the weights' and sizes' shapes
    n = len(yt)
    idx_t = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    idx_p = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    vals = np.array(pool[:k], dtype=object if kind == "strings" else None)
    yt, yp = vals[idx_t], vals[idx_p]
    if kind == "strings":
        yt, yp = yt.astype(str), yp.astype(str)
    labels = None
    if draw(st.booleans()):
        labels = draw(st.lists(st.sampled_from(list(pool)), min_size=1, max_size=3,
                               unique=True))
    return yt, yp, w, labels


@given(binary_pairs(), st.sampled_from(REPLACE))
def test_class_likelihood_ratios_parity(data, replace):
    yt, yp, w, labels = data
    check_parity(fm.class_likelihood_ratios, skm.class_likelihood_ratios, yt, yp,
                 labels=labels, sample_weight=w, replace_undefined_by=replace)


@pytest.mark.parametrize("name", sorted(_CELLS))
@given(data=label_pairs(), average=st.sampled_from(AVERAGES),
       zero_division=st.sampled_from(ZERO_DIV))
def test_rates_match_scikit_learn_tables(name, data, average, zero_division):
    yt, yp, w, labels = data
    check_parity(getattr(fm, name), lambda *a, **k: _reference_rate(name, *a, **k), yt, yp,
                 labels=labels, pos_label=_pos_label(yt, average), average=average,
                 sample_weight=w, zero_division=zero_division, warnings_too=False)


@given(label_pairs(weights=False))
def test_rates_complement_recall(data):
    """FNR = 1 - recall, FPR = 1 - specificity wherever both are defined, and binary
    specificity of one class is the recall of the other."""
    yt, yp, _, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fm.recall_score(yt, yp, average=None, zero_division=np.nan)
        fnr = fm.false_negative_rate(yt, yp, average=None, zero_division=np.nan)
        spec = fm.specificity_score(yt, yp, average=None, zero_division=np.nan)
        fpr = fm.false_positive_rate(yt, yp, average=None, zero_division=np.nan)
    np.testing.assert_allclose(fnr, 1 - r, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fpr, 1 - spec, rtol=1e-12, atol=1e-15)
    present = np.unique(np.concatenate([yt, yp]))
    if present.size == 2:
        a, b = (v.item() if isinstance(v, np.generic) else v for v in present)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same(fm.specificity_score(yt, yp, pos_label=b, zero_division=np.nan),
                        fm.recall_score(yt, yp, pos_label=a, zero_division=np.nan))


def test_rate_warnings_follow_recall():
    yt, yp = [0, 0, 0], [0, 0, 1]
    with pytest.warns(UndefinedMetricWarning,
                      match="Specificity is ill-defined and being set to 0.0 in labels "
                            "with no negative samples"):
        assert_same(fm.specificity_score(yt, yp, labels=[0, 1], average=None),
                    np.array([0.0, 2 / 3]))
    with pytest.warns(UndefinedMetricWarning,
                      match="False negative rate is ill-defined and being set to 0.0 due "
                            "to no true samples"):
        assert fm.false_negative_rate([0, 0], [0, 1]) == 0.0
    with pytest.warns(UndefinedMetricWarning,
                      match="False positive rate is ill-defined and being set to 0.0 in "
                            "samples with no negative labels"):
        fm.false_positive_rate(np.ones((2, 2), int), np.ones((2, 2), int), average="samples")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(fm.false_negative_rate([0, 0], [0, 1], zero_division=np.nan))
        assert fm.specificity_score([1, 1], [1, 0], zero_division=1) == 1.0


# ----------------------------------------------------------------------------- multilabel


@given(indicator_pairs(), st.sampled_from([None, "micro", "macro", "weighted", "samples",
                                           "binary"]), st.sampled_from(ZERO_DIV))
def test_multilabel_jaccard_parity(data, average, zero_division):
    yt, yp, w, labels = data
    check_parity(fm.jaccard_score, skm.jaccard_score, yt, yp, labels=labels, average=average,
                 sample_weight=w, zero_division=zero_division)


@given(indicator_pairs(), st.booleans(), st.booleans())
def test_multilabel_hamming_zero_one_parity(data, normalize, int_weights):
    yt, yp, w, _ = data
    if int_weights and w is not None:
        w = np.round(w).astype(np.int64)
    check_parity(fm.hamming_loss, skm.hamming_loss, yt, yp, sample_weight=w)
    check_zero_one(yt, yp, normalize, w)


@pytest.mark.parametrize("name", sorted(_CELLS))
@given(data=indicator_pairs(),
       average=st.sampled_from([None, "micro", "macro", "weighted", "samples"]),
       zero_division=st.sampled_from(ZERO_DIV))
def test_multilabel_rates(name, data, average, zero_division):
    yt, yp, w, labels = data
    check_parity(getattr(fm, name), lambda *a, **k: _reference_rate(name, *a, **k), yt, yp,
                 labels=labels, average=average, sample_weight=w,
                 zero_division=zero_division, warnings_too=False)


def test_multilabel_inputs_and_errors():
    yt = np.array([[0, 1, 1], [1, 0, 1]])
    yp = np.array([[0, 0, 1], [1, 0, 1]])
    check_parity(fm.jaccard_score, skm.jaccard_score, yt, yp, average="samples")
    check_parity(fm.jaccard_score, skm.jaccard_score, yt, yp, labels=[3], average="macro")
    check_parity(fm.jaccard_score, skm.jaccard_score, yt, yp, labels=[-1], average="macro")
    check_parity(fm.class_likelihood_ratios, skm.class_likelihood_ratios, yt, yp)
    check_parity(fm.hamming_loss, skm.hamming_loss, yt, yp[:, :2])
    check_parity(fm.zero_one_loss, skm.zero_one_loss, yt, yp[0])
    check_parity(fm.jaccard_score, skm.jaccard_score, yt.astype(bool), yp.astype(float),
                 average="micro")
    check_parity(fm.hamming_loss, skm.hamming_loss, yt, np.zeros_like(yt),
                 sample_weight=[0.0, 2.0])


# ----------------------------------------------------------------------------- edges


def test_single_class_and_missing_labels():
    for fn, ref, kw in [
        (fm.jaccard_score, skm.jaccard_score, {}),
        (fm.jaccard_score, skm.jaccard_score, {"average": "macro", "labels": [5, 6]}),
        (fm.jaccard_score, skm.jaccard_score, {"average": "weighted", "labels": [1, 9]}),
        (fm.jaccard_score, skm.jaccard_score, {"average": None, "labels": []}),
        (fm.jaccard_score, skm.jaccard_score, {"average": "samples"}),
        (fm.jaccard_score, skm.jaccard_score, {"pos_label": 7}),
        (fm.hamming_loss, skm.hamming_loss, {}),
        (fm.zero_one_loss, skm.zero_one_loss, {"normalize": False}),
        (fm.class_likelihood_ratios, skm.class_likelihood_ratios, {}),
        (fm.class_likelihood_ratios, skm.class_likelihood_ratios, {"labels": [0, 1]}),
        (fm.class_likelihood_ratios, skm.class_likelihood_ratios, {"labels": [1, 0]}),
    ]:
        for yt, yp in ([[1, 1, 1], [1, 1, 1]], [[0, 0], [0, 0]], [[1], [0]], [[0, 1], [1, 0]]):
            check_parity(fn, ref, yt, yp, **kw)


def test_likelihood_ratio_warnings_and_values():
    cases = [([1, 0, 1, 0], [1, 0, 1, 0]),   # fp == 0 and tn > 0
             ([0, 0, 0, 0], [1, 0, 1, 0]),   # no positive sample
             ([1, 1, 0, 0], [0, 0, 0, 0]),   # nothing predicted positive
             ([1, 1, 0, 0], [1, 1, 1, 1]),   # tn == 0
             ([1, 0, 1, 0, 1], [1, 1, 0, 0, 1])]
    for yt, yp in cases:
        for replace in REPLACE:
            for w in (None, [1, 2, 3, 4, 5][:len(yt)], [0.5, 1.5, 2.0, 0.25, 1.0][:len(yt)]):
                check_parity(fm.class_likelihood_ratios, skm.class_likelihood_ratios, yt, yp,
                             sample_weight=w, replace_undefined_by=replace)
    out, exc, _ = run(fm.class_likelihood_ratios, [0, 1, 2], [0, 1, 2])
    assert "only supports binary classification" in str(exc)


def test_bad_options_raise_like_scikit_learn():
    yt, yp = [0, 1, 2, 0], [0, 2, 1, 0]
    for kw in ({"average": "samples"}, {"average": "bogus"}, {"zero_division": 2},
               {"zero_division": "nan"}, {"average": "binary"}, {"zero_division": np.nan}):
        check_parity(fm.jaccard_score, skm.jaccard_score, yt, yp, **kw)
        for name in _CELLS:  # the rates raise where recall_score raises
            out = check_parity(getattr(fm, name), skm.recall_score, yt, yp,
                               warnings_too=False, **kw)
            assert out is None or kw.get("average") is None or isinstance(out, float)
    for fn in (fm.hamming_loss, fm.zero_one_loss, fm.jaccard_score, fm.specificity_score,
               fm.class_likelihood_ratios):
        with pytest.raises(ValueError, match="empty"):
            fn([], [])
        with pytest.raises(ValueError):
            fn([0, 1], [0, 1, 1])
        with pytest.raises(ValueError):
            fn([0.5, 1.0], [1.0, 0.0])
        with pytest.raises(ValueError):
            fn([0, 1], [0, 1], sample_weight=[1.0, np.nan])


def test_inputs_not_modified_and_thread_counts_agree():
    rng = np.random.default_rng(3)
    yt = rng.integers(0, 10, 300_000).astype(np.int32)
    yp = rng.integers(0, 10, 300_000).astype(np.int32)
    w = rng.random(300_000)
    copies = yt.copy(), yp.copy(), w.copy()
    for name in ("jaccard_score", "specificity_score", "false_positive_rate",
                 "false_negative_rate"):
        one = getattr(fm, name)(yt, yp, average="macro", sample_weight=w, n_threads=1)
        many = getattr(fm, name)(yt, yp, average="macro", sample_weight=w, n_threads=4)
        assert_same(one, many)
        assert_same(one, _reference_rate(name, yt, yp, average="macro", sample_weight=w)
                    if name != "jaccard_score" else
                    skm.jaccard_score(yt, yp, average="macro", sample_weight=w))
    for name in ("hamming_loss", "zero_one_loss"):
        assert_same(getattr(fm, name)(yt, yp, n_threads=1),
                    getattr(fm, name)(yt, yp, n_threads=3))
        assert_same(getattr(fm, name)(yt, yp, sample_weight=w),
                    getattr(skm, name)(yt, yp, sample_weight=w))
    b = (yt > 4).astype(np.int8), (yp > 3).astype(np.int8)
    assert_same(fm.class_likelihood_ratios(*b, sample_weight=w, n_threads=2),
                skm.class_likelihood_ratios(*b, sample_weight=w))
    for a, c in zip((yt, yp, w), copies):
        np.testing.assert_array_equal(a, c)


# ----------------------------------------------------------------------------- streaming


def _chunks(n, cuts):
    bounds = [0, *sorted(cuts), n]
    return list(zip(bounds[:-1], bounds[1:]))


CALLS = [
    ("jaccard_score", {"average": "macro"}), ("jaccard_score", {"average": "weighted"}),
    ("jaccard_score", {"average": None, "labels": [0, 3, 9]}),
    ("jaccard_score", {"average": "micro"}),
    ("hamming_loss", {}), ("zero_one_loss", {}), ("zero_one_loss", {"normalize": False}),
    ("specificity_score", {"average": "macro"}), ("false_positive_rate", {"average": None}),
    ("false_negative_rate", {"average": "weighted", "zero_division": np.nan}),
]


@settings(max_examples=60)
@given(st.integers(1, 80).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
    st.lists(st.integers(0, n), max_size=5),
    st.booleans())))
def test_streaming_any_split_equals_one_shot(data):
    yt, yp, cuts, weighted = data
    yt, yp = np.array(yt), np.array(yp)
    w = np.arange(1, len(yt) + 1) * 0.25 if weighted else None
    acc = ConfusionAccumulator()
    for a, b in _chunks(len(yt), cuts):
        acc.update(yt[a:b], yp[a:b], None if w is None else w[a:b])
    for name, kw in CALLS:
        want = run(getattr(fm, name), yt, yp, sample_weight=w, **kw)
        got = run(getattr(acc, name), **kw)
        assert (want[1] is None) == (got[1] is None), (name, want, got)
        if want[1] is None:
            assert_same(got[0], want[0])
            assert sorted(map(str, got[2])) == sorted(map(str, want[2]))
    b = (yt > 1).astype(np.int64), (yp > 2).astype(np.int64)
    acc = ConfusionAccumulator()
    for a, c in _chunks(len(yt), cuts):
        acc.update(b[0][a:c], b[1][a:c], None if w is None else w[a:c])
    want = run(fm.class_likelihood_ratios, *b, sample_weight=w)
    got = run(acc.class_likelihood_ratios)
    assert (want[1] is None) == (got[1] is None)
    if want[1] is None:
        assert_same(got[0], want[0])


def test_dask_equals_one_shot():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    fmd = pytest.importorskip("fastmetrics.dask")
    rng = np.random.default_rng(11)
    yt = rng.integers(0, 6, 5000)
    yp = rng.integers(0, 6, 5000)
    w = rng.random(5000)
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for name, kw in CALLS:
            want = getattr(fm, name)(yt, yp, sample_weight=w, **kw)
            got = getattr(fmd, name)(da.from_array(yt, chunks=777), da.from_array(yp, chunks=900),
                                     sample_weight=da.from_array(w, chunks=777), **kw)
            assert_same(got, want)
        b = (yt > 2), (yp > 3)
        assert_same(fmd.class_likelihood_ratios(da.from_array(b[0], chunks=1000), b[1]),
                    fm.class_likelihood_ratios(*b))


def test_accumulator_with_declared_labels():
    acc = ConfusionAccumulator(labels=[0, 1, 2, 3])
    acc.update([0, 1, 1], [0, 1, 0])
    for name in ("jaccard_score", "class_likelihood_ratios"):
        check_parity(getattr(acc, name), lambda f=getattr(skm, name): f([0, 1, 1], [0, 1, 0]))
