"""Command line: ``fastmetrics report [FILE]`` prints the report card of a predictions file.

With no FILE, the sample shipped in the package is scored (see scripts/make_sample.py).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from importlib import resources

import numpy as np

from .classification import classification_report
from .report import format_metrics_row, score

__all__ = ["main"]


class CLIError(Exception):
    """A user-facing error: printed as one line on stderr, exit code 2."""


def _read_csv(path):
    try:
        if path is None:
            text = resources.files("fastmetrics").joinpath("data/sample.csv").read_text()
            name = "sample.csv (shipped with fastmetrics)"
        else:
            with open(path, newline="") as f:
                text = f.read()
            name = path
    except FileNotFoundError:
        raise CLIError(f"no such file: {path}") from None
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise CLIError(f"{name} is empty")
    header, body = rows[0], rows[1:]
    cols = {h: [r[i] if i < len(r) else "" for r in body] for i, h in enumerate(header)}
    return name, cols


def _column(cols, name, what):
    if name not in cols:
        raise CLIError(f"unknown {what} column {name!r}; columns are: {', '.join(cols)}")
    values = np.asarray(cols[name])
    try:  # integer labels stay integers
        return values.astype(np.int64)
    except ValueError:
        return values


def _report(args) -> int:
    name, cols = _read_csv(args.file)
    y_true = _column(cols, args.true, "--true")
    y_pred = _column(cols, args.pred, "--pred")
    oos = args.oos_label
    if oos is not None and y_true.dtype.kind == "i":
        try:
            oos = int(oos)
        except ValueError:
            raise CLIError(f"--oos-label {oos!r} is not an integer but the labels are") from None
    labels = args.labels
    if labels and y_true.dtype.kind == "i":
        labels = [int(v) for v in labels]
    try:
        m = score(y_true, y_pred, labels=labels, oos_label=oos)
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from None
    if args.format == "json":
        print(json.dumps(m.to_flat_dict(), indent=2, default=str))
        return 0
    if args.format == "markdown":
        print(format_metrics_row(args.name, m))
        return 0
    print(f"fastmetrics report: {name}, {m.n_examples} predictions, {len(m.labels)} labels")
    print()
    row = m.as_row()
    for key in ("accuracy", "macro_f1", "weighted_f1", "micro_f1", "oos_recall", "oos_precision"):
        print(f"  {key:<14} {'N/A' if row[key] is None else f'{row[key]:.4f}'}")
    print()
    print(classification_report(y_true, y_pred, labels=m.labels, digits=4, zero_division=0))
    print("confusion matrix (rows: true, columns: predicted)")
    width = max(len(str(v)) for v in m.labels + [int(np.max(m.confusion_matrix))])
    print(" " * (width + 1) + " ".join(f"{str(v):>{width}}" for v in m.labels))
    for lab, row_ in zip(m.labels, m.confusion_matrix):
        print(f"{str(lab):>{width}} " + " ".join(f"{int(c):>{width}}" for c in row_))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fastmetrics", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command")
    r = sub.add_parser("report", help="print the report card of a predictions CSV file")
    r.add_argument("file", nargs="?", help="CSV file (default: the shipped sample)")
    r.add_argument("--true", default="y_true", help="column of true labels (default y_true)")
    r.add_argument("--pred", default="y_pred", help="column of predictions (default y_pred)")
    r.add_argument("--oos-label", default=None, help="the out-of-scope label")
    r.add_argument("--labels", nargs="+", default=None, help="pinned label vocabulary")
    r.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    r.add_argument("--name", default="model", help="row name for --format markdown")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare `python -m fastmetrics`: the sample's report card
        args = parser.parse_args(["report", "--oos-label", "oos"])
    try:
        return _report(args)
    except CLIError as exc:
        print(f"fastmetrics: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
