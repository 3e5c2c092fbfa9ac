"""The static types users see: mypy (its Python API, strict mode) flags a set of wrong calls
and reveals the expected types of right ones, and the static signatures of the generated faces
(the Dask functions, the accumulators' table methods) match the runtime ones and are current.

One mypy run checks both user scripts (about 30 s on a loaded 2-core machine, most of it
reading numpy's stubs)."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import pathlib
import re
import site
import sysconfig
import textwrap

import pytest

import fastmetrics as fm
import fastmetrics.streaming as fms
from fastmetrics import _table

api = pytest.importorskip("mypy.api")

PACKAGE = pathlib.Path(fm.__file__).resolve().parent
SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "scripts"

# Each wrong call ends with ``# E: <mypy error code>``: mypy must flag that line with that code.
WRONG = '''
import numpy as np
import fastmetrics as fm
import fastmetrics.dask as fmd
import fastmetrics.streaming as fms
from fastmetrics.states import ConfusionState
from fastmetrics.uncertainty import compare_state

y = [0, 1, 1, 0]
p = [0, 1, 0, 0]
s = [0.1, 0.8, 0.4, 0.3]

fm.f1_score(y, p, averge="macro")  # E: call-overload
fm.f1_score(y, p, average="mean")  # E: call-overload
fm.f1_score(y, p, n_threads="4")  # E: call-overload
fm.f1_score(y, p, [0, 1])  # E: call-overload
fm.f1_scor(y, p)  # E: attr-defined
fm.f1_score(y, p).shape  # E: attr-defined
fm.f1_score(y, p)[0]  # E: index
fm.accuracy_score(y, p, normalize="yes")  # E: arg-type
fm.confusion_matrix(y, p, normalize="rows")  # E: arg-type
fm.precision_score(y, p, zero_division="nan")  # E: call-overload
fm.classification_report(y, p).keys()  # E: attr-defined
fm.classification_report(y, p, output_dict=True).splitlines()  # E: attr-defined
fm.mean_squared_error(y, p, multioutput="raw")  # E: arg-type
fm.roc_auc_score(y, s, multi_class="ovx")  # E: call-overload
fm.adjusted_r2_score(y, p)  # E: call-arg
fm.percentile(s, 50, method="linearr")  # E: call-overload
fm.score(y, p).f1_macro_typo  # E: attr-defined
fm.cohen_kappa_score(y, p, weights="cubic")  # E: arg-type
fms.ConfusionAccumulator().f1_score(average="x")  # E: call-overload
fms.ConfusionAccumulator().merge(fms.RegressionAccumulator())  # E: arg-type
fms.RankingAccumulator().update(y)  # E: call-arg
compare_state(ConfusionState.from_arrays(y, p), "f1_score")  # E: arg-type
fmd.f1_score(y, p, compute="no")  # E: call-overload
fmd.mean_absolute_error(y, p, multioutput="raw")  # E: arg-type
'''

# Each ``reveal_type`` ends with ``# T: <the revealed type>``.
RIGHT = '''
import numpy as np
import fastmetrics as fm
import fastmetrics.dask as fmd
import fastmetrics.streaming as fms

y = [0, 1, 1, 0]
p = [0, 1, 0, 0]
s = [0.1, 0.8, 0.4, 0.3]
a = np.array([1.5, 2.0, 3.25])

reveal_type(fm.f1_score(y, p))  # T: float
reveal_type(fm.f1_score(y, p, average=None))  # T: ndarray[float64]
reveal_type(fm.f1_score(np.array(y), np.array(p), average="macro"))  # T: float
reveal_type(fm.precision_recall_fscore_support(y, p))  # T: PRFS arrays
reveal_type(fm.precision_recall_fscore_support(y, p, average="macro"))  # T: PRFS floats
reveal_type(fm.classification_report(y, p))  # T: str
reveal_type(fm.classification_report(y, p, output_dict=True))  # T: dict
reveal_type(fm.score(y, p))  # T: ClassificationMetrics
reveal_type(fm.score(y, p).accuracy)  # T: float
reveal_type(fm.mean_squared_error([1.0, 2.0], [1.5, 2.5]))  # T: float
reveal_type(fm.mean_squared_error(a, a, multioutput="raw_values"))  # T: ndarray[float64]
reveal_type(fm.roc_auc_score(y, s))  # T: float
reveal_type(fm.roc_auc_score(y, s, average=None))  # T: ndarray[float64]
reveal_type(fm.quantile(a, 0.5))  # T: floating
reveal_type(fm.quantile(a, [0.1, 0.9]))  # T: ndarray
reveal_type(fm.roc_curve(y, s))  # T: curve
reveal_type(fm.homogeneity_completeness_v_measure(y, p))  # T: 3 floats
reveal_type(fm.multiple_choice_accuracy([[0.0, 1.0]], [1], return_stderr=True))  # T: 2 floats
acc = fms.ConfusionAccumulator().update(y, p)
reveal_type(acc)  # T: ConfusionAccumulator
reveal_type(acc.f1_score())  # T: float
reveal_type(acc.f1_score(average=None))  # T: ndarray[float64]
reveal_type(acc.score())  # T: ClassificationMetrics
reveal_type(acc + acc)  # T: ConfusionAccumulator
reveal_type(fms.RankingAccumulator().roc_auc_score())  # T: float
reveal_type(fmd.f1_score(y, p))  # T: float
reveal_type(fmd.f1_score(y, p, average=None))  # T: ndarray[float64]
'''

EXPECTED = {
    "float": "float",
    "ndarray[float64]": "numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.float64]]",
    "ndarray": "numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]",
    "floating": "numpy.floating[Any]",
    "str": "str",
    "dict": "dict[str, Any]",
    "ClassificationMetrics": "fastmetrics._states.confusion.ClassificationMetrics",
    "ConfusionAccumulator": "fastmetrics.streaming.ConfusionAccumulator",
    "PRFS floats": "tuple[float, float, float, None]",
    "3 floats": "tuple[float, float, float]",
    "2 floats": "tuple[float, float]",
}
# the arrays' types are long: matched on a prefix or a pattern
PATTERNS = {
    "PRFS arrays": r"tuple\[(numpy\.ndarray\[tuple\[Any, \.\.\.\], "
                   r"numpy\.dtype\[numpy\.float64\]\], ){3}numpy\.ndarray\[.*signedinteger"
                   r".*_64Bit.*\] \| numpy\.ndarray\[.*float64\]\]\]",
    "curve": r"tuple\[numpy\.ndarray\[.*float64.*\], numpy\.ndarray\[.*float64.*\], "
             r"numpy\.ndarray\[.*Any.*\]\]",
}


def _mypy_path() -> list[str]:
    """Where the fastmetrics under test lives, unless mypy finds it installed anyway (mypy
    refuses a site-packages directory on its search path)."""
    root = PACKAGE.parent
    installed = {pathlib.Path(p).resolve() for p in site.getsitepackages()
                 + [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]}
    return [] if root in installed else [str(root)]


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """One strict mypy run over both scripts: each script's messages, by file stem."""
    where = tmp_path_factory.mktemp("typing")
    (where / "wrong_calls.py").write_text(textwrap.dedent(WRONG), encoding="utf-8")
    (where / "right_calls.py").write_text(textwrap.dedent(RIGHT), encoding="utf-8")
    config = where / "mypy.ini"
    lines = ["[mypy]", "strict = True", "follow_imports = silent",
             f"cache_dir = {where / 'cache'}", "show_error_codes = True"]
    path = _mypy_path()
    if path:
        lines.append("mypy_path = " + os.pathsep.join(path))
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out, err, _ = api.run(["--config-file", str(config), "--no-pretty",
                           "--no-error-summary",
                           str(where / "wrong_calls.py"), str(where / "right_calls.py")])
    assert not err.strip(), err
    by_file: dict[str, list[str]] = {"wrong_calls": [], "right_calls": []}
    for line in out.splitlines():
        for stem in by_file:
            if f"{stem}.py:" in line:
                by_file[stem].append(line)
    return by_file


