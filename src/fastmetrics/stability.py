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
    """Summary of one metric over ``n_seeds`` repeated runs.

    Parameters
    ----------
    mean : float
        Mean of the values.
    stddev : float
        Their standard deviation.
    cv : float
        Coefficient of variation ``stddev / |mean|`` (see :func:`stability_summary` for a
        zero mean).
    stability_score : float
        ``max(0, 1 - cv)``, in [0, 1].
    n_seeds : int
        Number of values (runs).

    See Also
    --------
    fastmetrics.stability_summary : What builds it.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.stability_summary([1.0, 1.0]).stability_score
    1.0
    """

    mean: float
    stddev: float
    cv: float
    stability_score: float
    n_seeds: int

    def to_flat_dict(self) -> dict[str, Any]:
        """The reference harness's keys: ``stability_score``, ``stability.mean``, ...

        Returns
        -------
        dict
            ``stability_score`` and ``stability.mean`` / ``stddev`` / ``cv`` / ``n_seeds``.

        See Also
        --------
        fastmetrics.run_metrics : A run's metrics, which include these keys.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.stability_summary([2.0, 2.0]).to_flat_dict()["stability.mean"]
        2.0
        """
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

    Returns
    -------
    Stability
        ``mean``, ``stddev``, ``cv``, ``stability_score`` and ``n_seeds``.

    Raises
    ------
    ValueError
        Fewer than ``ddof + 1`` values, values not 1-D, or NaN/infinite values.

    See Also
    --------
    numpy.std : The standard deviation it takes.
    fastmetrics.bootstrap : A confidence interval from one run's samples instead.

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
