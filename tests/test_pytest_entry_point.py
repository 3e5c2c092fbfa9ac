"""The ``pytest11`` entry point: a fresh pytest session (a subprocess, with no conftest line)
gets fastmetrics' ``latency_benchmark`` fixture.

Entry points come from installed metadata, and building this tree's metadata runs setup.py
(cythonize: minutes on a loaded machine). So, from the source tree, the test writes the
entry-point table that pyproject.toml declares into a throwaway ``*.dist-info`` (the file
setuptools writes, ``entry_points.txt``), puts it on the subprocess' PYTHONPATH with the
package, and runs pytest there: that proves pyproject's declaration names a module pytest
loads by entry-point discovery (``importlib.metadata``), and that ``-p no:<name>`` turns it off
(so nothing else provided the fixture). Against an installed wheel
(FASTMETRICS_EXPECT_INSTALLED=1) it checks the installed distribution's own metadata instead.
"""

import os
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import fastmetrics

pytest_plugins = ["pytester"]
pytest.importorskip("pytest_benchmark", reason="the fixture wraps pytest-benchmark's")

REPO = Path(__file__).resolve().parents[1]
PKG_ROOT = Path(fastmetrics.__file__).resolve().parents[1]  # the directory holding fastmetrics/

TEST_FILE = """
def test_latency(latency_benchmark):
    stats = latency_benchmark(lambda x: x + 1, [1, 2, 3], warmup=1, n_iters=20)
    assert stats.n_iters == 20 and stats.p50_ms >= 0
"""


def _declared() -> dict[str, str]:
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs 3.11+")
    with open(REPO / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["entry-points"]["pytest11"]


def _fake_install(where: Path, table: dict[str, str]) -> None:
    info = where / "fastmetrics_entry_point_check-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fastmetrics-entry-point-check\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        "[pytest11]\n" + "".join(f"{k} = {v}\n" for k, v in table.items()))


@pytest.fixture
def session(pytester, monkeypatch):
    """Run pytest in a subprocess with the declared entry points discoverable."""
    if os.environ.get("FASTMETRICS_EXPECT_INSTALLED"):
        site = None  # the installed wheel's metadata is used as it is
    else:
        if not (REPO / "pyproject.toml").is_file():
            pytest.skip("no source tree beside these tests")
        site = pytester.path / "site"
        _fake_install(site, _declared())
    paths = [str(site)] if site else []
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        paths + [str(PKG_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                   if p]))
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    pytester.makepyfile(test_latency=TEST_FILE)

    def run(*args):
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--benchmark-disable",
                                             *args)

    return run


def test_pyproject_declares_the_plugin_module():
    if not (REPO / "pyproject.toml").is_file():
        pytest.skip("no source tree beside these tests")
    assert _declared() == {"fastmetrics.pytest_plugin": "fastmetrics.pytest_plugin"}


def test_installed_metadata_declares_it():
    if not os.environ.get("FASTMETRICS_EXPECT_INSTALLED"):
        pytest.skip("running against the source tree (FASTMETRICS_EXPECT_INSTALLED unset)")
    eps = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert eps.get("fastmetrics.pytest_plugin") == "fastmetrics.pytest_plugin"


def test_fresh_session_gets_the_fixture_without_a_conftest_line(session, pytester):
    assert not list(pytester.path.glob("conftest.py"))
    result = session()
    result.assert_outcomes(passed=1)


def test_disabling_the_entry_point_removes_the_fixture(session):
    result = session("-p", "no:fastmetrics.pytest_plugin")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'latency_benchmark' not found*"])


def test_an_old_conftest_line_still_works(session, pytester):
    pytester.makeconftest('pytest_plugins = ["fastmetrics.pytest_plugin"]\n')
    session().assert_outcomes(passed=1)


def test_the_subprocess_imports_this_fastmetrics(session, pytester):
    pytester.makepyfile(test_where=f"""
import fastmetrics
from pathlib import Path

def test_where():
    assert Path(fastmetrics.__file__).resolve().parents[1] == Path({str(PKG_ROOT)!r})
""")
    session().assert_outcomes(passed=2)
    assert sys.executable  # the subprocess runs this interpreter (pytester uses sys.executable)
