"""Calibration: ECE + MCE + Brier from one fastmetrics pass vs scikit-learn's
calibration_curve + brier_score_loss, on the same 10^7 probabilities; d2_brier_score."""

import numpy as np
import pytest
import sklearn.metrics as skm
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


# d2_brier_score: binary (1-D) and multiclass (K = 5 columns), 10^3 and 10^7 rows (the scaled
# size: 10^5 under --benchmark-disable). scikit-learn forms the one-hot targets, the tiled
# null-model matrix and two (n, K) squared-difference matrices; fastmetrics one pass (plus a
# class count) and the null model's Brier score in closed form.
D2_K = 5


@pytest.fixture(scope="module", params=[10**3, 10**7], ids=["1e3", "1e7"])
def d2_data(request, scaled):
    n = scaled(request.param) if request.param > 10**3 else request.param
    rng = np.random.default_rng(2025)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int64)
    yk = rng.integers(0, D2_K, n)
    P = rng.dirichlet(np.ones(D2_K), n)
    cases = {"binary": (y, p), f"K={D2_K}": (yk, P)}
    return request.param, cases, {k: skm.d2_brier_score(*v) for k, v in cases.items()}


@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
@pytest.mark.parametrize("case", ["binary", f"K={D2_K}"])
def test_d2_brier_score(benchmark, d2_data, lib, case):
    size, cases, want = d2_data
    benchmark.group = f"d2_brier_score {case} n={size:.0e}"
    fn = fm.d2_brier_score if lib == "fastmetrics" else skm.d2_brier_score
    if size > 10**5:
        got = benchmark.pedantic(fn, args=cases[case], rounds=3, iterations=1)
    else:
        got = benchmark(fn, *cases[case])
    assert got == pytest.approx(want[case], rel=1e-12)


# One-pass kernels against one read of their inputs (``np.add.reduce`` of each), 10^7
# samples, one thread: ``python benchmarks/ratios.py`` prints each call's ratio to the read
# (the group's "vs fastmetrics" column of the read is 1 / that ratio). The goal is 1.5x.
READ_ONCE = {
    "calibration_summary": lambda y, p, w: fm.calibration_summary(y, p, n_threads=1).brier,
    "expected_calibration_error": lambda y, p, w: fm.expected_calibration_error(y, p,
                                                                                n_threads=1),
    "brier_score_loss": lambda y, p, w: fm.brier_score_loss(y, p, n_threads=1),
    "brier_score_loss weighted": lambda y, p, w: fm.brier_score_loss(y, p, sample_weight=w,
                                                                     n_threads=1),
}


@pytest.mark.parametrize("metric", list(READ_ONCE))
@pytest.mark.parametrize("who", ["fastmetrics 1 thread", "read once"])
def test_read_once(benchmark, data, metric, who):
    y, p, brier, _ = data
    w = p  # any non-negative weights the size of the data
    benchmark.group = f"read once: {metric}"
    if who == "read once":
        arrays = (y, p, w) if metric.endswith("weighted") else (y, p)
        got = benchmark(lambda: [np.add.reduce(a) for a in arrays])
        assert got[0] == y.sum()
        return
    got = benchmark(READ_ONCE[metric], y, p, w)
    if metric == "expected_calibration_error":
        assert got == fm.calibration_summary(y, p).ece
        return
    want = sk_brier(y, p, sample_weight=w) if metric.endswith("weighted") else brier
    assert got == pytest.approx(want, rel=1e-12)
