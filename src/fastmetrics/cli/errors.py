"""The command line's one error type: what the user is told, on one line."""

from __future__ import annotations

__all__ = ["CLIError", "first_line"]


class CLIError(Exception):
    """A user-facing error: ``main`` prints ``fastmetrics: error: <message>`` on stderr and
    exits with status 2.

    Examples
    --------
    >>> str(CLIError("no such file: x.csv"))
    'no such file: x.csv'
    """


def first_line(exc: object) -> str:
    """The first line of an exception's message (its type name when it has none).

    Examples
    --------
    >>> first_line(ValueError("bad value\\nmore detail"))
    'bad value'
    >>> first_line(KeyError())
    'KeyError'
    """
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
