"""bootstrap, compare and mcnemar_test: the cell law against row resampling, intervals
against scipy.stats.bootstrap, McNemar against statsmodels, and bad input."""

import warnings

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings, strategies as st

import fastmetrics as fm
from fastmetrics._states import prf, replicates
from fastmetrics._states.confusion import accuracy, accuracy_batch
from fastmetrics.states import ConfusionState, PairedConfusionState, load_state


def _labels(rng, n, k=3, acc=0.7):
    yt = rng.integers(0, k, n)
    yp = np.where(rng.random(n) < acc, yt, rng.integers(0, k, n))
    return yt, yp


def _close_distributions(a, b, sd):
    """Mean, standard deviation and the 2.5 / 97.5 percentiles of two bootstrap
    distributions of 10^4 resamples agree within about four Monte-Carlo standard errors."""
    assert abs(a.mean() - b.mean()) < 0.06 * sd
    assert abs(a.std() - b.std()) < 0.06 * sd
    for q in (2.5, 97.5):
        assert abs(np.percentile(a, q) - np.percentile(b, q)) < 0.2 * sd


# --------------------------------------------------------------------------- the cell law


@pytest.mark.parametrize("metric, kwargs, data", [
    (fm.f1_score, {"average": "macro"}, "labels"),
    (fm.balanced_accuracy_score, {}, "labels"),
    (fm.matthews_corrcoef, {}, "labels"),
    (fm.roc_auc_score, {}, "scores"),
    (fm.average_precision_score, {}, "scores"),
    (fm.adjusted_rand_score, {}, "labels"),
])
def test_cell_resamples_match_row_resamples(metric, kwargs, data):
    rng = np.random.default_rng(7)
    n = 400
    if data == "labels":
        a, b = _labels(rng, n)
    else:
        a = rng.integers(0, 2, n)
        b = np.round(a * 0.3 + rng.random(n), 1)  # few distinct scores: cells
    cells = fm.bootstrap(metric, a, b, n_resamples=10_000, random_state=1, **kwargs)
    rows = fm.bootstrap(lambda x, y: metric(x, y, **kwargs), a, b, n_resamples=10_000,
                        random_state=2)
    assert cells.resampled == "cells" and rows.resampled == "rows"
    assert cells.value == rows.value == metric(a, b, **kwargs)
    _close_distributions(cells.bootstrap_distribution, rows.bootstrap_distribution,
                         rows.standard_error)


def test_near_distinct_scores_resample_rows():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 500)
    s = y * 0.2 + rng.random(500)
    r = fm.bootstrap(fm.roc_auc_score, y, s, random_state=0, n_resamples=50)
    assert r.resampled == "rows" and r.value == fm.roc_auc_score(y, s)


def test_compare_cells_match_row_resamples():
    rng = np.random.default_rng(3)
    yt, ya = _labels(rng, 400, acc=0.7)
    yb = np.where(rng.random(400) < 0.5, ya, np.where(rng.random(400) < 0.8, yt, ya))
    cells = fm.compare(fm.f1_score, yt, ya, yb, average="macro", n_resamples=10_000,
                       random_state=1)
    rows = fm.compare(lambda x, y: fm.f1_score(x, y, average="macro"), yt, ya, yb,
                      n_resamples=10_000, random_state=2)
    assert cells.resampled == "cells" and rows.resampled == "rows"
    assert cells.value_a == fm.f1_score(yt, ya, average="macro")
    assert cells.value_b == fm.f1_score(yt, yb, average="macro")
    assert cells.difference == rows.difference
    _close_distributions(cells.bootstrap_distribution, rows.bootstrap_distribution,
                         rows.standard_error)
    assert abs(cells.pvalue - rows.pvalue) < 0.02


def test_resampled_states_are_valid_states():
    rng = np.random.default_rng(0)
    a, b = _labels(rng, 50, k=5, acc=0.3)
    for state in (ConfusionState.from_arrays(a, b),
                  fm.states.ContingencyState.from_arrays(a, b),
                  fm.states.RankingState.from_arrays(a % 2, rng.random(50))):
        counts = replicates.cells(state)
        for c in replicates.draws(counts, rng, 50):
            r = replicates.replicate(state, c)
            assert type(r).from_dict(r.to_dict()).n_samples == state.n_samples
        for r, m in replicates.jackknife(state):
            assert r.n_samples == state.n_samples - 1 and m >= 1


