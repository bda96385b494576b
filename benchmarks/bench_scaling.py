"""How the build's cost grows with the catalogue: the site's entries and a generated library's.

For each catalogue, in the same rounds, the minimum over rounds of:

* ``cold``: a full ``sphinx-build`` with empty caches;
* ``off-cold``: the same with execution off (Sphinx's own share);
* ``doctest``: ``pytest --doctest-modules`` over the same examples, in one process;
* ``floor``: the same examples through the build's own runner, a process per
  entry, no Sphinx (``bench_floor.py``): no build beats ``floor + off-cold``;
* ``warm -E``: a rebuild that reads every page again, every entry a cache hit;
* ``off -E``: the same with execution off.

The *isolation limit* is ``1.2 x doctest + off-cold``: what running each entry
isolated may cost over running the examples in one process, plus Sphinx alone. A
cold build's ratio to it must stay at most 1.2 at any size, and at most 1.15 to
``floor + off-cold``; the overhead per entry, ``(cold - off-cold - doctest) /
entries``, says what the build adds to each.

``bench_build.py`` runs it on the site and on a library of ``--entries`` generated
errors (:mod:`generated_library`); ``python benchmarks/bench_scaling.py --entries 200
--rounds 1`` runs the generated library alone.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from generated_library import PACKAGE, write_library

LIMIT_FACTOR = 1.2
TARGET = 1.2
"""A cold build's most, as a multiple of the isolation limit."""
WARM_TARGET = 1.1
"""A warm ``-E`` build's most, as a multiple of the same build with execution off."""
FLOOR_TARGET = 1.15
"""A cold build's most, as a multiple of the isolation floor plus Sphinx alone."""
DOCTEST_OPTIONS = (
    *("-q", "-p", "no:cacheprovider", "--doctest-modules", "--doctest-glob=*.txt"),
    *("-o", "doctest_optionflags=ELLIPSIS NORMALIZE_WHITESPACE"),
)
OFF = ("-D", "nb_execution_mode=off")


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Seconds ``command`` took; the benchmark stops with its output if it failed."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-3000:]}")
    return seconds


def isolated_env() -> dict[str, str]:
    """The caller's environment without a JAX compilation cache of its own choosing.

    Each measured run must start from the caches the benchmark gives it.
    """
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JAX_COMPILATION", "JAX_PERSISTENT"))
    }


def floor_seconds(
    catalogue_dir: Path, cwd: Path, *options: str, paths: tuple[str, ...] = ()
) -> float:
    """Seconds of ``bench_floor.py`` over ``catalogue_dir``, with ``paths`` importable."""
    command = [sys.executable, str(Path(__file__).with_name("bench_floor.py"))]
    python_path = [*paths, *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**isolated_env(), "PYTHONPATH": os.pathsep.join(python_path)}
    return timed([*command, str(catalogue_dir), *options], cwd, env)


class Catalogue(Protocol):
    """What the scaling measure builds: a Sphinx project with a catalogue."""

    name: str

    def build(self, name: str, *options: str) -> float:
        """Seconds for one sphinx-build into the build called ``name``."""

    def clear(self, name: str) -> None:
        """Remove the build called ``name`` with all its caches."""

    def doctest(self) -> float:
        """Seconds for the same examples under ``pytest --doctest-modules``."""

    def floor(self) -> float:
        """Seconds for the same examples through the build's runner, without Sphinx."""

    def entries(self, name: str) -> int:
        """How many entries the build called ``name`` shows."""


class Library:
    """A generated library of light errors and its Sphinx project, in a folder of its own."""

    def __init__(self, root: Path, count: int) -> None:
        self.name = f"generated ({count})"
        self.root = root
        self.docs = write_library(root, count)

    def build(self, name: str, *options: str) -> float:
        """Seconds for one sphinx-build into ``_build/<name>``."""
        out = self.root / "_build" / name
        command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(out / "doctrees")]
        command += [*options, str(self.docs), str(out / "html")]
        return timed(command, cwd=self.root, env=isolated_env())

    def clear(self, name: str) -> None:
        """Remove a build with all its caches."""
        shutil.rmtree(self.root / "_build" / name, ignore_errors=True)

    def doctest(self) -> float:
        """pytest's doctests over the library's errors, in one process."""
        command = [sys.executable, "-m", "pytest", *DOCTEST_OPTIONS]
        return timed([*command, str(self.root / PACKAGE / "errors.py")], self.root, isolated_env())

    def floor(self) -> float:
        """The library's entries through the build's runner (bench_floor.py)."""
        module = ("--module", f"{PACKAGE}.errors")
        return floor_seconds(self.root / "catalogue", self.root, *module, paths=(str(self.root),))

    def entries(self, name: str) -> int:
        """How many entries the build called ``name`` shows."""
        import json

        record = json.loads((self.root / "_build" / name / "html" / "errors.json").read_text())
        return int(record["summary"]["entries"])


