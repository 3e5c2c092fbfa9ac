"""The one-pass grouped kernels of the regression sums and the log loss sums: every group's
state from one pass over all rows (no ordering by group), held to the state the per-group
rule gives (forced) and to scikit-learn's function on that group's rows; the cases they
leave to the per-group rule; their bad inputs; lanes and threads.
"""

import json
import math
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from fastmetrics import streaming
from fastmetrics._kernels import proba as kp, sums as ks
from fastmetrics._states import proba as proba_state, sums as sums_state
from fastmetrics.streaming import GroupedAccumulator

RTOL = 1e-12
REGRESSION = ("mean_absolute_error", "mean_squared_error", "root_mean_squared_error",
              "r2_score", "explained_variance_score", "mean_absolute_percentage_error",
              "max_error")


def _spy(monkeypatch):
    """Record calls of the per-group rule's ordering of rows."""
    calls = []
    real = streaming.group_runs

    def spy(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(streaming, "group_runs", spy)
    return calls


def _generic(kind, chunks, **config):
    acc = GroupedAccumulator(kind, **config)
    acc._counted = lambda *a: None
    for data, groups, w in chunks:
        acc.update(*data, groups=groups, sample_weight=w)
    return acc


def _fast(kind, chunks, **config):
    acc = GroupedAccumulator(kind, **config)
    for data, groups, w in chunks:
        acc.update(*data, groups=groups, sample_weight=w)
    return acc


def _regression_close(a, b, where):
    x, y = np.asarray(a.sums), np.asarray(b.sums)
    assert a.flags == b.flags and a.weighted == b.weighted and a.delta == b.delta
    for c in (ks.N, ks.CONST, ks.FIRST, ks.MAXABS):
        assert x[c] == y[c], (where, c, x, y)
    scale = max(1.0, float(np.abs(y).max()))
    np.testing.assert_allclose(x, y, rtol=RTOL, atol=1e-13 * scale, err_msg=where)


def _chunks(rng, n, G, case):
    codes = rng.integers(0, G, n)
    y = rng.normal(3.0, 2.0, n)
    p = y + rng.normal(0.0, 0.7, n)
    w = None
    if case == "weighted":
        w = rng.random(n) * (rng.random(n) < 0.8)
        w[codes == 1] = 0.0  # a group of zero weights
    elif case == "float32":
        y, p = y.astype(np.float32), p.astype(np.float32)
    elif case == "integers":
        y, p = np.rint(y).astype(np.int64), np.rint(p).astype(np.int32)
    elif case == "constant_group":
        y[codes == 0] = 2.5  # R² of a constant target: scikit-learn's rule
        y[codes == 2] = 0.0  # MAPE's eps
    elif case == "codes_uint8":
        codes = codes.astype(np.uint8)
    elif case == "text_keys":
        codes = np.array([f"k{c:03d}" for c in range(G)])[codes]
    cut = n // 3
    part = (lambda a, s: None if a is None else a[s])
    return [((y[s], p[s]), codes[s], part(w, s)) for s in (slice(0, cut), slice(cut, n))], \
        (codes, y, p, w)


@pytest.mark.parametrize("case", ["plain", "weighted", "float32", "integers",
                                  "constant_group", "codes_uint8", "text_keys"])
def test_regression_one_pass_equals_each_groups_own(case, monkeypatch):
    rng = np.random.default_rng(3)
    n, G = 5_000, 23
    chunks, (codes, y, p, w) = _chunks(rng, n, G, case)
    calls = _spy(monkeypatch)
    fast = _fast("regression", chunks)
    assert not calls  # one pass, no ordering of rows
    generic = _generic("regression", chunks)
    assert calls and fast.keys() == generic.keys()
    for m in REGRESSION:
        values = fast.metric(m, errors="nan")
        for key in fast.keys():
            rows = codes == key
            ww = None if w is None else w[rows]
            kw = {} if m == "max_error" else {"sample_weight": ww}
            if kw and ww is not None and ww.sum() == 0:
                assert math.isnan(values[key])  # scikit-learn refuses weights summing to 0
                continue
            want = getattr(skm, m)(y[rows].astype(np.float64), p[rows].astype(np.float64),
                                   **kw)
            assert values[key] == pytest.approx(want, rel=RTOL, abs=1e-13), (m, key)
    for key in fast.keys():
        _regression_close(fast[key].state, generic[key].state, key)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), G=st.integers(1, 40), weighted=st.booleans(),
       seed=st.integers(0, 2**32 - 1), n_chunks=st.integers(1, 3))
