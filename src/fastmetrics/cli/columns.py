"""Columns -> what the accumulators take: labels, probabilities, and the labels' type.

The labels' type is decided over the whole file, as if it were read at once: text labels that
all look like numbers, in both columns, are numbers, as pandas reads them and scikit-learn then
compares them (``"07"`` is 7, ``"1.0"`` and ``"1"`` are one label); any other text label makes
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
from typing import Any, Sequence, cast

import numpy as np

from .errors import CLIError

__all__ = [
    "DEFAULT_CLASS_PREFIX",
    "Coded",
    "LabelCoder",
    "Truth",
    "as_prob",
    "class_key",
    "class_name",
    "class_values",
    "is_text",
    "label_values",
    "number_value",
    "stacked",
]

DEFAULT_CLASS_PREFIX = "p_"
INT_RE = re.compile(r"^\s*[+-]?\d+\s*$")
# a decimal number as CSV writers print one (no "nan", "inf", "0x1", "1_000")
FLOAT_RE = re.compile(r"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@dataclass
class Coded:
    """A text column as a reader hands it over already dictionary-encoded: per row an index
    into ``values``, the column's distinct texts (pyarrow's dictionary encoding), so that no
    Python string is made per row.

    Examples
    --------
    >>> c = Coded(np.array([1, 0, 1], dtype=np.int32), ["a", "b"])
    >>> c.ndim, c.shape, c.dtype.kind
    (1, (3,), 'O')
    """

    indices: np.ndarray
    values: list[Any]

    @property
    def ndim(self) -> int:
        return 1

    @property
    def shape(self) -> tuple[int, ...]:
        return self.indices.shape

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(object)  # text, as the csv module's object columns are

    def texts(self) -> np.ndarray:
        """The column as an object array of its texts (a label column also read as
        probabilities)."""
        table = np.empty(len(self.values), dtype=object)
        table[:] = self.values
        return cast("np.ndarray", table[self.indices])


def is_text(a: Any) -> bool:
    """Whether a column holds text (or Python objects, as CSV and Parquet text columns do).

    Examples
    --------
    >>> is_text(np.array(["a"])), is_text(np.array([1]))
    (True, False)
    """
    return a.dtype.kind in "USO"


def number_value(v: Any) -> int | float | None:
    """The number that the text ``v`` looks like (``" 7"``, ``"+7"``, ``"07"``, ``"7.0"``,
    ``"7e0"``: the int 7; ``"0.5"``: a float), or None when it does not look like one (an
    integer outside int64, a value that is not finite).

    Examples
    --------
    >>> number_value("07"), number_value("7.0"), number_value("0.5"), number_value("9" * 20)
    (7, 7, 0.5, None)
    """
    if not isinstance(v, str):
        return None
    if INT_RE.match(v):
        i = int(v)
        return i if INT64_MIN <= i <= INT64_MAX else None
    if not FLOAT_RE.match(v):
        return None
    f = float(v)
    if f != f or f in (float("inf"), float("-inf")):
        return None
    return int(f) if f.is_integer() and INT64_MIN <= f < INT64_MAX else f


def _text(v: Any) -> str:
    return v if isinstance(v, str) else str(v)


@dataclass
class Truth:
    """The true labels of one batch as the calibration reads them: per row an index into
    ``distinct[typing]``, labels as each still-possible typing would type them (``"number"``:
    ints, floats where not integral; ``"text"``: strings); some of them may occur in no row
    of the batch.

    Examples
    --------
    >>> t = LabelCoder().truth_of(["07", "7", "x"])
    >>> t.inverse.tolist(), t.distinct
    ([0, 1, 2], {'text': ['07', '7', 'x']})
    """

    inverse: np.ndarray
    distinct: dict[str, list[Any]]


class LabelCoder:
    """Both label columns of each batch, made into what ``ConfusionAccumulator`` counts.

    Text labels (either column text) become integer codes, one per distinct text; numeric
    labels pass through (integral floats as int64). A :class:`Coded` column is mapped
    through its K distinct texts (one ``take`` per row, no Python string per row). Every
    label is checked as it comes: 1-D columns, no empty text. After the last batch,
    :meth:`finish` turns the codes of the confusion state into the typed labels.

    Examples
    --------
    >>> from fastmetrics.streaming import ConfusionAccumulator
    >>> coder, acc = LabelCoder(), ConfusionAccumulator()
    >>> acc = acc.update(*coder.encode(np.array(["1", "2"]), np.array(["1", "1"])))
    >>> acc = acc.update(*coder.encode(np.array(["10"]), np.array(["2"])))
    >>> coder.typing(), coder.finish(acc.state).values.tolist()
    ('number', [1, 2, 10])
    """

    def __init__(self) -> None:
        self.text: bool | None = None  # decided by the first batch's column types
        self.codes: dict[Any, int] = {}  # text label -> code
        self.raw: list[Any] = []  # code -> text label
        # code -> the number of each label, while every label looks like one (else None)
        self.nums: list[int | float] | None = []

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

    def _codes(self, a: Any, what: str, row0: int) -> np.ndarray:
        if isinstance(a, Coded):
            return self._coded(a, what, row0)
        values = (a if a.dtype.kind in "UO" else a.astype(str)).tolist()
        new = set(values).difference(self.codes)
        if new:
            self._add(new, values, what, row0)
        return np.fromiter(map(self.codes.__getitem__, values), np.int64, len(values))

    def _coded(self, a: Coded, what: str, row0: int) -> np.ndarray:
        """The codes of a dictionary-encoded column: its K texts mapped once, then one
        ``take`` over the rows."""
        idx = a.indices
        k = len(a.values)
        # only texts that occur count (a dictionary may hold more, e.g. Parquet's)
        used = np.bincount(idx, minlength=k) > 0 if idx.size else np.zeros(k, bool)
        values = [v for v, u in zip(a.values, used.tolist()) if u]
        new = set(values).difference(self.codes)
        if new:
            if "" in new or None in new:
                bad = [j for j, v in enumerate(a.values) if v == "" or v is None]
                row = int(np.flatnonzero(np.isin(idx, bad))[0])
                raise CLIError(f"the {what} column has an empty value (data row {row0 + row + 1})")
            self._add(new, values, what, row0)
        table = np.fromiter((self.codes.get(v, -1) for v in a.values), np.int64, k)
        return cast("np.ndarray", table[idx])

    def _add(self, new: set[Any], values: list[Any], what: str, row0: int) -> None:
        if "" in new or None in new:
            row = next(i for i, v in enumerate(values) if v == "" or v is None)
            raise CLIError(f"the {what} column has an empty value (data row {row0 + row + 1})")
        for v in dict.fromkeys(values):  # codes in order of appearance: reproducible
            if v not in new:
                continue
            self.codes[v] = len(self.raw)
            self.raw.append(v)
            if self.nums is not None:
                x = number_value(v)
                if x is None:
                    self.nums = None
                else:
                    self.nums.append(x)

    def typings(self) -> tuple[str, ...]:
        """The typings still possible: ``("number", "text")`` while every text label looks
        like a number, else ``("text",)``; numeric labels: ``("number",)``."""
        if not self.text:
            return ("number",)
        return ("text",) if self.nums is None else ("number", "text")

    def typing(self) -> str:
        """How the labels read, decided over every batch so far: ``"number"`` or ``"text"``."""
        return self.typings()[0]

    def truth(self, encoded: np.ndarray) -> Truth:
        """The :class:`Truth` of an encoded true-label column (from :meth:`encode`)."""
        if not self.text:
            u, inverse = np.unique(encoded, return_inverse=True)
            return Truth(inverse.reshape(-1), {"number": u.tolist()})
        # the codes index the table of text labels itself: no pass over the rows, no copy
        distinct: dict[str, list[Any]] = {"text": [_text(v) for v in self.raw]}
        if self.nums is not None:
            distinct = {"number": list(self.nums), **distinct}
        return Truth(encoded, distinct)

    def truth_of(self, labels: Sequence[Any]) -> Truth:
        """The :class:`Truth` of text labels, encoded on the way (for examples and tests)."""
        a = np.asarray(labels)
        return self.truth(self.encode(a, a)[0])

    def finish(self, state: Any) -> Any:
        """The confusion state of the coded batches over the typed labels (labels that
        become equal, ``"7"``, ``"07"`` and ``"7.0"``, merge)."""
        if not self.text:
            return state
        if self.nums is not None:
            frac = next((self.raw[c] for c, x in enumerate(self.nums)
                         if not isinstance(x, int)), None)
            if frac is not None:  # as a float column: scikit-learn's "continuous" labels
                raise CLIError(f"the labels are numbers and {frac!r} is not an integer: "
                               "labels must be integers or text (non-integer float values)")
            values = np.array(self.nums, dtype=np.int64)
        else:
            values = np.array([_text(v) for v in self.raw], dtype=str)
        return state.relabel(values[state.values])


def label_values(values: Sequence[str], like: np.ndarray, what: str) -> list[Any]:
    """Command-line label strings (``--labels``, ``--oos-label``) in the type of the labels
    ``like``.

    Examples
    --------
    >>> label_values(["3", "1"], np.array([1, 2]), "--labels")
    [3, 1]
    """
    if like.dtype.kind in "iubf":
        nums = [number_value(v) for v in values]
        if any(x is None or (like.dtype.kind != "f" and not isinstance(x, int)) for x in nums):
            kind = "numbers" if like.dtype.kind == "f" else "integers"
            raise CLIError(f"{what} {' '.join(values)!r}: the labels are {kind}") from None
        return nums
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
    >>> class_key("07", "number"), class_key("07", "text"), class_key("x", "number")
    (7, '07', None)
    """
    if typing == "text":
        return name
    return number_value(name)


