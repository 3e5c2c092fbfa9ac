"""The evaluation job: ``fastmetrics.evaluate`` over a generated Parquet file (binary labels,
two models' scores, three slice columns crossed into 1,000 slices; 10^8 rows at full scale),
every default binary metric for both models on the whole table and every slice, intervals
(1,000 resamples of the confusion counts; DeLong for ROC AUC), against the time pyarrow
takes to read the same columns; the same as CSV (10^7 rows at full scale) against
``pyarrow.csv``; and a fairlearn MetricFrame of the same metrics on a 10^6-row slice.

Peak memory of the evaluation is measured in a fresh process (its ``ru_maxrss``).
"""

import json
import subprocess
import sys

import numpy as np
import pytest

import fastmetrics as fm

# at full size the slices' ROC AUC placements pass their bound: the job says so, and pairs
# the whole table's ROC AUC delta only
pytestmark = pytest.mark.filterwarnings("ignore:the slices' paired ROC AUC:RuntimeWarning")

COLUMNS = ["label", "score_new", "score_old", "country", "device", "tier"]
SLICING = ["country", "device", "tier"]


def _write(path, n, fmt):
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    writer = None
    step = 10**7
    for start in range(0, n, step):
        m = min(step, n - start)
        y = rng.integers(0, 2, m).astype(np.int8)
        # scores of 4 decimals, as served models often log them
        new = np.round(np.clip(0.35 * y + 0.65 * rng.random(m), 0, 1), 4)
        old = np.round(np.clip(0.2 * y + 0.8 * rng.random(m), 0, 1), 4)
        t = pa.table({"label": y, "score_new": new, "score_old": old,
                      "country": rng.integers(0, 10, m).astype(np.int16),
                      "device": rng.integers(0, 10, m).astype(np.int16),
                      "tier": rng.integers(0, 10, m).astype(np.int16)})
        if fmt == "parquet":
            if writer is None:
                writer = pq.ParquetWriter(path, t.schema)
            writer.write_table(t, row_group_size=1 << 20)
        else:
            if writer is None:
                writer = pcsv.CSVWriter(path, t.schema)
            writer.write_table(t)
    writer.close()


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory, scaled):
    pytest.importorskip("pyarrow")
    path = tmp_path_factory.mktemp("evaluate") / "predictions.parquet"
    _write(str(path), scaled(10**8), "parquet")
    return str(path)


@pytest.fixture(scope="module")
def csv_file(tmp_path_factory, scaled):
    pytest.importorskip("pyarrow")
    path = tmp_path_factory.mktemp("evaluate") / "predictions.csv"
    _write(str(path), scaled(10**7), "csv")
    return str(path)


def _evaluate(path):
    return fm.evaluate(path, y_true="label", models={"new": "score_new", "old": "score_old"},
                       by=[SLICING], ci=0.95, baseline="old",
                       gates=["roc_auc>=0.5", "roc_auc:delta>=0"], batch_rows=1 << 22)


def _check(ev, path, reader):
    table = reader(path)
    y = table.column("label").to_numpy()
    new = table.column("score_new").to_numpy()
    import sklearn.metrics as skm

    assert ev.value("roc_auc", "new") == pytest.approx(skm.roc_auc_score(y, new), rel=1e-12)
    assert ev.value("accuracy", "new") == pytest.approx(
        skm.accuracy_score(y, (new >= 0.5).astype(np.int8)), rel=1e-12)
    keys = {tuple(r["slice"].values()) for r in ev.rows if r["slice"]}
    assert len(keys) == 1000 or len(keys) == len({tuple(r) for r in zip(
        *(table.column(c).to_numpy() for c in SLICING))})


def _read_parquet(path):
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=COLUMNS)


def _read_csv(path):
    import pyarrow.csv as pcsv

    return pcsv.read_csv(path)


@pytest.mark.benchmark(group="evaluate: Parquet, 2 models, 1,000 slices, intervals")
def test_pyarrow_reads_parquet(benchmark, parquet_file):
    t = benchmark.pedantic(_read_parquet, args=(parquet_file,), rounds=3, iterations=1)
    assert t.num_columns == len(COLUMNS)


