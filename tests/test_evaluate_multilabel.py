"""The multilabel task of ``fastmetrics.evaluate``: one 0/1 column per label, true and
predicted (or scored), every default metric and the per-label rows against scikit-learn on
each slice's rows (a pandas groupby), from every kind of input, in bounded memory."""

from __future__ import annotations

import json

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.cli import main
from fastmetrics._states.multilabel import PROFILE_METRICS
from fastmetrics.evaluation import TASK_METRICS

pd = pytest.importorskip("pandas")
skm = pytest.importorskip("sklearn.metrics")

L = 5
TRUE = [f"y_{j}" for j in range(L)]
PROB = [f"p_{j}" for j in range(L)]
PRED = [f"q_{j}" for j in range(L)]
BY = ["region", ["region", "device"]]


def _table(n: int = 100_000, seed: int = 0) -> pd.DataFrame:
    """Labels of unequal frequency (one rare), a scoring model that sees them through
    noise, a 0/1 model that misses most of them, rows with no true label, two slice
    columns (one region of a few rows) and weights."""
    rng = np.random.default_rng(seed)
    rate = np.array([0.5, 0.3, 0.1, 0.02, 0.6])
    y = (rng.random((n, L)) < rate).astype(np.int64)
    p = np.clip(0.35 * y + 0.65 * rng.random((n, L)), 0, 1)
    q = (y & (rng.random((n, L)) < 0.4)) | (rng.random((n, L)) < 0.05)
    region = rng.choice(["north", "south", "east"], n, p=[0.6, 0.3999, 0.0001])
    cols = {**{c: y[:, j] for j, c in enumerate(TRUE)},
            **{c: p[:, j] for j, c in enumerate(PROB)},
            **{c: q[:, j].astype(np.int8) for j, c in enumerate(PRED)},
            "region": region, "device": rng.integers(0, 3, n),
            "w": rng.random(n) + 0.01}
    return pd.DataFrame(cols)


@pytest.fixture(scope="module")
def table():
    return _table()


def _rows_of(df: pd.DataFrame, sdict: dict) -> pd.DataFrame:
    if not sdict:
        return df
    return df[np.logical_and.reduce([df[k] == v for k, v in sdict.items()])]


def _reference(yt, yp, w, metric):
    kw = {"sample_weight": w, "zero_division": 0}
    if metric == "accuracy":
        return skm.accuracy_score(yt, yp, sample_weight=w)
    if metric == "hamming_loss":
        return skm.hamming_loss(yt, yp, sample_weight=w)
    name, _, average = metric.rpartition("_")
    if "[" in metric:  # a label's row: precision[y_2]
        base, _, label = metric.partition("[")
        j = TRUE.index(label[:-1])
        f = {"precision": skm.precision_score, "recall": skm.recall_score,
             "f1": skm.f1_score}[base]
        return f(yt[:, j], yp[:, j], **kw)
    f = {"f1": skm.f1_score, "precision": skm.precision_score,
         "recall": skm.recall_score, "jaccard": skm.jaccard_score}[name]
    return f(yt, yp, average=average, **kw)


def _check(ev, df, models, weight=None, threshold=0.5):
    checked = 0
    for r in ev.rows:
        if ":" in r["metric"]:
            continue
        part = _rows_of(df, r["slice"])
        assert r["n"] == len(part)
        cols = models[r["model"]]
        yt = part[TRUE].to_numpy()
        raw = part[cols].to_numpy()
        yp = (raw >= threshold).astype(np.int64) if raw.dtype.kind == "f" else raw
        w = None if weight is None else part[weight].to_numpy()
        want = _reference(yt, yp, w, r["metric"])
        assert r["value"] == pytest.approx(want, rel=1e-12, abs=1e-15), (r, want)
        checked += 1
    return checked


def test_every_value_is_sklearns_on_each_slice(table):
    models = {"scorer": PROB, "tagger": PRED}
    ev = fm.evaluate(table, y_true=TRUE, models={"scorer": PROB, "tagger": {"pred": PRED}},
                     by=BY, batch_rows=30_000)
    assert ev.task == "multilabel" and ev.task_inferred
    n_slices = 1 + table.region.nunique() + len(table.groupby(["region", "device"]))
    per_slice = len(TASK_METRICS["multilabel"]) + 3 * L
    assert _check(ev, table, models) == 2 * n_slices * per_slice
    assert ev.value("f1_micro", "scorer") > ev.value("f1_micro", "tagger")


