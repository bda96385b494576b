"""The release of this package: printed by ``flax-errors --version`` and given to Sphinx.

A module of its own, so that the layers above read it without importing the package
root, whose :func:`~flax_errors_ext.setup` imports the Sphinx layer.
"""

__version__ = "0.1.0"
