"""A predictions file as batches of typed columns, read by the command line's reader
(:mod:`fastmetrics.cli.readers`): the one reader of CSV/TSV (compressed too), Parquet, NPY
and NPZ files, behind both ``fastmetrics report`` and :func:`fastmetrics.evaluate`.

Parquet, NPY and NPZ columns come with their types. A CSV column's type is decided over the
whole file, as pandas decides it: a column whose every value reads as a number holds numbers
(int64 where every one is an integer), any other column text. A typing read settles the
columns asked for (:meth:`FileTable.settle`): each is read as float64 until pyarrow meets a
value that is not a number in it, and as text from then on (the read starts again). So a slice
column of integers that turns to text past its first block is a text column, not a refused
file.

pyarrow reads CSV; from the first row it reads in a way of its own (a ragged or blank line,
an empty or overlong field), the csv module reads on, so that an error names its line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["FileTable"]

#: rows of each batch of a typing read (only its outcome is kept)
_TYPING_ROWS = 1 << 20


class FileTable:
    """A predictions file opened for reading in batches of typed columns.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.csv``/``.tsv`` (optionally ``.gz``, ``.bz2``, ``.zst``), ``.parquet``, ``.npy``
        or ``.npz`` file.
    batch_rows : int
        Rows per batch (NPY and NPZ files are one batch).

    Attributes
    ----------
    names : list of str
        The file's columns.
    rows : int or None
        Its rows where the file says (Parquet), else None.

    Raises
    ------
    ValueError
        A file that does not exist or cannot be read, naming it; stdin (``"-"``), which
        cannot be read more than once.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "p.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y,seg\\n1,7\\n0,x\\n")
    >>> t = FileTable(path, 1000)
    >>> t.settle(["y", "seg"])
    >>> t.kind_of("y"), t.kind_of("seg")
    ('i', 'O')
    >>> [b["y"].tolist() for b in t.batches(["y"])]
    [[1, 0]]
    """

    def __init__(self, path: str | os.PathLike[str], batch_rows: int) -> None:
        self.path = os.fspath(path)
        if self.path == "-":
            raise ValueError("evaluate reads its file more than once: stdin cannot be read "
                             "again (write it to a file)")
        self.batch_rows = batch_rows
        #: pyarrow reads the CSV: until it meets what the csv module reads its own way
        self.arrow = True
        #: a CSV column's type once settled: "int", "float" or "text"
        self.typing: dict[str, str] = {}
        src = self._open()
        try:
            self.names = list(src.names)
            self.rows: int | None = src.size if src.unit == "rows" else None
            self.csv = bool(src.delimited)
            self._kinds = {} if self.csv else _native_kinds(src)
        finally:
            src.close()

    # ------------------------------------------------------------------ opening
    def _open(self, arrow: bool = True) -> Any:
        from .cli.errors import CLIError
        from .cli.readers import open_source

        try:
            return open_source(self.path, arrow=arrow)
        except CLIError as exc:
            raise ValueError(str(exc)) from None

    def _raw(self, need: list[str], labels: tuple[str, ...], batch_rows: int | None,
             typing: bool = False) -> Iterator[Any]:
        """The reader's batches of ``need`` (``labels`` dictionary-encoded by pyarrow), from
        the csv module on where pyarrow reads a row its own way. ``typing``: ``Reread``
        naming the column when a column read as numbers holds text (else the csv module
        reads on, and the caller names the value)."""
        from .cli.errors import CLIError
        from .cli.readers import Reread

        done = 0
        try:
            if self.arrow or not self.csv:
                src = self._open(True)
                try:
                    for batch in src.batches(need, batch_rows, labels):
                        yield batch
                        done = batch.row0 + _length(batch, need)
                    return
                except Reread as exc:
                    if typing and exc.column is not None and exc.column in need \
                            and exc.column not in labels:
                        raise
                    self.arrow = False  # the csv module reads this file from now on
                finally:
                    src.close()
            src = self._open(False)
            try:
                for batch in src.batches(need, batch_rows, labels):
                    n = _length(batch, need)
                    if batch.row0 + n <= done:
                        continue  # rows pyarrow handed over already
                    if batch.row0 < done:
                        cut = done - batch.row0
                        batch.columns = {c: a[cut:] for c, a in batch.columns.items()}
                        batch.row0 = done
                    yield batch
            finally:
                src.close()
        except CLIError as exc:
            raise ValueError(str(exc)) from None

    # ------------------------------------------------------------------ typing
    def settle(self, columns: Sequence[str]) -> None:
        """Decide the type of each CSV column of ``columns`` not yet decided, by one read
        of them (started again for each column that turns out to hold text)."""
        from .cli.readers import Reread

        todo = [c for c in dict.fromkeys(columns) if c not in self.typing]
        if not self.csv or not todo:
            return
        text: set[str] = set()
        while True:
            integral = {c: True for c in todo if c not in text}
            labels = tuple(c for c in todo if c in text)
            try:
                for batch in self._raw(todo, labels, _TYPING_ROWS, typing=True):
                    for c in integral:
                        a = batch.columns[c]
                        if a.dtype.kind == "O":  # the csv module's texts
                            kind = _text_kind(a)
                            if kind == "text":
                                raise Reread(c)
                            integral[c] &= kind == "int"
                        elif integral[c]:
                            integral[c] = _integral(a)
                            if not integral[c] and np.isfinite(a).all() \
                                    and np.array_equal(a, np.floor(a)):
                                raise Reread(c)  # integers past 2^53: read as text
                break
            except Reread as exc:
                assert exc.column is not None
                text.add(exc.column)
        for c in todo:
            self.typing[c] = "text" if c in text else "int" if integral[c] else "float"

    def kind_of(self, c: str) -> str:
        """The numpy dtype kind of column ``c`` ('f' floats, 'i'/'u' integers, 'b' bools,
        'O' text or anything else): a CSV column's once settled (settling it if need be)."""
        if not self.csv:
            return self._kinds.get(c, "O")
        self.settle([c])
        return {"int": "i", "float": "f"}.get(self.typing[c], "O")

    # ------------------------------------------------------------------ reading
    def batches(self, columns: Sequence[str], batch_rows: int | None = None,
                ) -> Iterator[dict[str, Any]]:
        """The columns as batches of ``batch_rows`` rows (default: the table's): numbers as
        numpy arrays, text as arrow dictionary arrays (numpy object arrays of str where the
        csv module read them). A CSV column not settled is read as numbers (float64):
        ValueError naming the first value that is not one."""
        from .cli.columns import Coded, as_prob

        need = list(dict.fromkeys(columns))
        text = tuple(c for c in need if self.typing.get(c) == "text"
                     or (not self.csv and self._kinds.get(c, "O") == "O"))
        rows = self.batch_rows if batch_rows is None else batch_rows
        for batch in self._raw(need, text, rows):
            out: dict[str, Any] = {}
            for c in need:
                a = batch.columns[c]
                if isinstance(a, Coded):
                    out[c] = _dictionary(a, c, batch.row0)
                elif not self.csv:
                    out[c] = a
                elif self.typing.get(c) == "text":
                    _no_empty(a, c, batch.row0)
                    out[c] = a
                else:
                    if a.dtype.kind == "O":
                        a = _as_number(as_prob, a, c, batch.row0)
                    out[c] = a.astype(np.int64) if self.typing.get(c) == "int" else a
            yield out

    def whole(self) -> dict[str, Any]:
        """Every column of the file, whole (its CSV columns settled first)."""
        import pyarrow as pa

        self.settle(self.names)
        parts = list(self.batches(self.names, batch_rows=None))
        out: dict[str, Any] = {}
        for c in self.names:
            chunks = [p[c] for p in parts]
            if all(isinstance(x, np.ndarray) for x in chunks):
                out[c] = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
            else:
                out[c] = pa.chunked_array([x if not isinstance(x, np.ndarray) else pa.array(x)
                                           for x in chunks])
        return out


