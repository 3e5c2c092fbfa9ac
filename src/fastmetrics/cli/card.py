"""The report card of a predictions file, by one pipeline: batches -> accumulators -> state
-> derivations.

Every file goes the same way; a file read whole is the one-batch case. Each batch's label
columns are coded (:class:`~fastmetrics.cli.columns.LabelCoder`) and counted by a
:class:`~fastmetrics.streaming.ConfusionAccumulator`; its probability columns feed the
top-label calibration (:class:`~fastmetrics.cli.toplabel.TopLabel`). After the last batch the
labels' type is known: the confusion state is relabelled with it, and the card's numbers come
from :func:`fastmetrics._states.confusion.card`, the derivation behind ``score`` and
``classification_report``.
"""

from __future__ import annotations

import argparse
import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .._states import confusion
from .._states.confusion import ClassificationMetrics, ConfusionState
from ..calibration import CalibrationSummary
from ..report import card_with_intervals
from ..streaming import ConfusionAccumulator
from ..timing import LatencyStats, latency_stats
from .columns import (DEFAULT_CLASS_PREFIX, LabelCoder, as_prob, class_name, class_values,
                      label_values)
from .errors import CLIError, first_line
from .progress import Progress
from .readers import NpzSource, Reread, Source, batch_rows, open_source
from .slices import SliceTable, Slicer
from .toplabel import TopLabel

__all__ = ["SAMPLE_DEFAULTS", "Card", "Scores", "card_of", "report_card"]

#: The sample's out-of-scope label and probability columns, used when no FILE is given.
SAMPLE_DEFAULTS = {"oos_label": "oos", "prob_prefix": "p_"}
#: How probability columns found by their ``p_`` prefix alone are named in the report.
DEFAULT_SOURCE = f"{DEFAULT_CLASS_PREFIX}* columns (found by name)"
DIAGRAM_NEEDS = "--diagram needs probabilities: give --prob COL... or --prob-prefix P"


@dataclass
class Scores:
    """Every row's probabilities, kept for the curves of ``--html``.

    Attributes
    ----------
    true_column : ndarray of shape (n_samples,)
        Per row the column of ``probabilities`` that names its true label, -1 for none.
    probabilities : ndarray of shape (n_samples, n_columns)
        The probability columns, as float64.
    classes : list
        The label each column names, typed as the labels.
    """

    true_column: np.ndarray
    probabilities: np.ndarray
    classes: list[Any]


@dataclass
class Card:
    """Everything a report prints.

    Attributes
    ----------
    name : str
        The file, as the report names it.
    oos : label or None
        The out-of-scope label, typed as the labels.
    metrics : ClassificationMetrics
        The headline numbers, per-class metrics and confusion matrix.
    rows, summary : list of tuple
        ``classification_report``'s table: per label ``(name, precision, recall, f1,
        support)``, then the averages (``accuracy`` or ``micro avg``, ``macro avg``,
        ``weighted avg``).
    calibration : CalibrationSummary or None
        Top-label ECE / MCE / Brier, with probabilities.
    prob_source : str or None
        How the probability columns were chosen.
    latency, latency_source : LatencyStats or None, str or None
        Percentiles of the ``--latency-col`` column (ms), and that column.
    scores : Scores or None
        Every row's probabilities, kept only for ``--html`` (its ROC and PR curves).
    slices : list of SliceTable
        One table per ``--by`` slicing (empty without ``--by``).
    """

    name: str
    oos: Any
    metrics: ClassificationMetrics
    rows: list[tuple[Any, ...]]
    summary: list[tuple[Any, ...]]
    calibration: CalibrationSummary | None = None
    prob_source: str | None = None
    latency: LatencyStats | None = None
    latency_source: str | None = None
    scores: Scores | None = None
    slices: list[SliceTable] = field(default_factory=list)


