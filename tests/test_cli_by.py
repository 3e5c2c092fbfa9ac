"""``fastmetrics report --by COL[,COL]``: per slicing a table of the card's headline numbers
for every slice, each row what the card gives on that slice's rows alone (and what
``fastmetrics.score`` / ``calibration_summary`` give on them), worst first; CSV (pyarrow and
the csv module, whole and in batches), Parquet and NPZ inputs; ``--min-slice-size``; bad
input is one line on stderr and exit status 2."""

import contextlib
import io
import json
import os

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.cli import main, readers
from fastmetrics.cli.card import card_of

LABELS = np.array(["account", "billing", "oos", "refund"])
REGIONS = ["eu", "us", "apac", "latam"]
N = 2400
HEADLINE = ("accuracy", "macro_f1", "weighted_f1", "oos_precision", "oos_recall")


def _data(seed=0):
    rng = np.random.default_rng(seed)
    yt = rng.choice(LABELS, N)
    # each region its own error rate, so that the slices differ
    region = rng.choice(REGIONS, N, p=[0.45, 0.35, 0.18, 0.02])
    hit = rng.random(N) < np.select([region == "eu", region == "us"], [0.8, 0.7], 0.6)
    yp = np.where(hit, yt, rng.choice(LABELS, N))
    channel = rng.choice(["web", "app"], N)
    prob = rng.dirichlet(np.ones(len(LABELS)), N)
    prob /= prob.sum(axis=1, keepdims=True)
    return {"y_true": yt, "y_pred": yp, "region": region, "channel": channel, "prob": prob}


@pytest.fixture(scope="module")
def data():
    return _data()


def _csv(path, d, n=None, blank_region_row=None):
    """The rows as CSV, probabilities written exactly (repr of the float64)."""
    n = N if n is None else n
    with open(path, "w", encoding="utf-8") as f:
        f.write("y_true,y_pred,region,channel," + ",".join(f"p_{c}" for c in LABELS) + "\n")
        for i in range(n):
            region = "" if i == blank_region_row else d["region"][i]
            f.write(f"{d['y_true'][i]},{d['y_pred'][i]},{region},{d['channel'][i]},"
                    + ",".join(repr(float(x)) for x in d["prob"][i]) + "\n")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory, data):
    d = tmp_path_factory.mktemp("by")
    _csv(d / "preds.csv", data)
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    cols = {k: data[k] for k in ("y_true", "y_pred", "region", "channel")}
    cols.update({f"p_{c}": data["prob"][:, j] for j, c in enumerate(LABELS)})
    pq.write_table(pa.table(cols), d / "preds.parquet")
    return d


def run(argv, cwd=None):
    """``(status, stdout, stderr less progress lines)`` of ``main(argv)`` (in ``cwd``)."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main([str(a) for a in argv])
            except SystemExit as exc:  # argparse's usage errors
                rc = exc.code
    finally:
        os.chdir(old)
    # less the progress bar's lines (batches of a file show one on stderr)
    lines = [ln for ln in err.getvalue().splitlines() if not ln.lstrip("\r").startswith("[")]
    return rc, out.getvalue(), "\n".join(lines)


def report(argv, cwd=None):
    rc, out, err = run([*argv, "--format", "json"], cwd)
    assert rc == 0, err
    return json.loads(out)


def expected(data, mask):
    """The slice's numbers by the library on its rows alone."""
    m = fm.score(data["y_true"][mask], data["y_pred"][mask], oos_label="oos")
    s = fm.calibration_summary(data["y_true"][mask], data["prob"][mask], labels=LABELS)
    return {**{k: getattr(m, k) for k in HEADLINE}, "ece": s.ece, "mce": s.mce,
            "brier": s.brier, "n": int(mask.sum())}


def mask_of(data, key):
    mask = np.ones(N, bool)
    for col, value in key.items():
        mask &= data[col] == value
    return mask


def check_rows(table, data, exact=True):
    for row in table["rows"]:
        want = expected(data, mask_of(data, row["slice"]))
        assert row["n"] == want.pop("n")
        for k, v in want.items():
            if exact and k in HEADLINE:  # counts: the same sums as the card's
                assert row[k] == v, (row["slice"], k)
            else:  # float sums over other batches: equal to the last digits
                assert row[k] == pytest.approx(v, rel=1e-12, abs=1e-15), (row["slice"], k)


def check_order(table):
    f1 = [r["macro_f1"] for r in table["rows"]]
    assert f1 == sorted(f1), "worst (lowest macro F1) first"
    keys = [(r["macro_f1"], tuple(r["slice"].values())) for r in table["rows"]]
    assert keys == sorted(keys), "ties by key"
    assert table["rows"][0]["worst"]
    assert [r["worst"] for r in table["rows"]] == [r["macro_f1"] == f1[0]
                                                   for r in table["rows"]]


