"""fastmetrics.evaluate and ``fastmetrics evaluate``: every (model, slice, metric) value is
scikit-learn's function on that slice's rows (a pandas groupby + scikit-learn as the
reference) for the binary, multiclass and regression tasks, from every kind of input and
in batches; baseline deltas, gates, intervals, min_slice_size, the outputs, and bad input
(API errors; CLI exit 2 with one line and nothing written at --output)."""

from __future__ import annotations

import json
import math
import operator
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.cli import main

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
skm = pytest.importorskip("sklearn.metrics")

N = 100_000
SEGS = ["a", "b", "c", "d", "e"]
SEG_P = [0.4, 0.25, 0.2, 0.1, 0.05]
SLICINGS = ["seg", ["seg", "dev"]]
LATE = 1_000  # the last rows' slice "late": it only appears in the later batches
LABEL_METRICS = {"accuracy", "precision", "recall", "f1", "matthews_corrcoef", "f1_macro",
                 "f1_weighted", "balanced_accuracy", "cohen_kappa"}
#: the regression task's: the central limit interval of the mean of the rows' errors
ERROR_METRICS = {"mean_absolute_error", "mean_squared_error", "root_mean_squared_error"}
#: the mean per-row losses: the central limit interval of the mean of the rows' losses
LOSS_METRICS = {"log_loss", "brier_score", "mean_absolute_percentage_error"}
#: from their own states: AP's logit interval, ECE's resampled bins, the median's order
#: statistics
STATE_METRICS = {"average_precision", "ece", "median_absolute_error"}
#: the delta method's, from the rows' influences (a second read)
RATIO_METRICS = {"r2", "explained_variance"}
INTERVAL_METRICS = (LABEL_METRICS | {"roc_auc"} | ERROR_METRICS | LOSS_METRICS | STATE_METRICS
                    | RATIO_METRICS)
#: the deltas with a paired interval
PAIRED_METRICS = LABEL_METRICS | ERROR_METRICS | LOSS_METRICS | RATIO_METRICS
REL, ABS = 1e-12, 1e-14


# --------------------------------------------------------------------------- data


def _common(rng: np.random.Generator, n: int) -> dict:
    seg = rng.choice(SEGS, n, p=SEG_P).astype(object)
    seg[-LATE:] = "late"
    return {"seg": seg, "dev": rng.integers(0, 3, n), "w": rng.random(n) + 0.25}


def binary_frame(n: int = N, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    good = np.clip(0.35 * y + 0.65 * rng.random(n), 0.0, 1.0)
    base = np.clip(0.15 * y + 0.85 * rng.random(n), 0.0, 1.0)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    d = {"y": y, "good": good, "base": base, "pred": pred, **_common(rng, n)}
    return pd.DataFrame(d)


def multiclass_frame(n: int = N, seed: int = 1, k: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(k, n, p=[0.4, 0.3, 0.2, 0.1][:k])
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), y] += 1.2
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    d = {"y": y, **{f"p{c}": p[:, c] for c in range(k)}, "pred": pred, **_common(rng, n)}
    return pd.DataFrame(d)


def regression_frame(n: int = N, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n) * 3.0 + 10.0
    good = y + rng.normal(size=n)
    base = y + rng.normal(size=n) * 2.0 + 0.3
    return pd.DataFrame({"y": y, "good": good, "base": base, **_common(rng, n)})


PROBS = [f"p{c}" for c in range(4)]
SETUPS = {
    # task -> (frame builder, models)
    "binary": (binary_frame, {"new": {"pred": "pred", "score": "good"}, "old": "base"}),
    "multiclass": (multiclass_frame, {"new": {"prob": PROBS}, "old": {"pred": "pred"},
                                      "both": {"pred": "pred", "prob": PROBS}}),
    "regression": (regression_frame, {"new": "good", "old": "base"}),
}


@pytest.fixture(scope="module")
def frames() -> dict:
    return {task: builder() for task, (builder, _) in SETUPS.items()}


# --------------------------------------------------------------------------- reference


def _st(s: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in s.items())


def _ref_binary(df: pd.DataFrame, cols: dict, w, classes) -> dict:
    y = df["y"].to_numpy()
    s = df[cols["score"]].to_numpy()
    labels = (df[cols["pred"]].to_numpy() if "pred" in cols
              else np.where(s >= 0.5, classes[-1], classes[0]))
    kw = {} if w is None else {"sample_weight": w}
    return {
        "accuracy": skm.accuracy_score(y, labels, **kw),
        "precision": skm.precision_score(y, labels, zero_division=0, **kw),
        "recall": skm.recall_score(y, labels, zero_division=0, **kw),
        "f1": skm.f1_score(y, labels, zero_division=0, **kw),
        "matthews_corrcoef": skm.matthews_corrcoef(y, labels, **kw),
        "roc_auc": skm.roc_auc_score(y, s, **kw),
        "average_precision": skm.average_precision_score(y, s, **kw),
        "log_loss": skm.log_loss(y, s, labels=classes, **kw),
        "brier_score": skm.brier_score_loss(y, s, **kw),
        "ece": fm.expected_calibration_error(y, s, **kw),
    }


def _ref_multiclass(df: pd.DataFrame, cols: dict, w, classes) -> dict:
    y = df["y"].to_numpy()
    kw = {} if w is None else {"sample_weight": w}
    P = df[cols["prob"]].to_numpy() if "prob" in cols else None
    labels = df[cols["pred"]].to_numpy() if "pred" in cols else classes[np.argmax(P, axis=1)]
    out = {
        "accuracy": skm.accuracy_score(y, labels, **kw),
        "f1_macro": skm.f1_score(y, labels, average="macro", zero_division=0, **kw),
        "f1_weighted": skm.f1_score(y, labels, average="weighted", zero_division=0, **kw),
        "balanced_accuracy": skm.balanced_accuracy_score(y, labels, **kw),
        "matthews_corrcoef": skm.matthews_corrcoef(y, labels, **kw),
        "cohen_kappa": skm.cohen_kappa_score(y, labels, **kw),
    }
    if P is not None:
        out["log_loss"] = skm.log_loss(y, P, labels=classes, **kw)
        out["top_2_accuracy"] = skm.top_k_accuracy_score(y, P, k=2, labels=classes, **kw)
        out["ece"] = fm.expected_calibration_error(y, P, labels=classes, **kw)
    p, r, f, _ = skm.precision_recall_fscore_support(y, labels, labels=classes, average=None,
                                                     zero_division=0, **kw)
    for i, c in enumerate(classes.tolist()):
        out[f"precision[{c}]"], out[f"recall[{c}]"], out[f"f1[{c}]"] = p[i], r[i], f[i]
    return out


def _ref_regression(df: pd.DataFrame, cols: dict, w, classes) -> dict:
    y = df["y"].to_numpy()
    e = df[cols["score"]].to_numpy()
    kw = {} if w is None else {"sample_weight": w}
    return {
        "mean_absolute_error": skm.mean_absolute_error(y, e, **kw),
        "mean_squared_error": skm.mean_squared_error(y, e, **kw),
        "root_mean_squared_error": skm.root_mean_squared_error(y, e, **kw),
        "r2": skm.r2_score(y, e, **kw),
        "mean_absolute_percentage_error": skm.mean_absolute_percentage_error(y, e, **kw),
        "median_absolute_error": skm.median_absolute_error(y, e, **kw),
        "max_error": skm.max_error(y, e),  # takes no weights
        "explained_variance": skm.explained_variance_score(y, e, **kw),
    }


REF = {"binary": _ref_binary, "multiclass": _ref_multiclass, "regression": _ref_regression}


def _cols(spec) -> dict:
    if isinstance(spec, str):
        return {"score": spec}
    return dict(spec)


_CACHE: dict = {}


def cached_reference(frames: dict, task: str, weight: str | None = None) -> dict:
    """The reference of a whole fixture frame with its task's models (computed once)."""
    key = (task, weight)
    if key not in _CACHE:
        _CACHE[key] = reference(frames[task], task, SETUPS[task][1], weight=weight)
    return _CACHE[key]


