"""Counts past 2**31 elements are exact (64-bit indices and counts everywhere)."""

import numpy as np
import pytest

import fastmetrics as fm


@pytest.mark.slow
def test_more_than_2_pow_31_labels():
    n = 2**31 + 1000
    try:
        y = np.zeros(n, dtype=np.int8)
    except MemoryError:  # pragma: no cover - needs ~2.2 GB
        pytest.fail("the 2**31 test needs about 2.2 GB of free memory")
    y[-3:] = 1
    y[5] = 1
    # one array serves as both y_true and y_pred (shifted views): no second 2 GB buffer
    yt, yp = y[1:], y[:-1]
    cm = fm.confusion_matrix(yt, yp)
    # expected counts from the few positions of ones (pairs are (y[i + 1], y[i]))
    ones = set(np.flatnonzero(y).tolist())
    m = n - 1
    c11 = sum(1 for i in ones if i - 1 in ones and i >= 1)
    c10 = sum(1 for i in ones if i >= 1 and i - 1 not in ones)  # true 1, pred 0
    c01 = sum(1 for i in ones if i + 1 < n and i + 1 not in ones)  # true 0, pred 1
    assert cm.dtype == np.int64
    assert cm.tolist() == [[m - c11 - c10 - c01, c01], [c10, c11]]
    assert cm.sum() == m > 2**31
    assert fm.accuracy_score(yt, yp) == (m - c10 - c01) / m
