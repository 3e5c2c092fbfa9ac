"""Thread scaling of the parallel kernels: the same call on 1 and 2 OpenMP threads.

Run: python -m pytest benchmarks/bench_parallel.py --benchmark-only
     (10^8 int32 labels: two 400 MB arrays; the issue's target is 2 threads >= 1.6x one thread
     on a 2-core machine, where memory bandwidth allows)

Each benchmark checks its result against the one-thread result of the same data (integer
states: identical; float states: the same bits, since the lanes depend only on n).
"""

import numpy as np
import pytest

import fastmetrics as fm

K = 10


@pytest.fixture(scope="module")
def labels_1e8(scaled):
    rng = np.random.default_rng(99)
    n = scaled(10**8)
    yt = rng.integers(0, K, n, dtype=np.int32)
    yp = np.where(rng.random(n, dtype=np.float32) < 0.7, yt, rng.integers(0, K, n, dtype=np.int32))
    # the reference: np.bincount over int64 pair codes, in blocks to bound its memory
    ref = np.zeros(K * K, np.int64)
    step = 1 << 24
    for i in range(0, n, step):
        ref += np.bincount(yt[i:i + step].astype(np.int64) * K + yp[i:i + step], minlength=K * K)
    return yt, yp, ref.reshape(K, K)


@pytest.fixture(scope="module")
def probs_1e7(scaled):
    rng = np.random.default_rng(5)
    n = scaled(10**7)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int8)
    w = rng.random(n)
    return y, p, w


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.benchmark(group="parallel confusion_matrix 1e8 int32 K=10")
def test_confusion_threads(benchmark, labels_1e8, n_threads):
    yt, yp, ref = labels_1e8
    got = benchmark.pedantic(fm.confusion_matrix, args=(yt, yp), kwargs={"n_threads": n_threads},
                             rounds=5, iterations=1)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.benchmark(group="parallel weighted confusion_matrix 1e7")
def test_weighted_confusion_threads(benchmark, probs_1e7, n_threads):
    y, p, w = probs_1e7
    yp = (p > 0.5).astype(np.int8)
    got = benchmark(fm.confusion_matrix, y, yp, sample_weight=w, n_threads=n_threads)
    # same bits for any thread count
    np.testing.assert_array_equal(got, fm.confusion_matrix(y, yp, sample_weight=w, n_threads=1))
    np.testing.assert_allclose(got.sum(), w.sum(), rtol=1e-9)
