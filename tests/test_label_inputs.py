"""Text and categorical labels: numpy strings (``U``, ``S``), object arrays of ``str``,
pandas categoricals and strings, pyarrow string and dictionary arrays (chunked too), polars
String/Categorical/Enum. Each gives exactly what the same labels give as integer codes and
what scikit-learn gives (label order, report keys, warnings), one-shot, streamed and on
dask, and missing values raise NaN labels' error."""

import ctypes
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from sklearn import metrics as skm

import fastmetrics as fm
from fastmetrics import _inputs
from fastmetrics._kernels import labels as label_kernel
from fastmetrics.streaming import ConfusionAccumulator

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
pl = pytest.importorskip("polars")

NAMES = np.array(["neg", "pos", "neutral", "", "é", "ab", "zz-top"])


def _labels(n, k, seed):
    rng = np.random.default_rng(seed)
    return NAMES[rng.integers(0, k, n)], NAMES[rng.integers(0, k, n)]


def _chunked(x):
    half = x.shape[0] // 2
    return pa.chunked_array([pc.dictionary_encode(pa.array(x[:half].tolist(), pa.string())),
                             pc.dictionary_encode(pa.array(x[half:].tolist(), pa.string()))])


#: the same labels in every input type the label path reads (arrow-backed ones from Python
#: strings: pyarrow's conversion of a numpy ``U`` array ends each string at a NUL)
FORM_MAKERS = {
    "U": lambda x: x,
    "U-wide": lambda x: x.astype("<U20"),
    "object": lambda x: x.astype(object),
    "strided": lambda x: np.repeat(x, 2)[::2],
    "pandas-category": lambda x: pd.Series(x, dtype="category"),
    "pandas-categorical-unused": lambda x: pd.Categorical(
        x, categories=sorted(set(x.tolist()) | {"never", "zzz-unused"})),
    "pandas-str": lambda x: pd.Series(x.tolist(), dtype="str"),
    "pandas-string-pyarrow": lambda x: pd.Series(x.tolist(), dtype="string[pyarrow]"),
    "pandas-object": lambda x: pd.Series(x.astype(object), dtype=object),
    "pyarrow-string": lambda x: pa.array(x.tolist()),
    "pyarrow-large-string": lambda x: pa.array(x.tolist(), type=pa.large_string()),
    "pyarrow-string-view": lambda x: pa.array(x.tolist(), type=pa.string_view()),
    "pyarrow-dictionary": lambda x: pc.dictionary_encode(pa.array(x.tolist())),
    "pyarrow-chunked-dictionary": _chunked,
    "polars-string": lambda x: pl.Series(x.tolist()),
    "polars-categorical": lambda x: pl.Series(x.tolist(), dtype=pl.Categorical),
    "polars-enum": lambda x: pl.Series(x.tolist(), dtype=pl.Enum(sorted(set(NAMES.tolist())))),
}
FORMS = list(FORM_MAKERS)


def _form(x, name):
    return FORM_MAKERS[name](x)


def _int_codes(t, p):
    values = np.union1d(t, p)
    return np.searchsorted(values, t), np.searchsorted(values, p)


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = fn(*args, **kw)
    return out, sorted({(w.category.__name__, str(w.message)) for w in rec})


