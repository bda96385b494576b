"""Record the catalogue's bad examples on past Flax releases into flax.json (``nox -s history``).

The driver around :mod:`~tools.history.plan`: it reads the
catalogue, releases.toml, rewrites.toml and the recorded history, makes (or
reuses) one venv per release with uv, runs
``tools/history/release_runner.py`` there, and merges each
release's run into the file, written atomically after every release, so that a
failed or interrupted run (Ctrl-C) keeps the entries it finished. Given a
:class:`SliceOut`, it writes the chosen releases' records into a slice file
instead (:mod:`~tools.history.slices`), for
:mod:`~tools.history.merging` to merge.

It uses the standard library and the model alone: it runs on any Python 3.11,
from the repository's root, with nothing of this project installed.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.ext.history.model.cells import entry_codes
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.history.releases import History, ReleaseRun
from tools.history.plan import (
    PINNED,
    HistoryPlan,
    history_text,
    merged,
    plan_history,
    read_releases,
)
from tools.history.rewrites import parse_rules
from tools.history.slices import catalogue_digest, slice_of

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry
    from tools.history.plan import PlannedRelease

PACKAGE = Path(__file__).resolve().parents[2] / "flax_errors_ext"
RUNNER = Path(__file__).with_name("release_runner.py")
INTERRUPT_SECONDS = 10.0
"""How long a runner has, after Ctrl-C, to write the entries it finished."""


@dataclasses.dataclass(frozen=True)
class HistoryFiles:
    """Where the history's inputs and output are, and where its venvs are kept."""

    work: Path
    """The releases' venvs (``releases/``) and their partial runs (``runs/``)."""
    folder: Path = PACKAGE / "history"
    """releases.toml, rewrites.toml and flax.json."""
    catalogue: Path = PACKAGE / "catalogue" / "flax.errors"

    @property
    def out(self) -> Path:
        """The history file written."""
        return self.folder / "flax.json"


@dataclasses.dataclass(frozen=True)
class SliceOut:
    """A slice file to write instead of flax.json, and which part of the releases it is."""

    path: Path
    part: str
    """``K/N``, or the Flax versions named."""


def read_entries(catalogue: Path) -> list[ErrorEntry]:
    """The entries of a catalogue folder named after its module, one per ``<Class>.txt``."""
    return [
        parse_docstring(path.read_text("utf-8"), f"{catalogue.name}.{path.stem}", str(path), 1)
        for path in sorted(catalogue.glob("*.txt"))
    ]


def read_history(path: Path) -> History:
    """The recorded history at ``path``; an empty one where there is no file yet."""
    return History.from_json(json.loads(path.read_text("utf-8"))) if path.exists() else History()


