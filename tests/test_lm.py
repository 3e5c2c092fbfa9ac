"""LM scoring (fastmetrics.lm) against a numpy reference: log_softmax via logsumexp in float64,
then take_along_axis."""

import gc
import tracemalloc

import numpy as np
import psutil
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fastmetrics as fm
from fastmetrics import _threads
from fastmetrics._kernels import lm as _lm


def ref_token_logprobs(logits, targets, mask=None):
    """The slow, obviously-correct reference: the whole (B, T, V) log-softmax in float64."""
    x = np.asarray(logits).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        m = x.max(axis=-1, keepdims=True)
        # log_softmax = (x - max) - log(sum(exp(x - max))): stable, and exact for huge offsets
        log_sum = np.log(np.exp(x - m).sum(axis=-1, keepdims=True))
        lp = np.take_along_axis((x - m) - log_sum, np.asarray(targets)[..., None], axis=-1)[..., 0]
    if mask is not None:
        lp = np.where(np.asarray(mask, dtype=bool), lp, 0.0)
    return lp


RTOL = {np.float32: 1e-5, np.float64: 1e-12, np.float16: 1e-5}  # float16: vs its upcast values


def _data(shape=(3, 17, 101), dtype=np.float32, seed=0, scale=4.0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * scale).astype(dtype)
    t = rng.integers(0, shape[-1], shape[:-1])
    return x, t


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("V", [1, 2, 7, 8, 9, 33, 1000])
def test_token_logprobs_match_reference(dtype, V):
    x, t = _data((2, 5, V), dtype)
    got = fm.token_logprobs(x, t)
    assert got.dtype == np.float64 and got.shape == (2, 5)
    np.testing.assert_allclose(got, ref_token_logprobs(x, t), rtol=RTOL[dtype], atol=1e-12)


def test_float16_tolerance_against_a_float16_reference():
    # the documented float16 bound: a reference computed in float16 itself is ~1e-3 off
    x, t = _data((2, 8, 500), np.float16)
    m = x.max(axis=-1, keepdims=True)
    lp16 = x - (m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True, dtype=np.float16)))
    ref16 = np.take_along_axis(lp16, t[..., None], -1)[..., 0].astype(np.float64)
    np.testing.assert_allclose(fm.token_logprobs(x, t), ref16, rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("offset", [1e4, -1e4, 3e30, -3e30])
def test_very_large_and_very_negative_logits(dtype, offset):
    x, t = _data((2, 6, 300), dtype)
    x = (x.astype(np.float64) + offset).astype(dtype)
    np.testing.assert_allclose(fm.token_logprobs(x, t), ref_token_logprobs(x, t),
                               rtol=RTOL[dtype], atol=1e-9)


def test_extreme_spread_in_a_row():
    x = np.array([[[1e30, 0.0, -1e30, -3e38]]], dtype=np.float32)
    got = fm.token_logprobs(x, [[0]])
    assert got[0, 0] == 0.0
    got = fm.token_logprobs(x, [[1]])
    assert got[0, 0] == -float(np.float32(1e30))
    x = np.array([[[0.0, -200.0, -1e6]]], dtype=np.float32)  # exp underflows in float32
    np.testing.assert_allclose(fm.token_logprobs(x, [[1]]), [[-200.0]], rtol=1e-7)


def test_non_finite_logits_propagate_like_numpy():
    x = np.zeros((1, 4, 5), dtype=np.float32)
    x[0, 0, 2] = np.nan           # NaN in the row
    x[0, 1, 3] = np.inf           # +inf in the row
    x[0, 2, :] = -np.inf          # a row of -inf
    x[0, 3, 1] = -np.inf          # -inf target in a finite row
    got = fm.token_logprobs(x, [[0, 0, 0, 1]])
    assert np.isnan(got[0, :3]).all()
    assert got[0, 3] == -np.inf
    with np.errstate(invalid="ignore"):
        ref = ref_token_logprobs(x, [[0, 0, 0, 1]])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))


