"""Runs of the examples: judging outputs, the records a run leaves, updates, other runs."""