@pytest.mark.parametrize("fmt,reader,batch", [
    ("csv", "default", None), ("csv", "default", "500"), ("csv", "csv module", "700"),
    ("parquet", "default", None), ("parquet", "default", "500"),
])
def test_each_slice_is_its_rows_card(files, data, fmt, reader, batch, monkeypatch):
    """One column and two crossed, two --by's: every slice's row is fastmetrics.score and
    calibration_summary on its rows; rows worst first, ties by key, the worst marked; the
    card's own keys unchanged."""
    if reader == "csv module":
        monkeypatch.setattr(readers, "have_pyarrow", lambda: False)
    argv = ["report", f"preds.{fmt}", "--oos-label", "oos", "--by", "region",
            "--by", "region,channel", *(["--batch-rows", batch] if batch else [])]
    got = report(argv, files)
    plain = report(argv[:4], files)
    assert {k: v for k, v in got.items() if k != "slices"}.keys() == plain.keys()
    assert got["accuracy"] == plain["accuracy"]
    by_region, crossed = got["slices"]
    assert by_region["by"] == ["region"] and crossed["by"] == ["region", "channel"]
    assert [sorted(r["slice"]) for r in crossed["rows"]] == [["channel", "region"]] * 8
    assert sorted(r["slice"]["region"] for r in by_region["rows"]) == sorted(REGIONS)
    assert by_region["too_small"] == [] and crossed["too_small"] == []
    assert sum(r["n"] for r in by_region["rows"]) == N
    for table in (by_region, crossed):
        assert set(table["rows"][0]) == {"slice", "n", *HEADLINE, "ece", "mce", "brier",
                                         "worst"}
        check_rows(table, data, exact=True)
        check_order(table)


def test_a_slice_row_equals_the_card_of_its_rows(files, data, tmp_path):
    """The row of a slice is the card that `fastmetrics report` prints for a file holding
    only that slice's rows."""
    got = report(["report", "preds.csv", "--oos-label", "oos", "--by", "channel"], files)
    row = next(r for r in got["slices"][0]["rows"] if r["slice"] == {"channel": "app"})
    keep = data["channel"] == "app"
    part = {k: v[keep] for k, v in data.items()}
    _csv(tmp_path / "app.csv", part, n=int(keep.sum()))
    card = card_of(["report", str(tmp_path / "app.csv"), "--oos-label", "oos"])
    assert row["n"] == card.metrics.n_examples
    for k in HEADLINE:
        assert row[k] == getattr(card.metrics, k), k
    assert card.calibration is not None
    for k in ("ece", "mce", "brier"):
        assert row[k] == pytest.approx(getattr(card.calibration, k), rel=1e-12), k


def test_min_slice_size_lists_small_slices_apart(files, data):
    got = report(["report", "preds.parquet", "--oos-label", "oos", "--by", "region",
                  "--by", "region,channel", "--min-slice-size", "100"], files)
    by_region, crossed = got["slices"]
    n_latam = int((data["region"] == "latam").sum())
    assert 0 < n_latam < 100
    assert by_region["too_small"] == [{"slice": {"region": "latam"}, "n": n_latam}]
    assert "latam" not in {r["slice"]["region"] for r in by_region["rows"]}
    assert {tuple(s["slice"].values()) for s in crossed["too_small"]} == {
        ("latam", "app"), ("latam", "web")}
    assert all(r["n"] >= 100 for r in crossed["rows"])
    check_rows(by_region, data)
    check_order(by_region)


def test_text_table(files):
    rc, out, err = run(["report", "preds.csv", "--oos-label", "oos", "--by", "region",
                        "--by", "region,channel", "--min-slice-size", "100"], files)
    assert rc == 0, err
    text = out.split("\nby region (", 1)[1]
    lines = text.splitlines()
    assert lines[0] == "3 slices, worst first)"
    head = lines[1].split()
    assert head[:3] == ["region", "n", "accuracy"] and head[-1] == "Brier"
    assert lines[2].endswith("< worst") and not lines[3].endswith("< worst")
    # aligned: every line as wide as the heading (the worst's mark after it)
    assert {len(line.removesuffix("  < worst")) for line in lines[1:5]} == {len(lines[1])}
    assert lines[5].startswith("  too small (< 100 rows, not scored): latam (")
    assert "\nby region x channel (6 slices, worst first)\n" in out


def test_without_probabilities_or_oos_only_their_columns(files, data):
    got = report(["report", "preds.csv", "--no-prob", "--by", "channel"], files)
    (table,) = got["slices"]
    assert set(table["rows"][0]) == {"slice", "n", "accuracy", "macro_f1", "weighted_f1",
                                     "worst"}
    for row in table["rows"]:
        mask = mask_of(data, row["slice"])
        m = fm.score(data["y_true"][mask], data["y_pred"][mask])
        assert (row["accuracy"], row["macro_f1"], row["weighted_f1"]) == (
            m.accuracy, m.macro_f1, m.weighted_f1)


