"""Which classes of a listed module become entries, and where their examples come from."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.catalogue.modules import DiscoveryError, load_module
from flax_errors_ext.model.catalogue.discover import (
    SHIPPED_CATALOGUE,
    Candidate,
    CatalogueFile,
    catalogue_folders,
    module_entries,
)
from flax_errors_ext.model.catalogue.module_data import DocstringFix, ModuleData
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.config.values import ModuleSpec

if TYPE_CHECKING:
    from collections.abc import Callable

DOCUMENTED = '''
    """{summary}

    Bad example:

      >>> raise {name}("no")
      Traceback (most recent call last):
        ...
      {module}.{name}: no

    Good example:

      >>> print(1)
      1
    """
'''


@pytest.fixture
def make_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], str]:
    """Write a module under a fresh name on sys.path; returns its name."""
    monkeypatch.syspath_prepend(str(tmp_path))
    counter = iter(range(1000))

    def make(stem: str, source: str) -> str:
        name = f"{stem}_{next(counter)}_{tmp_path.name.replace('-', '_')}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source).replace("MODULE", name))
        return name

    return make


def _documented(module: str, name: str, base: str = "Exception", summary: str = "A fault.") -> str:
    body = DOCUMENTED.format(summary=summary, name=name, module=module)
    return f"class {name}({base}):{body}\n"


def test_plain_exception_classes_are_entries_and_imported_ones_are_named(
    make_module: Callable[[str, str], str],
) -> None:
    source = (
        "from json import JSONDecodeError\n\n"
        "class Helper:\n    pass\n\n"
        + _documented("MODULE", "FirstError")
        + _documented("MODULE", "SecondError", base="KeyError")
    )
    name = make_module("plainlib", source)
    module = load_module(name)
    assert [e.name for e in module.entries] == ["FirstError", "SecondError"]
    assert all(e.documented for e in module.entries)
    assert module.entries[0].site.path == (
        f"api_reference/{name}/FirstError.html#{name}.FirstError"
    )
    reasons = {item.name: item.reason for item in module.left_out}
    assert reasons == {
        "JSONDecodeError": "imported from json.decoder; list it in __all__",
        "Helper": "not an exception class",
    }


def test_a_base_class_without_examples_is_left_out_with_its_reason(
    make_module: Callable[[str, str], str],
) -> None:
    source = (
        'class LibError(Exception):\n    """The base of every error."""\n\n'
        + _documented("MODULE", "ShapeError", base="LibError")
        + _documented("MODULE", "DtypeError", base="LibError")
    )
    module = load_module(make_module("baselib", source))
    assert [e.name for e in module.entries] == ["ShapeError", "DtypeError"]
    (left_out,) = module.left_out
    assert left_out.name == "LibError"
    assert "base class of 2" in left_out.reason


def test_all_bases_and_exclude_narrow_the_entries(make_module: Callable[[str, str], str]) -> None:
    source = (
        '__all__ = ["AError", "BError", "CError", "Imported"]\n'
        "from json import JSONDecodeError as Imported\n\n"
        + _documented("MODULE", "AError", base="ValueError")
        + _documented("MODULE", "BError", base="KeyError")
        + _documented("MODULE", "CError", base="ValueError")
        + _documented("MODULE", "Unlisted")
    )
    name = make_module("narrowlib", source)
    everything = load_module(name)
    # __all__ decides: the imported class is exposed, the unlisted one is not.
    assert [e.name for e in everything.entries] == ["AError", "BError", "CError", "Imported"]
    narrowed = load_module(
        ModuleSpec.from_value(
            {"module": name, "bases": ["builtins.ValueError"], "exclude": ["CError"]}
        )
    )
    assert [e.name for e in narrowed.entries] == ["AError", "Imported"]
    reasons = {item.name: item.reason for item in narrowed.left_out}
    assert reasons["BError"] == "not a subclass of builtins.ValueError"
    assert reasons["CError"] == "excluded in flax_errors_modules"


def test_a_module_with_no_entries_is_an_error_that_says_why(
    make_module: Callable[[str, str], str],
) -> None:
    name = make_module("emptylib", "class Helper:\n    pass\n\ndef f():\n    pass\n")
    with pytest.raises(
        DiscoveryError,
        match=rf"{name} yields no catalogue entries: .*Helper "
        r"\(not an exception class\)",
    ):
        load_module(name)
    bare = make_module("barelib", "VALUE = 1\n")
    with pytest.raises(DiscoveryError, match="exposes no exception classes"):
        load_module(bare)
    excluded = make_module("excludedlib", _documented("MODULE", "OnlyError"))
    with pytest.raises(DiscoveryError, match=r"OnlyError \(excluded in flax_errors_modules"):
        load_module(ModuleSpec.from_value({"module": excluded, "exclude": ["OnlyError"]}))


def test_project_catalogue_folders_add_to_the_shipped_one(tmp_path: Path) -> None:
    folder = tmp_path / "catalogue" / "flax.errors"
    folder.mkdir(parents=True)
    shipped = (SHIPPED_CATALOGUE / "flax.errors" / "LazyInitError.txt").read_text()
    (folder / "LazyInitError.txt").write_text(shipped.replace("\n", "\n\nOurs.\n", 1))
    (folder / "LazyInitEror.txt").write_text(shipped)  # misspelled

    module = load_module("flax.errors", catalogue_folders([tmp_path / "catalogue"]))
    by_name = {e.name: e for e in module.entries}
    shipped_only = load_module("flax.errors")
    assert set(by_name) == {e.name for e in shipped_only.entries}  # none dropped
    assert by_name["LazyInitError"].examples[0].location.path == str(folder / "LazyInitError.txt")
    assert (
        by_name["AlreadyExistsError"].examples[0].location.path.startswith(str(SHIPPED_CATALOGUE))
    )
    (problem,) = module.problems
    assert problem.location.path == str(folder / "LazyInitEror.txt")
    assert "names no class of flax.errors" in problem.message
    assert "did you mean LazyInitError.txt?" in problem.message


def test_jax_errors_are_found_where_jax_defines_them() -> None:
    module = load_module("jax.errors")
    by_name = {e.name: e for e in module.entries}
    entry = by_name["TracerBoolConversionError"]
    assert entry.qualname == "jax.errors.TracerBoolConversionError"
    assert entry.site.path == (
        "errors/TracerBoolConversionError.html#jax.errors.TracerBoolConversionError"
    )
    assert entry.location.path.endswith("jax/_src/errors.py")
    assert {item.name for item in module.left_out} >= {"JAXTypeError", "JAXIndexError"}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"module": "m", "pages": "x"}, r"unknown key\(s\) \['pages'\]"),
        ({"page": "x"}, "a dict with a 'module' key"),
        ({"module": "m", "bases": "x.Y"}, "'bases' must be a list of names"),
        (3, "a dotted name or a dict"),
    ],
)
def test_module_settings_are_validated(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CatalogueConfig.from_values({"flax_errors_modules": [value]})


def test_known_modules_get_their_pages_and_upstream_sites() -> None:
    config = CatalogueConfig.from_values(
        {
            "flax_errors_modules": [
                "flax.errors",
                "jax.errors",
                {"module": "jax.errors", "page": "j"},
            ]
        }
    )
    flax, jax_spec = config.modules
    layout = config.layout
    assert layout.module_page(flax.name) == "api_reference/flax.errors"
    assert flax.upstream == "https://flax.readthedocs.io/en/latest"
    assert jax_spec.upstream == "https://docs.jax.dev/en/latest"
    assert layout.module_page("jax.errors") == "j"
    assert layout.module_page("other.errors") == "api_reference/other.errors"
    # A module the command line names, unlisted, still gets its known page.
    assert CatalogueConfig().layout.module_page("jax.errors") == "errors"


def test_sequence_settings_take_command_line_overrides() -> None:
    """``-D flax_errors_catalogue_dirs=a,b`` reaches the build (Sphinx splits lists)."""
    from sphinx.config import Config

    config = Config({}, {"flax_errors_catalogue_dirs": "one,two"})
    for name, default, _ in CatalogueConfig.options():
        config.add(name, default, "env", ())
    config.init_values()
    values = {name: config[name] for name, _, _ in CatalogueConfig.options()}
    assert CatalogueConfig.from_values(values).catalogue_dirs == ("one", "two")


def test_a_library_docstring_that_adopted_the_format_is_the_entry(
    make_module: Callable[[str, str], str], tmp_path: Path
) -> None:
    """After a library takes the patch ``flax-errors export`` writes, its file is not read."""
    source = (
        "class AdoptedError(Exception):\n"
        '    """Adopted.\n\n'
        "    Good example:\n\n"
        "      >>> print(1)\n"
        "      1\n"
        '    """\n\n'
        "class PlainError(Exception):\n"
        '    """Only prose, as libraries write it."""\n'
    )
    name = make_module("adoptinglib", source)
    folder = tmp_path / "catalogue" / name
    folder.mkdir(parents=True)
    for stem in ("AdoptedError", "PlainError"):
        (folder / f"{stem}.txt").write_text(
            "From the file.\n\nGood example:\n\n  >>> print(2)\n  2\n"
        )
    spec = ModuleSpec(name, upstream="https://lib.example/en")
    module = load_module(spec, catalogue_folders([tmp_path / "catalogue"]))
    by_name = {e.name: e for e in module.entries}
    adopted, plain = by_name["AdoptedError"], by_name["PlainError"]
    assert adopted.examples[0].statements[0].source == "print(1)\n"
    assert adopted.examples[0].location.path.endswith(f"{name}.py")
    assert plain.examples[0].statements[0].source == "print(2)\n"
    assert plain.summary == "From the file."


