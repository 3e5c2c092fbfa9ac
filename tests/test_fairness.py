"""group_metrics against scikit-learn on each group's samples, one group at a time."""

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fastmetrics as fm

SK = {
    "accuracy": skm.accuracy_score,
    "balanced_accuracy": skm.balanced_accuracy_score,
    "f1_macro": lambda a, b: skm.f1_score(a, b, average="macro", zero_division=0),
    "f1_weighted": lambda a, b: skm.f1_score(a, b, average="weighted", zero_division=0),
    "f1_micro": lambda a, b: skm.f1_score(a, b, average="micro", zero_division=0),
    "precision_macro": lambda a, b: skm.precision_score(a, b, average="macro", zero_division=0),
    "recall_macro": lambda a, b: skm.recall_score(a, b, average="macro", zero_division=0),
}


def reference(y_true, y_pred, groups, metric):
    """Plain numpy/sklearn: mask each group, call the metric."""
    f = SK[metric]
    y_true, y_pred, groups = map(np.asarray, (y_true, y_pred, groups))
    per = {g.item() if isinstance(g, np.generic) else g: f(y_true[groups == g], y_pred[groups == g])
           for g in np.unique(groups)}
    glob = f(y_true, y_pred)
    vals = np.array(list(per.values()))
    return per, glob, vals.max() - vals.min()


def _data(n=20_000, k=5, n_groups=4, seed=0):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, k, n)
    yp = np.where(rng.random(n) < 0.6 + 0.1 * (yt % 2), yt, rng.integers(0, k, n))
    g = rng.integers(0, n_groups, n)
    return yt, yp, g


def _check(r, y_true, y_pred, groups, metric):
    per, glob, gap = reference(y_true, y_pred, groups, metric)
    assert list(r.per_group) == list(per)
    for key in per:
        assert r.per_group[key] == pytest.approx(per[key], rel=1e-12, abs=1e-15)
        assert r.disparities[key] == pytest.approx(per[key] - glob, abs=1e-12)
    assert r.global_value == pytest.approx(glob, rel=1e-12)
    assert r.gap == pytest.approx(gap, abs=1e-12)
    assert r.per_group[r.worst_group] == min(r.per_group.values())
    assert r.per_group[r.best_group] == max(r.per_group.values())


@pytest.mark.parametrize("metric", sorted(SK))
def test_matches_sklearn_per_group(metric):
    yt, yp, g = _data()
    _check(fm.group_metrics(yt, yp, g, metric), yt, yp, g, metric)


@pytest.mark.parametrize("kind", ["int8", "uint16", "bool_groups", "str_groups", "str_labels",
                                  "mixed_int", "wide_range", "float_labels", "object_groups",
                                  "negative", "swapped", "strided"])
def test_label_and_group_types(kind):
    yt, yp, g = _data(3000, k=3, n_groups=3, seed=1)
    if kind == "int8":
        yt, yp, g = yt.astype(np.int8), yp.astype(np.int8), g.astype(np.int8)
    elif kind == "uint16":
        yt, yp, g = yt.astype(np.uint16), yp.astype(np.uint16), g.astype(np.uint16)
    elif kind == "bool_groups":
        g = g == 1
    elif kind == "str_groups":
        g = np.array(["north", "south", "east"])[g]
    elif kind == "str_labels":
        yt, yp = np.array(["a", "b", "c"])[yt], np.array(["a", "b", "c"])[yp]
    elif kind == "mixed_int":
        yt = yt.astype(np.int32)
    elif kind == "wide_range":
        yt, yp, g = yt * 10**6, yp * 10**6, g * 10**9
    elif kind == "float_labels":
        yt, yp = yt.astype(float), yp.astype(float)
    elif kind == "object_groups":
        g = np.array(["x", 1, 2.5], dtype=object)[g].astype(str).astype(object)
    elif kind == "negative":
        yt, yp, g = yt - 2, yp - 2, g - 7
    elif kind == "swapped":
        yt, yp, g = (a.astype(a.dtype.newbyteorder(">")) for a in (yt, yp, g))
    elif kind == "strided":
        yt, yp, g = (np.repeat(a, 2)[::2] for a in (yt, yp, g))
    r = fm.group_metrics(yt, yp, g, "f1_macro")
    _check(r, yt, yp, g, "f1_macro")


