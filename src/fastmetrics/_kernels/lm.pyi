"""Stub for the compiled LM scoring kernel (see lm.pyx).

Real argument types: ``logits`` is ``const logit_t[:, :, :]`` (float32, float64, or the
``uint16`` view of float16 logits; any strides), ``targets`` ``const target_t[:, :]``
(int32 or int64), ``mask`` ``const uint8_t[:, :]`` (ignored unless ``has_mask``), ``out``
``double[:, ::1]`` and ``greedy`` ``uint8_t[:, ::1]`` of shape (B, T).
"""

import numpy as np

def token_logprobs(
    logits: np.ndarray,
    targets: np.ndarray,
    mask: np.ndarray,
    has_mask: bool,
    out: np.ndarray,
    greedy: np.ndarray,
    n_threads: int,
) -> int: ...
def half_to_float(bits: np.ndarray, out: np.ndarray) -> None: ...
def exp_neg(x: np.ndarray, out: np.ndarray, single: bool) -> None: ...