def card_of(argv: Sequence[str]) -> Card:
    """The report card that ``fastmetrics report ...`` prints, for ``argv`` (the command
    line's words, ``"report"`` first).

    Examples
    --------
    >>> card = card_of(["report"])
    >>> card.name, card.oos, round(card.metrics.accuracy, 4)
    ('sample.csv (shipped with fastmetrics)', 'oos', 0.8177)
    """
    from . import build_parser

    return report_card(build_parser().parse_args(list(argv)))


def report_card(args: argparse.Namespace) -> Card:
    """The report card of the file named by the parsed ``report`` arguments; CLIError for
    bad input."""
    if args.file is None:  # the shipped sample: its out-of-scope label and p_* columns
        args = argparse.Namespace(**vars(args))
        for k, v in SAMPLE_DEFAULTS.items():
            if getattr(args, k) is None and not (
                    k == "prob_prefix" and (args.prob or getattr(args, "no_prob", False))):
                setattr(args, k, v)
    if args.n_bins < 1:
        raise CLIError(f"--n-bins must be >= 1, got {args.n_bins}")
    requested = batch_rows(args.file, args.batch_rows)
    delimiter = getattr(args, "delimiter", None)
    try:
        with open_source(args.file, delimiter) as source:
            state, coder, cal, latency, slicer = _accumulate(source, args, requested)
    except Reread:  # pyarrow met what the csv module reads, or reports, its own way
        with open_source(args.file, delimiter, arrow=False) as source:
            state, coder, cal, latency, slicer = _accumulate(source, args, requested)
    typing = coder.typing()
    labels, oos = _pinned(args, state)
    try:
        c = confusion.card(state, labels, oos)
    except (ValueError, TypeError) as exc:
        raise CLIError(first_line(exc)) from None
    calibration = None
    if cal is not None:
        try:
            calibration = cal.result(typing, c.metrics.labels)
        except CLIError as exc:
            if cal.source != DEFAULT_SOURCE:
                raise
            # p_* columns found by their names, not asked for: the report without them
            warnings.warn(f"the {DEFAULT_SOURCE} are not used for calibration: {exc}",
                          stacklevel=2)
            cal = None
    if args.diagram and calibration is None:
        raise CLIError(DIAGRAM_NEEDS)
    rows, summary = _table(c, state)
    metrics = c.metrics
    if getattr(args, "ci", None) is not None:
        metrics = card_with_intervals(state, labels, oos, ci=args.ci,
                                      n_resamples=args.ci_resamples, random_state=args.seed)
    lat_col = getattr(args, "latency_col", None)
    # after the calibration's result: columns read in label order are binned only then
    slices = ([] if slicer is None else
              slicer.tables(coder, labels, oos, None if calibration is None else typing))
    return Card(source.name, oos, metrics, rows, summary, calibration,
                None if cal is None else cal.source, latency,
                None if latency is None else f"column {lat_col!r}",
                None if cal is None else _scores(cal, typing, list(c.metrics.labels)),
                slices)


def _scores(cal: TopLabel, typing: str, labels: list[Any]) -> Scores | None:
    """The rows kept for ``--html`` (None without it), each column named by its class."""
    kept = cal.rows(typing)
    if kept is None:
        return None
    classes = labels if cal.names is None else class_values(cal.column_keys, cal.names, labels)
    return Scores(kept[0], kept[1], classes)