def test_weights_threshold_and_one_pass_per_batch_size(table):
    part = table.iloc[:20_000]
    kw = dict(y_true=TRUE, prob=PROB, by="region", sample_weight="w", threshold=0.6)
    ev = fm.evaluate(part, **kw)
    _check(ev, part, {"model": PROB}, weight="w", threshold=0.6)
    for rows in (1, 777, 1 << 20):  # any batching: the same values
        other = fm.evaluate(part.iloc[:3_000], batch_rows=rows, **kw)
        base = fm.evaluate(part.iloc[:3_000], **kw)
        for a, b in zip(other.rows, base.rows):
            assert a["metric"] == b["metric"]
            assert a["value"] == pytest.approx(b["value"], rel=1e-12, abs=1e-15)


def test_same_values_from_every_input(table, tmp_path):
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    df = table.iloc[:20_000]
    kw = dict(y_true=TRUE, models={"scorer": PROB, "tagger": PRED}, by=BY)
    want = fm.evaluate(df, **kw).rows
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path,
                   row_group_size=3_000)
    csv = str(tmp_path / "t.csv")
    df.to_csv(csv, index=False)
    others = [fm.evaluate(pl.from_pandas(df), **kw),
              fm.evaluate(pa.Table.from_pandas(df, preserve_index=False), **kw),
              fm.evaluate({c: df[c].to_numpy() for c in df.columns}, **kw),
              fm.evaluate(path, batch_rows=4_000, **kw),
              fm.evaluate(csv, batch_rows=3_999, **kw)]
    dd = pytest.importorskip("dask.dataframe")
    others.append(fm.evaluate(dd.from_pandas(df, npartitions=3), **kw))
    key = lambda r: (r["model"], r["metric"], tuple(map(str, r["slice"].values())))  # noqa: E731
    b = {key(r): r["value"] for r in want}
    for ev in others:
        a = {key(r): r["value"] for r in ev.rows}
        assert a.keys() == b.keys()
        for k in a:
            assert a[k] == pytest.approx(b[k], rel=1e-12, abs=1e-15), k


def test_baseline_deltas_and_gates(table):
    df = table.iloc[:10_000]
    ev = fm.evaluate(df, y_true=TRUE, models={"scorer": PROB, "tagger": PRED},
                     baseline="tagger", by="region", min_slice_size=100,
                     gates=["f1_samples:delta>=0.05", "hamming_loss<=0.01"], ci=0.9)
    deltas = {r["metric"]: r["value"] for r in ev.rows
              if r["metric"].endswith(":delta") and not r["slice"]}
    assert deltas["f1_samples:delta"] == pytest.approx(
        ev.value("f1_samples", "scorer") - ev.value("f1_samples", "tagger"), rel=1e-12)
    verdicts = {g["gate"]: g["passed"] for g in ev.gates if g["model"] == "scorer"}
    assert verdicts == {"f1_samples:delta>=0.05": True, "hamming_loss<=0.01": False}
    assert not ev.passed
    # intervals from the profiles (the deltas' from the joint profiles); none for macro F1
    # or the per-label rows
    for r in ev.rows:
        if r["metric"].partition(":")[0] in PROFILE_METRICS:
            assert r["ci_low"] <= r["value"] <= r["ci_high"], r
        else:
            assert r["ci_low"] is None and r["ci_high"] is None, r
    assert {t["slice"]["region"] for t in ev.too_small} == {"east"}


