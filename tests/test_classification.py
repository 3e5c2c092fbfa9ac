"""Classification metrics: parity with scikit-learn (values, dtypes, warnings, errors)."""

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

import fastmetrics as fm

from _parity import assert_same, check_parity

# ----------------------------------------------------------------------------- strategies

LABEL_SETS = {
    "small": [0, 1, 2, 3, 4],
    "binary": [0, 1],
    "negative": [-3, -1, 0, 2],
    "huge": [10**12, 10**12 + 7, -(10**12)],
    "sparse": [0, 5000, 123456],
    "strings": ["ant", "bird", "cat", "dog"],
    "bool": [False, True],
    "floats": [0.0, 1.0, 2.0, 5.0],
    "pm1": [-1, 1],
}
DTYPES_FOR = {
    "small": [np.int64, np.int32, np.int8, np.uint8, np.uint16, np.int16, np.uint32, np.uint64],
    "binary": [np.int64, np.uint8, np.int8],
    "negative": [np.int64, np.int8, np.int32],
    "huge": [np.int64],
    "sparse": [np.int64, np.uint32],
    "strings": [object, str],
    "bool": [bool],
    "floats": [np.float64, np.float32],
    "pm1": [np.int64, np.int16],
}


@st.composite
def label_pairs(draw, min_size=1, max_size=60, weights=True):
    kind = draw(st.sampled_from(sorted(LABEL_SETS)))
    pool = LABEL_SETS[kind]
    k = draw(st.integers(1, len(pool)))
    used = draw(st.permutations(pool))[:k]
    n = draw(st.integers(min_size, max_size))
    yt = draw(st.lists(st.sampled_from(used), min_size=n, max_size=n))
    yp = draw(st.lists(st.sampled_from(used), min_size=n, max_size=n))
    dtype = draw(st.sampled_from(DTYPES_FOR[kind]))
    yt = np.array(yt, dtype=dtype)
    yp = np.array(yp, dtype=dtype)
    w = None
    if weights and draw(st.booleans()):
        if draw(st.booleans()):
            w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
        else:
            w = np.array(
                draw(st.lists(st.floats(0, 5, allow_nan=False, width=64), min_size=n, max_size=n))
            )
    extra = None
    if draw(st.booleans()):
        # an explicit label list: a subset of the pool (present or not), shuffled
        extra = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
        extra = np.array(extra, dtype=dtype)
    return yt, yp, w, extra


AVERAGES = [None, "binary", "micro", "macro", "weighted"]
ZERO_DIV = ["warn", 0, 1, 0.0, 1.0, np.nan]


# ----------------------------------------------------------------------------- properties


@given(label_pairs(), st.sampled_from([None, "true", "pred", "all"]))
def test_confusion_matrix_parity(data, normalize):
    yt, yp, w, labels = data
    check_parity(fm.confusion_matrix, skm.confusion_matrix, yt, yp, labels=labels,
                 sample_weight=w, normalize=normalize)


@given(label_pairs(), st.booleans())
def test_accuracy_parity(data, normalize):
    yt, yp, w, _ = data
    check_parity(fm.accuracy_score, skm.accuracy_score, yt, yp, normalize=normalize,
                 sample_weight=w)


@given(label_pairs(), st.sampled_from(AVERAGES), st.sampled_from(ZERO_DIV),
       st.sampled_from([0.0, 0.5, 1.0, 2.0, np.inf]), st.booleans())
def test_prfs_parity(data, average, zero_division, beta, with_labels):
    yt, yp, w, labels = data
    pos_label = yt[0] if average == "binary" else 1
    if isinstance(pos_label, np.generic):
        pos_label = pos_label.item()
    check_parity(
        fm.precision_recall_fscore_support, skm.precision_recall_fscore_support, yt, yp,
        beta=beta, labels=labels if with_labels else None, pos_label=pos_label,
        average=average, sample_weight=w, zero_division=zero_division,
    )


@pytest.mark.parametrize("name", ["precision_score", "recall_score", "f1_score"])
@given(data=label_pairs(), average=st.sampled_from(AVERAGES), zero_division=st.sampled_from(ZERO_DIV))
def test_prf_scores_parity(name, data, average, zero_division):
    yt, yp, w, labels = data
    check_parity(getattr(fm, name), getattr(skm, name), yt, yp, labels=labels,
                 average=average, sample_weight=w, zero_division=zero_division)


@given(label_pairs(), st.sampled_from(AVERAGES), st.sampled_from([0.5, 1.0, 3.0]))
def test_fbeta_parity(data, average, beta):
    yt, yp, w, labels = data
    check_parity(fm.fbeta_score, skm.fbeta_score, yt, yp, beta=beta, labels=labels,
                 average=average, sample_weight=w)


