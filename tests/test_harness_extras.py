"""parse_failures' keep mask, named perturbations, the harness' reliability_diagram call and
LLM server timings."""

import math
import types

import numpy as np
import pytest
import sklearn.metrics as skm

import fastmetrics as fm


# ------------------------------------------------------------------ parse_failures: keep


def test_keep_mask_aligns_the_other_per_row_arrays():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    raw = y.astype(object)
    raw[rng.random(200) < 0.15] = None
    groups = rng.choice(["web", "app"], 200)
    latency = rng.random(200)
    p = fm.parse_failures(y, raw)
    expected = np.array([v is not None for v in raw])
    assert p.keep.dtype == bool and np.array_equal(p.keep, expected)
    assert np.array_equal(p.failed, ~expected)
    g, lat = p.select(groups, latency)
    assert np.array_equal(g, groups[expected]) and np.array_equal(lat, latency[expected])
    assert np.array_equal(p.y_true, y[p.keep])
    # the groups now line up with the kept predictions
    r = fm.group_metrics(p.y_true, p.y_pred, g)
    for name in ("web", "app"):
        sel = groups[expected] == name
        assert r.per_group[name] == skm.accuracy_score(y[expected][sel],
                                                      raw[expected][sel].astype(int))
    assert p.select(list(latency)).tolist() == latency[expected].tolist()


def test_keep_mask_with_the_wrong_policy_keeps_every_row():
    p = fm.parse_failures([1, 0, 1], [1, -1, 0], missing=-1, policy="wrong", fill_label=9)
    assert p.keep.tolist() == [True, True, True] and p.failed.tolist() == [False, True, False]
    assert p.select(np.arange(3)).tolist() == [0, 1, 2]


