"""Array API and torch inputs: every face function that takes arrays reads torch tensors
(``requires_grad`` too), array_api_strict arrays and DLPack producers, gives scikit-learn's
values, and honours scikit-learn's ``array_api_dispatch`` as scikit-learn 1.9 does: array
results in the input's namespace where scikit-learn returns them so, Python floats for scores.

torch is required where ``FASTMETRICS_REQUIRE_TORCH=1`` (set by ``.ci/run``): there a missing
torch fails the run instead of skipping these tests."""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest
import sklearn
import sklearn.calibration as skc
import sklearn.metrics as skm
import sklearn.metrics.cluster as skmc

import fastmetrics as fm
import fastmetrics.streaming as fms
from _parity import assert_same
from fastmetrics import _array_api, _inputs, _table

if os.environ.get("FASTMETRICS_REQUIRE_TORCH") == "1":
    import array_api_strict as xps
    import torch
else:
    torch = pytest.importorskip("torch")
    xps = pytest.importorskip("array_api_strict")

R = np.random.default_rng(3)
N = 200
yb, pb = R.integers(0, 2, N), R.integers(0, 2, N)
ym, pm = R.integers(0, 4, N), R.integers(0, 4, N)
yr, pr = R.normal(size=N), R.normal(size=N)
Yr, Pr = R.normal(size=(N, 2)), R.normal(size=(N, 2))
sc = R.random(N)
sc_b = R.random(N)
pos1, pos2 = R.gamma(2.0, size=N), R.gamma(2.0, size=N)
proba = R.dirichlet(np.ones(4), N)
Y2, S2 = R.integers(0, 2, (N, 5)), R.random((N, 5))
x_sorted, y_auc = np.sort(R.random(N)), R.random(N)
w = R.random(N)
dec = R.normal(size=(N, 4))
logits = R.normal(size=(N, 6))
targets = R.integers(0, 6, N)
groups = R.integers(0, 3, N)
raw = {"multioutput": "raw_values"}

