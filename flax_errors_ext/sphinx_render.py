"""The catalogue directive: run each entry of a module and render what happened.

``.. flax-errors-catalogue:: <module>`` renders one section per error, whose id is
the error's full dotted name (the fragment of the URL the error prints). Examples
are executed here, at read time, through :mod:`flax_errors_ext.core.execute`;
everything shown of a run (output, tracebacks, diffs) is a literal block, so error
text can never turn into markup. Each section also carries an invisible
:class:`error_record` that the environment collector files away for ``errors.json``.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from flax_errors_ext.core.config import CatalogueConfig
from flax_errors_ext.core.discover import DiscoveryError, discover
from flax_errors_ext.core.run import EntryOutcome, check_module, default_jobs

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from sphinx.application import Sphinx

    from flax_errors_ext.core.records import ExampleResult, FormatProblem, Prose

LOGGER = logging.getLogger(__name__)
WARNING_TYPE = "flax-errors"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class error_record(nodes.General, nodes.Element):
    """Carries an entry's ``errors.json`` record from the directive to the collector."""


@dataclasses.dataclass
class BuildState:
    """What every read of this build shares; set up once, before any worker forks."""

    config: CatalogueConfig
    fingerprint: dict[str, Any]
    notebook_dir: Path
    catalogue_dir: Path


def setup_render(app: Sphinx) -> None:
    """Register the directives and the autodoc hook the rendering needs."""
    app.add_node(error_record)
    app.add_directive("flax-errors-catalogue", CatalogueDirective)
    app.add_directive("flax-errors-options", OptionsDirective)
    # Before sphinx-autodoc-typehints (priority 500) adds its type fields.
    app.connect("autodoc-process-docstring", _signature_only, priority=400)


