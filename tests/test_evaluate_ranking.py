"""The ranking task of ``fastmetrics.evaluate``: NDCG, NDCG@10, MRR and MAP by query,
against scikit-learn's ``ndcg_score`` and ``average_precision_score`` applied query by query
(a pandas groupby), for the whole table and every slice, from every kind of input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics._queries import query_scores
from fastmetrics.cli import main

pd = pytest.importorskip("pandas")
skm = pytest.importorskip("sklearn.metrics")

METRICS = ("ndcg", "ndcg_at_10", "mrr", "map")


def _log(n: int = 6_000, seed: int = 0) -> pd.DataFrame:
    """A ranking log: queries of 1 to 40 documents, graded relevance 0-3, scores of two
    models (one informative, with ties), a slice column that splits some queries."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 41, n // 10)
    q = np.repeat(np.arange(sizes.shape[0]), sizes)[:n]
    rel = rng.integers(0, 4, q.shape[0]) * (rng.random(q.shape[0]) < 0.5)
    good = np.round(0.3 * rel + rng.random(q.shape[0]), 2)  # ties
    return pd.DataFrame({"qid": [f"q{i}" for i in q], "rel": rel, "good": good,
                         "noise": rng.random(q.shape[0]),
                         "dev": rng.choice(["web", "app"], q.shape[0]),
                         "market": rng.integers(0, 3, q.shape[0])})


def _query_values(rel: np.ndarray, score: np.ndarray) -> dict[str, float]:
    """One query's values, the way scikit-learn computes them."""
    score = score.astype(np.float64)  # scikit-learn's ndcg_score negates the scores
    out = {}
    if rel.shape[0] >= 2:
        out["ndcg"] = skm.ndcg_score([rel], [score])
        out["ndcg_at_10"] = skm.ndcg_score([rel], [score], k=10)
    else:  # scikit-learn refuses one document: left out of the mean
        out["ndcg"] = out["ndcg_at_10"] = np.nan
    relevant = rel > 0
    if relevant.any():
        best = score[relevant].max()
        out["mrr"] = 1.0 / (1 + np.count_nonzero(score > best))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["map"] = skm.average_precision_score(relevant, score)
    else:
        out["mrr"] = 0.0
        out["map"] = np.nan
    return out


def _reference(df: pd.DataFrame, score: str) -> dict[tuple[str, ...], dict[str, float]]:
    """(slice text) -> metric -> value: the mean over the slice's queries."""
    def means(part: pd.DataFrame) -> dict[str, float]:
        per = [_query_values(g.rel.to_numpy().astype(float), g[score].to_numpy())
               for _, g in part.groupby("qid", sort=False)]
        out = {"mrr": float(np.mean([p["mrr"] for p in per]))}
        for m in ("ndcg", "ndcg_at_10", "map"):  # over the queries that have a value
            v = [p[m] for p in per if not np.isnan(p[m])]
            out[m] = float(np.mean(v)) if v else float("nan")
        return out

    ref = {(): means(df)}
    for key, part in df.groupby("dev"):
        ref[(f"dev={key}",)] = means(part)
    for (d, m), part in df.groupby(["dev", "market"]):
        ref[(f"dev={d}", f"market={m}")] = means(part)
    return ref


def _got(ev, model: str) -> dict[tuple[str, ...], dict[str, float]]:
    out: dict[tuple[str, ...], dict[str, float]] = {}
    for r in ev.rows:
        if r["model"] == model and ":" not in r["metric"]:
            key = tuple(f"{k}={v}" for k, v in r["slice"].items())
            out.setdefault(key, {})[r["metric"]] = r["value"]
    return out


def _check(ev, df, model="good", column="good"):
    ref, got = _reference(df, column), _got(ev, model)
    if not ev.rows[-1]["slice"]:  # evaluated without slices
        ref = {k: v for k, v in ref.items() if not k}
    assert set(got) == set(ref)
    for key, want in ref.items():
        assert set(got[key]) == set(METRICS)
        for m in METRICS:
            assert got[key][m] == pytest.approx(want[m], rel=1e-12, abs=1e-14), (key, m)


@pytest.fixture(scope="module")
def log():
    return _log()


BY = ["dev", ["dev", "market"]]


