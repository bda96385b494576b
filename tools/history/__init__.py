"""Recording every catalogue entry across Flax's releases, into the shipped flax.json."""
