"""fastmetrics.dask: over dask arrays and dataframe columns (uneven and mismatched chunks,
partitions, weights, string labels, chunks missing classes), on a real distributed
LocalCluster with worker processes, every function returns what the in-memory function
returns on the same data (exactly for counts, 1e-12 relative for floats)."""

import inspect
import subprocess
import sys
import warnings

import dask
import dask.array as da
import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster, get_task_stream
from dask.delayed import Delayed
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve as sk_curve

import fastmetrics as fm
import fastmetrics.dask as fmd
from fastmetrics.streaming import ConfusionAccumulator, RegressionAccumulator

N = 10_007
K = 5


@pytest.fixture(scope="module")
def client():
    # the dashboard on a free port: distributed reads dashboard_address=None as its default
    # :8787, which another job on a shared machine may hold (a warning, so an error here)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as c:
        yield c


@pytest.fixture
def sync():
    with dask.config.set(scheduler="synchronous"):
        yield


def same(a, b):
    """Equal values: integers and strings exactly, floats to 1e-12 relative."""
    if hasattr(a, "as_row"):  # result objects: every scalar (and per-bin / per-class value)
        same(a.to_flat_dict() if hasattr(a, "to_flat_dict") else a.as_row(),
             b.to_flat_dict() if hasattr(b, "to_flat_dict") else b.as_row())
        if hasattr(a, "confusion_matrix"):
            same(a.confusion_matrix, b.confusion_matrix)
        return
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif a is None or isinstance(a, str):
        assert a == b
    else:
        x, y = np.asarray(a), np.asarray(b)
        assert x.shape == y.shape
        if x.dtype.kind in "iub":
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)
        else:
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-15)


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


# ----------------------------------------------------------------------------- data

rng = np.random.default_rng(7)
YT = rng.integers(0, K, N)
YP = np.where(rng.random(N) < 0.6, YT, rng.integers(0, K, N))
W = rng.random(N) * 3
UNEVEN = ((1, 2500, 3, 4000, N - 6504),)


def sorted_labels():
    """Sorted classes: most chunks hold one or two classes, each chunk another set."""
    yt = np.sort(YT)
    yp = np.clip(yt + rng.integers(-1, 2, N), 0, K - 1)
    return yt, yp


def layouts(yt, yp, w):
    """(name, y_true, y_pred, sample_weight) as dask inputs of several shapes."""
    df = dd.from_pandas(pd.DataFrame({"t": yt, "p": yp, "w": w}), npartitions=4)
    return {
        "uneven": (da.from_array(yt, chunks=UNEVEN), da.from_array(yp, chunks=UNEVEN),
                   None if w is None else da.from_array(w, chunks=UNEVEN)),
        "mismatched": (da.from_array(yt, chunks=1000), da.from_array(yp, chunks=777),
                       w),
        "dataframe": (df["t"], df["p"], None if w is None else df["w"]),
    }


CLASSIFICATION = [
    ("confusion_matrix", {}),
    ("confusion_matrix", {"labels": [4, 0, 2]}),
    ("confusion_matrix", {"normalize": "true"}),
    ("accuracy_score", {}),
    ("accuracy_score", {"normalize": False}),
    ("precision_recall_fscore_support", {}),
    ("precision_recall_fscore_support", {"average": "macro", "beta": 2.0}),
    ("precision_score", {"average": "micro"}),
    ("recall_score", {"average": "weighted"}),
    ("f1_score", {"average": "macro"}),
    ("f1_score", {"average": None, "labels": [1, 3]}),
    ("fbeta_score", {"beta": 0.5, "average": "macro"}),
    ("matthews_corrcoef", {}),
    ("balanced_accuracy_score", {"adjusted": True}),
    ("cohen_kappa_score", {"weights": "quadratic"}),
    ("classification_report", {"output_dict": True}),
    ("classification_report", {"digits": 4}),
    ("score", {"oos_label": 0}),
    ("score", {"labels": [0, 1, 2]}),
]


