"""Array API inputs and outputs of the face functions, applied to them in one place.

Every public function of the metric modules is wrapped once, when the package is imported
(:func:`follow_namespaces`):

* inputs: arguments that are arrays of another library (torch tensors, array API arrays,
  anything with ``__dlpack__``) become numpy arrays through the input policy
  (:func:`fastmetrics._inputs.host_array`: host memory read in place, device memory copied to
  the host once) before the function runs; numpy arrays, lists, scalars and data-frame
  columns pass through untouched, at the cost of one type look-up per argument;
* the streaming accumulators' ``update`` methods read the same inputs
  (:func:`accept_foreign_updates`);
* outputs: with scikit-learn's ``array_api_dispatch`` on, the array results of the functions
  scikit-learn returns in the input's namespace (:data:`NAMESPACE_RESULTS`) come back as
  arrays of the predictions' (``y_pred``, ``y_score``) namespace, on their device, as
  scikit-learn's do (numpy when the predictions are numpy); scalars stay Python floats,
  as scikit-learn's do. With dispatch off, or for other functions, results are numpy.

scikit-learn is never imported here: the setting is read only when scikit-learn's
configuration module is already loaded (it is the only way to turn dispatch on).
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ._inputs import foreign_array, host_array

__all__ = ["NAMESPACE_RESULTS", "accept_foreign_updates", "dispatch_enabled",
           "follow_namespaces", "to_namespace"]

#: the functions whose array results scikit-learn 1.9 returns in the input's namespace with
#: ``array_api_dispatch`` on (those its array API tests cover, plus the curves and counts
#: built on them); the others give numpy arrays there too (``pair_confusion_matrix``)
NAMESPACE_RESULTS = frozenset({
    "confusion_matrix", "multilabel_confusion_matrix", "precision_recall_fscore_support",
    "f1_score", "fbeta_score", "precision_score", "recall_score", "jaccard_score",
    "roc_curve", "precision_recall_curve", "det_curve", "confusion_matrix_at_thresholds",
    "explained_variance_score", "mean_absolute_error", "mean_pinball_loss",
    "mean_squared_error", "mean_squared_log_error", "median_absolute_error", "r2_score",
    "d2_absolute_error_score", "d2_pinball_score", "mean_absolute_percentage_error",
    "root_mean_squared_error", "root_mean_squared_log_error",
})

#: the names of the predictions argument, whose namespace the results follow
_PREDICTIONS = ("y_pred", "y_score", "y_prob", "y_proba", "pred_decision", "labels_pred")

#: argument types that are never foreign arrays: the check costs one set look-up
_PLAIN = {np.ndarray, list, tuple, dict, int, float, bool, str, type(None)}


def dispatch_enabled() -> bool:
    """scikit-learn's ``array_api_dispatch`` setting (of this thread), False when
    scikit-learn is not imported."""
    config = sys.modules.get("sklearn._config")
    return config is not None and bool(config.get_config().get("array_api_dispatch"))


def to_namespace(result: Any, like: Any) -> Any:
    """``result`` with its numpy arrays (also inside tuples) as arrays of ``like``'s
    namespace on ``like``'s device (numpy where array_api_compat knows no namespace for
    it); other values as they are."""
    if isinstance(result, np.ndarray):
        from sklearn.externals import array_api_compat  # loaded: dispatch is on

        try:
            xp = array_api_compat.array_namespace(like)
        except TypeError:  # a DLPack producer of no array API namespace: numpy it is
            return result
        return xp.asarray(result, device=array_api_compat.device(like))
    if isinstance(result, tuple):
        items = [to_namespace(r, like) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    return result


def _predictions(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """``(given, value)`` of the predictions argument (the second positional one, or one
    named as scikit-learn names it): the one whose namespace the results follow."""
    if len(args) > 1:
        return True, args[1]
    for name in _PREDICTIONS:
        if name in kwargs:
            return True, kwargs[name]
    return False, None


def _call(func: Callable[..., Any], in_namespace: bool, names: tuple[str, ...],
          args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``func`` with the foreign arrays among the arguments as numpy arrays (views of host
    memory, host copies of device memory), its result in their namespace where asked."""
    given, pred = _predictions(args, kwargs)  # before kwargs are converted in place
    first = None
    values = list(args)
    for i, a in enumerate(values):
        if foreign_array(a):
            first = a if first is None else first
            values[i] = host_array(a, names[i] if i < len(names) else f"argument {i + 1}")
    for k, a in kwargs.items():
        if foreign_array(a):
            first = a if first is None else first
            kwargs[k] = host_array(a, k)
    if not (in_namespace and dispatch_enabled()):
        return func(*values, **kwargs)
    # as scikit-learn: results in the namespace (and on the device) of y_pred / y_score,
    # the other inputs following it; numpy when that one is numpy
    like = (pred if foreign_array(pred) else None) if given else first
    result = func(*values, **kwargs)
    return result if like is None else to_namespace(result, like)


