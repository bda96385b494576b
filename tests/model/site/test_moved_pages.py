"""Page paths that other releases' errors print are read from the history and other runs."""

from __future__ import annotations

from flax_errors_ext.layout import SiteLayout
from flax_errors_ext.model.config.values import ModuleSpec
from flax_errors_ext.model.history.releases import (
    EntryRun,
    ExampleRun,
    History,
    Outcome,
    Release,
    ReleaseRun,
)
from flax_errors_ext.model.site.links import moved_pages, unforwarded

FLAX = "https://flax.readthedocs.io/en/latest"


def _history(*texts: str) -> History:
    runs = [
        ReleaseRun(
            Release(f"0.{n}.0", "0.4.13", "0.4.13", "3.11.7"),
            classes=("E",),
            entries={
                "E": EntryRun(True, (ExampleRun("c0de", Outcome.RAISED, "flax.errors.E", text),))
            },
        )
        for n, text in enumerate(texts, 4)
    ]
    return History(tuple(runs))


def test_a_page_an_old_release_linked_to_forwards_to_the_modules_page() -> None:
    spec = ModuleSpec("flax.errors", upstream=FLAX)
    history = _history(
        f"flax.errors.E: bad ({FLAX}/flax.errors.html#flax.errors.E)",
        f"flax.errors.E: bad ({FLAX}/api_reference/flax.errors.html#flax.errors.E)",
        # Another site's links, and text that climbs out of the site, are not moves.
        "flax.errors.E: see https://docs.jax.dev/en/latest/errors.html#jax.errors.X",
        f"flax.errors.E: ({FLAX}/../evil.html#x)",
    )

    assert moved_pages([spec], SiteLayout.of([spec]), {"flax.errors": history}) == {
        "flax.errors": "api_reference/flax.errors"
    }


def test_no_upstream_or_no_history_means_no_moves() -> None:
    history = _history(f"flax.errors.E: ({FLAX}/flax.errors.html#flax.errors.E)")
    assert moved_pages([ModuleSpec("flax.errors")], SiteLayout(), {"flax.errors": history}) == {}
    assert moved_pages([ModuleSpec("flax.errors", upstream=FLAX)], SiteLayout(), {}) == {}


def test_a_page_another_stack_linked_to_forwards_too() -> None:
    jax = ModuleSpec("jax.errors", page="errors", upstream="https://docs.jax.dev/en/latest")
    raised = [
        "jax.errors.KeyReuseError: consumed\n"
        "See https://docs.jax.dev/en/latest/101/errors.html#jax.errors.KeyReuseError\n",
        "jax.errors.KeyReuseError: consumed\n"
        "See https://docs.jax.dev/en/latest/errors.html#jax.errors.KeyReuseError\n",
    ]
    assert moved_pages([jax], SiteLayout.of([jax]), {}, raised) == {"101/errors": "errors"}


def test_a_link_to_a_page_neither_kept_nor_forwarded_is_named() -> None:
    jax = ModuleSpec("jax.errors", page="errors", upstream="https://docs.jax.dev/en/latest")
    layout = SiteLayout.of([jax])
    text = (
        "See https://docs.jax.dev/en/latest/101/errors.html#jax.errors.KeyReuseError, "
        "https://docs.jax.dev/en/latest/errors.html#jax.errors.KeyReuseError and "
        "https://docs.jax.dev/en/latest/guide.html#jax.errors.KeyReuseError"
    )
    assert unforwarded(jax, layout, text, forwarded={"101/errors"}) == ["guide"]
    assert unforwarded(jax, layout, text, forwarded=()) == ["101/errors", "guide"]
    assert unforwarded(ModuleSpec("jax.errors"), layout, text, forwarded=()) == []
