"""Build of the optional compiled kernel; everything else is in pyproject.toml.

The kernel (``randomts/core/_kernels.pyx``) calls LAPACK ``dtpqrt`` and BLAS
``dsyrk`` with the GIL released, so that threads fold row blocks at once.
Where it cannot be built (no C compiler, no Cython, no SciPy headers) the
install goes on without it and says so once: randomts then calls the same
routines through SciPy's Python wrappers, with the same results, and only the
threads' overlap is lost. ``RANDOMTS_REQUIRE_KERNEL=1`` makes a failed build of
the kernel an error instead (the wheel builds set it).
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

KERNEL = Extension("randomts.core._kernels", ["randomts/core/_kernels.pyx"])
# the steps of the free runs of NARX rule bases (randomts.dynamics.simulation_fit); without it
# the same steps run in NumPy
RUNS = Extension("randomts.dynamics._runs", ["randomts/dynamics/_runs.pyx"])


def _required():
    return os.environ.get("RANDOMTS_REQUIRE_KERNEL", "").strip() not in ("", "0")


class OptionalKernel(build_ext):
    """``build_ext`` that installs randomts without the kernel when the kernel cannot be built."""

    def finalize_options(self):
        # Cython translates the sources before setuptools prepares the extensions: setuptools
        # records what it needs (e.g. whether an extension needs a stub) on the objects it is
        # given, and cythonize returns new ones
        self._reported = False
        self._skipped = set()
        extensions = self.distribution.ext_modules or []
        try:
            from Cython.Build import cythonize
        except ImportError as exc:
            extensions[:] = []
            self._without_kernel(f"Cython cannot be imported ({exc})", "Cython")
        else:
            try:
                extensions[:] = cythonize(extensions, quiet=True)
            except Exception as exc:  # e.g. SciPy's .pxd files not found
                extensions[:] = []
                self._without_kernel(f"Cython could not translate it ({exc})", "Cython and SciPy")
        super().finalize_options()

    def build_extensions(self):
        super().build_extensions()
        # what was not built is not copied into the wheel or the source tree
        self.extensions[:] = [e for e in self.extensions if e.name not in self._skipped]

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # compiler missing, failing or misconfigured: all the same here
            self._skipped.add(ext.name)
            self._without_kernel(f"{type(exc).__name__}: {exc}", "a C compiler")

    def _without_kernel(self, reason, missing):
        if _required():
            raise RuntimeError(
                f"randomts: RANDOMTS_REQUIRE_KERNEL is set and the compiled kernel could not be "
                f"built: {reason}"
            )
        if not self._reported:
            self._reported = True
            print(
                "\n"
                "randomts: the compiled kernels (randomts.core._kernels, "
                "randomts.dynamics._runs) were not built: "
                f"{str(reason).rstrip('.')}.\n"
                "randomts: installing without them. The same LAPACK/BLAS routines run through "
                "SciPy's Python wrappers with the same results; only the overlap of threads "
                "folding row blocks (n_jobs > 1) is lost; the steps of NARX free runs run in "
                f"NumPy, slower. To build them, make {missing} available and reinstall.\n",
                file=sys.stderr,
                flush=True,
            )


setup(ext_modules=[KERNEL, RUNS], cmdclass={"build_ext": OptionalKernel})