def _length(batch: Any, need: list[str]) -> int:
    return int(batch.columns[need[0]].shape[0]) if need else 0


#: integers beyond this are not all exact as float64: such a column is read as text
_EXACT = 2.0 ** 53


def _integral(a: np.ndarray) -> bool:
    """Whether every value of a float64 column is a finite integer of at most 2^53 in
    magnitude (exact as float64)."""
    if a.dtype.kind in "iub" or a.size == 0:
        return True
    return bool(np.isfinite(a).all() and np.array_equal(a, np.floor(a))
                and -_EXACT <= a.min() and a.max() <= _EXACT)


def _text_kind(a: np.ndarray) -> str:
    """How the csv module's texts of one batch read: "int", "float" or "text"."""
    from .cli.columns import number_value

    kind = "int"
    for v in set(a.tolist()):
        x = number_value(v)
        if x is None:
            return "text"
        if not isinstance(x, int):
            kind = "float"
        elif abs(x) > _EXACT:
            return "text"  # not exact as float64: read as text
    return kind


def _as_number(as_prob: Any, a: np.ndarray, c: str, row0: int) -> np.ndarray:
    from .cli.errors import CLIError

    _no_empty(a, c, row0)
    try:
        return np.asarray(as_prob(a, c, row0, what="column"))
    except CLIError as exc:
        raise ValueError(str(exc)) from None


def _no_empty(a: np.ndarray, c: str, row0: int) -> None:
    """ValueError for an empty text (a missing label or key) in a csv module column."""
    empty = np.flatnonzero(a == "")
    if empty.size:
        raise ValueError(f"the column {c!r} has a missing (empty) value at data row "
                         f"{row0 + int(empty[0]) + 1}")


def _dictionary(a: Any, c: str, row0: int) -> Any:
    """A dictionary-encoded text column (:class:`~fastmetrics.cli.columns.Coded`) as an
    arrow dictionary array, the way the label encoders read arrow text."""
    import pyarrow as pa

    if any(v == "" or v is None for v in a.values):
        bad = [j for j, v in enumerate(a.values) if v == "" or v is None]
        hit = np.flatnonzero(np.isin(a.indices, bad))
        if hit.size:
            raise ValueError(f"the column {c!r} has a missing (empty) value at data row "
                             f"{row0 + int(hit[0]) + 1}")
    return pa.DictionaryArray.from_arrays(pa.array(a.indices), pa.array(a.values, pa.string()))


def _native_kinds(src: Any) -> dict[str, str]:
    """The dtype kind of each column of a typed file (Parquet's schema, NPY's or NPZ's
    arrays)."""
    schema = getattr(getattr(src, "pf", None), "schema_arrow", None)
    if schema is not None:
        import pyarrow as pa

        out = {}
        for f in schema:
            t = f.type.value_type if pa.types.is_dictionary(f.type) else f.type
            out[f.name] = ("f" if pa.types.is_floating(t) else "i" if pa.types.is_integer(t)
                           else "b" if pa.types.is_boolean(t) else "O")
        return out
    array = getattr(src, "array", None)
    if array is not None:  # NPY: a structured or 2-D array
        if array.dtype.names:
            return {n: _kind(array.dtype[n]) for n in array.dtype.names}
        return {n: _kind(array.dtype) for n in src.names}
    return {n: _kind(src.z[n].dtype) for n in src.names}  # NPZ


def _kind(dtype: np.dtype) -> str:
    return dtype.kind if dtype.kind in "fiub" else "O"
