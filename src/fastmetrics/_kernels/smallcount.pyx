# cython: language_level=3
"""The confusion state of a small call, in one C call.

Jobs score per group, per batch, per bootstrap resample: thousands of calls on 10 to 1,000
labels, where the Python checks and the fused-type dispatch of the laned kernel
(:func:`fastmetrics._kernels.confusion.dense_state`) cost more than the counting. Here one
call checks the common layout itself (two native 1-D integer or bool ndarrays of one dtype
and one length), counts into a table on the stack and returns the compact state; anything
else (other inputs, a wide label range, large inputs) answers ``None`` and takes the general
path, which owns every error message.
"""

from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t, INT64_MAX)
from libc.string cimport memset
from .common cimport label_t

cdef extern from "fm_count.h" nogil:
    int64_t fm_occurring(const int64_t*, int64_t, int64_t*)
    void fm_gather(const int64_t*, int64_t, const int64_t*, int64_t, int64_t*, unsigned char*)

cimport numpy as cnp

cnp.import_array()

#: largest input counted here: above it the laned, threaded kernel is the right tool
SMALL_MAX_N = 1 << 12
#: widest label range (max - min + 1) counted here: the table is SPAN x SPAN on the stack
SMALL_MAX_SPAN = 64

cdef enum:
    _MAX_SPAN = 64  # SMALL_MAX_SPAN, as a C constant for the stack arrays
    _BANKED_SPAN = 32  # four banks of a table this wide fit in the stack table


cdef inline bint _range(const char* p, Py_ssize_t stride, Py_ssize_t n, label_t* kind,
                        int64_t* lo, int64_t* hi) noexcept nogil:
    """Widen ``[lo, hi]`` by the values of one array; False for uint64 values above int64."""
    cdef Py_ssize_t i
    cdef const label_t* a = <const label_t*>p
    # locals, not ``lo[0]``: stores through the pointers would be re-read every step (a
    # ``char*`` may alias them), and a contiguous array gets a loop the compiler vectorises
    cdef label_t mn = a[0], mx = a[0], x
    if stride == sizeof(label_t):
        for i in range(1, n):
            x = a[i]
            mn = x if x < mn else mn
            mx = x if x > mx else mx
    else:
        for i in range(1, n):
            x = (<const label_t*>(p + i * stride))[0]
            mn = x if x < mn else mn
            mx = x if x > mx else mx
    if label_t is uint64_t:
        if mx > <uint64_t>INT64_MAX:
            return False
    if <int64_t>mn < lo[0]:
        lo[0] = <int64_t>mn
    if <int64_t>mx > hi[0]:
        hi[0] = <int64_t>mx
    return True


cdef inline void _count(const char* pt, Py_ssize_t st, const char* pp, Py_ssize_t sp,
                        Py_ssize_t n, label_t* kind, int64_t lo, Py_ssize_t span,
                        int64_t* table) noexcept nogil:
    cdef Py_ssize_t i
    cdef const label_t* a = <const label_t*>pt
    cdef const label_t* b = <const label_t*>pp
    cdef Py_ssize_t kk = span * span, c
    if st == sizeof(label_t) and sp == sizeof(label_t) and span <= _BANKED_SPAN:
        # four banks, one per step mod 4: a run of one label pair (the common case: right
        # predictions of the majority class) then never waits on its own previous store
        memset(table + kk, 0, 3 * kk * sizeof(int64_t))
        i = 0
        while i + 4 <= n:
            table[(<int64_t>a[i] - lo) * span + (<int64_t>b[i] - lo)] += 1
            table[kk + (<int64_t>a[i + 1] - lo) * span + (<int64_t>b[i + 1] - lo)] += 1
            table[2 * kk + (<int64_t>a[i + 2] - lo) * span + (<int64_t>b[i + 2] - lo)] += 1
            table[3 * kk + (<int64_t>a[i + 3] - lo) * span + (<int64_t>b[i + 3] - lo)] += 1
            i += 4
        while i < n:
            table[(<int64_t>a[i] - lo) * span + (<int64_t>b[i] - lo)] += 1
            i += 1
        for c in range(kk):
            table[c] += table[kk + c] + table[2 * kk + c] + table[3 * kk + c]
    elif st == sizeof(label_t) and sp == sizeof(label_t):
        for i in range(n):
            table[(<int64_t>a[i] - lo) * span + (<int64_t>b[i] - lo)] += 1
    else:
        for i in range(n):
            table[(<int64_t>(<const label_t*>(pt + i * st))[0] - lo) * span
                  + (<int64_t>(<const label_t*>(pp + i * sp))[0] - lo)] += 1