# ----------------------------------------------------------------------------- cluster


@pytest.mark.parametrize("layout", ["uneven", "mismatched", "dataframe"])
@pytest.mark.parametrize("weighted", [False, True])
def test_classification_on_cluster(client, layout, weighted):
    w = W if weighted else None
    yt, yp, sw = layouts(YT, YP, w)[layout]
    cases = CLASSIFICATION if layout == "uneven" else CLASSIFICATION[::3]
    for name, kw in cases:
        if weighted and kw == {"digits": 4}:
            continue  # the text prints float supports in full: last digits may differ
        got = getattr(fmd, name)(yt, yp, sample_weight=sw, **kw)
        same(got, getattr(fm, name)(YT, YP, sample_weight=w, **kw))


def test_tasks_run_on_the_workers(client):
    yt, yp, _ = layouts(YT, YP, None)["uneven"]
    with get_task_stream(client) as ts:
        fmd.f1_score(yt, yp, average="macro")
    chunk_tasks = [t for t in ts.data if "_chunk_state" in str(t["key"])]
    assert len(chunk_tasks) == 5, [t["key"] for t in ts.data]
    workers = {t["worker"] for t in chunk_tasks}
    assert workers and workers <= set(client.scheduler_info()["workers"])


def test_chunks_with_different_label_sets(sync):
    yt, yp = sorted_labels()
    dyt, dyp = da.from_array(yt, chunks=1500), da.from_array(yp, chunks=1100)
    # each chunk sees a few classes only: states over different labels must align
    assert len(np.unique(yt[:1500])) < K
    for name, kw in CLASSIFICATION:
        same(getattr(fmd, name)(dyt, dyp, **kw), getattr(fm, name)(yt, yp, **kw))
    np.testing.assert_array_equal(fmd.confusion_matrix(dyt, dyp), skm.confusion_matrix(yt, yp))


def test_chunks_with_different_label_sets_on_cluster(client):
    yt, yp = sorted_labels()
    dyt, dyp = da.from_array(yt, chunks=1500), da.from_array(yp, chunks=1100)
    same(fmd.score(dyt, dyp), fm.score(yt, yp))
    same(fmd.cohen_kappa_score(dyt, dyp), fm.cohen_kappa_score(yt, yp))


def test_string_labels(client):
    names = np.array(["ant", "bee", "cat", "dog", "eel"])
    yt, yp = sorted_labels()
    st, sp = names[yt], names[yp]
    dst, dsp = da.from_array(st, chunks=2000), da.from_array(sp, chunks=3000)
    same(fmd.confusion_matrix(dst, dsp), skm.confusion_matrix(st, sp))
    same(fmd.f1_score(dst, dsp, average="macro"), skm.f1_score(st, sp, average="macro"))
    same(fmd.score(dst, dsp, oos_label="eel"), fm.score(st, sp, oos_label="eel"))
    same(fmd.classification_report(dst, dsp), fm.classification_report(st, sp))


def test_matches_scikit_learn(client):
    yt, yp, sw = layouts(YT, YP, W)["mismatched"]
    same(fmd.confusion_matrix(yt, yp, sample_weight=sw),
         skm.confusion_matrix(YT, YP, sample_weight=W))
    same(fmd.f1_score(yt, yp, average="macro"), skm.f1_score(YT, YP, average="macro"))
    same(fmd.matthews_corrcoef(yt, yp, sample_weight=sw),
         skm.matthews_corrcoef(YT, YP, sample_weight=W))
    same(fmd.cohen_kappa_score(yt, yp), skm.cohen_kappa_score(YT, YP))


PROB = rng.random(N)
YB = (rng.random(N) < PROB).astype(np.int64)
PMAT = rng.dirichlet(np.ones(K), N)