@pytest.mark.benchmark(group="evaluate: Parquet, 2 models, 1,000 slices, intervals")
def test_evaluate_parquet(benchmark, parquet_file):
    ev = benchmark.pedantic(_evaluate, args=(parquet_file,), rounds=1, iterations=1)
    _check(ev, parquet_file, _read_parquet)
    assert ev.passed


@pytest.mark.benchmark(group="evaluate: CSV, 2 models, 1,000 slices, intervals")
def test_pyarrow_reads_csv(benchmark, csv_file):
    t = benchmark.pedantic(_read_csv, args=(csv_file,), rounds=3, iterations=1)
    assert t.num_columns == len(COLUMNS)


@pytest.mark.benchmark(group="evaluate: CSV, 2 models, 1,000 slices, intervals")
def test_evaluate_csv(benchmark, csv_file):
    ev = benchmark.pedantic(_evaluate, args=(csv_file,), rounds=1, iterations=1)
    _check(ev, csv_file, _read_csv)


def test_peak_memory(parquet_file):
    """The evaluation's peak memory (a fresh process's maximum resident set), printed and
    held under 2 GiB."""
    code = (
        "import json, resource, sys\n"
        "sys.path[:0] = " + json.dumps(sys.path) + "\n"
        "from bench_evaluate import _evaluate\n"
        f"ev = _evaluate({parquet_file!r})\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    import os

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(__file__), check=True)
    peak_mib = int(out.stdout.split()[-1]) / 1024
    print(f"\nevaluate peak memory: {peak_mib:.0f} MiB")
    assert peak_mib < 2048


@pytest.fixture(scope="module")
def million(parquet_file, scaled):
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(parquet_file)
    # at least 100 rows a slice: no slice of a single class (log loss refuses those)
    n = min(max(scaled(10**6), 10**5), pf.metadata.num_rows)
    t = next(pf.iter_batches(batch_size=n, columns=COLUMNS))
    return {c: t.column(c).to_numpy() for c in COLUMNS}


def _binary_frames(frame_type, d):
    import functools

    import sklearn.metrics as skm

    feats = np.stack([d[c] for c in SLICING], axis=1)
    labels = {"accuracy": skm.accuracy_score,
              "precision": functools.partial(skm.precision_score, zero_division=0),
              "recall": functools.partial(skm.recall_score, zero_division=0),
              "f1": functools.partial(skm.f1_score, zero_division=0),
              "matthews_corrcoef": skm.matthews_corrcoef}
    scores = {"roc_auc": skm.roc_auc_score, "average_precision": skm.average_precision_score,
              "log_loss": skm.log_loss, "brier_score": skm.brier_score_loss}
    pred = (d["score_new"] >= 0.5).astype(np.int8)
    a = frame_type(metrics=labels, y_true=d["label"], y_pred=pred, sensitive_features=feats)
    b = frame_type(metrics=scores, y_true=d["label"], y_pred=d["score_new"],
                   sensitive_features=feats)
    return a.by_group.join(b.by_group)


@pytest.mark.benchmark(group="evaluate: 10^6 rows, 1,000 slices, one model's binary metrics")
def test_evaluate_million(benchmark, million):
    ev = benchmark(fm.evaluate, million, y_true="label", score="score_new", by=[SLICING],
                   metrics=["accuracy", "precision", "recall", "f1", "matthews_corrcoef",
                            "roc_auc", "average_precision", "log_loss", "brier_score"])
    assert ev.task == "binary"


# slices of one class warn (scikit-learn's warnings, through both MetricFrames)
@pytest.mark.filterwarnings("ignore")
@pytest.mark.benchmark(group="evaluate: 10^6 rows, 1,000 slices, one model's binary metrics")
def test_fairlearn_metricframe_million(benchmark, million):
    fairlearn = pytest.importorskip("fairlearn.metrics")
    theirs = benchmark.pedantic(_binary_frames, args=(fairlearn.MetricFrame, million),
                                rounds=1, iterations=1)
    ours = _binary_frames(fm.MetricFrame, million)
    np.testing.assert_allclose(ours.to_numpy(), theirs.to_numpy(), rtol=1e-12, atol=1e-15)
