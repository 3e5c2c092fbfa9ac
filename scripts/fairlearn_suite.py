"""Run fairlearn's own MetricFrame tests with ``fastmetrics.MetricFrame`` substituted.

What it measures
----------------
:class:`fastmetrics.MetricFrame` promises fairlearn's ``MetricFrame`` behaviour (its
results, types, index names, errors). fairlearn's own tests of ``MetricFrame`` are the
strictest check of that promise. This script runs them twice each, in fresh pytest
subprocesses:

1. **as shipped**: unmodified, against the installed fairlearn (the baseline: the tests that
   pass in this environment);
2. **substituted**: with ``fairlearn.metrics.MetricFrame`` replaced by
   ``fastmetrics.MetricFrame``.

It then prints, per file, how many tests there are, how many pass as shipped, how many still
pass substituted, and the *regressions* (passed as shipped, not substituted), grouped by
exception type and the first line of the message (numbers normalised).

Where the tests come from
-------------------------
fairlearn's tests are not part of its installed package. They are read from a local fairlearn
checkout (``--fairlearn-repo PATH``, default ``/work/.mirror/fairlearn+fairlearn/repo``) with
``git show REF:PATH``, at ``--ref`` (default: the tag ``v<installed fairlearn version>`` when
the checkout has it, else ``HEAD``, with a note that the tests may be newer or older than the
installed fairlearn). Without a checkout the files are downloaded from GitHub at that tag.
Nothing of fairlearn is kept: the files go to a temporary directory, laid out as in
fairlearn's repository (``test/unit/metrics/...``, with the ``conftest.py`` files and
``test/unit/input_convertors.py`` the tests import).

Files run (``test/unit/metrics/``): every ``test_metricframe_*.py`` and
``test_plot_metricframe.py``, with ``__init__.py``, ``data_for_test.py`` and ``utils.py``.

What is substituted
-------------------
A small plugin, generated into the temporary directory and loaded with ``-p`` (so that it is
imported before any conftest or test module), records every test's outcome as JSON lines and,
in the substituted run, first sets

* ``fairlearn.metrics.MetricFrame`` and ``fairlearn.metrics._metric_frame.MetricFrame``: what
  the tests import (``from fairlearn.metrics import MetricFrame``, ``metrics.MetricFrame``);
* ``fairlearn.metrics._plotter.MetricFrame``: ``plot_metric_frame`` checks its argument with
  ``isinstance`` against this name;
* ``fairlearn.metrics._group_feature.GroupFeature``: ``test_metricframe_process_features.py``
  calls ``MetricFrame._process_features`` and checks that it returns instances of the feature
  class of the implementation under test; this makes that class fastmetrics' own.

After collection it reports any test-module global still bound to fairlearn's MetricFrame.

How it runs pytest
------------------
From the temporary directory, with ``-c /dev/null`` (no ini file: not fastmetrics'
``filterwarnings = error``), ``--rootdir`` and ``--confcutdir`` at the tree's root,
``-p no:cacheprovider``, ``PYTHONDONTWRITEBYTECODE=1``, without ``PYTHONWARNINGS`` and
``PYTEST_ADDOPTS``; ``PYTHONPATH`` holds the directory fastmetrics is imported from here (the
source checkout's ``src`` when run with ``PYTHONPATH=src``).

How to run
----------
::

    PYTHONPATH=src python scripts/fairlearn_suite.py
    PYTHONPATH=src python scripts/fairlearn_suite.py --files test_metricframe_smoke --keep
    PYTHONPATH=src python scripts/fairlearn_suite.py --json /tmp/fairlearn_suite.json

Options: ``--fairlearn-repo PATH``, ``--ref REF``, ``--files`` (subset by file name, with or
without ``.py``), ``--json PATH`` (every test's outcome in both runs), ``--markdown PATH``
(the printed report, also to a file), ``--top N`` (categories printed), ``--timeout S`` (per
pytest run), ``--keep`` (keep the temporary directory: the tests, logs and raw records).

Outcomes: ``passed``, ``failed``, ``error`` (setup or teardown failed), ``skipped``,
``xfailed``, ``xpassed``, ``timeout``, and ``not collected`` in the substituted run for a test
of the shipped run it did not collect. A test counts as passing when its outcome is
``passed``.
"""

from __future__ import annotations

import argparse
import collections
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