@pytest.mark.parametrize("layout", ["uneven", "mismatched", "dataframe"])
def test_calibration_on_cluster(client, layout):
    for w in (None, W):
        yt, p, sw = layouts(YB, PROB, w)[layout]
        for name, kw in [("calibration_summary", {}), ("calibration_summary", {"n_bins": 7}),
                         ("expected_calibration_error", {"n_bins": 15}),
                         ("max_calibration_error", {}), ("brier_score_loss", {}),
                         ("brier_score_loss", {"scale_by_half": False})]:
            got = getattr(fmd, name)(yt, p, sample_weight=sw, **kw)
            same(got, getattr(fm, name)(YB, PROB, sample_weight=w, **kw))
        if w is None:
            same(fmd.calibration_curve(yt, p, n_bins=8), fm.calibration_curve(YB, PROB, n_bins=8))
            same(fmd.calibration_curve(yt, p), sk_curve(YB, PROB))
    same(fmd.brier_score_loss(yt, p), skm.brier_score_loss(YB, PROB))
    same(fmd.brier_score_loss(YB, da.from_array(PROB[:, None], chunks=(999, 1))),
         fm.brier_score_loss(YB, PROB[:, None]))


def test_top_label_calibration(client):
    pm = da.from_array(PMAT, chunks=(1234, 2))  # columns split too: rechunked to one block
    same(fmd.calibration_summary(da.from_array(YT, chunks=999), pm),
         fm.calibration_summary(YT, PMAT))
    same(fmd.expected_calibration_error(YT, pm, n_bins=5, sample_weight=W),
         fm.expected_calibration_error(YT, PMAT, n_bins=5, sample_weight=W))


TARGET = rng.normal(3.0, 2.0, N)
PRED = TARGET + rng.normal(0.0, 0.5, N)


@pytest.mark.parametrize("layout", ["uneven", "mismatched", "dataframe"])
def test_regression_on_cluster(client, layout):
    for w in (None, W):
        yt, yp, sw = layouts(TARGET, PRED, w)[layout]
        for name, kw in [("regression_summary", {}), ("mean_absolute_error", {}),
                         ("mean_squared_error", {}), ("root_mean_squared_error", {}),
                         ("r2_score", {}), ("r2_score", {"multioutput": "raw_values"})]:
            got = getattr(fmd, name)(yt, yp, sample_weight=sw, **kw)
            same(got, getattr(fm, name)(TARGET, PRED, sample_weight=w, **kw))
    same(fmd.r2_score(yt, yp, sample_weight=sw), skm.r2_score(TARGET, PRED, sample_weight=W))


SCORE = np.round(PROB + rng.normal(0, 0.3, N), 2)  # ties inside and across chunks


@pytest.mark.parametrize("layout", ["uneven", "mismatched", "dataframe"])
def test_ranking_on_cluster(client, layout):
    for w in (None, W):
        yt, s, sw = layouts(YB, SCORE, w)[layout]
        same(fmd.roc_auc_score(yt, s, sample_weight=sw),
             fm.roc_auc_score(YB, SCORE, sample_weight=w))
        same(fmd.roc_auc_score(yt, s, sample_weight=sw, max_fpr=0.3),
             fm.roc_auc_score(YB, SCORE, sample_weight=w, max_fpr=0.3))
        same(fmd.average_precision_score(yt, s, sample_weight=sw),
             fm.average_precision_score(YB, SCORE, sample_weight=w))
    same(fmd.roc_auc_score(yt, s), skm.roc_auc_score(YB, SCORE))
    same(fmd.average_precision_score(yt, s), skm.average_precision_score(YB, SCORE))