def _accumulate(source: Source, args: argparse.Namespace, requested: int | None
                ) -> tuple[ConfusionState, LabelCoder, TopLabel | None, LatencyStats | None,
                           Slicer | None]:
    """Read ``source`` batch by batch into the accumulators: the confusion state over the
    typed labels, the labels' coder (their typing), the calibration (None without
    probabilities), the latency percentiles (None without --latency-col) and the --by
    slicings' accumulators (None without --by)."""
    true = source.column(args.true, "--true")
    pred = source.column(args.pred, "--pred")
    lat_arg = getattr(args, "latency_col", None)
    lat = None if lat_arg is None else source.column(lat_arg, "--latency-col")
    latencies: list[np.ndarray] = []
    keys, names, prob_source = _probability_columns(source, args)
    if not keys and args.diagram:
        raise CLIError(DIAGRAM_NEEDS)
    given = getattr(args, "prob_classes", None)
    if given is not None and (not keys or (names is not None and len(keys) > 1)):
        raise CLIError("--prob-classes names the columns of a probability matrix (--prob "
                       "ARRAY) or of positional columns: named columns carry their classes")
    if given is not None and len(keys) > 1 and len(given) != len(keys):
        raise CLIError(f"--prob-classes gives {len(given)} classes for {len(keys)} "
                       "probability columns")
    # an NPZ may say which class each column of its matrix holds
    classes_key = (next((k for k in ("classes", "classes_") if k in source.names), None)
                   if given is None and isinstance(source, NpzSource) and len(keys) == 1 else None)
    by = getattr(args, "by", None)
    slicer = (Slicer([[source.column(c, "--by") for c in s] for s in by],
                     getattr(args, "min_slice_size", 1), args.n_bins) if by else None)
    coder = LabelCoder()
    acc = ConfusionAccumulator()
    # --html draws ROC and PR curves: they need every row's probabilities
    cal = (TopLabel(keys, names, args.n_bins, prob_source,
                    keep_rows=bool(getattr(args, "html", None)), classes=given,
                    allow_mismatch=bool(getattr(args, "allow_prob_mismatch", False)))
           if keys else None)
    slice_cols = [] if slicer is None else slicer.columns
    if cal is not None and slicer is not None:
        cal.listener = slicer.feed_calibration
    need = list(dict.fromkeys([true, pred, *keys, *([] if lat is None else [lat]),
                               *([] if classes_key is None else [classes_key]), *slice_cols]))
    # slice columns are read as label columns are: text comes dictionary-encoded
    labels = tuple(dict.fromkeys([true, pred, *slice_cols]))
    rows_per_batch = source.plan(requested, need, labels)
    progress = Progress(source.size, unit=source.unit) if rows_per_batch and source.size else None
    n_rows = 0
    for batch in source.batches(need, rows_per_batch, labels):
        yt, yp = coder.encode(batch.columns[true], batch.columns[pred], batch.row0)
        if yt.shape[0] != yp.shape[0]:
            raise CLIError(
                f"--true column {args.true!r} has {yt.shape[0]} values but --pred column "
                f"{args.pred!r} has {yp.shape[0]} (lengths differ)"
            )
        try:
            acc.update(yt, yp)
        except (ValueError, TypeError) as exc:
            raise CLIError(first_line(exc)) from None
        slice_keys = None
        if slicer is not None:
            slice_keys = slicer.keys(batch.columns, batch.row0, yt.shape[0])
            slicer.update(slice_keys, yt, yp)
        if cal is not None:
            if classes_key is not None and cal.classes is None \
                    and np.ndim(batch.columns[keys[0]]) == 2:
                cal.set_classes(_classes_array(batch.columns[classes_key], classes_key))
            cal.update([batch.columns[k] for k in keys], coder.truth(yt), batch.row0,
                       yt.shape[0], coder.truth(yp), slice_keys)
        if lat is not None:
            latencies.append(_latencies(batch.columns[lat], lat, batch.row0, yt.shape[0]))
        n_rows += yt.shape[0]
        if progress is not None:
            progress.reach(source.position(), f"{n_rows:,} rows")
    if progress is not None:  # the whole file was read
        progress.reach(progress.total, f"{n_rows:,} rows")
    if acc.state is None:
        raise CLIError(f"{source.name} has no predictions")
    latency = None if lat is None else latency_stats(np.concatenate(latencies), unit="ms")
    return coder.finish(acc.state), coder, cal, latency, slicer


