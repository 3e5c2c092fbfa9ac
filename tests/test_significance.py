"""DeLong's interval and paired test of ROC AUC (fastmetrics.delong_ci / delong_test).

Checked against a straightforward O(n^2) implementation of the structural components written
here in exact rational arithmetic (every pair of a positive and a negative compared), against
scikit-learn's roc_auc_score for the AUCs, and against R pROC's published test values on its
aSAH data."""

import json
import math
import pathlib
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics.streaming import RankingAccumulator

RTOL = 1e-12
DATA = pathlib.Path(__file__).parent / "data"


# ----------------------------------------------------------------------------- the reference


def _psi(x, y) -> Fraction:
    return Fraction(1) if x > y else Fraction(1, 2) if x == y else Fraction(0)


def ref_placements(pos, s):
    """Every row's placement by comparing every positive with every negative, exactly:
    V10 (fraction of negatives below, ties half) for a positive, V01 for a negative."""
    P = [float(x) for x, p in zip(s, pos) if p]
    N = [float(x) for x, p in zip(s, pos) if not p]
    v = [sum(_psi(x, y) for y in N) / len(N) if p else sum(_psi(z, x) for z in P) / len(P)
         for x, p in zip((float(t) for t in s), pos)]
    auc = sum(vi for vi, p in zip(v, pos) if p) / len(P)
    return auc, v, len(P), len(N)


def ref_cov(pos, s_a, s_b):
    """DeLong's covariance of two AUCs (the variance when s_a is s_b), exactly:
    S10_ab / m + S01_ab / n with the ddof-1 sample covariances of the placements."""
    auc_a, va, m, n = ref_placements(pos, s_a)
    auc_b, vb, _, _ = ref_placements(pos, s_b)
    s10 = sum((x - auc_a) * (y - auc_b) for x, y, p in zip(va, vb, pos) if p) / (m - 1)
    s01 = sum((x - auc_a) * (y - auc_b) for x, y, p in zip(va, vb, pos) if not p) / (n - 1)
    return auc_a, auc_b, s10 / m + s01 / n


def ref_psi(pos, s):
    """The per-row centred components scaled by 1/sqrt(m(m-1)) or 1/sqrt(n(n-1)) (floats)."""
    auc, v, m, n = ref_placements(pos, s)
    return np.array([float(vi - auc) / math.sqrt(m * (m - 1) if p else n * (n - 1))
                     for vi, p in zip(v, pos)])


def ref_pvalue(z, alternative):
    if alternative == "two-sided":
        return math.erfc(abs(z) / math.sqrt(2))
    return 0.5 * math.erfc((z if alternative == "greater" else -z) / math.sqrt(2))


def rel(a, b, rtol=RTOL, atol=0.0):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------- strategies


@st.composite
def binary_problems(draw, n_scores=1):
    """Labels with at least two of each class and scores with many ties (a few levels)."""
    m = draw(st.integers(2, 9))
    n = draw(st.integers(2, 9))
    levels = draw(st.integers(1, 6))  # 1: every score equal
    y = np.array([1] * m + [0] * n)
    perm = np.array(draw(st.permutations(range(m + n))))
    scores = [np.array([draw(st.integers(0, levels - 1)) / 4 for _ in range(m + n)])
              for _ in range(n_scores)]
    return (y[perm], *scores)


# ----------------------------------------------------------------------------- delong_ci


@given(binary_problems())
def test_ci_equals_the_quadratic_reference(problem):
    y, s = problem
    r = fm.delong_ci(y, s)
    auc, _, var = ref_cov(y == 1, s, s)
    rel(r.auc, float(auc))
    rel(r.variance, float(var))
    rel(r.standard_error, math.sqrt(var))
    rel(r.auc, skm.roc_auc_score(y, s))
    assert (r.n_positive, r.n_negative) == (int((y == 1).sum()), int((y == 0).sum()))
    z = 1.959963984540054
    lo, hi = r.confidence_interval
    # auc - z * se is a difference of numbers <= 1: where it nearly cancels (a bound near 0),
    # its rounding (~1e-16 absolute) is a large relative error, so an absolute term is allowed
    rel([lo, hi], [max(0.0, float(auc) - z * math.sqrt(var)),
                   min(1.0, float(auc) + z * math.sqrt(var))], atol=1e-15)


@given(binary_problems(), st.sampled_from([0, 1]))
def test_ci_string_labels_and_pos_label(problem, pos):
    y, s = problem
    names = np.array(["bad", "good"])[y]
    r = fm.delong_ci(names, s, pos_label=names[np.flatnonzero(y == pos)[0]])
    auc, _, var = ref_cov(y == pos, s, s)
    rel(r.auc, float(auc))
    rel(r.variance, float(var))
    assert fm.delong_ci(names, s) == fm.delong_ci(y, s)  # "good" > "bad": the greater label


