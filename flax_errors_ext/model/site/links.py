"""Where the site's links go: API names, library frames, old pages; which upstream code runs."""

from __future__ import annotations

import dataclasses
import functools
import re
import string
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from flax_errors_ext.model.catalogue.records import ExampleKind
from flax_errors_ext.model.runs.tracebacks import frame_lines

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from flax_errors_ext.layout import SiteLayout
    from flax_errors_ext.model.catalogue.records import Example
    from flax_errors_ext.model.config.values import ModuleSpec
    from flax_errors_ext.model.history.releases import History


DEFAULT_SOURCE_LINKS: Mapping[str, str] = {
    "flax": "https://github.com/google/flax/blob/v{version}/{path}#L{line}",
    "jax": "https://github.com/jax-ml/jax/blob/jax-v{version}/{path}#L{line}",
}
"""Packages whose repository holds each file at its path inside the import root, by tag
(jaxlib's files are built, not kept in JAX's repository)."""

FIELDS = ("version", "path", "line")

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
    if unknown := sorted(names - set(FIELDS)):
        return f"names {unknown}; a template may name only {{version}}, {{path}} and {{line}}"
    if "path" not in names:
        return "must name {path}"
    return ""


def _names(template: str) -> set[str]:
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
        found = [(at, f, self.url(f["file"], int(f["line"]))) for at, f in frame_lines(text)]
        return [SourceLink(at + 2, at + f.end("line"), url) for at, f, url in found if url]


def moved_pages(
    specs: Iterable[ModuleSpec],
    layout: SiteLayout,
    histories: Mapping[str, History],
    texts: Iterable[str] = (),
) -> dict[str, str]:
    """``{old docname: docname now}`` for the pages the errors' links point to elsewhere.

    Only links into a module's ``upstream`` site count: this site mirrors its layout.
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
    """The pages of ``spec``'s upstream site that ``text`` links to and this site lacks."""
    if not spec.upstream:
        return []
    here = layout.module_page(spec.name)
    pages = layout.linked_pages(spec.upstream, spec.name, text)
    return [page for page in pages if page != here and page not in forwarded]


@dataclasses.dataclass(frozen=True)
class Site:
    """A documentation site and its inventory, as an ``intersphinx_mapping`` entry says it."""

    name: str
    base: str
    """The URL the inventory's targets are relative to, ending in ``/``."""
    file: str

    @property
    def path(self) -> Path:
        """Its shipped ``objects.inv``."""
        return Path(__file__).resolve().parents[2] / "inventory" / self.file


SITES = (
    Site("Flax Linen", "https://flax-linen.readthedocs.io/en/latest/", "flax-linen.inv"),
    Site("Flax NNX", "https://flax.readthedocs.io/en/latest/", "flax-nnx.inv"),
    Site("JAX", "https://docs.jax.dev/en/latest/", "jax.inv"),
    Site("Python", "https://docs.python.org/3/", "python.inv"),
)
"""The sites the entries link to; of two that document a name, the first is linked."""

ALIASES = {
    "nn": "flax.linen",
    "linen": "flax.linen",
    "nnx": "flax.nnx",
    "jnp": "jax.numpy",
    "lax": "jax.lax",
}
"""A docstring's shorthand for a module (``:func:`nn.compact```)."""

PROJECTS = {"flax": "Flax", "jax": "JAX", "jaxlib": "JAX"}


PYTHON_OBJECTS = frozenset(
    {"module", "class", "exception", "function", "method", "attribute", "property", "data"}
)
"""The Python domain's object types: the only ones a Python role links to."""


@dataclasses.dataclass(frozen=True)
class Target:
    """One documented name: where a site documents it."""

    name: str
    site: str
    url: str

    @property
    def project(self) -> str:
        """The top-level package the name belongs to (``flax``, ``jax``)."""
        return self.name.partition(".")[0]

    def __str__(self) -> str:
        return f"{self.name} -> {self.url}"


@dataclasses.dataclass(frozen=True)
class Inventory:
    """The documented names, by full dotted name."""

    by_name: Mapping[str, Target]

    @classmethod
    def from_sites(cls, sites: Iterable[tuple[Site, Iterable[tuple[str, str, str]]]]) -> Inventory:
        """The inventory of each site's Python objects: ``(object type, name, URL)`` each."""
        by_name: dict[str, Target] = {}
        for site, objects in sites:
            for objtype, name, url in objects:
                domain, _, kind = objtype.partition(":")
                if domain == "py" and kind in PYTHON_OBJECTS:
                    by_name.setdefault(name, Target(name, site.name, url))
        return cls(by_name)

    @functools.cached_property
    def _by_last(self) -> dict[str, list[Target]]:
        last: dict[str, list[Target]] = {}
        for target in self.by_name.values():
            last.setdefault(target.name.rpartition(".")[2], []).append(target)
        return last

    @functools.cached_property
    def _packages(self) -> frozenset[str]:
        return frozenset(target.project for target in self.by_name.values())

    def find(self, reference: str, project: str = "") -> Target | None:
        """The target a reference names (in full, by shorthand or by a unique ending), or None."""
        name, full = self._names(reference)
        if not name:
            return None
        head, dot, _ = name.partition(".")
        for candidate in (name, full):
            if candidate in self.by_name:
                return self.by_name[candidate]
        if dot and not head[:1].isupper():
            return None
        ending = [
            target
            for target in self._by_last.get(name.rpartition(".")[2], ())
            if target.name.endswith("." + name)
        ]
        if len(ending) > 1 and project:
            ending = [target for target in ending if target.project == project]
        return ending[0] if len(ending) == 1 else None

    def covers(self, reference: str) -> bool:
        """Whether a reference's full name is in a package the inventory documents."""
        return self._names(reference)[1].partition(".")[0] in self._packages

    def _names(self, reference: str) -> tuple[str, str]:
        name = reference.strip().lstrip("~.").removesuffix("()")
        head, dot, rest = name.partition(".")
        return name, ALIASES.get(head, head) + dot + rest

    def project_name(self, qualname: str) -> str:
        """How prose names the project a dotted name belongs to: ``Flax`` for ``flax.errors``."""
        package = qualname.partition(".")[0]
        return PROJECTS.get(package, package)


def ran_statements(examples: Iterable[Example]) -> frozenset[str]:
    """The first lines of the upstream statements that run (doctest skips none of them)."""
    return frozenset(
        statement.source.strip().splitlines()[0]
        for example in examples
        if example.kind is ExampleKind.UPSTREAM
        for statement in example.statements
        if statement.source.strip() and not statement.skip
    )


def block_runs(text: str, ran: frozenset[str]) -> bool:
    """Whether a code block shows statements that run: one of its ``>>>`` lines is one."""
    lines = (line.strip() for line in text.splitlines())
    return any(
        line.startswith(">>>") and line.removeprefix(">>>").strip() in ran for line in lines
    )


def not_run_label(project: str) -> str:
    """The label of a block that is shown but never run: ``From Flax's docstring, not run``."""
    return f"From {project}'s docstring, not run"
