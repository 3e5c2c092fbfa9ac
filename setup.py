"""Build script: one extension per ``src/fastmetrics/_kernels/*.pyx`` kernel module.

A kernel names the C helpers it needs from ``csrc/`` with a ``# distutils: sources = ...``
line at its top, so adding a kernel never means editing this file.

Environment switches
--------------------
FASTMETRICS_CYTHON_DEBUG=1   bounds checks, wraparound and initialisation checks back on
FASTMETRICS_NO_OPENMP=1      build without OpenMP even when the compiler supports it
"""

import os
import shutil
import sys
import tempfile
from glob import glob

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


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
OMP = openmp_flags()
print(f"fastmetrics build: OpenMP {'on' if OMP else 'off'}, debug {'on' if DEBUG else 'off'}")

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

compile_args = ["-O3", "-fno-strict-aliasing", "-std=c11"] + OMP
if DEBUG:
    compile_args = ["-O1", "-g", "-std=c11"] + OMP

extensions = []
for pyx in sorted(glob(os.path.join("src", "fastmetrics", "_kernels", "*.pyx"))):
    modname = "fastmetrics._kernels." + os.path.splitext(os.path.basename(pyx))[0]
    extensions.append(
        Extension(
            modname,
            [pyx],
            include_dirs=["csrc", np.get_include()],
            define_macros=[
                ("NPY_NO_DEPRECATED_API", "NPY_1_25_API_VERSION"),
                ("FM_HAVE_OPENMP", "1" if OMP else "0"),
            ],
            extra_compile_args=compile_args,
            extra_link_args=OMP,
        )
    )

if not extensions:  # e.g. an sdist without the .pyx sources: never build a kernel-less wheel
    raise SystemExit("fastmetrics build: no src/fastmetrics/_kernels/*.pyx kernels found")

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        nthreads=int(os.environ.get("FASTMETRICS_BUILD_JOBS", "0")) or None,
    ),
)