def test_ci_logit_transform_and_level():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    s = rng.normal(size=300) + y
    r = fm.delong_ci(y, s, confidence_level=0.9, transform="logit")
    z = 1.6448536269514722
    lg = math.log(r.auc / (1 - r.auc))
    half = z * r.standard_error / (r.auc * (1 - r.auc))
    rel(r.confidence_interval, [1 / (1 + math.exp(-(lg - half))), 1 / (1 + math.exp(-(lg + half)))])
    plain = fm.delong_ci(y, s, confidence_level=0.9)
    rel([plain.auc, plain.variance], [r.auc, r.variance])
    assert plain.confidence_interval != r.confidence_interval


def test_ci_degenerate_scores():
    y = np.array([0, 1, 0, 1, 1])
    r = fm.delong_ci(y, np.full(5, 0.3))  # all tied: every placement 1/2
    assert (r.auc, r.variance, r.confidence_interval) == (0.5, 0.0, (0.5, 0.5))
    r = fm.delong_ci(y, y + 0.5, transform="logit")  # perfect separation
    assert (r.auc, r.variance, r.confidence_interval) == (1.0, 0.0, (1.0, 1.0))


def test_one_vs_rest_checks_n_threads():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 300)
    p = rng.dirichlet(np.ones(3), 300)
    for bad, err in ((0, ValueError), ("2", TypeError), (1.5, TypeError)):
        with pytest.raises(err, match="n_threads"):
            fm.delong_ci(y, p, multi_class="ovr", n_threads=bad)
        with pytest.raises(err, match="n_threads"):
            fm.delong_test(y, p, p[::-1].copy(), multi_class="ovr", n_threads=bad)
    assert len({fm.delong_ci(y, p, multi_class="ovr", n_threads=t) for t in (1, 2)}) == 1


def test_ci_float32_and_lists():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 200)
    s = rng.random(200).astype(np.float32)
    rel(fm.delong_ci(y, s).variance, fm.delong_ci(y.tolist(), s.astype(np.float64)).variance)


def test_same_for_any_thread_count():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 1 << 18)
    s = rng.integers(0, 5000, 1 << 18) / 5000
    s2 = rng.random(1 << 18)
    results = {fm.delong_test(y, s, s2, n_threads=t) for t in (1, 2, 4)}
    assert len(results) == 1
    assert len({fm.delong_ci(y, s2, n_threads=t) for t in (1, 2, 4)}) == 1
    one = fm.delong_ci(y, s)
    t = results.pop()
    rel([t.auc_a, t.auc_b], [one.auc, fm.roc_auc_score(y, s2)])
    rel(t.variance, one.variance + fm.delong_ci(y, s2).variance - 2 * t.correlation
        * one.standard_error * fm.delong_ci(y, s2).standard_error)


def test_ci_streaming_and_dask_equal_the_one_shot():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 2000)
    s = rng.integers(0, 40, 2000) / 40
    want = fm.delong_ci(y, s, confidence_level=0.9)
    acc = RankingAccumulator(pos_label=None)
    for a, b in ((0, 7), (7, 1500), (1500, 2000)):
        acc.update(y[a:b], s[a:b])
    got = acc.delong_ci(confidence_level=0.9)
    rel([got.auc, got.variance, *got.confidence_interval],
        [want.auc, want.variance, *want.confidence_interval])
    zero = RankingAccumulator(pos_label=0).update(y, s).delong_ci()
    rel(zero.variance, fm.delong_ci(y, s, pos_label=0).variance)
    rel(zero.auc, 1 - want.auc)
    pytest.importorskip("dask")
    import dask
    import dask.array as da
    import fastmetrics.dask as fmd

    with dask.config.set(scheduler="synchronous"):
        d = fmd.delong_ci(da.from_array(y, chunks=333), da.from_array(s, chunks=333),
                          confidence_level=0.9)
    rel([d.auc, d.variance], [want.auc, want.variance])


def test_kernel_sums_stay_accurate_on_many_distinct_scores():
    """The one-shot kernel's running sums against the state's (numpy's pairwise sums) on
    10**6 distinct scores: a plain running sum drifts by ~1e-11 relative here."""
    rng = np.random.default_rng(14)
    y = rng.integers(0, 2, 10**6)
    s = rng.random(10**6) + 0.3 * y
    state = RankingAccumulator(pos_label=None).update(y, s).delong_ci()
    rel(fm.delong_ci(y, s).variance, state.variance, rtol=1e-14)


