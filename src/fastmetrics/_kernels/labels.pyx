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
from cpython.unicode cimport PyUnicode_Check, PyUnicode_Compare
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
    int64_t fm_htab_add(fm_htab *t, int64_t s, uint64_t h, int64_t index)
    int fm_encode_fixed(const char *data, int64_t n, int64_t stride, int64_t itemsize,
                        int32_t *codes32, int64_t *codes64, fm_htab *t)
    int fm_encode_var(const char *data, int64_t data_len, const int64_t *off64,
                      const int32_t *off32, int64_t n, int32_t *codes32, int64_t *codes64,
                      fm_htab *t)

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


def encode_fixed(cnp.ndarray a):
    """First-seen codes of a 1-D array of any fixed-width dtype, compared by raw bytes.

    Returns ``(codes, first)``: int32 (int64 from 2**31 items) codes ``0 .. K - 1`` in order
    of first occurrence, and the int64 index of each code's first item.
    """
    cdef int64_t n, stride, itemsize
    cdef const char* data
    cdef fm_htab t
    cdef int rc
    cdef int32_t* c32
    cdef int64_t* c64
    if a.ndim != 1 or a.dtype.hasobject:
        raise TypeError("encode_fixed: a 1-D array of a fixed-width dtype is needed")
    n, stride, itemsize = a.shape[0], a.strides[0], a.itemsize
    data = <const char*>cnp.PyArray_DATA(a)
    codes = _start(n, &t, &c32, &c64)
    try:
        with nogil:
            rc = fm_encode_fixed(data, n, stride, itemsize, c32, c64, &t)
        if rc < 0:
            raise MemoryError()
        return codes, _first_array(&t)
    finally:
        fm_htab_free(&t)


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
    if n and (offsets[0] < 0 or offsets[n] > data.shape[0]):
        raise ValueError("encode_offsets: offsets outside the data")
    for i in range(n):  # arrow guarantees it; a bad buffer must not read out of bounds
        if offsets[i + 1] < offsets[i]:
            raise ValueError("encode_offsets: offsets decrease")
    if offset_t is int64_t:
        o64 = &offsets[0]
    else:
        o32 = &offsets[0]
    codes = _start(n, &t, &c32, &c64)
    try:
        with nogil:
            rc = fm_encode_var(pdata, data.shape[0], o64, o32, n, c32, c64, &t)
        if rc < 0:
            raise MemoryError()
        return codes, _first_array(&t)
    finally:
        fm_htab_free(&t)


def encode_str_objects(cnp.ndarray a):
    """First-seen codes of a 1-D object array whose items are all ``str`` (subclasses
    included, compared by content).

    Returns ``(codes, first)`` as :func:`encode_fixed`, or the index (an int) of the first
    item that is not a ``str``, where the caller takes its general path.
    """
    cdef int64_t n, stride
    cdef const char* data
    cdef fm_htab t
    cdef int32_t* c32
    cdef int64_t* c64
    cdef int64_t i, s, c, mask, last_code = -1
    cdef uint64_t h
    cdef PyObject* o
    cdef PyObject* last = NULL
    cdef PyObject* kobj
    cdef Py_hash_t ph
    # direct-mapped by address: the same str object (a category, a repeated literal) found
    # again costs no call and no read of the object; a pointer equal to one seen is the
    # same live object (the array holds it), so its code is exact
    cdef PyObject* seen_obj[256]
    cdef int64_t seen_code[256]
    cdef uint64_t slot
    if a.ndim != 1 or a.dtype.num != cnp.NPY_OBJECT:
        raise TypeError("encode_str_objects: a 1-D object array is needed")
    n, stride = a.shape[0], a.strides[0]
    data = <const char*>cnp.PyArray_DATA(a)
    memset(seen_obj, 0, sizeof(seen_obj))
    codes = _start(n, &t, &c32, &c64)
    try:
        for i in range(n):
            o = (<PyObject**>(data + i * stride))[0]
            if o != last:  # runs of one object (a repeated literal) skip the table
                slot = (<uint64_t>o >> 4) * <uint64_t>0x9E3779B97F4A7C15ULL >> 56
                if o != NULL and seen_obj[slot] == o:  # met before: its code, object unread
                    c = seen_code[slot]
                else:
                    if o == NULL or not PyUnicode_Check(<object>o):
                        return i
                    ph = PyObject_Hash(<object>o)  # cached in the str object
                    h = <uint64_t>ph
                    mask = t.cap - 1
                    s = <int64_t>(h & <uint64_t>mask)
                    while True:
                        c = t.code[s]
                        if c < 0:
                            c = fm_htab_add(&t, s, h, i)
                            if c < 0:
                                raise MemoryError()
                            break
                        if t.hash[s] == h:
                            kobj = (<PyObject**>(data + t.first[c] * stride))[0]
                            if kobj == o or PyUnicode_Compare(<object>kobj, <object>o) == 0:
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
