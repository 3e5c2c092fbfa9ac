"""Streaming vs one shot: 10^8 int32 labels (K = 10) fed to a ConfusionAccumulator in chunks
of 10^6, against one ``confusion_matrix`` call on the same arrays, in the same group.

Issue 7's target: streaming at least 80% of the one-shot throughput.

Run: python -m pytest benchmarks/bench_streaming.py --benchmark-only
(under --benchmark-disable the data is 100x smaller: 10^6 labels in chunks of 10^4)
"""

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.streaming import ConfusionAccumulator, RegressionAccumulator

K = 10
GROUP = "streaming 1e8 int32 labels, chunks of 1e6, K=10"


@pytest.fixture(scope="module")
def stream_data(scaled):
    rng = np.random.default_rng(77)
    n = scaled(10**8)
    yt = rng.integers(0, K, n, dtype=np.int32)
    yp = yt.copy()
    flip = rng.random(n) < 0.3
    yp[flip] = rng.integers(0, K, int(flip.sum()), dtype=np.int32)
    ref = np.bincount(yt.astype(np.int64) * K + yp, minlength=K * K).reshape(K, K)
    return yt, yp, scaled(10**6), ref


def _stream(yt, yp, chunk, labels=np.arange(K), n_threads=None):
    acc = ConfusionAccumulator(labels=labels)
    for i in range(0, yt.shape[0], chunk):
        acc.update(yt[i:i + chunk], yp[i:i + chunk], n_threads=n_threads)
    return acc.confusion_matrix()


@pytest.mark.benchmark(group=GROUP)
def test_stream_confusion_accumulator(benchmark, stream_data):
    """Fixed labels, default threads: each chunk is counted into the running table."""
    yt, yp, chunk, ref = stream_data
    res = benchmark.pedantic(_stream, args=(yt, yp, chunk), rounds=5, iterations=1)
    np.testing.assert_array_equal(res, ref)


@pytest.mark.benchmark(group=GROUP)
def test_stream_confusion_accumulator_1thread(benchmark, stream_data):
    """The same on one thread per update (compare with the one-thread call)."""
    yt, yp, chunk, ref = stream_data
    res = benchmark.pedantic(_stream, args=(yt, yp, chunk), kwargs={"n_threads": 1},
                             rounds=5, iterations=1)
    np.testing.assert_array_equal(res, ref)


@pytest.mark.benchmark(group=GROUP)
def test_stream_confusion_accumulator_discovered_labels(benchmark, stream_data):
    """labels=None: every chunk builds its own state over the labels it holds, then merges."""
    yt, yp, chunk, ref = stream_data
    res = benchmark.pedantic(_stream, args=(yt, yp, chunk), kwargs={"labels": None},
                             rounds=5, iterations=1)
    np.testing.assert_array_equal(res, ref)


@pytest.mark.benchmark(group=GROUP)
def test_one_shot_confusion_matrix(benchmark, stream_data):
    yt, yp, _, ref = stream_data
    res = benchmark.pedantic(fm.confusion_matrix, args=(yt, yp), rounds=5, iterations=1)
    np.testing.assert_array_equal(res, ref)


@pytest.mark.benchmark(group=GROUP)
def test_one_shot_confusion_matrix_1thread(benchmark, stream_data):
    yt, yp, _, ref = stream_data
    res = benchmark.pedantic(fm.confusion_matrix, args=(yt, yp), kwargs={"n_threads": 1},
                             rounds=5, iterations=1)
    np.testing.assert_array_equal(res, ref)


# -- regression sums, 10^7 float64 pairs in chunks of 10^5 --------------------------------

REG_GROUP = "streaming regression 1e7 float64, chunks of 1e5"


@pytest.fixture(scope="module")
def reg_data(scaled):
    rng = np.random.default_rng(78)
    n = scaled(10**7)
    y = rng.standard_normal(n)
    return y, y + 0.1 * rng.standard_normal(n), scaled(10**5)


def _stream_reg(y, p, chunk):
    acc = RegressionAccumulator()
    for i in range(0, y.shape[0], chunk):
        acc.update(y[i:i + chunk], p[i:i + chunk])
    return acc.result()


@pytest.mark.benchmark(group=REG_GROUP)
def test_stream_regression_accumulator(benchmark, reg_data):
    y, p, chunk = reg_data
    res = benchmark.pedantic(_stream_reg, args=(y, p, chunk), rounds=5, iterations=1)
    np.testing.assert_allclose(res.mse, np.mean((p - y) ** 2), rtol=1e-10)


@pytest.mark.benchmark(group=REG_GROUP)
def test_one_shot_regression_summary(benchmark, reg_data):
    y, p, _ = reg_data
    res = benchmark.pedantic(fm.regression_summary, args=(y, p), rounds=5, iterations=1)
    np.testing.assert_allclose(res.mse, np.mean((p - y) ** 2), rtol=1e-10)
