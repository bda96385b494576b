"""The build's lifecycle, one handler per event (the session opens before ``-j`` forks)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

from myst_nb.core.config import NbParserConfig
from sphinx.errors import ConfigError, ExtensionError

from flax_errors_ext.cli.selection import stamp
from flax_errors_ext.execution.session import ExecutionOptions, Session
from flax_errors_ext.layout import SiteLayout
from flax_errors_ext.model.catalogue.discover import catalogue_folders, catalogue_paths
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.runs.entry_record import (
    EntryStatus,
    coverage_line,
    errors_document,
    failures,
    summary_line,
)
from flax_errors_ext.model.runs.fingerprint import ProbeError
from flax_errors_ext.model.site.links import moved_pages
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx import compat
from flax_errors_ext.sphinx.catalogue import per_build
from flax_errors_ext.sphinx.compat import LOGGER, conf_location, warn
from flax_errors_ext.sphinx.context import (
    WORK_DIR,
    BuildContext,
    CatalogueCollector,
    build_context,
    hold,
    published_roots,
    settle,
)
from flax_errors_ext.sphinx.extras import CONTEXT_INITED, ERRORS_DOCUMENT, require_loaded_extras

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.model.runs.entry_record import EntryRecord


def make_context(app: Sphinx, config: Config) -> None:
    """Make the build context; forward moved pages; keep the work folders out of the sources.

    On ``config-inited``, so that what it adds counts when Sphinx compares the last config.
    """
    values = {name: config[name] for name, _, _ in CatalogueConfig.options()}
    try:
        validated = CatalogueConfig.from_values(values)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    require_loaded_extras(app, validated)
    folders = [Path(app.confdir, folder).resolve() for folder in validated.catalogue_dirs]
    context = BuildContext(
        config=validated,
        catalogue_folders=catalogue_folders(folders),
        project_dir=Path(app.confdir),
    )
    hold(app, context)
    app.emit(CONTEXT_INITED, context)
    # The pages other releases link to that this site keeps elsewhere, read from the
    # histories and the texts the extras read (a newer release may link to a new layout).
    moved = moved_pages(
        validated.modules,
        validated.layout,
        context.histories,
        [example.actual for record in context.other_runs for example in record.examples],
    )
    _forward(app, config, moved, context)
    # The folders notebooks are written to, out of the sources (or read as pages): ours,
    # myst-nb's output and its cache (whose default myst-nb settles too late, on builder-inited).
    srcdir = Path(app.srcdir).resolve()
    build_dir = Path(app.outdir).parent
    written = [
        build_dir / WORK_DIR,
        build_dir / "jupyter_execute",
        Path(config["nb_execution_cache_path"] or build_dir / ".jupyter_cache"),
    ]
    for folder in (f.resolve() for f in written):
        if folder.is_relative_to(srcdir) and folder != srcdir:
            inside = folder.relative_to(srcdir).as_posix()
            config.exclude_patterns = [*config.exclude_patterns, inside, f"{inside}/**"]


REDIRECTS = "sphinx_reredirects"
REDIRECTS_EXTRA = "flax-errors[redirects]"


def _forward(app: Sphinx, config: Config, moved: Mapping[str, str], context: BuildContext) -> None:
    """Redirect each moved page (``{old: now}``) the project lacks; its own ``redirects`` win."""
    suffixes = tuple(config.source_suffix)
    pending = {
        old: SiteLayout.forward_uri(old, now)
        for old, now in moved.items()
        if not any(Path(app.srcdir, old + suffix).exists() for suffix in suffixes)
    }
    if not pending:
        return
    if REDIRECTS not in app.extensions:
        try:
            app.setup_extension(REDIRECTS)
        except ExtensionError:
            pages = ", ".join(sorted(pending))
            context.defer(
                f"errors link to pages this site keeps elsewhere ({pages}), and "
                f"{REDIRECTS}, which would forward them, is not installed: "
                f"pip install {REDIRECTS_EXTRA}",
                WarningSubtype.REDIRECTS,
                conf_location(app, "extensions"),
            )
            return
        # Loaded after the project's own config-inited handlers ran.
        compat.keep_redirect_anchors(app, config)
    config.redirects = {**pending, **(config.redirects or {})}


def open_session(app: Sphinx) -> None:
    """Settle the context, warn of what was not read, open the session, write the pages."""
    context, last = settle(app)
    for message, subtype, location in context.take_deferred():
        warn(message, subtype, location)
    nb_config = getattr(app.env, "mystnb_config", None)  # set on myst-nb's builder-inited
    if not isinstance(nb_config, NbParserConfig):
        raise ConfigError("flax-errors needs myst-nb's configuration (myst_nb in extensions)")
    execution = ExecutionOptions.of(nb_config, context.config.run_mode(nb_config.execution_mode))
    session = Session(Path(app.outdir).parent / WORK_DIR, context.config, execution)
    # Asked before the modules' imports, as the roots of this build's own code.
    roots = published_roots(app)
    per_build.discover(context, last, session.fingerprint)
    context.start(session, roots, last)
    per_build.write_stubs(context, Path(app.srcdir), tuple(app.config.source_suffix))
    if isinstance(device := context.run.fingerprint.device, ProbeError):
        warn(str(device), WarningSubtype.DEVICE, conf_location(app, "extensions"))


def outdated_by_environment(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Catalogue pages to read again although their files did not change."""
    by_doc = CatalogueCollector.records(env)
    context = build_context(env)
    if context.changed:
        return sorted((set(by_doc) | set(per_build.catalogue_pages(context))) & env.found_docs)

    # A page with a failing entry (checked every build; from the cache only where the run is
    # trusted), one whose undocumented entry has gained a catalogue file since it was read,
    # and one whose runs loaded a file that has changed since (a helper that words a message).
    def stale(r: EntryRecord) -> bool:
        if r.status is EntryStatus.UNDOCUMENTED:
            return any(p.is_file() for p in catalogue_paths(context.catalogue_folders, r.qualname))
        return r.status is EntryStatus.FAILED

    outdated = {docname for docname, records in by_doc.items() if any(map(stale, records))}
    # Most pages hold the very same set (see context.joined_files): looked at once.
    first_change = functools.cache(context.run.sources().first_change)
    for docname, files in CatalogueCollector.loaded(env).items():
        if docname in outdated:
            continue
        if (touched := first_change(files)) is not None:
            LOGGER.info(f"flax-errors: {touched} changed since {docname} ran; reading it again")
            outdated.add(docname)
    # A page that shows a group of message entries, whose folder has gained or lost one.
    regrouped = {
        docname
        for docname, folders in CatalogueCollector.folders(env).items()
        if any(stamp(folder) != seen for folder, seen in folders.items())
    }
    return sorted((outdated & set(by_doc)) | (regrouped & env.found_docs))


