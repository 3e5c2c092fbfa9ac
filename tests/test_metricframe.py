"""fastmetrics.MetricFrame gives what fairlearn's MetricFrame gives (same pandas objects, same
errors), computes recognised metrics from one grouped pass, and adds min_group_size and
n_threads."""

from __future__ import annotations

import copy
import functools
import math
import numbers

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics
import fastmetrics.metricframe as metricframe
from fastmetrics import MetricFrame

pd = pytest.importorskip("pandas")
skm = pytest.importorskip("sklearn.metrics")

RNG = np.random.default_rng(20261129)
N = 80
Y_TRUE = RNG.integers(0, 2, N)
Y_PRED = RNG.integers(0, 2, N)
Y_REAL = RNG.random(N)
WEIGHTS = RNG.random(N)
SEX = RNG.choice(["female", "male", "other"], N)
AGE = RNG.choice([30, 10, 20], N)
SITE = RNG.choice([True, False], N)

recall0 = functools.partial(skm.recall_score, zero_division=0)
precision0 = functools.partial(skm.precision_score, zero_division=0)
fbeta0 = functools.partial(skm.fbeta_score, beta=0.5, zero_division=0)


def _fairlearn():
    return pytest.importorskip("fairlearn.metrics")


def _fairlearn_error(kwargs):
    """fairlearn's error on these arguments, or None without fairlearn (the tests of errors
    then check ours alone)."""
    try:
        import fairlearn.metrics
    except ImportError:
        return None
    with pytest.raises(ValueError) as theirs:
        fairlearn.metrics.MetricFrame(**copy.deepcopy(kwargs))
    return theirs.value


def _same(expected, got, where):
    if isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(got, expected, obj=where)
    elif isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(got, expected, obj=where)
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for i, (e, g) in enumerate(zip(expected, got)):
            _same(e, g, f"{where}[{i}]")
    elif isinstance(expected, np.ndarray):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14, err_msg=where)
    else:
        assert type(got) is type(expected), (where, type(got), type(expected))
        if isinstance(expected, float) and math.isnan(expected):
            assert math.isnan(got), where
        elif isinstance(expected, (numbers.Number, np.number)) and not isinstance(
                expected, (bool, np.bool_)):
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-14), where
        else:  # names, levels: pytest's approx takes numbers only (newer releases refuse)
            assert got == expected, where


def _outcome(obj, name, **kwargs):
    try:
        value = getattr(obj, name)
        return (value(**kwargs) if callable(value) else value), None
    except Exception as exc:  # compared with fairlearn's, type and message
        return None, exc


def _both(**kwargs):
    """fairlearn's MetricFrame and ours on the same arguments (copied: a RandomState is
    consumed by the first)."""
    theirs = _fairlearn().MetricFrame(**copy.deepcopy(kwargs))
    return theirs, MetricFrame(**kwargs)


def _assert_equivalent(theirs, ours, bootstrap=False):
    for attr in ("overall", "by_group", "sensitive_levels", "control_levels", "ci_quantiles",
                 "n_boot"):
        _same(getattr(theirs, attr), getattr(ours, attr), attr)
    calls = [("group_min", {"errors": e}) for e in ("raise", "coerce")]
    calls += [("group_max", {"errors": e}) for e in ("raise", "coerce")]
    calls += [(kind, {"method": m, "errors": e}) for kind in ("difference", "ratio")
              for m in ("between_groups", "to_overall") for e in ("raise", "coerce")]
    for name, kwargs in calls:
        expected, expected_exc = _outcome(theirs, name, **kwargs)
        got, got_exc = _outcome(ours, name, **kwargs)
        if expected_exc is not None or got_exc is not None:
            assert type(got_exc) is type(expected_exc), (name, kwargs, expected_exc, got_exc)
            assert str(got_exc) == str(expected_exc), (name, kwargs)
            continue
        _same(expected, got, f"{name}({kwargs})")
    if bootstrap:
        for attr in ("overall_ci", "by_group_ci"):
            _same(getattr(theirs, attr), getattr(ours, attr), attr)
        for name in ("group_min_ci", "group_max_ci"):
            _same(getattr(theirs, name)(), getattr(ours, name)(), name)
        for name in ("difference_ci", "ratio_ci"):
            for method in ("between_groups", "to_overall"):
                _same(getattr(theirs, name)(method=method), getattr(ours, name)(method=method),
                      f"{name}({method})")


