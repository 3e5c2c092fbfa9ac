"""Top-label calibration of probability columns, fed batch by batch.

Per row the calibration needs the top column's confidence and whether that column's class is
the true label. The columns are fixed by the header, but whether a class name equals a label
depends on how the labels are typed (``"07"`` is the class ``"7"`` when the labels are
numbers, and is not when they are text), which is known only after the last batch. So each
batch is mapped to column indices under every typing still possible (at most two: numbers,
text); typings that map the batch alike feed one ``CalibrationAccumulator``, and the first
batch where they differ forks it (a copy, made by merging with an empty accumulator). At the
end the accumulator of the typing the labels took gives the result. A file with canonical
integer or text labels maps alike under both, so it is binned once.

Columns read in label order (an (n, K) NPZ matrix, 2-D NPY columns) cannot be mapped before
the label order is known: their batches wait (those formats are read whole, one batch). Given
their classes (``--prob-classes``, a ``classes`` array in the NPZ) they are mapped by them.

With the predicted labels, each batch also counts which column names the predicted label
against which column is the most probable (:func:`fastmetrics._prob_order.agreement_table`;
one column: whether the predicted label is its class against whether it is at least 0.5):
columns taken in an order they do not hold, or a column that is another label's, stop the
report (:func:`~fastmetrics._prob_order.check_column_order`), or, when allowed, warn.

Errors are kept and raised at the end in the order one reading of the whole file meets them:
a class that is no label, a value that is not a number, columns of other lengths, a true label
without a column, then probabilities outside [0, 1].
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._prob_order import agreement_table, check_column_order, one_column_table
from ..calibration import CalibrationSummary
from ..streaming import CalibrationAccumulator
from .columns import Truth, as_prob, class_key, class_values, stacked
from .errors import CLIError, first_line

__all__ = ["TopLabel"]

TYPINGS = ("number", "text")
# kinds of error, in the order a reading of the whole file meets them
VALUES, ROWS, KERNEL = "values", "rows", "kernel"


class TopLabel:
    """Top-label ECE / MCE / Brier of K probability columns over batches.

    Parameters
    ----------
    keys : list of str
        The probability columns, in column order.
    names : list of str or None
        The class each column names; None: the columns follow the label order.
    n_bins : int
        Equal-width bins.
    source : str
        How the columns were chosen (for the report and messages).
    keep_rows : bool, default=False
        Also keep every row's probabilities and true column in memory (8 bytes per column
        and row, plus 8), for the curves of :meth:`rows`.
    classes : list of str or None, default=None
        The class of each column of a probability matrix or of positional columns (None:
        they follow the label order).
    allow_mismatch : bool, default=False
        Columns that the predictions say are out of order warn instead of raising.

    Notes
    -----
    One column (K = 1) is the calibration of that class's probability: confidence is the
    column, correct means the true label is its class.

    Examples
    --------
    >>> from fastmetrics.cli.columns import LabelCoder
    >>> coder = LabelCoder()
    >>> cal = TopLabel(["p_a", "p_b"], ["a", "b"], n_bins=2, source="p_* columns")
    >>> truth = coder.truth_of(["a", "b", "b"])
    >>> cal.update([np.array([0.9, 0.2, 0.4]), np.array([0.1, 0.8, 0.6])], truth, 0, 3)
    >>> round(cal.result(coder.typing(), ["a", "b"]).brier, 4)
    0.07
    """

    def __init__(self, keys: list[str], names: list[str] | None, n_bins: int,
                 source: str, keep_rows: bool = False, classes: list[str] | None = None,
                 allow_mismatch: bool = False) -> None:
        self.keys = keys
        self.classes = classes
        self.allow_mismatch = allow_mismatch
        # typing -> (predicted label's column, most probable column) counts
        self.agree: dict[str, np.ndarray] = {}
        self.source = source
        self.names = names
        self.n_bins = n_bins
        self.accs: dict[str, CalibrationAccumulator] = {}  # typing -> its bins (may share)
        self.unmapped: dict[str, str] = {}  # typing -> its first true label without a column
        self.errors: dict[str, str] = {}  # kind -> the first error of that kind
        # columns in label order: (matrix, truth, row0, predictions)
        self.pending: list[tuple[np.ndarray, Truth, int, Truth | None]] = []
        self.width = len(keys)
        # with keep_rows: per typing, each batch's true column (-1: none), and the batches'
        # probability matrices, in the order they were binned
        self.kept: dict[str, list[np.ndarray]] | None = {} if keep_rows else None
        self.kept_probs: list[np.ndarray] = []
        # the given classes name positional columns now, a matrix when it comes
        self.named_by_classes = names is None and classes is not None
        if self.named_by_classes:
            assert classes is not None
            self.names = names = list(classes)
            self.source += f" (classes {', '.join(classes)})"
        self.lookups = {} if names is None else self._lookups(names)
        # --by: told every batch of rows the calibration bins, with the batch's tag (its
        # slice keys), so that the slices are binned from the same rows; a batch that
        # waits for the label order keeps its tag in ``pending_tags``
        self.listener: Callable[[Any, dict[str, np.ndarray], np.ndarray], None] | None = None
        self.tag: Any = None
        self.pending_tags: list[Any] = []

    def set_classes(self, classes: list[str]) -> None:
        """The class of each column of the probability matrix (before its batch)."""
        self.classes = classes

    @staticmethod
    def _lookups(names: list[str]) -> dict[str, dict[Any, int]]:
        return {t: {k: j for j, k in reversed(list(enumerate(class_key(nm, t) for nm in names)))}
                for t in TYPINGS}

    @property
    def column_keys(self) -> list[str]:
        """A name for each probability column (a matrix's: ``key[:, j]``)."""
        if len(self.keys) == 1 and self.width > 1:
            return [f"{self.keys[0]}[:, {j}]" for j in range(self.width)]
        return self.keys

    def update(self, arrays: list[np.ndarray], truth: Truth, row0: int, n: int,
               pred: Truth | None = None, tag: Any = None) -> None:
        """Add a batch: its probability ``arrays`` (one per key; or one (n, K) matrix for
        a single key), the :class:`~fastmetrics.cli.columns.Truth` of its ``n`` rows (and
        of its predicted labels, ``pred``), and the data rows before it; ``tag`` is handed
        to :attr:`listener` with the batch's rows."""
        self.tag = tag
        if VALUES in self.errors or ROWS in self.errors:
            return  # the first such error is the report's; nothing later outranks it
        matrix_given = len(arrays) == 1 and arrays[0].ndim == 2
        if self.classes is None:
            if matrix_given:  # its columns follow the label order
                self.names, self.lookups = None, {}
                self.source = f"matrix {self.keys[0]!r}"
        elif not matrix_given and not self.named_by_classes:
            self.errors[VALUES] = (
                f"--prob-classes names the columns of a probability matrix or of positional "
                f"columns, and {self.keys[0]!r} is a column of its own")
            return
        elif matrix_given:
            self.source = f"matrix {self.keys[0]!r} (classes {', '.join(self.classes)})"
            if arrays[0].shape[1] != len(self.classes):
                self.errors[VALUES] = (
                    f"probability matrix {self.keys[0]!r} has {arrays[0].shape[1]} columns but "
                    f"{len(self.classes)} classes are given for them")
                return
            self.names, self.lookups = list(self.classes), self._lookups(self.classes)
        try:
            cols = self._floats(arrays, row0)
        except CLIError as exc:
            self.errors[VALUES] = str(exc)
            return
        self.width = cols[0].shape[1] if matrix_given else len(cols)
        for c, k in zip(cols, self.keys):
            if c.shape[0] != n:
                self.errors[ROWS] = (
                    f"the probabilities have {c.shape[0]} rows but --true has {n} values "
                    "(lengths differ)" if matrix_given else
                    f"probability column {k!r} has {c.shape[0]} values but --true has {n} "
                    "(lengths differ)"
                )
                return
        matrix = cols[0] if matrix_given else stacked(cols)
        if self.names is None:
            self.pending.append((matrix, truth, row0, pred))
            self.pending_tags.append(tag)
        else:
            self._feed(matrix, truth, row0, self.lookups, pred)

    def _floats(self, arrays: list[np.ndarray], row0: int) -> list[np.ndarray]:
        if len(arrays) == 1 and arrays[0].ndim == 2:
            return [as_prob(arrays[0], self.keys[0], row0)]
        for a, k in zip(arrays, self.keys):
            if a.ndim != 1:
                raise CLIError(f"probability column {k!r} must be 1-D, got shape {a.shape}")
        return [as_prob(a, k, row0) for a, k in zip(arrays, self.keys)]

    def _feed(self, matrix: np.ndarray, truth: Truth, row0: int,
              lookups: dict[str, dict[Any, int]], pred: Truth | None = None) -> None:
        ys = {}
        for t, lookup in lookups.items():
            distinct = truth.distinct.get(t)
            if distinct is None or t in self.unmapped:
                continue
            if pred is not None and t in pred.distinct:
                pcols = np.array([lookup.get(v, -1) for v in pred.distinct[t]], dtype=np.int64)
                pc = pcols[pred.inverse]
                table = (agreement_table(pc, matrix) if matrix.shape[1] > 1
                         else one_column_table(pc == 0, matrix[:, 0]))
                self.agree[t] = table if t not in self.agree else self.agree[t] + table
            cols = np.array([lookup.get(v, -1) for v in distinct], dtype=np.int64)
            y = cols[truth.inverse]
            if self.kept is not None:
                self.kept.setdefault(t, []).append(y)
            if matrix.shape[1] == 1:
                y = (y == 0).astype(np.int64)  # one column: is the label its class
            elif y.size and y.min() < 0:
                bad = int(np.argmax(y < 0))
                value = distinct[truth.inverse[bad]]
                self.unmapped[t] = (f"probabilities: the true label {value!r} of data row "
                                    f"{row0 + bad + 1} has no probability column")
                self.accs.pop(t, None)
                continue
            ys[t] = y
        if self.kept is not None:
            self.kept_probs.append(np.array(matrix))  # a reader may reuse its buffers
        if KERNEL in self.errors or not ys:
            return  # after a bad probability only a missing class can still outrank it
        if not self.accs:
            self.accs = dict.fromkeys(ys, CalibrationAccumulator(self.n_bins))
        groups: list[tuple[CalibrationAccumulator, np.ndarray]] = []
        for t, y in ys.items():
            acc = self.accs[t]
            same = [g for g, gy in groups if g is acc and np.array_equal(gy, y)]
            if same:
                continue
            if any(g is acc for g, _ in groups):  # typings that agreed so far part here
                acc = self.accs[t] = acc.merge(CalibrationAccumulator(self.n_bins))
            groups.append((acc, y))
        # one column: the binary calibration of its class (a 1-D y_prob is the binary mode)
        probs = matrix[:, 0] if matrix.shape[1] == 1 else matrix
        for acc, y in groups:
            try:
                acc.update(y, probs)
            except (ValueError, TypeError) as exc:
                where = (f" (in the batch of data rows {row0 + 1}-{row0 + matrix.shape[0]})"
                         if row0 else "")
                self.errors[KERNEL] = f"probabilities: {first_line(exc)}{where}"
                return
        if self.listener is not None:
            self.listener(self.tag, ys, probs)

    def result(self, typing: str, labels: list[Any]) -> CalibrationSummary:
        """The calibration summary once the labels are known: ``typing`` (``"number"`` or
        ``"text"``) and ``labels``, the report's label list (the column order of columns
        read in label order). CLIError for the first error met."""
        if self.names is None:
            if VALUES in self.errors:
                raise CLIError(self.errors[VALUES])
            if self.width != len(labels):
                raise CLIError(
                    f"probability {self.source} has {self.width} columns but there "
                    f"are {len(labels)} labels ({', '.join(map(str, labels))}); columns are "
                    "read in label order: pin the classes with --labels"
                )
            lookup = {typing: {v: j for j, v in enumerate(labels)}}
            for (matrix, truth, row0, pred), tag in zip(self.pending, self.pending_tags):
                self.tag = tag
                self._feed(matrix, truth, row0, lookup, pred)
            self.pending, self.pending_tags = [], []
            classes = list(labels)
        else:
            if VALUES in self.errors:
                raise CLIError(self.errors[VALUES])
            classes = class_values(self.column_keys, self.names, labels)
        for kind in (VALUES, ROWS):
            if kind in self.errors:
                raise CLIError(self.errors[kind])
        if typing in self.unmapped:
            raise CLIError(self.unmapped[typing])
        if KERNEL in self.errors:
            raise CLIError(self.errors[KERNEL])
        if typing in self.agree:
            column = None
            if self.width == 1:  # one class's probability: is it that class's?
                column = f"column {self.column_keys[0]!r}"
                fix = "check which label's probability the column holds"
            elif len(self.keys) > 1 and self.classes is None:
                fix = "check the probability columns' names"
            else:
                fix = ("give the columns' classes in their order with --prob-classes (or a "
                       "'classes' array in the NPZ)")
            try:
                check_column_order(self.agree[typing], classes, allow=self.allow_mismatch,
                                   fix=fix, allow_hint="--allow-prob-mismatch reports anyway",
                                   column=column)
            except ValueError as exc:
                raise CLIError(str(exc)) from None
        return self.accs[typing].result()

    def rows(self, typing: str) -> tuple[np.ndarray, np.ndarray] | None:
        """With ``keep_rows``, after :meth:`result`: per row the column of its true label
        (-1 where it has none) and the (n, K) probabilities; else None."""
        if self.kept is None or typing not in self.kept:
            return None
        return (np.concatenate(self.kept[typing]),
                np.concatenate(self.kept_probs) if self.kept_probs else np.empty((0, 0)))
