# cython: language_level=3
"""Label encoding kernels: labels that are not small integers become integer codes in one
pass, without sorting the data.

``encode_fixed`` hash-encodes any fixed-width array (numpy ``<U``/``S`` strings, integers)
by its raw item bytes (``csrc/fm_hash.h``), without the GIL; ``encode_offsets`` does the
same for arrow's variable-length strings, read from their offset and data buffers.
``encode_str_objects`` does the same for an object array of Python ``str`` in one C-level
pass (the GIL is held: it reads Python objects), with an identity test before the content
comparison and the hash each ``str`` caches; objects met again are found by their address
without reading them. All give first-seen codes and the index of each code's first item; the
caller sorts only those K values. ``code_presence`` checks integer codes that already exist
(categorical codes, dictionary indices) against their table in one pass.
"""

from cpython.object cimport PyObject, PyObject_Hash
from cpython.unicode cimport (PyUnicode_Check, PyUnicode_DATA, PyUnicode_GET_LENGTH,
                              PyUnicode_KIND)
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

import numpy as np
cimport numpy as cnp

from cython.parallel cimport prange

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
    int64_t fm_htab_add(fm_htab *t, int64_t s, uint64_t h, int64_t index)
    int fm_encode_fixed(const char *data, int64_t n, int64_t stride, int64_t itemsize,
                        int32_t *codes32, int64_t *codes64, fm_htab *t)
    int64_t fm_fixed_merge(const char *data, int64_t stride, int64_t itemsize, fm_htab *t,
                           const fm_htab *u, int64_t lo, int64_t *remap)
    int fm_encode_var(const char *data, int64_t data_len, const int64_t *off64,
                      const int32_t *off32, int64_t n, int32_t *codes32, int64_t *codes64,
                      fm_htab *t)
    int fm_encode_views(const char *views, int64_t n, const char *const *bufs,
                        const int64_t *buf_len, int64_t nbufs, int32_t *codes32,
                        int64_t *codes64, fm_htab *t, int64_t *bad)
    ctypedef struct fm_dmap:
        int64_t *slot
        int bits
    int fm_dmap_init(fm_dmap *m)
    void fm_dmap_free(fm_dmap *m)
    int fm_dmap_put(fm_dmap *m, int64_t c, uint64_t h)
    bint fm_bytes_equal(const char *a, const char *b, int64_t n)

cdef extern from "Python.h":
    # the hash a str caches in its header (-1 until first asked for)
    ctypedef struct PyASCIIObject:
        Py_hash_t hash

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