DEFAULT_REPO = "/work/.mirror/fairlearn+fairlearn/repo"
METRICS_DIR = "test/unit/metrics"
# what the test files import besides themselves
SUPPORT = (
    "test/__init__.py",
    "test/conftest.py",
    "test/unit/__init__.py",
    "test/unit/conftest.py",
    "test/unit/input_convertors.py",
    f"{METRICS_DIR}/__init__.py",
    f"{METRICS_DIR}/data_for_test.py",
    f"{METRICS_DIR}/utils.py",
)
# the test files when they are downloaded (a checkout is listed instead)
KNOWN_TESTS = (
    "test_metricframe_aggregates.py",
    "test_metricframe_bootstrap.py",
    "test_metricframe_by_group.py",
    "test_metricframe_comprehensive.py",
    "test_metricframe_missing.py",
    "test_metricframe_multiclass.py",
    "test_metricframe_nonscalar.py",
    "test_metricframe_overall.py",
    "test_metricframe_process_features.py",
    "test_metricframe_smoke.py",
    "test_plot_metricframe.py",
)
RAW_URL = "https://raw.githubusercontent.com/fairlearn/fairlearn/{ref}/{path}"

PLUGIN_NAME = "_fairlearn_suite_plugin"
RECORD_ENV = "FAIRLEARN_SUITE_RECORD"
SUBSTITUTE_ENV = "FAIRLEARN_SUITE_SUBSTITUTE"

# Imported by pytest while it reads the command line: before the conftest files and the test
# modules, which is when the substitution has to be in place.
PLUGIN_SOURCE = r'''
"""Generated by scripts/fairlearn_suite.py: record outcomes, optionally substitute."""
import json
import os

import pytest

_RECORD = open(os.environ["FAIRLEARN_SUITE_RECORD"], "a", buffering=1, encoding="utf-8")
_ORIGINAL = []


def _emit(**event):
    _RECORD.write(json.dumps(event, default=repr) + "\n")
    _RECORD.flush()


def _substitute():
    import fairlearn.metrics
    import fairlearn.metrics._group_feature as group_feature
    import fairlearn.metrics._metric_frame as metric_frame
    import fairlearn.metrics._plotter as plotter

    import fastmetrics
    import fastmetrics.metricframe as ours

    _ORIGINAL.append(fairlearn.metrics.MetricFrame)
    for module in (fairlearn.metrics, metric_frame, plotter):
        module.MetricFrame = fastmetrics.MetricFrame
    group_feature.GroupFeature = ours._GroupFeature
    _emit(event="substituted", fastmetrics_file=fastmetrics.__file__)


if os.environ.get("FAIRLEARN_SUITE_SUBSTITUTE") == "1":
    _substitute()


def pytest_collection_finish(session):
    _emit(event="collected", nodeids=[it.nodeid for it in session.items])
    if not _ORIGINAL:
        return
    stale = set()
    for item in session.items:
        mod = getattr(item, "module", None)
        if mod is not None and any(v is _ORIGINAL[0] for v in vars(mod).values()):
            stale.add(mod.__name__)
    _emit(event="unpatched", modules=sorted(stale))


def pytest_collectreport(report):
    if report.failed:
        _emit(event="collect_error", nodeid=report.nodeid, message=str(report.longrepr)[-4000:])


def _describe(excinfo):
    exc = excinfo.value
    info = {"exc_type": type(exc).__qualname__, "message": str(exc)[:4000]}
    ctx = exc.__context__
    # pytest.raises(match=...) meeting the right type and another message
    if isinstance(exc, AssertionError) and ctx is not None and str(exc).startswith("Regex"):
        info["actual"] = f"{type(ctx).__qualname__}: {ctx}"[:4000]
    return info


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    if rep.when == "call" or rep.failed or rep.skipped:
        ev = {"event": "report", "nodeid": item.nodeid, "when": rep.when,
              "outcome": rep.outcome}
        if hasattr(rep, "wasxfail"):
            ev["wasxfail"] = True
        if rep.failed and call.excinfo is not None:
            try:
                ev.update(_describe(call.excinfo))
            except Exception as e:  # never let the recorder break the run
                ev.update(exc_type="?", message=f"recorder failed: {e!r}")
        _emit(**ev)
    return rep


def pytest_sessionfinish(session, exitstatus):
    _emit(event="finish", exitstatus=int(exitstatus))
'''


# ---------------------------------------------------------------------------- the tests


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)


def fairlearn_version():
    try:
        return importlib.metadata.version("fairlearn")
    except importlib.metadata.PackageNotFoundError:
        sys.exit("fairlearn is not installed: its tests run against the installed package")


