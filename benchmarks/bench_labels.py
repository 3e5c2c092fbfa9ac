"""Text and categorical labels: ``f1_score(average="macro")``, 6 classes, one thread, each
input type against the same labels as int64 (the goal: within 3x of the int64 time) and
against scikit-learn, same data, same run; int64 and the text forms also with two threads
(two encoder lanes).

Each form is also timed against reading its input once (the physical floor of any pass over
it: ``np.bitwise_or.reduce`` over the words of both columns' buffers -- the ``<U8`` array,
the object array's pointers (the ``str`` objects themselves are not read by it), arrow's
offsets and data, polars' 16-byte string views, categorical codes). A ``<U8`` label is 32
bytes against int64's 8: a memory-bound encoder of ``<U8`` reads 4x the bytes of the int64
path, so its floor alone is ~4x the int64 floor.

The encoders themselves are timed against the same floor: ``encode_fixed`` (one and two
lanes), ``encode_str_objects``, ``encode_offsets``, ``encode_views``; shuffled labels and
the same labels sorted (rows grouped by label, as real files often are).

Run: python -m pytest benchmarks/bench_labels.py --benchmark-only
     python benchmarks/bench_labels.py [n ...]   (interleaved rounds; prints medians, the
                                                  ratio of each form to int64 and to its
                                                  read-once floor, and of each encoder to
                                                  its floor)
"""

import ctypes
import sys
import time

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm
from fastmetrics._kernels import labels as label_kernel

pd = pytest.importorskip("pandas") if __name__ != "__main__" else __import__("pandas")
pa = pytest.importorskip("pyarrow") if __name__ != "__main__" else __import__("pyarrow")
pl = pytest.importorskip("polars") if __name__ != "__main__" else __import__("polars")
import pyarrow.compute as pc  # noqa: E402

# sorted, so the int64 codes list the classes in the strings' order (the macro average then
# sums the same per-class values in the same order: equal to the last bit)
NAMES = np.array(["ham", "negative", "neutral", "other", "positive", "spam"])
SKLEARN_MAX = 10**6  # scikit-learn's string path takes seconds per call above


def _forms(n, seed=2024):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, NAMES.shape[0], n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, NAMES.shape[0], n))
    ua, ub = NAMES[a].astype("<U8"), NAMES[b].astype("<U8")
    return {
        "int64": (a, b),
        "<U8": (ua, ub),
        "object str": (ua.astype(object), ub.astype(object)),
        "pandas str": (pd.Series(ua, dtype="str"), pd.Series(ub, dtype="str")),
        "pandas category": (pd.Series(ua, dtype="category"), pd.Series(ub, dtype="category")),
        "pyarrow dictionary": (pc.dictionary_encode(pa.array(ua)),
                               pc.dictionary_encode(pa.array(ub))),
        "polars String": (pl.Series(ua), pl.Series(ub)),
        "polars Categorical": (pl.Series(ua, dtype=pl.Categorical),
                               pl.Series(ub, dtype=pl.Categorical)),
    }, (ua, ub)


