"""One error's entry: its section (see :meth:`EntryRenderer._entry`), from its module's run."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from typing import TYPE_CHECKING, cast

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective, switch_source_input

from flax_errors_ext.execution.catalogue.modules import DiscoveryError
from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict
from flax_errors_ext.model.lookup.patterns import defined_names, names_in
from flax_errors_ext.model.runs.entry_record import relative_source
from flax_errors_ext.model.runs.tracebacks import strip_roots
from flax_errors_ext.model.site.links import SITES, unforwarded
from flax_errors_ext.model.site.texts import lead_lines, verification_text
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.catalogue.examples import entry_examples, source_links
from flax_errors_ext.sphinx.catalogue.library import (
    SIGNATURE_ONLY,
    foreign_passage,
    readable_constructor,
)
from flax_errors_ext.sphinx.catalogue.per_build import module_run
from flax_errors_ext.sphinx.compat import LOGGER, NO_INDEX, warn
from flax_errors_ext.sphinx.context import (
    BuildContext,
    CatalogueCollector,
    build_context,
    error_record,
    see_also_placeholder,
)
from flax_errors_ext.sphinx.extras import ENTRY_EXTRAS, EntryExtras
from flax_errors_ext.sphinx.table import inline_text, joined, labelled, status_badge

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sphinx.domains.python import PythonDomain

    from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
    from flax_errors_ext.model.catalogue.records import ErrorEntry, Prose
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.model.runs.jobs import EntryOutcome
    from flax_errors_ext.model.site.links import SourceLinks


class EntryRenderer(SphinxDirective):
    """What the catalogue's directives share: rendering one entry's section from its run."""

    def _module_run(self, name: str) -> ModuleRun | None:
        """The module's run, its files noted as dependencies; None (warned) where unreadable."""
        try:
            found = module_run(build_context(self.env), name)
        except DiscoveryError as error:
            warn(str(error), WarningSubtype.IMPORT, self.get_location())
            return None
        module = found.module
        # Its areas, related errors and notes, for the index and the "See also" lines.
        CatalogueCollector.module_data(self.env).setdefault(self.env.docname, {})[module.name] = (
            module.data
        )
        if module.data.path:
            self.env.note_dependency(module.data.path)
        if module.path.is_dir():
            folders = CatalogueCollector.folders(self.env).setdefault(self.env.docname, {})
            folders[str(module.path)] = module.path.stat().st_mtime_ns
        else:
            self.env.note_dependency(str(module.path))
        # Where its docstrings' references link (see flax_errors_ext.sphinx.catalogue.library).
        for site in SITES:
            self.env.note_dependency(str(site.path))
        return found

    def _entry(self, outcome: EntryOutcome, found: ModuleRun) -> list[nodes.Node]:
        state = build_context(self.env)
        entry = outcome.entry
        # Its example file (one added later: env-get-outdated), and the files of its prose.
        self.env.note_dependency(entry.location.path)
        for passage in entry.prose:
            self.env.note_dependency(passage.path)
        self._note_exception(entry)
        record = outcome.record(state.run.fingerprint)
        extras = EntryExtras.joined(self.env.events.emit(ENTRY_EXTRAS, record, found))
        roots = state.published_roots
        self._warn_unforwarded(outcome, state)
        held = [r.example for r in outcome.results if r.verdict is not Verdict.OTHER_VERSIONS]
        leads = lead_lines(held)  # the one-line captions under the headline: the fix
        links = source_links(state.config.source_links, record.version_map)
        first_examples, other_examples = entry_examples(
            outcome.results, self._rest, captions_shown=bool(leads), links=links
        )
        section = nodes.section(ids=[entry.site.anchor], classes=["flax-errors-entry"])
        section += nodes.title(entry.name, entry.name)
        section += headline(entry.summary)  # what went wrong, in one line
        section += [labelled(label, "flax-errors-fix", *inline_text(t)) for label, t in leads]
        section += status(record, extras.verified)  # whether and where it was verified
        section += raise_site(entry, record, roots, links)
        section += problems(entry, roots)  # what is wrong with its docstring
        section += first_examples  # the first bad and good examples, open, side by side
        section += self._explanation(entry)  # "What it means"
        section += other_examples  # the other examples, as tabs
        section += extras.parts  # what the loaded extras add (its releases, other stacks' runs)
        section += self._signature(entry)  # the constructor's signature
        section += see_also_placeholder(qualname=entry.qualname)  # related errors
        # What errors.json and the index are made from.
        section += error_record(record=record, loaded=outcome.execution.loaded)
        return [section]

    def _note_exception(self, entry: ErrorEntry) -> None:
        """File the entry in ``objects.inv``, an alias (autodoc of the module stays canonical)."""
        cast("PythonDomain", self.env.get_domain("py")).note_object(
            entry.qualname,
            "exception",
            entry.site.anchor,
            aliased=True,
            location=(self.env.docname, self.lineno),
        )

    def _explanation(self, entry: ErrorEntry) -> list[nodes.Node]:
        prose = entry.details
        shown: list[nodes.Node] = []
        if any(passage.text.strip() for passage in prose):
            shown.append(nodes.rubric("What it means", "What it means"))
        for passage in prose:
            if passage.foreign:
                shown += self._foreign_rest(passage, entry)
            else:
                shown += self._rest(passage.text, passage.path, passage.lines)
        return shown

    def _warn_unforwarded(self, outcome: EntryOutcome, state: BuildContext) -> None:
        spec = state.config.spec(outcome.entry.module)
        # No redirects where sphinx-reredirects is not loaded (no page moved).
        forwarded = set(getattr(self.config, "redirects", None) or ())
        for result in outcome.results:
            for page in unforwarded(spec, state.config.layout, result.actual, forwarded):
                warn(
                    f"{outcome.entry.qualname}: the error links to {spec.upstream}/{page}.html, "
                    "a page this site neither has nor forwards; list a run of this release "
                    "in flax_errors_device_runs, and the site forwards that page",
                    WarningSubtype.UNFORWARDED,
                    str(result.location),
                )

    def _rest(self, text: str, path: str, lines: Sequence[int]) -> list[nodes.Node]:
        """Parse docstring reST, each line located in ``path``: docutils' messages point there."""
        content = StringList()
        for line_text, line in zip(text.splitlines(), lines, strict=False):
            content.append(line_text, path, line - 1)
        container = nodes.container()
        with switch_source_input(self.state, content):
            self.state.nested_parse(content, 0, container)
        return list(container.children)

    def _foreign_rest(self, passage: Prose, entry: ErrorEntry) -> list[nodes.Node]:
        """Another project's docstring, silenced (we cannot fix it); verbatim if broken."""
        reporter = self.state.document.reporter
        level = reporter.report_level
        reporter.report_level = reporter.SEVERE_LEVEL
        try:
            parsed = self._rest(passage.text, passage.path, passage.lines)
        finally:
            reporter.report_level = level
        messages = [m for node in parsed for m in node.findall(nodes.system_message)]
        if all(message["level"] < 2 for message in messages):
            # References link by the inventory or render as their text (library.py).
            return [foreign_passage(parsed, entry)]
        LOGGER.info(f"{passage.path}:{passage.lines[0]}: docstring shown verbatim (invalid reST)")
        return [nodes.literal_block(passage.text, passage.text, classes=["flax-errors-verbatim"])]

    def _signature(self, entry: ErrorEntry) -> list[nodes.Node]:
        if entry.message:
            return []  # a message entry names no class: no constructor to show
        qualname = entry.qualname
        module, _, name = qualname.rpartition(".")
        cls = getattr(sys.modules.get(module), name, None)
        lines = [f".. autoexception:: {qualname}", f"   :{NO_INDEX}:"]
        container = nodes.container(classes=["flax-errors-signature"])
        SIGNATURE_ONLY.add(qualname)
        try:
            with readable_constructor(cls) if isinstance(cls, type) else nullcontext():
                self.state.nested_parse(StringList(lines, "<flax-errors>"), 0, container)
        except ExtensionError as error:
            LOGGER.info(f"{qualname}: signature left out ({error})", location=self.get_location())
            return []
        finally:
            SIGNATURE_ONLY.discard(qualname)
        return [container]


