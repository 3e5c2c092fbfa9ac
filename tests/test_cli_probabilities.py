"""Probability columns matched to classes: a matrix's columns follow a ``classes`` array or
``--prob-classes`` when given, the sorted labels otherwise; columns that the predictions say
are out of order stop the report (exit 2, one line naming the likely order) or, with
``--allow-prob-mismatch``, warn. ``score_probabilities`` makes the same check."""

import json
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import fastmetrics as fm
from fastmetrics._prob_order import (agreement_table, check_column_order, column_order,
                                     one_column_table)
from fastmetrics.cli import main

CANCER = np.array(["malignant", "benign"])  # the dataset's target 0, 1: not sorted


def fitted(loader):
    X, y = loader(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(X, y)
    return y, model.predict(X), model.predict_proba(X)


@pytest.fixture(scope="module")
def cancer():
    return fitted(load_breast_cancer)


@pytest.fixture(scope="module")
def iris():
    return fitted(load_iris)


def run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def calibration(out):
    d = json.loads(out)
    return {k: d[f"calibration.{k}"] for k in ("ece", "mce", "brier")}


def expected(y_true, y_prob, labels):
    s = fm.calibration_summary(y_true, y_prob, labels=labels)
    return {"ece": s.ece, "mce": s.mce, "brier": s.brier}


def same(got, want):
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-12, abs=1e-15), k


def test_classes_array_in_the_npz(cancer, tmp_path, capsys):
    y, pred, proba = cancer
    for key in ("classes", "classes_"):
        path = tmp_path / f"{key}.npz"
        np.savez(path, y_true=CANCER[y], y_pred=CANCER[pred], proba=proba,
                 **{key: CANCER})
        rc, out, err = run(["report", str(path), "--prob", "proba", "--format", "json"],
                           capsys)
        assert rc == 0, err
        got = calibration(out)
        same(got, expected(CANCER[y], proba, list(CANCER)))
        # two classes: the top-label Brier is scikit-learn's binary one (the wrong order
        # gave 0.93)
        assert got["brier"] == pytest.approx(brier_score_loss(y, proba[:, 1]), rel=1e-12)


def test_prob_classes_flag(cancer, tmp_path, capsys):
    y, pred, proba = cancer
    path = tmp_path / "c.npz"
    np.savez(path, y_true=CANCER[y], y_pred=CANCER[pred], proba=proba)
    rc, out, err = run(["report", str(path), "--prob", "proba", "--prob-classes",
                        "malignant", "benign", "--format", "json"], capsys)
    assert rc == 0, err
    same(calibration(out), expected(CANCER[y], proba, list(CANCER)))
    # the flag wins over an array in the file
    np.savez(path, y_true=CANCER[y], y_pred=CANCER[pred], proba=proba,
             classes=CANCER[::-1])
    rc, out2, err = run(["report", str(path), "--prob", "proba", "--prob-classes",
                         "malignant", "benign", "--format", "json"], capsys)
    assert rc == 0 and calibration(out2) == calibration(out)


def test_absent_and_in_label_order(cancer, tmp_path, capsys):
    """Columns in sorted label order need no classes (as before)."""
    y, pred, proba = cancer
    names = np.array(["benign", "malignant"])[1 - y], np.array(["benign", "malignant"])[1 - pred]
    path = tmp_path / "sorted.npz"
    np.savez(path, y_true=names[0], y_pred=names[1], proba=proba[:, ::-1])
    rc, out, err = run(["report", str(path), "--prob", "proba", "--format", "json"], capsys)
    assert rc == 0 and err == ""
    same(calibration(out), expected(names[0], proba[:, ::-1], ["benign", "malignant"]))


