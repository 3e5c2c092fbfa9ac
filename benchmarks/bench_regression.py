"""Regression metrics on 10^7 float64: fastmetrics vs scikit-learn, each metric, and MAE +
MSE + RMSE + R² together from one fastmetrics pass."""

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
