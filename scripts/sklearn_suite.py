"""Run scikit-learn's own metric tests with fastmetrics' functions substituted.

What it measures
----------------
fastmetrics promises scikit-learn's names, signatures, numbers and errors. The strictest
check of that promise available is scikit-learn's own test suite. This script runs the
metric test files of the *installed* scikit-learn twice each, in fresh pytest subprocesses:

1. **as shipped**: unmodified, to get the baseline (tests that pass in this environment);
2. **substituted**: with every public name of ``sklearn.metrics`` (and
   ``sklearn.metrics.cluster``) that fastmetrics also exports at top level
   (``fastmetrics.__all__``) replaced by the fastmetrics function of the same name.

It then reports, per file, how many tests there are, how many pass as shipped, how many
still pass substituted, and how many passed as shipped but do not pass substituted (the
*regressions*). Regressions are grouped into categories by exception type plus the first
line of the message, with numbers and quotes normalised so that similar messages group;
``pytest.raises(match=...)`` mismatches are grouped by the expected pattern and the message
actually raised, so error-message differences read as "expected X, got Y".

Files run (relative to the installed ``sklearn`` package)::

    metrics/tests/test_classification.py
    metrics/tests/test_ranking.py
    metrics/tests/test_regression.py
    metrics/tests/test_common.py
    metrics/cluster/tests/test_supervised.py

How to run
----------
::

    python scripts/sklearn_suite.py                       # all files, table + categories
    python scripts/sklearn_suite.py --files test_common --json /tmp/suite.json
    python scripts/sklearn_suite.py --jobs 2 --markdown /tmp/suite.md --top 60

Options: ``--files`` (subset, by file name with or without ``.py`` or by path suffix),
``--json PATH`` (every test's outcome in both runs, the substituted names and the
categories), ``--markdown PATH`` (the printed report, also to a file), ``--jobs N`` (pytest
subprocesses run at once, default 1, at most 2 used), ``--top N`` (categories printed),
``--examples N`` (example test ids per category), ``--timeout S`` (per pytest run),
``--scipy-array-api`` (set ``SCIPY_ARRAY_API=1`` so the NumPy-namespace array-API tests run
instead of being skipped; these then also exercise the substituted functions), ``--keep``
(keep the temporary directory with the pytest logs and raw records).

How it runs pytest
------------------
The test files are run in place from the installed package, so that their imports
(``from sklearn.metrics import ...``, ``from sklearn.utils._testing import ...``) and
scikit-learn's own ``sklearn/conftest.py`` (the ``global_random_seed`` and ``global_dtype``
fixtures, thread limits) work exactly as in scikit-learn's CI. Each pytest subprocess is
started from a temporary directory with ``-c /dev/null`` (no ini file: in particular not
fastmetrics' ``filterwarnings = error``), ``--rootdir`` and ``--confcutdir`` set to the
directory holding ``sklearn``, ``-p no:cacheprovider`` and ``PYTHONDONTWRITEBYTECODE=1``
(nothing is written next to the installed package), and without ``PYTHONWARNINGS``,
``PYTEST_ADDOPTS`` and ``SKLEARN_WARNINGS_AS_ERRORS``: warnings get pytest's default
handling, as with scikit-learn's own configuration, which sets no warning filters.
``SKLEARN_TESTS_GLOBAL_RANDOM_SEED`` is passed through (unset: seed 42, as in
scikit-learn's default runs).

A small plugin, generated into the temporary directory and loaded with ``-p``, records
every test's outcome (with the exception type, message and where it was raised) as JSON
lines. In the substituted run the same plugin, being imported by pytest before any conftest
or test module, first replaces the names in ``sklearn.metrics`` and
``sklearn.metrics.cluster``; the test modules then import the fastmetrics functions when
they are collected. After collection it checks every collected test module for a global
that is still bound to one of the replaced scikit-learn originals and reports any it finds.

What is substituted, and what is not
------------------------------------
Only the public package namespaces are patched. The test files import the functions under
test from ``sklearn.metrics`` / ``sklearn.metrics.cluster``; what they import from private
modules (``sklearn.metrics._classification``, ``._ranking``, ``._regression``, ``._base``,
``sklearn.metrics.cluster._supervised``) are private helpers (``_check_targets``,
``_check_reg_targets``, ``_average_binary_score``, ``_dcg_sample_scores``, ...) and
scikit-learn-only functions (``entropy``), none of which fastmetrics exports, with two
exceptions: ``d2_brier_score`` and ``d2_log_loss_score``, public metrics that scikit-learn
does not re-export from ``sklearn.metrics``, which ``test_classification.py`` imports from
``sklearn.metrics._classification``; those two are replaced there too. Otherwise the
private modules' globals are left alone, which
also keeps scikit-learn's own functions internally consistent (e.g. its ``f1_score`` still
calls its own ``fbeta_score``). Two consequences: the scorers built when ``sklearn.metrics``
is imported (``get_scorer("f1")``) keep scikit-learn's functions, while scikit-learn code
that looks a name up in ``sklearn.metrics`` at call time (e.g. ``ClassifierMixin.score``
imports ``accuracy_score`` from ``sklearn.metrics`` when called) gets the fastmetrics one.

Crashes and hangs
-----------------
If a pytest subprocess dies (a signal, e.g. a segmentation fault in compiled code) or runs
past ``--timeout``, the test that was running is recorded as ``crashed``/``timeout`` and the
file is run again without the tests already recorded, until it completes.

Outcomes
--------
``passed``, ``failed`` (the test body failed), ``error`` (setup or teardown failed),
``skipped``, ``xfailed``, ``xpassed``, ``crashed``, ``timeout``, and, in the substituted
run, ``not collected`` for a test of the shipped run that the substituted run did not
collect (the collection error, if any, is given as the message). A test counts as passing
when its outcome is ``passed`` (``xpassed`` does not count).
"""

