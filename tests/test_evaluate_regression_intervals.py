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
    assert checked == 4 * (5 * 2 + 4)  # 4 tables: 5 metrics x 2 models + 4 deltas


def test_the_bootstrap_of_the_rows_agrees(table):
    y, new, old = (table[c].to_numpy() for c in ("y", "new", "old"))
    ev = fm.evaluate(table, **KW)
    rng = np.random.default_rng(1)
    mae, delta, rmse_delta = [], [], []
    for _ in range(1_000):
        i = rng.integers(0, y.shape[0], y.shape[0])
        a, b = np.abs(y[i] - new[i]), np.abs(y[i] - old[i])
        mae.append(a.mean())
        delta.append(a.mean() - b.mean())
        rmse_delta.append(np.sqrt((a * a).mean()) - np.sqrt((b * b).mean()))
    got = {r["metric"]: r for r in ev.rows if r["model"] == "new" and not r["slice"]}
    for name, values in (("mean_absolute_error", mae), ("mean_absolute_error:delta", delta),
                         ("root_mean_squared_error:delta", rmse_delta)):
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
                                         "mean_absolute_percentage_error:better"])
    by = {g["gate"]: g for g in ev.gates}
    assert all("(paired)" in g["reason"] for g in ev.gates), ev.gates
    assert by["mean_absolute_error:better"]["passed"]
    assert by["mean_squared_error:better"]["passed"]
    assert by["root_mean_squared_error:better"]["passed"]
    # relative errors of targets near 0 spread widely: the interval decides, either way
    d = next(r for r in ev.rows if r["metric"] == "mean_absolute_percentage_error:delta"
             and not r["slice"])
    assert by["mean_absolute_percentage_error:better"]["passed"] == (d["ci_high"] < 0)
    weighted = fm.evaluate(table, **KW, sample_weight="w")
    assert all(r["ci_low"] is None for r in weighted.rows)
