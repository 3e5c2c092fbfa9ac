"""run_metrics: the harness' metric keys, verbatim; metrics_pivot: the run x metric table."""

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics.regression import STORY_POINT_BINS

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"


def full_run(seed=0):
    """Every family of the harness on small data; returns (metrics, the inputs)."""
    rng = np.random.default_rng(seed)
    labels = np.array(["Critical", "Major", "Minor"])
    y = labels[rng.integers(0, 3, 120)]
    raw = labels[rng.integers(0, 3, 120)].astype(object)
    raw[rng.random(120) < 0.1] = None
    parsed = fm.parse_failures(y, raw)
    card = fm.score(parsed.y_true, parsed.y_pred, labels=list(labels))
    sp = rng.choice([1, 2, 3, 5, 8, 13, 21, 34, 55], 80).astype(float)
    sp_pred = sp + rng.normal(0, 2, 80)
    conf = rng.random(120)
    correct = (rng.random(120) < conf).astype(int)
    groups = np.array(["web", "mobile"])[rng.integers(0, 2, 120)]
    pert = np.where(rng.random(120) < 0.2, labels[rng.integers(0, 3, 120)], y)
    rel = rng.integers(0, 3, (10, 5))
    scores = rng.random((10, 5))
    lat_ns = rng.integers(1_000_000, 50_000_000, 200)
    batch = fm.BatchStats(2.0, 120, 60.0)
    energy = fm.EmissionsReport(co2_kg=0.004, kwh=0.01, duration_s=2.5)
    m = fm.run_metrics(
        parsed, card, fm.regression_summary(sp, sp_pred),
        fm.calibration_summary(correct, conf),
        fm.robustness_report(y, y, pert), fm.group_metrics(y, pert, groups),
        fm.latency_stats(lat_ns), batch, fm.stability_summary([0.6, 0.62, 0.65]), energy,
        mdae=fm.median_absolute_error(sp, sp_pred),
        mae_by_bin=fm.mae_by_bin(sp, sp_pred, STORY_POINT_BINS),
        ndcg_at_k=fm.ndcg_score(rel, scores, k=3),
        mrr=fm.mean_reciprocal_rank(rel.argmax(axis=1), scores),
    )
    return m, dict(y=y, raw=raw, parsed=parsed, labels=labels, sp=sp, sp_pred=sp_pred,
                   conf=conf, correct=correct, groups=groups, pert=pert, lat_ns=lat_ns)


def expand(key, labels, groups):
    if "<label>" in key:
        return [key.replace("<label>", str(v)) for v in labels]
    if "<g>" in key:
        return [key.replace("<g>", str(v)) for v in groups]
    return [key]


def test_every_harness_key_comes_out_verbatim():
    m, d = full_run()
    assert len(fm.METRIC_KEYS) == 45
    for pattern in fm.METRIC_KEYS:
        for key in expand(pattern, d["labels"], ["web", "mobile"]):
            assert key in m, key


def test_the_keys_are_the_reference_documents():
    docs = sorted(REFERENCE.glob("004_*.txt"))
    if not docs:
        pytest.skip("the reference documents are not beside this checkout")
    text = docs[0].read_text(encoding="utf-8")
    keys = re.findall(r"^([A-Za-z_0-9.<>+-]+) \|$", text, flags=re.M)
    assert tuple(keys) == fm.METRIC_KEYS


