"""Intervals of the regression task's error metrics: the central limit interval of the mean
of each row's absolute (or squared) error, from the errors the state keeps (the relative
error's from the mean and spread of the rows' relative errors, fed to sums), and the paired
interval of a candidate's difference to the baseline (each row's difference: both models'
errors are kept for the same rows in the same order, whatever the input and batching)."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

import fastmetrics as fm

from _evaluate_faces import assert_same_intervals_from_every_input

pd = pytest.importorskip("pandas")
skm = pytest.importorskip("sklearn.metrics")

Z95 = NormalDist().inv_cdf(0.975)


def _table(n: int = 6_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    return pd.DataFrame({"y": y, "new": y + rng.normal(0, 0.5, n),
                         "old": y + rng.normal(0, 0.55, n) + 0.05,
                         "seg": rng.choice(["a", "b", "c"], n), "w": rng.random(n)})


def _normal(v: np.ndarray) -> tuple[float, float]:
    half = Z95 * v.std(ddof=1) / np.sqrt(v.shape[0])
    return v.mean() - half, v.mean() + half


def _influence(name: str, y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Each row's first-order effect on R² (or explained variance), from the rows: the
    ratio's standard error is the root of their sum of squares over n."""
    e = y - pred
    v = y.var()
    loss = (e * e).mean() if name == "r2" else e.var()
    sq = (e * e) if name == "r2" else (e - e.mean()) ** 2
    return -(sq - loss) / v + loss * ((y - y.mean()) ** 2 - v) / v**2


@pytest.fixture(scope="module")
def table():
    return _table()


KW = dict(y_true="y", models={"new": "new", "old": "old"}, task="regression", by="seg",
          ci=0.95, baseline="old")


def test_intervals_are_the_normal_ones_of_each_slice(table):
    ev = fm.evaluate(table, batch_rows=1_000, **KW)
    checked = 0
    for r in ev.rows:
        part = table if not r["slice"] else table[table.seg == r["slice"]["seg"]]
        name = r["metric"].partition(":")[0]
        if name == "median_absolute_error" and not r["metric"].endswith(":delta"):
            a = np.sort(np.abs(part.y.to_numpy() - part[r["model"]].to_numpy()))
            n = a.shape[0]  # ranks floor((n - z sqrt n) / 2), ceil(1 + (n + z sqrt n) / 2)
            lo_rank = int(np.floor((n - Z95 * np.sqrt(n)) / 2))
            hi_rank = int(np.ceil(1 + (n + Z95 * np.sqrt(n)) / 2))
            assert (r["ci_low"], r["ci_high"]) == (a[lo_rank - 1], a[hi_rank - 1]), r
            checked += 1
            continue
        if name in ("r2", "explained_variance"):  # the delta method, on the rows
            y = part.y.to_numpy()
            psi = {m: _influence(name, y, part[m].to_numpy()) for m in ("new", "old")}
            u = psi["new"] - psi["old"] if r["metric"].endswith(":delta") else \
                psi[r["model"]]
            half = Z95 * np.sqrt((u * u).sum()) / y.shape[0]
            assert r["ci_low"] == pytest.approx(r["value"] - half, rel=1e-9, abs=1e-12) and \
                r["ci_high"] == pytest.approx(r["value"] + half, rel=1e-9, abs=1e-12), r
            checked += 1
            continue
        if name not in ("mean_absolute_error", "mean_squared_error",
                        "root_mean_squared_error", "mean_absolute_percentage_error"):
            assert r["ci_low"] is None, r
            continue
        errors = {m: np.abs(part.y.to_numpy() - part[m].to_numpy()) for m in ("new", "old")}
        power = 1 if name in ("mean_absolute_error", "mean_absolute_percentage_error") else 2
        if name == "mean_absolute_percentage_error":  # scikit-learn's relative errors
            scale = np.maximum(np.abs(part.y.to_numpy()), np.finfo(np.float64).eps)
            errors = {m: e / scale for m, e in errors.items()}
        if r["metric"].endswith(":delta"):
            if name == "root_mean_squared_error":  # the delta method, on the rows
                sq = {m: errors[m] ** 2 for m in ("new", "old")}
                rmse = {m: np.sqrt(sq[m].mean()) for m in sq}
                u = sq["new"] / (2 * rmse["new"]) - sq["old"] / (2 * rmse["old"])
                half = Z95 * u.std(ddof=1) / np.sqrt(u.shape[0])
                lo, hi = (rmse["new"] - rmse["old"] - half, rmse["new"] - rmse["old"] + half)
            else:
                lo, hi = _normal(errors["new"] ** power - errors["old"] ** power)
        else:
            lo, hi = _normal(errors[r["model"]] ** power)
            if name == "root_mean_squared_error":
                lo, hi = np.sqrt(lo), np.sqrt(hi)
        assert r["ci_low"] == pytest.approx(lo, rel=1e-9) and \
            r["ci_high"] == pytest.approx(hi, rel=1e-9), r
        checked += 1
    assert checked == 4 * (7 * 2 + 6)  # 4 tables: 7 metrics x 2 models + 6 deltas


