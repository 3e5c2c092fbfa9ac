"""The counting kernel's range pass and range guess against numpy / scikit-learn.

The kernel finds the value range with a vectorised min/max (any stride, every integer
dtype) and, for inputs longer than its probe, guesses the range from the head and checks
the guess while counting: labels the head did not show (sorted input, a late outlier) must
be counted exactly, with any thread count.
"""

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings, strategies as st

import fastmetrics as fm
from fastmetrics._kernels import confusion as kernel

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@settings(max_examples=200, deadline=None)
@given(dtype=st.sampled_from(DTYPES), n=st.integers(1, 300),
       step=st.sampled_from([1, 2, 3, -1, -2]), seed=st.integers(0, 2**32 - 1),
       extremes=st.booleans())
def test_minmax_matches_numpy(dtype, n, step, seed, extremes):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    base = rng.integers(info.min, info.max, n * abs(step), dtype=dtype, endpoint=True)
    if extremes:
        base[rng.integers(0, base.shape[0], 2)] = [info.min, info.max]
    a = base[::step]
    for stop in {1, a.shape[0], max(1, a.shape[0] // 2)}:
        assert kernel.minmax(a, stop) == (int(a[:stop].min()), int(a[:stop].max()))


def test_minmax_of_a_record_field():
    # a packed record field: a stride that is not a whole number of items
    rec = np.zeros(1001, dtype=[("a", np.int8), ("b", np.int64), ("c", np.int32)])
    rec["b"] = np.arange(1001) - 500
    rec["c"] = np.arange(1001) * 7
    assert kernel.minmax(rec["b"], 1001) == (-500, 500)
    assert kernel.minmax(rec["c"], 1001) == (0, 7000)
    assert fm.confusion_matrix(rec["c"] % 5, rec["b"] % 5).sum() == 1001


def test_minmax_empty_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        kernel.minmax(np.zeros(0, np.int32), 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [4095, 4096, 4097, 70_000, 300_000])
def test_labels_the_probe_does_not_see(dtype, n):
    rng = np.random.default_rng(n)
    k = 40 if np.dtype(dtype).itemsize > 1 or np.dtype(dtype).kind == "u" else 30
    # sorted y_true: the head holds only its smallest label
    yt = np.sort(rng.integers(0, k, n)).astype(dtype)
    yp = np.where(rng.random(n) < 0.5, yt, rng.integers(0, k, n)).astype(dtype)
    ref = skm.confusion_matrix(yt, yp)
    for nt in (1, 2, 3):
        np.testing.assert_array_equal(fm.confusion_matrix(yt, yp, n_threads=nt), ref)
    # one late label far above, and (signed types) one far below the rest
    yt[-1] = np.iinfo(dtype).max
    if np.dtype(dtype).kind == "i":
        yp[-3] = np.iinfo(dtype).min
    ref = skm.confusion_matrix(yt, yp)
    for nt in (1, 2):
        np.testing.assert_array_equal(fm.confusion_matrix(yt, yp, n_threads=nt), ref)


@pytest.mark.parametrize("lo", [-3, 1, 100, 2**40])
def test_ranges_away_from_zero(lo):
    rng = np.random.default_rng(5)
    n = 100_000
    yt = rng.integers(lo, lo + 6, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(lo, lo + 6, n))
    ref = skm.confusion_matrix(yt, yp)
    for nt in (1, 2):
        np.testing.assert_array_equal(fm.confusion_matrix(yt, yp, n_threads=nt), ref)
