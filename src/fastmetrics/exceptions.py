"""Warnings and errors shared by every family.

When scikit-learn is installed its classes are used, so that filters and ``pytest.warns`` /
``pytest.raises`` written for scikit-learn apply to fastmetrics unchanged.
"""

from __future__ import annotations

import os
import sys
import warnings
from types import FrameType

__all__ = ["UndefinedMetricWarning", "invalid_parameter", "warn"]

try:  # share scikit-learn's warning class when it is installed
    from sklearn.exceptions import UndefinedMetricWarning
except ImportError:  # pragma: no cover - sklearn is optional at run time

    # the fallback binds the name the import above would have: one name, two definitions
    class UndefinedMetricWarning(UserWarning):  # type: ignore[no-redef]
        """Warning used when a metric is ill-defined (same meaning as scikit-learn's)."""


class _InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type or value (both a ValueError and a TypeError, as
    scikit-learn's ``InvalidParameterError``)."""


def invalid_parameter(message: str) -> Exception:
    """The error for a parameter of the wrong type: scikit-learn's ``InvalidParameterError``
    when it is installed (imported here, on the error path only), else an error of both
    ``ValueError`` and ``TypeError``."""
    try:
        from sklearn.utils._param_validation import InvalidParameterError
    except ImportError:  # pragma: no cover - sklearn is optional at run time
        return _InvalidParameterError(message)
    return InvalidParameterError(message)


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside fastmetrics (the user's
    line), however deep in the package the warning is raised."""
    level = 2
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