def test_regression_any_split_and_groups(n, G, weighted, seed, n_chunks):
    """Single-row groups, one group, keys first seen in later chunks, ties of values."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, G, n)
    y = rng.integers(-3, 4, n).astype(float)
    p = rng.integers(-3, 4, n).astype(float)
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    cuts = np.sort(rng.integers(0, n + 1, n_chunks - 1))
    bounds = [0, *cuts.tolist(), n]
    chunks = [((y[a:b], p[a:b]), codes[a:b], None if w is None else w[a:b])
              for a, b in zip(bounds, bounds[1:])]
    fast, generic = _fast("regression", chunks), _generic("regression", chunks)
    assert fast.keys() == generic.keys()
    for key in fast.keys():
        _regression_close(fast[key].state, generic[key].state, key)
        rows = codes == key
        ww = None if w is None else w[rows]
        assert fast[key].mean_squared_error() == pytest.approx(
            skm.mean_squared_error(y[rows], p[rows], sample_weight=ww), rel=RTOL, abs=1e-15)
        with warnings.catch_warnings():
            # one row: both warn that R² is undefined (and give NaN)
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            want = skm.r2_score(y[rows], p[rows], sample_weight=ww)
            got = fast[key].r2_score()
        assert got == pytest.approx(want, rel=RTOL, abs=1e-13, nan_ok=True)


def test_regression_lanes_and_threads_give_the_same_bits():
    """Inputs cut into several lanes: the same state for one thread and two, each group
    as its own pass gives it (the lanes merge by Chan's update)."""
    rng = np.random.default_rng(5)
    n, G = 2 * 262_144 + 1_001, 97
    codes = rng.integers(0, G, n)
    y = rng.normal(1e3, 1.0, n)  # a large mean: the spread must not cancel
    p = y + rng.normal(0, 0.1, n)
    one = sums_state.grouped(codes, G, y, p, None, n_threads=1)
    two = sums_state.grouped(codes, G, y, p, None, n_threads=2)
    for g in range(G):
        np.testing.assert_array_equal(one[g].sums, two[g].sums)
    for g in range(0, G, 13):
        rows = codes == g
        ref = sums_state.RegressionState.from_arrays(y[rows], p[rows])
        _regression_close(one[g], ref, g)
        assert sums_state.r2(one[g]) == pytest.approx(skm.r2_score(y[rows], p[rows]),
                                                      rel=1e-11)


def test_regression_cases_left_to_the_per_group_rule(monkeypatch):
    rng = np.random.default_rng(8)
    n = 600
    codes = rng.integers(0, 4, n)
    y, p = rng.random(n), rng.random(n)
    calls = _spy(monkeypatch)
    # errors kept for the median need each group's rows together
    acc = GroupedAccumulator("regression", keep_values=True).update(y, p, groups=codes)
    assert calls
    assert acc.median_absolute_error()[0] == pytest.approx(
        skm.median_absolute_error(y[codes == 0], p[codes == 0]), rel=RTOL)
    # targets of several outputs
    Y, P = rng.random((n, 2)), rng.random((n, 2))
    assert sums_state.grouped(codes, 4, Y, P, None) is None
    # negative weights (the running weight of a group may cross zero)
    w = rng.random(n) - 0.2
    assert sums_state.grouped(codes, 4, y, p, w) is None
    got = GroupedAccumulator("regression").update(y, p, groups=codes, sample_weight=w)
    assert got.mean_absolute_error()[2] == pytest.approx(
        skm.mean_absolute_error(y[codes == 2], p[codes == 2], sample_weight=w[codes == 2]),
        rel=1e-10)


def test_regression_bad_inputs_name_the_problem():
    rng = np.random.default_rng(9)
    n = 500
    codes = rng.integers(0, 5, n)
    y, p = rng.random(n), rng.random(n)
    with pytest.raises(ValueError, match="group code 7 at row 1 is outside"):
        sums_state.grouped(np.array([0, 7, 1]), 5, y[:3], p[:3], None)
    bad = y.copy()
    bad[123] = np.nan
    acc = GroupedAccumulator("regression").update(y, p, groups=codes)
    before = json.dumps(acc.state.to_dict(as_lists=True))
    with pytest.raises(ValueError, match="y_true"):
        acc.update(bad, p, groups=codes)
    p_inf = p.copy()
    p_inf[7] = np.inf
    with pytest.raises(ValueError, match="y_pred"):
        acc.update(y, p_inf, groups=codes)
    with pytest.raises(ValueError, match="sample_weight"):
        acc.update(y, p, groups=codes, sample_weight=np.ones(n - 1))
    assert json.dumps(acc.state.to_dict(as_lists=True)) == before


# ----------------------------------------------------------------------------- log loss


def _proba_chunks(rng, n, G, case):
    codes = rng.integers(0, G, n)
    y = rng.integers(0, 2, n)
    s = np.clip(0.5 * y + rng.normal(0.25, 0.25, n), 0.0, 1.0)
    P, w, config = s, None, {}
    if case == "columns":
        P = np.stack([1 - s, s], axis=1)
    elif case == "three_classes":
        y = rng.integers(0, 3, n)
        raw = rng.random((n, 3)) + 0.3 * np.eye(3)[y]
        P = raw / raw.sum(axis=1, keepdims=True)
    elif case == "fortran_float32":
        y = rng.integers(0, 3, n)
        raw = rng.random((n, 3)).astype(np.float32)
        P = np.asfortranarray(raw / raw.sum(axis=1, keepdims=True))
    elif case == "unnormalised":
        y = rng.integers(0, 3, n)
        P = rng.random((n, 3))  # rows do not sum to one: scikit-learn's warning
    elif case == "weighted":
        w = rng.random(n) * (rng.random(n) < 0.8)
        w[codes == 1] = 0.0
    elif case == "text_labels":
        y = np.array(["no", "yes"])[y]
    elif case == "labels_given":
        y[codes == 2] = 1  # a group of one class: its state still has both columns
        config = {"labels": [0, 1]}
    cut = n // 2
    part = (lambda a, s_: None if a is None else a[s_])
    return [((y[s_], P[s_]), codes[s_], part(w, s_)) for s_ in (slice(0, cut), slice(cut, n))], \
        (codes, y, P, w), config


@pytest.mark.parametrize("case", ["binary", "columns", "three_classes", "fortran_float32",
                                  "unnormalised", "weighted", "text_labels", "labels_given"])
def test_log_loss_one_pass_equals_each_groups_own(case, monkeypatch):
    rng = np.random.default_rng(12)
    n, G = 4_000, 19
    chunks, (codes, y, P, w), config = _proba_chunks(rng, n, G, case)
    calls = _spy(monkeypatch)
    fast = _fast("proba", chunks, **config)
    assert not calls
    generic = _generic("proba", chunks, **config)
    assert calls and fast.keys() == generic.keys()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unnormalised case's warning, checked below
        for m in ("log_loss", "d2_log_loss_score"):
            values = fast.metric(m, errors="nan")
            for key in fast.keys():
                rows = codes == key
                ww = None if w is None else w[rows]
                if ww is not None and ww.sum() == 0:
                    assert math.isnan(values[key])
                    continue
                want = getattr(skm, m)(y[rows], P[rows], sample_weight=ww,
                                       labels=config.get("labels"))
                # scikit-learn sums float32 probabilities in float32; we sum in float64
                rel = 1e-6 if P.dtype == np.float32 else RTOL
                assert values[key] == pytest.approx(want, rel=rel, abs=1e-15), (m, key)
    for key in fast.keys():
        a, b = fast[key].state, generic[key].state
        assert a.classes.tolist() == b.classes.tolist() and a.weighted == b.weighted \
            and a.any_weight == b.any_weight
        np.testing.assert_allclose(a.sums, b.sums, rtol=RTOL, err_msg=str(key))
        np.testing.assert_allclose(a.class_weight, b.class_weight, rtol=RTOL)
    if case == "unnormalised":
        with pytest.warns(UserWarning, match="do not sum to one"):
            fast.metric("log_loss")


def test_log_loss_lanes_and_threads_give_the_same_bits():
    rng = np.random.default_rng(6)
    n, G = 2 * 262_144 + 77, 31
    codes = rng.integers(0, G, n)
    y = rng.integers(0, 2, n)
    s = rng.random(n)
    one = proba_state.grouped(codes, G, y, s, None, n_threads=1)
    two = proba_state.grouped(codes, G, y, s, None, n_threads=2)
    for g in range(G):
        np.testing.assert_array_equal(one[g].sums, two[g].sums)
        np.testing.assert_array_equal(one[g].class_weight, two[g].class_weight)
    for g in range(0, G, 7):
        rows = codes == g
        assert proba_state.loss(one[g]) == pytest.approx(skm.log_loss(y[rows], s[rows]),
                                                         rel=1e-12)


def test_log_loss_cases_left_to_the_per_group_rule(monkeypatch):
    rng = np.random.default_rng(4)
    n = 800
    codes = np.repeat([0, 1], n // 2)
    y = rng.integers(0, 2, n)
    s = rng.random(n)
    # a group lacking a class, no labels: its own state would hold one class
    y_one = y.copy()
    y_one[codes == 1] = 1
    assert proba_state.grouped(codes, 2, y_one, s, None) is None
    with pytest.raises(ValueError, match="only one label"):
        GroupedAccumulator("proba").update(y_one, s, groups=codes)
    # top-k ranks: the per-group rule
    calls = _spy(monkeypatch)
    P = rng.random((n, 3))
    y3 = rng.integers(0, 3, n)
    acc = GroupedAccumulator("proba", k=2).update(y3, P, groups=codes)
    assert calls
    assert acc.top_k_accuracy_score()[0] == pytest.approx(
        skm.top_k_accuracy_score(y3[codes == 0], P[codes == 0], k=2), rel=RTOL)
    # an indicator y_true
    Y = rng.integers(0, 2, (n, 3))
    assert proba_state.grouped(codes, 2, Y, P, None) is None


def test_log_loss_bad_inputs_name_the_problem():
    rng = np.random.default_rng(10)
    n = 300
    codes = rng.integers(0, 3, n)
    y = rng.integers(0, 2, n)
    s = rng.random(n)
    with pytest.raises(ValueError, match="group code 5 at row 2 is outside"):
        proba_state.grouped(np.array([0, 1, 5]), 3, y[:3], s[:3], None)
    acc = GroupedAccumulator("proba").update(y, s, groups=codes)
    before = json.dumps(acc.state.to_dict(as_lists=True))
    for bad, match in ((1.5, "greater than 1"), (-0.5, "lower than 0"), (np.nan, "NaN")):
        b = s.copy()
        b[200] = bad
        with pytest.raises(ValueError, match=match):
            acc.update(y, b, groups=codes)
    y_bad = y.copy()
    y_bad[5] = 2  # a third label beside 1-D probabilities
    with pytest.raises(ValueError, match="different number of classes"):
        acc.update(y_bad, s, groups=codes)
    assert json.dumps(acc.state.to_dict(as_lists=True)) == before


def test_kernels_refuse_inconsistent_shapes():
    z = np.zeros(3)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        ks.grouped_sums(np.zeros(2, np.int64), 1, z, z, z, False, 0, 1.0, np.zeros((1, 13)))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        kp.grouped_scores(np.zeros(3, np.int64), 2, z[:, None], True, np.zeros(3, np.int64),
                          0, np.arange(2), z, False, 1e-8, np.zeros((1, kp.N_SUMS)),
                          np.zeros((2, 2)), np.zeros((2, 2)))


# ----------------------------------------------------------------------------- calibration


def test_calibration_lanes_and_threads_give_the_same_bits():
    """The grouped binning pass over several lanes: the same bins for one thread and two,
    each group's the bins of its own pass (to rounding), and the first bad row named."""
    from fastmetrics._kernels import bins as kb
    from fastmetrics._states import bins as bins_state

    rng = np.random.default_rng(13)
    n, G = 2 * 262_144 + 5, 41
    codes = rng.integers(0, G, n)
    y = rng.integers(0, 2, n)
    p = rng.random(n)
    positive = (y == 1).view(np.uint8)
    _, padded, uniform = bins_state._edges_for(10, None)
    out = []
    for nt in (1, 2):
        table = np.zeros((G, 10, kb.N_COLS))
        assert kb.bin_binary_grouped(codes, positive, p, np.empty(0), False, padded, uniform,
                                     table, nt) == (-1, 0)
        out.append(table)
    np.testing.assert_array_equal(out[0], out[1])
    acc = GroupedAccumulator("calibration").update(y, p, groups=codes)
    for g in range(0, G, 10):
        rows = codes == g
        assert acc.brier_score_loss()[g] == pytest.approx(
            skm.brier_score_loss(y[rows], p[rows]), rel=RTOL)
        np.testing.assert_array_equal(acc[g].state.sums[:, kb.N], out[0][g, :, kb.N])
    bad = p.copy()
    bad[[n - 3, 400_000]] = 2.0  # two bad rows in two lanes: the first is named
    table = np.zeros((G, 10, kb.N_COLS))
    assert kb.bin_binary_grouped(codes, positive, bad, np.empty(0), False, padded, uniform,
                                 table, 2) == (400_000, kb.BAD_PROB)


def test_binning_kernels_refuse_edges_without_their_pads():
    """The bin index is kept in range by the -inf / +inf pads: edges without them are
    refused, not read out of bounds."""
    from fastmetrics._kernels import bins as kb

    p = np.array([0.0, 0.5, 1.0])
    bare = np.linspace(0.0, 1.0, 11)
    with pytest.raises(ValueError, match="padded edges"):
        kb.bin_binary_grouped(np.zeros(3, np.int64), np.zeros(3, np.uint8), p, np.empty(0),
                              False, bare, True, np.zeros((1, 10, kb.N_COLS)))
    with pytest.raises(ValueError, match="padded edges"):
        kb.bin_binary(np.zeros(3, np.int64), p, np.empty(0), False, 1, True, bare, True,
                      np.zeros((10, kb.N_COLS)))
