# Stubs for the log-bucket quantile sketch kernel (fastmetrics/_kernels/sketch.pyx).
# Real argument types: x is const value_t[:] (float32, float64, int32, int64; any stride);
# pos / neg int64_t[::1] stores of equal length; meta int64_t[::1] (N_META,), slots POS_HI ... NEG_LO of sketch.pxd; minmax double[::1] (2,).
import numpy as np
import numpy.typing as npt

# the meta slots (cpdef enum of sketch.pxd)
POS_HI: int
POS_N: int
NEG_HI: int
NEG_N: int
ZEROS: int
POS_LO: int
NEG_LO: int
N_META: int

def add(
    x: npt.NDArray[np.floating] | npt.NDArray[np.integer],
    inv_log_gamma: float,
    pos: npt.NDArray[np.int64],
    neg: npt.NDArray[np.int64],
    meta: npt.NDArray[np.int64],
    minmax: npt.NDArray[np.float64],
) -> int: ...
