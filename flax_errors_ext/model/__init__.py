"""The model: the catalogue as data. No Sphinx, no processes, no files written.

``config`` is the one typed configuration and ``warning_subtypes`` names every
warning the site can give; the rest is a folder per feature, named as in the other
layers. ``nox -s lint`` keeps this layer pure.
"""
