"""The model: the catalogue as data. No Sphinx, no processes, no files written.

A folder per feature, named as in the other layers; ``nox -s lint`` keeps it pure.
"""
