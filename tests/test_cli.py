"""The command line, driven as a user drives it: ``python -m fastmetrics`` in a subprocess, on
the shipped sample and on files written here, results checked against scikit-learn."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

# the directory the imported fastmetrics lives in: subprocesses import the same package
PKG_PARENT = str(Path(fm.__file__).resolve().parents[1])
REPO = Path(__file__).resolve().parents[1]
CLASSES = ["account", "billing", "oos", "refund", "shipping", "tech_support"]


def run(*args, stdin=None, cwd=None, exe=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG_PARENT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONWARNINGS", None)
    cmd = [exe] if exe else [sys.executable, "-m", "fastmetrics"]
    return subprocess.run(
        cmd + [str(a) for a in args], input=stdin, capture_output=True, text=True, env=env,
        cwd=cwd, timeout=120,
    )


def ok(*args, **kw):
    p = run(*args, **kw)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    return p


def sample():
    text = resources.files("fastmetrics").joinpath("data/sample.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    yt = np.array([r["y_true"] for r in rows])
    yp = np.array([r["y_pred"] for r in rows])
    prob = np.array([[float(r[f"p_{c}"]) for c in CLASSES] for r in rows])
    return yt, yp, prob


def reference(yt, yp, labels=None, oos=None):
    """The report card's numbers from scikit-learn (and plain numpy for OOS)."""
    lab = sorted(set(yt) | set(yp)) if labels is None else labels
    p, r, f, s = skm.precision_recall_fscore_support(yt, yp, labels=lab, zero_division=0)
    out = {
        "accuracy": skm.accuracy_score(yt, yp),
        "macro_f1": skm.f1_score(yt, yp, labels=lab, average="macro", zero_division=0),
        "weighted_f1": skm.f1_score(yt, yp, labels=lab, average="weighted", zero_division=0),
        "n_examples": len(yt),
        "cm": skm.confusion_matrix(yt, yp, labels=lab),
        "labels": list(lab),
    }
    for i, v in enumerate(lab):
        out[f"per_class.{v}.precision"] = p[i]
        out[f"per_class.{v}.recall"] = r[i]
        out[f"per_class.{v}.f1"] = f[i]
        out[f"per_class.{v}.support"] = s[i]
    if oos is not None:
        tp = np.sum((yt == oos) & (yp == oos))
        out["oos_recall"] = tp / np.sum(yt == oos)
        out["oos_precision"] = tp / np.sum(yp == oos)
    return out


def check_json(stdout, ref):
    got = json.loads(stdout)
    assert got["labels"] == [v.item() if hasattr(v, "item") else v for v in ref["labels"]]
    for k, v in ref.items():
        if k == "cm":
            k_ = len(ref["labels"])
            cm = [[got[f"confusion_matrix.{i}.{j}"] for j in range(k_)] for i in range(k_)]
            np.testing.assert_array_equal(cm, v)
        elif k != "labels":
            assert got[k] == pytest.approx(float(v), rel=1e-12, abs=0), k
    return got


# --------------------------------------------------------------------------- the sample


def test_bare_command_prints_the_sample_report_card():
    yt, yp, _ = sample()
    ref = reference(yt, yp, oos="oos")
    out = ok().stdout
    assert "sample.csv (shipped with fastmetrics)" in out
    assert "3,000 predictions, 6 labels, out-of-scope label 'oos'" in out
    for key, name in (("accuracy", "accuracy"), ("macro_f1", "macro F1"),
                      ("weighted_f1", "weighted F1"), ("oos_recall", "OOS recall"),
                      ("oos_precision", "OOS precision")):
        assert f"  {name:<14} {ref[key]:.4f}\n" in out
    for c in CLASSES:  # per-class table rows
        line = next(ln for ln in out.splitlines() if ln.strip().startswith(c + " "))
        cells = line.split()
        assert [float(x) for x in cells[1:4]] == [
            round(float(ref[f"per_class.{c}.{m}"]), 4) for m in ("precision", "recall", "f1")
        ]
        assert int(cells[4]) == ref[f"per_class.{c}.support"]
    cm_lines = out.split("confusion matrix (rows: true label, columns: predicted label)\n")[1]
    rows = [ln.split() for ln in cm_lines.splitlines()[1:7]]
    assert [r[0] for r in rows] == CLASSES
    np.testing.assert_array_equal([[int(x) for x in r[1:]] for r in rows], ref["cm"])
    assert "calibration" in out  # computed, or a line saying it is not in this build


