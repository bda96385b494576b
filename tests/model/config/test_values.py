"""Reading a setting's text (``sphinx-build -D name=text``) as its declared type."""

from __future__ import annotations

from typing import Any

import pytest

from flax_errors_ext.model.config.values import ModuleSpec, from_text


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("60", int, 60),
        ("-1", int, -1),
        ("1", bool, True),
        ("0", bool, False),
        ("true", bool, True),
        ("False", bool, False),
        ("60", int | None, 60),
        ("None", int | None, None),
        ("", int | None, None),
        ("a,b", tuple[str, ...], ("a", "b")),
        ("a", tuple[str, ...], ("a",)),
        (" a , b,", tuple[str, ...], ("a", "b")),
        ("", tuple[str, ...], ()),
        ("flax.errors,mine", tuple[ModuleSpec, ...], ("flax.errors", "mine")),
        ("error", str, "error"),
        ("60", str, "60"),
    ],
)
def test_text_reads_as_the_declared_type(text: str, kind: Any, value: object) -> None:
    assert from_text(text, kind) == value
    assert type(from_text(text, kind)) is type(value)


@pytest.mark.parametrize(
    ("text", "kind"),
    [("sixty", int), ("1.5", int), ("yes", bool), ("2", bool), ("sixty", int | None)],
)
def test_text_that_does_not_read_is_left_for_the_validator(text: str, kind: Any) -> None:
    assert from_text(text, kind) == text


def test_a_dict_has_no_text_form_but_its_values_are_read() -> None:
    kind = dict[str, str | None]
    assert from_text("flax=https://example.org/{path}", kind) == "flax=https://example.org/{path}"
    # What -D name.flax=None and -D name.optax=<URL> give: a dict of text.
    given = {"flax": "None", "optax": "https://example.org/{path}"}
    assert from_text(given, kind) == {"flax": None, "optax": "https://example.org/{path}"}


@pytest.mark.parametrize(
    ("value", "kind"),
    [(60, int), (None, int | None), (["a", "b"], tuple[str, ...]), (True, bool), (3, bool)],
)
def test_values_that_are_not_text_are_kept(value: object, kind: Any) -> None:
    assert from_text(value, kind) is value
