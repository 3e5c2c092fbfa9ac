"""Compare two builds of fastmetrics on the same benchmarks, interleaved, in one run.

Each build is a Python interpreter that imports its own fastmetrics (e.g. a virtual
environment with one version installed, another with the source tree on its path). The
benchmark files are run under each interpreter in turn, round after round (A, B, A, B, ...),
so that a change in the machine's load hits both builds alike; each benchmark's median over
the rounds is compared as the ratio B / A (below 1: B is faster).

    python scripts/compare_builds.py --a /old/venv/bin/python --b /new/venv/bin/python \\
        --rounds 3 benchmarks/bench_classification.py benchmarks/bench_regression.py

Only the benchmarks whose name contains "fastmetrics" are compared (the peers' do not depend
on the build). The benchmark files must use the public API both builds share.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict


def _run(python: str, files: list[str], out: str, extra: list[str]) -> dict:
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files, "--benchmark-only",
           f"--benchmark-json={out}", "-k", "fastmetrics", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 5):
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        raise SystemExit(f"benchmarks failed under {python}")
    with open(out) as f:
        data = json.load(f)
    return {b["fullname"].split("::", 1)[-1]: b["stats"]["median"] for b in data["benchmarks"]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="interpreter of build A (the reference)")
    ap.add_argument("--b", required=True, help="interpreter of build B")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments, one string")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    times: dict[str, dict[str, list[float]]] = {"a": defaultdict(list), "b": defaultdict(list)}
    extra = args.pytest_args.split()
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for key in ("a", "b") if r % 2 == 0 else ("b", "a"):
                got = _run(getattr(args, key), args.files, os.path.join(tmp, f"{key}{r}.json"),
                           extra)
                for name, t in got.items():
                    times[key][name].append(t)
                print(f"round {r + 1} {key}: {len(got)} benchmarks", file=sys.stderr)
    print("| benchmark | A | B | B / A |")
    print("|---|---|---|---|")
    ratios = []
    for name in sorted(set(times["a"]) & set(times["b"])):
        a, b = statistics.median(times["a"][name]), statistics.median(times["b"][name])
        ratios.append(b / a)

        def fmt(t):
            return f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us"

        print(f"| {name} | {fmt(a)} | {fmt(b)} | {b / a:.2f} |")
    if ratios:
        print(f"\ngeometric mean of B / A over {len(ratios)} benchmarks: "
              f"{statistics.geometric_mean(ratios):.3f}")


if __name__ == "__main__":
    main()