def test_values_match_sklearn_and_numpy():
    m, d = full_run(1)
    p = d["parsed"]
    yt, yp, labels = p.y_true, p.y_pred, list(d["labels"])
    assert m["f1_macro"] == pytest.approx(skm.f1_score(yt, yp, average="macro"), rel=1e-12)
    assert m["f1_weighted"] == pytest.approx(skm.f1_score(yt, yp, average="weighted"),
                                             rel=1e-12)
    assert m["accuracy"] == pytest.approx(skm.accuracy_score(yt, yp), rel=1e-12)
    prec, rec, f1, _ = skm.precision_recall_fscore_support(yt, yp, labels=labels,
                                                           zero_division=0)
    for i, lab in enumerate(labels):
        assert m[f"per_class.{lab}.precision"] == pytest.approx(prec[i], rel=1e-12)
        assert m[f"per_class.{lab}.recall"] == pytest.approx(rec[i], rel=1e-12)
        assert m[f"per_class.{lab}.f1"] == pytest.approx(f1[i], rel=1e-12)
    cm = skm.confusion_matrix(yt, yp, labels=labels)
    assert m["confusion_matrix"] == {t: {q: int(cm[i, j]) for j, q in enumerate(labels)}
                                     for i, t in enumerate(labels)}
    assert all(type(v) is int for row in m["confusion_matrix"].values() for v in row.values())
    n_fail = sum(v is None for v in d["raw"])
    assert m["parse_failure_rate"] == n_fail / 120 and m["n_predictions"] == 120 - n_fail

    sp, sp_pred = d["sp"], d["sp_pred"]
    assert m["mae"] == pytest.approx(skm.mean_absolute_error(sp, sp_pred), rel=1e-12)
    assert m["rmse"] == pytest.approx(skm.root_mean_squared_error(sp, sp_pred), rel=1e-12)
    assert m["mdae"] == pytest.approx(skm.median_absolute_error(sp, sp_pred), rel=1e-12)
    small = (sp >= 1) & (sp <= 3)
    assert m["mae_by_bin.1-3"] == pytest.approx(
        skm.mean_absolute_error(sp[small], sp_pred[small]), rel=1e-12)
    big = sp >= 34
    assert m["mae_by_bin.34+"] == pytest.approx(
        skm.mean_absolute_error(sp[big], sp_pred[big]), rel=1e-12)

    s = fm.calibration_summary(d["correct"], d["conf"])
    assert (m["ece"], m["mce"], m["brier_score"]) == (s.ece, s.mce, s.brier)
    assert m["brier_score"] == pytest.approx(np.mean((d["conf"] - d["correct"]) ** 2),
                                             rel=1e-12)
    acc = skm.accuracy_score(d["y"], d["pert"])
    assert m["robustness_score"] == pytest.approx(max(0.0, min(1.0, 1 - abs(1.0 - acc))))
    assert m["consistency_rate"] == pytest.approx(np.mean(d["y"] == d["pert"]), rel=1e-12)
    for g in ("web", "mobile"):
        sel = d["groups"] == g
        a = skm.accuracy_score(d["y"][sel], d["pert"][sel])
        assert m[f"per_group.{g}.accuracy"] == pytest.approx(a, rel=1e-12)
        assert m[f"disparities.{g}"] == pytest.approx(a - acc, rel=1e-12, abs=1e-15)
    assert m["global_metric"] == pytest.approx(acc, rel=1e-12)

    ms = d["lat_ns"] / 1e6
    for k, q in (("p50", 50), ("p95", 95), ("p99", 99)):
        assert m[f"latency.{k}"] == pytest.approx(np.percentile(ms, q), rel=1e-12)
    assert m["latency.mean"] == pytest.approx(ms.mean(), rel=1e-12)
    assert (m["latency.min"], m["latency.max"]) == (ms.min(), ms.max())
    assert m["throughput"] == 120 / 2.0 * 60
    assert m["stability.n_seeds"] == 3
    assert m["stability.mean"] == pytest.approx(np.mean([0.6, 0.62, 0.65]), rel=1e-12)
    assert (m["co2_kg"], m["kwh"], m["duration_s"]) == (0.004, 0.01, 2.5)
    # the ratios take the run's macro F1 and MAE when the report has no quality of its own
    assert m["gco2_per_f1_point"] == pytest.approx(4.0 / (m["f1_macro"] * 100), rel=1e-12)
    assert m["gco2_per_mae_unit"] == pytest.approx(4.0 / m["mae"], rel=1e-12)


def test_parse_failures_set_n_predictions_in_any_order_and_keywords_override():
    y, p = [0, 1, 1, 0], [0, None, 1, 1]
    parsed = fm.parse_failures(y, p)
    card = fm.score(parsed.y_true, parsed.y_pred)
    for args in ((parsed, card), (card, parsed)):
        m = fm.run_metrics(*args)
        assert m["n_predictions"] == 3 and m["parse_failure_rate"] == 0.25
    assert fm.run_metrics(card)["n_predictions"] == 3  # the card's examples without parsing
    assert fm.run_metrics(card, accuracy=0.1)["accuracy"] == 0.1
    assert fm.run_metrics({"ndcg_at_k": np.float64(0.5)})["ndcg_at_k"] == 0.5
    m = fm.run_metrics(fm.score([0, -1, 1], [0, -1, -1], oos_label=-1))
    assert m["oos_recall"] == 1.0 and m["oos_precision"] == 0.5
    assert "oos_recall" not in fm.run_metrics(card)