def _wrapper(func: Callable[..., Any], in_namespace: bool) -> Callable[..., Any]:
    # everything the wrapper reads is a closure variable: it runs with func's globals
    plain, foreign, call = _PLAIN, foreign_array, _call
    code = getattr(func, "__code__", None)  # positional parameter names, for messages
    names = tuple(code.co_varnames[:code.co_argcount]) if code is not None else ()

    def face(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if a.__class__ not in plain and foreign(a):
                return call(func, in_namespace, names, args, kwargs)
        for a in kwargs.values():
            if a.__class__ not in plain and foreign(a):
                return call(func, in_namespace, names, args, kwargs)
        return func(*args, **kwargs)

    return face


#: the code every wrapper runs (each with its own closure): how a wrapper is recognised
_FACE_CODE = _wrapper(len, False).__code__


def _face(func: types.FunctionType) -> types.FunctionType:
    """The wrapper of one function, made a function of ``func``'s module (its globals):
    doctest and documentation tools find a module's functions (and methods) by their
    globals."""
    inner = _wrapper(func, func.__name__ in NAMESPACE_RESULTS)
    assert isinstance(inner, types.FunctionType)
    face = types.FunctionType(inner.__code__, func.__globals__, func.__name__, None,
                              inner.__closure__)
    functools.update_wrapper(face, func)
    return face


def follow_namespaces(package: dict[str, Any], *modules: types.ModuleType) -> None:
    """Wrap the public functions (``__all__``) of ``modules`` in place, and rebind the
    names ``package`` (the package's namespace) and the modules took from them, so that
    ``fastmetrics.f1_score is fastmetrics.classification.f1_score`` stays true. Must run
    before other modules keep references to the functions (the metric table)."""
    done: dict[int, types.FunctionType] = {}
    for module in modules:
        for name in getattr(module, "__all__", ()):
            func = vars(module).get(name)  # not getattr: lazy names (scikit-learn's) stay lazy
            if not isinstance(func, types.FunctionType) or func.__code__ is _FACE_CODE:
                continue
            if func.__module__ != module.__name__:  # re-exported: wrapped where defined
                continue
            done[id(func)] = face = _face(func)
            setattr(module, name, face)
    # every other name bound to a wrapped function (the package's, aliases in the modules)
    for namespace in (package, *(vars(m) for m in modules)):
        for name, value in list(namespace.items()):
            if id(value) in done:
                namespace[name] = done[id(value)]


def accept_foreign_updates(module: types.ModuleType) -> None:
    """The ``update`` methods of the classes in ``module.__all__`` (the streaming
    accumulators) read foreign arrays as the face functions do; they return the accumulator,
    so there is no result to convert."""
    for name in getattr(module, "__all__", ()):
        cls = vars(module).get(name)
        update = vars(cls).get("update") if isinstance(cls, type) else None
        if isinstance(update, types.FunctionType) and update.__code__ is not _FACE_CODE:
            setattr(cls, "update", _face(update))
