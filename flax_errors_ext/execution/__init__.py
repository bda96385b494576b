"""Execution: everything that runs processes and touches files, for site and CLI alike.

``session`` sets up one run (kernelspec, compilation cache, cache database,
kernel server, fingerprint) and ``fork_server`` is the process that forks warm
kernels. The rest is a folder per feature, named as in the other layers:

* ``catalogue``: import the listed modules and read their catalogue files;
* ``runs``: an entry's notebook, run through myst-nb's cached client, a whole
  module checked, the code that runs inside each kernel, the build's fingerprint,
  and the committed runs of other stacks and devices (``nox -s lock``, ``devices``);
* ``history``: the recorded histories read, and past releases run (``nox -s history``).
"""
