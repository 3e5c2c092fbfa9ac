"""fastmetrics.evaluate over files, read by the command line's reader: CSV columns typed
over the whole file (a column turning to text late is text), CSV read by the csv module
where pyarrow is not used, NPY and NPZ files, and bad files named by their line."""

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics import _typed_files
from fastmetrics.cli import readers


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({
        "y": y, "new": np.round(np.clip(0.4 * y + 0.6 * rng.random(n), 0, 1), 3),
        "old": np.round(rng.random(n), 3), "tier": rng.integers(0, 4, n)})


KW = dict(y_true="y", models={"new": "new", "old": "old"}, by="tier", baseline="old",
          ci=0.9)


def _same(a, b):
    ta, tb = a.table("pandas"), b.table("pandas")
    assert ta[["model", "slicing", "slice", "metric", "n"]].equals(
        tb[["model", "slicing", "slice", "metric", "n"]])
    for c in ("value", "ci_low", "ci_high"):
        np.testing.assert_allclose(ta[c].to_numpy(float), tb[c].to_numpy(float),
                                   rtol=1e-12, atol=1e-15)


def test_a_slice_column_turning_to_text_past_its_first_block_is_text(tmp_path, monkeypatch):
    df = _data(100_000)
    df["tier"] = df["tier"].astype(object)
    df.loc[len(df) - 1, "tier"] = "x"  # integers for 1.5 MB, then one text
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    # the typing read in batches of 1,000 rows: pyarrow's blocks of 1 MiB, so the text is
    # met in the second block, after the column was read as numbers
    monkeypatch.setattr(_typed_files, "_TYPING_ROWS", 1000)
    ev = fm.evaluate(path, **KW)
    want = df.assign(tier=df["tier"].astype(str))
    _same(ev, fm.evaluate(want, **KW))
    assert ev.value("roc_auc", "new", {"tier": "x"}) != ev.value("roc_auc", "new")
    assert {r["slice"]["tier"] for r in ev.rows if r["slice"]} == {"0", "1", "2", "3", "x"}


def test_integer_columns_stay_integers(tmp_path):
    df = _data()
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    ev = fm.evaluate(path, **KW)
    _same(ev, fm.evaluate(df, **KW))
    assert {r["slice"]["tier"] for r in ev.rows if r["slice"]} == {0, 1, 2, 3}


def test_the_csv_module_reads_what_pyarrow_reads(tmp_path, monkeypatch):
    df = _data()
    df["tier"] = np.where(df["tier"] == 3, "top", df["tier"].astype(str))
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    with_arrow = fm.evaluate(path, **KW)
    monkeypatch.setattr(readers, "have_pyarrow", lambda: False)
    _same(fm.evaluate(path, **KW), with_arrow)
    _same(with_arrow, fm.evaluate(df, **KW))


def test_npy_and_npz_files_give_the_rows_of_their_arrays(tmp_path):
    df = _data()
    cols = {c: df[c].to_numpy() for c in df.columns}
    np.savez(tmp_path / "p.npz", **cols)
    rec = np.zeros(len(df), dtype=[(c, a.dtype) for c, a in cols.items()])
    for c, a in cols.items():
        rec[c] = a
    np.save(tmp_path / "p.npy", rec)
    want = fm.evaluate(cols, **KW)
    _same(fm.evaluate(tmp_path / "p.npz", **KW), want)
    _same(fm.evaluate(tmp_path / "p.npy", **KW), want)


def test_labels_of_numbers_and_text_are_all_text(tmp_path):
    rng = np.random.default_rng(3)
    n = 2000
    y = rng.integers(1, 4, n).astype(str)
    pred = np.where(rng.random(n) < 0.7, y, rng.choice(["1", "2", "3", "unknown"], n))
    path = tmp_path / "p.csv"
    pd.DataFrame({"y": y, "pred": pred}).to_csv(path, index=False)
    ev = fm.evaluate(path, y_true="y", pred="pred")
    assert ev.task == "multiclass"
    assert ev.value("accuracy") == skm.accuracy_score(y, pred)
    # "unknown" is a label of the predictions only, as scikit-learn counts it
    assert ev.value("f1_macro") == pytest.approx(skm.f1_score(y, pred, average="macro"),
                                                 rel=1e-12)