from __future__ import annotations

import argparse
import ast
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FILES = (
    "metrics/tests/test_classification.py",
    "metrics/tests/test_ranking.py",
    "metrics/tests/test_regression.py",
    "metrics/tests/test_common.py",
    "metrics/cluster/tests/test_supervised.py",
)

PLUGIN_NAME = "_sklearn_suite_plugin"
RECORD_ENV = "SKLEARN_SUITE_RECORD"
SUBSTITUTE_ENV = "SKLEARN_SUITE_SUBSTITUTE"
DESELECT_ENV = "SKLEARN_SUITE_DESELECT"
MAX_RESTARTS = 25

# The pytest plugin, written into the temporary directory and loaded with ``-p``. It is
# imported by pytest while it parses the command line, i.e. before sklearn's conftest.py
# and before any test module, which is when the substitution has to happen.
PLUGIN_SOURCE = r'''
"""Generated by scripts/sklearn_suite.py: record outcomes, optionally substitute names."""
import json
import os
import sys

import pytest

_RECORD = open(os.environ["SKLEARN_SUITE_RECORD"], "a", buffering=1, encoding="utf-8")
_ORIGINALS = {}  # id(original sklearn function) -> "module.name"


def _emit(**event):
    _RECORD.write(json.dumps(event, default=repr) + "\n")
    _RECORD.flush()


def _substitute():
    import fastmetrics
    import sklearn.metrics
    import sklearn.metrics.cluster

    done = {}
    for mod in (sklearn.metrics, sklearn.metrics.cluster):
        public = set(getattr(mod, "__all__", ()))
        names = []
        for name in fastmetrics.__all__:
            if name.startswith("_") or not hasattr(mod, name):
                continue
            if public and name not in public:
                continue
            original = getattr(mod, name)
            replacement = getattr(fastmetrics, name)
            if not callable(original) or not callable(replacement):
                continue
            _ORIGINALS[id(original)] = (mod.__name__ + "." + name, original)
            setattr(mod, name, replacement)
            names.append(name)
        done[mod.__name__] = names
    # Public metrics that scikit-learn does not re-export from sklearn.metrics: its tests
    # import them from the private module that defines them.
    import sklearn.metrics._classification as private
    names = []
    for name in ("d2_brier_score", "d2_log_loss_score"):
        if hasattr(fastmetrics, name) and hasattr(private, name):
            original = getattr(private, name)
            _ORIGINALS[id(original)] = (private.__name__ + "." + name, original)
            setattr(private, name, getattr(fastmetrics, name))
            names.append(name)
    done[private.__name__] = names
    _emit(event="substituted", names=done,
          fastmetrics_file=getattr(fastmetrics, "__file__", None))


if os.environ.get("SKLEARN_SUITE_SUBSTITUTE") == "1":
    _substitute()


def _deselected():
    path = os.environ.get("SKLEARN_SUITE_DESELECT")
    if not path or not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as f:
        return {line.rstrip("\n") for line in f if line.strip()}


def pytest_collection_modifyitems(config, items):
    skip = _deselected()
    if skip:
        keep = [it for it in items if it.nodeid not in skip]
        gone = [it for it in items if it.nodeid in skip]
        if gone:
            config.hook.pytest_deselected(items=gone)
            items[:] = keep


def pytest_collection_finish(session):
    _emit(event="collected", nodeids=[it.nodeid for it in session.items])
    if not _ORIGINALS:
        return
    stale = {}
    for item in session.items:
        mod = getattr(item, "module", None)
        if mod is None or mod.__name__ in stale:
            continue
        found = sorted(
            f"{k} is {_ORIGINALS[id(v)][0]}"
            for k, v in vars(mod).items()
            if id(v) in _ORIGINALS and _ORIGINALS[id(v)][1] is v
        )
        stale[mod.__name__] = found
    _emit(event="unpatched_bindings", modules=stale)


def pytest_collectreport(report):
    if report.failed:
        _emit(event="collect_error", nodeid=report.nodeid,
              message=str(report.longrepr)[-4000:])


def pytest_runtest_logstart(nodeid, location):
    _emit(event="start", nodeid=nodeid)


def _kind(path):
    p = path.replace("\\", "/")
    if "/fastmetrics/" in p:
        return "fastmetrics"
    if "/sklearn/" in p and "/tests/" in p:
        return "test"
    if "/sklearn/" in p:
        return "sklearn"
    if "/numpy/" in p:
        return "numpy"
    if "/scipy/" in p:
        return "scipy"
    if "/_pytest/" in p or "/pytest/" in p:
        return "pytest"
    return "other"


def _origin(exc):
    """Where ``exc`` was raised: 'fastmetrics' if it passed through fastmetrics code,
    else the kind of the innermost frame; plus that frame as 'file:line (function)'."""
    tb = getattr(exc, "__traceback__", None)
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame.f_code.co_name))
        tb = tb.tb_next
    if not frames:
        return None, None
    kinds = [_kind(f[0]) for f in frames]
    origin = "fastmetrics" if "fastmetrics" in kinds else kinds[-1]
    inner = frames[-1]
    if origin == "fastmetrics":
        inner = [f for f, k in zip(frames, kinds) if k == "fastmetrics"][-1]
    where = "%s:%d (%s)" % (os.path.basename(inner[0]), inner[1], inner[2])
    return origin, where


def _type_name(exc):
    t = type(exc)
    mod = t.__module__
    if mod in ("builtins", "_pytest.outcomes", "pytest") or mod.startswith("_pytest"):
        return t.__qualname__
    return mod + "." + t.__qualname__


def _describe(excinfo):
    exc = excinfo.value
    msg = str(exc) if not hasattr(exc, "msg") else str(getattr(exc, "msg") or exc)
    info = {"exc_type": _type_name(exc), "message": msg[:4000]}
    actual = exc
    ctx = exc.__context__
    # pytest.raises(match=...) with the right type but a non-matching message raises an
    # AssertionError from inside pytest while the real exception is being handled.
    if isinstance(exc, AssertionError) and ctx is not None and (
        msg.startswith("Regex pattern did not match") or _origin(exc)[0] == "pytest"
    ):
        info["raises_mismatch"] = True
        info["actual_type"] = _type_name(ctx)
        info["actual_message"] = str(ctx)[:4000]
        actual = ctx
    info["origin"], info["raised_at"] = _origin(actual)
    return info


def _callable_name(f):
    """'module.name(kw=...)' for a function or a (nested) functools.partial."""
    kws = {}
    while hasattr(f, "func") and hasattr(f, "keywords"):
        kws = {**f.keywords, **kws}
        f = f.func
    name = getattr(f, "__qualname__", None) or type(f).__name__
    mod = (getattr(f, "__module__", None) or "").split(".")[0]
    args = ", ".join("%s=%r" % kv for kv in kws.items())
    return "%s.%s%s" % (mod, name, "(%s)" % args if kws else "")


def _params(item):
    """Callable parameters of a parametrized test, by name, so that ids like
    'metric2' can be read as e.g. 'fastmetrics.fbeta_score(beta=0.5)'."""
    cs = getattr(item, "callspec", None)
    if cs is None:
        return None
    out = {k: _callable_name(v) for k, v in cs.params.items() if callable(v) and not isinstance(v, type)}
    return out or None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    if rep.when == "call" or rep.failed or rep.skipped:
        ev = {"event": "report", "nodeid": item.nodeid, "when": rep.when,
              "outcome": rep.outcome, "duration": round(rep.duration, 4)}
        if hasattr(rep, "wasxfail"):
            ev["wasxfail"] = True
        if rep.skipped and not hasattr(rep, "wasxfail"):
            lr = rep.longrepr
            ev["message"] = lr[2] if isinstance(lr, tuple) and len(lr) == 3 else str(lr)
        elif rep.failed and call.excinfo is not None:
            try:
                ev["params"] = _params(item)
                ev.update(_describe(call.excinfo))
            except Exception as e:  # never let the recorder break the run
                ev.update(exc_type="?", message="recorder failed: %r" % (e,))
        _emit(**ev)
    return rep


def pytest_sessionfinish(session, exitstatus):
    _emit(event="finish", exitstatus=int(exitstatus))
'''


