"""The pure core of the catalogue: no Sphinx import anywhere below this package.

Reading: ``parse`` reads docstrings and example files into the ``records``,
``discover`` finds a module's error classes, ``config`` is the one typed config.

Running: ``notebook`` turns an entry into the notebook that runs it, ``kernels``
provides the kernel it runs in (warm, from :mod:`flax_errors_ext.zygote`),
``execute`` runs it through myst-nb's cached client, ``fingerprint`` holds what the
execution cache must key on besides the code, and ``run`` checks a whole module.

Judging and telling: ``judge`` compares what ran with what is documented,
``report`` writes ``errors.json`` and the failure report, ``update`` rewrites
drifted documentation, ``lookup`` finds an entry from a name or a pasted message,
and ``site``, ``areas`` and ``tracebacks`` hold what the site shows about them.
"""
