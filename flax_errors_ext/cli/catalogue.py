"""``flax-errors list``, ``explain`` and ``index``: the catalogue read, nothing run."""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli import PROG, ExitCode, UsageError
from flax_errors_ext.cli.selection import load, snapshot, unknown
from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.execution.runs.in_process import package_versions
from flax_errors_ext.layout import base_url
from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict, first_paragraph
from flax_errors_ext.model.history.releases import retired
from flax_errors_ext.model.lookup import find as lookup
from flax_errors_ext.model.lookup import paste
from flax_errors_ext.model.lookup.api_index import ENV_VAR, ApiIndex, shipped
from flax_errors_ext.model.lookup.find import by_entry, recorded_wordings, wording_of
from flax_errors_ext.model.lookup.help_index import help_index
from flax_errors_ext.model.lookup.skew import answer_paste
from flax_errors_ext.model.lookup.texts import raise_sites
from flax_errors_ext.model.runs.entry_record import (
    SCHEMA_VERSION,
    EntryRecord,
    entry_record,
    errors_document,
    summary_line,
)
from flax_errors_ext.model.runs.judge import judge
from flax_errors_ext.model.site.texts import caption, fix_text, plain_text

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from flax_errors_ext.cli.selection import Selection
    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example
    from flax_errors_ext.model.history.releases import History
    from flax_errors_ext.model.lookup.skew_answer import SkewAnswer


def parsed_record(entry: ErrorEntry) -> EntryRecord:
    """The entry's record when nothing ran: what a build with execution off records."""
    results = [
        judge(example, None, Verdict.NOT_RUN, "not run: the catalogue was only read")
        for example in entry.examples
    ]
    return entry_record(entry, results, executed=False, device=None, versions={})


def list_command(args: argparse.Namespace) -> int:
    """Print every entry with its status and URL, or the errors.json document."""
    selection = load(args)
    entries = selection.entries
    base = base_url(selection.project.config.base_url)
    previous = _previous(args.from_path) if args.from_path else {}
    records = [previous.get(e.qualname) or parsed_record(e) for e in entries]
    executed = [r.qualname for r in records if r.qualname in previous and r.executed]
    document = errors_document(records, executed=executed)
    if args.json:
        print(json.dumps(document, indent=2))
        return ExitCode.OK
    status = max((len(r.status.value) for r in records), default=0)
    name = max((len(r.qualname) for r in records), default=0)
    for e, r in zip(entries, records, strict=True):
        print(f"{r.status.value:<{status}}  {r.qualname:<{name}}  {e.site.url(base)}")
    source = f" (statuses from {args.from_path})" if args.from_path else ""
    print(f"{summary_line(document)}{source}")
    return ExitCode.OK


def _previous(path: Path) -> dict[str, EntryRecord]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA_VERSION:
        raise UsageError(f"{path} is not an errors.json of schema {SCHEMA_VERSION}")
    try:
        records = [EntryRecord.from_json(data) for data in document.get("entries", [])]
    except ValueError as error:
        raise UsageError(f"{path}: {error}") from None
    return {record.qualname: record for record in records}


