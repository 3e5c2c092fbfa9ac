"""fastmetrics' scikit-learn scorers: every scorer name against scikit-learn's scorer on a
fitted estimator, the multimetric and error paths, cross_validate / GridSearchCV with
n_jobs=2 (loky worker processes) both ways, and the sklearn_scorers() swap (restore on exit,
on error, nested, from threads)."""

import pickle
import sys
import threading
import warnings

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

import joblib  # noqa: E402
import sklearn.metrics as skm  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import _scorer as sk_scorer_module  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_validate  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.tree import DecisionTreeRegressor  # noqa: E402

import fastmetrics as fm  # noqa: E402
from fastmetrics import scorers  # noqa: E402

REGRESSION = {
    "explained_variance", "r2", "neg_max_error", "neg_median_absolute_error",
    "neg_mean_absolute_error", "neg_mean_absolute_percentage_error", "neg_mean_squared_error",
    "neg_mean_squared_log_error", "neg_root_mean_squared_error",
    "neg_root_mean_squared_log_error", "neg_mean_poisson_deviance", "neg_mean_gamma_deviance",
    "d2_absolute_error_score",
}
CLUSTER = {
    "adjusted_rand_score", "rand_score", "homogeneity_score", "completeness_score",
    "v_measure_score", "mutual_info_score", "adjusted_mutual_info_score",
    "normalized_mutual_info_score", "fowlkes_mallows_score",
}
BINARY_ONLY = {
    "precision", "recall", "f1", "jaccard", "positive_likelihood_ratio",
    "neg_negative_likelihood_ratio", "neg_brier_score", "d2_brier_score", "roc_auc",
    "average_precision",
}
MULTILABEL = {n for n in skm.get_scorer_names() if n.endswith("_samples")}


