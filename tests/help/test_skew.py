"""The help under a traceback answers version skews from the shipped API indexes."""

from __future__ import annotations

from flax_errors_ext.help import help_lines


def test_a_name_the_installed_release_lacks_is_answered_with_the_releases_that_have_it() -> None:
    lines = help_lines(AttributeError("module 'jax.random' has no attribute 'KeyArray'"))

    assert lines[0] == "help: jax.random.KeyArray is in jax 0.4.1 to 0.4.23."
    assert any("removed it in 0.4.24" in line for line in lines)


def test_a_name_the_installed_release_has_says_nothing() -> None:
    # A class of the user's named like Flax's: the error came from this very release.
    assert help_lines(AttributeError("'Variable' object has no attribute 'value'")) == ()


def test_a_name_no_release_has_offers_the_closest() -> None:
    (line,) = help_lines(AttributeError("module 'flax.nnx' has no attribute 'Optimzer'"))

    assert line.startswith("help: No release of flax from 0.6.0 to ")
    assert "Did you mean flax.nnx.Optimizer" in line
