"""Execution: everything that runs processes and touches files, for site and CLI alike.

``session`` sets up one run (the runner, the execution cache, the fingerprint); the
rest is a folder per feature, named as in the other layers.
"""