# ----------------------------------------------------------------------------------------
# Running pytest
# ----------------------------------------------------------------------------------------


def sklearn_root():
    """Directory of the installed ``sklearn`` package and its parent.

    Returns
    -------
    pkg : Path
        The ``sklearn`` package directory.
    parent : Path
        The directory that holds it (used as pytest's rootdir and confcutdir).
    """
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("scikit-learn is not installed")
    pkg = Path(list(spec.submodule_search_locations)[0]).resolve()
    return pkg, pkg.parent


def select_files(wanted):
    """Resolve ``--files`` arguments to entries of :data:`FILES`.

    Parameters
    ----------
    wanted : list of str or None
        File names (``test_common`` or ``test_common.py``) or path suffixes
        (``cluster/tests/test_supervised.py``); comma-separated lists are accepted.

    Returns
    -------
    files : list of str
        Paths relative to the sklearn package, in :data:`FILES` order.
    """
    if not wanted:
        return list(FILES)
    chosen = []
    for arg in wanted:
        for w in filter(None, (s.strip() for s in arg.split(","))):
            w = w if w.endswith(".py") else w + ".py"
            hits = [f for f in FILES if f == w or f.endswith("/" + w)]
            if not hits:
                sys.exit(f"--files: {w!r} is none of: {', '.join(FILES)}")
            if len(hits) > 1:
                sys.exit(f"--files: {w!r} is ambiguous: {', '.join(hits)}")
            chosen += [h for h in hits if h not in chosen]
    return [f for f in FILES if f in chosen]


