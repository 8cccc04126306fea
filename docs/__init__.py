"""Makes docs/ a package for pytest: its conftest.py then does not clash with tests/conftest.py."""