def test_report_without_file_is_the_bare_command():
    assert ok("report").stdout == ok().stdout


def test_sample_json_matches_sklearn():
    yt, yp, _ = sample()
    check_json(ok("report", "--format", "json").stdout, reference(yt, yp, oos="oos"))


def test_sample_markdown_row():
    yt, yp, _ = sample()
    ref = reference(yt, yp, oos="oos")
    p = ok("report", "--format", "markdown", "--name", "intent-v1")
    assert p.stdout == (
        f"| intent-v1 | {ref['accuracy']:.4f} | {ref['macro_f1']:.4f} | "
        f"{ref['oos_recall']:.4f} | N/A | N/A |\n"
    )
    from fastmetrics.report import RESULTS_HEADER

    # the row right under the header: a blank line between them would end the table
    head = ok("report", "--format", "markdown", "--header").stdout
    assert head == RESULTS_HEADER + p.stdout.replace("intent-v1", "model")


def test_sample_is_reproduced_by_its_script(tmp_path):
    script = REPO / "scripts" / "make_sample.py"
    if not script.exists():
        pytest.skip("scripts/make_sample.py is not beside these tests")
    code = (
        "import runpy, sys, pathlib; m = runpy.run_path(sys.argv[1]); "
        "m['main'](pathlib.Path(sys.argv[2]))"
    )
    subprocess.run([sys.executable, "-c", code, str(script), str(tmp_path / "s.csv")],
                   check=True, capture_output=True)
    shipped = resources.files("fastmetrics").joinpath("data/sample.csv").read_bytes()
    assert (tmp_path / "s.csv").read_bytes() == shipped
    yt, yp, prob = sample()
    assert len(yt) == 3000 and set(yt) == set(CLASSES)
    assert np.mean(yt == "refund") < 0.1 < np.mean(yt == "billing") - 0.2  # imbalanced
    np.testing.assert_array_equal(np.asarray(CLASSES)[prob.argmax(axis=1)], yp)


# --------------------------------------------------------------------------- calibration


def test_calibration_of_the_sample():
    cal = pytest.importorskip("fastmetrics.calibration")
    yt, _, prob = sample()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rounding: rows sum to 1 within 1e-5 only
        s = cal.calibration_summary(yt, prob, n_bins=10, labels=np.asarray(CLASSES))
    got = json.loads(ok("report", "--format", "json").stdout)
    for k in ("ece", "mce", "brier"):
        assert got[f"calibration.{k}"] == pytest.approx(getattr(s, k), rel=1e-12)
    text = ok().stdout
    assert f"  ECE            {s.ece:.4f}\n" in text
    assert f"  Brier          {s.brier:.4f}" in text
    # --prob with explicit columns (class = name minus 'p_'), in another order
    got2 = json.loads(ok("report", "--format", "json", "--prob",
                         *[f"p_{c}" for c in reversed(CLASSES)]).stdout)
    assert got2["calibration.ece"] == pytest.approx(s.ece, rel=1e-12)


def test_reliability_diagram(tmp_path):
    pytest.importorskip("fastmetrics.calibration")
    pytest.importorskip("matplotlib")
    out = tmp_path / "rel.png"
    p = ok("report", "--diagram", out)
    assert f"reliability diagram written to {out}" in p.stdout
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- files written here


