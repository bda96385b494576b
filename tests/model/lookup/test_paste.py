"""What a paste says: its exception line, even where the paste was cut before it."""

from __future__ import annotations

import pytest

from flax_errors_ext.model.lookup.paste import (
    chained_from,
    exception_line,
    message_body,
    opening_line,
    pasted_class,
    raised_at_site,
    raised_elsewhere,
    said_lines,
    shows_frame,
)
from flax_errors_ext.model.lookup.texts import Text

IPYTHON_CUT = """---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
Cell In[10], line 19
     17 x = 1
---> 19 model = nnx.Linear(2, 3)
File /usr/lib/python3/site-packages/flax/nnx/module.py:123, in Module.__init__(self)
    122 def f():
--> 123     raise TypeError("bad")
"""


def test_the_exception_line_of_a_traceback_is_its_last_error() -> None:
    paste = 'Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n'
    paste += "    f()\nValueError: boom\n"

    assert exception_line(paste) == "ValueError: boom"


CHAINED = """ValueError: Tuple arity mismatch: 1 != 2

During handling of the above exception, another exception occurred:

UnfilteredStackTrace                      Traceback (most recent call last)
UnfilteredStackTrace: ValueError: pytree structure error: different lengths of tuple
"""


def test_of_chained_errors_the_one_raised_last_is_read_after_ipythons_header() -> None:
    # IPython's header has no colon; before it, the error the last was raised from.
    last = "ValueError: pytree structure error: different lengths of tuple"
    assert exception_line(CHAINED) == last
    assert (
        exception_line(chained_from(CHAINED) or "") == "ValueError: Tuple arity mismatch: 1 != 2"
    )
    direct = CHAINED.replace(
        "During handling of the above exception, another exception occurred",
        "The above exception was the direct cause of the following exception",
    )
    assert chained_from(direct) == chained_from(CHAINED)
    assert chained_from("ValueError: one error alone") is None


def test_an_exception_named_after_other_words_on_its_line_is_the_one_raised() -> None:
    # A thread's title before the error, or a log's prefix.
    paste = 'Post-LN broken: flax.errors.ScopeParamNotFoundError: Could not find "scale"'

    assert pasted_class(paste) == "ScopeParamNotFoundError"
    assert message_body(paste) == 'Could not find "scale"'
    # A class that does not say it is one is a message's words, not an exception line.
    assert pasted_class("saved to disk: Model: 3 layers") == ""


COLAB_CUT = """---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
[<ipython-input-9-aeb06e66700c>](https://localhost:8080/#) in <cell line: 0>()
----> 2 frames = jax.vmap(f)(states)

    [... skipping hidden 7 frame]

[/usr/local/lib/python3.11/dist-packages/flax/nnx/extract.py](https://localhost:8080/#) in f(x)
--> 270       return jax.tree.map(maybe_split, tree, is_leaf=is_leaf)
"""


@pytest.mark.parametrize("paste", [IPYTHON_CUT, COLAB_CUT])
def test_a_paste_cut_before_its_exception_line_quotes_no_header_or_frame(paste: str) -> None:
    assert exception_line(paste) == ""
    assert said_lines(paste) == []


def test_a_paste_without_an_exception_line_is_read_from_its_last_line_naming_an_error() -> None:
    paste = "Epoch 3 done\nthe step raised a ShapeError in the dense layer\nsaving checkpoint\n"

    assert exception_line(paste) == "the step raised a ShapeError in the dense layer"
    assert exception_line("Epoch 3 done\nsaving checkpoint\n") == "saving checkpoint"


SITE = "flax/nnx/graphlib.py"
USER = "/home/me/train.py"
FLAX = "/venv/lib/python3.12/site-packages/flax/nnx"


def traceback(*files: str) -> str:
    """A Python traceback through ``files``, innermost last."""
    frames = "".join(f'  File "{file}", line 7, in f\n    g()\n' for file in files)
    error = "AttributeError: 'X' object has no attribute 'y'"
    return f"Traceback (most recent call last):\n{frames}{error}\n"


@pytest.mark.parametrize(
    ("paste", "elsewhere"),
    [
        (traceback(USER, f"{FLAX}/variablelib.py"), True),
        (traceback(USER, f"{FLAX}/graphlib.py"), False),
        # Shown whole, a traceback passes through the site to deeper frames.
        (traceback(USER, f"{FLAX}/graphlib.py", f"{FLAX}/variablelib.py"), False),
        # Raised in the reader's code or another library: the frames tell nothing.
        (traceback(USER), False),
        (traceback(USER, "/venv/lib/python3.12/site-packages/optax/_src/base.py"), False),
        ("AttributeError: 'X' object has no attribute 'y'", False),
        # A library that never calls into JAX raised the same words itself.
        (traceback(USER, "/venv/lib/python3.12/site-packages/numpy/_core/fromnumeric.py"), True),
        (traceback(USER, "/venv/lib/python3.12/site-packages/torch/nn/modules/module.py"), True),
        # A chained traceback's last error is the one raised.
        (
            traceback(f"{FLAX}/graphlib.py")
            + "\nDuring handling of the above exception, another exception occurred:\n\n"
            + traceback(f"{FLAX}/variablelib.py"),
            True,
        ),
        (IPYTHON_CUT + "TypeError: bad\n", True),
        (traceback(r"C:\venv\Lib\site-packages\flax\nnx\graphlib.py"), False),
    ],
)
def test_a_traceback_raised_by_another_file_of_the_library_is_raised_elsewhere(
    paste: str, elsewhere: bool
) -> None:
    assert raised_elsewhere(paste, [SITE]) is elsewhere