LIBRARY = '''
class ShapeError(Exception):
  """The shape is wrong.

  Applied with ``(5, 5, 1)`` after init with ``(5, 5)``::

    f(x)
  """


class RightError(Exception):
  """Already right: ``(5, 5)``."""
'''

SWAPPED = DocstringFix(
    "ShapeError",
    old="``(5, 5, 1)`` after init with ``(5, 5)``",
    new="``(5, 5)`` after init with ``(5, 5, 1)``",
    why="",
)


def _library_entries(
    fixes: list[DocstringFix], source: str = LIBRARY
) -> tuple[dict[str, object], tuple[str, ...]]:
    namespace: dict[str, type] = {}
    exec(compile(source, "lib.py", "exec"), namespace)
    candidates = [
        Candidate(n, namespace[n], "lib.py", source) for n in ("ShapeError", "RightError")
    ]
    files = {"ShapeError": CatalogueFile("cat/ShapeError.txt", "Ours.\n")}
    data = ModuleData("cat/lib/module.toml", repairs=tuple(fixes))
    entries, _, problems = module_entries(ModuleSpec("lib"), candidates, files, data=data)
    return {e.name: e for e in entries}, tuple(str(p) for p in problems)


def test_a_librarys_docstring_is_shown_with_its_repairs_made() -> None:
    by_name, problems = _library_entries([SWAPPED])
    assert problems == ()
    theirs = by_name["ShapeError"].prose[0]  # type: ignore[attr-defined]
    assert theirs.foreign
    assert "Applied with ``(5, 5)`` after init with ``(5, 5, 1)``::" in theirs.text
    assert "(5, 5, 1)`` after" not in theirs.text
    # Every line keeps its line in lib.py: the repaired one is line 5.
    numbered = dict(zip(theirs.text.split("\n"), theirs.lines, strict=True))
    assert numbered["Applied with ``(5, 5)`` after init with ``(5, 5, 1)``::"] == 5
    assert numbered["  f(x)"] == 7
    assert by_name["RightError"].prose[0].text == "Already right: ``(5, 5)``."  # type: ignore[attr-defined]


