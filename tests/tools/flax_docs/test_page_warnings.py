"""Warnings page by page (page_warnings.py): where each is, added, fixed, hidden."""

from __future__ import annotations

from collections import Counter

from tools.flax_docs import page_warnings

OBJECTS = {
    "flax.nnx.Module": "api_reference/flax.nnx/module",
    "flax.nnx.Module.sow": "api_reference/flax.nnx/module",
    "flax.errors.ScopeParamShapeError": "api_reference/flax.errors",
    "flax.nnx.Variable.value": "api_reference/flax.nnx/variables",
    "flax.nnx.Param.value": "api_reference/flax.nnx/param",
    "flax.struct.dataclass": "api_reference/flax.struct",
}
SOURCE = "<tree>/docs_nnx/api_reference/flax.nnx/module.rst:12: WARNING: duplicate label"
DOCSTRING = (
    "<flax>/nnx/module.py:docstring of flax.nnx.module.Module.sow:5: WARNING: Unexpected indent."
)
ERRORS = (
    "<flax>/errors.py:docstring of flax.errors.ScopeParamShapeError:12: "
    "WARNING: Inline emphasis start-string without end-string."
)


def test_a_warning_keeps_the_lines_that_follow_it() -> None:
    found = page_warnings.warnings(
        ["WARNING: a", "  its title", "x.rst:1: ERROR: b", "Traceback", "  line"]
    )

    assert found == ["WARNING: a\n  its title", "x.rst:1: ERROR: b\nTraceback\n  line"]


def test_a_warning_is_on_its_source_or_where_its_docstring_is_shown() -> None:
    def page(warning: str) -> str:
        return page_warnings.page_of(warning, "docs_nnx", OBJECTS)

    assert page(SOURCE) == "api_reference/flax.nnx/module"
    # Defined in flax.nnx.module, documented where flax.nnx exports it.
    assert page(DOCSTRING) == "api_reference/flax.nnx/module"
    assert page(ERRORS) == "api_reference/flax.errors"
    # Flax's flax_module directive, whose content is located by its options.
    assert page("[':module: flax.nnx', ':class: Module']:2: CRITICAL: Unexpected title.") == (
        "api_reference/flax.nnx/module"
    )
    # Another tree's source, a docstring no page shows, no location at all.
    assert page(SOURCE.replace("docs_nnx", "docs")) == page_warnings.NO_PAGE
    assert page("<flax>/core/x.py:docstring of flax.core.x.f:1: WARNING: w") == (
        "(docstrings of <flax>/core/x.py)"
    )
    assert page("WARNING: html_static_path entry '_static' does not exist") == (
        page_warnings.NO_PAGE
    )


def test_a_name_two_pages_have_goes_to_its_file() -> None:
    warning = "<flax>/nnx/variablelib.py:docstring of flax.nnx.variablelib.value:1: WARNING: w"

    assert page_warnings.page_of(warning, "docs_nnx", OBJECTS) == (
        "(docstrings of <flax>/nnx/variablelib.py)"
    )


def test_added_fixed_and_hidden_page_by_page() -> None:
    released = {
        "api_reference/flax.errors": Counter({ERRORS: 2}),
        "api_reference/flax.nnx/module": Counter({SOURCE: 1, DOCSTRING: 1}),
    }
    adopted = {
        "api_reference/flax.nnx/module": Counter({SOURCE: 1}),
        page_warnings.NO_PAGE: Counter({"WARNING: new": 1}),
    }

    rows = {
        row.page: row
        for row in page_warnings.compare(released, adopted, ["api_reference/flax.errors"])
    }

    assert rows["api_reference/flax.errors"].fixed == (ERRORS, ERRORS)
    assert rows["api_reference/flax.errors"].hidden == ()
    assert rows["api_reference/flax.nnx/module"].hidden == (DOCSTRING,)
    assert (
        rows["api_reference/flax.nnx/module"].released,
        rows["api_reference/flax.nnx/module"].adopted,
    ) == (2, 1)
    assert rows[page_warnings.NO_PAGE].added == ("WARNING: new",)
    table = page_warnings.table(list(rows.values()))
    assert table[0].split() == ["page", "released", "adopted", "added", "fixed", "hidden"]
    assert table[-1].split()[-5:] == ["4", "2", "1", "2", "1"]


def test_the_pages_a_series_rewrites_are_its_tree_sources() -> None:
    files = [
        "pyproject.toml",
        "docs_nnx/conf.py",
        "docs_nnx/api_reference/flax.errors.rst",
        "docs_nnx/api_reference/index.rst",
        "docs/api_reference/flax.errors.rst",
    ]

    assert page_warnings.rewritten_pages(files, "docs_nnx") == [
        "api_reference/flax.errors",
        "api_reference/index",
    ]
    assert page_warnings.rewritten_pages(files, "docs") == ["api_reference/flax.errors"]


def test_warnings_beyond_another_builds_are_those_it_did_not_give() -> None:
    doctest = {"a": Counter({SOURCE: 2, "WARNING: d": 1}), "b": Counter({ERRORS: 1})}
    html = {"a": Counter({SOURCE: 1})}

    assert page_warnings.beyond(doctest, html) == {
        "a": Counter({SOURCE: 1, "WARNING: d": 1}),
        "b": Counter({ERRORS: 1}),
    }