# --------------------------------------------------------------------------- intervals vs scipy


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_intervals_match_scipy_given_the_same_resamples(method, level):
    rng = np.random.default_rng(11)
    yt, yp = _labels(rng, 120)
    ours = fm.bootstrap(fm.f1_score, yt, yp, average="macro", n_resamples=2000,
                        confidence_level=level, method=method, random_state=0)

    def stat(a, b):
        return fm.f1_score(a, b, average="macro")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = scipy.stats.bootstrap((yt, yp), stat, paired=True, vectorized=False,
                                    n_resamples=0, bootstrap_result=ours, method=method,
                                    confidence_level=level)
    np.testing.assert_allclose([ours.confidence_interval.low, ours.confidence_interval.high],
                               [ref.confidence_interval.low, ref.confidence_interval.high],
                               rtol=1e-12)
    np.testing.assert_allclose(ours.standard_error, ref.standard_error, rtol=1e-12)


def test_bca_rows_path_matches_scipy():
    rng = np.random.default_rng(5)
    y = rng.random(80)
    p = y + rng.normal(0, 0.3, 80)
    ours = fm.bootstrap(fm.mean_squared_error, y, p, n_resamples=1000, method="bca",
                        random_state=3)
    assert ours.resampled == "rows"
    ref = scipy.stats.bootstrap((y, p), lambda a, b: fm.mean_squared_error(a, b), paired=True,
                                vectorized=False, n_resamples=0, bootstrap_result=ours,
                                method="bca")
    np.testing.assert_allclose(tuple(ours.confidence_interval),
                               tuple(ref.confidence_interval), rtol=1e-12)


def test_per_class_values_get_one_interval_each():
    rng = np.random.default_rng(2)
    yt, yp = _labels(rng, 300)
    r = fm.bootstrap(fm.f1_score, yt, yp, average=None, labels=[0, 1, 2], random_state=0,
                     n_resamples=200)
    np.testing.assert_array_equal(r.value, fm.f1_score(yt, yp, average=None))
    assert r.bootstrap_distribution.shape == (200, 3)
    assert np.all(r.confidence_interval.low <= r.value)
    assert np.all(r.value <= r.confidence_interval.high)


# --------------------------------------------------------------------------- batch derivations


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5), n=st.integers(5, 60),
       average=st.sampled_from(["macro", "micro", "weighted", "binary"]),
       zero_division=st.sampled_from(["warn", 0.0, 1.0]),
       beta=st.sampled_from([0.5, 1.0, 2.0]))
def test_batch_derivations_equal_one_by_one(seed, k, n, average, zero_division, beta):
    rng = np.random.default_rng(seed)
    yt, yp = _labels(rng, n, k=k if average != "binary" else 2, acc=0.5)
    st_ = ConfusionState.from_arrays(yt, yp)
    draws = replicates.draws(replicates.cells(st_), rng, 30)
    kk = st_.cm.shape[0]
    tables = draws.reshape(-1, kk, kk)
    states = [replicates.replicate(st_, c) for c in draws]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            prf.f1(st_, average=average, zero_division=zero_division)
        except ValueError:
            return  # e.g. binary average on one label: the loop raises, so does the face
        for batch, one in ((prf.f1_batch, prf.f1), (prf.precision_batch, prf.precision),
                           (prf.recall_batch, prf.recall)):
            got = batch(st_, tables, average=average, zero_division=zero_division)
            if got is None:
                continue
            want = np.array([one(s, average=average, zero_division=zero_division)
                             for s in states])
            np.testing.assert_array_equal(got, want)
        got = prf.fbeta_batch(st_, tables, beta=beta, average=average,
                              zero_division=zero_division)
        if got is not None:
            want = np.array([prf.fbeta(s, beta=beta, average=average,
                                       zero_division=zero_division) for s in states])
            np.testing.assert_array_equal(got, want)
    for normalize in (True, False):
        np.testing.assert_array_equal(accuracy_batch(st_, tables, normalize),
                                      [accuracy(s, normalize) for s in states])


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_result_any_threads():
    rng = np.random.default_rng(0)
    yt, yp = _labels(rng, 50_000)
    a = fm.bootstrap("f1_score", yt, yp, average="macro", random_state=5, n_threads=1)
    b = fm.bootstrap(fm.f1_score, yt, yp, average="macro", random_state=5, n_threads=2)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    c = fm.bootstrap(fm.f1_score, yt, yp, average="macro",
                     random_state=np.random.default_rng(5))
    np.testing.assert_array_equal(a.bootstrap_distribution, c.bootstrap_distribution)
    yt0, yp0 = yt.copy(), yp.copy()
    fm.compare(fm.accuracy_score, yt, yp, yp[::-1].copy(), random_state=1)
    np.testing.assert_array_equal(yt, yt0)
    np.testing.assert_array_equal(yp, yp0)


