"""The command line's one pipeline: a file read whole and the same file read in batches
(``--batch-rows``) print the same report, for every reader and format; the labels' type and the
classes of the probability columns are decided over the whole file; the calibration numbers
are ``calibration_summary``'s. Runs ``main`` in this process (the subprocess path is
tests/test_cli.py's)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics.cli import main

PKG_PARENT = str(Path(fm.__file__).resolve().parents[1])
BATCHES = [1, 7, 64, 10**6]


def run_main(args, cwd, stdin=None):
    """``(status, stdout, stderr less the progress lines)`` of ``main(args)`` in ``cwd``."""
    out, err = io.StringIO(), io.StringIO()
    old_cwd, old_stdin = os.getcwd(), sys.stdin
    os.chdir(cwd)
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main([str(a) for a in args])
            except SystemExit as exc:
                rc = exc.code
    finally:
        os.chdir(old_cwd)
        sys.stdin = old_stdin
    lines = [ln for ln in err.getvalue().splitlines() if not ln.lstrip("\r").startswith("[")]
    return rc, out.getvalue(), "\n".join(lines)


def csv_text(cols, delimiter=","):
    """The CSV text of named columns (header first)."""
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter)
    w.writerow(list(cols))
    w.writerows(zip(*cols.values()))
    return buf.getvalue()


def write_csv(path, cols, delimiter=","):
    Path(path).write_text(csv_text(cols, delimiter), newline="")


CALIBRATION_LINE = re.compile(r"^  (ECE|MCE|Brier) +(\S+)$")


def assert_same_text(batched: str, whole: str) -> None:
    """Equal line by line, except that a calibration number may differ by one unit of its
    last printed digit: a sum of batch sums can land on the other side of a rounding
    boundary (probabilities of 3 decimals often make a bin's gap end in 5)."""
    a, b = batched.splitlines(), whole.splitlines()
    assert len(a) == len(b), (batched, whole)
    for x, y in zip(a, b):
        if x == y:
            continue
        mx, my = CALIBRATION_LINE.match(x), CALIBRATION_LINE.match(y)
        assert mx and my and mx[1] == my[1], (x, y)
        assert abs(float(mx[2]) - float(my[2])) <= 1.000001e-4, (x, y)


def assert_same_report(batched, whole, fmt):
    """Everything equal; in JSON the calibration's per-bin float sums may differ in the last
    digits (batches are binned apart and added, as by any streaming accumulator), and so,
    in text, may the last printed digit of a calibration number."""
    assert batched[0] == whole[0], (batched, whole)
    assert batched[2] == whole[2]
    if whole[0] != 0:
        assert batched[1] == whole[1]
        return
    if fmt != "json":
        assert_same_text(batched[1], whole[1])
        return
    a, b = json.loads(batched[1]), json.loads(whole[1])
    assert a.keys() == b.keys()
    for k in a:
        if k.startswith("calibration.") and isinstance(a[k], float):
            assert a[k] == pytest.approx(b[k], rel=1e-12, abs=1e-15, nan_ok=True), k
        else:
            assert a[k] == b[k], k


# --------------------------------------------------------------------------- the files

N = 500


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """name -> (extra arguments, stdin text or None). Every file has probability columns."""
    d = tmp_path_factory.mktemp("pipeline")
    rng = np.random.default_rng(11)
    yt = rng.integers(-1, 4, N)
    yp = np.where(rng.random(N) < 0.7, yt, rng.integers(-1, 4, N))
    prob = rng.dirichlet(np.ones(6), N)
    ints = {"y_true": yt, "y_pred": yp, **{f"p_{v}": prob[:, i] for i, v in enumerate(range(-1, 4))}}
    write_csv(d / "ints.csv", ints)
    write_csv(d / "ints.tsv", ints, delimiter="\t")
    # integer-looking labels for 400 rows, then text: every label is text, and so are the
    # classes of the probability columns
    late = np.where(np.arange(N) < 400, yt.astype(str), "other")
    late_cols = {"y_true": late, "y_pred": np.where(np.arange(N) < 450, yp.astype(str), "other"),
                 **{f"p_{v}": prob[:, i] for i, v in enumerate([-1, 0, 1, 2, 3, "other"])}}
    write_csv(d / "late_text.csv", late_cols)
    # "07" and "7": one class while the labels may be integers, two once "x" makes them text;
    # "07" first appears in row 100, after batches where both readings agreed
    fork = np.array(["7", "1", "07", "x"])[np.minimum(np.arange(N) // 100, 3)]
    fork = np.where(rng.random(N) < 0.5, fork, np.array(["7", "1"])[rng.integers(0, 2, N)])
    write_csv(d / "fork.csv", {"y_true": fork, "y_pred": np.where(rng.random(N) < 0.7, fork, "1"),
                               **{f"p_{c}": prob[:, i] for i, c in enumerate(["7", "07", "1", "x"])}})
    # all integer-looking: "07" is the class 7
    fork_int = np.where(fork == "x", "1", fork)
    write_csv(d / "fork_int.csv", {"y_true": fork_int, "y_pred": np.roll(fork_int, 3),
                                   "p_7": prob[:, 0], "p_1": prob[:, 1]})
    out = {
        "ints.csv": (["--prob-prefix", "p_", "--oos-label", "-1"], None),
        "ints.tsv": (["--prob", "p_3", "p_-1", "p_0", "p_1", "p_2", "--labels", "3", "2", "1", "0", "-1"], None),
        "-": (["--prob-prefix", "p_"], csv_text(late_cols)),
        "late_text.csv": (["--prob-prefix", "p_", "--oos-label", "other"], None),
        "fork.csv": (["--prob-prefix", "p_"], None),
        "fork_int.csv": (["--prob-prefix", "p_"], None),
    }
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - the parquet extra is part of the test extra
        return d, out
    pq.write_table(pa.table({k: np.asarray(v) for k, v in ints.items()}), d / "ints.parquet",
                   row_group_size=64)
    pq.write_table(pa.table({k: np.asarray(v) for k, v in late_cols.items()}),
                   d / "late_text.parquet", row_group_size=100)
    out["ints.parquet"] = (["--prob-prefix", "p_"], None)
    out["late_text.parquet"] = (["--prob-prefix", "p_", "--labels", "other", "0", "3", "-1", "2", "1"], None)
    return d, out


FILES = ["ints.csv", "ints.tsv", "-", "late_text.csv", "fork.csv", "fork_int.csv",
         "ints.parquet", "late_text.parquet"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize("name", FILES)
def test_batched_report_is_the_whole_report(files, name, fmt):
    d, table = files
    if name not in table:
        pytest.skip("pyarrow is not installed")
    extra, stdin = table[name]
    args = ["report", name, "--format", fmt, *extra]
    whole = run_main(args, d, stdin)
    assert whole[0] == 0, whole[2]
    for b in BATCHES:
        assert_same_report(run_main(args + ["--batch-rows", b], d, stdin), whole, fmt)


def _typed(col):
    """A CSV label column as one reading of the whole file types it."""
    a = np.asarray(col).astype(str)
    try:
        return a.astype(np.int64)
    except ValueError:
        return a


@pytest.mark.parametrize("name, classes", [
    ("ints.csv", [-1, 0, 1, 2, 3]),
    ("late_text.csv", ["-1", "0", "1", "2", "3", "other"]),
    ("fork.csv", ["7", "07", "1", "x"]),
    ("fork_int.csv", [7, 1]),
])
def test_calibration_is_calibration_summary(files, name, classes):
    d, _ = files
    with open(d / name, newline="") as f:
        rows = list(csv.DictReader(f))
    y = _typed([r["y_true"] for r in rows])
    keys = [k for k in rows[0] if k.startswith("p_")]
    prob = np.array([[float(r[k]) for k in keys] for r in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows need not sum to one here
        s = fm.calibration_summary(y, prob, labels=np.asarray(classes))
    for b in (None, 7):
        extra = ["--prob-prefix", "p_"] + ([] if b is None else ["--batch-rows", b])
        rc, out, err = run_main(["report", name, "--format", "json", *extra], d)
        assert rc == 0, err
        got = json.loads(out)
        for k in ("ece", "mce", "brier"):
            if b is None:  # read whole: the one-shot function's numbers, to the last digit
                assert got[f"calibration.{k}"] == getattr(s, k), k
            else:
                assert got[f"calibration.{k}"] == pytest.approx(getattr(s, k), rel=1e-12)


def test_labels_integer_looking_then_text_relabel_the_whole_file(files):
    d, _ = files
    for b in (None, 7):
        extra = [] if b is None else ["--batch-rows", b]
        got = json.loads(run_main(["report", "late_text.csv", "--format", "json", *extra], d)[1])
        assert got["labels"] == ["-1", "0", "1", "2", "3", "other"]
        got = json.loads(run_main(["report", "fork_int.csv", "--format", "json", *extra], d)[1])
        assert got["labels"] == [1, 7]  # "07" and "7" are one integer label


def test_one_probability_column_is_the_calibration_of_its_class(tmp_path):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    p1 = np.round(rng.random(300), 6)
    write_csv(tmp_path / "b.csv", {"y_true": y, "y_pred": y, "p_1": p1, "p_0": 1 - p1})
    for col, cls, p in (("p_1", 1, p1), ("p_0", 0, 1 - p1)):
        s = fm.calibration_summary((y == cls).astype(int), p)
        for extra in ([], ["--batch-rows", "50"]):
            rc, out, err = run_main(["report", "b.csv", "--format", "json", "--prob", col, *extra],
                                    tmp_path)
            assert rc == 0, err
            assert json.loads(out)["calibration.brier"] == pytest.approx(s.brier, rel=1e-12)
    # text labels: the class's probability against "the label is that class"
    names = np.array(["cat", "dog"])[y]
    write_csv(tmp_path / "t.csv", {"y_true": names, "y_pred": names, "p_cat": p1})
    s = fm.calibration_summary((names == "cat").astype(int), p1)
    rc, out, err = run_main(["report", "t.csv", "--format", "json", "--prob", "p_cat"], tmp_path)
    assert rc == 0, err
    assert json.loads(out)["calibration.ece"] == pytest.approx(s.ece, rel=1e-12)


def test_the_table_is_classification_reports(files):
    d, _ = files
    rc, out, _ = run_main(["report", "ints.csv"], d)
    with open(d / "ints.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    yt = np.array([int(r["y_true"]) for r in rows])
    yp = np.array([int(r["y_pred"]) for r in rows])
    table = fm.classification_report(yt, yp, digits=4, zero_division=0).splitlines()
    del table[1]  # the report card prints the rows right under the column names
    start = out.splitlines().index(table[0])
    assert out.splitlines()[start:start + len(table)] == table


# --------------------------------------------------------------------------- errors


def test_error_rows_count_from_the_start_of_the_file(tmp_path):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 200).astype(str)
    y[150] = "9"
    p = np.round(rng.random((200, 3)), 4).astype(object)
    write_csv(tmp_path / "a.csv", {"y_true": y, "y_pred": y,
                                   **{f"p_{i}": p[:, i] for i in range(3)}})
    p[120, 1] = "n/a"
    write_csv(tmp_path / "b.csv", {"y_true": y, "y_pred": y,
                                   **{f"p_{i}": p[:, i] for i in range(3)}})
    for extra in ([], ["--batch-rows", "64"]):
        rc, out, err = run_main(["report", "a.csv", "--prob-prefix", "p_", *extra], tmp_path)
        assert (rc, out) == (2, "")
        # data rows, counted from 1 (y[150] is the 151st), in memory and when streaming
        assert err == ("fastmetrics: error: probabilities: the true label 9 of data row 151 "
                       "has no probability column")
        rc, out, err = run_main(["report", "b.csv", "--prob-prefix", "p_", *extra], tmp_path)
        assert err == ("fastmetrics: error: probability column 'p_1' is not numeric: 'n/a' at "
                       "data row 121")


def test_integers_beyond_int64_are_text_in_every_batch(tmp_path):
    y = np.where(np.arange(100) < 90, (np.arange(100) % 3).astype(str), "9" * 20)
    write_csv(tmp_path / "big.csv", {"y_true": y, "y_pred": y[::-1]})
    whole = run_main(["report", "big.csv", "--format", "json"], tmp_path)
    assert whole[0] == 0 and json.loads(whole[1])["labels"] == ["0", "1", "2", "9" * 20]
    assert_same_report(run_main(["report", "big.csv", "--format", "json", "--batch-rows", 7],
                                tmp_path), whole, "json")


def test_blank_lines_before_the_header(tmp_path):
    (tmp_path / "b.csv").write_text("\n\ny_true,y_pred\n1,1\n2,1\n")
    rc, out, err = run_main(["report", "b.csv", "--format", "json"], tmp_path)
    assert rc == 0, err
    assert json.loads(out)["n_examples"] == 2


# --------------------------------------------------------------------------- any split


INTS = ["0", "1", "7", "07", " 2", "+1"]
LABELS = INTS + ["a", "b"]
pairs = st.tuples(st.sampled_from(INTS), st.sampled_from(INTS))


@settings(max_examples=80, deadline=None)
@given(
    # integer-looking labels first, any labels after: the typing may change late
    early=st.lists(pairs, min_size=1, max_size=30),
    late=st.lists(st.tuples(st.sampled_from(LABELS), st.sampled_from(LABELS)), max_size=10),
    drop=st.booleans(),  # a true label without a probability column: an error
    batch=st.integers(1, 41),
    seed=st.integers(0, 2**16),
)
def test_any_split_gives_the_whole_report(early, late, drop, batch, seed):
    data = early + late
    rng = np.random.default_rng(seed)
    classes = list(dict.fromkeys(t for t, _ in data))  # a column per true label, any order
    rng.shuffle(classes)
    if drop and len(classes) > 1:
        classes.pop()
    cols = {"y_true": [t for t, _ in data], "y_pred": [p for _, p in data],
            **{f"p_{c}": np.round(rng.random(len(data)), 3) for c in classes}}
    with tempfile.TemporaryDirectory() as d:
        write_csv(Path(d) / "f.csv", cols)
        for fmt in ("text", "json"):
            args = ["report", "f.csv", "--prob-prefix", "p_", "--format", fmt]
            whole = run_main(args, d)
            assert_same_report(run_main(args + ["--batch-rows", batch], d), whole, fmt)


# --------------------------------------------------------------------------- the package


def test_no_accumulator_is_reconfigured(files, monkeypatch):
    from fastmetrics.cli import card, toplabel

    def guarded(cls):
        class Guarded(cls):
            def __setattr__(self, name, value):
                if name == "labels" and "labels" in self.__dict__:
                    raise AssertionError(f"{cls.__name__}.labels reassigned")
                super().__setattr__(name, value)
        return Guarded

    monkeypatch.setattr(card, "ConfusionAccumulator", guarded(card.ConfusionAccumulator))
    monkeypatch.setattr(toplabel, "CalibrationAccumulator",
                        guarded(toplabel.CalibrationAccumulator))
    d, table = files
    for name in ("ints.csv", "late_text.csv", "fork.csv"):
        rc, _, err = run_main(["report", name, *table[name][0], "--batch-rows", 7], d)
        assert rc == 0, err


def test_progress_bar_is_the_command_lines():
    from fastmetrics.cli import bench, progress

    assert bench.Progress is progress.Progress


def test_python_m_fastmetrics_cli():
    env = dict(os.environ, PYTHONPATH=PKG_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "fastmetrics.cli", "report", "--format", "markdown"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("| model | 0.8177 |")