def test_a_repair_whose_text_is_gone_is_reported_at_the_docstring() -> None:
    """A stale repair is a module problem (a warning on the site), not a broken entry."""
    toml = "cat/lib/module.toml"
    gone = DocstringFix("RightError", old="Gone words", new="New words", why="", path=toml)
    missing = DocstringFix("LostError", old="a", new="b", why="", path=toml)
    by_name, problems = _library_entries([SWAPPED, gone, missing])
    assert problems == (
        "lib.py:12: RightError: a repair is not made, its docstring no longer holds "
        "'Gone words'; review it in cat/lib/module.toml",
        "cat/lib/module.toml:1: this file's repair names no class of lib: no lib.LostError; "
        "did you mean RightError?",
    )
    assert by_name["RightError"].problems == ()  # type: ignore[attr-defined]
    assert by_name["RightError"].prose[0].text == "Already right: ``(5, 5)``."  # type: ignore[attr-defined]


def test_a_docstring_the_library_already_put_right_is_not_harmed() -> None:
    fixed = LIBRARY.replace("``(5, 5, 1)`` after init with ``(5, 5)``", SWAPPED.new)
    by_name, problems = _library_entries([SWAPPED], fixed)
    assert problems == ()
    theirs = by_name["ShapeError"].prose[0]  # type: ignore[attr-defined]
    assert theirs.text.count("(5, 5, 1)") == 1
    assert "Applied with ``(5, 5)`` after init with ``(5, 5, 1)``::" in theirs.text


def test_the_listed_repairs_are_the_modules_own_and_ours_get_none(
    make_module: Callable[[str, str], str],
) -> None:
    # The module's repairs come from its module.toml.
    flax_errors = load_module("flax.errors")
    shape = {e.name: e for e in flax_errors.entries}["ScopeParamShapeError"]
    assert "the apply shape\n(``(5, 5)``) is different from the init shape" in shape.prose[0].text
    assert flax_errors.data.repairs
    # A module whose docstrings are ours (no catalogue folder) is read as it is.
    name = make_module("ourlib", _documented("MODULE", "ShapeError", summary="Old words."))
    spec = ModuleSpec.from_value(name)
    namespace = vars(__import__(name))
    source = (Path(namespace["__file__"])).read_text()
    candidate = Candidate("ShapeError", namespace["ShapeError"], namespace["__file__"], source)
    stale = DocstringFix("ShapeError", old="Old words.", new="New words.", why="")
    data = ModuleData(repairs=(stale,))
    entries, _, problems = module_entries(spec, [candidate], None, data=data)
    assert problems == ()
    assert entries[0].summary == "Old words."