CASES = {
    "one callable": dict(metrics=skm.accuracy_score, sensitive_features=SEX),
    "dict of metrics": dict(metrics={"acc": skm.accuracy_score, "recall": recall0,
                                     "mse": skm.mean_squared_error},
                            sensitive_features=SEX),
    "partial with kwargs": dict(metrics={"f": fbeta0, "p": precision0},
                                sensitive_features=pd.Series(SEX, name="sex")),
    "sample_params of a dict": dict(
        metrics={"mse": skm.mean_squared_error, "acc": skm.accuracy_score},
        sensitive_features=SEX,
        sample_params={"mse": {"sample_weight": WEIGHTS}, "acc": {"sample_weight": WEIGHTS}}),
    "sample_params of a callable": dict(metrics=skm.accuracy_score, sensitive_features=AGE,
                                        sample_params={"sample_weight": WEIGHTS}),
    "two sensitive features (2-D array)": dict(
        metrics={"acc": skm.accuracy_score}, sensitive_features=np.stack([SEX, AGE], axis=1)),
    "two sensitive features (dict)": dict(metrics=skm.balanced_accuracy_score,
                                          sensitive_features={"sex": SEX, "age": AGE}),
    "control feature": dict(metrics=skm.accuracy_score, sensitive_features=SEX,
                            control_features=SITE),
    "controls and dict": dict(metrics={"acc": skm.accuracy_score, "p": precision0},
                              sensitive_features=pd.DataFrame({"sex": SEX}),
                              control_features=pd.DataFrame({"site": SITE, "age": AGE})),
    "int list feature": dict(metrics=skm.accuracy_score, sensitive_features=list(AGE)),
    "float feature": dict(metrics=skm.accuracy_score, sensitive_features=AGE / 4),
    "uint8 feature": dict(metrics=skm.accuracy_score, sensitive_features=AGE.astype(np.uint8)),
    "categorical feature": dict(
        metrics={"acc": skm.accuracy_score},
        sensitive_features=pd.Series(pd.Categorical(SEX, categories=["other", "male", "x",
                                                                     "female"]), name="s"),
        control_features=pd.Categorical(AGE)),
    "nullable and arrow dtypes": dict(
        metrics=skm.accuracy_score,
        sensitive_features=pd.Series(SEX, dtype="string[pyarrow]", name="s"),
        control_features=pd.Series(AGE, dtype="Int64", name="a")),
    "mixed object feature": dict(
        metrics=skm.accuracy_score,
        sensitive_features=np.array([1 if s == "male" else s for s in SEX], dtype=object)),
    "non-scalar metric": dict(metrics={"cm": skm.confusion_matrix, "p": precision0},
                              sensitive_features=SEX, control_features=SITE),
    "non-scalar callable": dict(metrics=skm.confusion_matrix, sensitive_features=SEX),
    "integer-valued metric": dict(metrics={"n": lambda t, p: len(t)}, sensitive_features=SEX,
                                  control_features=np.stack([SITE, AGE], axis=1)),
    "zero overall": dict(metrics={"sel": lambda t, p: float(np.mean(p))}, y_pred=np.zeros(N),
                         sensitive_features=SEX, control_features=SITE),
    "pandas y": dict(metrics=skm.accuracy_score, y_true=pd.Series(Y_TRUE, index=RNG.permutation(N)),
                     y_pred=pd.DataFrame({"p": Y_PRED}),
                     sensitive_features=pd.Series(SEX, index=RNG.permutation(N), name="g")),
    "string labels": dict(metrics=skm.accuracy_score, y_true=np.where(Y_TRUE, "yes", "no"),
                          y_pred=list(np.where(Y_PRED, "yes", "no")), sensitive_features=SEX),
}


@pytest.mark.parametrize("case", list(CASES))
def test_equals_fairlearn(case):
    kwargs = {"y_true": Y_TRUE, "y_pred": Y_PRED, **CASES[case]}
    _assert_equivalent(*_both(**kwargs))


