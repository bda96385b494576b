"""What in a message is a value of one run: the patterns messages become."""

from __future__ import annotations

import textwrap

from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.lookup.patterns import (
    api_names,
    defined_names,
    literal_parts,
    message_pattern,
    names_in,
    normalise,
)

ENTRY = textwrap.dedent(
    """\
    A Module keeps its layers in a plain list.

    Bad example:

      >>> class MLP:
      ...     def setup(self, rngs):
      ...         self.layers = []
      >>> raise ValueError("static attribute 'layers' of '<class '__main__.MLP'>'")
      Traceback (most recent call last):
        ...
      ValueError: static attribute 'layers' of '<class '...MLP'>'
    """
)
BAD = parse_docstring(ENTRY, "demo.messages.X", "X.txt", 1, message=True).examples[0]


def test_the_names_a_readers_code_has_of_its_own_are_the_classes_and_attributes() -> None:
    assert defined_names(BAD) == {"MLP", "layers"}
    message = "static attribute 'layers' of '<class '...MLP'>'"
    assert names_in(message, defined_names(BAD)) == ("layers", "MLP")


def test_a_type_quoted_again_matches_any_class_of_the_readers_code() -> None:
    pattern = message_pattern("of '<class '...MLP'>'.")

    assert pattern.search("of '<class 'model.layers.Net'>'.")
    assert not pattern.search("of '<class 'numpy.ndarray'>'.")


def test_a_repr_that_holds_a_repr_matches_one() -> None:
    pattern = message_pattern("argument to <function eval_step at 0x...> as an abstract array")

    assert pattern.search("argument to <function <lambda> at 0x7f194ba> as an abstract array")


def test_an_exact_message_matches_its_quoted_text_as_written_but_its_names() -> None:
    documented = "module 'flax' has no attribute 'optim'"
    exact = message_pattern(documented, exact=True)

    assert exact.search("module 'flax' has no attribute 'optim'")
    assert not exact.search("module 'flax' has no attribute 'nn'")
    assert message_pattern(documented).search("module 'flax' has no attribute 'nn'")
    assert "'optim'" in literal_parts(documented, exact=True)
    # A quoted name the example gives stands for the reader's own.
    named = message_pattern("no attribute 'layers'", frozenset({"layers"}), exact=True)
    assert named.search("no attribute 'blocks'")


def test_an_exact_messages_quoted_ellipsis_matches_any_text_as_doctest_does() -> None:
    documented = "unsupported operand type(s) for *: 'float' and '...'"

    exact = message_pattern(documented, exact=True)

    assert exact.search("unsupported operand type(s) for *: 'float' and 'MLP'")
    assert not exact.search("unsupported operand type(s) for *: 'int' and 'MLP'")
    assert "'...'" not in literal_parts(documented, exact=True)


def test_the_apis_a_message_names_are_its_names_written_as_code() -> None:
    flat = normalise(
        "the prefix pytree shard_map in_specs of 'loss_fn' has a subtree; see jax.vmap, e.g. x."
    )

    # Quoted text is a value of one run; "e.g." is a word.
    assert api_names(flat) == {"shard_map", "in_specs", "jax.vmap"}
