"""What the build knows about OpenMP (see ``fastmetrics._threads`` for the policy)."""


def openmp_enabled():
    """True when this build of fastmetrics was compiled with OpenMP."""
    return bool(fm_omp_enabled())


def omp_max_threads():
    """``omp_get_max_threads()``: honours OMP_NUM_THREADS and threadpoolctl limits; 1 without OpenMP."""
    return fm_omp_max_threads()
