"""The runnable examples in examples/, each run as a user runs it (a subprocess) and its
output checked: they must keep working as the API moves."""

import importlib.util
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fastmetrics as fm

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# the directory the imported fastmetrics lives in: the scripts import the same package
PKG_PARENT = str(Path(fm.__file__).resolve().parents[1])


def run_example(name, *args):
    script = EXAMPLES / name
    assert script.is_file(), f"{script} is missing (the sdist must carry examples/)"
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG_PARENT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONWARNINGS", None)
    env["MPLBACKEND"] = "Agg"
    p = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def number(pattern, text):
    m = re.search(pattern, text)
    assert m, f"{pattern!r} not in output:\n{text}"
    return float(m.group(1))


def test_every_example_is_tested():
    tested = {"intent_classifier.py", "benchmark_models.py", "lm_multiple_choice.py",
              "llm_triage.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def test_intent_classifier(tmp_path):
    out = run_example("intent_classifier.py", tmp_path / "out")
    log = (tmp_path / "out" / "RESULTS.md").read_text()
    lines = log.splitlines()
    assert lines[0] == fm.RESULTS_HEADER.splitlines()[0]
    rows = [ln for ln in lines if ln.startswith("| logreg-abstain@")]
    assert len(rows) == 2 and all(r in out for r in rows)
    assert all(len(r.split("|")) == len(lines[0].split("|")) for r in rows)
    # abstaining catches out-of-scope messages that the never-abstaining model misses
    assert number(r"logreg-abstain@0\.0: .*oos_recall=([\d.]+)", out) == 0.0
    assert number(r"logreg-abstain@0\.99: .*oos_recall=([\d.]+)", out) > 0.0
    for key in ("accuracy", "macro_f1"):
        assert 0.5 < number(rf"logreg-abstain@0\.99: .*{key}=([\d.]+)", out) <= 1.0
    assert number(r"logreg-abstain@0\.99: .*p95=([\d.]+)ms", out) > 0.0
    assert re.search(r"^  oos +precision=", out, re.M)


def test_benchmark_models(tmp_path):
    out = run_example("benchmark_models.py", tmp_path)
    for name in ("dummy", "logreg", "naive-bayes", "tree", "forest", "ridge", "forest-reg"):
        assert re.search(rf"^\| {name} \|", out, re.M), name
    header = next(ln for ln in out.splitlines() if ln.startswith("| run |"))
    assert "metrics.accuracy" in header and "latency.p95_ms" in header
    # the dummy predicts the majority class: about 1/3 accuracy; logistic regression beats it
    acc = {m.group(1): float(m.group(2)) for m in
           re.finditer(r"^\| ([\w-]+) \| ([\d.]+) \|", out, re.M)}
    assert acc["dummy"] < 0.5 < acc["logreg"]
    assert (tmp_path / "RESULTS.md").read_text().count("\n| ") >= 5


def test_lm_multiple_choice():
    out = run_example("lm_multiple_choice.py")
    acc, se = number(r"acc += ([\d.]+)", out), number(r"acc += [\d.]+ \+- ([\d.]+)", out)
    assert 0.25 < acc <= 1.0                       # better than chance on 4 choices
    assert se == pytest.approx(math.sqrt(acc * (1 - acc) / 200), abs=1e-4)
    acc_norm = number(r"acc_norm = ([\d.]+)", out)
    norm_se = number(r"acc_norm = [\d.]+ \+- ([\d.]+)", out)
    assert norm_se == pytest.approx(math.sqrt(acc_norm * (1 - acc_norm) / 200), abs=1e-4)
    assert number(r"(\d+) rows left-truncated", out) > 0
    calls = number(r"(\d+) model calls", out)
    one_at_a_time = number(r"one window at a time: (\d+)", out)
    assert calls == math.ceil(one_at_a_time / 8)
    assert number(r"perplexity ([\d.]+), \d+ model calls", out) > 1.0


def test_llm_triage(tmp_path):
    out = run_example("llm_triage.py", tmp_path)
    assert 0.0 < number(r"\(rate ([\d.]+)\)", out) < 0.2
    for key in ("f1_macro", "f1_weighted", "accuracy", "ece", "mce", "brier"):
        assert 0.0 <= number(rf"\b{key}=([\d.]+)", out) <= 1.0
    assert re.search(r"worst=mobile", out)
    assert 0.0 <= number(r"robustness \(typos\).*score=([\d.]+)", out) <= 1.0
    assert 0.0 <= number(r"stability over 5 seeds.*score=([\d.]+)", out) <= 1.0
    assert number(r"throughput ([\d.]+)/min", out) > 0
    tsv = (tmp_path / "metrics.tsv").read_text().splitlines()
    assert tsv[0] == "run_id\tmetric_name\tvalue"
    rows = [ln.split("\t") for ln in tsv[1:]]
    assert all(r[0] == "triage_v1" and len(r) == 3 for r in rows)
    flat = {k: v for _, k, v in rows}
    rate = number(r"\(rate ([\d.]+)\)", out)
    assert float(flat["parse.parse_failure_rate"]) == pytest.approx(rate, abs=1e-4)
    assert len(flat) == number(r"flat export: (\d+) rows", out)
    if "energy: not measured" in out:   # codecarbon is an optional extra
        assert importlib.util.find_spec("codecarbon") is None
    else:
        assert number(r"energy: ([\d.e+-]+) kWh", out) > 0
        assert float(flat["energy.co2_kg"]) > 0
    if "reliability diagram: skipped" in out:   # matplotlib is an optional extra
        assert importlib.util.find_spec("matplotlib") is None
    else:
        assert (tmp_path / "reliability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
