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


# det_curve: the sorted summary (one radix-sort pass) against scikit-learn's argsort
@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
def test_det_curve(benchmark, data, lib):
    size, y, s = data
    benchmark.group = f"det_curve n={size:.0e}"
    fn = fm.det_curve if lib == "fastmetrics" else skm.det_curve
    if size > 10**5:
        got = benchmark.pedantic(fn, args=(y, s), rounds=3, iterations=1)
    else:
        got = benchmark(fn, y, s)
    for a, b in zip(got, skm.det_curve(y, s)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# multilabel ranking over (n, 10) matrices: scikit-learn loops over rows in Python for LRAP,
# the ranking loss and the tie-averaged DCG, so the large size is 10^5 rows (10^6 cells)
MULTILABEL = ["coverage_error", "label_ranking_average_precision_score", "label_ranking_loss",
              "dcg_score"]


@pytest.fixture(scope="module", params=[10**3, 10**5], ids=["1e3", "1e5"])
def matrices(request, scaled):
    n = scaled(request.param) if request.param > 10**3 else request.param
    rng = np.random.default_rng(2025)
    y = (rng.random((n, 10)) < 0.3).astype(np.int64)
    s = rng.integers(0, 50, (n, 10)) / 49.0  # ties, as rounded scores have
    return request.param, y, s


@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
@pytest.mark.parametrize("name", MULTILABEL)
def test_multilabel_ranking(benchmark, matrices, lib, name):
    size, y, s = matrices
    benchmark.group = f"{name} n={size:.0e}x10"
    fn = getattr(fm if lib == "fastmetrics" else skm, name)
    if size > 10**3:
        got = benchmark.pedantic(fn, args=(y, s), rounds=3, iterations=1)
    else:
        got = benchmark(fn, y, s)
    assert got == pytest.approx(getattr(skm, name)(y, s), rel=1e-12)
