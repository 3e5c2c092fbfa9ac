"""The one HTML page every face writes: the report card's (``fastmetrics report --html``) and
an evaluation's (:meth:`fastmetrics.evaluation.Evaluation.to_html`, ``fastmetrics evaluate
--html``).

A page holds everything it shows: its style sheet, its figures (PNGs inline as ``data:``
URIs, drawn by matplotlib, the ``plot`` extra) and at most one script, the one that sorts a
table when its header is clicked. A Content-Security-Policy forbids every other source: the
script runs because the policy names its SHA-256, so a browser runs no other script, even
one a label or column name smuggled into the page (every text is escaped as well).
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
from typing import Any, Mapping, Sequence

from ._states.confusion import py_value

__all__ = ["SORT_SCRIPT", "STYLE", "curve_sections", "document", "escape", "figure",
           "new_figure", "png"]

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto;
       max-width: 60em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
p.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { padding: 0.25em 0.8em; text-align: right; border-bottom: 1px solid #e4e4e4; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #999; }
table.sortable th { cursor: pointer; }
tr.avg td { background: #f6f6f6; }
h3 { font-size: 1.05em; margin-bottom: 0.2em; }
tr.worst td { background: #fdecea; font-weight: 600; }
table.slices td:first-child { white-space: nowrap; }
ul.gates li.fail { color: #a40000; }
figure { margin: 0.5em 0; display: inline-block; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
footer { margin-top: 3em; color: #888; font-size: 0.85em; }
"""

#: Sorts the rows of a ``table.sortable`` by the clicked column (numbers as numbers, the
#: rest as text; a second click reverses).
SORT_SCRIPT = (
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.tHead.querySelectorAll('th').forEach(function(h,i){h.addEventListener('click',"
    "function(){var b=t.tBodies[0],r=Array.from(b.rows),d=t.dataset.col===String(i)?-1:1;"
    "t.dataset.col=d==1?String(i):'';r.sort(function(x,y){var a=x.cells[i].textContent,"
    "c=y.cells[i].textContent,p=parseFloat(a),q=parseFloat(c);"
    "return d*((isNaN(p)||isNaN(q))?a.localeCompare(c):p-q)});"
    "r.forEach(function(x){b.appendChild(x)})})})});")


def escape(v: Any) -> str:
    """Text for the page: a numpy scalar as its Python value, then HTML-escaped.

    Examples
    --------
    >>> escape("<b>")
    '&lt;b&gt;'
    """
    return html.escape(str(py_value(v)))


def png(fig: Any) -> str:
    """A matplotlib figure as a ``data:`` URI of its PNG."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def figure(uri: str, alt: str, caption: str) -> str:
    """An inline image with its caption.

    Examples
    --------
    >>> figure("data:,", "a <plot>", "caption").startswith('<figure><img src="data:,"')
    True
    """
    return (f'<figure><img src="{uri}" alt="{escape(alt)}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def new_figure(width: float, height: float) -> tuple[Any, Any]:
    """A matplotlib figure of one axes drawn off screen (no pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot(1, 1, 1)


def curve_sections(curves: Mapping[str, Mapping[str, tuple[Any, ...]]],
                   legends: Mapping[tuple[str, str], str] | None = None) -> list[str]:
    """The sections drawing several models' curves, one figure a kind and one line a
    model in it: ROC (``"roc"``: false and true positive rates, with the chance
    diagonal), precision-recall (``"pr"``: recall and precision) and reliability
    (``"reliability"``: each bin's mean confidence and observed frequency, with the
    diagonal of perfect calibration). ``legends`` maps (model, kind) to the text after the
    model's name (its AUC...). Without matplotlib, one paragraph saying so.

    Examples
    --------
    >>> import numpy as np
    >>> parts = curve_sections({"m": {"roc": (np.array([0.0, 1.0]), np.array([0.0, 1.0]))}})
    >>> parts[0].startswith('<section id="roc">') or "matplotlib" in parts[0]
    True
    """
    kinds = [k for k in ("roc", "pr", "reliability") if any(k in c for c in curves.values())]
    if not kinds:
        return []
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return ['<section id="curves"><h2>Curves</h2><p class="meta">The curves need '
                "matplotlib (<code>pip install fastmetrics-kernels[plot]</code>).</p></section>"]
    titles = {"roc": ("ROC curves", "false positive rate", "true positive rate"),
              "pr": ("Precision-recall curves", "recall", "precision"),
              "reliability": ("Reliability diagram", "mean confidence of the bin",
                              "observed frequency")}
    out = []
    for kind in kinds:
        title, xlabel, ylabel = titles[kind]
        fig, ax = new_figure(5.5, 4.8)
        if kind != "pr":  # chance (ROC), perfect calibration (reliability)
            ax.plot([0, 1], [0, 1], linestyle="--", color="#999", linewidth=1)
        lines, labels = [], []
        for model, c in curves.items():
            if kind not in c:
                continue
            x, y = c[kind][0], c[kind][1]
            extra = (legends or {}).get((model, kind))
            lines += ax.plot(x, y, marker="o" if kind == "reliability" else None,
                             markersize=4)
            # a name as written: "$" would start mathtext, and a leading "_" hides a label
            # matplotlib collects itself (these are handed over)
            labels.append((model if not extra else f"{model} ({extra})").replace("$", r"\$"))
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(lines, labels, loc="lower right" if kind != "pr" else "lower left",
                  fontsize="small")
        caption = {"roc": "Whole table; the dashed diagonal is chance.",
                   "pr": "Whole table.",
                   "reliability": "Whole table, equal-width bins; the dashed diagonal is "
                                  "perfect calibration."}[kind]
        out.append(f'<section id="{kind}"><h2>{escape(title)}</h2>'
                   + figure(png(fig), title, caption) + "</section>")
    return out


def document(title: str, parts: Sequence[str], *, sortable: bool = False) -> str:
    """A whole page: ``title`` (escaped here) as its title and first heading, then
    ``parts`` (HTML, already escaped), then the footer; with ``sortable``, the script that
    sorts ``table.sortable`` tables, allowed by its hash.

    Examples
    --------
    >>> page = document("x & y", ["<p>body</p>"])
    >>> page.startswith("<!DOCTYPE html>"), "<h1>x &amp; y</h1>" in page
    (True, True)
    """
    from . import __version__

    policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    script = ""
    if sortable:
        digest = base64.b64encode(hashlib.sha256(SORT_SCRIPT.encode()).digest()).decode()
        policy += f"; script-src 'sha256-{digest}'"
        script = f"<script>{SORT_SCRIPT}</script>"
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        # nothing but this page's own style, images and sorting script may load or run
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{escape(title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        *parts,
        f"<footer>Made by fastmetrics {escape(__version__)}.</footer>",
        script,
        "</body></html>",
        "",
    ])
