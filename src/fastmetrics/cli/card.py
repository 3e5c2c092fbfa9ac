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
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .._states import confusion
from .._states.confusion import ClassificationMetrics, ConfusionState
from ..calibration import CalibrationSummary
from ..report import card_with_intervals
from ..streaming import ConfusionAccumulator
from .columns import DEFAULT_CLASS_PREFIX, LabelCoder, class_name, label_values
from .errors import CLIError, first_line
from .progress import Progress
from .readers import Reread, Source, batch_rows, open_source
from .toplabel import TopLabel

__all__ = ["SAMPLE_DEFAULTS", "Card", "card_of", "report_card"]

#: The sample's out-of-scope label and probability columns, used when no FILE is given.
SAMPLE_DEFAULTS = {"oos_label": "oos", "prob_prefix": "p_"}
#: How probability columns found by their ``p_`` prefix alone are named in the report.
DEFAULT_SOURCE = f"{DEFAULT_CLASS_PREFIX}* columns (found by name)"
DIAGRAM_NEEDS = "--diagram needs probabilities: give --prob COL... or --prob-prefix P"


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
    """

    name: str
    oos: Any
    metrics: ClassificationMetrics
    rows: list
    summary: list
    calibration: CalibrationSummary | None = None
    prob_source: str | None = None


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
            state, typing, cal = _accumulate(source, args, requested)
    except Reread:  # pyarrow met what the csv module reads, or reports, its own way
        with open_source(args.file, delimiter, arrow=False) as source:
            state, typing, cal = _accumulate(source, args, requested)
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
    return Card(source.name, oos, metrics, rows, summary, calibration,
                None if cal is None else cal.source)


def _accumulate(source: Source, args: argparse.Namespace,
                requested: int | None) -> tuple[ConfusionState, str, TopLabel | None]:
    """Read ``source`` batch by batch into the accumulators: the confusion state over the
    typed labels, the labels' typing, and the calibration (None without probabilities)."""
    true = source.column(args.true, "--true")
    pred = source.column(args.pred, "--pred")
    keys, names, prob_source = _probability_columns(source, args)
    if not keys and args.diagram:
        raise CLIError(DIAGRAM_NEEDS)
    coder = LabelCoder()
    acc = ConfusionAccumulator()
    cal = TopLabel(keys, names, args.n_bins, prob_source) if keys else None
    need = list(dict.fromkeys([true, pred, *keys]))
    labels = tuple(dict.fromkeys([true, pred]))
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
        if cal is not None:
            cal.update([batch.columns[k] for k in keys], coder.truth(yt), batch.row0,
                       yt.shape[0])
        n_rows += yt.shape[0]
        if progress is not None:
            progress.reach(source.position(), f"{n_rows:,} rows")
    if progress is not None:  # the whole file was read
        progress.reach(progress.total, f"{n_rows:,} rows")
    if acc.state is None:
        raise CLIError(f"{source.name} has no predictions")
    return coder.finish(acc.state), coder.typing(), cal


def _table(c: confusion.Card, state: ConfusionState) -> tuple[list, list]:
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


def _pinned(args: argparse.Namespace, state: ConfusionState) -> tuple[list | None, Any]:
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
