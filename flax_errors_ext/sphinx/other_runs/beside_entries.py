"""Runs on other devices beside each entry (``flax_errors_device_runs``).

The documents are read once, on ``config-inited`` (:func:`load_runs`), into the
build context; what each run did with an entry is worked out by
:mod:`flax_errors_ext.model.other_runs.comparison`. Here it becomes nodes: the devices
that saw the same join the verification line ("Verified on CPU and on GPU
(NVIDIA H200)"), runs that differ alike are said once: a sentence for what differs
only in a link's page or a line number, a closed dropdown with both texts for the
rest; a run that has nothing to compare is a short note. Every catalogue page depends
on the files, so that editing one reads the pages again.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from docutils import nodes

from flax_errors_ext.model.other_runs.comparison import (
    NOT_COMPARED,
    Agreement,
    compare_all,
    verified_text,
)
from flax_errors_ext.model.other_runs.documents import DeviceRunError, parse_run
from flax_errors_ext.model.other_runs.groups import differing
from flax_errors_ext.model.other_runs.incidental import PrintedLinks
from flax_errors_ext.sphinx.catalogue.examples import dropdown
from flax_errors_ext.sphinx.context import ReadRun, build_context

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.model.other_runs.comparison import DeviceOutcome
    from flax_errors_ext.model.other_runs.groups import DifferingRuns
    from flax_errors_ext.model.runs.entry_record import EntryRecord


def load_runs(confdir: Path, names: Sequence[str]) -> tuple[list[ReadRun], list[str]]:
    """The runs the files ``names`` (relative to ``confdir``) hold, and why others are not.

    Read on config-inited, for the pages they forward too; what is not read is a
    ``device-runs`` warning once Sphinx can log one.
    """
    found = []
    problems = []
    for name in names:
        path = (confdir / name).resolve()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            problems.append(f"device run {name} not read: {error}")
            continue
        try:
            run = parse_run(text, name)
        except DeviceRunError as error:
            problems.append(f"device run not read: {error}")
            continue
        found.append(ReadRun(str(path), run))
    return found, problems


@dataclasses.dataclass(frozen=True)
class Merged:
    """What an entry's section shows of the other runs."""

    text: str
    """The verification line's text, naming every device that saw the same."""
    nodes: list[nodes.Node]
    """A dropdown per run that differs, a note per run with nothing to compare."""


def merged(env: BuildEnvironment, record: EntryRecord, roots: Sequence[str]) -> Merged:
    """The entry's verification text and what the other runs add below it.

    Notes each run's file as a dependency of the page being read.
    """
    context = build_context(env)
    for item in context.device_runs:
        env.note_dependency(item.path)
    runs = [item.run for item in context.device_runs]
    outcomes = compare_all(record, runs, record.version_map, roots)
    module = record.qualname.rpartition(".")[0]
    upstream = context.config.spec(module).upstream
    links = PrintedLinks(context.config.layout, module, upstream) if upstream else None
    here = record.device.label if record.device is not None else "this machine"
    return Merged(verified_text(record, outcomes), shown_nodes(record, outcomes, links, here))


def shown_nodes(
    record: EntryRecord,
    outcomes: Sequence[DeviceOutcome],
    links: PrintedLinks | None,
    here: str,
) -> list[nodes.Node]:
    """What the ``outcomes`` add below the verification line, in the runs' order.

    Runs that differ alike are said once; a difference only in a link's page or a
    line number is a sentence, the others a closed dropdown with both texts.
    """
    groups = {group.outcomes[0]: group for group in differing(outcomes, links)}
    shown: list[nodes.Node] = []
    for outcome in outcomes:
        group = groups.get(outcome)
        if group is not None:
            shown.extend(_differences(group, here))
        elif outcome.agreement is Agreement.NOT_COMPARED and record.status not in NOT_COMPARED:
            # Where nothing ran here, the status line says so once, not once per run.
            shown.append(_note(outcome.title() + "."))
    return shown


def _note(text: str) -> nodes.Node:
    return nodes.paragraph(text, text, classes=["flax-errors-device-note"])


def _differences(group: DifferingRuns, here: str) -> list[nodes.Node]:
    """The group's incidental differences as a sentence, then a closed dropdown of the others.

    The dropdown holds each difference with its text in this build and there.
    """
    found: list[nodes.Node] = []
    if group.incidental:
        found.append(_note(group.sentence()))
    if not group.shown:
        return found
    children: list[nodes.Node] = []
    there = group.there
    for difference in group.shown:
        line = str(difference)
        children.append(nodes.paragraph("", line[:1].upper() + line[1:] + "."))
        for label, text in (
            (f"This build, on {here}:", difference.text_here),
            (f"{there[:1].upper()}{there[1:]}:", difference.text_there),
        ):
            shown = text.rstrip("\n") or "(nothing raised or printed)"
            children.append(nodes.paragraph(label, label))
            children.append(nodes.literal_block(shown, shown))
    found.append(
        dropdown(group.title(), children, classes=["flax-errors-device-differs"], margin="sd-mb-2")
    )
    return found