def reference(df: pd.DataFrame, task: str, models: dict, by=SLICINGS,
              weight: str | None = None, min_size: int = 1) -> dict:
    """(model, slice text, metric) -> (value, n): scikit-learn on each slice's rows."""
    classes = None if task == "regression" else np.unique(df["y"].to_numpy())
    parts = [((), df)]
    for sl in by:
        cols = [sl] if isinstance(sl, str) else list(sl)
        for key, g in df.groupby(cols, sort=False):
            key = key if isinstance(key, tuple) else (key,)
            parts.append((tuple(zip(cols, key)), g))
    out = {}
    for name, spec in models.items():
        for sdict, g in parts:
            if len(g) < min_size:
                continue
            w = None if weight is None else g[weight].to_numpy()
            vals = REF[task](g, _cols(spec), w, classes)
            for metric, v in vals.items():
                out[(name, _st(dict(sdict)), metric)] = (float(v), len(g))
    return out


def assert_matches(ev, ref: dict) -> None:
    got = {(r["model"], _st(r["slice"]), r["metric"]): r for r in ev.rows
           if ":" not in r["metric"]}
    assert set(got) == set(ref), (sorted(set(got) ^ set(ref)))[:10]
    bad = []
    for key, (v, n) in ref.items():
        r = got[key]
        if r["n"] != n or not math.isclose(r["value"], v, rel_tol=REL, abs_tol=ABS):
            bad.append((key, r["value"], v, r["n"], n))
    assert not bad, f"{len(bad)} of {len(ref)} differ, e.g. {bad[:8]}"


def same_rows(a, b, ci: bool = False) -> None:
    """Two evaluations give the same rows (up to the order of slices)."""
    ka = {(r["model"], _st(r["slice"]), r["metric"]): r for r in a.rows}
    kb = {(r["model"], _st(r["slice"]), r["metric"]): r for r in b.rows}
    assert set(ka) == set(kb), sorted(set(ka) ^ set(kb))[:10]
    bad = [k for k in ka if ka[k]["n"] != kb[k]["n"] or not (
        math.isclose(ka[k]["value"], kb[k]["value"], rel_tol=REL, abs_tol=ABS)
        or (math.isnan(ka[k]["value"]) and math.isnan(kb[k]["value"])))]
    assert not bad, [(k, ka[k]["value"], kb[k]["value"]) for k in bad[:8]]
    if ci:
        assert all(ka[k]["ci_low"] == kb[k]["ci_low"] and ka[k]["ci_high"] == kb[k]["ci_high"]
                   for k in ka)


# --------------------------------------------------------------------------- 1. values


@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_every_value_is_sklearns_on_the_slice(frames, task, weighted):
    df = frames[task]
    models = SETUPS[task][1]
    weight = "w" if weighted else None
    ci = None if weighted else 0.95
    ev = fm.evaluate(df, y_true="y", models=models, task=task, by=SLICINGS,
                     sample_weight=weight, baseline="old", ci=ci, n_boot=200)
    assert ev.task == task and not ev.task_inferred
    assert ev.models == list(models) and ev.baseline == "old"
    ref = cached_reference(frames, task, weight)
    assert_matches(ev, ref)
    # every metric of the task's table is there for the whole table
    for name, spec in models.items():
        got = {r["metric"] for r in ev.rows if r["model"] == name and not r["slice"]}
        want = set(fm.evaluation.TASK_METRICS[task])
        if task == "multiclass" and "prob" not in spec:
            want -= {"log_loss", "top_2_accuracy", "ece"}
        if task == "multiclass":
            want |= {f"{m}[{c}]" for m in ("precision", "recall", "f1") for c in range(4)}
        if name != "old":
            want |= {f"{m}:delta" for m in want if "[" not in m
                     and (name, "", m) in ref and ("old", "", m) in ref}
        assert got == want
    # the baseline's deltas: value - baseline value, for every slice and shared metric
    deltas = [r for r in ev.rows if r["metric"].endswith(":delta")]
    assert deltas and not any(r["model"] == "old" for r in deltas)
    for r in deltas:
        m = r["metric"][: -len(":delta")]
        want = ref[(r["model"], _st(r["slice"]), m)][0] - ref[("old", _st(r["slice"]), m)][0]
        assert r["value"] == pytest.approx(want, rel=1e-9, abs=1e-12)
        assert r["value"] == (ev.value(m, r["model"], r["slice"])
                              - ev.value(m, "old", r["slice"]))
        paired = m in PAIRED_METRICS or (m == "roc_auc" and task == "binary")  # (DeLong)
        if weighted or not paired or np.isnan(r["value"]):
            assert r["ci_low"] is None and r["ci_high"] is None
        else:
            assert r["ci_low"] <= r["value"] <= r["ci_high"], r
    n_deltas = sum(1 for k in ref if k[0] != "old" and "[" not in k[2]
                   and ("old", k[1], k[2]) in ref)
    assert len(deltas) == n_deltas
    # 4. intervals: around the value for the metrics of labels and ROC AUC, None elsewhere
    for r in ev.rows:
        if r["metric"].endswith(":delta"):
            continue  # checked above
        if weighted or r["metric"] not in INTERVAL_METRICS:
            assert r["ci_low"] is None and r["ci_high"] is None, r
        elif r["metric"] == "ece":  # biased upward: the resamples' ECE may all exceed it
            assert 0 <= r["ci_low"] < r["ci_high"], r
        else:
            assert r["ci_low"] <= r["value"] <= r["ci_high"], r
            assert r["ci_low"] < r["ci_high"], r


def test_binary_labels_thresholded_from_the_score(frames):
    df = frames["binary"].iloc[:30_000]
    ev = fm.evaluate(df, y_true="y", score="good", by=["seg", ["seg", "dev"]])
    assert ev.task == "binary" and ev.task_inferred and ev.models == ["model"]
    assert_matches(ev, reference(df, "binary", {"model": "good"}))
    # another threshold moves the labels, not the scores
    ev = fm.evaluate(df, y_true="y", score="good", threshold=0.7,
                     metrics=["accuracy", "f1", "roc_auc"])
    labels = (df["good"].to_numpy() >= 0.7).astype(int)
    assert ev.value("accuracy") == pytest.approx(skm.accuracy_score(df["y"], labels), rel=REL)
    assert ev.value("f1") == pytest.approx(skm.f1_score(df["y"], labels), rel=REL)
    assert ev.value("roc_auc") == pytest.approx(skm.roc_auc_score(df["y"], df["good"]),
                                                rel=REL)


@pytest.mark.parametrize("dtype", [object, str], ids=["object", "numpy-str"])
def test_binary_string_labels(frames, dtype):
    df = frames["binary"].iloc[:20_000].copy()
    df["y"] = np.where(df["y"] == 1, "spam", "ham").astype(dtype)
    df["pred"] = np.where(df["pred"] == 1, "spam", "ham").astype(dtype)
    if dtype is str:
        df = {c: (df[c].to_numpy().astype(str) if c in ("y", "pred") else df[c].to_numpy())
              for c in df.columns}
    models = {"new": {"pred": "pred", "score": "good"}, "old": "base"}
    ev = fm.evaluate(df, y_true="y", models=models, by="seg")
    assert ev.task == "binary"
    df = pd.DataFrame(df)
    ref = {}
    classes = np.array(["ham", "spam"])
    for name, spec in models.items():
        for sdict, g in [((), df)] + [((("seg", k),), g) for k, g in df.groupby("seg")]:
            cols = _cols(spec)
            y = g["y"].to_numpy()
            s = g[cols["score"]].to_numpy()
            lab = g["pred"].to_numpy() if "pred" in cols else np.where(s >= 0.5, "spam", "ham")
            vals = {"accuracy": skm.accuracy_score(y, lab),
                    "precision": skm.precision_score(y, lab, pos_label="spam"),
                    "recall": skm.recall_score(y, lab, pos_label="spam"),
                    "f1": skm.f1_score(y, lab, pos_label="spam"),
                    "matthews_corrcoef": skm.matthews_corrcoef(y, lab),
                    "roc_auc": skm.roc_auc_score(y, s),
                    "average_precision": skm.average_precision_score(y, s, pos_label="spam"),
                    "log_loss": skm.log_loss(y, s, labels=classes),
                    "brier_score": skm.brier_score_loss(y, s, pos_label="spam"),
                    "ece": fm.expected_calibration_error(y, s, pos_label="spam")}
            for m, v in vals.items():
                ref[(name, _st(dict(sdict)), m)] = (float(v), len(g))
    assert_matches(ev, ref)


