"""Build Flax's docs as released, with the extension adopted, and exported (``nox -s flax_docs``).

::

    python -m tools.flax_docs.build --work DIR prepare --tree {docs,docs_nnx} \
        --cache DIR --constraints FILE [--newest NAME ...]
    python -m tools.flax_docs.build --work DIR run [--no-export]

``prepare`` fetches Flax's sdist (:mod:`tools.flax_sdist`) at the version the
constraints lock, applies the patch series (``tools/flax_docs/patches/``, with
``git am`` as a maintainer would) and writes what the session installs:
``requirements/flax-docs.txt`` (the patched docs extra, which names flax-errors, with
flax, jax and jaxlib as locked, or the newest for ``--newest``) and
``requirements/ours.txt`` (the Sphinx Flax's docs pin, which this project must not
move, and the locked pytest and playwright). ``run`` builds the tree (``docs/``,
Linen's site, or ``docs_nnx/``, the NNX site at flax.readthedocs.io), trimmed to
the API reference, as released and with the series, and holds them to
:mod:`tools.flax_docs.check`. For ``docs_nnx`` every URL Flax prints lands on its
entry in a browser (:mod:`tools.flax_docs.landing`); for ``docs``, unless
``--no-export``, Flax's tree patched by ``flax-errors export`` is built from its
docstrings alone and Flax's docstring doctests run on it. Each step's seconds are
printed at the end, also when a check fails.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from tools.flax_docs.series import SERIES, series
from tools.flax_sdist import flax_source

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TREES = ("docs", "docs_nnx")
"""Flax's two documentation trees: Linen's site, and the NNX site its errors link to."""
PARTS = ("pyproject.toml", "docs/", "docs_nnx/", "flax/")
"""What is taken of Flax's sdist: its docs extra and pytest configuration, both docs
trees (the series changes both), and its flax/ for the export build (on no other
build's path)."""
KEPT = ("api_reference",)
"""The part of Flax's docs built: the API reference, flax.errors' page among it."""
ROOT = "api_reference/index"
ERRORS_PAGE = "api_reference/flax.errors"
LOCKED = ("flax", "jax", "jaxlib")
"""Taken from the constraints: the releases the examples run on."""
OURS = ("pytest", "playwright")
"""Taken from the constraints too: Flax's docstring doctests, and the landing check."""
EXTENSION = "flax-errors"
"""The distribution the series adds to Flax's docs extra: this project."""
BIN = Path(sys.executable).parent
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def locked_pins(constraints: str) -> dict[str, str]:
    """``{name: version}`` of a constraints file's ``name==version`` lines."""
    return dict(line.split("==", 1) for line in constraints.split() if "==" in line)


def requirement_name(requirement: str) -> str:
    """The normalised distribution name a requirement line names."""
    match = _NAME.match(requirement.strip())
    return re.sub(r"[-_.]+", "-", match.group(0)).lower() if match else ""


def docs_requirements(
    pyproject: str, pins: Mapping[str, str], newest: Iterable[str] = ()
) -> tuple[list[str], list[str]]:
    """What to install: Flax's docs extra with its releases, then the pins ours must keep.

    Args:
        pyproject: Flax's pyproject.toml, the series applied.
        pins: The constraints' versions.
        newest: Of flax, jax and jaxlib, those left unpinned (the newest reachable).

    Returns:
        Flax's ``docs`` extra and flax, jax and jaxlib; then the Sphinx that extra
        pins and the locked pytest and playwright.

    Raises:
        ValueError: if the extra does not name flax-errors (Flax's docs job could not
            import the extension) or pins no Sphinx.
    """
    requirements = tomllib.loads(pyproject)["project"]["optional-dependencies"]["docs"]
    if EXTENSION not in map(requirement_name, requirements):
        raise ValueError(f"Flax's docs extra does not name {EXTENSION}: {requirements}")
    sphinx = next((r for r in requirements if r.replace(" ", "").startswith("sphinx==")), None)
    if sphinx is None:
        raise ValueError(f"Flax's docs extra pins no Sphinx: {requirements}")
    unpinned = set(newest)
    releases = [name if name in unpinned else f"{name}=={pins[name]}" for name in LOCKED]
    return [*requirements, *releases], [sphinx, *(f"{name}=={pins[name]}" for name in OURS)]


def trim_options(conf: Path, names: Iterable[str]) -> list[str]:
    """sphinx-build options that build Flax's API reference alone, reading no notebook.

    Every top-level part of Flax's docs (``names``) but :data:`KEPT` joins the
    ``exclude_patterns`` of Flax's ``conf.py`` (``conf``), and the API reference's
    index is the root page. Not ``nb_execution_mode=off``: the catalogue runs with
    myst-nb's execution mode unless the project sets its own (off would show every
    entry not run); with the guides left out no notebook is read, so none runs.

    Raises:
        ValueError: naming ``conf`` unless it assigns ``exclude_patterns`` a list
            of strings exactly once at its top level: ``-D exclude_patterns``
            replaces the list, so Flax's own patterns must be read to be kept.
    """
    assigned = [
        node.value
        for node in ast.parse(conf.read_text("utf-8"), str(conf)).body
        if isinstance(node, ast.Assign)
        and [getattr(target, "id", "") for target in node.targets] == ["exclude_patterns"]
    ]
    if not assigned:
        raise ValueError(
            f"{conf} assigns no exclude_patterns at its top level: the trim adds to "
            "Flax's own patterns, and found none to add to"
        )
    if len(assigned) > 1:
        raise ValueError(
            f"{conf} assigns exclude_patterns {len(assigned)} times at its top level: "
            "the trim cannot tell which of them Flax's build ends with"
        )
    try:
        flax_patterns = ast.literal_eval(assigned[0])
    except ValueError:
        flax_patterns = None
    if not isinstance(flax_patterns, list | tuple) or not all(
        isinstance(pattern, str) for pattern in flax_patterns
    ):
        raise ValueError(
            f"{conf}:{assigned[0].lineno} assigns exclude_patterns something other than "
            "a literal list of strings: the trim cannot read Flax's own patterns"
        )
    left_out = sorted(
        name for name in names if name not in KEPT and not name.startswith(("_", "."))
    )
    patterns = [*flax_patterns, *left_out]
    return ["-D", f"master_doc={ROOT}", "-D", "exclude_patterns=" + ",".join(patterns)]


def checkout(
    source: Path, root: Path, *, patches: Sequence[Path] = (), flax: bool = False
) -> Path:
    """A fresh copy of Flax's sources in ``root``, the series applied with ``git am``.

    The copy is a git repository of its own, so that ``git am`` applies the commits
    exactly as a maintainer would at Flax's source root, and fails as it would.

    Raises:
        ValueError: naming the patch that does not apply.
    """
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    shutil.copy2(source / "pyproject.toml", root / "pyproject.toml")
    for tree in (*TREES, *(("flax",) if flax else ())):
        shutil.copytree(source / tree, root / tree)
    if patches:
        git = ["git", "-C", str(root), "-c", "user.name=flax-docs", "-c",
               "user.email=flax-docs@localhost", "-c", "commit.gpgsign=false"]  # fmt: skip
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "as released"]):
            subprocess.run([*git, *command], check=True, stdout=subprocess.DEVNULL)
        for patch in patches:
            if subprocess.run([*git, "am", "-q", str(patch)], check=False).returncode:
                raise ValueError(f"{patch.name} does not apply with git am on {root}")
    return root


