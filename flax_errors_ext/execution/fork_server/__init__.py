"""Warm kernels: each kernel forked from a process that has imported jax and flax.

* :mod:`.server`: the process that imports once and forks a kernel per request;
* :mod:`.launcher`: what the kernelspec starts, standing in for the kernel;
* :mod:`.protocol`: the typed requests between them and the build;
* :mod:`.client`: the build's handle on the server (start, reuse, stop).

Run by the build as ``python -m flax_errors_ext.execution.fork_server serve|launch``.
"""
