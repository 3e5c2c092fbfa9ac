"""timing: latency_stats against numpy, measure_latency with functions of known cost, warm-up
exclusion and seeded inputs, measure_batch, benchmark_model, the results log, the
pytest-benchmark helpers."""

import math
import time
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, strategies as st

import fastmetrics as fm
from fastmetrics import timing
from fastmetrics.pytest_plugin import latency_benchmark  # noqa: F401  (the fixture)
from fastmetrics.pytest_plugin import percentiles_from_benchmark, record_latency


# -- latency_stats ---------------------------------------------------------------------------


def _expected(samples):
    a = np.asarray(samples)
    p = np.percentile(a, [50, 95, 99]) / 1e6
    return p, a.mean() / 1e6, a.min() / 1e6, a.max() / 1e6


@given(st.lists(st.integers(0, 10**12), min_size=1, max_size=700), st.booleans())
def test_latency_stats_matches_numpy(samples, as_float):
    a = np.array(samples, dtype=np.float64 if as_float else np.int64)
    s = fm.latency_stats(a)
    p, mean, lo, hi = _expected(a)
    assert (s.p50_ms, s.p95_ms, s.p99_ms) == tuple(p)  # bit for bit
    assert s.mean_ms == pytest.approx(mean, rel=1e-12)
    assert (s.min_ms, s.max_ms, s.n_iters) == (lo, hi, len(samples))


def test_latency_stats_inputs():
    rng = np.random.default_rng(0)
    big = rng.integers(10**4, 10**8, 2_000_000)  # radix path inside latency_summary
    s = fm.latency_stats(big)
    assert (s.p50_ms, s.p95_ms, s.p99_ms) == tuple(np.percentile(big, [50, 95, 99]) / 1e6)
    for conv in (list, lambda a: a.astype(np.int32), lambda a: a.astype(">i8"),
                 lambda a: a[::2].astype(float)[::1]):
        x = conv(big[:501])
        s = fm.latency_stats(x)
        assert s.p95_ms == np.percentile(np.asarray(x), 95) / 1e6
    strided = big[::3]
    assert fm.latency_stats(strided).p99_ms == np.percentile(strided, 99) / 1e6
    assert fm.latency_stats([7]).as_row() == {
        "p50_ms": 0.0, "p95_ms": 0.0, "p99_ms": 0.0, "mean_ms": 0.0, "min_ms": 0.0,
        "max_ms": 0.0, "n_iters": 1}


def test_latency_stats_bad_input():
    with pytest.raises(ValueError, match="empty"):
        fm.latency_stats([])
    with pytest.raises(ValueError, match="NaN"):
        fm.latency_stats([1.0, float("nan")])
    with pytest.raises(ValueError, match="negative"):
        fm.latency_stats([5, -1])
    with pytest.raises(ValueError, match="1-D"):
        fm.latency_stats(np.ones((2, 2)))
    with pytest.raises(TypeError, match="numeric"):
        fm.latency_stats(["a"])


# -- measure_latency -------------------------------------------------------------------------


def test_measure_latency_known_cost():
    delay = 0.002

    def slow(_):
        time.sleep(delay)

    s = fm.measure_latency(slow, [0, 1, 2], warmup=1, n_iters=15)
    assert s.n_iters == 15
    assert s.min_ms >= delay * 1e3  # sleep never returns early
    assert s.p50_ms < delay * 1e3 + 50  # and a quiet run is not off by orders of magnitude
    assert s.min_ms <= s.p50_ms <= s.p95_ms <= s.p99_ms <= s.max_ms
    fast = fm.measure_latency(abs, [1, -2], warmup=0, n_iters=50)
    assert fast.p50_ms < s.min_ms


def test_measure_latency_excludes_warmup():
    calls = []

    def fn(x):
        calls.append(x)
        if len(calls) <= 3:  # the first calls are slow, as a cold model is
            time.sleep(0.05)

    s = fm.measure_latency(fn, list(range(10)), warmup=3, n_iters=20)
    assert len(calls) == 23
    assert s.max_ms < 50  # none of the slow calls was timed
    s = fm.measure_latency(lambda x: time.sleep(0.02) if x == "cold" else None,
                           ["cold"], warmup=0, n_iters=2)
    assert s.min_ms >= 20  # warmup=0: every call is timed


def test_measure_latency_inputs_are_seeded():
    def record(seed):
        seen = []
        fm.measure_latency(seen.append, list(range(1000)), warmup=0, n_iters=30, seed=seed)
        return seen

    a, b, c = record(0), record(0), record(1)
    assert a == b and a != c
    assert a == timing.chosen_indices(1000, 30, 0).tolist()
    seen = []
    fm.measure_latency(seen.append, np.arange(100) * 10, warmup=4, n_iters=6, seed=3)
    chosen = (timing.chosen_indices(100, 6, 3) * 10).tolist()
    assert seen == chosen[:4] + chosen  # warm-up on the first drawn inputs, then one at a time


def test_measure_latency_bad_args():
    with pytest.raises(TypeError, match="callable"):
        fm.measure_latency(3, [1])
    with pytest.raises(ValueError, match="empty"):
        fm.measure_latency(abs, [])
    with pytest.raises(ValueError, match="n_iters"):
        fm.measure_latency(abs, [1], n_iters=0)
    with pytest.raises(TypeError, match="warmup"):
        fm.measure_latency(abs, [1], warmup=1.5)


