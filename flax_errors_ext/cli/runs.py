"""``flax-errors check`` and ``flax-errors update``: run the examples, then judge or fix."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import hashlib
import io
import json
import os
import sys
import tempfile
import tokenize
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli import ExitCode
from flax_errors_ext.cli.selection import load, select
from flax_errors_ext.execution.runs.run import check_modules, default_jobs
from flax_errors_ext.execution.session import ExecutionOptions, Session
from flax_errors_ext.model.runs import update as rewrite
from flax_errors_ext.model.runs.entry_record import (
    Failure,
    coverage_line,
    entry_status,
    errors_document,
    failures,
    summary_line,
)
from flax_errors_ext.model.runs.fingerprint import ProbeError
from flax_errors_ext.model.runs.judge import accepts, unified_diff
from flax_errors_ext.model.runs.update import ellipsized, statement_texts, volatile_parts
from flax_errors_ext.model.warning_subtypes import WarningSubtype

if TYPE_CHECKING:
    from flax_errors_ext.cli.selection import Selection
    from flax_errors_ext.model.catalogue.records import Location
    from flax_errors_ext.model.runs.fingerprint import Fingerprint
    from flax_errors_ext.model.runs.jobs import EntryOutcome

    Outcomes = list[EntryOutcome]


def run_entries(chosen: Selection, args: argparse.Namespace) -> tuple[Outcomes, Fingerprint]:
    """Every entry's outcome, run or from the cache (each reported on stderr), and their key."""
    cache_dir = Path(args.cache_dir).resolve()
    mode = "force" if args.no_cache else "cache"
    execution = ExecutionOptions(mode=mode, cache_path=str(cache_dir))
    if chosen.project.notebook_timeout is not None:
        execution = dataclasses.replace(execution, timeout=chosen.project.notebook_timeout)
    config = chosen.project.config
    entries = chosen.entries
    width = len(str(len(entries)))

    def report(count: int, outcome: EntryOutcome) -> None:
        status = entry_status(outcome.entry, outcome.results)
        if not outcome.entry.examples:
            how = "no examples"
        elif outcome.execution.executed:
            how = f"ran in {outcome.execution.seconds:.1f} s"
        else:
            how = "from the cache"
        line = f"{status:<12} {outcome.entry.qualname} ({how})"
        print(f"[{count:>{width}}/{len(entries)}] {line}", file=sys.stderr)

    with Session(cache_dir, config, execution) as session:
        settings = session.settings()
        if isinstance(settings.fingerprint.device, ProbeError):
            print(f"warning: {settings.fingerprint.device}", file=sys.stderr)
        jobs = config.jobs or default_jobs()
        ran = check_modules(chosen.modules, settings, settings.sources(), jobs=jobs, done=report)
    done = {outcome.entry.qualname: outcome for outcomes in ran for outcome in outcomes}
    return [done[entry.qualname] for entry in entries], settings.fingerprint


def check_command(args: argparse.Namespace) -> int:
    """Run the chosen entries, print every failure with its diff; 1 if any failed."""
    chosen = select(load(args), args.names)
    outcomes, fingerprint = run_entries(chosen, args)
    config = chosen.project.config
    records = [o.record(fingerprint) for o in outcomes]
    executed = [o.entry.qualname for o in outcomes if o.execution.executed]
    document = errors_document(records, executed=executed)
    found = [
        Failure(str(problem.location), WarningSubtype.CATALOGUE, problem.message)
        for module in chosen.modules
        for problem in module.problems
    ]
    for record in sorted(records, key=lambda r: r.qualname):
        found += failures(record, strict=config.strict, upstream=config.upstream)
    if args.twice:
        found += _varying(chosen, outcomes, args)
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        for failure in found:
            print(str(failure).rstrip("\n") + "\n")
        ran = len(document["executed"])
        total = document["summary"]["entries"]
        print(
            f"flax-errors: {summary_line(document)}; "
            f"{ran} ran now, {total - ran} from the cache or without examples\n"
            f"flax-errors coverage: {coverage_line(document['coverage'])}"
        )
    return ExitCode.FAILED if any(f.fails for f in found) else ExitCode.OK


