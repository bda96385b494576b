"""The pure core of the catalogue: no Sphinx import anywhere below this package.

``parse`` reads docstrings into records, ``discover`` finds the error classes,
``notebook`` turns an entry into the notebook that runs it, ``execute`` runs that
notebook through myst-nb's cached client, ``judge`` compares what ran with what is
documented, ``fingerprint`` holds what the execution cache must key on, and
``report`` writes ``errors.json``.
"""