def test_the_bootstrap_of_the_rows_agrees(table):
    y, new, old = (table[c].to_numpy() for c in ("y", "new", "old"))
    ev = fm.evaluate(table, **KW)
    rng = np.random.default_rng(1)
    mae, delta, rmse_delta, r2, r2_delta, ev_new = [], [], [], [], [], []
    for _ in range(1_000):
        i = rng.integers(0, y.shape[0], y.shape[0])
        a, b = np.abs(y[i] - new[i]), np.abs(y[i] - old[i])
        mae.append(a.mean())
        delta.append(a.mean() - b.mean())
        rmse_delta.append(np.sqrt((a * a).mean()) - np.sqrt((b * b).mean()))
        r2_new, r2_old = skm.r2_score(y[i], new[i]), skm.r2_score(y[i], old[i])
        r2.append(r2_new)
        r2_delta.append(r2_new - r2_old)
        ev_new.append(skm.explained_variance_score(y[i], new[i]))
    got = {r["metric"]: r for r in ev.rows if r["model"] == "new" and not r["slice"]}
    for name, values in (("mean_absolute_error", mae), ("mean_absolute_error:delta", delta),
                         ("root_mean_squared_error:delta", rmse_delta), ("r2", r2),
                         ("r2:delta", r2_delta), ("explained_variance", ev_new)):
        lo, hi = np.percentile(values, [2.5, 97.5])
        width = hi - lo
        assert abs(got[name]["ci_low"] - lo) < 0.15 * width, name
        assert abs(got[name]["ci_high"] - hi) < 0.15 * width, name


def test_same_intervals_from_every_input(table, tmp_path):
    assert_same_intervals_from_every_input(table, KW, tmp_path)


def test_better_gate_reads_the_paired_interval_and_weights_get_none(table):
    ev = fm.evaluate(table, **KW, gates=["mean_absolute_error:better",
                                         "mean_squared_error:better",
                                         "root_mean_squared_error:better",
                                         "mean_absolute_percentage_error:better",
                                         "r2:better", "explained_variance:better"])
    by = {g["gate"]: g for g in ev.gates}
    assert all("(paired)" in g["reason"] for g in ev.gates), ev.gates
    assert by["mean_absolute_error:better"]["passed"]
    assert by["mean_squared_error:better"]["passed"]
    assert by["root_mean_squared_error:better"]["passed"]
    assert by["r2:better"]["passed"] and by["explained_variance:better"]["passed"]
    # relative errors of targets near 0 spread widely: the interval decides, either way
    d = next(r for r in ev.rows if r["metric"] == "mean_absolute_percentage_error:delta"
             and not r["slice"])
    assert by["mean_absolute_percentage_error:better"]["passed"] == (d["ci_high"] < 0)
    weighted = fm.evaluate(table, **KW, sample_weight="w")
    assert all(r["ci_low"] is None for r in weighted.rows)


def test_ratio_intervals_of_targets_far_from_zero():
    # targets around 10^6 that spread by 1: the influences are centred on the first
    # read's means, so nothing large cancels
    rng = np.random.default_rng(3)
    n = 20_000
    y = 1e6 + rng.normal(size=n)
    df = pd.DataFrame({"y": y, "p": y + rng.normal(0, 0.5, n), "q": y + rng.normal(0, 0.6, n)})
    ev = fm.evaluate(df, y_true="y", models={"p": "p", "q": "q"}, task="regression",
                     ci=0.95, baseline="q", batch_rows=3_000)
    rows = {(r["model"], r["metric"]): r for r in ev.rows}
    for name in ("r2", "explained_variance"):
        psi = {m: _influence(name, y, df[m].to_numpy()) for m in ("p", "q")}
        for key, u in (((("p", name)), psi["p"]), ((("p", name + ":delta")),
                                                   psi["p"] - psi["q"])):
            half = Z95 * np.sqrt((u * u).sum()) / n
            r = rows[key]
            assert (r["ci_high"] - r["ci_low"]) / 2 == pytest.approx(half, rel=1e-6), r
    # a constant target: no ratio, no interval
    flat = fm.evaluate(pd.DataFrame({"y": np.ones(50), "p": np.linspace(0, 2, 50)}),
                       y_true="y", score="p", task="regression", ci=0.95)
    assert all(r["ci_low"] is None for r in flat.rows if r["metric"] in ("r2",
                                                                        "explained_variance"))


def test_a_second_read_with_a_slice_the_first_did_not_count_is_an_error(table):
    from fastmetrics import evaluation

    first = table.iloc[:2_000]
    ev_table = evaluation._Table(first, 1 << 20)
    job = evaluation.Job(ev_table.names, **KW)
    job.resolve(first.y.to_numpy(), ev_table.kind_of)
    plan = job.plan()
    for batch in ev_table.batches(job.needed):
        plan.update(batch, "y", None)
    second = plan.second_read("old", 0.95, None)
    assert isinstance(second, evaluation.SpreadRatios)
    other = table.iloc[2_000:3_000].copy()
    other["seg"] = "z"  # a slice the first read did not see
    with pytest.raises(ValueError, match="did not count"):
        second.feed({c: other[c].to_numpy() for c in second.columns("y")}, "y")
    assert plan.second_read("old", None, None) is None  # no interval asked
    assert plan.second_read("old", 0.95, "w") is None  # weights