def test_roc_auc_greater_label_is_positive(client):
    y = np.where(YB == 1, 5, 2)
    dy = da.from_array(y, chunks=3000)
    same(fmd.roc_auc_score(dy, SCORE), skm.roc_auc_score(y, SCORE))
    same(fmd.roc_auc_score(dy, SCORE), fm.roc_auc_score(y, SCORE))
    same(fmd.average_precision_score(dy, SCORE, pos_label=2),
         skm.average_precision_score(y, SCORE, pos_label=2))
    # the state keeps each class's weights: one graph run finds the greater label, lazily too
    same(fmd.roc_auc_score(dy, SCORE, compute=False).compute(), skm.roc_auc_score(y, SCORE))
    with get_task_stream(client) as ts:
        fmd.roc_auc_score(dy, SCORE)
    chunk_tasks = [t for t in ts.data if "_chunk_state" in str(t["key"])]
    assert len(chunk_tasks) == 4, [t["key"] for t in ts.data]
    for name in ("roc_curve", "precision_recall_curve"):
        same(getattr(fmd, name)(dy, SCORE, pos_label=5), getattr(skm, name)(y, SCORE, pos_label=5))


def test_accumulate_once_for_several_metrics(client):
    yt, yp, sw = layouts(YT, YP, W)["dataframe"]
    acc = fmd.accumulate("confusion", yt, yp, sample_weight=sw)
    assert isinstance(acc, ConfusionAccumulator)
    same(acc.f1_score(average="macro"), fm.f1_score(YT, YP, average="macro", sample_weight=W))
    same(acc.result(), fm.score(YT, YP, sample_weight=W))
    acc = fmd.accumulate("regression", da.from_array(TARGET, chunks=3000), PRED, delta=0.5)
    assert isinstance(acc, RegressionAccumulator)
    same(acc.huber_loss(), fm.huber_loss(TARGET, PRED, delta=0.5))


def test_compute_false_and_split_every(client):
    yt, yp, sw = layouts(YT, YP, W)["uneven"]
    lazy = fmd.f1_score(yt, yp, sample_weight=sw, average="macro", compute=False)
    assert isinstance(lazy, Delayed)
    expected = fm.f1_score(YT, YP, sample_weight=W, average="macro")
    same(lazy.compute(), expected)
    small = da.from_array(YT, chunks=500)  # 21 chunks: a tree three merges deep
    for split_every in (2, 3, 100):
        same(fmd.confusion_matrix(small, YP, split_every=split_every),
             fm.confusion_matrix(YT, YP))
    lazy = fmd.accumulate("calibration", YB, da.from_array(PROB, chunks=4000), compute=False)
    same(lazy.compute().result(), fm.calibration_summary(YB, PROB))


# ----------------------------------------------------------------------------- synchronous


def test_synchronous_scheduler(sync):
    yt, yp, sw = layouts(YT, YP, W)["mismatched"]
    for name, kw in CLASSIFICATION[:6]:
        same(getattr(fmd, name)(yt, yp, sample_weight=sw, **kw),
             getattr(fm, name)(YT, YP, sample_weight=W, **kw))
    same(fmd.regression_summary(da.from_array(TARGET, chunks=999), PRED),
         fm.regression_summary(TARGET, PRED))
    same(fmd.roc_auc_score(YB, da.from_array(SCORE, chunks=999)), fm.roc_auc_score(YB, SCORE))


def test_numpy_and_pandas_inputs(sync):
    same(fmd.confusion_matrix(YT, YP), fm.confusion_matrix(YT, YP))
    same(fmd.accuracy_score(pd.Series(YT), YP.tolist()), fm.accuracy_score(YT, YP))
    same(fmd.confusion_matrix(da.from_array(YT[:, None], chunks=(1000, 1)), YP),
         fm.confusion_matrix(YT, YP))
    words = np.array(["a", "b", "c", "d", "e"], dtype=object)
    same(fmd.f1_score(pd.Series(words[YT]), words[YP], average="macro"),
         fm.f1_score(words[YT], words[YP], average="macro"))


def test_unknown_chunk_sizes(sync):
    x = da.from_array(YT, chunks=1000)
    unknown = x[x >= 0]  # same values, unknown chunk lengths
    assert np.isnan(unknown.chunks[0][0])
    same(fmd.confusion_matrix(unknown, da.from_array(YP, chunks=3000)),
         fm.confusion_matrix(YT, YP))
    same(fmd.confusion_matrix(unknown, YP), fm.confusion_matrix(YT, YP))
    # same block count: paired block by block, lengths never computed
    same(fmd.accuracy_score(unknown, da.from_array(YP, chunks=1000)), fm.accuracy_score(YT, YP))