def test_multiclass_probabilities_only_and_predictions_only(frames):
    df = frames["multiclass"].iloc[:30_000].drop(columns="pred")
    ev = fm.evaluate(df, y_true="y", prob="p", by="dev")  # a prefix: p0..p3
    assert ev.task == "multiclass" and ev.task_inferred
    assert_matches(ev, reference(df, "multiclass", {"model": {"prob": PROBS}}, by=["dev"]))
    df = frames["multiclass"].iloc[:30_000]
    ev = fm.evaluate(df, y_true="y", pred="pred", by="dev")
    assert ev.task == "multiclass"
    assert_matches(ev, reference(df, "multiclass", {"model": {"pred": "pred"}}, by=["dev"]))


def test_multiclass_text_labels():
    rng = np.random.default_rng(6)
    n = 20_000
    k = np.array(["cat", "dog", "eel"])
    y = k[rng.integers(0, 3, n)]
    P = rng.dirichlet(np.ones(3), n)
    d = {"y": y, "pc": P[:, 0], "pd": P[:, 1], "pe": P[:, 2], "pred": k[rng.integers(0, 3, n)],
         "seg": rng.choice(SEGS, n)}
    models = {"a": {"prob": ["pc", "pd", "pe"]}, "b": {"pred": "pred"}}
    want = fm.evaluate(pd.DataFrame(d), y_true="y", models=models, by="seg")
    assert want.task == "multiclass"
    assert {r["metric"] for r in want.rows} >= {"f1[cat]", "precision[dog]", "recall[eel]"}
    df = pd.DataFrame(d).rename(columns={"pc": "p0", "pd": "p1", "pe": "p2"})
    ref = reference(df, "multiclass", {"a": {"prob": ["p0", "p1", "p2"]}, "b": {"pred": "pred"}},
                    by=["seg"])
    assert_matches(want, ref)
    for data in (d, pl.DataFrame(d), pa.table(d)):
        same_rows(fm.evaluate(data, y_true="y", models=models, by="seg"), want)


@pytest.mark.parametrize("label", [0, 1])
def test_binary_one_class_thresholded(label):
    y = np.full(4, label)
    s = np.array([0.9, 0.1, 0.8, 0.2])
    ev = fm.evaluate({"y": y, "s": s}, y_true="y", score="s", metrics=["accuracy"])
    assert ev.value("accuracy") == skm.accuracy_score(y, (s >= 0.5).astype(int)) == 0.5


def test_binary_model_from_two_probability_columns():
    rng = np.random.default_rng(13)
    n = 5_000
    y = rng.integers(0, 2, n)
    p1 = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    ev = fm.evaluate({"y": y, "p0": 1 - p1, "p1": p1}, y_true="y", prob=["p0", "p1"])
    assert ev.task == "binary"
    assert ev.value("roc_auc") == pytest.approx(skm.roc_auc_score(y, p1), rel=REL)
    assert ev.value("accuracy") == skm.accuracy_score(y, (p1 >= 0.5).astype(int))


def test_multiclass_slice_without_a_class():
    rng = np.random.default_rng(5)
    n = 6_000
    y = rng.integers(0, 3, n)
    pred = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    seg = np.where(np.arange(n) % 2 == 0, "x", "y")
    # slice "y" never sees class 2, in the truth nor in the predictions
    y[(seg == "y") & (y == 2)] = 0
    pred[(seg == "y") & (pred == 2)] = 1
    df = pd.DataFrame({"y": y, "pred": pred, "seg": seg})
    ev = fm.evaluate(df, y_true="y", pred="pred", by="seg",
                     metrics=["f1_macro", "balanced_accuracy", "cohen_kappa"])
    g = df[df.seg == "y"]
    assert ev.value("f1_macro", slice={"seg": "y"}) == pytest.approx(
        skm.f1_score(g.y, g.pred, average="macro"), rel=REL)
    assert ev.value("balanced_accuracy", slice={"seg": "y"}) == pytest.approx(
        skm.balanced_accuracy_score(g.y, g.pred), rel=REL)
    assert ev.value("cohen_kappa", slice={"seg": "y"}) == pytest.approx(
        skm.cohen_kappa_score(g.y, g.pred), rel=REL)


# --------------------------------------------------------------------------- 2. inputs


def _as(kind: str, df: pd.DataFrame, tmp_path):
    if kind == "pandas":
        return df
    if kind == "polars":
        return pl.from_pandas(df)
    if kind == "arrow":
        return pa.Table.from_pandas(df, preserve_index=False)
    if kind == "dict":
        return {c: df[c].to_numpy() for c in df.columns}
    if kind == "dict-lists":
        return {c: df[c].tolist() for c in df.columns}
    if kind == "parquet":
        path = tmp_path / "preds.parquet"
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=5000)
        return str(path)
    if kind == "csv":
        path = tmp_path / "preds.csv"
        df.to_csv(path, index=False)
        return path  # a PathLike
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow", "dict", "parquet", "csv"])
def test_same_numbers_from_every_input(frames, kind, tmp_path):
    df = frames["binary"]
    models = SETUPS["binary"][1]
    ev = fm.evaluate(_as(kind, df, tmp_path), y_true="y", models=models, by=SLICINGS,
                     sample_weight="w", baseline="old")
    assert_matches(ev, cached_reference(frames, "binary", "w"))
    assert any(r["slice"].get("seg") == "late" for r in ev.rows)


@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
def test_parquet_in_small_batches(frames, task, tmp_path):
    df = frames[task]
    models = SETUPS[task][1]
    calls = []
    ev = fm.evaluate(_as("parquet", df, tmp_path), y_true="y", models=models, by=SLICINGS,
                     batch_rows=777, baseline="old", progress=lambda d, t: calls.append((d, t)))
    # batches of at most 777 rows (text columns, read dictionary-encoded, end a batch at a
    # row group's end too)
    steps = np.diff([0, *(d for d, _ in calls)])
    assert len(calls) >= math.ceil(N / 777) and steps.min() > 0 and steps.max() <= 777
    assert calls[-1] == (N, N)
    assert_matches(ev, cached_reference(frames, task))
    late = [r for r in ev.rows if r["slice"].get("seg") == "late"]
    assert late and all(r["n"] in (LATE, *range(1, LATE)) for r in late)
    deltas = [r for r in ev.rows if r["metric"].endswith(":delta")]
    assert deltas and all(r["value"] == ev.value(r["metric"][:-6], r["model"], r["slice"])
                          - ev.value(r["metric"][:-6], "old", r["slice"]) for r in deltas)


@pytest.mark.parametrize("kind", ["polars", "arrow", "dict", "dict-lists", "csv"])
def test_inputs_multiclass_and_regression(frames, kind, tmp_path):
    for task in ("multiclass", "regression"):
        df = frames[task].iloc[:20_000]
        models = SETUPS[task][1]
        ev = fm.evaluate(_as(kind, df, tmp_path), y_true="y", models=models, by=SLICINGS,
                         task=task)
        assert_matches(ev, reference(df, task, models))


def test_csv_read_in_batches_of_batch_rows(frames, tmp_path):
    df = frames["binary"].iloc[:20_000]
    path = _as("csv", df, tmp_path)
    calls = []
    ev = fm.evaluate(path, y_true="y", score="good", by="seg", batch_rows=777,
                     progress=lambda d, t: calls.append(d))
    assert_matches(ev, reference(df, "binary", {"model": "good"}, by=["seg"]))
    assert calls[-1] == len(df)
    # batches of at most 777 rows (one may end early where pyarrow's block of bytes ends)
    steps = np.diff([0, *calls])
    assert math.ceil(len(df) / 777) <= len(calls) <= math.ceil(len(df) / 777) + 2
    assert steps.min() > 0 and steps.max() <= 777


