"""Robustness, stability, parse failures, throughput and the flat export, against plain
numpy references."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics.regression import RegressionSummary

# ---------------------------------------------------------------------------------- robustness


def test_consistency_rate_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 1000)
    b = np.where(rng.random(1000) < 0.8, a, rng.integers(0, 4, 1000))
    assert fm.consistency_rate(a, b) == np.mean(a == b)
    assert fm.consistency_rate(a.astype(str), b.astype(str)) == np.mean(a == b)


@given(st.floats(-2, 2), st.floats(-2, 2))
def test_robustness_score_formula(a, b):
    got = fm.robustness_score(a, b)
    assert got == max(0.0, min(1.0, 1.0 - abs(a - b)))
    assert 0.0 <= got <= 1.0


def test_robustness_report():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 500)
    p0 = np.where(rng.random(500) < 0.9, y, (y + 1) % 3)
    p1 = np.where(rng.random(500) < 0.7, p0, (p0 + 1) % 3)
    r = fm.robustness_report(y, p0, p1)
    assert r.original == np.mean(p0 == y) and r.perturbed == np.mean(p1 == y)
    assert r.robustness_score == pytest.approx(1 - abs(r.original - r.perturbed))
    assert r.consistency_rate == np.mean(p0 == p1)
    r = fm.robustness_report(y, p0, p1, metric="f1_macro")
    assert r.original == pytest.approx(fm.f1_score(y, p0, average="macro"))
    assert fm.flatten(r)["f1_macro.perturbed"] == r.perturbed
    assert r.n_samples == 500
    r = fm.robustness_report(["a", "b", "a"], ["a", "b", "b"], ["a", "a", "b"])  # lists
    assert (r.n_samples, r.original, r.perturbed) == (3, 2 / 3, 1 / 3)


@pytest.mark.parametrize("call, match", [
    (lambda: fm.consistency_rate([0, 1], [0]), "same length"),
    (lambda: fm.consistency_rate([], []), "at least one"),
    (lambda: fm.robustness_score(float("nan"), 0.5), "finite"),
    (lambda: fm.robustness_report([0, 1], [0, 1], [0, 1], metric="mse"), "metric must be"),
    (lambda: fm.robustness_report([0, 1], [0, 1], [0, 1], metric=["accuracy"]),
     "metric must be"),
    (lambda: fm.group_metrics([0, 1], [0, 1], [0, 1], metric="mse"), "metric must be"),
])
def test_robustness_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ----------------------------------------------------------------------------------- stability


@pytest.mark.parametrize("ddof", [0, 1])
def test_stability_matches_numpy(ddof):
    v = np.array([0.61, 0.64, 0.58, 0.66, 0.63])
    s = fm.stability_summary(v, ddof=ddof)
    sd = np.std(v, ddof=ddof)
    assert (s.mean, s.stddev, s.n_seeds) == (np.mean(v), sd, 5)
    assert s.cv == pytest.approx(sd / np.mean(v), rel=1e-15)
    assert s.stability_score == pytest.approx(max(0, 1 - sd / np.mean(v)), rel=1e-15)
    assert fm.flatten(s) == {"stability_score": s.stability_score, "stability.mean": s.mean,
                             "stability.stddev": s.stddev, "stability.cv": s.cv,
                             "stability.n_seeds": 5}


def test_stability_documented_edge_values():
    s = fm.stability_summary([0.0, 0.0, 0.0])          # mean 0, nothing varies
    assert (s.cv, s.stability_score) == (0.0, 1.0)
    s = fm.stability_summary([-1.0, 1.0])              # mean 0, values vary
    assert (s.cv, s.stability_score) == (math.inf, 0.0)
    s = fm.stability_summary([0.1, 0.9, 0.1, 0.9, 0.0])
    assert s.stability_score == 0.0                     # cv > 1 floors at 0
    assert fm.stability_summary([0.7]).stability_score == 1.0


@pytest.mark.parametrize("values, kwargs, match", [
    ([], {}, "at least 1"),
    ([0.5], {"ddof": 1}, "at least 2"),
    ([0.5, np.nan], {}, "NaN"),
    ([[0.5, 0.6]], {}, "1-D"),
])
def test_stability_bad_inputs(values, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fm.stability_summary(values, **kwargs)


# ------------------------------------------------------------------------------ parse failures


def test_parse_failures_exclude_is_the_default():
    y = np.array(["a", "b", "a", "b", "a"])
    p = np.array(["a", None, "b", None, "a"], dtype=object)
    r = fm.parse_failures(y, p)
    assert (r.n_total, r.n_failures, r.n_predictions, r.parse_failure_rate) == (5, 2, 3, 0.4)
    assert r.y_true.tolist() == ["a", "a", "a"] and r.y_pred.tolist() == ["a", "b", "a"]
    assert r.y_pred.dtype.kind == "U"
    assert fm.flatten(r) == {"parse_failure_rate": 0.4, "n_predictions": 3, "n_failures": 2}


def test_parse_failures_wrong_policy_and_sentinels():
    y = np.array([1, 0, 1, 1])
    p = np.array([1, -1, -1, 1])
    r = fm.parse_failures(y, p, missing=-1, policy="wrong", fill_label=99)
    assert r.y_pred.tolist() == [1, 99, 99, 1] and r.n_predictions == 4
    assert fm.accuracy_score(r.y_true, r.y_pred) == 0.5
    r = fm.parse_failures(y, np.array([1.0, np.nan, 1.0, 0.0]))   # NaN predictions
    assert r.n_failures == 1 and r.y_pred.tolist() == [1.0, 1.0, 0.0]
    r = fm.parse_failures(y, p)                                    # no sentinel: none missing
    assert r.n_failures == 0 and r.parse_failure_rate == 0.0


def test_parse_failures_keep_mixed_labels_mixed():
    """Strings among numbers are not turned into strings (['1', 'a']): the metrics then
    raise their usual mix error, as on the raw predictions."""
    y = np.array([1, 0, 1])
    for r in (fm.parse_failures(y, [1, None, "a"]),
              fm.parse_failures(y, [1, -1, 0], missing=-1, policy="wrong", fill_label="x")):
        assert r.y_pred.dtype.kind == "O"
        with pytest.raises(ValueError, match="Mix of label input types"):
            fm.accuracy_score(r.y_true, r.y_pred)
    with pytest.raises(ValueError, match="Mix of label input types"):
        fm.accuracy_score(y[[0, 2]], np.array([1, "a"], dtype=object))


def test_parse_failures_fill_label_widens_the_predictions():
    y = np.array([1, 0, 1])
    r = fm.parse_failures(y, np.array([1, 7, 0], np.int8), missing=7, policy="wrong",
                          fill_label=300)   # not 300 % 256 = 44
    assert r.y_pred.tolist() == [1, 300, 0]
    r = fm.parse_failures(y, np.array([1, 7, 0], np.uint8), missing=7, policy="wrong",
                          fill_label=-1)
    assert r.y_pred.tolist() == [1, -1, 0]
    r = fm.parse_failures(y, [1, None, 0], policy="wrong", fill_label=9)
    assert r.y_pred.tolist() == [1, 9, 0] and r.y_pred.dtype.kind == "i"
    r = fm.parse_failures(["a", "b"], ["a", "UNPARSED"], missing="UNPARSED", policy="wrong",
                          fill_label="?")
    assert r.y_pred.tolist() == ["a", "?"] and r.y_pred.dtype.kind == "U"


@pytest.mark.parametrize("kwargs, match", [
    ({"policy": "drop"}, "policy"),
    ({"policy": "wrong"}, "fill_label"),
    ({"policy": "wrong", "fill_label": 1}, "occurs in y_true"),
])
def test_parse_failures_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fm.parse_failures([1, 0], [1, None], **kwargs)


def test_parse_failures_lengths():
    with pytest.raises(ValueError, match="same length"):
        fm.parse_failures([1, 0], [1])
    with pytest.raises(ValueError, match="at least one"):
        fm.parse_failures([], [])


# ---------------------------------------------------------------------------------- throughput


def test_throughput_per_minute():
    assert fm.throughput_per_minute(50, 10.0) == 300.0
    assert fm.throughput_per_minute(3, 0.0) == math.inf
    assert fm.throughput_per_minute(0, 0.0) == 0.0
    for bad in [(-1, 1.0), (1, -1.0), (1, float("nan"))]:
        with pytest.raises(ValueError):
            fm.throughput_per_minute(*bad)


# ----------------------------------------------------------------------------------- flatten


def _every_report_object():
    y = np.array([0, 1, 2, 1, 0, 2, 1])
    p = np.array([0, 1, 1, 1, 0, 2, 0])
    prob = np.array([0.9, 0.8, 0.4, 0.7, 0.6, 0.95, 0.3])
    lat = fm.latency_stats([1e6, 2e6, 4e6])
    batch = fm.BatchStats(0.5, 100, 200.0)
    cal = fm.calibration_summary(y == p, prob, n_bins=4)
    return {
        "ClassificationMetrics": fm.score(y, p, oos_label=2),
        "PerClassMetrics": fm.PerClassMetrics(0.5, 0.5, 0.5, 2),
        "LatencyStats": lat,
        "BatchStats": batch,
        "ModelBenchmark": fm.ModelBenchmark("clf", 0.1, batch, lat, {"accuracy": 0.5}),
        "CalibrationSummary": cal,
        "CalibrationBins": cal.bins,
        "ProbabilityReport": fm.score_probabilities(y == p, y == p, prob),
        "RegressionSummary": fm.regression_summary([1.0, 2.0, 3.0], [1.5, 2.0, 2.0]),
        "GroupMetrics": fm.group_metrics(y, p, y % 2),
        "Evaluation": fm.evaluate({"y": y % 2, "s": prob, "g": y}, y_true="y", score="s",
                                  by="g", metrics=["accuracy", "roc_auc"]),
        "RobustnessReport": fm.robustness_report(y, p, y),
        "Stability": fm.stability_summary([0.5, 0.6]),
        "ParsedPredictions": fm.parse_failures(y, p),
        # one-vs-rest: per-class results nested in the average's
        "DeLongResult": fm.delong_ci(y, np.eye(3)[p] * 0.5 + 0.5 / 3, multi_class="ovr"),
        "DeLongTest": fm.delong_test(y == 1, prob, p == 1),
        "BootstrapResult": fm.bootstrap(fm.accuracy_score, y, p, n_resamples=20,
                                        random_state=0),
        "ComparisonResult": fm.compare(fm.accuracy_score, y, p, y, n_resamples=20,
                                       random_state=0),
        "ConfidenceInterval": fm.ConfidenceInterval(0.25, 0.75),
        "McNemarResult": fm.mcnemar_test(y, p, y),
        "EmissionsReport": fm.EmissionsReport(0.002, 0.01, 3.0, f1=0.5),
    }


def test_flatten_covers_every_report_object():
    objs = _every_report_object()
    classes = {name for name in fm.__all__
               if isinstance(getattr(fm, name), type) and dataclasses.is_dataclass(getattr(fm, name))}
    classes.add(RegressionSummary.__name__)
    assert classes <= set(objs), classes - set(objs)
    flat = fm.flatten(objs, prefix="run")
    scalar = (int, float, str, bool, type(None))
    assert all(isinstance(v, scalar) for v in flat.values())
    assert all(k.startswith("run.") for k in flat)
    assert flat["run.LatencyStats.p50_ms"] == 2.0
    assert flat["run.ModelBenchmark.latency.p95_ms"] == objs["LatencyStats"].p95_ms
    assert flat["run.ClassificationMetrics.per_class.1.f1"] == objs[
        "ClassificationMetrics"].per_class[1].f1
    assert flat["run.ClassificationMetrics.confusion_matrix.2.1"] == 1
    assert flat["run.CalibrationBins.counts.3"] == int(objs["CalibrationBins"].counts[3])
    assert "run.CalibrationBins.state.0.0" not in flat   # raw states (repr=False) are left out
    assert flat["run.RegressionSummary.r2"] == objs["RegressionSummary"].r2
    assert flat["run.GroupMetrics.fairness_gap"] == objs["GroupMetrics"].gap
    assert flat["run.DeLongResult.per_class.2.confidence_interval.1"] == objs[
        "DeLongResult"].per_class[2].confidence_interval[1]
    assert flat["run.DeLongTest.pvalue"] == objs["DeLongTest"].pvalue
    # objects with to_flat_dict keep their own keys
    assert flat["run.Evaluation.model.g=1.accuracy"] == objs["Evaluation"].value(
        "accuracy", slice={"g": 1})
    for name in ("ClassificationMetrics", "ModelBenchmark", "CalibrationSummary", "GroupMetrics",
                 "Evaluation"):
        own = objs[name].to_flat_dict()
        assert {f"run.{name}.{k}" for k in own} <= set(flat)


def test_flatten_containers_and_scalars():
    assert fm.flatten({"a": [1, np.float32(2.5)], "b": {"c": None}}) == {
        "a.0": 1, "a.1": 2.5, "b.c": None}
    assert fm.flatten(np.array([[1, 2]]), prefix="m") == {"m.0.0": 1, "m.0.1": 2}
    assert fm.flatten(0.5) == {"value": 0.5}
    assert fm.flatten(np.float64(0.25), "x") == {"x": 0.25}