def _signature_only(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    # The entry renders the docstring itself; autodoc contributes the signature.
    if name in _SIGNATURE_ONLY:
        lines[:] = []


_SIGNATURE_ONLY: set[str] = set()
"""Classes whose autodoc output is being built for a signature (one read at a time)."""


class CatalogueDirective(SphinxDirective):
    """Render every error class of one module as an executed catalogue entry."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        """Discover, execute, judge and render every error class of the module."""
        state: BuildState = self.env.flax_errors_state  # type: ignore[attr-defined]
        try:
            module = discover(self.arguments[0], state.catalogue_dir)
        except DiscoveryError as error:
            LOGGER.warning(
                str(error), type=WARNING_TYPE, subtype="import", location=self.get_location()
            )
            return []
        self.env.note_dependency(str(module.path))
        # Example files that exist; one added later is caught by env-get-outdated.
        for path in (state.catalogue_dir / module.name).glob("*.txt"):
            self.env.note_dependency(str(path))
        outcomes = check_module(
            module,
            state.fingerprint,
            timeout=state.config.timeout,
            notebook_dir=state.notebook_dir,
            nb_config=self.env.mystnb_config,  # type: ignore[attr-defined]
            jobs=state.config.jobs or default_jobs(),
        )
        return [node for outcome in outcomes for node in self._entry(outcome, state)]

    def _entry(self, outcome: EntryOutcome, state: BuildState) -> list[nodes.Node]:
        entry, results = outcome.entry, outcome.results
        section = nodes.section(ids=[entry.qualname], classes=["flax-errors-entry"])
        section += nodes.title(entry.name, entry.name)
        self.env.domains.python_domain.note_object(
            entry.qualname, "exception", entry.qualname, location=(self.env.docname, self.lineno)
        )
        section += self._signature(entry.qualname)
        for passage in entry.prose:
            if passage.foreign:
                section += self._foreign_rest(passage)
            else:
                section += self._rest(passage.text, passage.path, passage.lines)
        record = outcome.record(state.fingerprint)
        section += _status_line(record)
        for problem in entry.problems:
            section += _problem_box(problem)
        for result in results:
            section += self._example(result)
        section += error_record(record=record)
        return [section]

    def _rest(self, text: str, path: str, lines: Sequence[int]) -> list[nodes.Node]:
        """Parse docstring reST, with each line located at its place in ``path``."""
        if not text.strip():
            return []
        content = StringList()
        for line_text, line in zip(text.splitlines(), lines, strict=False):
            content.append(line_text, path, line - 1)
        container = nodes.container()
        self.state.nested_parse(content, 0, container)
        return list(container.children)

    def _foreign_rest(self, passage: Prose) -> list[nodes.Node]:
        """Render another project's docstring, or show it verbatim if its reST is broken.

        Warnings about markup we cannot fix would only teach people to ignore
        warnings, so the passage is parsed with the reporter silenced and, if it
        produced any problem, shown as preformatted text instead.
        """
        reporter = self.state.document.reporter
        level = reporter.report_level
        reporter.report_level = reporter.SEVERE_LEVEL
        try:
            parsed = self._rest(passage.text, passage.path, passage.lines)
        finally:
            reporter.report_level = level
        broken = any(
            message["level"] >= 2
            for node in parsed
            for message in node.findall(nodes.system_message)
        )
        if not broken:
            return parsed
        LOGGER.info(f"{passage.path}:{passage.lines[0]}: docstring shown verbatim (invalid reST)")
        return [nodes.literal_block(passage.text, passage.text, classes=["flax-errors-verbatim"])]

    def _signature(self, qualname: str) -> list[nodes.Node]:
        _SIGNATURE_ONLY.add(qualname)
        try:
            content = StringList(
                [f".. autoexception:: {qualname}", "   :no-index:"], "<flax-errors>"
            )
            container = nodes.container(classes=["flax-errors-signature"])
            self.state.nested_parse(content, 0, container)
        finally:
            _SIGNATURE_ONLY.discard(qualname)
        return [container]

    def _example(self, result: ExampleResult) -> nodes.Node:
        example = result.example
        box = nodes.container(
            classes=["flax-errors-example", example.kind.value, result.verdict.value]
        )
        title = f"{example.kind.value.capitalize()} example"
        box += nodes.rubric(title, title)
        description_lines = example.description.count("\n") + 1
        first = example.location.line - description_lines - 1
        box += self._rest(example.description, example.location.path, _from(first))
        box += nodes.literal_block(
            "", _transcript(result), language="pycon", classes=["flax-errors-transcript"]
        )
        verdict = f"{result.verdict.value}" + (f": {result.detail}" if result.detail else "")
        box += nodes.paragraph("", "", nodes.Text(verdict), classes=["flax-errors-verdict"])
        if result.verdict.failed and result.diff:
            box += nodes.literal_block("", result.diff, language="diff")
        return box


def _transcript(result: ExampleResult) -> str:
    """The example as a doctest session, with what actually ran as its output."""
    parts = []
    runs = iter(result.runs)
    for statement in result.example.statements:
        lines = statement.source.rstrip("\n").split("\n")
        parts.append(">>> " + "\n... ".join(lines) + "\n")
        if statement.skip:
            continue
        run = next(runs, None)
        if run is not None:
            parts.append(_ANSI.sub("", run.transcript))
        else:  # never ran: show what is documented
            parts.append(statement.want)
    return "".join(parts).rstrip("\n")


def _from(first_line: int) -> range:
    """Consecutive file lines from ``first_line`` on, for text without gaps."""
    return range(first_line, first_line + 100_000)


def _status_line(record: dict[str, Any]) -> nodes.Node:
    device = record["device"]
    versions = record["versions"]
    where = (
        f"{device.get('platform', '?')} ({device.get('device_kind', '?')})"
        if device and "platform" in device
        else "not executed"
    )
    text = f"Status: {record['status']} · device: {where} · " + " · ".join(
        f"{name} {version}" for name, version in versions.items()
    )
    return nodes.paragraph(
        "", "", nodes.Text(text), classes=["flax-errors-status", record["status"]]
    )


def _problem_box(problem: FormatProblem) -> nodes.warning:
    box = nodes.warning()
    box += nodes.literal_block("", str(problem))
    return box


class OptionsDirective(SphinxDirective):
    """A table of every ``flax_errors_*`` setting, generated from the config dataclass."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {}

    def run(self) -> list[nodes.Node]:
        """Build the table."""
        rows = [
            (name, repr(default), help_text)
            for name, default, help_text in CatalogueConfig.options()
        ]
        table = nodes.table(classes=["flax-errors-options"])
        group = nodes.tgroup(cols=3)
        table += group
        for width in (30, 15, 55):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += _row(("Setting", "Default", "Meaning"))
        body = nodes.tbody()
        group += body
        for row in rows:
            body += _row(row, literal_columns=(0, 1))
        return [table]


def _row(cells: tuple[str, ...], literal_columns: tuple[int, ...] = ()) -> nodes.row:
    row = nodes.row()
    for index, text in enumerate(cells):
        entry = nodes.entry()
        inline: nodes.Node = (
            nodes.literal(text, text) if index in literal_columns else nodes.Text(text)
        )
        entry += nodes.paragraph("", "", inline)
        row += entry
    return row
