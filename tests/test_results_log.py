"""The results log end to end: the report card and latency built as the harness document
builds them, benchmark_model's labels (classes_, classes=, one-column probabilities, one
prediction of the test set), one row schema with its optional columns, ModelBenchmark rows,
and the command line's markdown table and --latency-col."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score

import fastmetrics as fm
from fastmetrics.report import RESULTS_COLUMNS

PKG_PARENT = str(Path(fm.__file__).resolve().parents[1])


# -- the report card and latency as the harness document builds them ----------------------


def test_classification_metrics_built_like_the_reference():
    m = fm.ClassificationMetrics(0.9, 0.85, per_class_f1={0: 0.9, 1: 0.8}, oos_recall=0.5,
                                 oos_precision=0.25, n_examples=100)
    assert m.per_class_f1 == {0: 0.9, 1: 0.8}
    assert m.accuracy == 0.9 and m.oos_recall == 0.5 and m.n_examples == 100
    assert m.to_flat_dict()["per_class.1.f1"] == 0.8
    assert fm.format_metrics_row("ref", m) == "| ref | 0.9000 | 0.8500 | 0.5000 | N/A | N/A |"
    # a scored card: per_class_f1 derived from per_class, kept through the interval copy
    s = fm.score([0, 1, 2, 2], [0, 1, 1, 2])
    assert s.per_class_f1 == {k: v.f1 for k, v in s.per_class.items()}
    c = fm.score([0, 1, 2, 2], [0, 1, 1, 2], ci=0.9, n_resamples=50, random_state=0)
    assert c.per_class_f1 == s.per_class_f1
    # the reference's positional third field (per_class_f1) is weighted_f1 here
    with pytest.raises(TypeError, match="per_class_f1="):
        fm.ClassificationMetrics(0.9, 0.85, {0: 0.9})
    with pytest.raises(ValueError, match="disagrees"):
        fm.ClassificationMetrics(s.accuracy, s.macro_f1, per_class=s.per_class,
                                 per_class_f1={0: 0.0, 1: 0.0, 2: 0.0})


def test_latency_stats_built_like_the_reference():
    lat = fm.LatencyStats(12.0, 40.0, 55.0, 15.5, 200)
    assert (lat.p50_ms, lat.p95_ms, lat.p99_ms, lat.mean_ms, lat.n_iters) == (
        12.0, 40.0, 55.0, 15.5, 200)
    assert lat.min_ms is None and lat.max_ms is None
    measured = fm.latency_stats([1e6, 2e6, 4e6])
    assert (measured.n_iters, measured.min_ms, measured.max_ms) == (3, 1.0, 4.0)
    assert fm.format_metrics_row("m", fm.score([0], [0]), lat).endswith("| 12.0 | 40.0 |")


def test_latency_stats_in_milliseconds():
    ms = np.array([0.3, 1.7, 2.2, 9.9, 4.0])
    s = fm.latency_stats(ms, unit="ms")
    assert (s.p50_ms, s.p95_ms, s.p99_ms) == tuple(np.percentile(ms, [50, 95, 99]))
    assert s.mean_ms == pytest.approx(ms.mean(), rel=1e-15) and s.max_ms == 9.9
    with pytest.raises(ValueError, match="unit"):
        fm.latency_stats(ms, unit="s")


# -- benchmark_model: which label each prediction is ----------------------------------------


class ProbaOut:
    """A classifier whose ``predict`` returns probabilities (like Keras models): the whole
    (n, K) matrix, the positive column (n, 1), or that column flat (n,)."""

    def __init__(self, shape="matrix", expose_classes=True):
        self.est = LogisticRegression()
        self.shape = shape
        self.expose_classes = expose_classes
        self.calls: list[int] = []

    def fit(self, X, y):
        self.est.fit(X, y)
        if self.expose_classes:
            self.classes_ = self.est.classes_
        return self

    def predict(self, X):
        self.calls.append(len(X))
        p = self.est.predict_proba(X)
        if self.shape == "column":
            return p[:, 1:]
        if self.shape == "flat":
            return p[:, 1]
        return p


def _data(labels, n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    k = len(labels)
    score = X[:, 0] + 0.3 * rng.standard_normal(n)
    code = np.clip(((score + 1.5) / 3 * k).astype(int), 0, k - 1)
    return X, np.asarray(labels)[code]


def _expected(est, X_test, y_test):
    pred = est.predict(X_test)
    return accuracy_score(y_test, pred), f1_score(y_test, pred, average="macro")


@pytest.mark.parametrize("labels", [[10, 20, 30], ["billing", "oos", "refund"], [0, 1, 2]])
def test_benchmark_model_maps_probability_columns_to_classes(labels):
    X, y = _data(labels)
    model = ProbaOut()
    r = fm.benchmark_model(model, X[:200], y[:200], X[200:], y[200:], n_iters=5, warmup=1)
    acc, f1 = _expected(model.est, X[200:], y[200:])
    assert r.metrics["accuracy"] == pytest.approx(acc, rel=1e-12) and acc > 0.5
    assert r.metrics["macro_f1"] == pytest.approx(f1, rel=1e-12)


def test_benchmark_model_classes_argument_and_fallback():
    X, y = _data([10, 20, 30])
    # no classes_: the sorted distinct labels of y_train (scikit-learn's column order)
    model = ProbaOut(expose_classes=False)
    r = fm.benchmark_model(model, X[:200], y[:200], X[200:], y[200:], n_iters=5, warmup=1)
    acc, _ = _expected(model.est, X[200:], y[200:])
    assert r.metrics["accuracy"] == pytest.approx(acc, rel=1e-12)
    # classes= names the columns (here a deliberately wrong order, to see it is used)
    r = fm.benchmark_model(ProbaOut(expose_classes=False), X[:200], y[:200], X[200:],
                           y[200:], n_iters=5, warmup=1, classes=[30, 20, 10])
    flipped = {10: 30, 20: 20, 30: 10}
    expect = accuracy_score(y[200:], [flipped[v] for v in model.est.predict(X[200:])])
    assert r.metrics["accuracy"] == pytest.approx(expect, rel=1e-12)
    with pytest.raises(ValueError, match="3 probability columns.*2 classes"):
        fm.benchmark_model(ProbaOut(), X[:200], y[:200], X[200:], y[200:], n_iters=2,
                           classes=[10, 20])
    with pytest.raises(ValueError, match="distinct"):
        fm.benchmark_model(ProbaOut(), X[:200], y[:200], X[200:], y[200:], n_iters=2,
                           classes=[10, 10, 20])


@pytest.mark.parametrize("shape", ["column", "flat"])
@pytest.mark.parametrize("labels", [[0, 1], ["no", "yes"], [-5, 7]])
def test_benchmark_model_positive_class_probability(shape, labels):
    X, y = _data(labels, seed=3)
    model = ProbaOut(shape)
    r = fm.benchmark_model(model, X[:200], y[:200], X[200:], y[200:], n_iters=5, warmup=1)
    acc, f1 = _expected(model.est, X[200:], y[200:])
    assert r.metrics["accuracy"] == pytest.approx(acc, rel=1e-12) and acc > 0.5
    assert r.metrics["macro_f1"] == pytest.approx(f1, rel=1e-12)


def test_benchmark_model_one_column_edge_cases():
    X, y = _data([0, 1], seed=4)

    class FloatLabels(ProbaOut):
        def predict(self, X):
            return self.est.predict(X).astype(float)[:, None]

    model = FloatLabels()
    r = fm.benchmark_model(model, X[:200], y[:200], X[200:], y[200:], n_iters=3)
    assert r.metrics["accuracy"] == pytest.approx(_expected(model.est, X[200:], y[200:])[0],
                                                  rel=1e-12)
    X3, y3 = _data([0, 1, 2], seed=5)

    class OneColumnOfThree(ProbaOut):
        def predict(self, X):
            return self.est.predict_proba(X)[:, 1]

    with pytest.raises(ValueError, match="3 classes, not 2"):
        fm.benchmark_model(OneColumnOfThree(), X3[:200], y3[:200], X3[200:], y3[200:],
                           n_iters=3)

    class Cube(ProbaOut):
        def predict(self, X):
            return np.zeros((len(X), 2, 2))

    with pytest.raises(ValueError, match="shape"):
        fm.benchmark_model(Cube(), X[:200], y[:200], X[200:], y[200:], n_iters=3)


def test_benchmark_model_predicts_the_test_set_once():
    X, y = _data([10, 20, 30])
    model = ProbaOut()
    fm.benchmark_model(model, X[:200], y[:200], X[200:], y[200:], n_iters=7, warmup=2,
                       batch_warmup=4)
    assert model.calls.count(100) == 1  # the timed batch call: its output is scored
    assert model.calls == [4, 100] + [1] * 9


# -- one row schema, optional columns, ModelBenchmark rows -----------------------------------


def cells(line):
    assert line.startswith("|") and line.endswith("|")
    return [c.strip() for c in line[1:-1].split("|")]


def test_optional_columns_are_in_the_header():
    m = fm.score([0, 1, 1, 0], [0, 1, 0, 0])
    for cost, params, extra in ((0.25, None, ["cost_per_1k"]), (None, 7, ["params"]),
                                (0.25, 1_200_000, ["cost_per_1k", "params"]),
                                (None, None, [])):
        row = fm.format_metrics_row("x", m, None, cost, params)
        head = fm.results_header(cost is not None, params is not None).splitlines()
        assert cells(head[0]) == list(RESULTS_COLUMNS) + extra
        assert len(cells(head[1])) == len(cells(row)) == 6 + len(extra)
    assert fm.format_metrics_row("x", m, None, 0.25, 1_200_000).endswith(
        "| 0.2500 | 1,200,000 |")
    assert fm.format_metrics_row("x", m, params="7B").endswith("| N/A | 7B |")
    # a log's own columns: what the run lacks prints N/A; what the log lacks is an error
    cols = RESULTS_COLUMNS + ("cost_per_1k", "params")
    assert fm.format_metrics_row("x", m, params=3, columns=cols).endswith("| N/A | 3 |")
    with pytest.raises(ValueError, match="no cost_per_1k column"):
        fm.format_metrics_row("x", m, cost_per_1k=1.0, columns=RESULTS_COLUMNS)
    with pytest.raises(ValueError, match="not a results-log header"):
        fm.format_metrics_row("x", m, columns=("name", "accuracy"))
    with pytest.raises(TypeError, match="cost_per_1k must be a number"):
        fm.format_metrics_row("x", m, cost_per_1k="cheap")


def test_append_results_with_cost_and_params(tmp_path):
    path = tmp_path / "RESULTS.md"
    m = fm.score([0, 1, 1, 0], [0, 1, 0, 0])
    lat = fm.LatencyStats(1.25, 3.0, 4.0, 1.5, 10)
    fm.append_results(path, "a", m, lat, cost_per_1k=0.5, params=1000)
    fm.append_results(path, "b", m)  # no cost, no params: N/A under the log's columns
    fm.append_results(path, "c", m, params=5)
    lines = path.read_text().splitlines()
    assert lines[:2] == fm.results_header(True, True).splitlines()
    assert [cells(ln)[6:] for ln in lines[2:]] == [["0.5000", "1,000"], ["N/A", "N/A"],
                                                  ["N/A", "5"]]
    assert all(len(cells(ln)) == 8 for ln in lines)
    plain = tmp_path / "plain.md"
    fm.append_results(plain, "a", m)
    with pytest.raises(ValueError, match="no params column"):
        fm.append_results(plain, "b", m, params=3)
    assert plain.read_text() == fm.RESULTS_HEADER + fm.format_metrics_row("a", m) + "\n"
    # a log whose last row lost its line break still gets one row per line
    plain.write_text(plain.read_text().rstrip("\n"))
    fm.append_results(plain, "c", m)
    assert plain.read_text().splitlines()[-1].startswith("| c |")
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    with pytest.raises(ValueError, match="not a results-log header"):
        fm.append_results(notes, "a", m)
    assert notes.read_text() == "# my notes\n"


def test_model_benchmark_goes_to_the_results_log(tmp_path):
    X, y = _data([10, 20, 30])
    r = fm.benchmark_model(ProbaOut(), X[:200], y[:200], X[200:], y[200:], n_iters=5)
    row = fm.format_metrics_row("lr", r)
    assert cells(row) == ["lr", f"{r.metrics['accuracy']:.4f}", f"{r.metrics['macro_f1']:.4f}",
                          "N/A", f"{r.latency.p50_ms:.1f}", f"{r.latency.p95_ms:.1f}"]
    # its metrics dict with its latency, as the reference call passes them
    assert fm.format_metrics_row("lr", r.metrics, r.latency) == row
    path = tmp_path / "RESULTS.md"
    assert fm.append_results(path, "lr", r) == row
    assert fm.append_results(path, "lr", r.metrics, r.latency, cost_per_1k=None) == row
    assert path.read_text() == fm.RESULTS_HEADER + row + "\n" + row + "\n"
    with pytest.raises(TypeError, match="metrics has no 'accuracy'"):
        fm.format_metrics_row("lr", r.latency)
    with pytest.raises(TypeError, match="latency has no 'p50_ms'"):
        fm.format_metrics_row("lr", r.metrics, r.batch)


# -- the command line: a valid markdown table, latencies ------------------------------------


def run_cli(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG_PARENT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, "-m", "fastmetrics", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=120)


def _latency_file(tmp_path, n=500, seed=0):
    rng = np.random.default_rng(seed)
    yt = rng.choice(["a", "b", "oos"], n)
    yp = np.where(rng.random(n) < 0.8, yt, rng.choice(["a", "b", "oos"], n))
    ms = np.round(rng.gamma(2.0, 5.0, n), 3)
    path = tmp_path / "preds.csv"
    rows = [f"{a},{b},{c!r}" for a, b, c in zip(yt, yp, ms.tolist())]
    lines = ["y_true,y_pred,latency_ms"] + rows
    path.write_text("\n".join(lines) + "\n")
    return path, yt, yp, ms


def test_cli_markdown_is_one_table_with_latencies(tmp_path):
    path, yt, yp, ms = _latency_file(tmp_path)
    p = run_cli("report", path, "--format", "markdown", "--header", "--name", "v1",
                "--oos-label", "oos", "--latency-col", "latency_ms")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.rstrip("\n").split("\n")
    assert len(lines) == 3 and lines[:2] == fm.RESULTS_HEADER.splitlines()
    assert len(cells(lines[2])) == len(cells(lines[0]))
    p50, p95 = np.percentile(ms, [50, 95])
    m = fm.score(yt, yp, oos_label="oos")
    assert lines[2] == fm.format_metrics_row("v1", m, fm.LatencyStats(p50, p95, 0, 0, 1))
    # streamed in batches: the same row
    s = run_cli("report", path, "--format", "markdown", "--oos-label", "oos", "--name", "v1",
                "--latency-col", "latency_ms", "--batch-rows", "64")
    assert s.returncode == 0, s.stderr
    assert s.stdout.rstrip("\n") == lines[2]
    j = json.loads(run_cli("report", path, "--format", "json", "--latency-col",
                           "latency_ms").stdout)
    assert j["latency.p50_ms"] == p50 and j["latency.p95_ms"] == p95
    assert j["latency.n_iters"] == len(ms) and j["latency.max_ms"] == ms.max()
    text = run_cli("report", path, "--latency-col", "latency_ms").stdout
    assert f"p95            {p95:.4f}" in text


@pytest.mark.parametrize("value, match", [
    ("fast", "latency column 'latency_ms' is not numeric: 'fast' at data row 2"),
    ("-1", "finite, >= 0.*-1.0 at data row 2"),
    ("", "at data row 2"),
])
def test_cli_latency_column_bad_values(tmp_path, value, match):
    path = tmp_path / "p.csv"
    path.write_text(f"y_true,y_pred,latency_ms\na,a,1.0\nb,a,{value}\nb,b,3\n")
    p = run_cli("report", path, "--latency-col", "latency_ms")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith("fastmetrics: error: ")
    assert re.search(match, p.stderr), p.stderr
    p = run_cli("report", path, "--latency-col", "nope")
    assert p.returncode == 2 and "unknown --latency-col column 'nope'" in p.stderr
