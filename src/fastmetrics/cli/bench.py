"""``fastmetrics bench``: fastmetrics against scikit-learn on this machine, as a markdown table.

Every entry of :data:`CASES` is timed on the same seeded data for both libraries (median of
``repeat`` calls after one untimed warm-up call, whose results are compared: a mismatch is
reported and makes the command exit with status 1). To add a metric family, append a
:class:`Case`.
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, cast

import numpy as np

from .progress import Progress

__all__ = ["CASES", "Case", "run_bench"]

K = 10  # classes in the generated labels


@dataclass(frozen=True)
class Case:
    """One row of the speed table.

    ``make(n, rng)`` returns the arguments (a tuple) both callables take; ``fast`` is
    fastmetrics', ``ref`` the reference (``None`` when its library is not installed),
    ``ref_name`` the reference's library; ``same(a, b)`` decides whether the results agree.
    """

    name: str
    make: Callable[[int, np.random.Generator], tuple[Any, ...]]
    fast: Callable[..., Any]
    ref: Callable[..., Any] | None
    same: Callable[[Any, Any], bool]
    ref_name: str = "scikit-learn"


def _labels(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
    y_true = rng.integers(0, K, n)
    y_pred = np.where(rng.random(n) < 0.8, y_true, rng.integers(0, K, n))
    return y_true, y_pred


def _probabilities(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
    y_prob = rng.random(n)
    return (rng.random(n) < y_prob).astype(np.int64), y_prob


def _values(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
    y_true = rng.normal(size=n)
    return y_true, y_true + rng.normal(scale=0.5, size=n)


def _sample(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
    return (rng.lognormal(size=n),)


def _logits(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
    """n float32 logits as (1, n // 1000, 1000) (at least one row), and their targets."""
    t = max(1, n // 1000)
    logits = rng.standard_normal((1, t, 1000), dtype=np.float32) * 3
    return logits, rng.integers(0, 1000, (1, t))


def _numpy_sequence_loglik(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """log_softmax via logsumexp, then take_along_axis: the (B, T, V) way."""
    m = logits.max(axis=-1, keepdims=True)
    logp = logits - (m + np.log(np.exp(logits - m).sum(axis=-1, keepdims=True)))
    return cast("np.ndarray", np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0].sum(
        axis=-1, dtype=np.float64))


def _grouped(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
    return (*_labels(n, rng), rng.integers(0, 8, n))


def _sklearn_group_f1(skm: Any) -> Callable[..., Any]:
    def run(yt: np.ndarray, yp: np.ndarray, g: np.ndarray) -> dict[int, Any]:
        return {int(k): skm.f1_score(yt[g == k], yp[g == k], average="macro")
                for k in np.unique(g)}

    return run


def _close_float32(a: Any, b: Any) -> bool:
    """float32 inputs: fastmetrics sums in double, numpy in float32."""
    return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-4, atol=0))


def _equal(a: Any, b: Any) -> bool:
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def _close(a: Any, b: Any) -> bool:
    return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=0))


def _sklearn() -> Any:
    try:
        import sklearn.metrics as skm
    except ImportError:
        return None
    return skm


def _cases() -> list[Case]:
    import fastmetrics as fm

    skm = _sklearn()

    def ref(name: str, **kw: Any) -> Callable[..., Any] | None:
        if skm is None:
            return None
        fn = getattr(skm, name)
        return (lambda *a: fn(*a, **kw)) if kw else fn

    return [
        Case("confusion_matrix", _labels, fm.confusion_matrix, ref("confusion_matrix"), _equal),
        Case("accuracy_score", _labels, fm.accuracy_score, ref("accuracy_score"), _close),
        Case("f1_score(average='macro')", _labels,
             lambda yt, yp: fm.f1_score(yt, yp, average="macro"),
             ref("f1_score", average="macro"), _close),
        Case("classification_report", _labels,
             lambda yt, yp: fm.classification_report(yt, yp, output_dict=True),
             ref("classification_report", output_dict=True), _same_report),
        Case("brier_score_loss", _probabilities, fm.brier_score_loss,
             ref("brier_score_loss"), _close),
        Case("mean_squared_error", _values, fm.mean_squared_error,
             ref("mean_squared_error"), _close),
        Case("percentile(q=[50, 95, 99])", _sample, lambda a: fm.percentile(a, [50, 95, 99]),
             lambda a: np.percentile(a, [50, 95, 99]), _equal, "numpy"),
        Case("sequence_loglik (float32 logits, V = 1000)", _logits, fm.sequence_loglik,
             _numpy_sequence_loglik, _close_float32, "numpy"),
        Case("group_metrics(metric='f1_macro'), 8 groups", _grouped,
             lambda yt, yp, g: fm.group_metrics(yt, yp, g, "f1_macro").per_group,
             None if skm is None else _sklearn_group_f1(skm),
             lambda a, b: a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)),
    ]