def _data(kind, seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    if kind == "regression":
        return X, np.exp(X[:, 0] + 0.3 * rng.normal(size=n))  # positive: log/deviance losses
    if kind == "binary":
        return X, (X[:, 0] + X[:, 1] + rng.normal(size=n) > 0).astype(int)
    if kind == "multiclass":
        return X, np.digitize(X[:, 0] + 0.5 * rng.normal(size=n), [-0.7, 0.0, 0.7])
    if kind == "multilabel":
        return X, np.column_stack([X[:, j] + 0.5 * rng.normal(size=n) > 0 for j in range(3)]
                                  ).astype(int)
    assert kind == "cluster"
    centers = np.array([[0, 0, 0, 0], [4, 4, 0, 0], [0, 4, 4, 0]])
    labels = rng.integers(0, 3, size=n)
    return centers[labels] + rng.normal(size=(n, 4)), labels


def _kind(name):
    if name in REGRESSION:
        return "regression"
    if name in CLUSTER:
        return "cluster"
    if name in MULTILABEL:
        return "multilabel"
    return "binary" if name in BINARY_ONLY else "multiclass"


def _estimators(kind):
    if kind == "regression":
        return [DecisionTreeRegressor(max_depth=4, random_state=0)]
    if kind == "cluster":
        return [KMeans(n_clusters=3, n_init=2, random_state=0)]
    if kind == "multilabel":
        return [KNeighborsClassifier(n_neighbors=7)]
    # decision_function first for LogisticRegression; predict_proba only for GaussianNB
    return [LogisticRegression(), GaussianNB()]


CASES = [(name, est) for name in skm.get_scorer_names() for est in _estimators(_kind(name))]


def test_names_are_sklearns():
    ours = set(fm.get_scorer_names())
    assert ours | set(scorers.UNCOVERED_SKLEARN_SCORERS) == set(skm.get_scorer_names())
    assert not ours & set(scorers.UNCOVERED_SKLEARN_SCORERS)
    assert fm.get_scorer_names() == sorted(ours)


@pytest.mark.parametrize("name,estimator", CASES,
                         ids=[f"{n}-{type(e).__name__}" for n, e in CASES])
def test_every_name_matches_sklearns_scorer(name, estimator):
    X, y = _data(_kind(name))
    estimator.fit(X, y)
    ours, theirs = fm.get_scorer(name), skm.get_scorer(name)
    # same response method(s), sign and keyword arguments; fastmetrics' function
    assert repr(ours) == repr(theirs)
    assert ours._score_func.__module__.startswith("fastmetrics.")
    got, got_warnings = _recorded(ours, estimator, X, y)
    want, want_warnings = _recorded(theirs, estimator, X, y)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert got_warnings == want_warnings
    # a new object each call, as sklearn.metrics.get_scorer gives
    assert fm.get_scorer(name) is not ours


@pytest.mark.parametrize("name", skm.get_scorer_names())
def test_every_name_with_sample_weight(name):
    X, y = _data(_kind(name), seed=1)
    estimator = _estimators(_kind(name))[0].fit(X, y)
    w = np.random.default_rng(3).integers(0, 4, size=len(y)).astype(float)
    ours, theirs = fm.get_scorer(name), skm.get_scorer(name)
    try:
        want, want_warnings = _recorded(theirs, estimator, X, y, sample_weight=w)
    except (TypeError, ValueError) as refusal:
        # no sample_weight (clustering, max_error; one-vs-one ROC AUC): the same refusal
        with pytest.raises(type(refusal)) as ours_refusal:
            ours(estimator, X, y, sample_weight=w)
        # TypeError: scikit-learn's parameter validation drops the "max_error()" prefix
        # Python's own message has; a metric-function difference, not the scorers'
        if isinstance(refusal, ValueError):
            assert str(ours_refusal.value) == str(refusal)
        assert "unexpected keyword argument 'sample_weight'" in str(ours_refusal.value) or (
            isinstance(refusal, ValueError))
        return
    got, got_warnings = _recorded(ours, estimator, X, y, sample_weight=w)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert got_warnings == want_warnings


def _recorded(scorer, estimator, X, y, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = scorer(estimator, X, y, **kwargs)
    return value, [(w.category, str(w.message)) for w in caught]


def _same_error(call_ours, call_theirs):
    with pytest.raises(Exception) as theirs:
        call_theirs()
    with pytest.raises(type(theirs.value)) as ours:
        call_ours()
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("bad", ["f1_binary", "F1", "", "roc"])
def test_bad_names_get_sklearns_errors(bad):
    est = LogisticRegression()
    _same_error(lambda: fm.get_scorer(bad), lambda: skm.get_scorer(bad))
    _same_error(lambda: fm.check_scoring(est, bad), lambda: skm.check_scoring(est, bad))
    _same_error(lambda: fm.check_scoring(est, ["accuracy", bad]),
                lambda: skm.check_scoring(est, ["accuracy", bad]))
    _same_error(lambda: fm.check_scoring(est, {"a": bad}),
                lambda: skm.check_scoring(est, {"a": bad}))


@pytest.mark.parametrize("bad", [["f1", "f1"], [], ["f1", 3], ["f1", skm.f1_score], {}, 3])
def test_bad_scoring_values_get_sklearns_errors(bad):
    est = LogisticRegression()
    _same_error(lambda: fm.check_scoring(est, bad), lambda: skm.check_scoring(est, bad))


def test_get_scorer_non_strings_as_sklearn():
    sc = skm.make_scorer(skm.accuracy_score)
    assert fm.get_scorer(sc) is sc and fm.get_scorer(None) is None
    _same_error(lambda: fm.get_scorer(3), lambda: skm.get_scorer(3))


def test_metric_function_as_scoring_is_refused():
    with pytest.raises(ValueError, match="looks like it is a metric function"):
        fm.check_scoring(LogisticRegression(), fm.f1_score)


def test_make_scorer_uses_fastmetrics_functions():
    sc = fm.make_scorer(skm.fbeta_score, beta=2, average="macro")
    assert sc._score_func is fm.fbeta_score
    assert repr(sc) == repr(skm.make_scorer(skm.fbeta_score, beta=2, average="macro"))
    loss = fm.make_scorer(skm.log_loss, response_method="predict_proba",
                          greater_is_better=False)
    assert loss._score_func is fm.log_loss and loss._sign == -1

    def mine(y, p):
        return 0.5

    assert fm.make_scorer(mine)._score_func is mine
    X, y = _data("multiclass")
    est = LogisticRegression().fit(X, y)
    assert sc(est, X, y) == pytest.approx(
        skm.make_scorer(skm.fbeta_score, beta=2, average="macro")(est, X, y), rel=1e-12)


def test_check_scoring_multimetric_and_passthrough():
    X, y = _data("multiclass")
    est = LogisticRegression().fit(X, y)
    for scoring in (["accuracy", "f1_macro", "neg_log_loss"],
                    {"acc": "accuracy", "f1": "f1_macro", "own": skm.make_scorer(skm.f1_score,
                                                                                average="micro")}):
        ours = fm.check_scoring(est, scoring)
        theirs = skm.check_scoring(est, scoring)
        assert ours._scorers.keys() == theirs._scorers.keys()
        for key, sc in ours._scorers.items():
            if isinstance(scoring, list) or isinstance(scoring[key], str):
                assert sc._score_func.__module__.startswith("fastmetrics.")
        got, want = ours(est, X, y), theirs(est, X, y)
        assert got.keys() == want.keys()
        for key in want:
            assert got[key] == pytest.approx(want[key], rel=1e-12)
    # no scoring: the estimator's own score, as scikit-learn
    assert fm.check_scoring(est)(est, X, y) == skm.check_scoring(est)(est, X, y)
    assert fm.check_scoring(KMeans(), None, allow_none=True) is not None  # KMeans has score


def test_missing_sklearn_is_a_clear_import_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "sklearn.metrics", None)
    for call in (lambda: fm.get_scorer("f1"), lambda: fm.make_scorer(fm.f1_score),
                 lambda: fm.check_scoring(None, "f1"), fm.sklearn_scorers().__enter__):
        with pytest.raises(ImportError, match="scikit-learn"):
            call()
    assert fm.get_scorer_names()  # needs no scikit-learn


# -- n_jobs=2: loky worker processes --

def _cv_scores(scoring, n_jobs=2):
    X, y = _data("multiclass", n=600)
    return cross_validate(LogisticRegression(), X, y, cv=3, n_jobs=n_jobs, scoring=scoring)


def _grid(scoring, n_jobs=2):
    X, y = _data("multiclass", n=600)
    return GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=3, n_jobs=n_jobs,
                        scoring=scoring).fit(X, y)