def _classes_array(a: Any, key: str) -> list[str]:
    """An NPZ's ``classes`` array as the class names of its probability matrix's columns."""
    a = np.asarray(a)
    if a.ndim != 1 or a.shape[0] == 0 or a.dtype.kind not in "iubUSf":
        raise CLIError(f"the {key!r} array must be a 1-D array of class labels, one per "
                       f"probability column (got shape {a.shape}, dtype {a.dtype})")
    return [v.decode() if isinstance(v, bytes) else str(v) for v in a.tolist()]


def _latencies(col: Any, key: str, row0: int, n: int) -> np.ndarray:
    """One batch of the --latency-col column as float64 milliseconds; CLIError for a value
    that is not a number, missing, negative or not finite, or a column of another length."""
    ms = as_prob(col, key, row0, what="latency column")
    if ms.ndim != 1 or ms.shape[0] != n:
        raise CLIError(f"latency column {key!r} has shape {ms.shape} but --true has {n} "
                       "values (lengths differ)")
    bad = ~(np.isfinite(ms) & (ms >= 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise CLIError(f"latency column {key!r} must hold durations in ms (finite, >= 0): "
                       f"{float(ms[i])} at data row {row0 + i + 1}")
    return ms


def _table(c: confusion.Card,
           state: ConfusionState) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """``classification_report``'s rows and average rows of a card."""
    m = c.metrics
    p, r, f, s = c.per_class
    # supports are counts (the command line takes no weights): scikit-learn's derivation
    # hands them back as floats when no label was predicted right, and the report card has
    # always printed them as integers
    s = s.astype(np.int64)
    total = s.sum()
    covers_all = set(m.labels) >= set(state.present_labels.tolist())
    summary = [("accuracy" if covers_all else "micro avg", *c.averages["micro"], total),
               ("macro avg", *c.averages["macro"], total),
               ("weighted avg", *c.averages["weighted"], total)]
    return list(zip(map(str, m.labels), p, r, f, s)), summary


def _probability_columns(source: Source,
                         args: argparse.Namespace) -> tuple[list[str], list[str] | None, str]:
    """The probability columns named by --prob / --prob-prefix, the class each names (None:
    the columns follow the label order), and how they were chosen (for the report)."""
    if args.prob:
        keys = [source.column(k, "--prob") for k in args.prob]
        if source.positional:
            return keys, None, f"columns {', '.join(args.prob)}"
        return keys, [class_name(k, args.prob_prefix) for k in keys], ", ".join(keys)
    if args.prob_prefix:
        keys = [k for k in source.names if k.startswith(args.prob_prefix)]
        if not keys or source.positional:
            raise CLIError(
                f"no column of {source.name} starts with --prob-prefix {args.prob_prefix!r}"
            )
        return keys, [class_name(k, args.prob_prefix) for k in keys], f"{args.prob_prefix}* columns"
    if getattr(args, "no_prob", False) or source.positional:
        return [], None, ""
    # by default, as for the shipped sample: the p_* columns, if any
    keys = [k for k in source.names if k.startswith(DEFAULT_CLASS_PREFIX)]
    return keys, [class_name(k, None) for k in keys], DEFAULT_SOURCE


def _pinned(args: argparse.Namespace, state: ConfusionState) -> tuple[list[Any] | None, Any]:
    """--labels and --oos-label in the type of the labels; CLIError for a label listed
    twice or an out-of-scope label that occurs nowhere."""
    like = state.values
    labels = None if args.labels is None else label_values(args.labels, like, "--labels")
    if labels is not None and len(set(labels)) != len(labels):
        raise CLIError("--labels lists a label twice")
    oos = None
    if args.oos_label is not None:
        (oos,) = label_values([args.oos_label], like, "--oos-label")
        if oos not in state.present_labels.tolist() and (labels is None or oos not in labels):
            raise CLIError(f"--oos-label {args.oos_label!r} occurs in neither --true nor --pred")
    return labels, oos
