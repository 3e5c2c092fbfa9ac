# Stubs for the compiled DeLong kernels (fastmetrics/_kernels/delong.pyx).
# Memoryview types: y: const label_t[:] (int8..int64, uint8..uint64), s / sa / sb:
# const score_t[:] (float32/float64, any stride; sa and sb of one dtype), keys / hist:
# uint64 C-contiguous, tags / out: float64 (out of ``placements``: int64).
import numpy as np

def scratch_sizes(n: int) -> tuple[int, int, int]: ...
def variance(y: np.ndarray, pos: int, s: np.ndarray, keys: np.ndarray, hist: np.ndarray,
             out: np.ndarray, n_threads: int = ...) -> int: ...
def placements(y: np.ndarray, pos: int, sa: np.ndarray, sb: np.ndarray, va: np.ndarray,
               vb: np.ndarray, keys: np.ndarray, tags: np.ndarray, hist: np.ndarray,
               out: np.ndarray, n_threads: int = ...) -> None: ...
def paired_sums(y: np.ndarray, pos: int, va: np.ndarray, vb: np.ndarray, auc_a: float,
                auc_b: float, out: np.ndarray) -> None: ...
def centred_in_segments(seg: np.ndarray, s: np.ndarray, positive: np.ndarray,
                        offsets: np.ndarray, thr: np.ndarray, v10: np.ndarray,
                        v01: np.ndarray, auc: np.ndarray, out: np.ndarray,
                        starts: np.ndarray, top: float, scale: float) -> int: ...
