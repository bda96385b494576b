"""Run the examples: kernels, notebooks, the execution cache, the build's fingerprint."""
