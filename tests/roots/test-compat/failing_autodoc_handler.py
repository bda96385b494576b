"""Fails on every exception autodoc documents, as sphinx-autodoc-typehints 3.17.6 does
on a nanobind ``__init__`` without a ``__qualname__`` (jaxlib's ``JaxRuntimeError``,
which the extension now gives autodoc through a Python constructor: test-typehints).
"""


def fail(app, what, name, obj, options, lines):
    if what == "exception":
        qualname = None  # what getattr(obj.__init__, "__qualname__", "") gives there
        qualname.split(".")


def setup(app):
    app.connect("autodoc-process-docstring", fail)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
