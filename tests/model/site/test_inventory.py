"""The sites' Sphinx inventories, and another project's docstring.

The inventories (flax_errors_ext/inventory/*.inv) are real ``objects.inv`` files,
read by Sphinx's reader; every Flax or JAX name the catalogue's prose refers to is
in them. A test root (tests/roots/test-foreign-prose) shows what a page makes of
them: known names link, unknown ones are plain code, and code blocks that never run
are labelled and have no copy button.
"""

from __future__ import annotations

import re

import pytest

from flax_errors_ext.model.catalogue.parse import parse_upstream
from flax_errors_ext.model.site.links import (
    SITES,
    Inventory,
    Site,
    block_runs,
    not_run_label,
    ran_statements,
)
from flax_errors_ext.sphinx.catalogue.library import shipped_inventory
from tests.utils import FLAX, JAX, OURS

INVENTORY = shipped_inventory()
FLAX_LINEN = "https://flax-linen.readthedocs.io/en/latest/"
JAX_DOCS = "https://docs.jax.dev/en/latest/"
PYTHON_DOCS = "https://docs.python.org/3/"
_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|obj|data|exc):`([^`]+)`")


@pytest.mark.parametrize("site", SITES, ids=lambda site: site.file)
def test_every_site_has_a_real_inventory_of_its_own_pages(site: Site) -> None:
    assert site.path.read_bytes().startswith(b"# Sphinx inventory version 2\n")
    targets = [t for t in INVENTORY.by_name.values() if t.site == site.name]
    assert len(targets) > 100
    assert all(t.url.startswith(site.base) for t in targets)


def test_the_inventory_covers_what_the_catalogue_refers_to() -> None:
    """Every Flax or JAX name a role names in the prose links, or is an error on this site."""
    documented = {e.qualname for module in (FLAX, JAX, OURS) for e in module.entries}
    missing = set()
    for module in (FLAX, JAX, OURS):
        for entry in module.entries:
            for passage in entry.prose:
                for role in _ROLE.findall(passage.text):
                    target = role.rpartition("<")[2].rstrip(">").strip().lstrip("~")
                    project = entry.qualname.partition(".")[0]
                    if INVENTORY.find(target, project) is None and INVENTORY.covers(target):
                        missing.add(target)
    assert {m for m in missing if m.partition(".")[0] in {"flax", "jax"}} - documented == set()


def test_names_resolve_only_where_certain() -> None:
    find = INVENTORY.find
    assert str(find("flax.linen.Module.apply")) == (
        "flax.linen.Module.apply -> " + FLAX_LINEN + "api_reference/flax.linen/module.html"
        "#flax.linen.Module.apply"
    )
    # The end of exactly one name; a shorthand of a module; a tilde and parentheses.
    assert getattr(find("Module.apply"), "name", None) == "flax.linen.Module.apply"
    assert getattr(find("nn.compact"), "name", None) == "flax.linen.compact"
    assert getattr(find("~jax.numpy.where()"), "name", None) == "jax.numpy.where"
    # A module's own anchor.
    numpy = find("jax.numpy")
    assert numpy is not None
    assert numpy.url == JAX_DOCS + "jax.numpy.html#module-jax.numpy"
    # Several names end so: the docstring's project settles it, or nothing links.
    assert find("jit") is None
    assert getattr(find("jit", "jax"), "name", None) == "jax.jit"
    assert getattr(find("compact", "flax"), "name", None) == "flax.linen.compact"
    assert find("jit", "flax") is None  # Linen's or NNX's
    assert find("Module", "flax") is None
    # A dotted name in lower case is a module's, whole: NumPy's sin is not JAX's.
    assert find("numpy.sin", "jax") is None
    assert getattr(find("functools.partial"), "url", None) == (
        PYTHON_DOCS + "library/functools.html#functools.partial"
    )
    assert find("their.own.function") is None
    assert INVENTORY.covers("jax.no_such_function")
    assert INVENTORY.covers("nn.NoSuchLayer")
    assert not INVENTORY.covers("their.own.function")
    assert not INVENTORY.covers("jit")
    assert INVENTORY.project_name("flax.errors.ScopeParamShapeError") == "Flax"
    assert INVENTORY.project_name("jax.errors.TracerBoolConversionError") == "JAX"
    assert INVENTORY.project_name("mylib.errors.Error") == "mylib"


def test_a_name_two_sites_document_links_to_the_first() -> None:
    first, second = Site("A", "https://a/", "a.inv"), Site("B", "https://b/", "b.inv")
    inventory = Inventory.from_sites(
        [
            (first, [("py:class", "lib.Thing", "https://a/thing.html#lib.Thing")]),
            (second, [("py:class", "lib.Thing", "https://b/t.html#lib.Thing")]),
            (second, [("std:label", "lib.label", "https://b/t.html#label")]),
        ]
    )
    assert [(t.name, t.url) for t in inventory.by_name.values()] == [
        ("lib.Thing", "https://a/thing.html#lib.Thing")
    ]


def test_which_blocks_of_a_docstring_run() -> None:
    docstring = """Raised when it is.

    Shown only::

      >>> print("in a literal block, still run by doctest")
      in a literal block, still run by doctest

    Skipped:

      >>> print("skipped")  # doctest: +SKIP
      skipped
    """
    upstream = parse_upstream(docstring, "lib.py", 1)
    assert upstream is not None
    ran = ran_statements([upstream])
    assert ran == {'print("in a literal block, still run by doctest")'}
    assert block_runs('>>> print("in a literal block, still run by doctest")\n...', ran)
    assert not block_runs('>>> print("skipped")  # doctest: +SKIP', ran)
    assert not block_runs("model.apply(variables, x)", ran)
    assert not_run_label("JAX") == "From JAX's docstring, not run"