#: every fastmetrics function with a scikit-learn counterpart: (args, kwargs) cases
CASES = {
    "accuracy_score": [((ym, pm), {}), ((ym, pm), {"sample_weight": w})],
    "balanced_accuracy_score": [((ym, pm), {})],
    "class_likelihood_ratios": [((yb, pb), {})],
    "classification_report": [((ym, pm), {"output_dict": True})],
    "cohen_kappa_score": [((ym, pm), {})],
    "confusion_matrix": [((ym, pm), {}), ((ym, pm), {"sample_weight": w})],
    "f1_score": [((yb, pb), {}), ((ym, pm), {"average": "macro"}),
                 ((ym, pm), {"average": None})],
    "fbeta_score": [((ym, pm), {"beta": 0.5, "average": "weighted"})],
    "hamming_loss": [((ym, pm), {})],
    "jaccard_score": [((ym, pm), {"average": "macro"}), ((ym, pm), {"average": None})],
    "matthews_corrcoef": [((ym, pm), {})],
    "multilabel_confusion_matrix": [((ym, pm), {})],
    "precision_recall_fscore_support": [((ym, pm), {"average": "macro"}), ((ym, pm), {})],
    "precision_score": [((yb, pb), {}), ((ym, pm), {"average": None})],
    "recall_score": [((ym, pm), {"average": "micro"}), ((ym, pm), {"average": None})],
    "zero_one_loss": [((ym, pm), {})],
    "brier_score_loss": [((yb, sc), {})],
    "d2_brier_score": [((yb, sc), {})],
    "explained_variance_score": [((yr, pr), {}), ((Yr, Pr), raw)],
    "d2_absolute_error_score": [((yr, pr), {}), ((Yr, Pr), raw)],
    "d2_pinball_score": [((yr, pr), {})],
    "mean_pinball_loss": [((yr, pr), {}), ((Yr, Pr), raw)],
    "max_error": [((yr, pr), {})],
    "mean_absolute_error": [((yr, pr), {}), ((yr, pr), {"sample_weight": w}),
                            ((Yr, Pr), raw)],
    "mean_absolute_percentage_error": [((yr, pr), {}), ((Yr, Pr), raw)],
    "mean_squared_error": [((yr, pr), {}), ((Yr, Pr), raw)],
    "median_absolute_error": [((yr, pr), {}), ((Yr, Pr), raw)],
    "r2_score": [((yr, pr), {}), ((Yr, Pr), raw)],
    "root_mean_squared_error": [((yr, pr), {}), ((Yr, Pr), raw)],
    "mean_tweedie_deviance": [((pos1, pos2), {"power": 1.5})],
    "mean_poisson_deviance": [((pos1, pos2), {})],
    "mean_gamma_deviance": [((pos1, pos2), {})],
    "d2_tweedie_score": [((pos1, pos2), {})],
    "mean_squared_log_error": [((pos1, pos2), {})],
    "root_mean_squared_log_error": [((pos1, pos2), {})],
    "roc_auc_score": [((yb, sc), {})],
    "average_precision_score": [((yb, sc), {})],
    "roc_curve": [((yb, sc), {})],
    "precision_recall_curve": [((yb, sc), {})],
    "det_curve": [((yb, sc), {})],
    "confusion_matrix_at_thresholds": [((yb, sc), {})],
    "metric_at_thresholds": [((yb, sc, skm.accuracy_score), {})],
    "auc": [((x_sorted, y_auc), {})],
    "ndcg_score": [((Y2, S2), {})],
    "dcg_score": [((Y2, S2), {})],
    "coverage_error": [((Y2, S2), {})],
    "label_ranking_average_precision_score": [((Y2, S2), {})],
    "label_ranking_loss": [((Y2, S2), {})],
    "adjusted_mutual_info_score": [((ym, pm), {})],
    "adjusted_rand_score": [((ym, pm), {})],
    "completeness_score": [((ym, pm), {})],
    "fowlkes_mallows_score": [((ym, pm), {})],
    "homogeneity_completeness_v_measure": [((ym, pm), {})],
    "homogeneity_score": [((ym, pm), {})],
    "mutual_info_score": [((ym, pm), {})],
    "normalized_mutual_info_score": [((ym, pm), {})],
    "pair_confusion_matrix": [((ym, pm), {})],
    "rand_score": [((ym, pm), {})],
    "v_measure_score": [((ym, pm), {})],
    "log_loss": [((ym, proba), {})],
    "d2_log_loss_score": [((ym, proba), {})],
    "top_k_accuracy_score": [((ym, proba), {"k": 2})],
    "hinge_loss": [((ym, dec), {})],
}
#: scikit-learn's function where it is not in sklearn.metrics under the same name
REFERENCE = {"calibration_curve": skc.calibration_curve,
             "contingency_matrix": skmc.contingency_matrix}
#: functions of fastmetrics' own (and those compared with REFERENCE): torch and array API
#: inputs give the numpy inputs' results, as numpy
OWN = {
    "specificity_score": [((ym, pm), {"average": None}), ((yb, pb), {})],
    "false_positive_rate": [((ym, pm), {"average": None})],
    "false_negative_rate": [((ym, pm), {"average": "macro"})],
    "oos_precision_recall": [((ym, pm, 2), {})],
    "score": [((ym, pm), {})],
    "adjusted_r2_score": [((yr, pr), {"n_features": 2})],
    "huber_loss": [((yr, pr), {})],
    "mae_by_bin": [((yr, pr, {"low": (-9.0, 0.0), "high": (0.0, 9.0)}), {})],
    "regression_summary": [((yr, pr), {"sample_weight": w})],
    "mean_reciprocal_rank": [((Y2, S2), {})],
    "contingency_matrix": [((ym, pm), {})],
    "calibration_bins": [((yb, sc), {})],
    "calibration_curve": [((yb, sc), {"n_bins": 5})],
    "calibration_summary": [((yb, sc), {})],
    "expected_calibration_error": [((yb, sc), {})],
    "max_calibration_error": [((yb, sc), {})],
    "delong_ci": [((yb, sc), {})],
    "delong_test": [((yb, sc, sc_b), {})],
    "median": [((yr,), {})],
    "percentile": [((yr, 90.0), {})],
    "quantile": [((yr, 0.25), {})],
    "perplexity": [((logits, targets), {})],
    "token_logprobs": [((logits, targets), {})],
    "sequence_loglik": [((logits[None], targets[None]), {})],
    "multiple_choice_accuracy": [((logits[:, :4], ym), {})],
    "group_metrics": [((ym, pm, groups), {})],
}
#: wrapped functions that take no metric arrays (text, callables, file paths, sizes)
NO_ARRAYS = {"format_metrics_row", "flatten", "results_header", "results_columns",
             "rolling_windows", "continuation_batch", "class_confidence_from_logprobs",
             "reliability_diagram", "rolling_loglik", "score_probabilities",
             "expected_mutual_information"}
