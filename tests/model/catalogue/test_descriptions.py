"""An example's description: its first paragraph as a caption, and where the rest starts."""

from __future__ import annotations

from flax_errors_ext.model.catalogue.records import first_paragraph


def test_first_paragraph_is_one_line_and_says_where_the_rest_starts() -> None:
    text = "Pass ``overwrite=True``\nwhen replacing is intended.\n\n\nMore.\nStill more."
    assert first_paragraph(text) == ("Pass ``overwrite=True`` when replacing is intended.", 4)
    assert first_paragraph("One line.") == ("One line.", 1)
    assert first_paragraph("") == ("", 1)
