"""The extras: features beyond the executed catalogue, each loaded where a project lists it.

Each is one folder, an extension with its own ``setup()`` (as MyST-NB's ``ext/``
features are), that holds its parts of every layer together: ``model`` (pure),
``sphinx`` (the glue), in the core's order, each extra's layers kept apart as the
core's are. An extra loads the core itself, and joins the build only through the
events the core declares (:mod:`flax_errors_ext.sphinx.extras`); the core imports no
extra, so a project that lists only ``flax_errors_ext`` pays for none of them::

    extensions = [
        "flax_errors_ext",
        "flax_errors_ext.ext.history",  # each error across its recorded releases
        "flax_errors_ext.ext.other_runs",  # other stacks' and devices' runs beside each entry
        "flax_errors_ext.ext.search",  # a pasted error text finds its entry in the site search
    ]

The export (:mod:`.export`) is a command of ``flax-errors``, not a part of the
build: the command line finds it through its entry point (``flax_errors.commands``).

An extra reads what the core shares without owning it: the history's records
(:mod:`flax_errors_ext.model.history`) are the core's, because the command line's
``explain`` matches old wordings with them; what the history's pages show of them
is the extra's own (:mod:`.history.model`).
"""
