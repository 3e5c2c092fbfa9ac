"""Confusion matrix and F1: fastmetrics vs scikit-learn vs np.bincount, same data, same run.

Run: python -m pytest benchmarks/bench_classification.py --benchmark-only
     (add --benchmark-json=out.json and run benchmarks/ratios.py out.json for the ratio table)
"""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

K = 10


def _labels(rng, n, dtype):
    yt = rng.integers(0, K, n).astype(dtype)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, K, n)).astype(dtype)
    return yt, yp


@pytest.fixture(scope="module")
def big(scaled):
    rng = np.random.default_rng(2024)
    n = scaled(10**7)
    yt, yp = _labels(rng, n, np.int64)
    # the reference every benchmark in this module checks against (computed once)
    ref = np.bincount(yt * K + yp, minlength=K * K).reshape(K, K)
    return yt, yp, ref


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(7)
    return _labels(rng, 1000, np.int64)


def _slow(benchmark, fn, *args, **kwargs):
    return benchmark.pedantic(fn, args=args, kwargs=kwargs, rounds=3, iterations=1)


# -- confusion matrix, 10^7 int64 labels, K = 10 -----------------------------------------


@pytest.mark.benchmark(group="confusion_matrix 1e7 int64 K=10")
def test_cm_fastmetrics(benchmark, big):
    yt, yp, ref = big
    np.testing.assert_array_equal(benchmark(fm.confusion_matrix, yt, yp), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e7 int64 K=10")
def test_cm_fastmetrics_1thread(benchmark, big):
    yt, yp, ref = big
    np.testing.assert_array_equal(benchmark(fm.confusion_matrix, yt, yp, n_threads=1), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e7 int64 K=10")
def test_cm_bincount(benchmark, big):
    yt, yp, ref = big

    def bincount_cm(a, b):
        return np.bincount(a * K + b, minlength=K * K).reshape(K, K)

    np.testing.assert_array_equal(benchmark(bincount_cm, yt, yp), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e7 int64 K=10")
def test_cm_sklearn(benchmark, big):
    yt, yp, ref = big
    np.testing.assert_array_equal(_slow(benchmark, skm.confusion_matrix, yt, yp), ref)


# -- macro F1, 10^7 labels ------------------------------------------------------------------


@pytest.mark.benchmark(group="f1 macro 1e7 int64 K=10")
def test_f1_fastmetrics(benchmark, big):
    yt, yp, ref = big
    got = benchmark(fm.f1_score, yt, yp, average="macro")
    tp, t, p = np.diag(ref), ref.sum(1), ref.sum(0)
    assert got == pytest.approx(np.mean(2 * tp / (t + p)), rel=1e-12)


@pytest.mark.benchmark(group="f1 macro 1e7 int64 K=10")
def test_f1_sklearn(benchmark, big):
    yt, yp, ref = big
    got = _slow(benchmark, skm.f1_score, yt, yp, average="macro")
    assert got == pytest.approx(fm.f1_score(yt, yp, average="macro"), rel=1e-12)


# -- narrower dtypes read less memory -------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.int8])
@pytest.mark.benchmark(group="confusion_matrix 1e7 by dtype")
def test_cm_dtype(benchmark, big, dtype):
    yt, yp, ref = big
    a, b = yt.astype(dtype), yp.astype(dtype)
    np.testing.assert_array_equal(benchmark(fm.confusion_matrix, a, b), ref)


# -- 1,000 labels: the Python layer must stay thin ------------------------------------------


@pytest.mark.benchmark(group="f1 macro 1e3")
def test_f1_small_fastmetrics(benchmark, small):
    yt, yp = small
    got = benchmark(fm.f1_score, yt, yp, average="macro")
    assert got == pytest.approx(skm.f1_score(yt, yp, average="macro"), rel=1e-12)


@pytest.mark.benchmark(group="f1 macro 1e3")
def test_f1_small_sklearn(benchmark, small):
    yt, yp = small
    got = benchmark(skm.f1_score, yt, yp, average="macro")
    assert got == pytest.approx(fm.f1_score(yt, yp, average="macro"), rel=1e-12)


@pytest.mark.benchmark(group="classification_report 1e6")
def test_report_fastmetrics(benchmark, big):
    yt, yp, _ = big
    n = min(len(yt), 10**6)
    got = benchmark(fm.classification_report, yt[:n], yp[:n], output_dict=True)
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(yt[:n], yp[:n]), rel=1e-12)


@pytest.mark.benchmark(group="classification_report 1e6")
def test_report_sklearn(benchmark, big):
    yt, yp, _ = big
    n = min(len(yt), 10**6)
    got = _slow(benchmark, skm.classification_report, yt[:n], yp[:n], output_dict=True)
    assert got["macro avg"]["f1-score"] == pytest.approx(
        fm.f1_score(yt[:n], yp[:n], average="macro"), rel=1e-12
    )
