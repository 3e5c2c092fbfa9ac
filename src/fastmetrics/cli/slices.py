"""``fastmetrics report --by COL[,COL]``: the card's headline numbers for every slice of the
rows, one table per slicing, worst slice first.

The slice columns are read by the same reader as the label columns, batch by batch (they
are named among the reader's label columns, so pyarrow hands text keys over
dictionary-encoded). Each batch's key values are coded (:class:`KeyCoder`, one integer per
distinct value, so that the grouped pass sees integer keys), and each slicing keeps one
:class:`~fastmetrics.streaming.GroupedAccumulator` of the confusion family over the coded
labels, plus, when the card has probabilities, one of the calibration family fed the same
rows the card's top-label calibration bins (:class:`~fastmetrics.cli.toplabel.TopLabel`
hands them over). A slice's state is then what its rows alone give, and its row of the
table is derived as the card is (:func:`fastmetrics._states.confusion.card` over the labels'
type decided for the whole file): the numbers the card shows for that slice's rows.
"""

from __future__ import annotations

import argparse
import html
import math
from dataclasses import dataclass, field
from typing import Any, Sequence, cast

import numpy as np

from .._states import confusion
from .._states.confusion import py_value
from ..streaming import CalibrationAccumulator, GroupedAccumulator
from .columns import Coded, LabelCoder
from .args import columns, count
from .errors import CLIError, first_line

__all__ = ["SliceRow", "SliceTable", "Slicer", "add_arguments", "slices_html",
           "slices_json", "slices_text"]