def write_history(path: Path, history: History, codes: Mapping[str, tuple[str, ...]]) -> None:
    """Write flax.json atomically: the data and its summaries (of the entries of ``codes``)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(history_text(history, codes), "utf-8")
    temporary.replace(path)


def plan(files: HistoryFiles, only: Collection[str] = ()) -> tuple[History, HistoryPlan]:
    """The recorded history, and what remains to run of releases.toml (``only`` those)."""
    releases = read_releases((files.folder / "releases.toml").read_text("utf-8"), only)
    rules = parse_rules((files.folder / "rewrites.toml").read_text("utf-8"))
    history = read_history(files.out)
    return history, plan_history(history, releases, read_entries(files.catalogue), rules)


def digest(files: HistoryFiles) -> str:
    """The catalogue and rewrites this checkout records: what every slice of a run shares."""
    rules = parse_rules((files.folder / "rewrites.toml").read_text("utf-8"))
    return catalogue_digest(entry_codes(read_entries(files.catalogue)), rules)


def writer(
    files: HistoryFiles, todo: HistoryPlan, into: SliceOut | None
) -> Callable[[History], None]:
    """What keeps a history: flax.json, or the slice file of the releases of ``todo``."""
    if into is None:
        return lambda history: write_history(files.out, history, todo.codes)
    catalogue, releases = digest(files), [r.flax for r in todo.releases]

    def write_slice(history: History) -> None:
        into.path.parent.mkdir(parents=True, exist_ok=True)
        piece = slice_of(history, into.part, catalogue, releases)
        temporary = into.path.with_name(into.path.name + ".tmp")
        temporary.write_text(
            json.dumps(piece.to_json(), indent=1, ensure_ascii=False) + "\n", "utf-8"
        )
        temporary.replace(into.path)

    return write_slice


def release_venv(release: PlannedRelease, venvs: Path, uv: str) -> Path:
    """The release's venv (made, or reused when made for the same table); its python."""
    venv = venvs / f"flax-{release.flax}"
    python = venv / "bin" / "python"
    marker = venv / "flax-errors-release.json"
    if marker.exists() and json.loads(marker.read_text("utf-8")) == release.to_json():
        return python
    run([uv, "venv", "--quiet", "--clear", "--python", release.interpreter, str(venv)])
    run(
        [
            uv, "pip", "install", "--quiet", f"--python={python}",
            f"--exclude-newer={release.as_of}T00:00:00Z",
            # The pinned versions are what the release is; the date is for the rest.
            *(f"--exclude-newer-package={name}=2100-01-01T00:00:00Z" for name in PINNED),
            *(f"{name}=={release.to_json()[name]}" for name in PINNED),
            # The runner reads the examples' ":holds for:" lines with it.
            "packaging",
        ]
    )  # fmt: skip
    marker.write_text(json.dumps(release.to_json()), "utf-8")
    return python


def run(command: Sequence[str]) -> None:
    """Run ``command``, shown first as nox shows its own.

    Raises:
        SystemExit: if it fails.
    """
    say(" ".join(command))
    if subprocess.run(command, check=False).returncode:
        raise SystemExit(f"failed: {' '.join(command)}")


def run_release(command: Sequence[str]) -> int:
    """Run a release's runner; on Ctrl-C, give it time to write what it finished."""
    say(" ".join(command))
    process = subprocess.Popen(command)
    try:
        return process.wait()
    except KeyboardInterrupt:
        # The runner got the same Ctrl-C: it writes its entries and exits with 130.
        try:
            process.wait(timeout=INTERRUPT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        raise


def record(
    files: HistoryFiles, only: Collection[str] = (), uv: str = "uv", into: SliceOut | None = None
) -> None:
    """Run every release of releases.toml (``only`` those) that has entries to run.

    Into flax.json, or into the slice file ``into``: the records of every release
    chosen, those with nothing left to run as flax.json has them.

    Raises:
        SystemExit: if a venv cannot be made or a runner fails; what was
            finished before is written.
    """
    history, todo = plan(files, only)
    say(todo.summary())
    keep = writer(files, todo, into)
    if into is not None:
        keep(history)
    started = time.monotonic()
    runs = files.work / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    chosen = todo.chosen
    for index, release in enumerate(chosen):
        python = release_venv(release, files.work / "releases", uv)
        partial = runs / f"flax-{release.flax}.json"
        partial.unlink(missing_ok=True)
        command = [
            str(python), str(RUNNER), f"--catalogue={files.catalogue}", f"--out={partial}",
            *todo.runner_arguments(index, history),
        ]  # fmt: skip
        try:
            code = run_release(command)
        finally:  # Ctrl-C or a failed run: keep the entries it finished
            if partial.exists():
                run = ReleaseRun.from_json(json.loads(partial.read_text("utf-8")))
                history = merged(history, run)
                keep(history)
        if code:
            raise SystemExit(f"flax {release.flax}: the runner failed with exit code {code}")
    out = files.out if into is None else into.path
    say(f"{len(chosen)} releases run in {time.monotonic() - started:.0f} s; see {out}")


def say(line: str) -> None:
    """A progress line on stderr, where the runners write theirs."""
    print(f"history > {line}", file=sys.stderr, flush=True)
