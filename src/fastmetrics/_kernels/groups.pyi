# Stubs for the group ordering kernels (fastmetrics/_kernels/groups.pyx).
import numpy as np
import numpy.typing as npt

def group_sizes(
    codes: npt.NDArray[np.integer],  # const group_t[:]
    n_groups: int,
    sizes: npt.NDArray[np.int64],  # int64_t[::1] (n_groups,), added to in place
) -> int: ...
def group_order(
    codes: npt.NDArray[np.integer],  # const group_t[:], every code in range
    starts: npt.NDArray[np.int64],  # int64_t[::1] (n_groups,), consumed
    order: npt.NDArray[np.int64],  # int64_t[::1] (n_samples,), written
) -> None: ...
def scatter_rows(
    codes: npt.NDArray[np.integer],  # const group_t[:], every code in range
    starts: npt.NDArray[np.int64],  # int64_t[::1] (n_groups,), consumed
    src: npt.NDArray[np.uint8],  # const unsigned char[:, ::1] (n_samples, row bytes)
    dst: npt.NDArray[np.uint8],  # unsigned char[:, ::1] (n_samples, row bytes), written
) -> None: ...
