"""Each catalogue module, discovered once and run once per build, for all its pages.

A module's errors are shown on several pages, read in any order and, with ``-j``,
by several processes. So every module's entry pages are known when the build opens
(and written, unless the project writes its own), and the modules whose pages will
be read are run, in the main process, before the reading starts: each page renders
from that one run, and a ``-j`` reader inherits it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flax_errors_ext.execution.catalogue.module_runs import ModuleRun, run_modules
from flax_errors_ext.execution.catalogue.modules import DiscoveryError, ModulePages, load_module
from flax_errors_ext.execution.runs.run import default_jobs
from flax_errors_ext.layout import SiteLayout
from flax_errors_ext.sphinx.loggers import LOGGER

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path

    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.runs.fingerprint import Fingerprint
    from flax_errors_ext.sphinx.context import BuildContext


def discover(
    context: BuildContext, last: BuildContext | None, fingerprint: Callable[[], Fingerprint]
) -> None:
    """Find every configured module's entry pages; discover the modules that need it.

    A module whose pages the last build found, with the same settings and run
    fingerprint (asked of ``fingerprint`` only then) and unchanged files, keeps
    them: a build with nothing to read then imports no library.
    """
    reusable = last is not None and last.config == context.config and last.ran_with(fingerprint())
    for spec in context.config.modules:
        kept = last.module_pages.get(spec.name) if reusable and last is not None else None
        if kept is not None and kept.unchanged():
            context.module_pages[spec.name] = kept
            continue
        try:
            module = discovered(context, spec.name)
        except DiscoveryError:
            continue
        context.module_pages[spec.name] = ModulePages.of(module, context.config.layout)


def discovered(context: BuildContext, name: str) -> ErrorModule:
    """The module as this build discovered it (a module no setting lists: now).

    Raises DiscoveryError, saying why, where it cannot be read (kept for its page).
    """
    found = context.modules.get(name)
    if found is None:
        spec = context.config.spec(name)
        listed = any(s.name == name for s in context.config.modules)
        # A module no setting lists gets no pages of its own: its entries are shown
        # where its directive is.
        layout = context.config.layout if listed else SiteLayout.of([spec], per_error=False)
        try:
            found = load_module(
                spec, context.catalogue_folders, layout=layout, project=context.project_dir
            )
        except DiscoveryError as error:
            found = error
        context.modules[name] = found
    if isinstance(found, DiscoveryError):
        raise found
    return found


def catalogue_pages(context: BuildContext) -> dict[str, str]:
    """Every page that shows a module's errors (its own, its entries'): the module, by docname."""
    layout = context.config.layout
    pages = {layout.module_page(spec.name): spec.name for spec in context.config.modules}
    for found in context.module_pages.values():
        pages.update({docname: found.module for docname, _ in found.pages})
    return pages


def modules_read(context: BuildContext, docnames: Iterable[str]) -> list[str]:
    """The listed modules a page of which is among ``docnames``, each once, in order."""
    pages = catalogue_pages(context)
    return list(dict.fromkeys(pages[d] for d in docnames if d in pages))


def run_all(context: BuildContext, names: Iterable[str]) -> None:
    """Run these modules now, together; one that cannot be read is left to its page."""
    modules: dict[str, ErrorModule] = {}
    for name in dict.fromkeys(names):
        if name in context.module_runs:
            continue
        try:
            module = discovered(context, name)
        except DiscoveryError:
            continue
        # Its upstream examples left out where asked.
        modules[name] = module.without_upstream() if context.config.upstream == "off" else module
    for name, module in modules.items():
        LOGGER.info(f"flax-errors: running the {len(module.entries)} entries of {name}")
    jobs = context.config.jobs or default_jobs()
    runs = run_modules(list(modules.values()), context.run, jobs=jobs)
    context.module_runs.update(zip(modules, runs, strict=True))


def module_run(context: BuildContext, name: str) -> ModuleRun:
    """The module's run in this build, run on first asking; raises DiscoveryError."""
    if name not in context.module_runs:
        run_all(context, [name])
        if name not in context.module_runs:
            discovered(context, name)  # raises why it could not be read
    return context.module_runs[name]


STUB_MARKER = ".. generated by flax-errors from flax_errors_modules; edits are overwritten"
"""Starts a generated page: only such a page is ever rewritten or removed."""


def write_stubs(context: BuildContext, srcdir: Path, suffixes: Sequence[str]) -> None:
    """Write every module's page and its entries' pages; remove entries' pages gone stale."""
    layout = context.config.layout
    for spec in context.config.modules:
        page = layout.module_page(spec.name)
        heading = f"{spec.name}\n{'=' * len(spec.name)}"
        _write(srcdir, page, f"{heading}\n\n.. flax-errors-catalogue:: {spec.name}\n", suffixes)
        found = context.module_pages.get(spec.name)
        pages = dict(found.pages) if found is not None else {}
        for docname, qualname in pages.items():
            _write(srcdir, docname, f".. flax-errors-entry:: {qualname}\n", suffixes)
        _remove_stale(srcdir / page, {docname.rpartition("/")[2] for docname in pages})


def _write(srcdir: Path, docname: str, body: str, suffixes: Sequence[str]) -> None:
    """Write a generated page unless the project provides its own.

    The page is an orphan, so that ``-W`` passes before the project lists it in a
    toctree (the error index links to every entry either way).
    """
    path = srcdir / f"{docname}.rst"
    text = f"{STUB_MARKER}\n\n:orphan:\n\n{body}"
    if any(srcdir.joinpath(docname + s).exists() for s in suffixes if s != ".rst"):
        return  # the project's own page, in another format
    if path.exists():
        current = path.read_text(encoding="utf-8")
        if current == text or not current.startswith(STUB_MARKER):
            return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _remove_stale(folder: Path, names: set[str]) -> None:
    """Remove the generated entry pages in ``folder`` whose error has no page now."""
    if not folder.is_dir():
        return
    for path in folder.glob("*.rst"):
        if path.stem in names:
            continue
        with path.open(encoding="utf-8") as file:
            generated = file.readline().rstrip("\n") == STUB_MARKER
        if generated:
            path.unlink()
