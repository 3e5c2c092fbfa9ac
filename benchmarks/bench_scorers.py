"""Scorers: a GridSearchCV scored by scikit-learn's string scorers vs the same strings under
``fastmetrics.sklearn_scorers()`` (and fastmetrics' scorer objects), same data, same run.

The estimator is a cheap threshold classifier (fit stores nothing, predict is one
``np.digitize``), so the search's time is mostly scoring; ``extra_info["score_time_s"]``
holds the search's own summed ``mean_score_time`` (scoring only, fitting excluded).

Run: python -m pytest benchmarks/bench_scorers.py --benchmark-only
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import GridSearchCV

import fastmetrics as fm

K = 5
SCORING = ["accuracy", "balanced_accuracy", "f1_macro", "precision_weighted", "recall_micro",
           "matthews_corrcoef", "jaccard_macro"]
GRID = {"shift": [-0.2, 0.0, 0.2]}


class ThresholdClassifier(ClassifierMixin, BaseEstimator):
    """Class = which of K-1 fixed cut points (moved by ``shift``) X[:, 0] passes."""

    def __init__(self, shift=0.0):
        self.shift = shift

    def fit(self, X, y):
        self.classes_ = np.arange(K)
        return self

    def predict(self, X):
        return np.digitize(X[:, 0], np.linspace(-1.5, 1.5, K - 1) + self.shift)


def _data(n):
    rng = np.random.default_rng(17)
    X = rng.normal(size=(n, 1))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=n), np.linspace(-1.5, 1.5, K - 1))
    return X, y


@pytest.fixture(scope="module", params=[10**5, 10**6], ids=["1e5", "1e6"])
def case(request, scaled):
    X, y = _data(scaled(request.param))
    ref = _search(X, y, SCORING)  # scikit-learn's scorers: the reference
    return X, y, {name: ref.cv_results_[f"mean_test_{name}"] for name in SCORING}


def _search(X, y, scoring):
    return GridSearchCV(ThresholdClassifier(), GRID, cv=3, scoring=scoring, refit=False,
                        n_jobs=1).fit(X, y)


def _check(benchmark, search, ref):
    for name in SCORING:
        np.testing.assert_allclose(search.cv_results_[f"mean_test_{name}"], ref[name],
                                   rtol=1e-12)
    benchmark.extra_info["score_time_s"] = float(search.cv_results_["mean_score_time"].sum())


def _run(benchmark, fn):
    return benchmark.pedantic(fn, rounds=3, iterations=1)


@pytest.mark.benchmark(group="GridSearchCV scoring")
def test_grid_sklearn(benchmark, case):
    X, y, ref = case
    _check(benchmark, _run(benchmark, lambda: _search(X, y, SCORING)), ref)


@pytest.mark.benchmark(group="GridSearchCV scoring")
def test_grid_fastmetrics_strings(benchmark, case):
    X, y, ref = case

    def search():
        with fm.sklearn_scorers():
            return _search(X, y, SCORING)

    found = _run(benchmark, search)
    assert found.scorer_["f1_macro"]._score_func is fm.f1_score
    _check(benchmark, found, ref)


@pytest.mark.benchmark(group="GridSearchCV scoring")
def test_grid_fastmetrics_objects(benchmark, case):
    X, y, ref = case
    scoring = {name: fm.get_scorer(name) for name in SCORING}
    _check(benchmark, _run(benchmark, lambda: _search(X, y, scoring)), ref)
