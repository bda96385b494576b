"""What the search page's script reads: the entries' texts, and the rules ``explain`` uses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.catalogue.records import ExampleKind, first_paragraph
from flax_errors_ext.model.lookup.find import (
    MESSAGE_CHARS,
    MIN_ALIKE,
    MIN_FRAGMENT,
    MIN_SIMILARITY,
    OLD_CLASS_NAMES,
)
from flax_errors_ext.model.lookup.paste import PASTE_SYNTAX
from flax_errors_ext.model.lookup.patterns import (
    API_NAME,
    DISTINCTIVE,
    pattern_source,
    variable_kinds,
)
from flax_errors_ext.model.lookup.texts import findable
from flax_errors_ext.model.runs.tracebacks import strip_jax_note
from flax_errors_ext.model.site.texts import plain_text

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry
    from flax_errors_ext.model.lookup.find import Wording
    from flax_errors_ext.model.lookup.texts import Text
    from flax_errors_ext.model.runs.entry_record import EntryRecord


def matching_settings() -> dict[str, Any]:
    """What every text's match shares: the variable kinds and the thresholds."""
    return {
        "syntax": PASTE_SYNTAX,
        "kinds": variable_kinds(),
        "distinctive": list(DISTINCTIVE),
        "api_name": API_NAME.pattern,
        "old_class_names": OLD_CLASS_NAMES,
        "min_fragment": MIN_FRAGMENT,
        "min_alike": MIN_ALIKE,
        "min_similarity": MIN_SIMILARITY,
        "message_chars": MESSAGE_CHARS,
    }


def entry_rules(
    entries: Iterable[ErrorEntry],
    wordings: Iterable[Wording],
    sites: Mapping[str, Mapping[int, Sequence[str]]] | None = None,
) -> dict[str, Any]:
    """Each entry's texts (:func:`~flax_errors_ext.model.lookup.texts.findable`'s) by dotted name.

    Of kind ``bad``, ``seen-as`` or ``older`` (``note``: caption, releases), as ``explain`` tries.
    """
    older: dict[str, list[Wording]] = {}
    for wording in wordings:
        older.setdefault(wording.qualname, []).append(wording)
    rules: dict[str, Any] = {}
    for entry in entries:
        past = older.get(entry.qualname, [])
        found = findable(entry, [w.text for w in past], (sites or {}).get(entry.qualname))
        # The texts of past releases come last, one for each wording, in its order.
        ours = [t for t in found.texts if t.example >= 0]
        texts = []
        for text in ours:
            example = entry.examples[text.example]
            seen_as = example.kind is ExampleKind.SEEN_AS
            caption = plain_text(first_paragraph(example.description)[0]) if seen_as else ""
            texts.append(_text(text, "seen-as" if seen_as else "bad", caption))
        for text, wording in zip(found.texts[len(ours) :], past, strict=True):
            texts.append(_text(text, "bad" if wording.current else "older", wording.versions))
        rules[entry.qualname] = texts
    return rules


def _text(text: Text, kind: str, note: str) -> dict[str, Any]:
    return {
        "pattern": pattern_source(text.documented, text.names, text.exact),
        "known": text.known,
        "kind": kind,
        "note": note,
        "raised": text.raised,
        "exact": text.exact,
        "documented": text.documented if text.plain else "",
        "context": text.context,
        "code": text.code,
        "plain": text.plain,
        "sites": list(text.sites),
        "specific": text.specific,
    }


def search_entries(
    records: Sequence[EntryRecord], roots: Sequence[str], wordings: Iterable[Wording] = ()
) -> list[dict[str, Any]]:
    """What a search result shows of each entry, and the texts a reader may paste, each once."""
    past: dict[str, list[dict[str, str]]] = {}
    for wording in wordings:
        if not wording.current:
            text = strip_jax_note(wording.text).strip()
            past.setdefault(wording.qualname, []).append(
                {"text": text, "versions": wording.versions}
            )
    items = []
    for record in sorted(records, key=lambda r: r.qualname):
        messages: list[str] = []
        seen_as: list[dict[str, str]] = []
        for example, raw in record.raised_texts(roots):
            text = strip_jax_note(raw).strip()
            if not text:
                continue
            if example.kind is ExampleKind.SEEN_AS:
                seen_as.append({"text": text, "note": plain_text(example.caption)})
            elif text not in messages:
                messages.append(text)
        items.append(
            {
                "name": record.name,
                "qualname": record.qualname,
                "url": record.url,
                "headline": plain_text(record.summary),
                "messages": messages,
                "seen_as": seen_as,
                "older": past.get(record.qualname, []),
            }
        )
    return items
