# Stubs for the compiled ranking kernels (fastmetrics/_kernels/ranking.pyx).
# Memoryview types: y: const label_t[:, :] (int8..int64, uint8..uint64),
# s: const score_t[:, :] (float32/float64), w: const weight_t[:] (float32/float64),
# out: double[:, ::1], bad: int64_t[::1]; scratch: (uint64[::1] keys, uint64[::1] tmp,
# float64[::1] w, float64[::1] wtmp, uint64[::1] hist).
from typing import Any

import numpy as np

# the statistics row's columns and the kinds of bad input (cpdef enums of ranking.pxd)
NPOS: int
NNEG: int
P: int
N: int
AUC2: int
AP: int
NTHR: int
N_STATS: int
BAD_SCORE: int
BAD_WEIGHT: int

def hist_size(n: int) -> int: ...
def binary_stats(y: np.ndarray, s: np.ndarray, w: np.ndarray, has_w: bool, ycol: np.ndarray,
                 scol: np.ndarray, pos: np.ndarray, neg: np.ndarray, neg_any: bool,
                 out: np.ndarray, bad: np.ndarray, scratch: tuple[Any, ...],
                 n_threads: int = ...) -> int: ...
def binary_summary(y: np.ndarray, s: np.ndarray, w: np.ndarray, has_w: bool, pos: int,
                   stats: np.ndarray, thr: np.ndarray, out_p: np.ndarray, out_q: np.ndarray,
                   bad: np.ndarray, scratch: tuple[Any, ...], n_threads: int = ...) -> int: ...
def grouped_summaries(
    positive: np.ndarray,
    s: np.ndarray,
    w: np.ndarray,
    has_w: bool,
    offsets: np.ndarray,
    thr: np.ndarray,
    out_p: np.ndarray,
    out_q: np.ndarray,
    stats: np.ndarray,
    m_out: np.ndarray,
    bad: np.ndarray,
    n_threads: int = 1,
) -> int: ...
def summary_stats(p: np.ndarray, q: np.ndarray, stats: np.ndarray) -> None: ...
def label_scan(y: np.ndarray) -> tuple[int, int, int]: ...

LSD_FROM: int
LSD_UNTIL: int
SMALL: int

def _py_sort_keys(
    keys: np.ndarray, w: np.ndarray | None = ...
) -> tuple[np.ndarray, np.ndarray | None]: ...  # keys: const uint64_t[::1]

def binary_plain(
    y: object, s: object, mode: int, scratch: tuple[Any, ...] | None = ..., n_threads: int = ...
) -> float | None: ...

def merge_tree(thresholds: list[np.ndarray], weights: list[np.ndarray], rows: np.ndarray,
               out_thr: np.ndarray, out_w: np.ndarray) -> int: ...
def merge_each(thresholds: list[np.ndarray], weights: list[np.ndarray], first: np.ndarray,
               ks: np.ndarray, out_thr: np.ndarray, out_w: np.ndarray, out_n: np.ndarray,
               n_threads: int = ...) -> int: ...
def merge_runs(ta: np.ndarray, wa: np.ndarray, ra: np.ndarray, tb: np.ndarray, wb: np.ndarray,
               rb: np.ndarray, out_thr: np.ndarray, out_w: np.ndarray) -> int: ...
