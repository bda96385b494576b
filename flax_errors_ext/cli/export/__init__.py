"""``flax-errors export``: the catalogue's examples as a patch to a library's docstrings."""
