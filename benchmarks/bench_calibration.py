"""Calibration: ECE + MCE + Brier from one fastmetrics pass vs scikit-learn's
calibration_curve + brier_score_loss, on the same 10^7 probabilities."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve as sk_calibration_curve
from sklearn.metrics import brier_score_loss as sk_brier

import fastmetrics as fm


@pytest.fixture(scope="module")
def data(scaled):
    rng = np.random.default_rng(2024)
    n = scaled(10**7)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int64)
    brier = sk_brier(y, p)
    curve = sk_calibration_curve(y, p, n_bins=10)
    return y, p, brier, curve


@pytest.mark.benchmark(group="calibration: ECE+MCE+Brier")
def test_fastmetrics_summary(benchmark, data):
    y, p, brier, curve = data
    s = benchmark(fm.calibration_summary, y, p)
    assert s.brier == pytest.approx(brier, rel=1e-9)
    nz = s.bins.counts > 0
    np.testing.assert_allclose(s.bins.observed_frequency[nz], curve[0], rtol=1e-12)
    gaps = np.abs(curve[0] - curve[1])
    assert s.mce == pytest.approx(gaps.max(), rel=1e-12)


@pytest.mark.benchmark(group="calibration: ECE+MCE+Brier")
def test_sklearn_curve_plus_brier(benchmark, data):
    y, p, brier, curve = data

    def run():
        return sk_calibration_curve(y, p, n_bins=10), sk_brier(y, p)

    (prob_true, prob_pred), b = benchmark(run)
    assert b == brier
    np.testing.assert_array_equal(prob_true, curve[0])


@pytest.mark.benchmark(group="calibration: calibration_curve")
def test_fastmetrics_calibration_curve(benchmark, data):
    y, p, _, curve = data
    got = benchmark(fm.calibration_curve, y, p, n_bins=10)
    for g, e in zip(got, curve):
        np.testing.assert_allclose(g, e, rtol=1e-12)


@pytest.mark.benchmark(group="calibration: calibration_curve")
def test_sklearn_calibration_curve(benchmark, data):
    y, p, _, curve = data
    got = benchmark(sk_calibration_curve, y, p, n_bins=10)
    np.testing.assert_array_equal(got[0], curve[0])


@pytest.mark.benchmark(group="calibration: brier_score_loss")
def test_fastmetrics_brier(benchmark, data):
    y, p, brier, _ = data
    assert benchmark(fm.brier_score_loss, y, p) == pytest.approx(brier, rel=1e-9)


@pytest.mark.benchmark(group="calibration: brier_score_loss")
def test_sklearn_brier(benchmark, data):
    y, p, brier, _ = data
    assert benchmark(sk_brier, y, p) == brier
