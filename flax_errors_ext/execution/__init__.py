"""Execution: everything that runs processes and touches files, for site and CLI alike.

``session`` sets up a run (kernelspec, compilation cache, cache database, kernel
server, fingerprint); ``modules`` imports the listed modules and reads their
catalogue files; ``notebook`` turns an entry into the notebook that runs it,
``execute`` runs it through myst-nb's cached client, ``run`` checks a whole
module. ``in_kernel`` is the code that runs inside each kernel, ``fork_server``
the process that forks warm kernels, ``kernelspec`` what the kernels start from,
and ``fingerprint`` gathers the versions, devices and source hashes.
"""