def test_flat_dict_uses_the_reference_keys():
    r = fm.group_metrics([1, 1, 0, 0, 1], [1, 0, 0, 0, 1], ["a", "a", "b", "b", "b"])
    d = r.to_flat_dict()
    assert d["per_group.a.accuracy"] == 0.5 and d["per_group.b.accuracy"] == 1.0
    assert d["global_metric"] == 0.8 and d["worst_group"] == "a"
    assert d["fairness_gap"] == 0.5 and d["disparities.b"] == pytest.approx(0.2)
    assert d["per_group.b.n"] == 3
    assert r.confusion.shape == (2, 2, 2) and r.confusion.sum() == 5


def test_one_group_and_a_group_with_one_sample():
    r = fm.group_metrics([0, 1, 1], [0, 1, 0], [7, 7, 7])
    assert r.per_group == {7: pytest.approx(2 / 3)} and r.gap == 0.0
    r = fm.group_metrics([0, 1, 1], [0, 1, 0], [1, 2, 2])
    assert r.per_group == {1: 1.0, 2: 0.5} and r.worst_group == 2


def test_threads_and_large_input_give_the_same_state():
    yt, yp, g = _data(600_000, k=7, n_groups=5, seed=3)
    runs = [fm.group_metrics(yt, yp, g, "f1_macro", n_threads=n) for n in (1, 2, 8)]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.confusion, runs[0].confusion)
        assert r.per_group == runs[0].per_group
    for i, key in enumerate(runs[0].per_group):
        m = g == key
        np.testing.assert_array_equal(
            runs[0].confusion[i], skm.confusion_matrix(yt[m], yp[m], labels=np.arange(7)))


@pytest.mark.parametrize("args, kwargs, exc, match", [
    (([0, 1], [0, 1], [0]), {}, ValueError, "same length"),
    (([0, 1], [0], [0, 1]), {}, ValueError, "same length"),
    (([], [], []), {}, ValueError, "at least one sample"),
    (([0, 1], [0, 1], [0, 1]), {"metric": "auc"}, ValueError, "metric must be one of"),
    (([0, 1], [0, 1], [0.0, np.nan]), {}, ValueError, "groups contains NaN"),
    (([0, 1], [0, np.nan], [0, 1]), {}, ValueError, "y_pred contains NaN"),
    (([0, 1], [0, None], [0, 1]), {}, ValueError, "None"),
    (([0, 1], [0, 1], [[0, 1], [1, 0]]), {}, ValueError, "groups"),
    (([0, 1], [0, 1], [0, 1]), {"n_threads": 0}, ValueError, "n_threads"),
])
def test_bad_inputs(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fm.group_metrics(*args, **kwargs)


@given(hnp.arrays(np.int8, st.integers(1, 60), elements=st.integers(-2, 2)), st.data())
def test_property_accuracy_and_f1(yt, data):
    n = yt.shape[0]
    yp = data.draw(hnp.arrays(np.int8, n, elements=st.integers(-2, 2)))
    g = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, 3)))
    for metric in ("accuracy", "f1_macro"):
        _check(fm.group_metrics(yt, yp, g, metric), yt, yp, g, metric)


def test_repeated_calls_do_not_leak():
    import gc

    import psutil

    yt, yp, g = _data(5000, seed=6)
    gs = g.astype(str)

    def many(n):
        for _ in range(n):
            fm.group_metrics(yt, yp, g, "f1_macro")
            fm.group_metrics(yt, yp, gs)

    many(100)
    gc.collect()
    before = psutil.Process().memory_info().rss
    many(1500)
    gc.collect()
    grown = psutil.Process().memory_info().rss - before
    assert grown < 4 * 2**20, f"RSS grew by {grown / 2**20:.1f} MiB over 3,000 calls"