@pytest.fixture
def int_data():
    rng = np.random.default_rng(5)
    yt = rng.integers(-1, 4, 500)
    yp = np.where(rng.random(500) < 0.7, yt, rng.integers(-1, 4, 500))
    prob = rng.dirichlet(np.ones(5), 500)
    return yt, yp, prob


def write_csv(path, cols, delimiter=","):
    names = list(cols)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, delimiter=delimiter)
        w.writerow(names)
        for i in range(len(cols[names[0]])):
            w.writerow([cols[n][i] for n in names])


def test_csv_with_integer_labels(tmp_path, int_data):
    yt, yp, _ = int_data
    path = tmp_path / "preds.csv"
    write_csv(path, {"truth": yt, "guess": yp})
    got = check_json(
        ok("report", path, "--true", "truth", "--pred", "guess", "--oos-label", -1,
           "--format", "json").stdout,
        reference(yt, yp, oos=-1),
    )
    assert got["labels"] == [-1, 0, 1, 2, 3]  # integer-looking columns are integers


def test_tsv_and_stdin(tmp_path, int_data):
    yt, yp, _ = int_data
    ref = reference(yt, yp)
    write_csv(tmp_path / "p.tsv", {"y_true": yt, "y_pred": yp}, delimiter="\t")
    check_json(ok("report", tmp_path / "p.tsv", "--format", "json").stdout, ref)
    buf = io.StringIO()
    csv.writer(buf).writerows([["y_true", "y_pred"], *zip(yt, yp)])
    check_json(ok("report", "-", "--format", "json", stdin=buf.getvalue()).stdout, ref)


def test_pinned_labels_order_and_subset(tmp_path, int_data):
    yt, yp, _ = int_data
    path = tmp_path / "p.csv"
    write_csv(path, {"y_true": yt, "y_pred": yp})
    lab = [3, 0, 1]
    got = check_json(ok("report", path, "--labels", *lab, "--format", "json").stdout,
                     reference(yt, yp, labels=lab))
    assert got["labels"] == lab
    text = ok("report", path, "--labels", *lab).stdout
    assert "micro avg" in text and "    accuracy    " not in text.split("\n\n")[2]


def test_npy_structured(tmp_path, int_data):
    yt, yp, prob = int_data
    a = np.zeros(len(yt), dtype=[("t", "i2"), ("p", "i2")] + [(f"p_{k}", "f4") for k in range(-1, 4)])
    a["t"], a["p"] = yt, yp
    for j, k in enumerate(range(-1, 4)):
        a[f"p_{k}"] = prob[:, j]
    np.save(tmp_path / "s.npy", a)
    check_json(ok("report", tmp_path / "s.npy", "--true", "t", "--pred", "p",
                  "--format", "json").stdout, reference(yt, yp))


def test_npy_2d_by_column_index(tmp_path, int_data):
    yt, yp, _ = int_data
    np.save(tmp_path / "m.npy", np.column_stack([yp, np.zeros_like(yt), yt]))
    check_json(ok("report", tmp_path / "m.npy", "--true", 2, "--pred", 0,
                  "--format", "json").stdout, reference(yt, yp))
    bad = run("report", tmp_path / "m.npy", "--true", "y_true")
    assert bad.returncode == 2
    assert bad.stderr.startswith("fastmetrics: error: --true must be a column index 0..2")


def test_npz_arrays_by_name_with_probability_matrix(tmp_path, int_data):
    yt, yp, prob = int_data
    path = tmp_path / "run.npz"
    np.savez(path, truth=yt.astype(np.float64), pred=yp.astype(np.int8), proba=prob)
    got = check_json(ok("report", path, "--true", "truth", "--pred", "pred",
                        "--prob", "proba", "--format", "json").stdout, reference(yt, yp))
    assert got["labels"] == [-1, 0, 1, 2, 3]  # integral floats are integer labels
    try:
        import fastmetrics.calibration as cal
    except ModuleNotFoundError:
        return
    s = cal.calibration_summary(yt, prob, labels=np.arange(-1, 4))
    assert got["calibration.ece"] == pytest.approx(s.ece, rel=1e-12)