def test_a_callable_without_a_name_warns_and_is_named_metric():
    with pytest.warns(UserWarning, match="had no __name__") as theirs:
        expected = _fairlearn().MetricFrame(metrics=recall0, y_true=Y_TRUE, y_pred=Y_PRED,
                                            sensitive_features=SEX)
    with pytest.warns(UserWarning, match="had no __name__") as ours:
        got = MetricFrame(metrics=recall0, y_true=Y_TRUE, y_pred=Y_PRED, sensitive_features=SEX)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert got.by_group.name == "metric"
    _assert_equivalent(expected, got)


def test_callable_results_are_scalars_and_series():
    mf = MetricFrame(metrics=skm.accuracy_score, y_true=Y_TRUE, y_pred=Y_PRED,
                     sensitive_features=SEX)
    assert isinstance(mf.overall, float)
    assert isinstance(mf.by_group, pd.Series)
    assert mf.by_group.name == "accuracy_score"
    assert mf.by_group.index.name == "sensitive_feature_0"
    assert mf.by_group.index.tolist() == ["female", "male", "other"]
    for g in ("female", "male", "other"):
        rows = SEX == g
        assert mf.by_group[g] == pytest.approx(skm.accuracy_score(Y_TRUE[rows], Y_PRED[rows]))


def test_absent_combinations_are_nan():
    sex = np.array(["a", "a", "b", "b"])
    age = np.array([1, 2, 1, 1])
    mf = MetricFrame(metrics=skm.accuracy_score, y_true=[1, 0, 1, 1], y_pred=[1, 1, 1, 0],
                     sensitive_features={"sex": sex, "age": age})
    assert mf.by_group.index.names == ["sex", "age"]
    assert math.isnan(mf.by_group["b", 2])
    assert mf.group_min() == 0.0 and mf.group_max() == 1.0


@pytest.mark.parametrize("features", [
    ["a", None, "b"],
    np.array([1.0, np.nan, 2.0]),
    pd.Series(["a", None, "b"], name="s"),
    pd.Series([1, None, 2], dtype="Int64"),
    {"s": ["a", "b", None]},
])
def test_missing_feature_values_raise_as_fairlearn(features):
    kwargs = dict(metrics=skm.accuracy_score, y_true=[1, 0, 1], y_pred=[1, 1, 1],
                  sensitive_features=features)
    theirs = _fairlearn_error(kwargs)
    with pytest.raises(ValueError, match="contains missing values") as ours:
        MetricFrame(**kwargs)
    if theirs is not None:
        assert str(ours.value) == str(theirs)


@pytest.mark.parametrize("kwargs, message", [
    (dict(y_pred=Y_PRED[:-1]), "inconsistent numbers of samples"),
    (dict(sensitive_features=SEX[:-1]), "inconsistent numbers of samples"),
    (dict(sensitive_features=pd.DataFrame({0: SEX})), "column names must be strings"),
    (dict(sensitive_features=pd.Series(SEX, name=1)), "Series name must be a string"),
    (dict(sensitive_features={"a": SEX}, control_features={"a": SITE}), "duplicate feature"),
    (dict(sensitive_features=np.zeros((N, 2, 2))), "too many dimensions"),
    (dict(sensitive_features=[list(SEX), list(AGE)]), "must be of scalar types"),
    (dict(sensitive_features={"a": SEX.reshape(-1, 1)}), "DataFrame.from_dict"),
    (dict(metrics={"a": skm.accuracy_score}, sample_params={"b": {}}), "sample_params"),
    (dict(sample_params=[WEIGHTS]), "must be a dictionary"),
    (dict(metrics={"a": None}), "Found 'None'"),
    (dict(metrics=3), "not callable"),
    (dict(n_boot=3), "Must specify both"),
    (dict(ci_quantiles=[0.5]), "Must specify both"),
    (dict(n_boot=0, ci_quantiles=[0.5]), "positive integer"),
    (dict(n_boot=2, ci_quantiles=[1.0]), r"floats in \(0, 1\)"),
    (dict(n_boot=2, ci_quantiles=[0.5], random_state="seed"), "Unsupported random_state"),
    (dict(metrics=skm.confusion_matrix, n_boot=2, ci_quantiles=[0.5], random_state=1),
     "non-scalar result"),
])
def test_bad_input_raises_as_fairlearn(kwargs, message):
    full = {"metrics": skm.accuracy_score, "y_true": Y_TRUE, "y_pred": Y_PRED,
            "sensitive_features": SEX, **kwargs}
    theirs = _fairlearn_error(full)
    with pytest.raises(ValueError, match=message) as ours:
        MetricFrame(**full)
    if theirs is None:
        return
    if "inconsistent" not in message:  # ours names the inputs after scikit-learn's message
        assert str(ours.value) == str(theirs)
    assert (ours.value.__cause__ is None) == (theirs.__cause__ is None)


