"""Calibration: parity with scikit-learn (calibration_curve, brier_score_loss), ECE/MCE
against a plain numpy reference, bin edges, bad inputs, layouts, threads and memory."""

import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.calibration import calibration_curve as sk_calibration_curve
from sklearn.metrics import brier_score_loss as sk_brier

import fastmetrics as fm
from fastmetrics._kernels import bins as _bins
from fastmetrics.calibration import CalibrationBins

RTOL = 1e-12


# ----------------------------------------------------------------------------------------
# plain numpy references


def ref_bins(conf, correct, edges, w=None):
    """(W, sum w conf, sum w correct) per bin, with scikit-learn's bin assignment."""
    conf = np.asarray(conf, np.float64)
    correct = np.asarray(correct, np.float64)
    w = np.ones_like(conf) if w is None else np.asarray(w, np.float64)
    ids = np.searchsorted(edges[1:-1], conf)
    nb = len(edges) - 1
    W = np.bincount(ids, weights=w, minlength=nb)
    SP = np.bincount(ids, weights=w * conf, minlength=nb)
    SY = np.bincount(ids, weights=w * correct, minlength=nb)
    return W, SP, SY


def ref_ece_mce(conf, correct, n_bins=10, w=None):
    edges = np.linspace(0, 1, n_bins + 1)
    W, SP, SY = ref_bins(conf, correct, edges, w)
    nz = W > 0
    acc = SY[nz] / W[nz]
    cf = SP[nz] / W[nz]
    gaps = np.abs(acc - cf)
    return float(np.sum(W[nz] / W.sum() * gaps)), float(gaps.max())


def top_label(P, y):
    return P.max(axis=1), (P.argmax(axis=1) == y).astype(np.float64)


# ----------------------------------------------------------------------------------------
# strategies

EDGE_VALUES = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1 / 3, 2 / 3, 0.05]


@st.composite
def binary_case(draw, min_size=1, max_size=300):
    n = draw(st.integers(min_size, max_size))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    p = draw(
        hnp.arrays(
            dtype,
            n,
            elements=st.one_of(
                st.floats(0, 1, width=32 if dtype == np.float32 else 64),
                st.sampled_from(EDGE_VALUES).map(lambda v: float(np.array(v, dtype))),
            ),
        )
    )
    ytype = draw(st.sampled_from([np.int64, np.int8, np.uint8, bool]))
    y = draw(hnp.arrays(ytype, n, elements=st.integers(0, 1) if ytype is not bool else st.booleans()))
    return y, p


# ----------------------------------------------------------------------------------------
# calibration_curve


@given(binary_case(), st.integers(1, 20), st.sampled_from(["uniform", "quantile"]))
def test_calibration_curve_matches_sklearn(case, n_bins, strategy):
    y, p = case
    expected = sk_calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    got = fm.calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    for e, g in zip(expected, got):
        assert g.dtype == np.float64
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=0)


@pytest.mark.parametrize("n_bins", [3, 5, 7, 10, 20, 100])
def test_values_exactly_on_uniform_edges(n_bins):
    """Values equal to rounded linspace edges go where np.searchsorted(side='left') puts
    them (right-closed bins): the arithmetic guess must be corrected."""
    edges = np.linspace(0, 1, n_bins + 1)
    decimals = np.round(np.arange(0, 1001) / 1000, 3)
    p = np.concatenate([edges, decimals, np.nextafter(edges, 2)[:-1], np.nextafter(edges, -1)[1:]])
    y = np.zeros(p.shape[0], np.int64)
    b = fm.calibration_bins(y, p, n_bins=n_bins)
    W, _, _ = ref_bins(p, y, edges)
    np.testing.assert_array_equal(b.counts, W.astype(np.int64))
    assert b.counts.sum() == p.shape[0]


