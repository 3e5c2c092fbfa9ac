"""Exact ROC AUC, average precision and the precision-recall curve of 10^7 binary scores:
one call on the whole arrays, against a ``RankingAccumulator`` fed 100 chunks of 10^5 and
``fastmetrics.dask`` on a 2-worker LocalCluster (processes, the data persisted on the
workers, the cluster's start outside the timing), in one group per metric. A fourth
contender merges 100 chunk states one after another, the pattern whose cost the merge walk
and the kept rows took from O(n k) down.

Run: python -m pytest benchmarks/bench_ranking_merge.py --benchmark-only
(under --benchmark-disable: 10^5 scores in chunks of 10^3; each benchmark checks its value)
"""

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.streaming import RankingAccumulator

CHUNKS = 100


@pytest.fixture(scope="module")
def cluster_data(scaled):
    """The scores generated on the workers (dask's seeded generator, 4 chunks) and persisted
    there; the in-memory contenders get the same values as numpy arrays."""
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    n = scaled(10**7)
    chunk = -(-n // 4)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        rng = da.random.default_rng(30)
        y = rng.integers(0, 2, n, chunks=chunk)
        s = rng.random(n, chunks=chunk) + 0.3 * y  # informative, every score distinct
        y, s = client.persist([y, s])
        wait([y, s])
        yield (y, s), tuple(client.compute([y, s], sync=True))


@pytest.fixture(scope="module")
def scores(cluster_data):
    return cluster_data[1]


def _streamed(y, s, method):
    acc = RankingAccumulator()
    step = -(-y.shape[0] // CHUNKS)
    for i in range(0, y.shape[0], step):
        acc.update(y[i:i + step], s[i:i + step])
    return getattr(acc, method)()


def _merged_one_by_one(y, s):
    """A state per chunk (an accumulator each), merged into the running one chunk by chunk."""
    step = -(-y.shape[0] // CHUNKS)
    acc = None
    for i in range(0, y.shape[0], step):
        part = RankingAccumulator().update(y[i:i + step], s[i:i + step])
        acc = part if acc is None else acc.merge(part)
    return acc.roc_auc_score()


def _run(benchmark, fn, *args):
    return benchmark.pedantic(fn, args=args, rounds=5, iterations=1, warmup_rounds=1)


AUC = "exact roc_auc_score, 1e7 scores"
AP = "exact average_precision_score, 1e7 scores"
PR = "exact precision_recall_curve, 1e7 scores"


@pytest.mark.benchmark(group=AUC)
def test_auc_one_shot(benchmark, scores):
    y, s = scores
    assert _run(benchmark, fm.roc_auc_score, y, s) == fm.roc_auc_score(y, s)


@pytest.mark.benchmark(group=AUC)
def test_auc_accumulator_100_chunks(benchmark, scores):
    y, s = scores
    assert _run(benchmark, _streamed, y, s, "roc_auc_score") == fm.roc_auc_score(y, s)


@pytest.mark.benchmark(group=AUC)
def test_auc_states_merged_one_by_one(benchmark, scores):
    y, s = scores
    assert _run(benchmark, _merged_one_by_one, y, s) == pytest.approx(
        fm.roc_auc_score(y, s), rel=1e-12)


@pytest.mark.benchmark(group=AUC)
def test_auc_dask_2_workers(benchmark, scores, cluster_data):
    import fastmetrics.dask as fmd
    y, s = scores
    assert _run(benchmark, fmd.roc_auc_score, *cluster_data[0]) == pytest.approx(
        fm.roc_auc_score(y, s), rel=1e-12)


@pytest.mark.benchmark(group=AP)
def test_ap_one_shot(benchmark, scores):
    y, s = scores
    assert _run(benchmark, fm.average_precision_score, y, s) == \
        fm.average_precision_score(y, s)


@pytest.mark.benchmark(group=AP)
def test_ap_accumulator_100_chunks(benchmark, scores):
    y, s = scores
    assert _run(benchmark, _streamed, y, s, "average_precision_score") == \
        fm.average_precision_score(y, s)


@pytest.mark.benchmark(group=AP)
def test_ap_dask_2_workers(benchmark, scores, cluster_data):
    import fastmetrics.dask as fmd
    y, s = scores
    assert _run(benchmark, fmd.average_precision_score, *cluster_data[0]) == pytest.approx(
        fm.average_precision_score(y, s), rel=1e-12)


def _same_curve(got, want):
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.benchmark(group=PR)
def test_pr_curve_one_shot(benchmark, scores):
    y, s = scores
    _same_curve(_run(benchmark, fm.precision_recall_curve, y, s),
                fm.precision_recall_curve(y, s))


@pytest.mark.benchmark(group=PR)
def test_pr_curve_accumulator_100_chunks(benchmark, scores):
    y, s = scores
    _same_curve(_run(benchmark, _streamed, y, s, "precision_recall_curve"),
                fm.precision_recall_curve(y, s))


@pytest.mark.benchmark(group=PR)
def test_pr_curve_dask_2_workers(benchmark, scores, cluster_data):
    import fastmetrics.dask as fmd
    y, s = scores
    _same_curve(_run(benchmark, fmd.precision_recall_curve, *cluster_data[0]),
                fm.precision_recall_curve(y, s))