@given(label_pairs())
def test_mcc_parity(data):
    yt, yp, w, _ = data
    check_parity(fm.matthews_corrcoef, skm.matthews_corrcoef, yt, yp, sample_weight=w)


@given(label_pairs(), st.booleans())
def test_balanced_accuracy_parity(data, adjusted):
    yt, yp, w, _ = data
    check_parity(fm.balanced_accuracy_score, skm.balanced_accuracy_score, yt, yp,
                 sample_weight=w, adjusted=adjusted)


@given(label_pairs(), st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_parity(data, weights):
    yt, yp, w, labels = data
    check_parity(fm.cohen_kappa_score, skm.cohen_kappa_score, yt, yp, labels=labels,
                 weights=weights, sample_weight=w)


@given(label_pairs())
def test_multilabel_confusion_matrix_parity(data):
    yt, yp, w, labels = data
    check_parity(fm.multilabel_confusion_matrix, skm.multilabel_confusion_matrix, yt, yp,
                 sample_weight=w, labels=labels)


@given(label_pairs(), st.booleans(), st.sampled_from([2, 4]), st.sampled_from(["warn", 0, 1]))
def test_classification_report_parity(data, output_dict, digits, zero_division):
    yt, yp, w, labels = data
    check_parity(fm.classification_report, skm.classification_report, yt, yp,
                 labels=labels, sample_weight=w, output_dict=output_dict, digits=digits,
                 zero_division=zero_division)


# ----------------------------------------------------------------------------- edge cases


def test_report_does_not_recount(monkeypatch):
    from fastmetrics.states import ConfusionState

    calls = []
    real = ConfusionState.from_arrays

    def spy(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(ConfusionState, "from_arrays", spy)
    fm.classification_report([0, 1, 2, 2], [0, 2, 2, 1], output_dict=True)
    assert len(calls) == 1


@pytest.mark.parametrize(
    "fn",
    [fm.confusion_matrix, fm.accuracy_score, fm.f1_score, fm.matthews_corrcoef,
     fm.balanced_accuracy_score, fm.multilabel_confusion_matrix],
)
def test_empty_input_raises_like_sklearn(fn):
    with pytest.raises(ValueError, match="empty"):
        fn([], [])


def test_single_sample_and_single_class():
    check_parity(fm.confusion_matrix, skm.confusion_matrix, [3], [3])
    check_parity(fm.f1_score, skm.f1_score, [1], [1])
    check_parity(fm.f1_score, skm.f1_score, [0, 0], [0, 0])
    check_parity(fm.matthews_corrcoef, skm.matthews_corrcoef, [2, 2], [2, 2])


def test_labels_empty_and_absent():
    with pytest.raises(ValueError, match="at least one label"):
        fm.confusion_matrix([0, 1], [1, 0], labels=[])
    check_parity(fm.confusion_matrix, skm.confusion_matrix, [0, 1], [1, 0], labels=[5, 6])
    check_parity(fm.f1_score, skm.f1_score, [0, 1, 2], [1, 0, 2], labels=[5, 6],
                 average="macro")
    check_parity(fm.confusion_matrix, skm.confusion_matrix, [0, 1, 2], [1, 0, 2],
                 labels=[2, 7, 0])


def test_normalize_with_empty_rows():
    yt, yp = [0, 0, 1], [0, 2, 2]
    for norm in ["true", "pred", "all"]:
        check_parity(fm.confusion_matrix, skm.confusion_matrix, yt, yp, normalize=norm)


def test_mixed_label_types_raise():
    with pytest.raises(ValueError, match="Mix of label input types"):
        fm.confusion_matrix(["a", "b"], [0, 1])
    with pytest.raises(ValueError, match="Mix of label input types"):
        fm.f1_score(np.array(["a", 1], dtype=object), np.array(["a", 1], dtype=object))


def test_column_input_and_2d_multioutput():
    yt = np.array([[0], [1], [2]])
    yp = np.array([[0], [2], [2]])
    assert_same(fm.confusion_matrix(yt, yp), skm.confusion_matrix(yt, yp))
    for fn in (fm.confusion_matrix, fm.matthews_corrcoef, fm.balanced_accuracy_score,
               fm.cohen_kappa_score):  # multilabel-indicator is not supported by these
        check_parity(fn, getattr(skm, fn.__name__), np.eye(3, dtype=int), np.eye(3, dtype=int))
    multioutput = np.array([[0, 2], [1, 1]])
    with pytest.raises(ValueError, match="multiclass-multioutput is not supported"):
        fm.f1_score(multioutput, multioutput, average="macro")
    with pytest.raises(ValueError, match="mix of"):
        fm.f1_score(np.eye(2, dtype=int), [0, 1], average="macro")
    with pytest.raises(ValueError, match="3-D"):
        fm.accuracy_score(np.zeros((2, 2, 2)), np.zeros((2, 2, 2)))


@pytest.mark.parametrize("bad", [[0.5, 1.0], [np.nan, 1.0], [np.inf, 0.0]])
def test_float_label_errors(bad):
    with pytest.raises(ValueError, match="y_true"):
        fm.confusion_matrix(np.array(bad), np.array([0.0, 1.0]))


def test_weight_errors():
    with pytest.raises(ValueError, match="sample_weight"):
        fm.confusion_matrix([0, 1], [0, 1], sample_weight=[1.0, np.nan])
    with pytest.raises(ValueError, match="sample_weight"):
        fm.f1_score([0, 1], [0, 1], sample_weight=[1.0, np.inf])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.f1_score([0, 1], [0, 1], sample_weight=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.accuracy_score([0, 1, 1], [0, 1])


def test_bad_options():
    with pytest.raises(ValueError, match="average"):
        fm.f1_score([0, 1], [0, 1], average="bogus")
    with pytest.raises(ValueError, match="zero_division"):
        fm.f1_score([0, 1], [0, 1], zero_division=5)
    with pytest.raises(ValueError, match="normalize"):
        fm.confusion_matrix([0, 1], [0, 1], normalize="rows")
    with pytest.raises(ValueError, match="beta"):
        fm.fbeta_score([0, 1], [0, 1], beta=-1)
    with pytest.raises(ValueError, match="multiclass but average='binary'"):
        fm.f1_score([0, 1, 2], [0, 1, 2])
    with pytest.raises(ValueError, match="pos_label=2 is not a valid label"):
        fm.f1_score([0, 1], [0, 1], pos_label=2)
    with pytest.raises(ValueError, match="Samplewise"):
        fm.f1_score([0, 1], [0, 1], average="samples")
    with pytest.raises(TypeError, match="dtype"):
        fm.accuracy_score(np.array([1 + 1j, 2j]), np.array([1 + 1j, 2j]))


# ----------------------------------------------------------------------------- layouts


ALL_INT = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _packed_field(a):
    """``a`` as the first field of a packed record array (stride = itemsize + 1), twice."""
    rec = np.zeros(a.shape[0], dtype=[("v", a.dtype), ("pad", np.uint8)])
    rec["v"] = a
    rec["pad"] = 0xFF  # garbage a kernel stepping in whole items would read
    assert rec["v"].strides[0] % max(1, a.dtype.itemsize) or a.dtype.itemsize == 1
    return rec["v"], rec["v"]


@pytest.mark.parametrize("dtype", ALL_INT + [bool])
def test_dtype_layout_matrix(dtype):
    rng = np.random.default_rng(1)
    k = 2 if dtype is bool else 7
    base_t = rng.integers(0, k, 3001).astype(dtype)
    base_p = rng.integers(0, k, 3001).astype(dtype)
    ref = skm.confusion_matrix(base_t, base_p)
    layouts = {
        "contiguous": (base_t, base_p),
        "strided": (np.repeat(base_t, 3)[::3], np.repeat(base_p, 3)[::3]),
        "reversed": (base_t[::-1][::-1], base_p[::-1][::-1]),
        "byteswapped": (base_t.astype(base_t.dtype.newbyteorder()), base_p.astype(base_p.dtype.newbyteorder())),
        # fields of a packed record array: a stride that is not a whole number of items
        "record field": _packed_field(base_t),
        "reversed record field": tuple(f[::-1] for f in _packed_field(base_t[::-1])),
    }
    layouts["record field"] = (layouts["record field"][0], _packed_field(base_p)[0])
    layouts["reversed record field"] = (layouts["reversed record field"][0],
                                        _packed_field(base_p[::-1])[0][::-1])
    for name, (yt, yp) in layouts.items():
        yt_c, yp_c = yt.copy(), yp.copy()
        yt.setflags(write=False)
        yp.setflags(write=False)
        got = fm.confusion_matrix(yt, yp)
        assert_same(got, ref), name
        np.testing.assert_array_equal(yt, yt_c)  # never modified
        np.testing.assert_array_equal(yp, yp_c)


def test_int8_extremes_and_mixed_dtypes():
    yt = np.array([-128, 127, 0, -128], dtype=np.int8)
    yp = np.array([127, 127, -128, -128], dtype=np.int8)
    assert_same(fm.confusion_matrix(yt, yp), skm.confusion_matrix(yt, yp))
    a = np.array([0, 1, 2, 2], dtype=np.int32)
    b = np.array([0, 2, 2, 1], dtype=np.int64)
    assert_same(fm.confusion_matrix(a, b), skm.confusion_matrix(a, b))
    u = np.array([0, 2**64 - 1, 5], dtype=np.uint64)
    assert_same(fm.confusion_matrix(u, u[::-1]), skm.confusion_matrix(u, u[::-1]))
    # int64 without negatives beside uint64 values >= 2**63: compared as uint64, exactly
    s = np.array([0, 5, 5], dtype=np.int64)
    big = np.array([2**63, 5, 2**63 + 1], dtype=np.uint64)
    np.testing.assert_array_equal(fm.confusion_matrix(s, big),
                                  [[0, 0, 1, 0], [0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]])
    with pytest.raises(ValueError, match="no integer type"):
        fm.confusion_matrix(np.array([-1, 0]), np.array([2**63, 0], dtype=np.uint64))


def test_large_multiclass_parallel_paths():
    rng = np.random.default_rng(7)
    n = 600_000
    for k, lo in [(10, 0), (300, -50), (2000, 0)]:
        yt = rng.integers(lo, lo + k, n)
        yp = np.where(rng.random(n) < 0.6, yt, rng.integers(lo, lo + k, n))
        ref = skm.confusion_matrix(yt, yp)
        for nt in (1, 2, 3):
            assert_same(fm.confusion_matrix(yt, yp, n_threads=nt), ref)
    w = rng.random(n)
    ref = fm.confusion_matrix(yt, yp, sample_weight=w, n_threads=1)
    for nt in (2, 8):
        np.testing.assert_array_equal(fm.confusion_matrix(yt, yp, sample_weight=w, n_threads=nt), ref)
    np.testing.assert_allclose(ref, skm.confusion_matrix(yt, yp, sample_weight=w), rtol=1e-12)


def test_late_out_of_range_label_widens_table():
    # the range probe sees only the head of a large input: a later label outside it must
    # still be counted exactly (never written out of bounds, never dropped)
    n = 200_000
    yt = np.zeros(n, dtype=np.int64)
    yp = np.zeros(n, dtype=np.int64)
    yt[-1] = 900
    yp[-2] = -5
    assert_same(fm.confusion_matrix(yt, yp), skm.confusion_matrix(yt, yp))
    yt[-1] = 10**15
    assert_same(fm.confusion_matrix(yt, yp), skm.confusion_matrix(yt, yp))


# ----------------------------------------------------------------------------- multilabel


@st.composite
def indicator_pairs(draw):
    n = draw(st.integers(1, 30))
    L = draw(st.integers(2, 5))
    dtype = draw(st.sampled_from([np.int64, np.int8, np.uint8, bool, np.float64]))
    cells = st.lists(st.integers(0, 1), min_size=n * L, max_size=n * L)
    yt = np.array(draw(cells)).reshape(n, L).astype(dtype)
    yp = np.array(draw(cells)).reshape(n, L).astype(dtype)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0, 3), min_size=n, max_size=n)))
    labels = None
    if draw(st.booleans()):
        labels = draw(st.lists(st.integers(0, L - 1), min_size=1, max_size=L, unique=True))
    return yt, yp, w, labels


@given(indicator_pairs(), st.sampled_from([None, "micro", "macro", "weighted", "samples"]),
       st.sampled_from(ZERO_DIV), st.sampled_from([0.5, 1.0, 2.0]))
def test_multilabel_prfs_parity(data, average, zero_division, beta):
    yt, yp, w, labels = data
    check_parity(fm.precision_recall_fscore_support, skm.precision_recall_fscore_support,
                 yt, yp, beta=beta, labels=labels, average=average, sample_weight=w,
                 zero_division=zero_division)


@given(indicator_pairs(), st.booleans(), st.booleans())
def test_multilabel_accuracy_mcm_report_parity(data, normalize, samplewise):
    yt, yp, w, labels = data
    check_parity(fm.accuracy_score, skm.accuracy_score, yt, yp, normalize=normalize,
                 sample_weight=w)
    check_parity(fm.multilabel_confusion_matrix, skm.multilabel_confusion_matrix, yt, yp,
                 sample_weight=w, labels=labels, samplewise=samplewise)
    check_parity(fm.f1_score, skm.f1_score, yt, yp, average="samples", sample_weight=w)
    check_parity(fm.classification_report, skm.classification_report, yt, yp,
                 labels=labels, sample_weight=w, output_dict=normalize)
