"""An entry's signature through sphinx-autodoc-typehints: ``tests/roots/test-typehints``.

``nox -s tests`` runs these with sphinx-autodoc-typehints' newest release (3.17.6 on
Sphinx 9.2, which fails on a constructor without a qualified name), ``nox -s
tests_lowest`` with 1.23.0 on Sphinx 6.2.1.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from bs4 import BeautifulSoup
from jax.errors import JaxRuntimeError

from flax_errors_ext.errors import JitPytreeError
from flax_errors_ext.sphinx.catalogue.library import (
    nameless_constructor,
    readable_constructor,
    stated_signature,
)
from tests.utils import module_html

if TYPE_CHECKING:
    from sphinx.testing.util import SphinxTestApp

NATIVE = "(msg: str | None = None, code: int | None = None)"
"""The constructor nanobind states for jaxlib's JaxRuntimeError and the root's NativeError."""


def signatures(app: SphinxTestApp) -> dict[str, tuple[str, str]]:
    """Each entry's signature as a reader sees it, and any fields below it, by class."""
    html = module_html(Path(app.outdir), "api_reference/typehints_errors")
    shown = {}
    for section in BeautifulSoup(html, "html.parser").select("section.flax-errors-entry"):
        block = section.select_one("div.flax-errors-signature")
        assert block is not None, section["id"]
        term, fields = block.select_one("dt"), block.select_one("dd")
        assert term is not None
        below = " ".join(fields.get_text("").split()) if fields is not None else ""
        shown[str(section["id"])] = (term.get_text("").strip(), below)
    return shown


@pytest.mark.sphinx("html", testroot="typehints")
def test_entries_show_their_constructors_with_types_where_annotated(app: SphinxTestApp) -> None:
    app.build()
    assert app.statuscode == 0
    assert "WARNING" not in app.warning.getvalue()
    # No autodoc handler failed: sphinx-autodoc-typehints read every constructor.
    assert "signature left out" not in app.status.getvalue()
    assert signatures(app) == {
        # Written in C, without a qualified name: what its docstring states.
        "typehints_errors.NativeError": (f"exception typehints_errors.NativeError{NATIVE}", ""),
        "typehints_errors.JaxRuntimeError": (
            f"exception typehints_errors.JaxRuntimeError{NATIVE}",
            "",
        ),
        # Ours, annotated; Flax's, not.
        "typehints_errors.PytreeError": (
            "exception typehints_errors.PytreeError"
            "(module_type: type | str, arg_path: str | None = None)",
            "",
        ),
        "typehints_errors.LazyError": ("exception typehints_errors.LazyError(partial_val)", ""),
    }


@pytest.mark.sphinx(
    "html",
    testroot="typehints",
    confoverrides={
        "typehints_use_signature": False,
        "always_document_param_types": True,
        "typehints_defaults": "comma",
    },
)
def test_typehints_options_decide_where_the_types_go(app: SphinxTestApp) -> None:
    app.build()
    assert app.statuscode == 0
    assert "WARNING" not in app.warning.getvalue()
    shown = signatures(app)
    # The project's own settings win over the extension's default: the types leave
    # the signature for the parameter fields asked for (1.23.0 writes Optional[str]).
    native, fields = shown["typehints_errors.JaxRuntimeError"]
    assert native.endswith("JaxRuntimeError(msg=None, code=None)")
    assert re.search(r"msg \((str \| None|Optional\[str\]), default: None\)", fields)
    ours, fields = shown["typehints_errors.PytreeError"]
    assert ours.endswith("PytreeError(module_type, arg_path=None)")
    assert "module_type (type | str)" in fields
    assert shown["typehints_errors.LazyError"][1] == ""


def test_a_nanobind_constructor_is_read_from_its_docstring() -> None:
    native = nameless_constructor(JaxRuntimeError, "__init__")
    assert native is not None
    assert native is vars(JaxRuntimeError)["__init__"]
    signature = stated_signature(native)
    assert signature is not None
    # As autodoc reads a docstring's signature: annotations and defaults as written.
    stated = "(self, msg: 'str | None' = None, code: 'int | None' = None) -> 'None'"
    assert str(signature) == stated
    assert signature.parameters["self"].annotation is inspect.Parameter.empty


def test_a_pybind11_signature_keeps_what_is_no_literal_as_its_text() -> None:
    def native(*args: Any) -> None: ...

    native.__doc__ = "__init__(self: lib.Thing, size: int = lib.DEFAULT, *, fast: bool = True)"
    signature = stated_signature(native)
    assert signature is not None
    assert str(signature) == (
        "(self: 'lib.Thing', size: 'int' = lib.DEFAULT, *, fast: 'bool' = True)"
    )


def test_a_docstring_stating_no_signature_states_none() -> None:
    def native(*args: Any, **kwargs: Any) -> None:
        """Runtime errors thrown by the runtime."""

    assert stated_signature(native) is None


def test_the_class_reads_as_stated_meanwhile_and_is_put_back_after() -> None:
    native = vars(JaxRuntimeError)["__init__"]

    class Subclass(JaxRuntimeError):  # type: ignore[misc]  # jax is untyped here
        pass

    for cls in (JaxRuntimeError, Subclass):
        with readable_constructor(cls):
            parameters = inspect.signature(cls).parameters.values()
            assert [str(p) for p in parameters] == [
                "msg: 'str | None' = None",
                "code: 'int | None' = None",
            ]
            assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
            # It still calls the constructor written in C.
            error = cls("boom", 7)
            assert (str(error), error.error_code) == ("boom", 7)
    assert vars(JaxRuntimeError)["__init__"] is native
    assert "__init__" not in vars(Subclass)
    assert str(Subclass("boom")) == "boom"


def test_constructors_with_qualified_names_are_left_alone() -> None:
    assert nameless_constructor(JitPytreeError, "__init__") is None
    assert nameless_constructor(JaxRuntimeError, "__new__") is None
    assert nameless_constructor(ValueError, "__init__") is None
    before = [dict(vars(cls)) for cls in (JitPytreeError, ValueError)]
    with readable_constructor(JitPytreeError), readable_constructor(ValueError):
        assert [dict(vars(cls)) for cls in (JitPytreeError, ValueError)] == before
