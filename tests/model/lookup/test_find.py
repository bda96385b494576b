"""Finding an entry by name, URL or pasted message (``flax-errors explain``)."""

from __future__ import annotations

import re

import flax.errors
import jax
import jax.numpy as jnp
import pytest
from flax import linen as nn

from flax_errors_ext.errors import JitPytreeError
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.lookup.find import find, nearest, suggest
from flax_errors_ext.model.lookup.paste import bounded, message_body
from flax_errors_ext.model.lookup.patterns import message_pattern

ENTRIES = load_module("flax.errors").entries + (load_module("flax_errors_ext.errors").entries)


def best(query: str) -> str:
    """The dotted name of the best match; fails when there is none."""
    matches = find(ENTRIES, query)
    assert matches, f"nothing matches {query!r}"
    return matches[0].entry.qualname


def without_link(message: str) -> str:
    """The message as someone might paste it: no class, no link."""
    return re.split(r" \(https://|\nSee https://", message, maxsplit=1)[0]


def flax_message(name: str, *args: object) -> str:
    """The message Flax's own error class ``name`` builds from ``args``."""
    return str(getattr(flax.errors, name)(*args))


@pytest.mark.parametrize(
    "query",
    [
        "ScopeParamShapeError",
        "flax.errors.ScopeParamShapeError",
        "scopeparamshapeerror",
        "https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#flax.errors.ScopeParamShapeError",
    ],
)
def test_by_name_or_url(query: str) -> None:
    matches = find(ENTRIES, query)

    assert [m.entry.qualname for m in matches] == ["flax.errors.ScopeParamShapeError"]
    assert matches[0].certain


def raised(function: object) -> str:
    """The message of the Flax error that calling ``function`` raises."""
    assert callable(function)
    with pytest.raises(flax.errors.FlaxError) as info:
        function()
    return str(info.value)


