"""The pages drawn from the whole catalogue, and the reference pages drawn from the code."""

from __future__ import annotations

import argparse
import datetime
import os
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any, cast

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from flax_errors_ext.cli import EXIT_CODES, PROG, build_parser
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.site.texts import BADGES, SiteData, figures
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.compat import WARNING_TYPE
from flax_errors_ext.sphinx.context import (
    CatalogueCollector,
    build_context,
    catalogue_figures,
    catalogue_index,
    see_also_placeholder,
)
from flax_errors_ext.sphinx.extras import index_extras
from flax_errors_ext.sphinx.table import inline_text, joined, labelled, status_badge, table

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.layout import EntryLocation
    from flax_errors_ext.model.runs.entry_record import EntryRecord

Records = dict[str, tuple[str, "EntryRecord"]]  # CatalogueCollector.by_qualname's


class PlaceholderDirective(SphinxDirective):
    """``flax-errors-index`` or ``flax-errors-figures``: the placeholder :func:`resolve` fills."""

    def run(self) -> list[nodes.Node]:
        """Leave the placeholder."""
        # Directive names are case-insensitive; self.name is as the page wrote it.
        shows_figures = self.name.lower() == "flax-errors-figures"
        return [catalogue_figures() if shows_figures else catalogue_index()]