def test_intervals_are_the_row_bootstrap():
    """Drawing the rows' profile counts is drawing rows: the percentile intervals agree
    with a brute-force bootstrap of the rows through scikit-learn (Monte Carlo noise
    aside); the same seed gives the same intervals; weighted rows get none."""
    rng = np.random.default_rng(4)
    n = 1_500
    y = (rng.random((n, 3)) < 0.3).astype(int)
    p = ((y & (rng.random((n, 3)) < 0.6)) | (rng.random((n, 3)) < 0.1)).astype(int)
    data = {**{f"y{j}": y[:, j] for j in range(3)}, **{f"p{j}": p[:, j] for j in range(3)},
            "w": rng.random(n)}
    kw = dict(y_true=["y0", "y1", "y2"], pred=["p0", "p1", "p2"], ci=0.9, n_boot=2000)
    ev = fm.evaluate(data, **kw)
    ref = {"accuracy": skm.accuracy_score, "hamming_loss": skm.hamming_loss,
           "f1_samples": lambda a, b: skm.f1_score(a, b, average="samples", zero_division=0),
           "jaccard_samples": lambda a, b: skm.jaccard_score(a, b, average="samples",
                                                             zero_division=0),
           "precision_micro": lambda a, b: skm.precision_score(a, b, average="micro")}
    boot = {k: [] for k in ref}
    draws = np.random.default_rng(5)
    for _ in range(400):
        i = draws.integers(0, n, n)
        for k, f in ref.items():
            boot[k].append(f(y[i], p[i]))
    got = {r["metric"]: r for r in ev.rows}
    for k in ref:
        lo, hi = np.percentile(boot[k], [5, 95])
        r = got[k]
        width = hi - lo
        assert abs(r["ci_low"] - lo) < 0.25 * width and abs(r["ci_high"] - hi) < 0.25 * width, k
    assert got["f1_macro"]["ci_low"] is None
    again = fm.evaluate(data, **kw)
    assert [(r["ci_low"], r["ci_high"]) for r in again.rows] == \
        [(r["ci_low"], r["ci_high"]) for r in ev.rows]
    weighted = fm.evaluate(data, sample_weight="w", **kw)
    assert all(r["ci_low"] is None for r in weighted.rows)


def test_paired_deltas_are_the_row_bootstrap_of_the_difference():
    """A resample draws rows carrying both models' labels: the joint profile tally's draws
    give the interval of the difference a brute-force paired bootstrap gives."""
    rng = np.random.default_rng(6)
    n = 2_000
    y = (rng.random((n, 4)) < 0.3).astype(int)
    a = ((y & (rng.random((n, 4)) < 0.7)) | (rng.random((n, 4)) < 0.08)).astype(int)
    b = ((y & (rng.random((n, 4)) < 0.6)) | (rng.random((n, 4)) < 0.1)).astype(int)
    data = {**{f"y{j}": y[:, j] for j in range(4)}, **{f"a{j}": a[:, j] for j in range(4)},
            **{f"b{j}": b[:, j] for j in range(4)}, "seg": rng.choice(["x", "z"], n)}
    ev = fm.evaluate(data, y_true=[f"y{j}" for j in range(4)],
                     models={"a": [f"a{j}" for j in range(4)], "b": [f"b{j}" for j in range(4)]},
                     baseline="b", by="seg", ci=0.9, n_boot=2000, batch_rows=600,
                     gates=["f1_samples:better", "hamming_loss:better"])
    ref = {"f1_samples": lambda t, p: skm.f1_score(t, p, average="samples", zero_division=0),
           "hamming_loss": skm.hamming_loss, "accuracy": skm.accuracy_score,
           "recall_micro": lambda t, p: skm.recall_score(t, p, average="micro")}
    boot = {k: [] for k in ref}
    draws = np.random.default_rng(7)
    for _ in range(400):
        i = draws.integers(0, n, n)
        for k, f in ref.items():
            boot[k].append(f(y[i], a[i]) - f(y[i], b[i]))
    got = {r["metric"]: r for r in ev.rows if not r["slice"] and r["model"] == "a"}
    for k in ref:
        lo, hi = np.percentile(boot[k], [5, 95])
        r = got[k + ":delta"]
        width = hi - lo
        assert abs(r["ci_low"] - lo) < 0.25 * width and abs(r["ci_high"] - hi) < 0.25 * width, k
    assert got["f1_macro:delta"]["ci_low"] is None
    sliced = [r for r in ev.rows if r["slice"] and r["metric"].endswith(":delta")
              and r["metric"].partition(":")[0] in PROFILE_METRICS]
    assert len(sliced) == 2 * len(PROFILE_METRICS)
    assert all(r["ci_low"] <= r["value"] <= r["ci_high"] for r in sliced)
    assert all(g["passed"] and "(paired)" in g["reason"] for g in ev.gates)