def _tagged(source: str, tag: str) -> dict[int, str]:
    """Line number -> the text after ``# <tag>:`` on that line."""
    out = {}
    for i, line in enumerate(textwrap.dedent(source).splitlines(), start=1):
        m = re.search(rf"# {tag}: (.+)$", line)
        if m:
            out[i] = m.group(1).strip()
    return out


def test_mypy_flags_every_wrong_call(mypy_run: dict[str, list[str]]) -> None:
    expected = _tagged(WRONG, "E")
    assert len(expected) >= 15
    found: dict[int, set[str]] = {}
    for line in mypy_run["wrong_calls"]:
        m = re.search(r"wrong_calls\.py:(\d+): error: .*\[([a-z-]+)\]$", line)
        if m:
            found.setdefault(int(m.group(1)), set()).add(m.group(2))
    missed = {n: code for n, code in expected.items() if code not in found.get(n, set())}
    assert not missed, (missed, mypy_run["wrong_calls"])
    # nothing flagged on a line that is not a deliberate mistake
    stray = sorted(set(found) - set(expected))
    assert not stray, [line for line in mypy_run["wrong_calls"]
                       if int(line.split(":")[1]) in stray]


def test_mypy_reveals_the_result_types(mypy_run: dict[str, list[str]]) -> None:
    expected = _tagged(RIGHT, "T")
    errors = [line for line in mypy_run["right_calls"] if ": error:" in line]
    assert not errors, errors
    revealed = {}
    for line in mypy_run["right_calls"]:
        m = re.search(r'right_calls\.py:(\d+): note: Revealed type is "(.+)"$', line)
        if m:
            revealed[int(m.group(1))] = m.group(2)
    assert set(revealed) == set(expected), (revealed, expected)
    for n, what in expected.items():
        got = revealed[n]
        if what in PATTERNS:
            assert re.fullmatch(PATTERNS[what], got), (n, what, got)
        else:
            assert got == EXPECTED[what], (n, what, got)
        assert "Any" != got, (n, got)


