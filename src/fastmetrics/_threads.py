"""Thread policy: how many OpenMP threads one kernel call uses.

One resolver (:func:`threads_for`) and one table (:data:`MIN_PER_CALL`) of per-kernel sizes
below which a second thread costs more (OpenMP start-up, a second table to sum) than it
saves. Every public function with ``n_threads=`` goes through it; results are the same for
any thread count (kernels split their input into lanes that depend on N only).

On a busy machine a second thread is a loss: its share waits for a core, and the call waits
for its share. So the default (``n_threads=None``) counts only the CPUs no other process is
running on (:func:`busy_cpus`), and OpenMP's idle workers spin only briefly after a call
(:data:`WAIT_POLICY_VARS`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["LOAD_HOLD", "LOAD_TTL", "MIN_PER_CALL", "SPIN_COUNT", "WAIT_POLICY_VARS",
           "busy_cpus", "cpu_count", "each", "openmp_enabled", "resolve_n_threads",
           "threads_for"]

#: how OpenMP's idle workers wait, read by the runtime once, when it starts. Unless the user
#: set one of these, fastmetrics starts it with ``GOMP_SPINCOUNT=30000`` (LLVM's runtime
#: ignores it): a worker spins ~1 ms after a parallel region, long enough for back-to-back
#: calls to find it awake (10^6 labels, 2 threads on an idle machine: 0.61x one thread; with
#: ``OMP_WAIT_POLICY=passive`` the wake-up took that gain, 0.98x), short enough not to hold a
#: core long (libgomp's default, 300,000 spins, burns ~8 ms of CPU after every call). On a
#: busy machine the default uses one thread (:func:`busy_cpus`), so no worker spins there.
#: The variable is unset again at once: child processes and OpenMP runtimes loaded later
#: see the user's environment.
WAIT_POLICY_VARS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
SPIN_COUNT = "30000"

_SET_SPIN = not any(v in os.environ for v in WAIT_POLICY_VARS)
if _SET_SPIN:
    os.environ["GOMP_SPINCOUNT"] = SPIN_COUNT
try:
    from ._kernels.openmp import omp_max_threads, openmp_enabled
    omp_max_threads()  # a runtime that starts on first use reads its settings now
finally:
    if _SET_SPIN:
        del os.environ["GOMP_SPINCOUNT"]

#: kernel -> number of items (samples; logits for "lm") below which one thread does it all
MIN_PER_CALL = {
    "confusion": 1 << 18,   # label pairs counted into a K x K table
    "grouped": 1 << 22,     # label pairs counted into a G x K x K table (large tables to sum)
    "bins": 1 << 18,        # calibration binning (the kernel's lanes are this long)
    "sums": 1 << 19,        # regression sums
    "pinball": 1 << 19,     # pinball loss sums (target cells; the kernel's lanes are 2**18)
    "proba": 1 << 18,       # probability rows (the kernel's lanes are this long)
    "ranking": 1 << 17,     # the two sorted runs of a binary problem (one per thread)
    "delong": 1 << 17,      # keys DeLong sorts in one call: two runs (classes or models)
    "labelrank": 1 << 18,   # label-score cells of the multilabel ranking sums
    "lm": 1 << 22,          # logits (~3 ms of work)
    "deviance": 1 << 17,    # Tweedie deviances / squared log errors (a pow or log per value)
    "labels": 1 << 17,      # fixed-width labels hash-encoded (one table per lane, then merged)
    "slices": 1 << 20,      # rows of a grouped pass: groups built and derived on threads
}


def cpu_count() -> int:
    """CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


#: seconds one reading of the machine's load is reused (reading it costs ~5-15 us; a
#: neighbour's load changes over seconds, and a tight loop of calls should not pay it each time)
LOAD_TTL = 0.05
#: seconds the highest load seen is held: the run queue is a snapshot, and neighbours that
#: run in bursts (tests, builds, batched inference) are often caught between two bursts; a
#: second thread started then waits for the next burst to yield the core (on the shared
#: development machine, load 4.5: ``r2_score`` on 10^6 values 2.6x the one-thread time)
LOAD_HOLD = 1.0
_load_time = [-LOAD_TTL]  # time.monotonic() of the last reading
_held_time = [-LOAD_HOLD]  # ... of the reading now held
_held_busy = [0]  # what that reading said
_MACHINE_CPUS = os.cpu_count() or 1  # the machine's, which busy_cpus counts (~13 us to ask)


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 512)
    finally:
        os.close(fd)


def _run_queue() -> int:
    """Tasks running or waiting for a CPU now, machine-wide."""
    return int(_read("/proc/loadavg").split()[3].split(b"/")[0])


def _own_running() -> int:
    """Threads of this process running or waiting for a CPU now (at least the caller): our
    OpenMP workers spin for a while after a parallel region, and are no neighbour."""
    n = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            stat = _read(f"/proc/self/task/{tid}/stat")
            state = stat[stat.rindex(b")") + 2:][:1]  # the field after "(name)"
        except (OSError, ValueError):  # the thread has ended
            continue
        n += state == b"R"
    return max(1, n)


def busy_cpus() -> int:
    """Tasks of other processes running or waiting for a CPU, machine-wide: the most seen
    in the last :data:`LOAD_HOLD` seconds (Linux: the fourth field of ``/proc/loadavg`` less
    this process's running threads, read at most every :data:`LOAD_TTL` seconds); 0 where
    unknown."""
    now = time.monotonic()
    if now - _load_time[0] < LOAD_TTL:
        return _held_busy[0]
    try:
        busy = _run_queue()
        if busy > 1:  # someone besides the caller: our workers, or a neighbour?
            own = _own_running()
            # read again: a worker still spinning now was spinning when counted above
            busy = _run_queue() - own
        else:
            busy = 0
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        busy = 0
    busy = max(0, busy)
    _load_time[0] = now
    if busy >= _held_busy[0] or now - _held_time[0] >= LOAD_HOLD:
        _held_time[0] = now
        _held_busy[0] = busy
    return _held_busy[0]


def resolve_n_threads(n_threads: int | None) -> int:
    """Threads a kernel may use.

    ``None`` means: what OpenMP allows (``OMP_NUM_THREADS``, threadpoolctl limits), capped at
    the CPUs this process may run on and at the CPUs of the machine nobody else is running
    on now (:func:`busy_cpus`; at least 1). An explicit positive int overrides. Always 1 when
    the build has no OpenMP.
    """
    if n_threads is None:
        if not openmp_enabled():
            return 1
        nt = min(omp_max_threads(), cpu_count())
        if nt > 1:
            nt = min(nt, _MACHINE_CPUS - busy_cpus())
        return max(1, nt)
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


def each(fn: Callable[[Any], Any], items: Iterable[Any], n_threads: int) -> list[Any]:
    """``[fn(item) for item in items]``, on ``n_threads`` threads when more than one (the
    first error in item order is raised, as the loop would)."""
    if n_threads <= 1:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(fn, items))
