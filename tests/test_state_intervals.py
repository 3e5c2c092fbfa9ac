"""Intervals that a metric's own state gives, with no resample of the rows: average
precision's logit interval (from the positives' count), the expected calibration error's
resampled bins, the median absolute error's order statistics. Checked against the formula
on the rows, against a bootstrap of the rows, and by coverage over simulated data."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics._states.bins import CalibrationState, ece_replicates
from fastmetrics._states.ranking import RankingState, ap_interval
from fastmetrics._states.sums import RegressionState, median_error_interval

skm = pytest.importorskip("sklearn.metrics")
pd = pytest.importorskip("pandas")

Z95 = NormalDist().inv_cdf(0.975)


def _binormal(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = (rng.random(n) < 0.3).astype(np.int64)
    return y, rng.normal(1.2 * y, 1.0)


def test_ap_interval_is_the_logit_one():
    rng = np.random.default_rng(0)
    y, s = _binormal(rng, 2_000)
    ap = skm.average_precision_score(y, s)
    n_pos = int(y.sum())
    eta, tau = math.log(ap / (1 - ap)), 1 / math.sqrt(n_pos * ap * (1 - ap))
    want = (1 / (1 + math.exp(-(eta - Z95 * tau))), 1 / (1 + math.exp(-(eta + Z95 * tau))))
    got = ap_interval(RankingState.from_arrays(y, s), ap, None, 0.95)
    assert got == pytest.approx(want, rel=1e-12)
    # string classes, the positive one named
    labels = np.where(y == 1, "yes", "no")
    got = ap_interval(RankingState.from_arrays(labels, s), ap, "yes", 0.95)
    assert got == pytest.approx(want, rel=1e-12)


def test_ap_interval_covers_the_true_value():
    rng = np.random.default_rng(5)
    big_y, big_s = _binormal(rng, 2_000_000)
    truth = skm.average_precision_score(big_y, big_s)
    trials, hits = 300, 0
    for _ in range(trials):
        y, s = _binormal(rng, 1_000)
        lo, hi = ap_interval(RankingState.from_arrays(y, s),
                             skm.average_precision_score(y, s), None, 0.95)
        hits += lo <= truth <= hi
    assert 0.90 <= hits / trials <= 0.99, hits / trials  # (0.9475 at 400 trials)


def test_ap_interval_does_not_apply():
    st = RankingState.from_arrays([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.2])
    assert ap_interval(st, 1.0, None, 0.95) is None  # AP of 1: no logit
    assert ap_interval(st, float("nan"), None, 0.95) is None
    assert ap_interval(st, 0.5, 7, 0.95) is None  # a class it does not hold
    w = RankingState.from_arrays([0, 1, 1, 0], [0.1, 0.9, 0.3, 0.2],
                                 sample_weight=[1.0, 2.0, 1.0, 1.0])
    assert ap_interval(w, 0.8, None, 0.95) is None


def test_median_interval_is_two_order_statistics():
    rng = np.random.default_rng(1)
    for n in (2, 3, 10, 101, 5_000):
        t, p = rng.normal(size=n), rng.normal(size=n)
        st = RegressionState.from_arrays(t, p, keep_values=True)
        a = np.sort(np.abs(t - p))
        lo = min(max(math.floor((n - Z95 * math.sqrt(n)) / 2), 1), n)
        hi = min(max(math.ceil(1 + (n + Z95 * math.sqrt(n)) / 2), 1), n)
        assert median_error_interval(st, 0.95) == (a[lo - 1], a[hi - 1])
        assert a[lo - 1] <= np.median(a) <= a[hi - 1]
    assert median_error_interval(RegressionState.from_arrays([1.0], [0.0], keep_values=True),
                                 0.95) is None
    assert median_error_interval(RegressionState.from_arrays([1.0, 2.0], [0.0, 0.0]),
                                 0.95) is None  # no kept errors


def test_median_interval_covers_the_true_median():
    rng = np.random.default_rng(2)
    trials, hits = 400, 0
    for _ in range(trials):  # exponential errors: the median is log 2, whatever the skew
        e = rng.exponential(size=301)
        lo, hi = median_error_interval(
            RegressionState.from_arrays(e, np.zeros(301), keep_values=True), 0.95)
        hits += lo <= math.log(2) <= hi
    assert 0.92 <= hits / trials <= 0.99, hits / trials


def _calibration_data(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = (rng.random(n) < 0.5).astype(np.int64)
    return y, np.clip(0.5 + (y - 0.5) * 0.4 + rng.normal(0, 0.15, n), 0, 1)


@pytest.mark.parametrize("n", [400, 5_000])  # cells under 30 rows (Poisson), most over
def test_ece_replicates_agree_with_the_bootstrap_of_the_rows(n):
    rng = np.random.default_rng(3)
    y, p = _calibration_data(rng, n)
    st = CalibrationState.from_arrays(y, p, n_bins=10)
    ours = np.percentile(ece_replicates([st], np.random.default_rng(1), 2_000)[0],
                         [2.5, 97.5])
    rows = []
    for _ in range(1_000):
        i = rng.integers(0, y.shape[0], y.shape[0])
        rows.append(fm.expected_calibration_error(y[i], p[i]))
    want = np.percentile(rows, [2.5, 97.5])
    width = want[1] - want[0]
    assert abs(ours[0] - want[0]) < 0.15 * width and abs(ours[1] - want[1]) < 0.15 * width, \
        (ours, want)


def test_ece_replicates_keep_the_bins_and_their_counts():
    rng = np.random.default_rng(4)
    y, p = _calibration_data(rng, 300)
    st = CalibrationState.from_arrays(y, p, n_bins=5)
    v = ece_replicates([st], np.random.default_rng(0), 50)[0]
    assert v.shape == (50,) and (v >= 0).all() and (v <= 1).all()
    # one resample drawing every row once is the state itself: the value is ECE's
    s = st.sums
    conf = s[:, 1] / s[:, 4]
    assert np.abs(s[:, 2] - s[:, 4] * conf).sum() / s[:, 4].sum() == pytest.approx(
        fm.expected_calibration_error(y, p, n_bins=5), rel=1e-12)
    top = CalibrationState.from_arrays(y, np.stack([1 - p, p], axis=1), n_bins=5)
    weighted = CalibrationState.from_arrays(y, p, n_bins=5, sample_weight=rng.random(300))
    other = CalibrationState.from_arrays(y, p, n_bins=7)
    many = ece_replicates([st, weighted, top, other], np.random.default_rng(0), 5)
    assert many.shape == (4, 5) and np.isnan(many[1]).all()  # weighted: none
    assert not np.isnan(many[[0, 2, 3]]).any()  # (of 5 and of 7 bins, drawn apart)
    # several slices at once draw each its own law: their spreads follow their sizes
    small, big = (CalibrationState.from_arrays(*_calibration_data(rng, k), n_bins=5)
                  for k in (200, 20_000))
    spread = ece_replicates([small, big], np.random.default_rng(1), 2_000).std(axis=1)
    assert spread[0] > 5 * spread[1]


def test_evaluate_gives_each_slice_its_state_intervals():
    rng = np.random.default_rng(6)
    n = 30_000
    y, s = _binormal(rng, n)
    p = 1 / (1 + np.exp(-(s - 0.8)))
    q = 1 / (1 + np.exp(-(rng.normal(0.8 * y, 1.0) - 0.5)))
    df = pd.DataFrame({"y": y, "a": p, "b": q, "seg": rng.choice(["u", "v", "w"], n)})
    ev = fm.evaluate(df, y_true="y", models={"a": "a", "b": "b"}, task="binary", by="seg",
                     ci=0.95, baseline="b", metrics=["average_precision", "ece"])
    checked = 0
    for r in ev.rows:
        if r["metric"].endswith(":delta"):  # no paired law for these: no interval
            assert r["ci_low"] is None and r["ci_high"] is None, r
            continue
        part = df if not r["slice"] else df[df.seg == r["slice"]["seg"]]
        yy, ss = part.y.to_numpy(), part[r["model"]].to_numpy()
        if r["metric"] == "average_precision":
            ap = skm.average_precision_score(yy, ss)
            assert r["value"] == pytest.approx(ap, rel=1e-12)
            want = ap_interval(RankingState.from_arrays(yy, ss), ap, None, 0.95)
            assert (r["ci_low"], r["ci_high"]) == pytest.approx(want, rel=1e-12)
        else:
            assert r["value"] == pytest.approx(fm.expected_calibration_error(yy, ss),
                                               rel=1e-12)
            assert 0 <= r["ci_low"] < r["ci_high"] <= 1
            # the half-width of a mean gap over n rows: order 1 / sqrt(n)
            assert r["ci_high"] - r["ci_low"] < 8 / math.sqrt(len(part)), r
        checked += 1
    assert checked == 2 * 2 * 4  # 2 metrics x 2 models x (whole table + 3 slices)
    weighted = fm.evaluate(df.assign(w=rng.random(n)), y_true="y", models={"a": "a"},
                           task="binary", ci=0.95, sample_weight="w",
                           metrics=["average_precision", "ece"])
    assert all(r["ci_low"] is None for r in weighted.rows)
