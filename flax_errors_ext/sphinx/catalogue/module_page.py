"""A module's page, where its errors' printed URLs land: a box per error, forwarding to its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes

from flax_errors_ext.model.site.texts import SiteData
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.catalogue.entries import EntryRenderer, headline
from flax_errors_ext.sphinx.compat import warn
from flax_errors_ext.sphinx.context import build_context
from flax_errors_ext.sphinx.extras import MODULE_EXTRAS
from flax_errors_ext.sphinx.site import add_jump
from flax_errors_ext.sphinx.table import joined

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.model.catalogue.discover import LeftOut
    from flax_errors_ext.model.catalogue.records import ErrorEntry

FORWARD_SCRIPT = """<script>
(() => {
  /* A URL an error printed names its entry here: go on to the entry's own page. */
  let wanted;
  try { wanted = decodeURIComponent(window.location.hash.slice(1)); } catch { return; }
  const found = wanted ? document.getElementById(wanted) : null;
  const link = found ? found.querySelector(".flax-errors-entry-link a") : null;
  if (link) window.location.replace(link.href.split("#")[0] + window.location.hash);
})();
</script>"""
"""Run as soon as the summaries above it are parsed: the reader sees no page in between."""


class CatalogueDirective(EntryRenderer):
    """Render a module's errors: an index of their pages, or every entry in full."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        """The module's errors, grouped by area, then what is left out and what extras add."""
        layout = build_context(self.env).config.layout
        found = self._module_run(self.arguments[0])
        if found is None:
            return []
        module = found.module
        # Every summary comes from an example file or docstring of the module.
        for path in module.catalogue_paths:
            self.env.note_dependency(path)
        for problem in module.problems:
            warn(problem.message, WarningSubtype.CATALOGUE, str(problem.location))
        # Where the entries have pages of their own (not where printed URLs land).
        indexed = any(e.site != layout.printed(e.qualname) for e in module.entries)
        site = SiteData({module.name: module.data})
        groups: dict[str, list[nodes.Node]] = {}
        for outcome in found.outcomes:
            shown = [self._summary(outcome.entry)] if indexed else self._entry(outcome, found)
            groups.setdefault(site.area_of(outcome.entry.qualname), []).extend(shown)
        rendered = _grouped(groups, site)
        if indexed:
            rendered.append(nodes.raw("", FORWARD_SCRIPT, format="html"))
            # In the order the page shows them.
            ranked = sorted(
                found.outcomes, key=lambda o: site.area_rank(site.area_of(o.entry.qualname))
            )
            rendered += self._toctree([o.entry for o in ranked])
        rendered += _left_out_note(module.left_out)
        rendered += [
            node for added in self.env.events.emit(MODULE_EXTRAS, found) for node in added or ()
        ]
        return rendered

    def _summary(self, entry: ErrorEntry) -> nodes.container:
        anchor = build_context(self.env).config.layout.printed(entry.qualname).anchor
        summary = nodes.container(ids=[anchor], classes=["flax-errors-summary"])
        summary += nodes.rubric(entry.name, entry.name, classes=["flax-errors-summary-name"])
        summary += headline(entry.summary)
        text = f"Read the entry for {entry.name}: its examples and its fix"
        link = addnodes.pending_xref(
            "",
            nodes.inline(text, text),
            refdomain="std",
            reftype="doc",
            reftarget="/" + entry.site.page,
            refexplicit=True,
            refdoc=self.env.docname,
        )
        summary += nodes.paragraph("", "", link, classes=["flax-errors-entry-link"])
        return summary

    def _toctree(self, entries: Sequence[ErrorEntry]) -> list[nodes.Node]:
        """A hidden toctree of the entries' pages: the sidebar, previous and next."""
        lines = [".. toctree::", "   :hidden:", ""]
        lines += [f"   {e.name} </{e.site.page}>" for e in entries]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, "<flax-errors>"), 0, container)
        return list(container.children)


def _grouped(groups: dict[str, list[nodes.Node]], site: SiteData) -> list[nodes.Node]:
    """Entries by area (if several), links first; boxes: sections' autosectionlabels clash."""
    if len(groups) < 2:
        return [node for entries in groups.values() for node in entries]
    jump = nodes.paragraph(classes=["flax-errors-areas"])
    found: list[nodes.Node] = [jump]
    for area in sorted(groups, key=site.area_rank):
        anchor = "group-" + nodes.make_id(area)
        add_jump(jump, area, anchor)
        group = nodes.container(ids=[anchor], classes=["flax-errors-group"])
        group += nodes.rubric(area, area, classes=["flax-errors-area"])
        group.extend(groups[area])
        found.append(group)
    return found


def _left_out_note(left_out: Sequence[LeftOut]) -> list[nodes.Node]:
    if not left_out:
        return []
    paragraph = nodes.paragraph(classes=["flax-errors-left-out"])
    paragraph += nodes.Text("Not catalogued here: ")
    items = ([nodes.literal(i.name, i.name), nodes.Text(f" ({i.reason})")] for i in left_out)
    paragraph += joined(items, "; ")
    paragraph += nodes.Text(".")
    return [paragraph]
