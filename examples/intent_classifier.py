"""An intent classifier with an out-of-scope label: scored, timed and logged.

The production-harness workflow: pin the label vocabulary so macro F1 stays comparable,
let the model abstain ("oos") when it is unsure, score accuracy, macro F1 and OOS
precision/recall from one counting pass, time single requests after a warm-up (p50/p95/p99),
and append one markdown row per run to an append-only RESULTS.md.

Run: ``python examples/intent_classifier.py [OUTPUT_DIR]`` (default: a temporary folder).
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

import fastmetrics as fm

INTENTS = ["billing", "cancel", "greeting", "shipping"]
OOS = "oos"


def make_data(centres, n_per_intent, n_oos, rng):
    """Four intents as Gaussian clusters in a 16-d 'embedding' space; out-of-scope messages
    are scattered far from all of them."""
    X = [c + rng.normal(0.0, 1.2, (n_per_intent, 16)) for c in centres]
    y = [np.full(n_per_intent, name, dtype=object) for name in INTENTS]
    X.append(rng.normal(0.0, 8.0, (n_oos, 16)))
    y.append(np.full(n_oos, OOS, dtype=object))
    return np.vstack(X), np.concatenate(y)


class AbstainingClassifier:
    """Predicts the most likely intent, or "oos" when its confidence is under a threshold."""

    def __init__(self, threshold):
        self.threshold = threshold
        self.model = LogisticRegression(max_iter=1000)

    def fit(self, X, y):
        in_scope = y != OOS     # train on the intents only: OOS is an abstention
        self.model.fit(X[in_scope], y[in_scope])
        return self

    def predict(self, X):
        proba = self.model.predict_proba(X)
        labels = self.model.classes_[proba.argmax(axis=1)].astype(object)
        labels[proba.max(axis=1) < self.threshold] = OOS
        return labels


def main(out_dir):
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    centres = rng.normal(0.0, 2.0, (len(INTENTS), 16))
    X_train, y_train = make_data(centres, 200, 0, rng)
    X_test, y_test = make_data(centres, 60, 40, rng)
    results = Path(out_dir) / "RESULTS.md"
    for threshold in (0.0, 0.99):
        name = f"logreg-abstain@{threshold}"
        model = AbstainingClassifier(threshold).fit(X_train, y_train)
        y_pred = model.predict(X_test)
        card = fm.score(y_test, y_pred, labels=INTENTS + [OOS], oos_label=OOS)
        latency = fm.measure_latency(model.predict, [X_test[i:i + 1] for i in range(50)],
                                     warmup=10, n_iters=100)
        row = fm.append_results(results, name, card, latency)
        print(f"{name}: accuracy={card.accuracy:.4f} macro_f1={card.macro_f1:.4f} "
              f"oos_recall={card.oos_recall:.4f} oos_precision={card.oos_precision:.4f} "
              f"p50={latency.p50_ms:.3f}ms p95={latency.p95_ms:.3f}ms p99={latency.p99_ms:.3f}ms")
        for label in INTENTS + [OOS]:
            c = card.per_class[label]
            print(f"  {label:9s} precision={c.precision:.3f} recall={c.recall:.3f} f1={c.f1:.3f}")
        assert row in results.read_text()
    print(f"results log {results}:")
    print(results.read_text(), end="")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="fm-intent-"))
