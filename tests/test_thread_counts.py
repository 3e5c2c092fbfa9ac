"""Any thread count gives the same result: integer states identical, float states the same bits.

The parallel kernels split large inputs into lanes whose boundaries depend only on n (never
on the thread count) and merge the lane states in lane order, so 1, 2 and 8 threads must
agree exactly, also when the threads are limited from outside (threadpoolctl).
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import fastmetrics as fm
import fastmetrics._threads
from fastmetrics._threads import cpu_count as _cpu_count, openmp_enabled, resolve_n_threads

N = 700_000  # above every kernel's parallel threshold


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    yt = rng.integers(0, 7, N).astype(np.int32)
    yp = np.where(rng.random(N) < 0.6, yt, rng.integers(0, 7, N)).astype(np.int32)
    w = rng.random(N)
    p = rng.random(N)
    yb = (rng.random(N) < p).astype(np.int8)
    y = rng.standard_normal(N) * 3 + 1
    yhat = y + rng.standard_normal(N)
    for a in (yt, yp, w, p, yb, y, yhat):
        a.setflags(write=False)
    return yt, yp, w, p, yb, y, yhat


@pytest.mark.parametrize("weighted", [False, True])
def test_confusion_same_for_1_2_8_threads(data, weighted):
    yt, yp, w = data[:3]
    sw = w if weighted else None
    ref = fm.confusion_matrix(yt, yp, sample_weight=sw, n_threads=1)
    card = fm.score(yt, yp, sample_weight=sw, n_threads=1).to_flat_dict()
    for nt in (2, 8):
        got = fm.confusion_matrix(yt, yp, sample_weight=sw, n_threads=nt)
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)  # bit for bit, also with float weights
        assert fm.score(yt, yp, sample_weight=sw, n_threads=nt).to_flat_dict() == card
    # and scikit-learn's numbers
    from sklearn.metrics import confusion_matrix

    np.testing.assert_allclose(ref, confusion_matrix(yt, yp, sample_weight=sw), rtol=1e-12)


EXPLICIT = {
    "calibration": lambda d, nt: fm.calibration_summary(d[4], d[3], sample_weight=d[2],
                                                        n_threads=nt),
    "ece": lambda d, nt: fm.expected_calibration_error(d[4], d[3], n_bins=15, n_threads=nt),
    "pinball": lambda d, nt: fm.d2_pinball_score(d[5], d[6], sample_weight=d[2], alpha=0.8,
                                                 n_threads=nt),
    "regression": lambda d, nt: fm.regression_summary(d[5], d[6], sample_weight=d[2],
                                                      n_threads=nt),
    "r2": lambda d, nt: fm.r2_score(d[5], d[6], n_threads=nt),
    "huber": lambda d, nt: fm.huber_loss(d[5], d[6], delta=0.5, n_threads=nt),
}


@pytest.mark.parametrize("family", sorted(EXPLICIT))
def test_explicit_n_threads_same_bits(data, family):
    call = EXPLICIT[family]
    ref = _as_comparable(call(data, 1))
    for nt in (2, 8, None):
        assert _as_comparable(call(data, nt)) == ref
    with pytest.raises(ValueError, match="n_threads"):
        call(data, 0)


# the families that take their thread count from the OpenMP runtime: limited by threadpoolctl
FAMILIES = {
    "calibration": lambda d: fm.calibration_summary(d[4], d[3], sample_weight=d[2]),
    "brier": lambda d: fm.brier_score_loss(d[4], d[3], sample_weight=d[2]),
    "regression": lambda d: fm.regression_summary(d[5], d[6], sample_weight=d[2]),
    "auc": lambda d: fm.roc_auc_score(d[4], d[3], sample_weight=d[2]),
    "ap": lambda d: fm.average_precision_score(d[4], d[3]),
    "pinball": lambda d: fm.mean_pinball_loss(d[5], d[6], sample_weight=d[2], alpha=0.3),
    "percentile": lambda d: fm.percentile(d[5], [1, 50, 99.9]),
}


def _as_comparable(r):
    if isinstance(r, np.ndarray):
        return r.tolist()
    if hasattr(r, "__dict__") or hasattr(r, "__dataclass_fields__"):
        return repr(r)
    return r


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_runtime_thread_limit_gives_same_bits(data, family, monkeypatch):
    call = FAMILIES[family]
    monkeypatch.setattr(fastmetrics._threads, "busy_cpus", lambda: 0)  # an idle machine
    with threadpool_limits(limits=1, user_api="openmp"):
        assert resolve_n_threads(None) == 1
        one = _as_comparable(call(data))
    with threadpool_limits(limits=2, user_api="openmp"):
        assert resolve_n_threads(None) == (min(2, _cpu_count()) if openmp_enabled() else 1)
        two = _as_comparable(call(data))
    assert one == two


def test_explicit_n_threads_overrides_and_validates():
    assert resolve_n_threads(1) == 1
    assert resolve_n_threads(8) == (8 if openmp_enabled() else 1)
    with pytest.raises(ValueError, match="n_threads"):
        fm.confusion_matrix([0, 1], [1, 0], n_threads=0)
    with pytest.raises(TypeError, match="n_threads"):
        fm.confusion_matrix([0, 1], [1, 0], n_threads=1.5)