def test_mask_selects_the_continuation_and_skips_padding_targets():
    x, t = _data((3, 10, 50))
    mask = np.zeros((3, 10), dtype=bool)
    mask[0, 4:] = True
    mask[1, 9] = True              # a length-1 continuation
    t[2, :] = -100                 # fully masked row: padding ids are never read
    t[0, :4] = 10**9
    got = fm.sequence_loglik(x, t, mask=mask)
    ref = ref_token_logprobs(x, np.clip(t, 0, 49), mask).sum(axis=1)
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    assert got[2] == 0.0
    # 0/1 integer masks mean the same
    np.testing.assert_array_equal(fm.sequence_loglik(x, t, mask=mask.astype(np.int8)), got)


def test_sequence_loglik_greedy_and_2d_input():
    x = np.log(np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]], dtype=np.float32))
    ll, g = fm.sequence_loglik(x, [0, 1, 1], return_greedy=True)
    assert isinstance(ll, float) and g is True   # the tie at the last position counts
    assert ll == pytest.approx(np.log(0.6) + np.log(0.7) + np.log(0.5), rel=1e-6)
    ll, g = fm.sequence_loglik(x, [1, 1, 0], return_greedy=True)
    assert g is False
    ll, g = fm.sequence_loglik(x[None], [[1, 1, 0]], mask=[[0, 1, 1]], return_greedy=True)
    assert g.tolist() == [True]


def test_perplexity_pools_tokens():
    x, t = _data((2, 12, 40))
    mask = np.ones((2, 12), dtype=bool)
    mask[1, :7] = False
    lp = ref_token_logprobs(x, t, mask)
    ref = np.exp(-lp.sum() / mask.sum())
    assert fm.perplexity(x, t, mask=mask) == pytest.approx(ref, rel=1e-5)
    assert fm.perplexity(np.zeros((1, 3, 5)), [[0, 1, 2]]) == pytest.approx(5.0, rel=1e-12)
    with pytest.raises(ValueError, match="no token selected"):
        fm.perplexity(x, t, mask=np.zeros((2, 12)))


