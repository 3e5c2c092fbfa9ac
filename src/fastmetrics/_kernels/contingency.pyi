# Stubs for the contingency kernels (fastmetrics/_kernels/contingency.pyx).
import numpy as np
import numpy.typing as npt

def count_codes(
    codes_true: npt.NDArray[np.int64],  # const int64_t[:]
    codes_pred: npt.NDArray[np.int64],  # const int64_t[:]
    table: npt.NDArray[np.int64],  # int64_t[:, ::1] (K_true, K_pred), added to
) -> None: ...
def log_gamma(
    x: npt.NDArray[np.float64],  # const double[::1]
    out: npt.NDArray[np.float64],  # double[::1]
) -> None: ...
def expected_mutual_information(
    a: npt.NDArray[np.int64],  # const int64_t[::1] true cluster sizes
    b: npt.NDArray[np.int64],  # const int64_t[::1] predicted cluster sizes
    n: int,
    log_a: npt.NDArray[np.float64],
    log_b: npt.NDArray[np.float64],
    gln_a: npt.NDArray[np.float64],
    gln_b: npt.NDArray[np.float64],
    gln_na: npt.NDArray[np.float64],
    gln_nb: npt.NDArray[np.float64],
    term1: npt.NDArray[np.float64],  # (max(a, b) + 1,) nij / n
    log_nnij: npt.NDArray[np.float64],  # log(n) + log(nij)
    gln_nnij: npt.NDArray[np.float64],  # lgamma(nij + 1) + lgamma(n + 1)
) -> float: ...
