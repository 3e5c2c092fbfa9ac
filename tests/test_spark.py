"""fastmetrics.spark: every mergeable metric of the table, and evaluate, on Spark DataFrames of
several partitions (one empty, one of a single row) equal the in-memory functions; bad input
raises the in-memory error on the driver. One local[2] SparkSession for the module.

Skips only where pyspark or Java is missing and FASTMETRICS_REQUIRE_SPARK is unset (.ci/run
sets it wherever Java runs): with pyspark and Java present, a broken Spark path fails."""

from __future__ import annotations

import inspect
import os
import pathlib
import shutil
import sys
import warnings

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics import _table

if not os.environ.get("FASTMETRICS_REQUIRE_SPARK"):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime for Spark", allow_module_level=True)
pa = pytest.importorskip("pyarrow")
import fastmetrics.spark as fms  # noqa: E402

# pyspark checks the pandas version on some calls (createDataFrame, toArrow) and warns about
# pandas 3; the Arrow paths used here do not depend on it
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # the executors' Python: this interpreter, importing fastmetrics from where this process
    # did (the source tree's src/, or the installed wheel's site-packages)
    where = str(pathlib.Path(fm.__file__).resolve().parent.parent)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("fastmetrics-tests")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.executorEnv.PYTHONPATH", where)
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def frame(spark, cols):
    """A DataFrame of four partitions: one row, an empty one, then the rest in two (built
    from an RDD whose partition i holds piece i: a union of local tables would be merged
    into one partition by the optimizer)."""
    tab = pa.table(cols)
    schema = spark.createDataFrame(tab.slice(0, 0)).schema
    n = tab.num_rows
    cut = 1 + (n - 1) // 3
    pieces = [tab.slice(0, 1), tab.slice(0, 0), tab.slice(1, cut - 1), tab.slice(cut)]
    rows = [[tuple(r.values()) for r in p.to_pylist()] for p in pieces]
    rdd = spark.sparkContext.parallelize(range(4), 4).flatMap(lambda i: rows[i])
    return spark.createDataFrame(rdd, schema).cache()  # the rows travel from Python once


def _same(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif hasattr(a, "__dataclass_fields__"):
        assert type(a) is type(b)
        for f in a.__dataclass_fields__:
            _same(getattr(a, f), getattr(b, f))
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, str) or a is None:
        assert a == b
    else:
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype.kind in "iub" and b.dtype.kind in "iub":
            np.testing.assert_array_equal(a, b)  # counts: exactly
        elif a.dtype.kind in "UO" or b.dtype.kind in "UO":
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a.astype(float), b.astype(float), rtol=1e-12,
                                       atol=1e-14)


RNG = np.random.default_rng(11)
N = 300
LETTERS = np.array(["ant", "bee", "cat", "dog"])
POS = np.random.default_rng(12)
# family -> (first, second): 1-D columns or (n, k) matrices (given as k columns)
DATA = {
    "confusion": (LETTERS[RNG.integers(0, 4, N)], LETTERS[RNG.integers(0, 4, N)]),
    "calibration": (RNG.integers(0, 2, N), RNG.random(N)),
    "regression": (RNG.normal(size=N), RNG.normal(size=N)),
    "ranking": (RNG.integers(0, 2, N), RNG.random(N).round(2)),
    "contingency": (RNG.integers(-2, 5, N), LETTERS[RNG.integers(0, 4, N)]),
    "proba": (LETTERS[RNG.integers(0, 4, N)], RNG.dirichlet(np.ones(4), N)),
    "label_ranking": (RNG.integers(0, 2, (N, 5)), RNG.random((N, 5)).round(1)),
    "hinge": (RNG.integers(0, 4, N), RNG.normal(size=(N, 4))),
    "tweedie": (POS.gamma(2.0, size=N), POS.gamma(2.0, size=N)),
    "squared_log": (POS.gamma(2.0, size=(N, 2)), POS.gamma(2.0, size=(N, 2))),
}
DATA["pinball"] = DATA["regression"]
WEIGHT = RNG.integers(1, 4, N).astype(np.float64)
BINARY = (RNG.integers(0, 2, N), RNG.integers(0, 2, N))
KW = {"fbeta_score": {"beta": 0.5, "average": "macro"}, "f1_score": {"average": "macro"},
      "precision_score": {"average": "micro"}, "recall_score": {"average": "weighted"},
      "oos_precision_recall": {"oos_label": "cat"}, "adjusted_r2_score": {"n_features": 2},
      "jaccard_score": {"average": "weighted"}, "specificity_score": {"average": "macro"},
      "false_positive_rate": {"average": None}, "false_negative_rate": {"average": "micro"},
      "calibration_summary": {"n_bins": 5}, "top_k_accuracy_score": {"k": 2},
      "mean_tweedie_deviance": {"power": 1.5}, "d2_tweedie_score": {"power": 1.5},
      "huber_loss": {"delta": 0.7}}


