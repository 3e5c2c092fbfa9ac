"""Predictions files -> batches of columns: CSV / TSV / stdin, Parquet, NPY and NPZ.

A :class:`Source` is an opened file: its display name, its column names and
:meth:`Source.batches`, which yields the needed columns ``batch_rows`` rows at a time (CSV and
Parquet) or the whole file as one batch (``batch_rows=None``, and always for NPY and NPZ,
which numpy reads whole). Whether a file is streamed is decided from the memory its needed
columns will take (:meth:`Source.plan`), not from its size on disk.

CSV files are read by ``pyarrow.csv`` when pyarrow is installed (:class:`ArrowCsvSource`):
label columns come dictionary-encoded (:class:`~fastmetrics.cli.columns.Coded`: integer
indices and the K distinct texts, no Python string per row), probability columns as float64.
Whatever pyarrow reads differently from the csv module or cannot report with a line number
(a ragged or blank line, an empty or overlong field, a value that is not a number, bad UTF-8)
raises :class:`Reread`, and the file is read again by the csv module (:class:`CsvSource`),
which gives today's result or today's one-line error. Stdin, and every CSV without pyarrow,
goes through the csv module: columns as object arrays of ``str``. Nothing here decides what
a value means (:mod:`fastmetrics.cli.columns` does).

A CSV/TSV file may be compressed (``.csv.gz``, ``.csv.bz2``, ``.csv.zst``; the format is
told by the suffix before the compression's): pyarrow reads it through its decompressing
stream, the csv module through :mod:`gzip` or :mod:`bz2` (zstd: pyarrow's stream, so
``.zst`` needs pyarrow). Its size in memory cannot be estimated from its first bytes, so it
is streamed like stdin.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import os
import re
import sys
import zipfile
import zlib
from dataclasses import dataclass
from importlib import resources
from itertools import islice
from operator import itemgetter
from typing import Any, Iterator

import numpy as np

from .columns import Coded
from .errors import CLIError, first_line

__all__ = [
    "DEFAULT_BATCH_ROWS",
    "SAMPLE_NAME",
    "STREAM_BYTES",
    "ArrowCsvSource",
    "Batch",
    "Reread",
    "Source",
    "batch_rows",
    "delimiter_of",
    "have_pyarrow",
    "numbers",
    "numpy_dtype",
    "open_source",
]

SAMPLE = "data/sample.csv"
SAMPLE_NAME = "sample.csv (shipped with fastmetrics)"
#: Files whose needed columns are estimated to take more memory than this are read in batches
#: even without --batch-rows.
STREAM_BYTES = 256 << 20
DEFAULT_BATCH_ROWS = 1_000_000
# the csv module's default field limit: pyarrow has none, and both readers must agree
FIELD_LIMIT = 131_072


def have_pyarrow() -> bool:
    """Whether pyarrow can be imported (CSV is then read by ``pyarrow.csv``)."""
    try:
        import pyarrow.csv as pacsv
    except ImportError:
        return False
    return pacsv is not None


class Reread(Exception):
    """pyarrow met something the csv module reads, or reports, its own way: read the file
    again with the csv module (raised by :class:`ArrowCsvSource`, caught by the report).

    ``column``: the column whose value pyarrow could not convert to the type it was asked
    for (a text in a column read as numbers), when that was the cause; else None.

    Examples
    --------
    >>> Reread("p_1").column, Reread().column
    ('p_1', None)
    """

    def __init__(self, column: str | None = None) -> None:
        super().__init__(column)
        self.column = column


CSV_EXTS = (".csv", ".tsv", ".txt", "")
PARQUET_EXTS = (".parquet", ".pq")
#: the compressions a CSV/TSV file may have, by its last suffix (pyarrow's codec names)
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}
# what a damaged compressed file raises while it is read: gzip and bz2 (OSError, EOFError,
# zlib.error), pyarrow's streams (OSError)
DECOMPRESS_ERRORS = (OSError, EOFError, zlib.error)


@dataclass
class Batch:
    """Some consecutive rows of a file: the needed columns, and the data rows before them.

    Examples
    --------
    >>> b = Batch({"y_true": np.array([1, 2])}, row0=10)
    >>> b.columns["y_true"].shape, b.row0
    ((2,), 10)
    """

    columns: dict[str, np.ndarray]
    row0: int


class Source:
    """An opened predictions file (use :func:`open_source`; close it, or use ``with``).

    Attributes
    ----------
    name : str
        The file as the report and error messages name it.
    names : list of str
        Its column names (a 2-D NPY array: ``"0"``, ``"1"``...).
    positional : bool
        Columns are chosen by index (a 2-D NPY array).
    size : int
        Progress units in the whole file (bytes of a CSV file, rows of a Parquet file);
        0 when unknown (stdin, the sample, NPY, NPZ).
    unit : str
        What ``size`` counts: ``"B"`` (bytes) or ``"rows"``.

    Examples
    --------
    >>> with open_source(None) as src:
    ...     src.column("y_true", "--true"), [b.row0 for b in src.batches(["y_true"], 1000)]
    ('y_true', [0, 1000, 2000])
    """

    name: str = ""
    names: list[str]
    positional: bool = False
    size: int = 0
    unit: str = "B"
    delimited: bool = False  # a CSV/TSV text (a one-column header may be misread)
    delimiter: str = ","  # the one it is read with, when delimited

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the file."""

    def position(self) -> int:
        """Progress units read so far (see ``size``)."""
        return 0

    def column(self, key: str, what: str) -> str:
        """The column that ``key`` (given as ``what``, e.g. ``--true``) names; CLIError
        when there is none."""
        if self.positional:
            if not key.lstrip("-").isdigit() or not 0 <= int(key) < len(self.names):
                raise CLIError(
                    f"{what} must be a column index 0..{len(self.names) - 1} for the 2-D "
                    f"array in {self.name}, got {key!r}"
                )
            return str(int(key))
        if key not in self.names:
            shown = ", ".join(self.names[:20]) + (", ..." if len(self.names) > 20 else "")
            raise CLIError(f"unknown {what} column {key!r} in {self.name}; columns are: "
                           f"{shown}{self._delimiter_hint()}")
        return key

    def _delimiter_hint(self) -> str:
        """For a delimited text whose header is one column holding ``;``, ``|``, a tab or a
        comma (other than the delimiter it was read with): the delimiter it looks separated
        by, and how to pass it (else "")."""
        if not self.delimited or len(self.names) != 1:
            return ""
        counts = {d: self.names[0].count(d) for d in (";", "|", "\t", ",")
                  if d != self.delimiter}
        d = max(counts, key=lambda c: counts[c])
        if not counts[d]:
            return ""
        shown, flag = ("tab", "tab") if d == "\t" else (repr(d), repr(d))
        return f"; the header looks {shown}-separated: pass --delimiter {flag}"

    def batches(self, need: list[str], batch_rows: int | None,
                labels: tuple[str, ...] = ()) -> Iterator[Batch]:
        """The columns ``need`` (names from :meth:`column`), ``batch_rows`` rows at a time
        (None: the whole file as one batch); ``labels``: those of ``need`` that hold labels
        (a reader may hand them over dictionary-encoded)."""
        raise NotImplementedError

    def estimate(self, need: list[str], labels: tuple[str, ...]) -> int:
        """Bytes of memory that reading the columns ``need`` whole would take (0: unknown,
        or the format is read whole anyway)."""
        return 0

    def plan(self, requested: int | None, need: list[str],
             labels: tuple[str, ...]) -> int | None:
        """Rows per batch: ``requested`` (``--batch-rows``), else 10^6 when reading the
        needed columns whole is estimated to take over 256 MiB, else None (one batch)."""
        if requested is not None:
            return requested
        return DEFAULT_BATCH_ROWS if self.estimate(need, labels) > STREAM_BYTES else None


