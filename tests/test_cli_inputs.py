"""The command line on real-world files: CSV read by pyarrow (and the same report without it),
numeric text as numbers, malformed inputs as one ``fastmetrics: error:`` line with status 2,
stdin quirks (byte order mark, CR-only lines, binary garbage), streaming decided from the
estimated memory, and the smaller command-line fixes (``--version``, ``--delimiter``, ``p_*``
columns by default, JSON ``null``, the progress bar's rate and time left)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics.cli import main, readers
from fastmetrics.cli.columns import Coded, LabelCoder, number_value

PKG_PARENT = str(Path(fm.__file__).resolve().parents[1])
HAVE_ARROW = readers.have_pyarrow()
needs_arrow = pytest.mark.skipif(not HAVE_ARROW, reason="pyarrow is the CSV reader under test")


def run_main(args, cwd, stdin: bytes | None = None):
    """``(status, stdout, stderr)`` of ``main(args)`` run in ``cwd``; ``stdin``: bytes
    behind a real text stdin (with ``.buffer``, as a process has)."""
    out, err = io.StringIO(), io.StringIO()
    old_cwd, old_stdin = os.getcwd(), sys.stdin
    os.chdir(cwd)
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main([str(a) for a in args])
            except SystemExit as exc:
                rc = exc.code
    finally:
        os.chdir(old_cwd)
        sys.stdin = old_stdin
    return rc, out.getvalue(), err.getvalue()


def one_error(rc, out, err, message):
    """One ``fastmetrics: error:`` line (after any progress lines), status 2, no output."""
    assert rc == 2, err
    assert out == ""
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("fastmetrics: error: ") and message in last, err
    assert [ln for ln in err.splitlines() if not ln.lstrip("\r").startswith("[")] == [last]


# --------------------------------------------------------------------------- pyarrow CSV


@needs_arrow
def test_csv_is_read_by_pyarrow_with_labels_as_codes(tmp_path, monkeypatch):
    """Label columns reach the label coder dictionary-encoded (integer indices and the K
    texts), not as a Python string per row; the numbers are scikit-learn's."""
    rng = np.random.default_rng(0)
    names = np.array(["cat", "dog", "emu"])
    yt, yp = names[rng.integers(0, 3, 2000)], names[rng.integers(0, 3, 2000)]
    (tmp_path / "a.csv").write_text(
        "y_true,y_pred\n" + "".join(f"{a},{b}\n" for a, b in zip(yt, yp)))
    seen = []
    real = LabelCoder.encode

    def spy(self, y_true, y_pred, row0=0):
        seen.append((type(y_true), type(y_pred)))
        return real(self, y_true, y_pred, row0)

    monkeypatch.setattr(LabelCoder, "encode", spy)
    rc, out, err = run_main(["report", "a.csv", "--format", "json"], tmp_path)
    assert rc == 0, err
    assert seen == [(Coded, Coded)]
    got = json.loads(out)
    assert got["labels"] == ["cat", "dog", "emu"]
    assert got["accuracy"] == skm.accuracy_score(yt, yp)
    assert got["macro_f1"] == pytest.approx(skm.f1_score(yt, yp, average="macro"), rel=1e-12)


def _files(d):
    """Files whose report must not depend on the CSV reader."""
    rng = np.random.default_rng(5)
    n = 3000
    yt = rng.integers(0, 4, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, 4, n))
    prob = np.round(rng.dirichlet(np.ones(4), n), 4)
    head = "y_true,y_pred," + ",".join(f"p_{k}" for k in range(4)) + "\n"
    rows = ["{},{},{}\n".format(a, b, ",".join(map(str, p))) for a, b, p in zip(yt, yp, prob)]
    (d / "ints.csv").write_text(head + "".join(rows))
    # numeric text written two ways: "1.0" and "1" are one label
    (d / "floats.csv").write_text(head + "".join(
        r.replace(f"{a},", f"{a}.0,", 1) if i % 3 == 0 else r
        for i, (r, a) in enumerate(zip(rows, yt))))
    names = np.array(["refund", "oos", "billing", "tech_support"])
    (d / "text.csv").write_text("y_true;y_pred\n" + "".join(
        f"{names[a]};{names[b]}\n" for a, b in zip(yt, yp)))
    # blank lines at the end and an empty label: pyarrow hands these to the csv module
    (d / "trailing.csv").write_text(head + "".join(rows) + "\n\n")
    (d / "empty_label.csv").write_text(head + "".join(rows[:50]) + ",1,0.25,0.25,0.25,0.25\n")
    (d / "ragged.csv").write_text(head + "".join(rows[:50]) + "1,1\n")
    return {
        "ints.csv": ["--oos-label", "0"],
        "floats.csv": [],
        "text.csv": ["--delimiter", ";", "--oos-label", "oos"],
        "trailing.csv": ["--batch-rows", "700"],
        "empty_label.csv": [],
        "ragged.csv": ["--batch-rows", "20"],
    }


