"""Small calls: the fixed cost of one call at 10, 100 and 1,000 int64 labels (K = 5).

Jobs call metrics per group, per batch, per bootstrap resample, thousands of times, so what
counts here is the cost around the counting. Contenders, same data, same run:

* ``fastmetrics``: ``confusion_matrix`` / ``f1_score(average="macro")``, with every check;
* ``bincount``: ``np.bincount(y_true * K + y_pred, minlength=K * K).reshape(K, K)`` and, for
  F1, what a careful user writes on top of it (the table's diagonal and margins, 0 where a
  class is never true nor predicted, the mean);
* ``numba``: a hand-written ``@njit`` loop (the "expert by hand" peer; it checks nothing);
* ``sklearn``: ``sklearn.metrics``.

Goals: ``confusion_matrix`` within 1.5x of the bincount route, ``f1_score`` within 1.2x.

Run: python -m pytest benchmarks/bench_small.py --benchmark-only
     python benchmarks/bench_small.py [ROUNDS] [cpu|wall]   (interleaved rounds; prints
     medians and ratios)
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
import warnings

import numpy as np
import pytest

import fastmetrics as fm

K = 5
SIZES = (10, 100, 1000)


def _labels(n: int, seed: int = 5):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, K, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, K, n))
    yt[:K] = yp[:K] = np.arange(K)  # every class occurs: the K x K table is the answer
    return yt, yp


def bincount_cm(yt, yp):
    return np.bincount(yt * K + yp, minlength=K * K).reshape(K, K)


def bincount_f1(yt, yp):
    cm = np.bincount(yt * K + yp, minlength=K * K).reshape(K, K)
    tp = np.diag(cm)
    denom = cm.sum(axis=0) + cm.sum(axis=1)  # 2 tp + fp + fn
    f1 = np.divide(2 * tp, denom, out=np.zeros(K), where=denom > 0)
    return f1.mean()


def fm_f1(yt, yp):
    return fm.f1_score(yt, yp, average="macro")


def _numba():
    """The hand-written loops, compiled once (None without numba)."""
    try:
        from numba import njit
    except ImportError:
        return None

    @njit(cache=False)
    def numba_cm(yt, yp):
        cm = np.zeros((K, K), dtype=np.int64)
        for i in range(yt.shape[0]):
            cm[yt[i], yp[i]] += 1
        return cm

    @njit(cache=False)
    def numba_f1(yt, yp):
        cm = numba_cm(yt, yp)
        total = 0.0
        for c in range(K):
            denom = 0
            for j in range(K):
                denom += cm[c, j] + cm[j, c]
            if denom > 0:
                total += 2.0 * cm[c, c] / denom
        return total / K

    yt, yp = _labels(10)
    numba_cm(yt, yp)
    numba_f1(yt, yp)
    return numba_cm, numba_f1


def _contenders():
    import sklearn.metrics as skm

    out = {
        "confusion_matrix": {"fastmetrics": fm.confusion_matrix, "bincount": bincount_cm,
                             "sklearn": skm.confusion_matrix},
        "f1 macro": {"fastmetrics": fm_f1, "bincount": bincount_f1,
                     "sklearn": lambda yt, yp: skm.f1_score(yt, yp, average="macro")},
    }
    nb = _numba()
    if nb is not None:
        out["confusion_matrix"]["numba"], out["f1 macro"]["numba"] = nb
    return out


def _check(metric, got, yt, yp):
    if metric == "confusion_matrix":
        np.testing.assert_array_equal(got, bincount_cm(yt, yp))
    else:
        assert abs(got - bincount_f1(yt, yp)) <= 1e-12


# -- pytest-benchmark: one group per metric and size ----------------------------------------

CONTENDERS = None


def _cases():
    return [(m, c, n) for m in ("confusion_matrix", "f1 macro")
            for c in ("fastmetrics", "bincount", "numba", "sklearn") for n in SIZES]


@pytest.mark.parametrize("metric,who,n", _cases())
def test_small(benchmark, metric, who, n):
    global CONTENDERS
    if CONTENDERS is None:
        CONTENDERS = _contenders()
    if who not in CONTENDERS[metric]:
        pytest.skip("numba is not installed (a benchmark-only peer)")
    benchmark.group = f"{metric} n={n} int64 K={K}"
    yt, yp = _labels(n)
    _check(metric, benchmark(CONTENDERS[metric][who], yt, yp), yt, yp)


# -- interleaved rounds: python benchmarks/bench_small.py --------------------------------------


def _per_call(fn, yt, yp, calls, clock=time.perf_counter):
    t = clock()
    for _ in range(calls):
        fn(yt, yp)
    return (clock() - t) / calls


def main(rounds: int = 101, clock_name: str = "cpu") -> None:
    """Contenders take turns in short rounds (about 0.5 ms each) and each one's median round
    is reported, with the garbage collector off (as ``timeit`` runs). ``cpu`` times the thread's CPU time, which a busy machine's preemptions do
    not inflate (they still cost caches); ``wall`` times the wall clock."""
    clock = time.thread_time if clock_name == "cpu" else time.perf_counter
    gc.disable()  # as timeit does: a collection of scikit-learn's heap in one round is noise
    warnings.simplefilter("ignore")
    contenders = _contenders()
    shuffler = random.Random(0)
    print(f"# {fm.__file__}; medians of {rounds} interleaved rounds, {clock_name} "
          "microseconds per call")
    print("| metric | n | fastmetrics | bincount | numba | sklearn | fm / bincount | "
          "fm / numba | sklearn / fm |")
    print("|---|---|---|---|---|---|---|---|---|")
    for metric, who in contenders.items():
        for n in SIZES:
            yt, yp = _labels(n)
            for name, fn in who.items():
                _check(metric, fn(yt, yp), yt, yp)
            calls = {name: max(1, int(5e-4 / max(_per_call(fn, yt, yp, 20), 1e-8)))
                     for name, fn in who.items()}
            calls["sklearn"] = 1
            times: dict[str, list[float]] = {name: [] for name in who}
            order = list(who)
            for i in range(rounds):
                # contenders take turns, so load hits them alike, in a new order each round,
                # so that a periodic neighbour cannot keep hitting the same one
                shuffler.shuffle(order)
                for name in order:
                    if name != "sklearn" or i % 10 == 0:  # milliseconds a call: a few do
                        times[name].append(_per_call(who[name], yt, yp, calls[name], clock))
            med = {name: statistics.median(v) * 1e6 for name, v in times.items()}
            nb = med.get("numba", float("nan"))
            print(f"| {metric} | {n} | {med['fastmetrics']:.2f} | {med['bincount']:.2f} | "
                  f"{nb:.2f} | {med['sklearn']:.0f} | "
                  f"{med['fastmetrics'] / med['bincount']:.2f} | "
                  f"{med['fastmetrics'] / nb:.2f} | {med['sklearn'] / med['fastmetrics']:.0f} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 101,
         sys.argv[2] if len(sys.argv) > 2 else "cpu")
