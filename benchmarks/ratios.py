"""Print the speed-up table from a pytest-benchmark JSON file.

    python -m pytest benchmarks --benchmark-only --benchmark-json=bench.json
    python benchmarks/ratios.py bench.json

For each group: every benchmark's median, and its ratio to the group's fastmetrics entry
(the first whose name contains 'fastmetrics', else the fastest).
"""

import json
import sys
from collections import defaultdict


def main(path: str) -> None:
    with open(path) as f:
        data = json.load(f)
    groups = defaultdict(list)
    for b in data["benchmarks"]:
        groups[b["group"] or b["name"]].append((b["name"], b["stats"]["median"]))
    info = data.get("machine_info", {})
    print(f"# {info.get('cpu', {}).get('brand_raw', '?')}, python {info.get('python_version', '?')}")
    print("| group | benchmark | median | vs fastmetrics |")
    print("|---|---|---|---|")
    for group, rows in groups.items():
        base = next((t for name, t in rows if "fastmetrics" in name), min(t for _, t in rows))
        for name, t in sorted(rows, key=lambda r: r[1]):
            unit = f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us"
            print(f"| {group} | {name} | {unit} | {t / base:.1f}x |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench.json")