def test_the_report_does_not_depend_on_pyarrow(tmp_path):
    """The same bytes on stdout and stderr with pyarrow blocked (sys.modules['pyarrow'] =
    None in a fresh interpreter) as with it, for good and malformed files."""
    files = _files(tmp_path)
    script = (
        "import sys, json\n"
        "for m in ('pyarrow', 'pyarrow.csv', 'pyarrow.parquet'):\n"
        "    sys.modules[m] = None\n"
        "import contextlib, io\n"
        "from fastmetrics.cli import main, readers\n"
        "assert not readers.have_pyarrow()\n"
        "res = {}\n"
        "for name, extra in json.loads(sys.argv[1]).items():\n"
        "    out, err = io.StringIO(), io.StringIO()\n"
        "    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "        rc = main(['report', name, '--format', 'json', *extra])\n"
        "    res[name] = [rc, out.getvalue(), err.getvalue()]\n"
        "print(json.dumps(res))\n"
    )
    env = dict(os.environ, PYTHONPATH=PKG_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", script, json.dumps(files)], capture_output=True,
                       text=True, env=env, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    without = json.loads(p.stdout)
    strip = (lambda e: "\n".join(ln for ln in e.splitlines()
                                 if not ln.lstrip("\r").startswith("[")))
    for name, extra in files.items():
        rc, out, err = run_main(["report", name, "--format", "json", *extra], tmp_path)
        assert [rc, out, strip(err)] == [without[name][0], without[name][1],
                                         strip(without[name][2])], name
    assert without["ints.csv"][0] == 0 and without["ragged.csv"][0] == 2
    assert "empty value (data row 51)" in without["empty_label.csv"][2]


@needs_arrow
def test_csv_of_many_blocks_read_whole_and_in_batches(tmp_path, monkeypatch):
    """A CSV of several pyarrow blocks (1 MiB each): read whole (chunked columns), in
    batches (slices of a block: offsets into its buffers) and by the csv module, the same
    report, and the calibration is ``calibration_summary``'s on the file's numbers. Read
    whole, the probability columns reach the calibration as one block, not copied again."""
    from fastmetrics.cli import toplabel

    rng = np.random.default_rng(3)
    n, names = 60_000, np.array(["refund", "oos", "billing", "tech_support"])
    yt = rng.integers(0, 4, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, 4, n))
    prob = np.round(rng.dirichlet(np.ones(4), n), 4)
    with open(tmp_path / "big.csv", "w") as f:
        f.write("y_true,y_pred," + ",".join(f"p_{c}" for c in names) + "\n")
        f.writelines("{},{},{}\n".format(names[a], names[b], ",".join(map(str, p)))
                     for a, b, p in zip(yt, yp, prob))
    assert (tmp_path / "big.csv").stat().st_size > 2 << 20
    fed = []
    real = toplabel.TopLabel._feed

    def spy(self, matrix, truth, row0, lookups, pred=None):
        fed.append(matrix)
        return real(self, matrix, truth, row0, lookups, pred)

    monkeypatch.setattr(toplabel.TopLabel, "_feed", spy)
    whole = run_main(["report", "big.csv", "--format", "json"], tmp_path)
    assert whole[0] == 0, whole[2]
    (matrix,) = fed
    assert matrix.shape == (n, 4) and matrix.base is not None
    assert not matrix.flags.c_contiguous  # the reader's (K, n) block, read in place
    got = json.loads(whole[1])
    with pytest.warns(UserWarning, match="do not sum to one"):
        s = fm.calibration_summary(names[yt], prob, labels=names)
    for k in ("ece", "mce", "brier"):
        assert got[f"calibration.{k}"] == getattr(s, k), k
    assert got["accuracy"] == skm.accuracy_score(yt, yp)
    batched = run_main(["report", "big.csv", "--format", "json", "--batch-rows", "7001"],
                       tmp_path)
    monkeypatch.setattr(readers, "have_pyarrow", lambda: False)
    csv_module = run_main(["report", "big.csv", "--format", "json"], tmp_path)
    assert csv_module[:2] == whole[:2]
    b = json.loads(batched[1])
    for k, v in got.items():
        if k.startswith("calibration.") and isinstance(v, float):
            assert b[k] == pytest.approx(v, rel=1e-12), k
        else:
            assert b[k] == v, k


