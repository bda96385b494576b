"""Run the catalogue into a document kept in the repository (``nox -s devices`` and ``lock``).

A run kept beside the site's own (``flax_errors_device_runs``) is what
``flax-errors check --json`` writes: :func:`check_document` runs it with a cache
of its own and refuses a document that names the checkout's folder, since it is
committed. As a command, it writes the run on forced CPU devices::

    python -m tools.other_runs.committed --out FILE --cache DIR \
        [--cpu-devices 8]
    python -m tools.other_runs.committed --merge DIR [--into FOLDER]

The file is replaced only once the run is written and kept. ``--merge`` takes the
runs that jobs of their own wrote (one per device: CI's matrix and its GPU job),
checks them together
(:func:`check_runs`: a document that is not a run, two runs of one device, runs
of different catalogues are refused, each with its file) and writes each
into FOLDER (``flax_errors_ext/history``) under its device's name
(``cpu-8-devices.json``, ``nvidia-h200.json``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.ext.other_runs.model.comparison import DeviceRunError, parse_run

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from flax_errors_ext.model.runs.fingerprint import Device

HISTORY = Path(__file__).resolve().parents[2] / "flax_errors_ext" / "history"
"""Where the committed runs are kept."""


class RunNotKept(Exception):
    """The run failed, or its document cannot be committed."""


def check_document(
    flax_errors: Sequence[str],
    cache: Path,
    document: Path,
    env: Mapping[str, str] | None = None,
    checkout: Path | None = None,
) -> str:
    """``flax-errors check --json`` into ``document``, with a cache of its own; its text.

    Exit status 1 (an example failed) is no error: the document records it. The
    cache (and the temporary folder) must not lie in the checkout: the examples'
    temporary names would then name it in the document.

    Args:
        flax_errors: The command that starts ``flax-errors``.
        cache: The execution cache of this run.
        document: Where the document is written.
        env: Variables set for the run, over this process's environment.
        checkout: The folder no document may name (default: the working directory).

    Raises:
        RunNotKept: if the run failed otherwise, or the document names ``checkout``.
    """
    command = [*flax_errors, "check", "--json", "--no-cache", "--cache-dir", str(cache)]
    print(" ".join(command), file=sys.stderr, flush=True)
    with document.open("w", encoding="utf-8") as out:
        status = subprocess.run(
            command, stdout=out, env={**os.environ, **(env or {})}, check=False
        ).returncode
    if status not in (0, 1):
        raise RunNotKept(f"{' '.join(command)} failed with exit code {status}")
    text = document.read_text("utf-8")
    if str(checkout or Path.cwd()) in text:
        raise RunNotKept(f"{document} names this checkout's folder; not kept")
    return text


def forced_devices(flags: str, count: int) -> str:
    """``XLA_FLAGS`` with ``flags`` kept and ``count`` CPU devices forced."""
    return " ".join([flags, f"--xla_force_host_platform_device_count={count}"]).strip()


def run_file_name(device: Device) -> str:
    """The committed file of a run on ``device``: ``nvidia-h200.json``, ``cpu-8-devices.json``."""
    kind = device.device_kind or device.platform
    stem = re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "device"
    return f"{stem}-{device.count}-devices.json" if device.count > 1 else f"{stem}.json"


def check_runs(texts: Mapping[str, str]) -> dict[str, str]:
    """The file each run is kept as, by the file its document (``texts``) was read from.

    Raises:
        DeviceRunError: listing every problem, each with its file.
    """
    problems: list[str] = []
    kept: dict[str, str] = {}
    catalogue: tuple[str, frozenset[str]] | None = None
    for source in sorted(texts):
        try:
            run = parse_run(texts[source], source)
        except DeviceRunError as error:
            problems.append(str(error))
            continue
        entries = frozenset(r.qualname for r in run.records)
        if catalogue is None:
            catalogue = (source, entries)
        elif entries != catalogue[1]:
            first, known = catalogue
            missing, more = sorted(known - entries), sorted(entries - known)
            problems.append(
                f"{source}: not the catalogue of {first} (lacks {missing or 'nothing'}, "
                f"adds {more or 'nothing'}): the runs are of different commits"
            )
        name = run_file_name(run.device)
        if name in kept:
            problems.append(f"{source}: a second run on {run.device.label}, as {kept[name]}")
            continue
        kept[name] = source
    if problems:
        raise DeviceRunError("\n".join(problems))
    return {source: name for name, source in kept.items()}


def merge_runs(folder: Path, into: Path) -> list[Path]:
    """Write each run under ``folder`` into ``into``, named by its device; the files written.

    Raises:
        DeviceRunError: naming each file that is not a run, or that conflicts with
            another; nothing is written then.
    """
    texts = {str(p): p.read_text("utf-8") for p in sorted(folder.rglob("*.json"))}
    if not texts:
        raise DeviceRunError(f"{folder}: no run (*.json) in it")
    written = []
    for source, name in sorted(check_runs(texts).items(), key=lambda item: item[1]):
        temporary = into / (name + ".tmp")
        temporary.write_text(texts[source], "utf-8")
        temporary.replace(into / name)
        written.append(into / name)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Write the catalogue's run on this machine's (or forced CPU) devices into ``--out``."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.other_runs.committed",
        description="Run the catalogue into a document to commit (flax-errors check --json).",
    )
    parser.add_argument("--out", type=Path, help="the document to write")
    parser.add_argument("--cache", type=Path, help="the run's own cache")
    parser.add_argument(
        "--cpu-devices", type=int, default=None, help="force this many CPU devices"
    )
    parser.add_argument("--flax-errors", default="flax-errors", help="the command to run")
    parser.add_argument(
        "--merge", type=Path, metavar="DIR", help="keep the runs under DIR, by their devices"
    )
    parser.add_argument(
        "--into", type=Path, default=HISTORY, help="where --merge writes (flax_errors_ext/history)"
    )
    args = parser.parse_args(argv)
    if args.merge is not None:
        try:
            written = merge_runs(args.merge, args.into)
        except DeviceRunError as error:
            print(f"error: the runs under {args.merge} are not kept:\n{error}", file=sys.stderr)
            return 1
        print(f"wrote {', '.join(map(str, written))}", file=sys.stderr)
        return 0
    if args.out is None or args.cache is None:
        parser.error("--out and --cache are needed to run (or --merge DIR)")
    env = {}
    if args.cpu_devices:
        env["XLA_FLAGS"] = forced_devices(os.environ.get("XLA_FLAGS", ""), args.cpu_devices)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.out.with_name(args.out.name + ".tmp")
    try:
        check_document([args.flax_errors], args.cache, temporary, env)
    except RunNotKept as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    temporary.replace(args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
