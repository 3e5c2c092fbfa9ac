"""Stability of a metric across repeated runs (seeds): mean, standard deviation, coefficient
of variation and ``stability_score = max(0, 1 - stddev / mean)``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from ._typing import ArrayLike

__all__ = ["Stability", "stability_summary"]


@dataclass(frozen=True)
class Stability:
    """Summary of one metric over ``n_seeds`` repeated runs."""

    mean: float
    stddev: float
    cv: float
    stability_score: float
    n_seeds: int

    def to_flat_dict(self) -> dict[str, Any]:
        """The reference harness's keys: ``stability_score``, ``stability.mean``, ..."""
        return {"stability_score": self.stability_score, "stability.mean": self.mean,
                "stability.stddev": self.stddev, "stability.cv": self.cv,
                "stability.n_seeds": self.n_seeds}


def stability_summary(values: ArrayLike, *, ddof: int = 0) -> Stability:
    """Mean, standard deviation (``np.std`` with ``ddof``), coefficient of variation
    ``stddev / |mean|`` and ``stability_score = max(0, 1 - cv)`` of a metric's values.

    Conventions: ``mean == 0`` gives ``cv = 0`` and a score of 1 when every value is 0
    (nothing varies), else ``cv = inf`` and a score of 0.

    Parameters
    ----------
    values : array-like of float, shape (n_seeds,)
        The metric from each repeated run.
    ddof : int, default=0
        0: population standard deviation (numpy's default); 1: sample standard deviation.

    Raises
    ------
    ValueError
        Fewer than ``ddof + 1`` values, or NaN/infinite values.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> s = fm.stability_summary([0.8, 0.9, 1.0])
    >>> round(s.mean, 4), round(s.stddev, 4), round(s.cv, 4), round(s.stability_score, 4)
    (0.9, 0.0816, 0.0907, 0.9093)
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError(f"values must be 1-D (one metric value per run), got shape {v.shape}")
    if v.shape[0] < ddof + 1 or v.shape[0] == 0:
        raise ValueError(f"stability needs at least {max(1, ddof + 1)} values, got {v.shape[0]}")
    if not np.isfinite(v).all():
        raise ValueError("values contain NaN or infinity")
    mean = float(np.mean(v))
    sd = float(np.std(v, ddof=ddof))
    if mean == 0.0:
        cv = 0.0 if sd == 0.0 else math.inf
    else:
        cv = sd / abs(mean)
    return Stability(mean, sd, cv, max(0.0, 1.0 - cv), int(v.shape[0]))
