"""The default thread count on a busy machine, and OpenMP's wait policy.

A second thread only pays when a core is free: the default (``n_threads=None``) leaves out
the CPUs other tasks are running on, an explicit ``n_threads`` is obeyed, and the result is
the same either way. OpenMP's workers spin only briefly after a call (``GOMP_SPINCOUNT``)
unless the user chose a wait policy, and the user's environment is left as it was.
"""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics import _threads
from fastmetrics._threads import (LOAD_HOLD, LOAD_TTL, SPIN_COUNT, WAIT_POLICY_VARS, busy_cpus,
                                  cpu_count, openmp_enabled, resolve_n_threads, threads_for)

needs_openmp = pytest.mark.skipif(not openmp_enabled(), reason="build without OpenMP")


@pytest.fixture
def load(monkeypatch):
    """``load(k)``: pretend k other tasks are running."""
    def set_load(k):
        monkeypatch.setattr(_threads, "busy_cpus", lambda: k)
    return set_load


@needs_openmp
def test_default_uses_free_cpus_only(load):
    machine = os.cpu_count()
    full = resolve_n_threads(None)  # whatever the machine's load is now
    assert 1 <= full <= cpu_count()
    load(0)
    idle = resolve_n_threads(None)
    assert idle >= full
    load(machine - 1)
    assert resolve_n_threads(None) == 1
    load(machine + 5)
    assert resolve_n_threads(None) == 1  # never below one
    load(max(0, machine - idle))
    assert resolve_n_threads(None) == idle  # enough free CPUs: no change
    # an explicit count is obeyed whatever the load, and validated as before
    load(machine + 5)
    assert resolve_n_threads(2) == 2
    assert threads_for("confusion", 1 << 20, 3) == 3
    with pytest.raises(ValueError, match="n_threads"):
        resolve_n_threads(0)


@needs_openmp
def test_same_result_busy_or_idle(load):
    rng = np.random.default_rng(3)
    n = 1 << 20  # above every kernel's threshold
    yt = rng.integers(0, 9, n).astype(np.int32)
    yp = np.where(rng.random(n) < 0.6, yt, rng.integers(0, 9, n)).astype(np.int32)
    y = rng.standard_normal(n)
    p = rng.random(n)
    yb = (rng.random(n) < p).astype(np.int8)

    def results():
        return (fm.confusion_matrix(yt, yp).tolist(), fm.r2_score(y, y + p),
                fm.brier_score_loss(yb, p), fm.roc_auc_score(yb, p))

    load(0)
    idle = results()
    load(os.cpu_count())
    assert results() == idle
    assert idle == (fm.confusion_matrix(yt, yp, n_threads=1).tolist(),
                    fm.r2_score(y, y + p, n_threads=1), fm.brier_score_loss(yb, p, n_threads=1),
                    fm.roc_auc_score(yb, p, n_threads=1))


def test_busy_cpus_reads_the_run_queue_and_holds_its_peak(monkeypatch):
    got = busy_cpus()
    assert isinstance(got, int) and got >= 0
    if not os.path.exists("/proc/loadavg"):
        return

    def run_queue(running):
        line = f"2.00 1.00 0.50 {running}/200 4242\n".encode()
        monkeypatch.setattr(_threads.os, "read", lambda fd, n: line)

    time.sleep(LOAD_HOLD)  # whatever was held has expired
    # "3/200": three tasks running, the caller and two others
    run_queue(3)
    assert busy_cpus() == 2
    # within LOAD_TTL the reading is reused, not read again
    run_queue(1)
    assert busy_cpus() == 2
    # a new, lower reading does not replace the peak within LOAD_HOLD ...
    time.sleep(1.5 * LOAD_TTL)
    assert busy_cpus() == 2
    # ... a higher one does at once
    time.sleep(1.5 * LOAD_TTL)
    run_queue(5)
    assert busy_cpus() == 4
    # and once LOAD_HOLD has passed the machine is idle again
    run_queue(1)
    time.sleep(LOAD_HOLD)
    assert busy_cpus() == 0


def _openmp_settings(env):
    """OMP_WAIT_POLICY / GOMP_SPINCOUNT of the first OpenMP runtime a fresh
    ``import fastmetrics`` loads (fastmetrics' own: its thread policy loads first), and
    what os.environ says afterwards."""
    code = ("import os, fastmetrics; "
            "print('AFTER', os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))")
    full = {k: v for k, v in os.environ.items() if k not in WAIT_POLICY_VARS}
    full.update(env, OMP_DISPLAY_ENV="verbose")
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                         text=True, check=True)
    first = out.stderr.split("OPENMP DISPLAY ENVIRONMENT END")[0]
    settings = {}
    for line in first.splitlines():
        name, _, value = line.strip().partition(" = ")
        if name in WAIT_POLICY_VARS:
            settings[name] = value.strip("'")
    after = out.stdout.split("AFTER ")[1].split()
    return settings, after


@needs_openmp
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="libgomp's OMP_DISPLAY_ENV")
@pytest.mark.parametrize("env, policy, spin", [
    ({}, None, SPIN_COUNT),                                # fastmetrics' default: a short spin
    ({"OMP_WAIT_POLICY": "active"}, "ACTIVE", None),       # the user's choice is kept
    ({"OMP_WAIT_POLICY": "PASSIVE"}, "PASSIVE", "0"),
    ({"GOMP_SPINCOUNT": "1000"}, None, "1000"),
])
def test_wait_policy_unless_the_user_set_one(env, policy, spin):
    settings, after = _openmp_settings(env)
    if not settings:
        pytest.skip("the OpenMP runtime does not display its settings (not libgomp)")
    if policy is not None:
        assert settings["OMP_WAIT_POLICY"] == policy
    if spin is not None:
        assert settings["GOMP_SPINCOUNT"] == spin
    # the environment is the user's again after the import
    assert after == [env.get("OMP_WAIT_POLICY", "None"), env.get("GOMP_SPINCOUNT", "None")]


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="Linux /proc")
def test_own_spinning_workers_are_no_neighbours(monkeypatch):
    tids = sorted(os.listdir("/proc/self/task"))
    running = set(tids[:2])  # the caller and, say, an OpenMP worker spinning after a call

    def fake_read(path):
        if path == "/proc/loadavg":
            return b"3.00 1.00 0.50 3/200 4242\n"  # us two and one other process
        tid = path.split("/")[-2]
        return f"{tid} (python3) {'R' if tid in running else 'S'} 1 2 3".encode()

    time.sleep(LOAD_HOLD)  # whatever was held has expired
    monkeypatch.setattr(_threads, "_read", fake_read)
    assert busy_cpus() == 1
