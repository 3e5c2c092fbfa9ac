"""The evaluation job's rows from other inputs of one table: a Parquet file read in small
batches and a Dask dataframe of several partitions give the in-memory table's intervals."""

import pytest

import fastmetrics as fm


def assert_same_intervals_from_every_input(table, kw, tmp_path, names=None):
    """``names``: the metrics whose intervals are compared (None: every row's)."""
    want = fm.evaluate(table, **kw).rows
    path = str(tmp_path / "t.parquet")
    table.to_parquet(path)
    dd = pytest.importorskip("dask.dataframe")
    for data, extra in ((path, {"batch_rows": 777}),
                        (dd.from_pandas(table, npartitions=3), {})):
        got = fm.evaluate(data, **kw, **extra).rows
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert (a["metric"], a["slice"]) == (b["metric"], b["slice"])
            if names is not None and a["metric"].partition(":")[0] not in names:
                continue
            for k in ("ci_low", "ci_high"):
                if b[k] is None:
                    assert a[k] is None
                else:
                    assert a[k] == pytest.approx(b[k], rel=1e-9), (a, b)
