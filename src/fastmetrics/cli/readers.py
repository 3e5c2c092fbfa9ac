"""Predictions files -> batches of columns: CSV / TSV / stdin, Parquet, NPY and NPZ.

A :class:`Source` is an opened file: its display name, its column names and
:meth:`Source.batches`, which yields the needed columns ``batch_rows`` rows at a time (CSV and
Parquet) or the whole file as one batch (``batch_rows=None``, and always for NPY and NPZ,
which numpy reads whole). CSV columns come as object arrays of ``str``; nothing here decides
what a value means (:mod:`fastmetrics.cli.columns` does).
"""

from __future__ import annotations

import csv
import io
import os
import sys
from dataclasses import dataclass
from importlib import resources
from itertools import islice
from operator import itemgetter
from typing import Any, Iterator

import numpy as np

from .errors import CLIError, first_line

__all__ = [
    "DEFAULT_BATCH_ROWS",
    "SAMPLE_NAME",
    "STREAM_BYTES",
    "Batch",
    "Source",
    "batch_rows",
    "open_source",
]

SAMPLE = "data/sample.csv"
SAMPLE_NAME = "sample.csv (shipped with fastmetrics)"
#: Files larger than this are read in batches even without --batch-rows.
STREAM_BYTES = 256 << 20
DEFAULT_BATCH_ROWS = 1_000_000
CSV_EXTS = (".csv", ".tsv", ".txt", "")
PARQUET_EXTS = (".parquet", ".pq")


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
            raise CLIError(f"unknown {what} column {key!r} in {self.name}; columns are: {shown}")
        return key

    def batches(self, need: list[str], batch_rows: int | None) -> Iterator[Batch]:
        """The columns ``need`` (names from :meth:`column`), ``batch_rows`` rows at a time
        (None: the whole file as one batch)."""
        raise NotImplementedError


# --------------------------------------------------------------------------- CSV / TSV


class CsvSource(Source):
    """A CSV/TSV text: Python's csv module, one row list per line, checked as it comes."""

    def __init__(self, f: Any, name: str, delimiter: str = ",", size: int = 0,
                 owned: bool = True) -> None:
        self.f, self.name, self.size, self.owned = f, name, size, owned
        self.reader = csv.reader(f, delimiter=delimiter)
        self.header_rows = 0  # reader rows up to the header (blank lines before it count)
        header: list[str] | None = []
        while header == []:  # blank lines before anything else: empty if nothing follows
            header = next(self.reader, None)
            self.header_rows += 1
        if header is None:
            raise CLIError(f"{name} is empty")
        if len(set(header)) != len(header):
            dup = next(h for h in header if header.count(h) > 1)
            raise CLIError(f"{name} has two columns named {dup!r}")
        self.names = header

    def close(self) -> None:
        if self.owned:
            self.f.close()

    def position(self) -> int:
        # the binary buffer under the text reader: its position moves a block at a time,
        # which is what a progress bar needs, at no cost per line
        buffer = getattr(self.f, "buffer", None)
        return buffer.tell() if self.size and buffer is not None else 0

    def batches(self, need: list[str], batch_rows: int | None) -> Iterator[Batch]:
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


def _object_array(values: list) -> np.ndarray:
    a = np.empty(len(values), dtype=object)
    a[:] = values
    return a


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
        self.done = 0

    def close(self) -> None:
        self.pf.close()

    def position(self) -> int:
        return self.done

    def batches(self, need: list[str], batch_rows: int | None) -> Iterator[Batch]:
        try:
            if batch_rows is None:
                parts: Any = [self.pf.read(columns=need)]
            else:
                parts = self.pf.iter_batches(batch_size=batch_rows, columns=need)
            for part in parts:
                cols = {c: np.asarray(part.column(c).to_numpy(zero_copy_only=False))
                        for c in need}
                yield Batch(cols, self.done)
                self.done += part.num_rows
        except (OSError, ValueError, NotImplementedError) as exc:  # pyarrow's errors
            raise CLIError(f"cannot read {self.name} as Parquet: {first_line(exc)}") from None


# --------------------------------------------------------------------------- NPY / NPZ


class NpySource(Source):
    """A ``.npy`` file: a structured array (columns by field name) or a 2-D array (columns
    by index). numpy reads it whole: one batch."""

    def __init__(self, path: str) -> None:
        try:
            a = np.load(path, allow_pickle=False)
        except (ValueError, EOFError) as exc:
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

    def batches(self, need: list[str], batch_rows: int | None) -> Iterator[Batch]:
        a = self.array
        yield Batch({c: a[:, int(c)] if self.positional else a[c] for c in need}, 0)


class NpzSource(Source):
    """A ``.npz`` file: arrays by name (only the needed ones are read). One batch."""

    def __init__(self, path: str) -> None:
        try:
            self.z = np.load(path, allow_pickle=False)
            self.names = list(self.z.files)
        except (ValueError, OSError, EOFError) as exc:
            raise CLIError(f"cannot read {path} as NPZ: {first_line(exc)}") from None
        self.name = path

    def close(self) -> None:
        self.z.close()

    def batches(self, need: list[str], batch_rows: int | None) -> Iterator[Batch]:
        try:
            cols = {c: self.z[c] for c in need}
        except (ValueError, OSError, EOFError) as exc:
            raise CLIError(f"cannot read {self.name} as NPZ: {first_line(exc)}") from None
        yield Batch(cols, 0)


# --------------------------------------------------------------------------- opening


def _ext(path: str | None) -> str:
    return "" if path in (None, "-") else os.path.splitext(path)[1].lower()


def batch_rows(path: str | None, requested: int | None) -> int | None:
    """Rows per batch for FILE: ``requested`` (``--batch-rows``), else 10^6 for a CSV or
    Parquet file over 256 MiB, else None (the file is one batch).

    Examples
    --------
    >>> batch_rows("preds.csv", 5000), batch_rows(None, None)
    (5000, None)
    """
    ext = _ext(path)
    batched = path in (None, "-") or ext in CSV_EXTS + PARQUET_EXTS
    if requested is not None:
        if not batched:
            raise CLIError("--batch-rows streams CSV/TSV (or stdin) and Parquet files only")
        return requested
    if (batched and path not in (None, "-") and os.path.isfile(path)
            and os.path.getsize(path) > STREAM_BYTES):
        return DEFAULT_BATCH_ROWS
    return None


def open_source(path: str | None) -> Source:
    """Open FILE: CSV/TSV (by extension; '-' is CSV on stdin), Parquet, NPY or NPZ; None is
    the sample shipped with fastmetrics. CLIError for a file that cannot be read.

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
    try:
        if path == "-":
            return CsvSource(sys.stdin, name, owned=False)
        if not os.path.exists(path):
            raise CLIError(f"no such file: {path}")
        if os.path.isdir(path):
            raise CLIError(f"{path} is a directory, not a predictions file")
        ext = _ext(path)
        if ext in PARQUET_EXTS:
            return ParquetSource(path)
        if ext == ".npy":
            return NpySource(path)
        if ext == ".npz":
            return NpzSource(path)
        if ext not in CSV_EXTS:
            raise CLIError(
                f"cannot tell the format of {path} from its extension {ext!r}: use .csv, "
                ".tsv, .parquet, .npy or .npz"
            )
        try:
            f = open(path, newline="", encoding="utf-8-sig")
        except OSError as exc:
            raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            return CsvSource(f, path, "\t" if ext == ".tsv" else ",", os.path.getsize(path))
        except BaseException:
            f.close()
            raise
    except UnicodeDecodeError:
        raise CLIError(f"{name} is not a UTF-8 text (CSV) file") from None