def prepare(
    work: Path, cache: Path, constraints: Path, tree: str, newest: Sequence[str] = ()
) -> None:
    """Fetch the locked flax's sdist parts; apply the series; write the requirements."""
    started = time.time()
    pins = locked_pins(constraints.read_text("utf-8"))
    source = flax_source(pins["flax"], PARTS, cache.resolve())
    patches = series(SERIES.glob("*.patch"))
    patched = checkout(source, work / "series", patches=patches)
    flax_docs, ours = docs_requirements(
        (patched / "pyproject.toml").read_text("utf-8"), pins, newest
    )
    (work / "requirements").mkdir(parents=True, exist_ok=True)
    (work / "requirements" / "flax-docs.txt").write_text("\n".join(flax_docs) + "\n", "utf-8")
    (work / "requirements" / "ours.txt").write_text("\n".join(ours) + "\n", "utf-8")
    prepared = {
        "source": str(source),
        "tree": tree,
        "patches": [str(p) for p in patches],
        "sphinx": ours[0],
        "started": started,
    }
    (work / "prepared.json").write_text(json.dumps(prepared), "utf-8")


class Builds:
    """The trees and builds of one run, and the seconds each step took."""

    def __init__(self, work: Path, source: Path, docs: str, trim: Sequence[str]) -> None:
        self.work = work
        self.source = source
        self.docs = docs
        """The tree built: ``docs`` or ``docs_nnx``."""
        self.trim = list(trim)
        self.env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.seconds: dict[str, float] = {}

    def tree(self, name: str, *patches: Path, flax: bool = False) -> Path:
        """A fresh copy of Flax's sources (and flax/) in work/<name>, the series applied."""
        started = time.perf_counter()
        try:
            root = checkout(self.source, self.work / name, patches=patches, flax=flax)
        except ValueError as error:
            raise SystemExit(str(error)) from None
        self.seconds[f"{name} checkout"] = time.perf_counter() - started
        return root

    def build(self, root: Path, builder: str, *pages: str) -> None:
        """sphinx-build of the tree; a warning or a failure is for the checks to read."""
        docs = root / self.docs
        self.run(
            str(BIN / "sphinx-build"),
            "-b", builder, "-d", str(root / "_build/doctrees"),
            "-w", str(root / f"warnings-{builder}.txt"), "--keep-going", "-q",
            *self.trim, str(docs), str(root / "_build" / builder),
            *(str(docs / f"{page}.rst") for page in pages),
            step=f"{root.name} {builder}",
            # 1: a warning, a failed entry or doctest; check.py reads what was written.
            allowed=(0, 1),
        )  # fmt: skip

    def run(
        self, *command: str, step: str = "", allowed: Sequence[int] = (0,), cwd: Path | None = None
    ) -> None:
        """Run ``command`` in the builds' environment, timed as ``step`` if named."""
        started = time.perf_counter()
        print(" ".join(command), file=sys.stderr, flush=True)
        status = subprocess.run(command, env=self.env, cwd=cwd, check=False).returncode
        if status not in allowed:
            raise SystemExit(f"failed with exit code {status}: {' '.join(command)}")
        if step:
            self.seconds[step] = time.perf_counter() - started