def test_string_labels_and_prefix(tmp_path):
    yt = np.array(["cat", "dog", "dog", "bird", "cat", "dog"])
    yp = np.array(["cat", "dog", "cat", "bird", "bird", "dog"])
    path = tmp_path / "s.csv"
    write_csv(path, {"y_true": yt, "y_pred": yp, "score_bird": [.1] * 6,
                     "score_cat": [.6] * 6, "score_dog": [.3] * 6})
    check_json(ok("report", path, "--prob-prefix", "score_", "--format", "json").stdout,
               reference(yt, yp))
    bad = run("report", path, "--prob-prefix", "nope_")
    assert bad.returncode == 2 and "no column of" in bad.stderr


def test_parquet(tmp_path, int_data):
    yt, yp, _ = int_data
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # the extra is not installed: a clear one-line error instead
        (tmp_path / "p.parquet").write_bytes(b"PAR1")
        p = run("report", tmp_path / "p.parquet")
        assert p.returncode == 2
        assert p.stderr == (
            "fastmetrics: error: reading Parquet needs pyarrow, which is not installed: "
            "pip install 'fastmetrics-kernels[parquet]'\n"
        )
        return
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"y_true": yt, "y_pred": yp.astype(np.int32)}), path)
    check_json(ok("report", path, "--format", "json").stdout, reference(yt, yp))
    labels = np.array(["a", "b"])[yt % 2]
    pq.write_table(pa.table({"y_true": labels, "y_pred": labels[::-1]}), path)
    check_json(ok("report", path, "--format", "json").stdout, reference(labels, labels[::-1]))


# --------------------------------------------------------------------------- bad input


def _bad_files(tmp_path):
    write_csv(tmp_path / "ok.csv", {"y_true": [0, 1, 1], "y_pred": [0, 1, 0],
                                    "p_0": [0.9, 0.2, "high"], "p_1": [0.1, 0.8, 0.5]})
    (tmp_path / "ragged.csv").write_text("y_true,y_pred\n0,1\n1\n")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("y_true,y_pred\n")
    (tmp_path / "blank.csv").write_text("y_true,y_pred\n0,1\n,1\n")
    np.savez(tmp_path / "floats.npz", y_true=np.array([0.5, 1.0]), y_pred=np.array([1, 1]))
    (tmp_path / "x.xlsx").write_text("?")
    (tmp_path / "bad.npy").write_bytes(b"not an npy file")
    np.save(tmp_path / "one_d.npy", np.arange(3))
    np.savez(tmp_path / "uneven.npz", y_true=np.arange(4), y_pred=np.arange(3))
    (tmp_path / "latin1.csv").write_bytes("y_true,y_pred\n\xe9,\xe9\n".encode("latin-1"))


