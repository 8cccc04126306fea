"""Build of the compiled kernel; everything else is in pyproject.toml."""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize([Extension("randomts.core._kernels", ["randomts/core/_kernels.pyx"])]))
