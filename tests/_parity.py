"""Helpers to run fastmetrics and its reference side by side: same value, same warnings,
or both raising."""

import math
import warnings

import numpy as np


def run(fn, *args, **kwargs):
    """(result, exception, [(category, message)]) of one call, warnings recorded."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            out, exc = fn(*args, **kwargs), None
        except Exception as e:  # noqa: BLE001 - we compare exception types
            out, exc = None, e
    return out, exc, [(w.category, str(w.message)) for w in rec]


def _msgs(ws):
    return sorted({(c.__name__, m) for c, m in ws})


def assert_same(a, b, *, rtol=1e-12, exact_int=True, atol=0.0):
    """Recursive equality: ints/int arrays exactly, floats to rtol, NaN == NaN, same dtype kind."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a.keys()) == list(b.keys()), (a, b)
        for k in a:
            assert_same(a[k], b[k], rtol=rtol, atol=atol)
        return
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y, rtol=rtol, atol=atol)
        return
    if a is None or b is None:
        assert a is None and b is None, (a, b)
        return
    if isinstance(a, str):
        assert a == b, f"\n{a}\n!=\n{b}"
        return
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_, b_ = np.asarray(a), np.asarray(b)
        assert a_.shape == b_.shape, (a_.shape, b_.shape)
        assert a_.dtype == b_.dtype, (a_.dtype, b_.dtype)
        if a_.dtype.kind in "iub" or not exact_int:
            np.testing.assert_array_equal(a_, b_)
        elif a_.dtype.kind in "USO":
            assert a_.tolist() == b_.tolist()
        else:
            np.testing.assert_allclose(a_, b_, rtol=rtol, atol=0, equal_nan=True)
        return
    assert type(a) is type(b) or (isinstance(a, float) and isinstance(b, float)), (type(a), type(b))
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            assert math.isnan(a) and math.isnan(b), (a, b)
        else:
            assert a == b or abs(a - b) <= max(atol, rtol * max(abs(a), abs(b))), (a, b)
    else:
        assert a == b, (a, b)


def check_parity(ours, ref, *args, warnings_too=True, rtol=1e-12, atol=0.0, **kwargs):
    """Call both; same result (or both raise), and the same warnings."""
    o, oe, ow = run(ours, *args, **kwargs)
    r, re_, rw = run(ref, *args, **kwargs)
    if re_ is not None or oe is not None:
        assert re_ is not None and oe is not None, f"ours raised {oe!r}, reference raised {re_!r}"
        # sklearn's InvalidParameterError subclasses ValueError
        assert isinstance(oe, (ValueError, TypeError, ZeroDivisionError)), repr(oe)
        assert isinstance(re_, type(oe)) or isinstance(oe, type(re_)) or (
            isinstance(oe, ValueError) and isinstance(re_, (ValueError, TypeError))
        ), f"ours {oe!r} vs reference {re_!r}"
        return None
    assert_same(o, r, rtol=rtol, atol=atol)
    if warnings_too:
        assert _msgs(ow) == _msgs(rw), f"warnings differ:\nours {_msgs(ow)}\nref  {_msgs(rw)}"
    return o