BAD = [
    (["report", "missing.csv"], "no such file: missing.csv"),
    (["report", "."], "is a directory"),
    (["report", "ok.csv", "--true", "label"], "unknown --true column 'label' in ok.csv; columns are: y_true, y_pred, p_0, p_1"),
    (["report", "ok.csv", "--pred", "nope"], "unknown --pred column 'nope'"),
    (["report", "ok.csv", "--prob", "p_0", "p_1"], "probability column 'p_0' is not numeric: 'high' at data row 3"),
    (["report", "ok.csv", "--prob", "p_0", "p_7"], "unknown --prob column 'p_7'"),
    (["report", "ok.csv", "--prob", "y_true"], "probability column 'y_true' names class 'y_true', which is not a label"),
    (["report", "ragged.csv"], "ragged.csv: line 3 has 1 fields but the header has 2"),
    (["report", "uneven.npz"], "--true column 'y_true' has 4 values but --pred column 'y_pred' has 3"),
    (["report", "empty.csv"], "empty.csv is empty"),
    (["report", "header.csv"], "header.csv has a header but no rows"),
    (["report", "blank.csv"], "the --true column has an empty value (data row 2)"),
    (["report", "floats.npz"], "y_true contains non-integer float values"),
    (["report", "x.xlsx"], "cannot tell the format of x.xlsx"),
    (["report", "bad.npy"], "cannot read bad.npy as NPY"),
    (["report", "one_d.npy"], "must hold a structured array (named fields) or a 2-D array"),
    (["report", "latin1.csv"], "latin1.csv is not a UTF-8 text (CSV) file"),
    (["report", "ok.csv", "--oos-label", "x"], "--oos-label 'x': the labels are integers"),
    (["report", "ok.csv", "--oos-label", "7"], "--oos-label '7' occurs in neither --true nor --pred"),
    (["report", "ok.csv", "--labels", "0", "0"], "--labels lists a label twice"),
    (["report", "ok.csv", "--diagram", "d.png"], "--diagram needs probabilities"),
    (["report", "ok.csv", "--n-bins", "0"], "--n-bins must be >= 1, got 0"),
    (["report", "ok.csv", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
    (["report", "ok.csv", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["frobnicate"], "argument {report,evaluate,bench}: invalid choice: 'frobnicate'"),
    (["bench", "--n", "0"], "argument --n: must be a whole number >= 1, got '0'"),
    (["bench", "--n", "lots"], "argument --n: not a number: 'lots'"),
]


# the bad inputs, and a usage error, as a user meets them: in a subprocess
SUBPROCESS = {"missing.csv", "--pred nope", "--prob p_0 p_1", "ragged.csv", "uneven.npz",
              "--frobnicate"}


def _in_process(args, cwd, capsys, monkeypatch):
    """main(argv) in this process: the same code path, without the interpreter start-up."""
    from fastmetrics.cli import main

    monkeypatch.chdir(cwd)
    try:
        rc = main(args)
    except SystemExit as exc:  # argparse usage errors
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("args, message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_one_line_exit_2(tmp_path, args, message, capsys, monkeypatch):
    _bad_files(tmp_path)
    if any(s in " ".join(args) for s in SUBPROCESS):
        p = run(*args, cwd=tmp_path)
        rc, out, err = p.returncode, p.stdout, p.stderr
    else:
        rc, out, err = _in_process(args, tmp_path, capsys, monkeypatch)
    assert rc == 2
    assert out == ""
    assert err.count("\n") == 1, err  # one line, no traceback
    assert err.startswith("fastmetrics: error: ")
    assert message in err


def test_help():
    p = ok("--help")
    assert "report" in p.stdout and "bench" in p.stdout
    assert "--prob-prefix" in ok("report", "--help").stdout


# --------------------------------------------------------------------------- bench


def test_bench_quick_table():
    p = ok("bench", "--quick", "--n", "3000", "--repeat", "2")
    lines = p.stdout.splitlines()
    assert lines[0].startswith("fastmetrics bench: N = 3,000 values per call")
    assert "median of 2 calls" in lines[0]
    assert f"numpy {np.__version__}" in lines[1] and "scikit-learn" in lines[1]
    table = [ln for ln in lines if ln.startswith("| ")]
    assert table[0] == "| metric | fastmetrics | reference | speed-up |"
    names = [row.split(" | ")[0][2:] for row in table[1:]]
    assert names == ["confusion_matrix", "accuracy_score", "f1_score(average='macro')",
                     "classification_report", "brier_score_loss", "mean_squared_error",
                     "percentile(q=[50, 95, 99])", "sequence_loglik (float32 logits, V = 1000)",
                     "group_metrics(metric='f1_macro'), 8 groups"]
    for row in table[1:]:
        assert row.rstrip(" |").endswith("x")  # a ratio, results agreed
        assert "(scikit-learn)" in row or "(numpy)" in row
    assert "100%" in p.stderr  # the progress bar


def test_bench_reports_disagreeing_results(capsys):
    from fastmetrics.cli import bench as _bench

    wrong = _bench.Case("off by one", _bench._labels, lambda yt, yp: 1,
                        lambda yt, yp: 2, _bench._equal)
    assert _bench.run_bench(n=100, repeat=1, cases=[wrong]) == 1
    out, err = capsys.readouterr()
    assert "| off by one |" in out and "(RESULTS DIFFER)" in out
    assert "results differ from the reference for: off by one" in err


def test_console_script():
    exe = Path(sys.executable).parent / "fastmetrics"
    if not exe.exists():
        if os.environ.get("FASTMETRICS_EXPECT_INSTALLED"):
            pytest.fail(f"the fastmetrics command is not installed beside {sys.executable}")
        pytest.skip("fastmetrics is not installed here (tests run against the source tree)")
    assert ok(exe=str(exe)).stdout == ok().stdout


# --------------------------------------------------------------------------- out of core


def _json_same(a, b):
    """Report JSON of the streamed and in-memory paths: counts and classification scores
    identical, the calibration float sums to 1e-12 (they are added in another order)."""
    ja, jb = json.loads(a), json.loads(b)
    assert ja.keys() == jb.keys()
    for k in ja:
        if k.startswith("calibration.") and isinstance(ja[k], float):
            assert ja[k] == pytest.approx(jb[k], rel=1e-12, abs=1e-15, nan_ok=True), k
        else:
            assert ja[k] == jb[k], k


def _streamed_files(tmp_path, int_data):
    yt, yp, prob = int_data
    names = np.array(CLASSES)
    s_t, s_p = names[yt + 1], names[yp + 1]
    p5 = {f"p_{c}": prob[:, i] for i, c in enumerate(CLASSES[:5])}
    write_csv(tmp_path / "s.csv", {"y_true": s_t, "y_pred": s_p, **p5})
    write_csv(tmp_path / "i.tsv", {"y_true": yt, "y_pred": yp,
                                   **{f"p_{v}": prob[:, i] for i, v in enumerate(range(-1, 4))}},
              delimiter="\t")
    # integer-looking labels for 400 rows, then text: the in-memory rule makes all of it text
    mixed = np.where(np.arange(500) < 400, yt.astype(str), "other")
    write_csv(tmp_path / "mixed.csv", {"y_true": mixed, "y_pred": yp})
    files = {
        "s.csv": ["--oos-label", "oos", "--prob", *[f"p_{c}" for c in CLASSES[:5]]],
        "i.tsv": ["--prob-prefix", "p_", "--labels", "3", "2", "1", "0", "-1", "--oos-label", "0"],
        "mixed.csv": [],
    }
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - the parquet extra is part of the test extra
        return files
    pq.write_table(pa.table({"y_true": yt, "y_pred": yp.astype(np.int32),
                             **{f"p_{v}": prob[:, i] for i, v in enumerate(range(-1, 4))}}),
                   tmp_path / "i.parquet", row_group_size=64)
    pq.write_table(pa.table({"y_true": s_t, "y_pred": s_p}), tmp_path / "s.parquet")
    files["i.parquet"] = ["--prob-prefix", "p_", "--oos-label", "-1"]
    files["s.parquet"] = ["--labels", "refund", "oos", "billing"]
    return files


@pytest.mark.parametrize("batch", [7, 64, 10**6])
def test_streamed_report_equals_in_memory(tmp_path, int_data, batch, capsys, monkeypatch):
    files = _streamed_files(tmp_path, int_data)
    for name, extra in files.items():
        for fmt in ("text", "json", "markdown"):
            args = ["report", name, "--format", fmt, *extra]
            rc, whole, err = _in_process(args, tmp_path, capsys, monkeypatch)
            assert rc == 0, err
            rc, streamed, err = _in_process(args + ["--batch-rows", str(batch)], tmp_path,
                                            capsys, monkeypatch)
            assert rc == 0, err
            assert "100%" in err  # the progress bar ran to the end
            if fmt == "json":
                _json_same(streamed, whole)
            else:
                assert streamed == whole, (name, fmt)


def test_streamed_report_from_stdin(int_data):
    yt, yp, _ = int_data
    text = "y_true,y_pred\n" + "".join(f"{a},{b}\n" for a, b in zip(yt, yp))
    whole = ok("report", "-", stdin=text).stdout
    assert ok("report", "-", "--batch-rows", "50", stdin=text).stdout == whole


def test_streamed_report_memory_is_bounded_by_the_batch(tmp_path, capsys, monkeypatch):
    import tracemalloc

    rng = np.random.default_rng(9)
    n = 200_000
    write_csv(tmp_path / "big.csv", {"y_true": rng.integers(0, 5, n), "y_pred": rng.integers(0, 5, n)})
    peaks = {}
    for key, extra in (("whole", []), ("streamed", ["--batch-rows", "2000"])):
        tracemalloc.start()
        rc, out, err = _in_process(["report", "big.csv", *extra], tmp_path, capsys, monkeypatch)
        peaks[key] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert rc == 0, err
    assert peaks["streamed"] * 10 < peaks["whole"], peaks


STREAM_BAD = [
    (["report", "late_ragged.csv"], "late_ragged.csv: line 12 has 1 fields but the header has 2"),
    (["report", "late_blank.csv"], "the --pred column has an empty value (data row 10)"),
    (["report", "middle_blank_line.csv"], "middle_blank_line.csv: line 4 has 0 fields but the header has 2"),
    (["report", "header_only.csv"], "header_only.csv has a header but no rows"),
    (["report", "nothing.csv"], "nothing.csv is empty"),
    (["report", "late_ragged.csv", "--true", "label"], "unknown --true column 'label'"),
    (["report", "late_ragged.csv", "--prob", "p_9"], "unknown --prob column 'p_9'"),
    (["report", "a.npz"], "--batch-rows streams CSV/TSV (or stdin) and Parquet files only"),
    (["report", "probs.csv", "--prob", "p_0", "p_x"], "probability column 'p_x' names class 'x', which is not a label"),
    (["report", "probs.csv", "--prob", "p_0", "p_1"], "probabilities: y_prob contains values outside [0, 1]"),
    (["report", "late_ragged.csv", "--batch-rows", "0"], "argument --batch-rows: must be a whole number >= 1"),
    (["report", "missing.csv"], "no such file: missing.csv"),
    (["report", "."], "is a directory"),
]


@pytest.mark.parametrize("args, message", STREAM_BAD, ids=[" ".join(a) for a, _ in STREAM_BAD])
def test_streamed_bad_input_one_line_exit_2(tmp_path, args, message, capsys, monkeypatch):
    rows = "".join(f"{i % 3},{i % 2}\n" for i in range(9))
    (tmp_path / "late_ragged.csv").write_text("y_true,y_pred\n" + rows + "1,1\n1\n")
    (tmp_path / "late_blank.csv").write_text("y_true,y_pred\n" + rows + "1,\n")
    (tmp_path / "middle_blank_line.csv").write_text("y_true,y_pred\n0,1\n1,1\n\n1,0\n")
    (tmp_path / "header_only.csv").write_text("y_true,y_pred\n\n\n")
    (tmp_path / "nothing.csv").write_text("\n")
    (tmp_path / "probs.csv").write_text("y_true,y_pred,p_0,p_1,p_x\n0,1,0.5,0.5,0\n1,1,0.5,1.5,0\n")
    np.savez(tmp_path / "a.npz", y_true=np.arange(3), y_pred=np.arange(3))
    if "--batch-rows" not in args:
        args = args + ["--batch-rows", "3"]
    rc, out, err = _in_process(args, tmp_path, capsys, monkeypatch)
    assert rc == 2
    assert out == ""
    last = err.strip().splitlines()[-1]  # after the progress lines
    assert last.startswith("fastmetrics: error: ") and "Traceback" not in err
    assert message in last
