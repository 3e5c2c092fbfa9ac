"""Intervals of the log loss and the Brier score in the evaluation job (binary and
multiclass tasks): the central limit interval of the mean of each row's loss, from the mean
and spread of the losses fed to regression sums (no rows kept), and the paired interval of a
candidate's difference to the baseline (each row's difference of the two models' losses)."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

import fastmetrics as fm

from _evaluate_faces import assert_same_intervals_from_every_input

pd = pytest.importorskip("pandas")

Z95 = NormalDist().inv_cdf(0.975)
EPS = np.finfo(np.float64).eps


def _normal(v: np.ndarray) -> tuple[float, float]:
    half = Z95 * v.std(ddof=1) / np.sqrt(v.shape[0])
    return v.mean() - half, v.mean() + half


def _binary(n: int = 8_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({
        "y": y,
        "new": np.clip(0.5 * y + rng.normal(0.25, 0.25, n), 0, 1),
        "old": np.clip(0.42 * y + rng.normal(0.29, 0.25, n), 0, 1),
        "seg": rng.choice(["a", "b", "c"], n), "w": rng.random(n)})


def _losses(y: np.ndarray, p: np.ndarray) -> dict[str, np.ndarray]:
    q = np.where(y == 1, p, 1 - p)
    return {"log_loss": -np.log(np.clip(q, EPS, 1 - EPS)), "brier_score": (y - p) ** 2}


@pytest.fixture(scope="module")
def table():
    return _binary()


KW = dict(y_true="y", models={"new": {"score": "new"}, "old": {"score": "old"}}, by="seg",
          ci=0.95, baseline="old", random_state=3)


def test_intervals_are_the_normal_ones_of_each_slice(table):
    ev = fm.evaluate(table, batch_rows=1_500, **KW)
    checked = 0
    for r in ev.rows:
        name = r["metric"].partition(":")[0]
        if name not in ("log_loss", "brier_score"):
            continue
        part = table if not r["slice"] else table[table.seg == r["slice"]["seg"]]
        y = part.y.to_numpy()
        loss = {m: _losses(y, part[m].to_numpy())[name] for m in ("new", "old")}
        if r["metric"].endswith(":delta"):
            lo, hi = _normal(loss["new"] - loss["old"])
            assert r["value"] == pytest.approx((loss["new"] - loss["old"]).mean(), rel=1e-9)
        else:
            lo, hi = _normal(loss[r["model"]])
            assert r["value"] == pytest.approx(loss[r["model"]].mean(), rel=1e-9)
            assert lo < r["value"] < hi
        assert r["ci_low"] == pytest.approx(lo, rel=1e-9) and \
            r["ci_high"] == pytest.approx(hi, rel=1e-9), r
        checked += 1
    assert checked == 4 * (2 * 2 + 2)  # 4 tables: 2 metrics x 2 models + 2 deltas


def test_the_bootstrap_of_the_rows_agrees(table):
    y, new, old = (table[c].to_numpy() for c in ("y", "new", "old"))
    ev = fm.evaluate(table, **KW)
    rng = np.random.default_rng(1)
    got = {r["metric"]: r for r in ev.rows if r["model"] == "new" and not r["slice"]}
    draws: dict[str, list[float]] = {}
    for _ in range(1_000):
        i = rng.integers(0, y.shape[0], y.shape[0])
        a, b = _losses(y[i], new[i]), _losses(y[i], old[i])
        for name in ("log_loss", "brier_score"):
            draws.setdefault(name, []).append(a[name].mean())
            draws.setdefault(f"{name}:delta", []).append(a[name].mean() - b[name].mean())
    for name, values in draws.items():
        lo, hi = np.percentile(values, [2.5, 97.5])
        width = hi - lo
        assert abs(got[name]["ci_low"] - lo) < 0.15 * width, name
        assert abs(got[name]["ci_high"] - hi) < 0.15 * width, name


def test_multiclass_log_loss(tmp_path):
    rng = np.random.default_rng(5)
    n = 5_000
    y = rng.choice(["cat", "dog", "eel"], n)
    raw = rng.random((n, 3)) + 0.8 * (y[:, None] == np.array(["cat", "dog", "eel"]))
    probs = raw / raw.sum(axis=1, keepdims=True)
    df = pd.DataFrame({"y": y, "p_cat": probs[:, 0], "p_dog": probs[:, 1],
                       "p_eel": probs[:, 2], "seg": rng.integers(0, 2, n)})
    path = str(tmp_path / "m.parquet")
    df.to_parquet(path)
    ev = fm.evaluate(path, y_true="y", prob=["p_cat", "p_dog", "p_eel"], by="seg", ci=0.95,
                     batch_rows=900)
    column = np.searchsorted(["cat", "dog", "eel"], y)
    losses = -np.log(np.clip(probs[np.arange(n), column], EPS, 1 - EPS))
    rows = [r for r in ev.rows if r["metric"] == "log_loss"]
    assert len(rows) == 3
    for r in rows:
        mask = np.ones(n, bool) if not r["slice"] else df.seg.to_numpy() == r["slice"]["seg"]
        lo, hi = _normal(losses[mask])
        assert r["ci_low"] == pytest.approx(lo, rel=1e-9)
        assert r["ci_high"] == pytest.approx(hi, rel=1e-9)


def test_same_intervals_from_every_input(table, tmp_path):
    assert_same_intervals_from_every_input(table, KW, tmp_path, names=("log_loss", "brier_score"))


def test_better_gates_read_the_paired_interval_and_weights_get_none(table):
    ev = fm.evaluate(table, **KW, gates=["log_loss:better", "brier_score:better"])
    assert all(g["passed"] and "(paired)" in g["reason"] for g in ev.gates), ev.gates
    worse = fm.evaluate(table, **{**KW, "baseline": "new"},
                        gates=["log_loss:better", "brier_score:better"])
    assert not any(g["passed"] for g in worse.gates), worse.gates
    weighted = fm.evaluate(table, **KW, sample_weight="w")
    assert all(r["ci_low"] is None for r in weighted.rows
               if r["metric"].partition(":")[0] in ("log_loss", "brier_score"))
    plain = fm.evaluate(table, **{**KW, "ci": None})
    assert all(r["ci_low"] is None for r in plain.rows)