@needs_arrow
def test_numbers_reads_arrow_buffers():
    """pyarrow columns as numpy without pyarrow's to_numpy (which imports pandas): chunks,
    slices (an offset into the buffer), empty chunks, every integer and float width."""
    import pyarrow as pa

    for t in (pa.int8(), pa.uint16(), pa.int32(), pa.int64(), pa.float32(), pa.float64()):
        col = pa.chunked_array([pa.array([1, 2, 3], t), pa.array([], t),
                                pa.array([4, 5, 6, 7], t).slice(1, 2)])
        want = np.array([1, 2, 3, 5, 6], dtype=readers.numpy_dtype(t))
        for c in (col, col.slice(2), pa.chunked_array([col.chunks[2]])):
            got = readers.numbers(c, want.dtype)
            np.testing.assert_array_equal(got, want[-len(c):])
            assert got.dtype == want.dtype
        out = np.zeros(5, want.dtype)
        assert readers.numbers(col, want.dtype, out) is out
        np.testing.assert_array_equal(out, want)
    assert readers.numpy_dtype(pa.bool_()) is None  # bits, not one value per element


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_report_imports_no_pandas(tmp_path, fmt):
    """Reading CSV and Parquet through pyarrow does not import pandas (pyarrow's to_numpy
    does: a quarter of a second, as long as reading the file)."""
    pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(4)
    yt, yp = rng.integers(0, 3, 500), rng.integers(0, 3, 500)
    prob = rng.dirichlet(np.ones(3), 500)
    if fmt == "csv":
        (tmp_path / "f.csv").write_text("y_true,y_pred,p_0,p_1,p_2\n" + "".join(
            f"{a},{b},{p[0]},{p[1]},{p[2]}\n" for a, b, p in zip(yt, yp, prob)))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"y_true": yt, "y_pred": yp.astype(np.int32),
                                 **{f"p_{k}": prob[:, k] for k in range(3)}}),
                       tmp_path / "f.parquet", row_group_size=100)
    code = ("import sys\n"
            "from fastmetrics.cli import main\n"
            f"assert main(['report', 'f.{fmt}', '--format', 'markdown']) == 0\n"
            "print(sorted(m for m in ('pandas', 'scipy', 'sklearn') if m in sys.modules))\n")
    env = dict(os.environ, PYTHONPATH=PKG_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]"


def test_numeric_text_is_a_number(tmp_path):
    """The issue's file: "1.0" and "1" are one label, as pandas + scikit-learn read it."""
    (tmp_path / "f.csv").write_text("label,pred\n1.0,1\n2.0,2\n0.0,0\n1.0,2\n")
    rc, out, err = run_main(["report", "f.csv", "--true", "label", "--pred", "pred",
                             "--format", "json"], tmp_path)
    assert rc == 0, err
    got = json.loads(out)
    assert got["labels"] == [0, 1, 2]
    yt, yp = np.array([1.0, 2.0, 0.0, 1.0]), np.array([1, 2, 0, 2])
    assert got["accuracy"] == skm.accuracy_score(yt, yp) == 0.75
    # numbers that are not integers: refused, as a float column is (and by scikit-learn)
    (tmp_path / "g.csv").write_text("y_true,y_pred\n0.5,0.50\n1,1.0\n1e0,0.5\n")
    one_error(*run_main(["report", "g.csv"], tmp_path),
              "the labels are numbers and '0.5' is not an integer")
    with pytest.raises(ValueError, match="continuous"):
        skm.accuracy_score([0.5, 1.0, 1.0], [0.5, 1.0, 0.5])