def test_arguments_are_keyword_only_and_known():
    with pytest.raises(TypeError):
        MetricFrame(skm.accuracy_score, Y_TRUE, Y_PRED, SEX)
    with pytest.raises(TypeError, match="sensitive_feature"):
        MetricFrame(metrics=skm.accuracy_score, y_true=Y_TRUE, y_pred=Y_PRED,
                    sensitive_feature=SEX)


def test_empty_input_raises():
    kwargs = dict(metrics=skm.accuracy_score, y_true=[], y_pred=[], sensitive_features=[])
    _fairlearn_error(kwargs)  # fairlearn raises a ValueError too
    with pytest.raises(ValueError, match="empty input"):
        MetricFrame(**kwargs)


def test_bad_method_and_errors_arguments():
    mf = MetricFrame(metrics=skm.accuracy_score, y_true=Y_TRUE, y_pred=Y_PRED,
                     sensitive_features=SEX)
    with pytest.raises(ValueError, match="Invalid error value"):
        mf.group_min(errors="ignore")
    with pytest.raises(ValueError, match="Unrecognised comparison method: sideways"):
        mf.ratio(method="sideways")
    with pytest.raises(ValueError, match="Unrecognised comparison method: up"):
        mf.difference_ci(method="up")
    with pytest.raises(ValueError, match="Could not compute confidence intervals"):
        mf.by_group_ci
    with pytest.raises(ValueError, match="Could not compute confidence intervals"):
        mf.ratio_ci()


@pytest.mark.parametrize("case", ["plain", "controls", "two sensitive", "rare group"])
def test_bootstrap_equals_fairlearn(case):
    kwargs = dict(metrics={"mse": skm.mean_squared_error, "acc": skm.accuracy_score},
                  y_true=Y_TRUE, y_pred=Y_PRED, sensitive_features=SEX, n_boot=8,
                  ci_quantiles=[0.1, 0.5, 0.9], random_state=3)
    if case == "controls":
        kwargs.update(metrics=skm.mean_squared_error, control_features=SITE,
                      random_state=np.random.RandomState(5))
    elif case == "two sensitive":
        kwargs.update(sensitive_features=np.stack([SEX, AGE], axis=1), ci_quantiles=[0.5])
    elif case == "rare group":
        # one bootstrap sample misses group "b": its rows are NaN there, skipped
        kwargs.update(metrics={"n": lambda t, p: float(len(t))}, y_true=np.ones(100),
                      y_pred=np.ones(100), sensitive_features=["a"] * 99 + ["b"], n_boot=3,
                      random_state=np.random.RandomState(1234))
    _assert_equivalent(*_both(**kwargs), bootstrap=True)


def test_fast_path_called_once_per_table_with_all_metrics(monkeypatch):
    calls = []
    real = metricframe.grouped_values

    def spy(metrics, y_true, y_pred, codes, n_groups, params=None, **kwargs):
        calls.append((sorted(metrics), len(codes), n_groups, codes.dtype))
        return real(metrics, y_true, y_pred, codes, n_groups, params, **kwargs)

    monkeypatch.setattr(metricframe, "grouped_values", spy)
    mf = MetricFrame(metrics={"acc": fastmetrics.accuracy_score, "r": recall0},
                     y_true=Y_TRUE, y_pred=Y_PRED, sensitive_features=SEX,
                     control_features=SITE)
    assert calls == [(["acc", "r"], N, 2, np.int64), (["acc", "r"], N, 6, np.int64)]
    assert mf.by_group.shape == (6, 2)


def test_metrics_the_fast_path_answers_are_not_called_per_group(monkeypatch):
    def answered(metrics, y_true, y_pred, codes, n_groups, params=None, **kwargs):
        return {name: [float(g) for g in range(n_groups)] for name in metrics}

    def never(y_true, y_pred):
        raise AssertionError("called although the grouped pass answered")

    monkeypatch.setattr(metricframe, "grouped_values", answered)
    mf = MetricFrame(metrics=never, y_true=Y_TRUE, y_pred=Y_PRED, sensitive_features=SEX)
    assert mf.by_group.tolist() == [0.0, 1.0, 2.0]
    assert mf.overall == 0.0


