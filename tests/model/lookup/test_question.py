"""What a pasted error says is missing, and the files of its frames."""

from __future__ import annotations

import pytest

from flax_errors_ext.model.lookup.question import Question, question


@pytest.mark.parametrize(
    ("paste", "asked"),
    [
        (
            "AttributeError: module 'lib' has no attribute 'tree_map'",
            Question("member", ("tree_map",), "lib"),
        ),
        (
            "ImportError: cannot import name 'Linear' from 'lib.nn' (/x/lib/nn.py)",
            Question("name", ("Linear",), "lib.nn"),
        ),
        (  # an older Python's words, without the module: the import pasted names it
            "from lib.nn import Linear as L ImportError: cannot import name 'Linear'",
            Question("name", ("Linear",), "lib.nn"),
        ),
        ("ImportError: cannot import name 'Linear'", Question("name", ("Linear",))),
        ("ModuleNotFoundError: No module named 'lib.nn'", Question("module", ("lib.nn",))),
        (
            "AttributeError: 'Model' object has no attribute 'value'",
            Question("attribute", ("value",), "Model"),
        ),
        (  # Linen's own words, in double quotes
            'AttributeError: "Model" object has no attribute "value"',
            Question("attribute", ("value",), "Model"),
        ),
        (
            "AttributeError: type object 'Model' has no attribute 'value'",
            Question("attribute", ("value",), "Model"),
        ),
        (
            "TypeError: Model.__init__() got an unexpected keyword argument 'x'",
            Question("keyword", ("x",), "Model.__init__"),
        ),
        (
            "TypeError: Opt.__init__() missing 1 required keyword-only argument: 'wrt'",
            Question("missing", ("wrt",), "Opt.__init__"),
        ),
        (
            "AttributeError: Unrecognized config option: jax_enable_bar",
            Question("option", ("jax_enable_bar",), "jax.config"),
        ),
        (  # without a frame, the option's prefix says whose configuration it is
            "LookupError: Unrecognized config option: lib_enable_bar",
            Question("option", ("lib_enable_bar",), "lib.config"),
        ),
        (  # a library still being imported (Python 3.12's words, then 3.13's with the path)
            "AttributeError: partially initialized module 'lib' has no attribute 'nn' "
            "(most likely due to a circular import)",
            Question("shadowed", ("lib",)),
        ),
        (
            "AttributeError: partially initialized module 'lib' from '/home/u/lib.py' has no "
            "attribute 'nn' (most likely due to a circular import)",
            Question("shadowed", ("lib",), "/home/u/lib.py"),
        ),
        (
            "ImportError: cannot import name 'nn' from partially initialized module 'lib' "
            "(most likely due to a circular import) (/home/u/lib.py)",
            Question("shadowed", ("lib",), "/home/u/lib.py"),
        ),
        (  # a folder named like the library may be a checkout of it: no path is said
            "ImportError: cannot import name 'nn' from partially initialized module 'lib' "
            "(most likely due to a circular import) (/home/u/lib/__init__.py)",
            Question("shadowed", ("lib",)),
        ),
        (  # Python 3.13 names the file it read a name from: one of the user's
            "ImportError: cannot import name 'nn' from 'lib' (/home/u/lib.py)",
            Question("shadowed", ("lib",), "/home/u/lib.py"),
        ),
        (  # the library's own file: a name it lacks
            "ImportError: cannot import name 'nn' from 'lib' (/v/site-packages/lib/__init__.py)",
            Question("name", ("nn",), "lib"),
        ),
        (
            "ImportError: cannot import name 'nn' from 'lib' (consider renaming "
            "'/home/u/lib.py' if it has the same name as a library you intended to import)",
            Question("shadowed", ("lib",), "/home/u/lib.py"),
        ),
        (  # Python 3.13's hint, where the file did not import itself
            "AttributeError: module 'lib' has no attribute 'nn' (consider renaming "
            "'/home/u/lib.py' if it has the same name as a third-party module you intended "
            "to import)",
            Question("shadowed", ("lib",), "/home/u/lib.py"),
        ),
        (  # a deprecation warning that pytest's -W error raised, or a user asks about
            "DeprecationWarning: lib.tree_map is deprecated: use lib.tree.map.",
            Question("name", ("tree_map",), "lib"),
        ),
        ("ValueError: too many values to unpack (expected 2)", None),
    ],
)
def test_an_exception_line_asks_what_is_missing(paste: str, asked: Question | None) -> None:
    assert question(paste) == asked


