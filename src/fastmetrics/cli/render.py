"""A report card as text, markdown (one results-log row) or JSON.

The per-class table is ``classification_report``'s (:func:`fastmetrics._states.prf.render_report`);
the sections around it (header, headline metrics, out-of-scope, confusion matrix,
calibration) are the command line's own.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import numpy as np

from .._states.confusion import py_value
from .._states.prf import render_report
from ..report import RESULTS_HEADER, format_metrics_row
from .card import Card
from .errors import CLIError, first_line
from .slices import slices_json, slices_text

__all__ = ["render", "render_json", "render_markdown", "render_text", "write_diagram"]


def _fmt(v: Any, digits: int = 4) -> str:
    return "N/A" if v is None else f"{v:.{digits}f}"


def render_text(card: Card, digits: int = 4) -> str:
    """The report card as text: headline metrics, per-class table, confusion matrix and
    calibration.

    Examples
    --------
    >>> from fastmetrics.cli.card import card_of
    >>> text = render_text(card_of(["report"]))
    >>> text.splitlines()[0]
    'fastmetrics report: sample.csv (shipped with fastmetrics)'
    """
    m = card.metrics
    out = [
        f"fastmetrics report: {card.name}",
        f"{m.n_examples:,} predictions, {len(m.labels)} labels"
        + ("" if card.oos is None else f", out-of-scope label {card.oos!r}"),
        "",
    ]
    for key, name in (("accuracy", "accuracy"), ("macro F1", "macro_f1"),
                      ("weighted F1", "weighted_f1"), ("micro F1", "micro_f1"),
                      ("OOS recall", "oos_recall"), ("OOS precision", "oos_precision")):
        out.append(f"  {key:<14} {m.shown(name, digits)}")
    if m.intervals:
        out.append(f"  ({m.confidence_level:.0%} bootstrap intervals, percentile)")
    out.append("")
    # classification_report's table, less the blank line under its column names: the report
    # card has always printed its rows right under them
    head, body = render_report(card.rows, card.summary, digits).split("\n\n", 1)
    out.append(head)
    out.append(body.rstrip("\n"))
    out.append("")
    out.append("confusion matrix (rows: true label, columns: predicted label)")
    names = [str(v) for v in m.labels]
    cells = [[str(py_value(c)) for c in row] for row in np.asarray(m.confusion_matrix)]
    w0 = max(len(n) for n in names)
    ws = [max(len(n), *(len(row[j]) for row in cells)) for j, n in enumerate(names)]
    out.append(" " * w0 + "  " + " ".join(f"{n:>{w}}" for n, w in zip(names, ws)))
    for n, row in zip(names, cells):
        out.append(f"{n:>{w0}}  " + " ".join(f"{c:>{w}}" for c, w in zip(row, ws)))
    if card.calibration is not None:
        c = card.calibration
        out.append("")
        out.append(f"calibration (top-label, {c.n_bins} equal-width bins, from "
                   f"{card.prob_source})")
        out.append(f"  {'ECE':<14} {c.ece:.{digits}f}")
        out.append(f"  {'MCE':<14} {c.mce:.{digits}f}")
        out.append(f"  {'Brier':<14} {c.brier:.{digits}f}")
    if card.latency is not None:
        lat = card.latency
        out.append("")
        out.append(f"latency (ms, {lat.n_iters:,} predictions, from {card.latency_source})")
        for key in ("p50", "p95", "p99", "mean"):
            out.append(f"  {key:<14} {getattr(lat, key + '_ms'):.{digits}f}")
    if card.slices:
        out.append(slices_text(card.slices, digits))
    return "\n".join(out)


def _json_default(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def _finite(v: Any) -> Any:
    """``v`` with every float that is not finite (an empty calibration bin's NaN) as None:
    JSON has no NaN, and ``null`` is what JSON readers take for a missing number."""
    if isinstance(v, (float, np.floating)):
        return float(v) if np.isfinite(v) else None
    if isinstance(v, np.ndarray):
        return _finite(v.tolist())
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    return v


def render_json(card: Card) -> str:
    """The report card as one flat JSON object (``per_class.<label>.f1``,
    ``confusion_matrix.<i>.<j>``, ``calibration.ece``...).

    Examples
    --------
    >>> import json
    >>> from fastmetrics.cli.card import card_of
    >>> json.loads(render_json(card_of(["report"])))["n_examples"]
    3000
    """
    d = dict(card.metrics.to_flat_dict())
    d["labels"] = card.metrics.labels
    if card.calibration is not None:
        d.update({f"calibration.{k}": v for k, v in card.calibration.to_flat_dict().items()})
    if card.latency is not None:
        d.update({f"latency.{k}": v for k, v in asdict(card.latency).items()})
    if card.slices:  # --by only: the flat keys above stay as they were
        d["slices"] = slices_json(card.slices)
    return json.dumps(_finite(d), indent=2, default=_json_default, allow_nan=False)


def render_markdown(card: Card, name: str, header: bool = False) -> str:
    """The report card as one row of the markdown results log (``header``: the table's
    header first).

    Examples
    --------
    >>> from fastmetrics.cli.card import card_of
    >>> render_markdown(card_of(["report"]), "sample")
    '| sample | 0.8177 | 0.7528 | 0.5852 | N/A | N/A |'
    """
    row = format_metrics_row(name, card.metrics, card.latency)
    return RESULTS_HEADER + row if header else row


def render(card: Card, fmt: str, name: str = "model", header: bool = False) -> str:
    """The report card in ``fmt``: ``"text"``, ``"markdown"`` or ``"json"``."""
    if fmt == "json":
        return render_json(card)
    if fmt == "markdown":
        return render_markdown(card, name, header)
    return render_text(card)


def write_diagram(card: Card, path: str) -> None:
    """Write the card's reliability diagram to ``path`` (needs matplotlib); CLIError when
    it cannot be written."""
    from ..calibration import reliability_diagram

    # report_card refuses --diagram without probability columns, so the card has a calibration
    assert card.calibration is not None
    try:
        reliability_diagram(card.calibration.bins, path)
    except ImportError as exc:
        raise CLIError(first_line(exc)) from None
    except (OSError, ValueError) as exc:
        raise CLIError(f"cannot write the diagram {path}: {first_line(exc)}") from None
