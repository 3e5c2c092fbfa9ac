"""A one-line text progress bar on stderr (``fastmetrics bench`` and batched reports)."""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

__all__ = ["Progress", "rate_text"]


def rate_text(per_s: float, unit: str) -> str:
    """A rate for the bar: ``unit`` per second with a k/M/G prefix (bytes as kB, MB...).

    Examples
    --------
    >>> rate_text(52_400_000, "B"), rate_text(1234.5, "rows"), rate_text(3, "calls")
    ('52.4 MB/s', '1.2k rows/s', '3.0 calls/s')
    """
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")):
        if per_s >= scale:
            break
    if unit == "B":
        return f"{per_s / scale:.1f} {prefix}B/s"
    return f"{per_s / scale:.1f}{prefix} {unit}/s"


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


class Progress:
    """A one-line text progress bar, redrawn in place on a terminal, with the rate and the
    time left (from the rate so far) once there is a rate to show.

    Parameters
    ----------
    total : int
        Units (calls, rows, bytes...) at 100 %.
    stream : file-like, default=None
        Where to draw (default: ``sys.stderr``). Not a terminal: one line per 10 %.
    width : int, default=30
        Characters of the bar.
    unit : str, default="calls"
        What a unit is, for the rate (``"B"``: bytes).
    clock : callable, default=time.monotonic
        Seconds, for the rate (tests pass a fake one).

    Examples
    --------
    >>> import io
    >>> out, now = io.StringIO(), iter(range(100))
    >>> p = Progress(4, stream=out, width=8, clock=lambda: next(now))
    >>> for _ in range(4):
    ...     p.step("rows")
    >>> out.getvalue().splitlines()[-1].rstrip()
    '[########] 100% rows  1.0 calls/s  0:00 left'
    """

    def __init__(self, total: int, stream: Any = None, width: int = 30,
                 unit: str = "calls", clock: Callable[[], float] = time.monotonic) -> None:
        self.total = max(1, total)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.unit = unit
        self.clock = clock
        self.start = clock()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = -1

    def step(self, label: str, n: int = 1) -> None:
        """Advance by ``n`` units and redraw."""
        self.done = min(self.total, self.done + n)
        if self._last == 100:
            return  # the finished bar is drawn once (a reader may reach the end early)
        filled = self.width * self.done // self.total
        pct = 100 * self.done // self.total
        if not self.tty and pct // 10 == self._last // 10 and self.done < self.total:
            return  # a log file gets a line per 10 %, not per call
        self._last = pct
        bar = "#" * filled + "." * (self.width - filled)
        line = f"[{bar}] {pct:3d}% {label}"
        elapsed = self.clock() - self.start
        if elapsed > 0 and self.done:
            rate = self.done / elapsed
            left = (self.total - self.done) / rate
            line += f"  {rate_text(rate, self.unit)}  {_clock(left)} left"
        end = "" if self.tty and self.done < self.total else "\n"
        self.stream.write(("\r" if self.tty else "") + f"{line:<78}" + end)
        self.stream.flush()

    def reach(self, done: int, label: str) -> None:
        """Advance to ``done`` units (never backwards) and redraw."""
        self.step(label, max(0, done - self.done))