def _read_events(path):
    events = []
    if path.exists():
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        events.append(json.loads(line))
                    except json.JSONDecodeError:  # a line cut short by a crash
                        pass
    return events


def _fold(events, phases, meta):
    """Fold recorder events into ``phases`` (nodeid -> {when: report}) and run metadata."""
    for ev in events:
        kind = ev.get("event")
        if kind == "report":
            phases.setdefault(ev["nodeid"], {})[ev["when"]] = ev
        elif kind == "substituted":
            meta["substituted"] = ev["names"]
            meta["fastmetrics_file"] = ev.get("fastmetrics_file")
        elif kind == "unpatched_bindings":
            meta.setdefault("unpatched_bindings", {}).update(ev["modules"])
        elif kind == "collected":
            seen = set(meta.setdefault("collected", []))
            meta["collected"] += [n for n in ev["nodeids"] if n not in seen]
        elif kind == "collect_error":
            meta.setdefault("collect_errors", []).append(
                {"nodeid": ev["nodeid"], "message": ev["message"]})
        elif kind == "finish":
            meta["exitstatus"] = ev["exitstatus"]


def _done(ph):
    """Whether a test's reports are complete enough to give its outcome."""
    setup = ph.get("setup")
    return "call" in ph or (setup is not None and setup["outcome"] != "passed")


def _outcome(ph):
    """One test's outcome record from its phase reports."""
    setup, call, teardown = ph.get("setup"), ph.get("call"), ph.get("teardown")
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
    rec = {k: v for k, v in main.items() if k not in ("event", "nodeid", "outcome", "wasxfail")}
    rec["outcome"] = outcome
    if call is not None:
        rec["duration"] = call.get("duration")
    return rec


