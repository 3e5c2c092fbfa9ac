"""percentile vs numpy.percentile on 10**7 values (three percentiles in one call), and the
200-sample latency summary. Each benchmark checks its result against numpy."""

import tracemalloc

import numpy as np
import pytest

import fastmetrics as fm

Q = [50, 95, 99]


@pytest.fixture(scope="module", params=["float64-normal", "float64-uniform", "int64"])
def data(request, scaled):
    rng = np.random.default_rng(2024)
    n = scaled(10**7)
    if request.param == "float64-normal":
        a = rng.standard_normal(n)
    elif request.param == "float64-uniform":
        a = rng.random(n)
    else:
        a = rng.integers(0, 10**9, n)
    return request.param, a, np.percentile(a, Q)


def test_percentile_fastmetrics(benchmark, data):
    name, a, expected = data
    benchmark.group = f"percentile [50,95,99] {name} n={a.size}"
    got = benchmark(fm.percentile, a, Q)
    assert np.array_equal(got, expected)


def test_percentile_numpy(benchmark, data):
    name, a, expected = data
    benchmark.group = f"percentile [50,95,99] {name} n={a.size}"
    got = benchmark(np.percentile, a, Q)
    assert np.array_equal(got, expected)


def test_percentile_memory(data):
    """No N-sized allocation: peak traced memory stays at the fixed scratch (numpy copies)."""
    _, a, expected = data
    tracemalloc.start()
    try:
        got = fm.percentile(a, Q)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(got, expected)
    assert peak < 12 * 2**20


@pytest.fixture(scope="module")
def samples():
    return np.random.default_rng(5).integers(50_000, 5_000_000, 200)  # ns, one model's run


def _numpy_latency(s):
    p50, p95, p99 = np.percentile(s, Q) / 1e6
    return p50, p95, p99, s.mean() / 1e6, s.min() / 1e6, s.max() / 1e6


def test_latency_stats_fastmetrics(benchmark, samples):
    benchmark.group = "latency summary of 200 samples"
    s = benchmark(fm.latency_stats, samples)
    assert (s.p50_ms, s.p95_ms, s.p99_ms) == _numpy_latency(samples)[:3]


def test_latency_stats_numpy(benchmark, samples):
    benchmark.group = "latency summary of 200 samples"
    r = benchmark(_numpy_latency, samples)
    assert r[0] == fm.latency_stats(samples).p50_ms
