"""Input policy: every check and conversion of what users pass, in one place.

* Shapes, dtypes and lengths are checked here, in O(1). Checks that look at every element
  (label ranges, NaN in scores, finite weights) are fused into the kernels' single pass; only
  the error path comes back here, to word the message.
* Messages shared with scikit-learn keep its wording (users and scikit-learn's own tests match
  on them), followed by a detail of ours in parentheses where it helps: ``Found input
  variables with inconsistent numbers of samples: [50, 50, 100] (y_true, y_pred,
  sample_weight)``, ``Input y_pred contains NaN.``.
* Labels: the integer dtypes the kernels read in place (:data:`INT_CHARS`, and bool through a
  ``uint8`` view), the one rule for two integer dtypes (:func:`common_int`), floats holding
  integers, strings and objects (:func:`prepare_labels`), all in one place.
* Label encoding (:func:`encode_labels`, :func:`label_codes`): labels that are not a small
  integer range become codes in one hash pass (``_kernels/labels.pyx``), without sorting the
  data; only the K distinct values are sorted, so label order stays numpy's (scikit-learn's).
  Labels that arrive encoded (categoricals, dictionary arrays) are :class:`Encoded`: their
  codes are read in place and only the table of values is mapped.
* Arrays of other libraries (torch tensors, array API arrays, anything with ``__dlpack__``)
  become numpy arrays here (:func:`host_array`): a view of host memory where the layout
  allows, one copy to the host for device arrays.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ._kernels import labels as label_kernel
from .exceptions import invalid_parameter

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import ArrayLike

__all__ = [
    "EMPTY",
    "INT_CHARS",
    "MIXED_LABELS",
    "NONZERO",
    "check_lengths",
    "code_chunks",
    "column",
    "common_int",
    "Encoded",
    "float_values",
    "foreign_array",
    "frame_labels",
    "GroupKeys",
    "group_keys",
    "encode_labels",
    "inconsistent_lengths",
    "label_codes",
    "label_column",
    "label_input",
    "label_kind",
    "label_pair",
    "missing_label_error",
    "host_array",
    "native",
    "nonfinite_error",
    "own_tables",
    "plain_int_pair",
    "prepare_labels",
    "proba_argument",
    "sample_weight",
    "sequence_length",
    "str_objects",
    "union_all_labels",
    "union_labels",
    "value_dtype",
    "zero_weight_sum_error",
]

#: numpy type characters of the integer dtypes the kernels read in place (int8..uint64)
INT_CHARS = frozenset("bhilqBHILQ")
MIXED_LABELS = "Mix of label input types (string and number)"
EMPTY = ("Found empty input array (e.g., `y_true` or `y_pred`) while a minimum of 1 sample is "
         "required.")
NONZERO = "Sample weights must contain at least one non-zero number."


def native(a: np.ndarray) -> np.ndarray:
    """``a`` in native byte order: a view when it already is, else one converted copy."""
    if a.dtype.isnative:
        return a
    return a.astype(a.dtype.newbyteorder("="))


#: DLPack device types whose memory the CPU reads in place: CPU, CUDA pinned host memory,
#: ROCm pinned host memory
_HOST_DEVICES = frozenset({1, 3, 11})
#: libraries whose arrays take their own paths (labels read by their codes, Dask graphs),
#: even where they offer ``__dlpack__``
_OWN_PATHS = ("pandas", "pyarrow", "polars", "dask", "numpy")
_FOREIGN: dict[type, bool] = {}


def foreign_array(x: object) -> bool:
    """Whether ``x`` is an array of another library that :func:`host_array` converts: it
    offers ``__dlpack__`` and is not a numpy array or scalar, nor one of the data-frame
    and Dask types that have their own paths. Decided once per type."""
    t = type(x)
    known = _FOREIGN.get(t)
    if known is None:
        known = (hasattr(t, "__dlpack__") and not issubclass(t, (np.ndarray, np.generic))
                 and t.__module__.partition(".")[0] not in _OWN_PATHS)
        _FOREIGN[t] = known
    return known


def host_array(x: Any, name: str = "input") -> np.ndarray:
    """A numpy array of a :func:`foreign_array` (a torch tensor, an array API array, any
    ``__dlpack__`` producer).

    Host memory is read in place through DLPack: any strides, no copy (a torch tensor with
    ``requires_grad`` is detached first: a view, the caller's graph untouched). Memory on
    another device (a GPU) is copied to the host once, by the producer when it can export
    to the CPU (DLPack's ``dl_device``), else through its own ``.cpu()``/``.get()``. A
    dtype numpy lacks (``bfloat16``) raises ``TypeError`` naming it.
    """
    if getattr(x, "requires_grad", False) and hasattr(x, "detach"):
        x = x.detach()
    dev = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else 1
    try:
        if int(dev) in _HOST_DEVICES:
            return np.from_dlpack(x)
        try:
            return np.from_dlpack(x, device="cpu", copy=True)
        except (BufferError, TypeError, ValueError, NotImplementedError):
            # a producer that cannot export to another device: its own copy to the host
            for move in ("cpu", "get"):
                if callable(getattr(x, move, None)):
                    return host_array(getattr(x, move)(), name)
            raise
    except (BufferError, RuntimeError, TypeError) as exc:
        raise TypeError(
            f"{name} of type {type(x).__module__}.{type(x).__name__} (dtype "
            f"{getattr(x, 'dtype', '?')}) cannot be read as a numpy array: {exc}"
        ) from None


def value_dtype(y: Any) -> np.dtype[Any]:
    """The numpy dtype of an input's values without converting it: an ndarray's own, that of
    the numpy view of a data-frame column (pandas nullable, polars, arrow dtypes are not numpy
    dtypes), float64 for a sequence without one."""
    d = getattr(y, "dtype", None)
    if isinstance(d, np.dtype):
        return d
    if d is None:
        return np.dtype(np.float64)
    return np.asarray(y).dtype


def column(y: Any, name: str, *, allow_2d_column: bool = True) -> np.ndarray:
    """``y`` as a 1-D ndarray (no copy for ndarrays); (n, 1) columns are raveled.

    Raises ``ValueError`` naming ``name`` for scalars, 3-D input and (n, m > 1) input.
    """
    a = y if type(y) is np.ndarray else np.asarray(y)
    if a.ndim == 1:
        return a
    if a.ndim == 2 and allow_2d_column and a.shape[1] == 1:
        return a[:, 0]
    if a.ndim == 0:
        raise ValueError(f"{name} must be a 1-D array-like, got a scalar: {y!r}")
    if a.ndim == 2:
        raise ValueError(
            f"{name} has shape {a.shape}: pass a 1-D array (or an (n, 1) column) of labels "
            "(multilabel indicator matrices are accepted by the scikit-learn-named "
            "classification functions, not here)"
        )
    raise ValueError(f"{name} must be 1-D (or an (n, 1) column), got {a.ndim}-D with shape {a.shape}")


def inconsistent_lengths(**lengths: int | None) -> ValueError:
    """scikit-learn's error for inputs of different lengths, naming them after it."""
    items = [(k, v) for k, v in lengths.items() if v is not None]
    return ValueError(
        "Found input variables with inconsistent numbers of samples: "
        f"[{', '.join(str(v) for _, v in items)}] ({', '.join(k for k, _ in items)})"
    )


_BOTH_PROBA = ("Cannot use both `y_pred` and `y_proba`. `y_pred` is deprecated, use `y_proba` "
               "instead.")
_RENAMED_PROBA = ("`y_pred` was renamed to `y_proba` in version 1.9 and will be removed in "
                  "1.11. Use `y_proba` instead.")


def proba_argument(y_proba: Any, y_pred: Any) -> Any:
    """The probabilities of ``log_loss`` and ``d2_log_loss_score`` (one-shot and Dask):
    ``y_proba``, or scikit-learn 1.9's deprecated ``y_pred=`` spelling of it, with its
    FutureWarning (at the caller's caller); both given raise its ValueError."""
    if isinstance(y_pred, str) and y_pred == "deprecated":
        if y_proba is None:
            raise TypeError("log loss: y_proba is required")
        return y_proba
    if y_proba is not None:
        raise ValueError(_BOTH_PROBA)
    warnings.warn(_RENAMED_PROBA, FutureWarning, stacklevel=3)
    return y_pred


def sequence_length(y: Any) -> int:
    """``len(y)``, or 0 for an object without one (a scalar, a 0-d array): a size hint for
    the thread policy before the input is checked."""
    try:
        return len(y)
    except TypeError:
        return 0


def check_lengths(**arrays: Any) -> int:
    """All given arrays (None skipped) have the same first dimension; returns it."""
    lengths = {k: (a.shape[0] if a.ndim else 1) for k, a in arrays.items() if a is not None}
    values = set(lengths.values())
    if len(values) > 1:
        raise inconsistent_lengths(**lengths)
    return next(iter(values))


# ------------------------------------------------------------------------ finiteness


def nonfinite_error(a: np.ndarray, name: str | None, *, detail: bool | str = True) -> ValueError:
    """scikit-learn's message for the first NaN (or, when there is none, infinity) in ``a``,
    with where it is: ``Input y_score contains NaN (non-finite value at index 3).``; a
    string ``detail`` replaces the position."""
    flat = np.asarray(a).reshape(-1)
    nan = np.isnan(flat)
    bad = nan if nan.any() else ~np.isfinite(flat)
    what = "NaN" if nan.any() else f"infinity or a value too large for {np.dtype(np.float64)!r}"
    where = f" ({detail})" if isinstance(detail, str) else ""
    if detail is True and bad.any():
        i = int(np.flatnonzero(bad)[0])
        pos = np.unravel_index(i, np.shape(a)) if np.ndim(a) > 1 else (i,)
        where = (f" (non-finite value at index {pos[0]})" if len(pos) == 1
                 else f" (non-finite value at row {pos[0]}, column {pos[1]})")
    subject = f"Input {name} contains" if name else "Input contains"
    return ValueError(f"{subject} {what}{where}.")


def float_values(y: Any, name: str) -> np.ndarray:
    """Numbers (targets, scores, probabilities) as float32/float64 in native order: those
    are read in place, other real dtypes (float16, integers, bool) are converted to float64
    once, as scikit-learn computes them. Complex and non-numeric input raise."""
    a = y if type(y) is np.ndarray else np.asarray(y)
    if a.dtype.char in "fd":
        return native(a)
    if a.dtype.kind == "c":
        raise ValueError("Complex data not supported")
    if a.dtype.kind in "iubf":
        return a.astype(np.float64)
    if a.dtype.kind == "O":
        try:
            return a.astype(np.float64)
        except (TypeError, ValueError):
            pass
    raise ValueError(f"{name} must hold numbers, got dtype {a.dtype}")


# ------------------------------------------------------------------------ sample weights


def sample_weight(sample_weight: ArrayLike | None, lengths: Mapping[str, Any], *,
                  keep_int: bool = False, allow_zero_sum: bool = False,
                  non_negative: bool = False, check_values: bool = True) -> Any:
    """The one validator of ``sample_weight``: a 1-D float32/float64 native array, or None.

    Parameters
    ----------
    sample_weight : array-like or None
        Scalars are refused (as scikit-learn's parameter validation refuses them); an
        (n, 1) column is raveled; lists, integer, bool and object arrays become float64.
    lengths : dict
        ``{name: length}`` of the other inputs, in scikit-learn's order (``y_true``,
        ``y_pred``): a weight array of another length raises scikit-learn's error naming
        every length.
    keep_int : bool, default=False
        Also return whether the weights were integer or bool typed (classification keeps
        integer confusion matrices for them, as scikit-learn does).
    allow_zero_sum : bool, default=False
        Accept weights that are all zero (streamed chunks may be); otherwise scikit-learn's
        ``ValueError``.
    non_negative : bool, default=False
        Refuse negative weights (ranking: a negative weight makes the curve non-monotonic).
    check_values : bool, default=True
        Check finiteness here (one vectorised pass). False where the kernel checks every
        weight in its pass and the caller words the error with :func:`nonfinite_error`.

    Returns
    -------
    ndarray or None, and with ``keep_int`` a bool
    """
    if sample_weight is None:
        return (None, False) if keep_int else None
    if isinstance(sample_weight, numbers.Number) or (
            isinstance(sample_weight, np.ndarray) and sample_weight.ndim == 0):
        raise invalid_parameter(
            f"The 'sample_weight' parameter must be an array-like or None. Got "
            f"{sample_weight!r} instead."
        )
    w = sample_weight if type(sample_weight) is np.ndarray else np.asarray(sample_weight)
    n = next(iter(lengths.values()))
    if w.ndim == 2 and w.shape[1] == 1:
        w = w[:, 0]
    if w.ndim != 1:
        raise ValueError(
            f"Sample weights must be 1D array or scalar, got {w.ndim}D array. Expected either "
            f"a scalar value or a 1D array of length {n}."
        )
    if w.shape[0] != n:
        raise inconsistent_lengths(**lengths, sample_weight=w.shape[0])
    was_int = w.dtype.kind in "iub"
    if w.dtype.char not in "fd":
        if w.dtype.kind == "c":
            raise ValueError("Complex data not supported")
        try:
            w = w.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"sample_weight must hold numbers: {exc}") from None
    w = native(w)
    if n and (check_values or non_negative or not allow_zero_sum):
        # the smallest weight answers most questions in one pass with no temporary array
        # (NaN or infinity make the smallest or largest non-finite; all zero is 0 and 0)
        lo, hi = float(w.min()), None
        if check_values:
            hi = float(w.max())
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise nonfinite_error(w, "sample_weight")
        if non_negative and lo < 0:
            if lo == -math.inf:  # scikit-learn names the infinity first
                raise nonfinite_error(w, "sample_weight")
            raise ValueError(
                "Negative values in data passed to `sample_weight` (ranking metrics need "
                "non-negative weights)"
            )
        if not allow_zero_sum and lo == 0.0 and (hi if hi is not None else float(w.max())) == 0.0:
            raise ValueError(NONZERO)
    return (w, was_int) if keep_int else w


def zero_weight_sum_error(w: np.ndarray | None) -> Exception:
    """The error scikit-learn raises when weights sum to zero: ValueError when they are all
    zero, ZeroDivisionError when they cancel out."""
    if w is not None and not np.any(w):
        return ValueError(NONZERO)
    return ZeroDivisionError("Weights sum to zero, can't be normalized")


# ------------------------------------------------------------------------ class labels


def _target_type(a: np.ndarray) -> str:
    """scikit-learn's type_of_target for a 1-D label array (error path only)."""
    if a.dtype.kind == "f" and a.size and not np.array_equal(a, np.floor(a)):
        return "continuous"
    try:
        return "binary" if np.unique(a).size <= 2 else "multiclass"
    except TypeError:
        return "unknown"


def _float_labels(a: np.ndarray, name: str, other: np.ndarray | None) -> np.ndarray:
    if a.size and not np.isfinite(a).all():
        raise nonfinite_error(
            a, name, detail=f"labels must be finite: {name} contains NaN or infinity")
    if not np.array_equal(a, np.floor(a)):
        detail = f"{name} contains non-integer float values: continuous targets"
        if other is None:
            raise ValueError(f"continuous is not supported ({detail})")
        kinds = (_target_type(a), _target_type(other)) if name == "y_true" else (
            _target_type(other), _target_type(a))
        if kinds[0] == kinds[1]:
            raise ValueError(f"{kinds[0]} is not supported ({detail})")
        raise ValueError(
            f"Classification metrics can't handle a mix of {kinds[0]} and {kinds[1]} targets "
            f"({detail})"
        )
    if a.size and (a.min() < -(2.0**63) or a.max() >= 2.0**63):
        raise ValueError(f"{name} holds integral floats outside the int64 range")
    return a.astype(np.int64)


def _object_kind(a: np.ndarray, name: str) -> str:
    """'str' or 'num' for an object array, else raise."""
    has_str = has_num = False
    items = a.tolist()
    try:
        distinct = set(items)
    except TypeError:  # unhashable values (lists: a legacy multilabel sequence): look at all
        distinct = items
    for v in distinct:
        if isinstance(v, str):
            has_str = True
        elif isinstance(v, (numbers.Number, np.generic)) and not isinstance(v, complex):
            has_num = True
        elif v is None:
            raise ValueError(f"{name} contains None; labels must be numbers or strings")
        elif isinstance(v, (list, tuple)):
            raise ValueError(
                "You appear to be using a legacy multi-label data representation. Sequence of "
                "sequences are no longer supported; use a binary array or sparse matrix "
                f"instead ({name} holds {type(v).__name__}s)"
            )
        else:
            raise TypeError(f"{name} contains an unsupported label type {type(v).__name__}")
    if has_str and has_num:
        raise ValueError(MIXED_LABELS)
    return "str" if has_str else "num"


def prepare_labels(a: Any, name: str, other: Any = None, n_threads: int = 1
                   ) -> tuple[Any, np.dtype[Any], str]:
    """One 1-D label array for the kernels: ``(array, label dtype, kind)`` with kind 'int'
    (integers of a dtype :data:`INT_CHARS` holds; bool as a ``uint8`` view; floats holding
    integers as int64) or 'str' (text, to be encoded: a ``U``/``S`` array, or
    :class:`Encoded` for object arrays of ``str`` and encoded input). ``other`` is the second
    label array, named in the message when floats turn out continuous; ``n_threads``: lanes
    of the ``str`` objects' encoder (the same codes for any number)."""
    if isinstance(a, Encoded):
        return a, a.dtype, "str"
    ch = a.dtype.char
    if ch in INT_CHARS:
        return native(a), a.dtype, "int"
    k = a.dtype.kind
    if k == "b":
        return a.view(np.uint8), a.dtype, "int"
    if k == "f":
        return _float_labels(a, name, other), a.dtype, "int"
    if k in "US":
        return a, a.dtype, "str"
    if k == "O":
        enc = str_objects(a, n_threads)
        if enc is not None:  # every item a str: encoded in one pass, no astype(str)
            return enc, enc.dtype, "str"
        if _object_kind(a, name) == "str":
            return a.astype(str), np.dtype(str), "str"
        conv = np.array(a.tolist())
        if conv.dtype.kind == "O":
            raise TypeError(f"{name}: unsupported object labels")
        return prepare_labels(conv, name, other, n_threads)
    raise TypeError(f"{name} has unsupported dtype {a.dtype} for class labels")


def common_int(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer label arrays ``a`` and ``b`` in one integer dtype that holds both exactly.

    numpy compares int64 with uint64 as float64, which merges labels near 2**63; here the
    uint64 side becomes int64 when its values are below 2**63, or the signed side uint64 when
    it has no negative values, and a mix that no integer type holds raises ValueError.
    Other pairs come back unchanged.
    """
    if (a.dtype.kind not in "iu" or b.dtype.kind not in "iu"
            or np.promote_types(a.dtype, b.dtype).kind != "f"):
        return a, b
    ua = a.dtype.kind == "u"
    u, s = (a, b) if ua else (b, a)
    if u.size == 0 or int(u.max()) < 2**63:
        u = u.astype(np.int64)
    elif s.size == 0 or int(s.min()) >= 0:
        s = s.astype(np.uint64)
    else:
        raise ValueError(
            "labels mix negative values and uint64 values >= 2**63, which no integer type "
            "holds together"
        )
    return (u, s) if ua else (s, u)


def label_pair(yt: Any, yp: Any, n_threads: int = 1) -> tuple[Any, Any, np.dtype[Any], str]:
    """Two 1-D label arrays of one length, prepared together: ``(at, ap, out_dtype,
    kind)``. Integer arrays come back in one integer dtype (:func:`common_int`); ``out_dtype``
    is the dtype the labels are reported in (numpy's promotion of the inputs, but integers
    for int64 with uint64). ``n_threads``: as :func:`prepare_labels`."""
    at, dt_t, kt = prepare_labels(yt, "y_true", yp, n_threads)
    ap, dt_p, kp = prepare_labels(yp, "y_pred", yt, n_threads)
    if kt != kp:
        raise ValueError(MIXED_LABELS)
    out_dtype = np.result_type(dt_t, dt_p)
    if kt == "int" and at.dtype != ap.dtype:
        at, ap = common_int(at, ap)
        common = np.promote_types(at.dtype, ap.dtype)
        at = at.astype(common, copy=False)
        ap = ap.astype(common, copy=False)
        if out_dtype.kind == "f" and dt_t.kind in "iu" and dt_p.kind in "iu":
            out_dtype = common  # int64 with uint64: integers, not float64
    return at, ap, out_dtype, kt


class Encoded:
    """Labels given as integer ``codes`` into a ``table`` of values (a 1-D ``U``/``S``
    array): object arrays of ``str`` once hashed, categoricals and dictionary arrays as they
    come. Codes outside ``0 .. len(table) - 1`` are missing values; table entries no code
    names are not labels of the data, and a value may stand in the table more than once
    (chunks encoded apart). ``complete`` says the codes came from an encoder of this
    library: every code indexes the table and every entry occurs, so nothing is left to
    check. Stands where a label array stands (``shape``, ``dtype``, ``ndim``).

    The codes of a chunked array may be given as their chunks (``parts``, ``codes``
    None): they are joined into one array only when :attr:`codes` is first read, so a
    kernel that reads chunks (:func:`code_chunks`) copies nothing."""

    __slots__ = ("_codes", "parts", "n", "table", "name", "complete")

    def __init__(self, codes: np.ndarray | None, table: np.ndarray, name: str = "y",
                 complete: bool = False, parts: list[np.ndarray] | None = None):
        self._codes, self.parts = codes, parts
        self.n = int(codes.shape[0]) if codes is not None else sum(
            int(c.shape[0]) for c in parts or ())
        self.table, self.name, self.complete = table, name, complete

    @property
    def codes(self) -> np.ndarray:
        if self._codes is None:
            self._codes = np.concatenate(self.parts) if self.parts else np.zeros(
                0, dtype=np.int32)
        return self._codes

    @property
    def code_dtype(self) -> np.dtype[Any]:
        """The codes' dtype, without joining chunks."""
        if self._codes is not None:
            return self._codes.dtype
        return self.parts[0].dtype if self.parts else np.dtype(np.int32)

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.n,)

    @property
    def ndim(self) -> int:
        return 1

    @property
    def size(self) -> int:
        return self.n

    @property
    def dtype(self) -> np.dtype:
        return self.table.dtype

    def checked_codes(self) -> np.ndarray:
        """The codes, once checked to index the table; a missing value (a code outside
        it) raises NaN labels' error."""
        c = self.codes
        if c.shape[0]:
            lo, hi = int(c.min()), int(c.max())
            if lo < 0 or hi >= self.table.shape[0]:
                bad = np.flatnonzero((c < 0) | (c >= self.table.shape[0]))
                raise missing_label_error(self.name, int(bad[0]))
        return c

    def decoded(self) -> np.ndarray:
        """The labels as a plain array (O(N): a gather of the table, no Python objects)."""
        return self.table.take(self.checked_codes())

    def __getitem__(self, key: Any) -> Encoded:
        return Encoded(self.codes[key], self.table, self.name)


_FRAME_MODULES = ("pandas", "pyarrow", "polars")


def _int_table(values: Any) -> np.ndarray | None:
    """A category/dictionary table (a pandas Index, an arrow Array) of integers as an
    integer array; None for other values."""
    if getattr(values, "null_count", 0):
        return None
    a = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    return a if isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.char in INT_CHARS \
        else None


def _text_table(values: Any) -> np.ndarray | None:
    """A category/dictionary table as a ``U`` array when every value is a ``str``."""
    items = values if isinstance(values, list) else list(values)
    if not all(isinstance(v, str) for v in items):
        return None
    return np.array(items, dtype=str) if items else np.empty(0, dtype="<U1")


def _arrow_labels(arr: Any, name: str, n_threads: int = 1) -> Encoded | None:
    """A pyarrow Array/ChunkedArray of strings (hash-encoded from their buffers by
    ``n_threads`` lanes) or of string or integer dictionaries (codes into the dictionary);
    None for other types."""
    import pyarrow as pa

    t = arr.type
    if pa.types.is_dictionary(t):
        vt = t.value_type
    else:
        vt = t
        if not (pa.types.is_string(t) or pa.types.is_large_string(t)
                or pa.types.is_string_view(t)):
            return None
    if not (pa.types.is_string(vt) or pa.types.is_large_string(vt)
            or pa.types.is_string_view(vt) or (vt is not t and pa.types.is_integer(vt))):
        return None
    if not pa.types.is_dictionary(t):  # strings (offsets or views), read in place
        return _arrow_strings(arr, name, n_threads)
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks == 0:
            return Encoded(np.zeros(0, dtype=np.int32), np.empty(0, dtype="<U1"), name)
        arr = arr.unify_dictionaries() if arr.num_chunks > 1 else arr
        dictionary = arr.chunk(0).dictionary
        chunks = [c.indices for c in arr.chunks]
    else:
        dictionary, chunks = arr.dictionary, [arr.indices]
    table = _int_table(dictionary) if pa.types.is_integer(vt) else (
        _text_table(dictionary.to_pylist()))
    if table is None:
        return None
    parts = []
    start = 0
    for c in chunks:
        if c.null_count:
            i = start + int(np.flatnonzero(np.asarray(c.is_null()))[0])
            raise missing_label_error(name, i)
        parts.append(c.to_numpy())
        start += len(c)
    if len(parts) == 1:
        return Encoded(parts[0], table, name)
    return Encoded(None, table, name, parts=parts)  # joined only if a kernel needs it


def _arrow_strings(arr: Any, name: str, n_threads: int = 1) -> Encoded | None:
    """An arrow string, large_string or string_view array (chunked too) hash-encoded from
    its buffers, one chunk at a time (no copy, no Python objects but the K distinct values
    of each chunk)."""
    import pyarrow as pa

    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    parts, tables, start = [], [], 0
    for c in chunks:
        if c.null_count:
            raise missing_label_error(name, start + int(np.flatnonzero(
                np.asarray(c.is_null()))[0]))
        codes, first = _arrow_chunk_codes(c, n_threads)
        # pyarrow has no take for string views: the K values one by one
        table = _text_table([c[i].as_py() for i in first.tolist()]
                            if pa.types.is_string_view(c.type)
                            else c.take(pa.array(first)).to_pylist())
        if table is None:
            return None
        parts.append(codes)
        tables.append(table)
        start += len(c)
    if len(parts) == 1:
        return Encoded(parts[0], tables[0], name, complete=True)
    # chunk j's codes follow the codes of the chunks before it: the table lists each chunk's
    # values (a label may appear once per chunk; label_codes merges equal entries)
    codes = np.empty(start, dtype=np.int32 if start < 2**31 else np.int64)
    at = base = 0
    for c, t in zip(parts, tables):
        np.add(c, base, out=codes[at:at + c.shape[0]], casting="unsafe")
        at += c.shape[0]
        base += t.shape[0]
    table = np.concatenate(tables) if tables else np.empty(0, dtype="<U1")
    return Encoded(codes, table, name, complete=True)


def _arrow_chunk_codes(c: Any, n_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, first)`` of one arrow string array without nulls, read from its buffers
    where its offset says (a slice shares its parent's buffers)."""
    import pyarrow as pa

    n, o = len(c), c.offset
    if pa.types.is_string_view(c.type):  # 16-byte views; short strings inline
        bufs = c.buffers()
        views = (np.frombuffer(bufs[1], dtype=np.uint8)[16 * o:16 * (o + n)] if n
                 else np.zeros(0, dtype=np.uint8))
        # views name their data buffer by its index: keep every position
        return label_kernel.encode_views(views, [b"" if b is None else b for b in bufs[2:]],
                                         n_threads)
    _, off_buf, data_buf = c.buffers()
    off_type = np.int64 if pa.types.is_large_string(c.type) else np.int32
    offsets = np.frombuffer(off_buf, dtype=off_type)[o:o + n + 1] if n else (
        np.zeros(1, dtype=off_type))
    data = (np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None
            else np.zeros(0, dtype=np.uint8))
    return label_kernel.encode_offsets(offsets, data, n_threads)


def _pandas_labels(y: Any, name: str, n_threads: int = 1) -> Encoded | None:
    import pandas as pd

    if isinstance(y, (pd.Series, pd.Index)):
        dt = y.dtype
        if isinstance(dt, pd.CategoricalDtype):
            cat = y.array
        elif isinstance(dt, pd.StringDtype) and dt.storage == "pyarrow":
            import pyarrow as pa

            return _arrow_labels(pa.array(y.array), name, n_threads)
        else:
            return None
    elif isinstance(y, pd.Categorical):
        cat = y
    else:
        return None
    cats = cat.categories
    table = _int_table(cats) if cats.dtype.kind in "iu" else _text_table(cats.tolist())
    if table is None:
        return None
    return Encoded(np.asarray(cat.codes), table, name)


def frame_labels(y: Any, name: str, n_threads: int = 1) -> Encoded | None:
    """Labels of a data-frame library, read by their codes: pandas categoricals (codes and
    categories, text or integer) and arrow-backed strings, pyarrow string or dictionary
    arrays (chunked too), polars String/Categorical/Enum Series (through arrow). None for
    other inputs (numbers, plain numpy arrays), which take :func:`column`. The libraries
    are imported only when ``y`` comes from one of them. ``n_threads``: lanes of the
    string encoders (the same codes for any number)."""
    mod = type(y).__module__.partition(".")[0]
    if mod not in _FRAME_MODULES:
        return None
    if mod == "pandas":
        return _pandas_labels(y, name, n_threads)
    if mod == "pyarrow":
        import pyarrow as pa

        if isinstance(y, (pa.Array, pa.ChunkedArray)):
            return _arrow_labels(y, name, n_threads)
        return None
    import polars as pl

    if not isinstance(y, pl.Series):
        return None
    if isinstance(y.dtype, (pl.Categorical, pl.Enum)):
        return _polars_categorical(y, name)
    if y.dtype == pl.String:  # exported as arrow string views without a copy, per chunk
        level = pl.CompatLevel.newest()
        if y.n_chunks() == 1:
            return _arrow_labels(y.to_arrow(compat_level=level), name, n_threads)
        import pyarrow as pa

        return _arrow_labels(pa.chunked_array(
            [c.to_arrow(compat_level=level) for c in y.get_chunks()], pa.string_view()), name,
            n_threads)
    return None


def _polars_categorical(y: Any, name: str) -> Encoded | None:
    """A polars Categorical/Enum Series by its physical codes: an Enum's codes index its
    categories; a Categorical's index a shared string cache, read as they are while the
    cache is small (the table: its first values), else encoded (first-seen codes of the
    codes) so that only the K codes that occur are looked up."""
    import polars as pl

    if y.null_count():
        raise missing_label_error(name, int(y.is_null().arg_true()[0]))
    codes = y.to_physical().to_numpy()
    if isinstance(y.dtype, pl.Enum):
        table = _text_table(y.dtype.categories.to_list())
        return None if table is None else Encoded(codes, table, name)
    if codes.shape[0] and int(codes.max()) < _CACHE_TABLE:
        # a small cache: its codes as they are, into the cache's first values (labels of two
        # Series of one cache are then counted by their codes, see shared_table)
        ids = pl.Series(np.arange(int(codes.max()) + 1, dtype=codes.dtype))
        try:  # Series.cat.to is new (polars marks it unstable): else the codes are encoded
            table = _text_table(ids.cat.to(y.dtype).cast(pl.String).to_list())
        except (AttributeError, TypeError, ValueError, pl.exceptions.PolarsError):
            table = None
        if table is not None:
            return Encoded(codes, table, name)
    # codes into a large shared cache: first-seen codes of the codes (through a lookup
    # table while the codes are small, else hashed), and the K values that occur looked up
    enc = label_kernel.encode_range(codes, 0, _CODE_SPAN - 1, False)
    codes, first = enc if enc is not None else label_kernel.encode_fixed(codes)
    table = _text_table(y.gather(first).cast(pl.String).to_list())
    return None if table is None else Encoded(codes, table, name, complete=True)


#: a polars Categorical whose codes are all below this is read as codes into the first
#: values of its category cache (that many Python strings at most); else it is encoded
_CACHE_TABLE = 1 << 12

#: polars Categorical codes below this are encoded through a lookup table of this many
#: entries (0.5 MiB), which costs a load per item where the hash costs ~2 ns
_CODE_SPAN = 1 << 16


def shared_table(a: Any, b: Any) -> np.ndarray | None:
    """The table the codes of two :class:`Encoded` label arrays both index, when they
    share one (the same categories; the same polars category cache, whose tables differ
    only in how far they reach): then their codes are counted as they are, as integer
    labels, and only the values that occur are looked up and sorted. None otherwise."""
    if not (isinstance(a, Encoded) and isinstance(b, Encoded)):
        return None
    ta, tb = a.table, b.table
    long, short = (ta, tb) if ta.shape[0] >= tb.shape[0] else (tb, ta)
    da, db = a.code_dtype, b.code_dtype
    if (da != db or da.char not in INT_CHARS or not da.isnative or not db.isnative
            or long.dtype.kind != short.dtype.kind):
        return None
    if short is not long and not np.array_equal(long[:short.shape[0]], short):
        return None
    return long


def code_chunks(a: Encoded, b: Encoded) -> list[tuple[np.ndarray, np.ndarray]]:
    """The codes of two :class:`Encoded` label arrays of one length as pairs of aligned
    pieces to count: when either came in chunks, the chunks of both cut at every chunk
    boundary of either (views: nothing joined or copied), else one pair of the whole
    codes."""
    if a.parts is None and b.parts is None:
        return [(a.codes, b.codes)]
    pa_ = a.parts if a.parts is not None else [a.codes]
    pb = b.parts if b.parts is not None else [b.codes]
    ends = np.union1d(np.cumsum([x.shape[0] for x in pa_]),
                      np.cumsum([y.shape[0] for y in pb]))
    pairs, lo, i, j, ia, jb = [], 0, 0, 0, 0, 0  # ia, jb: where chunks i, j start
    for hi in ends.tolist():
        if hi == lo:
            continue
        while ia + pa_[i].shape[0] <= lo:
            ia += pa_[i].shape[0]
            i += 1
        while jb + pb[j].shape[0] <= lo:
            jb += pb[j].shape[0]
            j += 1
        pairs.append((pa_[i][lo - ia:hi - ia], pb[j][lo - jb:hi - jb]))
        lo = hi
    return pairs


def own_tables(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The tables of two :class:`Encoded` label arrays that index each their own (two
    dictionary arrays, categoricals of different categories), when their codes can be
    counted together as integers and each side's looked up in its table afterwards: native
    integer codes, tables of one kind of text. None otherwise, and for two arrays from this
    library's encoders (their codes cover their tables: :func:`label_codes` takes them)."""
    if not (isinstance(a, Encoded) and isinstance(b, Encoded)) or (a.complete and b.complete):
        return None
    da, db = a.code_dtype, b.code_dtype
    if (da.char not in INT_CHARS or db.char not in INT_CHARS or not da.isnative
            or not db.isnative or a.table.dtype.kind != b.table.dtype.kind):
        return None
    return a.table, b.table


def table_values(table: np.ndarray, codes: np.ndarray, *arrays: Any) -> np.ndarray:
    """The labels of the sorted, distinct ``codes`` that occur in ``arrays`` (Encoded
    sharing ``table``), as narrow as those values (the dtype :func:`label_codes` gives);
    a code outside the table is a missing value and raises NaN labels' error."""
    if codes.shape[0] and (codes[0] < 0 or codes[-1] >= table.shape[0]):
        for a in arrays:
            bad = np.flatnonzero((a.codes < 0) | (a.codes >= table.shape[0]))
            if bad.shape[0]:
                raise missing_label_error(a.name, int(bad[0]))
    vals = table[codes]
    return np.array(vals.tolist(), dtype=vals.dtype.kind) if vals.shape[0] else vals


def label_column(y: Any, name: str, n_threads: int = 1) -> Any:
    """A 1-D label array: :func:`frame_labels` for data-frame labels that can be read by
    their codes (an :class:`Encoded` of text, or integer categories gathered from their
    codes into an integer array, which the integer paths read in place), else
    :func:`column`. ``n_threads``: as :func:`frame_labels`."""
    if type(y) is not np.ndarray:
        enc = frame_labels(y, name, n_threads)
        if enc is not None:
            return enc if enc.table.dtype.kind in "US" else enc.decoded()
    return column(y, name)


def label_input(y: Any, name: str, *, encoded: bool = True) -> Any:
    """``y`` as ``np.asarray`` gives it (any shape; the caller checks it), but labels of a
    data-frame library read by their codes (:func:`frame_labels`): text as an
    :class:`Encoded` when the caller encodes labels (``encoded``), else gathered from the
    codes into a ``U`` array (no Python objects); integer categories as integers."""
    if type(y) is np.ndarray:
        return y
    enc = frame_labels(y, name)
    if enc is None:
        return np.asarray(y)
    return enc if encoded and enc.table.dtype.kind in "US" else enc.decoded()


def missing_label_error(name: str, index: int) -> ValueError:
    """The error for a missing label (a null, a categorical code -1): NaN labels' error."""
    return ValueError(f"Input {name} contains NaN (labels must be finite: {name} has a "
                      f"missing value at index {index}).")


def str_objects(a: np.ndarray, n_threads: int = 1) -> Encoded | None:
    """An object array whose items are all ``str``, encoded in one C-level pass by
    ``n_threads`` lanes (the table as ``astype(str)`` would hold it); None when some item is
    not a ``str``."""
    enc = label_kernel.encode_str_objects(a, n_threads)
    if isinstance(enc, int):
        return None
    codes, first = enc
    return Encoded(codes, a[first].astype(str), complete=True)


def _distinct(a: Any, n_threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(codes, table, used)`` of one label array: codes into ``table`` and, for encoded
    input, which table entries occur (None: all of them). Fixed-width labels are encoded
    and ``str`` objects by ``n_threads`` lanes (the same codes for any number)."""
    if isinstance(a, Encoded):
        if a.complete:  # first-seen codes: every one in range, every entry used
            return a.codes, a.table, None
        k = a.table.shape[0]
        flags = np.zeros(k + 1, dtype=bool)  # the last flag: a code out of range
        codes = native(a.codes)
        if codes.dtype.kind == "b" or codes.dtype.char not in INT_CHARS:
            codes = codes.astype(np.int64)
        bad = label_kernel.code_presence(codes, k, flags) if codes.shape[0] else -1
        if bad >= 0:
            raise missing_label_error(a.name, bad)
        return codes, a.table, flags[:k]
    if a.dtype.kind == "O":
        enc = label_kernel.encode_str_objects(a, n_threads)
        if not isinstance(enc, int):  # all str: the table stays an object array
            return enc[0], a[enc[1]], None
        table, codes = np.unique(a, return_inverse=True)  # other objects: numpy's rules
        return codes.reshape(-1), table, None
    codes, first = label_kernel.encode_fixed(a, n_threads)
    return codes, a[first], None


def label_codes(*arrays: Any, n_threads: int = 1
                ) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """The labels of several arrays encoded together, without sorting the data.

    Returns ``(codes, where, values)``: ``values`` is the sorted union of the labels that
    occur (numpy's order and dtype, as ``np.union1d`` of the ``np.unique`` of each array);
    per array, ``codes`` are its first-seen (or categorical) codes as the kernel made them,
    and ``where[c]`` is the position in ``values`` of code ``c``. Counting kernels count the
    codes and permute their small table with ``where``; :func:`encode_labels` gathers.
    ``n_threads``: lanes of the fixed-width encoder (results do not depend on it).
    """
    found = [_distinct(a, n_threads) for a in arrays]
    uniq, inv = [], []
    for codes, table, used in found:
        t = table if used is None else table[used]
        if used is not None and t.dtype.kind in "US":  # as narrow as the values that occur
            t = np.array(t.tolist(), dtype=t.dtype.kind)
        u, r = np.unique(t, return_inverse=True)
        uniq.append(u)
        inv.append(r.reshape(-1))
    values = uniq[0]
    for u in uniq[1:]:
        values = np.union1d(values, u)
    where = []
    for (codes, table, used), u, r in zip(found, uniq, inv):
        pos = np.searchsorted(values, u)[r] if values.shape[0] else r
        if used is not None and not used.all():
            full = np.zeros(table.shape[0], dtype=np.intp)
            full[used] = pos
            pos = full
        where.append(pos.astype(np.intp, copy=False))
    return [f[0] for f in found], where, values


def encode_labels(*arrays: Any) -> tuple[list[np.ndarray], np.ndarray]:
    """``(codes per array, values)``: the sorted union of the labels that occur and each
    label's position in it (``np.unique``'s ``return_inverse`` over the arrays together),
    from one hash pass per array (:func:`label_codes`) and a gather."""
    codes, where, values = label_codes(*arrays)
    return [np.take(w, c) for c, w in zip(codes, where)], values


def label_kind(a: np.ndarray) -> str:
    """'str' or 'num': labels of the two kinds never compare equal (an object array is text
    when every value is)."""
    if a.dtype.kind == "O":
        return "str" if a.size and all(isinstance(v, str) for v in a.tolist()) else "num"
    return "str" if a.dtype.kind in "US" else "num"


def same_labels(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label tables are the same array or hold the same labels in one dtype."""
    if a is b:
        return True
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    # equal bytes are equal labels (the hot case: small tables of the same labels, one per
    # group and chunk, where ``np.array_equal`` costs ten times more); unequal ones may
    # still be equal values (-0.0 and 0.0, Python objects)
    return (a.dtype.kind != "O" and a.tobytes() == b.tobytes()) or bool(np.array_equal(a, b))


def union_labels(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, Any, Any]:
    """``(values, ia, ib)``: the sorted union of two sorted label tables and where each
    table's labels land in it (``ia``/``ib`` None when the tables are equal). Integer labels
    of two dtypes compare exactly (:func:`common_int`); text and numbers never mix; an empty
    table takes the other's labels and dtype."""
    if a.shape[0] == 0 or b.shape[0] == 0:
        values = b if a.shape[0] == 0 else a
        return values, np.searchsorted(values, a), np.searchsorted(values, b)
    if label_kind(a) != label_kind(b):
        raise ValueError(MIXED_LABELS)
    if a.dtype.kind in "iu" and b.dtype.kind in "iu" and a.dtype != b.dtype:
        a, b = common_int(a, b)
        common = np.promote_types(a.dtype, b.dtype)
        a, b = a.astype(common), b.astype(common)
    if same_labels(a, b):
        return a, None, None
    values = np.union1d(a, b)
    return values, np.searchsorted(values, a), np.searchsorted(values, b)


def union_all_labels(tables: Sequence[np.ndarray]) -> tuple[np.ndarray, list[Any]]:
    """``(values, maps)``: the label table of :func:`union_labels` folded left to right over
    ``tables`` (the same values, dtype and errors), and where each table's labels land in it
    (None where a table is the union itself). The tables are small; each map is composed
    once, so no table of cells is re-indexed more than once."""
    full = [t for t in tables if t.shape[0]]  # an empty table takes the other's labels
    if len(full) > 2 and len({(t.dtype, label_kind(t)) for t in full}) == 1:
        # one dtype: the fold's union at once (a fold of k unions costs O(k K))
        values = np.unique(np.concatenate(full))
        return values, [np.searchsorted(values, t) for t in tables]
    values = tables[0]
    steps = []
    for t in tables[1:]:
        values, ia, ib = union_labels(values, t)
        steps.append((ia, ib))
    maps: list[Any] = [None] * len(tables)
    to_final: Any = None  # positions in the union so far -> positions in the final union
    for i in range(len(steps), 0, -1):
        ia, ib = steps[i - 1]
        maps[i] = to_final if ib is None else ib if to_final is None else to_final[ib]
        if ia is not None:
            to_final = ia if to_final is None else to_final[ia]
    maps[0] = to_final
    return values, maps


def plain_int_pair(y_true: Any, y_pred: Any) -> bool:
    """Two native, non-empty 1-D numpy arrays of one integer dtype and one length: what the
    counting kernels read in place, with nothing to validate or convert."""
    return (type(y_true) is np.ndarray and type(y_pred) is np.ndarray
            and y_true.ndim == 1 and y_pred.ndim == 1 and y_true.dtype is y_pred.dtype
            and y_true.dtype.char in INT_CHARS and y_true.dtype.isnative
            and 0 < y_true.shape[0] == y_pred.shape[0])


# ------------------------------------------------------------------------ group keys


class GroupKeys:
    """Rows' groups as codes: ``codes[i]`` (an integer array, int64 unless the keys were
    integers read in place) is the position of row ``i``'s key among the keys that occur,
    sorted (numpy's order, lexicographic over several columns).

    ``keys`` holds one array per key column (``n_groups`` values each), ``names`` the
    columns' names.
    """

    __slots__ = ("codes", "keys", "names")

    def __init__(self, codes: np.ndarray, keys: tuple[np.ndarray, ...],
                 names: tuple[str, ...]) -> None:
        self.codes, self.keys, self.names = codes, keys, names

    @property
    def n_groups(self) -> int:
        return int(self.keys[0].shape[0])

    def key(self, g: int) -> Any:
        """Group ``g``'s key: its value (one column) or the tuple of its values."""
        if len(self.keys) == 1:
            return self.keys[0][g].item()
        return tuple(k[g].item() for k in self.keys)


def _key_columns(groups: Any, name: str) -> list[tuple[str, Any]]:
    """``groups`` as (name, column) pairs: a DataFrame's (pandas, polars) or a pyarrow
    Table's columns, a dict's items, the columns of a 2-D array, the arrays of a list of
    arrays; anything else is one column named after it (or its Series name)."""
    mod = type(groups).__module__.partition(".")[0]
    if mod == "pandas":
        import pandas as pd

        if isinstance(groups, pd.DataFrame):
            return [(str(c), groups[c]) for c in groups.columns]
        if isinstance(groups, pd.Series) and groups.name is not None:
            return [(str(groups.name), groups)]
    elif mod == "polars":
        import polars as pl

        if isinstance(groups, pl.DataFrame):
            return [(c, groups[c]) for c in groups.columns]
        if isinstance(groups, pl.Series) and groups.name:
            return [(groups.name, groups)]
    elif mod == "pyarrow":
        import pyarrow as pa

        if isinstance(groups, pa.Table):
            return [(c, groups.column(c)) for c in groups.column_names]
    if isinstance(groups, dict):
        return [(str(k), v) for k, v in groups.items()]
    if isinstance(groups, np.ndarray) and groups.ndim == 2:
        return [(f"{name}_{j}", groups[:, j]) for j in range(groups.shape[1])]
    if isinstance(groups, (list, tuple)) and groups and all(
            hasattr(c, "__len__") and not isinstance(c, (str, bytes)) for c in groups):
        return [(f"{name}_{j}", c) for j, c in enumerate(groups)]
    return [(name, groups)]


def _key_codes(col: Any, cname: str, n_rows: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(int64 code of each row, sorted values) of one key column."""
    if isinstance(col, (list, tuple)) and any(
            v is None or (isinstance(v, float) and v != v) for v in col):
        # before numpy makes text of them ("None", "nan") beside text keys
        raise ValueError(f"{cname} contains None or NaN (a missing group key)")
    a = label_column(col, cname)
    n = a.codes.shape[0] if isinstance(a, Encoded) else a.shape[0]
    if n_rows is not None and n != n_rows:
        raise ValueError(f"{cname} has {n} rows, the data has {n_rows}")

    if isinstance(a, np.ndarray) and a.dtype.kind == "O" and any(
            v is None or (isinstance(v, float) and v != v) for v in a.tolist()):
        raise ValueError(f"{cname} contains None or NaN (a missing group key)")
    if n and isinstance(a, np.ndarray) and (a.dtype.char in INT_CHARS or a.dtype.kind == "b"):
        dense = _dense_codes(a)
        if dense is not None:
            return dense
    try:
        (codes,), where, values = label_codes(a)
    except TypeError as exc:
        raise TypeError(f"{cname} mixes keys that cannot be ordered ({exc})") from None
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(f"{cname} contains NaN (a missing group key)")
    if values.dtype.kind == "O" and all(isinstance(v, str) for v in values.tolist()):
        values = values.astype(str)  # text keys: a fixed-width table, as a state exports
    if values.dtype.kind not in "iufbU":
        raise TypeError(f"{cname} holds {values.dtype} keys: group keys are numbers, bools "
                        "or text")
    return np.take(where, codes).astype(np.int64, copy=False), values


#: integer keys within this range of values are read as codes in place (no hash pass)
_DENSE_KEYS = 1 << 22


def _dense_codes(a: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Integer (or bool) keys filling a range ``lo .. hi`` with every value present: their
    codes are the keys less ``lo`` (the array itself when ``lo`` is 0), without hashing.
    None otherwise."""
    from ._kernels import confusion as label_kernel, groups as group_kernel

    v = a.view(np.uint8) if a.dtype.kind == "b" else native(a)
    lo, hi = label_kernel.minmax(v, v.shape[0])  # one pass for both
    if lo < 0 or hi >= _DENSE_KEYS:
        return None
    sizes = np.zeros(hi + 1, dtype=np.int64)
    group_kernel.group_sizes(v, hi + 1, sizes)
    if not sizes[lo:].all():
        return None
    values = np.arange(lo, hi + 1).astype(a.dtype)
    return (v if lo == 0 else v.astype(np.int64) - lo), values


def group_keys(groups: Any, n_rows: int | None = None, name: str = "groups") -> GroupKeys:
    """Encode the rows' group keys: one column, or several crossed into one code.

    ``groups`` is one key column (any label input: numbers, strings, categoricals, arrow or
    polars columns), or several: a DataFrame, a pyarrow Table, a dict of columns, a 2-D
    array or a list of arrays. Each column is hash-encoded once; several are crossed by a
    mixed-radix code of their positions, encoded again so that only combinations that occur
    become groups. NaN or None keys and columns of another length than ``n_rows`` raise
    ``ValueError`` naming the column.
    """
    cols = _key_columns(groups, name)
    if not cols:
        raise ValueError(f"{name} has no columns")
    coded = [_key_codes(c, cname, n_rows) for cname, c in cols]
    lengths = {cname: c.shape[0] for (cname, _), (c, _) in zip(cols, coded)}
    if len(set(lengths.values())) > 1:
        raise inconsistent_lengths(**lengths)
    names = tuple(cname for cname, _ in cols)
    if len(coded) == 1:
        codes, values = coded[0]
        return GroupKeys(codes, (values,), names)
    # cross one column at a time, keeping only the combinations that occur: the code of a
    # combination is below (groups so far) x (this column's keys), so it stays in int64
    codes, values = coded[0]
    digits = [np.arange(values.shape[0], dtype=np.int64)]
    for c, values in coded[1:]:
        size = values.shape[0]
        (codes,), present = encode_labels(codes.astype(np.int64) * size + c)
        present = present.astype(np.int64, copy=False)
        digits = [d[present // size] for d in digits] + [present % size]
    keys = tuple(values[d] for (_, values), d in zip(coded, digits))
    return GroupKeys(codes.astype(np.int64, copy=False), keys, names)
