# cython: language_level=3
"""Label encoding kernels: labels that are not small integers become integer codes in one
pass, without sorting the data.

``encode_fixed`` hash-encodes any fixed-width array (numpy ``<U``/``S`` strings, integers)
by its raw item bytes (``csrc/fm_hash.h``), without the GIL; ``encode_offsets`` and
``encode_views`` do the same for arrow's variable-length strings, read from their buffers.
``encode_str_objects`` does the same for an object array of Python ``str`` in one C-level
pass (``csrc/fm_pystr.h``; the GIL is held: it reads Python objects), keyed by each text's
characters; objects met again are found by their address without reading them. Each runs
by ``n_threads`` lanes (``csrc/fm_lanes.h``) and gives first-seen codes and the index of
each code's first item, the same for any number of lanes; the caller sorts only those K
values. ``code_presence`` checks integer codes that already exist (categorical codes,
dictionary indices) against their table in one pass.
"""

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np
cimport numpy as cnp

from .common cimport label_t

cnp.import_array()

cdef extern from "fm_hash.h" nogil:
    ctypedef struct fm_htab:
        uint64_t *hash
        int64_t *code
        int64_t cap
        int64_t *first
        int64_t k
    int fm_htab_init(fm_htab *t, int64_t cap)
    void fm_htab_free(fm_htab *t)

cdef extern from "fm_lanes.h":
    enum:
        FM_SRC_FIXED
        FM_SRC_OFFSETS
        FM_SRC_VIEWS
        FM_SRC_OBJECTS
    ctypedef struct fm_src:
        int kind
        const char *data
        int64_t stride
        int64_t itemsize
        int64_t data_len
        const int64_t *off64
        const int32_t *off32
        const char *const *bufs
        const int64_t *buf_len
        int64_t nbufs
    # the GIL is released by the caller only for items that are not Python objects
    int fm_encode_lanes(const fm_src *s, int64_t n, int64_t lanes, int32_t *codes32,
                        int64_t *codes64, fm_htab *t, int64_t *bad) nogil

cdef int64_t _INIT_SLOTS = 64


cdef object _start(int64_t n, fm_htab *t, int32_t **c32, int64_t **c64):
    """The codes array of n items -- int32 while every code fits (fewer bytes to write and
    read), else int64 -- with its data pointer in ``c32`` or ``c64``, and ``t`` an empty
    table."""
    codes = np.empty(n, dtype=np.int32 if n < (<int64_t>1 << 31) else np.int64)
    c32[0] = NULL
    c64[0] = NULL
    if codes.dtype == np.int32:
        c32[0] = <int32_t*>cnp.PyArray_DATA(codes)
    else:
        c64[0] = <int64_t*>cnp.PyArray_DATA(codes)
    if fm_htab_init(t, _INIT_SLOTS) < 0:
        fm_htab_free(t)
        raise MemoryError()
    return codes


cdef _first_array(fm_htab *t):
    cdef cnp.npy_intp dims[1]
    cdef int64_t i
    cdef int64_t* out
    dims[0] = t.k
    first = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT64, 0)
    out = <int64_t*>cnp.PyArray_DATA(first)
    for i in range(t.k):
        out[i] = t.first[i]
    return first


#: items per lane below which encode_fixed keeps one lane (a lane's table and the merge of
#: the K values cost far less than this many items)
_MIN_LANE = 1 << 15


