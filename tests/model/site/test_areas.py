"""Every catalogued error has an area, and related errors link both ways.

The areas, related errors and notes are the shipped modules' data (their module.toml).
"""

from __future__ import annotations

import pytest

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.catalogue.module_data import ModuleData
from flax_errors_ext.model.site.texts import OTHER, SiteData

MODULES = {name: load_module(name) for name in ("flax.errors", "flax_errors_ext.errors")}
SITE = SiteData({name: module.data for name, module in MODULES.items()})
CATALOGUED = {entry.qualname for module in MODULES.values() for entry in module.entries}


@pytest.mark.parametrize("qualname", sorted(CATALOGUED))
def test_every_catalogued_error_has_an_area(qualname: str) -> None:
    # A new Flax error lands under "Other" on the site; this asks for a real area.
    assert SITE.area_of(qualname) != OTHER


def test_unknown_errors_are_listed_under_other() -> None:
    assert SITE.area_of("flax.errors.ErrorFromTheFuture") == OTHER
    assert SITE.order[-1] == OTHER
    assert {SITE.area_of(qualname) for qualname in CATALOGUED} < set(SITE.order)


def test_related_errors_exist_and_link_both_ways() -> None:
    related = {qualname: SITE.related(qualname) for qualname in CATALOGUED}
    for data in SITE.modules.values():
        assert {name for group in data.related for name in group} <= CATALOGUED
    for name, others in related.items():
        assert name not in others
        for other in others:
            assert name in related[other]
    # A group of another module's data links both ways too.
    assert "flax_errors_ext.errors.JitPytreeError" in related["flax.errors.JaxTransformError"]


def test_the_shipped_modules_areas_come_in_their_order() -> None:
    site = SiteData({name: load_module(name).data for name in ("jax.errors", "flax.messages")})
    everything = SiteData({**SITE.modules, **site.modules})
    assert everything.order == (
        *(area for area, _ in MODULES["flax.errors"].data.areas),
        "JAX: tracing and transformations",
        "Errors added by flax-errors",
        OTHER,
    )
    # A module without data: its errors under its name, after the ordered areas.
    assert everything.area_of("flax.messages.ShapeMismatch") == "flax.messages"
    assert everything.area_rank("flax.messages") == (len(everything.order), "flax.messages")


def test_a_modules_area_covers_its_errors_its_listed_areas_do_not() -> None:
    data = ModuleData(area="Lib", areas=(("Shapes", ("ShapeError",)),), order=1)
    site = SiteData({"lib": data, "other": ModuleData(area="Another")})
    assert site.area_of("lib.ShapeError") == "Shapes"
    assert site.area_of("lib.TypeError") == "Lib"
    assert site.area_of("other.AnyError") == "Another"
    assert site.order == ("Shapes", "Lib", OTHER)
    assert sorted(["Another", OTHER, "Lib", "Shapes"], key=site.area_rank) == [
        "Shapes",
        "Lib",
        OTHER,
        "Another",
    ]
