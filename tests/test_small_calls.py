"""Small calls and import time: the one-C-call state of small integer inputs gives exactly
the general path's state and scikit-learn's numbers, keeps every check, and ``import
fastmetrics`` stays light (scikit-learn's warning classes looked up on first use)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
import sklearn.exceptions
import sklearn.metrics as skm
from hypothesis import given, settings, strategies as st

import fastmetrics as fm
from fastmetrics._kernels import confusion as kernel
from fastmetrics._kernels.smallcount import SMALL_MAX_N, SMALL_MAX_SPAN, small_state
from fastmetrics.states import ConfusionState

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.intc, np.uintc, np.longlong, np.ulonglong]


def _general(yt, yp):
    """The laned kernel's state of the same arrays (the path small calls skip)."""
    values, cm, in_true = kernel.dense_state(yt.view(np.uint8) if yt.dtype == bool else yt,
                                             yp.view(np.uint8) if yp.dtype == bool else yp,
                                             1024, 1)
    return values.astype(yt.dtype), cm, in_true


def _same_state(yt, yp):
    res = small_state(yt, yp)
    assert res is not None
    values, cm, in_true = res
    gv, gcm, gin = _general(yt, yp)
    assert values.dtype == yt.dtype
    np.testing.assert_array_equal(values, gv)
    assert cm.dtype == np.int64
    np.testing.assert_array_equal(cm, gcm)
    np.testing.assert_array_equal(in_true, gin)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(INT_DTYPES), st.integers(1, 300), st.integers(1, SMALL_MAX_SPAN),
       st.integers(-5, 120), st.sampled_from([1, 2, -1, -3]), st.integers(0, 2**32 - 1))
def test_small_state_is_the_general_state(dtype, n, span, lo, step, seed):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    lo = min(max(lo, int(info.min)), int(info.max) - span + 1)
    base_t = rng.integers(lo, lo + span, n * abs(step)).astype(dtype)
    base_p = rng.integers(lo, lo + span, n * abs(step)).astype(dtype)
    yt, yp = base_t[::step], base_p[::-step]  # strided and reversed views are read in place
    _same_state(yt, yp)
    with warnings.catch_warnings():  # one label: both warn alike (tested below)
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(fm.confusion_matrix(yt, yp),
                                      skm.confusion_matrix(yt, yp))
        assert fm.f1_score(yt, yp, average="macro") == skm.f1_score(yt, yp, average="macro")


def test_bool_and_extreme_values():
    yt = np.array([True, False, True, True])
    yp = np.array([True, True, False, True])
    _same_state(yt, yp)
    np.testing.assert_array_equal(fm.confusion_matrix(yt, yp), skm.confusion_matrix(yt, yp))
    for dtype in (np.int64, np.uint64, np.int8, np.uint8):
        info = np.iinfo(dtype)
        top = np.array([info.max, info.max - 1, info.max], dtype=dtype)
        bottom = np.array([info.min, info.min + 3, info.min + 1], dtype=dtype)
        if dtype == np.uint64:  # above int64: not counted here, the general path does it
            assert small_state(top, top[::-1]) is None
        else:
            _same_state(top, top[::-1])
        _same_state(bottom, bottom[::-1])
        np.testing.assert_array_equal(fm.confusion_matrix(top, top[::-1]),
                                      skm.confusion_matrix(top, top[::-1]))


def test_what_small_state_leaves_to_the_general_path():
    a = np.arange(10) % 3
    assert small_state(a, a) is not None
    refused = [
        (a.tolist(), a),  # not an ndarray
        (a, a.astype(np.int32)),  # two dtypes
        (a, a[:-1]),  # two lengths
        (a[:0], a[:0]),  # empty
        (a.reshape(-1, 1), a.reshape(-1, 1)),  # 2-D
        (a.astype(">i8"), a.astype(">i8")),  # byte-swapped
        (a.astype(float), a.astype(float)),  # floats
        (np.array([0, SMALL_MAX_SPAN]), np.array([0, 1])),  # range wider than the table
        (np.zeros(SMALL_MAX_N + 1, dtype=int), np.zeros(SMALL_MAX_N + 1, dtype=int)),
        (np.ma.masked_array(a), np.ma.masked_array(a)),  # a subclass
    ]
    for yt, yp in refused:
        assert small_state(yt, yp) is None
    edge = np.zeros(SMALL_MAX_N, dtype=int)
    edge[-1] = SMALL_MAX_SPAN - 1
    _same_state(edge, edge[::-1])


