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
from typing import TYPE_CHECKING, NamedTuple, cast, overload

import numpy as np

from ._kernels import lm as _lm
from ._inputs import native
from ._threads import threads_for


if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Literal
    from ._typing import ArrayLike, FloatArray, NDArray

__all__ = [
    "ContinuationBatch",
    "Window",
    "continuation_batch",
    "multiple_choice_accuracy",
    "perplexity",
    "rolling_loglik",
    "rolling_windows",
    "sequence_loglik",
    "token_logprobs",
]

_NO_MASK = np.empty((0, 0), dtype=np.uint8)
_NO_MASK.setflags(write=False)


def _check_logits(logits: ArrayLike) -> tuple[np.ndarray, bool]:
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


def _check_targets(targets: ArrayLike, shape: tuple[int, int], single: bool) -> np.ndarray:
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


def _check_mask(mask: ArrayLike | None, shape: tuple[int, int],
                single: bool) -> np.ndarray | None:
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
    return cast("np.ndarray", (m != 0).view(np.uint8))


def _run(logits: ArrayLike, targets: ArrayLike, mask: ArrayLike | None,
         n_threads: int | None) -> tuple[FloatArray, NDArray[np.uint8], np.ndarray | None, bool]:
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


def token_logprobs(logits: ArrayLike, targets: ArrayLike, *, mask: ArrayLike | None = None,
                   n_threads: int | None = None) -> np.ndarray:
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
        The log-probability of each target (0.0 where ``mask`` is 0).

    Raises
    ------
    ValueError
        Wrong shapes, an empty vocabulary axis, or a selected target outside ``[0, V)``.
    TypeError
        Non-float logits, non-integer targets.

    See Also
    --------
    fastmetrics.sequence_loglik : Their sum over each sequence.
    fastmetrics.perplexity : The perplexity of the selected tokens.

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


@overload
def sequence_loglik(logits: ArrayLike, targets: ArrayLike, *, mask: ArrayLike | None = ...,
                    return_greedy: Literal[False] = ...,
                    n_threads: int | None = ...) -> float | FloatArray: ...


@overload
def sequence_loglik(logits: ArrayLike, targets: ArrayLike, *, mask: ArrayLike | None = ...,
                    return_greedy: Literal[True],
                    n_threads: int | None = ...
                   ) -> tuple[float | FloatArray, bool | NDArray[np.bool_]]: ...


def sequence_loglik(logits: ArrayLike, targets: ArrayLike, *, mask: ArrayLike | None = None,
                    return_greedy: bool = False,
                    n_threads: int | None = None
                   ) -> float | FloatArray | tuple[float | FloatArray, bool | NDArray[np.bool_]]:
    """Log-likelihood of each sequence's continuation: the sum over selected positions of the
    targets' log-probabilities (``LogLik(x, y) = sum_t log P(y_t | x, y_<t)``).

    Parameters
    ----------
    logits : array-like of shape (B, T, V) or (T, V)
        See :func:`token_logprobs`.
    targets : array-like of int, shape (B, T) or (T,)
        Token ids in ``[0, V)`` at every selected position.
    mask : array-like of bool or 0/1, shape like ``targets``, default=None
        The continuation tokens (e.g. 0 over the prompt and the padding, 1 over the answer).
        None: every position.
    return_greedy : bool, default=False
        Also return whether each continuation is the greedy one (every selected target is a
        largest logit of its row; ties count).
    n_threads : int or None, default=None
        Threads of the kernel, as for :func:`token_logprobs` (None: what OpenMP allows);
        the result is the same for any value.

    Returns
    -------
    loglik : ndarray of float64, shape (B,) (a float for 2-D logits)
        0.0 for a sequence with no selected position.
    is_greedy : ndarray of bool, shape (B,) (a bool for 2-D logits)
        Only with ``return_greedy=True``.

    Raises
    ------
    ValueError
        Wrong shapes, an empty vocabulary axis, or a selected target outside ``[0, V)``.
    TypeError
        Non-float logits, non-integer targets.

    See Also
    --------
    fastmetrics.token_logprobs : The per-token log-probabilities.
    fastmetrics.continuation_batch : Build the inputs, targets and mask of a batch.
    fastmetrics.multiple_choice_accuracy : Accuracy from the choices' log-likelihoods.

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
        return cast("float | FloatArray", ll)
    g = np.all(greedy == 1, axis=1)
    return ll, (bool(g[0]) if single else g)


def perplexity(logits: ArrayLike, targets: ArrayLike, *, mask: ArrayLike | None = None,
               n_threads: int | None = None) -> float:
    """Perplexity of the selected tokens, pooled over the batch:
    ``exp(-sum(log P(target)) / n_tokens)``.

    Token-weighted (corpus) perplexity: every selected token counts once, whatever sequence
    it is in (not the mean of per-sequence perplexities). A NaN log-probability gives NaN.

    Parameters
    ----------
    logits : array-like of shape (B, T, V) or (T, V)
        float16, float32 or float64 scores, as for :func:`token_logprobs`.
    targets : array-like of int, shape (B, T) or (T,)
        Token ids in ``[0, V)`` at every selected position.
    mask : array-like of bool or 0/1, shape like ``targets``, default=None
        The tokens to score; None: every position.
    n_threads : int or None, default=None
        Threads of the kernel, as for :func:`token_logprobs` (None: what OpenMP allows);
        the result is the same for any value.

    Returns
    -------
    float
        ``exp`` of the mean negative log-probability of the selected tokens.

    Raises
    ------
    ValueError
        When no position is selected (perplexity of zero tokens is undefined), and as
        :func:`token_logprobs` for its inputs.
    TypeError
        Non-float logits, non-integer targets.

    See Also
    --------
    fastmetrics.sequence_loglik : The log-likelihood of each sequence.
    fastmetrics.rolling_loglik : The log-likelihood of a sequence longer than the context.

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


