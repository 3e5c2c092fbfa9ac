"""Stubs for the compiled selection kernels (``select.pyx``)."""

import numpy as np
import numpy.typing as npt

DEFAULT_CAP: int
WORK_BYTES: int

def select(
    a: npt.NDArray[np.generic],  # const value_t[:] (int8..uint64, float32, float64; any stride)
    ranks: npt.NDArray[np.int64],  # const int64_t[::1], strictly increasing, in [0, len(a))
    out: npt.NDArray[np.generic],  # value_t[::1], same dtype as a, len(ranks)
    cap: int = ...,
) -> int: ...
def latency_summary(
    a: npt.NDArray[np.int64] | npt.NDArray[np.float64],  # const sample_t[:] (int64 or float64)
) -> tuple[float, float, float, float, float, float] | None: ...
def nth_u64(a: npt.NDArray[np.uint64], k: int) -> None: ...  # uint64_t[::1], in place
