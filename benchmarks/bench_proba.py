"""log_loss, d2_log_loss_score and top_k_accuracy_score (k = 3) of K = 10 probabilities, and
hinge_loss of binary and K = 10 decision values:
fastmetrics vs scikit-learn on the same seeded data, 10^3 and 10^7 rows (10^5 under
--benchmark-disable: the scaled size).

scikit-learn forms the one-hot (n, K) matrix, a clipped copy of the probabilities and the
(n, K) terms (about 4 GB at 10^7 x 10); fastmetrics reads the matrix once, in place."""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

FUNCS = ["log_loss", "d2_log_loss_score", "top_k_accuracy_score"]
KW = {"top_k_accuracy_score": {"k": 3}}
K = 10


@pytest.fixture(scope="module", params=[10**3, 10**7], ids=["1e3", "1e7"])
def data(request, scaled):
    n = scaled(request.param) if request.param > 10**3 else request.param
    rng = np.random.default_rng(2024)
    y = rng.integers(0, K, n)
    P = rng.random((n, K))
    P /= P.sum(axis=1, keepdims=True)
    return request.param, y, P, {name: getattr(skm, name)(y, P, **KW.get(name, {}))
                                 for name in FUNCS}


@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
@pytest.mark.parametrize("name", FUNCS)
def test_proba(benchmark, data, lib, name):
    size, y, P, want = data
    benchmark.group = f"{name} K={K} n={size:.0e}"
    fn = getattr(fm if lib == "fastmetrics" else skm, name)
    kw = KW.get(name, {})
    if size > 10**5:
        got = benchmark.pedantic(fn, args=(y, P), kwargs=kw, rounds=3, iterations=1)
    else:
        got = benchmark(fn, y, P, **kw)
    assert got == pytest.approx(want[name], rel=1e-12)


# hinge_loss: binary 1-D decisions and multiclass (n, K = 10) decisions; scikit-learn forms
# boolean masks, a gathered copy of the margins and of the other columns (about 2 GB at
# 10^7 x 10); fastmetrics reads the decisions once, in place.
HINGE_SHAPES = ["binary", "multiclass"]


@pytest.fixture(scope="module", params=[10**3, 10**7], ids=["1e3", "1e7"])
def decisions(request, scaled):
    n = scaled(request.param) if request.param > 10**3 else request.param
    rng = np.random.default_rng(2025)
    y = rng.integers(0, K, n)
    D = rng.normal(size=(n, K))
    cases = {"binary": (y % 2, D[:, 0].copy()), "multiclass": (y, D)}
    return request.param, cases, {s: skm.hinge_loss(*cases[s]) for s in HINGE_SHAPES}


@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
@pytest.mark.parametrize("shape", HINGE_SHAPES)
def test_hinge(benchmark, decisions, lib, shape):
    size, cases, want = decisions
    benchmark.group = f"hinge_loss {shape}{f' K={K}' if shape == 'multiclass' else ''} " \
        f"n={size:.0e}"
    fn = fm.hinge_loss if lib == "fastmetrics" else skm.hinge_loss
    if size > 10**5:
        got = benchmark.pedantic(fn, args=cases[shape], rounds=3, iterations=1)
    else:
        got = benchmark(fn, *cases[shape])
    assert got == pytest.approx(want[shape], rel=1e-12)