def test_memory_is_bounded_by_profiles_not_rows(table):
    """The streamed state keeps the distinct (tp, pred, true) profiles: at most
    (L + 1)^3 of them, however many rows."""
    acc = fm.streaming.ConfusionAccumulator()
    y, p = table[TRUE].to_numpy(), table[PRED].to_numpy()
    for i in range(0, len(table), 10_000):
        acc.update(y[i:i + 10_000], p[i:i + 10_000])
    st = acc.state
    assert not st.rows_kept and st.yt is None
    assert st.profiles.shape[0] <= (L + 1) ** 3
    assert st.profile_weights.sum() == len(table)


def test_cli(table, tmp_path, capsys):
    path = str(tmp_path / "t.parquet")
    table.iloc[:5_000].to_parquet(path)
    out_path = tmp_path / "rows.json"
    rc = main(["evaluate", path, "--true", ",".join(TRUE), "--model",
               "scorer=" + ",".join(PROB), "--model", "tagger=" + ",".join(PRED),
               "--by", "region", "--baseline", "tagger", "--format", "json",
               "--output", str(out_path), "--gate", "f1_micro:delta>=0"])
    assert rc == 0, capsys.readouterr().err
    d = json.loads(out_path.read_text())
    assert d["task"] == "multilabel"
    names = {r["metric"] for r in d["rows"]}
    assert set(TASK_METRICS["multilabel"]) <= names and f"f1[{TRUE[3]}]" in names
    rc = main(["evaluate", path, "--true", ",".join(TRUE), "--prob-prefix", "p_",
               "--threshold", "0.8", "--format", "json", "--metric", "f1_samples"])
    got = json.loads(capsys.readouterr().out)["rows"][0]["value"]
    assert rc == 0 and got == fm.evaluate(path, y_true=TRUE, prob="p_", threshold=0.8,
                                          metrics=["f1_samples"]).rows[0]["value"]
    assert got != fm.evaluate(path, y_true=TRUE, prob="p_",
                              metrics=["f1_samples"]).rows[0]["value"]
    rc = main(["evaluate", path, "--true", ",".join(TRUE), "--pred", ",".join(PRED),
               "--gate", "hamming_loss<=0.001"])
    captured = capsys.readouterr()
    assert rc == 1 and "gate failed: hamming_loss<=0.001" in captured.err
    rc = main(["evaluate", path, "--true", ",".join(TRUE), "--pred", ",".join(PRED[:-1]),
               "--output", str(tmp_path / "never.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "4 label columns" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "never.json").exists()


@pytest.mark.parametrize("change, kwargs, match", [
    (lambda d: d.assign(y_2=np.where(d.index == 7, np.nan, d.y_2)), {}, "'y_2' contains NaN"),
    (lambda d: d.assign(y_1=d.y_1 * 2), {}, "'y_1' contains values other than 0 and 1"),
    (lambda d: d.assign(q_0=d.q_0 + 1), {}, "'q_0' contains values other than 0 and 1"),
    (lambda d: d.assign(y_0=d.y_0.astype(str)), {}, "'y_0' is not numeric"),
    (lambda d: d.assign(p_4=np.where(d.index == 2, np.nan, d.p_4)),
     {"models": {"m": PROB}}, "'p_4' contains NaN"),
    (lambda d: d, {"models": {"m": PRED[:2]}}, "2 label columns"),
    (lambda d: d, {"task": "binary"}, "multilabel task's"),
    (lambda d: d, {"metrics": ["roc_auc"]}, "unknown metric"),
    (lambda d: d, {"y_true": TRUE[:1]}, "two label columns or more"),
    (lambda d: d, {"y_true": "y_0", "task": "multilabel"}, "list of the label columns"),
    (lambda d: d, {"models": None, "pred": PRED, "prob": PROB}, "not both"),
    (lambda d: d.drop(columns="y_3"), {}, "y_3"),
    (lambda d: d, {"threshold": float("nan")}, "threshold must be a finite number"),
])
def test_bad_input(table, change, kwargs, match):
    kw = {"y_true": TRUE, "models": {"m": PRED}, **kwargs}
    with pytest.raises((ValueError, KeyError), match=match):
        fm.evaluate(change(table.iloc[:300].copy()), **kw)
