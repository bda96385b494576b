"""The reference pages generated from the code itself, so that they cannot drift from it.

``flax-errors-options`` and ``flax-errors-warnings``: tables of the settings and of
the warnings' subtypes. ``flax-errors-cli``: the program's description and exit
statuses, then a section per command with its usage, description and arguments,
from its own parser (``--help`` itself).
"""

from __future__ import annotations

import argparse
import re

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from flax_errors_ext.cli.parser import EXIT_CODES, PROG, build_parser
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.loggers import WARNING_TYPE
from flax_errors_ext.sphinx.table import inline_text, table


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
        found: list[nodes.Node] = [*_paragraphs(parser.description), _usage(parser)]
        found.append(_exit_statuses())
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
    """``-j N, --jobs N`` for an option, the metavar for a positional."""
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
    container = nodes.container(classes=["flax-errors-exit-statuses"])
    container += nodes.rubric("Exit status", "Exit status")
    container += listing
    return container
