"""Version skew: the question a pasted error asks, and the answer an API index gives."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.model.lookup.api_index import ApiIndex, ReleaseApi, merged
from flax_errors_ext.model.lookup.question import Question, question
from flax_errors_ext.model.lookup.skew import answer, answer_paste

if TYPE_CHECKING:
    from collections.abc import Sequence

RELEASES = ["0.1.0", "0.2.0", "0.3.0", "0.4.0"]
INDEX = merged(
    "lib",
    "lib",
    RELEASES,
    [
        (
            {"lib", "lib.tree_map", "lib.Model", "lib.Model.value", "lib.nn"},
            {"lib.Model": {"x"}},
            {},
            {"lib.Model": set()},
            set(),
        ),
        (
            {"lib", "lib.tree_map", "lib.Model", "lib.Model.value", "lib.nn"},
            {"lib.Model": {"x", "y"}},
            {"lib.tree_map": "Use lib.tree.map."},
            {},
            set(),
        ),
        (
            {"lib", "lib.tree", "lib.Model", "lib.Opt", "lib.nn"},
            {"lib.Model": {"y"}, "lib.Opt": {"wrt", "!wrt"}},
            {"lib.tree_map": "lib.tree_map was removed; use lib.tree.map."},
            {},
            set(),
        ),
        (
            {"lib", "lib.tree", "lib.Model", "lib.Opt", "lib.nn", "lib.nn.Linear"},
            {"lib.Model": {"y"}, "lib.Opt": {"wrt"}},
            {},
            {},
            set(),
        ),
    ],
)


def two_releases(
    *apis: tuple[set[str], dict[str, set[str]]], releases: Sequence[str] = ("1.0", "2.0")
) -> ApiIndex:
    """An index of ``lib`` whose releases have these names and parameters alone."""
    return merged(
        "lib", "lib", releases, [(names, params, {}, {}, set()) for names, params in apis]
    )


def test_a_removed_name_is_answered_with_the_release_that_removed_it_and_its_message() -> None:
    found = answer_paste(
        "AttributeError: module 'lib' has no attribute 'tree_map'", [INDEX], {"lib": "0.4.0"}
    )

    assert found is not None

    assert found.definite
    assert found.lines() == (
        "lib.tree_map is in lib 0.1.0 to 0.2.0.",
        "lib's own message: lib.tree_map was removed; use lib.tree.map.",
        "You have lib 0.4.0; lib removed it in 0.3.0. Pin 'lib<0.3.0', "
        "or change the code as lib 0.4.0 has it.",
    )


def test_an_added_name_says_to_upgrade_and_names_the_calling_library() -> None:
    asked = Question("name", ("Linear",), "lib.nn", frames=("/venv/site-packages/orbax/io.py",))

    found = answer(asked, [INDEX], {"lib": "0.2.0"})

    assert found is not None
    assert found.lines()[1:] == (
        "You have lib 0.2.0: upgrade to 'lib>=0.4.0'.",
        # orbax is the newer of the two: upgrading it cannot help.
        "The call is made by orbax, which was written for lib 0.4.0 and later: "
        "upgrade to 'lib>=0.4.0', or use an older orbax.",
    )
    assert found.help_lines()[0] == "help: lib.nn.Linear is in lib 0.4.0."
    assert found.help_lines()[1].startswith("      You have")


def test_parameters_are_answered_by_the_releases_that_take_or_require_them() -> None:
    keyword = answer_paste(
        "TypeError: Model.__init__() got an unexpected keyword argument 'x'", [INDEX], {}
    )
    missing = answer_paste(
        "TypeError: Opt.__init__() missing 1 required keyword-only argument: 'wrt'",
        [INDEX],
        {"lib": "0.3.0"},
    )

    assert keyword is not None

    assert keyword.lines() == ("the keyword 'x' of lib.Model is in lib 0.1.0 to 0.2.0.",)
    assert missing is not None
    assert missing.lines()[0] == "lib.Opt requires 'wrt' in lib before 0.4.0; lib 0.4.0 did not."


def test_a_parameter_every_release_requires_is_answered_by_the_one_required_since() -> None:
    # update(grads) became update(model, grads): a call written before lacks 'grads' now.
    index = two_releases(
        ({"lib.Opt", "lib.Opt.update"}, {"lib.Opt.update": {"grads", "!grads"}}),
        (
            {"lib.Opt", "lib.Opt.update"},
            {"lib.Opt.update": {"model", "!model", "grads", "!grads"}},
        ),
        releases=("0.1.0", "0.2.0"),
    )

    found = answer_paste(
        "TypeError: Opt.update() missing 1 required positional argument: 'grads'",
        [index],
        {"lib": "0.2.0"},
    )

    assert found is not None
    assert found.lines()[0] == (
        "lib.Opt.update requires 'model' since lib 0.2.0; lib 0.1.0 did not."
    )


def test_a_library_hidden_by_a_file_of_the_users_is_answered_with_renaming_it() -> None:
    named = answer_paste(
        "ImportError: cannot import name 'nn' from partially initialized module 'lib' "
        "(most likely due to a circular import) (/home/u/lib.py)",
        [INDEX],
        {"lib": "0.4.0"},
    )
    unnamed = answer_paste(
        "AttributeError: partially initialized module 'lib' has no attribute 'nn' "
        "(most likely due to a circular import)",
        [INDEX],
        {"lib": "0.4.0"},
    )
    own = answer_paste(  # a cycle inside the installed library: no file hides it
        "ImportError: cannot import name 'nn' from partially initialized module 'lib' "
        "(most likely due to a circular import) (/venv/lib/python3.11/site-packages/lib/a.py)",
        [INDEX],
        {},
    )

    assert named is not None
    assert named.definite
    assert named.lines() == (
        "/home/u/lib.py is not lib: a file of yours named like lib's package 'lib', "
        "which Python imported in its place.",
        "Rename it (and delete the __pycache__ folder beside it), so that 'import lib' finds lib.",
    )
    assert unnamed is not None
    assert unnamed.lines()[0].endswith(
        "lib's own import stopped part way (its releases and those of what it needs do not "
        "go together, such as jax and jaxlib, or an install was interrupted), or a file or "
        "folder of yours named 'lib' (lib.py) beside your code hides lib."
    )
    assert own is not None
    assert own.every_release == "unfinished"
    assert "hides" not in " ".join(own.lines())


@pytest.mark.parametrize(
    "paste",
    [
        # google-deepmind/dm-haiku#385 (fixed by upgrading JAX)
        "AttributeError: partially initialized module 'jax' has no attribute '_src' "
        "(most likely due to a circular import)",
        # dattalab/keypoint-moseq#240 (an installation's releases)
        "AttributeError: partially initialized module 'jax' has no attribute 'version' "
        "(most likely due to a circular import)",
    ],
)
def test_a_library_used_while_being_imported_is_answered_without_a_release(paste: str) -> None:
    jax = dataclasses.replace(INDEX, distribution="jax", package="jax")

    found = answer_paste(paste, [jax], {"jax": "0.4.13"})

    assert found is not None
    assert found.definite
    assert found.lines()[0].startswith(
        "'jax' was used while it was still being imported: jax's own import stopped part way"
    )


def test_an_attribute_is_looked_up_on_the_class_of_that_name() -> None:
    found = answer_paste(
        "AttributeError: 'Model' object has no attribute 'value'", [INDEX], {"lib": "0.3.0"}
    )

    assert found is not None

    assert found.definite
    assert found.subject == "lib.Model.value"
    assert found.having == ("0.1.0", "0.2.0")


def test_a_name_no_release_has_gets_the_names_most_like_it_and_is_not_definite() -> None:
    found = answer_paste(
        "AttributeError: module 'lib' has no attribute 'tre'", [INDEX], {"lib": "0.4.0"}
    )

    assert found is not None

    assert not found.definite
    assert found.lines() == (
        "No release of lib from 0.1.0 to 0.4.0 has lib.tre. Did you mean lib.tree?",
    )


def test_an_installed_release_that_has_it_is_not_a_definite_skew() -> None:
    found = answer_paste(
        "AttributeError: module 'lib' has no attribute 'tree'", [INDEX], {"lib": "0.4.0"}
    )

    assert found is not None

    assert not found.definite
    assert "lib 0.4.0 (installed here) has it" in found.lines()[-1]


def test_of_two_classes_of_one_name_the_traceback_chooses() -> None:
    index = merged(
        "lib",
        "lib",
        ["1.0", "2.0"],
        [
            (
                {"lib.a.Var", "lib.a.Var.value", "lib.b.Var"},
                {},
                {},
                {"lib.a.Var": set(), "lib.b.Var": set()},
                set(),
            ),
            ({"lib.a.Var", "lib.a.Var.value", "lib.b.Var", "lib.b.Var.value"}, {}, {}, {}, set()),
        ],
    )
    paste = """  File "/venv/lib/python3.12/site-packages/lib/b/variables.py", line 4, in get