def test_number_value():
    assert [number_value(v) for v in ["1", "1.0", " 07 ", "+2.50", "1e3", ".5", "-0.0"]] == \
        [1, 1, 7, 2.5, 1000, 0.5, 0]
    assert all(number_value(v) is None for v in
               ["nan", "inf", "1_000", "0x10", "", "1.0.0", "9" * 20, "1e999"])


# --------------------------------------------------------------------------- malformed input


BIG = "x" * 131_073


@pytest.mark.parametrize("where", ["label", "probability"])
@pytest.mark.parametrize("how", ["in memory", "--batch-rows", "stdin"])
def test_field_over_the_csv_limit(tmp_path, where, how):
    label, prob = (BIG, "0.5") if where == "label" else ("1", BIG)
    text = f"y_true,y_pred,p_1\n1,1,0.5\n{label},1,{prob}\n"
    (tmp_path / "big.csv").write_text(text)
    extra = ["--prob", "p_1"]
    if how == "stdin":
        res = run_main(["report", "-", *extra], tmp_path, stdin=text.encode())
        name = "<stdin>"
    else:
        res = run_main(["report", "big.csv", *extra,
                        *(["--batch-rows", "1"] if how == "--batch-rows" else [])], tmp_path)
        name = "big.csv"
    one_error(*res, f"{name}: line 3: a field is longer than 131,072 characters")


def test_stdin_cr_only_lines_and_byte_order_mark(tmp_path):
    plain = run_main(["report", "-", "--format", "json"], tmp_path,
                     stdin=b"y_true,y_pred\n1,1\n0,1\n2,2\n")
    assert plain[0] == 0, plain[2]
    for data in (b"y_true,y_pred\r1,1\r0,1\r2,2\r", b"\xef\xbb\xbfy_true,y_pred\n1,1\n0,1\n2,2\n",
                 b"y_true,y_pred\r\n1,1\r\n0,1\r\n2,2\r\n"):
        assert run_main(["report", "-", "--format", "json"], tmp_path, stdin=data) == plain
    # files too (pyarrow, and the csv module when the file is read again)
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbfy_true,y_pred\n1,1\n0,1\n2,2\n")
    (tmp_path / "cr.csv").write_bytes(b"y_true,y_pred\r1,1\r0,1\r2,2\r")
    (tmp_path / "cr_blank.csv").write_bytes(b"y_true,y_pred\r1,1\r0,1\r2,2\r\r")
    for name in ("bom.csv", "cr.csv", "cr_blank.csv"):
        assert run_main(["report", name, "--format", "json"], tmp_path) == plain, name


def test_binary_garbage_on_stdin(tmp_path):
    garbage = np.random.default_rng(1).integers(0, 256, 4000, dtype=np.uint8).tobytes()
    one_error(*run_main(["report", "-"], tmp_path, stdin=garbage),
              "<stdin> is not a UTF-8 text (CSV) file")
    # valid UTF-8 that is no CSV: an unclosed quote runs into the field limit
    one_error(*run_main(["report", "-"], tmp_path,
                        stdin=b'y_true,y_pred\n"1,1\n' + b"x" * 140_000 + b"\n"),
              "<stdin>: line 3: a field is longer than 131,072 characters")


