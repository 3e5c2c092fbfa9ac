"""Multiple-choice LM scoring from logits, as an LM evaluation harness does it.

Each question is a context and four candidate continuations (token ids). Every
(context, continuation) pair becomes one row of a batch: the model reads
``(context + continuation)[:-1]`` left-truncated to its context length, and the continuation's
log-likelihood ``sum_t log P(y_t | x, y_<t)`` is the log-softmax of the logits gathered at the
shifted targets over the continuation mask. The answer is the choice with the highest
log-likelihood (``acc``) or the highest log-likelihood per token (``acc_norm``), each with its
standard error. A long document is then scored in rolling windows, several per model call.

The "model" is a small bigram table (numpy): logits for the next token depend on the current
one. The correct continuations are sampled from it, the distractors uniformly, so it does
better than chance (1/4).

Run: ``python examples/lm_multiple_choice.py``
"""

import math

import numpy as np

import fastmetrics as fm

VOCAB = 50
BOS = VOCAB - 1          # begin-of-text token, stands in for an empty context
MAX_LENGTH = 24          # the model's context length


class BigramLM:
    def __init__(self, rng):
        self.table = (rng.normal(0.0, 2.0, (VOCAB, VOCAB))).astype(np.float32)
        self.calls = 0

    def __call__(self, input_ids):
        """(B, L) token ids -> (B, L, V) logits: row t is the distribution of token t + 1."""
        self.calls += 1
        return self.table[input_ids]

    def sample(self, prev, n, rng):
        out = []
        for _ in range(n):
            p = np.exp(self.table[prev] - self.table[prev].max())
            prev = int(rng.choice(VOCAB, p=p / p.sum()))
            out.append(prev)
        return out


def make_questions(lm, n_questions, n_choices, rng):
    pairs, gold = [], []
    for q in range(n_questions):
        context = [] if q % 10 == 0 else rng.integers(0, VOCAB - 1, rng.integers(3, 40)).tolist()
        answer = int(rng.integers(0, n_choices))
        for c in range(n_choices):
            length = int(rng.integers(1, 6))
            if c == answer:
                cont = lm.sample(context[-1] if context else BOS, length, rng)
            else:
                cont = rng.integers(0, VOCAB - 1, length).tolist()
            pairs.append((context, cont))
        gold.append(answer)
    return pairs, np.array(gold)


def main():
    rng = np.random.default_rng(0)
    lm = BigramLM(rng)
    n_questions, n_choices = 200, 4
    pairs, gold = make_questions(lm, n_questions, n_choices, rng)

    batch = fm.continuation_batch(pairs, max_length=MAX_LENGTH, prefix_id=BOS)
    logits = lm(batch.input_ids)
    loglik, greedy = fm.sequence_loglik(logits, batch.targets, mask=batch.mask,
                                        return_greedy=True)
    loglik = loglik.reshape(n_questions, n_choices)
    n_tokens = batch.mask.sum(axis=1).reshape(n_questions, n_choices)

    acc, acc_se = fm.multiple_choice_accuracy(loglik, gold, return_stderr=True)
    acc_norm, norm_se = fm.multiple_choice_accuracy(loglik, gold, lengths=n_tokens,
                                                    return_stderr=True)
    print(f"questions: {n_questions}, choices: {n_choices}, batch {batch.input_ids.shape}, "
          f"{int((batch.n_truncated > 0).sum())} rows left-truncated")
    print(f"acc      = {acc:.4f} +- {acc_se:.4f}  (binomial standard error)")
    print(f"acc_norm = {acc_norm:.4f} +- {norm_se:.4f}")
    gold_rows = np.arange(n_questions) * n_choices + gold
    print(f"greedy gold continuations: {greedy[gold_rows].mean():.4f}")
    ppl = fm.perplexity(logits[gold_rows], batch.targets[gold_rows], mask=batch.mask[gold_rows])
    print(f"perplexity of the gold continuations: {ppl:.3f}")

    # a long document, scored in rolling windows of MAX_LENGTH tokens, 8 windows per call
    document = np.array(lm.sample(BOS, 2000, rng))

    def window_logits(windows):     # (m, L) windows -> (m, L, V): row i predicts windows[:, i]
        prev = np.concatenate([np.full((windows.shape[0], 1), BOS), windows[:, :-1]], axis=1)
        return lm(prev)
    lm.calls = 0
    total = fm.rolling_loglik(document, window_logits, max_length=MAX_LENGTH, batch_size=8)
    calls = lm.calls
    one_at_a_time = fm.rolling_loglik(document, lambda w: window_logits(w[None])[0],
                                      max_length=MAX_LENGTH)
    assert total == one_at_a_time
    print(f"document of {document.size} tokens: loglik {total:.3f}, "
          f"perplexity {math.exp(-total / document.size):.3f}, {calls} model calls "
          f"(one window at a time: {lm.calls - calls})")


if __name__ == "__main__":
    main()