def test_ci_refuses_a_weighted_state():
    acc = RankingAccumulator(pos_label=None).update([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4],
                                                    [1.0, 2.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="unweighted"):
        acc.delong_ci()


# ----------------------------------------------------------------------------- delong_test


@given(binary_problems(n_scores=2), st.sampled_from(["two-sided", "greater", "less"]))
def test_paired_test_equals_the_quadratic_reference(problem, alternative):
    y, sa, sb = problem
    t = fm.delong_test(y, sa, sb, alternative=alternative)
    auc_a, _, var_a = ref_cov(y == 1, sa, sa)
    auc_b, _, var_b = ref_cov(y == 1, sb, sb)
    _, _, cov = ref_cov(y == 1, sa, sb)
    var = var_a + var_b - 2 * cov
    rel([t.auc_a, t.auc_b, t.difference], [float(auc_a), float(auc_b), float(auc_b - auc_a)])
    rel([t.auc_a, t.auc_b], [skm.roc_auc_score(y, sa), skm.roc_auc_score(y, sb)])
    # variances that are 0 exactly come out within rounding of 0
    rel(t.variance, float(var), atol=1e-16)
    if var > 0:
        z = float(auc_b - auc_a) / math.sqrt(var)
        rel(t.statistic, z)
        rel(t.pvalue, ref_pvalue(z, alternative))
    if var_a > 0 and var_b > 0:
        rel(t.correlation, float(cov) / math.sqrt(var_a * var_b), atol=1e-12)


def test_identical_models_give_z_0_and_p_1():
    y = np.array([0, 1, 0, 1, 1, 0])
    s = np.array([0.2, 0.9, 0.4, 0.4, 0.7, 0.1])
    t = fm.delong_test(y, s, s)
    assert (t.difference, t.variance, t.statistic, t.pvalue) == (0.0, 0.0, 0.0, 1.0)
    # tied A against perfect B: constant component difference, no variance, certain
    t = fm.delong_test(y, np.zeros(6), y.astype(float))
    assert (t.difference, t.variance, t.pvalue) == (0.5, 0.0, 0.0) and t.statistic == math.inf


def test_paired_test_string_labels_pos_label():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 40)
    names = np.array(["no", "yes"])[y]
    sa, sb = rng.random(40), rng.random(40) + 0.3 * y
    t = fm.delong_test(names, sa, sb, pos_label="no")
    _, _, cov = ref_cov(y == 0, sa, sb)
    _, _, var_a = ref_cov(y == 0, sa, sa)
    _, _, var_b = ref_cov(y == 0, sb, sb)
    rel(t.variance, float(var_a + var_b - 2 * cov))
    assert t == fm.delong_test(y, 1 - sa, 1 - sb)


# ----------------------------------------------------------------------------- published values


def _asah():
    """pROC's aSAH data rebuilt from its published DeLong placements (see the JSON file):
    with pooled midranks T, a case's placement is V10 = (T - T_cases) / n and a control's
    V01 = 1 - (T - T_controls) / m (Sun & Xu 2014), so T = n V10 + T_cases (cases) and
    T = m (1 - V01) + T_controls (controls): scores with exactly these placements."""
    from scipy.stats import rankdata

    d = json.loads((DATA / "proc_asah_placements.json").read_text())["markers"]
    out = {}
    for name, mk in d.items():
        x2, y2 = np.array(mk["x2"], float), np.array(mk["y2"], float)
        m = x2.shape[0]
        cases = x2 / 2 + rankdata(x2)
        controls = m - y2 / 2 + rankdata(-y2)
        out[name] = (np.concatenate([cases, controls]), mk)
    y = np.array([1] * 41 + [0] * 72)
    return y, out


def test_asah_rebuilt_data_has_the_published_placements():
    y, markers = _asah()
    for s, mk in markers.values():
        auc, v, m, n = ref_placements(y == 1, s)
        assert [2 * n * x for x in v[:m]] == mk["x2"]
        assert [2 * m * x for x in v[m:]] == mk["y2"]
        rel(fm.delong_ci(y, s).auc, mk["theta"], rtol=1e-14)


