"""The report card as one self-contained HTML page (``fastmetrics report --html OUT.html``).

The page is :mod:`fastmetrics._page`'s, as an evaluation's is: its style sheet, figures
inline as ``data:`` URIs, no script, and a Content-Security-Policy that forbids every other
source. The figures are drawn by matplotlib (the ``plot`` extra): the confusion matrix by
scikit-learn's ConfusionMatrixDisplay from the card's matrix, the reliability diagram by
:func:`fastmetrics.reliability_diagram`, and the one-vs-rest ROC and precision-recall curves
of each probability column by :func:`fastmetrics.plot_roc_curve` and
:func:`fastmetrics.plot_precision_recall_curve`.
"""

from __future__ import annotations

import base64
import importlib
import os
import pathlib
import tempfile
from typing import Any

import numpy as np

from .._page import document, escape, figure, new_figure, png
from .._states.confusion import py_value
from .card import Card, Scores
from .errors import CLIError, first_line
from .slices import slices_html

__all__ = ["MAX_CURVES", "render_html", "write_html"]

#: One-vs-rest curves drawn per figure at most (the first classes, in label order).
MAX_CURVES = 10
HTML_NEEDS = ("--html needs matplotlib and scikit-learn, which are not installed: "
              "`pip install fastmetrics-kernels[plot]`")


def _confusion_figure(card: Card) -> str:
    from sklearn.metrics import ConfusionMatrixDisplay

    cm = np.asarray(card.metrics.confusion_matrix)
    names = [str(py_value(v)) for v in card.metrics.labels]
    k = len(names)
    side = min(max(4.5, 0.55 * k + 2.5), 16.0)
    fig, ax = new_figure(side + 1.0, side)
    slanted = max((len(n) for n in names), default=0) * k > 40
    ConfusionMatrixDisplay(confusion_matrix=cm, display_labels=names).plot(
        ax=ax, cmap="Blues", include_values=k <= 25,
        xticks_rotation=45 if slanted else "horizontal")
    if slanted:  # each slanted name ends under its column, not centred across the next one
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
            tick.set_rotation_mode("anchor")
    return png(fig)


def _reliability_figure(card: Card) -> str:
    from ..calibration import reliability_diagram

    assert card.calibration is not None
    with tempfile.TemporaryDirectory() as tmp:  # reliability_diagram writes a file
        path = reliability_diagram(card.calibration.bins, os.path.join(tmp, "r.png"))
        data = pathlib.Path(path).read_bytes()
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _curve_figures(scores: Scores) -> tuple[str, str, list[str]] | None:
    """The ROC and PR figures of the one-vs-rest problem of each column (at most
    :data:`MAX_CURVES`), and the classes left out because one class has no rows; None when
    no column has both classes."""
    from ..plots import plot_precision_recall_curve, plot_roc_curve

    roc_fig, roc_ax = new_figure(6.5, 5.5)
    pr_fig, pr_ax = new_figure(6.5, 5.5)
    skipped: list[str] = []
    drawn: list[tuple[int, str, np.ndarray]] = []
    for j, cls in enumerate(scores.classes[:MAX_CURVES]):
        y = (scores.true_column == j).astype(np.int8)
        n_pos = int(np.count_nonzero(y))
        if n_pos == 0 or n_pos == y.shape[0]:  # no curve: one class only
            skipped.append(str(py_value(cls)))
        else:
            drawn.append((j, str(py_value(cls)), y))
    if not drawn:
        return None
    for i, (j, name, y) in enumerate(drawn):
        s = scores.probabilities[:, j]
        # the chance diagonal once, with the last curve: last in the legend
        plot_roc_curve(y, s, ax=roc_ax, name=name, plot_chance_level=i == len(drawn) - 1)
        # the points the drawn curve bends at only: the same picture from far fewer points
        plot_precision_recall_curve(y, s, ax=pr_ax, name=name, drop_intermediate=True)
    for ax, title in ((roc_ax, "ROC, one vs rest"), (pr_ax, "Precision-recall, one vs rest")):
        ax.set_title(title)
        ax.set_xlabel(ax.get_xlabel().split(" (")[0])  # no "(Positive label: 1)"
        ax.set_ylabel(ax.get_ylabel().split(" (")[0])
        ax.legend(loc="lower right" if ax is roc_ax else "lower left", fontsize="small")
    return png(roc_fig), png(pr_fig), skipped


def _headline(card: Card) -> str:
    m = card.metrics
    rows = []
    for key, name in (("accuracy", "accuracy"), ("macro F1", "macro_f1"),
                      ("weighted F1", "weighted_f1"), ("micro F1", "micro_f1"),
                      ("OOS recall", "oos_recall"), ("OOS precision", "oos_precision")):
        rows.append(f"<tr><td>{escape(key)}</td><td>{escape(m.shown(name, 4))}</td></tr>")
    note = (f"<p>{m.confidence_level:.0%} bootstrap intervals (percentile)</p>"
            if m.intervals else "")
    return ('<section id="card"><h2>Report card</h2><table><tbody>' + "".join(rows)
            + "</tbody></table>" + note + "</section>")