@dataclass
class Scaling:
    """One catalogue's measures: the minimum of each over the rounds."""

    name: str
    entries: int
    seconds: dict[str, float]

    @property
    def limit(self) -> float:
        """The isolation limit: 1.2 x doctest + off-cold."""
        return LIMIT_FACTOR * self.seconds["doctest"] + self.seconds["off-cold"]

    @property
    def ratio(self) -> float:
        """cold / the isolation limit."""
        return self.seconds["cold"] / self.limit

    @property
    def per_entry(self) -> float:
        """Seconds a cold build adds to each entry over the examples and Sphinx."""
        extra = self.seconds["cold"] - self.seconds["off-cold"] - self.seconds["doctest"]
        return extra / self.entries

    @property
    def floor_ratio(self) -> float:
        """(floor + off-cold) / the isolation limit: the least any isolating build reaches."""
        return (self.seconds["floor"] + self.seconds["off-cold"]) / self.limit

    @property
    def over_floor(self) -> float:
        """cold / (floor + off-cold): what running the entries inside Sphinx adds."""
        return self.seconds["cold"] / (self.seconds["floor"] + self.seconds["off-cold"])

    @property
    def warm_ratio(self) -> float:
        """warm -E / off -E."""
        return self.seconds["warm -E"] / self.seconds["off -E"]


def measure_round(catalogue: Catalogue, into: dict[str, list[float]]) -> None:
    """One round of each measure, appended to ``into``."""
    catalogue.clear("scaling-cold")
    catalogue.clear("scaling-off")
    into.setdefault("cold", []).append(catalogue.build("scaling-cold"))
    into.setdefault("warm -E", []).append(catalogue.build("scaling-cold", "-E"))
    into.setdefault("off-cold", []).append(catalogue.build("scaling-off", *OFF))
    into.setdefault("off -E", []).append(catalogue.build("scaling-off", "-E", *OFF))
    into.setdefault("doctest", []).append(catalogue.doctest())
    into.setdefault("floor", []).append(catalogue.floor())


def measure(catalogues: list[Catalogue], rounds: int) -> list[Scaling]:
    """Every catalogue's measures, interleaved round by round."""
    samples: list[dict[str, list[float]]] = [{} for _ in catalogues]
    for number in range(1, rounds + 1):
        for catalogue, into in zip(catalogues, samples, strict=True):
            print(
                f"scaling round {number}/{rounds}: {catalogue.name}", file=sys.stderr, flush=True
            )
            measure_round(catalogue, into)
    return [
        Scaling(c.name, c.entries("scaling-cold"), {k: min(v) for k, v in s.items()})
        for c, s in zip(catalogues, samples, strict=True)
    ]


def table(results: list[Scaling]) -> str:
    """The side-by-side table, as printed (Markdown)."""
    lines = [
        "| catalogue | entries | cold | off-cold | doctest | limit | cold / limit | "
        "per entry | floor | (floor + off-cold) / limit | cold / (floor + off-cold) | "
        "warm -E | off -E | warm / off |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        s = r.seconds
        lines.append(
            f"| {r.name} | {r.entries} | {s['cold']:.1f} s | {s['off-cold']:.1f} s | "
            f"{s['doctest']:.1f} s | {r.limit:.1f} s | {r.ratio:.2f} ({TARGET}) | "
            f"{r.per_entry * 1000:.0f} ms | {s['floor']:.1f} s | {r.floor_ratio:.2f} | "
            f"{r.over_floor:.2f} ({FLOOR_TARGET}) | "
            f"{s['warm -E']:.1f} s | {s['off -E']:.1f} s | "
            f"{r.warm_ratio:.2f} ({WARM_TARGET}) |"
        )
    return "\n".join(lines)


def main() -> None:
    """Measure a generated library alone and print its row."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flax-errors-scaling-") as tmp:
        results = measure([Library(Path(tmp), args.entries)], args.rounds)
    print(table(results))


if __name__ == "__main__":
    main()