def test_asah_matches_pROC():
    """R pROC's own tests (tests/testthat/test-roc.test.R, test-ci.auc.R) on its aSAH data:
    roc.test(r.wfns, r.s100b) is our delong_test(y, s100b, wfns) (pROC's first curve is
    our B); pROC's expect_equal tolerance is 1.5e-8."""
    y, mk = _asah()
    wfns, ndka, s100b = mk["wfns"][0], mk["ndka"][0], mk["s100b"][0]
    cases = [((s100b, wfns), 2.20898359144091, 0.0271757822291882,
              (0.0104061769564846, 0.174214419249478)),
             ((ndka, wfns), 2.79777591868904, 0.00514557970691098,
              (0.0634011709339876, 0.3600405634833566)),
             ((s100b, ndka), -1.39077002573558, 0.164295175223054,
              (-0.2876917446341914, 0.0488706064228094))]
    for (a, b), z, p, ci in cases:
        t = fm.delong_test(y, a, b)
        rel([t.statistic, t.pvalue, *t.confidence_interval], [z, p, *ci], rtol=1e-9)
        rel(fm.delong_test(y, b, a).statistic, -z, rtol=1e-9)
    rel(fm.delong_test(y, s100b, wfns, alternative="greater").pvalue, 0.0135878911145941,
        rtol=1e-9)
    rel(fm.delong_test(y, s100b, wfns, alternative="less").pvalue, 0.986412108885406,
        rtol=1e-9)
    r = fm.delong_ci(y, ndka)  # ci.auc(r.ndka)
    rel([r.confidence_interval[0], r.auc, r.confidence_interval[1]],
        [0.501244999271703, 0.611957994579946, 0.722670989888189], rtol=1e-9)


# ----------------------------------------------------------------------------- one-vs-rest


@st.composite
def multiclass_problems(draw):
    k = draw(st.integers(3, 4))
    per = [draw(st.integers(2, 5)) for _ in range(k)]
    y = np.repeat(np.arange(k), per)
    y = y[np.array(draw(st.permutations(range(y.shape[0]))))]
    raw = np.array([[draw(st.integers(1, 4)) for _ in range(k)] for _ in y], dtype=float)
    raw2 = np.array([[draw(st.integers(1, 4)) for _ in range(k)] for _ in y], dtype=float)
    return y, raw / raw.sum(axis=1, keepdims=True), raw2 / raw2.sum(axis=1, keepdims=True)


@given(multiclass_problems(), st.sampled_from(["macro", "weighted"]))
def test_ovr_equals_the_reference(problem, average):
    y, s, s2 = problem
    k = s.shape[1]
    r = fm.delong_ci(y, s, multi_class="ovr", average=average)
    rel(r.auc, skm.roc_auc_score(y, s, multi_class="ovr", average=average))
    assert r.classes == tuple(range(k))
    for j, pc in enumerate(r.per_class):  # each class: the binary result of j vs the rest
        want = fm.delong_ci(y == j, s[:, j])
        rel([pc.auc, pc.variance], [want.auc, want.variance])
    counts = np.bincount(y, minlength=k)
    c = np.full(k, 1 / k) if average == "macro" else counts / counts.sum()
    g = sum(c[j] * ref_psi(y == j, s[:, j]) for j in range(k))
    rel(r.variance, float(np.sum(g * g)), atol=1e-16)
    t = fm.delong_test(y, s, s2, multi_class="ovr", average=average)
    want_b = skm.roc_auc_score(y, s2, multi_class="ovr", average=average)
    rel([t.auc_a, t.auc_b], [r.auc, want_b])
    d = sum(c[j] * (ref_psi(y == j, s2[:, j]) - ref_psi(y == j, s[:, j])) for j in range(k))
    rel(t.variance, float(np.sum(d * d)), atol=1e-16)
    for j, pt in enumerate(t.per_class):
        want = fm.delong_test(y == j, s[:, j], s2[:, j])
        rel([pt.difference, pt.variance], [want.difference, want.variance], atol=1e-16)


def test_ovr_string_labels():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 90)
    p = rng.dirichlet(np.ones(3), 90)
    names = np.array(["cat", "dog", "eel"])[y]
    a, b = fm.delong_ci(names, p, multi_class="ovr"), fm.delong_ci(y, p, multi_class="ovr")
    assert a.classes == ("cat", "dog", "eel")
    rel([a.auc, a.variance], [b.auc, b.variance])


# ----------------------------------------------------------------------------- bad input


