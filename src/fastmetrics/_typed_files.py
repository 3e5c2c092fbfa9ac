"""A predictions file as batches of typed columns, read by the command line's reader
(:mod:`fastmetrics.cli.readers`): the one reader of CSV/TSV (compressed too), Parquet, NPY
and NPZ files, behind both ``fastmetrics report`` and :func:`fastmetrics.evaluate`.

Parquet, NPY and NPZ columns come with their types. pyarrow infers a CSV column's type from
the file's first block (integers, floats, booleans or text; its missing-value markers, ``""``,
``NA``, ``null``..., as nulls); a typing read of the columns that may hold labels or keys
settles each over the whole file: where a later block holds a value of another type, the
column is widened (integers to floats, anything else to text) and the read starts again. So a
slice column of integers that holds a text past its first block is a text column, not a
refused file.

From the first row pyarrow reads in a way of its own (a ragged or blank line...), the csv
module reads on, so that an error names its line; the csv module's texts are then typed as
pyarrow types them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = ["FileTable", "arrow_column"]

#: rows of each batch of a typing read (only its outcome is kept)
_TYPING_ROWS = 1 << 20

#: pyarrow's default markers of a missing value in a CSV file
MISSING = frozenset(["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                     "1.#IND", "1.#QNAN", "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null"])
_TRUE = frozenset(["1", "True", "TRUE", "true"])
_FALSE = frozenset(["0", "False", "FALSE", "false"])
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|Inf|INF)$")


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
        #: a CSV column's arrow type once settled
        self.typing: dict[str, Any] = {}
        with self._source() as src:
            self.names = list(src.names)
            self.rows: int | None = src.size if src.unit == "rows" else None
            self.csv = bool(src.delimited)
            self.arrow = self.csv and hasattr(src, "arrow_batches")
            self._kinds = {} if self.csv else _native_kinds(src)

    # ------------------------------------------------------------------ opening
    @contextmanager
    def _source(self, arrow: bool = True) -> Iterator[Any]:
        """The file opened by the reader (pyarrow for CSV unless ``arrow`` is False), closed
        after; the reader's errors as ValueError."""
        from .cli.errors import CLIError
        from .cli.readers import open_source

        try:
            src = open_source(self.path, arrow=arrow)
            try:
                yield src
            finally:
                src.close()
        except CLIError as exc:
            raise ValueError(str(exc)) from None

    # ------------------------------------------------------------------ typing
    def settle(self, columns: Sequence[str]) -> None:
        """Decide the type of each CSV column of ``columns`` not yet decided, over the whole
        file (a read of them, started again for each column a later block widens)."""
        from .cli.readers import Reread

        todo = [c for c in dict.fromkeys(columns) if c not in self.typing]
        if not self.csv or not todo:
            return
        if not self.arrow:
            self._settle_texts(todo)
            return
        import pyarrow as pa

        forced: dict[str, Any] = {}
        while True:
            seen: dict[str, Any] = {}
            try:
                with self._source() as src:
                    for table, _ in src.arrow_batches(todo, _TYPING_ROWS, forced):
                        for c in todo:
                            seen.setdefault(c, table.schema.field(c).type)
                break
            except Reread as exc:
                bad = exc.column
                now = None if bad is None else seen.get(bad, forced.get(bad))
                if bad is None or bad not in todo or now is None:
                    self.arrow = False  # a line pyarrow reads its own way: the csv module
                    self._settle_texts(todo)
                    return
                forced[bad] = pa.float64() if pa.types.is_integer(now) else pa.string()
        for c in todo:
            t = seen.get(c, pa.string())
            # numbers and booleans as pyarrow reads them; dates and anything else as text
            # (keys and labels are numbers, booleans or text)
            self.typing[c] = t if _arrow_kind(t) in "fib" and not pa.types.is_null(t) \
                else pa.string()

    def _settle_texts(self, todo: list[str]) -> None:
        """The types of the csv module's texts, as pyarrow would infer them from the whole
        file (missing-value markers left out)."""
        kinds = {c: {"int", "float", "bool"} for c in todo}
        with self._source(arrow=False) as src:
            for batch in src.batches(todo, _TYPING_ROWS):
                for c in todo:
                    if kinds[c]:
                        kinds[c] &= _text_kinds(batch.columns[c])
        import pyarrow as pa

        for c in todo:
            k = kinds[c]
            self.typing[c] = (pa.int64() if "int" in k else pa.float64() if "float" in k
                              else pa.bool_() if "bool" in k else pa.string())

    def kind_of(self, c: str) -> str:
        """The numpy dtype kind of column ``c`` ('f' floats, 'i'/'u' integers, 'b' bools,
        'O' text or anything else): a CSV column's once settled (settling it if need be)."""
        if not self.csv:
            return self._kinds.get(c, "O")
        self.settle([c])
        return _arrow_kind(self.typing[c])

    def force_text(self, columns: Sequence[str]) -> None:
        """Read these (settled) CSV columns as text."""
        import pyarrow as pa

        for c in columns:
            self.typing[c] = pa.string()

    # ------------------------------------------------------------------ reading
    def batches(self, columns: Sequence[str], batch_rows: int | None = None,
                ) -> Iterator[dict[str, Any]]:
        """The columns as batches of ``batch_rows`` rows (default: the table's): numbers as
        numpy arrays, text as arrow arrays (numpy object arrays of str where the csv module
        read them). A CSV column not settled is read as numbers (float64). ValueError
        naming the first missing value of a column, or the first value that is not a
        number."""
        need = list(dict.fromkeys(columns))
        rows = self.batch_rows if batch_rows is None else batch_rows
        if not self.csv:
            yield from self._typed_file(need, rows)
            return
        done = 0
        if self.arrow:
            from .cli.readers import Reread

            types = {c: self._type(c) for c in need}
            try:
                with self._source() as src:
                    for table, row0 in src.arrow_batches(need, rows, types):
                        yield {c: arrow_column(table.column(c), c, row0) for c in need}
                        done = row0 + table.num_rows
                return
            except Reread:
                self.arrow = False  # the csv module reads on from here
        yield from self._texts(need, rows, done)

    def _type(self, c: str) -> Any:
        import pyarrow as pa

        return self.typing.get(c, pa.float64())

    def _typed_file(self, need: list[str], rows: int | None) -> Iterator[dict[str, Any]]:
        """Parquet (arrow batches, as the file types them), NPY and NPZ (numpy arrays)."""
        with self._source() as src:
            if hasattr(src, "arrow_batches"):
                for table, row0 in src.arrow_batches(need, rows):
                    yield {c: arrow_column(table.column(c), c, row0) for c in need}
                return
            for batch in src.batches(need, rows):
                for c in need:
                    a = batch.columns[c]
                    if np.ndim(a) != 1:
                        raise ValueError(f"the column {c!r} of {self.path} must hold one "
                                         f"value per row, got an array of shape "
                                         f"{np.shape(a)}")
                yield dict(batch.columns)

    def _texts(self, need: list[str], rows: int | None, done: int
               ) -> Iterator[dict[str, Any]]:
        """The csv module's batches from data row ``done`` on, each column's texts typed as
        settled."""
        with self._source(arrow=False) as src:
            for batch in src.batches(need, rows):
                n = batch.columns[need[0]].shape[0] if need else 0
                if batch.row0 + n <= done:
                    continue  # rows pyarrow handed over already
                cut = max(0, done - batch.row0)
                row0 = batch.row0 + cut
                yield {c: _typed_texts(batch.columns[c][cut:], c, self._type(c), row0)
                       for c in need}

    def whole(self) -> Any:
        """Every column of the file as one pyarrow table (CSV columns settled first;
        missing values kept as nulls)."""
        import pyarrow as pa

        if not self.csv:
            with self._source() as src:
                if hasattr(src, "arrow_batches"):
                    return next(iter(src.arrow_batches(self.names, None)))[0]
                cols = next(iter(src.batches(self.names, None))).columns
            return pa.table({c: pa.array(np.asarray(a)) for c, a in cols.items()})
        self.settle(self.names)
        if self.arrow:
            from .cli.readers import Reread

            types = {c: self._type(c) for c in self.names}
            try:
                with self._source() as src:
                    return next(iter(src.arrow_batches(self.names, None, types)))[0]
            except Reread:
                self.arrow = False
        with self._source(arrow=False) as src:
            cols = next(iter(src.batches(self.names, None))).columns
        return pa.table({c: _arrow_texts(cols[c], self._type(c)) for c in self.names})