# --------------------------------------------------------------------------- CSV / TSV


class CsvSource(Source):
    """A CSV/TSV text: Python's csv module, one row list per line, checked as it comes.
    ``raw``: the file under a decompressing ``f`` (its position is the progress, and it is
    closed with ``f``); ``compression``: its codec (see :data:`COMPRESSIONS`)."""

    delimited = True

    def __init__(self, f: Any, name: str, delimiter: str = ",", size: int = 0,
                 owned: bool = True, raw: Any = None, compression: str | None = None) -> None:
        self.f, self.name, self.size, self.owned = f, name, size, owned
        self.raw, self.compression, self.delimiter = raw, compression, delimiter
        self.reader = csv.reader(f, delimiter=delimiter)
        try:
            self.names, self.header_rows = _header(self.reader, name)
        except DECOMPRESS_ERRORS as exc:
            raise _damaged(name, compression, exc) from None
        self.sample = 0  # bytes per data row, estimated on the first batch

    def close(self) -> None:
        if self.owned:
            self.f.close()
            if self.raw is not None:
                self.raw.close()

    def position(self) -> int:
        # the binary buffer under the text reader (the compressed file under a decompressing
        # one): its position moves a block at a time, which is what a progress bar needs, at
        # no cost per line
        buffer = self.raw if self.raw is not None else getattr(self.f, "buffer", None)
        return buffer.tell() if self.size and buffer is not None else 0

    def estimate(self, need: list[str], labels: tuple[str, ...]) -> int:
        if not self.size:
            return 0
        # a row is a list of str objects (about 50 bytes each plus the text), then the
        # needed columns' object arrays
        width = len(self.names)
        return _rows_in(getattr(self.f, "name", None), self.size) * (64 + 58 * width
                                                                       + 8 * len(need))

    def plan(self, requested: int | None, need: list[str],
             labels: tuple[str, ...]) -> int | None:
        if requested is None and ((not self.size and self.owned is False)
                                  or self.compression is not None):
            # stdin (or a compressed file): its size in memory is unknown, so it is streamed;
            # up to 10^6 rows are still one batch, the whole-file result
            return DEFAULT_BATCH_ROWS
        return super().plan(requested, need, labels)

    def batches(self, need: list[str], batch_rows: int | None,
                labels: tuple[str, ...] = ()) -> Iterator[Batch]:
        getters = [(c, itemgetter(self.names.index(c))) for c in need]
        width = len(self.names)
        line = self.header_rows  # reader rows (lines, for unquoted CSV) read so far
        row0 = 0
        try:
            while True:
                rows = list(islice(self.reader, batch_rows))
                if not rows:
                    break
                n = self._data_rows(rows, width, line)
                blank = line + n + 1 if n < len(rows) else None  # the first blank line
                line += len(rows)
                if n:
                    del rows[n:]
                    yield Batch({c: _object_array(list(map(get, rows))) for c, get in getters},
                                row0)
                    row0 += n
                if blank is not None:  # only blank lines may follow a blank line
                    if any(r for r in self.reader):
                        raise self._ragged(blank, 0, width)
                    break
        except UnicodeDecodeError:
            raise CLIError(f"{self.name} is not a UTF-8 text (CSV) file") from None
        except csv.Error as exc:  # a field over the limit, a NUL byte, a bad quote
            raise _csv_error(self.name, self.reader, exc) from None
        except DECOMPRESS_ERRORS as exc:  # a damaged or truncated compressed file
            raise _damaged(self.name, self.compression, exc) from None
        if row0 == 0:
            raise CLIError(f"{self.name} has a header but no rows")

    def _data_rows(self, rows: list[list[str]], width: int, line: int) -> int:
        """How many of ``rows`` (the reader rows after row ``line``) are data: all, or
        those before a blank line when only blank lines follow it in ``rows``. CLIError for
        a row of another width."""
        if all(map(width.__eq__, map(len, rows))):
            return len(rows)
        for i, r in enumerate(rows):
            if len(r) != width:
                if r or any(rows[i:]):
                    raise self._ragged(line + i + 1, len(r), width)
                return i
        return len(rows)  # pragma: no cover - some row had another width

    def _ragged(self, line: int, n: int, width: int) -> CLIError:
        return CLIError(
            f"{self.name}: line {line} has {n} fields but the header has {width} "
            "(columns of different lengths)"
        )