def test_fallback_gets_each_groups_rows_and_params_in_order():
    seen = {}

    def record(y_true, y_pred, tag):
        seen[tag[0]] = (list(y_true), list(tag))
        return float(len(y_true))

    tags = np.array([f"{s}{i}" for i, s in enumerate(SEX)])
    mf = MetricFrame(metrics=record, y_true=Y_TRUE, y_pred=Y_PRED, sensitive_features=SEX,
                     sample_params={"tag": tags})
    for g in ("female", "male", "other"):
        rows = SEX == g
        assert seen[tags[rows][0]] == (list(Y_TRUE[rows]), list(tags[rows]))
        assert mf.by_group[g] == rows.sum()


def test_min_group_size():
    sex = np.array(["a"] * 6 + ["b"] * 2 + ["c"] * 4)
    y_true = np.array([1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 0])
    y_pred = np.array([1, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0])
    called = []

    def acc(t, p):
        called.append(len(t))
        return skm.accuracy_score(t, p)

    full = MetricFrame(metrics={"acc": acc}, y_true=y_true, y_pred=y_pred,
                       sensitive_features=sex)
    called.clear()
    mf = MetricFrame(metrics={"acc": acc}, y_true=y_true, y_pred=y_pred,
                     sensitive_features=sex, min_group_size=3)
    assert mf.small_groups == ["b"]
    assert 2 not in called[1:]  # the small group's metric is not computed
    assert math.isnan(mf.by_group.loc["b", "acc"])
    pd.testing.assert_frame_equal(mf.by_group.drop(index="b"), full.by_group.drop(index="b"))
    pd.testing.assert_series_equal(mf.overall, full.overall)
    assert mf.group_min()["acc"] == full.by_group.drop(index="b")["acc"].min()
    assert full.small_groups == []


def test_min_group_size_with_several_features_lists_tuples():
    mf = MetricFrame(metrics=skm.accuracy_score, y_true=[1, 0, 1, 1, 0], y_pred=[1, 1, 1, 0, 0],
                     sensitive_features={"s": ["a", "a", "a", "b", "b"]},
                     control_features={"c": [0, 0, 1, 1, 1]}, min_group_size=2)
    assert mf.small_groups == [(1, "a")]
    assert math.isnan(mf.by_group[1, "a"])
    assert mf.by_group[0, "a"] == 0.5


def test_min_group_size_above_every_group():
    mf = MetricFrame(metrics={"acc": skm.accuracy_score}, y_true=[1, 0, 1], y_pred=[1, 1, 1],
                     sensitive_features=["a", "b", "c"], min_group_size=2)
    assert mf.small_groups == ["a", "b", "c"]
    assert mf.by_group["acc"].isna().all()
    assert mf.overall["acc"] == pytest.approx(2 / 3)
    assert math.isnan(mf.difference()["acc"])


@pytest.mark.parametrize("name", ["min_group_size", "n_threads"])
@pytest.mark.parametrize("value", [0, -1, 1.5, "2", True])
def test_extras_are_validated(name, value):
    with pytest.raises(ValueError, match=name):
        MetricFrame(metrics=skm.accuracy_score, y_true=Y_TRUE, y_pred=Y_PRED,
                    sensitive_features=SEX, **{name: value})


def test_n_threads_is_accepted_and_does_not_change_values():
    one = MetricFrame(metrics={"acc": fastmetrics.accuracy_score}, y_true=Y_TRUE, y_pred=Y_PRED,
                      sensitive_features=SEX, n_threads=1)
    four = MetricFrame(metrics={"acc": fastmetrics.accuracy_score}, y_true=Y_TRUE,
                       y_pred=Y_PRED, sensitive_features=SEX, n_threads=4)
    assert one.n_threads == 1 and four.n_threads == 4
    pd.testing.assert_frame_equal(one.by_group, four.by_group)


def test_n_threads_reaches_a_grouped_pass_that_takes_it(monkeypatch):
    seen = []
    real = metricframe.grouped_values

    def with_threads(metrics, y_true, y_pred, codes, n_groups, params=None, totals=None,
                     sizes=None, n_threads=None):
        seen.append(n_threads)
        return real(metrics, y_true, y_pred, codes, n_groups, params, totals, sizes)

    monkeypatch.setattr(metricframe, "grouped_values", with_threads)
    MetricFrame(metrics=fastmetrics.accuracy_score, y_true=Y_TRUE, y_pred=Y_PRED,
                sensitive_features=SEX, n_threads=3)
    assert seen == [3]  # one pass: the value on all rows from the groups' states merged


