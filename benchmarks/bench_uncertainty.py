"""Bootstrap intervals: a 1,000-resample interval of macro F1 and of ROC AUC.

Contenders, same data, same run:

* ``fastmetrics``: ``fm.bootstrap(fm.f1_score, ..., average="macro")`` -- one kernel pass,
  then 1,000 multinomial draws of the 6 x 6 table's cells, scored all at once;
  ``fm.bootstrap(fm.roc_auc_score, ...)`` with near-distinct scores resamples rows (one
  kernel pass per resample), and with scores on a 0.01 grid draws the (score, class) cells;
* ``one call``: a single ``fm.f1_score`` (the goal: the interval under 3x of it at 10^7);
* ``numpy loop``: ``rng.integers`` row indices and ``fm.f1_score`` per resample;
* ``scipy``: ``scipy.stats.bootstrap`` with scikit-learn's ``f1_score`` / ``roc_auc_score``.

The peers that resample rows take minutes for 1,000 resamples: they are timed on a few
resamples and extrapolated to 1,000 (the script says so where it does).

Run: python benchmarks/bench_uncertainty.py [N ...]   (interleaved rounds; medians, ratios)
     python -m pytest benchmarks/bench_uncertainty.py --benchmark-only
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import numpy as np
import pytest

import fastmetrics as fm

B = 1000


def _labels(n: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, 6, n)
    yp = np.where(rng.random(n) < 0.8, yt, rng.integers(0, 6, n))
    return yt, yp


def _scores(n: int, seed: int = 4, grid: float | None = None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = y * 0.5 + rng.random(n)
    return y, (np.round(s / grid) * grid if grid else s)


def numpy_loop(metric, a, b, n_resamples, seed=0, **kw):
    rng = np.random.default_rng(seed)
    n = a.shape[0]
    out = np.empty(n_resamples)
    for i in range(n_resamples):
        idx = rng.integers(0, n, n)
        out[i] = metric(a[idx], b[idx], **kw)
    return np.percentile(out, [2.5, 97.5])


def scipy_bootstrap(metric, a, b, n_resamples, **kw):
    import scipy.stats
    res = scipy.stats.bootstrap((a, b), lambda x, y: metric(x, y, **kw), paired=True,
                                vectorized=False, n_resamples=n_resamples, method="percentile",
                                random_state=0)
    return res.confidence_interval


# --------------------------------------------------------------------------- pytest-benchmark


@pytest.mark.parametrize("n", [10**5, 10**6])
def test_f1_interval(benchmark, scaled, n):
    yt, yp = _labels(scaled(n))
    r = benchmark(fm.bootstrap, fm.f1_score, yt, yp, average="macro", n_resamples=B,
                  random_state=0)
    assert r.resampled == "cells"
    assert r.confidence_interval.low <= r.value <= r.confidence_interval.high
    assert r.value == fm.f1_score(yt, yp, average="macro")


@pytest.mark.parametrize("n", [10**5])
def test_f1_interval_numpy_loop(benchmark, scaled, n):
    yt, yp = _labels(scaled(n))
    low, high = benchmark.pedantic(numpy_loop, args=(fm.f1_score, yt, yp, 20),
                                   kwargs={"average": "macro"}, rounds=1, iterations=1)
    assert low <= fm.f1_score(yt, yp, average="macro") <= high


@pytest.mark.parametrize("grid", [None, 1e-2])
def test_auc_interval(benchmark, scaled, grid):
    y, s = _scores(max(scaled(10**5), 10**4), grid=grid)
    r = benchmark.pedantic(fm.bootstrap, args=(fm.roc_auc_score, y, s),
                           kwargs={"n_resamples": 50, "random_state": 0}, rounds=1,
                           iterations=1)
    assert r.resampled == ("rows" if grid is None else "cells")
    assert r.value == fm.roc_auc_score(y, s)


def test_compare(benchmark, scaled):
    yt, ya = _labels(scaled(10**5))
    _, yb = _labels(scaled(10**5), seed=9)
    r = benchmark(fm.compare, fm.f1_score, yt, ya, yb, average="macro", n_resamples=B,
                  random_state=0)
    assert r.difference == (fm.f1_score(yt, yb, average="macro")
                            - fm.f1_score(yt, ya, average="macro"))


def test_scipy_bootstrap_small(benchmark, scaled):
    from sklearn.metrics import f1_score
    yt, yp = _labels(scaled(10**4))
    ci = benchmark.pedantic(scipy_bootstrap, args=(f1_score, yt, yp, 10),
                            kwargs={"average": "macro"}, rounds=1, iterations=1)
    assert ci.low <= f1_score(yt, yp, average="macro") <= ci.high


# --------------------------------------------------------------------------- script


def _time(fn, *args, **kw) -> float:
    t = time.perf_counter()
    fn(*args, **kw)
    return time.perf_counter() - t


def main(sizes) -> None:
    from sklearn.metrics import f1_score as sk_f1, roc_auc_score as sk_auc
    warnings.simplefilter("ignore")
    for n in sizes:
        yt, yp = _labels(n)
        rows: dict[str, list[float]] = {"one f1_score": [], "fm.bootstrap f1 (1000)": []}
        for _ in range(5):  # interleaved
            rows["one f1_score"].append(_time(fm.f1_score, yt, yp, average="macro",
                                              n_threads=1))
            rows["fm.bootstrap f1 (1000)"].append(_time(
                fm.bootstrap, fm.f1_score, yt, yp, average="macro", n_resamples=B,
                random_state=0, n_threads=1))
        few = 3 if n >= 10**7 else 10
        loop = _time(numpy_loop, fm.f1_score, yt, yp, few, average="macro") / few * B
        sk = _time(scipy_bootstrap, sk_f1, yt, yp, 2, average="macro") / 2 * B
        one = statistics.median(rows["one f1_score"])
        ours = statistics.median(rows["fm.bootstrap f1 (1000)"])
        print(f"n={n:.0e}  F1 macro, 1,000 resamples (1 thread; medians of 5)")
        print(f"  one fm.f1_score           {one * 1e3:10.1f} ms")
        print(f"  fm.bootstrap              {ours * 1e3:10.1f} ms   {ours / one:6.2f}x one call")
        print(f"  numpy row loop + fm.f1    {loop:10.1f} s    {loop / ours:8.0f}x ours "
              f"(from {few} resamples)")
        print(f"  scipy.stats.bootstrap+skl {sk:10.1f} s    {sk / ours:8.0f}x ours "
              "(from 2 resamples)")
        for grid in (None, 1e-2):
            y, s = _scores(n, grid=grid)
            k = 5 if grid is None else B  # rows: extrapolated; cells: all 1,000
            ours_auc = _time(fm.bootstrap, fm.roc_auc_score, y, s, n_resamples=k,
                             random_state=0) / k * B
            sk_a = _time(scipy_bootstrap, sk_auc, y, s, 2) / 2 * B
            loop_a = _time(numpy_loop, fm.roc_auc_score, y, s, 3) / 3 * B
            how = ("near-distinct scores (rows, from 5 resamples)" if grid is None
                   else "scores on a 0.01 grid (cells, 1,000 resamples)")
            print(f"  ROC AUC, {how}: fm.bootstrap {ours_auc:8.1f} s; numpy row loop + "
                  f"fm.roc_auc_score {loop_a:8.1f} s ({loop_a / ours_auc:.1f}x), "
                  f"scipy+sklearn {sk_a:8.1f} s ({sk_a / ours_auc:.1f}x), both from 2-3 "
                  "resamples")


if __name__ == "__main__":
    main([int(float(a)) for a in sys.argv[1:]] or [10**6, 10**7])
