"""fastmetrics.dask on a 2-worker LocalCluster (processes) vs single-process fastmetrics vs
scikit-learn: confusion matrix of 10^8 int32 labels, K = 10, chunks of 10^7.

The labels are generated on the workers (dask's seeded random generator) and persisted
there before timing, so the dask figure is the metric only: each worker counts its chunks
and sends back 10 x 10 states. Single-process fastmetrics and scikit-learn get the same
labels as numpy arrays, already in memory; a fourth figure adds fetching them from the
workers first (what one process must do with labels that live on a cluster). scikit-learn takes seconds per 10^7 labels and memory in
proportion, so it runs on the first 10^7 labels (its own group).

Run: python -m pytest benchmarks/bench_dask.py --benchmark-only
"""

import dask.array as da
import numpy as np
import pytest
import sklearn.metrics as skm
from distributed import Client, LocalCluster, wait

import fastmetrics as fm
import fastmetrics.dask as fmd

K = 10


@pytest.fixture(scope="module")
def client():
    # a free port for the dashboard (None means distributed's default :8787, maybe taken)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def data(client, scaled):
    n, chunk = scaled(10**8), scaled(10**7)
    rng = da.random.default_rng(2024)
    yt = rng.integers(0, K, n, chunks=chunk, dtype=np.int32)
    noise = rng.integers(0, K, n, chunks=chunk, dtype=np.int32)
    yp = da.where(rng.random(n, chunks=chunk) < 0.7, yt, noise).astype(np.int32)
    yt, yp = client.persist([yt, yp])
    wait([yt, yp])
    yt_np, yp_np = client.compute([yt, yp], sync=True)
    ref = np.bincount(yt_np.astype(np.int64) * K + yp_np, minlength=K * K).reshape(K, K)
    return yt, yp, yt_np, yp_np, ref


def _rounds(benchmark, fn, *args, **kwargs):
    return benchmark.pedantic(fn, args=args, kwargs=kwargs, rounds=3, iterations=1,
                              warmup_rounds=1)


@pytest.mark.benchmark(group="confusion_matrix 1e8 int32 K=10")
def test_cm_dask_2_workers(benchmark, data):
    yt, yp, _, _, ref = data
    np.testing.assert_array_equal(_rounds(benchmark, fmd.confusion_matrix, yt, yp), ref)


def _gather_then_count(client, yt, yp):
    return fm.confusion_matrix(*client.compute([yt, yp], sync=True))


@pytest.mark.benchmark(group="confusion_matrix 1e8 int32 K=10")
def test_cm_gather_to_client_then_fastmetrics(benchmark, client, data):
    # what one process must do without fastmetrics.dask: bring the labels over, then count
    yt, yp, _, _, ref = data
    np.testing.assert_array_equal(_rounds(benchmark, _gather_then_count, client, yt, yp), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e8 int32 K=10")
def test_cm_fastmetrics_single_process(benchmark, data):
    _, _, yt, yp, ref = data
    np.testing.assert_array_equal(_rounds(benchmark, fm.confusion_matrix, yt, yp), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e8 int32 K=10")
def test_cm_fastmetrics_single_process_1thread(benchmark, data):
    _, _, yt, yp, ref = data
    got = _rounds(benchmark, fm.confusion_matrix, yt, yp, n_threads=1)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.benchmark(group="confusion_matrix 1e7 int32 K=10 (first tenth)")
def test_cm_sklearn_first_tenth(benchmark, data):
    _, _, yt, yp, _ = data
    m = yt.shape[0] // 10
    got = benchmark.pedantic(skm.confusion_matrix, args=(yt[:m], yp[:m]), rounds=1,
                             iterations=1)
    np.testing.assert_array_equal(got, fm.confusion_matrix(yt[:m], yp[:m]))


@pytest.mark.benchmark(group="confusion_matrix 1e7 int32 K=10 (first tenth)")
def test_cm_fastmetrics_first_tenth(benchmark, data):
    _, _, yt, yp, _ = data
    m = yt.shape[0] // 10
    got = _rounds(benchmark, fm.confusion_matrix, yt[:m], yp[:m])
    np.testing.assert_array_equal(got, skm.confusion_matrix(yt[:m], yp[:m]))