def _varying(chosen: Selection, outcomes: Outcomes, args: argparse.Namespace) -> list[Failure]:
    """Run every bad example again; report each statement whose text varies (without ...)."""
    bad = {o.entry.qualname for o in outcomes if any(r.example.kind.raises for r in o.results)}
    first, second = _two_runs(chosen, outcomes, bad, args)
    statements = {s.location: s for e in chosen.entries for x in e.examples for s in x.statements}
    found = []
    for location, text in sorted(second.items(), key=lambda item: str(item[0])):
        before = first.get(location, text)
        if before == text or all(accepts(statements[location], t) for t in (before, text)):
            continue
        diff = unified_diff(before, text, str(location), names=("first run", "second run"))
        proposal = ellipsized(before, text)
        message = f"its text varies from run to run; document it as\n{proposal}\n{diff}"
        found.append(Failure(str(location), WarningSubtype.VARIES, message))
    return found


def _two_runs(
    chosen: Selection, outcomes: Outcomes, qualnames: set[str], args: argparse.Namespace
) -> tuple[dict[Location, str], dict[Location, str]]:
    """Each statement's text in ``outcomes``, and in a second, fresh run of the named entries."""
    first = statement_texts(r for o in outcomes for r in o.results)
    if not qualnames:
        return first, {}
    print("flax-errors: running them again, to see what varies", file=sys.stderr)
    again, _ = run_entries(
        chosen.only(qualnames), argparse.Namespace(**{**vars(args), "no_cache": True})
    )
    return first, statement_texts(r for o in again for r in o.results)


def update_command(args: argparse.Namespace) -> int:
    """Rewrite drifted documented text from the runs, bottom-up and atomically."""
    chosen = select(load(args), args.names)
    # Read before the examples run: a file edited meanwhile must not be overwritten.
    paths = {s.location.path for e in chosen.entries for x in e.examples for s in x.statements}
    sources = {path: SourceFile.read(path) for path in sorted(paths)}
    outcomes, _ = run_entries(chosen, args)
    edits, skips = rewrite.plan(r for o in outcomes for r in o.results)
    edits, varying = _steady(edits, outcomes, chosen, args)
    skipped = [str(s) for s in skips] + [
        f"{problem}: malformed; fix the format by hand"
        for outcome in outcomes
        for problem in outcome.entry.problems
    ]
    new_texts, made, partly = _new_texts(edits, sources)
    written: set[str] = set()
    refused: list[str] = []
    for path, new_text in ({} if args.dry_run else new_texts).items():
        try:
            write(sources[path], new_text)
        except rewrite.UpdateError as error:  # an edit meanwhile, or the encoding
            refused.append(str(error))
        else:
            written.add(path)
    partly += [str(skip) for skip in varying]
    notes = [f"cannot update {s}" for s in skipped] + [f"cannot write {s}" for s in partly]
    for line in notes + [f"refused: {s}" for s in refused]:
        print(line, file=sys.stderr)
    files = set(new_texts) if args.dry_run else written
    statements = sum(made[path] for path in files)
    verb = "would update" if args.dry_run else "updated"
    print(f"flax-errors: {verb} {statements} statement(s) in {len(files)} file(s)")
    if refused:
        return ExitCode.REFUSED
    if partly:
        return ExitCode.PARTLY_UPDATED
    if skipped or (args.dry_run and new_texts):
        return ExitCode.FAILED
    return ExitCode.OK


