"""The model: the catalogue as data. No Sphinx, no processes, no files written.

``config`` is the one typed configuration and ``warning_subtypes`` names every
warning the site can give. The rest is a folder per feature, named as in the
other layers: ``catalogue`` (the typed records, read from docstrings and catalogue
files), ``runs`` (judging runs against what is documented, the cache's
fingerprint, ``errors.json``, ``update``'s edits), ``history`` (every entry across
Flax's releases), ``site`` (what the site says and links) and ``lookup`` (the
entry a person means, from a name, a URL or a pasted message).
``nox -s lint`` keeps this layer pure.
"""
