"""The catalogue's examples written into a library's own docstrings (``flax-errors export``).

A command, not a part of the build. Its formatter, pyink, is the ``export`` extra.
"""
