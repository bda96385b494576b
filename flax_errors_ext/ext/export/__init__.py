"""The catalogue's examples written into a library's own docstrings (``flax-errors export``).

A command, not a part of the build: ``model`` composes each docstring and the patch
(pure), ``cli`` reads the library's source and the catalogue files and writes the
patch. The command line finds the command through this package's
``flax_errors.commands`` entry point; its formatter, pyink, is the ``export`` extra.
"""