def run_file(relpath, mode, opts, workdir, pkg, parent):
    """Run one test file in one mode ("shipped" or "substituted") in pytest subprocesses.

    Returns
    -------
    run : dict
        ``results`` (nodeid -> outcome record), ``meta`` (substituted names, collection,
        exit statuses, restarts) and ``seconds``.
    """
    tag = relpath.replace("/", "_")[:-3] + "." + mode
    record = workdir / (tag + ".jsonl")
    deselect = workdir / (tag + ".deselect")
    log = workdir / (tag + ".log")
    for p in (record, deselect, log):
        if p.exists():
            p.unlink()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONWARNINGS", "PYTEST_ADDOPTS", "SKLEARN_WARNINGS_AS_ERRORS",
                        "PYTEST_PLUGINS", SUBSTITUTE_ENV, DESELECT_ENV)}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(workdir)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[RECORD_ENV] = str(record)
    env[DESELECT_ENV] = str(deselect)
    if mode == "substituted":
        env[SUBSTITUTE_ENV] = "1"
    if opts.scipy_array_api:
        env["SCIPY_ARRAY_API"] = "1"
    else:
        env.pop("SCIPY_ARRAY_API", None)
    cmd = [sys.executable, "-m", "pytest", str(pkg / relpath),
           "-c", os.devnull, "--rootdir", str(parent), "--confcutdir", str(parent),
           "-p", "no:cacheprovider", "-p", PLUGIN_NAME,
           "-q", "--tb=no", "-rN", "--disable-pytest-warnings", "--color=no"]
    phases, results, meta = {}, {}, {"restarts": [], "exitstatus": None}
    start = time.perf_counter()
    for attempt in range(MAX_RESTARTS + 1):
        n_before = len(_read_events(record))
        with open(log, "a", encoding="utf-8") as logf:
            logf.write(f"\n$ {' '.join(cmd)}\n")
            logf.flush()
            try:
                proc = subprocess.run(cmd, cwd=workdir, env=env, stdout=logf,
                                      stderr=subprocess.STDOUT, timeout=opts.timeout)
                rc, how = proc.returncode, None
            except subprocess.TimeoutExpired:
                rc, how = None, "timeout"
        new = _read_events(record)[n_before:]
        _fold(new, phases, meta)
        finished = any(e.get("event") == "finish" for e in new)
        if finished and how is None and rc >= 0:
            meta["exitstatus"] = rc
            break
        # died or hung: blame the test that was running, run the rest again without it
        started = [e["nodeid"] for e in new if e.get("event") == "start"]
        culprit = next((n for n in reversed(started) if not _done(phases.get(n, {}))), None)
        how = how or "crashed"
        reason = (f"ran past --timeout={opts.timeout:g}s" if how == "timeout"
                  else f"pytest exited with status {rc}")
        meta["restarts"].append({"culprit": culprit, "reason": reason})
        if culprit is None or attempt == MAX_RESTARTS:
            meta["exitstatus"] = rc
            meta.setdefault("collect_errors", []).append(
                {"nodeid": relpath, "message": f"pytest {how} outside a test ({reason}); see the log"})
            break
        results[culprit] = {"outcome": how, "exc_type": how.capitalize(), "message": reason}
        done = [n for n, ph in phases.items() if _done(ph)] + list(results)
        deselect.write_text("\n".join(done) + "\n", encoding="utf-8")
    for nodeid, ph in phases.items():
        if nodeid not in results:
            results[nodeid] = _outcome(ph)
    # tests collected but never reported (e.g. the run was cut short)
    for nodeid in meta.get("collected", []):
        results.setdefault(nodeid, {"outcome": "not run"})
    return {"results": results, "meta": meta, "seconds": round(time.perf_counter() - start, 1)}


# ----------------------------------------------------------------------------------------
# Categorising
# ----------------------------------------------------------------------------------------

# numbers, but not the digit of "1-D"/"2D" (shape words worth keeping in a category)
_NUM = re.compile(r"(?<![A-Za-z_])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![A-Za-z_])(?!-D\b)")
_WS = re.compile(r"\s+")


def normalise(text, limit=180):
    """Normalise a message so that similar messages group: numbers become ``N``, all
    quotes become ``'``, runs of ``N`` separators collapse, whitespace collapses."""
    text = text.replace('"', "'").replace("`", "'").replace("\u2018", "'").replace("\u2019", "'")
    text = _NUM.sub("N", text)
    text = re.sub(r"N(?:[\s,]+N)+", "N...", text)
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def _unrepr(s):
    try:
        return ast.literal_eval(s)
    except (ValueError, SyntaxError):
        return s


