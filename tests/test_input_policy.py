"""The one input policy (fastmetrics._inputs): the cases where fastmetrics once gave another
number or another error than scikit-learn, each compared live with scikit-learn, and the
shared validation messages in scikit-learn's wording."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics.streaming import ConfusionAccumulator

CLASSIFICATION = ["accuracy_score", "balanced_accuracy_score", "cohen_kappa_score",
                  "confusion_matrix", "f1_score", "fbeta_score", "matthews_corrcoef",
                  "multilabel_confusion_matrix", "precision_recall_fscore_support",
                  "precision_score", "recall_score", "classification_report"]
KW = {"fbeta_score": {"beta": 2.0}}


def _both(name, *args, **kw):
    """(fastmetrics' result or exception, scikit-learn's result or exception)."""
    out = []
    for mod in (fm, skm):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(getattr(mod, name)(*args, **kw))
            except Exception as exc:  # noqa: BLE001 - compared below
                out.append(exc)
    return out


def _same(a, b):
    if isinstance(b, Exception):
        assert isinstance(a, Exception), f"scikit-learn raised {b!r}, fastmetrics gave {a!r}"
        return
    assert not isinstance(a, Exception), f"fastmetrics raised {a!r}, scikit-learn gave {b!r}"
    if isinstance(b, str):
        assert a == b
    elif isinstance(b, dict):
        assert a.keys() == b.keys()
        for k in b:
            _same(a[k], b[k])
    elif isinstance(b, tuple):
        for x, y in zip(a, b):
            _same(x, y)
    else:
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12)
        if isinstance(b, np.ndarray):
            assert np.asarray(a).dtype == b.dtype


# ----------------------------------------------------------------------------- labels=

@pytest.mark.parametrize("name, kw", [
    ("confusion_matrix", {"labels": [0, 1, 1]}),  # duplicate: the last one takes the counts
    ("cohen_kappa_score", {"labels": [0, 1, 1]}),
    ("precision_recall_fscore_support", {"labels": [0, 1, 1]}),
    ("f1_score", {"labels": ["0", "1"], "average": "macro"}),  # another type than the data
    ("f1_score", {"labels": ["0", "1"], "average": None}),
    ("f1_score", {"labels": [1.0, 0.0], "average": None}),
    ("confusion_matrix", {"labels": ["0", "1"]}),
    ("confusion_matrix", {"labels": np.array([0, 1, 2], dtype=object)}),
    ("confusion_matrix", {"labels": [2, 0]}),
    ("recall_score", {"labels": [0, 1, 7], "average": "macro"}),
    ("classification_report", {"labels": [0, 1, 5], "output_dict": True}),
])
def test_requested_labels_as_scikit_learn(name, kw):
    y_true, y_pred = [0, 1, 1, 0, 1], [0, 1, 0, 0, 1]
    _same(*_both(name, y_true, y_pred, **kw))


def test_object_labels_and_string_data():
    _same(*_both("confusion_matrix", [0, 1], [1, 0], labels=np.array([0, 1, 2], dtype=object)))
    _same(*_both("f1_score", ["a", "b", "a"], ["a", "a", "b"], labels=["a", "b", 3],
                 average=None))


# ----------------------------------------------------------------------------- big labels

@pytest.mark.parametrize("name", CLASSIFICATION)
def test_weighted_uint64_labels_beyond_int64(name):
    y = np.array([2**63 + 1, 2**63 + 2, 2**63 + 1, 2**63 + 7], dtype=np.uint64)
    kw = dict(KW.get(name, {}))
    if name in ("f1_score", "fbeta_score", "precision_score", "recall_score"):
        kw["average"] = "macro"
    _same(*_both(name, y, y[::-1], sample_weight=[1.0, 2.0, 3.0, 0.5], **kw))


def test_streamed_labels_of_two_integer_types_never_collapse():
    a = ConfusionAccumulator().update(np.array([2**60, 2**60 + 1]), np.array([2**60, 2**60 + 1]))
    a.update(np.uint64([7]), np.uint64([7]))
    assert a.n_samples == 3 and a.confusion_matrix().sum() == 3
    assert a.confusion_matrix().shape == (3, 3)
    b = ConfusionAccumulator().update(np.array([1, 2]), np.array([1, 2]))
    c = ConfusionAccumulator().update(np.uint64([2**63 + 5]), np.uint64([2**63 + 5]))
    m = b + c
    assert m.n_samples == 3 and np.trace(m.confusion_matrix()) == 3
    with pytest.raises(ValueError, match="no integer type"):
        ConfusionAccumulator().update(np.array([-1]), np.array([-1])) + c


def test_integer_weights_sum_in_int64_as_scikit_learn():
    y = [0, 1, 1]
    for w in (np.full(3, 4294967295, dtype=np.uint32), np.full(3, 2**63 - 1, dtype=np.int64),
              np.array([True, False, True])):
        _same(*_both("confusion_matrix", y, y, sample_weight=w))
    got = fm.multilabel_confusion_matrix([[0, 1], [1, 1]], [[1, 1], [1, 0]],
                                         sample_weight=[2, 1], samplewise=True)
    want = skm.multilabel_confusion_matrix([[0, 1], [1, 1]], [[1, 1], [1, 0]],
                                           sample_weight=[2, 1], samplewise=True)
    assert got.dtype == want.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    text = fm.classification_report([[0, 1], [1, 1]], [[1, 1], [1, 0]], sample_weight=[2, 1])
    assert text == skm.classification_report([[0, 1], [1, 1]], [[1, 1], [1, 0]],
                                              sample_weight=[2, 1])


# ----------------------------------------------------------------------------- messages

def _match_both(name, args, kw, pattern):
    got, want = _both(name, *args, **kw)
    assert isinstance(want, Exception) and re.search(pattern, str(want)), want
    assert isinstance(got, type(want)) or isinstance(got, ValueError), got
    assert re.search(pattern, str(got)), (pattern, str(got))


@pytest.mark.parametrize("name", CLASSIFICATION)
@pytest.mark.parametrize("y_true, y_pred, pattern", [
    ([0, 1], [np.nan, 1.0], r"Input y_pred contains NaN"),
    ([0, 1], [np.inf, 1.0], r"Input y_pred contains infinity or a value too large"),
    ([np.nan, 1.0, 2.0], [1, 2, 3], r"Input y_true contains NaN"),
    ([0, 1, 1], [0.5, 1.0, 0.0], r"Classification metrics can't handle a mix of binary and "
                                 r"continuous targets"),
])
def test_label_messages(name, y_true, y_pred, pattern):
    _match_both(name, (y_true, y_pred), KW.get(name, {}), pattern)


@pytest.mark.parametrize("name", CLASSIFICATION)
@pytest.mark.parametrize("weights, pattern", [
    (np.ones(19), r"Found input variables with inconsistent numbers of samples: \[20, 20, 19\]"),
    (np.r_[np.inf, np.ones(19)], r"Input sample_weight contains infinity"),
    (np.r_[np.nan, np.ones(19)], r"Input sample_weight contains NaN"),
    (np.ones(20, dtype=complex), r"Complex data not supported"),
    (np.ones((20, 2)), r"Sample weights must be 1D array or scalar"),
    (np.zeros(20), r"Sample weights must contain at least one non-zero number"),
])
def test_sample_weight_messages(name, weights, pattern):
    rng = np.random.default_rng(0)
    y_true, y_pred = rng.integers(0, 2, 20), rng.integers(0, 2, 20)
    got, want = _both(name, y_true, y_pred, sample_weight=weights, **KW.get(name, {}))
    assert re.search(pattern, str(want)), want
    assert isinstance(got, Exception) and re.search(pattern, str(got)), (pattern, got)


def test_scalar_weights_are_refused_as_scikit_learn_refuses_them():
    for name in ("accuracy_score", "f1_score", "confusion_matrix"):
        got, want = _both(name, [0, 1], [0, 1], sample_weight=2.0)
        assert isinstance(want, ValueError) and isinstance(want, TypeError)
        assert isinstance(got, ValueError) and isinstance(got, TypeError)
        assert "sample_weight" in str(got)


@pytest.mark.parametrize("name", ["accuracy_score", "f1_score", "precision_recall_fscore_support",
                                  "multilabel_confusion_matrix", "recall_score"])
@pytest.mark.parametrize("y", [[[]], [()], np.array([[], [1, 2]], dtype=object)],
                         ids=["empty-list", "empty-tuple", "object-sequences"])
def test_legacy_multilabel_sequences_raise_value_error(name, y):
    got, want = _both(name, y, y)
    assert isinstance(want, ValueError)
    assert isinstance(got, ValueError), got


def test_pos_label_message_prints_the_labels_as_scikit_learn():
    _match_both("f1_score", (["spam", "eggs", "spam"], ["spam", "spam", "eggs"]), {},
                re.escape("pos_label=1 is not a valid label. It should be one of ['eggs' 'spam']"))


def test_sparse_multilabel_indicators():
    sp = pytest.importorskip("scipy.sparse")
    yt = np.array([[0, 1, 1], [1, 0, 1]])
    yp = np.array([[0, 0, 1], [1, 1, 1]])
    for f in ("multilabel_confusion_matrix", "f1_score", "accuracy_score"):
        kw = {"average": "macro"} if f == "f1_score" else {}
        _same(getattr(fm, f)(sp.csr_matrix(yt), sp.csc_matrix(yp), **kw),
              getattr(skm, f)(sp.csr_matrix(yt), sp.csc_matrix(yp), **kw))


@pytest.mark.parametrize("frame", ["polars", "pandas"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["max_error", "mean_squared_error", "mean_absolute_error",
                                  "r2_score", "explained_variance_score",
                                  "median_absolute_error", "mean_pinball_loss"])
def test_regression_targets_as_data_frame_columns(frame, dtype, name):
    """Regression inputs given as polars / pandas columns (their dtypes are not numpy's)
    score as the same values in numpy, and as scikit-learn scores them."""
    rng = np.random.default_rng(7)
    yt = rng.normal(size=50).astype(dtype)
    yp = (yt + rng.normal(scale=0.3, size=50)).astype(dtype)
    if frame == "polars":
        pl = pytest.importorskip("polars")
        ct, cp = pl.Series(yt), pl.Series(yp)
    else:
        pd = pytest.importorskip("pandas")
        ct, cp = pd.Series(yt, dtype=dtype.capitalize()), pd.Series(yp, dtype=dtype.capitalize())
    ours = getattr(fm, name)(ct, cp)
    assert ours == getattr(fm, name)(yt, yp)
    # scikit-learn sums float32 inputs in float32 (we sum in float64): 1e-6 there
    rel = 1e-12 if dtype == "float64" else 1e-6
    assert ours == pytest.approx(getattr(skm, name)(yt, yp), rel=rel, abs=1e-15)