def explain_command(args: argparse.Namespace) -> int:
    """Print the entry a name, URL or pasted message means."""
    query = " ".join(args.query)
    if query.strip() == "-":
        query = sys.stdin.read()
    selection = load(args, snapshot)
    entries = selection.entries
    base = base_url(selection.project.config.base_url)
    recorded = _histories(selection)
    wordings = recorded_wordings(recorded)
    skew = _skew(query)
    if skew is not None and skew.definite:
        print("\n".join(skew.lines()))
        return ExitCode.OK
    matches = lookup.find(entries, query, by_entry(wordings), _raise_sites(selection))
    if not matches:
        said = _retired_answer(recorded, query, selection, base)
        if said is None and skew is not None:
            said = "\n".join(skew.lines())
        if said is not None:
            print(said)
            return ExitCode.OK
        print(f"{PROG}: {_refusal(entries, query, by_entry(wordings))}", file=sys.stderr)
        return ExitCode.NO_MATCH
    best = matches[0]
    older = wording_of(wordings, best.entry.qualname, query)
    older = None if older is None or older.current else older
    if not best.certain:
        how = "matches" if best.how == "message" else "resembles"
        text = f"flax {older.versions}'s wording" if older else "the documented text"
        print(f"The message {how} {text} of {best.entry.qualname}.", file=sys.stderr)
    print(_render_entry(best.entry, base))
    if best.example is not None and best.example.kind.raises:
        fix = _cause_fixes(best.entry).get(best.entry.examples.index(best.example))
        said = " ".join(_plain(first_paragraph(best.example.description)[0]).split())
        if fix:
            print(f"\nYour message matches this cause: {said}\nIts fix: {fix}")
    if older is not None:
        print(
            f"\nYour message is worded as flax {older.versions} worded it "
            f"(today's text is in the bad example above):\n  {older.text}"
        )
    if best.example is not None and best.example.kind is ExampleKind.SEEN_AS:
        seen = _plain(first_paragraph(best.example.description)[0])
        print(
            f"\nYour message is the error this mistake raises where "
            f'{best.entry.name} is not in place (see "{best.example.kind.section_title}" '
            f"above):\n  {' '.join(seen.split())}"
        )
    others = [m.entry.qualname for m in matches[1:] if m.how == best.how][:3]
    if others and (best.certain or best.how == "message"):
        print(
            f"Also {'named' if best.certain else 'matching'}: {', '.join(others)}", file=sys.stderr
        )
    return ExitCode.OK