def rewrite_live_docs(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages whose figures of the whole catalogue are written again."""
    live = CatalogueCollector.live_docs(env)
    records = CatalogueCollector.records(env)
    if build_context(env).read_now(records):
        # Entries were read again, so any page's "See also" may gain or lose a target.
        live = live | set(records)
    return sorted(live & env.found_docs)


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Fill the index, the figures and the "See also" lines of a page being written."""
    records = CatalogueCollector.by_qualname(app.env)
    site = CatalogueCollector.site_data(app.env)
    layout = build_context(app.env).config.layout

    def to(location: EntryLocation, *children: nodes.Node) -> nodes.reference:
        page = location.page
        uri = "" if page == docname else app.builder.get_relative_uri(docname, page)
        return nodes.reference("", "", *children, refuri=f"{uri}#{location.anchor}", internal=True)

    def link(qualname: str, *children: nodes.Node) -> nodes.reference:
        return to(layout.locate(qualname), *children)

    for index in list(doctree.findall(catalogue_index)):
        listed = _index(records, site, link)
        jump = cast("nodes.paragraph", listed[0])
        for part in index_extras(app, to):
            add_jump(jump, part.title, part.anchor)
            listed += part.parts
        index.replace_self(listed)
    for shown in list(doctree.findall(catalogue_figures)):
        shown.replace_self(_figures([r for _, r in records.values()]))
    for placeholder in list(doctree.findall(see_also_placeholder)):
        line = _see_also(placeholder["qualname"], records, site, link, app, docname)
        if line is None:
            placeholder.parent.remove(placeholder)
        else:
            placeholder.replace_self(line)


def _index(records: Records, site: SiteData, link: Any) -> list[nodes.Node]:
    by_area: dict[str, list[EntryRecord]] = defaultdict(list)
    for _, record in records.values():
        by_area[site.area_of(record.qualname)].append(record)
    areas = sorted(by_area, key=site.area_rank)
    jump = nodes.paragraph(classes=["flax-errors-areas"])
    result: list[nodes.Node] = [jump]
    for area in areas:
        anchor = "area-" + nodes.make_id(area)
        add_jump(jump, area, anchor)
        result.append(nodes.rubric(area, area, ids=[anchor], classes=["flax-errors-area"]))
        rows = [
            [
                [link(record.qualname, nodes.literal(record.name, record.name))],
                inline_text(record.summary),
                [status_badge(record.status)],
            ]
            for record in sorted(by_area[area], key=lambda r: r.name)
        ]
        header = ("Error", "What went wrong", "Status")
        result.append(table(["flax-errors-index"], (32, 56, 12), header, rows))
    return result


def add_jump(jump: nodes.paragraph, title: str, anchor: str) -> None:
    """Add a link to ``#anchor`` to a line of links at the top of a page."""
    if jump.children:
        jump += nodes.Text(" · ")
    jump += nodes.reference(title, title, refuri=f"#{anchor}", internal=True)


def _figures(records: list[EntryRecord]) -> nodes.Node:
    shown = figures(records)
    box = nodes.container(classes=["flax-errors-figures"])
    count = nodes.paragraph(classes=["flax-errors-count"])
    count += nodes.strong(str(shown.entries), str(shown.entries))
    count += nodes.Text(" errors catalogued")
    box += count
    badges = [[status_badge(s, f"{n} {BADGES[s].label}")] for s, n in shown.statuses]
    box += nodes.paragraph("", "", *joined(badges, "  "), classes=["flax-errors-statuses"])
    if shown.executed:
        when = f"{build_time():%Y-%m-%d %H:%M UTC}"  # build_time is in UTC
        text = f"Last verified {when} on {shown.device}, with {shown.versions}."
    else:
        text = (
            "The examples were not executed in this build, so nothing here is verified "
            f"yet ({shown.versions or 'versions unknown'})."
        )
    box += nodes.paragraph("", "", nodes.Text(text), classes=["flax-errors-verified"])
    return box


def build_time() -> datetime.datetime:
    """When this build checks the catalogue: now, or ``SOURCE_DATE_EPOCH`` (as Sphinx) if set."""
    if (epoch := os.environ.get("SOURCE_DATE_EPOCH")) and epoch.strip().isdigit():
        return datetime.datetime.fromtimestamp(int(epoch), tz=datetime.UTC)
    return datetime.datetime.now(tz=datetime.UTC)


def _see_also(
    qualname: str, records: Records, site: SiteData, link: Any, app: Sphinx, docname: str
) -> nodes.Node | None:
    others = [other for other in site.related(qualname) if other in records]
    note = site.note(qualname)
    if note is not None and note[0] not in app.env.found_docs:
        note = None
    if not others and note is None:
        return None
    line = labelled("See also:", "flax-errors-see-also")
    names = [(other, other.rpartition(".")[2]) for other in others]
    line += joined(([link(o, nodes.literal(n, n))] for o, n in names), ", ")
    if note is not None:
        line += nodes.Text("; design note: " if others else "design note: ")
        target, text = note
        uri = app.builder.get_relative_uri(docname, target)
        line += nodes.reference(text, text, refuri=uri, internal=True)
    return line


class OptionsDirective(SphinxDirective):
    """A table of every ``flax_errors_*`` setting, generated from the config dataclass."""

    def run(self) -> list[nodes.Node]:
        """The table, one row per setting."""
        rows: list[list[list[nodes.Node]]] = [
            [
                [nodes.literal(name, name)],
                [nodes.literal(repr(default), repr(default))],
                [nodes.Text(help_text)],
            ]
            for name, default, help_text in CatalogueConfig.options()
        ]
        return [
            table(["flax-errors-options"], (30, 15, 55), ("Setting", "Default", "Meaning"), rows)
        ]


class WarningsDirective(SphinxDirective):
    """A table of every warning subtype, named as ``suppress_warnings`` takes it."""

    def run(self) -> list[nodes.Node]:
        """The table, one row per subtype in the enum's order."""
        rows: list[list[list[nodes.Node]]] = []
        for subtype in WarningSubtype:
            name = f"{WARNING_TYPE}.{subtype.value}"
            rows.append([[nodes.literal(name, name)], inline_text(subtype.description)])
        return [table(["flax-errors-warnings"], (30, 70), ("Warning", "Meaning"), rows)]


_OPTION = re.compile(r"(?<![\w-])(--?[a-z][\w-]*)")
USAGE_WIDTH = 88
"""Columns of the usage lines; fixed, so that the page does not depend on the terminal."""


class CliDirective(SphinxDirective):
    """Render the command line reference from :func:`~flax_errors_ext.cli.build_parser`."""

    def run(self) -> list[nodes.Node]:
        """The program's overview, exit statuses and a section per command."""
        parser = build_parser()
        found = [*_paragraphs(parser.description), _usage(parser), _exit_statuses()]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                found += [self._command(name, command) for name, command in action.choices.items()]
        return found

    def _command(self, name: str, command: argparse.ArgumentParser) -> nodes.section:
        title = f"{PROG} {name}"
        section = nodes.section(ids=[f"cli-{name}"], names=[nodes.fully_normalize_name(title)])
        section += nodes.title(title, "", nodes.literal(title, title))
        section += _usage(command)
        section += _paragraphs(command.description)
        formatter = command._get_formatter()
        for group in command._action_groups:
            actions = [a for a in group._group_actions if a.help != argparse.SUPPRESS]
            if not actions:
                continue
            heading = (group.title or "arguments").capitalize()
            section += nodes.rubric(heading, heading)
            listing = nodes.definition_list()
            for action in actions:
                term = nodes.term("", "", nodes.literal(_invocation(action), _invocation(action)))
                help_text = formatter._expand_help(action) if action.help else ""
                listing += nodes.definition_list_item(
                    "", term, nodes.definition("", _paragraph(help_text))
                )
            section += listing
        self.state.document.note_implicit_target(section, section)
        return section


def _invocation(action: argparse.Action) -> str:
    metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    if not action.option_strings:
        return metavar
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    return ", ".join(f"{option} {metavar}" for option in action.option_strings)


def _usage(parser: argparse.ArgumentParser) -> nodes.literal_block:
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    text = formatter.format_help().strip()
    block = nodes.literal_block(text, text)
    block["language"] = "text"
    return block


def _paragraphs(text: str | None) -> list[nodes.Node]:
    paragraphs = [" ".join(p.split()) for p in (text or "").split("\n\n") if p.strip()]
    return [_paragraph(p) for p in paragraphs]


def _paragraph(text: str) -> nodes.paragraph:
    """A paragraph whose ``--options`` are literals (smart quotes would dash them)."""
    paragraph = nodes.paragraph(text)
    for n, part in enumerate(_OPTION.split(text)):
        paragraph += nodes.literal(part, part) if n % 2 else nodes.Text(part)
    return paragraph


def _exit_statuses() -> nodes.Node:
    listing = nodes.definition_list()
    for code, meaning in EXIT_CODES.items():
        term = nodes.term("", "", nodes.literal(str(code.value), str(code.value)))
        sentence = meaning[0].upper() + meaning[1:] + "."
        listing += nodes.definition_list_item("", term, nodes.definition("", _paragraph(sentence)))
    title = nodes.rubric("Exit status", "Exit status")
    return nodes.container("", title, listing, classes=["flax-errors-exit-statuses"])
