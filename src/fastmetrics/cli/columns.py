"""Columns -> what the accumulators take: labels, probabilities, and the labels' type.

The labels' type is decided over the whole file, as if it were read at once: text labels that
all look like integers, in both columns, are integers (``"07"`` is 7); any other text label makes
every label text; numeric columns keep their type, integral floats becoming int64. Text labels
are therefore counted as *codes* (one per distinct text, in a table that only grows), and the
confusion state is relabelled with the typed values at the end (:meth:`LabelCoder.finish`):
no batch has to know how a later one will type its labels.

A probability column's class is its name minus the prefix (``p_`` by default), read the way
the labels are typed (:func:`class_values`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .errors import CLIError

__all__ = [
    "DEFAULT_CLASS_PREFIX",
    "LabelCoder",
    "Truth",
    "as_prob",
    "class_key",
    "class_name",
    "class_values",
    "int_value",
    "is_text",
    "label_values",
]

DEFAULT_CLASS_PREFIX = "p_"
INT_RE = re.compile(r"^\s*[+-]?\d+\s*$")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def is_text(a: np.ndarray) -> bool:
    """Whether a column holds text (or Python objects, as CSV and Parquet text columns do).

    Examples
    --------
    >>> is_text(np.array(["a"])), is_text(np.array([1]))
    (True, False)
    """
    return a.dtype.kind in "USO"


def int_value(v: Any) -> int | None:
    """The integer that the text ``v`` looks like (``" 7"``, ``"+7"``, ``"07"``), or None
    when it does not look like one or is outside int64.

    Examples
    --------
    >>> int_value("07"), int_value("7.0"), int_value("9" * 20)
    (7, None, None)
    """
    if not isinstance(v, str) or not INT_RE.match(v):
        return None
    i = int(v)
    return i if INT64_MIN <= i <= INT64_MAX else None


def _text(v: Any) -> str:
    return v if isinstance(v, str) else str(v)


@dataclass
class Truth:
    """The true labels of one batch as the calibration reads them: per row an index into
    ``distinct[typing]``, the batch's distinct labels as each still-possible typing would
    type them (``"int"``: integers; ``"text"``: strings).

    Examples
    --------
    >>> t = LabelCoder().truth_of(["07", "7", "x"])
    >>> t.inverse.tolist(), t.distinct
    ([0, 1, 2], {'text': ['07', '7', 'x']})
    """

    inverse: np.ndarray
    distinct: dict[str, list]


class LabelCoder:
    """Both label columns of each batch, made into what ``ConfusionAccumulator`` counts.

    Text labels (either column text) become int64 codes, one per distinct text; numeric
    labels pass through (integral floats as int64). Every label is checked as it comes:
    1-D columns, no empty text. After the last batch, :meth:`finish` turns the codes of the
    confusion state into the typed labels.

    Examples
    --------
    >>> from fastmetrics.streaming import ConfusionAccumulator
    >>> coder, acc = LabelCoder(), ConfusionAccumulator()
    >>> acc = acc.update(*coder.encode(np.array(["1", "2"]), np.array(["1", "1"])))
    >>> acc = acc.update(*coder.encode(np.array(["10"]), np.array(["2"])))
    >>> coder.typing(), coder.finish(acc.state).values.tolist()
    ('int', [1, 2, 10])
    """

    def __init__(self) -> None:
        self.text: bool | None = None  # decided by the first batch's column types
        self.codes: dict[Any, int] = {}  # text label -> code
        self.raw: list[Any] = []  # code -> text label
        # code -> the integer of each label, while every label looks like one (else None)
        self.ints: list[int] | None = []

    def encode(self, y_true: np.ndarray, y_pred: np.ndarray,
               row0: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The two label columns of a batch (``row0``: data rows before it) as the
        accumulator takes them; CLIError for a column that is not 1-D or has an empty text
        value."""
        text = is_text(y_true) or is_text(y_pred)
        if self.text is None:
            self.text = text
        elif text != self.text:
            raise CLIError("the label columns change type between batches (text and numbers)")
        out = []
        for a, what in ((y_true, "--true"), (y_pred, "--pred")):
            if a.ndim != 1:
                raise CLIError(f"the {what} column must be 1-D, got shape {a.shape}")
            if text:
                out.append(self._codes(a, what, row0))
            elif (a.dtype.kind == "f" and np.isfinite(a).all()
                  and np.array_equal(a, np.floor(a))):
                out.append(a.astype(np.int64))
            else:
                out.append(a)
        return out[0], out[1]

    def _codes(self, a: np.ndarray, what: str, row0: int) -> np.ndarray:
        values = (a if a.dtype.kind in "UO" else a.astype(str)).tolist()
        new = set(values).difference(self.codes)
        if new:
            self._add(new, values, what, row0)
        return np.fromiter(map(self.codes.__getitem__, values), np.int64, len(values))

    def _add(self, new: set, values: list, what: str, row0: int) -> None:
        if "" in new or None in new:
            row = next(i for i, v in enumerate(values) if v == "" or v is None)
            raise CLIError(f"the {what} column has an empty value (data row {row0 + row + 1})")
        for v in dict.fromkeys(values):  # codes in order of appearance: reproducible
            if v not in new:
                continue
            self.codes[v] = len(self.raw)
            self.raw.append(v)
            if self.ints is not None:
                i = int_value(v)
                if i is None:
                    self.ints = None
                else:
                    self.ints.append(i)

    def typings(self) -> tuple[str, ...]:
        """The typings still possible: ``("int", "text")`` while every text label looks like
        an integer, else ``("text",)``; numeric labels: ``("int",)``."""
        if not self.text:
            return ("int",)
        return ("text",) if self.ints is None else ("int", "text")

    def typing(self) -> str:
        """How the labels read, decided over every batch so far: ``"int"`` or ``"text"``."""
        return self.typings()[0]

    def truth(self, encoded: np.ndarray) -> Truth:
        """The :class:`Truth` of an encoded true-label column (from :meth:`encode`)."""
        u, inverse = np.unique(encoded, return_inverse=True)
        if not self.text:
            return Truth(inverse.reshape(-1), {"int": u.tolist()})
        codes = u.tolist()
        distinct = {"text": [_text(self.raw[c]) for c in codes]}
        if self.ints is not None:
            distinct = {"int": [self.ints[c] for c in codes], **distinct}
        return Truth(inverse.reshape(-1), distinct)

    def truth_of(self, labels: Sequence) -> Truth:
        """The :class:`Truth` of text labels, encoded on the way (for examples and tests)."""
        a = np.asarray(labels)
        return self.truth(self.encode(a, a)[0])

    def finish(self, state: Any) -> Any:
        """The confusion state of the coded batches over the typed labels (labels that
        become equal, ``"7"`` and ``"07"``, merge)."""
        if not self.text:
            return state
        if self.ints is not None:
            values = np.array(self.ints, dtype=np.int64)
        else:
            values = np.array([_text(v) for v in self.raw], dtype=str)
        return state.relabel(values[state.values])


