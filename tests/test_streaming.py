"""fastmetrics.streaming: any split into chunks, merged in any order, equals the one-shot
functions on the concatenated data (exactly for integer states, 1e-12 relative for float
sums); pickling mid-stream; errors; memory independent of the rows seen."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import (
    average_precision_score as sk_ap,
    cohen_kappa_score as sk_kappa,
    confusion_matrix as sk_cm,
    f1_score as sk_f1,
    roc_auc_score as sk_auc,
)

import fastmetrics as fm
from fastmetrics.streaming import (
    CalibrationAccumulator,
    ConfusionAccumulator,
    RankingAccumulator,
    RegressionAccumulator,
)

# ----------------------------------------------------------------------------- helpers


@st.composite
def splits(draw, n):
    """Chunk boundaries of range(n) (empty chunks allowed) and a merge plan."""
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=6)))
    bounds = [0, *cuts, n]
    k = len(bounds) - 1
    order = draw(st.permutations(range(k)))
    tree = draw(st.booleans())
    return bounds, order, tree


def chunks(bounds, *arrays):
    for a, b in zip(bounds[:-1], bounds[1:]):
        yield tuple(None if x is None else x[a:b] for x in arrays)


def combine(accs, order, tree):
    """Merge accumulators in a permuted order, as a fold or as a pairwise tree."""
    accs = [accs[i] for i in order]
    if not tree:
        out = accs[0]
        for a in accs[1:]:
            out = out.merge(a)
        return out
    while len(accs) > 1:
        nxt = [accs[i] + accs[i + 1] for i in range(0, len(accs) - 1, 2)]
        if len(accs) % 2:
            nxt.append(accs[-1])
        accs = nxt
    return accs[0]


def streamed(make, plan, *arrays):
    bounds, order, tree = plan
    accs = []
    for parts in chunks(bounds, *arrays):
        acc = make()
        acc.update(*parts)
        accs.append(acc)
    return combine(accs, order, tree)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def fed(make, times, *arrays):
    """A new accumulator after ``times`` updates with the same chunk."""
    acc = make()
    for _ in range(times):
        acc.update(*arrays)
    return acc


def fed_maybe_pickled(acc, chunk, data):
    """``acc`` after one update on a drawn thread count, or a pickled copy of it."""
    acc.update(*chunk, n_threads=data.draw(st.sampled_from([None, 1, 2, 3]), label="threads"))
    if data.draw(st.booleans(), label="pickle"):
        acc = pickle.loads(pickle.dumps(acc))
    return acc


def small_as(big, small):
    """``big`` (many more rows seen) pickles to the size of ``small`` (the counters' integers
    may take a few more bytes)."""
    return len(pickle.dumps(big)) <= len(pickle.dumps(small)) + 16


def close(a, b, rtol=1e-12, atol=1e-15):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


labels_1d = st.integers(1, 120).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 5), min_size=n, max_size=n),
        st.lists(st.integers(0, 5), min_size=n, max_size=n),
    )
)


# ----------------------------------------------------------------------------- confusion


@given(labels_1d, st.data(), st.sampled_from([np.int8, np.int32, np.uint16, np.int64]))
def test_confusion_any_split_any_order_is_exact(yy, data, dtype):
    yt, yp = (np.array(v, dtype=dtype) for v in yy)
    acc = streamed(ConfusionAccumulator, data.draw(splits(len(yt))), yt, yp)
    warnings.simplefilter("ignore")  # single-label warnings: pytest restores the filters
    assert acc.n_samples == len(yt)
    assert acc.result().to_flat_dict() == fm.score(yt, yp).to_flat_dict()
    np.testing.assert_array_equal(acc.confusion_matrix(), sk_cm(yt, yp))
    assert acc.confusion_matrix().dtype == np.int64
    np.testing.assert_array_equal(acc.confusion_matrix(normalize="true"),
                                  fm.confusion_matrix(yt, yp, normalize="true"))
    assert quiet(acc.f1_score, average="macro") == quiet(sk_f1, yt, yp, average="macro")
    assert quiet(acc.matthews_corrcoef) == quiet(fm.matthews_corrcoef, yt, yp)
    assert quiet(acc.balanced_accuracy_score) == quiet(fm.balanced_accuracy_score, yt, yp)
    k1, k2 = quiet(acc.cohen_kappa_score), quiet(sk_kappa, yt, yp)
    assert k1 == k2 or (np.isnan(k1) and np.isnan(k2)) or abs(k1 - k2) < 1e-12
    assert quiet(acc.classification_report, digits=4) == quiet(
        fm.classification_report, yt, yp, digits=4)
    np.testing.assert_array_equal(acc.multilabel_confusion_matrix(),
                                  fm.multilabel_confusion_matrix(yt, yp))
    assert acc.accuracy_score(normalize=False) == fm.accuracy_score(yt, yp, normalize=False)


def _outcome(fn, *args, **kwargs):
    """("ok", result as a list) or ("error", type name, message): equal when two calls give
    the same values or raise the same error."""
    try:
        return ("ok", np.asarray(fn(*args, **kwargs)).tolist())
    except (ValueError, TypeError) as exc:
        return ("error", type(exc).__name__, str(exc))


@given(labels_1d, st.data())
def test_confusion_fixed_labels_equal_score_with_labels(yy, data):
    yt, yp = (np.array(v, dtype=np.int32) for v in yy)
    warnings.simplefilter("ignore")
    labels = [5, 4, 3, 2, 1, 0, 7]  # 7 never occurs; the card keeps this order
    acc = streamed(lambda: ConfusionAccumulator(labels=labels), data.draw(splits(len(yt))),
                   yt, yp)
    card = acc.result(oos_label=0)
    assert card.to_flat_dict() == fm.score(yt, yp, labels=labels, oos_label=0).to_flat_dict()
    np.testing.assert_array_equal(card.confusion_matrix,
                                  fm.score(yt, yp, labels=labels).confusion_matrix)
    # metrics without labels= use the labels present, as the one-shot functions
    np.testing.assert_array_equal(acc.confusion_matrix(), sk_cm(yt, yp))
    # same matrix, or the same error (none of these labels in y_true)
    assert _outcome(acc.confusion_matrix, labels=[7, 0, 1]) == _outcome(
        fm.confusion_matrix, yt, yp, labels=[7, 0, 1])
    p1 = quiet(acc.precision_recall_fscore_support, average=None)
    p2 = quiet(fm.precision_recall_fscore_support, yt, yp, average=None)
    for a, b in zip(p1, p2):
        np.testing.assert_array_equal(a, b)
    assert quiet(acc.recall_score, average="weighted") == quiet(
        fm.recall_score, yt, yp, average="weighted")


@given(labels_1d, st.data())
def test_confusion_weighted_to_1e12(yy, data):
    yt, yp = (np.array(v) for v in yy)
    w = data.draw(st.lists(st.floats(0.01, 100.0), min_size=len(yt), max_size=len(yt)))
    w = np.array(w)
    warnings.simplefilter("ignore")
    acc = streamed(ConfusionAccumulator, data.draw(splits(len(yt))), yt, yp, w)
    one = fm.score(yt, yp, sample_weight=w).to_flat_dict()
    got = acc.result().to_flat_dict()
    assert got.keys() == one.keys()
    keys = [k for k in one if one[k] is not None]
    assert all(got[k] is None for k in one if one[k] is None)
    close([got[k] for k in keys], [one[k] for k in keys])
    close(acc.confusion_matrix(), sk_cm(yt, yp, sample_weight=w))
    close(quiet(acc.f1_score, average="weighted"),
          quiet(sk_f1, yt, yp, average="weighted", sample_weight=w))


def test_confusion_int_weights_keep_int_matrix():
    yt, yp = np.array([0, 1, 1, 2]), np.array([0, 1, 2, 2])
    w = np.array([1, 2, 3, 4])
    acc = ConfusionAccumulator().update(yt[:2], yp[:2], w[:2]) + \
        ConfusionAccumulator().update(yt[2:], yp[2:], w[2:])
    cm = acc.confusion_matrix()
    np.testing.assert_array_equal(cm, fm.confusion_matrix(yt, yp, sample_weight=w))
    assert cm.dtype == fm.confusion_matrix(yt, yp, sample_weight=w).dtype


def test_confusion_string_labels_discovered_and_aligned():
    a = ConfusionAccumulator().update(["cat", "dog"], ["cat", "cat"])
    b = ConfusionAccumulator().update(["emu", "ant"], ["emu", "dog"])
    yt = ["cat", "dog", "emu", "ant"]
    yp = ["cat", "cat", "emu", "dog"]
    for acc in (a + b, b + a):
        np.testing.assert_array_equal(acc.confusion_matrix(), sk_cm(yt, yp))
        assert acc.result().to_flat_dict() == fm.score(yt, yp).to_flat_dict()


def test_confusion_sum_and_inputs_untouched():
    rng = np.random.default_rng(0)
    yt, yp = rng.integers(0, 4, 300), rng.integers(0, 4, 300)
    parts = [ConfusionAccumulator().update(yt[i:i + 100], yp[i:i + 100]) for i in (0, 100, 200)]
    before = [p.confusion_matrix().copy() for p in parts]
    total = sum(parts)
    np.testing.assert_array_equal(total.confusion_matrix(), sk_cm(yt, yp))
    total.update(yt, yp)  # updating the merged result leaves its inputs alone
    for p, b in zip(parts, before):
        np.testing.assert_array_equal(p.confusion_matrix(), b)
    assert total.n_samples == 600


def test_confusion_pickle_mid_stream_keeps_working():
    rng = np.random.default_rng(1)
    yt, yp = rng.integers(0, 5, 1000), rng.integers(0, 5, 1000)
    for labels in (None, [0, 1, 2, 3, 4]):
        acc = ConfusionAccumulator(labels=labels).update(yt[:400], yp[:400])
        acc = pickle.loads(pickle.dumps(acc))
        acc.update(yt[400:], yp[400:])
        assert acc.result().to_flat_dict() == fm.score(yt, yp, labels=labels).to_flat_dict()
        acc2 = pickle.loads(pickle.dumps(acc))
        assert (acc2 + ConfusionAccumulator(labels=labels)).n_samples == 1000


def test_confusion_errors():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ConfusionAccumulator().update([0, 1], [0])
    acc = ConfusionAccumulator(labels=[0, 1, 2])
    with pytest.raises(ValueError, match=r"outside the fixed labels: \[7\]"):
        acc.update([0, 7], [0, 1])
    assert acc.n_samples == 0  # the failed chunk left nothing behind
    with pytest.raises(ValueError, match="another type"):
        acc.update(["a"], ["b"])
    with pytest.raises(ValueError, match="different labels configurations"):
        acc.merge(ConfusionAccumulator(labels=[0, 1]))
    with pytest.raises(ValueError, match="different labels configurations"):
        acc.merge(ConfusionAccumulator())
    with pytest.raises(TypeError, match="cannot merge"):
        acc.merge(RegressionAccumulator())
    with pytest.raises(TypeError):
        acc + 1
    with pytest.raises(ValueError, match="duplicates"):
        ConfusionAccumulator(labels=[1, 1])
    with pytest.raises(ValueError, match="no samples seen"):
        acc.result()
    w = ConfusionAccumulator().update([0, 1], [0, 1], [1.0, 2.0])
    with pytest.raises(ValueError, match="sample_weight was given for some chunks"):
        w.update([0], [1])
    with pytest.raises(ValueError, match="sample_weight was given for some chunks"):
        w.merge(ConfusionAccumulator().update([0], [1]))
    with pytest.raises(ValueError, match="Mix of label input types"):
        ConfusionAccumulator().update([0], [0]).merge(ConfusionAccumulator().update(["a"], ["a"]))
    # an empty chunk is a no-op, even the first one
    assert ConfusionAccumulator().update(np.array([], int), np.array([], int)).n_samples == 0


fixed_label_sets = st.one_of(
    # spans <= 64: counted straight into the running table (the fast update path)
    st.integers(-70, 60).flatmap(
        lambda lo: st.lists(st.integers(lo, lo + 63), min_size=1, max_size=12, unique=True)),
    # wider spans and labels near the dtype limits: the general path
    st.lists(st.integers(-200, 200), min_size=2, max_size=8, unique=True),
    st.just([0, 2**62, 2**63 - 1]),
)


@given(fixed_label_sets, st.data())
def test_confusion_fixed_labels_fast_path_matches_one_shot(labels, data):
    """Any mix of chunk kinds (native int arrays of several dtypes, lists, bool arrays, and
    chunks with a label outside the fixed ones, which must raise and leave nothing behind),
    thread counts and pickling, against one call on the accepted chunks."""
    warnings.simplefilter("ignore")
    lab = np.array(labels)
    outside = int(lab.max()) + 1 if int(lab.max()) < 2**63 - 1 else int(lab.min()) - 1
    if int(lab.min()) < 0 or int(lab.max()) >= 2**31:
        dtypes = [np.int64] + ([np.int32, np.int16] if np.abs(lab).max() < 2**15 else [])
    else:
        dtypes = [np.int64, np.uint8, np.int32, np.uint64] if lab.max() < 256 else [np.int64]
    acc = ConfusionAccumulator(labels=labels)
    kept_t, kept_p = [], []
    for _ in range(data.draw(st.integers(1, 5), label="chunks")):
        n = data.draw(st.integers(0, 40), label="n")
        yt = data.draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
        yp = data.draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
        kind = data.draw(st.sampled_from(["array", "list", "bad"]), label="kind")
        if kind == "bad" and n:
            where = data.draw(st.integers(0, n - 1))
            (yt if data.draw(st.booleans()) else yp)[where] = outside
            before = acc.n_samples
            with pytest.raises(ValueError, match="outside the fixed labels|another type"):
                acc.update(np.array(yt), np.array(yp))
            assert acc.n_samples == before  # nothing of the failed chunk counted
            continue
        if kind == "array":
            dt = data.draw(st.sampled_from(dtypes))
            chunk = (np.array(yt, dtype=dt), np.array(yp, dtype=dt))
        else:
            chunk = (yt, yp)
        acc = fed_maybe_pickled(acc, chunk, data)
        kept_t += yt
        kept_p += yp
    assert acc.n_samples == len(kept_t)
    if not kept_t:
        return
    yt, yp = np.array(kept_t), np.array(kept_p)
    assert acc.result().to_flat_dict() == fm.score(yt, yp, labels=labels).to_flat_dict()
    np.testing.assert_array_equal(acc.confusion_matrix(), fm.confusion_matrix(yt, yp))
    np.testing.assert_array_equal(acc.state.values, np.unique(lab))
    # bool chunks read as 0/1 labels
    if {0, 1} <= set(labels):
        acc.update(np.array([True, False]), np.array([True, True]))
        one = fm.confusion_matrix(np.r_[yt, 1, 0], np.r_[yp, 1, 1], labels=labels)
        np.testing.assert_array_equal(acc.confusion_matrix(labels=labels), one)


@given(st.data())
def test_confusion_discovered_labels_many_chunks_match_one_shot(data):
    """One accumulator with discovered labels fed many chunks: labels inside the running
    table (fast path), labels far outside it, other dtypes, lists, bool arrays and strided
    views, pickled between chunks, against one call on everything."""
    warnings.simplefilter("ignore")
    acc = ConfusionAccumulator()
    seen_t, seen_p = [], []
    base = data.draw(st.integers(-40, 40), label="base")
    for _ in range(data.draw(st.integers(1, 6), label="chunks")):
        n = data.draw(st.integers(0, 30), label="n")
        far = data.draw(st.sampled_from([0, 0, 0, 70, -300, 2**40]), label="far")
        pool = st.integers(base, base + 9) | st.integers(base + far, base + far + 3)
        yt = data.draw(st.lists(pool, min_size=n, max_size=n))
        yp = data.draw(st.lists(pool, min_size=n, max_size=n))
        kind = data.draw(st.sampled_from(["int32", "int32", "int64", "int16", "list",
                                          "strided"]), label="kind")
        if kind == "list":
            chunk = (yt, yp)
        elif kind == "strided":
            chunk = (np.repeat(np.array(yt, dtype=np.int64), 2)[::2],
                     np.repeat(np.array(yp, dtype=np.int64), 2)[::2])
        else:
            dt = np.dtype(kind)
            if max(map(abs, yt + yp), default=0) >= np.iinfo(dt).max:
                dt = np.dtype(np.int64)
            chunk = (np.array(yt, dtype=dt), np.array(yp, dtype=dt))
        acc = fed_maybe_pickled(acc, chunk, data)
        seen_t += yt
        seen_p += yp
    assert acc.n_samples == len(seen_t)
    if not seen_t:
        return
    yt, yp = np.array(seen_t), np.array(seen_p)
    assert acc.result().to_flat_dict() == fm.score(yt, yp).to_flat_dict()
    np.testing.assert_array_equal(acc.confusion_matrix(), sk_cm(yt, yp))
    np.testing.assert_array_equal(acc.state.values, np.union1d(yt, yp))
    acc.update(np.array([True]), np.array([False]))  # bool chunks: labels 0 and 1
    np.testing.assert_array_equal(acc.confusion_matrix(),
                                  sk_cm(np.r_[yt, 1], np.r_[yp, 0]))


def test_confusion_discovered_labels_keep_the_one_shot_dtype_and_errors():
    a = ConfusionAccumulator().update(np.array([0, 1], np.int8), np.array([1, 1], np.int8))
    a.update(np.array([2, 1], np.int8), np.array([0, 1], np.int8))  # the running table
    assert a.state.values.dtype == np.int8
    assert a.state.values.tolist() == [0, 1, 2]
    a.update(np.array([3]), np.array([3]))  # int64: general path, labels promoted
    assert a.state.values.dtype == np.int64
    np.testing.assert_array_equal(a.confusion_matrix(),
                                  sk_cm([0, 1, 2, 1, 3], [1, 1, 0, 1, 3]))
    b = ConfusionAccumulator().update(np.array([0, 1]), np.array([1, 1]))
    b.update(np.array([1, 0]), np.array([0, 0]))  # counted in the table, not yet folded
    with pytest.raises(ValueError, match="Mix of label input types"):
        b.update(["a"], ["b"])  # raises at the update, as without the table
    with pytest.raises(ValueError, match="sample_weight was given for some chunks"):
        b.update(np.array([0]), np.array([1]), [1.0])
    assert b.n_samples == 4


def test_confusion_concurrent_updates_of_one_accumulator():
    """Eight Python threads update one accumulator at once (chunks big enough to use the
    OpenMP threads too): no count is lost."""
    import threading

    rng = np.random.default_rng(5)
    n, parts = 2**19, 16
    yt = rng.integers(0, 10, n * parts, dtype=np.int32)
    yp = rng.integers(0, 10, n * parts, dtype=np.int32)
    for labels in (np.arange(10), np.arange(12)[::-1], None):
        acc = ConfusionAccumulator(labels=labels)
        todo = list(range(parts))
        lock = threading.Lock()

        def work():
            while True:
                with lock:
                    if not todo:
                        return
                    i = todo.pop()
                acc.update(yt[i * n:(i + 1) * n], yp[i * n:(i + 1) * n], n_threads=2)
                acc.n_samples  # reads (which fold the running table) interleave with updates

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert acc.n_samples == n * parts
        np.testing.assert_array_equal(acc.confusion_matrix(labels=labels),
                                      sk_cm(yt, yp, labels=labels))
        if labels is None:
            assert acc._table is not None  # the chunks after the first took the fast path


@pytest.mark.parametrize("n_threads", [1, 2, 8])
def test_confusion_fixed_labels_big_chunks_any_thread_count(n_threads):
    """Chunks past the threading threshold: the same counts for 1, 2 and 8 threads, and a
    label outside the fixed ones (first, middle or last sample) raises and adds nothing."""
    rng = np.random.default_rng(6)
    n = 2**20 + 3
    yt = rng.integers(-3, 7, n).astype(np.int16)
    yp = rng.integers(-3, 7, n).astype(np.int16)
    labels = np.arange(-3, 7)
    acc = ConfusionAccumulator(labels=labels).update(yt, yp, n_threads=n_threads)
    acc.update(yt[::3], yp[::3], n_threads=n_threads)  # strided views are read in place
    ref = sk_cm(np.r_[yt, yt[::3]], np.r_[yp, yp[::3]], labels=labels)
    np.testing.assert_array_equal(acc.confusion_matrix(labels=labels), ref)
    for where in (0, n // 2, n - 1):
        for arr in ("y_true", "y_pred"):
            bt, bp = yt.copy(), yp.copy()
            (bt if arr == "y_true" else bp)[where] = 7  # inside the 16-wide table, not a label
            with pytest.raises(ValueError, match=r"outside the fixed labels: \[7\]"):
                acc.update(bt, bp, n_threads=n_threads)
    np.testing.assert_array_equal(acc.confusion_matrix(labels=labels), ref)
    with pytest.raises(ValueError, match="n_threads must be >= 1"):
        acc.update(yt[:10], yp[:10], n_threads=0)


def test_confusion_fixed_labels_near_the_int64_limits():
    """uint64 chunks against signed fixed labels: a value >= 2**63 never lands on a negative
    label (modulo 2**64 it would), and labels near 2**63 compare exactly on every path."""
    acc = ConfusionAccumulator(labels=[-1, 0, 1])
    bad = np.array([-1, 0, 1, 0]).astype(np.uint64)  # -1 stored as 2**64 - 1
    with pytest.raises(ValueError, match="uint64 values >= 2"):
        acc.update(bad, np.zeros(4, np.uint64))
    assert acc.n_samples == 0
    acc.update(np.array([0, 1], np.uint64), np.array([1, 1], np.uint64))
    np.testing.assert_array_equal(acc.confusion_matrix(labels=[-1, 0, 1]),
                                  [[0, 0, 0], [0, 0, 1], [0, 0, 1]])
    top = [2**63 - 2, 2**63 - 1]
    yt = np.array([2**63 - 1, 2**63 - 2], np.uint64)
    yp = np.array([2**63 - 1, 2**63 - 1], np.uint64)
    acc = ConfusionAccumulator(labels=top)
    acc.update(yt, yp)  # the running table
    acc.update(yt.tolist(), yp.tolist())  # the general path
    np.testing.assert_array_equal(acc.confusion_matrix(), [[0, 2], [0, 2]])
    np.testing.assert_array_equal(fm.confusion_matrix(yt, yp, labels=top), [[0, 1], [0, 1]])


def test_confusion_old_pickles_and_protocol_0():
    """An accumulator pickled before the running table existed (its dict held ``_state``)
    loads and keeps counting; protocols 0 and 1 work for an empty accumulator."""
    from fastmetrics.states import ConfusionState

    confusion_state = ConfusionState.from_arrays
    for labels in (None, [0, 1, 2]):
        acc = ConfusionAccumulator.__new__(ConfusionAccumulator)
        acc.__setstate__({
            "labels": None if labels is None else np.array(labels),
            "_values": None if labels is None else np.array(labels),
            "_state": confusion_state([0, 1, 2], [0, 1, 1]), "_weighted": False,
        })
        assert acc.n_samples == 3
        acc.update(np.array([2, 2]), np.array([2, 0]))
        np.testing.assert_array_equal(acc.confusion_matrix(),
                                      sk_cm([0, 1, 2, 2, 2], [0, 1, 1, 2, 0]))
        for protocol in (0, 1):
            empty = pickle.loads(pickle.dumps(ConfusionAccumulator(labels), protocol=protocol))
            assert empty.update([0], [1]).n_samples == 1


def test_confusion_memory_independent_of_rows():
    rng = np.random.default_rng(2)
    yt, yp = rng.integers(0, 10, 1000), rng.integers(0, 10, 1000)
    for labels in (list(range(10)), None):
        a = fed(lambda: ConfusionAccumulator(labels), 10, yt, yp)
        b = fed(lambda: ConfusionAccumulator(labels), 1000, yt, yp)
        assert b.n_samples == 100 * a.n_samples
        assert small_as(b, a)
        assert b.state.cm.nbytes == a.state.cm.nbytes == 800


# ----------------------------------------------------------------------------- calibration


binary_probs = st.integers(1, 150).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 1), min_size=n, max_size=n),
        st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.5, 0.7, 0.8, 1.0])
                 | st.floats(0.0, 1.0), min_size=n, max_size=n),
    )
)


@given(binary_probs, st.integers(1, 12), st.data())
def test_calibration_any_split_equals_one_shot(yp, n_bins, data):
    y, p = np.array(yp[0]), np.array(yp[1])
    plan = data.draw(splits(len(y)))
    acc = streamed(lambda: CalibrationAccumulator(n_bins), plan, y, p)
    got, one = acc.result(), fm.calibration_summary(y, p, n_bins=n_bins)
    np.testing.assert_array_equal(got.bins.counts, one.bins.counts)
    close([got.ece, got.mce, got.brier], [one.ece, one.mce, one.brier])
    assert got.n_bins == n_bins
    ref = fm.calibration_curve(y, p, n_bins=n_bins)
    for a, b in zip(acc.curve(), ref):
        close(a, b)


@given(binary_probs, st.data())
def test_calibration_weighted_and_given_edges(yp, data):
    y, p = np.array(yp[0]), np.array(yp[1])
    w = np.array(data.draw(st.lists(st.floats(0.1, 10.0), min_size=len(y), max_size=len(y))))
    edges = np.array([0.0, 0.15, 0.5, 0.55, 1.0])
    acc = streamed(lambda: CalibrationAccumulator(edges=edges), data.draw(splits(len(y))),
                   y, p, w)
    b = acc.bins()
    idx = np.searchsorted(edges[1:-1], p, side="left")  # closed on the right
    np.testing.assert_array_equal(b.counts, np.bincount(idx, minlength=4))
    close(b.weights, np.bincount(idx, weights=w, minlength=4))
    ref = fm.calibration_summary(y, p, n_bins=4, sample_weight=w)
    close(acc.result().brier, ref.brier)
    with pytest.raises(ValueError, match="unweighted"):
        acc.curve()


def test_calibration_top_label_pickle_and_errors():
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(3), 500)
    y = rng.integers(0, 3, 500)
    acc = CalibrationAccumulator(15).update(y[:200], P[:200])
    acc = pickle.loads(pickle.dumps(acc)).update(y[200:], P[200:])
    one = fm.calibration_summary(y, P, n_bins=15)
    close([acc.result().ece, acc.result().mce, acc.result().brier], [one.ece, one.mce, one.brier])
    with pytest.raises(ValueError, match="cannot be mixed"):
        acc.update(y[:5], P[:5, 0])
    with pytest.raises(ValueError, match="binary and top-label"):
        acc.merge(CalibrationAccumulator(15).update([0, 1], [0.2, 0.7]))
    with pytest.raises(ValueError, match="different edges"):
        acc.merge(CalibrationAccumulator(10))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        CalibrationAccumulator().update([0, 1], [0.5])
    with pytest.raises(ValueError, match="outside"):
        CalibrationAccumulator().update([0], [1.5])
    with pytest.raises(ValueError, match="strictly increasing"):
        CalibrationAccumulator(edges=[0.0, 0.6, 0.5, 1.0])
    with pytest.raises(ValueError, match="no samples seen"):
        CalibrationAccumulator().result()
    a, b = fed(CalibrationAccumulator, 10, y, P), fed(CalibrationAccumulator, 300, y, P)
    assert small_as(b, a)


def test_calibration_remembers_a_non_zero_weight_through_merge_and_pickle():
    # what picks brier_score_loss's error when the weights sum to zero (fastmetrics.dask)
    def acc(w):
        return CalibrationAccumulator(1).update([0, 1], [0.2, 0.7], sample_weight=w)

    assert not acc([0.0, 0.0]).state.any_weight
    assert acc([1.0, -1.0]).state.any_weight  # the chunk's sum is zero, one weight is not
    assert (acc([0.0, 0.0]) + acc([0.0, 2.0])).state.any_weight
    assert not sum([acc([0.0, 0.0]), acc([0.0, 0.0])]).state.any_weight
    assert pickle.loads(pickle.dumps(acc([3.0, 0.0]))).state.any_weight
    # pickled by 0.1.0 before the attribute existed: its __dict__ had no _any_weight
    old = CalibrationAccumulator.__new__(CalibrationAccumulator)
    old.__setstate__({"edges": np.linspace(0, 1, 2), "_uniform": True, "pos_label": None,
                      "labels": None, "_state": np.array([[0.0, 0.0, 0.0, 0.0, 2.0]]),
                      "_mode": "binary", "_weighted": True})
    old = pickle.loads(pickle.dumps(old))
    assert not old.state.any_weight and (old + acc([0.0, 1.0])).state.any_weight


# ----------------------------------------------------------------------------- regression


reg_data = st.integers(2, 150).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(-1e3, 1e3) | st.sampled_from([0.0, 1.0, 2.5]), min_size=n, max_size=n),
        st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n),
        st.lists(st.floats(0.01, 10.0), min_size=n, max_size=n),
    )
)


@given(reg_data, st.booleans(), st.data())
def test_regression_any_split_equals_one_shot(d, weighted, data):
    yt, yp, w = (np.array(v) for v in d)
    w = w if weighted else None
    acc = streamed(lambda: RegressionAccumulator(keep_values=True, delta=2.0),
                   data.draw(splits(len(yt))), yt, yp, w)
    assert acc.n_samples == len(yt)
    one = fm.regression_summary(yt, yp, sample_weight=w)
    got = acc.result()
    close([got.mae, got.mse, got.rmse], [one.mae, one.mse, one.rmse])
    assert got.n_samples == one.n_samples
    # R² = 1 - SSE / SST: its error is relative to SSE / SST, not to R² itself
    scale = max(1.0, abs(1.0 - one.r2))
    assert abs(got.r2 - one.r2) <= 1e-12 * scale
    r2 = acc.r2_score(force_finite=False)
    r2_one = fm.r2_score(yt, yp, sample_weight=w, force_finite=False)
    assert (np.isinf(r2) and r2 == r2_one) or (np.isnan(r2) and np.isnan(r2_one)) \
        or abs(r2 - r2_one) <= 1e-12 * max(1.0, abs(1 - r2_one))
    close(acc.mean_absolute_percentage_error(),
          fm.mean_absolute_percentage_error(yt, yp, sample_weight=w))
    close(acc.huber_loss(), fm.huber_loss(yt, yp, delta=2.0, sample_weight=w))
    assert acc.median_absolute_error() == fm.median_absolute_error(yt, yp, sample_weight=w)
    close(acc.root_mean_squared_error(multioutput="raw_values"),
          fm.root_mean_squared_error(yt, yp, sample_weight=w, multioutput="raw_values"))


def test_regression_pickle_memory_and_errors():
    rng = np.random.default_rng(4)
    yt, yp = rng.standard_normal(1000), rng.standard_normal(1000)
    acc = pickle.loads(pickle.dumps(RegressionAccumulator().update(yt[:300], yp[:300])))
    acc.update(yt[300:], yp[300:])
    close(acc.mean_squared_error(), fm.mean_squared_error(yt, yp))
    close(acc.adjusted_r2_score(n_features=3),
          fm.adjusted_r2_score(yt, yp, n_features=3), rtol=1e-11)
    a, b = fed(RegressionAccumulator, 10, yt, yp), fed(RegressionAccumulator, 1000, yt, yp)
    assert small_as(b, a)
    with pytest.raises(ValueError, match="keep_values=True"):
        b.median_absolute_error()
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        a.update([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="NaN"):
        a.update([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="different delta"):
        a.merge(RegressionAccumulator(delta=3.0))
    with pytest.raises(ValueError, match="no samples seen"):
        RegressionAccumulator().result()
    with pytest.raises(ValueError, match="sample_weight was given"):
        a.update([1.0], [2.0], sample_weight=[1.0])


def test_kept_values_not_shared_by_merge_sum_or_pickle():
    """The O(N) modes grow their lists in place: a merge, ``sum`` or a pickled copy owns
    its lists, so updating one accumulator leaves every other one as it was."""
    rng = np.random.default_rng(7)
    yt, yp, w = rng.standard_normal(90), rng.standard_normal(90), rng.random(90)
    parts = [slice(0, 30), slice(30, 60), slice(60, 90)]
    reg = (lambda: RegressionAccumulator(keep_values=True),
           lambda i: (yt[parts[i]], yp[parts[i]], w[parts[i]]),
           lambda acc: acc.median_absolute_error(),
           lambda ix: fm.median_absolute_error(yt[ix], yp[ix], sample_weight=w[ix]))
    qua = (lambda: QuantileAccumulator(mode="exact"),
           lambda i: (yt[parts[i]],),
           lambda acc: acc.result([0.5, 0.9]).values.tolist(),
           lambda ix: np.quantile(yt[ix], [0.5, 0.9]).tolist())
    for make, chunk, value, want in (reg, qua):
        a, b = make().update(*chunk(0)), make().update(*chunk(1))
        merged, total = a + b, sum([a, b])
        copy = pickle.loads(pickle.dumps(a))
        a.update(*chunk(2))
        merged.update(*chunk(2))
        r = np.r_
        assert value(a) == want(r[0:30, 60:90]) and a.n_samples == 60
        assert value(merged) == want(r[0:90]) and merged.n_samples == 90
        assert value(b) == want(r[30:60]) and b.n_samples == 30
        assert value(total) == want(r[0:60]) and total.n_samples == 60
        assert value(copy) == want(r[0:30]) and copy.n_samples == 30


# ----------------------------------------------------------------------------- ranking

rank_data = st.integers(1, 150).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 1), min_size=n, max_size=n),
        st.lists(st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.9]) | st.floats(-5, 5),
                 min_size=n, max_size=n),
        st.lists(st.floats(0.0, 5.0), min_size=n, max_size=n),
    )
)


@given(rank_data, st.booleans(), st.data())
def test_ranking_exact_any_split_equals_one_shot(d, weighted, data):
    y, s, w = (np.array(v) for v in d)
    w = w if weighted else None
    if weighted and not w.any():
        w[0] = 1.0  # all-zero weights are an error, one-shot and streamed
    acc = streamed(RankingAccumulator, data.draw(splits(len(y))), y, s, w)
    r = quiet(acc.result)
    assert r.mode == "exact"
    assert r.n_positive == int((y == 1).sum()) and r.n_negative == int((y == 0).sum())
    auc = quiet(fm.roc_auc_score, y, s, sample_weight=w)
    ap = quiet(fm.average_precision_score, y, s, sample_weight=w)
    if np.isnan(auc):
        assert np.isnan(r.roc_auc)
    else:
        close(r.roc_auc, auc)
        assert r.roc_auc_bounds == (r.roc_auc, r.roc_auc)
    close(r.average_precision, ap)
    if len(np.unique(y)) == 2 and not weighted:
        close(r.roc_auc, sk_auc(y, s))
        close(r.average_precision, sk_ap(y, s))
    for a, b in zip(quiet(acc.roc_curve), quiet(fm.roc_curve, y, s, sample_weight=w)):
        close(a, b)
    for a, b in zip(quiet(acc.precision_recall_curve),
                    quiet(fm.precision_recall_curve, y, s, sample_weight=w)):
        close(a, b)


@given(rank_data, st.data())
def test_ranking_binned_bounds_hold(d, data):
    y, s, _ = (np.array(v) for v in d)
    if len(np.unique(y)) < 2:
        y = np.concatenate([y, [0, 1]])
        s = np.concatenate([s, [0.2, 0.4]])
    thresholds = np.array(sorted(data.draw(st.sets(st.floats(-5, 5), min_size=1, max_size=8))))
    acc = streamed(lambda: RankingAccumulator(thresholds=thresholds),
                   data.draw(splits(len(y))), y, s)
    r = acc.result()
    assert r.mode == "binned" and "bounds" in r.guarantee
    auc, ap = fm.roc_auc_score(y, s), fm.average_precision_score(y, s)
    lo, hi = r.roc_auc_bounds
    assert lo - 1e-12 <= auc <= hi + 1e-12 and lo - 1e-12 <= r.roc_auc <= hi + 1e-12
    # plain floats, as the record declares (np.float64 leaked into some bounds)
    assert {type(v) for v in (r.roc_auc, *r.roc_auc_bounds, *r.average_precision_bounds)} \
        == {float}
    lo, hi = r.average_precision_bounds
    assert lo - 1e-12 <= ap <= hi + 1e-12 and lo - 1e-12 <= r.average_precision <= hi + 1e-12
    # with one threshold per distinct score, every bin holds one score: the result is exact
    u = np.unique(s)
    fine = streamed(lambda: RankingAccumulator(thresholds=u), data.draw(splits(len(y))), y, s)
    fr = fine.result()
    close(fr.roc_auc, auc)
    close(fr.average_precision, ap)


def test_ranking_pickle_memory_and_errors():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 2000), rng.random(2000)
    acc = pickle.loads(pickle.dumps(RankingAccumulator().update(y[:700], s[:700])))
    acc.update(y[700:], s[700:])
    close(acc.roc_auc_score(), fm.roc_auc_score(y, s))
    close(acc.roc_auc_score(max_fpr=0.3), fm.roc_auc_score(y, s, max_fpr=0.3))
    close(acc.average_precision_score(), fm.average_precision_score(y, s))
    t = np.linspace(0, 1, 101)[1:-1]
    a = fed(lambda: RankingAccumulator(thresholds=t), 10, y, s)
    b = fed(lambda: RankingAccumulator(thresholds=t), 300, y, s)
    assert small_as(b, a)
    lo, hi = b.result().roc_auc_bounds
    assert hi - lo < 0.02  # 100 bins of uniform scores: the bound is tight
    with pytest.raises(ValueError, match="more than two labels"):
        RankingAccumulator().update([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="more than two labels"):
        RankingAccumulator().update([0, 1], [0.1, 0.2]).update([2], [0.5])
    with pytest.raises(ValueError, match="different thresholds"):
        a.merge(RankingAccumulator())
    with pytest.raises(ValueError, match="non-finite"):
        a.update([0, 1], [0.1, np.nan])
    with pytest.raises(ValueError, match="non-finite"):
        RankingAccumulator().update([0, 1], [0.1, np.inf])
    with pytest.raises(ValueError, match="inconsistent|lengths|samples"):
        RankingAccumulator().update([0, 1], [0.1])
    with pytest.raises(ValueError, match="strictly increasing"):
        RankingAccumulator(thresholds=[0.5, 0.2])
    with pytest.raises(ValueError, match="no samples seen"):
        RankingAccumulator().result()
    zero = RankingAccumulator().update([0, 1], [0.1, 0.2], sample_weight=[0.0, 0.0])
    with pytest.raises(ValueError, match="non-zero"):
        zero.result()
    with pytest.raises(ValueError, match="sample_weight was given"):
        zero.update([0], [0.3])


# ----------------------------------------------------------------------------- quantiles

from fastmetrics.streaming import QuantileAccumulator  # noqa: E402

sketch_values = st.lists(
    st.floats(1e-6, 1e6) | st.floats(-1e6, -1e-6) | st.just(0.0) | st.sampled_from([1.0, 2.0]),
    min_size=1, max_size=200,
)
QS = [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0]


def sketch_state(acc):
    return acc.state.to_dict(as_lists=True)


@given(sketch_values, st.sampled_from([0.001, 0.01, 0.05]), st.data())
def test_sketch_relative_error_guarantee(values, alpha, data):
    x = np.array(values)
    # enough buckets for a 1e12 range of magnitudes: ln(1e12) / ln(gamma) ~ 28 / (2 alpha)
    acc = streamed(lambda: QuantileAccumulator(relative_accuracy=alpha, max_buckets=16384),
                   data.draw(splits(len(x))), x)
    assert acc.n_samples == len(x) and not acc.collapsed
    for method in ("lower", "higher", "nearest"):
        r = acc.result(QS, method=method)
        assert r.mode == "sketch" and r.relative_accuracy == alpha and r.method == method
        true = np.quantile(x, QS, method=method)
        assert np.all(np.abs(r.values - true) <= alpha * np.abs(true) * (1 + 1e-9)), method
    pos = np.abs(x) + 1.0  # one sign: linear interpolation keeps the guarantee
    acc = QuantileAccumulator(relative_accuracy=alpha, max_buckets=16384).update(pos)
    true = np.quantile(pos, QS)
    assert np.all(np.abs(acc.result(QS).values - true) <= alpha * true * (1 + 1e-9))


@given(st.lists(st.floats(-1e300, 1e300), min_size=1, max_size=200), st.data(),
       st.sampled_from([1, 8, 64]))
def test_sketch_any_split_any_order_same_counts(values, data, max_buckets):
    x = np.array(values)
    whole = QuantileAccumulator(max_buckets=max_buckets).update(x)
    acc = streamed(lambda: QuantileAccumulator(max_buckets=max_buckets),
                   data.draw(splits(len(x))), x)
    assert sketch_state(acc) == sketch_state(whole)
    assert acc.collapsed == whole.collapsed
    np.testing.assert_array_equal(acc.result(QS).values, whole.result(QS).values)


def test_sketch_merge_counts_exact_above_2_53():
    big = 2**53 + 1  # float64 would round it to 2**53
    for cap in (1, 2, 3, 4):
        a = QuantileAccumulator(max_buckets=cap).update([1.5])
        b = QuantileAccumulator(max_buckets=cap).update([1.5 * a.state.gamma ** 2])
        d = a.to_dict()  # the counts of 2**53 + 1 values in a's one bucket
        d["state"]["pos"] = d["state"]["pos"].copy()
        d["state"]["pos"][-1] = big
        d["state"]["n_samples"] = big
        a = QuantileAccumulator.from_dict(d)
        for m in (a + b, b + a):
            # a's bucket lies 2 below b's: slot cap - 3, or collapsed into slot 0
            want = [0] * cap
            want[max(cap - 3, 0)] += big
            want[cap - 1] += 1
            assert m.state.pos.tolist() == want and m.state.pos.dtype == np.int64
            assert int(m.state.pos.sum()) == big + 1


def test_sketch_collapse_keeps_the_high_quantiles():
    x = np.geomspace(1e-12, 1e12, 5000)
    acc = QuantileAccumulator(relative_accuracy=0.01, max_buckets=200).update(x)
    assert acc.collapsed and acc.state.pos.shape[0] == 200
    # 200 buckets of gamma = 1.0202 cover a factor e**4 ~ 55 below the largest value
    r = acc.result([0.99, 0.999, 1.0], method="lower")
    true = np.quantile(x, [0.99, 0.999, 1.0], method="lower")
    assert np.all(np.abs(r.values - true) <= 0.01 * true * (1 + 1e-9))
    assert "COLLAPSED" in r.guarantee
    low = acc.result([0.01], method="lower").values[0]
    assert low > np.quantile(x, 0.01, method="lower")  # collapsed: overestimated, as documented
    # the default 2048 buckets of alpha = 0.01 span a factor e**41 ~ 6e17
    assert not QuantileAccumulator().update(np.geomspace(1e-8, 1e8, 100)).collapsed
    assert QuantileAccumulator().update(x).collapsed  # 1e24


@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=100), st.data(),
       st.sampled_from(["linear", "lower", "higher", "nearest", "median_unbiased",
                        "inverted_cdf", "midpoint"]))
def test_quantile_exact_mode_is_numpy(values, data, method):
    x = np.array(values, dtype=np.int64)
    acc = streamed(lambda: QuantileAccumulator(mode="exact"), data.draw(splits(len(x))), x)
    r = acc.result(QS, method=method)
    assert r.mode == "exact" and r.relative_accuracy is None
    np.testing.assert_array_equal(r.values, np.quantile(x, QS, method=method))
    assert (r.min, r.max) == (x.min(), x.max())


def test_quantile_pickle_memory_and_errors():
    rng = np.random.default_rng(6)
    lat = rng.lognormal(0, 1, 10_000)
    acc = pickle.loads(pickle.dumps(QuantileAccumulator().update(lat[:3000])))
    acc.update(lat[3000:])
    true = np.quantile(lat, [0.5, 0.95, 0.99], method="lower")
    got = acc.result([0.5, 0.95, 0.99], method="lower")
    assert np.all(np.abs(got.values - true) <= 0.01 * true * (1 + 1e-9))
    assert got.as_dict().keys() == {0.5, 0.95, 0.99}
    ns = rng.integers(1, 10**9, 1000)  # int64 nanoseconds go to the kernel as they are
    a = fed(QuantileAccumulator, 10, ns)
    b = fed(QuantileAccumulator, 1000, ns)
    assert small_as(b, a) and b.n_samples == 10**6
    before = sketch_state(a)
    with pytest.raises(ValueError, match="NaN or infinity"):
        a.update([1.0, np.nan])
    assert sketch_state(a) == before and a.n_samples == 10_000  # nothing half-counted
    with pytest.raises(ValueError, match="NaN or infinity"):
        QuantileAccumulator(mode="exact").update([np.inf])
    with pytest.raises(TypeError, match="real numbers"):
        a.update(["a"])
    with pytest.raises(ValueError, match="relative_accuracy"):
        QuantileAccumulator(relative_accuracy=1.5)
    with pytest.raises(ValueError, match="max_buckets"):
        QuantileAccumulator(max_buckets=0)
    with pytest.raises(ValueError, match="mode"):
        QuantileAccumulator(mode="approx")
    with pytest.raises(ValueError, match="different mode"):
        a.merge(QuantileAccumulator(relative_accuracy=0.02))
    with pytest.raises(ValueError, match="range"):
        a.result([1.5])
    with pytest.raises(ValueError, match="sketch mode supports"):
        a.result([0.5], method="median_unbiased")
    with pytest.raises(ValueError, match="no samples seen"):
        QuantileAccumulator().result()