def adopted(builds: Builds, patches: Sequence[Path]) -> Path:
    """Build the released and the patched docs; check them. The patched tree.

    Raises:
        SystemExit: if the checks find problems.
    """
    from tools.flax_docs import check

    plain = builds.tree("plain")
    patched = builds.tree("patched", *patches)
    for root in (plain, patched):
        builds.build(root, "html")
        # The html build's environment: only the page is tested, nothing read again.
        # docs_nnx as released has no errors page: its API reference's root page then,
        # so that the warnings of the environment are compared all the same.
        has_page = (root / builds.docs / f"{ERRORS_PAGE}.rst").is_file()
        builds.build(root, "doctest", ERRORS_PAGE if has_page else ROOT)
    if check.main(["adopted", str(plain), str(patched), f"--docs={builds.docs}"]):
        raise SystemExit(1)
    return patched


def landed(builds: Builds, patched: Path) -> None:
    """Every URL Flax and its notebooks print, opened in a browser on its host.

    Raises:
        SystemExit: if one does not land on its entry.
    """
    from tools.flax_docs import landing

    started = time.perf_counter()
    failed = landing.main(
        [str(patched / "_build" / "html"), f"--notebooks={builds.source / builds.docs}"]
    )
    builds.seconds["browser"] = time.perf_counter() - started
    if failed:
        raise SystemExit(1)