def test_truncated_npz_and_random_npy(tmp_path):
    np.savez(tmp_path / "t.npz", y_true=np.arange(1000), y_pred=np.arange(1000))
    data = (tmp_path / "t.npz").read_bytes()
    (tmp_path / "t.npz").write_bytes(data[: len(data) // 2])
    one_error(*run_main(["report", "t.npz"], tmp_path), "cannot read t.npz as NPZ")
    # a damaged member (the zip directory intact): the error comes when the array is read
    np.savez(tmp_path / "c.npz", y_true=np.arange(1000), y_pred=np.arange(1000))
    raw = bytearray((tmp_path / "c.npz").read_bytes())
    raw[200:260] = bytes(60)
    (tmp_path / "c.npz").write_bytes(bytes(raw))
    one_error(*run_main(["report", "c.npz"], tmp_path), "cannot read c.npz as NPZ")
    (tmp_path / "r.npy").write_bytes(np.random.default_rng(2).bytes(500))
    rc, out, err = run_main(["report", "r.npy"], tmp_path)
    one_error(rc, out, err, "cannot read r.npy as NPY: it does not start with the NPY header")
    assert "allow_pickle" not in err


@needs_arrow
def test_parquet_label_column_of_lists_or_structs(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name, col in (("l", [[1], [2]]), ("s", [{"a": 1}, {"a": 2}])):
        pq.write_table(pa.table({"y_true": col, "y_pred": [1, 2]}), tmp_path / f"{name}.parquet")
        for extra in ([], ["--batch-rows", "1"]):
            one_error(*run_main(["report", f"{name}.parquet", *extra], tmp_path),
                      f"the label column 'y_true' of {name}.parquet holds")


def test_error_rows_are_data_rows_from_1_when_streaming(tmp_path):
    n = 5000
    rows = [f"{i % 3},{i % 2},0.5\n" for i in range(n)]
    rows[4321] = "1,,0.5\n"
    (tmp_path / "e.csv").write_text("y_true,y_pred,p_1\n" + "".join(rows))
    for extra in ([], ["--batch-rows", "1000"], ["--batch-rows", "7"]):
        one_error(*run_main(["report", "e.csv", *extra], tmp_path),
                  "the --pred column has an empty value (data row 4322)")
    rows[4321] = "1,1,n/a\n"
    (tmp_path / "p.csv").write_text("y_true,y_pred,p_1\n" + "".join(rows))
    for extra in ([], ["--batch-rows", "1000"]):
        one_error(*run_main(["report", "p.csv", "--prob", "p_1", *extra], tmp_path),
                  "probability column 'p_1' is not numeric: 'n/a' at data row 4322")


@needs_arrow
def test_parquet_dictionary_columns(tmp_path):
    """Categorical columns (pandas writes them as dictionaries): text labels by their codes,
    numbers stay numbers; the same report as the plain columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(8)
    yt, yp = rng.integers(0, 4, 500), rng.integers(0, 4, 500)
    names = np.array(["a", "b", "c", "d"])
    for kind, t, p in (("text", names[yt], names[yp]), ("ints", yt, yp)):
        pq.write_table(pa.table({"y_true": t, "y_pred": p}), tmp_path / "plain.parquet")
        pq.write_table(pa.table({"y_true": pa.array(t).dictionary_encode(),
                                 "y_pred": pa.array(p).dictionary_encode()}),
                       tmp_path / "dict.parquet")
        plain = run_main(["report", "plain.parquet", "--format", "json"], tmp_path)
        assert plain[0] == 0, plain[2]
        for extra in ([], ["--batch-rows", "64"]):
            got = run_main(["report", "dict.parquet", "--format", "json", *extra], tmp_path)
            assert got[1] == plain[1], (kind, extra)
        assert json.loads(plain[1])["labels"] == (["a", "b", "c", "d"] if kind == "text"
                                                   else [0, 1, 2, 3])


# --------------------------------------------------------------------------- memory


@needs_arrow
def test_streaming_is_decided_from_the_estimated_memory(tmp_path, monkeypatch):
    """A Parquet file small on disk but many rows of strings is streamed; the report is
    the whole-file report."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    n = 60_000
    names = np.array(["a", "b", "c"])
    yt, yp = names[rng.integers(0, 3, n)], names[rng.integers(0, 3, n)]
    pq.write_table(pa.table({"y_true": yt, "y_pred": yp}), tmp_path / "s.parquet")
    whole = run_main(["report", "s.parquet", "--format", "json"], tmp_path)
    with readers.open_source(str(tmp_path / "s.parquet")) as src:
        est = src.estimate(["y_true", "y_pred"], ("y_true", "y_pred"))
    assert os.path.getsize(tmp_path / "s.parquet") < est  # the estimate is not the file size
    monkeypatch.setattr(readers, "STREAM_BYTES", est - 1)
    monkeypatch.setattr(readers, "DEFAULT_BATCH_ROWS", 7000)
    rc, out, err = run_main(["report", "s.parquet", "--format", "json"], tmp_path)
    assert rc == 0 and "100%" in err  # streamed, with the progress bar
    assert out == whole[1]
    assert json.loads(out)["accuracy"] == skm.accuracy_score(yt, yp)


# --------------------------------------------------------------------------- smaller fixes


def test_version():
    p = subprocess.run([sys.executable, "-m", "fastmetrics", "--version"], capture_output=True,
                       text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=PKG_PARENT + os.pathsep
                                + os.environ.get("PYTHONPATH", "")))
    assert (p.returncode, p.stdout) == (0, f"fastmetrics {fm.__version__}\n")


def test_delimiter(tmp_path):
    (tmp_path / "s.csv").write_text("y_true;y_pred\n1;1\n0;1\n")
    (tmp_path / "c.csv").write_text("y_true,y_pred\n1,1\n0,1\n")
    (tmp_path / "t.csv").write_text("y_true\ty_pred\n1\t1\n0\t1\n")
    ref = run_main(["report", "c.csv", "--format", "json"], tmp_path)
    assert ref[0] == 0
    for name, d in (("s.csv", ";"), ("t.csv", "tab"), ("t.csv", "\\t")):
        got = run_main(["report", name, "--delimiter", d, "--format", "json"], tmp_path)
        assert got[1] == ref[1], (name, d)
    assert run_main(["report", "-", "--delimiter", ";", "--format", "json"], tmp_path,
                    stdin=b"y_true;y_pred\n1;1\n0;1\n")[1] == ref[1]
    one_error(*run_main(["report", "s.csv", "--delimiter", ";;"], tmp_path),
              "--delimiter must be one character")


def test_p_columns_are_used_by_default(tmp_path):
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 400)
    p1 = np.round(rng.random(400), 4)
    text = "y_true,y_pred,p_0,p_1\n" + "".join(
        f"{a},{a},{1 - b:.4f},{b}\n" for a, b in zip(y, p1))
    (tmp_path / "b.csv").write_text(text)
    default = run_main(["report", "b.csv", "--format", "json"], tmp_path)
    asked = run_main(["report", "b.csv", "--format", "json", "--prob-prefix", "p_"], tmp_path)
    assert default[0] == 0 and json.loads(default[1])["calibration.ece"] == \
        json.loads(asked[1])["calibration.ece"]
    rc, out, _ = run_main(["report", "b.csv", "--format", "json", "--no-prob"], tmp_path)
    assert rc == 0 and not any(k.startswith("calibration") for k in json.loads(out))
    # p_* columns that are not class probabilities: a warning, the report without them
    (tmp_path / "v.csv").write_text("y_true,y_pred,p_value\n0,0,0.5\n1,1,0.2\n")
    rc, out, err = run_main(["report", "v.csv", "--format", "json"], tmp_path)
    assert rc == 0
    assert err == ("fastmetrics: warning: the p_* columns (found by name) are not used for "
                   "calibration: probability column 'p_value' names class 'value', which is "
                   "not a label (labels: 0, 1)\n")
    one_error(*run_main(["report", "v.csv", "--diagram", "d.png"], tmp_path),
              "--diagram needs probabilities")
    # asked for: still an error
    one_error(*run_main(["report", "v.csv", "--prob-prefix", "p_"], tmp_path),
              "names class 'value', which is not a label")


def test_json_writes_null_for_nan(tmp_path):
    (tmp_path / "c.csv").write_text("y_true,y_pred,p_0,p_1\n" + "0,0,0.9,0.1\n1,1,0.9,0.1\n" * 3)
    rc, out, err = run_main(["report", "c.csv", "--format", "json"], tmp_path)
    assert rc == 0, err
    assert "NaN" not in out
    got = json.loads(out)  # strict JSON
    empty = [k for k, v in got.items() if k.startswith("calibration.bins.") and v is None]
    assert empty  # the empty bins' confidence and accuracy
    json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))


def test_progress_bar_shows_rate_and_time_left(tmp_path):
    from fastmetrics.cli.progress import Progress

    out, now = io.StringIO(), iter([0.0, 1.0, 2.0])
    p = Progress(1000, stream=out, width=10, unit="rows", clock=lambda: next(now))
    p.step("500 rows", 500)
    p.step("1,000 rows", 500)
    lines = out.getvalue().splitlines()
    assert lines[0].rstrip() == "[#####.....]  50% 500 rows  500.0 rows/s  0:01 left"
    assert lines[1].rstrip() == "[##########] 100% 1,000 rows  500.0 rows/s  0:00 left"
    (tmp_path / "a.csv").write_text("y_true,y_pred\n" + "1,0\n" * 1000)
    rc, _, err = run_main(["report", "a.csv", "--batch-rows", "100"], tmp_path)
    assert rc == 0 and "left" in err and "/s" in err
