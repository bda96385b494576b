"""Run the examples: the runner, the side in an entry's process, an entry's run."""
