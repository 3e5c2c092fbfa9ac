"""fastmetrics.evaluate over a Dask dataframe and over several tables joined on an id column:
the same rows as the in-memory evaluation of the same data (and of the pandas merge)."""

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics.cli import main


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({
        "id": rng.permutation(n), "y": y,
        "new": np.round(np.clip(0.4 * y + 0.6 * rng.random(n), 0, 1), 3),
        "old": np.round(rng.random(n), 3),
        "seg": rng.choice(["a", "b", "c"], n), "tier": rng.integers(0, 3, n)})


def _same(a, b):
    ta, tb = a.table("pandas"), b.table("pandas")
    assert ta[["model", "slicing", "slice", "metric", "n"]].equals(
        tb[["model", "slicing", "slice", "metric", "n"]])
    np.testing.assert_allclose(ta["value"].to_numpy(float), tb["value"].to_numpy(float),
                               rtol=1e-12, atol=1e-15)
    for c in ("ci_low", "ci_high"):
        np.testing.assert_allclose(ta[c].to_numpy(float), tb[c].to_numpy(float),
                                   rtol=1e-12, atol=1e-15)


def test_a_dask_dataframe_gives_the_rows_of_its_data_in_memory():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    df = _data()
    kw = dict(y_true="y", models={"new": "new", "old": "old"}, by=["seg", ["seg", "tier"]],
              ci=0.95, baseline="old", gates=["roc_auc:delta>=0"])
    with dask.config.set(scheduler="synchronous"):
        lazy = fm.evaluate(dd.from_pandas(df, npartitions=4), **kw)
    _same(lazy, fm.evaluate(df, **kw))
    assert lazy.gates == fm.evaluate(df, **kw).gates


def test_tables_joined_on_an_id_give_the_rows_of_their_merge(tmp_path):
    df = _data()
    left = df[["id", "y", "new", "seg"]]
    right = df[["id", "old"]].sample(frac=1.0, random_state=1)  # another row order
    left.to_parquet(tmp_path / "a.parquet")
    right.to_csv(tmp_path / "b.csv", index=False)
    kw = dict(y_true="y", models={"new": "new", "old": "old"}, by="seg")
    joined = fm.evaluate([str(tmp_path / "a.parquet"), str(tmp_path / "b.csv")], id="id", **kw)
    _same(joined, fm.evaluate(left.merge(right, on="id"), **kw))
    merged = left.merge(right, on="id")
    rows = merged["seg"] == "b"
    assert joined.value("roc_auc", "old", {"seg": "b"}) == pytest.approx(
        skm.roc_auc_score(merged["y"][rows], merged["old"][rows]), rel=1e-12)


def test_ids_missing_on_one_side_are_counted_in_the_error(tmp_path, capsys):
    df = _data()
    df[["id", "y", "new"]].to_parquet(tmp_path / "a.parquet")
    df[["id", "old"]].iloc[:-7].to_parquet(tmp_path / "b.parquet")
    with pytest.raises(ValueError, match="7 ids of table 0 are not in table 1"):
        fm.evaluate([str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")], id="id",
                    y_true="y", models={"new": "new", "old": "old"})
    out = tmp_path / "out.json"
    code = main(["evaluate", str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet"),
                 "--id", "id", "--true", "y", "--model", "new=new", "--model", "old=old",
                 "--format", "json", "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "7 ids of table 0" in err
    assert not out.exists()


def test_several_files_need_an_id(tmp_path, capsys):
    df = _data(100)
    df.to_parquet(tmp_path / "a.parquet")
    code = main(["evaluate", str(tmp_path / "a.parquet"), str(tmp_path / "a.parquet"),
                 "--true", "y", "--score", "new"])
    assert code == 2 and "--id" in capsys.readouterr().err
    with pytest.raises(ValueError, match="id= joins several tables"):
        fm.evaluate(df, y_true="y", score="new", id="id")
    with pytest.raises(ValueError, match="held|more than once"):
        fm.evaluate([df, pd.concat([df, df.iloc[:1]])], id="id", y_true="y", score="new")