def class_values(keys: Sequence[str], names: Sequence[str], labels: list[Any]) -> list[Any]:
    """The class of each probability column in the type of ``labels``; CLIError for one
    that is not a label, or a class named twice.

    Examples
    --------
    >>> class_values(["p_1", "p_0"], ["1", "0"], [0, 1])
    [1, 0]
    """
    lab_set = set(labels)
    like = np.asarray(labels)
    classes: list[Any] = []
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


def stacked(cols: Sequence[np.ndarray]) -> np.ndarray:
    """K probability columns of one length and dtype as one (n, K) matrix, laid out column
    by column (the calibration kernel reads any strides): when the columns lie one after the
    other in one buffer, as a reader fills them (the rows of a (K, n) block), a view of that
    buffer (no copy); else such a block copied from them (K contiguous copies: about a third
    of the time of ``np.column_stack``'s interleaved writes).

    Examples
    --------
    >>> block = np.arange(6.0).reshape(2, 3)
    >>> m = stacked([block[0], block[1]])
    >>> m.tolist(), np.shares_memory(m, block)
    ([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], True)
    >>> np.shares_memory(stacked([block[1], block[0]]), block)  # not in order: a copy
    False
    """
    first = cols[0]
    n, size = first.shape[0], first.itemsize
    if first.base is not None and all(
            c.base is first.base and c.dtype == first.dtype and c.shape == (n,)
            and c.flags.c_contiguous and c.ctypes.data == first.ctypes.data + j * n * size
            for j, c in enumerate(cols)):
        # the K columns are consecutive runs of one owner's memory: the view stays inside it
        return np.lib.stride_tricks.as_strided(first, (n, len(cols)), (size, n * size),
                                               writeable=False)
    return cast("np.ndarray", np.stack(cols).T)


def as_prob(a: Any, key: str, row0: int = 0, what: str = "probability column") -> np.ndarray:
    """A probability column (or matrix) as float64; CLIError naming the first value that
    is not a number (``row0``: data rows before this batch; ``what``: the column's role).

    Examples
    --------
    >>> as_prob(np.array(["0.25", "1"], dtype=object), "p_1")
    array([0.25, 1.  ])
    """
    if isinstance(a, Coded):
        a = a.texts()
    try:
        return cast("np.ndarray", a.astype(np.float64, copy=False))
    except (ValueError, TypeError):
        for i, v in enumerate(a.tolist()):
            try:
                float(v)
            except (ValueError, TypeError):
                raise CLIError(
                    f"{what} {key!r} is not numeric: {v!r} at data row {row0 + i + 1}"
                ) from None
        raise CLIError(f"{what} {key!r} is not numeric") from None