# --------------------------------------------------------------------------- generated faces


def _stub_defs(path: pathlib.Path) -> dict[str, list[ast.FunctionDef]]:
    """``name`` (module level) or ``Class.name`` -> its ``def``s (overloads included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: dict[str, list[ast.FunctionDef]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef):
                    out.setdefault(f"{node.name}.{sub.name}", []).append(sub)
    return out


def _stub_params(node: ast.FunctionDef) -> list[tuple[str, str, bool]]:
    """(name, kind, has a default) of a stub's parameters, in order, as inspect names them."""
    a = node.args
    out = []
    pos = a.posonlyargs + a.args
    first_default = len(pos) - len(a.defaults)
    for i, arg in enumerate(pos):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, i >= first_default))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", False))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", default is not None))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", False))
    return out


def _runtime_params(fn: object) -> list[tuple[str, str, bool]]:
    sig = inspect.signature(fn)  # type: ignore[arg-type]
    return [(p.name, p.kind.name, p.default is not p.empty) for p in sig.parameters.values()]


def _same_up_to_overload_defaults(stub: list[tuple[str, str, bool]],
                                  runtime: list[tuple[str, str, bool]]) -> bool:
    """Names and kinds equal; an overload may make a parameter with a default required (it
    selects that overload), never the other way round."""
    return ([(n, k) for n, k, _ in stub] == [(n, k) for n, k, _ in runtime]
            and all(r or not s for (_, _, s), (_, _, r) in zip(stub, runtime)))


