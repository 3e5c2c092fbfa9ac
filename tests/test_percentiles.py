"""percentile / quantile against numpy: values and dtypes bit for bit, same warnings, same
NaN behaviour; the selection kernel on its own (radix passes forced with a tiny scratch)."""

import gc
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import fastmetrics as fm
from fastmetrics._kernels import select as _select
from fastmetrics.percentiles import METHODS

KERNEL_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64"]


def _call(fn, *args, **kwargs):
    """Result and warning messages of one call (warnings recorded, never raised)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = fn(*args, **kwargs)
    return res, sorted(str(w.message) for w in rec)


def assert_same(got, expected):
    assert type(got) is type(expected), (type(got), type(expected))
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype == e.dtype and g.shape == e.shape
    if e.dtype.kind == "f":
        # bit for bit, with every NaN alike and -0.0 == 0.0 (numpy's partition does not order
        # the two zeros, so which one lands at a rank is not defined)
        assert np.array_equal(g, e, equal_nan=True), (got, expected)
        assert np.array_equal(np.isnan(g), np.isnan(e))
    else:
        assert np.array_equal(g, e), (got, expected)


def check_both(a, q_pct, method):
    r, wr = _call(fm.percentile, a, q_pct, method=method)
    e, we = _call(np.percentile, a, q_pct, method=method)
    assert_same(r, e)
    assert wr == we
    q = np.true_divide(q_pct, 100) if not isinstance(q_pct, (int, float)) else q_pct / 100
    r, wr = _call(fm.quantile, a, q, method=method)
    e, we = _call(np.quantile, a, q, method=method)
    assert_same(r, e)
    assert wr == we


def _values(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return st.floats(allow_nan=True, allow_infinity=True, width=dt.itemsize * 8)
    info = np.iinfo(dt)
    return st.integers(int(info.min), int(info.max))


@st.composite
def data_and_q(draw):
    dtype = draw(st.sampled_from(KERNEL_DTYPES))
    n = draw(st.one_of(st.integers(1, 12), st.integers(1, 3000), st.just(100_000)))
    if n > 3000:  # large: seeded data, with duplicates and maybe NaN/inf
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        a = (rng.standard_normal(n) * 1000).astype(dtype) if dtype[0] == "f" else \
            rng.integers(0, 200, n).astype(dtype)
    else:
        # few distinct values often: many duplicates
        pool = draw(st.lists(_values(dtype), min_size=1, max_size=8))
        a = np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=dtype)
        if draw(st.booleans()):
            a = draw(hnp.arrays(dtype, n, elements=_values(dtype)))
    if draw(st.booleans()):
        a = np.sort(a)
    q = draw(st.one_of(
        st.floats(0, 100),
        st.sampled_from([0, 100, 50, 0.0, 100.0]),
        st.lists(st.floats(0, 100), min_size=1, max_size=6),
        st.lists(st.sampled_from([0.0, 100.0, 25.0, 99.0, 1.0]), min_size=1, max_size=5)
          .map(sorted),
    ))
    method = draw(st.sampled_from(METHODS))
    return a, q, method


@given(data_and_q())
def test_matches_numpy(case):
    a, q, method = case
    check_both(a, q, method)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_methods_dtypes_matrix(method, dtype):
    rng = np.random.default_rng(7)
    if dtype[0] == "f":
        a = rng.standard_normal(1001).astype(dtype)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, 1001, dtype=dtype, endpoint=True)
    for q in (37.3, [0, 5, 50, 95, 99, 100], np.array([12.5, 80.0], np.float32),
              np.float64(62.0), 100, [[10, 20], [30, 90]]):
        check_both(a, q, method)


@pytest.mark.parametrize("method", METHODS)
def test_nan_inf(method):
    a = np.array([3.0, -np.inf, 1.0, np.nan, np.inf, 2.0, np.inf])
    for q in (0, 50, 100, [0, 50, 100]):
        check_both(a, q, method)  # NaN anywhere: NaN everywhere
        check_both(a[~np.isnan(a)], q, method)  # inf - inf, as numpy (with its warning)
    # float32 data, non-weak scalar q: numpy returns the NaN in the input dtype
    check_both(np.array([1.0, np.nan], np.float32), np.float64(50), method)


def test_integer_q_quantile_keeps_dtype():
    a = np.array([4, 1, 3], dtype=np.int16)
    for q in (0, 1, [0, 1], np.array([1, 0])):
        r, e = fm.quantile(a, q), np.quantile(a, q)
        assert_same(r, e)


def test_nd_input_axis_none_and_views():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 30))
    assert_same(fm.percentile(a, [5, 50]), np.percentile(a, [5, 50]))
    assert_same(fm.percentile(a.T, 50), np.percentile(a.T, 50))  # non-contiguous: flattened
    assert_same(fm.percentile(a[:, 3], 50, axis=0), np.percentile(a[:, 3], 50, axis=0))
    assert_same(fm.percentile(a[::-3, 1], 50, axis=-1), np.percentile(a[::-3, 1], 50))
    assert_same(fm.quantile(np.float64(2.5), 0.3), np.quantile(np.float64(2.5), 0.3))


def test_layouts_and_input_not_modified():
    rng = np.random.default_rng(4)
    base = rng.standard_normal(5000)
    for a in (base[::3], base[::-2]):
        assert_same(fm.percentile(a, [1, 50, 99]), np.percentile(a, [1, 50, 99]))
    ro = base.copy()
    ro.flags.writeable = False
    assert_same(fm.percentile(ro, [1, 50, 99]), np.percentile(ro, [1, 50, 99]))
    swapped = base.astype(base.dtype.newbyteorder())  # documented: converted once
    assert_same(fm.percentile(swapped, [1, 50, 99]), np.percentile(swapped, [1, 50, 99]))
    before = base.copy()
    fm.percentile(base, [1, 50, 99], method="nearest")
    assert np.array_equal(base, before)


def test_other_dtypes_go_to_numpy():
    b = np.array([True, False, True])
    assert_same(fm.percentile(b, 50, method="lower"), np.percentile(b, 50, method="lower"))
    h = np.array([1.5, 2.5, 0.5], dtype=np.float16)
    assert_same(fm.percentile(h, 50), np.percentile(h, 50))


@pytest.mark.parametrize("fn,bad", [(fm.percentile, [-1, 101, np.nan, [50, 100.5]]),
                                    (fm.quantile, [-0.1, 1.01, np.nan, [0.5, np.nan]])])
def test_bad_q(fn, bad):
    for q in bad:
        with pytest.raises(ValueError, match="must be in the range"):
            fn(np.arange(5.0), q)


def test_bad_input():
    with pytest.raises(ValueError, match="empty"):
        fm.percentile(np.array([]), 50)
    with pytest.raises(ValueError, match="empty"):
        fm.quantile([], [0.5])
    with pytest.raises(ValueError, match="not supported for 2-D"):
        fm.percentile(np.ones((3, 4)), 50, axis=0)
    with pytest.raises(ValueError, match="out of bounds"):
        fm.percentile(np.ones(3), 50, axis=1)
    with pytest.raises(ValueError, match="not a valid method"):
        fm.percentile(np.ones(3), 50, method="median")
    with pytest.raises(ValueError, match="scalar or 1d"):
        fm.quantile(np.ones(3), np.full((1, 1, 1), 0.5))
    with pytest.raises(TypeError, match="real numbers"):
        fm.percentile(np.ones(3, complex), 50)


# -- the kernel ------------------------------------------------------------------------------


@given(st.sampled_from(KERNEL_DTYPES), st.integers(1, 4000), st.integers(0, 2**32 - 1),
       st.sampled_from([1, 5, 64, 1000, 10**6]), st.integers(0, 3))
def test_select_kernel_any_scratch(dtype, n, seed, cap, kind):
    """Every path of the radix select (gather, refine, wait for a histogram slot, resolve at
    a single key) against a full sort; a small cap forces the refinement passes."""
    rng = np.random.default_rng(seed)
    if dtype[0] == "f":
        a = [lambda: rng.standard_normal(n), lambda: np.round(rng.standard_normal(n)),
             lambda: rng.random(n) * 1e-300, lambda: np.full(n, -2.5)][kind]().astype(dtype)
        if n > 3:
            a[rng.integers(0, n, 2)] = [np.nan, -np.inf]
    else:
        info = np.iinfo(dtype)
        a = [lambda: rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True),
             lambda: rng.integers(0, 4, n).astype(dtype),
             lambda: np.full(n, info.max, dtype),
             lambda: rng.integers(info.max // 3, min(info.max // 3 + 70000, info.max), n,
                                  dtype=dtype)][kind]()
    ranks = np.unique(rng.integers(0, n, int(rng.integers(1, 40))))
    out = np.empty(ranks.shape[0], a.dtype)
    n_nan = _select.select(a, ranks, out, cap)
    expected = np.sort(a)[ranks]
    if a.dtype.kind == "f":
        assert np.array_equal(out, expected, equal_nan=True)
        assert n_nan == np.isnan(a).sum()
    else:
        assert np.array_equal(out, expected)


def test_select_many_ranks_beyond_one_round():
    rng = np.random.default_rng(5)
    a = rng.standard_normal(20000)
    ranks = np.arange(0, 20000, 13, dtype=np.int64)  # > 256 ranks: several rounds
    out = np.empty(ranks.shape[0])
    _select.select(a, ranks, out, 50)
    assert np.array_equal(out, np.sort(a)[ranks])


def test_nth_u64_adversarial():
    rng = np.random.default_rng(6)
    for a in (np.arange(5000, dtype=np.uint64), np.arange(5000, 0, -1).astype(np.uint64),
              np.zeros(3000, np.uint64), rng.integers(0, 3, 4000).astype(np.uint64),
              np.tile(np.array([1, 5000], np.uint64), 2000)):
        for k in (0, a.shape[0] // 2, a.shape[0] - 1):
            b = a.copy()
            _select.nth_u64(b, k)
            s = np.sort(a)
            assert b[k] == s[k] and (b[:k] <= b[k]).all() and (b[k + 1:] >= b[k]).all()


def test_select_rejects_bad_ranks():
    out = np.empty(2)
    with pytest.raises(ValueError, match="strictly increasing"):
        _select.select(np.ones(5), np.array([3, 3], np.int64), out)
    with pytest.raises(ValueError, match="strictly increasing"):
        _select.select(np.ones(5), np.array([3, 5], np.int64), out)


def test_threads_give_serial_result():
    rng = np.random.default_rng(8)
    a = rng.standard_normal(200_000)
    a.flags.writeable = False
    q = [1, 50, 95, 99]
    expected = np.percentile(a, q)
    errors = []

    def work():
        for _ in range(10):
            if not np.array_equal(fm.percentile(a, q), expected):
                errors.append(1)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_no_memory_growth():
    psutil = pytest.importorskip("psutil")
    proc = psutil.Process()
    rng = np.random.default_rng(9)
    big = rng.standard_normal(2_000_000)  # radix path: scratch + workspace per call
    small = rng.integers(0, 10**6, 300)
    for _ in range(20):
        fm.percentile(big, [50, 99])
    gc.collect()
    rss0 = proc.memory_info().rss
    for _ in range(100):
        fm.percentile(big, [50, 99])
    for _ in range(3000):
        fm.percentile(small, [50, 95, 99])
        fm.latency_stats(small)
    gc.collect()
    assert proc.memory_info().rss - rss0 < 20 * 2**20


def test_no_input_sized_allocation():
    tracemalloc = pytest.importorskip("tracemalloc")
    a = np.random.default_rng(10).standard_normal(4_000_000)  # 32 MB
    tracemalloc.start()
    try:
        got = fm.percentile(a, [50, 95, 99])
        ours = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        expected = np.percentile(a, [50, 95, 99])
        theirs = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(got, expected)
    assert theirs >= a.nbytes  # numpy copies the input
    assert ours < 12 * 2**20  # fixed scratch (8 MB) + workspace (~2.3 MB)


@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=300),
    st.sampled_from([np.float64, np.float32, np.int64, np.int16]),
)
def test_median_matches_numpy_bit_for_bit(values, dtype):
    a = np.array(values).astype(dtype)
    got, want = fm.median(a), np.median(a)
    assert got == want and np.asarray(got).dtype == np.asarray(want).dtype
    assert np.isnan(fm.median(np.array([1.0, np.nan, 2.0])))
    with pytest.raises(ValueError, match="empty"):
        fm.median(np.array([]))
