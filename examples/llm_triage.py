"""An LLM triage run: log-prob confidences, parse failures, groups, robustness, stability
and the flat export.

A (simulated) LLM labels support tickets as bug / feature / question / other. For each ticket
it returns a text answer, which sometimes cannot be parsed, and the log-probabilities of its
first token's candidates. The run is scored the way the metrics reference does it:

* class confidences: a stable softmax over the label tokens' log-probabilities;
* parse failures: unparseable answers are counted and excluded (``parse_failure_rate``);
* classification: macro / weighted F1, accuracy, per-class P/R/F1, confusion matrix;
* calibration: ECE, MCE and Brier score over 10 equal-width bins, and a reliability diagram
  (PNG, when matplotlib is installed);
* fairness: accuracy per product area, worst group and the gap;
* robustness: the same tickets with typos, the F1 drop and the prediction consistency;
* stability: macro F1 over five seeds (mean, stddev, CV, stability score);
* latency percentiles and throughput per minute;
* the flat export: one ``run_id, metric_name, value`` row per number.

Energy / CO2 per run is not measured here (an optional CodeCarbon extra of fastmetrics; a
``with`` block around the run is where it would go).

Run: ``python examples/llm_triage.py [OUTPUT_DIR]`` (default: a temporary folder).
"""

import math
import sys
import tempfile
from pathlib import Path

import numpy as np

import fastmetrics as fm

LABELS = ["bug", "feature", "question", "other"]
TOKENS = {"bug": ["bug", " bug", "Bug"], "feature": ["feature", " feature"],
          "question": ["question", " question"], "other": ["other", " other"]}
AREAS = ["web", "mobile", "api"]