@pytest.mark.parametrize("layout", ["strided", "readonly", "negative", "fortran", "swapped",
                                    "sliced_shift"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_layouts(layout, dtype):
    base, _ = _data((4, 20, 90), dtype, seed=5)
    x = {
        "strided": base[:, ::2, ::3],
        "readonly": base.copy(),
        "negative": base[::-1, :, ::-1],
        "fortran": np.asfortranarray(base),
        "swapped": base.astype(base.dtype.newbyteorder(">")),
        "sliced_shift": base[:, :-1],
    }[layout]
    if layout == "readonly":
        x.setflags(write=False)
    t = np.random.default_rng(1).integers(0, x.shape[-1], x.shape[:2])
    if layout == "readonly":
        t.setflags(write=False)
    np.testing.assert_allclose(fm.token_logprobs(x, t), ref_token_logprobs(x, t),
                               rtol=RTOL[dtype], atol=1e-12)


@pytest.mark.parametrize("tdtype", [np.int8, np.int16, np.int32, np.int64, np.uint8,
                                    np.uint16, np.uint32, np.uint64])
def test_target_dtypes(tdtype):
    x, t = _data((2, 4, 100))
    np.testing.assert_array_equal(fm.token_logprobs(x, t.astype(tdtype)),
                                  fm.token_logprobs(x, t))


def test_uint64_ids_at_or_above_2_63_follow_the_mask():
    # a uint64 id >= 2**63 is out of range where selected and ignored where masked out,
    # like any other padding id (-100)
    x, t = _data((2, 4, 10))
    tu = t.astype(np.uint64)
    tu[1, 2] = 2**63 + 5
    with pytest.raises(ValueError, match=r"targets\[1, 2\] = 9223372036854775813 is not a token"):
        fm.sequence_loglik(x, tu)
    mask = np.ones(t.shape, bool)
    mask[1, 2] = False
    np.testing.assert_array_equal(fm.sequence_loglik(x, tu, mask=mask),
                                  fm.sequence_loglik(x, t, mask=mask))
    with pytest.raises(ValueError, match=r"targets\[2\] = 18446744073709551615"):
        fm.token_logprobs(x[0], np.array([0, 1, 2**64 - 1, 3], np.uint64))


@pytest.mark.parametrize("bad", [2, -1, 0.5, np.nan])
def test_mask_values_other_than_0_1_are_named(bad):
    x, t = _data((2, 3, 4))
    mask = np.ones((2, 3), dtype=np.float64 if isinstance(bad, float) else np.int64)
    mask[1, 1] = bad
    with pytest.raises(ValueError, match=rf"0/1 \(or bool\) values, got {bad}"):
        fm.sequence_loglik(x, t, mask=mask)
    mask[1, 1] = 1.0
    np.testing.assert_array_equal(fm.sequence_loglik(x, t, mask=mask), fm.sequence_loglik(x, t))


def test_inputs_not_modified():
    x, t = _data((2, 5, 30))
    x0, t0 = x.copy(), t.copy()
    fm.sequence_loglik(x, t, mask=t % 2 == 0)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(t, t0)


def test_empty_batch_or_sequence():
    assert fm.sequence_loglik(np.zeros((0, 4, 3), np.float32), np.zeros((0, 4), int)).shape == (0,)
    np.testing.assert_array_equal(
        fm.sequence_loglik(np.zeros((2, 0, 3), np.float32), np.zeros((2, 0), int)), [0.0, 0.0])


@pytest.mark.parametrize(
    "logits, targets, kwargs, exc, match",
    [
        (np.zeros((2, 3, 4), np.float32), np.full((2, 3), 4), {}, ValueError,
         r"targets\[0, 0\] = 4 is not a token id in \[0, 4\)"),
        (np.zeros((2, 3, 4), np.float32), [[0, 0, 0], [0, -1, 0]], {}, ValueError,
         r"targets\[1, 1\] = -1"),
        (np.zeros((3, 4), np.float32), [0, 0, 9], {}, ValueError, r"targets\[2\] = 9"),
        (np.zeros((2, 3, 4), np.float32), np.zeros((2, 4), int), {}, ValueError,
         r"targets must have shape \(2, 3\)"),
        (np.zeros((2, 3, 4), np.float32), np.zeros((2, 3)), {}, TypeError, "integer token ids"),
        (np.zeros((2, 3, 4), np.int64), np.zeros((2, 3), int), {}, TypeError, "logits must be"),
        (np.zeros((2, 3, 0), np.float32), np.zeros((2, 3), int), {}, ValueError,
         "vocabulary axis is empty"),
        (np.zeros((2, 3, 4, 1), np.float32), np.zeros((2, 3), int), {}, ValueError,
         "logits must have shape"),
        (np.zeros(4, np.float32), np.zeros(1, int), {}, ValueError, "logits must have shape"),
        (np.zeros((2, 3, 4), np.float32), np.zeros((2, 3), int), {"mask": np.ones((3, 2))},
         ValueError, "mask must have shape"),
        (np.zeros((2, 3, 4), np.float32), np.zeros((2, 3), int), {"mask": np.full((2, 3), 2)},
         ValueError, "0/1"),
        (np.zeros((2, 3, 4), np.float32), np.zeros((2, 3), int),
         {"mask": np.full((2, 3), "a")}, TypeError, "mask must be"),
        (np.zeros((2, 3, 4), np.float32), np.zeros((2, 3), int), {"n_threads": 0},
         ValueError, "n_threads"),
    ],
)
def test_bad_inputs(logits, targets, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fm.sequence_loglik(logits, targets, **kwargs)


@given(
    st.sampled_from([16, 32]).flatmap(lambda w: hnp.arrays(
        np.float16 if w == 16 else np.float32,
        hnp.array_shapes(min_dims=3, max_dims=3, max_side=40),
        elements=st.floats(-1e4, 1e4, width=w))),
    st.data(),
)
def test_property_matches_reference(x, data):
    t = data.draw(hnp.arrays(np.int64, x.shape[:2], elements=st.integers(0, x.shape[2] - 1)))
    mask = data.draw(hnp.arrays(np.bool_, x.shape[:2]))
    got = fm.sequence_loglik(x, t, mask=mask)
    ref = ref_token_logprobs(x, t, mask)
    # per token 1e-5 relative; the sum of tokens of mixed signs gets an absolute slack
    np.testing.assert_allclose(got, ref.sum(axis=1), rtol=1e-5,
                               atol=1e-5 * np.abs(ref).sum(axis=1).max(initial=0) + 1e-9)


@given(st.integers(0, 2**16 - 1))
def test_property_exp_matches_numpy(bits):
    v = -np.float64(bits) / 2**16 * 87.0
    out = np.empty(1)
    _lm.exp_neg(np.array([v]), out, True)
    assert abs(out[0] - np.exp(v)) <= 3e-7 * np.exp(v)
    _lm.exp_neg(np.array([v * 8]), out, False)
    assert abs(out[0] - np.exp(v * 8)) <= 1e-15 * np.exp(v * 8)


def test_half_conversion_is_exact_for_every_bit_pattern():
    bits = np.arange(2**16, dtype=np.uint16)
    out = np.empty(2**16, dtype=np.float32)
    _lm.half_to_float(bits, out)
    np.testing.assert_array_equal(out, bits.view(np.float16).astype(np.float32))


def test_threads_give_identical_results(monkeypatch):
    x, t = _data((4, 64, 3000), seed=9)
    mask = np.random.default_rng(2).random((4, 64)) < 0.7
    runs = [fm.token_logprobs(x, t, mask=mask, n_threads=n) for n in (1, 2, 8)]
    # these 768,000 logits are under the thread table's size for "lm" (one thread does it
    # all): with the size lowered, 2 and 8 threads really run
    monkeypatch.setitem(_threads.MIN_PER_CALL, "lm", 0)
    runs += [fm.token_logprobs(x, t, mask=mask, n_threads=n) for n in (2, 8)]
    for r in runs[1:]:
        np.testing.assert_array_equal(r, runs[0])
    np.testing.assert_allclose(runs[0], ref_token_logprobs(x, t, mask), rtol=1e-5)


def test_many_python_threads_match_serial():
    import threading

    x, t = _data((2, 16, 700), seed=11)
    x16 = x.astype(np.float16)
    expected = [fm.sequence_loglik(x, t), fm.sequence_loglik(x16, t, mask=t > 100)]
    errors = []

    def worker():
        for _ in range(20):
            if not np.array_equal(fm.sequence_loglik(x, t), expected[0]):
                errors.append(0)
            if not np.array_equal(fm.sequence_loglik(x16, t, mask=t > 100), expected[1]):
                errors.append(1)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors


def test_extra_memory_is_o_bt():
    x, t = _data((2, 64, 8000), seed=3)   # 4 MB of logits
    fm.sequence_loglik(x, t)
    tracemalloc.start()
    try:
        fm.sequence_loglik(x, t)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024, peak  # (B, T) float64 + uint8 is 1.2 KB; a log-softmax 8 MB


def _rss():
    gc.collect()
    return psutil.Process().memory_info().rss


@pytest.mark.parametrize("call", [
    lambda x, t: fm.sequence_loglik(x, t, mask=t > 3, return_greedy=True),
    lambda x, t: fm.token_logprobs(x.astype(np.float16), t),
    lambda x, t: fm.sequence_loglik(x, t + 100),  # error path
])
def test_repeated_calls_do_not_leak(call):
    x, t = _data((2, 8, 200), seed=4)

    def many(n):
        for _ in range(n):
            try:
                call(x, t)
            except ValueError:
                pass

    many(300)
    before = _rss()
    many(3_000)
    grown = _rss() - before
    assert grown < 4 * 2**20, f"RSS grew by {grown / 2**20:.1f} MiB over 3,000 calls"


# ----------------------------------------------------------------------------------------
# multiple choice


def test_multiple_choice_accuracy_matches_numpy():
    rng = np.random.default_rng(0)
    ll = -rng.random((50, 4)) * 10
    gold = rng.integers(0, 4, 50)
    lengths = rng.integers(1, 20, (50, 4))
    assert fm.multiple_choice_accuracy(ll, gold) == np.mean(ll.argmax(1) == gold)
    assert fm.multiple_choice_accuracy(ll, gold, lengths=lengths) == np.mean(
        (ll / lengths).argmax(1) == gold)


def test_multiple_choice_padding_and_ties():
    ll = np.array([[-1.0, -np.inf, -np.inf], [-2.0, -2.0, -3.0]])
    assert fm.multiple_choice_accuracy(ll, [0, 1]) == 0.5   # a tie goes to the first choice


@pytest.mark.parametrize("ll, gold, lengths, match", [
    ([[-1.0, np.nan]], [0], None, "NaN"),
    ([-1.0, -2.0], [0], None, "shape"),
    ([[-1.0, -2.0]], [2], None, "outside"),
    ([[-1.0, -2.0]], [0, 1], None, "gold must have shape"),
    ([[-1.0, -2.0]], [0], [[1, 0]], "positive"),
    ([[-1.0, -2.0]], [0], [[1, 2, 3]], "lengths must have shape"),
    (np.zeros((0, 2)), np.zeros(0, int), None, "no questions"),
])
def test_multiple_choice_bad_inputs(ll, gold, lengths, match):
    with pytest.raises(ValueError, match=match):
        fm.multiple_choice_accuracy(ll, gold, lengths=lengths)


def test_multiple_choice_gold_must_be_integers():
    with pytest.raises(TypeError, match="integer"):
        fm.multiple_choice_accuracy([[-1.0, -2.0]], [0.0])


# ----------------------------------------------------------------------------------------
# rolling windows


@given(st.integers(0, 300), st.integers(1, 40), st.data())
def test_rolling_windows_score_every_token_once(n, max_length, data):
    stride = data.draw(st.integers(1, max_length))
    windows = list(fm.rolling_windows(n, max_length, stride))
    counts = np.zeros(n, dtype=int)
    for w in windows:
        assert 0 <= w.start <= w.score_start < w.stop <= n
        assert w.stop - w.start <= max_length
        counts[w.score_start:w.stop] += 1
        # every scored token sees max_length - stride tokens of context, or all before it
        assert w.score_start - w.start >= min(w.score_start, max_length - stride)
    np.testing.assert_array_equal(counts, 1)
    assert [w.score_start for w in windows] == sorted(w.score_start for w in windows)


def test_rolling_loglik_sums_each_token_once():
    rng = np.random.default_rng(0)
    table = rng.standard_normal((1, 16)).astype(np.float32)
    tokens = rng.integers(0, 16, 97)

    def logits_fn(w):
        # context-free model: the same distribution at every position
        return np.repeat(table, len(w), axis=0)

    full = fm.sequence_loglik(np.repeat(table, 97, axis=0), tokens)
    for max_length, stride in [(10, 10), (10, 3), (200, None), (1, 1)]:
        got = fm.rolling_loglik(tokens, logits_fn, max_length=max_length, stride=stride)
        assert got == pytest.approx(full, rel=1e-12)


@pytest.mark.parametrize("args, exc, match", [
    ((10, 4, 5), ValueError, "stride"),
    ((10, 0), ValueError, "max_length"),
    ((-1, 4), ValueError, "n_tokens"),
    ((10.0, 4), TypeError, "n_tokens"),
    ((10, 4, 0), ValueError, "stride"),
    ((10, True), TypeError, "max_length"),
])
def test_rolling_windows_bad_arguments(args, exc, match):
    with pytest.raises(exc, match=match):
        fm.rolling_windows(*args)


def test_rolling_loglik_checks_the_model_output():
    with pytest.raises(ValueError, match="logits_fn returned shape"):
        fm.rolling_loglik(np.arange(5), lambda w: np.zeros((len(w) + 1, 8)), max_length=3)
    with pytest.raises(ValueError, match="tokens must be 1-D"):
        fm.rolling_loglik(np.zeros((2, 2), int), lambda w: w, max_length=3)


# ----------------------------------------------------------------------------------------
# standard errors of multiple-choice accuracy


@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("norm", [False, True])
def test_multiple_choice_stderr_is_the_binomial_formula(ddof, norm):
    rng = np.random.default_rng(1)
    ll = -rng.random((37, 4)) * 10
    gold = rng.integers(0, 4, 37)
    lengths = rng.integers(1, 20, (37, 4)) if norm else None
    acc, se = fm.multiple_choice_accuracy(ll, gold, lengths=lengths, return_stderr=True, ddof=ddof)
    assert acc == fm.multiple_choice_accuracy(ll, gold, lengths=lengths)
    n = 37
    assert se == pytest.approx(np.sqrt(acc * (1 - acc) / (n - ddof)), rel=1e-12)
    # the same as the standard deviation of the 0/1 scores over sqrt(n) (lm-evaluation-harness's
    # mean_stderr is this with ddof=1)
    scores = ((ll / lengths) if norm else ll).argmax(1) == gold
    assert se == pytest.approx(np.std(scores, ddof=ddof) / np.sqrt(n), rel=1e-12)


def test_multiple_choice_stderr_edge_cases():
    assert fm.multiple_choice_accuracy([[-1.0, -2.0]] * 4, [0] * 4, return_stderr=True) == (1.0,
                                                                                           0.0)
    acc, se = fm.multiple_choice_accuracy([[-1.0, -2.0]], [1], return_stderr=True, ddof=1)
    assert acc == 0.0 and np.isnan(se)
    for bad in (2, -1, 0.5, True):
        with pytest.raises(ValueError, match="ddof"):
            fm.multiple_choice_accuracy([[-1.0, -2.0]], [0], return_stderr=True, ddof=bad)


# ----------------------------------------------------------------------------------------
# (context, continuation) batches


def ref_pair(ctx, cont, max_length, prefix_id=None):
    """lm-evaluation-harness's formula: the model reads (ctx + cont)[-(max_length + 1):][:-1]
    and the last len(cont) logits score the continuation."""
    if not ctx:
        ctx = [prefix_id]
    whole = (list(ctx) + list(cont))[-(max_length + 1):]
    inp, tgt = whole[:-1], whole[1:]
    return inp, tgt, [False] * (len(tgt) - len(cont)) + [True] * len(cont)


def test_continuation_batch_hand_written_cases():
    b = fm.continuation_batch([([1, 2, 3], [4, 5]), ([7], [8]), ([], [9, 9])], max_length=4,
                              pad_id=0, prefix_id=50)
    np.testing.assert_array_equal(b.input_ids, [[1, 2, 3, 4], [7, 0, 0, 0], [50, 9, 0, 0]])
    np.testing.assert_array_equal(b.targets, [[2, 3, 4, 5], [8, 0, 0, 0], [9, 9, 0, 0]])
    np.testing.assert_array_equal(b.mask, [[0, 0, 1, 1], [1, 0, 0, 0], [1, 1, 0, 0]])
    np.testing.assert_array_equal(b.attention_mask, [[1, 1, 1, 1], [1, 0, 0, 0], [1, 1, 0, 0]])
    np.testing.assert_array_equal(b.n_truncated, [0, 0, 0])
    assert b.input_ids.dtype == np.int64 and b.mask.dtype == bool
    # truncation that cuts into the context: 6 + 3 tokens, 4 read
    b = fm.continuation_batch([(np.arange(10, 16), [20, 21, 22])], max_length=4, pad_id=-1)
    np.testing.assert_array_equal(b.input_ids, [[14, 15, 20, 21]])
    np.testing.assert_array_equal(b.targets, [[15, 20, 21, 22]])
    np.testing.assert_array_equal(b.mask, [[0, 1, 1, 1]])
    np.testing.assert_array_equal(b.n_truncated, [4])
    # a continuation of exactly max_length tokens keeps only the context's last token
    b = fm.continuation_batch([([1, 2, 3], [4, 5, 6])], max_length=3)
    np.testing.assert_array_equal(b.input_ids, [[3, 4, 5]])
    np.testing.assert_array_equal(b.targets, [[4, 5, 6]])
    assert b.mask.all()
    # left padding: the same rows, moved right
    b = fm.continuation_batch([([1, 2, 3], [4, 5]), ([7], [8])], max_length=4, pad_id=0,
                              padding_side="left")
    np.testing.assert_array_equal(b.input_ids, [[1, 2, 3, 4], [0, 0, 0, 7]])
    np.testing.assert_array_equal(b.targets, [[2, 3, 4, 5], [0, 0, 0, 8]])
    np.testing.assert_array_equal(b.mask, [[0, 0, 1, 1], [0, 0, 0, 1]])
    np.testing.assert_array_equal(b.attention_mask, [[1, 1, 1, 1], [0, 0, 0, 1]])


@given(st.lists(st.tuples(st.lists(st.integers(0, 9), max_size=12),
                          st.lists(st.integers(0, 9), min_size=1, max_size=6)),
                min_size=1, max_size=5),
       st.integers(6, 15), st.sampled_from(["right", "left"]))
def test_continuation_batch_matches_the_reference(pairs, max_length, side):
    b = fm.continuation_batch(pairs, max_length=max_length, pad_id=-7, prefix_id=11,
                              padding_side=side)
    assert b.input_ids.shape[1] <= max_length
    for row, (ctx, cont) in enumerate(pairs):
        inp, tgt, m = ref_pair(ctx, cont, max_length, prefix_id=11)
        keep = b.attention_mask[row]
        assert keep.sum() == len(inp)
        idx = np.flatnonzero(keep)
        assert idx[-1] - idx[0] + 1 == len(inp)   # contiguous
        assert (idx[0] == 0) if side == "right" else (idx[-1] == b.input_ids.shape[1] - 1)
        assert b.input_ids[row, keep].tolist() == inp
        assert b.targets[row, keep].tolist() == tgt
        assert b.mask[row, keep].tolist() == m
        assert not b.mask[row, ~keep].any()
        assert (b.input_ids[row, ~keep] == -7).all()


def _bigram(V=12, seed=3, bos=None):
    """A causal 'model': the distribution of each token depends on the previous one only."""
    table = np.random.default_rng(seed).standard_normal((V + 1, V))

    def model(ids):          # ids (B, L) -> logits (B, L, V): row t predicts ids[:, t + 1]
        return table[ids]

    def logits_fn(w):       # rolling convention: row i predicts w[i] given w[:i]
        w = np.asarray(w)
        prev = np.concatenate([np.full(w.shape[:-1] + (1,), V), w[..., :-1]], axis=-1)
        return table[prev]

    def logp(prev, tok):
        row = table[prev]
        return row[tok] - np.log(np.exp(row).sum())
    return model, logits_fn, logp


def test_continuation_batch_scores_continuations_with_sequence_loglik():
    model, _, logp = _bigram()
    pairs = [([1, 2, 3, 4, 5], [6, 7]), ([3], [2, 1, 0]), ([], [5]), ([9] * 20, [1, 2, 3])]
    for side in ("right", "left"):
        b = fm.continuation_batch(pairs, max_length=6, prefix_id=11, padding_side=side)
        got = fm.sequence_loglik(model(b.input_ids), b.targets, mask=b.mask)
        for i, (ctx, cont) in enumerate(pairs):
            prev = ([*ctx] or [11]) + cont[:-1]
            want = sum(logp(p, c) for p, c in zip(prev[-len(cont):], cont))
            assert got[i] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("pairs, kw, exc, match", [
    ([([1], [2, 3, 4, 5])], {}, ValueError, "longer than max_length"),
    ([([], [2])], {}, ValueError, "empty context: pass prefix_id"),
    ([([1], [])], {}, ValueError, "empty continuation"),
    ([], {}, ValueError, "pairs is empty"),
    ([([1], [2], [3])], {}, ValueError, r"pairs\[0\] must be a \(context, continuation\)"),
    (["ab"], {}, ValueError, "must be a"),
    ([([1.5], [2])], {}, TypeError, "integer token ids"),
    ([([1], [-2])], {}, ValueError, "negative token id"),
    ([([[1]], [2])], {}, ValueError, "1-D"),
    ([([1], [2])], {"max_length": 0}, ValueError, "max_length"),
    ([([1], [2])], {"padding_side": "middle"}, ValueError, "padding_side"),
    ([([1], [2])], {"pad_id": 0.0}, TypeError, "pad_id"),
    ([([], [2])], {"prefix_id": -1}, ValueError, "prefix_id"),
])
def test_continuation_batch_bad_inputs(pairs, kw, exc, match):
    kw = {"max_length": 3, **kw}
    with pytest.raises(exc, match=match):
        fm.continuation_batch(pairs, **kw)


# ----------------------------------------------------------------------------------------
# rolling windows: default stride and batching


@given(st.integers(0, 200), st.integers(2, 30))
def test_default_stride_gives_every_scored_token_context(n, max_length):
    windows = list(fm.rolling_windows(n, max_length))
    for w in windows[1:]:
        assert w.score_start - w.start >= 1
    assert [w.score_start for w in windows[1:]] == [w.stop for w in windows[:-1]]
    # the fewest windows that do so: each scores max_length - 1 new tokens after the first
    assert len(windows) == (0 if n == 0 else 1 + -(-max(0, n - max_length) // (max_length - 1)))


def test_default_stride_of_a_one_token_window():
    assert list(fm.rolling_windows(3, 1)) == [(0, 0, 1), (1, 1, 2), (2, 2, 3)]


@pytest.mark.parametrize("n, max_length, stride", [(97, 10, None), (97, 10, 4), (5, 10, None),
                                                    (40, 1, None), (0, 4, None), (64, 8, 8)])
def test_rolling_loglik_batched_equals_one_window_at_a_time(n, max_length, stride):
    _, logits_fn, logp = _bigram()
    tokens = np.random.default_rng(0).integers(0, 12, n)
    one = fm.rolling_loglik(tokens, logits_fn, max_length=max_length, stride=stride)
    windows = list(fm.rolling_windows(n, max_length, stride))
    want = sum(logp(12 if i == w.start else tokens[i - 1], tokens[i])
               for w in windows for i in range(w.score_start, w.stop))
    assert one == pytest.approx(want, rel=1e-12, abs=1e-12)
    for batch_size in (1, 2, 3, 1000):
        calls = []

        def batched(ws):
            assert ws.ndim == 2 and ws.shape[0] <= batch_size and ws.shape[1] <= max_length
            calls.append(ws.shape[0])
            return logits_fn(ws)
        got = fm.rolling_loglik(tokens, batched, max_length=max_length, stride=stride,
                                batch_size=batch_size)
        assert got == one   # identical, not just close
        assert sum(calls) == len(windows)
        assert len(calls) == -(-len(windows) // batch_size)


def test_rolling_windows_all_have_the_same_length():
    # why batches need no padding
    for n, max_length, stride in [(23, 10, None), (23, 10, 10), (23, 10, 3), (7, 10, None)]:
        assert {w.stop - w.start for w in fm.rolling_windows(n, max_length, stride)} == {
            min(n, max_length)}


def test_rolling_loglik_batch_bad_arguments():
    with pytest.raises(ValueError, match="batch_size"):
        fm.rolling_loglik(np.arange(5), lambda w: np.zeros(w.shape + (8,)), max_length=3,
                          batch_size=0)
    with pytest.raises(TypeError, match="batch_size"):
        fm.rolling_loglik(np.arange(5), lambda w: np.zeros(w.shape + (8,)), max_length=3,
                          batch_size=2.0)
    with pytest.raises(ValueError, match=r"a batch of 2 windows of 3 tokens; expected \(2, 3, "):
        fm.rolling_loglik(np.arange(5), lambda w: np.zeros((len(w[0]), 8)), max_length=3,
                          batch_size=2)