@overload
def multiple_choice_accuracy(loglik: ArrayLike, gold: ArrayLike, *,
                             lengths: ArrayLike | None = ..., return_stderr: Literal[False] = ...,
                             ddof: int = ...) -> float: ...


@overload
def multiple_choice_accuracy(loglik: ArrayLike, gold: ArrayLike, *,
                             lengths: ArrayLike | None = ..., return_stderr: Literal[True],
                             ddof: int = ...) -> tuple[float, float]: ...


def multiple_choice_accuracy(loglik: ArrayLike, gold: ArrayLike, *,
                             lengths: ArrayLike | None = None, return_stderr: bool = False,
                             ddof: int = 0) -> float | tuple[float, float]:
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
    return_stderr : bool, default=False
        Also return the standard error of the accuracy (of ``acc``, or of ``acc_norm`` when
        ``lengths`` is given): the binomial ``sqrt(p * (1 - p) / (n - ddof))`` over the
        ``n`` questions, i.e. the standard deviation of the 0/1 per-question scores divided
        by ``sqrt(n)``.
    ddof : {0, 1}, default=0
        0: the binomial ``sqrt(p(1-p)/n)``. 1: ``sqrt(p(1-p)/(n-1))``, the sample standard
        deviation that lm-evaluation-harness's ``acc_stderr`` / ``acc_norm_stderr`` use
        (NaN for one question).

    Returns
    -------
    accuracy : float
        Fraction of questions whose ``argmax`` (first index on ties) is ``gold``.
    stderr : float
        Only with ``return_stderr=True``.

    Raises
    ------
    ValueError
        ``loglik`` not 2-D, empty or holding NaN; ``gold`` of the wrong shape or with an
        index outside ``[0, C)``; ``lengths`` of the wrong shape or not positive and
        finite; ``ddof`` not 0 or 1.
    TypeError
        ``gold`` not integers.

    See Also
    --------
    fastmetrics.sequence_loglik : The log-likelihood of each choice.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> ll = [[-1.0, -2.0], [-6.0, -4.0]]
    >>> fm.multiple_choice_accuracy(ll, [0, 0])
    0.5
    >>> fm.multiple_choice_accuracy(ll, [0, 0], lengths=[[1, 1], [4, 1]])   # -1.5 > -4
    1.0
    >>> fm.multiple_choice_accuracy(ll, [0, 0], return_stderr=True)   # sqrt(0.5 * 0.5 / 2)
    (0.5, 0.3535533905932738)
    """
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
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
    n_right = int(np.count_nonzero(np.argmax(ll, axis=1) == g))
    q: int = ll.shape[0]
    acc = n_right / q
    if not return_stderr:
        return acc
    se = math.sqrt(acc * (1.0 - acc) / (q - ddof)) if q > ddof else math.nan
    return acc, se


class ContinuationBatch(NamedTuple):
    """A padded batch of (context, continuation) pairs for a causal LM; see
    :func:`continuation_batch`.

    Parameters
    ----------
    input_ids : ndarray of int64, shape (B, L)
        The model's input tokens, padded.
    attention_mask : ndarray of bool, shape (B, L)
        True over each row's tokens.
    targets : ndarray of int64, shape (B, L)
        The next token of every input position.
    mask : ndarray of bool, shape (B, L)
        True at the continuation's positions in ``targets``.
    n_truncated : ndarray of int64, shape (B,)
        Context tokens dropped from the left of each row.

    See Also
    --------
    fastmetrics.continuation_batch : What builds it.
    fastmetrics.sequence_loglik : What scores it.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> b = fm.continuation_batch([([1, 2], [3])], max_length=4)
    >>> b.input_ids.tolist(), b.targets.tolist(), b.mask.tolist()
    ([[1, 2]], [[2, 3]], [[False, True]])
    """

    input_ids: np.ndarray
    attention_mask: np.ndarray
    targets: np.ndarray
    mask: np.ndarray
    n_truncated: np.ndarray


def _token_ids(seq: ArrayLike, what: str) -> np.ndarray:
    a = np.asarray(seq)
    if a.ndim != 1:
        raise ValueError(f"{what} must be a 1-D sequence of token ids, got shape {a.shape}")
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what} must hold integer token ids, got dtype {a.dtype}")
    if a.dtype.kind == "i" and a.min() < 0:
        raise ValueError(f"{what} holds a negative token id ({int(a.min())})")
    if a.dtype == np.uint64 and a.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{what} holds a token id above 2**63 - 1 ({int(a.max())})")
    return a.astype(np.int64)


def continuation_batch(pairs: Iterable[tuple[Sequence[int], Sequence[int]]], *, max_length: int,
                       pad_id: int = 0, prefix_id: int | None = None,
                       padding_side: str = "right") -> ContinuationBatch:
    """Build the model input, shifted targets and continuation mask for a batch of
    (context, continuation) token pairs, as lm-evaluation-harness's log-likelihood requests.

    For each pair the model reads ``(context + continuation)[:-1]``, left-truncated to its
    last ``max_length`` tokens (the continuation is what is scored, so the start of the
    context is dropped first), and ``targets`` holds the next token of every input position
    (``(context + continuation)[1:]``, truncated alike), so that ``logits = model(input_ids)``
    lines up with ``targets`` as :func:`sequence_loglik` expects::

        b = fm.continuation_batch(pairs, max_length=2048)
        ll = fm.sequence_loglik(model(b.input_ids, b.attention_mask), b.targets, mask=b.mask)

    Parameters
    ----------
    pairs : sequence of (context, continuation)
        Token ids (1-D sequences of non-negative ints). A continuation must have between 1
        and ``max_length`` tokens (every continuation token needs a preceding token inside
        the window).
    max_length : int >= 1
        The model's context length: tokens per input row.
    pad_id : int, default=0
        Fills ``input_ids`` and ``targets`` outside each pair's tokens (never scored).
    prefix_id : int, default=None
        The begin-of-text (or end-of-text) token that stands in for an empty context, as
        lm-evaluation-harness does; an empty context without it raises ``ValueError``, since
        the first continuation token would have nothing to be predicted from.
    padding_side : {"right", "left"}, default="right"
        Where the padding of shorter rows goes (causal models usually take right padding;
        left padding keeps every row's last token in the last column).

    Returns
    -------
    ContinuationBatch
        ``input_ids`` (B, L) int64 with ``L`` the longest row (at most ``max_length``);
        ``attention_mask`` (B, L) bool, True over each row's tokens; ``targets`` (B, L)
        int64; ``mask`` (B, L) bool, True at the continuation's positions in ``targets``;
        ``n_truncated`` (B,) int64, how many context tokens were dropped from the left.

    Raises
    ------
    ValueError
        No pairs, a pair that is not two sequences, a continuation that is empty or longer
        than ``max_length``, an empty context without ``prefix_id``, negative token ids.
    TypeError
        Non-integer token ids or arguments.

    See Also
    --------
    fastmetrics.sequence_loglik : Score the batch's continuations.
    fastmetrics.rolling_windows : Windows for sequences longer than the context.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> b = fm.continuation_batch([([5, 6, 7], [8, 9]), ([4], [3])], max_length=3)
    >>> b.input_ids
    array([[6, 7, 8],
           [4, 0, 0]])
    >>> b.targets
    array([[7, 8, 9],
           [3, 0, 0]])
    >>> b.mask
    array([[False,  True,  True],
           [ True, False, False]])
    >>> b.n_truncated
    array([1, 0])
    """
    max_length = _positive_int(max_length, "max_length")
    for v, name in ((pad_id, "pad_id"), (prefix_id, "prefix_id")):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral)):
            raise TypeError(f"{name} must be an int, got {v!r}")
    if prefix_id is not None and prefix_id < 0:
        raise ValueError(f"prefix_id must be a token id >= 0, got {prefix_id}")
    if padding_side not in ("right", "left"):
        raise ValueError(f"padding_side must be 'right' or 'left', got {padding_side!r}")
    rows = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"pairs[{i}] must be a (context, continuation) pair")
        ctx = _token_ids(pair[0], f"pairs[{i}] context")
        cont = _token_ids(pair[1], f"pairs[{i}] continuation")
        if cont.size == 0:
            raise ValueError(f"pairs[{i}] has an empty continuation (nothing to score)")
        if cont.size > max_length:
            raise ValueError(
                f"pairs[{i}] has a continuation of {cont.size} tokens, longer than max_length "
                f"({max_length}): its first tokens cannot be scored inside one window"
            )
        if ctx.size == 0:
            if prefix_id is None:
                raise ValueError(
                    f"pairs[{i}] has an empty context: pass prefix_id (the model's "
                    f"begin-of-text token) so that the first continuation token is predicted "
                    f"from it"
                )
            ctx = np.array([prefix_id], dtype=np.int64)
        whole = np.concatenate([ctx, cont])
        cut = max(0, whole.size - 1 - max_length)
        rows.append((whole[cut:], cont.size, cut))
    if not rows:
        raise ValueError("pairs is empty")
    width = max(w.size - 1 for w, _, _ in rows)
    shape = (len(rows), width)
    input_ids = np.full(shape, pad_id, dtype=np.int64)
    targets = np.full(shape, pad_id, dtype=np.int64)
    attention = np.zeros(shape, dtype=bool)
    mask = np.zeros(shape, dtype=bool)
    for b, (whole, n_cont, _) in enumerate(rows):
        n = whole.size - 1
        lo = 0 if padding_side == "right" else width - n
        input_ids[b, lo:lo + n] = whole[:-1]
        targets[b, lo:lo + n] = whole[1:]
        attention[b, lo:lo + n] = True
        mask[b, lo + n - n_cont:lo + n] = True
    n_truncated = np.array([cut for _, _, cut in rows], dtype=np.int64)
    return ContinuationBatch(input_ids, attention, targets, mask, n_truncated)


class Window(NamedTuple):
    """One rolling window: the model reads tokens ``[start, stop)`` and the tokens
    ``[score_start, stop)`` are scored (the ones before are context only).

    Parameters
    ----------
    start : int
        First token the model reads.
    score_start : int
        First token scored.
    stop : int
        One past the last token read and scored.

    See Also
    --------
    fastmetrics.rolling_windows : What yields them.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> next(iter(fm.rolling_windows(10, 4)))
    Window(start=0, score_start=0, stop=4)
    """

    start: int
    score_start: int
    stop: int


def _positive_int(v: object, name: str) -> int:
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
    start of the sequence).

    The default stride, ``max_length - 1``, is the fewest forward passes that still give
    every scored token after the first window context inside its window: each window starts
    with the last token the previous one scored (as lm-evaluation-harness's rolling
    log-likelihood, whose windows carry one token of context). ``stride = max_length`` gives
    disjoint windows whose first token is scored with no context; smaller strides (e.g.
    ``max_length // 2``) give more context per token at more forward passes. The first token
    of the sequence has no context whatever the stride: models prepend their begin-of-text
    token for it.

    Parameters
    ----------
    n_tokens : int >= 0
        Length of the token sequence.
    max_length : int >= 1
        The model's context length (tokens read per window).
    stride : int in [1, max_length], default=None
        None: ``max_length - 1`` (1 when ``max_length`` is 1, where no context fits).

    Returns
    -------
    iterator of Window
        ``Window(start, score_start, stop)`` in order (none for ``n_tokens == 0``).

    Raises
    ------
    TypeError
        If ``n_tokens``, ``max_length`` or ``stride`` is not an int.
    ValueError
        If ``n_tokens`` < 0, ``max_length`` or ``stride`` < 1, or ``stride`` >
        ``max_length``.

    See Also
    --------
    fastmetrics.rolling_loglik : Score a sequence in these windows.

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
    stride = max(1, max_length - 1) if stride is None else _positive_int(stride, "stride")
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


def _window_logits(logits_fn: Callable[[np.ndarray], np.ndarray], seg: np.ndarray,
                   batched: bool) -> np.ndarray:
    """The model's logits for one call, checked against the shape the call promises."""
    logits = np.asarray(logits_fn(seg))
    if logits.ndim != seg.ndim + 1 or logits.shape[:-1] != seg.shape:
        if batched:
            what = f"a batch of {seg.shape[0]} windows of {seg.shape[1]} tokens"
            want = f"({seg.shape[0]}, {seg.shape[1]}, vocab)"
        else:
            what, want = f"a window of {seg.shape[0]} tokens", f"({seg.shape[0]}, vocab)"
        raise ValueError(f"logits_fn returned shape {logits.shape} for {what}; expected {want}")
    return logits


def rolling_loglik(tokens: ArrayLike, logits_fn: Callable[[np.ndarray], np.ndarray], *,
                   max_length: int, stride: int | None = None, batch_size: int | None = None,
                   n_threads: int | None = None) -> float:
    """Log-likelihood of a long token sequence, scored in :func:`rolling_windows`.

    Parameters
    ----------
    tokens : array-like of int, shape (n,)
        The token sequence.
    logits_fn : callable
        ``batch_size=None``: ``logits_fn(window_tokens) -> logits`` of shape
        ``(len(window_tokens), V)`` where row ``i`` is the distribution of
        ``window_tokens[i]`` given ``window_tokens[:i]`` (for a causal LM: run it on the
        begin-of-text token followed by ``window_tokens[:-1]``).
        ``batch_size=k``: ``logits_fn(windows) -> logits`` with ``windows`` of shape
        ``(m, L)`` (``m <= k`` windows stacked; every window has ``L = min(n, max_length)``
        tokens, so no padding is needed) and logits of shape ``(m, L, V)``, row ``[j, i]``
        as above for window ``j``.
    max_length : int >= 1
        The model's context length, as for :func:`rolling_windows`.
    stride : int in [1, max_length], default=None
        As for :func:`rolling_windows` (default ``max_length - 1``: every token after the
        first window is scored with context).
    batch_size : int >= 1, default=None
        Windows per model call (None: one window per call, as a 1-D array).
    n_threads : int or None, default=None
        Threads of the kernel, as for :func:`token_logprobs` (None: what OpenMP allows);
        the result is the same for any value.

    Returns
    -------
    float
        The sum of the log-probabilities of every token, each scored once. Windows are
        summed in order, each over its scored tokens, so the value does not depend on
        ``batch_size``.

    Raises
    ------
    ValueError
        ``tokens`` not 1-D, a bad ``max_length``, ``stride`` or ``batch_size``, logits of
        the wrong shape from ``logits_fn``, or a token outside its vocabulary.
    TypeError
        A non-integer ``max_length``, ``stride`` or ``batch_size``, non-float logits or
        non-integer tokens.

    See Also
    --------
    fastmetrics.rolling_windows : The windows.
    fastmetrics.perplexity : Perplexity of tokens scored in one pass.

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> uniform = lambda w: np.zeros((len(w), 8))      # every token has probability 1/8
    >>> round(fm.rolling_loglik(np.arange(20) % 8, uniform, max_length=6, stride=4), 6)
    -41.588831
    >>> batched = lambda ws: np.zeros(ws.shape + (8,))  # 3 windows per model call
    >>> round(fm.rolling_loglik(np.arange(20) % 8, batched, max_length=6, batch_size=3), 6)
    -41.588831
    """
    t = np.asarray(tokens)
    if t.ndim != 1:
        raise ValueError(f"tokens must be 1-D, got shape {t.shape}")
    per_call = None if batch_size is None else _positive_int(batch_size, "batch_size")
    windows = list(rolling_windows(t.shape[0], max_length, stride))
    if per_call is None:
        total = 0.0
        for w in windows:
            seg = t[w.start:w.stop]
            k = w.score_start - w.start  # rows before k are context only: not computed
            lp = token_logprobs(_window_logits(logits_fn, seg, False)[k:], seg[k:],
                                n_threads=n_threads)
            total += float(lp.sum())
        return total
    total = 0.0
    for i in range(0, len(windows), per_call):
        group = windows[i:i + per_call]
        # windows end max_length after their start (or the sequence is shorter than one
        # window), so they stack without padding
        seg = np.stack([t[w.start:w.stop] for w in group])
        mask = np.zeros(seg.shape, dtype=bool)
        for j, w in enumerate(group):
            mask[j, w.score_start - w.start:] = True
        lp = token_logprobs(_window_logits(logits_fn, seg, True), seg, mask=mask,
                            n_threads=n_threads)
        # each scored token's log-probability depends on its logits row only, so these are
        # the values above; summed over the same slices in the same order
        for j, w in enumerate(group):
            total += float(lp[j, w.score_start - w.start:].sum())
    return total