def classify(rec):
    """Category key and the exact details of one regression.

    Parameters
    ----------
    rec : dict
        The substituted run's record of a test that passed as shipped.

    Returns
    -------
    key : str
        Normalised category.
    detail : dict
        ``expected`` / ``got`` for ``pytest.raises``/``pytest.warns`` mismatches, else
        ``got``; plus ``origin`` (where the exception was raised).
    """
    outcome = rec["outcome"]
    msg = rec.get("message") or ""
    etype = rec.get("exc_type") or outcome
    origin = rec.get("origin")
    if outcome == "not collected":
        return "Not collected: " + normalise(first_line(msg)), {"got": first_line(msg)}
    if outcome in ("skipped", "xfailed", "not run"):
        return f"{outcome.capitalize()}: " + normalise(first_line(msg)), {"got": first_line(msg)}
    if outcome in ("crashed", "timeout"):
        return f"{etype}: " + normalise(msg), {"got": msg}
    if rec.get("raises_mismatch"):
        m = re.search(r"Expected regex: (.*)\n\s*Actual message: (.*)", msg)
        if m:
            expected = _unrepr(m.group(1))
        else:  # fully anchored patterns are reported as a diff: '-' lines are expected
            expected = "\n".join(l[2:] for l in msg.splitlines() if l.startswith("- ")) or msg
        got = f"{rec.get('actual_type')}: {rec.get('actual_message')}"
        key = (f"pytest.raises match mismatch: expected /{normalise(first_line(expected), 120)}/"
               f" got {rec.get('actual_type')}: {normalise(first_line(rec.get('actual_message') or ''), 120)}")
        return key, {"expected": expected, "got": got, "origin": origin}
    if etype == "Failed" and msg.startswith("DID NOT WARN"):
        lines = [l.strip() for l in msg.splitlines() if l.strip()]
        regex = next((l[len("Regex: "):] for l in lines if l.startswith("Regex: ")), None)
        emitted = next((l for l in lines if l.startswith("Emitted warnings")), "")
        key = "Failed: " + normalise(lines[0])
        if regex:
            key += f" /{normalise(regex, 100)}/"
        expected = lines[0] + (f" regex /{regex}/" if regex else "")
        return key, {"expected": expected, "got": emitted[:500], "origin": origin}
    if etype == "Failed" and msg.startswith("DID NOT RAISE"):
        return "Failed: " + normalise(first_line(msg)), {"expected": first_line(msg), "got": "no exception", "origin": origin}
    line = first_line(msg)
    if etype == "AssertionError" and not line:
        line = "(bare assert)"
    where = f" [raised in {origin}]" if origin == "fastmetrics" else ""
    return f"{etype}: {normalise(line)}{where}", {"got": f"{etype}: {line}"[:600], "origin": origin}


def _base(nodeid):
    return nodeid.split("[", 1)[0]


def summarise(files, runs):
    """Table rows, regressions and categories from the runs."""
    rows, regressions, newly_passing = [], [], []
    for f in files:
        shipped = runs[(f, "shipped")]["results"]
        subst = runs[(f, "substituted")]["results"]
        smeta = runs[(f, "substituted")]["meta"]
        collect_msg = "; ".join(first_line(e["message"].splitlines()[-1] if e["message"] else "")
                                for e in smeta.get("collect_errors", [])) or "not in the substituted run"
        for nodeid in shipped:
            if nodeid not in subst:
                subst[nodeid] = {"outcome": "not collected", "message": collect_msg}
        n_pass = sum(r["outcome"] == "passed" for r in shipped.values())
        s_pass = sum(subst.get(n, {}).get("outcome") == "passed" for n in shipped)
        regs = [n for n, r in shipped.items() if r["outcome"] == "passed" and subst[n]["outcome"] != "passed"]
        newly_passing += [n for n, r in shipped.items() if r["outcome"] != "passed" and subst[n]["outcome"] == "passed"]
        rows.append({
            "file": f, "tests": len(shipped), "pass_shipped": n_pass, "pass_substituted": s_pass,
            "fail_substituted": len(regs),
            "skipped_shipped": sum(r["outcome"] in ("skipped", "xfailed") for r in shipped.values()),
            "other_shipped": sum(r["outcome"] not in ("passed", "skipped", "xfailed") for r in shipped.values()),
        })
        regressions += [(n, subst[n]) for n in regs]
    cats = {}
    for nodeid, rec in regressions:
        key, detail = classify(rec)
        c = cats.setdefault(key, {"category": key, "count": 0, "tests": [], "detail": detail,
                                  "origins": collections.Counter(), "functions": collections.Counter()})
        c["count"] += 1
        c["tests"].append(nodeid)
        c["origins"][rec.get("origin") or "-"] += 1
        c["functions"][_base(nodeid)] += 1
        if rec.get("params"):
            c.setdefault("params", {})[nodeid] = rec["params"]
    categories = sorted(cats.values(), key=lambda c: (-c["count"], c["category"]))
    for c in categories:
        c["origins"] = dict(c["origins"].most_common())
        c["functions"] = dict(c["functions"].most_common())
    return rows, regressions, categories, newly_passing


