"""DeLong's interval and paired test of ROC AUC: fastmetrics against the same fast algorithm in
numpy (Sun & Xu's midranks, as the common Python implementations write it) and against what
people run without it, a 1,000-resample bootstrap of scikit-learn's roc_auc_score.

The bootstrap is measured on ``BOOT_MEASURED`` resamples only and reported as such (group
name and ``extra_info["extrapolate_x"]``): its 1,000-resample time is that times
``1000 / BOOT_MEASURED`` (each resample is one independent roc_auc_score call on N rows).
"""

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

BOOT_RESAMPLES = 1000
BOOT_MEASURED = 3


@pytest.fixture(scope="module", params=[10**6, 10**7], ids=["1e6", "1e7"])
def data(request, scaled):
    n = scaled(request.param)
    rng = np.random.default_rng(2026)
    y = rng.integers(0, 2, n)
    a = rng.normal(size=n) + 0.8 * y
    b = 0.6 * a + 0.8 * rng.normal(size=n) + 0.3 * y  # correlated with A, a little better
    return request.param, y, a, b


# ----------------------------------------------------------------------------- numpy peer


def _midranks(x):
    """Average ranks (1-based) of x, ties sharing their mean rank: one argsort."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    start = np.empty(x.shape[0], dtype=bool)
    start[:1] = True
    np.not_equal(xs[1:], xs[:-1], out=start[1:])
    first = np.flatnonzero(start)
    last = np.append(first[1:], x.shape[0])
    mid = (first + last + 1) / 2.0
    ranks = np.empty(x.shape[0])
    ranks[order] = np.repeat(mid, last - first)
    return ranks


def _numpy_placements(y, s):
    """Sun & Xu (2014): V10 = (T_Z - T_X) / n, V01 = 1 - (T_Z - T_Y) / m from the midranks
    of the pooled (T_Z), the positive (T_X) and the negative (T_Y) scores."""
    pos = y == 1
    x, z = s[pos], s[~pos]
    m, n = x.shape[0], z.shape[0]
    tz = _midranks(np.concatenate([x, z]))
    auc = (tz[:m].sum() - m * (m + 1) / 2) / (m * n)
    return auc, (tz[:m] - _midranks(x)) / n, 1 - (tz[m:] - _midranks(z)) / m


def numpy_delong_ci(y, s):
    auc, v10, v01 = _numpy_placements(y, s)
    return auc, v10.var(ddof=1) / v10.shape[0] + v01.var(ddof=1) / v01.shape[0]


def numpy_delong_test(y, a, b):
    auc_a, a10, a01 = _numpy_placements(y, a)
    auc_b, b10, b01 = _numpy_placements(y, b)
    cov = np.cov(a10, b10) / a10.shape[0] + np.cov(a01, b01) / a01.shape[0]
    return auc_b - auc_a, cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]


def sklearn_bootstrap(y, *scores, resamples=BOOT_MEASURED):
    """Row-resampling bootstrap of roc_auc_score (of B - A when two models are given)."""
    rng = np.random.default_rng(0)
    out = []
    for _ in range(resamples):
        idx = rng.integers(0, y.shape[0], y.shape[0])
        vals = [skm.roc_auc_score(y[idx], s[idx]) for s in scores]
        out.append(vals[-1] - vals[0] if len(vals) == 2 else vals[0])
    return np.array(out)


def _run(benchmark, fn, *args, size):
    if size > 10**6:
        return benchmark.pedantic(fn, args=args, rounds=1, iterations=1)
    return benchmark.pedantic(fn, args=args, rounds=3, iterations=1)


# ----------------------------------------------------------------------------- delong_ci


@pytest.mark.parametrize("lib", ["fastmetrics", "numpy", "sklearn-bootstrap"])
def test_delong_ci(benchmark, data, lib):
    size, y, a, _ = data
    want = fm.delong_ci(y, a)
    if lib == "sklearn-bootstrap":
        benchmark.group = (f"delong_ci n={size:.0e} (bootstrap: {BOOT_MEASURED} of "
                           f"{BOOT_RESAMPLES} resamples measured)")
        benchmark.extra_info["extrapolate_x"] = BOOT_RESAMPLES / BOOT_MEASURED
        vals = _run(benchmark, sklearn_bootstrap, y, a, size=size)
        # a resample's AUC lies within a few DeLong standard errors of the AUC
        assert np.all(np.abs(vals - want.auc) < 6 * want.standard_error)
        return
    benchmark.group = f"delong_ci n={size:.0e}"
    if lib == "fastmetrics":
        got = _run(benchmark, fm.delong_ci, y, a, size=size)
        assert got.auc == pytest.approx(skm.roc_auc_score(y, a), rel=1e-12)
        auc, var = numpy_delong_ci(y, a)
        assert got.variance == pytest.approx(var, rel=1e-10)
    else:
        auc, var = _run(benchmark, numpy_delong_ci, y, a, size=size)
        assert auc == pytest.approx(want.auc, rel=1e-12)
        assert var == pytest.approx(want.variance, rel=1e-10)


# ----------------------------------------------------------------------------- delong_test


@pytest.mark.parametrize("lib", ["fastmetrics", "numpy", "sklearn-bootstrap"])
def test_delong_test(benchmark, data, lib):
    size, y, a, b = data
    want = fm.delong_test(y, a, b)
    if lib == "sklearn-bootstrap":
        benchmark.group = (f"delong_test n={size:.0e} (bootstrap: {BOOT_MEASURED} of "
                           f"{BOOT_RESAMPLES} resamples measured)")
        benchmark.extra_info["extrapolate_x"] = BOOT_RESAMPLES / BOOT_MEASURED
        vals = _run(benchmark, sklearn_bootstrap, y, a, b, size=size)
        assert np.all(np.abs(vals - want.difference) < 6 * want.standard_error)
        return
    benchmark.group = f"delong_test n={size:.0e}"
    if lib == "fastmetrics":
        got = _run(benchmark, fm.delong_test, y, a, b, size=size)
        diff, var = numpy_delong_test(y, a, b)
        assert got.difference == pytest.approx(diff, rel=1e-10)
        assert got.variance == pytest.approx(var, rel=1e-10)
    else:
        diff, var = _run(benchmark, numpy_delong_test, y, a, b, size=size)
        assert diff == pytest.approx(want.difference, rel=1e-10)
        assert var == pytest.approx(want.variance, rel=1e-10)
