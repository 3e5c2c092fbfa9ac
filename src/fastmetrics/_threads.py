"""Thread policy: how many OpenMP threads one kernel call uses.

One resolver (:func:`threads_for`) and one table (:data:`MIN_PER_CALL`) of per-kernel sizes
below which a second thread costs more (OpenMP start-up, a second table to sum) than it
saves. Every public function with ``n_threads=`` goes through it; results are the same for
any thread count (kernels split their input into lanes that depend on N only).
"""

from __future__ import annotations

import os

from ._kernels.openmp import omp_max_threads, openmp_enabled

__all__ = ["MIN_PER_CALL", "cpu_count", "openmp_enabled", "resolve_n_threads", "threads_for"]

#: kernel -> number of items (samples; logits for "lm") below which one thread does it all
MIN_PER_CALL = {
    "confusion": 1 << 18,   # label pairs counted into a K x K table
    "grouped": 1 << 22,     # label pairs counted into a G x K x K table (large tables to sum)
    "bins": 1 << 18,        # calibration binning (the kernel's lanes are this long)
    "sums": 1 << 19,        # regression sums
    "pinball": 1 << 19,     # pinball loss sums (target cells; the kernel's lanes are 2**18)
    "proba": 1 << 18,       # probability rows (the kernel's lanes are this long)
    "ranking": 1 << 17,     # the two sorted runs of a binary problem (one per thread)
    "labelrank": 1 << 18,   # label-score cells of the multilabel ranking sums
    "lm": 1 << 22,          # logits (~3 ms of work)
    "deviance": 1 << 17,    # Tweedie deviances / squared log errors (a pow or log per value)
}


def cpu_count() -> int:
    """CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def resolve_n_threads(n_threads: int | None) -> int:
    """Threads a kernel may use.

    ``None`` means: what OpenMP allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at
    the CPUs this process may run on. An explicit positive int overrides. Always 1 when the
    build has no OpenMP.
    """
    if n_threads is None:
        if not openmp_enabled():
            return 1
        return max(1, min(omp_max_threads(), cpu_count()))
    if isinstance(n_threads, bool) or not isinstance(n_threads, int):
        raise TypeError(f"n_threads must be a positive int or None, got {n_threads!r}")
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, got {n_threads}")
    return n_threads if openmp_enabled() else 1


def threads_for(kernel: str, n: int, n_threads: int | None = None) -> int:
    """Threads for one call of ``kernel`` over ``n`` items: ``n_threads`` is validated
    whatever ``n`` is, and below :data:`MIN_PER_CALL` ``[kernel]`` one thread does it all."""
    if n < MIN_PER_CALL[kernel]:
        if n_threads is not None:
            resolve_n_threads(n_threads)  # validated all the same
        return 1  # without asking OpenMP and the CPU affinity (~2 us): small calls stay cheap
    return resolve_n_threads(n_threads)