def test_calibration_curve_pos_label_and_labels():
    y = np.array(["a", "b", "b", "a", "b"])
    p = np.array([0.1, 0.8, 0.6, 0.3, 0.95])
    for e, g in zip(sk_calibration_curve(y, p, pos_label="b", n_bins=3),
                    fm.calibration_curve(y, p, pos_label="b", n_bins=3)):
        np.testing.assert_allclose(g, e, rtol=RTOL)
    y2 = np.array([-1, 1, 1, -1, 1])
    for e, g in zip(sk_calibration_curve(y2, p), fm.calibration_curve(y2, p)):
        np.testing.assert_allclose(g, e, rtol=RTOL)
    y3 = np.array([3, 7, 7, 3, 7])
    for e, g in zip(sk_calibration_curve(y3, p, pos_label=7), fm.calibration_curve(y3, p, pos_label=7)):
        np.testing.assert_allclose(g, e, rtol=RTOL)
    with pytest.raises(ValueError, match="pos_label"):
        sk_calibration_curve(y3, p)
    with pytest.raises(ValueError, match="pos_label"):
        fm.calibration_curve(y3, p)


# ----------------------------------------------------------------------------------------
# ECE / MCE / bins


@given(binary_case(), st.integers(1, 15), st.booleans())
def test_ece_mce_binary_match_numpy_reference(case, n_bins, weighted):
    y, p = case
    w = np.linspace(0.5, 2.0, y.shape[0]) if weighted else None
    ece, mce = ref_ece_mce(p, y.astype(np.float64), n_bins, w)
    assert fm.expected_calibration_error(y, p, n_bins=n_bins, sample_weight=w) == pytest.approx(ece, rel=RTOL, abs=1e-15)
    assert fm.max_calibration_error(y, p, n_bins=n_bins, sample_weight=w) == pytest.approx(mce, rel=RTOL, abs=1e-15)


@given(st.integers(1, 200), st.integers(2, 6), st.integers(1, 12), st.sampled_from([np.float32, np.float64]),
       st.integers(0, 2**32 - 1))
def test_ece_mce_top_label_match_numpy_reference(n, K, n_bins, dtype, seed):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(K), size=n).astype(dtype)
    P /= P.sum(axis=1, keepdims=True)
    y = rng.integers(0, K, n)
    conf, correct = top_label(P, y)
    ece, mce = ref_ece_mce(conf, correct, n_bins)
    assert fm.expected_calibration_error(y, P, n_bins=n_bins) == pytest.approx(ece, rel=RTOL, abs=1e-15)
    assert fm.max_calibration_error(y, P, n_bins=n_bins) == pytest.approx(mce, rel=RTOL, abs=1e-15)
    s = fm.calibration_summary(y, P, n_bins=n_bins)
    assert s.brier == pytest.approx(np.mean((conf - correct) ** 2), rel=1e-12, abs=1e-15)


def test_top_label_with_labels_mapping():
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(3), size=50)
    idx = rng.integers(0, 3, 50)
    names = np.array(["cat", "dog", "eel"])
    a = fm.expected_calibration_error(idx, P)
    b = fm.expected_calibration_error(names[idx], P, labels=names)
    c = fm.expected_calibration_error(names[idx][::-1][::-1], P[:, [2, 0, 1]], labels=names[[2, 0, 1]])
    assert a == b == c
    with pytest.raises(TypeError, match="labels="):
        fm.expected_calibration_error(names[idx], P)
    with pytest.raises(ValueError, match="not in labels"):
        fm.expected_calibration_error(names[idx], P, labels=["cat", "dog", "fox"])


def test_binary_brier_equals_top_label_brier():
    rng = np.random.default_rng(2)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    P = np.stack([1 - p, p], axis=1)
    s_bin = fm.calibration_summary(y, p)
    s_top = fm.calibration_summary(y, P)
    assert s_bin.brier == pytest.approx(sk_brier(y, p), rel=RTOL)
    assert s_top.brier == pytest.approx(s_bin.brier, rel=1e-12)


def test_summary_and_bins_consistent_and_mergeable():
    rng = np.random.default_rng(3)
    p = rng.random(1000)
    y = (rng.random(1000) < p).astype(np.int64)
    s = fm.calibration_summary(y, p)
    assert s.ece == fm.expected_calibration_error(y, p)
    assert s.mce == fm.max_calibration_error(y, p)
    assert s.brier == pytest.approx(fm.brier_score_loss(y, p), rel=RTOL)
    flat = s.to_flat_dict()
    assert flat["ece"] == s.ece and flat["bins.9.count"] == s.bins.counts[9]
    assert sum(flat[f"bins.{i}.count"] for i in range(10)) == 1000
    assert set(s.as_row()) == {"ece", "mce", "brier", "n_bins"}
    merged = fm.calibration_bins(y[:400], p[:400]).merge(fm.calibration_bins(y[400:], p[400:]))
    np.testing.assert_allclose(merged.state, s.bins.state, rtol=1e-13)
    assert merged.ece == pytest.approx(s.ece, rel=1e-12)
    with pytest.raises(ValueError, match="edges"):
        merged.merge(fm.calibration_bins(y, p, n_bins=5))
    assert isinstance(s.bins, CalibrationBins)
    np.testing.assert_array_equal(np.isnan(fm.calibration_bins([1], [0.5]).mean_confidence),
                                  np.arange(10) != 4)


