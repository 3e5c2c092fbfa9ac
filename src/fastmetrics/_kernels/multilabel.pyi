# Stubs for fastmetrics/_kernels/multilabel.pyx. y_true / y_pred are ``const label_t[:, :]`` fused over
# int8..int64 and uint8..uint64; weights ``const double[:]``.
import numpy as np
import numpy.typing as npt

def count(
    y_true: npt.NDArray[np.integer],
    y_pred: npt.NDArray[np.integer],
    weights: npt.NDArray[np.float64],
    weighted: bool,
    icols: npt.NDArray[np.int64],  # int64_t[:, ::1] (3, L): tp, pred, true
    fcols: npt.NDArray[np.float64],  # double[:, ::1] (3, L)
    profile: npt.NDArray[np.int64],  # int64_t[::1] (n,) per-row profile codes, or (0,): none
) -> tuple[int, int, int | float]: ...
