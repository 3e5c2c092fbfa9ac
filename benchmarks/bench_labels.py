"""Text and categorical labels: ``f1_score(average="macro")``, 6 classes, each input type
against the same labels as int64 (the goal: within 3x of the int64 time) and against
scikit-learn, same data, same run.

Run: python -m pytest benchmarks/bench_labels.py --benchmark-only
     python benchmarks/bench_labels.py [n ...]   (interleaved rounds; prints medians and
                                                  the ratio of each form to int64)
"""

import sys
import time

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm

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
    assert benchmark.pedantic(fm.f1_score, args=(yt, yp), kwargs={"average": "macro"},
                              rounds=5 if n > 10**5 else 50, iterations=1) == ref


def test_f1_macro_sklearn_strings(benchmark, data):
    n, _, ua, ub, ref = data
    benchmark.group = f"f1_score macro, 6 classes, n={n}"
    if n > SKLEARN_MAX:
        pytest.skip("scikit-learn on 10^7 strings: run at 10^6 (the ratio holds)")
    got = benchmark.pedantic(skm.f1_score, args=(ua, ub), kwargs={"average": "macro"},
                             rounds=3 if n > 10**5 else 20, iterations=1)
    assert got == pytest.approx(ref, rel=1e-12)


def main(sizes, rounds=5):
    for n in sizes:
        forms, (ua, ub) = _forms(n)
        ref = fm.f1_score(*forms["int64"], average="macro")
        calls = {k: (lambda x=x, y=y: fm.f1_score(x, y, average="macro"))
                 for k, (x, y) in forms.items()}
        if n <= SKLEARN_MAX:
            calls["scikit-learn <U8"] = lambda: skm.f1_score(ua, ub, average="macro")
        times = {k: [] for k in calls}
        for _ in range(rounds):  # interleaved: each round times every contender once
            for k, fn in calls.items():
                t0 = time.perf_counter()
                got = fn()
                times[k].append(time.perf_counter() - t0)
                assert got == ref if k in forms else abs(got - ref) <= 1e-12 * abs(ref), k
        base = np.median(times["int64"])
        print(f"\nf1_score(average='macro'), n={n:.0e}, 6 classes, median of {rounds}")
        for k, ts in times.items():
            m = np.median(ts)
            print(f"  {k:20s} {m * 1e3:10.1f} ms   {m / base:6.2f}x int64")


if __name__ == "__main__":
    main([int(float(a)) for a in sys.argv[1:]] or [10**6, 10**7])
