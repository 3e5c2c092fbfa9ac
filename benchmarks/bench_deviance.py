"""Tweedie deviances, D² Tweedie and squared log errors: fastmetrics vs scikit-learn on 1-D
float64 gamma-distributed targets at 10^3 and 10^7 samples (scikit-learn's 10^7 runs: a few
rounds only)."""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

CASES = {  # name -> (function, keyword arguments)
    "mean_poisson_deviance": ("mean_poisson_deviance", {}),
    "mean_gamma_deviance": ("mean_gamma_deviance", {}),
    "mean_tweedie_deviance(power=1.5)": ("mean_tweedie_deviance", {"power": 1.5}),
    "d2_tweedie_score(power=1.5)": ("d2_tweedie_score", {"power": 1.5}),
    "d2_tweedie_score(power=1)": ("d2_tweedie_score", {"power": 1}),
    "mean_squared_log_error": ("mean_squared_log_error", {}),
    "root_mean_squared_log_error": ("root_mean_squared_log_error", {}),
}


@pytest.fixture(scope="module", params=["1e3", "1e7"])
def data(request, scaled):
    rng = np.random.default_rng(10)
    n = 1000 if request.param == "1e3" else scaled(10**7)
    y_true = rng.gamma(2.0, 2.0, n)
    y_pred = y_true * rng.gamma(20.0, 1 / 20.0, n)
    expected = {c: getattr(skm, f)(y_true, y_pred, **kw) for c, (f, kw) in CASES.items()}
    return request.param, y_true, y_pred, expected


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
def test_deviance(benchmark, data, case, lib):
    size, y_true, y_pred, expected = data
    name, kw = CASES[case]
    benchmark.group = f"deviance: {case}, n={size}"
    f = getattr(fm if lib == "fastmetrics" else skm, name)
    if lib == "sklearn" and y_true.shape[0] > 10**5:  # seconds a call: a few rounds only
        got = benchmark.pedantic(f, (y_true, y_pred), kw, rounds=3, iterations=1)
    else:
        got = benchmark(f, y_true, y_pred, **kw)
    assert got == pytest.approx(expected[case], rel=1e-12)