def test_parquet_categorical_slices_in_batches(tmp_path):
    """A dictionary-encoded slice column whose row groups hold different dictionaries."""
    rng = np.random.default_rng(14)
    n = 20_000
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    seg = rng.choice(SEGS, n).astype(object)
    seg[:5_000] = np.where(rng.random(5_000) < 0.5, "x", "y")  # only in the first batches
    df = pd.DataFrame({"y": y, "s": s, "seg": pd.Categorical(seg)})
    path = tmp_path / "cat.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=3_000)
    ev = fm.evaluate(path, y_true="y", score="s", by="seg", batch_rows=777)
    plain = df.assign(seg=seg)
    assert_matches(ev, reference(plain, "binary", {"model": "s"}, by=["seg"]))
    same_rows(fm.evaluate(df, y_true="y", score="s", by="seg"), ev)


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_file_without_rows(tmp_path, ext):
    df = pd.DataFrame({"y": np.array([], dtype=np.int64), "p": np.array([], dtype=float)})
    path = tmp_path / f"empty.{ext}"
    df.to_csv(path, index=False) if ext == "csv" else df.to_parquet(path)
    with pytest.raises(ValueError, match="no rows"):
        fm.evaluate(path, y_true="y", score="p")


def test_compressed_csv_and_tsv(frames, tmp_path):
    df = frames["regression"].iloc[:5_000]
    want = fm.evaluate(df, y_true="y", score="good", by="seg")
    for name, sep in [("p.csv.gz", ","), ("p.tsv", "\t")]:
        path = tmp_path / name
        df.to_csv(path, index=False, sep=sep)
        same_rows(fm.evaluate(path, y_true="y", score="good", by="seg"), want)


# --------------------------------------------------------------------------- 3. gates


@pytest.fixture(scope="module")
def gate_frame() -> pd.DataFrame:
    """new is good everywhere but on seg "e", where it is noise; old is mediocre."""
    df = binary_frame(30_000, seed=7).drop(columns="pred")
    rng = np.random.default_rng(8)
    e = (df["seg"] == "e").to_numpy()
    df.loc[e, "good"] = rng.random(int(e.sum()))
    return df


def _recheck(ev) -> None:
    """Every gate's verdict is its comparison on the values of the rows."""
    ops = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
    for g in ev.gates:
        gate = fm.evaluation.Gate.parse(g["gate"])
        v = ev.value(gate.metric, g["model"], g["slice"])
        assert g["value"] == v
        if gate.kind == "value":
            assert g["passed"] == ops[gate.op](v, gate.bound), g
        elif gate.kind in ("delta", "rel"):
            b = ev.value(gate.metric, ev.baseline, g["slice"])
            d = v - b if gate.kind == "delta" else (v - b) / abs(b)
            assert g["passed"] == ops[gate.op](d, gate.bound), g
    assert ev.passed == all(g["passed"] for g in ev.gates)
    assert ev.failed() == [g for g in ev.gates if not g["passed"]]


def test_value_gates(gate_frame):
    ev = fm.evaluate(gate_frame, y_true="y", models={"new": "good", "old": "base"},
                     gates=["roc_auc>=0.75", "log_loss <= 2", "accuracy>0.99"])
    _recheck(ev)
    by = {(g["gate"], g["model"]): g["passed"] for g in ev.gates}
    assert by == {("roc_auc>=0.75", "new"): True, ("roc_auc>=0.75", "old"): False,
                  ("log_loss <= 2", "new"): True, ("log_loss <= 2", "old"): True,
                  ("accuracy>0.99", "new"): False, ("accuracy>0.99", "old"): False}
    assert not ev.passed and len(ev.failed()) == 3
    assert all(g["slice"] == {} for g in ev.gates)
    ok = fm.evaluate(gate_frame, y_true="y", models={"new": "good"}, gates=["roc_auc>=0.75"])
    assert ok.passed and ok.failed() == [] and len(ok.gates) == 1
    assert fm.evaluate(gate_frame, y_true="y", score="good").passed  # no gates


def test_baseline_gates(gate_frame):
    ev = fm.evaluate(gate_frame, y_true="y", models={"new": "good", "old": "base"},
                     baseline="old", ci=0.95, n_boot=300,
                     gates=["roc_auc:delta>=0.05", "roc_auc:delta>=0.5", "accuracy:rel>=0.05",
                            "brier_score:delta<=0", "roc_auc:better", "f1:better",
                            "log_loss:better"])
    _recheck(ev)
    assert {g["model"] for g in ev.gates} == {"new"}  # the baseline is not gated against itself
    by = {g["gate"]: g for g in ev.gates}
    assert [by[k]["passed"] for k in by] == [True, False, True, True, True, True, True]
    # log loss: the paired interval of the mean of the rows' loss differences
    assert "(paired)" in by["log_loss:better"]["reason"]
    new = {r["metric"]: r for r in ev.rows if r["model"] == "new" and not r["slice"]}
    assert new["roc_auc"]["ci_low"] > ev.value("roc_auc", "old")
    # reversed: old is not better than new
    ev = fm.evaluate(gate_frame, y_true="y", models={"new": "good", "old": "base"},
                     baseline="new", ci=0.95, gates=["roc_auc:better", "roc_auc:delta>=0"])
    assert [g["passed"] for g in ev.gates] == [False, False] and not ev.passed
    # :better without intervals fails, saying why
    ev = fm.evaluate(gate_frame, y_true="y", models={"new": "good", "old": "base"},
                     baseline="old", gates=["roc_auc:better"])
    assert not ev.passed and "no interval" in ev.gates[0]["reason"]


@pytest.mark.parametrize("metric, kwargs", [
    ("accuracy", {}), ("f1", {"zero_division": 0}), ("matthews_corrcoef", {})])
def test_paired_delta_intervals(gate_frame, metric, kwargs):
    """A candidate's difference to the baseline gets the paired bootstrap interval (rows
    resampled with both models' labels): as wide as fastmetrics.compare's on the same
    rows."""
    df = gate_frame
    ev = fm.evaluate(df, y_true="y", models={"new": "good", "old": "base"}, baseline="old",
                     by="seg", ci=0.95, n_boot=1000, metrics=[metric, "roc_auc"],
                     gates=[f"{metric}:better"], gate_slices=True)
    rows = {(r["metric"], _st(r["slice"])): r for r in ev.rows if r["model"] == "new"}
    # ROC AUC's paired interval is DeLong's (a second read of the scores)
    auc = rows[("roc_auc:delta", "")]
    want = fm.delong_test(df.y.to_numpy(), df.base.to_numpy(), df.good.to_numpy())
    assert (auc["ci_low"], auc["ci_high"]) == pytest.approx(want.confidence_interval,
                                                            rel=1e-9)
    fn = {"accuracy": fm.accuracy_score, "f1": fm.f1_score,
          "matthews_corrcoef": fm.matthews_corrcoef}[metric]
    for where in [{}] + [{"seg": s} for s in SEGS]:
        d = rows[(metric + ":delta", _st(where))]
        assert d["ci_low"] <= d["value"] <= d["ci_high"], d
        part = df if not where else df[df.seg == where["seg"]]
        y = part.y.to_numpy()
        new, old = (part.good.to_numpy() >= 0.5).astype(np.int64), \
            (part.base.to_numpy() >= 0.5).astype(np.int64)
        assert d["value"] == pytest.approx(fn(y, new, **kwargs) - fn(y, old, **kwargs),
                                           rel=1e-12, abs=1e-14)
        ref = fm.compare(fn, y, old, new, n_resamples=1000, random_state=0, **kwargs)
        lo, hi = ref.confidence_interval
        assert (d["ci_high"] - d["ci_low"]) / (hi - lo) == pytest.approx(1, abs=0.2), d
        gate = next(g for g in ev.gates if g["slice"] == where)
        assert gate["passed"] == (d["ci_low"] > 0) and "(paired)" in gate["reason"]
    # weighted rows get no intervals, so no paired ones
    w = fm.evaluate(df.assign(w=1.0), y_true="y", models={"new": "good", "old": "base"},
                    baseline="old", ci=0.95, n_boot=50, metrics=[metric], sample_weight="w")
    assert all(r["ci_low"] is None for r in w.rows)


