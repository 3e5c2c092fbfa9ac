"""The default thread count against one thread, on an idle machine and beside a busy process.

Run: python -m pytest benchmarks/bench_threads.py --benchmark-only
     python benchmarks/bench_threads.py [sizes] [rounds]   (interleaved medians and ratios)

An evaluation job often runs next to something that keeps a core busy (model inference):
``busy`` starts ``python -c "while True: pass"`` beside the benchmark for its duration. The
goal: the default (``n_threads=None``) never costs more than 1.1x ``n_threads=1`` when
the other core is busy, at any size, and keeps its gain when the machine is idle.
"""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import fastmetrics as fm

SIZES = (10**5, 10**6, 10**7)


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, 10, n).astype(np.int32)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, 10, n).astype(np.int32))
    p = rng.random(n)
    yb = (rng.random(n) < p).astype(np.int8)
    y = rng.standard_normal(n)
    return yt, yp, p, yb, y, y + p


#: one call per OpenMP kernel family: name -> f(data, n_threads)
CALLS = {
    "confusion_matrix": lambda d, nt: fm.confusion_matrix(d[0], d[1], n_threads=nt),
    "r2_score": lambda d, nt: fm.r2_score(d[4], d[5], n_threads=nt),
    "brier_score_loss": lambda d, nt: fm.brier_score_loss(d[3], d[2], n_threads=nt),
    "expected_calibration_error": lambda d, nt: fm.expected_calibration_error(
        d[3], d[2], n_threads=nt),
    "roc_auc_score": lambda d, nt: fm.roc_auc_score(d[3], d[2], n_threads=nt),
}


class Busy:
    """A process spinning on a core while the ``with`` block runs."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.3)  # let it get its core (and the machine's run queue show it)
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="module", params=SIZES, ids=lambda n: f"{n:.0e}")
def sized(request, scaled):
    n = scaled(request.param)
    return n, data(n)


@pytest.fixture(params=["idle", "busy"])
def machine(request):
    if request.param == "busy":
        with Busy():
            yield "busy"
    else:
        yield "idle"


@pytest.mark.parametrize("threads", ["default", "1 thread"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_threads(benchmark, sized, machine, name, threads):
    n, d = sized
    call = CALLS[name]
    nt = None if threads == "default" else 1
    benchmark.group = f"{name} n={n:.0e} {machine}"
    got = benchmark.pedantic(call, args=(d, nt), rounds=15 if n < 10**7 else 5, iterations=1)
    ref = call(d, 1)
    if isinstance(got, np.ndarray):
        np.testing.assert_array_equal(got, ref)
    else:
        assert got == ref  # the same bits for any thread count


def run(label, sizes, rounds, names):
    for n in sizes:
        d = data(n)
        for name in names:
            call = CALLS[name]
            t = {"default": [], "one": []}
            order = [("default", None), ("one", 1)]
            for r in range(rounds):
                for key, nt in order[r % 2:] + order[:r % 2]:  # each goes first in turn
                    t0 = time.perf_counter()
                    call(d, nt)
                    t[key].append(time.perf_counter() - t0)
            a, b = float(np.median(t["default"])), float(np.median(t["one"]))
            print(f"| {label} | {name} | {n:.0e} | {a * 1e3:.3f} ms | {b * 1e3:.3f} ms "
                  f"| {a / b:.2f} |", flush=True)


def main(argv):
    sizes = [int(float(s)) for s in argv[0].split(",")] if argv else list(SIZES)
    rounds = int(argv[1]) if len(argv) > 1 else 15
    names = argv[2].split(",") if len(argv) > 2 else sorted(CALLS)
    print(f"# load average {os.getloadavg()[0]:.2f} (1 min) before, {os.cpu_count()} CPUs")
    print("| machine | function | n | default | n_threads=1 | default / one |")
    print("|---|---|---|---|---|---|")
    run("idle", sizes, rounds, names)
    with Busy():
        run("busy", sizes, rounds, names)
    print(f"# load average {os.getloadavg()[0]:.2f} (1 min) after")


if __name__ == "__main__":
    main(sys.argv[1:])
