"""Marks docs/ as a package for pytest, so that its conftest.py does not clash with tests/conftest.py."""
