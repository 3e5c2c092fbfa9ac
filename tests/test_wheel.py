"""The package as a user gets it: the files an installation carries and, slowly, the whole path
sdist -> wheel -> fresh virtual environment -> import from outside the source tree."""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from importlib import resources
from pathlib import Path

import pytest

import fastmetrics as fm

REPO = Path(__file__).resolve().parents[1]
PKG = Path(fm.__file__).resolve().parent
EXT = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def _compiled(names):
    return sorted(n.rsplit("/", 1)[-1].split(".")[0] for n in names if n.endswith(EXT))


KERNELS = PKG / "_kernels"


def test_installation_carries_stubs_types_and_sample():
    compiled = _compiled(os.listdir(KERNELS))
    assert "confusion" in compiled
    assert not _compiled(os.listdir(PKG)), "compiled modules belong in fastmetrics/_kernels"
    for mod in compiled:  # a stub for every compiled module, and the PEP 561 marker
        assert (KERNELS / f"{mod}.pyi").is_file(), f"{mod} has no .pyi stub"
    assert (PKG / "py.typed").is_file()
    assert resources.files("fastmetrics").joinpath("data/sample.csv").read_text().startswith(
        "y_true,y_pred,p_"
    )


def test_tests_import_the_installed_package_when_asked():
    """.ci/run sets FASTMETRICS_EXPECT_INSTALLED=1 when it runs this suite against the wheel
    installed in a fresh virtual environment: the package must then come from there."""
    if not os.environ.get("FASTMETRICS_EXPECT_INSTALLED"):
        pytest.skip("running against the source tree (FASTMETRICS_EXPECT_INSTALLED unset)")
    assert not PKG.is_relative_to(REPO), f"imported {PKG}, inside the source tree {REPO}"
    assert "site-packages" in PKG.parts
    assert not list(PKG.rglob("*.pyx")) and not list(PKG.rglob("*.c"))


def _build_requirements_met() -> bool:
    """Whether this environment has pyproject's build requirements (then the builds below
    need no network); otherwise they run isolated, fetching them from the package index."""
    import tomllib  # noqa: F401  (3.11+; older Pythons build isolated)
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import Requirement

    with open(REPO / "pyproject.toml", "rb") as f:
        requires = tomllib.load(f)["build-system"]["requires"]
    for spec in requires:
        req = Requirement(spec)
        try:
            if not req.specifier.contains(version(req.name), prereleases=True):
                return False
        except PackageNotFoundError:
            return False
    return True


def _run(cmd, cwd, **kw):
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                       timeout=900, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def _check_metadata(text):
    """Core metadata of the sdist (PKG-INFO) or wheel (METADATA): the SPDX license and its
    file, the classifiers of pyproject.toml, no placeholder URL."""
    import email.parser

    msg = email.parser.Parser().parsestr(text)
    assert msg["License-Expression"] == "BSD-3-Clause"
    assert msg.get_all("License-File") == ["LICENSE"]
    classifiers = msg.get_all("Classifier")
    assert "Typing :: Typed" in classifiers
    assert "Programming Language :: Python :: 3.14" in classifiers
    assert not [u for u in msg.get_all("Project-URL") or [] if ".invalid" in u]


@pytest.mark.slow
def test_sdist_to_wheel_to_fresh_venv(tmp_path):
    """Build the sdist, build a wheel from it (with the setuptools, Cython and numpy of this
    environment when it has the required versions, so it works offline), install the wheel
    into a fresh virtual environment and use it from a directory outside the source tree."""
    if os.environ.get("FASTMETRICS_EXPECT_INSTALLED"):
        pytest.skip("this run already tests an installed wheel (built by .ci/run)")
    if not (REPO / "pyproject.toml").is_file():
        pytest.skip("no source tree beside these tests")
    pytest.importorskip("build", reason="the `build` package (test extra) builds the sdist")
    try:
        offline = _build_requirements_met()
    except ImportError:
        offline = False
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--sdist", "--outdir", dist, REPO]
         + (["--no-isolation"] if offline else []), cwd=REPO)
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as t:
        names = t.getnames()
    assert any(n.endswith("/src/fastmetrics/_kernels/confusion.pyx") for n in names)
    assert any("/csrc/" in n for n in names)
    assert any(n.endswith("/examples/llm_triage.py") for n in names)  # test_examples runs them
    assert not [n for n in names if "/src/fastmetrics/" in n and n.endswith(".c")], "generated C"
    # the license travels with the sources, and the metadata names it
    (license_,) = [n for n in names if n.count("/") == 1 and n.endswith("/LICENSE")]
    with tarfile.open(sdist) as t:
        assert t.extractfile(license_).read() == (REPO / "LICENSE").read_bytes()
        (pkg_info,) = [n for n in names if n.count("/") == 1 and n.endswith("/PKG-INFO")]
        _check_metadata(t.extractfile(pkg_info).read().decode())

    env = dict(os.environ, FASTMETRICS_BUILD_JOBS="2")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, sdist]
         + (["--no-build-isolation", "--no-index"] if offline else []), cwd=tmp_path, env=env)
    (wheel,) = dist.glob("*.whl")
    assert "-cp3" in wheel.name and "linux" in wheel.name  # a compiled wheel, not py3-none-any
    with zipfile.ZipFile(wheel) as z:
        files = z.namelist()
    assert "fastmetrics/py.typed" in files and "fastmetrics/data/sample.csv" in files
    assert "fastmetrics/_kernels/confusion.pyi" in files
    assert _compiled(files) == _compiled(os.listdir(KERNELS))
    assert not [f for f in files if f.endswith((".pyx", ".pxd", ".c"))]
    with zipfile.ZipFile(wheel) as z:
        (license_,) = [f for f in files if f.endswith(".dist-info/licenses/LICENSE")]
        assert z.read(license_) == (REPO / "LICENSE").read_bytes()
        (meta,) = [f for f in files if f.endswith(".dist-info/METADATA")]
        _check_metadata(z.read(meta).decode())

    venv = tmp_path / "venv"
    # numpy from this environment (offline); the wheel's own files come first on sys.path
    _run([sys.executable, "-m", "venv", "--system-site-packages", venv], cwd=tmp_path)
    py = venv / "bin" / "python"
    # --ignore-installed: the outer environment may already have this version installed (the
    # README's `pip install .`), and pip would then call the wheel "already satisfied"
    _run([py, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed", wheel],
         cwd=tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    code = (
        "import json, fastmetrics as skm\n"
        "print(json.dumps({'file': skm.__file__, 'kernel': skm._kernels.confusion.__file__,\n"
        "  'f1': skm.f1_score([0, 1, 2, 2], [0, 2, 2, 2], average='macro')}))\n"
    )
    got = json.loads(_run([py, "-c", code], cwd=outside, env=env).stdout)
    assert Path(got["file"]).resolve().is_relative_to(venv.resolve())
    assert Path(got["kernel"]).resolve().is_relative_to(venv.resolve())
    assert got["f1"] == fm.f1_score([0, 1, 2, 2], [0, 2, 2, 2], average="macro")
    # the console script, on the shipped sample, gives this checkout's numbers
    row = _run([venv / "bin" / "fastmetrics", "report", "--format", "markdown"],
               cwd=outside, env=env).stdout
    here = subprocess.run([sys.executable, "-m", "fastmetrics", "report", "--format",
                           "markdown"], capture_output=True, text=True, cwd=outside,
                          env=dict(env, PYTHONPATH=str(PKG.parent)), check=True).stdout
    assert row == here and row.startswith("| model | 0.")
