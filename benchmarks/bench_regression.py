"""Regression metrics on 10^7 float64: fastmetrics vs scikit-learn, each metric, and MAE +
MSE + RMSE + R² together from one fastmetrics pass; (n, 8) multioutput targets at 10^3 and
10^7 rows (C- and F-ordered for fastmetrics); max_error and explained_variance_score at 10^3
and 10^7."""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

METRICS = [
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
    "r2_score",
    "mean_absolute_percentage_error",
    "median_absolute_error",
]


@pytest.fixture(scope="module")
def data(scaled):
    rng = np.random.default_rng(7)
    n = scaled(10**7)
    y_true = rng.normal(10.0, 3.0, n)
    y_pred = y_true + rng.normal(0.0, 1.0, n)
    expected = {m: getattr(skm, m)(y_true, y_pred) for m in METRICS}
    return y_true, y_pred, expected


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
def test_metric(benchmark, data, metric, lib):
    y_true, y_pred, expected = data
    benchmark.group = f"regression: {metric}"
    f = getattr(fm if lib == "fastmetrics" else skm, metric)
    assert benchmark(f, y_true, y_pred) == pytest.approx(expected[metric], rel=1e-10)


@pytest.mark.benchmark(group="regression: MAE+MSE+RMSE+R2")
def test_fastmetrics_summary_one_pass(benchmark, data):
    y_true, y_pred, expected = data
    s = benchmark(fm.regression_summary, y_true, y_pred)
    assert s.mae == pytest.approx(expected["mean_absolute_error"], rel=1e-10)
    assert s.rmse == pytest.approx(expected["root_mean_squared_error"], rel=1e-10)
    assert s.r2 == pytest.approx(expected["r2_score"], rel=1e-10)


@pytest.mark.benchmark(group="regression: MAE+MSE+RMSE+R2")
def test_sklearn_four_metrics(benchmark, data):
    y_true, y_pred, expected = data

    def run():
        return [getattr(skm, m)(y_true, y_pred) for m in METRICS[:4]]

    got = benchmark(run)
    assert got == [expected[m] for m in METRICS[:4]]


# ------------------------------------------------------------------------- multioutput

MULTI = ["mean_absolute_error", "mean_squared_error", "r2_score"]


@pytest.fixture(scope="module", params=["1e3", "1e7"])
def multi(request, scaled):
    """(n, 8) targets, C-ordered (F-ordered copies for fastmetrics' F case), with
    scikit-learn's per-output values."""
    rng = np.random.default_rng(8)
    n = 1000 if request.param == "1e3" else scaled(10**7)
    y_true = rng.normal(10.0, 3.0, (n, 8))
    y_pred = y_true + rng.normal(0.0, 1.0, (n, 8))
    expected = {m: getattr(skm, m)(y_true, y_pred, multioutput="raw_values") for m in MULTI}
    return request.param, y_true, y_pred, expected


@pytest.mark.parametrize("metric", MULTI)
@pytest.mark.parametrize("lib", ["fastmetrics", "fastmetrics F-order", "sklearn"])
def test_multioutput(benchmark, multi, metric, lib):
    size, y_true, y_pred, expected = multi
    benchmark.group = f"regression multioutput m=8, n={size}: {metric}"
    if lib == "fastmetrics F-order":
        y_true, y_pred = np.asfortranarray(y_true), np.asfortranarray(y_pred)
    f = getattr(fm if lib.startswith("fastmetrics") else skm, metric)
    if lib == "sklearn" and y_true.shape[0] > 10**5:  # seconds a call: a few rounds only
        got = benchmark.pedantic(f, (y_true, y_pred), {"multioutput": "raw_values"},
                                 rounds=3, iterations=1)
    else:
        got = benchmark(f, y_true, y_pred, multioutput="raw_values")
    np.testing.assert_allclose(got, expected[metric], rtol=1e-10)


# ------------------------------------------------------------------- max error, explained variance

ONE_D = ["max_error", "explained_variance_score"]


@pytest.fixture(scope="module", params=["1e3", "1e7"])
def one_d(request, scaled):
    """1-D float64 targets at 10^3 and 10^7 samples, with scikit-learn's values."""
    rng = np.random.default_rng(9)
    n = 1000 if request.param == "1e3" else scaled(10**7)
    y_true = rng.normal(10.0, 3.0, n)
    y_pred = y_true + rng.normal(0.0, 1.0, n)
    expected = {m: getattr(skm, m)(y_true, y_pred) for m in ONE_D}
    return request.param, y_true, y_pred, expected


@pytest.mark.parametrize("metric", ONE_D)
@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
def test_one_d(benchmark, one_d, metric, lib):
    size, y_true, y_pred, expected = one_d
    benchmark.group = f"regression: {metric}, n={size}"
    f = getattr(fm if lib == "fastmetrics" else skm, metric)
    if lib == "sklearn" and y_true.shape[0] > 10**5:  # a few rounds only
        got = benchmark.pedantic(f, (y_true, y_pred), rounds=3, iterations=1)
    else:
        got = benchmark(f, y_true, y_pred)
    assert got == pytest.approx(expected[metric], rel=1e-12)


# One-pass sums against one read of their inputs (``np.add.reduce`` of each), 10^7 samples,
# one thread: ``python benchmarks/ratios.py`` prints the ratio (goal: 1.5x).
@pytest.mark.parametrize("metric", ["regression_summary", "mean_squared_error",
                                    "mean_absolute_error", "regression_summary weighted"])
@pytest.mark.parametrize("who", ["fastmetrics 1 thread", "read once"])
def test_read_once(benchmark, data, metric, who):
    y_true, y_pred, expected = data
    w = np.abs(y_pred)
    weighted = metric.endswith("weighted")
    benchmark.group = f"read once: {metric}"
    if who == "read once":
        arrays = (y_true, y_pred, w) if weighted else (y_true, y_pred)
        got = benchmark(lambda: [np.add.reduce(a) for a in arrays])
        assert got[0] == y_true.sum()
        return
    name = metric.split(" ")[0]
    kw = {"sample_weight": w} if weighted else {}
    got = benchmark(getattr(fm, name), y_true, y_pred, n_threads=1, **kw)
    if name == "regression_summary":
        assert got.r2 == pytest.approx(skm.r2_score(y_true, y_pred, **kw), rel=1e-10)
    else:
        assert got == pytest.approx(expected[name], rel=1e-10)
