"""The model: the catalogue as data. No Sphinx, no processes, no files written.

``config`` is the one typed configuration and ``warning_subtypes`` names every
warning the site can give. The rest is a folder per feature, named as in the
other layers:

* ``catalogue``: the typed records (entries, examples, verdicts), read from
  docstrings and catalogue files, and which classes of a module are entries;
* ``runs``: judging what ran against what is documented, the fingerprint the
  execution cache keys on, ``errors.json`` and the report of failures, the edits
  ``update`` plans, and other stacks' and devices' runs;
* ``history``: every entry across Flax's releases (``nox -s history``);
* ``site``: what the site says and links (texts, areas, inventories, moved pages);
* ``lookup``: the entry a person means, from a name, a URL or a pasted message;
* ``export``: the examples written into a library's own docstrings.

``nox -s lint`` keeps this layer pure.
"""