def _same_report(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a.keys() != b.keys():
        return False
    for k in a:
        va, vb = a[k], b[k]
        if isinstance(va, dict):
            if va.keys() != vb.keys() or not all(_close(va[x], vb[x]) for x in va):
                return False
        elif not _close(va, vb):
            return False
    return True


# The table's rows, in order; other metric families add theirs here (see Case).
CASES: list[Case] = _cases()


def _time(fn: Callable[..., Any], args: tuple[Any, ...], repeat: int, progress: Progress,
          label: str) -> tuple[float, Any]:
    result = fn(*args)  # warm-up, and the result to compare
    progress.step(label)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
        progress.step(label)
    return statistics.median(times), result


def _fmt_time(t: float) -> str:
    if t >= 1.0:
        return f"{t:,.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:,.2f} ms"
    return f"{t * 1e6:,.1f} us"


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (Linux), else what platform knows.

    Examples
    --------
    >>> isinstance(cpu_model(), str)
    True
    """
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def environment() -> str:
    """One line on this machine and the library versions, for the table's header.

    Examples
    --------
    >>> "numpy" in environment()
    True
    """
    import fastmetrics as fm
    from .._threads import cpu_count, resolve_n_threads

    skm = _sklearn()
    sk = "not installed" if skm is None else _version("sklearn")
    omp = f"OpenMP, {resolve_n_threads(None)} threads" if fm.openmp_enabled() else "no OpenMP"
    return (
        f"{cpu_model()} ({cpu_count()} CPUs usable), {platform.system()} "
        f"{platform.machine()}; Python {platform.python_version()}, numpy {np.__version__}, "
        f"fastmetrics {fm.__version__} ({omp}), scikit-learn {sk}"
    )


def _version(module: str) -> str:
    mod = sys.modules.get(module) or __import__(module)
    return str(getattr(mod, "__version__", "?"))


def run_bench(n: int | None = None, quick: bool = False, repeat: int | None = None,
              seed: int = 0, out: Any = None, cases: list[Case] | None = None) -> int:
    """Time ``cases`` (default :data:`CASES`) and print the markdown speed table.

    Parameters
    ----------
    n : int, default=None
        Values per call (default 10^6; 10^5 with ``quick``).
    quick : bool, default=False
        Smaller data and 3 timed calls instead of 7.
    repeat : int, default=None
        Timed calls per entry (the median is reported).
    seed : int, default=0
        Seed of the generated data.
    out : file-like, default=None
        Where the table goes (default: stdout); the progress bar goes to stderr.
    cases : list of Case, default=None
        The rows to time.

    Returns
    -------
    int
        0, or 1 when a result differs from the reference's.

    Examples
    --------
    >>> import io
    >>> case = Case("sum", lambda n, rng: (np.arange(n),), np.sum, np.sum, _equal, "numpy")
    >>> buf = io.StringIO()
    >>> run_bench(n=100, repeat=1, cases=[case], out=buf)
    0
    >>> buf.getvalue().splitlines()[-1].startswith("| sum | ")
    True
    """
    out = out if out is not None else sys.stdout
    n = n if n is not None else (10**5 if quick else 10**6)
    repeat = repeat if repeat is not None else (3 if quick else 7)
    cases = cases if cases is not None else CASES
    progress = Progress(sum((repeat + 1) * (2 if c.ref is not None else 1) for c in cases))
    rows = []
    mismatches = []
    for c in cases:
        args = c.make(n, np.random.default_rng(seed))
        t_fast, r_fast = _time(c.fast, args, repeat, progress, f"{c.name}: fastmetrics")
        if c.ref is None:
            rows.append((c.name, _fmt_time(t_fast), "n/a", "n/a"))
            continue
        t_ref, r_ref = _time(c.ref, args, repeat, progress, f"{c.name}: {c.ref_name}")
        ok = c.same(r_fast, r_ref)
        if not ok:
            mismatches.append(c.name)
        ratio = f"{t_ref / t_fast:,.1f}x" if t_fast > 0 else "inf"
        rows.append((c.name, _fmt_time(t_fast), f"{_fmt_time(t_ref)} ({c.ref_name})",
                     ratio if ok else f"{ratio} (RESULTS DIFFER)"))
    print(f"fastmetrics bench: N = {n:,} values per call (labels: int64, K = {K} classes), "
          f"median of {repeat} calls after one warm-up call", file=out)
    print(environment(), file=out)
    print("", file=out)
    print("| metric | fastmetrics | reference | speed-up |", file=out)
    print("|---|---:|---:|---:|", file=out)
    for r in rows:
        print("| " + " | ".join(r) + " |", file=out)
    if _sklearn() is None:
        print("\nscikit-learn is not installed: only fastmetrics was timed "
              "(pip install scikit-learn to compare).", file=out)
    if mismatches:
        print(f"fastmetrics: error: results differ from the reference for: "
              f"{', '.join(mismatches)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run_bench(quick="--quick" in sys.argv))
