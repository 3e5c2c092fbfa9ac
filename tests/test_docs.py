"""The documentation's API reference lists every public name (docs/reference.py, which the
Sphinx build also runs), and its offline intersphinx inventories are readable and point at
the sites' pages."""

import importlib.util
import zlib
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"

pytestmark = pytest.mark.skipif(not (DOCS / "reference.py").is_file(),
                                reason="no docs/ beside the tests (not a source checkout)")


def _reference():
    spec = importlib.util.spec_from_file_location("docs_reference", DOCS / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_lists_every_public_name():
    reference = _reference()
    assert reference.problems() == []
    names = reference.documented_names()
    assert "fastmetrics.f1_score" in names
    assert "fastmetrics.streaming.ConfusionAccumulator" in names


def test_reference_check_finds_a_missing_name(tmp_path):
    reference = _reference()
    text = (DOCS / "api" / "classification.rst").read_text()
    assert "   f1_score\n" in text
    for path in (DOCS / "api").glob("*.rst"):
        (tmp_path / path.name).write_text(path.read_text())
    (tmp_path / "classification.rst").write_text(text.replace("   f1_score\n", ""))
    (tmp_path / "extra.rst").write_text(
        ".. currentmodule:: fastmetrics\n\n.. autosummary::\n\n   _threads\n")
    problems = reference.problems(tmp_path)
    assert "missing from the API reference (docs/api/*.rst): fastmetrics.f1_score" in problems
    assert any("fastmetrics._threads" in p for p in problems)


@pytest.mark.parametrize("name, entry", [
    ("sklearn.inv", "sklearn.metrics.f1_score py:function 1 "
                    "modules/generated/sklearn.metrics.f1_score.html#$ -"),
    ("numpy.inv", "numpy.percentile py:function 1 reference/generated/numpy.percentile.html#$ -"),
    ("python.inv", "ValueError py:exception 1 library/exceptions.html#$ -"),
])
def test_inventories(name, entry):
    data = (DOCS / "_inventories" / name).read_bytes()
    header, body = data.split(b"\n", 4)[:4], data.split(b"\n", 4)[4]
    assert header[0] == b"# Sphinx inventory version 2"
    assert entry in zlib.decompress(body).decode().splitlines()


def _state_docstrings():
    import inspect

    from fastmetrics import states

    for name in states.__all__:
        obj = getattr(states, name)
        yield f"fastmetrics.states.{name}", obj
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if not attr.startswith("_") and isinstance(value, (classmethod, staticmethod)):
                    yield f"fastmetrics.states.{name}.{attr}", value.__func__
                elif not attr.startswith("_") and inspect.isfunction(value):
                    yield f"fastmetrics.states.{name}.{attr}", value


def test_state_examples_run():
    # the state types say they live in fastmetrics.states, but their methods' globals are
    # the private modules': pytest --doctest-modules collects neither, so they run here
    import doctest

    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(verbose=False)
    ran = 0
    for name, obj in _state_docstrings():
        doc = obj.__doc__ or ""
        if ">>>" not in doc:
            continue
        test = parser.get_doctest(doc, {}, name, None, 0)
        result = runner.run(test, out=lambda text: None)
        assert result.failed == 0, name
        ran += 1
    assert ran >= 60