def test_every_value_is_sklearns_per_query(log):
    ev = fm.evaluate(log, y_true="rel", models={"good": "good", "noise": "noise"},
                     query="qid", by=BY)
    assert ev.task == "ranking" and ev.task_inferred
    _check(ev, log)
    _check(ev, log, "noise", "noise")
    assert ev.value("ndcg", "good") > ev.value("ndcg", "noise")
    for r in ev.rows:
        assert r["ci_low"] is None and r["ci_high"] is None  # no ci asked
        rows = log if not r["slice"] else log[np.logical_and.reduce(
            [log[k] == v for k, v in r["slice"].items()])]
        assert r["n"] == len(rows)


def test_same_values_from_every_input(log, tmp_path):
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    kw = dict(y_true="rel", models={"good": "good"}, query="qid", by=BY)
    want = fm.evaluate(log, **kw).rows
    path = str(tmp_path / "log.parquet")
    pq.write_table(pa.Table.from_pandas(log, preserve_index=False), path, row_group_size=700)
    csv = str(tmp_path / "log.csv")
    log.to_csv(csv, index=False)
    others = [fm.evaluate(pl.from_pandas(log), **kw),
              fm.evaluate(pa.Table.from_pandas(log, preserve_index=False), **kw),
              fm.evaluate({c: log[c].to_numpy() for c in log.columns}, **kw),
              fm.evaluate(path, batch_rows=1000, **kw),  # queries span batches
              fm.evaluate(csv, batch_rows=999, **kw)]
    dd = pytest.importorskip("dask.dataframe")
    others.append(fm.evaluate(dd.from_pandas(log, npartitions=4), **kw))
    for ev in others:
        assert len(ev.rows) == len(want)
        a = {(r["metric"], tuple(map(str, r["slice"].values()))): r["value"] for r in ev.rows}
        b = {(r["metric"], tuple(map(str, r["slice"].values()))): r["value"] for r in want}
        assert a.keys() == b.keys()
        for k in a:
            assert a[k] == pytest.approx(b[k], rel=1e-12, abs=1e-14), k


def test_integer_scores_and_any_model_name(log):
    """Integer (or boolean) scores rank as numbers, not as predicted labels, and a model may
    take any name (one called "y" does not shadow the relevance)."""
    df = log.assign(rank_score=(log.good * 100).astype(np.int64), flag=log.good > 0.8)
    ev = fm.evaluate(df, y_true="rel", models={"y": "rank_score", "b": "flag"}, query="qid")
    _check(ev, df, "y", "rank_score")
    _check(ev, df, "b", "flag")
    ev = fm.evaluate(df, y_true="rel", score="rank_score", query="qid", task="ranking")
    _check(ev, df, "model", "rank_score")


def test_baseline_gates_and_min_slice_size(log):
    ev = fm.evaluate(log, y_true="rel", models={"good": "good", "noise": "noise"},
                     query="qid", by="dev", baseline="noise", min_slice_size=10,
                     gates=["ndcg_at_10:delta>=0.05", "map>=0.99"], gate_slices=True)
    deltas = {(r["metric"], str(r["slice"])): r["value"] for r in ev.rows
              if r["metric"].endswith(":delta")}
    for m in METRICS:
        assert deltas[(m + ":delta", "{}")] == pytest.approx(
            ev.value(m, "good") - ev.value(m, "noise"), rel=1e-12)
    verdicts = {(g["gate"], g["model"], str(g["slice"])): g["passed"] for g in ev.gates}
    assert verdicts[("ndcg_at_10:delta>=0.05", "good", "{}")] is True
    assert not ev.passed  # map >= 0.99 fails
    small = fm.evaluate(log, y_true="rel", score="good", query="qid", by="dev",
                        min_slice_size=len(log))
    assert {r["slice"]["dev"] for r in small.too_small} == {"web", "app"}
    assert all(not r["slice"] for r in small.rows)


