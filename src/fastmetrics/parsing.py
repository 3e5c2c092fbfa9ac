"""Parse failures: predictions a model's output could not be turned into (``None``, NaN, or a
sentinel), counted and handled by an explicit rule before any metric is computed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._inputs import column

if TYPE_CHECKING:
    from typing import Any
    from ._typing import ArrayLike

__all__ = ["ParsedPredictions", "parse_failures"]


@dataclass(frozen=True)
class ParsedPredictions:
    """The predictions to score, and how many could not be parsed.

    Parameters
    ----------
    y_true, y_pred : ndarray
        What the metrics should see (after the ``policy``).
    n_total : int
        Predictions given.
    n_failures : int
        Predictions that were missing.
    parse_failure_rate : float
        ``n_failures / n_total``.
    n_predictions : int
        Predictions included in the metrics (``n_total - n_failures`` with
        ``policy="exclude"``, ``n_total`` with ``policy="wrong"``).
    keep : ndarray of bool, shape (n_total,)
        The input rows that ``y_true`` and ``y_pred`` hold, in order: the parsed ones with
        ``policy="exclude"``, every row with ``policy="wrong"``. Index the run's other
        per-row arrays (groups, probabilities, latencies) with it, or use :meth:`select`.
    failed : ndarray of bool, shape (n_total,)
        The rows whose prediction failed to parse.

    See Also
    --------
    fastmetrics.parse_failures : What builds it.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> p = fm.parse_failures([0, 1, 1], [0, None, 1])
    >>> p.n_total, p.n_failures, p.failed.tolist()
    (3, 1, [False, True, False])
    """

    y_true: np.ndarray
    y_pred: np.ndarray
    n_total: int
    n_failures: int
    parse_failure_rate: float
    n_predictions: int
    keep: np.ndarray = field(repr=False)
    failed: np.ndarray = field(repr=False)

    def select(self, *arrays: ArrayLike) -> Any:
        """The rows of other per-row arrays that the metrics see (``a[keep]`` for each),
        aligned with ``y_true`` and ``y_pred``: one array for one argument, else a tuple.

        Parameters
        ----------
        *arrays : array-like of shape (n_total,)
            Other per-row arrays of the run (groups, probabilities, latencies...).

        Returns
        -------
        ndarray or tuple of ndarray
            The kept rows of each array.

        Raises
        ------
        TypeError
            If no array is given.
        ValueError
            If an array does not have ``n_total`` rows.

        See Also
        --------
        fastmetrics.group_metrics : A metric per group, with the groups selected here.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> p = fm.parse_failures([0, 1, 1], [0, None, 1])
        >>> p.keep.tolist(), p.select(["web", "app", "web"]).tolist()
        ([True, False, True], ['web', 'web'])
        """
        if not arrays:
            raise TypeError("select needs at least one array")
        out = []
        for i, a in enumerate(arrays):
            arr = a if isinstance(a, np.ndarray) else np.asarray(a)
            if arr.ndim == 0 or arr.shape[0] != self.n_total:
                got = "a scalar" if arr.ndim == 0 else f"{arr.shape[0]} rows"
                raise ValueError(f"array {i} has {got}; the predictions had {self.n_total}")
            out.append(arr[self.keep])
        return out[0] if len(out) == 1 else tuple(out)

    def to_flat_dict(self) -> dict[str, Any]:
        """The reference harness's keys: ``parse_failure_rate``, ``n_predictions`` and
        ``n_failures``.

        Returns
        -------
        dict
            Those keys to their values.

        See Also
        --------
        fastmetrics.run_metrics : A run's metrics, which include these keys.

        Examples
        --------
        >>> import fastmetrics as fm
        >>> fm.parse_failures([0, 1], [0, None]).to_flat_dict()
        {'parse_failure_rate': 0.5, 'n_predictions': 1, 'n_failures': 1}
        """
        return {"parse_failure_rate": self.parse_failure_rate,
                "n_predictions": self.n_predictions, "n_failures": self.n_failures}


def _missing_mask(yp: np.ndarray, missing: object) -> np.ndarray:
    if yp.dtype.kind == "O":
        miss = np.fromiter((v is None or (isinstance(v, float) and v != v) for v in yp.tolist()),
                           dtype=bool, count=yp.shape[0])
    elif yp.dtype.kind in "fc":
        miss = np.isnan(yp)
    else:
        miss = np.zeros(yp.shape[0], dtype=bool)
    if missing is not None:
        miss |= yp == missing
    return miss


def _plain(a: np.ndarray) -> np.ndarray:
    """Parsed values of an object array in a plain dtype (str, int, float), as the metrics
    would read them; values that mix strings with numbers stay object, so that the metrics
    raise their usual mix error instead of comparing ``'1'`` with ``'a'``."""
    if a.dtype.kind != "O" or not a.size:
        return a
    vals = a.tolist()
    conv = np.array(vals)
    if conv.dtype.kind in "US" and not all(isinstance(v, str) for v in vals):
        return a  # np.array turned numbers into strings
    return conv


def parse_failures(y_true: ArrayLike, y_pred: ArrayLike, *, missing: object = None,
                   policy: str = "exclude", fill_label: object = None) -> ParsedPredictions:
    """Count the predictions that failed to parse and apply a rule to them.

    A prediction is a parse failure when it is ``None`` or NaN, or equal to ``missing``
    (a sentinel such as ``-1`` or ``"UNPARSED"``) when that is given.

    Rules (``policy``):

    * ``"exclude"`` (the reference harness's): the failures are dropped; metrics are over the
      parsed predictions only and ``n_predictions`` counts them.
    * ``"wrong"``: every failure counts as a wrong prediction: it is replaced by
      ``fill_label``, which must not occur in ``y_true``; ``n_predictions`` is ``n_total``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True labels and the parsed predictions (``None`` or NaN where parsing failed).
    missing : label, default=None
        A sentinel prediction that also counts as a failure (``-1``, ``"UNPARSED"``).
    policy : {"exclude", "wrong"}, default="exclude"
        The rule for failures (above).
    fill_label : label, default=None
        The label failures become with ``policy="wrong"`` (required there); it must not
        occur in ``y_true``.

    Returns
    -------
    ParsedPredictions
        With the ``keep`` mask of the rows scored (``select(groups, probs)`` aligns the
        run's other per-row arrays with the kept predictions) and the ``failed`` mask.

    Raises
    ------
    ValueError
        An unknown ``policy``, ``y_true`` and ``y_pred`` of different lengths or empty,
        ``policy="wrong"`` without ``fill_label`` or with one that occurs in ``y_true``.

    See Also
    --------
    fastmetrics.score : The report card of the parsed predictions.
    fastmetrics.run_metrics : A run's metrics, with the parse failure rate.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> p = fm.parse_failures(["a", "b", "a", "b"], ["a", None, "a", "a"])
    >>> p.parse_failure_rate, p.n_predictions, fm.accuracy_score(p.y_true, p.y_pred)
    (0.25, 3, 0.6666666666666666)
    >>> p = fm.parse_failures([1, 0, 1], [1, -1, 0], missing=-1, policy="wrong", fill_label=9)
    >>> p.y_pred.tolist(), p.n_predictions
    ([1, 9, 0], 3)
    """
    if policy not in ("exclude", "wrong"):
        raise ValueError(f"policy must be 'exclude' or 'wrong', got {policy!r}")
    yt = column(y_true, "y_true")
    yp = column(y_pred, "y_pred")
    n = yt.shape[0]
    if yp.shape[0] != n:
        raise ValueError(f"y_true and y_pred must have the same length, got {n} and {yp.shape[0]}")
    if n == 0:
        raise ValueError("parse_failures needs at least one prediction")
    miss = _missing_mask(yp, missing)
    n_fail = int(np.count_nonzero(miss))
    if policy == "exclude":
        keep = ~miss
        out_t, out_p = yt[keep], yp[keep]
        n_pred = n - n_fail
    else:
        keep = np.ones(n, dtype=bool)
        if fill_label is None:
            raise ValueError("policy='wrong' needs a fill_label (a label that no sample has)")
        if np.any(yt == fill_label):
            raise ValueError(f"fill_label {fill_label!r} occurs in y_true: it would count as correct")
        out_t = yt
        out_p = yp
        if n_fail:
            fill = np.asarray(fill_label)  # typed: 300 widens int8 predictions, never wraps
            if (fill.dtype.kind in "US") == (yp.dtype.kind in "US") and yp.dtype.kind != "O":
                out_p = np.where(miss, fill, yp)
            else:  # a string fill among numbers (or the reverse), or object predictions
                out_p = yp.astype(object)
                out_p[miss] = fill_label
        n_pred = n
    out_p = _plain(out_p)
    return ParsedPredictions(out_t, out_p, n, n_fail, n_fail / n, n_pred, keep, miss)