def test_quantile_bins_counts():
    rng = np.random.default_rng(4)
    p = rng.random(1000)
    y = np.zeros(1000, int)
    b = fm.calibration_bins(y, p, n_bins=4, strategy="quantile")
    np.testing.assert_array_equal(b.edges, np.percentile(p, [0, 25, 50, 75, 100]))
    np.testing.assert_array_equal(b.counts, [250, 250, 250, 250])


# ----------------------------------------------------------------------------------------
# brier_score_loss


@given(binary_case(), st.booleans(), st.sampled_from(["auto", True, False]))
def test_brier_binary_matches_sklearn(case, weighted, scale):
    y, p = case
    w = np.linspace(0.1, 3.0, y.shape[0]) if weighted else None
    if np.unique(y).shape[0] == 1 and y.dtype == bool:
        y = y.astype(np.int64)
    expected = sk_brier(y, p.astype(np.float64), sample_weight=w, scale_by_half=scale)
    got = fm.brier_score_loss(y, p, sample_weight=w, scale_by_half=scale)
    assert got == pytest.approx(expected, rel=RTOL, abs=1e-300)


@pytest.mark.parametrize("y", [[3, 7, 7, 3], [-1, 1, 1, -1], [2, 2, 2, 2], ["s", "h", "h", "s"]])
def test_brier_pos_label_inference_matches_sklearn(y):
    p = [0.1, 0.9, 0.8, 0.3]
    if isinstance(y[0], str):
        with pytest.raises(ValueError):
            sk_brier(y, p)
        with pytest.raises(ValueError):
            fm.brier_score_loss(y, p)
        assert fm.brier_score_loss(y, p, pos_label="h") == pytest.approx(sk_brier(y, p, pos_label="h"), rel=RTOL)
    else:
        assert fm.brier_score_loss(y, p) == pytest.approx(sk_brier(y, p), rel=RTOL)
        assert fm.brier_score_loss(y, p, pos_label=y[0]) == pytest.approx(sk_brier(y, p, pos_label=y[0]), rel=RTOL)


@given(st.integers(1, 100), st.integers(3, 6), st.integers(0, 2**32 - 1), st.booleans())
def test_brier_multiclass_matches_sklearn(n, K, seed, weighted):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(K), size=n)
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)[: min(K, n)] if n >= K else y[:K]
    w = rng.random(n) + 0.1 if weighted else None
    if np.unique(y).shape[0] != K:
        with pytest.raises(ValueError, match="different number of classes"):
            fm.brier_score_loss(y, P)
        labels = np.arange(K)
    else:
        labels = None
    expected = sk_brier(y, P, sample_weight=w, labels=labels)
    assert fm.brier_score_loss(y, P, sample_weight=w, labels=labels) == pytest.approx(expected, rel=RTOL)


def test_brier_multiclass_string_labels_and_unnormalised_warning():
    y = ["eggs", "ham", "spam"]
    P = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]]
    assert fm.brier_score_loss(y, P, labels=["eggs", "ham", "spam"]) == pytest.approx(
        sk_brier(y, P, labels=["eggs", "ham", "spam"]), rel=RTOL)
    assert fm.brier_score_loss(y, P) == pytest.approx(sk_brier(y, P), rel=RTOL)
    Q = np.array(P) * 0.9
    with pytest.warns(UserWarning, match="do not sum to one") as rec_sk:
        e = sk_brier(y, Q)
    with pytest.warns(UserWarning, match="do not sum to one") as rec_fm:
        g = fm.brier_score_loss(y, Q)
    assert g == pytest.approx(e, rel=RTOL)
    assert str(rec_sk[0].message) == str(rec_fm[0].message)
    with pytest.warns(UserWarning, match="do not sum to one"):
        fm.expected_calibration_error([0, 1, 2], Q)