def test_the_question_is_read_from_the_exception_line_and_names_the_library_that_called() -> None:
    paste = """Traceback (most recent call last):
  File "/home/me/train.py", line 3, in <module>
    import optax
  File "/usr/lib/python3.11/site-packages/optax/_src/base.py", line 9, in <module>
    tree = lib.tree_map(f, x)
AttributeError: module 'lib' has no attribute 'tree_map'
"""
    asked = question(paste)

    assert asked is not None
    assert asked.names == ("tree_map",)
    assert asked.caller("lib") == "optax"
    assert asked.modules() == ["optax._src.base"]


def test_a_configuration_option_is_asked_of_the_library_that_raised() -> None:
    paste = """  File "/venv/lib/python3.12/site-packages/lib/config.py", line 78, in update
    raise LookupError(f'Unrecognized config option: {name}')
LookupError: Unrecognized config option: graph_mode
"""
    asked = question(paste)

    assert asked is not None
    assert (asked.kind, asked.names, asked.owner) == ("option", ("graph_mode",), "lib.config")
    # Not a module's name asked where another library's frame raised it.
    other = question(
        paste.replace(
            "Unrecognized config option: graph_mode", "module 'jax.config' has no attribute 'x'"
        )
    )
    assert other is not None
    assert other.owner == "jax.config"


@pytest.mark.parametrize(
    "frame",
    [
        '  File "/venv/lib/python3.12/site-packages/lib/vars.py", line 9, in __getattr__',
        "File /venv/lib/python3.12/site-packages/lib/vars.py:9, in Var.__getattr__(self, name)",
        "/venv/lib/python3.12/site-packages/lib/vars.py in __getattr__(self, name)",
    ],
)
def test_an_attribute_raised_in_an_installed_getattr_is_asked_of_its_module(frame: str) -> None:
    paste = f"{frame}\n    return getattr(self.value, name)\n"
    paste += "AttributeError: 'Coords' object has no attribute 'get_value'\n"
    asked = question(paste)

    assert asked is not None
    assert asked.forwarded == "lib.vars"
    # Raised in any other function, or in a file of no installed package: not forwarded.
    other = question(paste.replace("__getattr__", "get"))
    assert other is not None
    assert other.forwarded == ""
    checkout = question(paste.replace("site-packages/", ""))
    assert checkout is not None
    assert checkout.forwarded == ""


def test_a_warning_asked_of_names_the_file_that_caused_it_as_the_caller() -> None:
    warned = (
        "/venv/lib/python3.10/site-packages/chex/_src/pytypes.py:37: DeprecationWarning: "
        "lib.KeyArray is deprecated. Use lib.Array for annotations"
    )
    asked = question(warned)
    other = question(warned + "\nAttributeError: module 'lib' has no attribute 'tree_map'")

    assert asked is not None
    assert asked.caller("lib") == "chex"
    assert other is not None
    assert other.caller("lib") == ""  # the error asked of is not the warning


def test_a_warning_printed_with_its_file_and_line_is_not_a_frame() -> None:
    paste = """/venv/lib/python3.10/site-packages/bio/data.py:18: BioDeprecationWarning: It moves.
  warnings.warn(
/venv/lib/python3.10/site-packages/lib/_src/deprecations.py:54: in getattr
AttributeError: module 'lib' has no attribute 'linear_util'
"""
    asked = question(paste)

    assert asked is not None
    assert asked.frames == ("/venv/lib/python3.10/site-packages/lib/_src/deprecations.py",)
    assert asked.caller("lib") == ""