def label_values(values: Sequence[str], like: np.ndarray, what: str) -> list:
    """Command-line label strings (``--labels``, ``--oos-label``) in the type of the labels
    ``like``.

    Examples
    --------
    >>> label_values(["3", "1"], np.array([1, 2]), "--labels")
    [3, 1]
    """
    if like.dtype.kind in "iub":
        try:
            return [int(v) for v in values]
        except ValueError:
            raise CLIError(f"{what} {' '.join(values)!r}: the labels are integers") from None
    return [str(v) for v in values]


def class_name(key: str, prefix: str | None) -> str:
    """The class a probability column names: its name minus ``prefix`` (default ``p_``).

    Examples
    --------
    >>> class_name("p_refund", None), class_name("score_cat", "score_"), class_name("x", None)
    ('refund', 'cat', 'x')
    """
    strip = prefix or DEFAULT_CLASS_PREFIX
    return key[len(strip):] if key.startswith(strip) else key


def class_key(name: str, typing: str) -> Any:
    """A class name as labels of ``typing`` compare with it (None: it can equal none).

    Examples
    --------
    >>> class_key("07", "int"), class_key("07", "text"), class_key("x", "int")
    (7, '07', None)
    """
    if typing == "text":
        return name
    try:
        return int(name)
    except ValueError:
        return None


def class_values(keys: Sequence[str], names: Sequence[str], labels: list) -> list:
    """The class of each probability column in the type of ``labels``; CLIError for one
    that is not a label, or a class named twice.

    Examples
    --------
    >>> class_values(["p_1", "p_0"], ["1", "0"], [0, 1])
    [1, 0]
    """
    lab_set = set(labels)
    like = np.asarray(labels)
    classes: list = []
    for key, name in zip(keys, names):
        try:
            (value,) = label_values([name], like, "")
        except CLIError:
            value = None
        if value is None or value not in lab_set:
            raise CLIError(
                f"probability column {key!r} names class {name!r}, which is not a label "
                f"(labels: {', '.join(map(str, labels))})"
            )
        if value in classes:
            raise CLIError(f"two probability columns for class {name!r}")
        classes.append(value)
    return classes


def as_prob(a: np.ndarray, key: str, row0: int = 0) -> np.ndarray:
    """A probability column (or matrix) as float64; CLIError naming the first value that
    is not a number (``row0``: data rows before this batch).

    Examples
    --------
    >>> as_prob(np.array(["0.25", "1"], dtype=object), "p_1")
    array([0.25, 1.  ])
    """
    try:
        return a.astype(np.float64)
    except (ValueError, TypeError):
        for i, v in enumerate(a.tolist()):
            try:
                float(v)
            except (ValueError, TypeError):
                raise CLIError(
                    f"probability column {key!r} is not numeric: {v!r} at data row "
                    f"{row0 + i + 1}"
                ) from None
        raise CLIError(f"probability column {key!r} is not numeric") from None
