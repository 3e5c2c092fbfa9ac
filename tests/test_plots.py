"""The plot functions hand scikit-learn's displays the same numbers its ``from_predictions``
computes (1e-12), refuse what it refuses, and name the ``plot`` extra when matplotlib or
scikit-learn is missing."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn import metrics as skm  # noqa: E402

import fastmetrics as fm  # noqa: E402

RTOL = 1e-12


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=RTOL, atol=0)


def _data(seed, n=500, ties=False, labels=(0, 1)):
    rng = np.random.default_rng(seed)
    y = np.asarray(labels)[rng.integers(0, 2, n)]
    s = rng.random(n)
    if ties:
        s = np.round(s, 1)
    w = rng.random(n) * 3
    return y, s, w


CASES = [
    dict(),
    dict(ties=True),
    dict(weighted=True),
    dict(ties=True, weighted=True, drop_intermediate=False),
    dict(labels=("neg", "pos"), pos_label="pos"),
    dict(labels=(-1, 1)),
    dict(labels=(3, 7), pos_label=3, drop_intermediate=True),
]


def _args(case, seed):
    case = dict(case)
    y, s, w = _data(seed, ties=case.pop("ties", False), labels=case.pop("labels", (0, 1)))
    kw = {"sample_weight": w} if case.pop("weighted", False) else {}
    kw.update(case)
    return y, s, kw


@pytest.mark.parametrize("case", CASES)
def test_roc_matches_sklearn_display(case):
    y, s, kw = _args(case, 0)
    ours = fm.plot_roc_curve(y, s, name="m", **kw)
    ref = skm.RocCurveDisplay.from_predictions(y, s, name="m", **kw)
    assert isinstance(ours, skm.RocCurveDisplay)
    _close(ours.fpr, ref.fpr)
    _close(ours.tpr, ref.tpr)
    _close(ours.roc_auc, ref.roc_auc)
    _close(ours.roc_auc, fm.roc_auc_score(y == ours.pos_label, s,
                                          sample_weight=kw.get("sample_weight")))
    assert ours.pos_label == ref.pos_label and ours.name == ref.name
    assert ours.line_.get_label() == ref.line_.get_label()
    assert ours.ax_.get_xlabel() == ref.ax_.get_xlabel()


@pytest.mark.parametrize("case", CASES)
def test_precision_recall_matches_sklearn_display(case):
    y, s, kw = _args(case, 1)
    ours = fm.plot_precision_recall_curve(y, s, plot_chance_level=True, **kw)
    ref = skm.PrecisionRecallDisplay.from_predictions(y, s, plot_chance_level=True, **kw)
    assert isinstance(ours, skm.PrecisionRecallDisplay)
    _close(ours.precision, ref.precision)
    _close(ours.recall, ref.recall)
    _close(ours.average_precision, ref.average_precision)
    _close(ours.prevalence_pos_label, ref.prevalence_pos_label)
    assert ours.pos_label == ref.pos_label and ours.name == ref.name
    assert ours.line_.get_label() == ref.line_.get_label()
    assert ours.chance_level_.get_label() == ref.chance_level_.get_label()


@pytest.mark.parametrize("case", CASES)
def test_det_matches_sklearn_display(case):
    y, s, kw = _args(case, 2)
    ours = fm.plot_det_curve(y, s, name="m", **kw)
    ref = skm.DetCurveDisplay.from_predictions(y, s, name="m", **kw)
    assert isinstance(ours, skm.DetCurveDisplay)
    _close(ours.fpr, ref.fpr)
    _close(ours.fnr, ref.fnr)
    assert ours.pos_label == ref.pos_label
    _close(ours.line_.get_xdata(), ref.line_.get_xdata())
    _close(ours.line_.get_ydata(), ref.line_.get_ydata())


@pytest.mark.parametrize("kw", [
    dict(),
    dict(normalize="true"),
    dict(normalize="all", weighted=True),
    dict(labels=["c", "a"]),
    dict(labels=["c", "a", "b"], display_labels=["C", "A", "B"], normalize="pred"),
])
def test_confusion_matrix_matches_sklearn_display(kw):
    rng = np.random.default_rng(3)
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, 300)]
    p = np.array(["a", "b", "c"])[rng.integers(0, 3, 300)]
    kw = dict(kw)
    if kw.pop("weighted", False):
        kw["sample_weight"] = rng.random(300)
    ours = fm.plot_confusion_matrix(y, p, **kw)
    ref = skm.ConfusionMatrixDisplay.from_predictions(y, p, **kw)
    assert isinstance(ours, skm.ConfusionMatrixDisplay)
    assert ours.confusion_matrix.dtype == ref.confusion_matrix.dtype
    _close(ours.confusion_matrix, ref.confusion_matrix)
    assert list(ours.display_labels) == list(ref.display_labels)
    assert ([t.get_text() for t in ours.text_.ravel()]
            == [t.get_text() for t in ref.text_.ravel()])


def test_confusion_matrix_int_labels_and_existing_axes():
    fig, ax = plt.subplots()
    y, p = [2, 0, 2, 2, 0, 1], [0, 0, 2, 2, 0, 2]
    ours = fm.plot_confusion_matrix(y, p, ax=ax, colorbar=False)
    ref = skm.ConfusionMatrixDisplay.from_predictions(y, p, colorbar=False)
    assert ours.ax_ is ax and ours.figure_ is fig
    np.testing.assert_array_equal(ours.confusion_matrix, ref.confusion_matrix)
    assert list(ours.display_labels) == list(ref.display_labels)


def test_curves_share_one_axes():
    y, s, _ = _data(4)
    fig, ax = plt.subplots()
    a = fm.plot_roc_curve(y, s, ax=ax, name="first")
    b = fm.plot_roc_curve(y, 1 - s, ax=ax, name="second")
    assert a.ax_ is b.ax_ is ax
    assert len(ax.get_lines()) == 2


@pytest.mark.parametrize("fn, sk", [
    (fm.plot_roc_curve, skm.RocCurveDisplay),
    (fm.plot_precision_recall_curve, skm.PrecisionRecallDisplay),
    (fm.plot_det_curve, skm.DetCurveDisplay),
])
def test_curve_bad_input_errors(fn, sk):
    y3 = np.array([0, 1, 2, 1])
    s = np.array([0.1, 0.4, 0.35, 0.8])
    for args, kw in [((y3, s), {}), ((y3, s), {"pos_label": 1}),
                     ((np.array(["a", "b", "a", "b"]), s), {})]:
        with pytest.raises(ValueError) as ref:
            sk.from_predictions(*args, **kw)
        with pytest.raises(ValueError) as ours:
            fn(*args, **kw)
        assert str(ours.value) == str(ref.value)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fn([0, 1, 1], [0.1, 0.2])
    with pytest.raises(ValueError):
        fn([0, 1, 1], [0.1, np.nan, 0.3])


@pytest.mark.parametrize("fn, sk", [
    (fm.plot_roc_curve, skm.RocCurveDisplay),
    (fm.plot_precision_recall_curve, skm.PrecisionRecallDisplay),
    (fm.plot_det_curve, skm.DetCurveDisplay),
])
@pytest.mark.parametrize("y", [[0, 0, 0], [1, 1, 1]])
def test_one_class_warns_or_raises_as_sklearn(fn, sk, y):
    s = [0.1, 0.2, 0.3]
    outcomes = []
    for f in (sk.from_predictions, fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                f(y, s)
                error = None
            except ValueError as exc:
                error = str(exc)
        outcomes.append((error, [(w.category, str(w.message)) for w in caught]))
    assert outcomes[1] == outcomes[0]


def test_confusion_matrix_bad_input_errors():
    with pytest.raises(ValueError, match="multilabel-indicator is not supported"):
        fm.plot_confusion_matrix(np.eye(3, dtype=int), np.eye(3, dtype=int))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.plot_confusion_matrix([0, 1, 1], [0, 1])
    with pytest.raises(ValueError):
        fm.plot_confusion_matrix([0, 1], [0, 1], normalize="rows")


@pytest.mark.parametrize("missing", ["matplotlib", "sklearn"])
def test_missing_extra_names_it(monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # import of it now raises ImportError
    for fn, args in [(fm.plot_roc_curve, ([0, 1], [0.2, 0.8])),
                     (fm.plot_confusion_matrix, ([0, 1], [0, 1]))]:
        with pytest.raises(ImportError, match=r"fastmetrics-kernels\[plot\]"):
            fn(*args)


def test_inputs_not_modified():
    y, s, w = _data(5)
    copies = [a.copy() for a in (y, s, w)]
    fm.plot_roc_curve(y, s, sample_weight=w)
    fm.plot_precision_recall_curve(y, s, sample_weight=w)
    fm.plot_det_curve(y, s, sample_weight=w)
    for a, c in zip((y, s, w), copies):
        np.testing.assert_array_equal(a, c)