def test_select_checks_lengths():
    p = fm.parse_failures([1, 0], [1, None])
    with pytest.raises(ValueError, match="array 1 has 3 rows; the predictions had 2"):
        p.select([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="array 0 has a scalar"):
        p.select(5)
    with pytest.raises(TypeError, match="at least one array"):
        p.select()


# ------------------------------------------------------------------ named perturbations


def test_named_perturbations_each_match_a_single_report():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    orig = np.where(rng.random(300) < 0.8, y, rng.integers(0, 3, 300))
    perts = {name: np.where(rng.random(300) < p, rng.integers(0, 3, 300), orig)
             for name, p in (("typos", 0.1), ("paraphrase", 0.4), ("case", 0.0))}
    for metric in ("accuracy", "f1_macro"):
        r = fm.robustness_report(y, orig, perts, metric=metric)
        for name, pred in perts.items():
            one = fm.robustness_report(y, orig, pred, metric=metric)
            assert r.perturbations[name] == one
        scores = {k: v.robustness_score for k, v in r.perturbations.items()}
        assert r.robustness_score == min(scores.values())
        assert r.worst_perturbation == min(scores, key=scores.get) == "paraphrase"
        assert r.perturbed == r.perturbations["paraphrase"].perturbed
        assert r.consistency_rate == min(v.consistency_rate for v in r.perturbations.values())
        assert r.perturbations["case"].robustness_score == 1.0
        flat = r.to_flat_dict()
        assert flat["perturbations.typos.robustness_score"] == scores["typos"]
        assert flat[f"perturbations.case.{metric}"] == r.original
        assert flat["worst_perturbation"] == "paraphrase"
        m = fm.run_metrics(r)
        assert m["robustness_score"] == r.robustness_score
        assert m["consistency_rate"] == r.consistency_rate
    single = fm.robustness_report(y, orig, perts["typos"])
    assert single.perturbations == {} and "worst_perturbation" not in single.to_flat_dict()


@pytest.mark.parametrize("perturbed, exc, match", [
    ({}, ValueError, "empty dict"),
    ({"a": [0, 1]}, ValueError, "same length"),
])
def test_named_perturbations_bad_input(perturbed, exc, match):
    with pytest.raises(exc, match=match):
        fm.robustness_report([0, 1, 1], [0, 1, 0], perturbed)


# ------------------------------------------------------------------ reliability diagram


def test_reliability_diagram_takes_the_harness_call(tmp_path):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(2)
    confs = rng.random(500)
    corrects = rng.random(500) < confs
    out = fm.reliability_diagram(confs, corrects, tmp_path / "rel.png", 10)
    assert out == tmp_path / "rel.png" and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = fm.reliability_diagram(confs, corrects.astype(int), str(tmp_path / "b.png"),
                                 n_bins=5)
    assert out.stat().st_size > 0
    out = fm.reliability_diagram(list(confs), list(corrects),
                                 output_path=tmp_path / "k.png")
    assert out.exists()
    # the bars are the bins of (corrects, confs), and all-correct runs still plot
    fm.reliability_diagram(confs, np.ones(500, bool), tmp_path / "all.png")
    # today's call is unchanged
    assert fm.reliability_diagram((corrects, confs), tmp_path / "old.png", n_bins=4).exists()


def test_reliability_diagram_bad_calls(tmp_path):
    pytest.importorskip("matplotlib")
    with pytest.raises(TypeError, match="corrects must be an array"):
        fm.reliability_diagram([0.5], "corrects.png", tmp_path / "x.png")
    with pytest.raises(TypeError, match="needs the PNG's path"):
        fm.reliability_diagram([0.2, 0.9], [0, 1])
    with pytest.raises(ValueError):
        fm.reliability_diagram([0.2, 1.5], [0, 1], tmp_path / "x.png")
    with pytest.raises(ValueError):
        fm.reliability_diagram([0.2, 0.5, 0.9], [0, 1], tmp_path / "x.png")


# ------------------------------------------------------------------ LLM server timings


def test_parse_ollama_timings_dict_and_object():
    resp = {"model": "m", "done": True, "total_duration": 5_043_500_667,
            "load_duration": 5_025_959, "prompt_eval_count": 26,
            "prompt_eval_duration": 325_953_000, "eval_count": 290,
            "eval_duration": 4_709_213_000}
    t = fm.parse_ollama_timings(resp)
    assert t["total_ms"] == 5_043_500_667 / 1e6 and t["load_ms"] == 5_025_959 / 1e6
    assert t["eval_ms"] == 4_709_213_000 / 1e6
    assert t["tokens_per_sec"] == 290 / (4_709_213_000 / 1e9)
    assert t["prompt_eval_ms"] == 325_953_000 / 1e6
    assert t["prompt_tokens_per_sec"] == 26 / (325_953_000 / 1e9)
    obj = types.SimpleNamespace(**resp)
    assert fm.parse_ollama_timings(obj) == t
    numpy_resp = {k: np.int64(v) for k, v in resp.items() if isinstance(v, int)}
    assert fm.parse_ollama_timings(numpy_resp) == t
    short = {"total_duration": 1000, "eval_count": 0, "eval_duration": 0}
    assert fm.parse_ollama_timings(short) == {"total_ms": 0.001, "load_ms": 0.0,
                                              "eval_ms": 0.0, "tokens_per_sec": 0.0}
    assert fm.parse_ollama_timings({**short, "eval_count": 3})["tokens_per_sec"] == math.inf
    # the durations of many responses summarise as latencies
    s = fm.latency_stats([resp["total_duration"], 2 * resp["total_duration"]])
    assert s.min_ms == t["total_ms"]


@pytest.mark.parametrize("resp, exc, match", [
    ({"eval_count": 1, "eval_duration": 1}, ValueError, "no 'total_duration'.*done=true"),
    ({"total_duration": 1, "eval_duration": 1}, ValueError, "no 'eval_count'"),
    ({"total_duration": -1, "eval_count": 1, "eval_duration": 1}, ValueError, ">= 0"),
    ({"total_duration": float("nan"), "eval_count": 1, "eval_duration": 1}, ValueError,
     "finite"),
    ({"total_duration": "5", "eval_count": 1, "eval_duration": 1}, TypeError,
     "total_duration must be a number"),
    ({"total_duration": True, "eval_count": 1, "eval_duration": 1}, TypeError, "a number"),
    ({"total_duration": np.array([1, 2]), "eval_count": 1, "eval_duration": 1}, TypeError,
     "a number"),
])
def test_parse_ollama_timings_bad_input(resp, exc, match):
    with pytest.raises(exc, match=match):
        fm.parse_ollama_timings(resp)
