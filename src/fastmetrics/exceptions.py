"""Warnings and errors shared by every family.

When scikit-learn is installed its classes are used, so that filters and ``pytest.warns`` /
``pytest.raises`` written for scikit-learn apply to fastmetrics unchanged. They are looked up
on first use, not at import: importing scikit-learn costs about a second (it pulls in scipy),
which ``import fastmetrics`` must not pay.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import FrameType
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # the name ``__getattr__`` below gives, for type checkers and linters
    from sklearn.exceptions import UndefinedMetricWarning  # noqa: F401

__all__ = ["UndefinedMetricWarning", "invalid_parameter", "lazy_warning_classes",
           "recording_warnings", "undefined_metric_warning", "warn"]


class _UndefinedMetricWarning(UserWarning):
    """Warning used when a metric is ill-defined (same meaning as scikit-learn's)."""


# without scikit-learn, warnings print under the name scikit-learn's class has
_UndefinedMetricWarning.__name__ = _UndefinedMetricWarning.__qualname__ = "UndefinedMetricWarning"


class _InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type or value (both a ValueError and a TypeError, as
    scikit-learn's ``InvalidParameterError``)."""


@functools.cache
def undefined_metric_warning() -> type[Warning]:
    """The class of the warning for an ill-defined metric: scikit-learn's
    ``UndefinedMetricWarning`` when it is installed (imported on the first call), else
    fastmetrics' own ``UserWarning`` subclass.

    Returns
    -------
    category : type
        scikit-learn's ``UndefinedMetricWarning`` when it is installed (imported on the first
        call), else fastmetrics' own ``UserWarning`` subclass of the same name.

    See Also
    --------
    sklearn.exceptions.UndefinedMetricWarning : scikit-learn's class.
    warn : Emits a warning at the user's line.

    Examples
    --------
    >>> from fastmetrics.exceptions import undefined_metric_warning
    >>> undefined_metric_warning().__name__
    'UndefinedMetricWarning'
    """
    try:
        from sklearn.exceptions import UndefinedMetricWarning
    except ImportError:  # pragma: no cover - sklearn is optional at run time
        return _UndefinedMetricWarning
    return UndefinedMetricWarning


def lazy_warning_classes(module: str) -> Callable[[str], type[Warning]]:
    """A module-level ``__getattr__`` for ``module`` that gives ``UndefinedMetricWarning``
    (scikit-learn's class when installed) when it is first asked for, so that importing the
    module does not import scikit-learn.

    Parameters
    ----------
    module : str
        The name of the module the ``__getattr__`` is for (in its error message).

    Returns
    -------
    lookup : callable
        ``lookup(name) -> type``: the warning class for ``"UndefinedMetricWarning"``,
        ``AttributeError`` for any other name.

    See Also
    --------
    undefined_metric_warning : The class looked up.

    Examples
    --------
    >>> from fastmetrics.exceptions import lazy_warning_classes
    >>> lookup = lazy_warning_classes("mymodule")
    >>> lookup("UndefinedMetricWarning").__name__
    'UndefinedMetricWarning'
    """

    def lookup(name: str) -> type[Warning]:
        if name == "UndefinedMetricWarning":
            return undefined_metric_warning()
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return lookup


__getattr__ = lazy_warning_classes(__name__)


def invalid_parameter(message: str) -> Exception:
    """The error for a parameter of the wrong type: scikit-learn's ``InvalidParameterError``
    when it is installed (imported here, on the error path only), else an error of both
    ``ValueError`` and ``TypeError``.

    Parameters
    ----------
    message : str
        The error message.

    Returns
    -------
    error : Exception
        scikit-learn's ``InvalidParameterError`` when it is installed, else an exception that
        is both a ``ValueError`` and a ``TypeError``; not raised, returned for the caller to
        raise.

    See Also
    --------
    undefined_metric_warning : The other scikit-learn class looked up lazily.

    Examples
    --------
    >>> from fastmetrics.exceptions import invalid_parameter
    >>> err = invalid_parameter("The 'average' parameter must be a str")
    >>> isinstance(err, ValueError) and isinstance(err, TypeError)
    True
    """
    try:
        from sklearn.utils._param_validation import InvalidParameterError
    except ImportError:  # pragma: no cover - sklearn is optional at run time
        return _InvalidParameterError(message)
    return InvalidParameterError(message)


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
# the list that :func:`warn` appends to instead of warning, in a recording_warnings() context
_RECORDER: ContextVar[list[tuple[type[Warning], str]] | None] = ContextVar(
    "fastmetrics_recorded_warnings", default=None)


@contextmanager
def recording_warnings() -> Iterator[list[tuple[type[Warning], str]]]:
    """Keep the warnings fastmetrics raises in this context as ``(category, message)``
    pairs instead of raising them, for the caller to raise elsewhere (a Dask task's, on the
    client). Only this thread's (this task's) context records: unlike
    ``warnings.catch_warnings``, no process-wide state changes, so calls in other threads
    warn as usual.

    Yields
    ------
    list of (type, str)
        The warnings recorded, in order.

    See Also
    --------
    warn : What records into it.

    Examples
    --------
    >>> from fastmetrics.exceptions import recording_warnings, warn
    >>> with recording_warnings() as caught:
    ...     warn("careful")
    >>> caught
    [(<class 'UserWarning'>, 'careful')]
    """
    caught: list[tuple[type[Warning], str]] = []
    token = _RECORDER.set(caught)
    try:
        yield caught
    finally:
        _RECORDER.reset(token)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside fastmetrics.

    However deep in the package the warning is raised, it points at the user's line, so that
    ``-W error`` and warning filters by module see the caller.

    Parameters
    ----------
    message : str
        The warning's text.
    category : type, default=UserWarning
        The warning class.

    See Also
    --------
    warnings.warn : The standard library's function this calls.
    undefined_metric_warning : The class of ill-defined metric warnings.

    Examples
    --------
    >>> import warnings
    >>> from fastmetrics.exceptions import warn
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("careful")
    >>> str(caught[0].message)
    'careful'
    """
    caught = _RECORDER.get()
    if caught is not None:  # inside recording_warnings(): kept for the caller to raise
        caught.append((category, str(message)))
        return
    level = 2
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)

