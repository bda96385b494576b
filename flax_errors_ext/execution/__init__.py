"""Execution: everything that runs processes and touches files, for site and CLI alike.

``session`` sets up one run (the runner, the execution cache, the fingerprint). The
rest is a folder per feature, named as in the other layers:

* ``catalogue``: import the listed modules and read their catalogue files;
* ``runs``: the one runner (a process per entry), what runs inside each process,
  the execution cache, a whole module checked, and the build's fingerprint;
* ``history``: the recorded histories read.
"""
