"""Runs on other devices beside each entry: read once, shown as nodes, added to errors.json."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from docutils import nodes

from flax_errors_ext.ext.other_runs.model.comparison import (
    NOT_COMPARED,
    Agreement,
    DeviceRunError,
    compare,
    merge_document,
    parse_run,
    verified_text,
)
from flax_errors_ext.ext.other_runs.model.groups import PrintedLinks, differing
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.catalogue.examples import dropdown
from flax_errors_ext.sphinx.compat import conf_location
from flax_errors_ext.sphinx.context import build_context
from flax_errors_ext.sphinx.extras import EntryExtras

if TYPE_CHECKING:
    from sphinx.application import Sphinx

    from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
    from flax_errors_ext.ext.other_runs.model.comparison import DeviceRun
    from flax_errors_ext.ext.other_runs.model.groups import DifferingRuns
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.sphinx.context import BuildContext

EXTENSION = "flax_errors_ext.ext.other_runs"
"""Where the build context keeps the runs read (``context.extras``)."""


def read_runs(app: Sphinx, context: BuildContext) -> None:
    """Read the runs ``flax_errors_device_runs`` names (early: the pages they link to forward)."""
    runs: list[DeviceRun] = []
    for name in context.config.device_runs:
        try:
            text = Path(app.confdir, name).resolve().read_text(encoding="utf-8")
            runs.append(parse_run(text, name))
            continue
        except OSError as error:
            problem = f"device run {name} not read: {error}"
        except DeviceRunError as error:
            problem = f"device run not read: {error}"
        where = conf_location(app, "flax_errors_device_runs")
        context.defer(problem, WarningSubtype.DEVICE_RUNS, where)
    context.extras[EXTENSION] = tuple(runs)
    context.other_runs.extend(record for run in runs for record in run.records)


def runs_read(context: BuildContext) -> tuple[DeviceRun, ...]:
    """The runs this build read."""
    return cast("tuple[DeviceRun, ...]", context.extras.get(EXTENSION, ()))


def entry_extras(app: Sphinx, record: EntryRecord, module_run: ModuleRun) -> EntryExtras:
    """The entry's verification text and the other runs' notes (pages depend on their files)."""
    context = build_context(app.env)
    runs = runs_read(context)
    for run in runs:
        app.env.note_dependency(str(Path(app.confdir, run.source).resolve()))
    outcomes = compare(record, runs, record.version_map, context.published_roots)
    module = record.qualname.rpartition(".")[0]
    upstream = context.config.spec(module).upstream
    links = PrintedLinks(context.config.layout, module, upstream) if upstream else None
    here = record.device.label if record.device is not None else "this machine"
    groups = {group.outcomes[0]: group for group in differing(outcomes, links)}
    shown: list[nodes.Node] = []
    for outcome in outcomes:
        if outcome in groups:
            shown.extend(_differences(groups[outcome], here))
        elif outcome.agreement is Agreement.NOT_COMPARED and record.status not in NOT_COMPARED:
            # Where nothing ran here, the status line says so once, not once per run.
            shown.append(_note(outcome.note()))
    return EntryExtras(verified_text(record, outcomes) or None, tuple(shown))


def add_to_document(app: Sphinx, document: dict[str, Any]) -> None:
    """Add each entry's outcome per run, and the runs themselves, to ``errors.json``."""
    document.update(merge_document(document, runs_read(build_context(app.env))))


def _note(text: str) -> nodes.Node:
    return nodes.paragraph(text, text, classes=["flax-errors-device-note"])


def _differences(group: DifferingRuns, here: str) -> list[nodes.Node]:
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
