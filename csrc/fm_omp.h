/* OpenMP shims: the same names whether or not the build has OpenMP. */
#ifndef FM_OMP_H
#define FM_OMP_H

#ifdef _OPENMP
#include <omp.h>
static inline int fm_omp_max_threads(void) { return omp_get_max_threads(); }
static inline int fm_omp_enabled(void) { return 1; }
#else
static inline int fm_omp_max_threads(void) { return 1; }
static inline int fm_omp_enabled(void) { return 0; }
#endif

#endif
