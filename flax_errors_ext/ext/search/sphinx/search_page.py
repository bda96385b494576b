"""A pasted error message finds its entry: the texts and patterns the search script ranks first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.execution.catalogue.modules import DiscoveryError
from flax_errors_ext.ext.search.model.data import entry_rules, matching_settings, search_entries
from flax_errors_ext.model.lookup.find import recorded_wordings
from flax_errors_ext.model.lookup.texts import raise_sites
from flax_errors_ext.sphinx.context import CatalogueCollector, build_context, published_roots

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sphinx.application import Sphinx

    from flax_errors_ext.model.lookup.find import Wording
    from flax_errors_ext.model.runs.entry_record import EntryRecord

DATA_FILE = "flax_errors_search_data.js"
SETTINGS_FILE = "flax_errors_search_settings.js"
RULES_FILE = "flax_errors_search_rules.json"  # each module's rules, as the last build wrote them
SCRIPT_FILE = "flax_errors_search.js"


def add_scripts(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Load the message search on the search page."""
    if pagename == "search":
        # Deferred: they run once Sphinx's searchtools.js is loaded, before it searches.
        for name in (SETTINGS_FILE, DATA_FILE, SCRIPT_FILE):
            app.add_js_file(name, defer="defer")


def write_data(app: Sphinx, exception: Exception | None) -> None:
    """Write the catalogue's messages for the search page, after every HTML build."""
    if exception is not None or app.builder.format != "html":
        return
    context = build_context(app.env)
    wordings = recorded_wordings(context.histories.values())
    records = [record for _, record in CatalogueCollector.by_qualname(app.env).values()]
    items = search_entries(records, published_roots(app), wordings)
    rules = _rules(app, wordings, [*records, *context.other_runs])
    for item in items:
        # Where the script's result links: the page by its docname, and the anchor.
        location = context.config.layout.locate(item["qualname"])
        item["docname"], item["anchor"] = location.page, location.anchor
        item["rules"] = rules.get(item["qualname"], [])
    text = f"window.FLAX_ERRORS_SEARCH = {json.dumps(items, ensure_ascii=True, indent=1)};\n"
    static = Path(app.outdir, "_static")
    static.mkdir(parents=True, exist_ok=True)
    (static / DATA_FILE).write_text(text, encoding="utf-8")
    settings = json.dumps(matching_settings(), ensure_ascii=True, indent=1)
    (static / SETTINGS_FILE).write_text(
        f"window.FLAX_ERRORS_SEARCH_SETTINGS = {settings};\n", encoding="utf-8"
    )


def _rules(
    app: Sphinx, wordings: tuple[Wording, ...], records: Sequence[EntryRecord]
) -> dict[str, Any]:
    """Each entry's texts as the search matches them (a module not discovered: as last built)."""
    context = build_context(app.env)
    kept_file = Path(app.doctreedir, RULES_FILE)
    try:
        kept: dict[str, Any] = json.loads(kept_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kept = {}
    by_module: dict[str, Any] = {}
    for spec in context.config.modules:
        module = context.modules.get(spec.name)
        if module is not None and not isinstance(module, DiscoveryError):
            sites = raise_sites(module.entries, records, published_roots(app))
            by_module[spec.name] = entry_rules(module.entries, wordings, sites)
        elif isinstance(kept.get(spec.name), dict):
            by_module[spec.name] = kept[spec.name]
    kept_file.parent.mkdir(parents=True, exist_ok=True)
    kept_file.write_text(json.dumps(by_module), encoding="utf-8")
    return {qualname: texts for rules in by_module.values() for qualname, texts in rules.items()}
