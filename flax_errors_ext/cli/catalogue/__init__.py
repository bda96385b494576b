"""``flax-errors list`` and ``explain``: the catalogue read, nothing run."""