def test_intervals_resample_queries(log):
    """With ci: each metric's interval is the percentile interval of the mean over
    resampled queries (as wide as the normal one, 1.96 standard errors each side, to within
    20 %); a candidate's difference to the baseline is resampled with the same queries
    (paired); random_state reproduces them."""
    kw = dict(y_true="rel", models={"good": "good", "noise": "noise"}, query="qid",
              by="dev", baseline="noise", ci=0.95, n_boot=1000, gates=["ndcg:better"])
    ev = fm.evaluate(log, **kw)
    per = {}
    for model in ("good", "noise"):
        for q, g in log.groupby("qid", sort=False):
            per.setdefault(model, []).append(_query_values(g.rel.to_numpy().astype(float),
                                                           g[model].to_numpy()))
    checked = 0
    for r in ev.rows:
        if r["slice"]:
            assert r["ci_low"] <= r["value"] <= r["ci_high"], r
            continue
        name, _, delta = r["metric"].partition(":")
        if delta:
            v = np.array([a[name] - b[name] for a, b in zip(per["good"], per["noise"])])
        else:
            v = np.array([p[name] for p in per[r["model"]]])
        v = v[~np.isnan(v)]
        half = 1.959964 * v.std(ddof=1) / np.sqrt(v.shape[0])
        assert r["ci_low"] <= r["value"] <= r["ci_high"], r
        assert (r["ci_high"] - r["ci_low"]) / (2 * half) == pytest.approx(1, abs=0.2), r
        checked += 1
    assert checked == 12  # 4 metrics x 2 models + 4 deltas
    assert ev.gates[0]["passed"] and "(paired)" in ev.gates[0]["reason"]
    again = fm.evaluate(log, **kw)
    assert [(r["ci_low"], r["ci_high"]) for r in again.rows] == \
        [(r["ci_low"], r["ci_high"]) for r in ev.rows]
    other = fm.evaluate(log, **{**kw, "random_state": 3})
    assert other.rows[0]["ci_low"] != ev.rows[0]["ci_low"]


def test_cli(log, tmp_path, capsys):
    path = str(tmp_path / "log.parquet")
    log.to_parquet(path)
    rc = main(["evaluate", path, "--true", "rel", "--score", "good", "--query", "qid",
               "--by", "dev", "--format", "json", "--gate", "ndcg>=0"])
    out = capsys.readouterr().out
    assert rc == 0
    import json

    d = json.loads(out)
    assert d["task"] == "ranking"
    assert {r["metric"] for r in d["rows"]} == set(METRICS)
    rc = main(["evaluate", path, "--true", "rel", "--score", "good", "--task", "ranking"])
    err = capsys.readouterr().err
    assert rc == 2 and "query" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("change, kwargs, match", [
    (lambda d: d.assign(rel=-d.rel), {}, "negative relevance"),
    (lambda d: d.assign(rel=np.where(d.index == 3, np.nan, d.rel)), {}, "NaN"),
    (lambda d: d.assign(rel=d.rel.astype(str)), {}, "relevance numbers"),
    (lambda d: d.assign(good=np.where(d.index == 5, np.nan, d.good)), {}, "NaN or infinity"),
    (lambda d: d, {"task": "binary"}, "query= is the ranking task's"),
    (lambda d: d.assign(w=1.0), {"sample_weight": "w"}, "no sample_weight"),
    (lambda d: d, {"metrics": ["roc_auc"]}, "unknown metric"),
    (lambda d: d.drop(columns="qid"), {}, "qid"),
])
def test_bad_input(log, change, kwargs, match):
    with pytest.raises((ValueError, KeyError), match=match):
        fm.evaluate(change(log.iloc[:300].copy()), y_true="rel", score="good", query="qid",
                    **kwargs)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(0, 6)),
                min_size=1, max_size=60),
       st.integers(1, 8))
def test_query_scores_match_sklearn(rows, k):
    """Per query, with heavy ties and queries of one document: scikit-learn's numbers."""
    q_raw = np.array([r[0] for r in rows])
    used, q = np.unique(q_raw, return_inverse=True)
    rel = np.array([r[1] for r in rows], dtype=np.float64)
    score = np.array([r[2] for r in rows], dtype=np.float64) / 2
    got = query_scores(q.astype(np.int64), rel, score, used.shape[0], k)
    for j in range(used.shape[0]):
        m = q == j
        want = _query_values(rel[m], score[m])
        if np.isnan(want["ndcg"]):
            assert np.isnan(got.ndcg[j]) and np.isnan(got.ndcg_at_k[j])
        else:
            assert got.ndcg[j] == pytest.approx(want["ndcg"], rel=1e-12, abs=1e-14)
        assert got.reciprocal_rank[j] == pytest.approx(want["mrr"], rel=1e-12)
        if np.isnan(want["map"]):
            assert np.isnan(got.average_precision[j])
        else:
            assert got.average_precision[j] == pytest.approx(want["map"], rel=1e-12)
        if m.sum() >= 2:
            assert got.ndcg_at_k[j] == pytest.approx(skm.ndcg_score([rel[m]], [score[m]], k=k),
                                                     rel=1e-12, abs=1e-14)
