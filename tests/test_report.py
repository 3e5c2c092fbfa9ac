"""The report card (score, OOS metrics, markdown row) against scikit-learn and plain numpy."""

from dataclasses import dataclass

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

import fastmetrics as fm


@st.composite
def cards(draw):
    n = draw(st.integers(1, 80))
    pool = draw(st.sampled_from([[0, 1, 2, 3], [-1, 0, 1], ["billing", "oos", "tech"]]))
    yt = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    yp = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    labels = None
    if draw(st.booleans()):
        labels = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
    oos = draw(st.sampled_from(pool + [None]))
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0.5, 3), min_size=n, max_size=n)))
    return yt, yp, labels, oos, w


def _oos_reference(yt, yp, oos, w):
    w = np.ones(len(yt)) if w is None else w
    tp = w[(yt == oos) & (yp == oos)].sum()
    true_oos = w[yt == oos].sum()
    pred_oos = w[yp == oos].sum()
    return (tp / true_oos if true_oos else 0.0), (tp / pred_oos if pred_oos else 0.0)


@given(cards())
@pytest.mark.filterwarnings("ignore::UserWarning")  # sklearn's single-label notice
def test_score_matches_sklearn(case):
    yt, yp, labels, oos, w = case
    m = fm.score(yt, yp, labels=labels, oos_label=oos, sample_weight=w)
    lab = sorted(set(yt.tolist()) | set(yp.tolist())) if labels is None else labels
    kw = dict(labels=lab, zero_division=0, sample_weight=w)
    assert m.labels == lab
    assert m.n_examples == len(yt)
    np.testing.assert_allclose(m.accuracy, skm.accuracy_score(yt, yp, sample_weight=w), rtol=1e-12)
    for avg, got in [("macro", m.macro_f1), ("weighted", m.weighted_f1), ("micro", m.micro_f1)]:
        np.testing.assert_allclose(got, skm.f1_score(yt, yp, average=avg, **kw), rtol=1e-12)
    p, r, f, s = skm.precision_recall_fscore_support(yt, yp, **kw)
    for i, lab_i in enumerate(lab):
        pc = m.per_class[lab_i]
        np.testing.assert_allclose([pc.precision, pc.recall, pc.f1], [p[i], r[i], f[i]], rtol=1e-12)
        assert pc.support == pytest.approx(s[i], rel=1e-12)
    if w is None and set(lab) & set(yt.tolist()):
        np.testing.assert_array_equal(m.confusion_matrix, skm.confusion_matrix(yt, yp, labels=lab))
    elif w is None:  # sklearn refuses labels absent from y_true; the report card counts zeros
        assert m.confusion_matrix.sum() == 0
    if oos is None:
        assert m.oos_recall is None and m.oos_precision is None
    else:
        rec, prec = _oos_reference(yt, yp, oos, w)
        np.testing.assert_allclose([m.oos_recall, m.oos_precision], [rec, prec], rtol=1e-12)
        assert fm.oos_precision_recall(yt, yp, oos, sample_weight=w) == pytest.approx((prec, rec), rel=1e-12)


def test_pinned_labels_keep_macro_stable():
    # class 2 is absent from this split: pinned labels count it as 0 in the macro average
    yt, yp = [0, 1, 1, 0], [0, 1, 0, 0]
    free = fm.score(yt, yp)
    pinned = fm.score(yt, yp, labels=[0, 1, 2])
    assert pinned.macro_f1 == pytest.approx(free.macro_f1 * 2 / 3, rel=1e-12)
    assert pinned.per_class[2].support == 0


def test_oos_zero_denominators():
    m = fm.score([0, 1, 1], [0, 1, 0], oos_label=-1)
    assert m.oos_recall == 0.0 and m.oos_precision == 0.0


def test_flat_dict_and_row():
    m = fm.score([0, 1, 2, 2, -1], [0, 1, 2, 1, -1], oos_label=-1)
    flat = m.to_flat_dict()
    assert flat["per_class.2.f1"] == m.per_class[2].f1
    assert flat["per_class.-1.recall"] == 1.0
    assert flat["confusion_matrix.3.2"] == 1  # true 2 predicted 1 (labels -1, 0, 1, 2)
    assert all(isinstance(v, (int, float)) or v is None for v in flat.values())
    row = m.as_row(digits=3)
    assert row["macro_f1"] == round(m.macro_f1, 3) and row["n_examples"] == 5
    assert m.per_class_f1 == {k: v.f1 for k, v in m.per_class.items()}


@dataclass
class _Lat:
    p50_ms: float
    p95_ms: float


def test_format_metrics_row():
    m = fm.score([0, 1, 1, 0], [0, 1, 0, 0], oos_label=1)
    row = fm.format_metrics_row("tfidf+lr", m, _Lat(12.345, 40.06))
    assert row == (
        f"| tfidf+lr | {m.accuracy:.4f} | {m.macro_f1:.4f} | {m.oos_recall:.4f} | 12.3 | 40.1 |"
    )
    assert fm.format_metrics_row("x", fm.score([0], [0])).endswith("| N/A | N/A | N/A |")
    extra = fm.format_metrics_row("x", m, cost_per_1k=0.25, params=1200000)
    assert extra.endswith("| 0.2500 | 1,200,000 |")


def test_score_bad_input():
    with pytest.raises(ValueError, match="labels"):
        fm.score([0, 1], [0, 1], labels=[])
    with pytest.raises(ValueError, match="inconsistent"):
        fm.score([0, 1], [0])
