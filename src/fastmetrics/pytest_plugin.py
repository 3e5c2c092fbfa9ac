"""pytest-benchmark integration: put fastmetrics' latency percentiles in ``extra_info``.

pytest-benchmark times a function over many rounds and reports min/mean/median; model
comparisons usually also want tail latency, measured one query at a time. An installed
fastmetrics registers this module with pytest (a ``pytest11`` entry point named
``fastmetrics.pytest_plugin``; ``-p no:fastmetrics.pytest_plugin`` turns it off), so no
conftest line is needed; from a source checkout that is not installed, add one::

    pytest_plugins = ["fastmetrics.pytest_plugin"]

Then use the ``latency_benchmark`` fixture::

    def test_model_latency(latency_benchmark, model, X_test):
        stats = latency_benchmark(model.predict, [X_test[i:i+1] for i in range(len(X_test))])
        assert stats.p99_ms < 50

The fixture runs :func:`fastmetrics.measure_latency` (warm-up, ``n_iters`` single calls on
seeded random inputs), stores ``p50_ms``, ``p95_ms``, ``p99_ms``, ``mean_ms``, ``min_ms``,
``max_ms`` and ``n_iters`` in ``benchmark.extra_info`` (so they appear in ``--benchmark-json``
output and ``pytest-benchmark compare``), and also lets pytest-benchmark time the same
function on one fixed input, so the test has its usual benchmark row too.

Without the fixture, :func:`record_latency` stores any :class:`~fastmetrics.LatencyStats`
(or raw nanosecond samples) in a ``benchmark``'s ``extra_info``, and
:func:`percentiles_from_benchmark` turns pytest-benchmark's own per-round timings into a
``LatencyStats`` after ``benchmark(...)`` has run.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np
import pytest

from .timing import DEFAULT_N_ITERS, DEFAULT_WARMUP, LatencyStats, latency_stats, measure_latency

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["record_latency", "percentiles_from_benchmark", "latency_benchmark"]


def record_latency(benchmark: Any, stats: LatencyStats | ArrayLike, *,
                   prefix: str = "") -> LatencyStats:
    """Store a latency summary in ``benchmark.extra_info`` (keys ``{prefix}p50_ms`` ...).

    Values are stored unrounded (sub-microsecond calls would round to 0 ms), so they land in
    pytest-benchmark's JSON report beside its own timings.

    Parameters
    ----------
    benchmark : pytest_benchmark.fixture.BenchmarkFixture
        pytest-benchmark's ``benchmark`` fixture (anything with an ``extra_info`` dict).
    stats : LatencyStats or sequence of float
        A latency summary, or durations in nanoseconds to summarise.
    prefix : str, default=""
        Prepended to every key.

    Returns
    -------
    stats : LatencyStats
        The summary stored (computed from the durations when those were given).

    See Also
    --------
    fastmetrics.latency_stats : Summarises durations.
    percentiles_from_benchmark : The percentiles of pytest-benchmark's own rounds.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from fastmetrics.pytest_plugin import record_latency
    >>> bench = SimpleNamespace(extra_info={})
    >>> record_latency(bench, [1e6, 2e6, 3e6]).p50_ms
    2.0
    >>> bench.extra_info["p50_ms"]
    2.0
    """
    if not isinstance(stats, LatencyStats):
        stats = latency_stats(stats)
    for key, value in asdict(stats).items():
        benchmark.extra_info[prefix + key] = value
    return stats


def percentiles_from_benchmark(benchmark: Any, *, prefix: str = "round_") -> LatencyStats | None:
    """Latency percentiles of the rounds pytest-benchmark has timed (None when disabled).

    Each round's time is divided by its iteration count, so this is the per-call time. The
    result is also stored in ``extra_info`` under ``prefix``.

    Parameters
    ----------
    benchmark : pytest_benchmark.fixture.BenchmarkFixture
        pytest-benchmark's ``benchmark`` fixture, after it has run.
    prefix : str, default="round\\_"
        Prepended to the keys stored in ``extra_info``.

    Returns
    -------
    stats : LatencyStats or None
        The per-call latency percentiles of the timed rounds; None when no round was timed
        (``--benchmark-disable``).

    See Also
    --------
    record_latency : Stores a summary under ``extra_info``.
    latency_benchmark : The fixture that times a callable per input.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from fastmetrics.pytest_plugin import percentiles_from_benchmark
    >>> print(percentiles_from_benchmark(SimpleNamespace(extra_info={})))
    None
    """
    meta = getattr(benchmark, "stats", None)
    data = getattr(getattr(meta, "stats", None), "data", None)
    if not data:
        return None
    ns = np.asarray(data, dtype=np.float64) * 1e9
    return record_latency(benchmark, ns, prefix=prefix)


@pytest.fixture
def latency_benchmark(benchmark: Any) -> Callable[..., LatencyStats]:
    """pytest fixture: ``latency_benchmark(fn, inputs, *, warmup=10, n_iters=200, seed=0)``.

    The fixture's value is a function that measures ``fn`` on single inputs drawn from
    ``inputs`` (:func:`fastmetrics.measure_latency`: warm-up calls, then ``n_iters`` timed
    calls), stores the percentiles in pytest-benchmark's ``extra_info`` and returns them as a
    :class:`~fastmetrics.LatencyStats`. pytest loads it through fastmetrics' ``pytest11`` entry
    point: no conftest line is needed.

    Parameters
    ----------
    benchmark : pytest_benchmark.fixture.BenchmarkFixture
        pytest-benchmark's fixture, which pytest provides.

    Returns
    -------
    run : callable
        ``run(fn, inputs, *, warmup=10, n_iters=200, seed=0) -> LatencyStats``.

    See Also
    --------
    fastmetrics.measure_latency : The measurement, outside pytest.
    record_latency : Stores any latency summary in ``extra_info``.

    Examples
    --------
    In a test file::

        def test_predict_latency(latency_benchmark):
            stats = latency_benchmark(model.predict, rows, n_iters=100)
            assert stats.p99_ms < 50
    """

    def run(fn: Callable[[Any], object], inputs: Any, *, warmup: int = DEFAULT_WARMUP,
            n_iters: int = DEFAULT_N_ITERS, seed: int | None = 0) -> LatencyStats:
        stats = measure_latency(fn, inputs, warmup=warmup, n_iters=n_iters, seed=seed)
        record_latency(benchmark, stats)
        benchmark(fn, inputs[0])  # under --benchmark-disable: one plain call
        return stats

    return run
