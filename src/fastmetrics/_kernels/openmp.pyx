"""What the build knows about OpenMP (see ``fastmetrics._threads`` for the policy)."""


def openmp_enabled():
    """True when this build of fastmetrics was compiled with OpenMP.

    Without OpenMP (a compiler without it, or ``FASTMETRICS_NO_OPENMP=1`` at build time) the
    kernels run on one thread and every ``n_threads`` resolves to 1; results are the same.

    Returns
    -------
    enabled : bool
        Whether the kernels can run on several threads.

    See Also
    --------
    numpy.show_runtime : The thread runtimes loaded in the process (threadpoolctl's view).

    Examples
    --------
    >>> from fastmetrics import openmp_enabled
    >>> isinstance(openmp_enabled(), bool)
    True
    """
    return bool(fm_omp_enabled())


def omp_max_threads():
    """``omp_get_max_threads()``: honours OMP_NUM_THREADS and threadpoolctl limits; 1 without OpenMP."""
    return fm_omp_max_threads()
