"""The catalogue's examples as a patch to Flax's docstrings (``flax-errors export``)."""