def choose_ref(repo, wanted, version):
    """The ref to read the tests at, and a note when it is not the installed version's tag."""
    if wanted:
        return wanted, None
    tag = f"v{version}"
    if _git(repo, "rev-parse", "--verify", "--quiet", tag + "^{commit}").returncode == 0:
        return tag, None
    head = _git(repo, "describe", "--tags", "--always", "HEAD").stdout.decode().strip()
    return "HEAD", (f"the checkout has no tag {tag}: tests read at HEAD ({head}), which may "
                    f"differ from the installed fairlearn {version}")


def write_tests(tree, repo, ref, version, wanted):
    """Write the support files and the chosen test files under ``tree``.

    Returns
    -------
    tests : list of str
        The test files' paths relative to ``tree``.
    source : str
        Where they came from.
    """
    use_git = repo is not None and Path(repo).is_dir() and _git(repo, "rev-parse").returncode == 0
    if use_git:
        listing = _git(repo, "ls-tree", "--name-only", f"{ref}:{METRICS_DIR}")
        if listing.returncode != 0:
            sys.exit(f"{repo} has no {METRICS_DIR} at {ref}: {listing.stderr.decode().strip()}")
        names = [n for n in listing.stdout.decode().split()
                 if n.startswith("test_metricframe_") or n == "test_plot_metricframe.py"]

        def read(path):
            got = _git(repo, "show", f"{ref}:{path}")
            if got.returncode != 0:
                raise FileNotFoundError(f"{ref}:{path}: {got.stderr.decode().strip()}")
            return got.stdout
        source = f"{repo} at {ref}"
    else:
        ref = f"v{version}" if ref in (None, "HEAD") else ref
        names = list(KNOWN_TESTS)

        def read(path):
            url = RAW_URL.format(ref=ref, path=path)
            try:
                with urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310
                    return response.read()
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    raise FileNotFoundError(f"{url}: not found") from None
                sys.exit(f"cannot download {url}: {exc} (give a fairlearn checkout with "
                         "--fairlearn-repo)")
            except urllib.error.URLError as exc:
                sys.exit(f"cannot download {url}: {exc.reason} (give a fairlearn checkout "
                         "with --fairlearn-repo)")
        source = RAW_URL.format(ref=ref, path=METRICS_DIR)
    names = select(sorted(names), wanted)
    for path in SUPPORT:
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(read(path))
    tests = []
    for name in names:
        path = f"{METRICS_DIR}/{name}"
        try:
            (tree / path).write_bytes(read(path))
        except (FileNotFoundError, OSError) as exc:
            print(f"  skipping {path}: {exc}", file=sys.stderr)
            continue
        tests.append(path)
    return tests, source


def select(names, wanted):
    if not wanted:
        return names
    chosen = []
    for arg in wanted:
        for w in filter(None, (s.strip() for s in arg.split(","))):
            w = w if w.endswith(".py") else w + ".py"
            if w not in names:
                sys.exit(f"--files: {w!r} is none of: {', '.join(names)}")
            chosen.append(w)
    return [n for n in names if n in chosen]


# ---------------------------------------------------------------------------- running


def _events(path):
    out = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut short
                pass
    return out


def _outcome(phases):
    setup, call, teardown = phases.get("setup"), phases.get("call"), phases.get("teardown")
    if setup is not None and setup["outcome"] == "failed":
        main, outcome = setup, "error"
    elif setup is not None and setup["outcome"] == "skipped":
        main, outcome = setup, "xfailed" if setup.get("wasxfail") else "skipped"
    elif call is not None:
        main, outcome = call, call["outcome"]
        if call.get("wasxfail"):
            outcome = "xfailed" if outcome == "skipped" else "xpassed"
        if outcome == "passed" and teardown is not None and teardown["outcome"] == "failed":
            main, outcome = teardown, "error"
    else:
        return {"outcome": "not run"}
    rec = {k: v for k, v in main.items() if k in ("exc_type", "message", "actual")}
    rec["outcome"] = outcome
    return rec


def fastmetrics_dir():
    spec = importlib.util.find_spec("fastmetrics")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("fastmetrics is not importable (run with PYTHONPATH=src from the checkout)")
    return Path(list(spec.submodule_search_locations)[0]).resolve().parent