def test_bad_input():
    y = np.array([0, 1, 0, 1])
    s = np.array([0.1, 0.5, 0.3, 0.8])
    with pytest.raises(ValueError, match="Only one class"):
        fm.delong_ci(np.ones(4), s)
    with pytest.raises(ValueError, match="Only one class"):
        fm.delong_test(np.ones(4), s, s)
    with pytest.raises(ValueError, match="at least two positive and two negative"):
        fm.delong_ci(np.array([0, 1, 0, 0]), s)
    with pytest.raises(ValueError, match="at least two positive and two negative"):
        fm.delong_test(np.array([0, 1, 0, 0]), s, s)
    for bad in (np.nan, np.inf):
        s_bad = s.copy()
        s_bad[1] = bad
        with pytest.raises(ValueError, match="Input contains"):
            fm.delong_ci(y, s_bad)
        with pytest.raises(ValueError, match="Input contains"):
            fm.delong_test(y, s, s_bad)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.delong_ci(y, s[:3])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.delong_test(y, s[:3], s[:3])
    with pytest.raises(ValueError, match="different shapes"):
        fm.delong_test(y, s, s[:3])
    with pytest.raises(ValueError, match="1d array"):
        fm.delong_ci(y, np.c_[s, 1 - s])
    with pytest.raises(ValueError, match="1d array"):
        fm.delong_test(y, np.c_[s, 1 - s], np.c_[s, 1 - s])
    with pytest.raises(ValueError, match="pos_label=3 is not a valid label"):
        fm.delong_ci(y, s, pos_label=3)
    with pytest.raises(ValueError, match="pos_label=3 is not a valid label"):
        fm.delong_test(y, s, s, pos_label=3)
    for kw in ({"confidence_level": 1.0}, {"confidence_level": 0}, {"confidence_level": "x"},
               {"confidence_level": True}):
        with pytest.raises(ValueError, match="confidence_level"):
            fm.delong_ci(y, s, **kw)
    with pytest.raises(ValueError, match="transform"):
        fm.delong_ci(y, s, transform="probit")
    with pytest.raises(ValueError, match="alternative"):
        fm.delong_test(y, s, s, alternative="two.sided")
    with pytest.raises(ValueError, match="average"):
        fm.delong_ci(y, s, average=None)
    with pytest.raises(TypeError):
        fm.delong_ci(y, s, sample_weight=np.ones(4))  # unweighted by design
    y3 = np.array([0, 1, 2, 0, 1, 2])
    p3 = np.full((6, 3), 1 / 3)
    with pytest.raises(ValueError, match="multi_class='ovr'"):
        fm.delong_ci(y3, p3)
    with pytest.raises(ValueError, match="multi_class='ovr'"):
        fm.delong_test(y3, p3, p3, multi_class="ovo")
    with pytest.raises(ValueError, match="probabilities"):
        fm.delong_ci(y3, p3 * 2, multi_class="ovr")
    with pytest.raises(ValueError, match="n_classes"):
        fm.delong_ci(y3, p3[:, 0], multi_class="ovr")
    with pytest.raises(ValueError, match="Number of classes"):
        fm.delong_ci(y3, np.full((6, 4), 0.25), multi_class="ovr")
    with pytest.raises(ValueError, match="pos_label is for binary"):
        fm.delong_ci(y3, p3, multi_class="ovr", pos_label=1)
    with pytest.raises(ValueError, match="class 2"):
        fm.delong_ci(np.array([0, 1, 2, 0, 1, 1]), p3, multi_class="ovr")
    # inputs are never modified
    s0 = s.copy()
    fm.delong_test(y, s, s[::-1].copy())
    np.testing.assert_array_equal(s, s0)


# ----------------------------------------------------------------------------- coverage


@pytest.mark.slow
def test_intervals_cover_the_true_auc():
    """Binormal data (negatives N(0, 1), positives N(1, 1)): true AUC Phi(1 / sqrt(2)).
    The 95% interval covers it in about 95% of 400 draws of 60 + 60 samples (binomial
    standard deviation 1.1%); the paired test at a true difference of 0 rejects about 5%."""
    rng = np.random.default_rng(12)
    true_auc = 0.5 * math.erfc(-0.5)
    hits, rejects = 0, 0
    y = np.repeat([0, 1], 60)
    for _ in range(400):
        s = rng.normal(size=120) + y
        lo, hi = fm.delong_ci(y, s).confidence_interval
        hits += lo <= true_auc <= hi
        common = rng.normal(size=120)  # two correlated models of equal AUC
        a = common + rng.normal(size=120) + 1.2 * y
        b = common + rng.normal(size=120) + 1.2 * y
        rejects += fm.delong_test(y, a, b).pvalue < 0.05
    assert 0.91 <= hits / 400 <= 0.98
    assert 0.02 <= rejects / 400 <= 0.09


def test_no_warnings_on_plain_input():
    rng = np.random.default_rng(13)
    y = rng.integers(0, 2, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fm.delong_ci(y, rng.random(50))
        fm.delong_test(y, rng.random(50), rng.random(50))