AttributeError: 'Var' object has no attribute 'value'"""

    found = answer_paste(paste, [index], {"lib": "1.0"})

    assert found is not None

    assert found.subject == "lib.b.Var.value"
    assert found.definite


def test_errors_about_other_libraries_are_not_answered() -> None:
    assert (
        answer_paste("AttributeError: module 'numpy' has no attribute 'float'", [INDEX], {})
        is None
    )
    assert (
        answer_paste("AttributeError: 'Trainer' object has no attribute 'step'", [INDEX], {})
        is None
    )
    assert answer_paste("KeyError: 'params'", [INDEX], {}) is None


def _caller(uses: list[set[str]]) -> ApiIndex:
    """An index of optax's releases 1.0 to 1.2, each using ``uses``'s names of lib."""
    return merged(
        "optax", "optax", ["1.0", "1.1", "1.2"], [(set(), {}, {}, {}, used) for used in uses]
    )


CALLED_BY_OPTAX = """Traceback (most recent call last):
  File "/usr/lib/python3.11/site-packages/optax/_src/base.py", line 9, in <module>
    tree = lib.tree_map(f, x)
AttributeError: module 'lib' has no attribute 'tree_map'
"""


def test_the_caller_that_stopped_using_a_removed_name_names_the_release_to_upgrade_to() -> None:
    optax = _caller([{"lib.tree_map"}, {"lib.tree_map"}, {"lib.tree.map"}])

    found = answer_paste(CALLED_BY_OPTAX, [INDEX, optax], {"lib": "0.4.0", "optax": "1.1"})

    assert found is not None
    assert found.lines()[-1] == (
        "The call is made by optax, whose releases 1.0 to 1.1 use lib.tree_map; 1.2 and later "
        "do not: upgrade to 'optax>=1.2' (you have 1.1), or pin lib as above."
    )
    # explain reads this environment's versions: the paste's may be another's.
    here = answer_paste(CALLED_BY_OPTAX, [INDEX, optax], {"lib": "0.4.0", "optax": "1.2"})
    assert here is not None
    assert "'optax>=1.2' (optax 1.2, installed here, does not use it)" in here.lines()[-1]


def test_a_caller_whose_every_release_uses_the_name_asks_for_the_pin() -> None:
    optax = _caller([set(), {"lib.tree_map"}, {"lib.tree_map"}])

    found = answer_paste(CALLED_BY_OPTAX, [INDEX, optax], {"lib": "0.4.0"})

    assert found is not None
    assert found.lines()[-1] == (
        "The call is made by optax, whose releases 1.1 to 1.2 use lib.tree_map, up to its "
        "newest indexed (1.2): pin lib as above."
    )
    # Without the caller's index, only its name is known.
    alone = answer_paste(CALLED_BY_OPTAX, [INDEX], {"lib": "0.4.0"})
    assert alone is not None
    assert alone.lines()[-1].startswith("The call is made by optax, which was written for")


def test_a_caller_that_uses_a_name_added_later_asks_for_that_release_or_an_older_caller() -> None:
    optax = _caller([set(), {"lib.tree"}, {"lib.tree"}])
    paste = CALLED_BY_OPTAX.replace("lib.tree_map(f, x)", "lib.tree.map(f, x)").replace(
        "'tree_map'", "'tree'"
    )

    found = answer_paste(paste, [INDEX, optax], {"lib": "0.2.0"})

    assert found is not None
    assert found.lines()[-1] == (
        "The call is made by optax, whose releases 1.1 to 1.2 use lib.tree, up to its "
        "newest indexed (1.2): use 'lib>=0.3.0', or 'optax<1.1'."
    )


def test_a_call_with_more_positional_arguments_than_the_release_takes_is_answered() -> None:
    index = two_releases(
        ({"lib.Dense", "lib.Dense.__call__"}, {"lib.Dense.__call__": {"x", "#1"}}),
        ({"lib.Dense", "lib.Dense.__call__"}, {"lib.Dense.__call__": {"x", "rngs", "#2"}}),
    )
    paste = "TypeError: Dense.__call__() takes 2 positional arguments but 3 were given"

    found = answer_paste(paste, [index], {"lib": "1.0"})

    assert question(paste) == Question("positional", ("3",), "Dense.__call__")
    assert found is not None
    assert found.definite
    assert found.lines()[:2] == (
        "lib.Dense.__call__ takes 3 positional arguments in lib 2.0.",
        "You have lib 1.0: upgrade to 'lib>=2.0'.",
    )
    # As many as every release takes: not a skew, the call is wrong.
    assert answer_paste(paste.replace("3 were", "2 were"), [index], {}) is None


VARS = merged(
    "lib",
    "lib",
    ["1.0", "2.0", "3.0"],
    [
        (
            {"lib.Var", "lib.C", "lib.vars", "lib.vars.Var", "lib.vars.C", *more},
            {},
            {},
            {"lib.Var": set(), "lib.C": {"lib.Var"}, "lib.Module": set()},
            set(),
        )
        for more in (set(), {"lib.Var.get_value"}, {"lib.Var.get_value"})
    ],
)
FORWARDED = """Traceback (most recent call last):
  File "/home/me/model.py", line 88, in run
    coords = self.coords.get_value()
  File "/venv/lib/python3.12/site-packages/lib/vars.py", line 412, in __getattr__
    return getattr(self.raw_value, name)
