"""The package's metadata and build configuration, read from the source tree: the license
file, classifiers, URLs, the wheel matrix and the build script's parallel set-up. (The built
archives themselves are checked by tests/test_wheel.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
if not (REPO / "pyproject.toml").is_file():
    pytest.skip("no source tree beside these tests", allow_module_level=True)

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
# the CPython versions the project supports, oldest to newest
VERSIONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]


def test_license_file_is_bsd_3_clause_of_the_authors():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert re.search(r"Copyright \(c\) \d{4}, fastmetrics developers", text)
    assert "Neither the name of the copyright holder" in text
    assert PROJECT["license"] == "BSD-3-Clause"
    assert PROJECT["license-files"] == ["LICENSE"]
    assert "LICENSE" in (REPO / "MANIFEST.in").read_text().split()


def test_classifiers_are_known_and_say_what_is_built():
    from trove_classifiers import classifiers as known

    cls = PROJECT["classifiers"]
    assert not [c for c in cls if c not in known], "unknown trove classifiers"
    assert len(set(cls)) == len(cls)
    versions = [c.rsplit(" :: ", 1)[1] for c in cls
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert versions == VERSIONS
    assert PROJECT["requires-python"] == f">={VERSIONS[0]}"
    for c in ("Typing :: Typed", "Programming Language :: Cython", "Programming Language :: C",
              "Operating System :: POSIX :: Linux",
              "Programming Language :: Python :: Implementation :: CPython"):
        assert c in cls
    # the SPDX expression is the license's metadata: setuptools refuses both
    assert not [c for c in cls if c.startswith("License ::")]


def test_no_placeholder_project_urls():
    for name, url in PROJECT.get("urls", {}).items():
        assert not re.search(r"example\.(invalid|com|org)|\.invalid\b|localhost", url), name


def test_wheel_matrix_is_cpython_3_10_to_3_14_with_free_threaded_builds():
    cibw = PYPROJECT["tool"]["cibuildwheel"]
    tags = [v.replace(".", "") for v in VERSIONS]
    assert cibw["build"].split() == [
        f"cp{t}{ft}-*" for t in tags for ft in ([""] if t < "313" else ["", "t"])]
    # cp313t is an opt-in of cibuildwheel (cp314t is built by default)
    assert "cpython-freethreading" in cibw["enable"]
    (ft,) = [o for o in cibw.get("overrides", []) if o["select"] == "cp31[34]t-*"]
    assert any("test_free_threading.py" in c for c in ft["test-command"])
    # the release workflow pins a cibuildwheel that still builds cp313t (3.x up to 3.4)
    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text()
    (pin,) = re.findall(r"pypa/cibuildwheel@v(\d+)\.(\d+)\.(\d+)", workflow)
    assert (int(pin[0]), int(pin[1])) in {(3, 1), (3, 2), (3, 3), (3, 4)}, pin


def test_release_workflow_checks_paths_that_exist():
    """The workflow greps the sdist for the sources the build needs: the paths it names must
    exist in this tree (a moved kernel would otherwise fail only at release time)."""
    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text()
    paths = re.findall(r"grep -q '/([\w/.]+)\$'", workflow)
    assert paths
    for p in paths:
        assert (REPO / p.replace("\\.", ".")).is_file(), p


def test_build_is_parallel_without_a_jobs_option(tmp_path):
    """pip and `python -m build` pass no -j: build_ext must default to parallel jobs (and
    FASTMETRICS_BUILD_JOBS must set them), and setup.py must not run Cython when it is only
    asked for metadata."""
    code = (
        "import os, sys, runpy\n"
        "sys.argv = ['setup.py', '--name']\n"
        "import Cython.Build\n"
        "def boom(*a, **k): raise SystemExit('cythonize called outside build_ext')\n"
        "Cython.Build.cythonize = boom\n"
        "ns = runpy.run_path('setup.py')\n"
        "from setuptools.dist import Distribution\n"
        "cmd = ns['parallel_build_ext'](Distribution({'ext_modules': ns['extensions']}))\n"
        "cmd.ensure_finalized()\n"
        "print('JOBS', cmd.parallel)\n"
    )
    for jobs, want in (("3", 3), ("1", 1)):
        env = {"FASTMETRICS_BUILD_JOBS": jobs, "PATH": "/usr/bin:/bin"}
        p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                           text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr[-3000:]
        assert p.stdout.splitlines()[0] == "fastmetrics-kernels"
        assert f"JOBS {want}" in p.stdout
