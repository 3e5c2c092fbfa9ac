"""How close memory-bound metrics come to reading their inputs once.

For each metric at 10^7 rows (probabilities and scores (10^7, 10), multioutput (1.25e6, 8)),
times fastmetrics, scikit-learn and a numpy reference that reads every input byte once
(``np.add.reduce`` of each input), interleaved round by round, and prints medians and the
ratios fastmetrics / reference and scikit-learn / fastmetrics. Usage::

    python scripts/read_once.py [--rounds 5] [--n 10000000] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sklearn.metrics as skm

import fastmetrics as fm


def cases(n: int):
    rng = np.random.default_rng(0)
    y = rng.gamma(2.0, size=n) + 0.1
    p = y * rng.uniform(0.5, 1.5, size=n) + 0.05
    k = 10
    labels = rng.integers(0, k, size=n)
    logits = rng.normal(size=(n, k))
    proba = np.exp(logits)
    proba /= proba.sum(axis=1, keepdims=True)
    m = 8
    Y = rng.normal(size=(n // m, m))
    P = Y + rng.normal(size=Y.shape)

    def read(*arrays):
        return lambda: [np.add.reduce(a, axis=None) for a in arrays]

    yield "mean_squared_error", lambda f: f(y, p), read(y, p)
    yield "max_error", lambda f: f(y, p), read(y, p)
    yield "explained_variance_score", lambda f: f(y, p), read(y, p)
    yield "r2_score", lambda f: f(y, p), read(y, p)
    yield "mean_pinball_loss", lambda f: f(y, p, alpha=0.9), read(y, p)
    yield "mean_squared_log_error", lambda f: f(y, p), read(y, p)
    yield "mean_poisson_deviance", lambda f: f(y, p), read(y, p)
    yield "mean_tweedie_deviance", lambda f: f(y, p, power=1.5), read(y, p)
    yield "d2_tweedie_score", lambda f: f(y, p, power=1.5), read(y, p)
    yield ("mean_squared_error (1.25e6, 8) raw",
           lambda f: f(Y, P, multioutput="raw_values"), read(Y, P))
    yield "log_loss", lambda f: f(labels, proba), read(labels, proba)
    yield "top_k_accuracy_score", lambda f: f(labels, logits, k=3), read(labels, logits)
    yield "hinge_loss", lambda f: f(labels, logits), read(labels, logits)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    print("| metric | fastmetrics | read once | ours / read | scikit-learn | sklearn / ours |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, call, ref in cases(args.n):
        base = name.split(" ")[0]
        if args.only and base not in args.only:
            continue
        if not hasattr(fm, base):
            continue
        ours, theirs = getattr(fm, base), getattr(skm, base)
        got, want = call(ours), call(theirs)
        np.testing.assert_allclose(got, want, rtol=1e-9)
        times: dict[str, list[float]] = {"fm": [], "ref": [], "sk": []}
        for _ in range(args.rounds):
            for key, f in (("fm", lambda: call(ours)), ("ref", ref),
                           ("sk", lambda: call(theirs))):
                t0 = time.perf_counter()
                f()
                times[key].append(time.perf_counter() - t0)
        t = {k: float(np.median(v)) * 1e3 for k, v in times.items()}
        print(f"| `{name}` | {t['fm']:.1f} ms | {t['ref']:.1f} ms | {t['fm'] / t['ref']:.2f} "
              f"| {t['sk']:.0f} ms | {t['sk'] / t['fm']:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
