"""The offline inventory of Flax's and JAX's API names, and another project's docstring.

The inventory (flax_errors_ext/inventory/api.toml) names only what the installed
flax and jax have, each at a URL laid out as its site lays out its pages; every
Flax or JAX name that the catalogue's prose refers to is in it. A test root
(tests/roots/test-foreign-prose) shows what a page makes of it: known names link,
unknown ones are plain code, and code blocks that never run are labelled and
have no copy button.
"""

from __future__ import annotations

import importlib
import re

import pytest

from flax_errors_ext.model.catalogue.parse import parse_upstream
from flax_errors_ext.model.catalogue.snippets import block_runs, not_run_label, ran_statements
from flax_errors_ext.model.site.inventory import INVENTORY_FILE, Inventory, Target
from flax_errors_ext.sphinx.catalogue.foreign import (
    shipped_inventory,
)
from tests.utils import FLAX, JAX, OURS

INVENTORY = Inventory.from_toml(INVENTORY_FILE.read_text("utf-8"))
FLAX_LINEN = "https://flax-linen.readthedocs.io/en/latest/"
FLAX_NNX = "https://flax.readthedocs.io/en/latest/"
JAX_DOCS = "https://docs.jax.dev/en/latest/"
PYTHON_DOCS = "https://docs.python.org/3/"
_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|obj|data|exc):`([^`]+)`")


def _resolve(name: str) -> object:
    """The object a dotted name names, imported from the installed packages."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(name)


@pytest.mark.parametrize("target", INVENTORY.targets, ids=str)
def test_every_name_is_in_the_installed_packages(target: Target) -> None:
    if target.module:
        assert importlib.import_module(target.name).__name__ == target.name
    else:
        assert _resolve(target.name) is not None


def _page_follows_its_site(target: Target) -> bool:
    """The layouts the inventory's header describes, one per site."""
    name, page = target.name, target.page
    if target.base == JAX_DOCS:
        return page == (f"{name}.html" if target.module else f"_autosummary/{name}.html")
    if target.base == PYTHON_DOCS:
        return page == f"library/{target.project}.html"
    if target.base == FLAX_NNX:
        return name.startswith("flax.nnx.") and bool(
            re.fullmatch(r"api_reference/flax\.nnx/\w+\.html", page)
        )
    if target.base == FLAX_LINEN:
        if re.fullmatch(r"api_reference/flax\.linen/\w+\.html", page):
            return name.startswith(("flax.linen.", "flax.core."))
        module = page.removeprefix("api_reference/").removesuffix(".html")
        return page.startswith("api_reference/") and name.startswith(module + ".")
    return False


@pytest.mark.parametrize("target", INVENTORY.targets, ids=str)
def test_every_url_follows_its_sites_page_layout(target: Target) -> None:
    assert _page_follows_its_site(target), target
    anchor = f"module-{target.name}" if target.module else target.name
    assert target.url == f"{target.base}{target.page}#{anchor}"
    assert target.project in {"flax", "jax"} or target.base == PYTHON_DOCS


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
    assert missing - documented == set()


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
    assert getattr(find("where"), "name", None) == "jax.numpy.where"
    # A module's own anchor.
    variables = find("flax.core.variables")
    assert variables is not None
    assert variables.url.endswith("variable.html#module-flax.core.variables")
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
    assert find("itertools.chain") is None
    assert find("their.own.function") is None
    assert INVENTORY.covers("jax.no_such_function")
    assert INVENTORY.covers("nn.NoSuchLayer")
    assert not INVENTORY.covers("itertools.chain")
    assert not INVENTORY.covers("jit")
    assert INVENTORY.project_name("flax.errors.ScopeParamShapeError") == "Flax"
    assert INVENTORY.project_name("jax.errors.TracerBoolConversionError") == "JAX"
    assert INVENTORY.project_name("mylib.errors.Error") == "mylib"


def test_the_sphinx_side_reads_the_shipped_inventory() -> None:
    assert shipped_inventory() == INVENTORY
    assert len(INVENTORY.targets) >= 50


def test_an_inventory_that_names_an_object_twice_is_refused() -> None:
    text = """
[[site]]
name = "A"
base = "https://a.example/"
autosummary = "_autosummary/"
objects = ["jax.jit"]

[[site.page]]
path = "jax.html"
objects = ["jax.jit"]
"""
    with pytest.raises(ValueError, match=r"jax\.jit is in the inventory twice"):
        Inventory.from_toml(text)
    with pytest.raises(ValueError, match="no 'autosummary'"):
        Inventory.from_toml('[[site]]\nname = "A"\nbase = "b"\nobjects = ["jax.jit"]\n')


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