@pytest.mark.parametrize(
    "frame",
    [
        '  File "/venv/site-packages/flax/linen/summary.py", line 173, in _flatten',
        "File ~/venv/site-packages/flax/linen/summary.py:173, in _flatten(variables)",
        "/usr/local/lib/python3.10/dist-packages/flax/linen/summary.py in _flatten(variables)",
        "/usr/local/lib/python3.9/dist-packages/flax/linen/summary.py in <module>",
        r'  File "C:\venv\Lib\site-packages\flax\linen\summary.py", line 173, in _flatten',
        "[/usr/local/lib/python3.10/dist-packages/flax/linen/summary.py](https://localhost:8080/#)"
        " in _flatten(variables)",
    ],
)
def test_a_frame_of_the_library_is_seen_in_each_form_a_traceback_takes(frame: str) -> None:
    paste = f"{frame}\nKeyError: 'intermediates'\n"

    assert shows_frame(paste, "flax")
    assert not shows_frame(paste, "jax")
    assert not shows_frame(paste.replace("flax", "flaxlike"), "flax")


def test_jaxs_unfiltered_wrapper_is_not_the_class_raised() -> None:
    paste = 'File "x.py", line 3, in f\n'
    paste += "jax._src.traceback_util.UnfilteredStackTrace: ValueError: First argument passed\n"

    assert pasted_class(paste) == "ValueError"
    assert message_body(paste) == "First argument passed"
    assert exception_line(paste) == "ValueError: First argument passed"


def test_pythons_words_for_any_object_ask_for_a_frame_where_the_runs_raised_them() -> None:
    message = "unsupported operand type(s) for *: 'float' and 'dict'"
    raised = Text.of(message, plain=True, library="flax", sites=("optax/_src/transform.py",))

    assert raised.context == "optax"
    assert Text.of(message, plain=True, library="flax").context == "flax"
    assert Text.of("Module MLP has no setup", plain=True, library="flax").context == ""


def test_a_status_in_capitals_that_starts_a_message_is_not_its_class() -> None:
    pasted = "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 285212672 bytes."
    raised = "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch the kernel."

    assert pasted_class(pasted) == ""
    assert message_body(pasted) == pasted
    assert pasted_class(raised) == "XlaRuntimeError"
    assert message_body(raised) == "INTERNAL: Failed to launch the kernel."


WRAPPED = """  File "/venv/site-packages/keras/layers/t5.py", line 126, in call
    x = self.norm(x)
  File "/venv/site-packages/flax/nnx/pytreelib.py", line 748, in _check_valid_context
    raise errors.TraceContextError(error_msg())
flax.errors.TraceContextError: Exception encountered when calling Layer.call().
"""


@pytest.mark.parametrize(
    ("paste", "name", "at_site"),
    [
        (WRAPPED, "TraceContextError", True),
        (WRAPPED, "ScopeParamShapeError", False),  # another class's raise
        (WRAPPED.replace("pytreelib.py", "graphlib.py"), "TraceContextError", False),
        (WRAPPED.replace("    raise errors.TraceContextError(error_msg())\n", ""), "X", False),
        ("flax.errors.TraceContextError: Exception encountered", "TraceContextError", False),
    ],
)
def test_a_frame_that_raises_the_class_where_its_runs_did_names_the_error(
    paste: str, name: str, at_site: bool
) -> None:
    assert raised_at_site(paste, name, ["flax/nnx/pytreelib.py"]) is at_site


def test_a_message_pasted_without_its_class_opens_the_paste() -> None:
    paste = (
        "Attempted boolean conversion of traced array with shape bool[]..\n"
        "The error occurred while tracing the function f at f.py:3 for cond.\n\n"
        "  operation a:f64[] = convert_element_type[new_dtype=float64] b\n"
    )

    assert (
        opening_line(paste) == "Attempted boolean conversion of traced array with shape bool[].."
    )
    assert opening_line("ValueError: x\nmore") is None  # an exception line says where it is
    assert opening_line("one line alone") is None  # it is the whole message already


def test_pytests_marks_before_the_error_it_reports_are_no_part_of_the_message() -> None:
    paste = (
        ">       y = jax.vmap(loss)(w, x)\n"
        "E       ValueError: vmap was requested to map its argument along axis 0, which\n"
        "E       implies that its rank should be at least 1\n"
    )

    assert pasted_class(paste) == "ValueError"
    assert message_body(paste) == (
        "vmap was requested to map its argument along axis 0, which\n"
        "implies that its rank should be at least 1"
    )


@pytest.mark.parametrize(
    "pasted",
    [
        "\x1b[0;31mValueError\x1b[0m: shapes (3,) and (4,) differ",
        # Copied from a page that dropped the escape characters and kept the rest.
        "[0;31mValueError[0m: shapes (3,) and (4,) differ",
    ],
)
def test_a_terminals_colours_are_no_part_of_the_paste(pasted: str) -> None:
    assert pasted_class(pasted) == "ValueError"
    assert message_body(pasted) == "shapes (3,) and (4,) differ"