cdef int64_t _lanes(int64_t n, int n_threads) noexcept:
    return min(<int64_t>max(n_threads, 1), max(n // _MIN_LANE, 1))


cdef object _encode(fm_src* src, int64_t n, int n_threads, bint gil, int64_t* bad):
    """Encode the n items of ``src`` by lanes (``fm_encode_lanes``): ``(codes, first)``, or
    None for a bad item (``bad`` then its index). ``gil``: keep the GIL (the items are
    Python objects, which another thread could free were it released)."""
    cdef fm_htab t
    cdef int32_t* c32
    cdef int64_t* c64
    cdef int rc
    cdef int64_t lanes = _lanes(n, n_threads)
    codes = _start(n, &t, &c32, &c64)
    try:
        if gil:
            rc = fm_encode_lanes(src, n, lanes, c32, c64, &t, bad)
        else:
            with nogil:
                rc = fm_encode_lanes(src, n, lanes, c32, c64, &t, bad)
        if rc == -1:
            raise MemoryError()
        if rc == -2:
            return None
        return codes, _first_array(&t)
    finally:
        fm_htab_free(&t)


def encode_fixed(cnp.ndarray a, int n_threads=1):
    """First-seen codes of a 1-D array of any fixed-width dtype, compared by raw bytes.

    Returns ``(codes, first)``: int32 (int64 from 2**31 items) codes ``0 .. K - 1`` in order
    of first occurrence, and the int64 index of each code's first item.

    With ``n_threads`` > 1 the items are split into that many lanes (contiguous blocks,
    each at least ``_MIN_LANE`` items), each encoded with its own table by its own thread;
    the later lanes' K-entry tables are then folded into the first in order and their codes
    renamed: the same codes as one lane, for any thread count. The other encoders take
    ``n_threads`` the same way.
    """
    cdef fm_src src
    cdef int64_t bad = -1
    if a.ndim != 1 or a.dtype.hasobject:
        raise TypeError("encode_fixed: a 1-D array of a fixed-width dtype is needed")
    memset(&src, 0, sizeof(src))
    src.kind = FM_SRC_FIXED
    src.data = <const char*>cnp.PyArray_DATA(a)
    src.stride, src.itemsize = a.strides[0], a.itemsize
    return _encode(&src, a.shape[0], n_threads, False, &bad)


ctypedef fused offset_t:
    int32_t
    int64_t


def encode_offsets(const offset_t[::1] offsets, const unsigned char[::1] data,
                   int n_threads=1):
    """First-seen codes of variable-length byte strings laid out as arrow lays out a string
    array: item ``i`` is ``data[offsets[i]:offsets[i + 1]]`` (``offsets`` holds n + 1
    values). Returns ``(codes, first)`` as :func:`encode_fixed`."""
    cdef int64_t n = offsets.shape[0] - 1, bad = -1
    cdef fm_src src
    if n < 0:
        raise ValueError("encode_offsets: offsets needs n + 1 values")
    # arrow guarantees both; a bad buffer must not read out of bounds (the kernel finds
    # offsets that decrease in its pass)
    if n and (offsets[0] < 0 or offsets[n] > data.shape[0]):
        raise ValueError("encode_offsets: offsets outside the data")
    memset(&src, 0, sizeof(src))
    src.kind = FM_SRC_OFFSETS
    src.data = <const char*>&data[0] if data.shape[0] else <const char*>""
    src.data_len = data.shape[0]
    if offset_t is int64_t:
        src.off64 = &offsets[0]
    else:
        src.off32 = &offsets[0]
    res = _encode(&src, n, n_threads, False, &bad)
    if res is None:
        raise ValueError("encode_offsets: offsets decrease")
    return res


def encode_str_objects(cnp.ndarray a, int n_threads=1):
    """First-seen codes of a 1-D object array whose items are all ``str`` (subclasses
    included, compared by content).

    Returns ``(codes, first)`` as :func:`encode_fixed`, or the index (an int) of the first
    item that is not a ``str``, where the caller takes its general path.
    """
    cdef fm_src src
    cdef int64_t bad = -1
    if a.ndim != 1 or a.dtype.num != cnp.NPY_OBJECT:
        raise TypeError("encode_str_objects: a 1-D object array is needed")
    memset(&src, 0, sizeof(src))
    src.kind = FM_SRC_OBJECTS
    src.data = <const char*>cnp.PyArray_DATA(a)
    src.stride = a.strides[0]
    res = _encode(&src, a.shape[0], n_threads, True, &bad)
    return bad if res is None else res


def encode_views(const unsigned char[::1] views, list buffers, int n_threads=1):
    """First-seen codes of arrow string views: ``views`` holds the 16-byte views of the
    items (``len(views) // 16`` of them, the array's offset already applied), ``buffers``
    the array's data buffers (objects with the buffer protocol) in their order. Strings of
    up to 12 bytes are read from their view alone. Returns ``(codes, first)`` as
    :func:`encode_fixed`; a view that points outside its buffer raises ValueError."""
    cdef int64_t n = views.shape[0] // 16, nb = len(buffers), j, bad = -1
    cdef fm_src src
    cdef const char** ptrs
    cdef int64_t* lens
    cdef const unsigned char[::1] mv
    if views.shape[0] % 16:
        raise ValueError("encode_views: views of 16 bytes are needed")
    ptrs = <const char**>malloc((nb + 1) * sizeof(char*))
    lens = <int64_t*>malloc((nb + 1) * sizeof(int64_t))
    try:
        if ptrs == NULL or lens == NULL:
            raise MemoryError()
        for j in range(nb):
            mv = memoryview(buffers[j]).cast("B")  # the list keeps each buffer alive
            lens[j] = mv.shape[0]
            ptrs[j] = <const char*>&mv[0] if mv.shape[0] else <const char*>""
        memset(&src, 0, sizeof(src))
        src.kind = FM_SRC_VIEWS
        src.data = <const char*>&views[0] if n else <const char*>""
        src.bufs = ptrs
        src.buf_len = lens
        src.nbufs = nb
        res = _encode(&src, n, n_threads, False, &bad)
        if res is None:
            raise ValueError(f"encode_views: view {bad} points outside its data buffer")
        return res
    finally:
        free(ptrs)
        free(lens)


def encode_range(const label_t[:] a, int64_t lo, int64_t hi, bint strict=True):
    """First-seen codes of integers in ``lo .. hi`` (a small range) through a table of
    ``hi - lo + 1`` entries: no hash, one load per item. Returns ``(codes, first)`` as
    :func:`encode_fixed`. A value outside the range raises ValueError, or, when not
    ``strict``, makes it return None (the caller then hashes)."""
    cdef int64_t n = a.shape[0], span = hi - lo + 1, i, v, k = 0, bad = -1
    cdef int32_t c
    cdef int32_t* lut
    cdef int32_t* c32
    cdef int64_t* fp
    if span <= 0:
        raise ValueError("encode_range: hi < lo")
    if n >= (<int64_t>1 << 31):  # int64 codes: the hash path writes them
        res = encode_fixed(np.asarray(a))
        codes, first = res
        vals = np.asarray(a)[first]
        if strict and first.shape[0] and (vals.min() < lo or vals.max() > hi):
            raise ValueError("encode_range: a value outside lo .. hi")
        return res
    codes = np.empty(n, dtype=np.int32)
    first = np.empty(min(span, n), dtype=np.int64)
    c32 = <int32_t*>cnp.PyArray_DATA(codes)
    fp = <int64_t*>cnp.PyArray_DATA(first)
    lut = <int32_t*>malloc(span * sizeof(int32_t))
    if lut == NULL:
        raise MemoryError()
    try:
        with nogil:
            memset(lut, 0xFF, span * sizeof(int32_t))  # every entry -1
            for i in range(n):
                # unsigned: a value below lo wraps above the span
                v = <int64_t>(<uint64_t>(<int64_t>a[i] - lo))
                if <uint64_t>v >= <uint64_t>span:
                    bad = i
                    break
                c = lut[v]
                if c < 0:
                    c = <int32_t>k
                    lut[v] = c
                    fp[k] = i
                    k += 1
                c32[i] = c
        if bad >= 0:
            if strict:
                raise ValueError("encode_range: a value outside lo .. hi")
            return None
        return codes, first[:k]
    finally:
        free(lut)


def code_presence(const label_t[:] codes, int64_t k, cnp.npy_bool[::1] present):
    """Mark ``present[c]`` for every code; returns the index of the first code outside
    ``0 .. k - 1`` (a missing value's -1), or -1 when every code is in range.

    ``present`` holds k + 1 flags: a code out of range marks the last one (a select, not a
    branch, in the pass), and only then is the first such code looked for."""
    cdef Py_ssize_t i, n = codes.shape[0]
    cdef uint64_t c, uk = <uint64_t>k
    cdef int64_t bad = -1
    if present.shape[0] < k + 1:
        raise ValueError("code_presence: present needs k + 1 flags")
    with nogil:
        for i in range(n):
            c = <uint64_t><int64_t>codes[i]  # negative codes become huge: out of range
            present[c if c < uk else uk] = 1
        if present[k]:
            for i in range(n):
                c = <uint64_t><int64_t>codes[i]
                if c >= uk:
                    bad = i
                    break
    return bad