def test_int64_with_uint64_labels_compare_exactly():
    """int64 y_true with uint64 y_pred: numpy's common type is float64, which would merge
    2**53 and 2**53 + 1; the labels are compared as integers, as in accuracy_score."""
    yt = np.array([2**53, 2**53 + 1, 7])
    yp = np.array([2**53 + 1, 2**53, 7], np.uint64)
    got = fm.group_metrics(yt, yp, [0, 0, 1])
    assert got.per_group == {0: 0.0, 1: 1.0}
    assert got.global_value == fm.accuracy_score(yt, yp) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="no integer type"):
        fm.group_metrics(np.array([-1, 0]), np.array([2**63, 0], np.uint64), [0, 0])


@pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")
@pytest.mark.parametrize("metric", sorted(SK))
def test_labels_are_the_ones_present_and_macro_averages_match_sklearn(metric):
    """Labels {0, 5, 9}: the state holds those three, not the range 0..9, and each group
    averages over the labels present in that group (as scikit-learn on its samples)."""
    yt = np.array([0, 5, 5, 0, 9, 9, 5, 0])
    yp = np.array([0, 5, 0, 0, 9, 5, 5, 5])
    g = np.array([0, 0, 0, 1, 1, 1, 2, 2])   # group 0 lacks 9, group 2 lacks 9
    r = fm.group_metrics(yt, yp, g, metric)
    np.testing.assert_array_equal(r.labels, [0, 5, 9])
    assert r.confusion.shape == (3, 3, 3)
    for i, key in enumerate(r.per_group):
        m = g == key
        np.testing.assert_array_equal(
            r.confusion[i], skm.confusion_matrix(yt[m], yp[m], labels=[0, 5, 9]))
    _check(r, yt, yp, g, metric)
    # the same through the encoded (wide range) path
    _check(fm.group_metrics(yt * 10**6, yp * 10**6, g, metric), yt, yp, g, metric)


def test_one_thread_and_many_give_the_same_state_on_a_large_input():
    yt, yp, g = _data(1 << 17, k=3, n_groups=2, seed=4)
    one = fm.group_metrics(yt, yp, g, n_threads=1)
    two = fm.group_metrics(yt, yp, g, n_threads=2)
    np.testing.assert_array_equal(one.confusion, two.confusion)
    assert one.per_group == two.per_group


@pytest.mark.parametrize("y_true, y_pred, exc, match", [
    ([0.0, 1.5], [0.0, 1.0], ValueError, "non-integer float values"),
    ([0.0, 1.0], [0.0, np.inf], ValueError, "y_pred contains NaN or infinity"),
    ([1, "a"], [1, 1], ValueError, "Mix of label input types"),
    ([1, 2], ["1", "2"], ValueError, "Mix of label input types"),
])
def test_labels_are_checked_like_accuracy_score(y_true, y_pred, exc, match):
    with pytest.raises(exc, match=match):
        fm.accuracy_score(y_true, y_pred)
    with pytest.raises(exc, match=match):
        fm.group_metrics(y_true, y_pred, [0, 1])


def test_label_dtypes_are_kept():
    assert fm.group_metrics([1.0, 3.0], [1.0, 1.0], [0, 1]).labels.dtype == np.float64
    assert fm.group_metrics([True, False], [True, True], [0, 1]).labels.dtype == bool
    big = np.array([2**63 + 1, 2**63 + 2], np.uint64)   # read in place, range above int64
    r = fm.group_metrics(big, big[::-1], [0, 0])
    np.testing.assert_array_equal(r.labels, big)
    assert r.per_group == {0: 0.0}
