"""Language-model scoring from logits: token log-probabilities, sequence log-likelihoods,
perplexity, multiple-choice accuracy and rolling windows over long sequences.

An evaluation harness scores a continuation ``y`` of a prompt ``x`` by
``sum_t log P(y_t | x, y_<t)``, i.e. ``log_softmax(logits)`` gathered at the target ids and
summed. Computed with numpy that means a (B, T, V) array of log-probabilities (500 MB for
4 x 1024 positions over a 32k vocabulary). Here one kernel pass reduces each row of V logits
to the one number needed (a stable log-sum-exp: the row's max, then the sum of
``exp(logit - max)`` from cache), in parallel over the B*T rows, so the extra memory is O(B*T).

Conventions
-----------
* **Alignment.** ``logits[b, t]`` is the model's distribution for ``targets[b, t]``: the
  targets are already shifted. For a causal LM over ``input_ids`` that is
  ``logits[:, :-1]`` with ``targets = input_ids[:, 1:]`` (a view, no copy).
* **Mask.** ``mask[b, t]`` (bool, or 0/1 integers) selects the positions that are scored
  (the continuation tokens); other positions are skipped entirely and their targets are not
  looked at (padding such as -100 is fine there). ``mask=None`` scores every position.
* **dtypes.** float32, float64 and float16 logits are read in place (any strides, read-only
  is fine; float16 is converted element by element in the kernel, never copied; only
  byte-swapped arrays are converted once); all sums are float64. Targets: any integer dtype (int32/int64 read in place).
* **Accuracy.** float32 logits: within 1e-6 relative of the float64 numpy reference
  (the exponential is a float polynomial with relative error < 3e-7, summed in double).
  float16 logits: the values are exact in float32, so the same bound holds against the
  reference over the float16 values upcast; against a reference computed in float16 itself
  expect ~1e-3 (float16's own rounding). float64: ~1e-14 relative.
* **Non-finite logits.** NaN propagates: a NaN anywhere in a selected row, a +inf logit, or a
  row of only -inf gives a NaN log-probability (as the numpy reference does); a -inf target
  logit in an otherwise finite row gives -inf. Nothing is raised.
* **Greedy.** ``is_greedy`` (``sequence_loglik(..., return_greedy=True)``) is True when at
  every selected position the target's logit equals the row maximum (ties count as greedy;
  ``argmax`` would pick the first of tied ids).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from ._kernels import lm as _lm
from ._inputs import native
from ._threads import threads_for

__all__ = [
    "Window",
    "multiple_choice_accuracy",
    "perplexity",
    "rolling_loglik",
    "rolling_windows",
    "sequence_loglik",
    "token_logprobs",
]

_NO_MASK = np.empty((0, 0), dtype=np.uint8)
_NO_MASK.setflags(write=False)


def _check_logits(logits) -> tuple[np.ndarray, bool]:
    """(B, T, V) array the kernel reads, and whether the input was 2-D (one sequence)."""
    a = logits if type(logits) is np.ndarray else np.asarray(logits)
    if a.dtype.kind != "f" or a.dtype.itemsize not in (2, 4, 8):
        raise TypeError(f"logits must be float16, float32 or float64, got dtype {a.dtype}")
    single = a.ndim == 2
    if single:
        a = a[np.newaxis]
    if a.ndim != 3:
        raise ValueError(
            f"logits must have shape (batch, seq_len, vocab) or (seq_len, vocab), got shape "
            f"{np.shape(logits)}"
        )
    if a.shape[2] < 1:
        raise ValueError(f"logits has shape {np.shape(logits)}: the vocabulary axis is empty")
    a = native(a)
    if a.strides[2] % a.itemsize:  # e.g. a field of a packed structured array
        a = np.ascontiguousarray(a)
    if a.dtype.itemsize == 2:
        a = a.view(np.uint16)  # the kernel converts float16 bits itself
    return a, single


def _check_targets(targets, shape: tuple[int, int], single: bool) -> np.ndarray:
    t = targets if type(targets) is np.ndarray else np.asarray(targets)
    if single and t.ndim == 1:
        t = t[np.newaxis]
    if t.shape != shape:
        want = shape[1:] if single else shape
        raise ValueError(
            f"targets must have shape {want} (the logits' leading axes), got {np.shape(targets)}"
        )
    if t.dtype.kind not in "iu":
        raise TypeError(f"targets must hold integer token ids, got dtype {t.dtype}")
    if t.dtype.itemsize not in (4, 8) or t.dtype.kind == "u":  # int32/int64 read in place
        # uint64 ids >= 2**63 wrap to negative ids, which the kernel reports as out of range
        # at selected positions only (masked-out targets are never looked at)
        t = t.astype(np.int64)
    return native(t)


def _check_mask(mask, shape: tuple[int, int], single: bool) -> np.ndarray | None:
    if mask is None:
        return None
    m = mask if type(mask) is np.ndarray else np.asarray(mask)
    if single and m.ndim == 1:
        m = m[np.newaxis]
    if m.shape != shape:
        want = shape[1:] if single else shape
        raise ValueError(f"mask must have shape {want} (like targets), got {np.shape(mask)}")
    if m.dtype.kind == "b":
        return m.view(np.uint8)
    if m.dtype.kind not in "iuf":
        raise TypeError(f"mask must be bool or 0/1 numbers, got dtype {m.dtype}")
    bad = (m != 0) & (m != 1)  # NaN included
    if bad.any():
        v = m[bad][0].item()
        raise ValueError(f"mask must hold only 0/1 (or bool) values, got {v!r}")
    return (m != 0).view(np.uint8)


def _run(logits, targets, mask, n_threads):
    """Validate, run the kernel; returns (logprobs (B, T), greedy (B, T) uint8, mask or
    None, single)."""
    x, single = _check_logits(logits)
    shape = x.shape[:2]
    t = _check_targets(targets, shape, single)
    m = _check_mask(mask, shape, single)
    out = np.empty(shape, dtype=np.float64)
    greedy = np.empty(shape, dtype=np.uint8)
    nt = threads_for("lm", x.size, n_threads)
    if x.shape[0] and x.shape[1]:
        nbad = _lm.token_logprobs(x, t, _NO_MASK if m is None else m, m is not None, out,
                                  greedy, nt)
        if nbad:
            b, i = (int(v[0]) for v in np.nonzero(greedy == 2))
            where = f"[{i}]" if single else f"[{b}, {i}]"
            tv = np.asarray(targets)  # the caller's id (a uint64 >= 2**63 wrapped in t)
            tv = tv[i] if single and tv.ndim == 1 else tv[b, i]
            raise ValueError(
                f"targets{where} = {int(tv)} is not a token id in [0, {x.shape[2]}) "
                f"(vocabulary size {x.shape[2]}); {nbad} selected target(s) out of range"
            )
    return out, greedy, m, single


def token_logprobs(logits, targets, *, mask=None, n_threads=None) -> np.ndarray:
    """Log-probability of each target token: ``log_softmax(logits, -1)`` gathered at
    ``targets``, without forming the (B, T, V) log-softmax.

    Parameters
    ----------
    logits : array-like of shape (B, T, V) or (T, V)
        float16, float32 or float64 scores; ``logits[b, t]`` is the distribution of
        ``targets[b, t]`` (already shifted, see the module notes).
    targets : array-like of int, shape (B, T) or (T,)
        Token ids in ``[0, V)`` at every selected position.
    mask : array-like of bool or 0/1, shape like ``targets``, default=None
        Positions to score; others get 0.0 and their targets are not checked.
    n_threads : int, default=None
        Threads of the kernel: None is what OpenMP allows (``OMP_NUM_THREADS``,
        threadpoolctl limits); calls under 2**22 logits use one whatever is asked. The
        result is the same for any value.

    Returns
    -------
    ndarray of float64, shape like ``targets``

    Raises
    ------
    ValueError
        Wrong shapes, an empty vocabulary axis, or a selected target outside ``[0, V)``.
    TypeError
        Non-float logits, non-integer targets.

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> logits = np.log(np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]], dtype=np.float32))
    >>> np.round(fm.token_logprobs(logits, [0, 2]), 4)
    array([-0.6931, -0.2231])
    """
    out, _, _, single = _run(logits, targets, mask, n_threads)
    return out[0] if single else out


def sequence_loglik(logits, targets, *, mask=None, return_greedy=False, n_threads=None):
    """Log-likelihood of each sequence's continuation: the sum over selected positions of the
    targets' log-probabilities (``LogLik(x, y) = sum_t log P(y_t | x, y_<t)``).

    Parameters
    ----------
    logits : array-like of shape (B, T, V) or (T, V)
        See :func:`token_logprobs`.
    targets : array-like of int, shape (B, T) or (T,)
    mask : array-like of bool or 0/1, shape like ``targets``, default=None
        The continuation tokens (e.g. 0 over the prompt and the padding, 1 over the answer).
        None: every position.
    return_greedy : bool, default=False
        Also return whether each continuation is the greedy one (every selected target is a
        largest logit of its row; ties count).
    n_threads : int, default=None

    Returns
    -------
    loglik : ndarray of float64, shape (B,) (a float for 2-D logits)
        0.0 for a sequence with no selected position.
    is_greedy : ndarray of bool, shape (B,) (a bool for 2-D logits)
        Only with ``return_greedy=True``.

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> logits = np.log(np.array([[[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]]]))
    >>> fm.sequence_loglik(logits, [[1, 0, 1]], mask=[[0, 1, 1]], return_greedy=True)
    (array([-0.32850407]), array([ True]))
    """
    out, greedy, _, single = _run(logits, targets, mask, n_threads)
    ll = out.sum(axis=1)
    if single:
        ll = float(ll[0])
    if not return_greedy:
        return ll
    g = np.all(greedy == 1, axis=1)
    return ll, (bool(g[0]) if single else g)


def perplexity(logits, targets, *, mask=None, n_threads=None) -> float:
    """Perplexity of the selected tokens, pooled over the batch:
    ``exp(-sum(log P(target)) / n_tokens)``.

    Token-weighted (corpus) perplexity: every selected token counts once, whatever sequence
    it is in (not the mean of per-sequence perplexities). A NaN log-probability gives NaN.

    Parameters
    ----------
    logits, targets, mask, n_threads
        As for :func:`sequence_loglik`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When no position is selected (perplexity of zero tokens is undefined).

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> logits = np.zeros((1, 3, 4))           # uniform over 4 tokens
    >>> round(fm.perplexity(logits, [[0, 1, 2]]), 6)
    4.0
    """
    out, _, m, _ = _run(logits, targets, mask, n_threads)
    n = out.size if m is None else int(np.count_nonzero(m))
    if n == 0:
        raise ValueError("perplexity: no token selected (empty input or an all-zero mask)")
    return math.exp(-float(out.sum()) / n)


def multiple_choice_accuracy(loglik, gold, *, lengths=None) -> float:
    """Accuracy of picking, per question, the choice with the highest log-likelihood.

    Parameters
    ----------
    loglik : array-like of float, shape (Q, C)
        Log-likelihood of each of the C choices of each question (e.g. from
        :func:`sequence_loglik`). Questions with fewer choices pad with ``-inf`` (never
        picked). NaN raises.
    gold : array-like of int, shape (Q,)
        Index of the correct choice, in ``[0, C)``.
    lengths : array-like of positive numbers, shape (Q, C), default=None
        Length of each choice (tokens, or characters / bytes as lm-evaluation-harness's
        ``acc_norm`` uses). When given, choices are ranked by ``loglik / lengths``
        (length-normalised accuracy).

    Returns
    -------
    float
        Fraction of questions whose ``argmax`` (first index on ties) is ``gold``.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> ll = [[-1.0, -2.0], [-6.0, -4.0]]
    >>> fm.multiple_choice_accuracy(ll, [0, 0])
    0.5
    >>> fm.multiple_choice_accuracy(ll, [0, 0], lengths=[[1, 1], [4, 1]])   # -1.5 > -4
    1.0
    """
    ll = np.asarray(loglik, dtype=np.float64)
    if ll.ndim != 2 or ll.shape[1] < 1:
        raise ValueError(f"loglik must have shape (n_questions, n_choices), got {ll.shape}")
    if np.isnan(ll).any():
        raise ValueError("loglik contains NaN")
    g = np.asarray(gold)
    if g.shape != (ll.shape[0],):
        raise ValueError(f"gold must have shape ({ll.shape[0]},) (one index per question), "
                         f"got {g.shape}")
    if g.dtype.kind not in "iu":
        raise TypeError(f"gold must hold integer choice indices, got dtype {g.dtype}")
    if g.size and (g.min() < 0 or g.max() >= ll.shape[1]):
        raise ValueError(f"gold holds an index outside [0, {ll.shape[1]})")
    if ll.shape[0] == 0:
        raise ValueError("loglik has no questions")
    if lengths is not None:
        n = np.asarray(lengths, dtype=np.float64)
        if n.shape != ll.shape:
            raise ValueError(f"lengths must have shape {ll.shape} like loglik, got {n.shape}")
        if not (n > 0).all() or not np.isfinite(n).all():
            raise ValueError("lengths must be positive and finite")
        ll = ll / n
    return float(np.mean(np.argmax(ll, axis=1) == g))


class Window(NamedTuple):
    """One rolling window: the model reads tokens ``[start, stop)`` and the tokens
    ``[score_start, stop)`` are scored (the ones before are context only)."""

    start: int
    score_start: int
    stop: int


def _positive_int(v, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {v!r}")
    if v < 1:
        raise ValueError(f"{name} must be >= 1, got {v}")
    return int(v)


def rolling_windows(n_tokens: int, max_length: int, stride: int | None = None) -> Iterator[Window]:
    """Windows of at most ``max_length`` tokens, ``stride`` apart, that together score each of
    the ``n_tokens`` tokens exactly once.

    Window ``k`` ends at ``min(k * stride + max_length, n_tokens)`` and starts
    ``max_length`` before that; it scores the tokens after the previous window's end, so each
    scored token sees at least ``max_length - stride`` tokens of context (except near the
    start of the sequence). ``stride = max_length`` (the default) gives disjoint windows,
    the fastest and least context; smaller strides give more context per token at more
    forward passes. The first token of the sequence has no context: models prepend their
    begin-of-text token for it, as lm-evaluation-harness's rolling log-likelihood does.

    Parameters
    ----------
    n_tokens : int >= 0
    max_length : int >= 1
        The model's context length (tokens read per window).
    stride : int in [1, max_length], default=None (= max_length)

    Yields
    ------
    Window(start, score_start, stop)

    Examples
    --------
    >>> import fastmetrics as fm
    >>> list(fm.rolling_windows(10, 4, stride=3))
    [Window(start=0, score_start=0, stop=4), Window(start=3, score_start=4, stop=7), Window(start=6, score_start=7, stop=10)]
    """
    if isinstance(n_tokens, bool) or not isinstance(n_tokens, numbers.Integral):
        raise TypeError(f"n_tokens must be an int, got {n_tokens!r}")
    if n_tokens < 0:
        raise ValueError(f"n_tokens must be >= 0, got {n_tokens}")
    max_length = _positive_int(max_length, "max_length")
    stride = max_length if stride is None else _positive_int(stride, "stride")
    if stride > max_length:
        raise ValueError(
            f"stride ({stride}) must be <= max_length ({max_length}), or tokens would be skipped"
        )
    return _windows(int(n_tokens), max_length, stride)


def _windows(n: int, max_length: int, stride: int) -> Iterator[Window]:
    scored = 0
    begin = 0
    while scored < n:
        stop = min(begin + max_length, n)
        yield Window(max(0, stop - max_length), scored, stop)
        scored = stop
        begin += stride


def rolling_loglik(tokens, logits_fn: Callable[[np.ndarray], np.ndarray], *, max_length: int,
                   stride: int | None = None, n_threads=None) -> float:
    """Log-likelihood of a long token sequence, scored in :func:`rolling_windows`.

    Parameters
    ----------
    tokens : array-like of int, shape (n,)
    logits_fn : callable
        ``logits_fn(window_tokens) -> logits`` of shape ``(len(window_tokens), V)`` where row
        ``i`` is the distribution of ``window_tokens[i]`` given ``window_tokens[:i]`` (for a
        causal LM: run it on the begin-of-text token followed by ``window_tokens[:-1]``).
    max_length, stride
        As for :func:`rolling_windows`.
    n_threads : int, default=None

    Returns
    -------
    float
        The sum of the log-probabilities of every token, each scored once.

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> uniform = lambda w: np.zeros((len(w), 8))      # every token has probability 1/8
    >>> round(fm.rolling_loglik(np.arange(20) % 8, uniform, max_length=6, stride=4), 6)
    -41.588831
    """
    t = np.asarray(tokens)
    if t.ndim != 1:
        raise ValueError(f"tokens must be 1-D, got shape {t.shape}")
    total = 0.0
    for w in rolling_windows(t.shape[0], max_length, stride):
        seg = t[w.start:w.stop]
        logits = np.asarray(logits_fn(seg))
        if logits.ndim != 2 or logits.shape[0] != seg.shape[0]:
            raise ValueError(
                f"logits_fn returned shape {logits.shape} for a window of {seg.shape[0]} tokens; "
                f"expected ({seg.shape[0]}, vocab)"
            )
        k = w.score_start - w.start  # rows before k are context only
        total += sequence_loglik(logits[k:], seg[k:], n_threads=n_threads)
    return total
