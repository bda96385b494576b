"""The catalogue's examples written into a library's own docstrings (``flax-errors export``).

A command, not a part of the build: ``model`` composes each docstring and the patch
(pure), ``cli`` reads the files and writes the patch. Its formatter, pyink, is the
``export`` extra.
"""
