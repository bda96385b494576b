"""The model: the catalogue as data. No Sphinx, no processes, no files written.

``records`` holds the typed records (entries, examples, verdicts), ``parse`` reads
docstrings and catalogue files into them, ``discover`` decides which classes of an
imported module are entries, and ``config`` is the one typed configuration.
``fingerprint`` is what the execution cache keys on, ``judge`` compares what ran
with what is documented, ``entry_record`` and ``report`` make ``errors.json`` and
the one report of failures, ``rewrite`` plans ``update``'s edits, ``lookup`` finds
an entry from a name or a pasted message, and ``site``, ``areas`` and
``tracebacks`` hold what the site shows. ``history`` and ``timeline`` are the
record of every entry across Flax's releases (``nox -s history``) and what it
says. ``nox -s lint`` keeps this layer pure.
"""