def _words(x) -> list:
    """The buffers a form's column is read from, as uint64 (or uint8 for a tail) arrays."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "O":  # the pointers
            return [np.ctypeslib.as_array(
                (ctypes.c_uint64 * x.shape[0]).from_address(x.ctypes.data))]
        return [x.view(np.uint64) if x.nbytes % 8 == 0 else x.view(np.uint8)]
    if isinstance(x, pd.Series):
        if isinstance(x.dtype, pd.CategoricalDtype):
            return [np.asarray(x.cat.codes)]
        return _words(pa.array(x.array))
    if isinstance(x, pl.Series):
        if x.dtype == pl.Categorical:
            return [x.to_physical().to_numpy()]
        return _words(x.to_arrow(compat_level=pl.CompatLevel.newest()))
    if isinstance(x, pa.ChunkedArray):
        return [w for c in x.chunks for w in _words(c)]
    if pa.types.is_dictionary(x.type):
        return [x.indices.to_numpy()]
    return [np.frombuffer(b, dtype=np.uint64 if b.size % 8 == 0 else np.uint8)
            for b in x.buffers()[1:] if b is not None]


def _read_once(xs):
    """A call that reads every buffer of the columns ``xs`` once."""
    words = [w for x in xs for w in _words(x)]
    return lambda: [np.bitwise_or.reduce(w) for w in words]


SIZES = [10**3, 10**6, 10**7]
FORMS = list(_forms(10)[0])


@pytest.fixture(scope="module", params=SIZES, ids=lambda n: f"n={n:.0e}")
def data(request, scaled):
    n = request.param if request.param <= 10**3 else scaled(request.param)
    forms, (ua, ub) = _forms(n)
    # every form must give the int64 path's value exactly; scikit-learn's to 1e-12
    ref = fm.f1_score(*forms["int64"], average="macro")
    assert ref == pytest.approx(skm.f1_score(*forms["int64"], average="macro"), rel=1e-12)
    return n, forms, ua, ub, ref


@pytest.mark.parametrize("form", FORMS)
def test_f1_macro_form(benchmark, data, form):
    n, forms, _, _, ref = data
    benchmark.group = f"f1_score macro, 6 classes, n={n}"
    yt, yp = forms[form]
    assert benchmark.pedantic(fm.f1_score, args=(yt, yp),
                              kwargs={"average": "macro", "n_threads": 1},
                              rounds=5 if n > 10**5 else 50, iterations=1) == ref


#: the forms timed with two threads too (two encoder lanes; int64 two counting lanes)
TWO_THREAD_FORMS = ["int64", "<U8", "object str", "pandas str", "polars String"]


@pytest.mark.parametrize("form", TWO_THREAD_FORMS)
def test_f1_macro_two_threads(benchmark, data, form):
    n, forms, _, _, ref = data
    benchmark.group = f"f1_score macro, 6 classes, n={n}"
    assert benchmark.pedantic(fm.f1_score, args=forms[form],
                              kwargs={"average": "macro", "n_threads": 2},
                              rounds=5 if n > 10**5 else 50, iterations=1) == ref


@pytest.mark.parametrize("form", FORMS)
def test_read_once_floor(benchmark, data, form):
    n, forms, _, _, _ = data
    benchmark.group = f"f1_score macro, 6 classes, n={n}"
    benchmark.pedantic(_read_once(forms[form]), rounds=5 if n > 10**5 else 50, iterations=1)


def test_f1_macro_sklearn_strings(benchmark, data):
    n, _, ua, ub, ref = data
    benchmark.group = f"f1_score macro, 6 classes, n={n}"
    if n > SKLEARN_MAX:
        pytest.skip("scikit-learn on 10^7 strings: run at 10^6 (the ratio holds)")
    got = benchmark.pedantic(skm.f1_score, args=(ua, ub), kwargs={"average": "macro"},
                             rounds=3 if n > 10**5 else 20, iterations=1)
    assert got == pytest.approx(ref, rel=1e-12)


def _encoders(n, order, seed=7):
    """``{encoder: (encode call, read-once call, the labels)}`` for n ``<U8`` labels,
    shuffled or sorted."""
    rng = np.random.default_rng(seed)
    u = NAMES[rng.integers(0, NAMES.shape[0], n)].astype("<U8")
    if order == "sorted":
        u = np.sort(u)
    o = u.astype(object)
    arr = pa.array(o.tolist())
    _, ob, db = arr.buffers()
    off = np.frombuffer(ob, dtype=np.int32)[: n + 1]
    dat = np.frombuffer(db, dtype=np.uint8)
    views = pa.array(o.tolist(), type=pa.string_view())
    vb = views.buffers()
    vw, vdata = np.frombuffer(vb[1], dtype=np.uint8)[:16 * n], list(vb[2:])
    return {
        "encode_fixed <U8": (lambda: label_kernel.encode_fixed(u), _read_once([u]), u),
        "encode_fixed <U8 2 lanes": (lambda: label_kernel.encode_fixed(u, 2),
                                     _read_once([u]), u),
        "encode_str_objects": (lambda: label_kernel.encode_str_objects(o), _read_once([o]), u),
        "encode_str_objects 2 lanes": (lambda: label_kernel.encode_str_objects(o, 2),
                                       _read_once([o]), u),
        "encode_offsets": (lambda: label_kernel.encode_offsets(off, dat), _read_once([arr]),
                           u),
        "encode_offsets 2 lanes": (lambda: label_kernel.encode_offsets(off, dat, 2),
                                   _read_once([arr]), u),
        "encode_views": (lambda: label_kernel.encode_views(vw, vdata), _read_once([views]),
                         u),
        "encode_views 2 lanes": (lambda: label_kernel.encode_views(vw, vdata, 2),
                                 _read_once([views]), u),
    }


ENCODERS = ["encode_fixed <U8", "encode_fixed <U8 2 lanes", "encode_str_objects",
            "encode_str_objects 2 lanes", "encode_offsets", "encode_offsets 2 lanes",
            "encode_views", "encode_views 2 lanes"]


@pytest.mark.parametrize("order", ["shuffled", "sorted"])
@pytest.mark.parametrize("which", ENCODERS)
@pytest.mark.parametrize("part", ["encoder", "read-once"])
def test_encoder_against_read_once(benchmark, scaled, order, which, part):
    n = scaled(10**6)
    enc, floor, u = _encoders(n, order)[which]
    benchmark.group = f"label encoder vs read-once, {which}, {order}, n={n}"
    if part == "read-once":
        benchmark.pedantic(floor, rounds=5, iterations=1)
        return
    codes, first = benchmark.pedantic(enc, rounds=5, iterations=1)
    assert np.array_equal(u[first][codes], u)


def _median_ms(ts):
    return float(np.median(ts)) * 1e3


def encoder_ratios(n, rounds=7):
    """Print each encoder's median against its read-once floor, interleaved."""
    for order in ("shuffled", "sorted"):
        for name, (enc, floor, _) in _encoders(n, order).items():
            te, tf = [], []
            for _ in range(rounds):
                for fn, ts in ((floor, tf), (enc, te)):
                    t0 = time.perf_counter()
                    fn()
                    ts.append(time.perf_counter() - t0)
            me, mf = _median_ms(te), _median_ms(tf)
            print(f"  {name:27s} {order:8s} {me:8.2f} ms   read once {mf:6.2f} ms"
                  f"   {me / mf:5.2f}x")