def test_paired_tables_are_the_models_margins():
    """The resampled joint cells' margins are each model's confusion table, laid out as
    PairedConfusionState.marginal lays it (labels one model never predicts left out)."""
    from fastmetrics.evaluation import _margin_tables
    from fastmetrics.states import PairedConfusionState

    rng = np.random.default_rng(0)
    names = np.array(list("abcdef"))
    for _ in range(200):
        k, n = int(rng.integers(1, 6)), int(rng.integers(1, 200))
        y, a = rng.choice(names[:k], n), rng.choice(names[:k + 1], n)
        b = rng.choice(names[:max(1, k - 1)], n)
        st = PairedConfusionState.from_arrays(y, a, b)
        t, pa, pb = st.positions()
        d = np.stack([st.counts, 0 * st.counts, 2 * st.counts])
        for side, p in (("a", pa), ("b", pb)):
            want = st.marginal(side).cm
            got = _margin_tables(d, t, p, st.counts)
            assert got.shape == (3,) + want.shape
            np.testing.assert_array_equal(got[0], want)
            np.testing.assert_array_equal(got[2], 2 * want)
            assert not got[1].any()


def test_gates_on_slices(gate_frame):
    n_e = int((gate_frame["seg"] == "e").sum())
    ev = fm.evaluate(gate_frame, y_true="y", models={"new": "good", "old": "base"},
                     baseline="old", by=SLICINGS, gate_slices=True,
                     gates=["roc_auc>=0.7", "roc_auc:delta>=0"])
    _recheck(ev)
    slices = [{}] + [r["slice"] for r in ev.rows if r["slice"] and r["model"] == "new"
                     and r["metric"] == "roc_auc"]
    assert len(slices) == 1 + 6 + 18
    got = {(g["gate"], g["model"], _st(g["slice"])) for g in ev.gates}
    want = {("roc_auc>=0.7", m, _st(s)) for m in ("new", "old") for s in slices} | {
        ("roc_auc:delta>=0", "new", _st(s)) for s in slices}
    assert got == want
    failed_new = {_st(g["slice"]) for g in ev.failed() if g["model"] == "new"}
    assert failed_new == {_st(s) for s in slices if s.get("seg") == "e"}
    # without gate_slices: the whole table only (it passes for new)
    ev = fm.evaluate(gate_frame, y_true="y", models={"new": "good"}, by=SLICINGS,
                     gates=["roc_auc>=0.7"])
    assert ev.passed and [g["slice"] for g in ev.gates] == [{}]
    # slices under min_slice_size are not gated
    ev = fm.evaluate(gate_frame, y_true="y", models={"new": "good"}, by="seg",
                     gate_slices=True, min_slice_size=n_e + 1, gates=["roc_auc>=0.7"])
    assert ev.passed and {"seg": "e"} not in [g["slice"] for g in ev.gates]


@pytest.mark.parametrize("k, kwargs", [
    (2, {"metrics": ["accuracy"], "gates": ["roc_auc>=0.999"]}),
    (3, {"metrics": ["accuracy"], "gates": ["f1_macro>=0.999"]}),
    (3, {"gates": ["precision[7]>=0.999"], "task": "multiclass"}),
    (3, {"gates": ["log_loss<=0.001"], "task": "multiclass"}),
], ids=["not-asked-binary", "not-asked-multiclass", "no-such-class", "needs-probabilities"])
def test_gate_on_a_metric_not_computed_does_not_pass(k, kwargs):
    rng = np.random.default_rng(3)
    y = rng.integers(0, k, 500)
    data = {"y": y, "pred": np.where(rng.random(500) < 0.5, y, 0)}
    try:
        ev = fm.evaluate(data, y_true="y", pred="pred", **kwargs)
    except ValueError:
        return
    assert not ev.passed, ev.gates


def test_intervals_are_sensible(frames):
    df = frames["binary"].iloc[:40_000]
    kw = dict(y_true="y", models={"new": {"pred": "pred", "score": "good"}}, by="seg",
              metrics=["accuracy", "roc_auc", "f1", "log_loss"], n_boot=400)
    ev = fm.evaluate(df, ci=0.95, **kw)
    for r in ev.rows:
        assert r["ci_low"] <= r["value"] <= r["ci_high"], r
        if r["metric"] == "log_loss":  # the mean's standard error, from the rows' losses
            g = df if not r["slice"] else df[df.seg == r["slice"]["seg"]]
            p = np.clip(np.where(g.y == 1, g.good, 1 - g.good), 1e-15, 1)
            se = np.std(-np.log(p), ddof=1) / math.sqrt(len(g))
            assert (r["ci_high"] - r["ci_low"]) / (2 * 1.959964 * se) == pytest.approx(
                1, rel=1e-5), r
        if r["metric"] == "accuracy":  # the binomial interval's width, within 20 %
            half = 1.959964 * math.sqrt(r["value"] * (1 - r["value"]) / r["n"])
            assert (r["ci_high"] - r["ci_low"]) / (2 * half) == pytest.approx(1, abs=0.2), r
        if r["metric"] == "roc_auc":  # Hanley & McNeil's standard error, within 25 %
            g = df if not r["slice"] else df[df.seg == r["slice"]["seg"]]
            a, n1 = r["value"], int(g.y.sum())
            n0 = len(g) - n1
            q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
            se = math.sqrt((a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a))
                           / (n0 * n1))
            assert (r["ci_high"] - r["ci_low"]) / (2 * 1.959964 * se) == pytest.approx(
                1, abs=0.25), r
    # reproducible from random_state; a wider level gives wider intervals
    same_rows(ev, fm.evaluate(df, ci=0.95, **kw), ci=True)
    other = fm.evaluate(df, ci=0.95, random_state=1, **kw)
    assert other.rows[0]["ci_low"] != ev.rows[0]["ci_low"]
    wide = fm.evaluate(df, ci=0.99, **kw)
    for a, b in zip(ev.rows, wide.rows):
        if a["ci_low"] is not None:
            assert b["ci_low"] <= a["ci_low"] and a["ci_high"] <= b["ci_high"]
    none = fm.evaluate(df, **kw)
    assert all(r["ci_low"] is None and r["ci_high"] is None for r in none.rows)


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_stacked_intervals_equal_one_table_at_a_time(frames, monkeypatch, task):
    """The slices' resampled tables are scored together by the vectorised derivations; each
    table scored alone (the table's own derivation) gives the same bounds."""
    import fastmetrics.evaluation as evaluation

    df = frames[task].iloc[:6_000]
    kw = dict(y_true="y", pred="pred", by=SLICINGS, ci=0.9, n_boot=60, random_state=5)
    fast = fm.evaluate(df, **kw)
    monkeypatch.setattr(evaluation, "_BATCH", {})
    monkeypatch.setattr(evaluation, "_PRF_PARTS", {})
    slow = fm.evaluate(df, **kw)
    assert len(fast.rows) == len(slow.rows)
    n_ci = 0
    for a, b in zip(fast.rows, slow.rows):
        assert (a["metric"], a["slice"]) == (b["metric"], b["slice"])
        assert (a["ci_low"] is None) == (b["ci_low"] is None), a
        if a["ci_low"] is not None:
            n_ci += 1
            assert a["ci_low"] == pytest.approx(b["ci_low"], rel=1e-12, abs=1e-15)
            assert a["ci_high"] == pytest.approx(b["ci_high"], rel=1e-12, abs=1e-15)
    assert n_ci >= 10


# --------------------------------------------------------------------------- 5. small slices


def test_min_slice_size(frames):
    df = frames["binary"].iloc[:30_000].copy()
    df.loc[df.index[:7], "seg"] = "tiny"
    models = {"new": "good", "old": "base"}
    ev = fm.evaluate(df, y_true="y", models=models, by=SLICINGS, min_slice_size=300,
                     baseline="old")
    counts = df.groupby("seg").size()
    crossed = df.groupby(["seg", "dev"]).size()
    small = {_st(t["slice"]): t["n"] for t in ev.too_small}
    want = {f"seg={k}": int(v) for k, v in counts.items() if v < 300}
    want |= {f"seg={a}, dev={b}": int(v) for (a, b), v in crossed.items() if v < 300}
    assert small == want and "seg=tiny" in small and small["seg=tiny"] == 7
    assert all(t["slicing"] in (["seg"], ["seg", "dev"]) for t in ev.too_small)
    assert not any(_st(r["slice"]) in small for r in ev.rows)
    assert_matches(ev, reference(df, "binary", models, min_size=300))
    # the default keeps every slice
    ev = fm.evaluate(df, y_true="y", score="good", by="seg", metrics=["accuracy"])
    assert ev.too_small == [] and ev.value("accuracy", slice={"seg": "tiny"}) == \
        skm.accuracy_score(df.y[:7], df.good[:7] >= 0.5)