#: The metric that orders a slicing's rows (lowest first: the worst slice).
PRIMARY = "macro_f1"
#: Each metric's name in the text and HTML tables, in column order.
HEADINGS = {"accuracy": "accuracy", "macro_f1": "macro F1", "weighted_f1": "weighted F1",
            "oos_precision": "OOS precision", "oos_recall": "OOS recall", "ece": "ECE",
            "mce": "MCE", "brier": "Brier"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--by`` and ``--min-slice-size`` to the ``report`` parser."""
    parser.add_argument("--by", action="append", type=columns, default=None,
                        metavar="COL[,COL]",
                        help="after the card, a table of its headline numbers for every "
                        "slice of the rows by the values of COL (COL,COL: the columns "
                        "crossed), worst slice (lowest macro F1) first; repeat for several "
                        "slicings")
    parser.add_argument("--min-slice-size", type=count, default=1, metavar="N",
                        help="slices of fewer than N rows are listed as too small, their "
                        "numbers not computed (default 1)")


class KeyCoder:
    """One slice column over the batches: each distinct value an integer code, in the order
    first seen; CLIError for a missing value (empty text, null, NaN).

    Examples
    --------
    >>> k = KeyCoder("region")
    >>> k.encode(np.array(["eu", "us", "eu"], dtype=object), 0, 3).tolist()
    [0, 1, 0]
    >>> k.encode(Coded(np.array([1, 0]), ["apac", "us"]), 3, 2).tolist(), k.values
    ([1, 2], ['eu', 'us', 'apac'])
    """

    def __init__(self, key: str) -> None:
        self.key = key
        self.codes: dict[Any, int] = {}
        self.values: list[Any] = []  # code -> value

    def encode(self, a: Any, row0: int, n: int) -> np.ndarray:
        """The codes of one batch's column (``row0``: data rows before it, ``n``: its rows)."""
        if isinstance(a, Coded):
            # the K distinct texts coded once, then one take over the rows
            used = (np.bincount(a.indices, minlength=len(a.values)) > 0 if a.indices.size
                    else np.zeros(len(a.values), bool))
            table = np.array([self._code(v, a.indices, j, row0) if u else -1
                              for j, (v, u) in enumerate(zip(a.values, used.tolist()))],
                             dtype=np.int64)
            codes: np.ndarray = table[a.indices]
        else:
            a = np.asarray(a)
            if a.ndim != 1:
                raise CLIError(f"the --by column {self.key!r} must be 1-D, got shape {a.shape}")
            if a.dtype.kind in "OUS":
                # texts (the csv module's columns): a dict lookup per row, as the label
                # coder does; sorting a million Python strings takes ten times longer
                values = a.tolist()
                if set(values).difference(self.codes):
                    for i, v in enumerate(values):
                        if v not in self.codes:
                            self._new(v, row0 + i)
                codes = np.fromiter(map(self.codes.__getitem__, values), np.int64,
                                    len(values))
            else:
                if a.dtype.kind in "fc" and np.isnan(a).any():
                    self._missing(row0 + int(np.flatnonzero(np.isnan(a))[0]))
                # numbers: the distinct values once (numpy's sort), then a take over the rows
                distinct, inverse = np.unique(a, return_inverse=True)
                table = np.array([self._code(v, inverse, j, row0)
                                  for j, v in enumerate(distinct.tolist())], dtype=np.int64)
                codes = table[inverse.reshape(-1)]
        if codes.shape[0] != n:
            raise CLIError(f"the --by column {self.key!r} has {codes.shape[0]} values but "
                           f"--true has {n} (lengths differ)")
        return codes

    def _code(self, v: Any, index: np.ndarray, j: int, row0: int) -> int:
        """The code of value ``v``, the ``j``-th of ``index`` (a batch's per-row positions
        into its distinct values)."""
        c = self.codes.get(v)
        if c is not None:
            return c
        return self._new(v, row0 + int(np.flatnonzero(index == j)[0]))

    def _new(self, v: Any, row: int) -> int:
        """A new value's code (first seen at data row ``row + 1``); CLIError if missing."""
        if v is None or v == "" or (isinstance(v, float) and math.isnan(v)):
            self._missing(row)
        c = self.codes[v] = len(self.values)
        self.values.append(v)
        return c

    def _missing(self, row: int) -> None:
        raise CLIError(f"the --by column {self.key!r} has a missing value (data row "
                       f"{row + 1}): every row needs its slice")


@dataclass
class SliceRow:
    """One slice's line of a table.

    Attributes
    ----------
    key : dict
        Slice column -> its value.
    n : int
        The slice's rows.
    values : dict
        Metric -> value (None: not computed, too small).
    worst : bool
        Whether it is the slicing's worst slice (lowest primary metric; ties all marked).
    """

    key: dict[str, Any]
    n: int
    values: dict[str, float | None] = field(default_factory=dict)
    worst: bool = False


@dataclass
class SliceTable:
    """One slicing: its columns, the metrics shown, the rows (worst first) and the slices
    below ``--min-slice-size`` (by key)."""

    by: list[str]
    metrics: list[str]
    min_size: int
    rows: list[SliceRow]
    too_small: list[SliceRow]


class Slicer:
    """The ``--by`` slicings of one reading of a file: grouped accumulators fed batch by
    batch, the tables derived after the last one.

    Parameters
    ----------
    slicings : list of list of str
        Each ``--by``'s columns, resolved by the reader (:meth:`Source.column`).
    min_size : int
        ``--min-slice-size``.
    n_bins : int
        The card's calibration bins.
    """

    def __init__(self, slicings: list[list[str]], min_size: int, n_bins: int) -> None:
        self.slicings = slicings
        self.min_size = min_size
        self.n_bins = n_bins
        self.coders = {c: KeyCoder(c) for s in slicings for c in s}
        self.confusion = [GroupedAccumulator("confusion") for _ in slicings]
        # typing -> each slicing's calibration; typings share one while their rows agree,
        # as the card's own calibration accumulators do (TopLabel)
        self.calibration: dict[str, list[GroupedAccumulator]] = {}

    @property
    def columns(self) -> list[str]:
        """The slice columns the reader must hand over."""
        return list(self.coders)

    def keys(self, columns: dict[str, Any], row0: int, n: int) -> list[Any]:
        """Each slicing's group keys for one batch: one column's codes, or a dict of the
        crossed columns' codes."""
        coded = {c: k.encode(columns[c], row0, n) for c, k in self.coders.items()}
        return [coded[s[0]] if len(s) == 1 else {c: coded[c] for c in s}
                for s in self.slicings]

    def update(self, keys: list[Any], y_true: np.ndarray, y_pred: np.ndarray) -> None:
        """Count one batch's coded labels (:meth:`LabelCoder.encode`) into every slicing."""
        for acc, k in zip(self.confusion, keys):
            try:
                acc.update(y_true, y_pred, groups=k)
            except (ValueError, TypeError) as exc:
                raise CLIError(first_line(exc)) from None

    def feed_calibration(self, keys: list[Any], ys: dict[str, np.ndarray],
                         probs: np.ndarray) -> None:
        """The rows that the card's calibration has just binned, per typing (``ys``: the
        true column, or 0/1 for one column; ``probs``: their probabilities)."""
        if not self.calibration:
            first = [GroupedAccumulator("calibration", n_bins=self.n_bins)
                     for _ in self.slicings]
            self.calibration = dict.fromkeys(ys, first)
        fed: list[tuple[list[GroupedAccumulator], np.ndarray]] = []
        for t, y in ys.items():
            accs = self.calibration[t]
            if any(a is accs and np.array_equal(fy, y) for a, fy in fed):
                continue
            if any(a is accs for a, _ in fed):  # typings that agreed so far part here
                accs = self.calibration[t] = [
                    GroupedAccumulator.merge_all([g]) if g.n_groups
                    else GroupedAccumulator("calibration", n_bins=self.n_bins) for g in accs]
            fed.append((accs, y))
        for accs, y in fed:
            for g, k in zip(accs, keys):
                g.update(y, probs, groups=k)

    def tables(self, coder: LabelCoder, labels: list[Any] | None, oos: Any,
               typing: str | None) -> list[SliceTable]:
        """The tables once every batch is in: per slice the card of its rows (``labels``
        and ``oos`` as the card's, ``typing`` the calibration's labels' type, None when the
        card has no calibration)."""
        counted = ["accuracy", "macro_f1", "weighted_f1"]
        if oos is not None:
            counted += ["oos_precision", "oos_recall"]
        metrics = list(counted)
        cal = None if typing is None else self.calibration.get(typing)
        if cal is not None:
            metrics += ["ece", "mce", "brier"]
        out = []
        for i, (cols, acc) in enumerate(zip(self.slicings, self.confusion)):
            rows, small = [], []
            for key in acc.keys():
                codes = key if isinstance(key, tuple) else (key,)
                named = {c: self.coders[c].values[k] for c, k in zip(cols, codes)}
                state = acc[key].state
                assert state is not None  # a key is only made by its rows
                row = SliceRow(named, int(state.n_samples))
                if row.n < self.min_size:
                    small.append(row)
                    continue
                try:
                    m = confusion.card(coder.finish(state), labels, oos).metrics
                except (ValueError, TypeError) as exc:
                    raise CLIError(first_line(exc)) from None
                row.values = {k: getattr(m, k) for k in counted}
                if cal is not None:
                    s = cast(CalibrationAccumulator, cal[i][key]).result()
                    row.values.update(ece=s.ece, mce=s.mce, brier=s.brier)
                rows.append(row)
            rows.sort(key=lambda r: (_order(r.values[PRIMARY]), _key_order(r.key)))
            if rows:
                low = rows[0].values[PRIMARY]
                for r in rows:
                    r.worst = r.values[PRIMARY] == low
            small.sort(key=lambda r: _key_order(r.key))
            out.append(SliceTable(list(cols), metrics, self.min_size, rows, small))
        return out


def _order(v: float | None) -> float:
    return math.inf if v is None or math.isnan(v) else v


def _key_order(key: dict[str, Any]) -> tuple[tuple[int, Any], ...]:
    """Keys sort by value: numbers before texts, each in its own order."""
    return tuple((0, v) if isinstance(v, (int, float)) and not isinstance(v, bool)
                 else (1, str(v)) for v in map(py_value, key.values()))


# --------------------------------------------------------------------------- rendering


def _shown(v: Any) -> str:
    return "N/A" if v is None else str(py_value(v))


def _name(row: SliceRow) -> str:
    return ", ".join(_shown(v) for v in row.key.values())


def slices_text(tables: Sequence[SliceTable], digits: int = 4) -> str:
    """The tables as text: per slicing a heading naming its columns, one aligned line per
    slice (``<`` marks the worst), then the slices too small to score."""
    out: list[str] = []
    for t in tables:
        by = " x ".join(t.by)
        out += ["", f"by {by} ({len(t.rows)} slices, worst first)"]
        head = [by, "n", *(HEADINGS[m] for m in t.metrics)]
        cells = [[_name(r), f"{r.n:,}",
                  *(_fmt(r.values.get(m), digits) for m in t.metrics)] for r in t.rows]
        widths = [max(len(h), *(len(c[j]) for c in cells)) if cells else len(h)
                  for j, h in enumerate(head)]

        def line(c: list[str]) -> str:
            return "  " + "  ".join([f"{c[0]:<{widths[0]}}",
                                     *(f"{x:>{w}}" for x, w in zip(c[1:], widths[1:]))])

        out.append(line(head).rstrip())
        out += [line(c) + ("  < worst" if r.worst else "") for c, r in zip(cells, t.rows)]
        if t.too_small:
            shown = "; ".join(f"{_name(r)} ({r.n:,})" for r in t.too_small)
            out.append(f"  too small (< {t.min_size:,} rows, not scored): {shown}")
    return "\n".join(out)


def _fmt(v: float | None, digits: int) -> str:
    return "N/A" if v is None or math.isnan(v) else f"{v:.{digits}f}"


def slices_json(tables: Sequence[SliceTable]) -> list[dict[str, Any]]:
    """The tables as the JSON report's ``slices``: per slicing ``{"by": [...], "rows":
    [{"slice": {col: value}, "n": n, metric: value, ..., "worst": bool}], "too_small":
    [{"slice": ..., "n": n}]}``."""
    return [{"by": list(t.by),
             "rows": [{"slice": {c: py_value(v) for c, v in r.key.items()}, "n": r.n,
                       **r.values, "worst": r.worst} for r in t.rows],
             "too_small": [{"slice": {c: py_value(v) for c, v in r.key.items()}, "n": r.n}
                           for r in t.too_small]}
            for t in tables]


def slices_html(tables: Sequence[SliceTable], digits: int = 4) -> str:
    """The tables as one HTML section (the worst rows of class ``worst``)."""
    if not tables:
        return ""
    parts = ['<section id="slices"><h2>Slices</h2>']
    for t in tables:
        by = " \u00d7 ".join(t.by)
        head = "".join(f"<th>{html.escape(h)}</th>"
                       for h in [by, "n", *(HEADINGS[m] for m in t.metrics)])
        body = "".join(
            (f'<tr class="worst" title="worst slice">' if r.worst else "<tr>")
            + f"<td>{html.escape(_name(r))}</td><td>{r.n:,}</td>"
            + "".join(f"<td>{_fmt(r.values.get(m), digits)}</td>" for m in t.metrics)
            + "</tr>" for r in t.rows)
        parts.append(f'<h3>by {html.escape(by)}</h3><p class="meta">{len(t.rows)} slices, '
                     "worst (lowest macro F1) first</p>"
                     f'<table class="slices"><thead><tr>{head}</tr></thead>'
                     f"<tbody>{body}</tbody></table>")
        if t.too_small:
            shown = "; ".join(f"{_name(r)} ({r.n:,})" for r in t.too_small)
            parts.append(f'<p class="meta">Too small (&lt; {t.min_size:,} rows, not scored): '
                         f"{html.escape(shown)}</p>")
    parts.append("</section>")
    return "".join(parts)
