"""pytest runs the ``>>>`` examples of the .rst pages (``--doctest-glob='*.rst'``).

Nothing else here is a test module; each page runs in a fresh temporary
directory, so the files its examples write are thrown away.
"""

import pytest

collect_ignore = ["conf.py"]
collect_ignore_glob = ["_build/*", "auto_examples/*", "api/generated/*"]


@pytest.fixture(autouse=True)
def _in_a_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
