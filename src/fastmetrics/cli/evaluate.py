"""``fastmetrics evaluate FILE``: every metric of a task, every slice, several models,
intervals and pass/fail gates (:func:`fastmetrics.evaluate` on a Parquet or CSV file).

Exit status: 0 when every gate passes (or there is none), 1 when a gate fails (the failing
ones printed on stderr), 2 on bad input (one line, no traceback). ``--output`` is written
to a temporary file beside it and renamed into place, so a failed run leaves nothing
half-written there.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import TYPE_CHECKING, Any

from .args import columns, count, level
from .errors import CLIError, first_line

if TYPE_CHECKING:
    from ..evaluation import Evaluation

__all__ = ["add_parser", "run_evaluate"]

FORMATS = ("text", "json", "csv", "parquet", "markdown")


def _model(text: str) -> tuple[str, list[str]]:
    name, eq, cols = text.partition("=")
    if not eq or not name or not cols:
        raise argparse.ArgumentTypeError(f"--model wants NAME=COL[,COL...], got {text!r}")
    return name, [c for c in cols.split(",") if c]


def _threshold(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if v != v or v in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"wants a finite number, got {text!r}")
    return v


def add_parser(sub: Any) -> None:
    """Add the ``evaluate`` command to the subparsers ``sub``."""
    e = sub.add_parser(
        "evaluate",
        help="every metric of a task, every slice, several models, intervals and gates",
        description="Evaluate one or more models' predictions in a Parquet or CSV file: every "
        "default metric of the task for the whole table and each slice, intervals, the "
        "difference to a baseline model, and pass/fail gates (exit 1 when one fails).",
    )
    e.add_argument("file", metavar="FILE", nargs="+", help="predictions: .parquet, .csv or "
                   ".tsv (optionally .gz, .bz2, .zst), .npy or .npz; several files are "
                   "joined on --id")
    e.add_argument("--true", dest="true", required=True, type=columns,
                   metavar="COL[,COL...]", help="the true labels (or targets); several "
                   "0/1 columns, one per label: the multilabel task")
    one = e.add_mutually_exclusive_group()
    one.add_argument("--pred", metavar="COL[,COL...]", type=columns,
                     help="one model's predicted labels (multilabel: its 0/1 columns, in "
                     "--true's order)")
    one.add_argument("--score", metavar="COL", help="one model's score (binary: the "
                     "positive class's probability; regression: the estimate)")
    one.add_argument("--prob-prefix", metavar="P", help="one model's probability columns: "
                     "every column whose name starts with P, one per sorted class")
    e.add_argument("--model", action="append", type=_model, default=[],
                   metavar="NAME=COL[,COL...]", help="a model: a score column, or its "
                   "probability columns (multilabel: one 0/1 or score column per label); "
                   "repeat for several models")
    e.add_argument("--threshold", type=_threshold, default=0.5, metavar="T",
                   help="a score column's predicted labels: 1 at T or above (binary and "
                   "multilabel tasks; default 0.5)")
    e.add_argument("--task", choices=("binary", "multiclass", "multilabel", "regression",
                                      "ranking"),
                   help="the task (default: inferred from the data, and said)")
    e.add_argument("--query", metavar="COL", help="the ranking task: each row's query (the "
                   "true column is the relevance; NDCG, NDCG@10, MRR and MAP by query)")
    e.add_argument("--by", action="append", type=columns, default=[], metavar="COL[,COL...]",
                   help="a slicing: one column, or several crossed (repeat for several "
                   "slicings)")
    e.add_argument("--weight", metavar="COL", help="sample weights")
    e.add_argument("--id", metavar="COL", help="the id column several FILEs are joined on")
    e.add_argument("--baseline", metavar="NAME", help="the model the others are compared to")
    e.add_argument("--gate", action="append", default=[], metavar="EXPR",
                   help="a pass/fail condition: METRIC>=V, METRIC:delta>=V (against the "
                   "baseline), METRIC:rel>=V, METRIC:better (repeatable)")
    e.add_argument("--gate-slices", action="store_true",
                   help="check the gates on every slice of at least --min-slice-size rows too")
    e.add_argument("--ci", nargs="?", const=0.95, type=level, default=None, metavar="LEVEL",
                   help="confidence intervals (default level 0.95)")
    e.add_argument("--n-boot", type=count, default=1000, metavar="N",
                   help="bootstrap resamples (default 1000)")
    e.add_argument("--min-slice-size", type=count, default=1, metavar="N",
                   help="slices with fewer rows get no values (default 1)")
    e.add_argument("--metric", action="append", default=None, metavar="NAME",
                   help="only these metrics (repeatable; default: the task's table)")
    e.add_argument("--format", choices=FORMATS, default="text",
                   help="output format (default text)")
    e.add_argument("--output", metavar="PATH", help="write the output there, not stdout "
                   "(csv and parquet need it)")
    e.add_argument("--html", metavar="PATH", help="also write an HTML page there")
    e.add_argument("--batch-rows", type=count, default=1 << 20, metavar="N",
                   help="rows read at a time (default 1048576)")


def run_evaluate(args: argparse.Namespace) -> int:
    """Run ``fastmetrics evaluate`` for parsed arguments: 0, or 1 when a gate fails;
    ``CLIError`` for bad input."""
    from ..evaluation import evaluate

    models: dict[str, Any] | None = None
    if args.model:
        models = {}
        for name, cols in args.model:
            if name in models:
                raise CLIError(f"--model {name} is given twice")
            models[name] = cols[0] if len(cols) == 1 else cols
    if args.format == "parquet" and not args.output:
        raise CLIError("--format parquet needs --output PATH")
    bar = _progress()
    try:
        if len(args.file) > 1 and args.id is None:
            raise CLIError("several FILEs are joined on an id column: pass --id COL")
        data = args.file[0] if len(args.file) == 1 else args.file
        # one column, or a multilabel task's columns
        y_true = args.true[0] if len(args.true) == 1 else args.true
        pred = None if args.pred is None else args.pred[0] if len(args.pred) == 1 \
            else args.pred
        ev = evaluate(data, y_true=y_true, pred=pred, score=args.score,
                      prob=args.prob_prefix, models=models, task=args.task,
                      by=args.by or None, sample_weight=args.weight, metrics=args.metric,
                      ci=args.ci, n_boot=args.n_boot, baseline=args.baseline,
                      gates=args.gate, gate_slices=args.gate_slices,
                      min_slice_size=args.min_slice_size, batch_rows=args.batch_rows,
                      threshold=args.threshold,
                      id=args.id if len(args.file) > 1 else None, query=args.query,
                      progress=bar)
    except (ValueError, TypeError, OSError, KeyError) as exc:
        raise CLIError(first_line(exc)) from None
    text = _render(ev, args.format)
    if args.output:
        _write_atomic(args.output, text, ev, args.format)
    elif text is not None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if args.html:
        _write_atomic(args.html, ev.to_html(), ev, "html")
    for w in ev.warnings:
        print(f"fastmetrics: warning: {w['message']} ({w['count']} values)", file=sys.stderr)
    for g in ev.failed():
        where = ", ".join(f"{k}={v}" for k, v in g["slice"].items()) or "whole table"
        print(f"fastmetrics: gate failed: {g['gate']} ({g['model']}, {where}): {g['reason']}",
              file=sys.stderr)
    return 0 if ev.passed else 1


def _progress() -> Any:
    if not sys.stderr.isatty():
        return None
    from .progress import Progress

    state: dict[str, Any] = {}

    def step(done: int, total: int | None) -> None:
        if total is None:
            return
        if "bar" not in state:
            state["bar"] = Progress(total, unit="rows")
        state["bar"].reach(done, "rows")

    return step


def _render(ev: Evaluation, fmt: str) -> str | None:
    if fmt == "json":
        return ev.to_json()
    if fmt == "markdown":
        return ev.to_markdown()
    if fmt == "csv":
        return str(ev.table("pandas").to_csv(index=False))
    if fmt == "parquet":
        return None
    lines = [f"task: {ev.task}" + (" (inferred)" if ev.task_inferred else ""), ""]
    header = f"{'model':<12} {'slice':<28} {'metric':<32} {'value':>10} {'interval':>22} {'n':>10}"
    lines.append(header)
    for r in ev.table("records"):
        v = r["value"]
        value = "n/a" if v is None or v != v else f"{v:.6f}"
        ci = "" if r["ci_low"] is None else f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}]"
        lines.append(f"{r['model']:<12} {r['slice'] or '(all)':<28} {r['metric']:<32} "
                     f"{value:>10} {ci:>22} {r['n']:>10}")
    for t in ev.too_small:
        where = ", ".join(f"{k}={v}" for k, v in t["slice"].items())
        lines.append(f"too small: {where} (n={t['n']})")
    for g in ev.gates:
        where = ", ".join(f"{k}={v}" for k, v in g["slice"].items()) or "whole table"
        lines.append(f"gate {'pass' if g['passed'] else 'FAIL'}: {g['gate']} ({g['model']}, "
                     f"{where}): {g['reason']}")
    return "\n".join(lines) + "\n"


def _write_atomic(path: str, text: str | None, ev: Any, fmt: str) -> None:
    """Write to a temporary file beside ``path``, then rename it into place."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CLIError(f"cannot write {path}: no such directory {folder}")
    if os.path.isdir(path):
        raise CLIError(f"cannot write {path}: it is a directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".fastmetrics-", dir=folder)
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {first_line(exc)}") from None
    try:
        if fmt == "parquet":
            os.close(fd)
            import pyarrow.parquet as pq

            pq.write_table(ev.table("arrow"), tmp)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text or "")
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise CLIError(f"cannot write {path}: {first_line(exc)}") from None
        raise
