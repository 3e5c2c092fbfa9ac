"""The block passes of the one-pass kernels (fm_bins.h: binary calibration over contiguous
inputs, unweighted and weighted; fm_sums.h: regression block sums): the same numbers as
scikit-learn and as the element-by-element lanes the other layouts take, on the cases a block
pass handles apart (values on bin edges, 0 and 1, labels that are not {0, 1}, a third label
late in the data, bad values and weights in any block, sizes that are not a multiple of the
unrolling), for any thread count."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve as sk_calibration_curve
from sklearn.metrics import brier_score_loss as sk_brier
from sklearn.metrics import mean_absolute_error as sk_mae
from sklearn.metrics import mean_squared_error as sk_mse
from sklearn.metrics import r2_score as sk_r2

import fastmetrics as fm

RTOL = 1e-12
BIG = 600_000  # above one lane (262,144 samples): several lanes and threads


def strided(a):
    """The same values through a non-contiguous view (the element-by-element lanes)."""
    return np.repeat(a, 2)[::2]


def _binary_data(n, seed=0, pdtype=np.float64):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    # values on the 10-bin edges, 0 and 1: the block pass hands them to the edge array
    on_edge = rng.random(n) < 0.05
    p[on_edge] = rng.integers(0, 11, size=int(on_edge.sum())) / 10
    p = p.astype(pdtype)
    y = (rng.random(n) < p).astype(np.int64)
    return y, p


@pytest.mark.parametrize("n", [1, 2, 3, 5, 511, 512, 513, 1027, BIG + 3])
@pytest.mark.parametrize("pdtype", [np.float32, np.float64])
def test_calibration_matches_sklearn_and_the_strided_lanes(n, pdtype):
    y, p = _binary_data(n, n, pdtype)
    for n_bins in (1, 7, 10):
        s = fm.calibration_summary(y, p, n_bins=n_bins)
        ref = fm.calibration_summary(strided(y), strided(p), n_bins=n_bins)
        np.testing.assert_array_equal(s.bins.counts, ref.bins.counts)
        np.testing.assert_array_equal(s.bins.observed_frequency, ref.bins.observed_frequency)
        if n_bins > 1:  # the same partial sums: the same bits
            assert s.ece == ref.ece and s.mce == ref.mce
        assert s.brier == pytest.approx(ref.brier, rel=RTOL)
        if len(np.unique(y)) == 2:
            frac, mean = sk_calibration_curve(y, p, n_bins=n_bins)
            got = fm.calibration_curve(y, p, n_bins=n_bins)
            np.testing.assert_allclose(got[0], frac, rtol=RTOL)
            np.testing.assert_allclose(got[1], mean, rtol=RTOL)
    assert fm.brier_score_loss(y, p) == pytest.approx(
        sk_brier(y, p.astype(np.float64), pos_label=1), rel=RTOL, abs=1e-300)


@pytest.mark.parametrize("labels, pos_label", [
    ((0, 1), None), ((-1, 1), None), ((0, 1), 0), ((2, 5), 5), ((2, 5), 2), ((3, 7), 7),
    ((10, 2), 10), ((0, 4), 0),
])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
def test_label_pairs(labels, pos_label, dtype):
    if np.dtype(dtype).kind == "u" and min(labels) < 0:
        return
    rng = np.random.default_rng(1)
    n = 2000
    p = rng.random(n)
    y = np.where(rng.random(n) < p, labels[1], labels[0]).astype(dtype)
    pos = labels[1] if pos_label is None else pos_label
    want = sk_brier(y, p if pos == labels[1] else 1 - (1 - p), pos_label=pos)
    got = fm.brier_score_loss(y, p, pos_label=pos_label)
    assert got == pytest.approx(want, rel=RTOL)
    frac, _ = sk_calibration_curve(y, p, n_bins=10, pos_label=pos)
    np.testing.assert_allclose(fm.calibration_curve(y, p, n_bins=10, pos_label=pos_label)[0],
                               frac, rtol=RTOL)


def test_all_one_label_and_bool():
    p = np.random.default_rng(2).random(1500)
    for y in (np.ones(1500, np.int64), np.zeros(1500, np.int64), p > 0.5):
        assert fm.brier_score_loss(y, p) == pytest.approx(sk_brier(y, p), rel=RTOL)
        s = fm.calibration_summary(y, p)
        assert s.brier == pytest.approx(sk_brier(y, p), rel=RTOL)


@pytest.mark.parametrize("n, where", [(BIG, 0), (BIG, 700), (BIG, 5000), (BIG, BIG - 1),
                                      (1027, 1026), (1027, 1024), (1031, 1029), (1031, 1026),
                                      (7, 5), (3, 2)])
@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32])
def test_third_label_late(n, where, dtype):
    """A third label after the blocks that saw two (in a block's last samples too):
    scikit-learn's error, any block, any label width."""
    y, p = _binary_data(n)
    y = y.astype(dtype)
    y[:2] = (0, 1) if where >= 2 else (1, 0)  # both of the other labels, whatever n
    y[where] = 2
    for f in (lambda a, b: fm.brier_score_loss(a, b), lambda a, b: fm.calibration_curve(a, b)):
        with pytest.raises(ValueError) as ours:
            f(y, p)
        with pytest.raises(ValueError) as theirs:
            f(strided(y), strided(p))
        assert str(ours.value) == str(theirs.value)


def test_pos_label_absent_from_the_labels():
    """pos_label that no label equals: every sample negative, on both paths."""
    y, p = _binary_data(3000)
    got = fm.brier_score_loss(y, p, pos_label=7)
    assert got == pytest.approx(fm.brier_score_loss(strided(y), strided(p), pos_label=7),
                                rel=RTOL)
    assert got == pytest.approx(sk_brier(y, p, pos_label=7), rel=RTOL)


@pytest.mark.parametrize("bad", [np.nan, -0.25, 1.5, -1e-300, 1 + 2e-16, np.inf])
@pytest.mark.parametrize("where", [0, 1, 513, 4001, BIG - 2])
def test_bad_probability_same_error(bad, where):
    y, p = _binary_data(BIG)
    p[where] = bad
    if where > 3:
        p[where - 3] = 1.0  # a valid 1 just before: not the one reported
    for n_bins in (1, 10):
        with pytest.raises(ValueError) as ours:
            fm.calibration_summary(y, p, n_bins=n_bins)
        with pytest.raises(ValueError) as theirs:
            fm.calibration_summary(strided(y), strided(p), n_bins=n_bins)
        assert str(ours.value) == str(theirs.value)
        assert f"row {where}" in str(ours.value) or "NaN" in str(ours.value) \
            or "inf" in str(ours.value)


def test_negative_zero_is_a_probability():
    y = np.array([0, 1, 1, 0] * 300)
    p = np.array([-0.0, 1.0, 0.5, 0.1] * 300)
    assert fm.brier_score_loss(y, p) == pytest.approx(sk_brier(y, p), rel=RTOL)
    assert fm.calibration_summary(y, p).ece == fm.calibration_summary(strided(y),
                                                                       strided(p)).ece


def test_many_bins_take_the_edge_array():
    y, p = _binary_data(5000)
    for n_bins in (1000, 4096):
        frac, mean = sk_calibration_curve(y, p, n_bins=n_bins)
        got = fm.calibration_curve(y, p, n_bins=n_bins)
        np.testing.assert_allclose(got[0], frac, rtol=RTOL)
        np.testing.assert_allclose(got[1], mean, rtol=RTOL)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_calibration_same_for_any_thread_count(threads):
    y, p = _binary_data(BIG * 2 + 5)
    one = fm.calibration_summary(y, p, n_threads=1)
    got = fm.calibration_summary(y, p, n_threads=threads)
    assert got.as_row() == one.as_row()
    assert fm.brier_score_loss(y, p, n_threads=threads) == fm.brier_score_loss(y, p,
                                                                               n_threads=1)


# ------------------------------------------------------------ weighted binary calibration


def _weights(n, seed, wdtype):
    rng = np.random.default_rng(seed + 11)
    w = rng.random(n) * 3
    w[rng.random(n) < 0.1] = 0.0
    return w.astype(wdtype)


@pytest.mark.parametrize("n", [1, 3, 4, 5, 511, 512, 513, 1027, BIG + 3])
@pytest.mark.parametrize("pdtype", [np.float32, np.float64])
@pytest.mark.parametrize("wdtype", [np.float32, np.float64])
def test_weighted_calibration_same_bits_as_the_strided_lanes(n, pdtype, wdtype):
    """Weighted: the block pass fills the element-by-element lanes' banks with the same
    operations in the same order, so contiguous and strided inputs give the same bits."""
    y, p = _binary_data(n, n, pdtype)
    w = _weights(n, n, wdtype)
    for n_bins in (1, 7, 10):
        s = fm.calibration_summary(y, p, n_bins=n_bins, sample_weight=w)
        ref = fm.calibration_summary(strided(y), strided(p), n_bins=n_bins,
                                     sample_weight=strided(w))
        assert s.as_row() == ref.as_row()
    got = fm.brier_score_loss(y, p, sample_weight=w)
    assert got == fm.brier_score_loss(strided(y), strided(p), sample_weight=strided(w))
    if w.sum() > 0:
        assert got == pytest.approx(sk_brier(y, p.astype(np.float64), sample_weight=w,
                                             pos_label=1), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("labels, pos_label", [((0, 1), None), ((2, 5), 2), ((3, 7), 7)])
@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint32])
def test_weighted_label_pairs(labels, pos_label, dtype):
    rng = np.random.default_rng(5)
    n = 3001
    p = rng.random(n)
    w = _weights(n, 5, np.float64)
    y = np.where(rng.random(n) < p, labels[1], labels[0]).astype(dtype)
    pos = labels[1] if pos_label is None else pos_label
    got = fm.brier_score_loss(y, p, sample_weight=w, pos_label=pos_label)
    assert got == fm.brier_score_loss(strided(y), strided(p), sample_weight=strided(w),
                                      pos_label=pos_label)
    assert got == pytest.approx(sk_brier(y, p, sample_weight=w, pos_label=pos), rel=RTOL)


