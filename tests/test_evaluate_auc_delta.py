"""The paired interval of a candidate's ROC AUC difference to the baseline (DeLong's
covariance of two AUCs on the same rows), whole table and every slice: the first read's
exact ranking states give each distinct score's placement, a second read of the labels and
scores gives each row its two placements. It must be ``delong_test``'s interval on the
slice's rows, from every input."""

from __future__ import annotations

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics import evaluation

from _evaluate_faces import assert_same_intervals_from_every_input

pd = pytest.importorskip("pandas")


def _table(n: int = 4_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({
        "y": y,
        # scores of 2 decimals: many ties within and across the models
        "new": np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1), 2),
        "old": np.round(np.clip(0.2 * y + 0.8 * rng.random(n), 0, 1), 2),
        "third": rng.random(n).astype(np.float32),
        "seg": rng.choice(["a", "b", "c"], n), "dev": rng.integers(0, 3, n),
        "w": rng.random(n)})


@pytest.fixture(scope="module")
def table():
    return _table()


KW = dict(y_true="y", models={"new": "new", "old": "old", "third": "third"},
          by=["seg", ["seg", "dev"]], ci=0.95, baseline="old", metrics=["roc_auc"])


def _rows_of(t, sd):
    rows = np.ones(len(t), dtype=bool)
    for c, v in sd.items():
        rows &= (t[c] == v).to_numpy()
    return rows


@pytest.mark.parametrize("batch_rows", [None, 333])
def test_each_slice_is_delong_test_on_its_rows(table, tmp_path, batch_rows):
    data, extra = table, {}
    if batch_rows is not None:  # a file read in batches, twice
        data = str(tmp_path / "t.parquet")
        table.to_parquet(data)
        extra = {"batch_rows": batch_rows}
    ev = fm.evaluate(data, **KW, **extra)
    checked = 0
    for r in ev.rows:
        if r["metric"] != "roc_auc:delta":
            continue
        rows = _rows_of(table, r["slice"])
        y = table.y.to_numpy()[rows]
        want = fm.delong_test(y, table.old.to_numpy()[rows],
                              table[r["model"]].to_numpy()[rows], confidence_level=0.95)
        assert r["value"] == pytest.approx(want.difference, rel=1e-12, abs=1e-15)
        lo, hi = want.confidence_interval
        assert r["ci_low"] == pytest.approx(lo, rel=1e-9, abs=1e-12), r
        assert r["ci_high"] == pytest.approx(hi, rel=1e-9, abs=1e-12), r
        checked += 1
    assert checked == 2 * (1 + 3 + 9)  # 2 candidates x (whole table, 3 + 9 slices)


def test_same_intervals_from_every_input(table, tmp_path):
    assert_same_intervals_from_every_input(table, KW, tmp_path, names={"roc_auc"})


def test_better_gate_reads_the_paired_interval(table):
    ev = fm.evaluate(table, **{**KW, "gates": ["roc_auc:better"]})
    by_model = {g["model"]: g for g in ev.gates}
    assert "(paired)" in by_model["new"]["reason"] and by_model["new"]["passed"]
    d = next(r for r in ev.rows if r["metric"] == "roc_auc:delta" and r["model"] == "third"
             and not r["slice"])
    assert by_model["third"]["passed"] == (d["ci_low"] > 0)


def test_none_without_intervals_with_weights_or_on_small_slices(table):
    for kw in ({**KW, "ci": None}, {**KW, "sample_weight": "w"}):
        ev = fm.evaluate(table, **kw)
        assert all(r["ci_low"] is None for r in ev.rows if r["metric"] == "roc_auc:delta")
    ev = fm.evaluate(table, **{**KW, "min_slice_size": 1_000})
    deltas = [r for r in ev.rows if r["metric"] == "roc_auc:delta"]
    assert {bool(r["slice"]) for r in deltas if r["ci_low"] is not None} == {False, True}
    assert all(r["n"] >= 1_000 for r in deltas)


