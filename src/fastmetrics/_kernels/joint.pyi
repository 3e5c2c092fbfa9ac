# Stubs for the joint-count kernel (fastmetrics/_kernels/joint.pyx).
import numpy as np
import numpy.typing as npt

def count_triples(
    t: npt.NDArray[np.integer],  # const label_t[:] true labels
    a: npt.NDArray[np.integer],  # const label_t[:] model A's labels (same dtype)
    b: npt.NDArray[np.integer],  # const label_t[:] model B's labels (same dtype)
    lo: int,
    k: int,
    out: npt.NDArray[np.int64],  # int64_t[::1] (k**3,), added to
) -> int: ...

def count_grouped_triples(
    codes: npt.NDArray[np.integer],  # const group_t[:] each row's group
    n_groups: int,
    t: npt.NDArray[np.integer],  # const label_t[:] true labels
    a: npt.NDArray[np.integer],  # const label_t[:] model A's labels (same dtype)
    b: npt.NDArray[np.integer],  # const label_t[:] model B's labels (same dtype)
    lo: int,
    k: int,
    out: npt.NDArray[np.int64],  # int64_t[::1] (n_groups * k**3,), added to
) -> int: ...
