"""Stub for the compiled pinball sums kernel (see pinball.pyx).

Real argument types: ``y`` is ``const yt_t[:]``, ``p`` ``const yp_t[:]`` (each float32 or
float64, independently, any stride, a stride of 0 included), ``w`` ``const weight_t[:]``
(float32 or float64; ignored unless ``has_w``), ``state`` ``double[::1]`` of length 4 (for
``sums2d``: ``y`` / ``p`` of shape (n, m), any strides, and ``state`` ``double[:, ::1]`` of
shape (m, 4)). ``grouped_sums`` reads ``codes`` as ``const group_t[:]`` (any integer
dtype) and fills ``state`` ``double[:, ::1]`` of shape (n_groups, 4).
"""

import numpy as np

# the slots of the state array (cpdef enum of pinball.pxd)
W: int
OVER: int
UNDER: int
N: int
N_STATE: int


def sums(
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    state: np.ndarray,
    n_threads: int = 1,
) -> None: ...


def sums2d(
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    state: np.ndarray,
    n_threads: int = 1,
) -> None: ...

def grouped_sums(codes: np.ndarray, y: np.ndarray, p: np.ndarray, state: np.ndarray) -> int: ...