def test_placements_past_the_bound_give_the_whole_table_only(table, monkeypatch):
    monkeypatch.setattr(evaluation, "_PAIRING_BYTES", 0)
    with pytest.warns(RuntimeWarning, match="the slices' none"):
        ev = fm.evaluate(table, **KW)
    deltas = [r for r in ev.rows if r["metric"] == "roc_auc:delta"]
    assert all((r["ci_low"] is None) == bool(r["slice"]) for r in deltas)


def test_a_second_read_of_other_rows_is_an_error(table):
    plan_rows = table.iloc[:2_000]
    job_kw = {k: v for k, v in KW.items() if k != "metrics"}
    ev_table = evaluation._Table(plan_rows, 1 << 20)
    job = evaluation.Job(ev_table.names, metrics=["roc_auc"], **job_kw)
    job.resolve(plan_rows.y.to_numpy(), ev_table.kind_of)
    plan = job.plan()
    for batch in ev_table.batches(job.needed):
        plan.update(batch, "y", None)
    pairing = plan.second_read("old", 0.95, None)
    other = table.iloc[2_000:].copy()
    other["old"] = other["old"] + 0.001  # scores the first read did not count
    with pytest.raises(ValueError, match="did not count"):
        pairing.feed({c: other[c].to_numpy() for c in pairing.columns("y")}, "y")


@pytest.mark.parametrize("kind", ["decimals", "continuous", "edges", "two"])
def test_bucketed_lookup_is_the_plain_bisection(kind):
    # the whole table's lookup narrows each bisection to a bucket of the score range; a
    # score at a bucket's edge (rounding) falls back to the whole segment: the same rows
    from fastmetrics._states.delong import Placements
    from fastmetrics.states import RankingState

    rng = np.random.default_rng(3)
    n = 20_000
    s = {"decimals": np.round(rng.random(n), 3), "continuous": rng.normal(size=n) * 1e6,
         "two": rng.choice([0.25, 0.75], n)}.get(kind)
    if kind == "edges":  # scores on the buckets' edges, and between neighbouring doubles
        base = np.round(rng.random(n // 2), 2)
        s = np.concatenate([base, np.nextafter(base, 2.0)])
    y = rng.integers(0, 2, s.shape[0])
    fast = Placements([RankingState.from_arrays(y, s)], 1)
    plain = Placements([RankingState.from_arrays(y, s)], 1)
    plain.starts = np.zeros(0, dtype=np.int64)
    assert (fast.starts.shape[0] > 0) == (kind != "two")
    seg = np.zeros(s.shape[0], dtype=np.int64)
    np.testing.assert_array_equal(fast.centred(seg, s, y == 1), plain.centred(seg, s, y == 1))
    with pytest.raises(ValueError, match="did not count"):
        fast.centred(seg[:1], np.array([np.nextafter(s.max(), 3.0)]), np.array([True]))


def test_slices_of_one_class_have_no_auc_and_leave_the_others_alone():
    # a slice of negatives only, one of positives only and one of a single row: no ROC AUC
    # there, so no placements; the second read must pass their rows by, not refuse them
    rng = np.random.default_rng(11)
    n = 4_000
    y = rng.integers(0, 2, n)
    g = rng.integers(0, 3, n)
    y[g == 1] = 0
    y[g == 2] = 1
    g[0] = 3
    d = pd.DataFrame({"y": y, "new": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1),
                      "old": rng.random(n), "g": g})
    kw = dict(y_true="y", models={"new": "new", "old": "old"}, by="g", ci=0.95,
              baseline="old", metrics=["roc_auc"])
    ev = fm.evaluate(d, **kw)
    deltas = {r["slice"].get("g"): r for r in ev.rows if r["metric"] == "roc_auc:delta"}
    assert {k for k, r in deltas.items() if r["ci_low"] is not None} == {None, 0}
    # slice 0's interval is the one it gets alone
    alone = fm.evaluate(d[d.g == 0], **kw)
    want = next(r for r in alone.rows if r["metric"] == "roc_auc:delta" and r["slice"])
    assert (deltas[0]["ci_low"], deltas[0]["ci_high"]) == pytest.approx(
        (want["ci_low"], want["ci_high"]), rel=1e-12)