def shape_mismatch() -> None:
    class Encoder(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            return nn.Dense(16, name="proj")(x)

    variables = Encoder().init(jax.random.key(0), jnp.ones((2, 5)))
    Encoder().apply(variables, jnp.ones((2, 7)))


def missing_param() -> None:
    class Head(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            return nn.Dense(3, name="logits")(x)

    variables = Head().init(jax.random.key(0), jnp.ones((1, 2)))
    del variables["params"]["logits"]["kernel"]
    Head().apply(variables, jnp.ones((1, 2)))


def jax_own_error() -> str:
    """JAX's own error for a Module passed to a jitted function, without the hook."""

    class Encoder(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            return nn.Dense(2)(x)

    x = jnp.ones((1, 3))
    variables = Encoder().init(jax.random.key(0), x)
    step = jax.jit(lambda model, variables, x: model.apply(variables, x))
    with pytest.raises(TypeError) as info:
        step(Encoder(), variables, x)
    return f"TypeError: {info.value}"


# Real messages with other values than the documented ones: other parameter and
# collection names, deeper scope paths, other shapes, other module names.
PASTED = [
    (raised(shape_mismatch), "flax.errors.ScopeParamShapeError"),
    (raised(missing_param), "flax.errors.ScopeParamNotFoundError"),
    (
        flax_message("ScopeCollectionNotFound", "batch_stats", "var", "/Encoder/BatchNorm_3"),
        "flax.errors.ScopeCollectionNotFound",
    ),
    (
        flax_message("ModifyScopeVariableError", "cache", "index", "/Decoder/Attention_0"),
        "flax.errors.ModifyScopeVariableError",
    ),
    (
        flax_message("ScopeVariableNotFoundError", "scale", "stats", "/Block_4/Norm"),
        "flax.errors.ScopeVariableNotFoundError",
    ),
    (flax_message("InvalidFilterError", 42), "flax.errors.InvalidFilterError"),
    (
        flax_message("NameInUseError", "param", "kernel", "Encoder"),
        "flax.errors.NameInUseError",
    ),
    (
        str(JitPytreeError("Encoder", "state['model']")),
        "flax_errors_ext.errors.JitPytreeError",
    ),
]


@pytest.mark.parametrize(("message", "qualname"), PASTED, ids=[q for _, q in PASTED])
def test_pasted_message_without_class_or_link(message: str, qualname: str) -> None:
    assert best(without_link(message)) == qualname


@pytest.mark.parametrize(("message", "qualname"), PASTED, ids=[q for _, q in PASTED])
def test_pasted_message_with_its_link(message: str, qualname: str) -> None:
    match = find(ENTRIES, message)[0]

    assert match.entry.qualname == qualname
    assert match.how == "url"


def test_jaxs_own_error_for_a_module_finds_jit_pytree_error() -> None:
    """The "also seen as" message, for a class defined in a function (``<locals>``)."""
    message = jax_own_error()
    assert "<locals>.Encoder'>" in message

    assert best(message) == "flax_errors_ext.errors.JitPytreeError"


def test_pasted_traceback_names_the_error_raised_last() -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    state = restore(path)\n"
        "KeyError: 'params'\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n"
        'flax.errors.ScopeParamNotFoundError: Could not find parameter named "w" in scope "/".\n'
    )

    assert best(traceback) == "flax.errors.ScopeParamNotFoundError"


def test_an_error_that_matches_nothing_is_answered_by_the_one_it_was_raised_from() -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        'flax.errors.ScopeParamNotFoundError: Could not find parameter named "w" in scope "/".\n'
        "\nThe above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\n"
        "RuntimeError: the training loop stopped\n"
    )

    assert best(traceback) == "flax.errors.ScopeParamNotFoundError"
    assert find(ENTRIES, traceback.split("\nThe above")[1]) == []


def test_the_message_is_matched_not_the_jax_note() -> None:
    message = (
        'flax.errors.SomethingNew: For parameter "bias" in "/Dense_1", the given initializer '
        "is expected to generate shape (3,), but the existing parameter it received has shape "
        "(2,).\n--------------------\nFor simplicity, JAX has removed its internal frames."
    )

    assert message_body(message).endswith("has shape (2,).")
    assert best(message) == "flax.errors.ScopeParamShapeError"


def test_identical_messages_are_all_offered() -> None:
    """Flax 0.12.8 raises two errors with one text; only the URL tells them apart."""
    matches = find(ENTRIES, "Can't call compact methods on unbound modules")

    assert {m.entry.name for m in matches if m.how == "message"} == {
        "CallCompactUnboundModuleError",
        "CallSetupUnboundModuleError",
    }


def test_message_pattern_treats_values_as_variable() -> None:
    pattern = message_pattern(
        'For parameter "kernel" in "/Dense_0", shape (4, 8), got (3, 8) at step 10 in ...'
    )

    assert pattern.search('For parameter "w" in "/A/B_2", shape (), got (7,) at step 3 in x y')
    assert not pattern.search('For buffer "w" in "/A", shape (1,), got (7,) at step 3 in x')


def test_unknown_names_get_suggestions() -> None:
    assert find(ENTRIES, "ScopeParamShape") == []
    assert suggest(ENTRIES, "ScopeParamShape")[0] == "flax.errors.ScopeParamShapeError"
    assert find(ENTRIES, "the weather is nice today, thank you") == []


def test_a_long_paste_is_looked_at_by_its_ends() -> None:
    text = "a" * 100 + "b" * 50_000 + "c" * 100
    kept = bounded(text, keep=1000)
    assert len(kept) == 2001
    assert kept.startswith("a" * 100)
    assert kept.endswith("c" * 100)
    assert bounded("short", keep=1000) == "short"


def test_a_message_after_a_megabyte_of_log_is_found() -> None:
    noise = "".join(f"step {n}: loss {n % 7}.{n % 13}\n" for n in range(60_000))
    message = (
        'flax.errors.ScopeParamShapeError: For parameter "kernel" in "/Dense_0", the given '
        "initializer is expected to generate shape (4, 4), but the existing parameter it "
        "received has shape (3, 3)."
    )
    assert len(noise) > 1_000_000
    (best, *_) = find(ENTRIES, noise + message)
    assert best.entry.name == "ScopeParamShapeError"


def test_a_message_longer_than_is_compared_is_found_by_its_opening_words() -> None:
    """A static argument printed whole (an optimizer state of arrays) between the words."""
    entries = load_module("jax.messages").entries
    state = ", ".join(f"{n / 7:.8e}" for n in range(600))
    paste = (
        "ValueError: Non-hashable static arguments are not supported. An error occurred while"
        " trying to hash an object of type <class 'jax.example_libraries.optimizers."
        f"OptimizerState'>, OptimizerState(packed_state=([array([{state}])],)). The error was:\n"
        "TypeError: unhashable type: 'list'\n"
    )
    assert len(paste) > 8_000

    assert find(entries, paste)[0].entry.qualname == "jax.messages.NonHashableStaticArgument"


def test_text_that_resembles_no_error_gets_no_suggestion() -> None:
    assert suggest(ENTRIES, "the weather was fine and the kettle boiled twice") == []
    assert suggest(ENTRIES, "ScopeParamShapeErorr") == ["flax.errors.ScopeParamShapeError"]


def test_a_class_named_does_not_claim_a_message_unlike_its_entrys() -> None:
    x64_on_tpu = (
        "jax.errors.JaxRuntimeError: UNIMPLEMENTED: While rewriting computation to not contain "
        "X64 element types, XLA encountered an HLO for which this rewriting is not implemented"
    )

    assert find(load_module("jax.errors").entries, x64_on_tpu) == []


def test_a_class_under_its_old_name_finds_the_entry_of_its_new_one() -> None:
    paste = (
        "jaxlib.xla_extension.XlaRuntimeError: NOT_FOUND: No FFI handler registered for "
        "rms_norm on a platform Host (canonical host)"
    )

    (best, *_) = find(load_module("jax.errors").entries, paste)

    assert best.entry.qualname == "jax.errors.JaxRuntimeError"


def test_the_same_words_raised_elsewhere_in_the_library_are_not_claimed() -> None:
    entries = load_module("flax.messages").entries
    qualname = "flax.messages.CachedPartialRawArrayAttribute"
    sites = {qualname: {0: ("flax/nnx/graphlib.py",)}}
    paste = (
        'Traceback (most recent call last):\n  File "/home/me/train.py", line 3, in <module>\n'
        '    save(model)\n  File "/venv/site-packages/flax/nnx/{file}", line 9, in f\n'
        "    return v.get_raw_value()\n"
        "AttributeError: 'jaxlib._jax.ArrayImpl' object has no attribute 'get_raw_value'\n"
    )

    at_site = find(entries, paste.format(file="graphlib.py"), None, sites)
    elsewhere = find(entries, paste.format(file="variablelib.py"), None, sites)

    assert [m.entry.qualname for m in at_site][:1] == [qualname]
    assert qualname not in [m.entry.qualname for m in elsewhere]
    # Without runs' sites, the library's frame is all the words ask for.
    assert find(entries, paste.format(file="variablelib.py"))[0].entry.qualname == qualname


def test_a_message_naming_another_api_in_a_documented_ones_words_is_not_claimed() -> None:
    entries = load_module("flax.messages").entries
    paste = (
        "ValueError: pytree structure error: different lengths of tuple at key path\n"
        "    {api}\nAt that key path, the prefix pytree {api} has a subtree of type tuple of "
        "length 2, but the full pytree has a subtree of the same type but of length 1."
    )
    qualname = "flax.messages.VmapInAxesLengthMismatch"

    assert [m.entry.qualname for m in find(entries, paste.format(api="tree_map tree"))][:1] == [
        qualname
    ]
    assert find(entries, paste.format(api="shard_map in_specs")) == []
    # Its first line alone names no API: it is still that entry's.
    assert find(entries, paste.split("\n", maxsplit=1)[0])[0].entry.qualname == qualname


def test_jaxs_words_for_any_function_are_claimed_only_under_a_flax_frame() -> None:
    """NNX's transforms copied JAX's words; JAX's custom_partitioning raises them alone."""
    entries = load_module("flax.messages").entries
    qualname = "flax.messages.TransformKeywordOnlyParameter"
    line = "TypeError: keyword arguments could not be resolved to positions\n"
    paste = (
        'Traceback (most recent call last):\n  File "/home/me/train.py", line 4, in <module>\n'
        "    y = nnx.vmap(layer_norm)(x)\n"
        '  File "/venv/site-packages/{file}", line 94, in resolve_kwargs\n'
        "    raise TypeError('keyword arguments could not be resolved to positions')\n" + line
    )

    found = find(entries, paste.format(file="flax/nnx/transforms/transforms.py"))

    assert [m.entry.qualname for m in found][:1] == [qualname]
    assert find(entries, paste.format(file="jax/_src/custom_partitioning.py")) == []
    assert find(entries, line) == []


def test_a_text_naming_the_librarys_own_class_beats_one_naming_any_class() -> None:
    """JAX's words for any non-array: an NNX ``Param`` is not a Linen Module (jax-ml/jax#24460)."""
    entries = ENTRIES + load_module("flax.messages").entries
    param = (
        "TypeError: Argument 'Param(value=Traced<ShapedArray(float32[3,3])>)' of type "
        "<class 'flax.nnx.variablelib.Param'> is not a valid JAX type."
    )
    module = "TypeError: Argument 'Net()' of type <class '__main__.Net'> is not a valid JAX type."

    assert find(entries, param)[0].entry.qualname == "flax.messages.VariableGivenToJaxFunction"
    assert find(entries, module)[0].entry.qualname == "flax_errors_ext.errors.JitPytreeError"
    assert "flax.messages.VariableGivenToJaxFunction" not in {
        m.entry.qualname for m in find(entries, module)
    }


def test_a_part_that_names_no_class_of_the_library_prefers_no_text_naming_one() -> None:
    """JAX's pytree words open three entries' texts; only the whole names NNX's State."""
    entries = load_module("jax.messages").entries + load_module("flax.messages").entries
    opening = "ValueError: pytree structure error: different types at key path\n    tree_map tree"
    whole = (
        f"{opening}\nAt that key path, the prefix pytree tree_map tree has a subtree of type\n"
        "    <class 'dict'>\nbut at the same key path the full pytree has a subtree of"
        " different type\n    <class 'flax.nnx.statelib.State'>."
    )
    labels = "flax.messages.OptimizerPartitionLabelsMismatch"

    assert find(entries, opening)[0].entry.qualname != labels
    assert find(entries, whole)[0].entry.qualname == labels


def test_a_message_pasted_without_its_class_is_found_by_its_first_line() -> None:
    """jaxopt#557: the message's first line, then a later part of it, no exception line."""
    entries = load_module("jax.errors").entries
    paste = (
        "Attempted boolean conversion of traced array with shape bool[]..\n"
        "The error occurred while tracing the function _update_interval at ls.py:286 for cond."
        " This value became a tracer due to JAX operations on these lines:\n\n"
        "  operation a:f64[] = convert_element_type[new_dtype=float64 weak_type=False] b\n"
    )

    assert find(entries, paste)[0].entry.qualname == "jax.errors.TracerBoolConversionError"


def test_a_message_another_library_wrapped_in_its_own_words_is_found_by_its_paragraph() -> None:
    entries = load_module("jax.errors").entries
    inner = "Attempted boolean conversion of traced array with shape bool[]."
    wrapped = (
        "TypeError: Exception encountered when calling Gate.call().\n\n"
        f"{inner}\n\nArguments received by Gate.call():\n  • x=tf.Tensor(shape=(None, 3))"
    )
    bool_error = "jax.errors.TracerBoolConversionError"

    assert find(entries, wrapped)[0].entry.qualname == bool_error
    # A paragraph that is only a part of a documented message is not enough.
    part = wrapped.replace(inner, "The error occurred while tracing the function f.")
    assert find(entries, part) == []


def test_a_hint_names_pythons_words_unframed_only_where_every_value_is_written() -> None:
    """'unfreeze' is written as it is; ToLinen's 'MLP.__call__() got ...' has wildcard names."""
    entries = load_module("flax.messages").entries
    unfreeze = nearest(entries, "AttributeError: 'dict' object has no attribute 'unfreeze'")
    keyword = nearest(entries, "TypeError: Foo.__call__() got an unexpected keyword argument 'z'")

    assert [m.entry.name for m in unfreeze if m.how == "message"] == ["FrozenDictMethodOnDict"]
    assert [m for m in keyword if m.how == "message"] == []


def test_an_error_no_release_raises_now_is_claimed_by_its_class_alone() -> None:
    # flax#3048: Flax 0.6 under JAX 0.4.6; today's Flax never raises it, so its entry has
    # no text for the message to be unlike.
    paste = "flax.errors.JaxTransformError: Jax transforms and Flax models cannot be mixed"

    assert [m.entry.qualname for m in find(ENTRIES, paste)][:1] == [
        "flax.errors.JaxTransformError"
    ]


def test_pythons_words_in_the_readers_code_are_claimed_where_the_paste_shows_the_call() -> None:
    """Flax 0.7.1's plain dicts: ``variables.pop('params')`` returns the value alone."""
    entries = load_module("flax.messages").entries
    line = "ValueError: too many values to unpack (expected 2)\n"
    paste = (
        'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n'
        "    {code}\n" + line
    )

    found = find(entries, paste.format(code='state, params = variables.pop("params")'))

    assert [m.entry.qualname for m in found][:1] == ["flax.messages.FrozenDictMethodOnDict"]
    assert find(entries, paste.format(code='a, b = line.split(",")')) == []
    assert find(entries, line) == []