def main(sizes, rounds=7):
    for n in sizes:
        forms, (ua, ub) = _forms(n)
        ref = fm.f1_score(*forms["int64"], average="macro")
        calls = {k: (lambda x=x, y=y: fm.f1_score(x, y, average="macro", n_threads=1))
                 for k, (x, y) in forms.items()}
        for k in TWO_THREAD_FORMS:
            x, y = forms[k]
            calls[f"{k}, 2 threads"] = (
                lambda x=x, y=y: fm.f1_score(x, y, average="macro", n_threads=2))
        if n <= SKLEARN_MAX:
            calls["scikit-learn <U8"] = lambda: skm.f1_score(ua, ub, average="macro")
        floors = {k: _read_once(xy) for k, xy in forms.items()}
        times = {k: [] for k in calls}
        ftimes = {k: [] for k in floors}
        for _ in range(rounds):  # interleaved: each round times every contender once
            for k, fn in calls.items():
                t0 = time.perf_counter()
                got = fn()
                times[k].append(time.perf_counter() - t0)
                assert got == ref if k in forms or "threads" in k else (
                    abs(got - ref) <= 1e-12 * abs(ref)), k
                if k in forms:
                    t0 = time.perf_counter()
                    floors[k]()
                    ftimes[k].append(time.perf_counter() - t0)
        base = _median_ms(times["int64"])
        print(f"\nf1_score(average='macro'), n={n:.0e}, 6 classes, one thread unless said "
              f"(then /int64 is to int64 at the same threads), median of {rounds}")
        print(f"  {'':26s} {'time':>10s}   {'/int64':>7s}   {'read once':>9s}   "
              f"{'/read once':>10s}")
        for k, ts in times.items():
            m = _median_ms(ts)
            fk = k.split(",")[0] if k.split(",")[0] in ftimes else None  # same input
            f = f"{_median_ms(ftimes[fk]):6.2f} ms   {m / _median_ms(ftimes[fk]):9.1f}x" \
                if fk else ""
            b = _median_ms(times["int64, 2 threads"]) if "threads" in k else base
            print(f"  {k:26s} {m:7.2f} ms   {m / b:6.2f}x   {f}")
        print(f"\nlabel encoders against reading their input once, n={n:.0e}")
        encoder_ratios(n)


if __name__ == "__main__":
    main([int(float(a)) for a in sys.argv[1:]] or [10**6, 10**7])