AttributeError: 'Coords' object has no attribute 'get_value'
"""


def test_an_attribute_a_librarys_getattr_forwarded_is_asked_of_its_modules_classes() -> None:
    found = answer_paste(FORWARDED, [VARS], {"lib": "1.0"})

    assert found is not None
    # Of lib.Var and its subclass lib.C, the class whose own attribute it is.
    assert found.subject == "lib.Var.get_value"
    assert found.definite
    assert found.lines()[1] == "You have lib 1.0: upgrade to 'lib>=2.0'."
    # Raised elsewhere, the value's class is asked: the library has none of that name.
    assert answer_paste(FORWARDED.replace("__getattr__", "get"), [VARS], {}) is None


def test_an_attribute_every_release_has_is_answered_where_the_librarys_getattr_ran() -> None:
    paste = FORWARDED.replace("vars.py", "module.py").replace("'Coords'", '"Foo"')
    paste = paste.replace("'get_value'", '"tabulate"')
    names = {**VARS.names, "lib.Module": "0-2", "lib.module.Module": "0-2"}
    names["lib.Module.tabulate"] = "0-2"
    module = dataclasses.replace(VARS, names=names)

    found = answer_paste(paste, [module], {"lib": "3.0"})

    assert found is not None
    assert not found.definite
    assert found.lines() == (
        "lib.Module.tabulate is in lib 1.0 to 3.0.",
        "lib 3.0 (installed here) has it: the code ran with another release.",
    )


def test_a_private_name_is_answered_as_private_and_its_caller_asked_to_upgrade() -> None:
    found = answer_paste("AttributeError: module 'lib' has no attribute '_src'", [INDEX], {})

    assert found is not None
    assert not found.definite
    assert found.lines() == (
        "lib._src is private to lib: code outside lib must not rely on it, and its releases "
        "change it without notice.",
        "Upgrade the code that uses it to a release written for your lib, or pin lib to the "
        "one it was written for.",
    )
    called = answer_paste(CALLED_BY_OPTAX.replace("'tree_map'", "'_src'"), [INDEX], {})
    assert called is not None
    assert called.lines()[1].startswith("Upgrade optax, which makes the call, to a release")


def test_a_keyword_no_named_callable_takes_is_asked_of_the_few_that_took_it() -> None:
    # No callable named (older Pythons), or the user's, to which a library passed it on.
    unnamed = answer_paste("TypeError: got an unexpected keyword argument 'x'", [INDEX], {})
    forwarded = answer_paste(
        "TypeError: CNN.__call__() got an unexpected keyword argument 'y'",
        [INDEX],
        {"lib": "0.1.0"},
    )
    elsewhere = answer_paste(
        'File "/venv/site-packages/pandas/frame.py", line 3, in drop\n'
        "TypeError: got an unexpected keyword argument 'x'",
        [INDEX],
        {},
    )

    assert unnamed is not None
    assert unnamed.lines() == ("the keyword 'x' of lib.Model is in lib 0.1.0 to 0.2.0.",)
    assert forwarded is not None
    assert forwarded.lines() == (
        "the keyword 'y' of lib.Model is in lib 0.2.0 to 0.4.0.",
        "You have lib 0.1.0: upgrade to 'lib>=0.2.0'.",
    )
    assert elsewhere is None


def test_a_keyword_many_callables_took_or_dropped_is_not_answered() -> None:
    names = {f"lib.f{n}" for n in range(4)}
    index = merged(
        "lib",
        "lib",
        RELEASES[:2],
        [
            ({"lib", *names}, {}, {}, {}, set()),
            ({"lib", *names}, {name: {"axis"} for name in names}, {}, {}, set()),
        ],
    )

    assert (
        answer_paste("TypeError: got an unexpected keyword argument 'axis'", [index], {}) is None
    )


def test_a_modules_name_every_release_has_is_a_library_older_than_the_index() -> None:
    pasted = "ImportError: cannot import name 'Model' from 'lib' (/x/lib/__init__.py)"

    unknown = answer_paste(pasted, [INDEX], {})
    older = answer_paste(pasted, [INDEX], {"lib": "0.0.9"})
    newer = answer_paste(pasted, [INDEX], {"lib": "0.4.0"})

    assert unknown is not None
    assert older is not None
    assert newer is not None
    assert unknown.every_release == "older"
    assert unknown.having == tuple(RELEASES)
    assert unknown.lines() == (
        "lib.Model is in every release of lib the index read (0.1.0 to 0.4.0).",
        "So the lib that ran is older than 0.1.0 (upgrade to 'lib>=0.1.0'), or a file or "
        "folder named 'lib' beside your code hides lib: rename it.",
    )
    assert older.definite
    assert older.lines()[1] == "You have lib 0.0.9: upgrade to 'lib>=0.1.0'."
    assert not newer.definite  # the help under a traceback stays silent: it cannot tell
    assert "which has it" in newer.lines()[1]


def test_a_submodule_read_as_an_attribute_is_to_import_and_one_imported_is_older() -> None:
    never_imported = answer_paste(
        "AttributeError: module 'lib' has no attribute 'nn'", [INDEX], {}
    )
    imported = answer_paste(
        "ImportError: cannot import name 'nn' from 'lib' (/x/lib/__init__.py)", [INDEX], {}
    )

    assert never_imported is not None
    assert imported is not None
    assert never_imported.every_release == "import"
    assert never_imported.lines() == (
        "lib.nn is in every release of lib the index read (0.1.0 to 0.4.0), as a module "
        "that importing lib does not import.",
        "Import it before use: 'import lib.nn' (or 'from lib import nn'); a lib older than "
        "0.1.0 may lack it.",
    )
    assert imported.every_release == "older"
    # Under a traceback, where the installed release has the module, only the import helps.
    installed = answer_paste(
        "AttributeError: module 'lib' has no attribute 'nn'", [INDEX], {"lib": "0.4.0"}
    )
    assert installed is not None
    assert installed.definite


def test_a_name_the_librarys_own_frame_misses_is_a_half_done_install_not_answered() -> None:
    half_installed = (
        '  File "/x/site-packages/lib/core.py", line 3, in <module>\n'
        "    lib.Model\n"
        "AttributeError: module 'lib' has no attribute 'Model'"
    )

    assert answer_paste(half_installed, [INDEX], {}) is None


def test_a_bare_callables_parameters_are_not_asked_where_the_frames_show_other_libraries() -> None:
    pasted = "TypeError: Model() got an unexpected keyword argument 'y'"
    framed = '  File "/x/site-packages/tracer/collections.py", line 30, in f\n' + pasted
    own = '  File "/home/me/train.py", line 3, in <module>\n' + pasted

    assert answer_paste(framed, [INDEX], {}) is None
    assert answer_paste(pasted, [INDEX], {}) is not None
    assert answer_paste(own, [INDEX], {}) is not None


def test_a_keyword_no_release_names_is_answered_by_the_releases_that_take_any() -> None:
    """flax#5412: nnx.LoRA.__call__ took **kwargs only from flax 0.12.7 on."""
    index = two_releases(
        ({"lib", "lib.LoRA", "lib.LoRA.__call__"}, {"lib.LoRA.__call__": {"x"}}),
        ({"lib", "lib.LoRA", "lib.LoRA.__call__"}, {"lib.LoRA.__call__": {"x", "**"}}),
        releases=RELEASES[:2],
    )

    found = answer_paste(
        "TypeError: LoRA.__call__() got an unexpected keyword argument 'w'",
        [index],
        {"lib": "0.1.0"},
    )

    assert found is not None
    assert found.lines() == (
        "the **kwargs (any keyword, 'w' too) of lib.LoRA.__call__ is in lib 0.2.0.",
        "You have lib 0.1.0: upgrade to 'lib>=0.2.0'.",
    )


