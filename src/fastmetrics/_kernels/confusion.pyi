# Stubs for the compiled confusion-counting kernels (plain and per group) (fastmetrics/_kernels/confusion.pyx).
# Real argument types are typed memoryviews; label arrays are fused over
# int8..int64 and uint8..uint64 (``const label_t[:]``), weights over float32/float64.
import numpy as np
import numpy.typing as npt

# the kinds of bad input count_weighted reports in ``bad[lane, 1]`` (cpdef enum of confusion.pxd)
BAD_TRUE: int
BAD_PRED: int
BAD_WEIGHT: int

def count_weighted(
    y_true: npt.NDArray[np.integer],  # const label_t[:]
    y_pred: npt.NDArray[np.integer],  # const label_t[:]
    sample_weight: npt.NDArray[np.floating],  # const weight_t[:]
    lo: int,
    k: int,
    tables: npt.NDArray[np.float64],  # double[:, ::1] (n_lanes, k * k)
    seen: npt.NDArray[np.int64],  # int64_t[:, ::1] (n_lanes, 2 * k)
    margins: npt.NDArray[np.float64],  # double[:, ::1] (n_lanes, 2 * k) weight sums
    bad: npt.NDArray[np.int64],  # int64_t[:, ::1] (n_lanes, 2)
    n_threads: int,
) -> None: ...
def minmax(a: npt.NDArray[np.integer], stop: int) -> tuple[int, int]: ...
def dense_state(
    y_true: npt.NDArray[np.integer],  # const label_t[:]
    y_pred: npt.NDArray[np.integer],  # const label_t[:]
    max_range: int,
    n_threads: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None: ...
def count_fixed(
    y_true: npt.NDArray[np.integer],  # const label_t[:]
    y_pred: npt.NDArray[np.integer],  # const label_t[:]
    lo: int,
    shift: int,
    allowed: npt.NDArray[np.bool_],  # const npy_bool[::1], 2**shift offsets
    n_threads: int,
) -> npt.NDArray[np.int64] | None: ...

def group_confusion(
    y_true: npt.NDArray[np.integer],  # const label_t[:] (one dtype with y_pred)
    y_pred: npt.NDArray[np.integer],  # const label_t[:]
    groups: npt.NDArray[np.integer],  # const group_t[:] (any integer dtype)
    lo: int,
    k: int,
    glo: int,
    n_groups: int,
    tables: npt.NDArray[np.int64],  # int64_t[:, ::1] (n_lanes, G * K * K)
    n_threads: int,
) -> int: ...
