"""Timings an LLM server reports with each response (Ollama's ``total_duration``,
``load_duration``, ``prompt_eval_duration``, ``eval_duration`` in nanoseconds, and token
counts) as milliseconds and tokens per second."""

from __future__ import annotations

import math
from collections.abc import Mapping

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["parse_ollama_timings"]

_NS_PER_MS = 1e6
_NS_PER_S = 1e9


def _field(response: Any, name: str, required: bool) -> Any:
    if isinstance(response, Mapping):
        value = response.get(name)
    else:  # a client's response object (attributes)
        value = getattr(response, name, None)
    if value is None:
        if required:
            raise ValueError(f"the response has no {name!r}: pass the final response "
                             "(done=true) of a request")
        return None
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        try:
            value = value.item()  # numpy scalars
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def _rate(count: float, duration_ns: float) -> float:
    if duration_ns == 0:
        return math.inf if count > 0 else 0.0
    return count / (duration_ns / _NS_PER_S)


def parse_ollama_timings(response: Mapping[str, Any]) -> dict[str, Any]:
    """Milliseconds and generation speed from an Ollama-style response.

    ``total_ms = total_duration / 1e6``, ``load_ms = load_duration / 1e6``,
    ``eval_ms = eval_duration / 1e6`` and ``tokens_per_sec = eval_count / (eval_duration /
    1e9)``; with ``prompt_eval_duration`` in the response, also ``prompt_eval_ms`` and
    ``prompt_tokens_per_sec`` (from ``prompt_eval_count``). A duration of 0 gives ``inf``
    tokens per second when tokens were counted, 0.0 when none were.

    Parameters
    ----------
    response : dict or object
        The final response of a request (``/api/generate`` or ``/api/chat`` with
        ``"done": true``), as a dict or as a client's response object with those attributes.
        ``load_duration`` may be absent (taken as 0).

    Returns
    -------
    dict
        ``{"total_ms", "load_ms", "eval_ms", "tokens_per_sec"}`` (and the prompt's two).

    Raises
    ------
    ValueError
        A required field (``total_duration``, ``eval_duration``, ``eval_count``) is missing,
        negative or not finite.
    TypeError
        A field that is not a number.

    See Also
    --------
    fastmetrics.latency_stats : Percentiles of many requests' latencies.
    fastmetrics.throughput_per_minute : Instances per minute of a run.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.parse_ollama_timings({"total_duration": 2_500_000_000, "load_duration": 5_000_000,
    ...                          "eval_count": 120, "eval_duration": 1_500_000_000})
    {'total_ms': 2500.0, 'load_ms': 5.0, 'eval_ms': 1500.0, 'tokens_per_sec': 80.0}
    """
    total = _field(response, "total_duration", True)
    load = _field(response, "load_duration", False) or 0
    eval_ns = _field(response, "eval_duration", True)
    eval_count = _field(response, "eval_count", True)
    out = {
        "total_ms": total / _NS_PER_MS,
        "load_ms": load / _NS_PER_MS,
        "eval_ms": eval_ns / _NS_PER_MS,
        "tokens_per_sec": _rate(eval_count, eval_ns),
    }
    prompt_ns = _field(response, "prompt_eval_duration", False)
    if prompt_ns is not None:
        out["prompt_eval_ms"] = prompt_ns / _NS_PER_MS
        out["prompt_tokens_per_sec"] = _rate(
            _field(response, "prompt_eval_count", False) or 0, prompt_ns)
    return out
