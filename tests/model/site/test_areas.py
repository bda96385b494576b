"""Every catalogued error has an area, and related errors link both ways."""

from __future__ import annotations

import pytest

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.site import texts

FLAX_ENTRIES = load_module("flax.errors").entries
OWN_ENTRIES = load_module("flax_errors_ext.errors").entries
CATALOGUED = {entry.qualname for entry in FLAX_ENTRIES + OWN_ENTRIES}


@pytest.mark.parametrize("qualname", sorted(CATALOGUED))
def test_every_catalogued_error_has_an_area(qualname: str) -> None:
    # A new Flax error lands under "Other" on the site; this asks for a real area.
    assert texts.area_of(qualname) != texts.OTHER


def test_unknown_errors_are_listed_under_other() -> None:
    assert texts.area_of("flax.errors.ErrorFromTheFuture") == texts.OTHER
    assert texts.AREA_ORDER[-1] == texts.OTHER
    assert set(texts.AREAS.values()) < set(texts.AREA_ORDER)


def test_related_errors_exist_and_link_both_ways() -> None:
    named = set(texts.RELATED) | {n for others in texts.RELATED.values() for n in others}
    assert named <= CATALOGUED
    assert set(texts.AREAS) <= CATALOGUED
    for name, others in texts.RELATED.items():
        assert name not in others
        for other in others:
            assert name in texts.RELATED[other]
