"""pytest runs the ``>>>`` examples of the .rst pages (``--doctest-glob='*.rst'``).

Nothing else here is a test module. Each page runs in a fresh temporary directory that
holds a copy of ``docs/data`` (example files), so the files its examples write are thrown
away, and with one BLAS thread, so the figures it prints
do not depend on the number of cores (and a busy machine does not slow it down).
"""

import shutil
from pathlib import Path

import numpy  # noqa: F401 - loads OpenBLAS now, so that threadpool_limits below reaches it
import pytest
import scipy.linalg  # noqa: F401 - and SciPy's BLAS, when it bundles its own
from threadpoolctl import threadpool_limits

collect_ignore = ["conf.py", "longer_examples.rst"]
collect_ignore_glob = ["_build/*", "auto_examples/*", "api/generated/*"]


DATA = Path(__file__).parent / "data"  # example files the pages load, as a user would


@pytest.fixture(autouse=True)
def _in_a_temporary_directory_with_one_blas_thread(tmp_path, monkeypatch):
    for source in DATA.glob("*") if DATA.is_dir() else ():
        shutil.copy(source, tmp_path / source.name)
    monkeypatch.chdir(tmp_path)
    with threadpool_limits(1):
        yield
