"""Write ``legacy_accumulators.pkl`` and ``legacy_accumulators.json``: accumulators pickled
by fastmetrics 0.1.0 as it was before the state layer (commit ae3c1a7), and what they
answered then. ``tests/test_states.py`` loads the pickles with today's code and checks the
answers. Kept for the record: running it again needs that old version installed."""

import json
import pathlib
import pickle
import warnings

import numpy as np

from fastmetrics.streaming import (
    CalibrationAccumulator,
    ConfusionAccumulator,
    QuantileAccumulator,
    RankingAccumulator,
    RegressionAccumulator,
)

HERE = pathlib.Path(__file__).parent
rng = np.random.default_rng(20261123)


def labels(n, k=4):
    return rng.integers(0, k, n), rng.integers(0, k, n)


def build():
    accs = {}
    a = ConfusionAccumulator()
    for _ in range(3):
        a.update(*labels(50))
    accs["confusion_discovered"] = a
    a = ConfusionAccumulator(labels=[0, 1, 2, 3])
    for _ in range(2):
        a.update(*labels(40))
    accs["confusion_fixed"] = a
    a = ConfusionAccumulator()
    yt, yp = labels(60)
    a.update(yt, yp, sample_weight=rng.random(60))
    accs["confusion_weighted"] = a
    a = ConfusionAccumulator()
    a.update(np.array(["cat", "dog", "cat", "eel"]), np.array(["cat", "cat", "dog", "eel"]))
    accs["confusion_strings"] = a
    accs["confusion_empty"] = ConfusionAccumulator(labels=["a", "b"])
    a = CalibrationAccumulator(n_bins=5)
    a.update(rng.integers(0, 2, 80), rng.random(80))
    accs["calibration_binary"] = a
    a = CalibrationAccumulator(n_bins=4)
    P = rng.random((50, 3))
    P /= P.sum(axis=1, keepdims=True)
    a.update(rng.integers(0, 3, 50), P, sample_weight=rng.random(50))
    accs["calibration_top_label"] = a
    a = RegressionAccumulator()
    a.update(rng.normal(size=70), rng.normal(size=70)).update(rng.normal(size=30), rng.normal(size=30))
    accs["regression"] = a
    a = RegressionAccumulator(keep_values=True, delta=0.5)
    a.update(rng.normal(size=40), rng.normal(size=40), sample_weight=rng.random(40))
    accs["regression_keep_values"] = a
    a = RankingAccumulator()
    a.update(rng.integers(0, 2, 60), rng.random(60)).update(rng.integers(0, 2, 60), rng.random(60).round(1))
    accs["ranking_exact"] = a
    a = RankingAccumulator(thresholds=np.linspace(0.1, 0.9, 9))
    a.update(rng.integers(0, 2, 90), rng.random(90), sample_weight=rng.random(90))
    accs["ranking_binned"] = a
    a = QuantileAccumulator()
    a.update(rng.lognormal(size=500)).update(-rng.lognormal(size=100)).update(np.zeros(5))
    accs["quantile_sketch"] = a
    a = QuantileAccumulator(mode="exact")
    a.update(rng.normal(size=101))
    accs["quantile_exact"] = a
    return accs


def answers(accs):
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, a in accs.items():
            if name == "confusion_empty":
                out[name] = {"n_samples": a.n_samples}
            elif name.startswith("confusion"):
                out[name] = {
                    "n_samples": a.n_samples,
                    "confusion_matrix": a.confusion_matrix().tolist(),
                    "accuracy": a.accuracy_score(),
                    "f1_macro": a.f1_score(average="macro"),
                    "labels": [str(v) for v in a.result().labels],
                }
            elif name.startswith("calibration"):
                r = a.result()
                out[name] = {"n_samples": a.n_samples, "ece": r.ece, "mce": r.mce,
                             "brier": r.brier, "counts": r.bins.counts.tolist()}
            elif name.startswith("regression"):
                out[name] = {"n_samples": a.n_samples, "mae": a.mean_absolute_error(),
                             "mse": a.mean_squared_error(), "r2": a.r2_score(),
                             "huber": a.huber_loss()}
                if a.keep_values:
                    out[name]["median_ae"] = a.median_absolute_error()
            elif name.startswith("ranking"):
                r = a.result()
                out[name] = {"roc_auc": r.roc_auc, "ap": r.average_precision,
                             "n_positive": r.n_positive, "n_negative": r.n_negative}
            else:
                r = a.result([0.1, 0.5, 0.99])
                out[name] = {"n_samples": a.n_samples, "values": r.values.tolist()}
    return out


if __name__ == "__main__":
    accs = build()
    blobs = {p: pickle.dumps(accs, protocol=p) for p in (2, 5)}
    (HERE / "legacy_accumulators.pkl").write_bytes(blobs[5])
    (HERE / "legacy_accumulators_p2.pkl").write_bytes(blobs[2])
    (HERE / "legacy_accumulators.json").write_text(json.dumps(answers(accs), sort_keys=True) + "\n")