def test_small_calls_keep_the_checks_and_warnings():
    yt = np.array([0, 1, 2, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.confusion_matrix(yt, yt[:3])
    with pytest.raises(TypeError, match="n_threads"):
        fm.confusion_matrix(yt, yt, n_threads=1.5)
    with pytest.raises(ValueError, match="n_threads"):
        fm.f1_score(yt, yt, average="macro", n_threads=0)
    with pytest.raises(ValueError, match="Target is multiclass but average='binary'"):
        fm.f1_score(yt, yt)
    with pytest.raises(ValueError, match="beta"):
        fm.fbeta_score(yt, yt, beta=float("nan"), average="macro")
    with pytest.raises(ValueError, match="beta"):
        fm.fbeta_score(yt, yt, beta=-1.0, average="macro")
    with pytest.warns(UserWarning, match="single label"):
        fm.confusion_matrix(np.array([3, 3]), np.array([3, 3]))
    yp = np.array([0, 0, 0, 1])
    with pytest.warns(sklearn.exceptions.UndefinedMetricWarning) as got:
        ours = fm.precision_score(yt, yp, average="macro")
    assert all(w.category is sklearn.exceptions.UndefinedMetricWarning for w in got)
    with pytest.warns(sklearn.exceptions.UndefinedMetricWarning):
        assert ours == skm.precision_score(yt, yp, average="macro")
    np.testing.assert_array_equal(fm.confusion_matrix(yt, yp, labels=[2, 1]),
                                  skm.confusion_matrix(yt, yp, labels=[2, 1]))
    # the state a small call gives is the user's to keep: later calls do not change it
    s = ConfusionState.from_arrays(yt, yp)
    cm = s.cm.copy()
    ConfusionState.from_arrays(yp, yt)
    np.testing.assert_array_equal(s.cm, cm)


def test_warning_classes_are_scikit_learns():
    assert fm.exceptions.UndefinedMetricWarning is sklearn.exceptions.UndefinedMetricWarning
    assert fm.classification.UndefinedMetricWarning is sklearn.exceptions.UndefinedMetricWarning
    assert fm.regression.UndefinedMetricWarning is sklearn.exceptions.UndefinedMetricWarning
    from fastmetrics.classification import UndefinedMetricWarning
    assert UndefinedMetricWarning is sklearn.exceptions.UndefinedMetricWarning
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        fm.classification.nothing  # noqa: B018
    with pytest.warns(sklearn.exceptions.UndefinedMetricWarning):
        fm.r2_score([1.0], [2.0])


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


HEAVY = ("sklearn", "scipy", "pandas", "dask", "pyarrow", "polars", "numba")


def test_import_does_not_import_heavy_packages():
    # the package, and the command line's entry module (`fastmetrics report` imports
    # pyarrow only to read a CSV or Parquet file)
    for module in ("fastmetrics", "fastmetrics.cli"):
        code = (f"import sys, {module}\n"
                f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
        assert _run(code) == "[]", module
    # the first ill-defined metric brings scikit-learn's class in, and only then
    code = ("import sys, warnings, fastmetrics as fm\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    fm.precision_score([0, 1], [0, 0])\n"
            "import sklearn.exceptions as e\n"
            "print(w[0].category is e.UndefinedMetricWarning)")
    assert _run(code) == "True"


def test_without_scikit_learn_the_own_class_is_used():
    code = ("import sys\n"
            "sys.modules['sklearn'] = None  # as if it were not installed\n"
            "import warnings, fastmetrics as fm\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    fm.precision_score([0, 1], [0, 0])\n"
            "c = w[0].category\n"
            "print(c.__name__, issubclass(c, UserWarning), "
            "c is fm.classification.UndefinedMetricWarning)")
    assert _run(code) == "UndefinedMetricWarning True True"