def _skew(query: str) -> SkewAnswer | None:
    extra = [Path(p) for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
    try:
        indexes = [ApiIndex.read(path) for path in (*extra, *shipped())]
    except (OSError, ValueError) as error:
        raise UsageError(f"API index: {error}") from None
    found = package_versions(i.distribution for i in indexes)
    versions = {name: v for name, v in found.items() if v != "not installed"}
    return answer_paste(query, indexes, versions)


def index_command(args: argparse.Namespace) -> int:
    """Write the help index, reading the catalogue as ``explain`` does: both answer alike."""
    selection = load(args, snapshot)
    base = base_url(selection.project.config.base_url)
    wordings = recorded_wordings(_histories(selection))
    fixes = [(e, e.site.url(base), plain_text(fix_text(e.examples))) for e in selection.entries]
    index = help_index(fixes, by_entry(wordings), _cause_fixes, _raise_sites(selection))
    text = json.dumps(index.to_json(), indent=1, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        # Whole or not at all: a help that reads a half-written index says nothing.
        partial = args.output.with_name(f".{args.output.name}.partial")
        partial.write_text(text, encoding="utf-8")
        partial.replace(args.output)
    return ExitCode.OK


def _cause_fixes(entry: ErrorEntry) -> dict[int, str]:
    """An entry's fix per cause, where it has several: by the index of each example that raises.

    A bad example's fix is the first good example's caption after it and before the next
    cause (bad examples in a row share it); a wording seen elsewhere takes its cause's.
    """
    examples = entry.examples
    if sum(example.kind is ExampleKind.BAD for example in examples) < 2:
        return {}
    fixes: dict[int, str] = {}
    fix = ""
    for n, example in enumerate(examples):
        if example.kind is ExampleKind.BAD:
            after = itertools.dropwhile(lambda e: e.kind is ExampleKind.BAD, examples[n + 1 :])
            cause = itertools.takewhile(lambda e: e.kind is not ExampleKind.BAD, after)
            captioned = [e for e in cause if e.description.strip()]
            fix = plain_text(caption(captioned, ExampleKind.GOOD))
        if example.kind.raises and fix:
            fixes[n] = fix
    return fixes


def _refusal(entries: list[ErrorEntry], query: str, older: Mapping[str, Sequence[str]]) -> str:
    """For a name, the closest names; for a pasted error, the line read and the nearest entries."""
    if paste.looks_like_name(query):
        return unknown(entries, query)
    said = paste.exception_line(query) or "(the paste has no exception line)"
    lines = [f"not in the catalogue: {said}"]
    nearest = lookup.nearest(entries, query, older)
    # Python's words for any object, shown without the library's frame that would decide.
    if same := ", ".join(m.entry.qualname for m in nearest if m.how == "message"):
        lines.append(f"  Worded as {same}, but a match needs a frame of its library.")
    if near := ", ".join(m.entry.qualname for m in nearest if m.how == "similar"):
        lines.append(f"  Nearest entries (not a match: their documented messages differ): {near}")
    return "\n".join(lines)


def _retired_answer(
    histories: list[History], query: str, selection: Selection, base: str
) -> str | None:
    layout = selection.project.config.layout
    for history in histories:
        for gone in retired(history):
            qualname = f"{history.module}.{gone.name}"
            if not re.search(rf"(?<![\w]){re.escape(gone.name)}(?!\w)", query):
                continue
            had = gone.first if gone.first == gone.last else f"{gone.first} to {gone.last}"
            lines = [
                f"{qualname} is retired: {history.module} had it in {had}, "
                f"and no longer has it since {gone.gone_since}."
            ]
            if gone.texts:
                release, text = gone.texts[-1]
                lines.append(f"Last raised by a catalogue example in {release}:\n  {text}")
            lines.append(f"Read online: {layout.printed(qualname).url(base)}")
            return "\n".join(lines)
    return None


def _histories(selection: Selection) -> list[History]:
    project = selection.project
    names = {module.name for module in selection.modules}
    found, problems = read_histories(project.folder, project.config.history, names)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    return list(found.values())


def _raise_sites(selection: Selection) -> dict[str, dict[int, tuple[str, ...]]]:
    """Where the recorded runs (``flax_errors_device_runs``) raised each error; bad ones warn."""
    records: list[EntryRecord] = []
    for name in selection.project.config.device_runs:
        try:
            records += _previous(selection.project.folder / name).values()
        except UsageError as error:
            print(f"warning: {error}", file=sys.stderr)
    return raise_sites(selection.entries, records)


def _render_entry(entry: ErrorEntry, base: str) -> str:
    parts = [_heading(f"{entry.name} ({entry.qualname})", "=")]
    if entry.summary:
        parts.append(_plain(entry.summary))
    explanation = _plain("\n\n".join(passage.text for passage in entry.details))
    if explanation.strip():
        parts.append(explanation.strip())
    parts += [f"This entry is malformed: {problem}" for problem in entry.problems]
    if not entry.examples:
        parts.append("This error has no examples yet.")
    parts += [_example(example) for example in entry.examples]
    # Where to edit: the example file for Flax's errors, else the docstring.
    own = [e.location.path for e in entry.examples if e.location.path != entry.location.path]
    where = f"{own[0]}:1" if own else str(entry.location)
    parts.append(f"Read online: {entry.site.url(base)}\nDocumented at: {where}")
    return "\n\n".join(parts)


def _heading(text: str, underline: str) -> str:
    return f"{text}\n{underline * len(text)}"


def _example(example: Example) -> str:
    lines = [_heading(example.kind.section_title, "-")]
    if example.description:
        lines += [_plain(example.description), ""]
    for statement in example.statements:
        source = statement.source.rstrip("\n").split("\n")
        doctest = [f">>> {source[0]}"] + [f"... {line}".rstrip() for line in source[1:]]
        if statement.want:
            doctest += statement.want.rstrip("\n").split("\n")
        lines += ["    " + line if line else "" for line in doctest]
    return "\n".join(lines)


def _plain(rest: str) -> str:
    return plain_text(rest, code_mark="`")
