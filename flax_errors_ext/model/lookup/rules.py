"""What the site search needs to match a pasted error exactly as ``explain`` does.

The search page's script (``flax_errors_search.js``) runs the steps of
:func:`flax_errors_ext.model.lookup.find.find` in the reader's browser: the bare
name, the URL, the class the text names, and the message, matched against each
documented message's pattern or as a part of it, else nearly alike with its
distinctive values. What those steps need from Python is data, written here from
the same functions: each text's pattern
(:func:`~flax_errors_ext.model.lookup.patterns.pattern_source`) and normalised
form, the variable kinds that normalise the reader's text, and the thresholds.
The script holds no knowledge of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.catalogue.descriptions import first_paragraph
from flax_errors_ext.model.catalogue.records import ExampleKind
from flax_errors_ext.model.lookup.find import MESSAGE_CHARS, MIN_ALIKE, MIN_FRAGMENT
from flax_errors_ext.model.lookup.paste import PASTE_SYNTAX
from flax_errors_ext.model.lookup.patterns import DISTINCTIVE, pattern_source, variable_kinds
from flax_errors_ext.model.lookup.texts import findable
from flax_errors_ext.model.site.texts import plain_text

if TYPE_CHECKING:
    from collections.abc import Iterable

    from flax_errors_ext.model.catalogue.records import ErrorEntry
    from flax_errors_ext.model.lookup.texts import Text
    from flax_errors_ext.model.lookup.wordings import Wording


def matching_settings() -> dict[str, Any]:
    """What every text's match shares: the variable kinds and the thresholds."""
    return {
        "syntax": PASTE_SYNTAX,
        "kinds": variable_kinds(),
        "distinctive": list(DISTINCTIVE),
        "min_fragment": MIN_FRAGMENT,
        "min_alike": MIN_ALIKE,
        "message_chars": MESSAGE_CHARS,
    }


def entry_rules(entries: Iterable[ErrorEntry], wordings: Iterable[Wording]) -> dict[str, Any]:
    """Each entry's texts as the search matches them, by dotted name.

    Every text is ``{"pattern", "known", "kind", "note", "raised", "exact"}``, made
    from :func:`~flax_errors_ext.model.lookup.texts.findable`'s texts: ``kind`` is
    ``bad`` (today's documented message), ``seen-as`` (another error the same
    mistake raises; ``note`` is the example's caption) or ``older`` (a past
    release's wording; ``note`` its releases); ``raised`` the class a paste must
    name, and ``exact`` whether the text answers only a paste that shows it as
    written. Texts come in the order ``explain`` tries them.
    """
    older: dict[str, list[Wording]] = {}
    for wording in wordings:
        older.setdefault(wording.qualname, []).append(wording)
    rules: dict[str, Any] = {}
    for entry in entries:
        past = older.get(entry.qualname, [])
        found = findable(entry, [wording.text for wording in past])
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
        "plain": text.plain,
    }
