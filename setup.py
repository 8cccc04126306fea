"""Build of the compiled kernels; everything else is in pyproject.toml."""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [
            Extension("randomts.core._kernels", ["randomts/core/_kernels.pyx"]),
            # the steps of the free runs of NARX rule bases (randomts.dynamics.simulation_fit)
            Extension("randomts.dynamics._runs", ["randomts/dynamics/_runs.pyx"]),
        ]
    )
)