cdef inline bint _ranged(int typenum, const char* pt, Py_ssize_t st, const char* pp,
                         Py_ssize_t sp, Py_ssize_t n, int64_t* lo, int64_t* hi) noexcept nogil:
    # ``kind`` is a typed null pointer: it only picks the specialisation
    if typenum == cnp.NPY_INT8:
        return (_range(pt, st, n, <int8_t*>NULL, lo, hi)
                and _range(pp, sp, n, <int8_t*>NULL, lo, hi))
    if typenum == cnp.NPY_INT16:
        return (_range(pt, st, n, <int16_t*>NULL, lo, hi)
                and _range(pp, sp, n, <int16_t*>NULL, lo, hi))
    if typenum == cnp.NPY_INT32:
        return (_range(pt, st, n, <int32_t*>NULL, lo, hi)
                and _range(pp, sp, n, <int32_t*>NULL, lo, hi))
    if typenum == cnp.NPY_INT64:
        return (_range(pt, st, n, <int64_t*>NULL, lo, hi)
                and _range(pp, sp, n, <int64_t*>NULL, lo, hi))
    if typenum == cnp.NPY_UINT8:
        return (_range(pt, st, n, <uint8_t*>NULL, lo, hi)
                and _range(pp, sp, n, <uint8_t*>NULL, lo, hi))
    if typenum == cnp.NPY_UINT16:
        return (_range(pt, st, n, <uint16_t*>NULL, lo, hi)
                and _range(pp, sp, n, <uint16_t*>NULL, lo, hi))
    if typenum == cnp.NPY_UINT32:
        return (_range(pt, st, n, <uint32_t*>NULL, lo, hi)
                and _range(pp, sp, n, <uint32_t*>NULL, lo, hi))
    return (_range(pt, st, n, <uint64_t*>NULL, lo, hi)
            and _range(pp, sp, n, <uint64_t*>NULL, lo, hi))


cdef inline void _counted(int typenum, const char* pt, Py_ssize_t st, const char* pp,
                          Py_ssize_t sp, Py_ssize_t n, int64_t lo, Py_ssize_t span,
                          int64_t* table) noexcept nogil:
    if typenum == cnp.NPY_INT8:
        _count(pt, st, pp, sp, n, <int8_t*>NULL, lo, span, table)
    elif typenum == cnp.NPY_INT16:
        _count(pt, st, pp, sp, n, <int16_t*>NULL, lo, span, table)
    elif typenum == cnp.NPY_INT32:
        _count(pt, st, pp, sp, n, <int32_t*>NULL, lo, span, table)
    elif typenum == cnp.NPY_INT64:
        _count(pt, st, pp, sp, n, <int64_t*>NULL, lo, span, table)
    elif typenum == cnp.NPY_UINT8:
        _count(pt, st, pp, sp, n, <uint8_t*>NULL, lo, span, table)
    elif typenum == cnp.NPY_UINT16:
        _count(pt, st, pp, sp, n, <uint16_t*>NULL, lo, span, table)
    elif typenum == cnp.NPY_UINT32:
        _count(pt, st, pp, sp, n, <uint32_t*>NULL, lo, span, table)
    else:
        _count(pt, st, pp, sp, n, <uint64_t*>NULL, lo, span, table)


cdef inline void _store(char* out, int typenum, Py_ssize_t i, int64_t v) noexcept nogil:
    """``out[i] = v`` in the labels' own dtype (the state reports labels as they came)."""
    if typenum == cnp.NPY_INT8:
        (<int8_t*>out)[i] = <int8_t>v
    elif typenum == cnp.NPY_INT16:
        (<int16_t*>out)[i] = <int16_t>v
    elif typenum == cnp.NPY_INT32:
        (<int32_t*>out)[i] = <int32_t>v
    elif typenum == cnp.NPY_INT64:
        (<int64_t*>out)[i] = v
    elif typenum == cnp.NPY_UINT8:
        (<uint8_t*>out)[i] = <uint8_t>v
    elif typenum == cnp.NPY_UINT16:
        (<uint16_t*>out)[i] = <uint16_t>v
    elif typenum == cnp.NPY_UINT32:
        (<uint32_t*>out)[i] = <uint32_t>v
    else:
        (<uint64_t*>out)[i] = <uint64_t>v


cdef inline bint _plain(object a, int typenum, Py_ssize_t n):
    cdef cnp.ndarray arr
    if not cnp.PyArray_CheckExact(a):
        return False
    arr = <cnp.ndarray>a
    return (cnp.PyArray_NDIM(arr) == 1 and cnp.PyArray_TYPE(arr) == typenum
            and cnp.PyArray_DIMS(arr)[0] == n and cnp.PyArray_ISNOTSWAPPED(arr))


