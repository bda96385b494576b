"""The extras: features beyond the executed catalogue, each loaded where a project lists it.

Each is an extension that loads the core and joins the build only through the events
of :mod:`flax_errors_ext.sphinx.extras`. The export is a ``flax-errors`` command.
"""
