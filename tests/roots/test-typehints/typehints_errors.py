"""Errors whose constructors sphinx-autodoc-typehints reads: one written in C, as
jaxlib's ``JaxRuntimeError`` is, and JAX's, ours and Flax's.

A constructor nanobind makes without a name and scope answers ``__qualname__`` with
None and states its signature in its docstring; sphinx-autodoc-typehints 3.17.6
fails on it (``'NoneType' object has no attribute 'split'``).
"""

import functools

from flax.errors import LazyInitError
from jax.errors import JaxRuntimeError

from flax_errors_ext.errors import JitPytreeError

__all__ = ["NativeError", "JaxRuntimeError", "PytreeError", "LazyError"]


class _NativeMethod:
    """A method as nanobind makes it: no ``__qualname__``, no ``__module__``."""

    def __init__(self, function, signature):
        self._function = function
        self.__qualname__ = None
        self.__module__ = None
        self.__name__ = ""
        self.__doc__ = signature

    def __get__(self, instance, owner=None):
        return self if instance is None else functools.partial(self, instance)

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)


def _init(self, msg=None, code=None):
    RuntimeError.__init__(self, msg)
    self.code = code


class NativeError(RuntimeError):
    """Raised by a runtime written in C."""

    __init__ = _NativeMethod(_init, "(self, msg: str | None = None, code: int | None = None) -> None")


class PytreeError(JitPytreeError):
    """Raised with our error's constructor, whose parameters are annotated."""


class LazyError(LazyInitError):
    """Raised with Flax's error's constructor, whose parameters are not."""
