"""Where the site's links go: library frames to their source, old pages to where they moved.

A published frame's ``File "...", line N`` links to that line at the tag of the
version that ran, where its package's repository is known; any other frame gets no
link. Releases print different URLs for the same error (Flax 0.4's
``flax.errors.html``, JAX 0.12's ``101/errors.html``): which pages readers may arrive
at is read from what each release raised, never listed by hand.
"""

from __future__ import annotations

import dataclasses
import re
import string
from typing import TYPE_CHECKING
from urllib.parse import quote

from flax_errors_ext.model.runs.tracebacks import frame_lines

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from flax_errors_ext.layout import SiteLayout
    from flax_errors_ext.model.config.values import ModuleSpec
    from flax_errors_ext.model.history.releases import History


DEFAULT_SOURCE_LINKS: Mapping[str, str] = {
    "flax": "https://github.com/google/flax/blob/v{version}/{path}#L{line}",
    "jax": "https://github.com/jax-ml/jax/blob/jax-v{version}/{path}#L{line}",
}
"""Packages whose repository holds each file at its path inside the import root,
by tag: flax's tags are ``v0.12.8``, jax's ``jax-v0.10.2``. jaxlib is left out:
its files are built, not kept in JAX's repository at that path."""

FIELDS = ("version", "path", "line")
"""What a template may name: the installed version, the file's path inside the
import root (``flax/linen/linear.py``), and the line."""

_RELEASE = re.compile(r"\d+(?:\.\d+)*")
"""A version that is a release, and so has a tag (not ``0.13.0.dev1+g1a2b3c``)."""


def template_problem(template: object) -> str:
    """What is wrong with a URL template, or "" if nothing is."""
    if not isinstance(template, str) or not template.startswith(("http://", "https://")):
        return "must be an http(s) URL template"
    try:
        names = _names(template)
    except ValueError as error:
        return f"is not a format string ({error})"
    unknown = sorted(names - set(FIELDS))
    if unknown:
        return f"names {unknown}; a template may name only {{version}}, {{path}} and {{line}}"
    if "path" not in names:
        return "must name {path}"
    return ""


def _names(template: str) -> set[str]:
    """The fields a format string names."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@dataclasses.dataclass(frozen=True)
class SourceLink:
    """A span of a traceback's text that links to a line of source."""

    start: int
    end: int
    url: str


@dataclasses.dataclass(frozen=True)
class SourceLinks:
    """Where packages' files are published, and the versions that ran."""

    templates: Mapping[str, str]
    """By package: :data:`DEFAULT_SOURCE_LINKS`, ``flax_errors_source_links`` on top."""
    versions: Mapping[str, str]

    def url(self, path: str, line: int) -> str:
        """The URL of ``line`` of a file a published frame names ``path``, or "" if unknown."""
        parts = re.split(r"[/\\]", path)
        template = self.templates.get(parts[0])
        if template is None or len(parts) < 2 or any(p in ("", ".", "..") for p in parts):
            return ""  # not a file inside a known package: absolute, <doctest ...>, a bare name
        version = self.versions.get(parts[0], "")
        if "version" in _names(template) and not _RELEASE.fullmatch(version):
            return ""
        return template.format(version=version, path=quote("/".join(parts)), line=line)

    def find(self, text: str) -> list[SourceLink]:
        """The ``File "...", line N`` part of each frame of a published traceback with a URL."""
        found = []
        for offset, frame in frame_lines(text):
            url = self.url(frame["file"], int(frame["line"]))
            if url:
                found.append(SourceLink(offset + 2, offset + frame.end("line"), url))
        return found


def moved_pages(
    specs: Iterable[ModuleSpec],
    layout: SiteLayout,
    histories: Mapping[str, History],
    texts: Iterable[str] = (),
) -> dict[str, str]:
    """``{old docname: docname now}`` for the pages the errors' links point to elsewhere.

    Read from what past releases raised (``histories``) and from other ``texts``
    that errors raised (other stacks' runs). Only links into the module's
    ``upstream`` site count: this site mirrors its layout.
    """
    texts = tuple(texts)
    moved: dict[str, str] = {}
    for spec in specs:
        if not spec.upstream:
            continue
        history = histories.get(spec.name)
        raised = [
            run.exc_text
            for release in (history.releases if history is not None else ())
            for entry in release.entries.values()
            for run in entry.examples
        ]
        for text in (*raised, *texts):
            linked = layout.linked_pages(spec.upstream, spec.name, text)
            for old, now in layout.forwards(spec.name, linked).items():
                moved.setdefault(old, now)
    return dict(sorted(moved.items()))


def unforwarded(
    spec: ModuleSpec, layout: SiteLayout, text: str, forwarded: Collection[str]
) -> list[str]:
    """The pages of ``spec``'s upstream site that ``text`` links to and this site lacks.

    A page is there when it is ``layout``'s module page or one of ``forwarded``.
    """
    if not spec.upstream:
        return []
    here = layout.module_page(spec.name)
    pages = layout.linked_pages(spec.upstream, spec.name, text)
    return [page for page in pages if page != here and page not in forwarded]
