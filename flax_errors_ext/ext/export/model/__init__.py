"""The catalogue's examples written into a library's own docstrings."""
