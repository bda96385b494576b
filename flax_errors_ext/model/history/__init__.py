"""Every entry across Flax's releases: the records, each bad example's run, the wordings."""
