"""The kernels on a free-threaded CPython (3.13t, 3.14t): they declare that they need no GIL,
and the thread-safety tests pass with the GIL disabled.

Runs where a free-threaded interpreter that can import this fastmetrics is at hand: the one
running these tests (cibuildwheel's cp313t/cp314t wheels), or the one named by
``FASTMETRICS_FREE_THREADED_PYTHON``. Elsewhere the GIL tests skip and say why.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import fastmetrics as fm

HERE = Path(__file__).resolve().parent
PKG = Path(fm.__file__).resolve().parent

# the tests that call kernels from many Python threads at once, or compare thread counts
THREAD_TESTS = [
    "test_thread_counts.py",
    "test_threads_memory.py",
    "test_calibration.py::test_threads_give_serial_result",
    "test_cluster.py::test_python_threads_match_serial",
    "test_lm.py::test_many_python_threads_match_serial",
    "test_percentiles.py::test_threads_give_serial_result",
    "test_ranking.py::test_threads_give_serial_result",
    "test_regression.py::test_threads_give_serial_result",
    "test_states_sketch.py::test_concurrent_updates_of_one_accumulator",
    "test_streaming.py::test_confusion_concurrent_updates_of_one_accumulator",
]

# every compiled module, imported without forcing the GIL off: one that did not declare
# free-threading support would turn the GIL back on (with a RuntimeWarning)
_CHECK_GIL = """
import importlib, pkgutil, sys, warnings
warnings.simplefilter("error")
import fastmetrics._kernels as k
names = [m.name for m in pkgutil.iter_modules(k.__path__)]
for name in names:
    importlib.import_module("fastmetrics._kernels." + name)
import fastmetrics
print(len(names), sys._is_gil_enabled())
"""


def _is_free_threaded(python: str) -> bool:
    out = subprocess.run([python, "-c", "import sysconfig; print(bool(sysconfig."
                          "get_config_var('Py_GIL_DISABLED')))"],
                         capture_output=True, text=True, timeout=60)
    return out.returncode == 0 and out.stdout.strip() == "True"


def _free_threaded_python() -> tuple[str | None, str]:
    """(interpreter, '') or (None, why not)."""
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return sys.executable, ""
    named = os.environ.get("FASTMETRICS_FREE_THREADED_PYTHON")
    if named:
        if not _is_free_threaded(named):
            pytest.fail(f"FASTMETRICS_FREE_THREADED_PYTHON={named} is not a free-threaded "
                        "CPython build")
        return named, ""
    return None, (f"no free-threaded CPython here: this is {sys.version.split()[0]} with the "
                  "GIL, and FASTMETRICS_FREE_THREADED_PYTHON names none (cibuildwheel's "
                  "cp313t/cp314t wheels run these)")


def _env() -> dict[str, str]:
    # this checkout's (or the installed) fastmetrics, and the tests' helpers
    path = [str(PKG.parent), str(HERE)]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path + [os.environ.get("PYTHONPATH", "")]))


def _python_or_skip() -> str:
    python, why = _free_threaded_python()
    if python is None:
        print(f"skipped: {why}")
        pytest.skip(why)
    return python


def test_kernels_keep_the_gil_disabled():
    python = _python_or_skip()
    p = subprocess.run([python, "-c", _CHECK_GIL], capture_output=True, text=True,
                       env=_env(), cwd=HERE, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    n_modules, gil = p.stdout.split()
    assert int(n_modules) >= 10 and gil == "False", p.stdout


@pytest.mark.slow
def test_thread_safety_tests_pass_with_the_gil_disabled():
    python = _python_or_skip()
    env = dict(_env(), PYTHON_GIL="0")
    p = subprocess.run([python, "-X", "gil=0", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-c", str(HERE.parent / "pyproject.toml"), "--rootdir",
                        str(HERE.parent), *(str(HERE / t) for t in THREAD_TESTS)],
                       capture_output=True, text=True, env=env, cwd=HERE, timeout=1800)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    assert " passed" in p.stdout and " failed" not in p.stdout


def test_thread_tests_named_here_exist():
    """The list above follows the test files: a renamed test would silently drop out."""
    import ast

    for spec in THREAD_TESTS:
        file, _, name = spec.partition("::")
        tree = ast.parse((HERE / file).read_text())
        if name:
            assert name in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, spec


def test_generated_c_declares_free_threading_support():
    """Where this checkout's generated C is at hand (an in-place build), every kernel says
    Py_MOD_GIL_NOT_USED (Cython's freethreading_compatible directive in setup.py)."""
    c_files = sorted((PKG / "_kernels").glob("*.c"))
    if not c_files:
        pytest.skip("no generated C beside the kernels (an installed wheel)")
    for c in c_files:
        text = c.read_text(errors="replace")
        assert "Py_mod_gil" in text, c.name
        assert ("#else\n#define __Pyx_FREETHREADING_COMPATIBLE Py_MOD_GIL_NOT_USED\n#endif"
                in text), f"{c.name} was generated without freethreading_compatible"