#: (function, case) pairs scikit-learn 1.9.1 itself raises on with dispatch on (torch 2.13,
#: array_api_strict 2.6): there the namespace rule (NAMESPACE_RESULTS) is what is checked
SKLEARN_RAISES = {"classification_report", "matthews_corrcoef", "roc_auc_score", "roc_curve",
                  "ndcg_score", "top_k_accuracy_score", "hinge_loss", "class_likelihood_ratios",
                  "dcg_score", "coverage_error", "label_ranking_average_precision_score",
                  "label_ranking_loss", "completeness_score", "homogeneity_score",
                  "homogeneity_completeness_v_measure", "v_measure_score",
                  "metric_at_thresholds"}
#: where scikit-learn's dispatch result is shaped otherwise: its classification_report dict
#: is keyed by 0-d arrays of the labels (array_api_strict); ours by the label strings, as
#: with numpy input
SKLEARN_QUIRKS = {"classification_report"}

LIBS = {"torch": lambda a: torch.asarray(a), "array_api_strict": lambda a: xps.asarray(a)}


def _convert(lib, args, kwargs):
    f = LIBS[lib]
    return ([f(a) if isinstance(a, np.ndarray) else a for a in args],
            {k: f(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()})


@pytest.fixture
def dispatch(monkeypatch):
    """scikit-learn's array_api_dispatch on, for this test (it needs scipy's switch)."""
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    with sklearn.config_context(array_api_dispatch=True):
        yield


def _root(x) -> str:
    return type(x).__module__.partition(".")[0]


def _kind(x) -> str:
    """'f' or 'i' (integers and bool) of an array of any of the three libraries."""
    if isinstance(x, np.ndarray):
        return "f" if x.dtype.kind == "f" else "i"
    if _root(x) == "torch":
        return "f" if x.dtype.is_floating_point else "i"
    return "f" if xps.isdtype(x.dtype, "real floating") else "i"


def _shape(r):
    """What a result is made of: arrays as (library, kind), containers by their items."""
    if isinstance(r, tuple):
        return (type(r).__name__, tuple(_shape(x) for x in r))
    if isinstance(r, dict):
        return {k: _shape(v) for k, v in r.items()}
    if dataclasses.is_dataclass(r):
        return (type(r).__name__, _shape(dataclasses.asdict(r)))
    if isinstance(r, list):
        return [_shape(x) for x in r]
    if hasattr(r, "__dlpack__") and not isinstance(r, np.generic):
        return (_root(r), _kind(r))
    return type(r).__name__


def _to_numpy(x):
    if _root(x) in ("torch", "array_api_strict"):
        return np.from_dlpack(x)
    return x


def _plain(r):
    """``r`` with arrays of any namespace as numpy and result records as dicts, for
    :func:`_parity.assert_same`."""
    if dataclasses.is_dataclass(r) and not isinstance(r, type):
        return {"type": type(r).__name__,
                **{f.name: _plain(getattr(r, f.name)) for f in dataclasses.fields(r)}}
    if isinstance(r, dict):
        return {k: _plain(v) for k, v in r.items()}
    if isinstance(r, (tuple, list)):
        return [_plain(x) for x in r]
    return _to_numpy(r)


def _same(a, b):
    """Equal values: integers exactly, floats to 1e-12 relative, same structure."""
    assert_same(_plain(a), _plain(b))


def _all_cases(table):
    return [pytest.param(name, args, kw, id=f"{name}-{i}")
            for name, cases in table.items() for i, (args, kw) in enumerate(cases)]


def _wrapped_names():
    return {n for n in fm.__all__ if isinstance(getattr(fm, n), types.FunctionType)
            and getattr(getattr(fm, n), "__wrapped__", None) is not None
            and getattr(fm, n).__module__ != "fastmetrics.scorers"
            and getattr(fm, n).__module__ != "fastmetrics.timing"}


def test_the_cases_cover_the_api():
    """Every face function that takes arrays is checked below: with scikit-learn's
    counterpart (CASES) or against its own numpy result (OWN)."""
    wrapped = _wrapped_names()
    with_sklearn = {n for n in wrapped if hasattr(skm, n)}
    assert with_sklearn <= set(CASES), with_sklearn - set(CASES)
    assert wrapped - with_sklearn <= set(OWN) | NO_ARRAYS, wrapped - with_sklearn - set(OWN)
    assert "f1_score" in wrapped and fm.f1_score is fm.classification.f1_score
    # pickled by reference (scorers sent to worker processes)
    assert pickle.loads(pickle.dumps(fm.f1_score)) is fm.f1_score
    # every function whose arrays come back in the input's namespace has a case
    assert _array_api.NAMESPACE_RESULTS <= set(CASES)


@pytest.mark.parametrize("lib", sorted(LIBS))
@pytest.mark.parametrize("name, args, kw", _all_cases(CASES))
def test_dispatch_off_gives_numpy_results(name, args, kw, lib):
    targs, tkw = _convert(lib, args, kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(skm, name)(*args, **kw)
        got = getattr(fm, name)(*targs, **tkw)
        sk_foreign = getattr(skm, name)(*targs, **tkw)
    _same(got, want)
    assert _shape(got) == _shape(want) == _shape(sk_foreign)


@pytest.mark.parametrize("lib", sorted(LIBS))
@pytest.mark.parametrize("name, args, kw", _all_cases(CASES))
def test_dispatch_on_follows_sklearn(name, args, kw, lib, dispatch):
    targs, tkw = _convert(lib, args, kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(skm, name)(*args, **kw)  # numpy inputs: the values
        got = getattr(fm, name)(*targs, **tkw)
        try:
            sk_got = getattr(skm, name)(*targs, **tkw)
        except Exception:  # scikit-learn's own array API path fails here
            assert name in SKLEARN_RAISES, name
            sk_got = None
    _same(got, want)
    if sk_got is not None and name not in SKLEARN_QUIRKS:
        # the same kind of result: arrays of the same library (the dtype's precision may
        # differ: scikit-learn gives float32 precision/recall arrays for torch; ours are
        # float64), Python floats for scalars
        assert _shape(got) == _shape(sk_got)
    else:  # the rule scikit-learn's array API path follows where it works
        arrays = lib if name in _array_api.NAMESPACE_RESULTS else "numpy"
        assert "numpy" not in str(_shape(got)) or arrays == "numpy"
        assert lib not in str(_shape(got)) or arrays == lib


@pytest.mark.parametrize("lib", sorted(LIBS))
@pytest.mark.parametrize("on", [False, True], ids=["off", "on"])
@pytest.mark.parametrize("name, args, kw", _all_cases(OWN))
def test_own_functions_take_foreign_arrays(name, args, kw, lib, on, monkeypatch):
    targs, tkw = _convert(lib, args, kw)
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(fm, name)(*args, **kw)
        with sklearn.config_context(array_api_dispatch=on):
            got = getattr(fm, name)(*targs, **tkw)
        if name in REFERENCE:
            _same(got, REFERENCE[name](*args, **kw))
    _same(got, want)
    assert _shape(got) == _shape(want)  # numpy results: scikit-learn has no namespace rule


#: update() arguments of each accumulator (the families of the metric table, and the two
#: accumulators outside it), with the settings some need
UPDATES = {
    "confusion": ((ym, pm), {}), "calibration": ((yb, sc), {}), "regression": ((yr, pr), {}),
    "pinball": ((yr, pr), {}), "ranking": ((yb, sc), {}), "label_ranking": ((Y2, S2), {}),
    "contingency": ((ym, pm), {}), "proba": ((ym, proba), {}), "hinge": ((ym, dec), {}),
    "tweedie": ((pos1, pos2), {}), "squared_log": ((pos1, pos2), {}),
}


#: metric parameters a row needs (as tests/test_architecture.py gives them)
REQUIRED = {"fbeta_score": {"beta": 0.5, "average": "macro"}, "f1_score": {"average": "macro"},
            "precision_score": {"average": "micro"}, "recall_score": {"average": "weighted"},
            "oos_precision_recall": {"oos_label": 2}, "adjusted_r2_score": {"n_features": 2},
            "jaccard_score": {"average": "weighted"}, "specificity_score": {"average": "macro"},
            "false_positive_rate": {"average": None}, "false_negative_rate": {"average": "micro"}}


@pytest.mark.parametrize("lib", sorted(LIBS))
@pytest.mark.parametrize("row", _table.METRICS, ids=lambda r: r.name)
def test_accumulators_take_foreign_arrays(row, lib):
    args, _ = UPDATES[row.family]
    if row.name == "class_likelihood_ratios":
        args = (yb, pb)
    kw = REQUIRED.get(row.name, {})
    defaults = row.signature.parameters
    config = {k: kw.get(k, defaults[k].default) for k in row.config if k in defaults}
    config.update({"keep_values": True} if row.name == "median_absolute_error" else {})
    config.update(dict(row.fixed))
    metric_kw = {k: v for k, v in kw.items() if k not in row.config}
    cls = next(c for c in vars(fms).values() if isinstance(c, type)
               and issubclass(c, fms.Accumulator) and c.family == row.family)
    targs = [LIBS[lib](a) for a in args]
    if lib == "torch" and targs[-1].dtype.is_floating_point:
        targs[-1].requires_grad_(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(cls(**config).update(*args), row.name)(**metric_kw)
        got = getattr(cls(**config).update(*targs), row.name)(**metric_kw)
    _same(got, want)


def test_the_other_accumulators_take_foreign_arrays():
    q = fms.QuantileAccumulator().update(torch.tensor(yr, requires_grad=True))
    _same(q.result(), fms.QuantileAccumulator().update(yr).result())
    want = fms.PairedConfusionAccumulator().update(ym, pm, pb)
    got = fms.PairedConfusionAccumulator().update(*(torch.tensor(a) for a in (ym, pm, pb)))
    assert got.mcnemar_test() == want.mcnemar_test()


@pytest.mark.parametrize("name", ["confusion_matrix", "multilabel_confusion_matrix",
                                  "confusion_matrix_at_thresholds", "roc_curve"])
def test_mixed_namespaces_follow_the_predictions(name, dispatch):
    """As scikit-learn: y_true (and weights) follow y_pred / y_score; numpy predictions give
    numpy results."""
    y, p = (yb, sc) if "thresholds" in name or "curve" in name else (ym, pm)
    t = torch.asarray
    got = getattr(fm, name)(t(y), xps.asarray(p), sample_weight=t(w))
    want = getattr(skm, name)(y, p, sample_weight=w)
    _same(got, want)
    assert {r for r in str(_shape(got)).split("'") if r in LIBS or r == "numpy"} == \
        {"array_api_strict"}
    got = getattr(fm, name)(t(y), p)
    assert "torch" not in str(_shape(got))
    got = getattr(fm, name)(y_true=y, **({"y_score": t(p)} if y is yb else {"y_pred": t(p)}))
    assert "numpy" not in str(_shape(got))


def test_float32_weights_of_indicator_matrices():
    """float32 weights with multilabel indicators (scikit-learn's array API tests use
    them) are widened to float64 once, as scikit-learn computes."""
    Y = R.integers(0, 2, (N, 3)).astype(np.float32)
    P = R.integers(0, 2, (N, 3)).astype(np.float32)
    w32 = w.astype(np.float32)
    for name, kw in [("accuracy_score", {}), ("f1_score", {"average": "micro"}),
                     ("multilabel_confusion_matrix", {}), ("hamming_loss", {})]:
        want = getattr(skm, name)(Y, P, sample_weight=w32, **kw)
        got = getattr(fm, name)(Y, P, sample_weight=w32, **kw)
        got_torch = getattr(fm, name)(torch.asarray(Y), torch.asarray(P),
                                      sample_weight=torch.asarray(w32), **kw)
        _same(got_torch, got)
        if name in ("multilabel_confusion_matrix", "hamming_loss"):
            # scikit-learn sums float32 weights in float32 here (its true negatives are
            # sample_weight.sum() - tp - fp - fn; its hamming_loss is an np.float32): equal
            # to float32 precision; ours are float64 sums
            np.testing.assert_allclose(got, want, rtol=1e-6)
        else:
            _same(got, want)


def test_requires_grad_is_read_without_touching_the_graph(dispatch):
    y = torch.tensor(yr, requires_grad=True)
    p = torch.tensor(pr, requires_grad=True)
    assert fm.mean_squared_error(y, p) == pytest.approx(skm.mean_squared_error(yr, pr),
                                                       rel=1e-12)
    raw_values = fm.mean_squared_error(torch.tensor(Yr, requires_grad=True), torch.tensor(Pr),
                                       multioutput="raw_values")
    assert isinstance(raw_values, torch.Tensor) and not raw_values.requires_grad
    s = torch.tensor(sc, requires_grad=True)
    assert fm.roc_auc_score(torch.tensor(yb), s) == pytest.approx(skm.roc_auc_score(yb, sc),
                                                                  rel=1e-12)
    assert y.grad is None and s.grad is None and y.requires_grad
    # the tensor stays usable for autograd after the call
    (y * 2).sum().backward()
    assert torch.equal(y.grad, torch.full_like(y, 2.0))


def test_requires_grad_with_dispatch_off():
    s = torch.tensor(sc, requires_grad=True)
    got = fm.roc_curve(torch.tensor(yb), s)
    _same(got, skm.roc_curve(yb, sc))
    assert all(type(a) is np.ndarray for a in got)


def _module_with(func) -> types.ModuleType:
    mod = types.ModuleType("made_up_faces")
    func.__module__ = mod.__name__
    setattr(mod, func.__name__, func)
    mod.__all__ = [func.__name__]
    _array_api.follow_namespaces({}, mod)
    return mod


def test_host_memory_is_read_in_place():
    """The function behind the wrapper sees numpy views of the tensors' memory: plain,
    strided, requires_grad and array_api_strict inputs are not copied."""
    seen = []

    def look(*arrays):
        seen.extend(arrays)
        return 0.0

    face = _module_with(look).look
    base = torch.arange(20.0)
    grad = torch.arange(5.0, requires_grad=True)
    ints = torch.arange(10, dtype=torch.int32).reshape(5, 2)
    strict_base = np.arange(6.0)
    strict = xps.asarray(strict_base)
    face(base, base[::3], grad, ints.T, strict)
    assert all(type(a) is np.ndarray for a in seen)
    assert np.shares_memory(seen[0], base.numpy()) and seen[0].shape == (20,)
    assert np.shares_memory(seen[1], base.numpy()) and seen[1].strides == (3 * base.element_size(),)
    assert np.shares_memory(seen[2], grad.detach().numpy())
    assert np.shares_memory(seen[3], ints.numpy()) and seen[3].shape == (2, 5)
    assert np.shares_memory(seen[4], strict_base) or np.array_equal(seen[4], strict_base)
    np.testing.assert_array_equal(seen[1], [0.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0])
    # numpy arrays, lists and scalars are passed through as they are
    a, lst = np.arange(3), [1, 2]
    seen.clear()
    face(a, lst, 3)
    assert seen[0] is a and seen[1] is lst and seen[2] == 3


def test_array_api_strict_memory_is_shared():
    """array_api_strict's DLPack export is a view of its buffer: a change to the source
    array shows through the numpy view."""
    src = np.zeros(4)
    view = _inputs.host_array(xps.asarray(src))
    if not np.shares_memory(view, src):
        pytest.skip("array_api_strict copied on asarray")
    src[0] = 5.0
    assert view[0] == 5.0


class FakeDeviceArray:
    """A 1-D array on a device the CPU cannot read (DLPack device type 2: CUDA), which
    exports to the host only when asked to copy there, counting its exports."""

    def __init__(self, values, *, cross_device=True):
        self._values = np.asarray(values)
        self._cross_device = cross_device
        self.exports = 0
        self.moves = 0

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if not self._cross_device or dl_device is None or tuple(dl_device) != (1, 0) or not copy:
            raise BufferError("this device's memory cannot be exported to the CPU in place")
        self.exports += 1
        return self._values.copy().__dlpack__(max_version=max_version)

    def cpu(self):
        self.moves += 1
        return torch.asarray(self._values.copy())


def test_device_arrays_are_copied_to_the_host_once():
    yt, yp = FakeDeviceArray(ym), FakeDeviceArray(pm)
    got = fm.f1_score(yt, yp, average="macro")
    assert got == pytest.approx(skm.f1_score(ym, pm, average="macro"), rel=1e-12)
    assert (yt.exports, yp.exports) == (1, 1)
    # a producer that cannot export across devices: its own .cpu(), once
    yt, yp = FakeDeviceArray(ym, cross_device=False), FakeDeviceArray(pm, cross_device=False)
    np.testing.assert_array_equal(fm.confusion_matrix(yt, yp), skm.confusion_matrix(ym, pm))
    assert (yt.moves, yp.moves, yt.exports) == (1, 1, 0)


def test_producers_of_no_namespace_give_numpy_with_dispatch_on(dispatch):
    got = fm.confusion_matrix(FakeDeviceArray(ym), FakeDeviceArray(pm))
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, skm.confusion_matrix(ym, pm))


@pytest.mark.parametrize("func, args", [(fm.f1_score, (yb, pb)),
                                        (fm.mean_squared_error, (yr, pr)),
                                        (fm.roc_auc_score, (yb, sc))],
                         ids=["f1_score", "mean_squared_error", "roc_auc_score"])
@pytest.mark.parametrize("bad", [lambda a: a[:-1], lambda a: np.stack([a, a], 1),
                                 lambda a: np.where(np.arange(a.size) == 3, np.nan, a),
                                 lambda a: a.astype(complex), lambda a: a[0]],
                         ids=["length", "2-D", "NaN", "complex", "0-D"])
def test_bad_inputs_fail_as_numpy_inputs_do(func, args, bad):
    """Wrong lengths, shapes, NaN and complex values in a tensor: the numpy input's error."""
    *first, last = args
    with pytest.raises(Exception) as want:
        func(*first, bad(last))
    with pytest.raises(type(want.value)) as got:
        func(*(torch.asarray(a) for a in first), torch.asarray(bad(last)))
    # a 0-d value is named by its repr: numpy's scalar there, a 0-d array here
    assert str(got.value).partition("a scalar")[0] == str(want.value).partition("a scalar")[0]


def test_unreadable_dtypes_and_layouts_raise_type_error():
    with pytest.raises(TypeError, match="^y_true of type torch.Tensor .*bfloat16"):
        fm.mean_squared_error(torch.ones(3, dtype=torch.bfloat16), torch.ones(3))
    with pytest.raises(TypeError, match="^y_pred of type torch.Tensor .*bfloat16"):
        fm.mean_squared_error(torch.ones(3), y_pred=torch.ones(3, dtype=torch.bfloat16))
    with pytest.raises(TypeError, match="sparse|cannot be read"):
        fm.accuracy_score(torch.eye(3).to_sparse(), torch.eye(3).to_sparse())


def test_half_precision_tensors_are_read():
    t16 = torch.tensor(yr, dtype=torch.float16)
    assert fm.mean_absolute_error(t16, t16 * 0) == pytest.approx(
        skm.mean_absolute_error(t16.numpy().astype(np.float64), np.zeros(N)), rel=1e-12)


def test_dispatch_is_read_per_thread(dispatch):
    """scikit-learn's configuration is thread-local: a thread without the context gets
    numpy results while this one gets tensors."""
    import threading

    out = {}
    t = threading.Thread(target=lambda: out.setdefault(
        "r", fm.confusion_matrix(torch.tensor(ym), torch.tensor(pm))))
    t.start()
    t.join()
    assert type(out["r"]) is np.ndarray
    assert isinstance(fm.confusion_matrix(torch.tensor(ym), torch.tensor(pm)), torch.Tensor)


def test_import_imports_neither_sklearn_nor_torch():
    code = ("import sys, fastmetrics; "
            "print(sorted(m for m in ('sklearn', 'torch', 'array_api_strict', 'scipy') "
            "if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.strip() == "[]"