def _columns(prefix, x, cols):
    """Column name(s) for input ``x``, its columns added to ``cols``."""
    if x.ndim == 1:
        cols[prefix] = x
        return prefix
    names = [f"{prefix}{j}" for j in range(x.shape[1])]
    for j, c in enumerate(names):
        cols[c] = x[:, j]
    return names


ROWS = [r for r in _table.METRICS if r.dask]


def test_every_metric_equals_the_in_memory_value(spark):
    """Each generated function on a DataFrame of four partitions (an empty one, a one-row
    one): string labels, weights where the one-shot function takes them, matrices as lists
    of columns; values equal the one-shot function's on the same arrays."""
    frames = {}
    for row in ROWS:
        y, x = BINARY if row.name == "class_likelihood_ratios" else DATA[row.family]
        key = "binary" if row.name == "class_likelihood_ratios" else row.family
        if key not in frames:
            cols = {}
            names = (_columns("t", y, cols), _columns("p", x, cols))
            cols["w"] = WEIGHT
            frames[key] = (frame(spark, cols), names)
        df, (yc, xc) = frames[key]
        kw = dict(KW.get(row.name, {}))
        if "sample_weight" in row.signature.parameters:
            kw["sample_weight"] = WEIGHT
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = row.function(y, x, **kw)
            if "sample_weight" in kw:
                kw["sample_weight"] = "w"
            got = getattr(fms, row.name)(df, yc, xc, **kw)
        try:
            _same(got, want)
        except AssertionError as exc:
            raise AssertionError(f"{row.name}: {exc}") from None
    # the signature: df, then the one-shot function's, then groups
    for row in ROWS:
        params = list(inspect.signature(getattr(fms, row.name)).parameters)
        assert params == ["df", *row.signature.parameters, "groups"], row.name
        assert row.name in fms.__all__


def test_groups_accumulate_and_one_row(spark):
    y, x = DATA["confusion"]
    seg = np.array(["x", "y", "z"])[RNG.integers(0, 3, N)]
    dev = RNG.integers(0, 2, N)
    df = frame(spark, {"t": y, "p": x, "seg": seg, "dev": dev, "w": WEIGHT,
                       "s": DATA["regression"][0], "e": DATA["regression"][1]})
    got = fms.f1_score(df, "t", "p", average="macro", sample_weight="w", groups="seg")
    assert list(got) == ["x", "y", "z"]
    for k, v in got.items():
        m = seg == k
        assert v == pytest.approx(fm.f1_score(y[m], x[m], average="macro",
                                              sample_weight=WEIGHT[m]), rel=1e-12)
    got = fms.mean_squared_error(df, "s", "e", groups=["seg", "dev"])
    assert list(got) == sorted(got)
    for (s, d), v in got.items():
        m = (seg == s) & (dev == d)
        assert v == pytest.approx(fm.mean_squared_error(DATA["regression"][0][m],
                                                        DATA["regression"][1][m]), rel=1e-12)
    acc = fms.accumulate("confusion", df, "t", "p")
    assert acc.n_samples == N
    assert acc.confusion_matrix().tolist() == fm.confusion_matrix(y, x).tolist()
    one = spark.createDataFrame(pa.table({"t": ["a"], "p": ["b"]}))
    assert fms.accuracy_score(one, "t", "p") == 0.0
    # an array column holds an (n, K) input as well as K columns
    yp, pp = DATA["proba"]
    arr = spark.createDataFrame(pa.table({"t": yp, "p": pa.array(list(pp))})).repartition(3)
    assert fms.log_loss(arr, "t", "p") == pytest.approx(fm.log_loss(yp, pp), rel=1e-12)


def _rows(ev):
    return {(r["model"], r["metric"], str(r["slice"])): (r["value"], r["ci_low"], r["ci_high"],
                                                          r["n"]) for r in ev.rows}


