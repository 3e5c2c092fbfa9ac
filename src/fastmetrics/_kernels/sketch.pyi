# Stubs for the log-bucket quantile sketch kernel (fastmetrics/_sketch.pyx).
# Real argument types: x is const value_t[:] (float32, float64, int32, int64; any stride);
# pos / neg int64_t[::1] stores of equal length; meta int64_t[::1] (7,): pos hi, pos n, neg hi, neg n, zeros, pos lo, neg lo; minmax double[::1] (2,).
import numpy as np
import numpy.typing as npt

def add(
    x: npt.NDArray[np.floating] | npt.NDArray[np.integer],
    inv_log_gamma: float,
    pos: npt.NDArray[np.int64],
    neg: npt.NDArray[np.int64],
    meta: npt.NDArray[np.int64],
    minmax: npt.NDArray[np.float64],
) -> int: ...