def arrow_column(col: Any, name: str, row0: int = 0) -> Any:
    """An arrow column as the kernels read it: numbers as numpy (no copy where the buffer
    allows), text and dictionaries as arrow (encoded by their codes downstream). ValueError
    naming a column with missing values (``row0``: the data rows before these)."""
    import pyarrow as pa

    t = col.type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_dictionary(t) \
            or pa.types.is_string_view(t):
        return col
    if col.null_count:
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        first = int(np.flatnonzero(np.asarray(col.is_null()))[0])
        k = col.null_count
        raise ValueError(f"the column {name!r} holds {k} missing value{'s' * (k != 1)} "
                         f"(the first at data row {row0 + first + 1})")
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    return col.to_numpy(zero_copy_only=False)


def _arrow_kind(t: Any) -> str:
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        t = t.value_type
    return ("f" if pa.types.is_floating(t) or pa.types.is_null(t)
            else "i" if pa.types.is_integer(t) else "b" if pa.types.is_boolean(t) else "O")


def _text_kinds(a: np.ndarray) -> set[str]:
    """The types every text of a batch reads as ("int", "float", "bool"; missing-value
    markers read as any)."""
    kinds = {"int", "float", "bool"}
    for v in set(a.tolist()):
        if v in MISSING:
            continue
        if not _INT.match(v) or not -(2**63) <= int(v) < 2**63:
            kinds.discard("int")
        if not _FLOAT.match(v):
            kinds.discard("float")
        if v not in _TRUE and v not in _FALSE:
            kinds.discard("bool")
        if not kinds:
            break
    return kinds


