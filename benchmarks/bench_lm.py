"""Sequence log-likelihood over (4, 1024, 32000) float32 logits: fastmetrics' fused kernel vs
the numpy reference (log_softmax via logsumexp, then take_along_axis), and vs a leaner numpy
variant that gathers before subtracting (still one (B, T, V) temporary of exponentials)."""

import numpy as np
import pytest

import fastmetrics as fm

GROUP = "lm: sequence_loglik (4, 1024, 32000) float32"


def numpy_log_softmax_gather(x, t, mask):
    """The reference: the full log_softmax, then gather the targets and sum the masked ones."""
    m = x.max(axis=-1, keepdims=True)
    logp = x - (m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True)))
    tok = np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]
    return np.where(mask, tok, 0.0).sum(axis=-1, dtype=np.float64)


def numpy_gather_then_lse(x, t, mask):
    """Leaner numpy: gather the target logits, subtract the log-sum-exp per row."""
    m = x.max(axis=-1, keepdims=True)
    lse = m[..., 0] + np.log(np.exp(x - m).sum(axis=-1))
    tok = np.take_along_axis(x, t[..., None], axis=-1)[..., 0] - lse
    return np.where(mask, tok, 0.0).sum(axis=-1, dtype=np.float64)


@pytest.fixture(scope="module")
def data(scaled):
    rng = np.random.default_rng(8)
    B, T, V = 4, scaled(1024), scaled(32000)
    x = rng.standard_normal((B, T, V), dtype=np.float32)
    x *= 3.0
    t = rng.integers(0, V, (B, T))
    mask = np.ones((B, T), dtype=bool)  # score every position (the most work)
    expected = numpy_gather_then_lse(x.astype(np.float64), t, mask)
    return x, t, mask, expected


@pytest.mark.benchmark(group=GROUP)
@pytest.mark.parametrize("n_threads", [None, 1])
def test_fastmetrics(benchmark, data, n_threads):
    x, t, mask, expected = data
    got = benchmark(fm.sequence_loglik, x, t, mask=mask, n_threads=n_threads)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.benchmark(group=GROUP)
@pytest.mark.parametrize("ref", [numpy_log_softmax_gather, numpy_gather_then_lse],
                         ids=["numpy_log_softmax", "numpy_gather_lse"])
def test_numpy(benchmark, data, ref):
    x, t, mask, expected = data
    got = benchmark(ref, x, t, mask)
    np.testing.assert_allclose(got, expected, rtol=1e-4)


@pytest.mark.benchmark(group="lm: sequence_loglik float16 logits")
def test_fastmetrics_float16(benchmark, data):
    x, t, mask, _ = data
    x16 = x[:, : max(1, x.shape[1] // 4)].astype(np.float16)
    t16 = t[:, : x16.shape[1]]
    expected = numpy_gather_then_lse(x16.astype(np.float64), t16, mask[:, : x16.shape[1]])
    got = benchmark(fm.sequence_loglik, x16, t16)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
