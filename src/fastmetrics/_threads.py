"""Thread-count policy for the OpenMP kernels."""

from __future__ import annotations

import os

from ._kernels.openmp import omp_max_threads, openmp_enabled

__all__ = ["resolve_n_threads", "openmp_enabled", "threads_for"]


def _cpu_count() -> int:
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
        return max(1, min(omp_max_threads(), _cpu_count()))
    if isinstance(n_threads, bool) or not isinstance(n_threads, int):
        raise TypeError(f"n_threads must be a positive int or None, got {n_threads!r}")
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, got {n_threads}")
    return n_threads if openmp_enabled() else 1


def threads_for(n_threads: int | None, n: int, min_n: int) -> int:
    """Threads for one kernel call over ``n`` items: ``n_threads`` is validated whatever
    ``n`` is, and below ``min_n`` items one thread does it all (OpenMP start-up would cost
    more than it saves)."""
    nt = resolve_n_threads(n_threads)
    return nt if n >= min_n else 1
