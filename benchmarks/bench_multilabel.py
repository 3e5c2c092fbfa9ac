"""Multilabel indicator matrices (10^6 rows x 20 labels at full scale): the sample-wise F1
and Jaccard, micro F1 and the Hamming loss, from fastmetrics' one-shot functions, from a
``ConfusionAccumulator`` fed 10 chunks (a state without rows: per-label sums and a tally of
the rows' profiles), and from scikit-learn, on the same data in the same run; and the
evaluation job's multilabel task over the same matrices as a table, by 100 slices.
"""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics.streaming import ConfusionAccumulator

GROUP = "multilabel: samples F1, samples Jaccard, micro F1, Hamming loss"
L = 20


@pytest.fixture(scope="module")
def data(scaled):
    rng = np.random.default_rng(11)
    n = scaled(10**6)
    rate = rng.uniform(0.02, 0.4, L)
    y = (rng.random((n, L)) < rate).astype(np.int8)
    p = ((y & (rng.random((n, L)) < 0.7)) | (rng.random((n, L)) < 0.05)).astype(np.int8)
    return y, p


def _four(f1, jaccard, hamming, yt, yp):
    return (f1(yt, yp, average="samples", zero_division=0),
            jaccard(yt, yp, average="samples", zero_division=0),
            f1(yt, yp, average="micro", zero_division=0), hamming(yt, yp))


def _reference(data):
    return _four(skm.f1_score, skm.jaccard_score, skm.hamming_loss, *data)


@pytest.fixture(scope="module")
def want(data):
    return _reference(data)


@pytest.mark.benchmark(group=GROUP)
def test_sklearn(benchmark, data, want):
    got = benchmark.pedantic(_reference, args=(data,), rounds=3, iterations=1)
    assert got == want


@pytest.mark.benchmark(group=GROUP)
def test_fastmetrics_one_shot(benchmark, data, want):
    got = benchmark(_four, fm.f1_score, fm.jaccard_score, fm.hamming_loss, *data)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.benchmark(group=GROUP)
def test_fastmetrics_streamed(benchmark, data, want):
    y, p = data

    def run():
        acc = ConfusionAccumulator()
        for a, b in zip(np.array_split(y, 10), np.array_split(p, 10)):
            acc.update(a, b)
        return (acc.f1_score(average="samples", zero_division=0),
                acc.jaccard_score(average="samples", zero_division=0),
                acc.f1_score(average="micro", zero_division=0), acc.hamming_loss())

    got = benchmark(run)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.benchmark(group="multilabel: evaluate, 100 slices")
def test_evaluate_by_slice(benchmark, data):
    y, p = data
    n = y.shape[0]
    seg = np.random.default_rng(12).integers(0, 100, n)
    table = {**{f"y{j}": y[:, j] for j in range(L)}, **{f"p{j}": p[:, j] for j in range(L)},
             "seg": seg}
    ev = benchmark.pedantic(fm.evaluate, args=(table,), kwargs=dict(
        y_true=[f"y{j}" for j in range(L)], pred=[f"p{j}" for j in range(L)], by="seg",
        metrics=["f1_samples", "hamming_loss"]), rounds=3, iterations=1)
    rows = seg == 7
    assert ev.value("f1_samples", slice={"seg": 7}) == pytest.approx(
        skm.f1_score(y[rows], p[rows], average="samples", zero_division=0), rel=1e-12)
