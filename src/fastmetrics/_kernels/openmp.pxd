cdef extern from "fm_omp.h" nogil:
    int fm_omp_max_threads()
    int fm_omp_enabled()