@pytest.mark.parametrize("case", ["labels", "scores", "weighted", "classes_differ"])
def test_overall_from_merged_group_states_equals_all_rows(case, monkeypatch):
    """Without control features, the values on all the rows come from the groups' states
    merged (exact ranking states and states that do not merge: one more pass), in one
    call of the grouped pass; they equal scikit-learn's on all the rows."""
    calls = []
    real = metricframe.grouped_values

    def spy(*args, **kwargs):
        calls.append(args[4])
        return real(*args, **kwargs)

    monkeypatch.setattr(metricframe, "grouped_values", spy)
    rng = np.random.default_rng(31)
    n = 3_000
    groups = rng.integers(0, 7, n)
    y = rng.integers(0, 2, n)
    score = np.clip(0.4 * y + rng.random(n) * 0.6, 0, 1)
    kw, w = {}, None
    if case == "labels":
        pred = np.where(rng.random(n) < 0.8, y, 1 - y)
        metrics = {"acc": skm.accuracy_score, "f1": functools.partial(skm.f1_score,
                                                                        average="macro"),
                   "mcc": skm.matthews_corrcoef}
    elif case == "classes_differ":
        y = np.where(groups == 0, 1, y)  # one group holds one class
        pred = score
        metrics = {"brier": skm.brier_score_loss,
                   "ll": functools.partial(skm.log_loss, labels=[0, 1])}
    else:
        pred = score
        metrics = {"auc": skm.roc_auc_score, "ll": skm.log_loss,
                   "brier": skm.brier_score_loss, "ap": skm.average_precision_score,
                   "mse": skm.mean_squared_error}
        if case == "weighted":
            w = rng.random(n)
            kw = {"sample_params": {m: {"sample_weight": w} for m in metrics}}
    mf = MetricFrame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=groups, **kw)
    assert calls == [7]
    for name, fn in metrics.items():
        want = fn(y, pred) if w is None else fn(y, pred, sample_weight=w)
        assert mf.overall[name] == pytest.approx(want, rel=1e-12), name


def test_private_helpers_fairlearns_tests_use():
    mf = MetricFrame.__new__(MetricFrame)
    features = mf._process_features("SF", ["a", "b", "b"], pd.Series([0, 1, 1]))
    assert [f.name_ for f in features] == ["SF0"]
    pd.testing.assert_series_equal(mf._none_to_nan(pd.Series([None, 1.0])),
                                   pd.Series([np.nan, 1.0]))
    full = MetricFrame(metrics={"a": skm.accuracy_score}, y_true=[1], y_pred=[1],
                       sensitive_features=[0])
    assert full._user_supplied_callable is False


def test_pandas_is_not_imported_with_fastmetrics():
    import subprocess
    import sys

    code = "import sys, fastmetrics; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


@st.composite
def frames(draw):
    n = draw(st.integers(2, 40))
    ints = st.lists(st.integers(0, 1), min_size=n, max_size=n)
    y_true, y_pred = np.array(draw(ints)), np.array(draw(ints))
    n_sensitive = draw(st.integers(1, 2))
    sensitive = {f"s{i}": draw(st.lists(st.sampled_from(["x", "y", "z"][: i + 2]),
                                        min_size=n, max_size=n))
                 for i in range(n_sensitive)}
    kwargs = dict(y_true=y_true, y_pred=y_pred, sensitive_features=sensitive)
    if draw(st.booleans()):
        kwargs["control_features"] = np.array(draw(st.lists(st.integers(0, 2), min_size=n,
                                                            max_size=n)))
    if draw(st.booleans()):
        kwargs["metrics"] = {"acc": skm.accuracy_score, "recall": recall0,
                             "mse": skm.mean_squared_error, "n": lambda t, p: float(len(t))}
    else:
        kwargs["metrics"] = skm.accuracy_score
    return kwargs


@settings(max_examples=25, deadline=None)
@given(frames())
def test_random_frames_equal_fairlearn(kwargs):
    _assert_equivalent(*_both(**kwargs))
