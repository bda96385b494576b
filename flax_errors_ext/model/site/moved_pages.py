"""Pages that errors of other releases link to and that this site keeps elsewhere.

Releases print different URLs for the same error (Flax 0.4's ``flax.errors.html``,
later ``api_reference/flax.errors.html``; JAX 0.12's ``101/errors.html``). Which
page paths readers may arrive at is read from what each release raised (the
recorded history, the runs of other stacks), never listed by hand: each gets a
page that forwards to the module's page, anchor kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from flax_errors_ext.layout import SiteLayout
    from flax_errors_ext.model.config.module_spec import ModuleSpec
    from flax_errors_ext.model.history.releases import History


def moved_pages(
    specs: Iterable[ModuleSpec],
    layout: SiteLayout,
    histories: Mapping[str, History],
    texts: Iterable[str] = (),
) -> dict[str, str]:
    """``{old docname: docname now}`` for the pages the errors' links point to elsewhere.

    Read from what past releases raised (``histories``) and from other ``texts``
    that errors raised: the runs of other stacks and devices, where a newer
    release may link to a page of a new layout (JAX's ``101/errors.html``). Only
    links into the module's ``upstream`` site count (this site mirrors its layout);
    which of their pages forward, and where to, ``layout`` says.
    """
    texts = tuple(texts)
    moved: dict[str, str] = {}
    for spec in specs:
        if not spec.upstream:
            continue
        history = histories.get(spec.name)
        raised = [
            run.exc_text
            for release in (history.releases if history is not None else ())
            for entry in release.entries.values()
            for run in entry.examples
        ]
        for text in (*raised, *texts):
            linked = layout.linked_pages(spec.upstream, spec.name, text)
            for old, now in layout.forwards(spec.name, linked).items():
                moved.setdefault(old, now)
    return dict(sorted(moved.items()))


def unforwarded(
    spec: ModuleSpec, layout: SiteLayout, text: str, forwarded: Collection[str]
) -> list[str]:
    """The pages of ``spec``'s upstream site that ``text`` links to and this site lacks.

    A page is there when it is where the links land now (``layout``'s module page)
    or one of ``forwarded`` (the redirects). A link to any other page would land
    nowhere here: the errors of some release print a page this site has not heard of.
    """
    if not spec.upstream:
        return []
    here = layout.module_page(spec.name)
    pages = layout.linked_pages(spec.upstream, spec.name, text)
    return [page for page in pages if page != here and page not in forwarded]
