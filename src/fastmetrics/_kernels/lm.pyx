# distutils: sources = csrc/fm_lse.c
# cython: language_level=3
"""Token log-probabilities from logits, one row at a time (``csrc/fm_lse.c``).

``token_logprobs`` reads a (B, T, V) logits array of any strides (float32, float64, or
float16 passed as its raw ``uint16`` view) and a (B, T) array of target ids, and writes for
every selected position ``log_softmax(logits[b, t])[targets[b, t]]`` into ``out[b, t]`` (a
float64 (B, T) array) and whether the target is a largest logit into ``greedy[b, t]``. The
(B, T, V) log-softmax is never formed: each row is read twice (max, then sum of exponentials,
from cache) and reduced to one number, so the extra memory is the O(B*T) output.

Positions where ``mask`` is 0 are skipped (out = 0, greedy = 1) and their targets are not
looked at, so padding ids such as -100 are fine there. A selected target outside [0, V) is
not an error inside the loop: its row gets out = NaN, greedy = 2, and the kernel returns how
many there were, for the Python layer to raise on. Rows are independent, so the result is the
same whatever the number of threads.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t
from libc.math cimport NAN
from cython.parallel cimport prange

cdef extern from "fm_lse.h" nogil:
    double fm_logprob_f32(const float *x, Py_ssize_t st, Py_ssize_t n, Py_ssize_t target,
                          int *is_max)
    double fm_logprob_f64(const double *x, Py_ssize_t st, Py_ssize_t n, Py_ssize_t target,
                          int *is_max)
    double fm_logprob_f16(const uint16_t *x, Py_ssize_t st, Py_ssize_t n, Py_ssize_t target,
                          int *is_max)
    float fm_half_to_float(uint16_t h)
    float fm_exp_neg_f32(float x)
    double fm_exp_neg_f64(double x)

ctypedef fused logit_t:
    float
    double
    uint16_t  # float16 bits

ctypedef fused target_t:
    int32_t
    int64_t


cdef inline double _row(const logit_t* x, Py_ssize_t st, Py_ssize_t n, Py_ssize_t target,
                        uint8_t* greedy) noexcept nogil:
    cdef int g = 0
    cdef double lp
    if logit_t is float:
        lp = fm_logprob_f32(x, st, n, target, &g)
    elif logit_t is double:
        lp = fm_logprob_f64(x, st, n, target, &g)
    else:
        lp = fm_logprob_f16(x, st, n, target, &g)
    greedy[0] = <uint8_t>g
    return lp


def token_logprobs(const logit_t[:, :, :] logits, const target_t[:, :] targets,
                   const uint8_t[:, :] mask, bint has_mask, double[:, ::1] out,
                   uint8_t[:, ::1] greedy, int n_threads):
    """Fill ``out`` and ``greedy`` (both (B, T)); return the number of selected positions
    whose target is outside [0, V) (those rows hold out = NaN, greedy = 2)."""
    cdef Py_ssize_t B = logits.shape[0], T = logits.shape[1], V = logits.shape[2]
    cdef Py_ssize_t st, r, b, t, nbad = 0
    cdef int64_t tg
    if (targets.shape[0] != B or targets.shape[1] != T or out.shape[0] != B
            or out.shape[1] != T or greedy.shape[0] != B or greedy.shape[1] != T
            or (has_mask and (mask.shape[0] != B or mask.shape[1] != T)) or V < 1):
        raise ValueError("token_logprobs: inconsistent shapes")
    if logits.strides[2] % <Py_ssize_t>sizeof(logit_t) != 0:
        raise ValueError("token_logprobs: the last axis stride is not a multiple of the itemsize")
    st = logits.strides[2] // <Py_ssize_t>sizeof(logit_t)
    with nogil:
        for r in prange(B * T, num_threads=n_threads, schedule="dynamic", chunksize=8,
                        use_threads_if=n_threads > 1 and B * T > 1):
            b = r // T
            t = r - b * T
            if has_mask and mask[b, t] == 0:
                out[b, t] = 0.0
                greedy[b, t] = 1
                continue
            tg = <int64_t>targets[b, t]
            if tg < 0 or tg >= V:
                out[b, t] = NAN
                greedy[b, t] = 2
                nbad += 1
                continue
            out[b, t] = _row(&logits[b, t, 0], st, V, <Py_ssize_t>tg, &greedy[b, t])
    return nbad


def half_to_float(const uint16_t[:] bits, float[:] out):
    """Test hook: ``fm_half_to_float`` over an array (compare with numpy's float16)."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(bits.shape[0]):
            out[i] = fm_half_to_float(bits[i])


def exp_neg(const double[:] x, double[:] out, bint single):
    """Test hook: the kernel's exp for x <= 0, in float (``single``) or double."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(x.shape[0]):
            if single:
                out[i] = fm_exp_neg_f32(<float>x[i])
            else:
                out[i] = fm_exp_neg_f64(x[i])
