"""The catalogue's own entries, one test case each: well formed and fully documented."""

from __future__ import annotations

import pytest

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.layout import entry_url
from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleKind

OWN_ENTRIES = load_module("flax_errors_ext.errors").entries


@pytest.mark.parametrize("entry", OWN_ENTRIES, ids=str)
def test_entry_is_well_formed(entry: ErrorEntry) -> None:
    assert entry.problems == ()
    kinds = {example.kind for example in entry.examples}
    assert (
        {ExampleKind.BAD, ExampleKind.GOOD}
        <= kinds
        <= {
            ExampleKind.BAD,
            ExampleKind.GOOD,
            ExampleKind.SEEN_AS,
        }
    )
    for example in entry.examples:
        if example.kind is ExampleKind.BAD:
            # The documented text ends with the URL of the entry itself.
            assert entry_url(entry.qualname) in (example.statements[-1].exc_msg or "")