class EntryDirective(EntryRenderer):
    """``.. flax-errors-entry:: <module>.<Name>``: one error's entry, on a page of its own."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        """The entry's section, from its module's run in this build."""
        qualname = self.arguments[0]
        found = self._module_run(qualname.rpartition(".")[0])
        if found is None:
            return []
        outcome = found.outcome(qualname)
        if outcome is None:
            warn(
                f"{qualname}: {found.module.name} has no catalogue entry of that name "
                f"(its entries: {', '.join(e.name for e in found.module.entries)})",
                WarningSubtype.CATALOGUE,
                self.get_location(),
            )
            return []
        return self._entry(outcome, found)


def headline(summary: str) -> list[nodes.Node]:
    """What went wrong, in one line: the entry's summary."""
    if not summary:
        return []
    return [nodes.paragraph("", "", *inline_text(summary), classes=["flax-errors-headline"])]


def status(record: EntryRecord, verified: str | None) -> list[nodes.Node]:
    """The verification line, ``✓ Verified on CPU · ...``, or an extra's; no date: builds agree."""
    if record.status.value == "passed":
        lead = nodes.inline("✓", "✓", classes=["flax-errors-check"])
    else:
        lead = status_badge(record.status)
    text = verified or verification_text(record)
    classes = ["flax-errors-status", record.status.value]
    return [nodes.paragraph("", "", lead, nodes.Text(" "), nodes.Text(text), classes=classes)]


