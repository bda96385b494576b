"""Resolve the stacks afresh, run the catalogue on each, keep them if no verdict changed.

What ``nox -s lock`` runs, from the repository's root::

    python -m tools.other_runs.lock --work DIR \
        --stack 3.11 constraints/python3.11.txt 3.11 \
        --stack 3.13 constraints/python3.12-and-later.txt 3.12+ \
        [--with REQUIREMENT ...] [--uv UV] [--accept]

Each stack is resolved (``uv pip compile`` of pyproject.toml with every extra, and
the ``--with`` requirements) into a scratch folder, for the Python it names alone
(``3.11``) or for every Python from one on (``3.12+``); then a venv of the stack's
Python is installed within it and ``flax-errors check --json`` runs there
(:func:`~tools.other_runs.committed.check_document`). The
constraints files and the stacks' runs (``python-<version>.json``) are written
only if :func:`settle` finds nothing: ``--accept``
keeps a changed status (an error that became unreachable), never a failure.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.other_runs.committed import RunNotKept, check_document

if TYPE_CHECKING:
    from collections.abc import Sequence

RUNS = Path(__file__).resolve().parents[2] / "flax_errors_ext" / "history"
"""Where each stack's run is kept (``python-<version>.json``), beside the other runs."""

SETTLED = ("passed", "unreachable")
"""The statuses every entry must have on every stack."""


def statuses(text: str) -> dict[str, str]:
    """``{qualname: status}`` of an ``errors.json`` document."""
    document: dict[str, Any] = json.loads(text)
    return {str(entry["qualname"]): str(entry["status"]) for entry in document["entries"]}


def settle(
    stack: str,
    text: str,
    before: str | None,
    settled: Sequence[str] = SETTLED,
    *,
    accept: bool = False,
) -> list[str]:
    """What keeps the run ``text`` from standing for ``stack``, one line per entry.

    An entry whose status is not one of ``settled`` always does. So does one
    whose status differs from the run recorded ``before`` (None: no run was),
    unless ``accept``: a changed status is kept only when a maintainer says so.
    """
    now = statuses(text)
    problems = [
        f"{stack}: {qualname} is {status}"
        for qualname, status in now.items()
        if status not in settled
    ]
    if before is None or accept:
        return problems
    old = statuses(before)
    problems += [
        f"{stack}: {qualname} was {old[qualname]}, is {status} (-- --accept keeps it)"
        for qualname, status in now.items()
        if status in settled and qualname in old and old[qualname] != status
    ]
    return problems


@dataclasses.dataclass(frozen=True)
class Stack:
    """A Python and the constraints its run is installed within."""

    python: str
    """The Python the catalogue runs on."""
    constraints: Path
    """The committed constraints file."""
    resolved_for: str
    """The Pythons the resolution holds for: ``3.11`` alone, or ``3.12+``."""

    def compile_options(self) -> list[str]:
        """``uv pip compile``'s options for the Pythons the resolution is for."""
        lowest = self.resolved_for.removesuffix("+")
        universal = ["--universal"] if self.resolved_for.endswith("+") else []
        return ["--python-version", lowest, *universal]

    @property
    def run_file(self) -> str:
        """The name of the stack's recorded run."""
        return f"python-{self.python}.json"


def compile_stack(stack: Stack, requirements: Sequence[Path], target: Path, uv: str) -> None:
    """Resolve ``requirements`` (every extra) for the stack into ``target``."""
    run(
        [
            uv, "pip", "compile", "--quiet", "--all-extras", *stack.compile_options(),
            "--no-header", "--no-annotate", "-o", str(target), *map(str, requirements),
        ]
    )  # fmt: skip


def stack_run(stack: Stack, constraints: Path, work: Path, uv: str) -> str:
    """``flax-errors check --json`` in a venv of the stack's Python within ``constraints``."""
    venv = work / f"stack-{stack.python}"
    python = venv / "bin" / "python"
    run([uv, "venv", "--quiet", "--clear", "--python", stack.python, str(venv)])
    install = [uv, "pip", "install", "--quiet", f"--python={python}"]
    run([*install, "-c", str(constraints), "-e", ".[test]"])
    # In the venv, not in a temporary folder of the checkout: see check_document.
    return check_document(
        [str(venv / "bin" / "flax-errors")], venv / "check-cache", venv / "errors.json"
    )


def lock(
    stacks: Sequence[Stack],
    extra: Sequence[str],
    work: Path,
    *,
    runs: Path = RUNS,
    uv: str = "uv",
    accept: bool = False,
) -> list[str]:
    """Resolve, run and settle ``stacks``; write them if nothing is wrong. What is wrong.

    Raises:
        RunNotKept: if a run failed or its document cannot be committed.
    """
    scratch = work / "locks"
    scratch.mkdir(parents=True, exist_ok=True)
    requirements = scratch / "extra-requirements.in"
    requirements.write_text("".join(f"{line}\n" for line in extra), "utf-8")
    for stack in stacks:
        target = scratch / stack.constraints.name
        compile_stack(stack, [Path("pyproject.toml"), requirements], target, uv)
    problems: list[str] = []
    texts: dict[Stack, str] = {}
    for stack in stacks:
        texts[stack] = stack_run(stack, scratch / stack.constraints.name, work, uv)
        recorded = runs / stack.run_file
        before = recorded.read_text("utf-8") if recorded.exists() else None
        problems += settle(f"Python {stack.python}", texts[stack], before, accept=accept)
    if problems:
        return problems
    for stack in stacks:
        stack.constraints.parent.mkdir(exist_ok=True)
        resolved = (scratch / stack.constraints.name).read_text("utf-8")
        stack.constraints.write_text(resolved, "utf-8")
        (runs / stack.run_file).write_text(texts[stack], "utf-8")
    return []


def run(command: Sequence[str]) -> None:
    """Run ``command``, shown first.

    Raises:
        RunNotKept: if it fails.
    """
    print(" ".join(command), file=sys.stderr, flush=True)
    if subprocess.run(command, check=False).returncode:
        raise RunNotKept(f"failed: {' '.join(command)}")


def main(argv: Sequence[str] | None = None) -> int:
    """Lock the stacks given; 1, saying why, where they are not kept."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.other_runs.lock",
        description="Resolve the stacks afresh; keep them if the catalogue's verdicts hold.",
    )
    parser.add_argument(
        "--stack",
        nargs=3,
        action="append",
        required=True,
        metavar=("PYTHON", "CONSTRAINTS", "FOR"),
        help="a stack: its Python, its constraints file, the Pythons it is for (3.12+)",
    )
    parser.add_argument("--work", type=Path, required=True, help="scratch: venvs, resolutions")
    parser.add_argument("--with", dest="extra", action="append", default=[], metavar="REQ")
    parser.add_argument("--runs", type=Path, default=RUNS, help="where the stacks' runs are")
    parser.add_argument("--uv", default="uv", help="the uv that resolves and installs")
    parser.add_argument("--accept", action="store_true", help="keep a changed status")
    args = parser.parse_args(argv)
    stacks = [Stack(python, Path(file), resolved_for) for python, file, resolved_for in args.stack]
    try:
        problems = lock(
            stacks, args.extra, args.work.resolve(), runs=args.runs, uv=args.uv, accept=args.accept
        )
    except RunNotKept as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if problems:
        print(
            "error: the new stacks change verdicts (constraints and runs not written):\n  "
            + "\n  ".join(problems),
            file=sys.stderr,
        )
        return 1
    folders = sorted({str(stack.constraints.parent) for stack in stacks})
    print(f"wrote {', '.join(folders)}/ and the stacks' runs in {args.runs}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