class SimulatedLLM:
    """Answers with the true label most of the time; worse on 'mobile' tickets and on
    tickets with typos; sometimes answers something unparseable."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self, label, area, typos=False):
        skill = 2.2 - (0.8 if area == "mobile" else 0.0) - (0.5 if typos else 0.0)
        scores = self.rng.normal(0.0, 1.0, len(LABELS))
        scores[LABELS.index(label)] += skill
        logprobs = {}
        for lab, s in zip(LABELS, scores):
            variants = TOKENS[lab]
            for j, tok in enumerate(variants):      # most mass on the first spelling
                logprobs[tok] = float(s) - 1.5 * j
        logprobs["Sure"] = -3.0
        top = max(logprobs, key=logprobs.get)
        text = "I am not sure what you mean." if self.rng.random() < 0.04 else \
            f"Category: {top.strip().lower()}"
        latency_ms = float(self.rng.gamma(4.0, 60.0))
        return text, logprobs, latency_ms


def parse_response(text):
    """The label in 'Category: <label>', or None."""
    if not text.startswith("Category: "):
        return None
    label = text.removeprefix("Category: ").strip()
    return label if label in LABELS else None


def run(llm, y_true, areas, typos=False):
    preds, confs, latencies = [], [], []
    for label, area in zip(y_true, areas):
        text, logprobs, ms = llm(label, area, typos)
        pred = parse_response(text)
        probs = fm.class_confidence_from_logprobs(logprobs, TOKENS)
        preds.append(pred)
        confs.append(probs[pred] if pred is not None else math.nan)
        latencies.append(ms)
    return np.array(preds, dtype=object), np.array(confs), np.array(latencies)


def main(out_dir):
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    n = 600
    y_true = np.array(rng.choice(LABELS, n, p=[0.4, 0.25, 0.25, 0.1]), dtype=object)
    areas = np.array(rng.choice(AREAS, n), dtype=object)
    run_id = "triage_v1"

    # energy and CO2 of the run, with CodeCarbon's offline tracker (the energy extra)
    try:
        tracker = fm.track_emissions("FRA", measure_power_secs=1)
        with tracker:
            preds, confs, latencies_ms = run(SimulatedLLM(seed=1), y_true, areas)
        emissions = tracker.report
    except ImportError:  # codecarbon is not installed
        preds, confs, latencies_ms = run(SimulatedLLM(seed=1), y_true, areas)
        emissions = None
    parsed = fm.parse_failures(y_true, preds, policy="exclude")
    confs_kept, areas_kept = parsed.select(confs, areas)   # aligned with the kept rows

    card = fm.score(parsed.y_true, parsed.y_pred, labels=LABELS)
    corrects = (parsed.y_pred == parsed.y_true).astype(int)
    calibration = fm.calibration_summary(corrects, confs_kept, n_bins=10)
    groups = fm.group_metrics(parsed.y_true, parsed.y_pred, areas_kept, metric="accuracy")

    # robustness: the same tickets with typos (parse failures count as wrong here)
    preds_typo, _, _ = run(SimulatedLLM(seed=2), y_true, areas, typos=True)
    fill = "unparsed"
    orig = fm.parse_failures(y_true, preds, policy="wrong", fill_label=fill).y_pred
    pert = fm.parse_failures(y_true, preds_typo, policy="wrong", fill_label=fill).y_pred
    robustness = fm.robustness_report(y_true, orig, pert, metric="accuracy")

    # stability: the same run under five seeds
    f1s = []
    for seed in range(10, 15):
        p, _, _ = run(SimulatedLLM(seed=seed), y_true, areas)
        ok = fm.parse_failures(y_true, p)
        f1s.append(fm.f1_score(ok.y_true, ok.y_pred, labels=LABELS, average="macro",
                               zero_division=0))
    stability = fm.stability_summary(f1s)

    latency = fm.latency_stats((latencies_ms * 1e6).astype(np.int64))
    throughput = fm.throughput_per_minute(n, latencies_ms.sum() / 1000.0)

    print(f"parse failures: {parsed.n_failures}/{parsed.n_total} "
          f"(rate {parsed.parse_failure_rate:.4f}), scored on {parsed.n_predictions}")
    print(f"f1_macro={card.macro_f1:.4f} f1_weighted={card.weighted_f1:.4f} "
          f"accuracy={card.accuracy:.4f}")
    print(f"ece={calibration.ece:.4f} mce={calibration.mce:.4f} brier={calibration.brier:.4f}")
    print("accuracy per area: " + ", ".join(f"{g}={v:.4f}" for g, v in groups.per_group.items())
          + f"; worst={groups.worst_group} gap={groups.gap:.4f}")
    print(f"robustness (typos): accuracy {robustness.original:.4f} -> {robustness.perturbed:.4f}, "
          f"score={robustness.robustness_score:.4f} consistency={robustness.consistency_rate:.4f}")
    print(f"stability over {len(f1s)} seeds: mean={stability.mean:.4f} "
          f"stddev={stability.stddev:.4f} cv={stability.cv:.4f} "
          f"score={stability.stability_score:.4f}")
    print(f"latency p50={latency.p50_ms:.1f}ms p95={latency.p95_ms:.1f}ms "
          f"p99={latency.p99_ms:.1f}ms; throughput {throughput:.1f}/min")
    if emissions is None:
        print("energy: not measured (pip install 'fastmetrics-kernels[energy]')")
    else:
        print(f"energy: {emissions.kwh:.3g} kWh, {emissions.co2_kg * 1000:.3g} gCO2 "
              f"({emissions.power_source} power), "
              f"{fm.gco2_per_f1_point(emissions.co2_kg, card.macro_f1):.3g} gCO2 per F1 point")

    try:
        png = fm.reliability_diagram(confs_kept, corrects, Path(out_dir) / "reliability.png")
        print(f"reliability diagram: {png}")
    except ImportError:
        print("reliability diagram: skipped (matplotlib is not installed)")

    flat = fm.flatten({"classification": card, "parse": parsed, "calibration": calibration,
                       "fairness": groups, "robustness": robustness, "stability": stability,
                       "latency": latency, "throughput_per_min": throughput,
                       "energy": emissions})
    tsv = Path(out_dir) / "metrics.tsv"
    tsv.write_text("run_id\tmetric_name\tvalue\n"
                   + "".join(f"{run_id}\t{k}\t{v}\n" for k, v in flat.items()))
    print(f"flat export: {len(flat)} rows (run_id, metric_name, value) in {tsv}, e.g.")
    wanted = ("macro_f1", "parse_failure_rate", "ece", "fairness_gap", "robustness_score",
              "stability_score", "p95_ms")
    for key, value in flat.items():
        if key.endswith(wanted):
            print(f"{run_id}\t{key}\t{value}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="fm-triage-"))