COUNTING = [
    ("confusion_matrix", {}),
    ("accuracy_score", {}),
    ("f1_score", {"average": "macro"}),
    ("f1_score", {"average": "micro"}),
    ("f1_score", {"average": "weighted"}),
    ("f1_score", {"average": None}),
    ("precision_score", {"average": "macro"}),
    ("recall_score", {"average": None}),
    ("cohen_kappa_score", {}),
    ("matthews_corrcoef", {}),
    ("balanced_accuracy_score", {}),
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("n,k", [(1, 1), (7, 2), (500, 5), (3000, 7)])
def test_every_form_equals_int_codes_and_sklearn(form, n, k):
    t, p = _labels(n, k, seed=n + k)
    it, ip = _int_codes(t, p)
    for name, kw in COUNTING:
        got, w_got = _quiet(getattr(fm, name), _form(t, form), _form(p, form), **kw)
        want, w_want = _quiet(getattr(skm, name), t, p, **kw)
        ints, _ = _quiet(getattr(fm, name), it, ip, **kw)
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {kw}")
        np.testing.assert_array_equal(got, ints, err_msg=f"{name} {kw}")
        assert np.asarray(got).dtype == np.asarray(want).dtype
        assert w_got == w_want, name
    rep, w_rep = _quiet(fm.classification_report, _form(t, form), _form(p, form),
                        output_dict=True)
    want, w_want = _quiet(skm.classification_report, t, p, output_dict=True)
    assert list(rep) == list(want) and rep == want
    assert w_rep == w_want


@pytest.mark.parametrize("form", FORMS)
def test_weighted_and_requested_labels(form):
    t, p = _labels(400, 6, seed=3)
    w = np.random.default_rng(3).random(400)
    labels = ["pos", "neg", "missing-label"]
    for name, kw in [("confusion_matrix", {"labels": labels}),
                     ("f1_score", {"average": "macro", "labels": labels[:2]}),
                     ("f1_score", {"average": "weighted"})]:
        got, _ = _quiet(getattr(fm, name), _form(t, form), _form(p, form), sample_weight=w,
                        **kw)
        ref, _ = _quiet(getattr(fm, name), t, p, sample_weight=w, **kw)
        want, _ = _quiet(getattr(skm, name), t, p, sample_weight=w, **kw)
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_bytes_and_mixed_widths_and_nul():
    t = np.array([b"a", b"bb", b"", b"a"], dtype="S3")
    p = np.array([b"bb", b"bb", b"", b"ccc"], dtype="S5")
    # scikit-learn refuses bytes labels; fastmetrics counts them as their integer codes
    assert np.array_equal(fm.confusion_matrix(t, p), fm.confusion_matrix(*_int_codes(t, p)))
    # object strings with trailing NULs are the strings numpy's str dtype holds
    o = np.array(["a", "a\x00", "b"], dtype=object)
    assert np.array_equal(fm.confusion_matrix(o, o), fm.confusion_matrix(o.astype(str),
                                                                          o.astype(str)))


@given(st.lists(st.text(max_size=6), min_size=1, max_size=12, unique=True),
       st.lists(st.integers(0, 11), min_size=1, max_size=60), st.integers(0, 2**32 - 1),
       st.sampled_from(["U", "object", "S", "pandas-category", "pyarrow-string"]))
def test_hypothesis_random_string_tables(table, idx, seed, form):
    rng = np.random.default_rng(seed)
    tab = np.array(table, dtype=str)
    t = tab[np.array(idx) % len(tab)]
    p = tab[rng.integers(0, len(tab), len(idx))].astype(f"<U{tab.dtype.itemsize // 4 + 3}")
    want, w_want = _quiet(skm.confusion_matrix, t, p)
    if form == "S":  # UTF-8 bytes sort as their strings: the same table
        got, w_got = _quiet(fm.confusion_matrix, np.char.encode(t, "utf-8"),
                            np.char.encode(p, "utf-8"))
    else:
        got, w_got = _quiet(fm.confusion_matrix, _form(t, form), _form(p, form))
    np.testing.assert_array_equal(got, want)
    assert w_got == w_want
    got_f1, w1 = _quiet(fm.f1_score, t, p, average=None)
    want_f1, w2 = _quiet(skm.f1_score, t, p, average=None)
    np.testing.assert_array_equal(got_f1, want_f1)
    assert w1 == w2


def test_kernel_codes_first_seen_and_exact():
    rng = np.random.default_rng(0)
    for a in (NAMES[rng.integers(0, 7, 1000)], rng.integers(-5, 5, 1000),
              rng.integers(0, 10**12, 1000), np.array([], dtype="<U3")):
        codes, first = label_kernel.encode_fixed(a)
        np.testing.assert_array_equal(a[first][codes], a)
        assert np.all(np.diff(first) > 0)  # first occurrences in order
        codes_o = label_kernel.encode_str_objects(a.astype(str).astype(object))
        np.testing.assert_array_equal(codes_o[0], label_kernel.encode_fixed(a.astype(str))[0])
    assert label_kernel.encode_str_objects(np.array(["a", 1, "b"], dtype=object)) == 1
    # many distinct values (the table grows)
    a = np.array([str(i) for i in rng.permutation(50_000)])
    codes, first = label_kernel.encode_fixed(a)
    assert first.shape[0] == 50_000 and np.array_equal(a[first][codes], a)
    (c,), values = _inputs.encode_labels(a)
    u, inv = np.unique(a, return_inverse=True)
    np.testing.assert_array_equal(values, u)
    np.testing.assert_array_equal(c, inv)


@pytest.mark.parametrize("large", [False, True])
def test_arrow_buffers_sliced_long_and_short(large):
    rng = np.random.default_rng(11)
    words = ["", "a", "é" * 7, "exactly-16-bytes", "seventeen-bytes!!", "x" * 40, "ab\x00",
             "ab"]
    x = np.array(words, dtype=object)[rng.integers(0, len(words), 3000)]
    arr = pa.array(x.tolist(), type=pa.large_string() if large else pa.string())
    for lo, hi in [(0, 3000), (1, 2999), (2990, 3000), (5, 5)]:
        part = arr.slice(lo, hi - lo)  # offsets read from the slice's start
        t = x[lo:hi].astype(str)
        if hi == lo:
            continue
        p = np.roll(t, 1)
        got, _ = _quiet(fm.confusion_matrix, part, pa.array(p.tolist()))
        want, _ = _quiet(fm.confusion_matrix, t.astype(object), p.astype(object))
        np.testing.assert_array_equal(got, want)
    codes, first = label_kernel.encode_offsets(np.array([0, 1, 3], dtype=np.int64),
                                               np.frombuffer(b"abc", dtype=np.uint8))
    assert codes.tolist() == [0, 1] and first.tolist() == [0, 1]
    with pytest.raises(ValueError, match="outside"):
        label_kernel.encode_offsets(np.array([0, 9], dtype=np.int32),
                                    np.zeros(3, dtype=np.uint8))
    with pytest.raises(ValueError, match="decrease"):
        label_kernel.encode_offsets(np.array([0, 2, 1], dtype=np.int32),
                                    np.zeros(3, dtype=np.uint8))


@pytest.mark.parametrize("bad", [
    lambda: pd.Series(["a", None, "b"], dtype="category"),
    lambda: pa.array(["a", None, "b"]),
    lambda: pc.dictionary_encode(pa.array(["a", None, "b"])),
    lambda: pl.Series(["a", None, "b"]),
    lambda: pl.Series(["a", None, "b"], dtype=pl.Categorical),
    lambda: pd.Series(["a", None, "b"], dtype="string[pyarrow]"),
])
def test_missing_values_raise_nan_error(bad):
    with pytest.raises(ValueError, match=r"Input y_true contains NaN .*index 1"):
        fm.f1_score(bad(), np.array(["a", "b", "b"]), average="macro")
    with pytest.raises(ValueError, match=r"Input y_pred contains NaN"):
        fm.confusion_matrix(np.array(["a", "b", "b"]), bad())


def test_errors_unchanged():
    with pytest.raises(ValueError, match="Mix of label input types"):
        fm.f1_score(pd.Series(["a", "b"], dtype="category"), np.array([0, 1]))
    with pytest.raises(ValueError, match="None"):
        fm.f1_score(np.array(["a", None], dtype=object), np.array(["a", "b"]))
    with pytest.raises(ValueError, match="Mix of label input types"):
        fm.f1_score(np.array(["a", 1.5], dtype=object), np.array(["a", "b"]))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.f1_score(pa.array(["a", "b"]), pl.Series(["a", "b", "c"]))


def test_numeric_categories_take_the_value_path():
    t = pd.Series([3, 1, 2, 3], dtype="category")
    p = np.array([3, 1, 1, 2])
    np.testing.assert_array_equal(fm.confusion_matrix(t, p),
                                  skm.confusion_matrix(np.asarray(t), p))


def test_clustering_and_probability_metrics_with_strings():
    t, p = _labels(600, 5, seed=9)
    for form in ("object", "pandas-category", "pyarrow-dictionary", "polars-string"):
        assert fm.adjusted_rand_score(_form(t, "object"), _form(p, "object")) == \
            skm.adjusted_rand_score(t, p)
    rng = np.random.default_rng(9)
    yb = np.array(["no", "yes"])[rng.integers(0, 2, 600)]
    s = rng.random(600)
    for y in (yb, yb.astype(object), pd.Series(yb, dtype="category").astype(object)):
        assert fm.roc_auc_score(y, s) == fm.roc_auc_score(yb == "yes", s)
        np.testing.assert_allclose(fm.roc_auc_score(y, s), skm.roc_auc_score(yb, s),
                                   rtol=1e-12)
        proba = np.stack([1 - s, s], axis=1)
        assert fm.log_loss(y, proba) == fm.log_loss(yb == "yes", proba)
        np.testing.assert_allclose(fm.log_loss(y, proba), skm.log_loss(yb, proba), rtol=1e-12)


@pytest.mark.parametrize("form", ["U", "object", "pandas-category", "pyarrow-dictionary",
                                  "polars-categorical", "pandas-str"])
def test_streaming_chunks_of_strings_and_categoricals(form):
    t, p = _labels(900, 7, seed=4)
    acc = ConfusionAccumulator()
    for lo, hi in [(0, 100), (100, 101), (101, 600), (600, 900)]:
        # categoricals of each chunk carry their own category sets: aligned on merge
        acc.update(_form(t[lo:hi], form), _form(p[lo:hi], form))
    np.testing.assert_array_equal(acc.confusion_matrix(), skm.confusion_matrix(t, p))
    assert acc.f1_score(average="macro") == fm.f1_score(t, p, average="macro")
    other = ConfusionAccumulator().update(_form(t[:50], form), _form(p[:50], form))
    both = acc.merge(other)
    np.testing.assert_array_equal(
        both.confusion_matrix(),
        skm.confusion_matrix(np.concatenate([t, t[:50]]), np.concatenate([p, p[:50]])))


def test_group_metrics_with_string_labels_and_groups():
    t, p = _labels(800, 5, seed=5)
    g = np.array(["east", "west", "north"])[np.random.default_rng(5).integers(0, 3, 800)]
    want = fm.group_metrics(t, p, g.astype(object))
    for form in ("U", "pandas-category", "pyarrow-dictionary", "polars-string"):
        got = fm.group_metrics(_form(t, form), _form(p, form),
                               pd.Series(g, dtype="category") if form != "U" else g)
        assert got.per_group == want.per_group and got.n_per_group == want.n_per_group
        assert list(got.per_group) == ["east", "north", "west"]


def test_dask_string_partitions():
    dd = pytest.importorskip("dask.dataframe")
    import dask

    t, p = _labels(5000, 6, seed=6)
    df = pd.DataFrame({"t": t, "p": p})
    ddf = dd.from_pandas(df, npartitions=4)
    import fastmetrics.dask as fmd

    with dask.config.set(scheduler="synchronous"):
        got = fmd.f1_score(ddf["t"], ddf["p"], average="macro")
        cm = fmd.confusion_matrix(ddf["t"].astype("category"), ddf["p"].astype("category"))
    assert got == skm.f1_score(t, p, average="macro")
    np.testing.assert_array_equal(cm, skm.confusion_matrix(t, p))


#: label forms of the other families' inputs (text, and categoricals of integers)
OTHER_FORMS = ["pandas-category", "pyarrow-dictionary", "polars-string", "pandas-str",
               "object"]
INT_FORMS = {
    "pandas-int-category": lambda x: pd.Series(x, dtype="category"),
    "pandas-int-categorical-unused": lambda x: pd.Categorical(
        x, categories=sorted(set(x.tolist()) | {-7, 99})),
    "pyarrow-int-dictionary": lambda x: pc.dictionary_encode(pa.array(x)),
    "pyarrow-int32-dictionary": lambda x: pc.dictionary_encode(pa.array(x.astype(np.int32))),
}


def _idx(x):
    """Positions of labels ``x`` in :data:`NAMES`."""
    return np.array([NAMES.tolist().index(v) for v in x.tolist()])


def _other_forms(x):
    """``x`` (a ``U`` array or an int array) in each data-frame form of its kind."""
    if x.dtype.kind == "U":
        return {f: _form(x, f) for f in OTHER_FORMS}
    return {f: make(x) for f, make in INT_FORMS.items()}


def _same(fn, y, *args, **kw):
    """``fn`` on every data-frame form of ``y`` gives exactly what the numpy ``y`` gives
    (values and warnings)."""
    want, w_want = _quiet(fn, y, *args, **kw)
    for form, yf in _other_forms(y).items():
        got, w_got = _quiet(fn, yf, *args, **kw)
        if isinstance(want, tuple):
            for g, v in zip(got, want):
                np.testing.assert_array_equal(g, v, err_msg=f"{fn.__name__} {form}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{fn.__name__} {form}")
        assert w_got == w_want, (fn.__name__, form)
    return want


@pytest.mark.parametrize("kind", ["str", "int"])
def test_clustering_metrics_read_codes(kind):
    t, p = _labels(700, 6, seed=21)
    if kind == "int":
        t, p = (np.unique(NAMES, return_inverse=True)[1][_idx(x)] * 3 - 4 for x in (t, p))
    for fn in (fm.adjusted_rand_score, fm.rand_score, fm.mutual_info_score,
               fm.normalized_mutual_info_score, fm.adjusted_mutual_info_score,
               fm.homogeneity_completeness_v_measure, fm.fowlkes_mallows_score,
               fm.v_measure_score, fm.contingency_matrix):
        want = _same(fn, t, p)
        assert _same(lambda a, b: fn(b, a), t, p) is not None
        ref = getattr(skm, fn.__name__, None) or getattr(skm.cluster, fn.__name__)
        np.testing.assert_allclose(np.asarray(want, dtype=float),
                                   np.asarray(ref(t, p), dtype=float), rtol=1e-12)


@pytest.mark.parametrize("kind", ["str", "int"])
def test_probability_metrics_read_codes(kind):
    rng = np.random.default_rng(22)
    t, _ = _labels(500, 4, seed=22)
    if kind == "int":
        t = np.unique(NAMES, return_inverse=True)[1][_idx(t)] * 10
    k = np.unique(t).shape[0]
    P = rng.random((500, k)) + 0.05
    P /= P.sum(axis=1, keepdims=True)
    D = rng.normal(size=(500, k))
    labels = np.unique(t)
    for fn, args, kw in [
        (fm.log_loss, (P,), {}),
        (fm.log_loss, (P,), {"labels": labels}),
        (fm.d2_log_loss_score, (P,), {}),
        (fm.hinge_loss, (D,), {}),
        (fm.hinge_loss, (D,), {"labels": labels}),
        (fm.brier_score_loss, (P,), {}),
        (fm.top_k_accuracy_score, (D,), {"k": 2}),
        (fm.top_k_accuracy_score, (D,), {"k": 2, "labels": labels}),
        (fm.roc_auc_score, (P,), {"multi_class": "ovr"}),
        (fm.roc_auc_score, (P,), {"multi_class": "ovo"}),
    ]:
        want = _same(fn, t, *args, **kw)
        ref = getattr(skm, fn.__name__)(t, *args, **kw)
        np.testing.assert_allclose(want, ref, rtol=1e-12, err_msg=fn.__name__)


@pytest.mark.parametrize("kind", ["str", "int"])
def test_ranking_and_calibration_read_codes(kind):
    rng = np.random.default_rng(23)
    y = np.array(["no", "yes"])[rng.integers(0, 2, 600)]
    pos = "yes"
    if kind == "int":
        y, pos = np.where(y == "yes", 7, -2), 7
    s = rng.random(600)
    for fn, kw in [(fm.roc_auc_score, {}), (fm.average_precision_score, {"pos_label": pos}),
                   (fm.roc_curve, {"pos_label": pos}),
                   (fm.precision_recall_curve, {"pos_label": pos}),
                   (fm.brier_score_loss, {"pos_label": pos}),
                   (fm.calibration_curve, {"pos_label": pos, "n_bins": 5}),
                   (fm.log_loss, {})]:
        want = _same(fn, y, s, **kw)
        ref = (getattr(skm, fn.__name__, None)
               or getattr(__import__("sklearn.calibration").calibration, fn.__name__))(
            y, s, **kw)
        if isinstance(want, tuple):
            for g, r in zip(want, ref):
                np.testing.assert_allclose(g, r, rtol=1e-12, err_msg=fn.__name__)
        else:
            np.testing.assert_allclose(want, ref, rtol=1e-12, err_msg=fn.__name__)
    _same(fm.expected_calibration_error, y, s, pos_label=pos)

    def summary(y, s, pos_label):
        r = fm.calibration_summary(y, s, pos_label=pos_label)
        return r.ece, r.mce, r.brier

    _same(summary, y, s, pos_label=pos)


def test_other_families_raise_nan_error_on_missing_labels():
    t = pd.Series(["a", None, "b", "a"], dtype="category")
    P = np.full((4, 2), 0.5)
    for call in (lambda: fm.adjusted_rand_score(t, np.array([0, 1, 1, 0])),
                 lambda: fm.log_loss(t, P),
                 lambda: fm.log_loss(t, P, labels=["a", "b"]),
                 lambda: fm.hinge_loss(t, np.zeros((4, 3)), labels=["a", "b", "c"]),
                 lambda: fm.roc_auc_score(t, P[:, 1]),
                 lambda: fm.brier_score_loss(t, P[:, 1], pos_label="a")):
        with pytest.raises(ValueError, match="NaN"):
            call()
    ti = pd.Series([1, None, 2, 1], dtype="category")
    with pytest.raises(ValueError, match="NaN"):
        fm.f1_score(ti, np.array([1, 2, 2, 1]), average="macro")


@pytest.mark.parametrize("run", [1, 2, 7, 600, 5000])
def test_kernel_codes_of_labels_in_runs(run):
    """Sorted and grouped rows (the fixed-width encoder skips the hash for an item equal to
    the one before, in blocks of runs) give the codes of shuffled ones."""
    rng = np.random.default_rng(run)
    t = np.repeat(NAMES[rng.integers(0, 7, 20_000 // run + 1)], run)[:20_000]
    t[rng.integers(0, t.shape[0], 30)] = "odd-one"  # isolated changes inside runs
    for a in (t, t.astype("<U20"), np.char.encode(t, "utf-8"), np.repeat(t, 2)[::2]):
        codes, first = label_kernel.encode_fixed(a)
        np.testing.assert_array_equal(a[first][codes], a)
        assert np.all(np.diff(first) > 0)
    p = np.sort(t)
    np.testing.assert_array_equal(fm.confusion_matrix(t, p), skm.confusion_matrix(t, p))


def test_object_codes_repeated_and_equal_objects():
    """Objects met again (found by address, a 256-entry direct-mapped cache with
    collisions past 256 objects) and equal strings held by distinct objects get one code."""
    rng = np.random.default_rng(12)
    pool = [str(i) for i in range(700)]
    copies = ["".join(list(s)) for s in pool]  # equal strings, other objects
    assert all(a is not b for a, b in zip(pool[10:], copies[10:]))
    idx = rng.integers(0, 700, 20_000)
    o = np.array([pool[i] if j % 3 else copies[i] for j, i in enumerate(idx)], dtype=object)
    codes, first = label_kernel.encode_str_objects(o)
    np.testing.assert_array_equal(codes, label_kernel.encode_fixed(o.astype(str))[0])
    np.testing.assert_array_equal(o[first][codes], o)
    o[15_000] = 7  # not a str after many cached objects: the general path is asked for
    assert label_kernel.encode_str_objects(o) == 15_000


# ------------------------------------------------------------------ buffers read in place

#: labels for the in-place readers: empty, non-ASCII (2- and 4-byte code points), a NUL
#: inside, exactly 12 bytes (the longest a string view holds inline), 13 and 16 bytes,
#: long ones sharing their first 4 bytes (a view's prefix)
WORDS = ["", "a", "é", "ab\x00c", "twelve_bytes", "thirteen_byte", "exactly-16-bytes",
         "positive_review_long", "positive_review_lonG", "\U0001F600 smile", "neutral",
         "Ā" * 9]


def _words(n, seed, k=len(WORDS)):
    rng = np.random.default_rng(seed)
    return np.array(WORDS[:k], dtype=object)[rng.integers(0, k, n)]


def _check_same(got_t, got_p, t, p):
    """Every counting metric of (got_t, got_p) equals the object-array path and
    scikit-learn on (t, p)."""
    for name, kw in [("confusion_matrix", {}), ("f1_score", {"average": "macro"}),
                     ("f1_score", {"average": None})]:
        got, w_got = _quiet(getattr(fm, name), got_t, got_p, **kw)
        ref, _ = _quiet(getattr(fm, name), t, p, **kw)
        want, w_want = _quiet(getattr(skm, name), t, p, **kw)
        np.testing.assert_array_equal(got, ref, err_msg=name)
        np.testing.assert_array_equal(got, want, err_msg=name)
        assert w_got == w_want


def _view_forms(t):
    """String-view and string arrays of ``t`` (an object array of str): whole, chunked
    (chunks of unequal lengths), sliced (offset != 0), polars in one chunk and in three."""
    lst = t.tolist()
    cut = [0, 1, len(lst) // 3, len(lst)]
    return {
        "view": pa.array(lst, type=pa.string_view()),
        "view-chunked": pa.chunked_array(
            [pa.array(lst[a:b], type=pa.string_view()) for a, b in zip(cut, cut[1:])],
            pa.string_view()),
        "view-sliced": pa.array(["pad", "pad2-long-string-x"] + lst,
                                type=pa.string_view()).slice(2),
        "string-chunked": pa.chunked_array([pa.array(lst[a:b], pa.string())
                                            for a, b in zip(cut, cut[1:])],
                                           pa.string()),
        "large-string-sliced": pa.array(["pad"] + lst + ["tail"],
                                        type=pa.large_string()).slice(1, len(lst)),
        "polars": pl.Series(lst),
        "polars-chunked": pl.concat([pl.Series(lst[a:b], dtype=pl.String)
                                     for a, b in zip(cut, cut[1:])], rechunk=False),
    }


@pytest.mark.parametrize("n", [3, 500, 5000])
def test_views_chunks_and_slices_equal_object_path_and_sklearn(n):
    t, p = _words(n, seed=n), _words(n, seed=n + 1)
    ft, fp = _view_forms(t), _view_forms(p)
    assert ft["polars-chunked"].n_chunks() >= 2
    for form in ft:
        _check_same(ft[form], fp[form], t, p)
    rep = fm.classification_report(ft["view-chunked"], fp["polars-chunked"], output_dict=True,
                                   zero_division=0)
    assert rep == skm.classification_report(t, p, output_dict=True, zero_division=0)


def test_view_kernel_ignores_padding_and_checks_buffers():
    lst = ["ab", "ab", "long-string-here", "long-string-here", "abc", ""]
    arr = pa.array(lst, type=pa.string_view())
    views = np.frombuffer(arr.buffers()[1], dtype=np.uint8)[:16 * len(lst)].copy()
    data = [arr.buffers()[2]]
    codes, first = label_kernel.encode_views(views, data)
    assert codes.tolist() == [0, 0, 1, 1, 2, 3] and first.tolist() == [0, 2, 4, 5]
    views[16 + 10] = 0x7F  # junk after "ab" in the second view: the same string
    assert label_kernel.encode_views(views, data)[0].tolist() == codes.tolist()
    bad = views.copy()
    bad[16 * 2 + 12:16 * 2 + 16] = np.frombuffer(np.int32(10**6).tobytes(), dtype=np.uint8)
    with pytest.raises(ValueError, match="view 2 points outside"):
        label_kernel.encode_views(bad, data)
    with pytest.raises(ValueError, match="view 2 points outside"):
        label_kernel.encode_views(views, [])
    assert label_kernel.encode_views(np.zeros(0, dtype=np.uint8), [])[0].shape == (0,)


@pytest.mark.parametrize("make", [
    lambda x: pa.chunked_array([pa.array(x[:2]), pa.array(x[2:])]),
    lambda x: pa.chunked_array([pa.array(x[:2], pa.string_view()),
                                pa.array(x[2:], pa.string_view())]),
    lambda x: pl.concat([pl.Series(x[:2], dtype=pl.String), pl.Series(x[2:], dtype=pl.String)],
                        rechunk=False),
    lambda x: pa.array(["pad"] + x, pa.string_view()).slice(1),
])
def test_missing_values_in_later_chunks_and_slices(make):
    x = ["a", "b", "a", None, "b"]  # the null is item 3: in the second chunk
    with pytest.raises(ValueError, match=r"Input y_true contains NaN .*index 3"):
        fm.f1_score(make(x), np.array(["a", "b", "b", "a", "a"]), average="macro")


def test_many_distinct_labels_every_reader():
    """Thousands of labels: the direct-mapped cache grows, then fills, and the table takes
    the rest; every reader must still give numpy's codes."""
    rng = np.random.default_rng(5)
    vocab = np.array([f"label-{i}" + "x" * (i % 17) for i in range(6000)], dtype=object)
    x = vocab[rng.integers(0, vocab.shape[0], 40_000)]
    u, inv = np.unique(x.astype(str), return_inverse=True)
    lst = x.tolist()
    readers = {
        "fixed": x.astype(str),
        "objects": x,
        "offsets": pa.array(lst),
        "views": pa.array(lst, type=pa.string_view()),
        "polars": pl.Series(lst),
        "polars-categorical": pl.Series(lst, dtype=pl.Categorical),
    }
    for name, y in readers.items():
        (codes,), values = _inputs.encode_labels(_inputs.label_column(y, "y"))
        np.testing.assert_array_equal(values, u, err_msg=name)
        np.testing.assert_array_equal(codes, inv, err_msg=name)


def test_str_objects_by_content_whatever_the_object():
    # equal text in distinct objects (hashes not yet computed), str subclasses, and the
    # three storage kinds of CPython's str (the same length, different kinds)
    class Label(str):
        pass

    parts = ["ab", "é", "\u0100", "\U0001F600"]
    fresh = ["".join([p, "x"]) for p in parts for _ in range(3)]
    o = np.array(fresh + [Label("abx"), "ab" + "x", "\u0101x"], dtype=object)
    codes, first = label_kernel.encode_str_objects(o)
    ref = {}
    want = [ref.setdefault(str(v), len(ref)) for v in o.tolist()]
    assert codes.tolist() == want
    assert first.tolist() == [want.index(c) for c in range(len(ref))]


@pytest.mark.parametrize("dtype", ["<U8", "S5", "<U40", np.int64])
def test_fixed_lanes_give_one_lanes_codes(dtype):
    rng = np.random.default_rng(9)
    n = 200_003
    base = rng.integers(0, 50, n)
    base[n // 2:] += rng.integers(0, 2, n - n // 2) * 50  # labels first seen in lane 2
    for order in ("shuffled", "sorted", "strided"):
        v = np.sort(base) if order == "sorted" else base
        a = (v * 7919).astype(dtype) if dtype is not np.int64 else v * 7919
        if order == "strided":
            a = np.repeat(a, 2)[::2]
        c1, f1 = label_kernel.encode_fixed(a, 1)
        np.testing.assert_array_equal(a[f1][c1], a)
        for nt in (2, 3, 4):
            c, f = label_kernel.encode_fixed(a, nt)
            np.testing.assert_array_equal(c, c1)
            np.testing.assert_array_equal(f, f1)


def _lane_texts(n, seed):
    """n labels from a pool of short, 13-16 byte, long and non-ASCII texts; half of the
    pool first occurs in the later half of the items (in a later lane)."""
    rng = np.random.default_rng(seed)
    pool = ["neg", "pos", "", "é", "日本", "x" * 12, "y" * 13, "z" * 16, "w" * 17,
            "long label number %d" % 1, "a\x00b", "\U0001F600", "ÿ" * 9, "ab"]
    late = ["late %d" % j for j in range(5)] + ["later, longer than sixteen bytes"]
    idx = rng.integers(0, len(pool), n)
    out = [pool[i] for i in idx]
    for i in np.flatnonzero(rng.random(n) < 0.3):
        if i > n // 2:
            out[i] = late[int(rng.integers(0, len(late)))]
    return out


def _first_seen(items):
    ref = {}
    codes = [ref.setdefault(v, len(ref)) for v in items]
    return codes, [codes.index(c) for c in range(len(ref))]


@pytest.mark.parametrize("layout", ["objects", "fresh objects", "offsets", "large offsets",
                                    "views"])
def test_text_lanes_give_one_lanes_codes(layout):
    """Every text encoder gives the codes of one lane for any number of lanes, with labels
    first seen in a later lane, texts of every length class and kind, and slices."""
    n = 150_001
    items = _lane_texts(n, seed=5)
    want_codes, want_first = _first_seen(items)

    def encode(nt, lo=0, hi=n):
        part = items[lo:hi]
        if layout.endswith("objects"):
            a = np.empty(len(part), dtype=object)
            a[:] = ["".join([v, ""]) + "" if layout == "objects" else (v + "!")[:-1]
                    for v in part]
            return label_kernel.encode_str_objects(a, nt)
        if layout == "views":
            arr = pa.array(part, type=pa.string_view())
            bufs = arr.buffers()
            views = np.frombuffer(bufs[1], dtype=np.uint8)[:16 * len(part)]
            return label_kernel.encode_views(views, [b for b in bufs[2:]], nt)
        arr = pa.array(part, type=pa.large_string() if layout == "large offsets"
                       else pa.string())
        _, off, data = arr.buffers()
        off = np.frombuffer(off, dtype=np.int64 if layout == "large offsets" else np.int32)
        return label_kernel.encode_offsets(off[:len(part) + 1],
                                           np.frombuffer(data, dtype=np.uint8), nt)

    for nt in (1, 2, 3, 4):
        codes, first = encode(nt)
        assert codes.tolist() == want_codes
        assert first.tolist() == want_first
    lo, hi = 77_777, 150_000  # a slice: offsets that do not start at 0
    codes, first = encode(3, lo, hi)
    assert (codes.tolist(), first.tolist()) == _first_seen(items[lo:hi])


@given(st.lists(st.text(max_size=20), min_size=1, max_size=60), st.integers(0, 2**32 - 1))
def test_text_encoders_match_first_seen_codes(values, seed):
    """Random texts (any code point, NUL included, every length around the 8/12/15/16-byte
    cases), fresh and shared objects, subclasses: each encoder gives the first-seen codes
    of a dict, as one lane and as two."""
    rng = np.random.default_rng(seed)
    items = [values[i] for i in rng.integers(0, len(values), 3 * len(values))]
    want = _first_seen(items)

    class Text(str):
        pass

    o = np.empty(len(items), dtype=object)
    o[:] = [Text(v) if j % 5 == 1 else (v + "!")[:-1] if j % 3 else v
            for j, v in enumerate(items)]
    for nt in (1, 2):
        codes, first = label_kernel.encode_str_objects(o, nt)
        assert (codes.tolist(), first.tolist()) == want
    arr = pa.array(items, pa.string())  # hypothesis' text has no lone surrogates
    _, off, data = arr.buffers()
    codes, first = label_kernel.encode_offsets(
        np.frombuffer(off, np.int32)[:len(items) + 1],
        np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8))
    assert (codes.tolist(), first.tolist()) == want
    views = pa.array(items, pa.string_view())
    vb = views.buffers()
    codes, first = label_kernel.encode_views(
        np.frombuffer(vb[1], np.uint8)[:16 * len(items)],
        [b"" if b is None else b for b in vb[2:]])
    assert (codes.tolist(), first.tolist()) == want


def test_text_lanes_report_the_first_bad_item():
    """A bad item in a later lane is reported as one lane reports it: the first non-str
    object's index, the offsets' error, the first bad view."""
    n = 100_000
    o = np.array(["a", "b"] * (n // 2), dtype=object)
    o[n - 5] = 3
    o[n - 2] = None
    for nt in (1, 2, 4):
        assert label_kernel.encode_str_objects(o, nt) == n - 5
    off = np.arange(n + 1, dtype=np.int32)
    off[n - 10] = n - 12  # decreases in the last lane
    for nt in (1, 2, 4):
        with pytest.raises(ValueError, match="offsets decrease"):
            label_kernel.encode_offsets(off, np.zeros(n, dtype=np.uint8), nt)
    off = np.arange(n + 1, dtype=np.int64)
    off[n // 2 + 3] = -7  # below 0 at a lane's start
    for nt in (1, 2, 4):
        with pytest.raises(ValueError, match="offsets decrease"):
            label_kernel.encode_offsets(off, np.zeros(n, dtype=np.uint8), nt)
    arr = pa.array(["short", "a label longer than twelve"] * (n // 2), type=pa.string_view())
    bufs = arr.buffers()
    views = np.frombuffer(bufs[1], dtype=np.uint8)[:16 * n].copy()
    for i in (n // 2 + 1, n - 1):  # two long views past their buffer: the first counts
        views[16 * i + 12:16 * i + 16] = np.frombuffer(np.int32(10**9).tobytes(), np.uint8)
    for nt in (1, 2, 4):
        with pytest.raises(ValueError, match=f"view {n // 2 + 1} points outside"):
            label_kernel.encode_views(views, list(bufs[2:]), nt)


def test_text_encoders_refuse_what_they_cannot_read():
    """Items a lane cannot key are reported, not coded: a NULL slot (an object array from
    np.empty) first in a lane, offsets far below the previous one (no overflow into a huge
    length), and, before 3.12, a str of the legacy API that is not "ready" yet."""
    n = 70_000
    o = np.empty(n, dtype=object)
    o[: n // 2] = "x"
    for nt in (1, 2):
        assert label_kernel.encode_str_objects(o, nt) == n // 2
    assert label_kernel.encode_str_objects(np.empty(3, dtype=object)) == 0
    data = np.frombuffer(b"abcdefghij", np.uint8)
    for bad in (-2**63, -2**63 + 3, -1):
        with pytest.raises(ValueError, match="offsets decrease"):
            label_kernel.encode_offsets(np.array([0, 5, bad, 10], np.int64), data)
    if sys.version_info >= (3, 12):
        return
    api = ctypes.pythonapi
    api.PyUnicode_FromUnicode.restype = ctypes.py_object
    api.PyUnicode_FromUnicode.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
    api.PyUnicode_AsUnicode.restype = ctypes.c_void_p
    api.PyUnicode_AsUnicode.argtypes = [ctypes.py_object]

    def legacy(text):
        with warnings.catch_warnings():  # the API is deprecated: that is the point
            warnings.simplefilter("ignore", DeprecationWarning)
            s = api.PyUnicode_FromUnicode(None, len(text))
            buf = (ctypes.c_wchar * len(text)).from_address(api.PyUnicode_AsUnicode(s))
        for i, ch in enumerate(text):
            buf[i] = ch
        return s

    a = np.empty(3, dtype=object)
    a[:] = [legacy("abc"), legacy("xyz"), legacy("abc")]
    assert label_kernel.encode_str_objects(a) == 0  # the caller's general path
    assert fm.confusion_matrix(a, a[::-1]).tolist() == skm.confusion_matrix(
        ["abc", "xyz", "abc"], ["abc", "xyz", "abc"][::-1]).tolist()


def test_f1_score_same_for_any_thread_count_on_strings():
    t, p = _labels(300_000, 7, seed=21)
    one = fm.f1_score(t, p, average="macro", n_threads=1)
    assert fm.f1_score(t, p, average="macro", n_threads=2) == one
    assert one == pytest.approx(skm.f1_score(t, p, average="macro"), rel=1e-12)


def test_encode_range():
    a = np.array([7, 5, 7, 9, 5], dtype=np.uint32)
    codes, first = label_kernel.encode_range(a, 5, 9)
    assert codes.tolist() == [0, 1, 0, 2, 1] and first.tolist() == [0, 1, 3]
    assert label_kernel.encode_range(a, 5, 8, False) is None
    assert label_kernel.encode_range(a, 6, 9, False) is None  # below lo
    with pytest.raises(ValueError, match="outside"):
        label_kernel.encode_range(a, 5, 8)
    assert label_kernel.encode_range(np.zeros(0, dtype=np.int8), 0, 0)[0].shape == (0,)


# ------------------------------------------------------------- categoricals of one table

def test_codes_of_one_table_counted_as_they_are():
    """Two columns whose codes index one table (the same categories, one polars cache,
    equal first-seen tables) are counted by their codes: the same numbers, label order and
    warnings as scikit-learn, whatever the table holds beyond the labels."""
    t, p = _labels(3000, 6, seed=17)
    cats = sorted(set(NAMES.tolist()) | {"unused-1", "aaa-unused"})
    lst_t, lst_p = t.tolist(), p.tolist()
    pairs = {
        "pandas same categories": (pd.Categorical(t, categories=cats),
                                   pd.Categorical(p, categories=cats)),
        "pandas reversed categories": (pd.Categorical(t, categories=cats[::-1]),
                                       pd.Categorical(p, categories=cats[::-1])),
        "polars one cache": (pl.Series(lst_t, dtype=pl.Categorical),
                             pl.Series(lst_p + [], dtype=pl.Categorical)),
        # equal first-seen tables whose chunks repeat values (a table entry per chunk)
        "arrow chunked, equal tables": (pa.chunked_array([pa.array(lst_t[:1500]),
                                                          pa.array(lst_t[1500:])]),
                                        pa.chunked_array([pa.array(lst_t[:1500]),
                                                          pa.array(lst_t[1500:])])),
    }
    for name, (a, b) in pairs.items():
        ea, eb = _inputs.label_column(a, "y_true"), _inputs.label_column(b, "y_pred")
        assert _inputs.shared_table(ea, eb) is not None, name
        want_t = t
        want_p = t if "equal tables" in name else p
        for fn, kw in [("confusion_matrix", {}), ("f1_score", {"average": None}),
                       ("classification_report", {"output_dict": True})]:
            got, w_got = _quiet(getattr(fm, fn), a, b, **kw)
            want, w_want = _quiet(getattr(skm, fn), want_t, want_p, **kw)
            if fn == "classification_report":
                assert list(got) == list(want) and got == want, name
            else:
                np.testing.assert_array_equal(got, want, err_msg=name)
            assert w_got == w_want, name


def test_codes_of_two_tables_counted_as_they_are():
    """Two columns whose codes index each their own table (pandas categoricals of different
    categories, dictionary arrays of different dictionaries, chunked at different places,
    with chunks that are empty or repeat a table) are counted by their codes, chunk by
    chunk, and matched by value: scikit-learn's numbers, label order and warnings."""
    t, p = _labels(5000, 7, seed=23)
    lst_t, lst_p = t.tolist(), p.tolist()

    def chunked(lst, cuts):
        bounds = [0, *cuts, len(lst)]
        return pa.chunked_array([pc.dictionary_encode(pa.array(lst[a:b], pa.string()))
                                 for a, b in zip(bounds, bounds[1:])],
                                pa.dictionary(pa.int32(), pa.string()))

    pairs = {
        "pandas different categories": (
            pd.Categorical(t, categories=sorted(set(lst_t)) + ["unused"]),
            pd.Categorical(p, categories=sorted(set(lst_p), reverse=True))),
        "pandas int8 and int16 codes": (
            pd.Categorical(t), pd.Categorical(p, categories=[f"c{i}" for i in range(300)]
                                              + sorted(set(lst_p)))),
        "arrow chunks at different places": (chunked(lst_t, [700, 700, 2500, 4999]),
                                             chunked(lst_p, [1, 2000, 3000])),
        "arrow chunked against one array": (chunked(lst_t, [1234]),
                                            pc.dictionary_encode(pa.array(lst_p))),
    }
    for name, (a, b) in pairs.items():
        ea, eb = _inputs.label_column(a, "y_true"), _inputs.label_column(b, "y_pred")
        assert _inputs.shared_table(ea, eb) is None, name
        assert _inputs.own_tables(ea, eb) is not None, name
        if ea.parts is not None or eb.parts is not None:
            pieces = _inputs.code_chunks(ea, eb)
            assert all(x.shape == y.shape for x, y in pieces), name
            np.testing.assert_array_equal(np.concatenate([x for x, _ in pieces]), ea.codes)
            np.testing.assert_array_equal(np.concatenate([y for _, y in pieces]), eb.codes)
        for fn, kw in [("confusion_matrix", {}), ("f1_score", {"average": None}),
                       ("classification_report", {"output_dict": True})]:
            got, w_got = _quiet(getattr(fm, fn), a, b, **kw)
            want, w_want = _quiet(getattr(skm, fn), t, p, **kw)
            if fn == "classification_report":
                assert list(got) == list(want) and got == want, name
            else:
                np.testing.assert_array_equal(got, want, err_msg=name)
            assert w_got == w_want, name


def test_codes_of_two_tables_missing_values():
    """A missing value (code -1) on either side of two own-table categoricals raises NaN
    labels' error at its index, as for one table."""
    a = pd.Categorical(["x", "y", "x", "y"])
    b = pd.Categorical(["y", "x", None, "x"], categories=["y", "x"])
    with pytest.raises(ValueError, match="y_pred has a missing value at index 2"):
        fm.confusion_matrix(a, b)
    with pytest.raises(ValueError, match="y_true has a missing value at index 2"):
        fm.f1_score(b, a, average="macro")


def test_codes_of_one_cache_reaching_further():
    # the second Series adds values to the polars cache: its table reaches further
    a = pl.Series(["x-first", "y-first", "x-first"], dtype=pl.Categorical)
    b = pl.Series(["y-first", "z-added-later", "x-first"], dtype=pl.Categorical)
    ea, eb = _inputs.label_column(a, "y_true"), _inputs.label_column(b, "y_pred")
    assert _inputs.shared_table(ea, eb) is not None
    t, p = np.array(a.to_list()), np.array(b.to_list())
    np.testing.assert_array_equal(fm.confusion_matrix(a, b), skm.confusion_matrix(t, p))
    np.testing.assert_array_equal(fm.confusion_matrix(b, a), skm.confusion_matrix(p, t))


@pytest.mark.parametrize("which", ["y_true", "y_pred"])
def test_missing_value_in_codes_of_one_table(which):
    good = ["a", "b", "b", "a"]
    bad = ["a", "b", None, "a"]
    for mk in (lambda x: pd.Series(x, dtype="category"),
               lambda x: pl.Series(x, dtype=pl.Categorical)):
        t, p = (bad, good) if which == "y_true" else (good, bad)
        with pytest.raises(ValueError, match=rf"Input {which} contains NaN .*index 2"):
            fm.f1_score(mk(t), mk(p), average="macro")


def test_polars_categorical_without_cat_to(monkeypatch):
    """Where polars lacks ``Series.cat.to`` (an unstable API), Categorical codes are encoded
    instead: the same results."""
    t, p = _labels(500, 6, seed=4)
    a, b = pl.Series(t.tolist(), dtype=pl.Categorical), pl.Series(p.tolist(),
                                                                  dtype=pl.Categorical)
    want = fm.confusion_matrix(a, b)

    def missing(self, *args, **kw):
        raise AttributeError("to")

    monkeypatch.setattr(type(a.cat), "to", missing)
    enc = _inputs.label_column(a, "y_true")
    assert enc.complete  # encoded: first-seen codes
    np.testing.assert_array_equal(fm.confusion_matrix(a, b), want)
    np.testing.assert_array_equal(want, skm.confusion_matrix(t, p))