NAMES = ["accuracy", "f1_macro", "neg_log_loss", "roc_auc_ovr"]


def _assert_cv_equal(got, want):
    for name in NAMES:
        np.testing.assert_allclose(got[f"test_{name}"], want[f"test_{name}"], rtol=1e-12)


def test_cross_validate_and_grid_search_with_our_scorer_objects():
    want = _cv_scores(NAMES)
    _assert_cv_equal(_cv_scores({n: fm.get_scorer(n) for n in NAMES}), want)
    _assert_cv_equal(_cv_scores(fm.check_scoring(None, NAMES)._scorers), want)
    theirs = _grid("f1_macro")
    ours = _grid(fm.get_scorer("f1_macro"))
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               theirs.cv_results_["mean_test_score"], rtol=1e-12)
    assert ours.best_params_ == theirs.best_params_


def test_sklearn_strings_inside_the_context_manager():
    want_cv, want_grid = _cv_scores(NAMES), _grid("f1_macro")
    with fm.sklearn_scorers():
        got_cv, got_grid = _cv_scores(NAMES), _grid("f1_macro")
        assert skm.get_scorer("f1_macro")._score_func is fm.f1_score
    _assert_cv_equal(got_cv, want_cv)
    np.testing.assert_allclose(got_grid.cv_results_["mean_test_score"],
                               want_grid.cv_results_["mean_test_score"], rtol=1e-12)
    # the string was resolved in this process: the search holds fastmetrics' scorer ...
    assert got_grid.scorer_._score_func is fm.f1_score
    assert want_grid.scorer_._score_func is skm.f1_score


def _module_of_score_func(blob):
    return pickle.loads(blob)._score_func.__module__


def _module_of_string_scorer(name):
    return skm.get_scorer(name)._score_func.__module__


def test_what_reaches_loky_workers():
    """A scorer object sent to a worker keeps fastmetrics' function; a string looked up in a
    worker is scikit-learn's (the swap is per process, as documented)."""
    import cloudpickle  # joblib's (a dependency of joblib)
    # the two helpers travel by value: the workers cannot import this test module when the
    # suite runs from outside the checkout (the installed-wheel run)
    this = sys.modules[__name__]
    cloudpickle.register_pickle_by_value(this)
    try:
        with fm.sklearn_scorers():
            blob = pickle.dumps(skm.get_scorer("f1_macro"))
            with joblib.parallel_config(backend="loky", n_jobs=2):
                sent = joblib.Parallel()(joblib.delayed(_module_of_score_func)(blob)
                                         for _ in range(2))
                looked_up = joblib.Parallel()(
                    joblib.delayed(_module_of_string_scorer)("f1_macro") for _ in range(2))
    finally:
        cloudpickle.unregister_pickle_by_value(this)
    assert all(m.startswith("fastmetrics.") for m in sent)
    assert all(m.startswith("sklearn.metrics") for m in looked_up)


# -- the swap: restore, errors, nesting, threads --

def _snapshot():
    return dict(sk_scorer_module._SCORERS)


def _is_sklearns(snapshot):
    return all(sk_scorer_module._SCORERS[k] is v for k, v in snapshot.items()) and (
        sk_scorer_module._SCORERS.keys() == snapshot.keys())


def test_swap_is_restored_on_exit_and_on_error():
    before = _snapshot()
    with fm.sklearn_scorers():
        assert skm.get_scorer("accuracy")._score_func is fm.accuracy_score
        assert sk_scorer_module._SCORERS.keys() == before.keys()
        assert skm.get_scorer_names() == sorted(before)
    assert _is_sklearns(before)
    with pytest.raises(RuntimeError, match="boom"):
        with fm.sklearn_scorers():
            raise RuntimeError("boom")
    assert _is_sklearns(before)
    assert skm.get_scorer("accuracy")._score_func is skm.accuracy_score


def test_nested_blocks_restore_at_the_outermost_exit():
    before = _snapshot()
    with fm.sklearn_scorers():
        with fm.sklearn_scorers():
            assert skm.get_scorer("r2")._score_func is fm.r2_score
        assert skm.get_scorer("r2")._score_func is fm.r2_score
    assert _is_sklearns(before)


def test_blocks_from_several_threads():
    before = _snapshot()
    barrier = threading.Barrier(4)
    seen = []

    def work():
        with fm.sklearn_scorers():
            barrier.wait()
            seen.append(skm.get_scorer("f1")._score_func is fm.f1_score)
            barrier.wait()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [True] * 4
    assert _is_sklearns(before)
