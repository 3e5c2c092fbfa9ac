"""Per-group macro F1 (8 groups, 10 classes, 10^7 labels): fastmetrics' one (group x K x K)
counting pass vs scikit-learn's f1_score on each group's samples plus once over all."""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

GROUP = "fairness: per-group macro F1, 8 groups"


@pytest.fixture(scope="module")
def data(scaled):
    rng = np.random.default_rng(21)
    n = scaled(10**7)
    y_true = rng.integers(0, 10, n)
    y_pred = np.where(rng.random(n) < 0.75, y_true, rng.integers(0, 10, n))
    groups = rng.integers(0, 8, n).astype(np.int8)
    return y_true, y_pred, groups


def sklearn_per_group(y_true, y_pred, groups):
    per = {int(g): skm.f1_score(y_true[groups == g], y_pred[groups == g], average="macro")
           for g in np.unique(groups)}
    return per, skm.f1_score(y_true, y_pred, average="macro")


@pytest.mark.benchmark(group=GROUP)
def test_fastmetrics(benchmark, data):
    r = benchmark(fm.group_metrics, *data, "f1_macro")
    per, glob = sklearn_per_group(*data)
    assert r.per_group == pytest.approx(per, rel=1e-12)
    assert r.global_value == pytest.approx(glob, rel=1e-12)


@pytest.mark.benchmark(group=GROUP)
def test_sklearn(benchmark, data):
    per, glob = benchmark(sklearn_per_group, *data)
    assert 0 < glob <= 1 and len(per) == 8