def test_dask_signatures_match_the_generated_functions() -> None:
    fmd = pytest.importorskip("fastmetrics.dask")
    stubs = _stub_defs(PACKAGE / "_dask_signatures.pyi")
    public = [n for n in fmd.__all__ if n != "accumulate"]
    assert sorted(stubs) == sorted(public)
    for name in public:
        runtime = _runtime_params(getattr(fmd, name))
        for node in stubs[name]:
            assert _same_up_to_overload_defaults(_stub_params(node), runtime), name
        # one overload keeps every runtime default but compute's: the compute=True ones
        assert any(_stub_params(node) == runtime for node in stubs[name]), name


def test_accumulator_method_signatures_match_the_generated_methods() -> None:
    stubs = _stub_defs(PACKAGE / "_accumulator_methods.pyi")
    seen = set()
    for row in _table.METRICS:
        cls = next(c for c in vars(fms).values() if isinstance(c, type)
                   and issubclass(c, fms.Accumulator) and c.family == row.family
                   and c.__module__ == fms.__name__)
        key = f"{cls.__name__}Methods.{row.name}"
        assert key in stubs, key
        seen.add(key)
        runtime = _runtime_params(getattr(cls, row.name))
        for node in stubs[key]:
            assert _same_up_to_overload_defaults(_stub_params(node), runtime), key
    for key, nodes in stubs.items():  # bootstrap, compare, mcnemar_test
        if key in seen:
            continue
        cls_name, method = key.split(".")
        cls = getattr(fms, cls_name.removesuffix("Methods"))
        runtime = _runtime_params(getattr(cls, method))
        assert [_stub_params(n) for n in nodes] == [runtime], key


def test_generated_stubs_are_current() -> None:
    script = SCRIPTS / "typing_stubs.py"
    if not script.is_file():
        pytest.skip(f"{script} is not here (the tests run without the source checkout)")
    spec = importlib.util.spec_from_file_location("typing_stubs", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.stubs().items():
        assert (PACKAGE / name).read_text(encoding="utf-8") == text, (
            f"{name} is stale: run PYTHONPATH=src python scripts/typing_stubs.py")


# --------------------------------------------------------------------------- completeness

PUBLIC_MODULES = ["fastmetrics", "fastmetrics.streaming", "fastmetrics.dask",
                  "fastmetrics.scorers", "fastmetrics.uncertainty", "fastmetrics.timing",
                  "fastmetrics.energy", "fastmetrics.export", "fastmetrics.lm",
                  "fastmetrics.report", "fastmetrics.parsing", "fastmetrics.fairness",
                  "fastmetrics.robustness", "fastmetrics.stability", "fastmetrics.llm_timing",
                  "fastmetrics.pytest_plugin"]


def _missing_annotations(fn: object, skip_first: bool = False) -> list[str]:
    sig = inspect.signature(fn)  # type: ignore[arg-type]
    params = list(sig.parameters.values())[1 if skip_first else 0:]
    missing = [p.name for p in params if p.annotation is p.empty]
    if sig.return_annotation is sig.empty and getattr(fn, "__name__", "") != "__init__":
        missing.append("return")
    return missing


def test_every_public_function_is_annotated() -> None:
    """Every public function of the public modules, and every public method of the
    accumulators, has annotations for all its parameters and its return (compiled functions
    are typed by their .pyi stubs, the generated faces by the generated stubs)."""
    import importlib
    gaps = {}
    for name in PUBLIC_MODULES:
        module = pytest.importorskip(name) if name == "fastmetrics.dask" else \
            importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isfunction(obj) and getattr(obj, "__signature__", None) is None:
                missing = _missing_annotations(obj)
                if missing:
                    gaps[f"{name}.{attr}"] = missing
    for cls in vars(fms).values():
        if not (isinstance(cls, type) and issubclass(cls, fms.Accumulator)):
            continue
        for attr, raw in vars(cls).items():
            if attr.startswith("_") and attr != "__init__":
                continue
            fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else \
                raw.fget if isinstance(raw, property) else raw
            if inspect.isfunction(fn) and getattr(fn, "__signature__", None) is None:
                missing = _missing_annotations(fn, skip_first=True)
                if missing:
                    gaps[f"{cls.__name__}.{attr}"] = missing
    assert not gaps, gaps