# ----------------------------------------------------------------------------------------
# Reporting
# ----------------------------------------------------------------------------------------


def _examples(tests, n):
    """Up to ``n`` example ids, preferring different test functions."""
    out, seen = [], set()
    for t in tests:
        if _base(t) not in seen:
            out.append(t)
            seen.add(_base(t))
        if len(out) == n:
            return out
    return out + [t for t in tests if t not in out][: n - len(out)]


def _short(nodeid):
    return nodeid.split("/tests/", 1)[-1]


def _quote(s, limit=400):
    s = str(s)
    s = s if len(s) <= limit else s[:limit] + "..."
    return "`" + s.replace("`", "'").replace("\n", "\\n") + "`"


def render(rows, categories, newly_passing, meta, top, n_examples):
    out = []
    out.append("## scikit-learn metric tests, as shipped vs. fastmetrics substituted\n")
    out.append(f"scikit-learn {meta['sklearn_version']}, fastmetrics {meta['fastmetrics_version']} "
               f"({meta.get('fastmetrics_file')}), pytest {meta['pytest_version']}, "
               f"SCIPY_ARRAY_API={'1' if meta['scipy_array_api'] else 'unset'}\n")
    for mod, names in (meta.get("substituted") or {}).items():
        out.append(f"Substituted in `{mod}` ({len(names)}): " + (", ".join(names) if names else "none"))
    stale = {m: v for m, v in (meta.get("unpatched_bindings") or {}).items() if v}
    out.append("Test-module globals still bound to a replaced scikit-learn function: "
               + ("; ".join(f"{m}: {', '.join(v)}" for m, v in stale.items()) if stale else "none") + "\n")
    out.append("| file | tests | pass as shipped | pass substituted | fail substituted | skipped as shipped |")
    out.append("|---|---:|---:|---:|---:|---:|")
    tot = collections.Counter()
    for r in rows:
        out.append(f"| {r['file'].split('/')[-1] if 'cluster' not in r['file'] else 'cluster/' + r['file'].split('/')[-1]} "
                   f"| {r['tests']} | {r['pass_shipped']} | {r['pass_substituted']} | {r['fail_substituted']} | {r['skipped_shipped']} |")
        for k in ("tests", "pass_shipped", "pass_substituted", "fail_substituted", "skipped_shipped"):
            tot[k] += r[k]
    out.append(f"| **total** | {tot['tests']} | {tot['pass_shipped']} | {tot['pass_substituted']} "
               f"| {tot['fail_substituted']} | {tot['skipped_shipped']} |\n")
    out.append("'fail substituted' counts tests that pass as shipped and do not pass substituted. "
               f"Tests failing as shipped but passing substituted: {len(newly_passing)}.")
    other = sum(r["other_shipped"] for r in rows)
    if other:
        out.append(f"Tests not passing and not skipped as shipped (environment): {other}.")
    out.append("")
    total = sum(c["count"] for c in categories)
    out.append(f"### Failure categories ({len(categories)} categories, {total} tests; top {min(top, len(categories))})\n")
    for i, c in enumerate(categories[:top], 1):
        d = c["detail"]
        out.append(f"{i}. **{c['count']}** × {_quote(c['category'], 300)}  ")
        funcs = ", ".join(f"{k.split('::')[-1]} ({v})" for k, v in list(c["functions"].items())[:4])
        more = len(c["functions"]) - 4
        out.append(f"   tests: {funcs}{f', +{more} more' if more > 0 else ''}  ")
        if "expected" in d:
            out.append(f"   expected: {_quote(d['expected'])}  ")
            out.append(f"   got: {_quote(d['got'])}  ")
        else:
            out.append(f"   e.g.: {_quote(d['got'])}  ")
        origins = ", ".join(f"{k} {v}" for k, v in c["origins"].items())
        out.append(f"   raised in: {origins}  ")
        ex = []
        for t in _examples(c["tests"], n_examples):
            params = c.get("params", {}).get(t)
            shown = _short(t)
            if params and re.search(r"\bmetric\d+\b", shown):  # an id pytest could not name
                shown += " (" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"
            ex.append(_quote(shown, 240))
        out.append("   examples: " + ", ".join(ex))
    if len(categories) > top:
        rest = sum(c["count"] for c in categories[top:])
        out.append(f"\n... {len(categories) - top} more categories ({rest} tests); see --json.")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------