def _header(reader: Any, name: str) -> tuple[list[str], int]:
    """The column names of a CSV reader's file and the reader rows up to them (blank lines
    before the header count); CLIError for an empty file or a column named twice."""
    header_rows = 0
    header: list[str] | None = []
    try:
        while header == []:  # blank lines before anything else: empty if nothing follows
            header = next(reader, None)
            header_rows += 1
    except csv.Error as exc:
        raise _csv_error(name, reader, exc) from None
    if header is None:
        raise CLIError(f"{name} is empty")
    if header and header[0].startswith("\ufeff"):  # a UTF-8 byte order mark (stdin)
        header[0] = header[0][1:]
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise CLIError(f"{name} has two columns named {dup!r}")
    return header, header_rows


def _damaged(name: str, compression: str | None, exc: BaseException) -> CLIError:
    """The one-line error for a file that fails while it is read (decompressed)."""
    if compression is None:
        return CLIError(f"cannot read {name}: {first_line(exc)}")
    return CLIError(f"cannot read {name} as {compression}-compressed CSV: {first_line(exc)} "
                    "(a damaged or truncated file?)")


def _csv_error(name: str, reader: Any, exc: csv.Error) -> CLIError:
    msg = first_line(exc)
    if "field larger than field limit" in msg:
        msg = f"a field is longer than {csv.field_size_limit():,} characters"
    return CLIError(f"{name}: line {reader.line_num}: {msg} (is it a CSV file?)")


def _rows_in(path: Any, size: int) -> int:
    """Data rows in a CSV file of ``size`` bytes, estimated from its first 64 KiB (0 when
    it cannot be read again: a pipe, or compressed: its raw bytes are not its rows)."""
    if not isinstance(path, str) or not os.path.isfile(path) or _compression(path):
        return 0
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    lines = max(1, head.count(b"\n") - 1)
    per_row = max(1.0, (len(head) - head.find(b"\n") - 1) / lines)
    return int(size / per_row) + 1