def test_string_labels_and_weights():
    rng = np.random.default_rng(4)
    yt, yp = _labels(rng, 300)
    names = np.array(["cat", "dog", "eel"])
    r = fm.bootstrap(fm.f1_score, names[yt], names[yp], average="macro", random_state=0,
                     n_resamples=300)
    r_int = fm.bootstrap(fm.f1_score, yt, yp, average="macro", random_state=0,
                         n_resamples=300)
    np.testing.assert_array_equal(r.bootstrap_distribution, r_int.bootstrap_distribution)
    w = rng.random(300)
    rw = fm.bootstrap(fm.f1_score, yt, yp, average="macro", sample_weight=w, random_state=0,
                      n_resamples=50)
    assert rw.resampled == "rows"
    assert rw.value == fm.f1_score(yt, yp, average="macro", sample_weight=w)


def test_identical_models_differ_by_nothing():
    rng = np.random.default_rng(9)
    yt, yp = _labels(rng, 200)
    r = fm.compare(fm.accuracy_score, yt, yp, yp, random_state=0, n_resamples=100)
    assert r.difference == 0.0 and r.pvalue == 1.0
    assert tuple(r.confidence_interval) == (0.0, 0.0)


def test_str_shows_value_and_interval():
    r = fm.bootstrap(fm.accuracy_score, [0, 1, 1, 0] * 20, [0, 1, 0, 0] * 20, random_state=0)
    low, high = r.confidence_interval
    assert str(r) == f"{r.value:.4f} [{low:.4f}, {high:.4f}]"


# --------------------------------------------------------------------------- McNemar


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), exact=st.booleans(),
       correction=st.booleans())
def test_mcnemar_matches_statsmodels(seed, n, exact, correction):
    from statsmodels.stats.contingency_tables import mcnemar
    rng = np.random.default_rng(seed)
    yt, ya = _labels(rng, n, acc=rng.random())
    _, yb = _labels(rng, n, acc=rng.random())
    yb = np.where(rng.random(n) < 0.5, yt, yb)
    ours = fm.mcnemar_test(yt, ya, yb, exact=exact, correction=correction)
    ra, rb = ya == yt, yb == yt
    table = [[np.sum(ra & rb), np.sum(ra & ~rb)], [np.sum(~ra & rb), np.sum(~ra & ~rb)]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = mcnemar(np.array(table), exact=exact, correction=correction)
    assert (ours.a_only, ours.b_only) == (table[0][1], table[1][0])
    if not exact and ours.a_only + ours.b_only == 0:
        # no disagreement: the chi-square statistic is undefined. statsmodels divides by
        # zero (inf and p = 0 with the correction, NaN without); ours is NaN either way
        assert np.isnan(ours.statistic) and np.isnan(ours.pvalue)
        return
    np.testing.assert_allclose(ours.statistic, ref.statistic, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(ours.pvalue, ref.pvalue, rtol=1e-12, atol=1e-300,
                               equal_nan=True)


def test_mcnemar_exact_large_counts():
    from scipy.stats import binom
    r = fm.mcnemar_test(*(np.r_[np.zeros(10_000, int), np.ones(8_000, int)],) * 2,
                        np.r_[np.zeros(9_000, int), np.ones(9_000, int)])
    assert (r.a_only, r.b_only) == (1_000, 0)
    np.testing.assert_allclose(r.pvalue, min(1.0, 2 * binom.cdf(0, 1000, 0.5)), rtol=1e-12)


# --------------------------------------------------------------------------- paired state


def test_paired_state_margins_merge_and_export():
    rng = np.random.default_rng(1)
    names = np.array(["a", "b", "c", "d"])
    yt, ya = _labels(rng, 500, k=4)
    _, yb = _labels(rng, 500, k=4)
    t, a, b = names[yt], names[ya], names[yb]
    whole = PairedConfusionState.from_arrays(t, a, b)
    for m, y in (("a", a), ("b", b)):
        ref = ConfusionState.from_arrays(t, y)
        got = whole.marginal(m)
        np.testing.assert_array_equal(got.values, ref.values)
        np.testing.assert_array_equal(got.cm, ref.cm)
    parts = (PairedConfusionState.from_arrays(t[:100], a[:100], b[:100])
             + PairedConfusionState.from_arrays(t[100:], a[100:], b[100:]))
    np.testing.assert_array_equal(parts.keys, whole.keys)
    np.testing.assert_array_equal(parts.counts, whole.counts)
    back = load_state(whole.to_dict())
    np.testing.assert_array_equal(back.counts, whole.counts)
    bad = whole.to_dict()
    bad["counts"] = bad["counts"] + 1
    with pytest.raises(ValueError, match="add up"):
        load_state(bad)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs, err, match", [
    ({"n_resamples": 0}, ValueError, "n_resamples"),
    ({"n_resamples": 1.5}, TypeError, "n_resamples"),
    ({"n_resamples": True}, TypeError, "n_resamples"),
    ({"confidence_level": 1.0}, ValueError, "confidence_level"),
    ({"confidence_level": "high"}, TypeError, "confidence_level"),
    ({"method": "student"}, ValueError, "method"),
    ({"random_state": "seed"}, ValueError, "random_state"),
    ({"averag": "macro"}, TypeError, "averag"),
])
def test_bad_arguments(kwargs, err, match):
    with pytest.raises(err, match=match):
        fm.bootstrap(fm.f1_score, [0, 1, 1], [0, 1, 0], **kwargs)
    with pytest.raises(err, match=match):
        fm.compare(fm.f1_score, [0, 1, 1], [0, 1, 0], [1, 1, 0], **kwargs)