def _per_class(card: Card) -> str:
    head = ("<thead><tr><th>label</th><th>precision</th><th>recall</th><th>f1-score</th>"
            "<th>support</th></tr></thead>")

    def row(r: tuple[Any, ...], cls: str = "") -> str:
        name, p, rc, f, s = r
        attr = f' class="{cls}"' if cls else ""
        return (f"<tr{attr}><td>{escape(name)}</td><td>{p:.4f}</td><td>{rc:.4f}</td>"
                f"<td>{f:.4f}</td><td>{int(s):,}</td></tr>")

    body = "".join(row(r) for r in card.rows) + "".join(row(r, "avg") for r in card.summary)
    return ('<section id="per-class"><h2>Per-class metrics</h2><table>' + head
            + f"<tbody>{body}</tbody></table></section>")


def _calibration(card: Card) -> str:
    c = card.calibration
    if c is None:
        return ""
    rows = "".join(f"<tr><td>{k}</td><td>{v:.4f}</td></tr>"
                   for k, v in (("ECE", c.ece), ("MCE", c.mce), ("Brier", c.brier)))
    return ('<section id="calibration"><h2>Calibration</h2>'
            f"<p>Top-label, {c.n_bins} equal-width bins, from {escape(card.prob_source)}.</p>"
            f"<table><tbody>{rows}</tbody></table>"
            + figure(_reliability_figure(card), "reliability diagram",
                      "Reliability diagram: observed accuracy per confidence bin; the dashed "
                      "diagonal is perfect calibration.")
            + "</section>")


def _curves(card: Card) -> str:
    if card.scores is None or card.scores.true_column.size == 0:
        return ""
    figures = _curve_figures(card.scores)
    if figures is None:
        return ('<section id="roc"><h2>ROC and precision-recall curves</h2><p>No curve: '
                "every probability column's class is in all rows or in none.</p></section>")
    roc, pr, skipped = figures
    k = len(card.scores.classes)
    note = ("" if k <= MAX_CURVES else
            f" The first {MAX_CURVES} of the {k} probability columns are drawn.")
    if skipped:
        note += f" Left out (one class only): {', '.join(skipped)}."
    cap = f"Each probability column against the rest.{note}"
    return ('<section id="roc"><h2>ROC curves</h2>'
            + figure(roc, "ROC curves", cap) + "</section>"
            '<section id="precision-recall"><h2>Precision-recall curves</h2>'
            + figure(pr, "precision-recall curves", cap) + "</section>")


def _latency(card: Card) -> str:
    lat = card.latency
    if lat is None:
        return ""
    rows = "".join(f"<tr><td>{k}</td><td>{getattr(lat, k + '_ms'):.4f}</td></tr>"
                   for k in ("p50", "p95", "p99", "mean"))
    return ('<section id="latency"><h2>Latency</h2>'
            f"<p>Milliseconds, {lat.n_iters:,} predictions, from "
            f"{escape(card.latency_source)}.</p>"
            f"<table><tbody>{rows}</tbody></table></section>")


def render_html(card: Card) -> str:
    """The report card as one self-contained HTML page.

    Parameters
    ----------
    card : Card
        The report card (:func:`~fastmetrics.cli.card.report_card`); its ROC and PR curves
        are drawn when it kept the rows' probabilities (``--html`` asks for them).

    Returns
    -------
    str
        The page: headline numbers, per-class table, confusion-matrix heatmap, and where
        the card has probabilities, the calibration with its reliability diagram and the
        one-vs-rest ROC and precision-recall curves.

    Raises
    ------
    CLIError
        If matplotlib or scikit-learn is not installed.

    Examples
    --------
    >>> from fastmetrics.cli.card import card_of
    >>> page = render_html(card_of(["report", "--html", "unused.html"]))
    >>> page.startswith("<!DOCTYPE html>"), 'id="roc"' in page
    (True, True)
    """
    try:
        for module in ("matplotlib", "sklearn"):
            importlib.import_module(module)
    except ImportError:
        raise CLIError(HTML_NEEDS) from None
    m = card.metrics
    meta = (f"{m.n_examples:,} predictions, {len(m.labels)} labels"
            + ("" if card.oos is None else f", out-of-scope label {card.oos!r}"))
    cm = figure(_confusion_figure(card), "confusion matrix heatmap",
                 "Rows: true label; columns: predicted label.")
    return document(f"fastmetrics report: {card.name}", [
        f'<p class="meta">{escape(meta)}</p>',
        _headline(card),
        _per_class(card),
        f'<section id="confusion-matrix"><h2>Confusion matrix</h2>{cm}</section>',
        _calibration(card),
        _curves(card),
        _latency(card),
        slices_html(card.slices),
    ])


def write_html(card: Card, path: str) -> None:
    """Write :func:`render_html`'s page to ``path`` (UTF-8); CLIError when matplotlib or
    scikit-learn is missing or the file cannot be written.

    Parameters
    ----------
    card : Card
        The report card.
    path : str
        Where to write the page.
    """
    page = render_html(card)
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as exc:
        raise CLIError(f"cannot write the HTML report {path}: {first_line(exc)}") from None
