"""Supervised clustering metrics, 100 x 100 clusters: fastmetrics vs scikit-learn on the same
seeded data (10^3 and 10^7 samples).

scikit-learn's adjusted mutual information at 10^7 samples sums ~10^9 terms (about three
minutes here): it runs only with FASTMETRICS_BENCH_SLOW=1; without it the large AMI is
checked against the same metric from a streamed, merged state (another code path).
"""

import os

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics.streaming import ContingencyAccumulator

FUNCS = ["adjusted_mutual_info_score", "adjusted_rand_score", "v_measure_score",
         "contingency_matrix"]
SLOW = os.environ.get("FASTMETRICS_BENCH_SLOW") == "1"


@pytest.fixture(scope="module", params=[10**3, 10**7], ids=["1e3", "1e7"])
def data(request, scaled):
    n = scaled(request.param) if request.param > 10**3 else request.param
    rng = np.random.default_rng(99)
    a = rng.integers(0, 100, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 100, n))  # 70% agreement
    return request.param, a, b


def _expected(name, size, a, b):
    if name == "adjusted_mutual_info_score" and size > 10**5 and not SLOW:
        acc = ContingencyAccumulator()
        for i in range(0, a.shape[0], 1 << 20):
            acc.update(a[i:i + (1 << 20)], b[i:i + (1 << 20)])
        return acc.adjusted_mutual_info_score()
    return getattr(skm, name)(a, b) if name != "contingency_matrix" else \
        skm.cluster.contingency_matrix(a, b)


@pytest.mark.parametrize("lib", ["fastmetrics", "sklearn"])
@pytest.mark.parametrize("name", FUNCS)
def test_cluster_metric(benchmark, data, lib, name):
    size, a, b = data
    benchmark.group = f"{name} 100x100 n={size:.0e}"
    if lib == "sklearn" and name == "adjusted_mutual_info_score" and size > 10**5 \
            and a.shape[0] > 10**5 and not SLOW:
        pytest.skip("scikit-learn's AMI at 10^7 takes minutes: FASTMETRICS_BENCH_SLOW=1")
    fn = getattr(fm, name) if lib == "fastmetrics" else (
        skm.cluster.contingency_matrix if name == "contingency_matrix" else getattr(skm, name))
    if size > 10**5:
        got = benchmark.pedantic(fn, args=(a, b), rounds=3, iterations=1)
    else:
        got = benchmark(fn, a, b)
    want = _expected(name, size, a, b)
    if name == "contingency_matrix":
        np.testing.assert_array_equal(got, want)
    else:
        assert got == pytest.approx(want, rel=1e-12)