def test_bad_metrics_and_data():
    with pytest.raises(ValueError, match="not a fastmetrics metric"):
        fm.bootstrap("no_such_metric", [0, 1], [0, 1])
    with pytest.raises(TypeError, match="metric function"):
        fm.bootstrap(3, [0, 1], [0, 1])
    with pytest.raises(TypeError, match="number or an array"):
        fm.bootstrap(fm.classification_report, [0, 1, 1], [0, 1, 0], output_dict=True,
                     n_resamples=5)
    # a curve: scores on a coarse grid give every resample the same number of points, so
    # only its type can tell it from a metric
    y = np.tile([0, 1, 1, 0], 50)
    s = np.tile([0.2, 0.8, 0.4, 0.6], 50)
    for curve in (fm.roc_curve, fm.precision_recall_curve, fm.det_curve):
        with pytest.raises(TypeError, match="a curve"):
            fm.bootstrap(curve, y, s, n_resamples=5)
    hcv = fm.bootstrap(fm.homogeneity_completeness_v_measure, y, y[::-1].copy(),
                       n_resamples=5, random_state=0)
    assert np.shape(hcv.value) == (3,)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.bootstrap(fm.f1_score, [0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.compare(fm.f1_score, [0, 1, 1], [0, 1, 0], [0, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.bootstrap(fm.mean_absolute_error, [0.0, 1.0], [0.0, 1.0], sample_weight=[1.0])
    with pytest.raises(ValueError, match="empty|at least one"):
        fm.bootstrap(fm.f1_score, [], [])
    with pytest.raises(ValueError, match="jackknife"):
        fm.bootstrap(fm.mean_absolute_error, np.zeros(20_000), np.ones(20_000),
                     method="bca", n_resamples=2)
    with pytest.raises(ValueError, match="Mix of label input types"):
        fm.mcnemar_test([0, 1], ["a", "b"], [0, 1])
    with pytest.raises(TypeError, match="exact"):
        fm.mcnemar_test([0, 1], [0, 1], [0, 1], exact="yes")
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fm.mcnemar_test([0, 1], [0, 1], [0])


# --------------------------------------------------------------------------- streaming, Dask


def test_accumulators_and_dask_give_the_one_shot_result():
    import dask
    import dask.array as da
    import fastmetrics.dask as fmd
    from fastmetrics.streaming import (ConfusionAccumulator, ContingencyAccumulator,
                                       PairedConfusionAccumulator, RankingAccumulator)
    rng = np.random.default_rng(12)
    yt, ya = _labels(rng, 3000)
    _, yb = _labels(rng, 3000)
    s = np.round(rng.random(3000) + (yt == 1) * 0.3, 1)
    cases = [(ConfusionAccumulator, fm.f1_score, yt, ya, {"average": "macro"}),
             (RankingAccumulator, fm.roc_auc_score, (yt == 1).astype(int), s, {}),
             (ContingencyAccumulator, fm.adjusted_rand_score, yt, ya, {})]
    for acc_type, metric, a, b, kw in cases:
        whole = fm.bootstrap(metric, a, b, random_state=4, n_resamples=300, **kw)
        assert whole.resampled == "cells"
        acc = acc_type()
        for i in range(0, 3000, 700):
            acc.update(a[i:i + 700], b[i:i + 700])
        got = acc.bootstrap(metric.__name__, random_state=4, n_resamples=300, **kw)
        np.testing.assert_array_equal(got.bootstrap_distribution,
                                      whole.bootstrap_distribution)
        with dask.config.set(scheduler="synchronous"):
            d = fmd.bootstrap(metric, da.from_array(a, chunks=700), da.from_array(b, chunks=900),
                              random_state=4, n_resamples=300, **kw)
        np.testing.assert_array_equal(d.bootstrap_distribution, whole.bootstrap_distribution)
    whole = fm.compare(fm.f1_score, yt, ya, yb, average="macro", random_state=2,
                       n_resamples=300)
    acc = sum(PairedConfusionAccumulator().update(yt[i:i + 500], ya[i:i + 500], yb[i:i + 500])
              for i in range(0, 3000, 500))
    got = acc.compare(fm.f1_score, average="macro", random_state=2, n_resamples=300)
    np.testing.assert_array_equal(got.bootstrap_distribution, whole.bootstrap_distribution)
    assert acc.mcnemar_test() == fm.mcnemar_test(yt, ya, yb)
    back = PairedConfusionAccumulator.from_dict(acc.to_dict())
    assert back.mcnemar_test() == acc.mcnemar_test()
    with dask.config.set(scheduler="synchronous"):
        d = fmd.compare("f1_score", da.from_array(yt, chunks=1000), ya, yb, average="macro",
                        random_state=2, n_resamples=300)
    np.testing.assert_array_equal(d.bootstrap_distribution, whole.bootstrap_distribution)


def test_state_functions_refuse_what_needs_rows():
    w = np.linspace(0.5, 1.5, 40)
    acc = fm.streaming.ConfusionAccumulator().update([0, 1] * 20, [1, 1] * 20, sample_weight=w)
    with pytest.raises(ValueError, match="weighted"):
        acc.bootstrap("f1_score")
    st_ = ConfusionState.from_arrays([0, 1] * 20, [1, 1] * 20)
    with pytest.raises(ValueError, match="not a metric of a ConfusionState"):
        fm.bootstrap_state(st_, "roc_auc_score")
    with pytest.raises(TypeError, match="takes no"):
        fm.bootstrap_state(st_, "f1_score", n_threads=2)
    with pytest.raises(TypeError, match="PairedConfusionState"):
        fm.compare_state(st_, "f1_score")
    import fastmetrics.dask as fmd
    with pytest.raises(ValueError, match="not a confusion, ranking or clustering"):
        fmd.bootstrap(fm.mean_squared_error, np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="not a confusion metric"):
        fmd.compare(fm.roc_auc_score, np.zeros(3), np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="unweighted"):
        fmd.bootstrap(fm.f1_score, np.zeros(3), np.zeros(3), sample_weight=np.ones(3))


# --------------------------------------------------------------------------- report cards


def test_score_intervals_are_the_bootstrap_of_each_number():
    rng = np.random.default_rng(21)
    yt, yp = _labels(rng, 2000, k=4)
    m = fm.score(yt, yp, oos_label=3, ci=True, random_state=6, n_resamples=400)
    assert m.confidence_level == 0.95 and set(m.intervals) == {
        "accuracy", "macro_f1", "weighted_f1", "micro_f1", "oos_recall", "oos_precision"}
    for name, metric, kw in (("accuracy", fm.accuracy_score, {}),
                             ("macro_f1", fm.f1_score, {"average": "macro"}),
                             ("weighted_f1", fm.f1_score, {"average": "weighted"})):
        r = fm.bootstrap(metric, yt, yp, random_state=6, n_resamples=400,
                         **({"labels": m.labels, "zero_division": 0} if kw else {}), **kw)
        np.testing.assert_allclose(m.intervals[name], tuple(r.confidence_interval),
                                   rtol=1e-12)
        assert getattr(m, name) == r.value
    low, high = m.intervals["macro_f1"]
    row = fm.format_metrics_row("b", m)
    assert f"{m.macro_f1:.4f} [{low:.4f}, {high:.4f}]" in row
    assert fm.score(yt, yp).intervals is None
    acc = fm.streaming.ConfusionAccumulator().update(yt[:900], yp[:900]).update(yt[900:],
                                                                                yp[900:])
    assert acc.score(oos_label=3, ci=True, random_state=6, n_resamples=400).intervals == \
        m.intervals
    w = np.ones(2000)
    mw = fm.score(yt, yp, sample_weight=w, ci=0.9, random_state=0, n_resamples=30)
    assert mw.confidence_level == 0.9 and "oos_recall" not in mw.intervals
    accw = fm.streaming.ConfusionAccumulator().update(yt, yp, sample_weight=w)
    with pytest.raises(ValueError, match="needs the rows"):
        accw.score(ci=True)
    with pytest.raises(ValueError, match="confidence_level"):
        fm.score(yt, yp, ci=1.5)


def test_cli_ci(tmp_path):
    import json
    from fastmetrics.cli import main
    from fastmetrics.cli.card import card_of
    card = card_of(["report", "--ci", "0.9", "--seed", "3", "--ci-resamples", "200"])
    m = card.metrics
    assert m.confidence_level == 0.9 and m.intervals["accuracy"][0] < m.accuracy
    again = card_of(["report", "--ci", "0.9", "--seed", "3", "--ci-resamples", "200"])
    assert again.metrics.intervals == m.intervals
    from fastmetrics.cli.render import render
    text = render(card, "text")
    assert f"accuracy       {m.shown('accuracy')}" in text
    d = json.loads(render(card, "json"))
    assert d["ci.accuracy.low"] == m.intervals["accuracy"][0]
    with pytest.raises(SystemExit) as exc:
        main(["report", "--ci", "2"])
    assert exc.value.code == 2
    assert card_of(["report"]).metrics.intervals is None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200),
       dtype=st.sampled_from([np.int8, np.int32, np.int64, np.uint8, np.uint64, bool]),
       shift=st.sampled_from([0, 3, 100]))
def test_joint_counts_of_every_integer_dtype_equal_the_encoded_path(seed, n, dtype, shift):
    rng = np.random.default_rng(seed)
    hi = 2 if dtype is bool else 5
    cols = [rng.integers(0, hi, n) for _ in range(3)]
    if dtype is not bool and not (np.dtype(dtype).itemsize == 1 and shift == 100):
        cols = [c + shift for c in cols]
    cols = [c.astype(dtype) for c in cols]
    got = PairedConfusionState.from_arrays(*cols)
    names = np.array([f"L{i:03d}" for i in range(256)])
    ref = PairedConfusionState.from_arrays(*(names[c.astype(np.int64) % 256] for c in cols))
    np.testing.assert_array_equal(got.keys, ref.keys)
    np.testing.assert_array_equal(got.counts, ref.counts)
    assert got.values.dtype == np.asarray(cols[0]).dtype
    for m, c in (("a", cols[1]), ("b", cols[2])):
        np.testing.assert_array_equal(got.marginal(m).cm,
                                      ConfusionState.from_arrays(cols[0], c).cm)


def test_compare_batch_equals_one_by_one(monkeypatch):
    import fastmetrics.uncertainty as unc
    rng = np.random.default_rng(14)
    y = rng.integers(0, 4, 300)
    a = np.where(rng.random(300) < 0.6, y, rng.integers(0, 4, 300))
    b = np.where(rng.random(300) < 0.6, y, rng.integers(0, 3, 300))  # B never says 3
    for metric, kw in ((fm.f1_score, {"average": "macro"}), (fm.recall_score,
                                                              {"average": "weighted"}),
                       (fm.accuracy_score, {}), (fm.fbeta_score, {"beta": 2.0,
                                                                  "average": "micro"})):
        fast = fm.compare(metric, y, a, b, random_state=1, n_resamples=200, **kw)
        with monkeypatch.context() as m:
            m.setattr(unc, "_JOINT_BATCH_CELLS", 0)
            slow = fm.compare(metric, y, a, b, random_state=1, n_resamples=200, **kw)
        np.testing.assert_array_equal(fast.bootstrap_distribution, slow.bootstrap_distribution)
