"""A one-line text progress bar on stderr (``fastmetrics bench`` and batched reports)."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["Progress"]


class Progress:
    """A one-line text progress bar, redrawn in place on a terminal.

    Parameters
    ----------
    total : int
        Units (calls, rows, bytes...) at 100 %.
    stream : file-like, default=None
        Where to draw (default: ``sys.stderr``). Not a terminal: one line per 10 %.
    width : int, default=30
        Characters of the bar.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> p = Progress(4, stream=out, width=8)
    >>> for _ in range(4):
    ...     p.step("rows")
    >>> out.getvalue().splitlines()[-1].rstrip()
    '[########] 100% rows'
    """

    def __init__(self, total: int, stream: Any = None, width: int = 30) -> None:
        self.total = max(1, total)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = -1

    def step(self, label: str, n: int = 1) -> None:
        """Advance by ``n`` units and redraw."""
        self.done = min(self.total, self.done + n)
        filled = self.width * self.done // self.total
        pct = 100 * self.done // self.total
        if not self.tty and pct // 10 == self._last // 10 and self.done < self.total:
            return  # a log file gets a line per 10 %, not per call
        self._last = pct
        bar = "#" * filled + "." * (self.width - filled)
        line = f"[{bar}] {pct:3d}% {label}"
        end = "" if self.tty and self.done < self.total else "\n"
        self.stream.write(("\r" if self.tty else "") + f"{line:<78}" + end)
        self.stream.flush()

    def reach(self, done: int, label: str) -> None:
        """Advance to ``done`` units (never backwards) and redraw."""
        self.step(label, max(0, done - self.done))
