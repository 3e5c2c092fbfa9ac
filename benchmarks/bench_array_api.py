"""Torch inputs: fastmetrics (tensors read in place through DLPack) vs scikit-learn with
``array_api_dispatch`` on (its array API path on the tensors), and fastmetrics on the same
data as numpy arrays, same run.

Run: python -m pytest benchmarks/bench_array_api.py --benchmark-only
"""

import os

import numpy as np
import pytest
import sklearn
import sklearn.metrics as skm

import fastmetrics as fm

if os.environ.get("FASTMETRICS_REQUIRE_TORCH") == "1":  # set by .ci/run: no skipping there
    import torch
else:
    torch = pytest.importorskip("torch")

K = 10


@pytest.fixture(scope="module")
def data(scaled):
    rng = np.random.default_rng(2024)
    n = scaled(10**6)
    yt = rng.integers(0, K, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, K, n))
    ref = np.bincount(yt * K + yp, minlength=K * K).reshape(K, K)
    tp, t, p = np.diag(ref), ref.sum(1), ref.sum(0)
    f1 = float(np.mean(2 * tp / (t + p)))
    return yt, yp, torch.from_numpy(yt), torch.from_numpy(yp), ref, f1


@pytest.fixture
def dispatch(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # scikit-learn checks it when dispatch is set
    with sklearn.config_context(array_api_dispatch=True):
        yield


def _slow(benchmark, fn, *args, **kwargs):
    return benchmark.pedantic(fn, args=args, kwargs=kwargs, rounds=3, iterations=1)


# -- confusion matrix, 10^6 int64 torch labels, K = 10 ----------------------------------------


@pytest.mark.benchmark(group="confusion_matrix 1e6 torch K=10")
def test_cm_fastmetrics_torch(benchmark, data, dispatch):
    yt, yp, tt, tp, ref, _ = data
    got = benchmark(fm.confusion_matrix, tt, tp)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(got.numpy(), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e6 torch K=10")
def test_cm_fastmetrics_numpy(benchmark, data):
    yt, yp, tt, tp, ref, _ = data
    np.testing.assert_array_equal(benchmark(fm.confusion_matrix, yt, yp), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e6 torch K=10")
def test_cm_sklearn_torch(benchmark, data, dispatch):
    yt, yp, tt, tp, ref, _ = data
    got = _slow(benchmark, skm.confusion_matrix, tt, tp)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(got.numpy(), ref)


# -- macro F1, 10^6 int64 torch labels, K = 10 ------------------------------------------------


@pytest.mark.benchmark(group="f1 macro 1e6 torch K=10")
def test_f1_fastmetrics_torch(benchmark, data, dispatch):
    yt, yp, tt, tp, _, f1 = data
    got = benchmark(fm.f1_score, tt, tp, average="macro")
    assert type(got) is float and got == pytest.approx(f1, rel=1e-12)


@pytest.mark.benchmark(group="f1 macro 1e6 torch K=10")
def test_f1_fastmetrics_numpy(benchmark, data):
    yt, yp, tt, tp, _, f1 = data
    assert benchmark(fm.f1_score, yt, yp, average="macro") == pytest.approx(f1, rel=1e-12)


@pytest.mark.benchmark(group="f1 macro 1e6 torch K=10")
def test_f1_sklearn_torch(benchmark, data, dispatch):
    yt, yp, tt, tp, _, f1 = data
    got = _slow(benchmark, skm.f1_score, tt, tp, average="macro")
    assert got == pytest.approx(f1, rel=1e-12)


# -- the wrapper's cost on small numpy inputs (every call pays it) ----------------------------


@pytest.mark.benchmark(group="f1 1e3 numpy: the wrapper's cost")
def test_f1_small_wrapped(benchmark):
    y = np.random.default_rng(1).integers(0, 2, 1000)
    assert benchmark(fm.f1_score, y, y) == 1.0


@pytest.mark.benchmark(group="f1 1e3 numpy: the wrapper's cost")
def test_f1_small_unwrapped(benchmark):
    y = np.random.default_rng(1).integers(0, 2, 1000)
    assert benchmark(fm.f1_score.__wrapped__, y, y) == 1.0