@pytest.mark.parametrize("where", [0, 1, 2, 513, 4001, BIG - 2])
@pytest.mark.parametrize("bad_w, bad_p", [(np.nan, None), (np.inf, None), (-np.inf, None),
                                          (np.nan, np.nan), (np.nan, 1.5)])
def test_weighted_bad_values_same_error(where, bad_w, bad_p):
    """A weight NaN or infinite (and a bad probability at the same sample, which is the one
    reported): the strided lanes' error, in any block."""
    y, p = _binary_data(BIG)
    w = _weights(BIG, 0, np.float64)
    w[where] = bad_w
    if bad_p is not None:
        p[where] = bad_p
    if where > 3:
        p[where - 3] = 1.0
    for n_bins in (1, 10):
        with pytest.raises(ValueError) as ours:
            fm.calibration_summary(y, p, n_bins=n_bins, sample_weight=w)
        with pytest.raises(ValueError) as theirs:
            fm.calibration_summary(strided(y), strided(p), n_bins=n_bins,
                                   sample_weight=strided(w))
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("n, where", [(BIG, 5000), (1031, 1029), (7, 5)])
def test_weighted_third_label_late(n, where):
    y, p = _binary_data(n)
    w = _weights(n, 1, np.float64)
    y[:2] = (0, 1)
    y[where] = 2
    with pytest.raises(ValueError) as ours:
        fm.brier_score_loss(y, p, sample_weight=w)
    with pytest.raises(ValueError) as theirs:
        fm.brier_score_loss(strided(y), strided(p), sample_weight=strided(w))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_weighted_calibration_same_for_any_thread_count(threads):
    y, p = _binary_data(BIG * 2 + 5)
    w = _weights(BIG * 2 + 5, 2, np.float64)
    for n_bins in (1, 10):
        one = fm.calibration_summary(y, p, n_bins=n_bins, sample_weight=w, n_threads=1)
        got = fm.calibration_summary(y, p, n_bins=n_bins, sample_weight=w, n_threads=threads)
        assert got.as_row() == one.as_row()


