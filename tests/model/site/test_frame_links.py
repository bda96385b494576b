"""Links from the library frames of a published traceback to their source."""

from __future__ import annotations

import re

import pytest

from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.site.links import DEFAULT_SOURCE_LINKS, SourceLinks

VERSIONS = {"jax": "0.10.2", "jaxlib": "0.10.2", "flax": "0.12.8"}
DEFAULT_LINKS = SourceLinks(DEFAULT_SOURCE_LINKS, VERSIONS)


def _linked(text: str, links: SourceLinks = DEFAULT_LINKS) -> list[tuple[str, str]]:
    """(the text each link spans, its URL)."""
    return [(text[link.start : link.end], link.url) for link in links.find(text)]


PUBLISHED = (
    "Traceback (most recent call last):\n"
    '  File "<doctest m.E[3]>", line 1, in <module>\n'
    "    MLP().apply(variables, batch)\n"
    '  File "flax/linen/module.py", line 9, in apply\n'
    "    return fn()\n"
    '  File "flax_errors_ext/jit_hook.py", line 102, in _raise_for_module\n'
    "    raise JitPytreeError(type(module), _arg_path(module, caller))\n"
    "flax.errors.ScopeParamShapeError: see README.md\n"
)
"""A traceback as the site publishes it (``tracebacks.publishable``)."""


def test_library_frames_link_to_their_line_at_the_installed_versions_tag() -> None:
    shown = PUBLISHED
    # Flax's files are at flax/... in its repository; its tags are v<version>.
    assert _linked(shown) == [
        (
            'File "flax/linen/module.py", line 9',
            "https://github.com/google/flax/blob/v0.12.8/flax/linen/module.py#L9",
        )
    ]
    # The reader's frame and this package's own are not linked.
    assert "<doctest" not in str(_linked(shown))
    assert "jit_hook" not in str(_linked(shown))


def test_jax_links_to_its_jax_v_tag_and_jaxlib_to_nothing() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "jax/_src/tree_util.py", line 361, in tree_map\n'
        "    return treedef.unflatten(f(*xs) for xs in zip(*all_leaves))\n"
        '  File "jaxlib/xla_client.py", line 5, in f\n'
        '  File "<string>", line 15, in __init__\n'
        '  File "model.py", line 4, in __call__\n'
        "E: x"
    )
    assert _linked(text) == [
        (
            'File "jax/_src/tree_util.py", line 361',
            "https://github.com/jax-ml/jax/blob/jax-v0.10.2/jax/_src/tree_util.py#L361",
        )
    ]


@pytest.mark.parametrize(
    ("path", "version"),
    [
        ("flax/linen/module.py", "not installed"),  # no version ran
        ("flax/linen/module.py", "0.13.0.dev20260101+g1a2b3c"),  # no tag to link to
        (
            "/home/me/venv/lib/python3.11/site-packages/flax/linen/module.py",
            "0.12.8",
        ),  # never published: not in its root
        ("flax", "0.12.8"),  # a bare name
        ("flax/../setup.py", "0.12.8"),
        ("flax_errors_ext/jit_hook.py", "0.12.8"),
        ("<doctest flax.errors.E[0]>", "0.12.8"),
    ],
)
def test_frames_without_a_known_release_file_are_not_linked(path: str, version: str) -> None:
    links = SourceLinks(DEFAULT_SOURCE_LINKS, {"flax": version})
    assert links.url(path, 3) == ""


def test_only_frames_of_a_traceback_are_linked() -> None:
    # Output that merely looks like a frame, and a frame after the exception line.
    text = (
        '  File "flax/core/scope.py", line 1, in f\n'
        "Traceback (most recent call last):\n"
        '  File "flax/core/scope.py", line 2, in f\n'
        "flax.errors.E: x\n"
        '  File "flax/core/scope.py", line 3, in f\n'
    )
    assert [url.rsplit("#", 1)[1] for _, url in _linked(text)] == ["L2"]


def test_a_template_that_names_no_version_links_whatever_version_ran() -> None:
    main = SourceLinks({"flax": "https://example.org/main/{path}#L{line}"}, {})
    assert main.url("flax/core/scope.py", 5) == "https://example.org/main/flax/core/scope.py#L5"


def test_the_setting_is_checked_when_read() -> None:
    name = "flax_errors_source_links"
    good = {"optax": "https://example.org/{version}/{path}#L{line}", "jax": None}
    assert CatalogueConfig.from_values({name: good}).source_links == good
    assert CatalogueConfig().source_links == {}
    for bad, says in [
        (["flax"], "must be a dict"),
        ({"flax": "github.com/google/flax/{path}"}, "http(s) URL template"),
        ({"flax": "https://example.org/{commit}/{path}"}, "names ['commit']"),
        ({"flax": "https://example.org/{version}"}, "must name {path}"),
        ({"flax": "https://example.org/{path"}, "not a format string"),
    ]:
        with pytest.raises(ValueError, match=re.escape(says)):
            CatalogueConfig.from_values({name: bad})
