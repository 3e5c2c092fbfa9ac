"""The layering holds: faces over states over kernels, no private name crossing modules, no
public function written twice, and every row of the metric table served by every face with
the one-shot function's signature and value."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pathlib
import warnings

import numpy as np
import pytest

import fastmetrics as fm
import fastmetrics.streaming as fms
from fastmetrics import _table

SRC = pathlib.Path(fm.__file__).resolve().parent
FILES = sorted(p for p in SRC.rglob("*.py"))


def _module(path: pathlib.Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {_module(p) for p in FILES} | {_module(p.with_suffix(".py"))
                                         for p in SRC.rglob("*.pyx")}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _crossings(path: pathlib.Path) -> list[str]:
    """``module uses other.name`` for each private name this file takes from another module
    of the package: ``from .x import _y``, or ``_y`` read as an attribute of an imported
    module."""
    me = _module(path)
    base = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases, hits = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")
                anchor = ".".join(parts[: len(parts) - (node.level - 1)])
                src = anchor + ("." + node.module if node.module else "")
            else:
                src = node.module or ""
            if not src.startswith("fastmetrics"):
                continue
            for a in node.names:
                full = f"{src}.{a.name}"
                if full in MODULES:
                    aliases[a.asname or a.name] = full
                elif _private(a.name) and src != me:
                    hits.append(f"{me} uses {src}.{a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in MODULES:
                    aliases[a.asname or a.name] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and _private(node.attr)
                and aliases[node.value.id] != me):
            hits.append(f"{me} uses {aliases[node.value.id]}.{node.attr}")
    return hits


def test_no_private_name_crosses_modules():
    hits = [h for p in FILES for h in _crossings(p)]
    assert not hits, "\n".join(hits)


def test_the_scan_sees_a_crossing():
    """The check above can fail: a made-up module taking a private name is caught."""
    fake = SRC / "_made_up_for_the_test.py"
    code = "from .classification import _hidden\nfrom . import report\nreport._private_thing\n"
    tree_hits = []
    try:
        fake.write_text(code)
        tree_hits = _crossings(fake)
    finally:
        fake.unlink()
    assert len(tree_hits) == 2


def _public_names() -> set[str]:
    names = set(fm.__all__)
    for mod in ("streaming", "dask", "states", "calibration", "classification", "ranking",
                "regression", "report", "fairness", "percentiles", "timing", "lm"):
        m = __import__(f"fastmetrics.{mod}", fromlist=["__all__"])
        names |= set(getattr(m, "__all__", ()))
    return {n for n in names if callable(getattr(fm, n, None))
            or any(callable(getattr(__import__(f"fastmetrics.{m}", fromlist=["x"]), n, None))
                   for m in ("streaming", "dask", "states"))}


def test_no_public_function_has_two_defs():
    defs: dict[str, list[str]] = {}
    for p in FILES:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            # an ``@overload`` stub declares a signature for type checkers: not a second body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not any(
                    getattr(d, "id", getattr(d, "attr", None)) == "overload"
                    for d in node.decorator_list):
                defs.setdefault(node.name, []).append(f"{_module(p)}:{node.lineno}")
    public = _public_names()
    twice = {n: where for n, where in defs.items() if n in public and len(where) > 1}
    assert not twice, twice
    assert "f1_score" in public and len(defs["f1_score"]) == 1


def test_states_and_kernels_never_import_faces():
    faces = {"classification", "calibration", "regression", "ranking", "report", "fairness",
             "streaming", "dask", "cli", "timing", "robustness", "lm", "percentiles",
             "cluster"}
    for p in (SRC / "_states").glob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module:
                assert node.module.split(".")[0] not in faces, f"{p.name} imports {node.module}"
    for p in (SRC / "_kernels").glob("*.pyx"):
        text = p.read_text(encoding="utf-8")
        assert "from .." not in text and "import fastmetrics" not in text, p.name


# ----------------------------------------------------------------------------- the table

RNG = np.random.default_rng(7)
N = 400
LABELS = (RNG.integers(0, 4, N), RNG.integers(0, 4, N))
SAMPLES = {
    "confusion": LABELS,
    "calibration": (RNG.integers(0, 2, N), RNG.random(N)),
    "regression": (RNG.normal(size=N), RNG.normal(size=N)),
    "ranking": (RNG.integers(0, 2, N), RNG.random(N).round(2)),
    "contingency": (RNG.integers(-2, 5, N), RNG.integers(0, 9, N)),
    "proba": (RNG.integers(0, 4, N), RNG.dirichlet(np.ones(4), N)),
    "label_ranking": (RNG.integers(0, 2, (N, 5)), RNG.random((N, 5)).round(1)),
    "hinge": (RNG.integers(0, 4, N), RNG.normal(size=(N, 4))),
}
SAMPLES["pinball"] = SAMPLES["regression"]  # the pinball sums of the same targets
REQUIRED = {"fbeta_score": {"beta": 0.5, "average": "macro"}, "f1_score": {"average": "macro"},
            "precision_score": {"average": "micro"}, "recall_score": {"average": "weighted"},
            "oos_precision_recall": {"oos_label": 2}, "adjusted_r2_score": {"n_features": 2},
            "jaccard_score": {"average": "weighted"}, "specificity_score": {"average": "macro"},
            "false_positive_rate": {"average": None}, "false_negative_rate": {"average": "micro"}}
# rows defined for binary targets only
BINARY_ROWS = {"class_likelihood_ratios": (RNG.integers(0, 2, N), RNG.integers(0, 2, N))}
# accumulator settings a row needs beyond the one-shot function's configuration
ACCUMULATOR_KW = {"median_absolute_error": {"keep_values": True},
                  "mean_poisson_deviance": {"power": 1}, "mean_gamma_deviance": {"power": 2}}
# positive targets (every Tweedie power's domain), drawn apart from RNG's sequence
_POSITIVE = np.random.default_rng(8)
SAMPLES["tweedie"] = (_POSITIVE.gamma(2.0, size=N), _POSITIVE.gamma(2.0, size=N))
SAMPLES["squared_log"] = (_POSITIVE.gamma(2.0, size=(N, 2)), _POSITIVE.gamma(2.0, size=(N, 2)))
ACCUMULATORS = {cls.family: cls for cls in vars(fms).values()
                if isinstance(cls, type) and issubclass(cls, fms.Accumulator) and cls.family}


def _same(a, b):
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b)
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, str) or a is None:
        assert a == b
    else:
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("row", _table.METRICS, ids=lambda r: r.name)
def test_every_row_is_served_by_every_face(row):
    one_shot = getattr(fm, row.name)
    assert one_shot is row.function
    sig = inspect.signature(one_shot)
    params = row.metric_parameters()
    # the derivation takes every metric parameter, with the one-shot default
    takes = inspect.signature(row.derive).parameters
    for p in params:
        assert p.name in takes, (row.name, p.name)
        assert takes[p.name].default is p.default or takes[p.name].default == p.default, \
            (row.name, p.name)
    acc_params = inspect.signature(ACCUMULATORS[row.family]).parameters
    for c in row.config:  # a setting of the accumulator (and of the one-shot, where it has it)
        assert c in acc_params, (row.name, c)
    # the accumulator method: the one-shot signature less data and configuration
    acc_cls = ACCUMULATORS[row.family]
    method = getattr(acc_cls, row.name)
    got = list(inspect.signature(method).parameters.values())[1:]
    assert [(p.name, p.kind, p.default) for p in got] == \
        [(p.name, p.kind, p.default) for p in params]
    # the Dask function: the one-shot signature plus compute, split_every and groups
    if row.dask:
        fmd = pytest.importorskip("fastmetrics.dask")
        dsig = inspect.signature(getattr(fmd, row.name))
        assert list(dsig.parameters)[: len(sig.parameters)] == list(sig.parameters)
        assert list(dsig.parameters)[len(sig.parameters):] == ["compute", "split_every",
                                                               "groups"]
        assert row.name in fmd.__all__


@pytest.mark.parametrize("row", _table.METRICS, ids=lambda r: r.name)
def test_every_face_gives_the_one_shot_value(row):
    y, x = BINARY_ROWS.get(row.name, SAMPLES[row.family])
    kw = REQUIRED.get(row.name, {})
    defaults = row.signature.parameters
    config = {k: kw.get(k, defaults[k].default) for k in row.config if k in defaults}
    config.update(ACCUMULATOR_KW.get(row.name, {}))
    metric_kw = {k: v for k, v in kw.items() if k not in row.config}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = row.function(y, x, **kw)
        acc = ACCUMULATORS[row.family](**config)
        acc.update(y[: N // 3], x[: N // 3]).update(y[N // 3:], x[N // 3:])
        _same(getattr(acc, row.name)(**metric_kw), want)
        if row.dask:
            dask = pytest.importorskip("dask")
            da = pytest.importorskip("dask.array")
            fmd = pytest.importorskip("fastmetrics.dask")
            with dask.config.set(scheduler="synchronous"):
                got = getattr(fmd, row.name)(da.from_array(y, chunks=N // 3), x, **kw)
            _same(got, want)