# ------------------------------------------------------------------- regression sums


def _regression_data(n, seed=3, dtype=np.float64):
    rng = np.random.default_rng(seed)
    y = (rng.gamma(2.0, size=n) + 0.1).astype(dtype)
    p = (y * rng.uniform(0.5, 1.5, size=n) + 0.05).astype(dtype)
    w = rng.random(n).astype(dtype)
    return y, p, w


@pytest.mark.parametrize("n", [2, 3, 4, 5, 2047, 2048, 2049, 4099, BIG + 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weighted", [False, True])
def test_regression_sums_match_sklearn_and_the_strided_lanes(n, dtype, weighted):
    y, p, w = _regression_data(n, n, dtype)
    sw = w if weighted else None
    s = fm.regression_summary(y, p, sample_weight=sw)
    ref = fm.regression_summary(strided(y), strided(p),
                                sample_weight=None if sw is None else strided(sw))
    # the same partial sums on both paths: the same bits
    assert s.as_row() == ref.as_row()
    y64, p64 = y.astype(np.float64), p.astype(np.float64)
    w64 = None if sw is None else sw.astype(np.float64)
    rtol = RTOL if dtype == np.float64 else 1e-5
    assert s.mae == pytest.approx(sk_mae(y64, p64, sample_weight=w64), rel=rtol)
    assert s.mse == pytest.approx(sk_mse(y64, p64, sample_weight=w64), rel=rtol)
    assert s.r2 == pytest.approx(sk_r2(y64, p64, sample_weight=w64), rel=1e-9)


def test_regression_constant_and_nan():
    y = np.full(5000, 0.5)  # a constant whose mean scikit-learn computes exactly
    p = y + np.linspace(-1, 1, 5000)
    assert fm.r2_score(y, p) == sk_r2(y, p, force_finite=True) == 0.0
    assert fm.r2_score(np.full(5000, 0.1), p) == 0.0  # exactly constant, in every block
    y2 = y.copy()
    y2[4097] = np.nan
    with pytest.raises(ValueError):
        fm.regression_summary(y2, p)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_regression_same_for_any_thread_count(threads):
    y, p, w = _regression_data(BIG * 2 + 7)
    one = fm.regression_summary(y, p, sample_weight=w, n_threads=1)
    assert fm.regression_summary(y, p, sample_weight=w, n_threads=threads).as_row() == \
        one.as_row()
    assert fm.mean_absolute_percentage_error(y, p, n_threads=threads) == \
        fm.mean_absolute_percentage_error(y, p, n_threads=1)


def _sums2d(y, p, w, flags, threads=1):
    from fastmetrics._kernels import sums as kernel
    state = np.zeros((y.shape[1], kernel.N_STATE))
    kernel.sums2d(y, p, np.ones(1) if w is None else w, w is not None, flags, 1.3, state,
                  threads)
    return state


def _layouts2d(a):
    """C-ordered (the row pass; contiguous float64 rows take its vector loop), F-ordered (the
    column pass), rows with a gap between columns (the row pass's strided loop) and a negative
    row stride."""
    wide = np.zeros((a.shape[0], 2 * a.shape[1]), dtype=a.dtype)
    wide[:, ::2] = a
    rev = np.ascontiguousarray(a[::-1])[::-1]
    return [np.ascontiguousarray(a), np.asfortranarray(a), wide[:, ::2], rev]


@pytest.mark.parametrize("n, m", [(1, 1), (3, 2), (5, 3), (2047, 8), (2049, 5), (4099, 17),
                                  (40_000, 33), (BIG // 2, 3)])
@pytest.mark.parametrize("ydtype, pdtype", [(np.float64, np.float64), (np.float32, np.float64),
                                            (np.float64, np.float32)])
@pytest.mark.parametrize("wdtype", [None, np.float64, np.float32])
def test_multioutput_rows_same_bits_as_columns(n, m, ydtype, pdtype, wdtype):
    """(n, m) targets: the row pass (row-major inputs read once in order) gives every
    column's sums bit for bit as the column pass (column-major inputs), for every optional
    sum, any layout and thread count; a constant column stays exactly constant."""
    rng = np.random.default_rng(n * m)
    y = rng.normal(size=(n, m)).astype(ydtype)
    y[:, 0] = 0.1
    p = (y + rng.normal(size=(n, m))).astype(pdtype)
    w = None if wdtype is None else rng.random(n).astype(wdtype)
    for flags in (0, 1, 2, 4, 8, 16, 31):
        ref = _sums2d(np.asfortranarray(y), np.asfortranarray(p), w, flags)
        for a, b in zip(_layouts2d(y), _layouts2d(p)):
            for threads in (1, 2):
                np.testing.assert_array_equal(_sums2d(a, b, w, flags, threads), ref)


def test_multioutput_rows_nan_and_metrics():
    """A NaN in a C-ordered (n, m) target is found as in the column layout; the public
    multioutput functions give the same bits for C and F order and scikit-learn's values."""
    rng = np.random.default_rng(3)
    y = rng.normal(size=(5000, 8))
    p = y + rng.normal(size=y.shape)
    w = rng.random(5000)
    for name in ("mean_absolute_error", "mean_squared_error", "r2_score",
                 "explained_variance_score", "mean_absolute_percentage_error"):
        f = getattr(fm, name)
        c = f(y, p, sample_weight=w, multioutput="raw_values")
        np.testing.assert_array_equal(
            c, f(np.asfortranarray(y), np.asfortranarray(p), sample_weight=w,
                 multioutput="raw_values"))
    np.testing.assert_allclose(fm.mean_squared_error(y, p, multioutput="raw_values"),
                               sk_mse(y, p, multioutput="raw_values"), rtol=RTOL)
    np.testing.assert_allclose(fm.r2_score(y, p, multioutput="raw_values"),
                               sk_r2(y, p, multioutput="raw_values"), rtol=1e-9)
    y[4097, 5] = np.nan
    for a in (y, np.asfortranarray(y)):
        with pytest.raises(ValueError, match="NaN"):
            fm.mean_squared_error(a, p)