# --------------------------------------------------------------------------- 6. outputs


@pytest.fixture(scope="module")
def small_ev():
    df = binary_frame(5_000, seed=11)
    return fm.evaluate(df, y_true="y", models={"new": "good", "old": "base"}, by="seg",
                       baseline="old", ci=0.9, n_boot=100, gates=["roc_auc>=0.7"])


def test_tables_and_json(small_ev):
    ev = small_ev
    d = json.loads(ev.to_json())
    assert d["task"] == "binary" and d["passed"] is False
    assert len(d["rows"]) == len(ev.rows) and len(d["gates"]) == len(ev.gates) == 2
    for r, orig in zip(d["rows"], ev.rows):
        assert set(r) == {"model", "slice", "metric", "value", "ci_low", "ci_high", "n"}
        assert r["slice"] == {k: str(v) for k, v in orig["slice"].items()}
        assert r["value"] == orig["value"] and r["n"] == orig["n"]
        name, _, delta = r["metric"].partition(":")
        paired = LABEL_METRICS | LOSS_METRICS | {"roc_auc"}  # (ROC AUC: DeLong's)
        assert (name in (paired if delta else INTERVAL_METRICS)) == (r["ci_low"] is not None)
    assert {"gate", "model", "slice", "value", "passed", "reason"} <= set(d["gates"][0])
    for kind in ("pandas", "polars", "arrow", "records"):
        t = ev.table(kind)
        assert len(t) == len(ev.rows)
    t = ev.table("pandas")
    assert list(t.columns) == ["model", "slicing", "slice", "metric", "value", "ci_low",
                               "ci_high", "n"]
    assert set(t["slice"]) == {""} | {f"seg={s}" for s in SEGS + ["late"]}
    assert t["value"].tolist() == [r["value"] for r in ev.rows]
    assert ev.table("arrow").column("value").to_pylist() == t["value"].tolist()
    with pytest.raises(ValueError, match="kind"):
        ev.table("excel")
    with pytest.raises(KeyError):
        ev.value("roc_auc", "new", {"seg": "nope"})
    assert ev.value("roc_auc") == ev.value("roc_auc", "new", {})


def test_json_of_nan_values():
    # one class in a slice: ROC AUC undefined there (NaN), None in JSON
    data = {"y": [0, 0, 1, 1, 0], "p": [0.1, 0.6, 0.7, 0.4, 0.2], "g": list("aabbb")}
    ev = fm.evaluate(data, y_true="y", score="p", by="g", metrics=["roc_auc", "accuracy"])
    assert math.isnan(ev.value("roc_auc", slice={"g": "a"}))
    rows = json.loads(ev.to_json())["rows"]
    assert [r["value"] for r in rows if r["metric"] == "roc_auc"][1] is None


def _regression_with_a_bad_slice():
    rng = np.random.default_rng(12)
    n = 20_000
    y = rng.normal(size=n) * 3 + 10
    seg = rng.choice(SEGS, n)
    e = y + rng.normal(size=n) * np.where(seg == "e", 5.0, 0.5)
    return fm.evaluate(pd.DataFrame({"y": y, "e": e, "seg": seg}), y_true="y", score="e",
                       by="seg")


def test_html_marks_the_worst_slice_of_each_metric():
    ev = _regression_with_a_bad_slice()
    worst = [line for line in ev.to_html().splitlines() if line.startswith("<tr class='worst'")]
    assert len(worst) == 8
    for m in ("mean_absolute_error", "r2", "max_error"):
        assert any(f"<td>seg=e</td><td>{m}</td>" in line for line in worst), m


def test_markdown_worst_slices_of_an_error():
    md = _regression_with_a_bad_slice().to_markdown()
    worst = md.split("**Worst slices**")[1]
    assert "seg=e" in worst


def test_markdown_and_html(small_ev):
    md = small_ev.to_markdown()
    assert md.startswith("### fastmetrics evaluate: binary")
    assert "| metric | new | old |" in md and "| roc_auc |" in md
    assert "**Gates**" in md and "**FAIL**" in md and "**Worst slices**" in md
    html = small_ev.to_html()
    assert html.startswith("<!DOCTYPE html>") and "<table" in html and "</table>" in html
    assert html.count("<tr") == len(small_ev.rows) + 1
    assert "FAIL" in html and "class='worst'" in html


def test_html_escapes_names_and_slices():
    data = {"y": [0, 1, 1, 0, 1, 0], "<b>": [0.1, 0.8, 0.7, 0.3, 0.4, 0.2],
            "g": ["<script>x</script>", "a&b"] * 3}
    page = fm.evaluate(data, y_true="y", models={"<i>m</i>": "<b>"}, by="g",
                       gates=["accuracy>=0.9"]).to_html()
    assert "<script>x" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "<i>m</i>" not in page and "&lt;i&gt;m&lt;/i&gt;" in page and "a&amp;b" in page


# --------------------------------------------------------------------------- 7. bad input


@pytest.fixture(scope="module")
def bad_frame() -> pd.DataFrame:
    return binary_frame(2_000, seed=4)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"score": "nope"}, ValueError, "unknown column 'nope'"),
    ({"score": "good", "by": "nope"}, ValueError, "unknown column 'nope'"),
    ({"score": "good", "sample_weight": "nope"}, ValueError, "unknown column 'nope'"),
    ({"y_true": "nope", "score": "good"}, ValueError, "unknown column 'nope'"),
    ({"score": "good", "metrics": ["roc_auc", "auc_roc"]}, ValueError, "unknown metric 'auc_roc'"),
    ({"score": "good", "metrics": ["r2"]}, ValueError, "unknown metric 'r2'"),
    ({"score": "good", "gates": ["roc_auc=0.8"]}, ValueError, "malformed gate"),
    ({"score": "good", "gates": ["roc_auc>=high"]}, ValueError, "malformed gate"),
    ({"score": "good", "gates": ["roc_auc>=1e"]}, ValueError, "malformed gate"),
    ({"score": "good", "gates": ["roc_auc:delta"]}, ValueError, "malformed gate"),
    ({"score": "good", "gates": ["roc_auc:better>0"]}, ValueError, "malformed gate"),
    ({"score": "good", "gates": ["roc_auc:worse>0"]}, ValueError, "malformed gate"),
    ({"score": "good", "gates": ["auc>=0.5"]}, ValueError, "unknown metric 'auc'"),
    ({"score": "good", "gates": ["roc_auc:delta>=0"]}, ValueError, "baseline"),
    ({"score": "good", "baseline": "old"}, ValueError, "baseline 'old' is not a model"),
    ({"models": {"a": "good"}, "baseline": "b"}, ValueError, "baseline 'b' is not a model"),
    ({"score": "good", "min_slice_size": 0}, ValueError, "min_slice_size"),
    ({"score": "good", "min_slice_size": -3}, ValueError, "min_slice_size"),
    ({"score": "good", "min_slice_size": 2.5}, ValueError, "min_slice_size"),
    ({"score": "good", "ci": 1.5}, ValueError, "ci"),
    ({"score": "good", "task": "ranking"}, ValueError, "task"),
    ({}, ValueError, "no model"),
    ({"models": {}}, TypeError, "models"),
    ({"score": "good", "prob": "zz"}, ValueError, "prefix"),
])
def test_bad_arguments(bad_frame, kwargs, exc, match):
    kwargs = {"y_true": "y", **kwargs}
    with pytest.raises(exc, match=match):
        fm.evaluate(bad_frame, **kwargs)