def test_brier_int_probabilities_like_sklearn():
    y = np.array([0, 1, 1, 0])
    p = np.array([0.1, 0.9, 0.8, 0.3]) > 0.5
    assert fm.brier_score_loss(y, p) == sk_brier(y, p) == 0.0


# ----------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: fm.calibration_curve([0, 1], [0.5, np.nan]), "NaN in row 1"),
        (lambda: fm.calibration_curve([0, 1], [0.5, 1.5]), "outside"),
        (lambda: fm.calibration_curve([0, 1], [-0.1, 0.5]), "outside"),
        (lambda: fm.expected_calibration_error([0, 1], [0.5, np.nan]), "NaN"),
        (lambda: fm.brier_score_loss([0, 1], [0.5, np.nan]), "NaN"),
        (lambda: fm.brier_score_loss([0, 1], [0.5, 1.01]), "outside"),
        (lambda: fm.calibration_curve([0, 1, 1], [0.5, 0.2]), "inconsistent numbers of samples"),
        (lambda: fm.calibration_curve([0, 1], [0.5, 0.2], n_bins=0), "n_bins"),
        (lambda: fm.calibration_curve([0, 1], [0.5, 0.2], n_bins=2.5), "n_bins"),
        (lambda: fm.calibration_bins([0, 1], [0.5, 0.2], n_bins=-1), "n_bins"),
        (lambda: fm.calibration_curve([0, 1], [0.5, 0.2], strategy="log"), "strategy"),
        (lambda: fm.calibration_curve([], []), "empty"),
        (lambda: fm.expected_calibration_error([], []), "empty"),
        (lambda: fm.expected_calibration_error([], np.empty((0, 3))), "empty"),
        (lambda: fm.brier_score_loss([], []), "empty"),
        (lambda: fm.calibration_curve([0, 1, 2], [0.5, 0.2, 0.1], pos_label=1), "binary"),
        (lambda: fm.calibration_curve([0, 1, 2], [0.5, 0.2, 0.1]), "binary"),
        (lambda: fm.brier_score_loss([0, 1, 2], [0.5, 0.2, 0.1]), "binary"),
        (lambda: fm.expected_calibration_error([0, 1], [0.5, 0.2], sample_weight=[1, np.inf]), "sample_weight"),
        (lambda: fm.expected_calibration_error([0, 1], [0.5, 0.2], sample_weight=[1, 2, 3]), "sample_weight"),
        (lambda: fm.expected_calibration_error([0, 3], [[0.5, 0.5], [0.2, 0.8]]), "class index"),
        (lambda: fm.expected_calibration_error([0, -1], [[0.5, 0.5], [0.2, 0.8]]), "class index"),
        (lambda: fm.expected_calibration_error([0, 1], [[0.5, 0.5], [0.2, np.nan]]), "NaN"),
        (lambda: fm.expected_calibration_error([0, 1], np.zeros((2, 2, 2))), "shape"),
        (lambda: fm.expected_calibration_error([[0, 1], [1, 0]], [0.5, 0.2]), "y_true"),
        (lambda: fm.brier_score_loss([0, 1], [0.5, 0.2], scale_by_half="yes"), "scale_by_half"),
        (lambda: fm.class_confidence_from_logprobs({"a": float("nan")}, {"a": ["a"]}), "NaN"),
        (lambda: fm.class_confidence_from_logprobs({"a": 0.0}, {}), "empty"),
    ],
)
def test_bad_input_raises_clear_value_error(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_sklearn_lets_nan_through_we_do_not():
    y, p = [0, 1, 1], [0.2, np.nan, 0.9]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk_calibration_curve(y, p)  # no error in scikit-learn
    with pytest.raises(ValueError, match="NaN"):
        fm.calibration_curve(y, p)


def test_zero_weights():
    with pytest.raises(ValueError, match="at least one non-zero"):
        sk_brier([0, 1], [0.2, 0.7], sample_weight=[0, 0])
    with pytest.raises(ValueError, match="at least one non-zero"):
        fm.brier_score_loss([0, 1], [0.2, 0.7], sample_weight=[0, 0])
    with pytest.raises(ZeroDivisionError):
        sk_brier([0, 1], [0.2, 0.7], sample_weight=[1, -1])
    with pytest.raises(ZeroDivisionError):
        fm.brier_score_loss([0, 1], [0.2, 0.7], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="sums to zero"):
        fm.expected_calibration_error([0, 1], [0.2, 0.7], sample_weight=[0, 0])


# ----------------------------------------------------------------------------------------
# dtypes and layouts


def _layouts(a):
    ro = a.copy()
    ro.flags.writeable = False
    big = np.repeat(a, 2)[::2]
    yield "contiguous", a
    yield "strided", big
    yield "read-only", ro
    yield "byte-swapped", a.astype(a.dtype.newbyteorder("S"))
    # a field of a packed record array: its stride is not a whole number of items
    rec = np.zeros(a.shape[0], dtype=[("v", a.dtype), ("pad", np.uint8)])
    rec["v"] = a
    rec["pad"] = 0xFF
    yield "record field", rec["v"]
    yield "reversed record field", rec[::-1]["v"][::-1]


@pytest.mark.parametrize("pdtype", [np.float32, np.float64])
@pytest.mark.parametrize("ydtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                    np.uint32, np.uint64, bool])
def test_dtype_layout_matrix(pdtype, ydtype):
    rng = np.random.default_rng(5)
    p = rng.random(301).astype(pdtype)
    y = (rng.random(301) < p).astype(ydtype)
    expected = sk_calibration_curve(y, p, n_bins=7)
    ece = fm.expected_calibration_error(y, p)
    brier = sk_brier(y.astype(np.int64), p.astype(np.float64))
    for (_, yl), (_, pl) in zip(_layouts(y), _layouts(p)):
        y0, p0 = yl.copy(), pl.copy()
        for e, g in zip(expected, fm.calibration_curve(yl, pl, n_bins=7)):
            np.testing.assert_allclose(g, e, rtol=RTOL)
        assert fm.expected_calibration_error(yl, pl) == ece
        assert fm.brier_score_loss(yl, pl) == pytest.approx(brier, rel=RTOL)
        np.testing.assert_array_equal(yl, y0)  # inputs never modified
        np.testing.assert_array_equal(pl, p0)


def test_matrix_layouts():
    rng = np.random.default_rng(6)
    P = rng.dirichlet(np.ones(4), size=200)
    y = rng.integers(0, 4, 200)
    ece = fm.expected_calibration_error(y, P)
    F = np.asfortranarray(P)
    S = np.repeat(P, 2, axis=1)[:, ::2]
    R = P.copy()
    R.flags.writeable = False
    for Q in (F, S, R, P.astype(">f8")):
        assert fm.expected_calibration_error(y, Q) == ece


# ----------------------------------------------------------------------------------------
# log-probabilities, diagram, report card


def test_class_confidence_from_logprobs():
    lp = {"yes": -0.2, " yes": -2.0, "no": -1.5, "maybe": -3.0, "zzz": -0.1}
    label_tokens = {"yes": ["yes", " yes"], "no": ["no", " no"]}
    got = fm.class_confidence_from_logprobs(lp, label_tokens)
    e = {k: sum(np.exp(lp[t]) for t in v if t in lp) for k, v in label_tokens.items()}
    total = sum(e.values())
    assert list(got) == ["yes", "no"]
    for k in got:
        assert got[k] == pytest.approx(e[k] / total, rel=1e-14)
    assert sum(got.values()) == pytest.approx(1.0, rel=1e-15)
    # entries with top_logprobs: the candidates of the first generated token are used
    entries = [{"token": "yes", "logprob": -0.2,
                "top_logprobs": [{"token": t, "logprob": v} for t, v in lp.items()]},
               {"token": ".", "logprob": -0.01, "top_logprobs": []}]
    assert fm.class_confidence_from_logprobs(entries, label_tokens) == got
    assert fm.class_confidence_from_logprobs(list(lp.items()), label_tokens) == got
    # huge logprobs stay finite (stable softmax)
    big = fm.class_confidence_from_logprobs({"a": 1000.0, "b": 999.0}, {"a": ["a"], "b": ["b"]})
    assert big["a"] == pytest.approx(1 / (1 + np.exp(-1.0)), rel=1e-14)
    assert fm.class_confidence_from_logprobs({"x": 0.0}, label_tokens) == {"yes": 0.5, "no": 0.5}


def test_reliability_diagram_png(tmp_path):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(7)
    p = rng.random(1000)
    y = (rng.random(1000) < p).astype(int)
    out = fm.reliability_diagram((y, p), tmp_path / "rel.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 5000
    out2 = fm.reliability_diagram(fm.calibration_bins(y, p, n_bins=5), str(tmp_path / "b.png"), title="x")
    assert out2.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(TypeError):
        fm.reliability_diagram("nope", tmp_path / "c.png")


def test_reliability_diagram_without_matplotlib(monkeypatch, tmp_path):
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        fm.reliability_diagram(([0, 1], [0.2, 0.8]), tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_score_probabilities():
    rng = np.random.default_rng(8)
    P = rng.dirichlet(np.ones(3), size=300)
    y = rng.integers(0, 3, 300)
    pred = P.argmax(axis=1)
    r = fm.score_probabilities(y, pred, P)
    assert r.calibration.ece == fm.expected_calibration_error(y, P)
    flat = r.to_flat_dict()
    assert flat["calibration.ece"] == r.calibration.ece
    assert flat["accuracy"] == pytest.approx(np.mean(pred == y))


# ----------------------------------------------------------------------------------------
# kernel hooks, threads, memory


def test_kernel_shape_checks():
    state = np.zeros((3, 4))
    with pytest.raises(ValueError, match="inconsistent"):
        _bins.bin_binary(np.zeros(2, np.int64), np.zeros(2), np.empty(0), False, 1, True,
                         np.array([0.3, 0.6]), True, state)


def test_threads_give_serial_result():
    rng = np.random.default_rng(9)
    p = rng.random(200_000)
    y = (rng.random(200_000) < p).astype(np.int8)
    p.flags.writeable = False
    y.flags.writeable = False
    expected = fm.calibration_summary(y, p).as_row()
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(fm.calibration_summary(y, p).as_row())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 160 and all(r == expected for r in results)


def test_no_memory_leak():
    psutil = pytest.importorskip("psutil")
    rng = np.random.default_rng(10)
    p = rng.random(1000)
    y = (rng.random(1000) < p).astype(np.int64)
    P = rng.dirichlet(np.ones(3), size=1000)
    yk = rng.integers(0, 3, 1000)
    proc = psutil.Process()

    def burst():
        for _ in range(1000):
            fm.calibration_summary(y, p)
            fm.expected_calibration_error(yk, P)
            try:
                fm.calibration_curve(y, np.where(p > 0.5, np.nan, p))
            except ValueError:
                pass

    burst()
    before = proc.memory_info().rss
    burst()
    burst()
    assert proc.memory_info().rss - before < 8 * 2**20


def test_lanes_thread_count_invariant_and_errors_in_late_lanes():
    """Large inputs are cut into lanes (OpenMP): the state does not depend on the thread
    count, and bad values / other labels in a late lane are still found."""
    rng = np.random.default_rng(11)
    n = 1_100_000
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int64)
    E = np.concatenate(([-np.inf], np.linspace(0, 1, 11)[1:-1], [np.inf]))
    states = []
    for n_threads in (1, 2, 3):
        st_ = np.zeros((10, 5))
        assert _bins.bin_binary(y, p, np.empty(0), False, 1, True, E, True, st_, n_threads) == (-1, 0, 1, 0)
        states.append(st_)
    assert all(np.array_equal(states[0], s) for s in states[1:])
    W, SP, SY = ref_bins(p, y, np.linspace(0, 1, 11))
    np.testing.assert_allclose(states[0][:, 2], SY, rtol=1e-12)
    bad = p.copy()
    bad[n - 5] = np.nan
    with pytest.raises(ValueError, match=f"NaN in row {n - 5}"):
        fm.calibration_curve(y, bad)
    y3 = y.copy()
    y3[n - 3] = 2
    with pytest.raises(ValueError, match="binary"):
        fm.calibration_curve(y3, p, pos_label=1)
    ones = np.ones(n, np.int8)
    ones[n - 2] = 0
    assert fm.calibration_bins(ones, p).observed_frequency.sum() > 0
