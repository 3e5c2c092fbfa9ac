"""``fastmetrics report`` on a CSV file against ``pyarrow.csv.read_csv`` of the same file, in
the same group, same run: 10^6 and 2x10^6 rows of the shipped sample's layout (text labels
``y_true``, ``y_pred`` and six ``p_*`` probability columns, about 50 MiB per 10^6 rows).
Goal: the report within 2x of ``read_csv``.

Two ways, two groups per size:

- in process (``main(["report", FILE])``: read, encode, count, calibrate, render), so the
  interpreter start and the imports are not in it; the csv-module path (pyarrow blocked) is
  the third entry;
- whole process: ``python -m fastmetrics report FILE`` against ``python -c "import
  pyarrow.csv as c; c.read_csv(FILE)"``, each a fresh interpreter (start, imports, read,
  report), as a user runs them.

For the ratios themselves, interleaved (the contenders take turns in a new order each
round) with medians, and ``import fastmetrics`` beside ``import numpy``: ``python
benchmarks/bench_cli.py process [ROWS [ROUNDS]]`` (default 10^6 rows, 7 rounds).

Peak memory, before/after, in separate processes: ``python benchmarks/bench_cli.py rss
OLD_SRC NEW_SRC "FILE [ARGS]"...`` (the seconds and peak RSS of ``fastmetrics report FILE
ARGS`` under each tree; give ``--prob-prefix p_`` for a file with probabilities, which the
old tree did not pick up by itself).

Run: python -m pytest benchmarks/bench_cli.py --benchmark-only
(under --benchmark-disable the files are 100x smaller)
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import numpy as np
import pytest

CLASSES = np.array(["account", "billing", "oos", "refund", "shipping", "tech_support"])


def write_sample_like(path, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A CSV of ``n`` rows in the sample's layout; its true and predicted labels."""
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, 6, n)
    yp = np.where(rng.random(n) < 0.8, yt, rng.integers(0, 6, n))
    prob = rng.dirichlet(np.ones(6), n)
    with open(path, "w") as f:
        f.write("y_true,y_pred," + ",".join(f"p_{c}" for c in CLASSES) + "\n")
        for s in range(0, n, 200_000):
            cols = [CLASSES[yt[s:s + 200_000]], CLASSES[yp[s:s + 200_000]]]
            cols += [np.char.mod("%.4f", prob[s:s + 200_000, j]) for j in range(6)]
            f.write("".join(",".join(r) + "\n" for r in zip(*(c.tolist() for c in cols))))
    return CLASSES[yt], CLASSES[yp]


@pytest.fixture(scope="module", params=[10**6, 2 * 10**6], ids=["1e6", "2e6"])
def csv_file(request, scaled, tmp_path_factory):
    n = scaled(request.param)
    path = tmp_path_factory.mktemp("cli") / "preds.csv"
    yt, yp = write_sample_like(path, n)
    return str(path), n, float(np.mean(yt == yp))


def _report(path: str) -> dict:
    import json

    from fastmetrics.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["report", path, "--format", "json"])
    assert rc == 0, err.getvalue()
    return json.loads(out.getvalue())


def _group(n: int) -> str:
    return f"cli report vs pyarrow read_csv, {n:,} rows"


def test_fastmetrics_report(benchmark, csv_file):
    path, n, acc = csv_file
    benchmark.group = _group(n)
    got = benchmark.pedantic(_report, args=(path,), rounds=3, iterations=1, warmup_rounds=1)
    assert got["n_examples"] == n and got["accuracy"] == pytest.approx(acc, rel=1e-12)
    assert "calibration.ece" in got  # the p_* columns were read too


def test_pyarrow_read_csv(benchmark, csv_file):
    pacsv = pytest.importorskip("pyarrow.csv")
    path, n, _ = csv_file
    benchmark.group = _group(n)
    table = benchmark.pedantic(pacsv.read_csv, args=(path,), rounds=3, iterations=1,
                               warmup_rounds=1)
    assert table.num_rows == n and table.num_columns == 8


def test_report_csv_module_no_pyarrow(benchmark, csv_file, monkeypatch):
    """The fallback without pyarrow: Python's csv module (one run: it is the slow path)."""
    from fastmetrics.cli import readers

    path, n, acc = csv_file
    monkeypatch.setattr(readers, "have_pyarrow", lambda: False)
    benchmark.group = _group(n)
    got = benchmark.pedantic(_report, args=(path,), rounds=1, iterations=1)
    assert got["n_examples"] == n and got["accuracy"] == pytest.approx(acc, rel=1e-12)


