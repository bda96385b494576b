"""What the site shows of a run: no runner frame, no folder of the build machine."""

from __future__ import annotations

from pathlib import Path

import pytest

import flax_errors_ext
from flax_errors_ext.model.runs.entry_record import EntryRecord, errors_document, relative_source
from flax_errors_ext.model.runs.tracebacks import (
    import_roots,
    is_internal,
    library_dirs,
    publishable,
    relative_path,
    strip_roots,
    trim_traceback,
)

VENV = "/home/me/venv/lib/python3.11/site-packages"
ROOTS = (VENV, "/home/me/project", "/usr/lib/python3.11")

_FULL = f"""\
Traceback (most recent call last):
  File "/usr/lib/python3.11/doctest.py", line 1353, in __run
    exec(compile(example.source, filename, "single",
  File "<doctest m.E[3]>", line 1, in <module>
    MLP().apply(variables, batch)
  File "{VENV}/flax/linen/module.py", line 9, in apply
    return fn()
           ^^^^
  File "/home/me/project/flax_errors_ext/jit_hook.py", line 102, in _raise_for_module
    raise JitPytreeError(type(module), _arg_path(module, caller))
flax.errors.ScopeParamShapeError: see /home/me/project/README.md
"""


def test_published_traceback_drops_the_runner_and_names_files_in_their_roots() -> None:
    assert publishable(_FULL, ROOTS) == (
        "Traceback (most recent call last):\n"
        '  File "<doctest m.E[3]>", line 1, in <module>\n'
        "    MLP().apply(variables, batch)\n"
        '  File "flax/linen/module.py", line 9, in apply\n'
        "    return fn()\n"
        "           ^^^^\n"
        '  File "flax_errors_ext/jit_hook.py", line 102, in _raise_for_module\n'
        "    raise JitPytreeError(type(module), _arg_path(module, caller))\n"
        # A path in the message too.
        "flax.errors.ScopeParamShapeError: see README.md\n"
    )
    assert publishable("(16, 2)\n", ROOTS) == "(16, 2)\n"


_RECORDED = f"""\
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/usr/lib/python3.11/multiprocessing/forkserver.py", line 274, in main
    code = _serve_one(child_r, fds,
  File "{VENV}/flax_errors_ext/execution/runs/runner.py", line 312, in _serve
    run_entry(job, connection.send)
  File "<doctest m.E[1]>", line 3, in <module>
    noise = jax.random.normal(key, (3,))
m.E: first used at the above location

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/usr/lib/python3.11/doctest.py", line 1353, in __run
    exec(compile(example.source, filename, "single",
  [Previous line repeated 2 more times]
  File "<doctest m.E[1]>", line 4, in <module>
    keep = jax.random.bernoulli(key, 0.5, (3,))
m.E: reused
Traceback (most recent call last):
  File "/home/me/project/tool.py", line 5, in main
    run()
ValueError: no example in it
Traceback (most recent call last):
  File "{VENV}/flax/linen/module.py", line 925, in __get__
    return self.wrapped.__get__(obj, objtype)
  File "<doctest m.F[2]>", line 4, in value
    return self.missing
AttributeError: no attribute 'missing'
"""


def test_published_traceback_starts_at_the_examples_code() -> None:
    # A stack recorded whole (JAX's key-reuse checker records where a key was first
    # used) shows whatever ran the example above it: the process, the kernel's cell.
    assert publishable(_RECORDED, ROOTS) == (
        "Traceback (most recent call last):\n"
        '  File "<doctest m.E[1]>", line 3, in <module>\n'
        "    noise = jax.random.normal(key, (3,))\n"
        "m.E: first used at the above location\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "<doctest m.E[1]>", line 4, in <module>\n'
        "    keep = jax.random.bernoulli(key, 0.5, (3,))\n"
        "m.E: reused\n"
        # A traceback without the example's code keeps its frames, and so does one
        # that starts where a library caught what it chained.
        "Traceback (most recent call last):\n"
        '  File "tool.py", line 5, in main\n'
        "    run()\n"
        "ValueError: no example in it\n"
        "Traceback (most recent call last):\n"
        '  File "flax/linen/module.py", line 925, in __get__\n'
        "    return self.wrapped.__get__(obj, objtype)\n"
        '  File "<doctest m.F[2]>", line 4, in value\n'
        "    return self.missing\n"
        "AttributeError: no attribute 'missing'\n"
    )


