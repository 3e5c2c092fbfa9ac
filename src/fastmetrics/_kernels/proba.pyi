"""Stub for the compiled probability scores kernel (see proba.pyx).

Real argument types: ``P`` is ``const prob_t[:, :]`` (float32 or float64, any strides),
``y`` ``const label_t[:]`` (any integer dtype), ``lut`` ``const int64_t[::1]``, ``w``
``const weight_t[:]`` (float32 or float64; ignored unless ``has_w``), ``sums`` and
``class_w`` ``double[::1]``, ``seen`` ``unsigned char[::1]``; ``indicator``'s ``Y``
``const label_t[:, :]``; ``hinge``'s ``D`` ``const prob_t[:, :]``, ``sign``
``const signed char[::1]`` and ``cls`` ``double[:, ::1]`` (3, K); ``grouped_scores``'
``codes`` ``const int64_t[:]`` and ``sums`` / ``class_w`` / ``class_n`` ``double[:, ::1]``.
"""

import numpy as np

# the slots of the sums array (cpdef enum of proba.pxd)
W: int
LOSS: int
N: int
UNNORMED: int
NAN: int
HITS: int
HITS0: int
MAXP: int
MINP: int
N_SUMS: int

def scores(
    P: np.ndarray,
    binary: bool,
    y: np.ndarray,
    lo: int,
    lut: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    tol: float,
    sums: np.ndarray,
    class_w: np.ndarray,
    k: int = 0,
    n_threads: int = 1,
) -> int: ...
def grouped_scores(
    codes: np.ndarray,
    n_groups: int,
    P: np.ndarray,
    binary: bool,
    y: np.ndarray,
    lo: int,
    lut: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    tol: float,
    sums: np.ndarray,
    class_w: np.ndarray,
    class_n: np.ndarray,
    n_threads: int = 1,
) -> int: ...
def present(y: np.ndarray, lo: int, seen: np.ndarray) -> None: ...
def indicator(
    P: np.ndarray,
    Y: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    tol: float,
    sums: np.ndarray,
    class_w: np.ndarray,
    n_threads: int = 1,
) -> None: ...
def hinge(
    D: np.ndarray,
    binary: bool,
    y: np.ndarray,
    lo: int,
    lut: np.ndarray,
    sign: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    sums: np.ndarray,
    cls: np.ndarray,
    n_threads: int = 1,
) -> int: ...
