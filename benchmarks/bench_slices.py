"""Metrics by slice (10^7 rows, 1,000 groups): each family's grouped pass against its
ungrouped pass over the same rows, and a MetricFrame of {accuracy, macro F1, ROC AUC, log
loss, Brier, ECE} against fairlearn's MetricFrame and against polars ``group_by``
expressions (for the metrics polars can express: accuracy, Brier score, log loss).

The MetricFrames are two frames (labels for accuracy and macro F1, scores for the others:
a MetricFrame has one ``y_pred``), the same for fastmetrics and fairlearn. fairlearn calls
each metric once per group; its benchmark runs one round.
"""

import functools

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics.streaming import KINDS, GroupedAccumulator

N_GROUPS = 1000


@pytest.fixture(scope="module")
def data(scaled):
    rng = np.random.default_rng(7)
    n = scaled(10**7)
    groups = rng.integers(0, min(N_GROUPS, max(1, n // 100)), n)
    y_true = rng.integers(0, 2, n)
    score = np.clip(0.5 * y_true + rng.normal(0.25, 0.25, n), 0.0, 1.0)
    y_pred = (score > 0.5).astype(np.int64)
    labels10 = rng.integers(0, 10, n)
    pred10 = np.where(rng.random(n) < 0.7, labels10, rng.integers(0, 10, n))
    target = rng.normal(0.0, 1.0, n)
    return {"groups": groups, "y_true": y_true, "score": score, "y_pred": y_pred,
            "labels10": labels10, "pred10": pred10, "target": target,
            "estimate": target + rng.normal(0.0, 0.5, n)}


# family -> (data keys, metric method, its kwargs, scikit-learn's function)
FAMILIES = {
    "confusion": (("labels10", "pred10"), "f1_score", {"average": "macro"},
                  functools.partial(skm.f1_score, average="macro")),
    "regression": (("target", "estimate"), "mean_squared_error", {}, skm.mean_squared_error),
    "calibration": (("y_true", "score"), "brier_score_loss", {}, skm.brier_score_loss),
    "proba": (("y_true", "score"), "log_loss", {}, skm.log_loss),
    "ranking": (("y_true", "score"), "roc_auc_score", {}, skm.roc_auc_score),
}


def _check_groups(values, data, cols, reference, some=3):
    g = data["groups"]
    for key in list(values)[:some]:
        rows = g == key
        want = reference(*(data[c][rows] for c in cols))
        assert values[key] == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.benchmark(group="slices: one family, ungrouped pass")
def test_ungrouped(benchmark, data, family):
    cols, method, kw, reference = FAMILIES[family]

    def run():
        return getattr(KINDS[family]().update(*(data[c] for c in cols)), method)(**kw)

    value = benchmark(run)
    assert value == pytest.approx(reference(*(data[c] for c in cols)), rel=1e-12)


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.benchmark(group="slices: one family, 1,000 groups")
def test_grouped(benchmark, data, family):
    cols, method, kw, reference = FAMILIES[family]

    def run():
        acc = GroupedAccumulator(family).update(*(data[c] for c in cols), groups=data["groups"])
        return acc.metric(method, **kw)

    values = benchmark(run)
    assert len(values) == len(np.unique(data["groups"]))
    _check_groups(values, data, cols, reference)


LABEL_METRICS = {"accuracy": skm.accuracy_score,
                 "f1_macro": functools.partial(skm.f1_score, average="macro")}
SCORE_METRICS = {"roc_auc": skm.roc_auc_score, "log_loss": skm.log_loss,
                 "brier": skm.brier_score_loss, "ece": fm.expected_calibration_error}


def _frames(frame_type, data):
    a = frame_type(metrics=LABEL_METRICS, y_true=data["y_true"], y_pred=data["y_pred"],
                   sensitive_features=data["groups"])
    b = frame_type(metrics=SCORE_METRICS, y_true=data["y_true"], y_pred=data["score"],
                   sensitive_features=data["groups"])
    return a.by_group.join(b.by_group)


@pytest.mark.benchmark(group="slices: MetricFrame of 6 metrics, 1,000 groups")
def test_metricframe_fastmetrics(benchmark, data):
    ours = benchmark(_frames, fm.MetricFrame, data)
    g = data["groups"]
    for key in ours.index[:3]:
        rows = g == key
        assert ours.loc[key, "roc_auc"] == pytest.approx(
            skm.roc_auc_score(data["y_true"][rows], data["score"][rows]), rel=1e-12)
        assert ours.loc[key, "f1_macro"] == pytest.approx(
            skm.f1_score(data["y_true"][rows], data["y_pred"][rows], average="macro"),
            rel=1e-12)


@pytest.mark.benchmark(group="slices: MetricFrame of 6 metrics, 1,000 groups")
def test_metricframe_fairlearn(benchmark, data):
    fairlearn = pytest.importorskip("fairlearn.metrics")
    theirs = benchmark.pedantic(_frames, args=(fairlearn.MetricFrame, data), rounds=1,
                                iterations=1)
    ours = _frames(fm.MetricFrame, data)
    np.testing.assert_allclose(ours.to_numpy(), theirs.to_numpy(), rtol=1e-12, atol=1e-15)


def _polars_three(data):
    import polars as pl

    df = pl.DataFrame({"g": data["groups"], "y": data["y_true"], "p": data["y_pred"],
                       "s": data["score"]})
    eps = np.finfo(np.float64).eps
    s = pl.col("s").clip(eps, 1 - eps)
    return df.group_by("g").agg(
        (pl.col("y") == pl.col("p")).mean().alias("accuracy"),
        ((pl.col("s") - pl.col("y")) ** 2).mean().alias("brier"),
        (-(pl.col("y") * s.log() + (1 - pl.col("y")) * (1 - s).log())).mean().alias("log_loss"),
    ).sort("g")


def _ours_three(data):
    labels = fm.MetricFrame(metrics={"accuracy": skm.accuracy_score}, y_true=data["y_true"],
                            y_pred=data["y_pred"], sensitive_features=data["groups"])
    scores = fm.MetricFrame(metrics={"brier": skm.brier_score_loss, "log_loss": skm.log_loss},
                            y_true=data["y_true"], y_pred=data["score"],
                            sensitive_features=data["groups"])
    return labels.by_group.join(scores.by_group)


@pytest.mark.benchmark(group="slices: accuracy, Brier, log loss by group (polars can say these)")
def test_three_fastmetrics(benchmark, data):
    ours = benchmark(_ours_three, data)
    assert ours.shape == (len(np.unique(data["groups"])), 3)


@pytest.mark.benchmark(group="slices: accuracy, Brier, log loss by group (polars can say these)")
def test_three_polars(benchmark, data):
    pytest.importorskip("polars")
    theirs = benchmark(_polars_three, data)
    ours = _ours_three(data)
    for col in ("accuracy", "brier", "log_loss"):
        np.testing.assert_allclose(theirs[col].to_numpy(), ours[col].to_numpy(), rtol=1e-9)