def small_state(object y_true, object y_pred):
    """``(values, cm, in_true)`` of two small label arrays, or ``None``.

    Answers only for two exact ndarrays, 1-D, of one native integer (or bool) dtype, with
    one length of 1 to :data:`SMALL_MAX_N` and a label range of at most
    :data:`SMALL_MAX_SPAN` values: ``values`` are the labels that occur (sorted, in the
    input dtype), ``cm`` their int64 K x K table (rows ``y_true``), ``in_true`` which occur
    in ``y_true``. ``None`` means "take the general path" (it validates and words errors).
    """
    cdef cnp.ndarray at, ap
    cdef int typenum
    cdef Py_ssize_t n, st, sp, span = 0, i, m = 0
    cdef int64_t lo, hi
    cdef bint fits
    cdef const char* pt
    cdef const char* pp
    cdef int64_t table[_MAX_SPAN * _MAX_SPAN]
    cdef int64_t keep[_MAX_SPAN]
    cdef cnp.npy_intp dims[2]
    cdef int64_t* pc
    cdef cnp.npy_bool* pin
    cdef char* pv
    if not cnp.PyArray_CheckExact(y_true):
        return None
    at = <cnp.ndarray>y_true
    if cnp.PyArray_NDIM(at) != 1:
        return None
    typenum = cnp.PyArray_TYPE(at)
    if not cnp.NPY_BOOL <= typenum <= cnp.NPY_ULONGLONG:
        return None
    n = cnp.PyArray_DIMS(at)[0]
    if n == 0 or n > SMALL_MAX_N or not cnp.PyArray_ISNOTSWAPPED(at):
        return None
    if not _plain(y_pred, typenum, n):
        return None
    ap = <cnp.ndarray>y_pred
    # numpy has two type numbers for the 64-bit (and, by platform, 32-bit) integers: read
    # by size and signedness (bool as uint8)
    typenum = _canonical(typenum, cnp.PyArray_ITEMSIZE(at))
    pt = <const char*>cnp.PyArray_DATA(at)
    pp = <const char*>cnp.PyArray_DATA(ap)
    st = cnp.PyArray_STRIDES(at)[0]
    sp = cnp.PyArray_STRIDES(ap)[0]
    lo = INT64_MAX
    hi = -INT64_MAX - 1
    with nogil:
        fits = (_ranged(typenum, pt, st, pp, sp, n, &lo, &hi)
                and <uint64_t>hi - <uint64_t>lo < <uint64_t>_MAX_SPAN)
        if fits:
            span = <Py_ssize_t>(hi - lo) + 1
            memset(table, 0, span * span * sizeof(int64_t))
            _counted(typenum, pt, st, pp, sp, n, lo, span, table)
            m = fm_occurring(table, span, keep)
    if not fits:
        return None
    dims[0] = m
    dims[1] = m
    values = cnp.PyArray_EMPTY(1, dims, cnp.PyArray_TYPE(at), 0)
    cm = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT64, 0)
    in_true = cnp.PyArray_ZEROS(1, dims, cnp.NPY_BOOL, 0)
    pv = <char*>cnp.PyArray_DATA(values)
    pc = <int64_t*>cnp.PyArray_DATA(cm)
    pin = <cnp.npy_bool*>cnp.PyArray_DATA(in_true)
    for i in range(m):
        _store(pv, typenum, i, lo + keep[i])
    fm_gather(table, span, keep, m, pc, <unsigned char*>pin)
    return values, cm, in_true


cdef inline int _canonical(int typenum, Py_ssize_t itemsize) noexcept:
    """One type number per integer layout, NPY_INT8..NPY_UINT64 (bool: NPY_UINT8)."""
    if typenum == cnp.NPY_BOOL:
        return cnp.NPY_UINT8
    if typenum in (cnp.NPY_BYTE, cnp.NPY_SHORT, cnp.NPY_INT, cnp.NPY_LONG, cnp.NPY_LONGLONG):
        if itemsize == 1:
            return cnp.NPY_INT8
        if itemsize == 2:
            return cnp.NPY_INT16
        if itemsize == 4:
            return cnp.NPY_INT32
        return cnp.NPY_INT64
    if itemsize == 1:
        return cnp.NPY_UINT8
    if itemsize == 2:
        return cnp.NPY_UINT16
    if itemsize == 4:
        return cnp.NPY_UINT32
    return cnp.NPY_UINT64