def test_empty_partitions(sync):
    df = dd.from_pandas(pd.DataFrame({"t": YT, "p": YP}), npartitions=5)
    df = df[df["t"] != 4]  # filtered partitions of unknown length, some may be empty
    keep = YT != 4
    same(fmd.score(df["t"], df["p"]), fm.score(YT[keep], YP[keep]))
    empty_chunk = da.concatenate([da.from_array(YT[:0]), da.from_array(YT)])
    same(fmd.confusion_matrix(empty_chunk, YP), fm.confusion_matrix(YT, YP))


# ----------------------------------------------------------------------------- bad input


def test_length_mismatch(sync):
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fmd.confusion_matrix(da.from_array(YT, chunks=1000), YP[:-1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fmd.r2_score(TARGET, da.from_array(PRED[:-3], chunks=1000))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fmd.f1_score(YT, YP, sample_weight=da.from_array(W[:10], chunks=5))


def test_partitions_that_do_not_line_up(sync):
    a = dd.from_pandas(pd.DataFrame({"t": YT}), npartitions=3)
    b = dd.from_pandas(pd.DataFrame({"p": YP[:-5]}), npartitions=3)
    with pytest.raises(ValueError, match="partitions do not line up"):
        fmd.confusion_matrix(a["t"], b["p"])


def test_bad_shapes_and_types(sync):
    with pytest.raises(ValueError, match="y_pred must be 1-D"):
        fmd.confusion_matrix(YT, da.from_array(np.stack([YP, YP], 1), chunks=1000))
    with pytest.raises(ValueError, match="y_true must be 1-D"):
        fmd.mean_absolute_error(np.zeros((3, 2, 2)), np.zeros(3))
    with pytest.raises(ValueError, match="scalar"):
        fmd.accuracy_score(3, YP)
    with pytest.raises(ValueError, match="binary"):
        fmd.roc_auc_score(YT, PMAT)
    with pytest.raises(ValueError, match="binary"):
        fmd.brier_score_loss(YT, PMAT)
    with pytest.raises(TypeError, match="Bag"):
        fmd.confusion_matrix(db.from_sequence(YT.tolist()), YP)
    with pytest.raises(ValueError, match="quantile"):
        fmd.expected_calibration_error(YB, PROB, strategy="quantile")
    with pytest.raises(ValueError, match="split_every"):
        fmd.accuracy_score(YT, YP, split_every=1)
    with pytest.raises(ValueError, match="kind must be one of"):
        fmd.accumulate("percentile", YT, YP)
    with pytest.raises(ValueError, match="n_bins"):
        fmd.calibration_summary(YB, PROB, n_bins=0)
    # errors raised by the kernels on a chunk come back as themselves
    bad = PROB.copy()
    bad[7000] = 1.5
    with pytest.raises(ValueError):
        fmd.calibration_summary(YB, da.from_array(bad, chunks=1000))


def test_brier_zero_weight_sum_raises_as_the_one_shot(sync):
    """Weights summing to zero: ValueError when all are zero, ZeroDivisionError when they
    cancel (also within one chunk, and with compute=False), as fm.brier_score_loss."""
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    p = np.array([0.1, 0.9, 0.8, 0.3, 0.6, 0.2, 0.5, 0.7])
    for w in (np.zeros(8), [1.0, -1, 2, -2, 0, 0, 0.5, -0.5], [1.0, -1, 0, 0, 0, 0, 0, 0]):
        w = np.asarray(w)
        with pytest.raises((ValueError, ZeroDivisionError)) as one_shot:
            fm.brier_score_loss(y, p, sample_weight=w)
        err = type(one_shot.value)
        for compute in (True, False):
            with pytest.raises(err, match=str(one_shot.value)):
                out = fmd.brier_score_loss(da.from_array(y, chunks=3), da.from_array(p, chunks=3),
                                           sample_weight=da.from_array(w, chunks=3),
                                           compute=compute)
                if not compute:
                    out.compute()
    assert err is ZeroDivisionError


def test_errors_come_back_from_workers(client):
    bad = PROB.copy()
    bad[7000] = np.nan
    with pytest.raises(ValueError) as exc:
        fmd.brier_score_loss(YB, da.from_array(bad, chunks=1000))
    with pytest.raises(type(exc.value)):
        fm.brier_score_loss(YB, bad)


def test_same_signatures_as_the_top_level_functions():
    for name in fmd.__all__:
        if name == "accumulate":
            continue
        ours = dict(inspect.signature(getattr(fmd, name)).parameters)
        theirs = dict(inspect.signature(getattr(fm, name)).parameters)
        # **metric_kwargs (bootstrap, compare) stays last: compare the others in order
        for params in (ours, theirs):
            for k in [k for k, p in params.items() if p.kind is p.VAR_KEYWORD]:
                assert params.pop(k).name == "metric_kwargs", name
        assert list(ours)[:len(theirs)] == list(theirs), name
        for p in theirs.values():
            same_default = ours[p.name].default is p.default or ours[p.name].default == p.default
            assert same_default and ours[p.name].kind == p.kind, (name, p.name)
        # metrics by group: every metric function (not the resampling ones)
        extra = {"compute", "split_every"} | (set() if name in ("bootstrap", "compare")
                                               else {"groups"})
        assert set(ours) - set(theirs) == extra, name


# ----------------------------------------------------------------------------- optional


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)


def test_import_fastmetrics_does_not_import_dask():
    r = _run(
        "import sys, fastmetrics, fastmetrics.dask\n"
        "bad = [m for m in sys.modules if m == 'dask' or m.startswith(('dask.', 'distributed'))]\n"
        "assert not bad, bad\n"
    )
    assert r.returncode == 0, r.stderr


def test_the_real_dask_is_imported():
    # fastmetrics/dask.py must not shadow the dask package for its own absolute imports
    real, real_da = fmd._dask()
    assert real is dask and real_da is da and real is not fmd
    # the package's own directory, not fastmetrics/dask.py (the path itself may well contain
    # "fastmetrics", e.g. a virtual environment named after it)
    assert real.__name__ == "dask" and real.__file__.endswith(("dask/__init__.py",
                                                               "dask\\__init__.py"))
    assert not real.__file__.endswith(("fastmetrics/dask.py", "fastmetrics\\dask.py"))


def test_missing_dask_names_the_extra():
    r = _run(
        "import sys\n"
        "sys.modules['dask'] = None\n"
        "import fastmetrics.dask as fmd\n"
        "try:\n"
        "    fmd.accuracy_score([0, 1], [0, 1])\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    assert r.returncode == 0, r.stderr
    assert 'pip install "fastmetrics-kernels[dask]"' in r.stdout


def test_log_loss_takes_the_deprecated_y_pred_spelling(sync):
    """scikit-learn 1.9's ``y_pred=`` for the probabilities: the one-shot value, its
    FutureWarning, and its error when both spellings are given."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 500)
    p = rng.dirichlet(np.ones(3), 500)
    dy, dp = da.from_array(y, chunks=128), da.from_array(p, chunks=(128, 3))
    for name in ("log_loss", "d2_log_loss_score"):
        with pytest.warns(FutureWarning, match="renamed to `y_proba`"):
            got = getattr(fmd, name)(dy, y_pred=dp)
        with pytest.warns(FutureWarning, match="renamed to `y_proba`"):
            want = getattr(skm, name)(y, y_pred=p)
        assert got == pytest.approx(want, rel=1e-12)
        with pytest.raises(ValueError, match="Cannot use both"):
            getattr(fmd, name)(dy, dp, y_pred=dp)