def _same_evaluation(got, want):
    assert got.task == want.task and got.task_inferred == want.task_inferred
    a, b = _rows(got), _rows(want)
    assert a.keys() == b.keys()
    for k in a:
        for x, y in zip(a[k], b[k]):
            if x is None or y is None:
                assert x is y, k
            elif isinstance(y, float) and np.isnan(y):
                assert np.isnan(x), k
            else:
                assert x == pytest.approx(y, rel=1e-12, abs=1e-14), k
    assert [(r["model"], r["metric"], str(r["slice"])) for r in got.rows] == \
        [(r["model"], r["metric"], str(r["slice"])) for r in want.rows]
    assert got.gates == want.gates
    assert got.too_small == want.too_small
    assert got.warnings == want.warnings


def test_evaluate_equals_the_in_memory_evaluation(spark):
    rng = np.random.default_rng(5)
    n = 600
    y = rng.integers(0, 2, n)
    cols = {"y": y, "a": np.clip(y * 0.3 + rng.random(n) * 0.7, 0, 1),
            "b": rng.random(n), "seg": np.array(["n", "s", "e"])[rng.integers(0, 3, n)],
            "dev": rng.integers(0, 3, n), "w": rng.integers(1, 3, n).astype(float)}
    tab = pa.table(cols)
    df = frame(spark, cols)
    kw = dict(y_true="y", models={"new": "a", "old": "b"}, by=["seg", ["seg", "dev"]],
              ci=0.9, n_boot=200, baseline="old", min_slice_size=20,
              gates=["roc_auc>=0.6", "accuracy:delta>=0", "f1:better"], gate_slices=True)
    _same_evaluation(fms.evaluate(df, **kw), fm.evaluate(tab, **kw))
    kw = dict(y_true="y", score="a", sample_weight="w", by="dev", metrics=["accuracy", "ece"])
    _same_evaluation(fms.evaluate(df, **kw), fm.evaluate(tab, **kw))
    # multiclass of string labels with probability columns (a prefix), and regression
    p = rng.dirichlet(np.ones(3), n)
    cols = {"y": np.array(["a", "b", "c"])[rng.integers(0, 3, n)], "p_a": p[:, 0],
            "p_b": p[:, 1], "p_c": p[:, 2], "seg": rng.integers(0, 2, n),
            "t": rng.normal(size=n), "e": rng.normal(size=n), "f": rng.normal(size=n)}
    tab = pa.table(cols)
    df = frame(spark, cols)
    kw = dict(y_true="y", prob="p_", by="seg", ci=0.95, n_boot=100)
    _same_evaluation(fms.evaluate(df, **kw), fm.evaluate(tab, **kw))
    kw = dict(y_true="t", score="e", by="seg", task="regression")
    _same_evaluation(fms.evaluate(df, **kw), fm.evaluate(tab, **kw))
    # with intervals: R²'s from a second read, paired for the deltas
    kw = dict(y_true="t", models={"a": "e", "b": "f"}, by="seg", task="regression", ci=0.95,
              baseline="b")
    got = fms.evaluate(df, **kw)
    _same_evaluation(got, fm.evaluate(tab, **kw))
    assert all(r["ci_low"] is not None for r in got.rows if r["metric"].startswith("r2"))
    # binary text labels (the positive side is the greater) and a model's column of labels
    cols = {"y": np.array(["no", "yes"])[rng.integers(0, 2, n)], "s": rng.random(n),
            "guess": np.array(["no", "yes"])[rng.integers(0, 2, n)], "seg": rng.integers(0, 3, n)}
    tab = pa.table(cols)
    df = frame(spark, cols)
    kw = dict(y_true="y", models={"a": "s", "b": "guess"}, by="seg")
    _same_evaluation(fms.evaluate(df, **kw), fm.evaluate(tab, **kw))
    # the ranking task: text query ids, graded relevance, queries across partitions
    q = np.array([f"q{i}" for i in rng.integers(0, 60, n)])
    rel = rng.integers(0, 3, n)
    cols = {"q": q, "rel": rel, "s": rng.random(n) + 0.2 * rel, "t": rng.random(n),
            "seg": np.array(["x", "y"])[rng.integers(0, 2, n)]}
    tab = pa.table(cols)
    df = frame(spark, cols)
    kw = dict(y_true="rel", models={"s": "s", "t": "t"}, query="q", by="seg", baseline="t",
              ci=0.9, n_boot=100, gates=["ndcg:better"])
    got, want = fms.evaluate(df, **kw), fm.evaluate(tab, **kw)
    assert got.task == "ranking"
    _same_evaluation(got, want)
    # the multilabel task: 0/1 true columns, one model's 0/1 columns, one's scores
    y = rng.integers(0, 2, (n, 3))
    cols = {**{f"y{j}": y[:, j] for j in range(3)},
            **{f"p{j}": rng.random(n) for j in range(3)},
            **{f"q{j}": rng.integers(0, 2, n) for j in range(3)},
            "seg": rng.integers(0, 3, n), "w": rng.random(n)}
    tab = pa.table(cols)
    df = frame(spark, cols)
    kw = dict(y_true=["y0", "y1", "y2"], models={"s": ["p0", "p1", "p2"],
                                                 "t": {"pred": ["q0", "q1", "q2"]}},
              by="seg", baseline="t", gates=["f1_samples:delta>=-1"])
    got, want = fms.evaluate(df, **kw), fm.evaluate(tab, **kw)
    assert got.task == "multilabel"
    _same_evaluation(got, want)