# -- measure_batch ---------------------------------------------------------------------------


def test_measure_batch():
    seen = []

    def fn(X):
        seen.append(len(X))
        time.sleep(0.01 if len(X) == 100 else 0)

    b = fm.measure_batch(fn, np.zeros((100, 3)), warmup=5)
    assert seen == [5, 100]
    assert b.n_samples == 100 and b.seconds >= 0.01
    assert b.throughput == pytest.approx(100 / b.seconds)


def test_measure_batch_zero_time_is_inf(monkeypatch):
    monkeypatch.setattr(timing.time, "perf_counter_ns", lambda: 123)
    b = fm.measure_batch(len, [1, 2, 3])
    assert b.seconds == 0.0 and b.throughput == math.inf


# -- benchmark_model / append_results --------------------------------------------------------


class ProbaModel:
    """predict() returns class probabilities, as some non-sklearn models do."""

    def fit(self, X, y):
        self.k = int(np.max(y)) + 1
        return self

    def predict(self, X):
        X = np.asarray(X)
        p = np.zeros((X.shape[0], self.k))
        p[np.arange(X.shape[0]), X[:, 0].astype(int) % self.k] = 1.0
        return p


def test_benchmark_model_classification():
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, f1_score

    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    r = fm.benchmark_model(LogisticRegression(), X[:200], y[:200], X[200:], y[200:],
                           n_iters=20, warmup=2)
    pred = LogisticRegression().fit(X[:200], y[:200]).predict(X[200:])
    assert r.metrics["accuracy"] == pytest.approx(accuracy_score(y[200:], pred), rel=1e-12)
    assert r.metrics["macro_f1"] == pytest.approx(f1_score(y[200:], pred, average="macro"),
                                                  rel=1e-12)
    assert r.latency.n_iters == 20 and r.batch.n_samples == 100 and r.fit_seconds > 0
    flat = r.to_flat_dict()
    assert flat["metrics.accuracy"] == r.metrics["accuracy"]
    assert flat["latency.p95_ms"] == r.latency.p95_ms and flat["batch.n_samples"] == 100
    # probabilities -> labels by argmax
    Xi = rng.integers(0, 3, (50, 2)).astype(float)
    yi = Xi[:, 0].astype(int)
    r = fm.benchmark_model(ProbaModel(), Xi, yi, Xi, yi, n_iters=5)
    assert r.metrics["accuracy"] == 1.0 and r.metrics["macro_f1"] == 1.0


def test_benchmark_model_regression():
    from sklearn.linear_model import Ridge
    from sklearn.metrics import mean_squared_error, r2_score

    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 3))
    y = X @ [1.0, -2.0, 0.5] + rng.standard_normal(200) * 0.1
    r = fm.benchmark_model(Ridge(), X[:150], y[:150], X[150:], y[150:].reshape(-1, 1),
                           task="regression", n_iters=10)
    pred = Ridge().fit(X[:150], y[:150]).predict(X[150:])
    assert r.metrics["r2"] == pytest.approx(r2_score(y[150:], pred), rel=1e-12)
    assert r.metrics["mse"] == pytest.approx(mean_squared_error(y[150:], pred), rel=1e-12)
    with pytest.raises(ValueError, match="task"):
        fm.benchmark_model(Ridge(), X, y, X, y, task="ranking")


@dataclass
class _Metrics:
    accuracy: float
    macro_f1: float
    oos_recall: float | None = None


def test_append_results(tmp_path):
    path = tmp_path / "RESULTS.md"
    lat = fm.latency_stats([1_000_000, 3_000_000])
    fm.append_results(path, "tfidf-lr", _Metrics(0.9, 0.85, 0.5), lat)
    fm.append_results(str(path), "baseline", _Metrics(0.5, 0.4))
    lines = path.read_text().splitlines()
    assert "\n".join(lines[:2]) + "\n" == fm.RESULTS_HEADER
    assert len(lines) == 4  # header written once, then one row per call
    assert lines[2].startswith("| tfidf-lr | 0.9000 | 0.8500 | 0.5000 | 2.0 |")
    assert lines[3] == "| baseline | 0.5000 | 0.4000 | N/A | N/A | N/A |"
    header_cols = [c.strip() for c in lines[0].strip("|").split("|")]
    assert len(header_cols) == len(lines[3].strip("|").split("|"))


# -- pytest-benchmark ------------------------------------------------------------------------


def test_record_latency_into_extra_info(benchmark):
    benchmark(sum, range(100))
    stats = record_latency(benchmark, [1_000_000, 2_000_000, 4_000_000], prefix="model_")
    assert benchmark.extra_info["model_p50_ms"] == stats.p50_ms == 2.0
    assert benchmark.extra_info["model_n_iters"] == 3
    rounds = percentiles_from_benchmark(benchmark)
    if rounds is not None:  # None under --benchmark-disable
        assert benchmark.extra_info["round_p50_ms"] == rounds.p50_ms > 0


def test_latency_benchmark_fixture(latency_benchmark, benchmark):
    stats = latency_benchmark(abs, [-1, 2, -3], warmup=1, n_iters=25)
    assert stats.n_iters == 25
    assert benchmark.extra_info["p99_ms"] == stats.p99_ms