def raise_site(
    entry: ErrorEntry, record: EntryRecord, roots: Sequence[str], links: SourceLinks
) -> list[nodes.Node]:
    """``Raised as ValueError at flax/nnx/pytreelib.py:417``: a message entry's origin, as run."""
    if not entry.message or not entry.raised_as:
        return []
    paragraph = _labelled("Raised as:", "flax-errors-raised", entry.raised_as, " or ")
    if record.raised_at and (where := relative_source(record.raised_at, roots)):
        path, _, line = where.rpartition(":")
        paragraph += nodes.Text(", by ")
        url = links.url(path, int(line))
        code = nodes.literal(where, where)
        paragraph += nodes.reference("", "", code, refuri=url, internal=False) if url else code
        package = path.split("/", 1)[0]
        if version := record.version_map.get(package):
            paragraph += nodes.Text(f" ({package} {version})")
    return [paragraph, *_varying(entry)]


def _varying(entry: ErrorEntry) -> list[nodes.Node]:
    """``Yours in your message: layers, MLP``: the example's own names its message quotes."""
    bad = next((e for e in entry.examples if e.kind is ExampleKind.BAD), None)
    message = bad.statements[-1].exc_msg if bad is not None and bad.statements else None
    names = names_in(message or "", defined_names(bad)) if bad is not None else ()
    if not names:
        return []
    paragraph = _labelled("Yours in your message:", "flax-errors-varies", names, ", ")
    paragraph += nodes.Text(" (the example's; your code's own names stand there)")
    return [paragraph]


def _labelled(label: str, kind: str, codes: Sequence[str], separator: str) -> nodes.paragraph:
    return labelled(label, kind, *joined(([nodes.literal(c, c)] for c in codes), separator))


def problems(entry: ErrorEntry, roots: Sequence[str]) -> list[nodes.Node]:
    """A box for each thing wrong with the entry's docstring."""
    return [
        nodes.warning("", nodes.literal_block("", strip_roots(str(problem), roots)))
        for problem in entry.problems
    ]
