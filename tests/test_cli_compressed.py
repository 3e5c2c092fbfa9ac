"""The command line on compressed CSV/TSV (``.csv.gz``, ``.csv.bz2``, ``.csv.zst``,
``.tsv.gz``): the same report as the uncompressed file, read by pyarrow or the csv module,
whole or in batches; a damaged file or a missing reader as one error line; and the hint for a
header separated by another delimiter than the one used."""

from __future__ import annotations

import bz2
import gzip
import json
import sys

import numpy as np
import pytest
import sklearn.metrics as skm

from fastmetrics.cli import readers
from fastmetrics.cli.columns import Coded, LabelCoder

from test_cli_inputs import HAVE_ARROW, needs_arrow, one_error, run_main


def _compress(src, dst):
    data = src.read_bytes()
    if dst.name.endswith(".gz"):
        dst.write_bytes(gzip.compress(data))
    elif dst.name.endswith(".bz2"):
        dst.write_bytes(bz2.compress(data))
    else:  # the zstandard module may not be installed: pyarrow's codec
        import pyarrow as pa

        with pa.CompressedOutputStream(str(dst), "zstd") as f:
            f.write(data)


@pytest.fixture
def files(tmp_path):
    """Plain files (string and integer labels, p_* probabilities) and their labels."""
    rng = np.random.default_rng(11)
    n = 500
    yt = rng.integers(0, 3, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, 3, n))
    prob = np.round(rng.dirichlet(np.ones(3), n), 4)
    prob[:, 2] = np.round(1 - prob[:, 0] - prob[:, 1], 4)
    labels = {"ints": [str(k) for k in range(3)], "text": ["cat", "dog", "emu"]}
    for name, sep, ext in (("ints", ",", ".csv"), ("text", ",", ".csv"),
                           ("text", "\t", ".tsv")):
        lab = labels[name]
        head = sep.join(["y_true", "y_pred", *(f"p_{c}" for c in lab)]) + "\n"
        rows = "".join(sep.join([lab[a], lab[b], *map(str, p)]) + "\n"
                       for a, b, p in zip(yt, yp, prob))
        (tmp_path / f"{'tabs' if sep == chr(9) else name}{ext}").write_text(head + rows)
    return tmp_path, yt, yp


def _report(path, cwd, *extra):
    rc, out, err = run_main(["report", path, "--format", "json", *extra], cwd)
    assert rc == 0, err
    got = json.loads(out)
    return {k: v for k, v in got.items() if v != path}  # the file's name aside


def _same(got, want, approx_calibration=False):
    assert got.keys() == want.keys()
    for k, v in want.items():
        if approx_calibration and k.startswith("calibration.") and isinstance(v, float):
            assert got[k] == pytest.approx(v, rel=1e-12), k
        else:
            assert got[k] == v, k


CASES = [("ints.csv", ".gz"), ("ints.csv", ".bz2"), ("text.csv", ".gz"),
         ("text.csv", ".bz2"), ("tabs.tsv", ".gz"), ("tabs.tsv", ".bz2")]
if HAVE_ARROW:
    CASES += [("ints.csv", ".zst"), ("text.csv", ".zst"), ("tabs.tsv", ".zst")]


@pytest.mark.parametrize("plain,suffix", CASES)
@pytest.mark.parametrize("reader", ["default", "csv module"])
def test_compressed_report_equals_plain(files, plain, suffix, reader, monkeypatch):
    """The same numbers as the uncompressed file (accuracy and F1 as scikit-learn's), whole
    and in batches of 7 rows, read by pyarrow or by the csv module (.zst through pyarrow's
    decompressing stream)."""
    d, yt, yp = files
    _compress(d / plain, d / (plain + suffix))
    want = _report(plain, d)
    assert "calibration.ece" in want
    assert want["accuracy"] == skm.accuracy_score(yt, yp)
    assert want["macro_f1"] == pytest.approx(skm.f1_score(yt, yp, average="macro"),
                                             rel=1e-12)
    if reader == "csv module":  # (.zst: it reads pyarrow's decompressing stream)
        monkeypatch.setattr(readers, "have_pyarrow", lambda: False)
    _same(_report(plain + suffix, d), want)
    _same(_report(plain + suffix, d, "--batch-rows", "7"), want, approx_calibration=True)


@needs_arrow
def test_compressed_csv_is_read_by_pyarrow_and_streamed(files, monkeypatch):
    """A .csv.gz reaches the label coder dictionary-encoded (pyarrow read it), and it is
    streamed (its rows are unknown from its first bytes): DEFAULT_BATCH_ROWS per batch."""
    d, _, _ = files
    _compress(d / "text.csv", d / "text.csv.gz")
    seen = []
    real = LabelCoder.encode

    def spy(self, y_true, y_pred, row0=0):
        seen.append((type(y_true), len(y_true.indices), row0))
        return real(self, y_true, y_pred, row0)

    monkeypatch.setattr(LabelCoder, "encode", spy)
    monkeypatch.setattr(readers, "DEFAULT_BATCH_ROWS", 200)
    _report("text.csv.gz", d)
    assert seen == [(Coded, 200, 0), (Coded, 200, 200), (Coded, 100, 400)]
    with readers.open_source(str(d / "text.csv.gz")) as src:
        assert isinstance(src, readers.ArrowCsvSource)
        assert src.plan(None, ["y_true"], ("y_true",)) == 200
        assert src.plan(50, ["y_true"], ("y_true",)) == 50
        assert src.estimate(["y_true"], ("y_true",)) == 0
        for _ in src.batches(["y_true"], 100, ("y_true",)):
            assert 0 <= src.position() <= src.size
        assert src.position() == src.size


