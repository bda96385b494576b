"""Every entry across Flax's releases: the record, its rewrites, its timeline and view."""