def start_reading(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Run the modules whose pages will be read (:mod:`.catalogue.per_build`)."""
    context = build_context(env)
    context.reading = frozenset(docnames)
    pages = per_build.catalogue_pages(context)
    per_build.run_all(context, [pages[d] for d in docnames if d in pages])
    # Their processes end before Sphinx forks its readers (jobs + 3 processes at most).
    context.close()


def finish_build(app: Sphinx, exception: Exception | None) -> None:
    """Close the session; write errors.json; report every failure and fail on any."""
    context = build_context(app.env)
    context.close()
    if exception is not None:
        return
    by_doc = CatalogueCollector.records(app.env)
    records = [r for doc in by_doc.values() for r in doc]
    executed = [r.qualname for doc in context.read_now(by_doc) for r in by_doc[doc] if r.executed]
    # The roots asked again, not the context's: the pages may have imported modules
    # from folders the session's roots lack (an editable install's package).
    document = errors_document(records, executed=executed, roots=published_roots(app))
    app.emit(ERRORS_DOCUMENT, document)
    if app.builder.format == "html":
        Path(app.outdir, "errors.json").write_text(
            json.dumps(document, indent=2) + "\n", encoding="utf-8"
        )
    failed = _report_failures(records, context.config)
    LOGGER.info(f"flax-errors: {summary_line(document)}; {len(executed)} executed in this build")
    LOGGER.info(f"flax-errors coverage: {coverage_line(document['coverage'])}")
    if failed:
        LOGGER.error(f"flax-errors: {failed} problem(s) in the catalogue; see the warnings above")
        app.statuscode = 1


def _report_failures(records: Sequence[EntryRecord], config: CatalogueConfig) -> int:
    """Log each failure by name; how many fail the build (a strict one: an unsuppressed error)."""
    failed = 0
    for record in sorted(records, key=lambda r: r.qualname):
        for failure in failures(record, strict=config.strict, upstream=config.upstream):
            if failure.subtype is WarningSubtype.UNDOCUMENTED and failure.fails:
                LOGGER.error(failure.message, location=failure.location)
            else:
                warn(failure.message, failure.subtype, failure.location)
            failed += failure.fails
    return failed
