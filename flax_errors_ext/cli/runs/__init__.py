"""``flax-errors check`` and ``update``: run the examples, then judge or fix."""
