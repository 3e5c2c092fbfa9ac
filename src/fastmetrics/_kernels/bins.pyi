"""Stub for the compiled calibration binning kernels (see bins.pyx).

Real argument types: ``y`` is ``const label_t[:]`` (int8..int64, uint8..uint64; bool viewed
as uint8), ``p`` / ``P`` are ``const prob_t[:]`` / ``const prob_t[:, :]`` (float32/float64),
``w`` is ``const weight_t[:]`` (float32/float64, ignored unless ``has_w``),
``padded_edges`` is ``const double[::1]`` ([-inf, inner edges..., +inf]), ``state`` is
``double[:, ::1]`` of shape (n_bins, 5), ``extra`` ``double[::1]``, ``seen`` ``int64_t[::1]``.
"""

import numpy as np

# the columns of the per-bin state and the kinds of bad input (cpdef enums of bins.pxd)
W: int
SP: int
SY: int
SQ: int
N: int
N_COLS: int
BAD_PROB: int
BAD_WEIGHT: int
BAD_LABEL: int
BAD_GROUP: int

def bin_binary(
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    pos: int,
    pos_ok: bool,
    padded_edges: np.ndarray,
    uniform: bool,
    state: np.ndarray,
    n_threads: int = 1,
) -> tuple[int, int, int, int]: ...
def bin_top_label(
    y: np.ndarray,
    P: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    padded_edges: np.ndarray,
    uniform: bool,
    tol: float,
    state: np.ndarray,
    extra: np.ndarray,
    seen: np.ndarray,
) -> tuple[int, int, int]: ...
def bin_binary_grouped(
    codes: np.ndarray,
    positive: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    padded_edges: np.ndarray,
    uniform: bool,
    state: np.ndarray,
    n_threads: int = 1,
) -> tuple[int, int]: ...