def test_compressed_csv_module_is_streamed_and_shows_progress(files):
    d, _, _ = files
    _compress(d / "text.csv", d / "text.csv.bz2")
    with readers.open_source(str(d / "text.csv.bz2"), arrow=False) as src:
        assert isinstance(src, readers.CsvSource)
        assert src.plan(None, ["y_true"], ("y_true",)) == readers.DEFAULT_BATCH_ROWS
        assert src.estimate(["y_true"], ("y_true",)) == 0
        for _ in src.batches(["y_true"], 100):
            assert 0 <= src.position() <= src.size
        assert src.position() == src.size


def test_extensions():
    assert readers._ext("a.b/x.csv.gz") == ".csv"
    assert readers._ext("x.TSV.BZ2") == ".tsv"
    assert readers.delimiter_of(None, "x.tsv.zst") == "\t"
    assert readers.delimiter_of(None, "x.csv.gz") == ","
    assert readers.batch_rows("x.csv.gz", 7) == 7
    assert readers._rows_in("x.csv.gz", 10) == 0


def test_zst_without_pyarrow_is_one_line(files, monkeypatch):
    d, _, _ = files
    (d / "x.csv.zst").write_bytes(b"\x28\xb5\x2f\xfd")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # blocked: not importable
    assert not readers.have_pyarrow()
    one_error(*run_main(["report", "x.csv.zst"], d),
              'needs pyarrow, which is not installed: pip install "fastmetrics-kernels[cli]"')


@pytest.mark.parametrize("suffix", [".gz", ".bz2"] + ([".zst"] if HAVE_ARROW else []))
@pytest.mark.parametrize("arrow", [True, False])
def test_damaged_compressed_file_is_one_line(files, suffix, arrow, monkeypatch):
    """A truncated file (the header still reads: the damage is found in the data) and one
    that is not compressed at all: one error line, status 2, by either reader."""
    d, _, _ = files
    _compress(d / "text.csv", d / ("full.csv" + suffix))
    data = (d / ("full.csv" + suffix)).read_bytes()
    (d / ("cut.csv" + suffix)).write_bytes(data[:len(data) * 2 // 3])
    (d / ("junk.csv" + suffix)).write_bytes(b"y_true,y_pred\ncat,dog\n" * 3)
    if not arrow:
        monkeypatch.setattr(readers, "have_pyarrow", lambda: False)
    for name in ("cut.csv", "junk.csv"):
        for extra in ([], ["--batch-rows", "7"]):
            one_error(*run_main(["report", name + suffix, *extra], d),
                      f"cannot read {name}{suffix} as ")


def test_compressed_non_csv_and_unknown_extension(files):
    d, _, _ = files
    (d / "x.parquet.gz").write_bytes(gzip.compress(b"PAR1"))
    one_error(*run_main(["report", "x.parquet.gz"], d), "only CSV/TSV files are read compressed")
    (d / "x.xlsx").write_bytes(b"PK")
    one_error(*run_main(["report", "x.xlsx"], d), ".csv.gz, .csv.bz2, .csv.zst")


@pytest.mark.parametrize("sep,flag", [(";", "';'"), ("|", "'|'"), ("\t", "tab")])
@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_delimiter_hint(tmp_path, sep, flag, suffix, monkeypatch):
    """A header of one column holding ';', '|' or a tab: the unknown-column error says which
    delimiter to pass, and passing it reads the file."""
    plain = tmp_path / "f.csv"
    plain.write_text(f"y_true{sep}y_pred\n" + f"a{sep}b\nb{sep}b\na{sep}a\n")
    if suffix:
        _compress(plain, tmp_path / ("f.csv" + suffix))
    name = "f.csv" + suffix
    for arrow in (True, False):
        if not arrow:
            monkeypatch.setattr(readers, "have_pyarrow", lambda: False)
        one_error(*run_main(["report", name], tmp_path),
                  f"unknown --true column 'y_true' in {name}; columns are: y_true{sep}y_pred; "
                  f"the header looks {flag}-separated: pass --delimiter {flag}")
        rc, out, err = run_main(["report", name, "--delimiter", flag.strip("'"),
                                 "--format", "json"], tmp_path)
        assert rc == 0, err
        assert json.loads(out)["accuracy"] == 2 / 3
    # no hint for a one-column header without such a character
    (tmp_path / "g.csv").write_text("label\na\n")
    rc, out, err = run_main(["report", "g.csv"], tmp_path)
    assert rc == 2 and "the header looks" not in err


@pytest.mark.parametrize("suffix", ["", ".bz2"])
def test_comma_header_in_a_tsv_gets_the_hint(tmp_path, suffix):
    plain = tmp_path / "f.tsv"
    plain.write_text("y_true,y_pred\na,b\nb,b\n")
    if suffix:
        _compress(plain, tmp_path / ("f.tsv" + suffix))
    one_error(*run_main(["report", "f.tsv" + suffix], tmp_path),
              "the header looks ','-separated: pass --delimiter ','")
    rc, out, err = run_main(["report", "f.tsv" + suffix, "--delimiter", ",", "--format",
                             "json"], tmp_path)
    assert rc == 0 and json.loads(out)["accuracy"] == 0.5, err


def test_streamed_report_draws_the_finished_bar_once(files):
    """A compressed file is streamed: its bar reaches 100% with the last batch (the whole
    compressed file read), and the end of the report does not draw it again."""
    d, _, _ = files
    _compress(d / "text.csv", d / "text.csv.gz")
    for extra in ([], ["--batch-rows", "100"]):
        rc, _, err = run_main(["report", "text.csv.gz", *extra], d)
        assert rc == 0 and err.count("100%") == 1, err
