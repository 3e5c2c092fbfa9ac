"""The model benchmarking procedure over several models, into one results table.

For every model, on the same split: wall-clock fit time, one timed batch prediction after a
warm-up (throughput; infinite when the time is 0), single-sample latency over seeded random
rows after a warm-up (mean, P95), and the task's metrics (accuracy and macro F1; R² and MSE for
regression). Each classification run is also appended to a markdown results
log, and the flat dot-keyed rows of all runs are printed as one table.

Run: ``python examples/benchmark_models.py [OUTPUT_DIR]`` (default: a temporary folder).
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

import fastmetrics as fm

N_ITERS = 50   # single-sample timings per model (the procedure's default is 200)


def classification_data(rng, n=1500, d=10, k=3):
    centres = rng.normal(0.0, 0.5, (k, d))
    y = rng.integers(0, k, n)
    X = centres[y] + rng.normal(0.0, 1.0, (n, d))
    return X[:1000], y[:1000], X[1000:], y[1000:]


def regression_data(rng, n=1500, d=8):
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + np.sin(3 * X[:, 0]) + rng.normal(0.0, 0.3, n)
    return X[:1000], y[:1000], X[1000:], y[1000:]


def table(rows, columns):
    """A markdown table of the chosen flat keys of each run."""
    lines = ["| run | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for name, flat in rows:
        cells = [f"{flat[c]:.4g}" if isinstance(flat[c], float) else str(flat[c])
                 for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(out_dir):
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    results = Path(out_dir) / "RESULTS.md"

    X_train, y_train, X_test, y_test = classification_data(rng)
    classifiers = {
        "dummy": DummyClassifier(strategy="most_frequent"),
        "logreg": LogisticRegression(max_iter=500),
        "naive-bayes": GaussianNB(),
        "tree": DecisionTreeClassifier(random_state=0),
        "forest": RandomForestClassifier(n_estimators=20, random_state=0),
    }
    rows = []
    for name, model in classifiers.items():
        bench = fm.benchmark_model(model, X_train, y_train, X_test, y_test, n_iters=N_ITERS,
                                   warmup=5, seed=0)
        fm.append_results(results, name, bench)   # accuracy, macro F1, p50 and p95
        rows.append((name, fm.flatten(bench)))
    print("classification:")
    print(table(rows, ["metrics.accuracy", "metrics.macro_f1", "fit_seconds",
                       "batch.throughput", "latency.mean_ms", "latency.p95_ms"]))

    X_train, y_train, X_test, y_test = regression_data(rng)
    rows = []
    for name, model in {"ridge": Ridge(), "forest-reg": RandomForestRegressor(
            n_estimators=20, random_state=0)}.items():
        bench = fm.benchmark_model(model, X_train, y_train, X_test, y_test, task="regression",
                                   n_iters=N_ITERS, warmup=5, seed=0)
        rows.append((name, fm.flatten(bench)))
    print("regression:")
    print(table(rows, ["metrics.r2", "metrics.mse", "fit_seconds", "batch.throughput",
                       "latency.mean_ms", "latency.p95_ms"]))
    print(f"results log {results}:")
    print(results.read_text(), end="")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="fm-bench-"))