@pytest.mark.parametrize("base", [2**60, 2**53])
def test_integers_beyond_float_precision_are_read_exactly(tmp_path, base):
    df = _data()
    big = base + np.array([0, 1, 2, 3])  # distinct, though not as float64
    df["tier"] = big[df["tier"].to_numpy()]
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    ev = fm.evaluate(path, **KW)
    keys = {r["slice"]["tier"] for r in ev.rows if r["slice"]}
    assert keys == {int(v) for v in big}
    counts = df["tier"].value_counts()
    for r in ev.rows:
        if r["slice"] and r["metric"] == "accuracy" and r["model"] == "new":
            assert r["n"] == counts[r["slice"]["tier"]]
    _same(ev, fm.evaluate(df, **KW))


def test_whole_number_scores_stay_scores(tmp_path):
    """"1.0" is a float, as pandas and pyarrow read it: a score column of whole numbers
    keeps its score metrics, and float labels keep their float names."""
    path = tmp_path / "f.csv"
    path.write_text("y,s\n1,1.0\n0,0.0\n1,0.0\n0,0.0\n1,1.0\n")
    ev = fm.evaluate(path, y_true="y", score="s")
    want = fm.evaluate(pd.read_csv(path), y_true="y", score="s")
    _same(ev, want)
    assert "roc_auc" in {r["metric"] for r in ev.rows}


def test_boolean_labels_compare_as_booleans(tmp_path):
    path = tmp_path / "tf.csv"
    path.write_text("y,p\nTrue,1\nFalse,0\nTrue,1\nFalse,1\n")
    ev = fm.evaluate(path, y_true="y", pred="p")
    assert ev.value("accuracy") == 0.75
    _same(ev, fm.evaluate(pd.read_csv(path), y_true="y", pred="p"))


@pytest.mark.parametrize("text", ["y,s\npos,0.9\nneg,0.2\npos,NA\nneg,0.4\n",
                                  "y,s\npos,0.9\nneg,0.2\npos,\nneg,0.4\n",
                                  "y,s\n1,0.9\n0,0.2\nNA,0.5\n0,0.4\n"])
def test_a_missing_value_is_an_error_naming_its_row(tmp_path, text):
    """A missing score (or label) is refused, naming its row; never a column of labels."""
    path = tmp_path / "na.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match="missing value.*data row 3"):
        fm.evaluate(path, y_true="y", score="s")


def test_files_joined_on_text_ids(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    pq.write_table(pa.table({"id": ["a", "b", "c", "d"], "y": [0, 1, 0, 1]}),
                   tmp_path / "a.parquet")
    (tmp_path / "b.csv").write_text("id,s,note\nd,.9,x\nc,.2,\nb,.8,x\na,.1,x\n")
    ev = fm.evaluate([tmp_path / "a.parquet", tmp_path / "b.csv"], id="id", y_true="y",
                     score="s")
    assert ev.value("roc_auc") == skm.roc_auc_score([0, 1, 0, 1], [.1, .8, .2, .9])


def test_an_npz_column_of_another_shape_is_refused(tmp_path, capsys):
    np.savez(tmp_path / "z.npz", y=np.array([0, 1, 1]), s=np.ones((3, 2)))
    with pytest.raises(ValueError, match="one value per row"):
        fm.evaluate(tmp_path / "z.npz", y_true="y", score="s")
    from fastmetrics.cli import main

    assert main(["evaluate", str(tmp_path / "z.npz"), "--true", "y", "--score", "s"]) == 2
    assert "one value per row" in capsys.readouterr().err


@pytest.mark.parametrize("text, match", [
    ("y,new,old,tier\n1,0.5,0.2,0\n0,0.2\n1,0.9,0.1,1\n", "line 3 has 2 fields"),
    ("y,new,old,tier\n1,0.5,0.2,0\n0,,0.3,1\n1,0.9,0.1,1\n",
     "column 'new' holds 1 missing value \\(the first at data row 2\\)"),
    ("y,new,old,tier\n1,0.5,0.2,0\n,0.1,0.3,1\n1,0.9,0.1,1\n",
     "column 'y' holds 1 missing value \\(the first at data row 2\\)"),
    ("y,new,old,tier\n1,0.5,0.2,0\n0,0.1,abc,1\n1,0.9,0.1,1\n",
     "score column 'old' is not numeric"),
])
def test_bad_lines_are_named(tmp_path, text, match):
    path = tmp_path / "p.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        fm.evaluate(path, **KW)


def test_stdin_cannot_be_read_twice():
    with pytest.raises(ValueError, match="stdin"):
        fm.evaluate("-", y_true="y", score="p")