def test_absent_and_permuted_stops(cancer, tmp_path, capsys):
    y, pred, proba = cancer
    path = tmp_path / "c.npz"
    np.savez(path, y_true=CANCER[y], y_pred=CANCER[pred], proba=proba)
    rc, out, err = run(["report", str(path), "--prob", "proba"], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "out of order" in err and "holding malignant, benign" in err
    assert "--prob-classes" in err and "--allow-prob-mismatch" in err
    # asked to go on: a warning, and the numbers in the order given
    rc, out, err = run(["report", str(path), "--prob", "proba", "--allow-prob-mismatch",
                        "--format", "json"], capsys)
    assert rc == 0
    assert "warning: the probability columns look out of order" in err
    same(calibration(out), expected(CANCER[y], proba, ["benign", "malignant"]))


def test_multiclass_positional_npy(iris, tmp_path, capsys):
    """A 2-D NPY array: labels 10, 20, 30 and the probabilities of (30, 10, 20)."""
    y, pred, proba = iris
    labels = np.array([10, 20, 30])
    perm = [2, 0, 1]
    a = np.column_stack([labels[y], labels[pred], proba[:, perm]]).astype(np.float64)
    path = tmp_path / "iris.npy"
    np.save(path, a)
    base = ["report", str(path), "--true", "0", "--pred", "1", "--prob", "2", "3", "4"]
    rc, out, err = run(base, capsys)
    assert rc == 2 and "holding 30, 10, 20" in err and err.count("\n") == 1
    rc, out, err = run(base + ["--prob-classes", "30", "10", "20", "--format", "json"],
                       capsys)
    assert rc == 0, err
    same(calibration(out), expected(labels[y], proba, [10, 20, 30]))


def test_multiclass_npz_matrix_permuted(iris, tmp_path, capsys):
    y, pred, proba = iris
    names = np.array(["setosa", "versicolor", "virginica"])
    path = tmp_path / "iris.npz"
    np.savez(path, y_true=names[y], y_pred=names[pred], proba=proba[:, [1, 2, 0]])
    rc, out, err = run(["report", str(path), "--prob", "proba"], capsys)
    assert rc == 2 and "holding versicolor, virginica, setosa" in err
    np.savez(path, y_true=names[y], y_pred=names[pred], proba=proba[:, [1, 2, 0]],
             classes=names[[1, 2, 0]])
    rc, out, err = run(["report", str(path), "--prob", "proba", "--format", "json"], capsys)
    assert rc == 0, err
    same(calibration(out), expected(names[y], proba, list(names)))


def test_named_columns_are_checked_too(cancer, tmp_path, capsys):
    """p_<class> columns swapped by mistake (their names lie): the same stop."""
    y, pred, proba = cancer
    rows = "".join(f"{CANCER[a]},{CANCER[b]},{float(p[1])!r},{float(p[0])!r}\n"
                   for a, b, p in zip(y, pred, proba))
    (tmp_path / "c.csv").write_text("y_true,y_pred,p_malignant,p_benign\n" + rows)
    rc, out, err = run(["report", str(tmp_path / "c.csv"), "--prob-prefix", "p_"], capsys)
    assert rc == 2 and "out of order" in err and "check the probability columns' names" in err
    # found by their names only, not asked for: the report goes on without them, and says so
    rc, out, err = run(["report", str(tmp_path / "c.csv"), "--format", "json"], capsys)
    assert rc == 0 and "are not used for calibration" in err and "out of order" in err
    assert "calibration.ece" not in json.loads(out)


def test_bad_prob_classes(cancer, tmp_path, capsys):
    y, pred, proba = cancer
    path = tmp_path / "c.npz"
    np.savez(path, y_true=CANCER[y], y_pred=CANCER[pred], proba=proba, p_benign=proba[:, 1])
    for extra, msg in [(["--prob", "proba", "--prob-classes", "a", "b", "c"],
                        "has 2 columns but 3 classes"),
                       (["--prob", "proba", "--prob-classes", "x", "benign"],
                        "not a label"),
                       (["--prob", "p_benign", "--prob-classes", "benign"],
                        "is a column of its own"),
                       (["--no-prob", "--prob-classes", "benign"], "--prob-classes")]:
        rc, out, err = run(["report", str(path), *extra], capsys)
        assert rc == 2 and msg in err and err.count("\n") == 1, (extra, err)
    np.savez(path, y_true=CANCER[y], y_pred=CANCER[pred], proba=proba,
             classes=np.zeros((2, 2)))
    rc, out, err = run(["report", str(path), "--prob", "proba"], capsys)
    assert rc == 2 and "'classes' array must be a 1-D array" in err


def test_score_probabilities_checks_the_order(cancer):
    y, pred, proba = cancer
    right = fm.score_probabilities(y, pred, proba)
    assert right.calibration.brier == fm.calibration_summary(y, proba).brier
    with pytest.raises(ValueError, match="out of order.*holding 1, 0.*labels="):
        fm.score_probabilities(y, pred, proba[:, ::-1])
    with pytest.warns(UserWarning, match="out of order"):
        swapped = fm.score_probabilities(y, pred, proba[:, ::-1], allow_prob_mismatch=True)
    assert swapped.calibration.brier == fm.calibration_summary(y, proba[:, ::-1]).brier
    # a binary probability too: that of the other label
    with pytest.raises(ValueError, match=r"y_prob does not look like that of label 1: .* "
                       r"exactly where it is under 0.5 on 100.0%.*positive label, 1"):
        fm.score_probabilities(y, pred, proba[:, 0])
    with pytest.warns(UserWarning, match="reported as given"):
        other = fm.score_probabilities(y, pred, proba[:, 0], allow_prob_mismatch=True)
    assert other.calibration.brier == fm.calibration_summary(y, proba[:, 0]).brier
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fm.score_probabilities(y, pred, proba[:, 1])
        # labels= gives the columns' classes
        fm.score_probabilities(CANCER[y], CANCER[pred], proba, labels=list(CANCER))
    with pytest.raises(ValueError, match="holding malignant, benign"):
        fm.score_probabilities(CANCER[y], CANCER[pred], proba, labels=list(CANCER[::-1]))


def test_column_order_edges():
    assert column_order(np.zeros((2, 2))).order is None  # no row
    assert column_order(np.array([[5, 0], [0, 5]])).order is None  # agrees
    assert column_order(np.array([[0, 3], [3, 0]])).order is None  # too few rows to tell
    assert column_order(np.array([[0, 30], [30, 0]])).order == (1, 0)
    # a poor model, not a permutation: every row topped by column 0
    assert column_order(np.array([[10, 0], [40, 0]])).order is None
    # a class never predicted takes the column left over
    v = column_order(np.array([[0, 0, 50], [60, 0, 0], [0, 0, 0]]))
    assert v.order == (1, 2, 0) and v.permuted_agreement == 1.0
    t = agreement_table(np.array([0, 0, 1, -1]), np.array([[.5, .5], [.2, .8], [.9, .1],
                                                           [0, 1]]))
    assert t.tolist() == [[1, 1], [1, 0]]
    # one column: a tie at 0.5 counts as its class (the first of p, 1 - p)
    t = one_column_table(np.array([True, False, True]), np.array([0.5, 0.5, 0.49]))
    assert t.tolist() == [[1, 1], [1, 0]]
    assert t.tolist() == agreement_table(
        np.array([0, 1, 0]), np.array([[.5, .5], [.5, .5], [.49, .51]])).tolist()
    assert check_column_order(np.array([[9, 1], [1, 9]]), ["a", "b"]).order is None


def test_one_column_of_another_label(cancer, tmp_path, capsys):
    """One probability column that holds the other label's probability (p_1 = P(0)): the
    predicted label is 1 exactly where it is under 0.5. Asked for: exit 2; found by its name
    only: left out with a warning; with --allow-prob-mismatch: reported as given."""
    y, pred, proba = cancer
    np.savez(tmp_path / "wrong.npz", y_true=y, y_pred=pred, p_1=proba[:, 0])
    np.savez(tmp_path / "right.npz", y_true=y, y_pred=pred, p_1=proba[:, 1])
    rc, out, err = run(["report", str(tmp_path / "wrong.npz"), "--prob", "p_1"], capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "column 'p_1' does not look like that of label 1" in err
    rc, out, err = run(["report", str(tmp_path / "wrong.npz"), "--format", "json"], capsys)
    assert rc == 0 and "are not used for calibration" in err
    assert "calibration.ece" not in json.loads(out)
    rc, out, err = run(["report", str(tmp_path / "wrong.npz"), "--prob", "p_1",
                        "--allow-prob-mismatch", "--format", "json"], capsys)
    assert rc == 0 and "reported as given" in err
    same(calibration(out), expected(y, proba[:, 0], None))
    rc, out, err = run(["report", str(tmp_path / "right.npz"), "--format", "json"], capsys)
    assert rc == 0 and err == ""
    got = calibration(out)
    same(got, expected(y, proba[:, 1], None))
    assert got["brier"] == pytest.approx(brier_score_loss(y, proba[:, 1]), rel=1e-12)
