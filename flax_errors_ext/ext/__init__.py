"""The extras: features beyond the executed catalogue, each loaded where a project lists it.

Each is an extension with its own ``setup()``, its layers (``model``, ``sphinx``)
kept apart as the core's are. It loads the core itself and joins the build only
through the events the core declares (:mod:`flax_errors_ext.sphinx.extras`); the
core imports no extra, so a project pays only for those it lists::

    extensions = [
        "flax_errors_ext",
        "flax_errors_ext.ext.history",  # each error across its recorded releases
        "flax_errors_ext.ext.other_runs",  # other stacks' and devices' runs beside each entry
        "flax_errors_ext.ext.search",  # a pasted error text finds its entry in the site search
    ]

The export (:mod:`.export`) is a command of ``flax-errors``, found through its
entry point (``flax_errors.commands``), not a part of the build.
"""
