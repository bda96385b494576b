"""Texts that differ only in a link's page or a line number, told from real differences."""

from __future__ import annotations

from flax_errors_ext.ext.other_runs.model.incidental import Incidental, PrintedLinks, incidental
from flax_errors_ext.layout import SiteLayout

JAX = "https://docs.jax.dev/en/latest"
LINKS = PrintedLinks(SiteLayout((("jax.errors", "errors"),)), "jax.errors", JAX)
MESSAGE = (
    "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array.\n"
    "The error occurred while tracing the function apply at flax/linen/module.py:{line} "
    "for jit.\n"
    "See {base}/{page}.html#jax.errors.{name}\n"
)


def _message(
    line: int = 2089, page: str = "101/errors", name: str = "TracerBoolConversionError"
) -> str:
    return MESSAGE.format(line=line, page=page, name=name, base=JAX)


def test_a_link_to_the_same_anchor_on_a_forwarded_page_is_incidental() -> None:
    found = incidental(_message(), _message(page="errors"), LINKS)
    assert found == Incidental(pages=(("errors", "101/errors"),))
    assert str(found) == "the page of its link (errors.html; 101/errors.html in this build)"


def test_a_line_number_is_incidental() -> None:
    found = incidental(_message(line=2089), _message(line=2091), LINKS)
    assert found == Incidental(files=("flax/linen/module.py",))
    assert str(found) == "a line number in flax/linen/module.py"


def test_both_at_once_name_both() -> None:
    found = incidental(_message(), _message(line=2091, page="errors"), LINKS)
    assert found is not None
    assert found.parts() == [
        "the page of its link (errors.html; 101/errors.html in this build)",
        "a line number in flax/linen/module.py",
    ]


def test_a_line_number_in_a_traceback_frame_is_incidental() -> None:
    frame = '  File "flax/core/scope.py", line {}, in param\nm.ShapeError: bad\n'
    found = incidental(frame.format(12), frame.format(14))
    assert found == Incidental(files=("flax/core/scope.py",))


def test_other_wording_is_a_real_difference() -> None:
    reworded = _message(page="errors").replace("Attempted boolean", "Tried a boolean")
    assert incidental(_message(), reworded, LINKS) is None


def test_a_link_to_another_errors_anchor_is_a_real_difference() -> None:
    other = _message(page="errors", name="ConcretizationTypeError")
    assert incidental(_message(), other, LINKS) is None
    # On the same page too: the anchor is what the reader follows.
    assert incidental(_message(), _message(name="ConcretizationTypeError"), LINKS) is None


def test_a_link_to_another_site_or_out_of_it_is_a_real_difference() -> None:
    elsewhere = _message().replace(JAX, "https://jax.readthedocs.io/en/latest")
    assert incidental(_message(), elsewhere, LINKS) is None
    climbing = _message(page="../old/errors")
    assert incidental(_message(page="errors"), climbing, LINKS) is None


def test_without_the_printed_links_a_links_page_is_a_real_difference() -> None:
    assert incidental(_message(), _message(page="errors")) is None
    assert incidental(_message(line=1), _message(line=2)) == Incidental(
        files=("flax/linen/module.py",)
    )


def test_another_file_or_the_same_text_is_not_incidental() -> None:
    moved = _message().replace("flax/linen/module.py", "flax/linen/transforms.py")
    assert incidental(_message(), moved, LINKS) is None
    assert incidental(_message(), _message(), LINKS) is None