def _object_array(values: list[Any]) -> np.ndarray:
    a = np.empty(len(values), dtype=object)
    a[:] = values
    return a


class ArrowCsvSource(Source):
    """A CSV/TSV file read by ``pyarrow.csv``: whole (``read_csv``) or in batches
    (``open_csv``, out of core). The header is read by the csv module, so that names, blank
    lines before it and a byte order mark are handled as :class:`CsvSource` handles them;
    :class:`Reread` for anything the csv module would read, or report, its own way.
    A compressed file is read through pyarrow's decompressing stream, and streamed."""

    delimited = True

    def __init__(self, path: str, delimiter: str, size: int) -> None:
        self.compression = _compression(path)
        self.name = path
        f, raw = _open_text(path, self.compression)
        try:
            self.names, self.header_rows = _header(csv.reader(f, delimiter=delimiter), path)
        except UnicodeDecodeError:
            raise CLIError(f"{path} is not a UTF-8 text (CSV) file") from None
        except DECOMPRESS_ERRORS as exc:
            raise _damaged(path, self.compression, exc) from None
        finally:
            f.close()
            if raw is not None:
                raw.close()
        if any("\n" in n or "\r" in n for n in self.names):
            raise Reread  # a quoted line break in the header: pyarrow counts rows otherwise
        self.path, self.delimiter, self.size = path, delimiter, size
        self.stream: Any = None
        self.raw: Any = None  # the compressed file under the stream
        self.done = 0  # data rows handed out
        self.rows = _rows_in(path, size)  # estimated (0 when compressed)

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
        if self.raw is not None:
            self.raw.close()

    def position(self) -> int:
        if self.compression is not None:  # the compressed bytes read so far
            return min(self.size, self.raw.tell()) if self.raw is not None else 0
        # pyarrow reads ahead of the batches handed out: the bytes of the rows done so far,
        # from the bytes per row of the file's first 64 KiB
        return min(self.size, self.size * self.done // self.rows) if self.rows else 0

    def plan(self, requested: int | None, need: list[str],
             labels: tuple[str, ...]) -> int | None:
        if requested is None and self.compression is not None:
            return DEFAULT_BATCH_ROWS  # its rows are not known from its first bytes
        return super().plan(requested, need, labels)

    def estimate(self, need: list[str], labels: tuple[str, ...]) -> int:
        # per row: a label's int32 index and its int64 code; a probability's float64, as
        # pyarrow's column and numpy's copy
        per_row = 12 * len(set(labels)) + 16 * len(set(need) - set(labels))
        return self.rows * per_row

    def arrow_batches(self, need: list[str], batch_rows: int | None,
                      types: dict[str, Any] | None = None) -> Iterator[tuple[Any, int]]:
        """The columns ``need`` as pyarrow tables of ``batch_rows`` rows (None: the whole
        file), each with the data rows before it: a column of ``types`` read as that arrow
        type, any other as pyarrow infers it from the file's first block (pyarrow's
        missing-value markers read as nulls). :class:`Reread` (naming the column pyarrow
        could not convert, where that was the cause) for what the csv module reads, or
        reports, its own way."""
        import pyarrow.csv as pacsv

        return self._tables(batch_rows, pacsv.ConvertOptions(
            include_columns=need, column_types=dict(types or {})))

    def batches(self, need: list[str], batch_rows: int | None,
                labels: tuple[str, ...] = ()) -> Iterator[Batch]:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        text = pa.dictionary(pa.int32(), pa.string())
        convert = pacsv.ConvertOptions(
            include_columns=need,
            column_types={c: text if c in labels else pa.float64() for c in need},
            null_values=[""], strings_can_be_null=False, quoted_strings_can_be_null=False,
        )
        for table, row0 in self._tables(batch_rows, convert):
            yield Batch(_arrow_columns(table, need, labels), row0)

    def _tables(self, batch_rows: int | None, convert: Any) -> Iterator[tuple[Any, int]]:
        """The file read by pyarrow with ``convert``: tables of ``batch_rows`` rows (None:
        the whole file), each with the data rows before it."""
        import pyarrow as pa
        import pyarrow.csv as pacsv

        # block size: about a batch of rows, 1 to 64 MiB (a row longer than a block is read
        # again by the csv module)
        per_row = self.size / self.rows if self.rows else 64
        block = 1 << 20 if batch_rows is None else int(
            min(64 << 20, max(1 << 20, 1.25 * batch_rows * per_row)))
        read = pacsv.ReadOptions(skip_rows=self.header_rows, column_names=self.names,
                                 block_size=block)
        parse = pacsv.ParseOptions(delimiter=self.delimiter, ignore_empty_lines=False)
        row0 = 0
        try:
            self.stream = pa.OSFile(self.path, "r")
            if self.compression is not None:
                self.raw = self.stream
                self.stream = pa.CompressedInputStream(self.raw, self.compression)
            if batch_rows is None:
                table = pacsv.read_csv(self.stream, read, parse, convert)
                if table.num_rows:
                    yield table, 0
                row0 = table.num_rows
            else:
                for part in pacsv.open_csv(self.stream, read, parse, convert):
                    for start in range(0, part.num_rows, batch_rows):
                        piece = part.slice(start, batch_rows)
                        yield piece, row0
                        row0 += piece.num_rows
                        self.done = row0
        except (pa.ArrowException, OSError) as exc:  # ragged, bad UTF-8, not a number, a
            # quote, a damaged compressed file...: the csv module reads it, or names the error
            raise Reread(_unconverted(exc, self.names)) from None
        if row0 == 0:
            raise CLIError(f"{self.name} has a header but no rows")


_UNCONVERTED = re.compile(r"^In CSV column #(\d+): CSV conversion error")


def _unconverted(exc: BaseException, names: list[str]) -> str | None:
    """The column (of ``names``, the file's) whose value pyarrow's error says it could not
    convert, or None for any other error."""
    m = _UNCONVERTED.match(str(exc))
    if m is None or int(m.group(1)) >= len(names):
        return None
    return names[int(m.group(1))]


def _arrow_columns(table: Any, need: list[str], labels: tuple[str, ...]) -> dict[str, Any]:
    """The columns ``need`` of a table from pyarrow's CSV reader: label columns as
    :class:`Coded`, probability columns as float64 rows of one (columns, rows) block, so that
    the calibration reads them as one matrix without copying them again
    (:func:`~fastmetrics.cli.columns.stacked`). :class:`Reread` for what the csv module
    reports its own way (an empty field or blank line, a field over its limit)."""
    probs = [c for c in need if c not in labels]
    block = np.empty((len(probs), table.num_rows))
    cols: dict[str, Any] = {}
    for c in need:
        col = table.column(c)
        if col.null_count:
            raise Reread
        if c in labels:
            cols[c] = _coded(col, FIELD_LIMIT)
        else:
            cols[c] = numbers(col, np.dtype(np.float64), block[probs.index(c)])
    return cols


def numbers(col: Any, dtype: np.dtype, out: np.ndarray | None = None) -> np.ndarray:
    """A pyarrow array or chunked array of fixed-width numbers of ``dtype``, without nulls,
    as numpy: copied into ``out`` when given, else a read-only view of a single chunk, else
    its chunks copied into one new array.

    pyarrow's own ``to_numpy`` imports pandas the first time it is called (a quarter of a
    second, more than reading 10^6 rows), so the values are read from the data buffers.

    Examples
    --------
    >>> import pyarrow as pa
    >>> col = pa.chunked_array([[1.0, 2.0], [3.0]]).slice(1)
    >>> numbers(col, np.dtype(np.float64)).tolist()
    [2.0, 3.0]
    """
    chunks = col.chunks if hasattr(col, "chunks") else [col]
    if out is None and len(chunks) == 1:
        return _buffer_view(chunks[0], dtype)
    if out is None:
        out = np.empty(len(col), dtype)
    pos = 0
    for chunk in chunks:
        n = len(chunk)
        out[pos:pos + n] = _buffer_view(chunk, dtype)
        pos += n
    return out


def numpy_dtype(t: Any) -> np.dtype | None:
    """The numpy dtype of a pyarrow integer or floating-point type (None for any other type:
    those are not one fixed-width value per row).

    Examples
    --------
    >>> import pyarrow as pa
    >>> numpy_dtype(pa.uint16()), numpy_dtype(pa.float32()), numpy_dtype(pa.string())
    (dtype('uint16'), dtype('float32'), None)
    """
    import pyarrow as pa

    if pa.types.is_integer(t):
        return np.dtype(f"{'i' if pa.types.is_signed_integer(t) else 'u'}{t.bit_width // 8}")
    if pa.types.is_floating(t):
        return np.dtype(f"f{t.bit_width // 8}")
    return None


def _buffer_view(a: Any, dtype: np.dtype) -> np.ndarray:
    n = len(a)
    if n == 0:
        return np.empty(0, dtype)
    return np.frombuffer(a.buffers()[1], dtype, n, a.offset * dtype.itemsize)


def _coded(col: Any, limit: int | None = None) -> Coded:
    """A dictionary-encoded pyarrow column (array or chunked, no nulls) as :class:`Coded`;
    :class:`Reread` for an empty text, or one longer than ``limit``."""
    import pyarrow as pa

    if isinstance(col, pa.ChunkedArray):
        if col.num_chunks > 1:
            col = col.unify_dictionaries()
        chunks = col.chunks
        values = chunks[0].dictionary if chunks else pa.array([], pa.string())
        indices = pa.chunked_array([c.indices for c in chunks], col.type.index_type)
    else:
        values, indices = col.dictionary, col.indices
    dtype = numpy_dtype(col.type.index_type)
    assert dtype is not None  # dictionary indices are integers
    indices = numbers(indices, dtype)
    texts = values.to_pylist()
    if limit is not None and any(not v or len(v) > limit for v in texts):
        raise Reread
    return Coded(indices, texts)


# --------------------------------------------------------------------------- Parquet


def pyarrow_parquet() -> Any:
    """``pyarrow.parquet``, or CLIError saying how to install it."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CLIError(
            "reading Parquet needs pyarrow, which is not installed: "
            "pip install 'fastmetrics-kernels[parquet]'"
        ) from None
    return pq


class ParquetSource(Source):
    """A Parquet file, read whole or ``batch_rows`` rows at a time (only the needed columns)."""

    def __init__(self, path: str) -> None:
        pq = pyarrow_parquet()
        try:
            self.pf = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow raises its own exception types
            raise CLIError(f"cannot read {path} as Parquet: {first_line(exc)}") from None
        self.name = path
        self.names = list(self.pf.schema_arrow.names)
        self.size = self.pf.metadata.num_rows
        self.unit = "rows"
        self.done = 0

    def close(self) -> None:
        self.pf.close()

    def position(self) -> int:
        return self.done

    def estimate(self, need: list[str], labels: tuple[str, ...]) -> int:
        import pyarrow as pa

        per_row = 0
        for c in set(need):
            t = self.pf.schema_arrow.field(c).type
            if pa.types.is_dictionary(t) or _is_text(t):
                per_row += 12  # int32 index + int64 code
            else:  # numbers as pyarrow's column and numpy's copy; nested: refused later
                try:
                    per_row += 2 * max(1, t.bit_width // 8)
                except ValueError:
                    per_row += 16
        return self.size * per_row

    def arrow_batches(self, need: list[str], batch_rows: int | None,
                      types: dict[str, Any] | None = None) -> Iterator[tuple[Any, int]]:
        """The columns ``need`` as pyarrow record batches of ``batch_rows`` rows (None: the
        whole file as one table), in the file's types, each with the rows before it."""
        import pyarrow as pa

        try:
            if batch_rows is None:
                yield self.pf.read(columns=need), 0
                return
            for part in self.pf.iter_batches(batch_size=batch_rows, columns=need):
                yield part, self.done
                self.done += part.num_rows
        except (OSError, ValueError, NotImplementedError, pa.ArrowException) as exc:
            raise CLIError(f"cannot read {self.name} as Parquet: {first_line(exc)}") from None

    def batches(self, need: list[str], batch_rows: int | None,
                labels: tuple[str, ...] = ()) -> Iterator[Batch]:
        import pyarrow as pa

        schema = self.pf.schema_arrow
        for c in labels:
            t = schema.field(c).type
            if pa.types.is_nested(t):
                raise CLIError(f"the label column {c!r} of {self.name} holds {t} values, "
                               "not labels (one label per row)")
        # text label columns come dictionary-encoded: indices and the K distinct texts
        text = [c for c in dict.fromkeys(labels) if _is_text(schema.field(c).type)]
        try:
            pf = self.pf
            if text:
                pf = pyarrow_parquet().ParquetFile(self.name, read_dictionary=text)
            if batch_rows is None:
                parts: Any = [pf.read(columns=need)]
            else:
                parts = pf.iter_batches(batch_size=batch_rows, columns=need)
            for part in parts:
                cols = {c: _parquet_column(part.column(c), c in labels) for c in need}
                yield Batch(cols, self.done)
                self.done += part.num_rows
        except (OSError, ValueError, NotImplementedError, pa.ArrowException) as exc:
            raise CLIError(f"cannot read {self.name} as Parquet: {first_line(exc)}") from None


def _is_text(t: Any) -> bool:
    import pyarrow as pa

    is_view = getattr(pa.types, "is_string_view", None)  # pyarrow >= 16
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t)
                or (is_view is not None and is_view(t)))