def test_of_two_libraries_one_whose_releases_have_the_name_answers_before_the_inner_frames() -> (
    None
):
    # flax's configurations call jax's config: both have a config of class Config.
    user = merged("user", "user", ["1.0"], [({"user", "user.config"}, {}, {}, {}, set())])
    lib = merged(
        "lib",
        "lib",
        ["1.0", "2.0"],
        [
            ({"lib", "lib.config", "lib.config.define"}, {}, {}, {}, set()),
            ({"lib", "lib.config"}, {}, {}, {}, set()),
        ],
    )
    paste = """  File "/venv/site-packages/user/configurations.py", line 42, in define
    return lib_config.define('user_' + name)
AttributeError: 'Config' object has no attribute 'define'"""

    found = answer_paste(paste, [user, lib], {"user": "1.0", "lib": "2.0"})

    assert found is not None

    assert found.subject == "lib.config.define"
    assert found.having == ("1.0",)
    assert found.caller == "user"


def test_an_option_not_named_for_its_library_is_found_in_the_configuration_that_has_it() -> None:
    lib = merged(
        "lib",
        "lib",
        ["1.0", "2.0"],
        [
            ({"lib", "lib.config"}, {}, {}, {}, set()),
            ({"lib", "lib.config.graph_mode"}, {}, {}, {}, set()),
        ],
    )

    found = answer_paste(
        "LookupError: Unrecognized config option: graph_mode", [lib], {"lib": "1.0"}
    )

    assert found is not None
    assert found.subject == "lib.config.graph_mode"
    assert found.having == ("2.0",)
    # An option no library's configuration has is not asked of one.
    assert answer_paste("LookupError: Unrecognized config option: tiles_mode", [lib], {}) is None


def test_a_module_that_became_a_name_is_answered_by_the_releases_it_was_a_module_in() -> None:
    api: ReleaseApi = ({"lib", "lib.config", "lib.config.update"}, {}, {}, {}, set())
    lib = merged(
        "lib", "lib", ["1.0", "2.0"], [api, api], modules=[{"lib", "lib.config"}, {"lib"}]
    )

    found = answer_paste(
        "ModuleNotFoundError: No module named 'lib.config'", [lib], {"lib": "2.0"}
    )

    assert found is not None
    assert found.definite
    assert found.lines() == (
        "lib.config is a module in lib 1.0.",
        "In lib 2.0 it is a name of lib, not a module: 'from lib import config'.",
        "You have lib 2.0; lib removed it in 2.0. Pin 'lib<2.0', or change the code as lib "
        "2.0 has it.",
    )
    # A name that was never a module: how to import it.
    never = answer_paste("No module named 'lib.config.update'", [lib], {"lib": "2.0"})
    assert never is not None
    assert never.definite
    assert never.lines() == (
        "lib.config.update is not a module in any release of lib from 1.0 to 2.0: it is a "
        "name of lib.config. Import it with 'from lib.config import update'.",
    )