def encode_fixed(cnp.ndarray a, int n_threads=1):
    """First-seen codes of a 1-D array of any fixed-width dtype, compared by raw bytes.

    Returns ``(codes, first)``: int32 (int64 from 2**31 items) codes ``0 .. K - 1`` in order
    of first occurrence, and the int64 index of each code's first item.

    With ``n_threads`` > 1 the items are split into that many lanes (contiguous blocks),
    each encoded with its own table by its own thread; the later lanes' K-entry tables are
    then folded into the first in order and their codes renamed: the same codes as one
    lane, for any thread count.
    """
    cdef int64_t n, stride, itemsize, lo, hi, i, j, moved, lanes, span
    cdef const char* data
    cdef fm_htab t
    cdef fm_htab* tabs = NULL
    cdef int rc = 0
    cdef int err = 0
    cdef int32_t* c32
    cdef int64_t* c64
    cdef int64_t* remap = NULL
    cdef int64_t* r
    if a.ndim != 1 or a.dtype.hasobject:
        raise TypeError("encode_fixed: a 1-D array of a fixed-width dtype is needed")
    n, stride, itemsize = a.shape[0], a.strides[0], a.itemsize
    data = <const char*>cnp.PyArray_DATA(a)
    lanes = min(<int64_t>max(n_threads, 1), max(n // _MIN_LANE, 1))
    codes = _start(n, &t, &c32, &c64)
    if lanes == 1:
        try:
            with nogil:
                rc = fm_encode_fixed(data, n, stride, itemsize, c32, c64, &t)
            if rc < 0:
                raise MemoryError()
            return codes, _first_array(&t)
        finally:
            fm_htab_free(&t)
    span = (n + lanes - 1) // lanes
    tabs = <fm_htab*>malloc(lanes * sizeof(fm_htab))
    if tabs == NULL:
        fm_htab_free(&t)
        raise MemoryError()
    tabs[0] = t  # lane 0 encodes into the table the result is read from
    for j in range(1, lanes):
        if fm_htab_init(&tabs[j], 64) < 0:
            err = 1
    try:
        if err:
            raise MemoryError()
        with nogil:
            for j in prange(lanes, num_threads=lanes, schedule="static", chunksize=1):
                lo = j * span
                hi = min(lo + span, n)
                if fm_encode_fixed(data + lo * stride, hi - lo, stride, itemsize,
                                   c32 + lo if c32 != NULL else NULL,
                                   c64 + lo if c64 != NULL else NULL, &tabs[j]) < 0:
                    err += 1  # a reduction: an assignment would keep only one lane's
        if err:
            raise MemoryError()
        for j in range(1, lanes):
            r = <int64_t*>realloc(remap, max(tabs[j].k, 1) * sizeof(int64_t))
            if r == NULL:
                raise MemoryError()
            remap = r
            lo = j * span
            hi = min(lo + span, n)
            moved = fm_fixed_merge(data, stride, itemsize, &tabs[0], &tabs[j], lo, remap)
            if moved < 0:
                raise MemoryError()
            if moved:
                r = remap
                with nogil:
                    if c32 != NULL:
                        for i in prange(lo, hi, num_threads=lanes, schedule="static"):
                            c32[i] = <int32_t>r[c32[i]]
                    else:
                        for i in prange(lo, hi, num_threads=lanes, schedule="static"):
                            c64[i] = r[c64[i]]
        return codes, _first_array(&tabs[0])
    finally:
        free(remap)
        for j in range(lanes):
            fm_htab_free(&tabs[j])
        free(tabs)


ctypedef fused offset_t:
    int32_t
    int64_t


def encode_offsets(const offset_t[::1] offsets, const unsigned char[::1] data):
    """First-seen codes of variable-length byte strings laid out as arrow lays out a string
    array: item ``i`` is ``data[offsets[i]:offsets[i + 1]]`` (``offsets`` holds n + 1
    values). Returns ``(codes, first)`` as :func:`encode_fixed`."""
    cdef int64_t n = offsets.shape[0] - 1, i
    cdef fm_htab t
    cdef int rc
    cdef int32_t* c32
    cdef int64_t* c64
    cdef const char* pdata = <const char*>&data[0] if data.shape[0] else <const char*>""
    cdef const int64_t* o64 = NULL
    cdef const int32_t* o32 = NULL
    if n < 0:
        raise ValueError("encode_offsets: offsets needs n + 1 values")
    # arrow guarantees both; a bad buffer must not read out of bounds (the kernel finds
    # offsets that decrease in its pass)
    if n and (offsets[0] < 0 or offsets[n] > data.shape[0]):
        raise ValueError("encode_offsets: offsets outside the data")
    if offset_t is int64_t:
        o64 = &offsets[0]
    else:
        o32 = &offsets[0]
    codes = _start(n, &t, &c32, &c64)
    try:
        with nogil:
            rc = fm_encode_var(pdata, data.shape[0], o64, o32, n, c32, c64, &t)
        if rc == -2:
            raise ValueError("encode_offsets: offsets decrease")
        if rc < 0:
            raise MemoryError()
        return codes, _first_array(&t)
    finally:
        fm_htab_free(&t)


cdef inline bint _same_str(PyObject* a, PyObject* b) noexcept:
    """Whether two str objects hold the same text: the same object, or the same length,
    kind and code units (CPython keeps every str in its narrowest kind)."""
    cdef Py_ssize_t n
    cdef unsigned int kind
    if a == b:
        return True
    n = PyUnicode_GET_LENGTH(<object>a)
    kind = PyUnicode_KIND(<object>a)
    if n != PyUnicode_GET_LENGTH(<object>b) or kind != PyUnicode_KIND(<object>b):
        return False
    return fm_bytes_equal(<const char*>PyUnicode_DATA(<object>a),
                          <const char*>PyUnicode_DATA(<object>b), n * kind)


def encode_str_objects(cnp.ndarray a):
    """First-seen codes of a 1-D object array whose items are all ``str`` (subclasses
    included, compared by content).

    Returns ``(codes, first)`` as :func:`encode_fixed`, or the index (an int) of the first
    item that is not a ``str``, where the caller takes its general path.
    """
    cdef int64_t n, stride
    cdef const char* data
    cdef fm_htab t
    cdef fm_dmap m
    cdef int32_t* c32
    cdef int64_t* c64
    cdef int64_t i, s, c, mask, last_code = -1
    cdef int shift
    cdef uint64_t h
    cdef PyObject* o
    cdef PyObject* last = NULL
    cdef Py_hash_t ph
    # direct-mapped by address: the same str object (a category, a repeated literal) found
    # again costs no read of the object; a pointer equal to one seen is the same live
    # object (the array holds it), so its code is exact
    cdef PyObject* seen_obj[256]
    cdef int64_t seen_code[256]
    cdef uint64_t slot
    # the str object of each code (its first item), in step with the table's codes
    cdef PyObject** kobj = NULL
    cdef PyObject** kobj2
    cdef int64_t kcap = 64
    if a.ndim != 1 or a.dtype.num != cnp.NPY_OBJECT:
        raise TypeError("encode_str_objects: a 1-D object array is needed")
    n, stride = a.shape[0], a.strides[0]
    data = <const char*>cnp.PyArray_DATA(a)
    memset(seen_obj, 0, sizeof(seen_obj))
    codes = _start(n, &t, &c32, &c64)
    kobj = <PyObject**>malloc(kcap * sizeof(PyObject*))
    if fm_dmap_init(&m) < 0 or kobj == NULL:
        fm_htab_free(&t)
        fm_dmap_free(&m)
        free(kobj)
        raise MemoryError()
    shift = 64 - m.bits
    try:
        for i in range(n):
            o = (<PyObject**>(data + i * stride))[0]
            if o != last:  # runs of one object (a repeated literal) skip the lookups
                slot = (<uint64_t>o >> 4) * <uint64_t>0x9E3779B97F4A7C15ULL >> 56
                if o != NULL and seen_obj[slot] == o:  # met before: its code, object unread
                    c = seen_code[slot]
                else:
                    if o == NULL or not PyUnicode_Check(<object>o):
                        return i
                    ph = (<PyASCIIObject*>o).hash  # read in place: no call when cached
                    if ph == -1:
                        ph = PyObject_Hash(<object>o)
                    h = <uint64_t>ph
                    # the direct-mapped cache by the text's hash (see fm_dmap); a hit costs
                    # one comparison of the text
                    c = m.slot[h >> shift]
                    if c < 0 or not _same_str(kobj[c], o):
                        mask = t.cap - 1
                        s = <int64_t>(h & <uint64_t>mask)
                        while True:
                            c = t.code[s]
                            if c < 0:
                                if t.k == kcap:
                                    kcap *= 2
                                    kobj2 = <PyObject**>realloc(kobj, kcap * sizeof(PyObject*))
                                    if kobj2 == NULL:
                                        raise MemoryError()
                                    kobj = kobj2
                                kobj[t.k] = o
                                c = fm_htab_add(&t, s, h, i)
                                if c < 0 or fm_dmap_put(&m, c, h) < 0:
                                    raise MemoryError()
                                shift = 64 - m.bits
                                break
                            if t.hash[s] == h and _same_str(kobj[c], o):
                                break
                            s = (s + 1) & mask
                    seen_obj[slot] = o
                    seen_code[slot] = c
                last = o
                last_code = c
            if c32 != NULL:
                c32[i] = <int32_t>last_code
            else:
                c64[i] = last_code
        return codes, _first_array(&t)
    finally:
        fm_htab_free(&t)
        fm_dmap_free(&m)
        free(kobj)


def encode_views(const unsigned char[::1] views, list buffers):
    """First-seen codes of arrow string views: ``views`` holds the 16-byte views of the
    items (``len(views) // 16`` of them, the array's offset already applied), ``buffers``
    the array's data buffers (objects with the buffer protocol) in their order. Strings of
    up to 12 bytes are read from their view alone. Returns ``(codes, first)`` as
    :func:`encode_fixed`; a view that points outside its buffer raises ValueError."""
    cdef int64_t n = views.shape[0] // 16, nb = len(buffers), j, bad = -1
    cdef fm_htab t
    cdef int rc
    cdef int32_t* c32
    cdef int64_t* c64
    cdef const char** ptrs
    cdef int64_t* lens
    cdef const unsigned char[::1] mv
    cdef const char* pviews = <const char*>&views[0] if n else <const char*>""
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
        codes = _start(n, &t, &c32, &c64)
        try:
            with nogil:
                rc = fm_encode_views(pviews, n, ptrs, lens, nb, c32, c64, &t, &bad)
            if rc == -1:
                raise MemoryError()
            if rc == -2:
                raise ValueError(f"encode_views: view {bad} points outside its data buffer")
            return codes, _first_array(&t)
        finally:
            fm_htab_free(&t)
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