def _parquet_column(col: Any, label: bool) -> Any:
    import pyarrow as pa

    # text labels only: a dictionary of numbers decodes to numbers, as before
    if (label and pa.types.is_dictionary(col.type) and _is_text(col.type.value_type)
            and not col.null_count):
        try:
            return _coded(col)
        except Reread:  # an empty text: the object column names its row
            pass
    if pa.types.is_dictionary(col.type):
        # decoded first: pyarrow's to_numpy of a dictionary column puts another row's value
        # where a value is null, and a missing label or slice key must be seen as missing
        col = col.cast(col.type.value_type)
    dtype = numpy_dtype(col.type)
    if dtype is not None and not col.null_count:
        return numbers(col, dtype)
    return np.asarray(col.to_numpy(zero_copy_only=False))


# --------------------------------------------------------------------------- NPY / NPZ


class NpySource(Source):
    """A ``.npy`` file: a structured array (columns by field name) or a 2-D array (columns
    by index). numpy reads it whole: one batch."""

    def __init__(self, path: str) -> None:
        try:
            with open(path, "rb") as f:
                magic = f.read(6)
            if magic != b"\x93NUMPY":  # else numpy's advice is about allow_pickle
                raise CLIError(f"cannot read {path} as NPY: it does not start with the NPY "
                               "header (not a file written by numpy.save)")
            a = np.load(path, allow_pickle=False)
        except (ValueError, EOFError, OSError) as exc:
            raise CLIError(f"cannot read {path} as NPY: {first_line(exc)}") from None
        self.name = path
        if a.dtype.names:
            if a.ndim != 1:
                raise CLIError(f"{path}: the structured array must be 1-D, got shape {a.shape}")
            self.names = list(a.dtype.names)
        elif a.ndim == 2:
            self.names = [str(j) for j in range(a.shape[1])]
            self.positional = True
        else:
            raise CLIError(
                f"{path} must hold a structured array (named fields) or a 2-D array (columns "
                f"chosen by index), got a {a.ndim}-D {a.dtype} array"
            )
        self.array = a

    def batches(self, need: list[str], batch_rows: int | None,
                labels: tuple[str, ...] = ()) -> Iterator[Batch]:
        a = self.array
        yield Batch({c: a[:, int(c)] if self.positional else a[c] for c in need}, 0)


