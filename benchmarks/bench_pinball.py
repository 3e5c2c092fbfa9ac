"""Pinball (quantile) losses at 10^3 and 10^7 float64 samples: fastmetrics vs scikit-learn,
``mean_pinball_loss`` (one kernel pass), ``d2_pinball_score`` unweighted (an O(N)
selection of the quantile, then two passes) and weighted (a sort, as scikit-learn)."""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

CASES = {
    "mean_pinball_loss": {"alpha": 0.9},
    "d2_pinball_score": {"alpha": 0.9},
    "d2_absolute_error_score": {},
}


@pytest.fixture(scope="module", params=["1e3", "1e7"])
def data(request, scaled):
    """1-D float64 targets and weights, with scikit-learn's values."""
    rng = np.random.default_rng(11)
    n = 1000 if request.param == "1e3" else scaled(10**7)
    y_true = rng.normal(10.0, 3.0, n)
    y_pred = y_true + rng.normal(0.0, 1.0, n)
    w = rng.random(n)
    expected = {(m, weighted): getattr(skm, m)(y_true, y_pred, sample_weight=w if weighted
                                               else None, **kw)
                for m, kw in CASES.items() for weighted in (False, True)}
    return request.param, y_true, y_pred, w, expected


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("metric", list(CASES))
@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
def test_pinball(benchmark, data, metric, weighted, lib):
    size, y_true, y_pred, w, expected = data
    benchmark.group = f"pinball: {metric}, {'weighted' if weighted else 'unweighted'}, n={size}"
    f = getattr(fm if lib == "fastmetrics" else skm, metric)
    kw = dict(CASES[metric], sample_weight=w if weighted else None)
    if lib == "sklearn" and y_true.shape[0] > 10**5:  # seconds a call: a few rounds only
        got = benchmark.pedantic(f, (y_true, y_pred), kw, rounds=3, iterations=1)
    else:
        got = benchmark(f, y_true, y_pred, **kw)
    assert got == pytest.approx(expected[(metric, weighted)], rel=1e-11)