def test_a_stack_recorded_in_the_examples_thread_starts_at_its_code_too() -> None:
    # A kernel without an entry process runs the examples in a thread of its own.
    recorded = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/threading.py", line 995, in _bootstrap\n'
        "    self._bootstrap_inner()\n"
        '  File "<doctest m.E[1]>", line 3, in <module>\n'
        "m.E: first used here\n"
    )
    assert publishable(recorded, ROOTS) == (
        'Traceback (most recent call last):\n  File "<doctest m.E[1]>", line 3, in <module>\n'
        "m.E: first used here\n"
    )


def test_frames_of_code_imported_from_a_root_are_trimmed_wherever_it_lives() -> None:
    # The hook's frame, in a checkout that is neither installed nor this one.
    def internal(path: str) -> bool:
        return is_internal(path, ROOTS)

    shown = publishable(trim_traceback(_FULL, internal), ROOTS)
    assert "jit_hook.py" not in shown
    assert "module.py" not in shown
    assert '  File "<doctest m.E[3]>", line 1, in <module>\n' in shown


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (f"{VENV}/jax/_src/tree_util.py", "jax/_src/tree_util.py"),
        # The deepest root wins: a virtual environment inside the project.
        ("/home/me/project/.venv/lib/site-packages/flax/errors.py", "flax/errors.py"),
        ("/home/me/project/docs/catalogue/flax.errors/E.txt", "docs/catalogue/flax.errors/E.txt"),
        ("/home/me/project-other/x.py", "x.py"),  # a sibling folder is not inside
        ("/tmp/elsewhere/helper.py", "helper.py"),  # under no root: the file name alone
        ("<doctest m.E[0]>", "<doctest m.E[0]>"),
        ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap>"),
        ("already/relative.py", "already/relative.py"),
        ("C:\\Python311\\Lib\\site-packages\\jax\\api.py", "jax\\api.py"),
    ],
)
def test_paths_are_shown_inside_the_deepest_root(path: str, shown: str) -> None:
    roots = (
        *ROOTS,
        "/home/me/project/.venv/lib/site-packages",
        "C:\\Python311\\Lib\\site-packages",
    )
    assert relative_path(path, roots) == shown


def test_paths_in_messages_are_written_inside_their_root() -> None:
    message = (
        f"tracing the function apply at {VENV}/flax/linen/module.py:2091 for jit; "
        "wrote /home/me/project/out.txt, not /data/home/me/project/x or /home/me/projects/y"
    )
    assert strip_roots(message, ROOTS) == (
        "tracing the function apply at flax/linen/module.py:2091 for jit; "
        "wrote out.txt, not /data/home/me/project/x or /home/me/projects/y"
    )
    assert strip_roots(message, ()) == message


def test_the_file_system_root_is_no_root() -> None:
    assert relative_path("/etc/x/y.py", ("/", "C:\\")) == "y.py"


def test_this_interpreters_roots_hold_installed_packages_and_this_checkout() -> None:
    roots = import_roots()
    package = Path(flax_errors_ext.__file__).parent
    assert relative_path(str(package / "jit_hook.py"), roots) == "flax_errors_ext/jit_hook.py"
    assert relative_path(pytest.__file__, roots) == "pytest/__init__.py"