def test_bad_inputs_raise_the_in_memory_errors(spark):
    y = np.array([0.0, 1.0, np.nan, 1.0, 0.0, 1.0])
    df = frame(spark, {"y": y, "p": np.array([0.0, 1, 1, 0, 0, 1]),
                       "s": np.linspace(0, 1, 6), "txt": np.array(list("abcdef"))})
    with pytest.raises(ValueError, match="unknown column 'nope'"):
        fms.accuracy_score(df, "y", "nope")
    with pytest.raises(ValueError, match="column 'txt' .* must be numeric"):
        fms.roc_auc_score(df, "p", "txt")
    with pytest.raises(ValueError, match="the score column 'txt' is not numeric"):
        fms.evaluate(df, y_true="p", score="txt")
    # a NaN label is seen on an executor: the in-memory function's error, on the driver
    with pytest.raises(ValueError) as spark_err:
        fms.accuracy_score(df, "y", "p")
    with pytest.raises(ValueError) as local_err:
        fm.accuracy_score(y, np.array([0.0, 1, 1, 0, 0, 1]))
    assert str(spark_err.value) == str(local_err.value)
    with pytest.raises(ValueError, match="contains NaN"):
        fms.evaluate(df, y_true="y", score="s")
    bad = spark.createDataFrame(pa.table({"t": [0, 1], "q": [0.5, 2.0]}))
    with pytest.raises(ValueError, match="greater than 1"):
        fms.log_loss(bad, "t", ["q", "q"])


def test_executors_import_this_fastmetrics(spark):
    """The executors run the fastmetrics this process imported: the source tree, or the
    installed wheel when the suite runs against it (FASTMETRICS_EXPECT_INSTALLED)."""
    def where(batches):
        import fastmetrics

        for _ in batches:
            pass
        yield pa.RecordBatch.from_arrays([pa.array([fastmetrics.__file__])], names=["f"])

    got = {r.f for r in spark.range(2).repartition(2).mapInArrow(where, "f string").collect()}
    assert got == {fm.__file__}
    if os.environ.get("FASTMETRICS_EXPECT_INSTALLED"):
        assert "site-packages" in fm.__file__


def test_missing_pyspark_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark.sql.functions", None)
    with pytest.raises(ImportError, match=r'pip install "fastmetrics-kernels\[spark\]"'):
        fms.accumulate("confusion", None, "y", "p")


def test_frame_has_an_empty_and_a_one_row_partition(spark):
    df = frame(spark, {"a": np.arange(10)})
    sizes = df.rdd.glom().map(len).collect()
    assert sizes == [1, 0, 3, 6]


def test_an_executor_traceback_is_raised_as_its_python_error():
    """An error no partition caught reaches the driver as PySpark's exception, whose text
    holds the executor's traceback: its last ValueError is raised as that ValueError."""
    class Failed:
        def toArrow(self):
            raise RuntimeError("An exception was thrown from the Python worker.\n"
                               "Traceback (most recent call last):\n  File ...\n"
                               "ValueError: y_prob contains values greater than 1: 2.0\n")

    with pytest.raises(ValueError, match=r"^y_prob contains values greater than 1: 2\.0$"):
        fms._collect(Failed())
