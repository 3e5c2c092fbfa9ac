"""Whether probability columns follow the labels they are said to: the predicted label of a
row should be its most probable column on most rows.

A probability matrix carries no class names, so its columns are matched to classes by an
order (sorted labels, ``labels=``, a ``classes`` array). Taken in the wrong order (a model's
``predict_proba`` columns follow its ``classes_``, integer-coded, while the labels written
beside them are text that sorts otherwise), every calibration number is wrong and nothing
looks it. The predictions can tell: in the table of (predicted label's column, most probable
column) counts, a model's rows lie on the diagonal; in columns taken in another order they
lie on that order's permutation.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

__all__ = ["ColumnOrder", "agreement_table", "check_column_order", "column_order",
           "one_column_table"]

#: a permutation must agree on this many rows more than the order given before it is
#: believed over it (tiny inputs agree by chance)
MIN_ROWS_MORE = 10


def agreement_table(pred_column: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """The K x K counts of (column that names the row's predicted label, most probable
    column of the row; the first of ties), rows whose predicted label has no column
    (``pred_column`` -1) left out. Tables of batches add up.

    Examples
    --------
    >>> agreement_table(np.array([0, 1, 1, -1]),
    ...                 np.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3], [0.5, 0.5]])).tolist()
    [[1, 0], [1, 1]]
    """
    k = proba.shape[1]
    top = np.argmax(proba, axis=1) if proba.shape[0] else np.zeros(0, dtype=np.intp)
    ok = pred_column >= 0
    counts = np.bincount(pred_column[ok].astype(np.int64) * k + top[ok], minlength=k * k)
    table: np.ndarray = counts.reshape(k, k)
    return table


def one_column_table(is_class: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """:func:`agreement_table` of one probability column, as the two columns (the column's
    class, any other label) of ``prob`` and ``1 - prob``: rows by whether the predicted label
    is the class, columns by whether ``prob`` is at least 0.5 (the first of a tie).

    Examples
    --------
    >>> one_column_table(np.array([True, True, False, False]),
    ...                  np.array([0.9, 0.2, 0.5, 0.1])).tolist()
    [[1, 1], [1, 1]]
    """
    row = (~np.asarray(is_class, dtype=bool)).astype(np.int64)
    top = (np.asarray(prob) < 0.5).astype(np.int64)
    table: np.ndarray = np.bincount(2 * row + top, minlength=4).reshape(2, 2)
    return table


@dataclass(frozen=True)
class ColumnOrder:
    """What an agreement table says of the columns' order.

    Attributes
    ----------
    rows : int
        Rows counted.
    agreement : float
        Share of them whose predicted label is the most probable column (NaN: no row).
    order : tuple of int or None
        ``order[j]``: the class (its place in the order given) whose probabilities column
        ``j`` seems to hold, when another order agrees far more; None otherwise.
    permuted_agreement : float
        The agreement with the columns in ``order`` (``agreement`` when None).
    """

    rows: int
    agreement: float
    order: tuple[int, ...] | None
    permuted_agreement: float


def column_order(table: np.ndarray) -> ColumnOrder:
    """Read an agreement table (:func:`agreement_table`): another order of the columns is
    proposed when the given one agrees on fewer than half the rows and the permutation that
    each predicted class's most frequent top column makes agrees on at least half, twice
    as many, and ``MIN_ROWS_MORE`` rows more.

    Examples
    --------
    >>> column_order(np.array([[0, 40], [35, 2]]))
    ColumnOrder(rows=77, agreement=0.025974025974025976, order=(1, 0), permuted_agreement=0.974025974025974)
    """
    t = np.asarray(table, dtype=np.int64)
    k, n = t.shape[0], int(t.sum())
    same = int(np.trace(t))
    if n == 0:
        return ColumnOrder(0, float("nan"), None, float("nan"))
    agreement = same / n
    if k < 2 or 2 * same >= n:
        return ColumnOrder(n, agreement, None, agreement)
    # predicted class i's rows are most often topped by column to[i]; classes never
    # predicted take the columns left over, in order
    to = np.full(k, -1)
    seen = t.sum(axis=1) > 0
    to[seen] = np.argmax(t[seen], axis=1)
    if np.unique(to[seen]).shape[0] != int(seen.sum()):
        return ColumnOrder(n, agreement, None, agreement)
    to[~seen] = [c for c in range(k) if c not in set(to[seen].tolist())]
    moved = int(t[np.arange(k), to].sum())
    if 2 * moved < n or moved < 2 * same or moved - same < MIN_ROWS_MORE:
        return ColumnOrder(n, agreement, None, agreement)
    order = np.empty(k, dtype=np.int64)
    order[to] = np.arange(k)  # column to[i] holds class i
    return ColumnOrder(n, agreement, tuple(order.tolist()), moved / n)


def check_column_order(table: np.ndarray, classes: Sequence[Any], *, allow: bool = False,
                       fix: str = "", allow_hint: str = "",
                       column: str | None = None) -> ColumnOrder:
    """Raise ``ValueError`` (with ``allow``: warn) when the agreement table says the
    probability columns, taken to hold ``classes`` in this order, hold them in another.
    ``fix`` / ``allow_hint`` say, in the caller's terms, how to give the order or go on.
    ``column``: the table is :func:`one_column_table`'s, of the probability so named, said
    to be that of ``classes[0]``.

    Examples
    --------
    >>> check_column_order(np.array([[0, 40], [35, 2]]), ["benign", "malignant"])
    Traceback (most recent call last):
    ...
    ValueError: the probability columns look out of order: the predicted label is the most probable column on 2.6% of rows, and would be on 97.4% with the columns holding malignant, benign
    """
    verdict = column_order(table)
    if verdict.order is None:
        return verdict
    if column is None:
        likely = ", ".join(str(classes[i]) for i in verdict.order)
        msg = (f"the probability columns look out of order: the predicted label is the most "
               f"probable column on {100 * verdict.agreement:.1f}% of rows, and would be on "
               f"{100 * verdict.permuted_agreement:.1f}% with the columns holding {likely}")
    else:
        msg = (f"the probability {column} does not look like that of label {classes[0]}: the "
               f"predicted label is {classes[0]} exactly where it is at least 0.5 on "
               f"{100 * verdict.agreement:.1f}% of rows, and exactly where it is under 0.5 on "
               f"{100 * verdict.permuted_agreement:.1f}% (the probability of another label?)")
    if allow:
        given = "as given" if column is not None else "in the order given"
        warnings.warn(f"{msg} (reported {given}, as asked)", UserWarning, stacklevel=2)
        return verdict
    tail = "; ".join(h for h in (fix, allow_hint) if h)
    raise ValueError(msg + (f": {tail}" if tail else ""))
