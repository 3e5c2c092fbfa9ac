"""Classification: fastmetrics vs scikit-learn (vs np.bincount), same data, same run.

Run: python -m pytest benchmarks/bench_classification.py --benchmark-only
     (add --benchmark-json=out.json and run benchmarks/ratios.py out.json for the ratio table)
"""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

K = 10


def _labels(rng, n, dtype):
    yt = rng.integers(0, K, n).astype(dtype)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, K, n)).astype(dtype)
    return yt, yp


@pytest.fixture(scope="module")
def big(scaled):
    rng = np.random.default_rng(2024)
    n = scaled(10**7)
    yt, yp = _labels(rng, n, np.int64)
    # the reference every benchmark in this module checks against (computed once)
    ref = np.bincount(yt * K + yp, minlength=K * K).reshape(K, K)
    return yt, yp, ref


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(7)
    return _labels(rng, 1000, np.int64)


def _slow(benchmark, fn, *args, **kwargs):
    return benchmark.pedantic(fn, args=args, kwargs=kwargs, rounds=3, iterations=1)


# -- confusion matrix, 10^7 int64 labels, K = 10 -----------------------------------------


@pytest.mark.benchmark(group="confusion_matrix 1e7 int64 K=10")
def test_cm_fastmetrics(benchmark, big):
    yt, yp, ref = big
    np.testing.assert_array_equal(benchmark(fm.confusion_matrix, yt, yp), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e7 int64 K=10")
def test_cm_fastmetrics_1thread(benchmark, big):
    yt, yp, ref = big
    np.testing.assert_array_equal(benchmark(fm.confusion_matrix, yt, yp, n_threads=1), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e7 int64 K=10")
def test_cm_bincount(benchmark, big):
    yt, yp, ref = big

    def bincount_cm(a, b):
        return np.bincount(a * K + b, minlength=K * K).reshape(K, K)

    np.testing.assert_array_equal(benchmark(bincount_cm, yt, yp), ref)


@pytest.mark.benchmark(group="confusion_matrix 1e7 int64 K=10")
def test_cm_sklearn(benchmark, big):
    yt, yp, ref = big
    np.testing.assert_array_equal(_slow(benchmark, skm.confusion_matrix, yt, yp), ref)


# -- macro F1, 10^7 labels ------------------------------------------------------------------


@pytest.mark.benchmark(group="f1 macro 1e7 int64 K=10")
def test_f1_fastmetrics(benchmark, big):
    yt, yp, ref = big
    got = benchmark(fm.f1_score, yt, yp, average="macro")
    tp, t, p = np.diag(ref), ref.sum(1), ref.sum(0)
    assert got == pytest.approx(np.mean(2 * tp / (t + p)), rel=1e-12)


@pytest.mark.benchmark(group="f1 macro 1e7 int64 K=10")
def test_f1_sklearn(benchmark, big):
    yt, yp, ref = big
    got = _slow(benchmark, skm.f1_score, yt, yp, average="macro")
    assert got == pytest.approx(fm.f1_score(yt, yp, average="macro"), rel=1e-12)


# -- narrower dtypes read less memory -------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.int8])
@pytest.mark.benchmark(group="confusion_matrix 1e7 by dtype")
def test_cm_dtype(benchmark, big, dtype):
    yt, yp, ref = big
    a, b = yt.astype(dtype), yp.astype(dtype)
    np.testing.assert_array_equal(benchmark(fm.confusion_matrix, a, b), ref)


# -- 1,000 labels: the Python layer must stay thin ------------------------------------------


@pytest.mark.benchmark(group="f1 macro 1e3")
def test_f1_small_fastmetrics(benchmark, small):
    yt, yp = small
    got = benchmark(fm.f1_score, yt, yp, average="macro")
    assert got == pytest.approx(skm.f1_score(yt, yp, average="macro"), rel=1e-12)


@pytest.mark.benchmark(group="f1 macro 1e3")
def test_f1_small_sklearn(benchmark, small):
    yt, yp = small
    got = benchmark(skm.f1_score, yt, yp, average="macro")
    assert got == pytest.approx(fm.f1_score(yt, yp, average="macro"), rel=1e-12)


@pytest.mark.benchmark(group="classification_report 1e6")
def test_report_fastmetrics(benchmark, big):
    yt, yp, _ = big
    n = min(len(yt), 10**6)
    got = benchmark(fm.classification_report, yt[:n], yp[:n], output_dict=True)
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(yt[:n], yp[:n]), rel=1e-12)


@pytest.mark.benchmark(group="classification_report 1e6")
def test_report_sklearn(benchmark, big):
    yt, yp, _ = big
    n = min(len(yt), 10**6)
    got = _slow(benchmark, skm.classification_report, yt[:n], yp[:n], output_dict=True)
    assert got["macro avg"]["f1-score"] == pytest.approx(
        fm.f1_score(yt[:n], yp[:n], average="macro"), rel=1e-12
    )


# -- metrics of the one-vs-rest tables: 10^3 and 10^7 labels, K = 10 -------------------------


def _rates(cm):
    """Per-class (tn, fp, fn, tp) of a K x K table, as floats."""
    cm = cm.astype(np.float64)
    n, tp, t, p = cm.sum(), np.diag(cm), cm.sum(1), cm.sum(0)
    return n - t - p + tp, p - tp, t - tp, tp


def _binary(yt, yp):
    return (yt > 4).astype(np.int8), (yp > 3).astype(np.int8)


def _lr(cm):
    (tn, fp), (fn, tp) = cm.astype(np.float64)
    return (tp / (tp + fn)) / (fp / (fp + tn)), (fn / (tp + fn)) / (tn / (fp + tn))


def _sk_rate(cell, den):
    """What a scikit-learn user writes for the rates it lacks: its one-vs-rest tables."""
    def rate(yt, yp, average="macro"):
        mcm = skm.multilabel_confusion_matrix(yt, yp).reshape(-1, 4).astype(np.float64)
        return float(np.mean(mcm[:, cell] / (mcm[:, den[0]] + mcm[:, den[1]])))
    return rate


# name, fastmetrics function, scikit-learn (or its tables), keyword arguments, value of cm
TABLE_METRICS = {
    "jaccard_score": (fm.jaccard_score, skm.jaccard_score, {"average": "macro"},
                      lambda cm: np.mean(_rates(cm)[3] / (cm.sum(0) + cm.sum(1) - np.diag(cm)))),
    "hamming_loss": (fm.hamming_loss, skm.hamming_loss, {},
                     lambda cm: 1 - np.trace(cm) / cm.sum()),
    "zero_one_loss": (fm.zero_one_loss, skm.zero_one_loss, {},
                      lambda cm: 1 - np.trace(cm) / cm.sum()),
    "specificity_score": (fm.specificity_score, _sk_rate(0, (0, 1)), {"average": "macro"},
                          lambda cm: np.mean(_rates(cm)[0] / (_rates(cm)[0] + _rates(cm)[1]))),
    "false_positive_rate": (fm.false_positive_rate, _sk_rate(1, (1, 0)), {"average": "macro"},
                            lambda cm: np.mean(_rates(cm)[1] / (_rates(cm)[0] + _rates(cm)[1]))),
    "false_negative_rate": (fm.false_negative_rate, _sk_rate(2, (2, 3)), {"average": "macro"},
                            lambda cm: np.mean(_rates(cm)[2] / (_rates(cm)[2] + _rates(cm)[3]))),
}


def _table_case(name, data):
    fast, slow, kw, value = TABLE_METRICS[name]
    yt, yp = data[:2]
    return fast, slow, kw, value(np.bincount(yt * K + yp, minlength=K * K).reshape(K, K))


@pytest.mark.parametrize("name", sorted(TABLE_METRICS))
@pytest.mark.parametrize("impl", ["fastmetrics", "sklearn"])
def test_table_metric_1e3(benchmark, small, name, impl):
    fast, slow, kw, want = _table_case(name, small)
    benchmark.group = f"{name} 1e3 K=10"
    got = benchmark(fast if impl == "fastmetrics" else slow, *small, **kw)
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("name", sorted(TABLE_METRICS))
@pytest.mark.parametrize("impl", ["fastmetrics", "sklearn"])
def test_table_metric_1e7(benchmark, big, name, impl):
    yt, yp, ref = big
    fast, slow, kw, want = _table_case(name, big)
    benchmark.group = f"{name} 1e7 int64 K=10"
    if impl == "fastmetrics":
        got = benchmark(fast, yt, yp, **kw)
    else:
        got = _slow(benchmark, slow, yt, yp, **kw)
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("size", ["1e3", "1e7"])
@pytest.mark.parametrize("impl", ["fastmetrics", "sklearn"])
def test_likelihood_ratios(benchmark, small, big, size, impl):
    yt, yp = _binary(*(small if size == "1e3" else big[:2]))
    want = _lr(np.bincount(yt * 2 + yp, minlength=4).reshape(2, 2))
    benchmark.group = f"class_likelihood_ratios {size} binary"
    if impl == "fastmetrics":
        got = benchmark(fm.class_likelihood_ratios, yt, yp)
    elif size == "1e3":
        got = benchmark(skm.class_likelihood_ratios, yt, yp)
    else:
        got = _slow(benchmark, skm.class_likelihood_ratios, yt, yp)
    assert got == pytest.approx(want, rel=1e-12)
