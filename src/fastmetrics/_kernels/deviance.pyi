"""Stub for the compiled deviance kernel (see deviance.pyx).

Real argument types: ``y`` is ``const yt_t[:]``, ``p`` ``const yp_t[:]``, ``w``
``const weight_t[:]`` (each float32 or float64, independently; ``w`` ignored unless
``has_w``), ``state`` / ``a`` ``double[::1]`` of length 10, ``b`` ``const double[::1]``; for
``squared_log``: ``y`` / ``p`` ``const yt_t[:, :]`` / ``const yp_t[:, :]`` of shape (n, m),
any strides, and ``state`` ``double[:, ::1]`` of shape (m, 10); ``grouped_squared_log``
reads ``codes`` as ``const group_t[:]`` (any integer dtype), ``y`` / ``p`` 1-D, and fills
``state`` ``double[:, ::1]`` of shape (n_groups, 10).
"""

import numpy as np

# the slots of the state array, the bits of ``flags`` and the forms of the unit deviance
# (cpdef enums of deviance.pxd)
W: int
N: int
DEV: int
SY: int
T: int
MEAN: int
DM: int
YMIN: int
YMAX: int
BAD: int
N_STATE: int
FLAG_D2: int
FORM_EXTREME: int
FORM_NORMAL: int
FORM_POISSON: int
FORM_COMPOUND: int
FORM_GAMMA: int
FORM_POSITIVE: int

def form_of(power: float) -> int: ...
def tweedie(
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    power: float,
    flags: int,
    state: np.ndarray,
    n_threads: int = 1,
) -> None: ...
def squared_log(
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    state: np.ndarray,
    n_threads: int = 1,
) -> None: ...
def unit(power: float, y: float, mu: float) -> float: ...
def merge(a: np.ndarray, b: np.ndarray, power: float) -> None: ...
def grouped_squared_log(
    codes: np.ndarray,
    y: np.ndarray,
    p: np.ndarray,
    state: np.ndarray,
) -> int: ...
