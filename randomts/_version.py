"""The version of randomts, in one place: the package and its metadata read it here."""

__version__ = "0.1.0"
