"""Benchmarks: fastmetrics and its reference (scikit-learn / numpy) in the same pytest-benchmark
``group``, on the same seeded data, in the same run. Every benchmark asserts its result is
right, so ``--benchmark-disable`` (as CI runs them) still checks they work.

Sizes default to what fits a 2-core, 24 GiB machine; set FASTMETRICS_BENCH_SCALE=0.01 for a
quick pass.
"""

import os

import numpy as np
import pytest

SCALE = float(os.environ.get("FASTMETRICS_BENCH_SCALE", "1"))


def pytest_configure(config):
    # Under --benchmark-disable (CI) each benchmark runs once as a correctness check: use
    # small data unless a scale is set explicitly.
    global SCALE
    if "FASTMETRICS_BENCH_SCALE" not in os.environ and config.getoption(
        "benchmark_disable", default=False
    ):
        SCALE = 0.01


@pytest.fixture(scope="session")
def scaled():
    """``scaled(n)``: n times the benchmark scale (at least 10)."""

    def _scaled(n: int) -> int:
        return max(10, int(n * SCALE))

    return _scaled


@pytest.fixture(scope="session")
def rng():
    return np.random.default_rng(12345)