def _new_texts(
    edits: list[rewrite.Edit], sources: dict[str, SourceFile]
) -> tuple[dict[str, str], dict[str, int], list[str]]:
    """Each edited file's new text (its diff printed), statements rewritten, and unwritable."""
    partly: list[str] = []
    made: dict[str, int] = {}
    new_texts: dict[str, str] = {}
    for path in sorted({edit.location.path for edit in edits}):
        source = sources.get(path) or SourceFile.read(path)
        sources[path] = source
        mine = [edit for edit in edits if edit.location.path == path]
        new_text, unwritable = rewrite.apply_each(source.text, mine, python=path.endswith(".py"))
        partly += [str(skip) for skip in unwritable]
        if new_text != source.text:
            made[path] = len(mine) - len(unwritable)
            new_texts[path] = new_text
            print(source.diff(new_text, _label(path)), end="")
    return new_texts, made, partly


def _steady(
    edits: list[rewrite.Edit], outcomes: Outcomes, chosen: Selection, args: argparse.Namespace
) -> tuple[list[rewrite.Edit], list[rewrite.Skip]]:
    """The edits whose new text a second run prints again; a Skip for each other one."""
    edited = {edit.location for edit in edits}
    entries = {
        o.entry.qualname
        for o in outcomes
        if any(s.location in edited for x in o.entry.examples for s in x.statements)
    }
    first, second = _two_runs(chosen, outcomes, entries, args)
    folders = [tempfile.gettempdir(), os.path.expanduser("~")]
    steady, varying = [], []
    for edit in edits:
        if second.get(edit.location) != first.get(edit.location):
            proposal = ellipsized(first.get(edit.location, ""), second.get(edit.location, ""))
            reason = f"its text varies from run to run; document it by hand as\n{proposal}"
            varying.append(rewrite.Skip(edit.location, reason))
            continue
        steady.append(edit)
        for part in volatile_parts("\n".join(edit.new), folders):
            print(
                f"warning: {edit.location}: the new text holds {part!r}, which another "
                "machine or run is unlikely to print; consider ... there",
                file=sys.stderr,
            )
    return steady, varying


def _label(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path if os.path.isabs(path) else str(Path(path).resolve())


class ConcurrentEditError(rewrite.UpdateError):
    """The file changed after it was read, so writing would lose that change."""


@dataclasses.dataclass(frozen=True)
class SourceFile:
    """A file's content as read before the examples ran, to write back against."""

    path: Path
    text: str
    digest: str
    encoding: str = "utf-8"

    @classmethod
    def read(cls, path: str | Path) -> SourceFile:
        """Read ``path``, line endings as they are; Python source as Python decodes it."""
        data = Path(path).read_bytes()
        encoding = "utf-8"
        if str(path).endswith(".py"):
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as error:
            raise rewrite.UpdateError(f"{path}: cannot decode it as {encoding}: {error}") from None
        return cls(Path(path), text, hashlib.sha256(data).hexdigest(), encoding)

    def diff(self, new_text: str, name: str) -> str:
        """A unified diff from the content read to ``new_text``, of the file called ``name``."""
        lines = difflib.unified_diff(
            io.StringIO(self.text, newline="").readlines(),
            io.StringIO(new_text, newline="").readlines(),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def write(source: SourceFile, new_text: str) -> None:
    """Replace the file with ``new_text``, atomically, unless it changed since it was read."""
    try:
        data = new_text.encode(source.encoding)
    except UnicodeEncodeError as error:
        raise rewrite.UpdateError(
            f"{source.path}: the new text cannot be written as {source.encoding}: {error}"
        ) from None
    try:
        changed = hashlib.sha256(source.path.read_bytes()).hexdigest() != source.digest
    except FileNotFoundError:
        changed = True
    if changed:
        raise ConcurrentEditError(
            f"{source.path} changed while the examples ran; nothing was written to it. "
            "Run update again."
        )
    mode = source.path.stat().st_mode
    handle, temporary = tempfile.mkstemp(dir=source.path.parent, prefix=f".{source.path.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, source.path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
