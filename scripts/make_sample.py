"""Generate the sample shipped in the package: src/fastmetrics/data/sample.csv.

A support-ticket intent classifier's predictions on 3,000 tickets: six imbalanced intents,
one of which is the out-of-scope label "oos", with the model's class probabilities. The data
are synthetic and seeded (re-running this script rewrites the same file byte for byte):

- true intents are drawn with fixed, skewed frequencies (billing is common, refund rare);
- the model's logits are the true class's one-hot scaled by a per-class "skill" plus
  Gaussian noise, so some classes are learned better than others; probabilities are the
  softmax of those logits, written with 6 decimals whose row sums are exactly 1 (the rounding
  remainder goes to the largest probability); the prediction is the argmax, so labels and
  probabilities agree.

Usage: python scripts/make_sample.py
"""

from pathlib import Path

import numpy as np

CLASSES = ["account", "billing", "oos", "refund", "shipping", "tech_support"]
FREQ = [0.16, 0.34, 0.12, 0.05, 0.15, 0.18]
SKILL = [2.2, 3.0, 1.4, 1.1, 2.6, 2.4]  # higher: easier class
N = 3000
SEED = 20261122


def main(out: Path) -> None:
    rng = np.random.default_rng(SEED)
    k = len(CLASSES)
    y = rng.choice(k, size=N, p=FREQ)
    logits = rng.normal(0.0, 1.0, size=(N, k))
    logits[np.arange(N), y] += np.asarray(SKILL)[y]
    logits -= logits.max(axis=1, keepdims=True)
    prob = np.exp(logits)
    prob /= prob.sum(axis=1, keepdims=True)
    micro = np.round(prob * 1_000_000).astype(np.int64)  # millionths
    top = micro.argmax(axis=1)
    micro[np.arange(N), top] += 1_000_000 - micro.sum(axis=1)  # rows sum to exactly 1
    prob = micro / 1_000_000
    pred = prob.argmax(axis=1)
    lines = ["y_true,y_pred," + ",".join(f"p_{c}" for c in CLASSES)]
    for i in range(N):
        probs = ",".join(f"{v:.6f}" for v in prob[i])
        lines.append(f"{CLASSES[y[i]]},{CLASSES[pred[i]]},{probs}")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out} ({N} rows, {k} classes)")


if __name__ == "__main__":
    main(Path(__file__).resolve().parents[1] / "src" / "fastmetrics" / "data" / "sample.csv")