class NpzSource(Source):
    """A ``.npz`` file: arrays by name (only the needed ones are read). One batch."""

    def __init__(self, path: str) -> None:
        try:
            self.f = open(path, "rb")  # ours: numpy leaves its own open when the zip is bad
        except OSError as exc:
            raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            self.z = np.load(self.f, allow_pickle=False)
            self.names = list(self.z.files)
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
            self.f.close()
            raise CLIError(f"cannot read {path} as NPZ: {first_line(exc)}") from None
        self.name = path

    def close(self) -> None:
        self.z.close()
        self.f.close()

    def batches(self, need: list[str], batch_rows: int | None,
                labels: tuple[str, ...] = ()) -> Iterator[Batch]:
        try:
            cols = {c: self.z[c] for c in need}
        except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            raise CLIError(f"cannot read {self.name} as NPZ: {first_line(exc)}") from None
        yield Batch(cols, 0)


# --------------------------------------------------------------------------- opening


def _compression(path: str | None) -> str | None:
    """The codec of a compressed file, from its last suffix (None: not compressed).

    Examples
    --------
    >>> _compression("x.csv.gz"), _compression("x.TSV.BZ2"), _compression("x.csv.zst")
    ('gzip', 'bz2', 'zstd')
    >>> _compression("x.csv"), _compression("-")
    (None, None)
    """
    if path in (None, "-"):
        return None
    return COMPRESSIONS.get(os.path.splitext(path)[1].lower())