def run_file(path, mode, tree, workdir, timeout):
    """Run one test file in one mode ("shipped" or "substituted").

    Returns
    -------
    run : dict
        ``results`` (nodeid -> outcome record), ``meta`` and ``seconds``.
    """
    tag = Path(path).stem + "." + mode
    record, log = workdir / (tag + ".jsonl"), workdir / (tag + ".log")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONWARNINGS", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", SUBSTITUTE_ENV)}
    env["PYTHONPATH"] = os.pathsep.join([str(workdir), str(fastmetrics_dir())])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[RECORD_ENV] = str(record)
    if mode == "substituted":
        env[SUBSTITUTE_ENV] = "1"
    cmd = [sys.executable, "-m", "pytest", path, "-c", os.devnull, "--rootdir", str(tree),
           "--confcutdir", str(tree), "-p", "no:cacheprovider", "-p", PLUGIN_NAME,
           "-q", "--tb=short", "-rN", "--disable-pytest-warnings", "--color=no"]
    start = time.perf_counter()
    meta = {"exitstatus": None}
    with open(log, "w", encoding="utf-8") as logf:
        try:
            proc = subprocess.run(cmd, cwd=tree, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                  timeout=timeout)
            meta["exitstatus"] = proc.returncode
        except subprocess.TimeoutExpired:
            meta["exitstatus"] = "timeout"
    phases, results = {}, {}
    running = None
    for ev in _events(record):
        kind = ev.get("event")
        if kind == "report":
            phases.setdefault(ev["nodeid"], {})[ev["when"]] = ev
            running = ev["nodeid"]
        elif kind == "collected":
            meta["collected"] = ev["nodeids"]
        elif kind == "collect_error":
            meta.setdefault("collect_errors", []).append(ev)
        elif kind == "unpatched":
            meta["unpatched"] = ev["modules"]
        elif kind == "substituted":
            meta["fastmetrics_file"] = ev["fastmetrics_file"]
    for nodeid in meta.get("collected", []):
        results[nodeid] = _outcome(phases.get(nodeid, {}))
    if meta["exitstatus"] == "timeout" and running is not None:
        results[running] = {"outcome": "timeout", "exc_type": "Timeout",
                            "message": f"the pytest run passed --timeout={timeout:g}s"}
    return {"results": results, "meta": meta, "seconds": round(time.perf_counter() - start, 1)}


# ---------------------------------------------------------------------------- reporting

_NUM = re.compile(r"(?<![A-Za-z_])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![A-Za-z_])")


def normalise(text, limit=200):
    text = _NUM.sub("N", text.replace('"', "'"))
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_line(text):
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")


def category(rec):
    if rec["outcome"] in ("not collected", "skipped", "xfailed", "not run", "timeout"):
        return f"{rec['outcome']}: {normalise(first_line(rec.get('message')))}"
    key = f"{rec.get('exc_type') or rec['outcome']}: {normalise(first_line(rec.get('message')))}"
    if rec.get("actual"):
        key += f" (raised {normalise(first_line(rec['actual']), 160)})"
    return key


