# Stubs for the label encoding kernels (fastmetrics/_kernels/labels.pyx).
from typing import Any

import numpy as np
import numpy.typing as npt

def encode_fixed(
    a: np.ndarray,  # cnp.ndarray, 1-D, any fixed-width dtype (read by its raw item bytes)
    n_threads: int = 1,  # lanes (threads); the codes do not depend on it
) -> tuple[npt.NDArray[np.signedinteger], npt.NDArray[np.int64]]: ...
def encode_offsets(
    offsets: npt.NDArray[np.integer],  # const offset_t[::1] (n + 1,) int32 or int64
    data: npt.NDArray[np.uint8],  # const unsigned char[::1]
    n_threads: int = 1,
) -> tuple[npt.NDArray[np.signedinteger], npt.NDArray[np.int64]]: ...
def encode_str_objects(
    a: np.ndarray,  # cnp.ndarray, 1-D object array
    n_threads: int = 1,
) -> tuple[npt.NDArray[np.signedinteger], npt.NDArray[np.int64]] | int: ...
def code_presence(
    codes: npt.NDArray[np.integer],  # const label_t[:]
    k: int,
    present: npt.NDArray[np.bool_],  # npy_bool[::1] (k + 1,), marked in place
) -> int: ...
def encode_views(
    views: npt.NDArray[np.uint8],  # const unsigned char[::1], 16 bytes per item
    buffers: list[Any],  # the data buffers (buffer protocol), in their order
    n_threads: int = 1,
) -> tuple[npt.NDArray[np.signedinteger], npt.NDArray[np.int64]]: ...
def encode_range(
    a: npt.NDArray[np.integer],  # const label_t[:]
    lo: int,
    hi: int,
    strict: bool = True,
) -> tuple[npt.NDArray[np.signedinteger], npt.NDArray[np.int64]] | None: ...