def _ext(path: str | None) -> str:
    """The format's extension, lower case: the suffix before a compression's.

    Examples
    --------
    >>> _ext("x.csv.gz"), _ext("x.Tsv.bz2"), _ext("x.parquet"), _ext("x.gz"), _ext("-")
    ('.csv', '.tsv', '.parquet', '', '')
    """
    if path in (None, "-"):
        return ""
    root, ext = os.path.splitext(path)
    if ext.lower() in COMPRESSIONS:
        ext = os.path.splitext(root)[1]
    return ext.lower()


def _open_text(path: str, compression: str | None) -> tuple[Any, Any]:
    """A file as UTF-8 text for the csv module (a byte order mark dropped, line breaks left
    to the csv module), decompressed; and the file under it (None when not compressed).
    CLIError when it cannot be opened, or is .zst and pyarrow is missing."""
    if compression == "zstd":  # the csv module reads pyarrow's stream when pyarrow's
        try:                    # reader is not used (a Reread)
            import pyarrow  # noqa: F401
        except ImportError:
            raise CLIError(f"reading {path} (zstd-compressed) needs pyarrow, which is not "
                           "installed: pip install \"fastmetrics-kernels[cli]\"") from None
    try:
        if compression is None:
            return open(path, newline="", encoding="utf-8-sig"), None
        raw = open(path, "rb")
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
    binary: Any
    if compression == "gzip":
        binary = gzip.GzipFile(fileobj=raw, mode="rb")
    elif compression == "bz2":
        binary = bz2.BZ2File(raw)
    else:
        import pyarrow as pa

        binary = pa.CompressedInputStream(raw, compression)
    return io.TextIOWrapper(binary, encoding="utf-8-sig", newline=""), raw