def summarise(tests, runs):
    rows, regressions = [], []
    for path in tests:
        shipped = runs[path, "shipped"]["results"]
        subst = runs[path, "substituted"]["results"]
        errors = runs[path, "substituted"]["meta"].get("collect_errors", [])
        reason = first_line(errors[0]["message"].splitlines()[-1]) if errors else ""
        for nodeid in shipped:
            subst.setdefault(nodeid, {"outcome": "not collected", "message": reason})
        passed = [n for n, r in shipped.items() if r["outcome"] == "passed"]
        lost = [n for n in passed if subst[n]["outcome"] != "passed"]
        gained = [n for n, r in shipped.items()
                  if r["outcome"] != "passed" and subst[n]["outcome"] == "passed"]
        rows.append({"file": Path(path).name, "tests": len(shipped), "pass_shipped": len(passed),
                     "pass_substituted": sum(subst[n]["outcome"] == "passed" for n in shipped),
                     "regressions": len(lost), "newly_passing": len(gained),
                     "not_passing_shipped": len(shipped) - len(passed)})
        regressions += [(n, subst[n]) for n in lost]
    cats = {}
    for nodeid, rec in regressions:
        c = cats.setdefault(category(rec), {"count": 0, "tests": [], "example": rec})
        c["count"] += 1
        c["tests"].append(nodeid)
    ordered = sorted(cats.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
    return rows, [{"category": k, **v} for k, v in ordered]


def render(rows, categories, meta, top):
    out = ["## fairlearn MetricFrame tests, as shipped vs. fastmetrics.MetricFrame substituted\n",
           f"fairlearn {meta['fairlearn_version']} (tests: {meta['source']}), fastmetrics from "
           f"{meta.get('fastmetrics_file')}, pandas {meta['pandas_version']}, "
           f"scikit-learn {meta['sklearn_version']}, python {meta['python']}\n"]
    if meta.get("note"):
        out.append(f"Note: {meta['note']}\n")
    stale = sorted(set(meta.get("unpatched", [])))
    out.append("Test modules still holding fairlearn's MetricFrame: "
               + (", ".join(stale) if stale else "none") + "\n")
    out.append("| file | tests | pass as shipped | pass substituted | regressions "
               "| not passing as shipped | newly passing |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    total = collections.Counter()
    keys = ("tests", "pass_shipped", "pass_substituted", "regressions", "not_passing_shipped",
            "newly_passing")
    for r in rows:
        out.append(f"| {r['file']} | " + " | ".join(str(r[k]) for k in keys) + " |")
        total.update({k: r[k] for k in keys})
    out.append("| **total** | " + " | ".join(str(total[k]) for k in keys) + " |\n")
    out.append("'regressions': tests that pass as shipped and do not pass substituted.\n")
    if categories:
        out.append(f"### Regressions by message ({len(categories)} categories)\n")
        for i, c in enumerate(categories[:top], 1):
            out.append(f"{i}. **{c['count']}** x `{c['category']}`")
            shown = ", ".join(f"`{t.split('::', 1)[-1]}`" for t in c["tests"][:3])
            out.append(f"   e.g. {shown}")
    return "\n".join(out) + "\n"


def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fairlearn-repo", default=DEFAULT_REPO, metavar="PATH",
                   help=f"a fairlearn git checkout to read the tests from (default {DEFAULT_REPO}; "
                        "when it is not a checkout, the tests are downloaded)")
    p.add_argument("--ref", help="the commit/tag to read the tests at (default: the tag of the "
                                 "installed fairlearn, else HEAD)")
    p.add_argument("--files", nargs="+", metavar="FILE", help="a subset of the test files")
    p.add_argument("--json", metavar="PATH", help="write every test's outcome here")
    p.add_argument("--markdown", metavar="PATH", help="also write the printed report here")
    p.add_argument("--top", type=int, default=40, help="categories printed (default 40)")
    p.add_argument("--timeout", type=float, default=1800.0,
                   help="seconds one pytest run may take (default 1800)")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    return p.parse_args(argv)


def main(argv=None):
    opts = parse_args(argv)
    version = fairlearn_version()
    workdir = Path(tempfile.mkdtemp(prefix="fairlearn_suite_"))
    tree = workdir / "tree"
    repo = Path(opts.fairlearn_repo) if opts.fairlearn_repo else None
    note = None
    if repo is not None and repo.is_dir() and _git(repo, "rev-parse").returncode == 0:
        ref, note = choose_ref(repo, opts.ref, version)
    else:
        ref = opts.ref or f"v{version}"
    (workdir / (PLUGIN_NAME + ".py")).write_text(textwrap.dedent(PLUGIN_SOURCE), encoding="utf-8")
    meta = {"fairlearn_version": version, "pandas_version": _version("pandas"),
            "sklearn_version": _version("scikit-learn"), "python": sys.version.split()[0],
            "note": note, "workdir": str(workdir)}
    try:
        tests, meta["source"] = write_tests(tree, repo, ref, version, opts.files)
        print(f"Running {len(tests)} file(s) x 2 modes from {meta['source']}; work dir {workdir}",
              file=sys.stderr)
        runs = {}
        for path in tests:
            for mode in ("shipped", "substituted"):
                run = runs[path, mode] = run_file(path, mode, tree, workdir, opts.timeout)
                counts = collections.Counter(r["outcome"] for r in run["results"].values())
                print(f"  {Path(path).name} [{mode}]: {dict(counts)} in {run['seconds']}s",
                      file=sys.stderr, flush=True)
                if mode == "substituted":
                    meta.setdefault("unpatched", []).extend(run["meta"].get("unpatched", []))
                    meta["fastmetrics_file"] = run["meta"].get("fastmetrics_file")
        rows, categories = summarise(tests, runs)
        report = render(rows, categories, meta, opts.top)
        print(report)
        if opts.markdown:
            Path(opts.markdown).write_text(report, encoding="utf-8")
        if opts.json:
            doc = {"meta": meta, "table": rows, "categories": categories,
                   "runs": {p: {m: runs[p, m] for m in ("shipped", "substituted")}
                            for p in tests}}
            Path(opts.json).write_text(json.dumps(doc, indent=1, default=str), encoding="utf-8")
        return 1 if any(r["regressions"] for r in rows) else 0
    finally:
        if opts.keep:
            print(f"Kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
