"""The extras: features beyond the executed catalogue, each loaded where a project lists it.

Each is an extension with its own ``setup()`` that loads the core itself and joins
the build only through the events the core declares (:mod:`flax_errors_ext.sphinx.extras`);
the core imports no extra, so a project pays only for those it lists. The export
(:mod:`.export`) is a command of ``flax-errors`` (entry point ``flax_errors.commands``).
"""