def test_sources_in_errors_json_are_relative() -> None:
    assert relative_source(f"{VENV}/flax/errors.py:937", ROOTS) == "flax/errors.py:937"
    assert relative_source("/home/me/project/m.py", ROOTS) == "m.py"
    record = EntryRecord.from_json(
        {
            "name": "E",
            "qualname": "m.E",
            "url": "api_reference/m.html#m.E",
            "source": "/home/me/project/m.py:3",
            "summary": "",
            "status": "passed",
            "executed": True,
            "problems": [{"source": "/home/me/project/m.py:9", "message": "bad"}],
            "examples": [
                {
                    "kind": "bad",
                    "source": "/home/me/project/catalogue/m/E.txt:4",
                    "status": "drifted",
                    "expected": "m.E: at ...",
                    "actual": f"m.E: at {VENV}/flax/core/scope.py:12",
                    "seconds": 0.0,
                    "detail": "",
                    "diff": "--- documented (/home/me/project/catalogue/m/E.txt:6)\n",
                }
            ],
        }
    )
    (entry,) = errors_document([record], executed=[], roots=ROOTS)["entries"]
    assert entry["source"] == "m.py:3"
    assert entry["problems"][0]["source"] == "m.py:9"
    assert entry["examples"][0]["source"] == "catalogue/m/E.txt:4"
    assert entry["examples"][0]["actual"] == "m.E: at flax/core/scope.py:12"
    assert entry["examples"][0]["diff"] == "--- documented (catalogue/m/E.txt:6)\n"
    # The search data holds the same text as errors.json.
    assert [text for _, text in record.raised_texts(ROOTS)] == [
        "m.E: at ...",
        "m.E: at flax/core/scope.py:12",
    ]
    # The record itself keeps the full path: warnings point editors at the file.
    assert record.source == "/home/me/project/m.py:3"


_READER_AND_LIBRARY_FRAMES = """\
Traceback (most recent call last):
  File "/usr/lib/python3.11/doctest.py", line 1353, in __run
    exec(compile(example.source, filename, "single",
  File "<doctest m.E[3]>", line 1, in <module>
    MLP().apply(variables, batch)
  File "/venv/lib/python3.11/site-packages/flax/linen/module.py", line 9, in apply
    return fn()
           ^^^^
  File "/home/me/project/model.py", line 4, in __call__
    x = layer(x)
flax.errors.ScopeParamShapeError: For parameter "kernel" ... (https://x)
  - a continuation line of the message
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def _library(path: str) -> bool:
    return is_internal(path, library_dirs())


def test_trimmed_traceback_keeps_the_readers_frames_and_the_exception() -> None:
    assert trim_traceback(_READER_AND_LIBRARY_FRAMES, _library) == (
        "Traceback (most recent call last):\n"
        '  File "<doctest m.E[3]>", line 1, in <module>\n'
        "    MLP().apply(variables, batch)\n"
        '  File "/home/me/project/model.py", line 4, in __call__\n'
        "    x = layer(x)\n"
        'flax.errors.ScopeParamShapeError: For parameter "kernel" ... (https://x)\n'
        "  - a continuation line of the message\n"
    )
    assert trim_traceback("(16, 2)\n", _library) == "(16, 2)\n"


@pytest.mark.parametrize(
    ("path", "internal"),
    [
        ("<doctest m.E[0]>", False),
        ("/usr/lib/python3.11/doctest.py", True),
        ("C:\\Python311\\Lib\\site-packages\\jax\\api.py", True),
        ("/usr/lib/python3/dist-packages/numpy/core.py", True),
        ("/home/me/project/model.py", False),
    ],
)
def test_library_frames_are_told_from_the_readers(path: str, internal: bool) -> None:
    assert is_internal(path) is internal


def test_this_packages_own_frames_are_library_frames() -> None:
    hook = str(Path(flax_errors_ext.__file__).parent / "jit_hook.py")
    assert trim_traceback(
        f'Traceback (most recent call last):\n  File "{hook}", line 1\nE: x\n', _library
    ) == ("Traceback (most recent call last):\nE: x\n")
