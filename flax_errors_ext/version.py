"""The release, in a module apart from the package root, whose ``setup()`` imports Sphinx."""

__version__ = "0.1.0"
