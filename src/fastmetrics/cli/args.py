"""argparse value types shared by the commands: counts, confidence levels, column lists."""

from __future__ import annotations

import argparse

__all__ = ["columns", "count", "level"]


def count(text: str) -> int:
    """A whole number >= 1 (``1e6`` too).

    Examples
    --------
    >>> count("1e6"), count("12")
    (1000000, 12)
    """
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v >= 1 or v != int(v) or v > 2**40:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text!r}")
    return int(v)


def level(text: str) -> float:
    """A confidence level in (0, 1) (``--ci``).

    Examples
    --------
    >>> level("0.9")
    0.9
    """
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"a confidence level lies in (0, 1), got {text}")
    return v


def columns(text: str) -> list[str]:
    """A list of columns (``--by``: crossed into one slicing; ``--true``, ``--pred``: the
    multilabel task's label columns).

    Examples
    --------
    >>> columns("country,device")
    ['country', 'device']
    """
    cols = [c.strip() for c in text.split(",")]
    if not text.strip() or any(not c for c in cols):
        raise argparse.ArgumentTypeError(f"wants COL or COL,COL..., got {text!r}")
    if len(set(cols)) != len(cols):
        raise argparse.ArgumentTypeError(f"{text!r} names a column twice")
    return cols
