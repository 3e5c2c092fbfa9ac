"""Every kernel family reads 1-D inputs of any layout: fields of a packed record array have a
stride that is not a whole number of items (and, reversed, a negative one). Results must equal
those on contiguous copies; a kernel stepping in whole items would read the padding instead.
(Confusion and calibration have their own full dtype x layout matrices.)"""

import warnings

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.streaming import (
    CalibrationAccumulator,
    ConfusionAccumulator,
    QuantileAccumulator,
    RankingAccumulator,
    RegressionAccumulator,
)

N = 3001
_rng = np.random.default_rng(0)
Y = _rng.integers(0, 2, N).astype(np.int32)
S = _rng.random(N)
YT = _rng.standard_normal(N)
YP = YT + 0.1 * _rng.standard_normal(N)
LT = _rng.integers(0, 4, N).astype(np.int16)
LP = _rng.integers(0, 4, N).astype(np.int16)
G = _rng.integers(0, 3, N).astype(np.int32)
W = _rng.random(N)


def packed(a):
    """``a`` as a field of a packed record array, the padding byte set to 0xFF."""
    rec = np.zeros(a.shape[0], dtype=[("v", a.dtype), ("pad", np.uint8)])
    rec["v"] = a
    rec["pad"] = 0xFF
    out = rec["v"]
    assert out.strides[0] == a.dtype.itemsize + 1
    return out


def packed_reversed(a):
    out = packed(a[::-1])[::-1]
    assert out.strides[0] == -(a.dtype.itemsize + 1)
    return out


CASES = {
    "roc_auc": lambda f: fm.roc_auc_score(f(Y), f(S)),
    "roc_auc weighted": lambda f: fm.roc_auc_score(f(Y), f(S), sample_weight=f(W)),
    "average_precision": lambda f: fm.average_precision_score(f(Y), f(S)),
    "roc_curve": lambda f: np.concatenate(fm.roc_curve(f(Y), f(S))),
    "mse weighted": lambda f: fm.mean_squared_error(f(YT), f(YP), sample_weight=f(W)),
    "r2": lambda f: fm.r2_score(f(YT), f(YP)),
    "median_absolute_error": lambda f: fm.median_absolute_error(f(YT), f(YP)),
    "regression_summary": lambda f: fm.regression_summary(f(YT), f(YP)).mse,
    "percentile": lambda f: fm.percentile(f(S), [5, 50, 99]),
    "percentile float32": lambda f: fm.percentile(f(S.astype(np.float32)), [5, 50, 99]),
    "confusion weighted": lambda f: fm.confusion_matrix(f(LT), f(LP), sample_weight=f(W)),
    "f1 macro": lambda f: fm.f1_score(f(LT), f(LP), average="macro"),
    "ece weighted": lambda f: fm.expected_calibration_error(f(Y), f(S), sample_weight=f(W)),
    "group_metrics": lambda f: list(fm.group_metrics(f(LT), f(LP), f(G)).per_group.values()),
    "stream confusion": lambda f: ConfusionAccumulator(range(4)).update(
        f(LT), f(LP)).confusion_matrix(),
    "stream regression": lambda f: RegressionAccumulator().update(f(YT), f(YP)).result().mse,
    "stream calibration": lambda f: CalibrationAccumulator().update(
        f(Y), f(S)).curve()[0],
    "stream ranking": lambda f: RankingAccumulator().update(f(Y), f(S)).result().roc_auc,
    "stream sketch": lambda f: QuantileAccumulator().update(f(S)).result([0.5, 0.99]).values,
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("layout", [packed, packed_reversed])
def test_packed_record_fields_equal_contiguous(name, layout):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.asarray(CASES[name](lambda a: a), dtype=float)
        got = np.asarray(CASES[name](layout), dtype=float)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
