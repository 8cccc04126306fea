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


def _required():
    return os.environ.get("RANDOMTS_REQUIRE_KERNEL", "").strip() not in ("", "0")


class OptionalKernel(build_ext):
    """``build_ext`` that installs randomts without the kernel when the kernel cannot be built."""

    def finalize_options(self):
        super().finalize_options()
        self._reported = False
        self._skipped = set()

    def run(self):
        try:
            from Cython.Build import cythonize
        except ImportError as exc:
            self.extensions[:] = []
            return self._without_kernel(f"Cython cannot be imported ({exc})", "Cython")
        try:
            self.extensions[:] = cythonize(self.extensions, quiet=True)
        except Exception as exc:  # e.g. SciPy's .pxd files not found
            self.extensions[:] = []
            return self._without_kernel(
                f"Cython could not translate it ({exc})", "Cython and SciPy"
            )
        return super().run()

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
                "randomts: the compiled kernel randomts.core._kernels was not built: "
                f"{str(reason).rstrip('.')}.\n"
                "randomts: installing without it. The same LAPACK/BLAS routines run through "
                "SciPy's Python wrappers with the same results; only the overlap of threads "
                "folding row blocks (n_jobs > 1) is lost. To build it, make "
                f"{missing} available and reinstall.\n",
                file=sys.stderr,
                flush=True,
            )


setup(ext_modules=[KERNEL], cmdclass={"build_ext": OptionalKernel})
