"""Stub for the compiled per-group confusion kernel (see _groups.pyx).

Real argument types: ``y_true`` / ``y_pred`` are ``const label_t[:]`` (one integer dtype for
both), ``groups`` ``const group_t[:]`` (any integer dtype), ``tables`` ``int64_t[:, ::1]`` of
shape (n_lanes, G * K * K).
"""

import numpy as np

def group_confusion(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    groups: np.ndarray,
    lo: int,
    k: int,
    glo: int,
    n_groups: int,
    tables: np.ndarray,
    n_threads: int,
) -> int: ...
