"""Stub for the compiled regression sums kernel (see sums.pyx).

Real argument types: ``y`` is ``const yt_t[:]``, ``p`` ``const yp_t[:]``, ``w``
``const weight_t[:]`` (each float32 or float64, independently; ``w`` ignored unless
``has_w``), ``state`` / ``a`` ``double[::1]`` of length 13 (for ``sums2d``: ``y`` / ``p``
``const yt_t[:, :]`` / ``const yp_t[:, :]`` of shape (n, m), any strides, and ``state``
``double[:, ::1]`` of shape (m, 13)), ``b`` ``const double[::1]``,
``lo`` / ``hi`` ``const double[::1]``, ``out`` ``double[:, ::1]`` of shape (n_bins, 3).
``grouped_sums`` reads ``codes`` as ``const group_t[:]`` (any integer dtype), ``y`` and ``p``
as ``const double[:]``, and fills ``state`` ``double[:, ::1]`` of shape (n_groups, 13).
"""

import numpy as np

# the slots of the state array and the bits of ``flags`` (cpdef enums of sums.pxd)
W: int
ABS: int
SQ: int
APE: int
HUBER: int
MEAN: int
M2: int
N: int
CONST: int
FIRST: int
MAXABS: int
MEANE: int
M2E: int
N_STATE: int
FLAG_APE: int
FLAG_HUBER: int
FLAG_R2: int
FLAG_MAX: int
FLAG_EV: int

def sums(
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    flags: int,
    delta: float,
    state: np.ndarray,
    n_threads: int = 1,
) -> None: ...
def sums2d(
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    flags: int,
    delta: float,
    state: np.ndarray,
    n_threads: int = 1,
) -> None: ...
def merge(a: np.ndarray, b: np.ndarray) -> None: ...
def merge_rows(a: np.ndarray, b: np.ndarray, rows: np.ndarray) -> None: ...
def grouped_sums(
    codes: np.ndarray,
    n_groups: int,
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    flags: int,
    delta: float,
    state: np.ndarray,
    n_threads: int = 1,
) -> int: ...
def binned_abs_error(
    y: np.ndarray,
    p: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    lo: np.ndarray,
    hi: np.ndarray,
    out: np.ndarray,
) -> None: ...

def ratio_influences(
    seg: np.ndarray,
    y: np.ndarray,
    p: np.ndarray,
    moments: np.ndarray,
    sums: np.ndarray,
    psi: np.ndarray,
    base: np.ndarray,
    has_base: bool,
) -> int: ...
