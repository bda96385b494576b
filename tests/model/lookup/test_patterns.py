"""What in a message is a value of one run: the patterns messages become."""

from __future__ import annotations

import textwrap

from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.lookup.patterns import (
    api_names,
    defined_names,
    example_names,
    library_classes,
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
    assert not pattern.search("of '<class 'torch.Tensor'>'.")  # another library's data


def test_a_class_written_in_full_is_the_librarys_own_under_any_module() -> None:
    documented = "Argument 'Param(...)' of type <class 'flax.nnx.variablelib.Param'> is not valid"
    pattern = message_pattern(documented)

    assert pattern.search(
        "Argument 'Param()' of type <class 'flax.nnx.variables.Param'> is not valid"
    )
    assert not pattern.search("Argument 'MLP()' of type <class '__main__.MLP'> is not valid")
    assert not pattern.search("Argument 'x' of type <class 'str'> is not valid")
    assert "Param" in literal_parts(documented)
    assert library_classes(documented) == 1


def test_a_class_elided_in_main_or_the_examples_own_is_any_class_of_the_reader() -> None:
    for documented in ("of type <class '...MLP'>", "of type <class '__main__.MLP'>"):
        assert library_classes(documented) == 0
        assert message_pattern(documented).search("of type <class 'model.layers.Net'>")
    own = "of type <class 'models.MLP'>"
    assert library_classes(own, frozenset({"MLP"})) == 0
    assert message_pattern(own, frozenset({"MLP"})).search("of type <class 'model.Net'>")


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
    # A class's special method is named by the class, which the reader's code chooses.
    assert api_names(normalise("Linear.__init__() missing 1 required argument")) == set()


def test_an_abstract_value_as_jax_prints_it_is_a_value_of_one_run() -> None:
    pattern = message_pattern(
        "Argument ... of shape float32[3] of type <class 'jax.ShapeDtypeStruct'>"
    )

    assert pattern.search(
        "Argument 'w' of shape bfloat16[1187,40] of type <class 'jax.ShapeDtypeStruct'>"
    )
    assert normalise("has type float32[2,4] not bool[]") == "has type <aval> not <aval>"


def test_a_parameter_handed_on_under_its_own_name_is_the_librarys_name() -> None:
    source = textwrap.dedent(
        """\
        A model built without rngs.

        Bad example:

          >>> class MLP:
          ...     def __init__(self, din, *, rngs):
          ...         self.linear = Linear(din, rngs=rngs)
          >>> raise TypeError("MLP.__init__() missing 1 required keyword-only argument: 'rngs'")
          Traceback (most recent call last):
            ...
          TypeError: MLP.__init__() missing 1 required keyword-only argument: 'rngs'
        """
    )
    example = parse_docstring(source, "demo.messages.X", "X.txt", 1, message=True).examples[0]

    assert "rngs" not in example_names(example)
    assert {"MLP", "din"} <= example_names(example)
