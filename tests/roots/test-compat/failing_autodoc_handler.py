"""Fails on every exception autodoc documents, as sphinx-autodoc-typehints 3.17.6 does
on ``jax.errors.JaxRuntimeError``, whose nanobind ``__init__`` has no ``__qualname__``.
"""


def fail(app, what, name, obj, options, lines):
    if what == "exception":
        qualname = None  # what getattr(obj.__init__, "__qualname__", "") gives there
        qualname.split(".")


def setup(app):
    app.connect("autodoc-process-docstring", fail)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
