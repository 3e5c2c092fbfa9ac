"""How close memory-bound metrics come to reading their inputs once.

For each metric at 10^7 rows (probabilities and scores (10^7, 10), multioutput (1.25e6, 8)),
times fastmetrics, scikit-learn and a numpy reference that reads every input byte once
(``np.add.reduce`` of each input), interleaved round by round, and prints medians and the
ratios fastmetrics / reference and scikit-learn / fastmetrics. fastmetrics runs on
``--threads`` threads (default 1: the one-pass kernels' goal is one read of the inputs on one
thread; 0 for the default threads). Metrics scikit-learn does not have
(``calibration_summary``, ``expected_calibration_error``, ``regression_summary``) are checked
against the scikit-learn functions they agree with and have no scikit-learn time. Usage::

    python scripts/read_once.py [--rounds 5] [--n 10000000] [--threads 1] [--only NAME ...]

To compare two builds, run it under each tree's PYTHONPATH in turn (alternating runs).
"""

from __future__ import annotations

import argparse
import functools
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

    # one-pass kernels: counting, calibration bins (binary, 10 equal-width bins), regression sums
    y01 = (rng.random(n) < (pb := rng.random(n))).astype(np.int64)
    pred = np.where(rng.random(n) < 0.7, labels, rng.integers(0, k, size=n))
    brier = skm.brier_score_loss(y01, pb)
    yield ("confusion_matrix", lambda f: f(labels, pred), read(labels, pred))
    yield ("calibration_summary", lambda f: f(y01, pb), read(y01, pb),
           lambda got: np.testing.assert_allclose(got.brier, brier, rtol=1e-12))
    yield ("expected_calibration_error", lambda f: f(y01, pb), read(y01, pb),
           lambda got: np.testing.assert_allclose(
               got, fm.calibration_summary(y01, pb).ece, rtol=1e-12))
    yield ("calibration_summary (weighted)", lambda f: f(y01, pb, sample_weight=y),
           read(y01, pb, y), lambda got: np.testing.assert_allclose(
               got.brier, skm.brier_score_loss(y01, pb, sample_weight=y), rtol=1e-12))
    yield "brier_score_loss", lambda f: f(y01, pb), read(y01, pb)
    yield "brier_score_loss (weighted)", lambda f: f(y01, pb, sample_weight=y), read(y01, pb, y)
    r2 = skm.r2_score(y, p)
    yield ("regression_summary", lambda f: f(y, p), read(y, p),
           lambda got: np.testing.assert_allclose(got.r2, r2, rtol=1e-12))
    yield "mean_absolute_error", lambda f: f(y, p), read(y, p)

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
    ap.add_argument("--threads", type=int, default=1,
                    help="fastmetrics' n_threads (0: the default threads)")
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    print(f"fastmetrics {fm.__file__}, n_threads={args.threads or None}")
    print("| metric | fastmetrics | read once | ours / read | scikit-learn | sklearn / ours |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, call, ref, *check in cases(args.n):
        base = name.split(" ")[0]
        if args.only and base not in args.only:
            continue
        if not hasattr(fm, base):
            continue
        ours = functools.partial(getattr(fm, base), n_threads=args.threads or None)
        theirs = getattr(skm, base, None)
        got = call(ours)
        if check:
            check[0](got)
        else:
            np.testing.assert_allclose(got, call(theirs), rtol=1e-9)
        contenders = [("fm", lambda: call(ours)), ("ref", ref)]
        if theirs is not None:
            contenders.append(("sk", lambda: call(theirs)))
        times: dict[str, list[float]] = {key: [] for key, _ in contenders}
        for _ in range(args.rounds):
            for key, f in contenders:
                t0 = time.perf_counter()
                f()
                times[key].append(time.perf_counter() - t0)
        t = {k: float(np.median(v)) * 1e3 for k, v in times.items()}
        sk = (f"{t['sk']:.0f} ms | {t['sk'] / t['fm']:.1f}x" if "sk" in t else "- | -")
        print(f"| `{name}` | {t['fm']:.1f} ms | {t['ref']:.1f} ms | {t['fm'] / t['ref']:.2f} "
              f"| {sk} |", flush=True)


if __name__ == "__main__":
    main()
