# Stubs for the small-call confusion kernel (fastmetrics/_kernels/smallcount.pyx).
import numpy as np
import numpy.typing as npt

SMALL_MAX_N: int
SMALL_MAX_SPAN: int

def small_state(
    y_true: object,  # any object: only two native 1-D integer/bool ndarrays are counted
    y_pred: object,
) -> tuple[npt.NDArray[np.integer], npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None: ...
