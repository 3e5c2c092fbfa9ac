"""confusion_matrix against the loop an expert writes by hand: numba ``@njit``, same data.

Run: python -m pytest benchmarks/bench_numba.py --benchmark-only
     python benchmarks/bench_numba.py [sizes] [dtypes] [rounds]   (interleaved medians, ratios)

Two hand-written peers, both compiled before timing: ``numba_given_k`` knows K (the bare
``cm[yt[i], yp[i]] += 1`` loop, no checks), ``numba_with_range`` first finds the value range,
as a real one must. The goal: ``confusion_matrix`` at one thread matches or beats both, and
at two threads beats them, for int8/int32/int64 labels at 10^5 .. 10^8 (10^8: int8 only by
default, 200 MB; FASTMETRICS_BENCH_1E8_DTYPES=int8,int32,int64 adds the others, 2.4 GB).
"""

import os
import sys
import time

import numpy as np
import pytest

import fastmetrics as fm

numba = pytest.importorskip("numba")

K = 10


@numba.njit(nogil=True)
def numba_given_k(y_true, y_pred, k):
    cm = np.zeros((k, k), dtype=np.int64)
    for i in range(y_true.shape[0]):
        cm[y_true[i], y_pred[i]] += 1
    return cm


@numba.njit(nogil=True)
def numba_with_range(y_true, y_pred):
    lo = min(y_true[0], y_pred[0])
    hi = max(y_true[0], y_pred[0])
    for i in range(y_true.shape[0]):
        lo = min(lo, y_true[i], y_pred[i])
        hi = max(hi, y_true[i], y_pred[i])
    lo = np.int64(lo)
    k = np.int64(hi) - lo + 1
    cm = np.zeros((k, k), dtype=np.int64)
    for i in range(y_true.shape[0]):
        cm[np.int64(y_true[i]) - lo, np.int64(y_pred[i]) - lo] += 1
    return cm


def labels(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, K, n).astype(dtype)
    yp = np.where(rng.random(n, dtype=np.float32) < 0.7, yt, rng.integers(0, K, n).astype(dtype))
    return yt, yp


def contenders(yt, yp):
    """name -> call; every one returns the K x K table (all K labels occur)."""
    return {
        "fastmetrics 1 thread": lambda: fm.confusion_matrix(yt, yp, n_threads=1),
        "fastmetrics 2 threads": lambda: fm.confusion_matrix(yt, yp, n_threads=2),
        "numba given K": lambda: numba_given_k(yt, yp, K),
        "numba with range": lambda: numba_with_range(yt, yp),
    }


def cases(scale=1.0):
    big = os.environ.get("FASTMETRICS_BENCH_1E8_DTYPES", "int8").split(",")
    out = []
    for dtype in ("int8", "int32", "int64"):
        for n in (10**5, 10**6, 10**7, 10**8):
            if n == 10**8 and dtype not in big:
                continue
            out.append((dtype, max(10, int(n * scale))))
    return out


_DATA = {}


def _data(dtype, n):
    # one data set alive at a time: 10^8 labels are 200 MB (int8) to 1.6 GB (int64)
    if (dtype, n) not in _DATA:
        _DATA.clear()
        yt, yp = labels(n, dtype)
        _DATA[dtype, n] = (yt, yp, numba_given_k(yt, yp, K))  # compiles the peers, too
        numba_with_range(yt[:10], yp[:10])
    return _DATA[dtype, n]


def _case_id(case):
    return f"{case[0]}-{case[1]:.0e}"


@pytest.fixture(params=cases(1.0), ids=_case_id)
def case(request, scaled):
    dtype, n = request.param
    return dtype, scaled(n)


@pytest.mark.parametrize("who", ["fastmetrics 1 thread", "fastmetrics 2 threads",
                                 "numba given K", "numba with range"])
def test_count(benchmark, case, who):
    dtype, n = case
    yt, yp, ref = _data(dtype, n)
    benchmark.group = f"confusion counts {dtype} n={n:.0e} K={K}"
    rounds = 3 if n >= 10**8 else 15
    got = benchmark.pedantic(contenders(yt, yp)[who], rounds=rounds, iterations=1)
    np.testing.assert_array_equal(got, ref)


def main(argv):
    """Interleaved medians: each round calls every contender once, starting with each in turn."""
    sizes = [int(float(s)) for s in argv[0].split(",")] if argv else None
    dtypes = argv[1].split(",") if len(argv) > 1 else None
    rounds = int(argv[2]) if len(argv) > 2 else 15
    print(f"# load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    print("| labels | n | fm 1 thread | fm 2 threads | numba given K | numba with range "
          "| 1 thread / numba (K, range) | 2 threads / numba (K, range) |")
    print("|---|---|---|---|---|---|---|---|")
    for dtype, n in cases():
        if (sizes and n not in sizes) or (dtypes and dtype not in dtypes):
            continue
        yt, yp, ref = _data(dtype, n)
        calls = contenders(yt, yp)
        times = {name: [] for name in calls}
        for name, call in calls.items():
            np.testing.assert_array_equal(call(), ref)
        names = list(calls)
        for r in range(rounds if n < 10**8 else max(3, rounds // 3)):
            for name in names[r % 4:] + names[:r % 4]:  # each goes first in turn
                call = calls[name]
                t0 = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - t0)
        m = [float(np.median(times[name])) for name in calls]
        print(f"| {dtype} | {n:.0e} | " + " | ".join(f"{t * 1e3:.3f} ms" for t in m)
              + f" | {m[0] / m[2]:.2f}, {m[0] / m[3]:.2f} | {m[1] / m[2]:.2f}, {m[1] / m[3]:.2f} |",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
