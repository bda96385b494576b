"""Run the examples: the runner, its processes, the execution cache, the fingerprint."""