def batch_rows(path: str | None, requested: int | None) -> int | None:
    """``requested`` (``--batch-rows``), checked: only CSV/TSV, stdin and Parquet stream.
    (Without it, :meth:`Source.plan` decides from the estimated memory.)

    Examples
    --------
    >>> batch_rows("preds.csv", 5000), batch_rows(None, None)
    (5000, None)
    """
    ext = _ext(path)
    batched = path in (None, "-") or ext in CSV_EXTS + PARQUET_EXTS
    if _compression(path) is not None:
        batched = ext in CSV_EXTS  # a compressed Parquet file is refused when opened
    if requested is not None and not batched:
        raise CLIError("--batch-rows streams CSV/TSV (or stdin) and Parquet files only")
    return requested


def delimiter_of(text: str | None, path: str | None) -> str:
    """The CSV delimiter: ``--delimiter`` (one character; ``\\t`` or ``tab`` for a tab), else a
    tab for ``.tsv`` and a comma otherwise.

    Examples
    --------
    >>> delimiter_of(";", "x.csv"), delimiter_of(None, "x.tsv"), delimiter_of("tab", None)
    (';', '\\t', '\\t')
    """
    if text is None:
        return "\t" if _ext(path) == ".tsv" else ","
    d = {"\\t": "\t", "tab": "\t"}.get(text, text)
    if len(d) != 1 or d in "\r\n\"":
        raise CLIError(f"--delimiter must be one character (not a quote or line break), "
                       f"got {text!r}")
    return d


def _stdin() -> Any:
    """Stdin as text for the csv module: UTF-8 (a byte order mark is dropped with the
    header), line breaks left to the csv module (so CR-only lines read)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream put in place of stdin (tests, notebooks)
        return sys.stdin
    return io.TextIOWrapper(buffer, encoding="utf-8", newline="")


def open_source(path: str | None, delimiter: str | None = None,
                arrow: bool = True) -> Source:
    """Open FILE: CSV/TSV (by extension; '-' is CSV on stdin), Parquet, NPY or NPZ; None is
    the sample shipped with fastmetrics. CSV is read by pyarrow when it is installed and
    ``arrow`` (see :class:`Reread`). CLIError for a file that cannot be read.

    Examples
    --------
    >>> with open_source(None) as src:
    ...     src.name, src.names[:3]
    ('sample.csv (shipped with fastmetrics)', ['y_true', 'y_pred', 'p_account'])
    """
    if path is None:
        text = resources.files("fastmetrics").joinpath(SAMPLE).read_text()
        return CsvSource(io.StringIO(text), SAMPLE_NAME)
    name = "<stdin>" if path == "-" else path
    delim = delimiter_of(delimiter, path)
    try:
        if path == "-":
            return CsvSource(_stdin(), name, delim, owned=False)
        if not os.path.exists(path):
            raise CLIError(f"no such file: {path}")
        if os.path.isdir(path):
            raise CLIError(f"{path} is a directory, not a predictions file")
        ext = _ext(path)
        compression = _compression(path)
        if compression is not None and ext not in CSV_EXTS:
            raise CLIError(f"cannot read {path}: only CSV/TSV files are read compressed "
                           "(.csv.gz, .csv.bz2, .csv.zst)")
        if ext in PARQUET_EXTS:
            return ParquetSource(path)
        if ext == ".npy":
            return NpySource(path)
        if ext == ".npz":
            return NpzSource(path)
        if ext not in CSV_EXTS:
            raise CLIError(
                f"cannot tell the format of {path} from its extension {ext!r}: use .csv, "
                ".tsv (or compressed: .csv.gz, .csv.bz2, .csv.zst), .parquet, .npy or .npz"
            )
        size = os.path.getsize(path)
        if arrow and have_pyarrow():
            try:
                return ArrowCsvSource(path, delim, size)
            except Reread:
                pass
        f, raw = _open_text(path, compression)
        try:
            return CsvSource(f, path, delim, size, raw=raw, compression=compression)
        except BaseException:
            f.close()
            if raw is not None:
                raw.close()
            raise
    except UnicodeDecodeError:
        raise CLIError(f"{name} is not a UTF-8 text (CSV) file") from None