# --------------------------------------------------------------------------- whole process


def _process_group(n: int) -> str:
    return f"cli report vs pyarrow read_csv, {n:,} rows, whole process"


def report_command(path: str) -> list[str]:
    """``fastmetrics report FILE`` in a fresh interpreter (this one's Python and path)."""
    return [sys.executable, "-m", "fastmetrics", "report", path, "--format", "json"]


def read_csv_command(path: str) -> list[str]:
    """``pyarrow.csv.read_csv(FILE)`` in a fresh interpreter: the reference."""
    return [sys.executable, "-c", f"import pyarrow.csv as c; c.read_csv({path!r})"]


def _process_env() -> dict:
    # the package this interpreter imports (the source tree under test), in the child too
    import fastmetrics

    src = os.path.dirname(os.path.dirname(fastmetrics.__file__))
    return dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _run(cmd: list[str], env: dict) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_fastmetrics_report_process(benchmark, csv_file):
    import json

    path, n, acc = csv_file
    benchmark.group = _process_group(n)
    env = _process_env()
    out = benchmark.pedantic(_run, args=(report_command(path), env), rounds=3, iterations=1,
                             warmup_rounds=1)
    got = json.loads(out)
    assert got["n_examples"] == n and got["accuracy"] == pytest.approx(acc, rel=1e-12)


def test_pyarrow_read_csv_process(benchmark, csv_file):
    pytest.importorskip("pyarrow.csv")
    path, n, _ = csv_file
    benchmark.group = _process_group(n)
    benchmark.pedantic(_run, args=(read_csv_command(path), _process_env()), rounds=3,
                       iterations=1, warmup_rounds=1)


def process_ratios(path: str, rounds: int = 7) -> dict[str, list[float]]:
    """Seconds of each whole-process contender over ``rounds`` rounds, the contenders in a
    new order each round (after one untimed run each, which also leaves the bytecode
    caches warm)."""
    import random
    import time

    env = _process_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode cached
    cases = {
        "fastmetrics report": report_command(path),
        "pyarrow read_csv": read_csv_command(path),
        "import fastmetrics": [sys.executable, "-c", "import fastmetrics"],
        "import numpy": [sys.executable, "-c", "import numpy"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    for cmd in cases.values():
        _run(cmd, env)
    times: dict[str, list[float]] = {k: [] for k in cases}
    rng = random.Random(0)
    for _ in range(rounds):
        order = list(cases)
        rng.shuffle(order)
        for k in order:
            t = time.perf_counter()
            _run(cases[k], env)
            times[k].append(time.perf_counter() - t)
    return times


# --------------------------------------------------------------------------- peak RSS


def peak_rss(src: str, args: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of ``python -m fastmetrics report ARGS`` with ``src`` as
    the package's source tree, in a fresh process."""
    import time

    env = dict(os.environ, PYTHONPATH=src)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", (
        "import resource, sys\n"
        "from fastmetrics.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(rc)\n"), "report", *args, "--format", "markdown"],
        env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode:
        raise SystemExit(p.stderr)
    return dt, int(p.stderr.strip().splitlines()[-1]) / 1024


if __name__ == "__main__" and sys.argv[1:2] == ["process"]:
    import statistics
    import tempfile

    rows = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10**6
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "preds.csv")
        write_sample_like(path, rows)
        times = process_ratios(path, rounds)
    med = {k: statistics.median(v) for k, v in times.items()}
    ref = med["pyarrow read_csv"]
    print(f"whole processes, {rows:,} rows, medians of {rounds} interleaved rounds "
          f"(load average {', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    print("| process | median | range | / read_csv |")
    print("|---|---|---|---|")
    for k, v in times.items():
        print(f"| {k} | {med[k] * 1e3:,.0f} ms | {min(v) * 1e3:,.0f}-{max(v) * 1e3:,.0f} ms "
              f"| {med[k] / ref:.2f}x |")
    print(f"fastmetrics report / read_csv: {med['fastmetrics report'] / ref:.2f}x (goal 2x)")

if __name__ == "__main__" and sys.argv[1:2] == ["rss"]:
    old, new, *files = sys.argv[2:]
    print("| file | tree | seconds | peak RSS |")
    print("|---|---|---|---|")
    for f in files:
        for label, src in (("before", old), ("after", new)):
            dt, mib = peak_rss(src, f.split())
            print(f"| {f} | {label} | {dt:.1f} s | {mib:,.0f} MiB |")