def test_model_benchmark_and_probability_report():
    class Majority:
        def fit(self, X, y):
            self.v = int(np.bincount(y).argmax())
            return self

        def predict(self, X):
            return np.full(len(X), self.v)

    X = np.arange(40.0).reshape(20, 2)
    y = np.array([0] * 12 + [1] * 8)
    b = fm.benchmark_model(Majority(), X, y, X, y, n_iters=5)
    m = fm.run_metrics(b)
    assert m["f1_macro"] == b.metrics["macro_f1"] and m["accuracy"] == 0.6
    assert m["latency.p95"] == b.latency.p95_ms and m["fit_seconds"] == b.fit_seconds
    assert m["throughput"] == pytest.approx(b.batch.throughput * 60)
    r = fm.score_probabilities([0, 1, 1, 0], [0, 1, 0, 0], [0.2, 0.9, 0.4, 0.3])
    m = fm.run_metrics(r)
    assert m["brier_score"] == r.calibration.brier and m["f1_macro"] == r.classification.macro_f1


def test_pivot_of_flat_dicts_equals_the_pivot_of_the_long_table():
    pd = pytest.importorskip("pandas")
    runs = {f"run{i}": fm.run_metrics(*full_run(i)[0:1]) for i in range(3)}
    frame = fm.metrics_pivot(runs)
    long_rows = [(run, k, v) for run, m in runs.items() for k, v in fm.flatten(m).items()]
    assert frame.index.name == "run_id" and list(frame.index) == ["run0", "run1", "run2"]
    assert "confusion_matrix.Critical.Major" in frame.columns
    assert frame.loc["run1", "f1_macro"] == runs["run1"]["f1_macro"]
    expected = (pd.DataFrame(long_rows, columns=["run_id", "metric_name", "value"])
                .pivot(index="run_id", columns="metric_name", values="value"))
    pd.testing.assert_frame_equal(
        frame.astype(object), expected[list(frame.columns)].astype(object),
        check_names=False)
    from_long = fm.metrics_pivot(long_rows)
    pd.testing.assert_frame_equal(frame, from_long)
    dict_rows = [{"run_id": r, "metric_name": k, "value": v} for r, k, v in long_rows]
    pd.testing.assert_frame_equal(frame, fm.metrics_pivot(dict_rows))


def test_pivot_without_pandas_is_a_list_of_rows(monkeypatch):
    runs = {"a": {"f1_macro": 0.5, "latency": {"p95": 3.0}}, "b": fm.latency_stats([1e6])}
    monkeypatch.setitem(sys.modules, "pandas", None)
    rows = fm.metrics_pivot(runs)
    stats = ["p50_ms", "p95_ms", "p99_ms", "mean_ms", "n_iters", "min_ms", "max_ms"]
    assert list(rows[0]) == ["run_id", "f1_macro", "latency.p95", *stats]
    assert rows[0] == {"run_id": "a", "f1_macro": 0.5, "latency.p95": 3.0,
                       **dict.fromkeys(stats)}
    assert rows[1]["n_iters"] == 1 and rows[1]["f1_macro"] is None
    with pytest.raises(ImportError, match="needs pandas"):
        fm.metrics_pivot(runs, as_frame=True)


def test_pivot_frame_has_nan_for_missing_metrics():
    pytest.importorskip("pandas")
    f = fm.metrics_pivot({"a": {"x": 1.0}, "b": {"y": 2.0}})
    assert math.isnan(f.loc["a", "y"]) and f.loc["b", "y"] == 2.0


@pytest.mark.parametrize("call, exc, match", [
    (lambda: fm.run_metrics(object()), TypeError, "cannot read a object"),
    (lambda: fm.run_metrics([0.5]), TypeError, "cannot read a list"),
    (lambda: fm.metrics_pivot(5), TypeError, "runs must be a mapping"),
    (lambda: fm.metrics_pivot("abc"), TypeError, "runs must be a mapping"),
    (lambda: fm.metrics_pivot([("a", "x")]), ValueError, r"\(run_id, metric_name, value\)"),
    (lambda: fm.metrics_pivot([{"run_id": "a", "value": 1}]), ValueError, "'metric_name'"),
    (lambda: fm.metrics_pivot([("a", "x", 1), ("a", "x", 2)]), ValueError,
     "two values for 'x'"),
    (lambda: fm.metrics_pivot({}, as_frame="yes"), ValueError, "as_frame must be"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_repeated_identical_rows_and_nan_are_accepted():
    rows = fm.metrics_pivot([("a", "x", float("nan")), ("a", "x", float("nan")),
                             ("a", "y", 1)], as_frame=False)
    assert math.isnan(rows[0]["x"]) and rows[0]["y"] == 1
