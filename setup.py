"""Build script: one extension per ``src/fastmetrics/_kernels/*.pyx`` kernel module.

A kernel names the C helpers it needs from ``csrc/`` with a ``# distutils: sources = ...``
line at its top, so adding a kernel never means editing this file.

Build time
----------
All the work happens in ``build_ext`` (below), so ``pip install .`` and ``python -m build``,
which pass no ``-j``, get the same parallel build as ``setup.py build_ext -j N``:

- Cython runs only when extensions are built (never for the sdist or pip's metadata step),
  in one worker process per job, and only on ``.pyx`` files newer than their generated C;
- the C compiler then runs one module per job, largest generated C first, so the build does
  not end with one big module compiling alone;
- Cython's utility code (memoryviews, fused-type dispatch helpers, ...) is generated once,
  into the shared module ``fastmetrics._kernels._cyutility``, instead of into every kernel;
- ``-O2`` (with GCC 12+ that includes the cheap vectorizer) for every kernel, ``-O3`` only for
  the kernels in ``O3_KERNELS``, where a benchmark showed it faster; no debug information
  (wheels are stripped anyway; ``FASTMETRICS_CYTHON_DEBUG=1`` keeps it).

Measured on the 2-core development machine: ``pip install .`` from a clean checkout went
from 424 s to about 200 s of CPU (the README has the wall-clock times). Most of what is left
is fused-type specializations: bins, proba, ranking and confusion, which generate 32-64 copies
of their functions (label dtype x probability dtype x weight dtype, or label x group dtype),
hold about 60% of all generated C.

Environment switches
--------------------
FASTMETRICS_BUILD_JOBS=N     parallel jobs (default: the CPUs this process may run on)
FASTMETRICS_CYTHON_DEBUG=1   bounds checks, wraparound and initialisation checks back on
FASTMETRICS_NO_OPENMP=1      build without OpenMP even when the compiler supports it
"""

import os
import shutil
import sys
import tempfile
import time
from glob import glob

import numpy as np
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# kernels whose hot loops measured faster compiled with -O3 than with -O2 (3-8%: the
# counting loops of confusion, the sorts of ranking, the sums of sums, labelrank's row walk);
# the others measured the same at -O2 (sketch faster)
O3_KERNELS = {"confusion", "ranking", "labelrank", "sums"}
# kernels that keep their own copy of Cython's utility code: labelrank's row walk measured
# 18% slower built against the shared module (same C for the loop; code layout)
OWN_UTILITY_KERNELS = {"labelrank"}

SHARED_UTILITY = "fastmetrics._kernels._cyutility"


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def build_jobs():
    """FASTMETRICS_BUILD_JOBS, else the number of CPUs this process may run on."""
    jobs = os.environ.get("FASTMETRICS_BUILD_JOBS", "").strip()
    if jobs:
        return max(1, int(jobs))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def openmp_flags():
    """Return the OpenMP compile/link flags if a probe program builds and links, else []."""
    if _env_flag("FASTMETRICS_NO_OPENMP") or sys.platform == "win32":
        return []
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    flags = ["-fopenmp"]
    tmp = tempfile.mkdtemp(prefix="fm_omp_probe_")
    try:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(
                "#include <omp.h>\n"
                "int main(void) { int n = 0;\n"
                "#pragma omp parallel reduction(+:n)\n"
                "n += 1; return n > 0 ? 0 : 1; }\n"
            )
        cc = new_compiler()
        customize_compiler(cc)
        devnull = os.open(os.devnull, os.O_WRONLY)
        saved = os.dup(2)
        os.dup2(devnull, 2)
        try:
            objs = cc.compile([src], output_dir=tmp, extra_postargs=flags)
            cc.link_executable(objs, "probe", output_dir=tmp, extra_postargs=flags)
        finally:
            os.dup2(saved, 2)
            os.close(devnull)
            os.close(saved)
        return flags
    except Exception:
        return []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


DEBUG = _env_flag("FASTMETRICS_CYTHON_DEBUG")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "nonecheck": False,
    "embedsignature": True,
    "freethreading_compatible": True,
}


def compile_args(module, omp):
    if DEBUG:
        return ["-O1", "-g", "-std=c11"] + omp
    level = "-O3" if module.rsplit(".", 1)[-1] in O3_KERNELS else "-O2"
    # after Python's own CFLAGS (-g -O3 on most builds), so these win
    return [level, "-g0", "-fno-strict-aliasing", "-std=c11"] + omp


class parallel_build_ext(build_ext):
    """Cythonize, then compile, every kernel module in parallel (see the module docstring)."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:  # no -j given: pip, build and plain `setup.py build_ext`
            self.parallel = build_jobs()

    def run(self):
        from Cython.Build import cythonize

        start = time.perf_counter()
        omp = openmp_flags()
        jobs = self.parallel if isinstance(self.parallel, int) else build_jobs()
        print(f"fastmetrics build: OpenMP {'on' if omp else 'off'}, "
              f"debug {'on' if DEBUG else 'off'}, {jobs} parallel job(s)")
        for ext in self.extensions:
            ext.extra_compile_args = compile_args(ext.name, omp)
            ext.extra_link_args = list(omp)
        own = [e for e in self.extensions if e.name.rsplit(".", 1)[-1] in OWN_UTILITY_KERNELS]
        cythonized = []
        for exts, shared in ([e for e in self.extensions if e not in own], SHARED_UTILITY), \
                (own, None):
            cythonized += cythonize(exts, compiler_directives=directives, force=self.force,
                                    nthreads=jobs if jobs > 1 else 0,
                                    shared_utility_qualified_name=shared) if exts else []
        # the generated C (and what a kernel's `# distutils:` lines add) into the extensions
        # finalize_options prepared (they carry setuptools' private bookkeeping)
        by_name = {e.name: e for e in cythonized}
        for ext in self.extensions:
            ext.__dict__.update(
                {k: v for k, v in vars(by_name[ext.name]).items() if not k.startswith("_")})
        print(f"fastmetrics build: Cython done in {time.perf_counter() - start:.1f} s")
        # longest compile first: the largest generated C file
        self.extensions.sort(key=lambda e: -os.path.getsize(e.sources[0]))
        super().run()
        print(f"fastmetrics build: extensions built in {time.perf_counter() - start:.1f} s")


extensions = [
    Extension(
        "fastmetrics._kernels." + os.path.splitext(os.path.basename(pyx))[0],
        [pyx],
        include_dirs=["csrc", np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_25_API_VERSION")],
    )
    for pyx in sorted(glob(os.path.join("src", "fastmetrics", "_kernels", "*.pyx")))
]
if not extensions:  # e.g. an sdist without the .pyx sources: never build a kernel-less wheel
    raise SystemExit("fastmetrics build: no src/fastmetrics/_kernels/*.pyx kernels found")
# Cython writes this module's C when it cythonizes the kernels (see cythonize's
# shared_utility_qualified_name); the kernels import it
extensions.append(
    Extension(SHARED_UTILITY, [os.path.join("src", *SHARED_UTILITY.split(".")) + ".c"]))

setup(ext_modules=extensions, cmdclass={"build_ext": parallel_build_ext})
