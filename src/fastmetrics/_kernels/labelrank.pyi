# Stubs for fastmetrics/_kernels/labelrank.pyx. y is ``const label_t[:, :]`` fused over
# int8..int64 and uint8..uint64 (bool as a uint8 view), s ``const score_t[:, :]`` over
# float32 / float64, any strides.
import numpy as np
import numpy.typing as npt

COVERAGE: int
LRAP: int
LOSS: int
WEIGHT: int
N_SUMS: int
BAD_LABEL: int
BAD_SCORE: int
NO_MEMORY: int


def sums(
    y: npt.NDArray[np.integer],
    s: npt.NDArray[np.floating],
    w: npt.NDArray[np.float64],
    has_w: bool,
    out: npt.NDArray[np.float64],  # double[::1] (N_SUMS,), added to
    n_threads: int = 1,
    coverage_only: bool = False,
) -> int: ...