def exported(builds: Builds, patched: Path, patches: Sequence[Path]) -> None:
    """Build Flax's tree with ``flax-errors export``'s patch; run its doctests; check them.

    Raises:
        SystemExit: if the checks find problems.
    """
    from tools.flax_docs import check

    patch = builds.work / "export.patch"
    builds.run(str(BIN / "flax-errors"), "export", "-o", str(patch))
    export = builds.tree("export", *patches, flax=True)
    builds.run("patch", "-p1", "--batch", "--forward", "--quiet", "-d", str(export),
               "-i", str(patch.resolve()))  # fmt: skip
    # Flax's conf.py puts the tree's root, with the patched flax/, first on the path;
    # the kernels (and their server) find it there too. Its docstrings now hold the
    # examples, and the extension reads them, not its own files.
    builds.env["PYTHONPATH"] = os.pathsep.join([str(export), str(REPO)])
    builds.build(export, "html")
    # As Flax's CI tests its docstrings, with its pytest configuration.
    builds.run(
        str(BIN / "pytest"), "-c", str(builds.source / "pyproject.toml"), "--rootdir", ".",
        "-p", "no:cacheprovider", "-q", "--doctest-modules",
        "--junitxml=flax-doctest.xml", "flax/errors.py",
        step="export pytest --doctest-modules", allowed=(0, 1), cwd=export,
    )  # fmt: skip
    junit = ["--doctest-junit", str(export / "flax-doctest.xml")]
    if check.main(["exported", str(patched), str(export), *junit]):
        raise SystemExit(1)


def run(work: Path, *, export: bool) -> None:
    """The builds and checks, from what :func:`prepare` wrote; the seconds, whatever happens."""
    import sphinx

    prepared = json.loads((work / "prepared.json").read_text("utf-8"))
    if f"sphinx=={sphinx.__version__}" != prepared["sphinx"]:
        raise SystemExit(
            f"Sphinx {sphinx.__version__} installed, Flax's docs pin {prepared['sphinx']}"
        )
    source, tree = Path(prepared["source"]), prepared["tree"]
    patches = [Path(p) for p in prepared["patches"]]
    docs = source / tree
    try:
        trim = trim_options(docs / "conf.py", (p.name for p in docs.iterdir()))
    except ValueError as error:
        raise SystemExit(str(error)) from None
    builds = Builds(work, source, tree, trim)
    # From the fetch to now: the sdist and the installs.
    builds.seconds["install"] = time.time() - prepared["started"]
    try:
        patched = adopted(builds, patches)
        if tree == "docs_nnx":
            landed(builds, patched)
        elif export:
            exported(builds, patched, patches)
    finally:
        # Also when a check fails: the times are part of its report.
        print(
            "seconds: "
            + ", ".join(f"{name} {value:.0f}" for name, value in builds.seconds.items()),
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """``prepare`` or ``run``, as the session calls them."""
    parser = argparse.ArgumentParser(prog="python -m tools.flax_docs.build")
    parser.add_argument("--work", type=Path, required=True, help="the trees and requirements")
    steps = parser.add_subparsers(dest="step", required=True)
    prepare_step = steps.add_parser("prepare", help="fetch Flax's sdist; write requirements")
    prepare_step.add_argument("--tree", choices=TREES, default="docs", help="the tree built")
    prepare_step.add_argument("--cache", type=Path, required=True, help="where sdists are kept")
    prepare_step.add_argument("--constraints", type=Path, required=True)
    prepare_step.add_argument(
        "--newest", nargs="*", choices=LOCKED, default=[], help="leave these unpinned"
    )
    run_step = steps.add_parser("run", help="build and check")
    run_step.add_argument("--no-export", action="store_true", help="stop before the export")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    if args.step == "prepare":
        try:
            prepare(work, args.cache, args.constraints, args.tree, args.newest)
        except ValueError as error:
            raise SystemExit(str(error)) from None
    else:
        run(work, export=not args.no_export)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