def test_bad_data(bad_frame, tmp_path):
    df = bad_frame.copy()
    df["y_nan"] = df["y"].astype(float)
    df.loc[5, "y_nan"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fm.evaluate(df, y_true="y_nan", score="good")
    with pytest.raises(ValueError, match="NaN"):
        fm.evaluate(df, y_true="y_nan", score="good", task="regression")
    # scores outside [0, 1]: refused where probabilities are read (log loss, Brier, ECE)
    df["margin"] = (df["good"] - 0.5) * 8
    for metric in ("log_loss", "brier_score", "ece"):
        with pytest.raises(ValueError, match=r"\[0, 1\]"):
            fm.evaluate(df, y_true="y", score="margin", metrics=["accuracy", metric])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fm.evaluate(df, y_true="y", score="margin")
    # ... and taken where they are not (ranking, thresholded labels)
    ev = fm.evaluate(df, y_true="y", score="margin", metrics=["roc_auc", "accuracy"],
                     threshold=0.0)
    assert ev.value("roc_auc") == pytest.approx(skm.roc_auc_score(df.y, df.margin), rel=REL)
    assert ev.value("accuracy") == skm.accuracy_score(df.y, df.margin >= 0)
    # multiclass probabilities outside [0, 1]
    mc = multiclass_frame(1_000)
    mc["p0"] = mc["p0"] + 1.0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fm.evaluate(mc, y_true="y", prob=PROBS)
    # files
    (tmp_path / "p.xlsx").write_text("y,p\n1,0.5\n")
    with pytest.raises(ValueError, match="format"):
        fm.evaluate(tmp_path / "p.xlsx", y_true="y", score="p")
    with pytest.raises(ValueError, match="no such file"):
        fm.evaluate(tmp_path / "missing.parquet", y_true="y", score="p")
    with pytest.raises(TypeError, match="data must be"):
        fm.evaluate(np.zeros((3, 2)), y_true="y", score="p")
    # a non-numeric score column
    with pytest.raises(ValueError, match="not numeric"):
        fm.evaluate(df, y_true="y", score="seg", metrics=["roc_auc"])


@pytest.mark.parametrize("missing", [np.nan, None], ids=["nan", "none"])
def test_text_labels_with_missing_values(missing):
    y = np.array(["a", "b"] * 50, dtype=object)
    y[7] = missing
    with pytest.raises((ValueError, TypeError), match=r"(?i)\bnan\b|missing|null"):
        fm.evaluate({"y": y, "p": np.linspace(0, 1, 100)}, y_true="y", score="p")


def test_missing_values_in_a_file(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("y,p\n1,0.5\n,0.2\n0,0.1\n")
    with pytest.raises(ValueError, match="missing"):
        fm.evaluate(path, y_true="y", score="p")


def test_models_by_their_label_columns(frames):
    df = frames["multiclass"].iloc[:5_000].copy()
    df["pred2"] = df["pred"].to_numpy()[::-1]
    ev = fm.evaluate(df, y_true="y", models={"a": "pred", "b": "pred2"}, task="multiclass",
                     metrics=["accuracy"])
    assert ev.value("accuracy", "a") == skm.accuracy_score(df.y, df.pred)


# --------------------------------------------------------------------------- the CLI


@pytest.fixture(scope="module")
def cli_file(tmp_path_factory) -> tuple[str, pd.DataFrame]:
    df = binary_frame(8_000, seed=21)
    path = tmp_path_factory.mktemp("cli") / "preds.parquet"
    df.to_parquet(path, index=False)
    return str(path), df


def _run(capsys, *args):
    rc = main(["evaluate", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_json_matches_the_api(cli_file, capsys):
    path, df = cli_file
    rc, out, err = _run(capsys, path, "--true", "y", "--model", "new=good", "--model",
                        "old=base", "--by", "seg", "--by", "seg,dev", "--weight", "w",
                        "--baseline", "old", "--format", "json", "--batch-rows", "1000")
    assert rc == 0 and err == ""
    d = json.loads(out)
    assert d["task"] == "binary" and d["gates"] == []
    ev = fm.evaluate(df, y_true="y", models={"new": "good", "old": "base"}, by=SLICINGS,
                     sample_weight="w", baseline="old")
    want = {(r["model"], _st(r["slice"]), r["metric"]): r for r in ev.rows}
    assert len(d["rows"]) == len(want)
    for r in d["rows"]:
        assert set(r) == {"model", "slice", "metric", "value", "ci_low", "ci_high", "n"}
        w = want[(r["model"], _st(r["slice"]), r["metric"])]
        assert r["value"] == pytest.approx(w["value"], rel=REL, abs=ABS) and r["n"] == w["n"]
    assert_matches(ev, reference(df, "binary", {"new": "good", "old": "base"}, weight="w"))


def test_cli_multiclass_and_regression(tmp_path, capsys):
    mc = multiclass_frame(5_000)
    p = tmp_path / "mc.csv"
    mc.to_csv(p, index=False)
    p = tmp_path / "mc.csv"
    mc.drop(columns="pred").to_csv(p, index=False)  # the prefix "p" would take "pred" too
    rc, out, _ = _run(capsys, p, "--true", "y", "--prob-prefix", "p", "--by", "dev",
                      "--format", "json", "--metric", "log_loss", "--metric", "accuracy")
    assert rc == 0
    rows = json.loads(out)["rows"]
    ref = reference(mc, "multiclass", {"model": {"prob": PROBS}}, by=["dev"])
    for r in rows:
        assert r["value"] == pytest.approx(ref[("model", _st(r["slice"]), r["metric"])][0],
                                           rel=REL)
    assert {r["metric"] for r in rows} >= {"log_loss", "accuracy", "f1[3]"}
    rg = regression_frame(5_000)
    p = tmp_path / "rg.parquet"
    rg.to_parquet(p)
    rc, out, _ = _run(capsys, p, "--true", "y", "--score", "good", "--task", "regression",
                      "--format", "json")
    assert rc == 0
    rows = json.loads(out)["rows"]
    ref = reference(rg, "regression", {"model": "good"}, by=[])
    assert {r["metric"] for r in rows} == {k[2] for k in ref}
    for r in rows:
        assert r["value"] == pytest.approx(ref[("model", "", r["metric"])][0], rel=REL)


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json", "markdown", "text"])
def test_cli_output_files(cli_file, tmp_path, capsys, fmt):
    path, df = cli_file
    out_path = tmp_path / f"out.{fmt}"
    html = tmp_path / "page.html"
    rc, out, err = _run(capsys, path, "--true", "y", "--score", "good", "--by", "seg",
                        "--ci", "--format", fmt, "--output", out_path, "--html", html)
    assert rc == 0 and out == "" and err == ""
    ev = fm.evaluate(df, y_true="y", score="good", by="seg", ci=0.95)
    want = ev.table("pandas")
    if fmt in ("csv", "parquet"):
        got = pd.read_csv(out_path) if fmt == "csv" else pd.read_parquet(out_path)
        assert list(got.columns) == list(want.columns) and len(got) == len(want)
        assert got["metric"].tolist() == want["metric"].tolist()
        assert got["slice"].fillna("").tolist() == want["slice"].tolist()
        np.testing.assert_allclose(got["value"].to_numpy(float), want["value"].to_numpy(float),
                                   rtol=1e-15 if fmt == "parquet" else 1e-14)
        np.testing.assert_allclose(got["ci_low"].to_numpy(float),
                                   want["ci_low"].to_numpy(float), rtol=1e-14)
        assert got["n"].tolist() == want["n"].tolist()
    elif fmt == "json":
        assert json.loads(out_path.read_text()) == json.loads(ev.to_json())
    elif fmt == "markdown":
        assert out_path.read_text() == ev.to_markdown()
    else:
        text = out_path.read_text()
        assert text.startswith("task: binary (inferred)")
        assert "seg=a" in text and "roc_auc" in text and "(all)" in text
    page = html.read_text()
    assert "<table" in page and page.count("<tr") == len(ev.rows) + 1
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".fastmetrics-")]


def test_cli_stdout_formats(cli_file, capsys):
    path, _ = cli_file
    rc, out, _ = _run(capsys, path, "--true", "y", "--score", "good", "--format", "markdown")
    assert rc == 0 and out.startswith("### fastmetrics evaluate: binary") and "| roc_auc |" in out
    rc, out, _ = _run(capsys, path, "--true", "y", "--score", "good", "--format", "csv")
    assert rc == 0 and out.splitlines()[0] == "model,slicing,slice,metric,value,ci_low,ci_high,n"
    rc, out, _ = _run(capsys, path, "--true", "y", "--score", "good", "--by", "seg",
                      "--min-slice-size", "1001")
    assert rc == 0 and "too small: seg=late (n=" in out and "too small: seg=e" in out


def test_cli_gates_exit_codes(cli_file, capsys):
    path, _ = cli_file
    base = [path, "--true", "y", "--model", "new=good", "--model", "old=base"]
    rc, out, err = _run(capsys, *base, "--gate", "roc_auc>=0.5", "--baseline", "old",
                        "--gate", "roc_auc:delta>=0.01")
    assert rc == 0 and err == ""
    assert out.count("gate pass") == 3
    rc, out, err = _run(capsys, *base, "--gate", "roc_auc>=0.75", "--gate", "f1>=0")
    assert rc == 1
    lines = err.splitlines()
    assert lines == [l for l in lines if l.startswith("fastmetrics: gate failed: roc_auc>=0.75")]
    assert len(lines) == 1 and "(old, whole table)" in lines[0]
    rc, _, err = _run(capsys, *base, "--baseline", "old", "--gate", "roc_auc:better",
                      "--ci", "0.9")
    assert rc == 0 and err == ""
    rc, _, err = _run(capsys, *base, "--baseline", "new", "--gate", "roc_auc:better",
                      "--ci", "0.9")
    assert rc == 1 and "gate failed: roc_auc:better (old, whole table)" in err
    rc, _, err = _run(capsys, *base, "--by", "seg", "--gate-slices", "--gate",
                      "roc_auc>=0.75", "--min-slice-size", "100")
    assert rc == 1 and all("(old" in l for l in err.splitlines())
    assert len(err.splitlines()) == 1 + 6


def test_cli_gate_failure_still_writes_output(cli_file, tmp_path, capsys):
    path, _ = cli_file
    out_path = tmp_path / "o.json"
    rc, _, err = _run(capsys, path, "--true", "y", "--score", "base", "--gate",
                      "roc_auc>=0.9", "--format", "json", "--output", out_path)
    assert rc == 1 and "gate failed" in err
    assert json.loads(out_path.read_text())["passed"] is False


@pytest.mark.parametrize("args, match", [
    (["--score", "nope"], "unknown column 'nope'"),
    (["--score", "good", "--by", "nope"], "unknown column 'nope'"),
    (["--score", "good", "--metric", "auc_roc"], "unknown metric"),
    (["--score", "good", "--gate", "roc_auc=>0.5"], "malformed gate"),
    (["--score", "good", "--baseline", "old"], "baseline 'old' is not a model"),
    (["--model", "new=good", "--gate", "roc_auc:rel>=0"], "baseline"),
    (["--score", "good", "--min-slice-size", "0"], "whole number >= 1"),
    (["--score", "good", "--ci", "95"], "level"),
    (["--score", "margin"], r"\[0, 1\]"),
    (["--score", "good", "--true", "ynan"], "NaN|missing"),
    (["--model", "new=good", "--model", "new=base"], "twice"),
    (["--model", "new"], "NAME=COL"),
])
def test_cli_bad_input(tmp_path, capsys, args, match):
    df = binary_frame(3_000, seed=9)
    df["margin"] = df["good"] * 3 - 1
    df["ynan"] = df["y"].astype(float)
    df.loc[10, "ynan"] = np.nan
    path = tmp_path / "p.parquet"
    df.to_parquet(path)
    out_path = tmp_path / "out.json"
    args = [*args, "--html", tmp_path / "page.html"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            rc, out, err = _run(capsys, path, "--format", "json", "--output", out_path,
                                "--true", "y", *args)
        except SystemExit as exc:  # argparse's usage errors
            rc = exc.code
            out, err = capsys.readouterr()
    assert rc == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastmetrics: error:"), err
    assert "Traceback" not in err
    assert __import__("re").search(match, lines[0]), lines[0]
    assert not out_path.exists()
    assert sorted(os.listdir(tmp_path)) == ["p.parquet"]


def test_cli_parquet_needs_output(cli_file, capsys):
    path, _ = cli_file
    rc, out, err = _run(capsys, path, "--true", "y", "--score", "good", "--format", "parquet")
    assert rc == 2 and out == "" and err.strip() == "fastmetrics: error: --format parquet " \
        "needs --output PATH"


def test_missing_values_in_a_file_name_the_column(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("label,p\n1,0.5\n,0.2\n0,0.1\n")
    rc, _, err = _run(capsys, path, "--true", "label", "--score", "p")
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert "label" in err


@pytest.mark.parametrize("name, match", [("missing.parquet", "no such file"),
                                         ("p.xlsx", "format"), ("junk.parquet", "Parquet"),
                                         ("text.csv", "not numeric")])
def test_cli_bad_files(tmp_path, capsys, name, match):
    (tmp_path / "p.xlsx").write_text("y,p\n1,0.5\n")
    (tmp_path / "junk.parquet").write_text("junk")
    (tmp_path / "text.csv").write_text("y,p\n1,abc\n0,0.2\n")
    out_path = tmp_path / "o.csv"
    rc, out, err = _run(capsys, tmp_path / name, "--true", "y", "--score", "p",
                        "--format", "csv", "--output", out_path)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert match in err and not out_path.exists()


def test_cli_file_without_rows(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    path.write_text("y,p\n")
    rc, _, err = _run(capsys, path, "--true", "y", "--score", "p")
    assert rc == 2 and err.startswith("fastmetrics: error:") and "no rows" in err


def test_cli_output_not_writable(cli_file, tmp_path, capsys):
    path, _ = cli_file
    target = tmp_path / "dir"
    target.mkdir()
    rc, _, err = _run(capsys, path, "--true", "y", "--score", "good", "--format", "json",
                      "--output", target)
    assert rc == 2 and err.startswith("fastmetrics: error:")
    assert sorted(os.listdir(tmp_path)) == ["dir"] and os.listdir(target) == []


def test_cli_subprocess_exit_codes(cli_file):
    path, _ = cli_file
    # the subprocess imports the fastmetrics this test imported (the source tree, or the
    # installed wheel CI tests from outside the checkout)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(fm.__file__)))
    env = {**os.environ, "PYTHONPATH": pkg_parent + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-m", "fastmetrics", "evaluate", path, "--true", "y",
           "--model", "new=good", "--model", "old=base", "--baseline", "old"]
    p = subprocess.run(cmd + ["--gate", "roc_auc:delta>=0.5"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 1, p.stderr
    assert p.stderr.startswith("fastmetrics: gate failed: roc_auc:delta>=0.5 (new, whole table)")
    p = subprocess.run(cmd + ["--gate", "roc_auc:delta>=0", "--format", "json"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["passed"] is True
    p = subprocess.run(cmd + ["--gate", "roc_auc>>1"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines() == [p.stderr.strip()]


def test_slices_whose_batches_take_different_grouped_paths(tmp_path):
    # 200 classes: the first batch's 300 slices are counted into one stacked table, the
    # second batch's 500 would pass the dense table's bound and go slice by slice; the
    # whole table (from its slices) and every slice still hold every row
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    k, n = 200, 4000
    y = np.tile(np.arange(k), 2 * n // k)
    p = np.r_[y[:n], (y[n:] + 1) % k]  # the first batch all right, the second all wrong
    seg = np.r_[rng.integers(0, 300, n), rng.integers(0, 500, n)]
    path = str(tmp_path / "k.parquet")
    pq.write_table(pa.table({"y": y, "p": p, "seg": seg}), path, row_group_size=n)
    ev = fm.evaluate(path, y_true="y", pred="p", by="seg", metrics=["accuracy"],
                     batch_rows=n)
    rows_of = [r for r in ev.rows if r["metric"] == "accuracy" and r["model"] == "model"]
    whole = [r for r in rows_of if not r["slice"]][0]
    assert whole["n"] == 2 * n and whole["value"] == 0.5
    assert len(rows_of) == 1 + len(np.unique(seg))
    for r in rows_of:
        if r["slice"] and r["slice"]["seg"] < 20:
            rows = seg == r["slice"]["seg"]
            assert r["n"] == rows.sum()
            assert r["value"] == pytest.approx(np.mean(y[rows] == p[rows]))
