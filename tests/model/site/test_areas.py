"""Every catalogued error has an area, and related errors link both ways."""

from __future__ import annotations

import pytest

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.site import areas

FLAX_ENTRIES = load_module("flax.errors").entries
OWN_ENTRIES = load_module("flax_errors_ext.errors").entries
CATALOGUED = {entry.qualname for entry in FLAX_ENTRIES + OWN_ENTRIES}


@pytest.mark.parametrize("qualname", sorted(CATALOGUED))
def test_every_catalogued_error_has_an_area(qualname: str) -> None:
    # A new Flax error lands under "Other" on the site; this asks for a real area.
    assert areas.area_of(qualname) != areas.OTHER


def test_unknown_errors_are_listed_under_other() -> None:
    assert areas.area_of("flax.errors.ErrorFromTheFuture") == areas.OTHER
    assert areas.AREA_ORDER[-1] == areas.OTHER
    assert set(areas.AREAS.values()) < set(areas.AREA_ORDER)


def test_related_errors_exist_and_link_both_ways() -> None:
    named = set(areas.RELATED) | {n for others in areas.RELATED.values() for n in others}
    assert named <= CATALOGUED
    assert set(areas.AREAS) <= CATALOGUED
    for name, others in areas.RELATED.items():
        assert name not in others
        for other in others:
            assert name in areas.RELATED[other]
