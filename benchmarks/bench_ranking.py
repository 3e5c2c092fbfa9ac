"""ROC AUC / average precision: fastmetrics vs scikit-learn on the same seeded data."""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

FUNCS = ["roc_auc_score", "average_precision_score"]


@pytest.fixture(scope="module", params=[10**3, 10**7], ids=["1e3", "1e7"])
def data(request, scaled):
    n = scaled(request.param) if request.param > 10**3 else request.param
    rng = np.random.default_rng(2024)
    y = rng.integers(0, 2, n)
    s = rng.random(n)
    return request.param, y, s


@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
@pytest.mark.parametrize("name", FUNCS)
def test_binary(benchmark, data, lib, name):
    size, y, s = data
    benchmark.group = f"{name} n={size:.0e}"
    fn = getattr(fm if lib == "fastmetrics" else skm, name)
    if size > 10**5:
        got = benchmark.pedantic(fn, args=(y, s), rounds=3, iterations=1)
    else:
        got = benchmark(fn, y, s)
    assert got == pytest.approx(getattr(skm, name)(y, s), rel=1e-12)