def _version(dist, module):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        try:
            return getattr(__import__(module), "__version__", "?")
        except ImportError:
            return "not installed"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", nargs="+", metavar="FILE",
                   help="subset of the test files (names like test_common or paths like "
                        "cluster/tests/test_supervised.py); default: all")
    p.add_argument("--json", metavar="PATH", help="write every test's outcome and the categories here")
    p.add_argument("--markdown", metavar="PATH", help="also write the printed report here")
    p.add_argument("--jobs", type=int, default=1, help="pytest subprocesses at once (1 or 2)")
    p.add_argument("--top", type=int, default=40, help="categories to print (default 40)")
    p.add_argument("--examples", type=int, default=3, help="example ids per category (default 3)")
    p.add_argument("--timeout", type=float, default=1800.0,
                   help="seconds one pytest run may take before its running test is "
                        "recorded as a timeout (default 1800)")
    p.add_argument("--scipy-array-api", action="store_true",
                   help="set SCIPY_ARRAY_API=1 (runs the NumPy-namespace array-API tests)")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, raw records)")
    return p.parse_args(argv)


def main(argv=None):
    opts = parse_args(argv)
    files = select_files(opts.files)
    pkg, parent = sklearn_root()
    workdir = Path(tempfile.mkdtemp(prefix="sklearn_suite_"))
    (workdir / (PLUGIN_NAME + ".py")).write_text(textwrap.dedent(PLUGIN_SOURCE), encoding="utf-8")
    meta = {
        "sklearn_version": _version("scikit-learn", "sklearn"),
        "fastmetrics_version": _version("fastmetrics-kernels", "fastmetrics"),
        "pytest_version": _version("pytest", "pytest"),
        "numpy_version": _version("numpy", "numpy"),
        "scipy_version": _version("scipy", "scipy"),
        "python": sys.version.split()[0],
        "sklearn_dir": str(pkg),
        "scipy_array_api": opts.scipy_array_api,
        "global_random_seed": os.environ.get("SKLEARN_TESTS_GLOBAL_RANDOM_SEED", "42 (default)"),
        "files": files,
        "workdir": str(workdir),
    }
    jobs = [(f, m) for f in files for m in ("shipped", "substituted")]
    # longest first, so that two workers finish together
    order = {"test_common.py": 0, "test_classification.py": 1, "test_ranking.py": 2}
    jobs.sort(key=lambda j: order.get(j[0].split("/")[-1], 9))
    n_jobs = max(1, min(opts.jobs, 2))
    print(f"Running {len(files)} file(s) x 2 modes from {pkg} with {n_jobs} job(s); work dir {workdir}",
          file=sys.stderr)
    runs = {}

    def work(job):
        f, m = job
        r = run_file(f, m, opts, workdir, pkg, parent)
        outcomes = collections.Counter(x["outcome"] for x in r["results"].values())
        print(f"  {f} [{m}]: {dict(outcomes)} in {r['seconds']}s"
              + (f", {len(r['meta']['restarts'])} restart(s)" if r["meta"]["restarts"] else ""),
              file=sys.stderr, flush=True)
        return job, r

    try:
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            for job, r in pool.map(work, jobs):
                runs[job] = r
        for f in files:
            sm = runs[(f, "substituted")]["meta"]
            if "substituted" in sm:
                meta["substituted"] = sm["substituted"]
                meta["fastmetrics_file"] = sm.get("fastmetrics_file")
            meta.setdefault("unpatched_bindings", {}).update(sm.get("unpatched_bindings", {}))
        rows, regressions, categories, newly_passing = summarise(files, runs)
        report = render(rows, categories, newly_passing, meta, opts.top, opts.examples)
        print(report)
        if opts.markdown:
            Path(opts.markdown).write_text(report, encoding="utf-8")
        if opts.json:
            doc = {
                "meta": meta,
                "table": rows,
                "newly_passing": newly_passing,
                "categories": categories,
                "runs": {f: {m: {"seconds": runs[(f, m)]["seconds"],
                                 "exitstatus": runs[(f, m)]["meta"].get("exitstatus"),
                                 "restarts": runs[(f, m)]["meta"]["restarts"],
                                 "collect_errors": runs[(f, m)]["meta"].get("collect_errors", []),
                                 "tests": runs[(f, m)]["results"]}
                             for m in ("shipped", "substituted")} for f in files},
            }
            Path(opts.json).write_text(json.dumps(doc, indent=1, default=str), encoding="utf-8")
            print(f"Per-test outcomes written to {opts.json}", file=sys.stderr)
    finally:
        if opts.keep:
            print(f"Kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