def test_number_labels_and_a_matrix_read_in_label_order(tmp_path):
    """Labels that read as numbers (the calibration decides their type after the last batch)
    and an NPZ probability matrix, whose columns are binned only once the label order is
    known: every slice still has its rows' calibration."""
    rng = np.random.default_rng(3)
    n = 900
    yt = rng.integers(0, 3, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, 3, n))
    prob = rng.dirichlet(np.ones(3), n)
    prob /= prob.sum(axis=1, keepdims=True)
    group = rng.integers(10, 13, n)
    np.savez(tmp_path / "run.npz", y=yt, yhat=yp, proba=prob, g=group)
    with open(tmp_path / "run.csv", "w") as f:
        f.write("y_true,y_pred,g,p_0,p_1,p_2\n")
        f.writelines(f"{a},{b},{c}," + ",".join(map(repr, p.tolist())) + "\n"
                     for a, b, c, p in zip(yt, yp, group, prob))
    npz = report(["report", "run.npz", "--true", "y", "--pred", "yhat", "--prob", "proba",
                  "--by", "g"], tmp_path)
    csv = report(["report", "run.csv", "--by", "g", "--batch-rows", "200"], tmp_path)
    for got, keys in ((npz, {10, 11, 12}), (csv, {"10", "11", "12"})):
        (table,) = got["slices"]
        assert {r["slice"]["g"] for r in table["rows"]} == keys
        for row in table["rows"]:
            mask = group == int(row["slice"]["g"])
            s = fm.calibration_summary(yt[mask], prob[mask], labels=[0, 1, 2])
            assert row["macro_f1"] == fm.score(yt[mask], yp[mask]).macro_f1
            for k in ("ece", "mce", "brier"):
                assert row[k] == pytest.approx(getattr(s, k), rel=1e-12, abs=1e-15), k
        check_order(table)


def test_html_has_a_table_per_slicing(files, tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")
    page = tmp_path / "r.html"
    rc, out, err = run(["report", "preds.csv", "--oos-label", "oos", "--by", "region",
                        "--by", "region,channel", "--min-slice-size", "100",
                        "--html", page], files)
    assert rc == 0, err
    text = page.read_text(encoding="utf-8")
    assert text.count('<table class="slices">') == 2
    assert '<section id="slices">' in text and "<h3>by region</h3>" in text
    assert text.count('<tr class="worst"') >= 2
    assert "Too small (&lt; 100 rows, not scored): latam (" in text


def test_json_without_by_has_no_slices(files):
    assert "slices" not in report(["report", "preds.csv"], files)


def _one_error_line(rc, out, err, *words):
    assert rc == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fastmetrics: error: ")
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.mark.parametrize("argv,words", [
    (["--by", "nope"], ["unknown --by column 'nope'", "columns are: y_true, y_pred, region"]),
    (["--by", "region,nope"], ["unknown --by column 'nope'"]),
    (["--by", "region", "--min-slice-size", "0"], ["--min-slice-size", "whole number >= 1"]),
    (["--by", "region", "--min-slice-size", "-3"], ["--min-slice-size"]),
    (["--by", "region", "--min-slice-size", "x"], ["--min-slice-size"]),
    (["--by", "region,"], ["--by: wants COL or COL,COL"]),
    (["--by", "region,region"], ["names a column twice"]),
])
def test_bad_arguments(files, argv, words):
    _one_error_line(*run(["report", "preds.csv", "--no-prob", *argv], files), *words)


@pytest.mark.parametrize("reader", ["default", "csv module"])
def test_missing_slice_value_in_csv(tmp_path, data, reader, monkeypatch):
    if reader == "csv module":
        monkeypatch.setattr(readers, "have_pyarrow", lambda: False)
    _csv(tmp_path / "gap.csv", data, n=300, blank_region_row=123)
    _one_error_line(*run(["report", "gap.csv", "--by", "region", "--batch-rows", "100"],
                         tmp_path), "--by column 'region' has a missing value",
                    "data row 124")


def test_missing_slice_value_in_parquet(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    pq.write_table(pa.table({"y_true": ["a", "b", "a"], "y_pred": ["a", "a", "a"],
                             "region": ["eu", None, "us"], "score": [1.0, float("nan"), 2.0]}),
                   tmp_path / "gap.parquet")
    _one_error_line(*run(["report", "gap.parquet", "--by", "region"], tmp_path),
                    "--by column 'region' has a missing value", "data row 2")
    _one_error_line(*run(["report", "gap.parquet", "--by", "score"], tmp_path),
                    "--by column 'score' has a missing value", "data row 2")
    # a null label of a dictionary-encoded column is missing too, not another row's label
    pq.write_table(pa.table({"y_true": ["a", None, "b"], "y_pred": ["a", "a", "b"]}),
                   tmp_path / "gap_label.parquet")
    _one_error_line(*run(["report", "gap_label.parquet"], tmp_path),
                    "the --true column has an empty value (data row 2)")
