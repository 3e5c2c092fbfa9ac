"""The docstrings generated for the accumulator methods and the Dask functions."""

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastmetrics
from fastmetrics import _docstrings, _table, streaming

numpydoc_validate = pytest.importorskip("numpydoc.validate")

CHECKS = {"GL08", "PR01", "PR02", "RT01", "SA01", "EX01"}
ACCUMULATORS = {name: getattr(streaming, name) for name in streaming.__all__
                if name.endswith("Accumulator") and name not in ("Accumulator", "GroupedAccumulator")}


def test_every_row_has_an_example():
    assert {row.name for row in _table.METRICS} <= set(_docstrings.EXAMPLES)
    assert {row.family for row in _table.METRICS} <= set(_docstrings.FAMILIES)


@pytest.mark.parametrize("row", _table.METRICS, ids=lambda r: r.name)
def test_generated_docstrings_validate(row):
    owner = next(n for n, c in ACCUMULATORS.items() if c.family == row.family)
    names = [f"fastmetrics.streaming.{owner}.{row.name}"]
    if row.dask:
        names.append(f"fastmetrics.dask.{row.name}")
    for name in names:
        errors = [e for e in numpydoc_validate.validate(name)["errors"] if e[0] in CHECKS]
        assert errors == [], name


def test_sections_read_a_full_numpydoc_docstring():
    # scikit-learn's docstrings stand for complete one-shot docstrings: every parameter is
    # found with its type, and the sections come back whole
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    f = sklearn_metrics.fbeta_score
    doc = _docstrings.Sections(f.__doc__)
    for name in inspect.signature(f).parameters:
        assert doc.parameter(name) is not None, name
    assert doc.parameter("average")[0].startswith("{")
    assert doc.entries("Returns") and doc.section("See Also") and doc.section("Examples")


def test_no_docstring_gives_no_sections():
    # python -OO strips the one-shot docstrings: the generated ones still build
    doc = _docstrings.Sections(None)
    assert doc.summary() == "" and doc.entries("Parameters") == []


def test_imports_and_computes_with_docstrings_stripped():
    # python -OO: every module that edits or generates docstrings at import must cope with
    # None (ranking's shared multilabel parameters crashed the import)
    code = ("import fastmetrics, fastmetrics.streaming, fastmetrics.states, fastmetrics.scorers; "
            "assert fastmetrics.f1_score.__doc__ is None; "
            "print(fastmetrics.coverage_error([[1, 0]], [[0.8, 0.2]]))")
    out = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
                              "PYTHONPATH": str(Path(fastmetrics.__file__).parents[1])}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1.0"