def _typed_texts(a: np.ndarray, c: str, t: Any, row0: int) -> np.ndarray:
    """The csv module's texts of one column as the arrow type ``t`` types them (text kept
    as it is). ValueError naming the first missing value or the first value that is not of
    the type."""
    import pyarrow as pa

    if pa.types.is_string(t):
        return a
    values = a.tolist()
    missing = [i for i, v in enumerate(values) if v in MISSING]
    if missing:
        raise ValueError(f"the column {c!r} holds {len(missing)} missing "
                         f"value{'s' * (len(missing) != 1)} (the first at data row "
                         f"{row0 + missing[0] + 1})")
    try:
        if pa.types.is_boolean(t):
            bad = next((i for i, v in enumerate(values) if v not in _TRUE and v not in _FALSE),
                       None)
            if bad is not None:
                raise ValueError(bad)
            return np.fromiter((v in _TRUE for v in values), bool, len(values))
        if pa.types.is_integer(t):
            bad = next((i for i, v in enumerate(values) if not _INT.match(v)), None)
            if bad is not None:
                raise ValueError(bad)
            return np.array([int(v) for v in values], dtype=np.int64)
        bad = next((i for i, v in enumerate(values) if not _FLOAT.match(v)
                    and v.strip().lower() not in ("nan", "+nan", "-nan")), None)
        if bad is not None:
            raise ValueError(bad)
        return np.array([float(v) for v in values], dtype=np.float64)
    except ValueError as exc:
        i = exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0
        raise ValueError(f"the column {c!r} is not numeric: {values[i]!r} at data row "
                         f"{row0 + i + 1}") from None


def _arrow_texts(a: np.ndarray, t: Any) -> Any:
    """The csv module's texts of a whole column as an arrow array of type ``t``, missing
    values null (a joined table keeps every column)."""
    import pyarrow as pa

    values = a.tolist()
    if pa.types.is_string(t):
        return pa.array(values, pa.string())
    out: list[Any] = []
    for v in values:
        if v in MISSING:
            out.append(None)
        elif pa.types.is_boolean(t):
            out.append(v in _TRUE)
        elif pa.types.is_integer(t):
            out.append(int(v))
        else:
            out.append(float(v))
    return pa.array(out, t)


def _native_kinds(src: Any) -> dict[str, str]:
    """The dtype kind of each column of a typed file (Parquet's schema, NPY's or NPZ's
    arrays)."""
    schema = getattr(getattr(src, "pf", None), "schema_arrow", None)
    if schema is not None:
        return {f.name: _arrow_kind(f.type) for f in schema}
    array = getattr(src, "array", None)
    if array is not None:  # NPY: a structured or 2-D array
        if array.dtype.names:
            return {n: _kind(array.dtype[n]) for n in array.dtype.names}
        return {n: _kind(array.dtype) for n in src.names}
    return {n: _kind(src.z[n].dtype) for n in src.names}  # NPZ


def _kind(dtype: np.dtype) -> str:
    return dtype.kind if dtype.kind in "fiub" else "O"
