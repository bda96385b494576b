"""What importing does: the package's modules leave the environment alone, tests share no module.

The package is imported module by module in a fresh, isolated interpreter (no
``PYTHONPATH``, no current folder on the path: as an installed wheel is), so that
nothing this test process imported or set counts. The tests' own modules are read
with :mod:`ast`: a test module or a conftest is never imported by another module,
so that each test module's fixtures and helpers are where pytest (and a reader)
looks for them; what is shared lives in a helper module or a conftest's fixtures.
"""

from __future__ import annotations

import ast
import fnmatch
import json
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

# No module of the tests imports a test module or a conftest --------------------------


def _is_test_module(dotted: str) -> bool:
    """Whether ``dotted`` names a test module or a conftest of the tests (or one inside)."""
    first, *rest = dotted.split(".")
    return first == "tests" and any(
        part.startswith("test_") or part == "conftest" for part in rest
    )


def _names_a_module(dotted: str) -> bool:
    """Whether ``dotted`` is a module (or package) under the repository, not an attribute."""
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of_test_modules(path: Path, source: str | bytes) -> list[str]:
    """``file:line: module`` for each test module or conftest that ``source`` imports.

    ``path`` is the file's (under the repository): relative imports are resolved
    from its package. ``from tests.x import test_y`` imports the module
    ``tests.x.test_y``; ``from tests.x import test_name``, an attribute, does not.
    """
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    found = []
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            anchor = package[: len(package) - node.level + 1] if node.level else ()
            base = ".".join([*anchor, *([node.module] if node.module else [])])
            names = [base]
            names += [
                f"{base}.{alias.name}"
                for alias in node.names
                if _names_a_module(f"{base}.{alias.name}")
            ]
        else:
            continue
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno}: {name}"
            for name in names
            if _is_test_module(name)
        ]
    return found


def test_no_module_of_the_tests_imports_a_test_module_or_a_conftest() -> None:
    found = [
        line
        for path in sorted(TESTS.rglob("*.py"))
        # Bytes: the file's own coding line says how to read it (tests/roots/test-latin1).
        for line in imports_of_test_modules(path, path.read_bytes())
    ]
    assert found == []


def test_every_way_of_importing_a_test_module_is_found() -> None:
    here = TESTS / "help" / "test_hooks.py"
    source = textwrap.dedent(
        """\
        import tests.help.conftest
        from tests.model.history.test_releases import history
        from tests import test_imports
        from . import conftest
        from .test_shipped_index import anything
        from ..help.test_shipped_index import anything
        from tests.utils import test_named_like_a_test
        from tests.help.index_entry import HELP
        import pytest
        """
    )
    assert imports_of_test_modules(here, source) == [
        "tests/help/test_hooks.py:1: tests.help.conftest",
        "tests/help/test_hooks.py:2: tests.model.history.test_releases",
        "tests/help/test_hooks.py:3: tests.test_imports",
        "tests/help/test_hooks.py:4: tests.help.conftest",
        "tests/help/test_hooks.py:5: tests.help.test_shipped_index",
        "tests/help/test_hooks.py:6: tests.help.test_shipped_index",
    ]


# The package's modules, each imported afresh -----------------------------------------

_IMPORT_EVERY_MODULE = """
import os

# JAX sets TF_CPP_MIN_LOG_LEVEL and TPU_SKIP_MDS_QUERY when imported: its doing, and
# the package's modules import it. What they change beyond that is theirs.
import jax

before = dict(os.environ)

import importlib
import importlib.util
import json
import pkgutil
import sys


def raise_it(name):
    raise


def changes():
    return {
        name: [before.get(name), os.environ.get(name)]
        for name in before.keys() | os.environ.keys()
        if before.get(name) != os.environ.get(name)
    }


spec = importlib.util.find_spec("flax_errors_ext")
changed, files = {}, {"flax_errors_ext": spec.origin}
# Walking imports each package, to look inside it: what that changes is the package's.
walked = list(pkgutil.walk_packages(spec.submodule_search_locations, "flax_errors_ext.", raise_it))
if changes():
    changed["(walking the packages)"] = changes()
for module in walked:
    if module.name.rpartition(".")[2] == "__main__":
        continue  # runs a command when imported
    seen = changes()
    files[module.name] = importlib.import_module(module.name).__file__
    if changes() != seen:
        changed[module.name] = changes()
tools = sorted(name for name in sys.modules if name.partition(".")[0] == "tools")
print(json.dumps({"changed": changed, "files": files, "tools": tools}))
"""


def test_importing_every_module_of_the_package_changes_no_environment_variable(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", _IMPORT_EVERY_MODULE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    imported = json.loads(done.stdout.splitlines()[-1])

    assert imported["changed"] == {}
    # Imported without the repository on the path (-I, and another folder): none
    # imports the repository's tools, which the wheel lacks.
    assert imported["tools"] == []
    files = {name: Path(file) for name, file in imported["files"].items()}
    package = files["flax_errors_ext"].parent
    # Every module is one walk_packages found (a folder without __init__.py would hide
    # the modules inside it from this test).
    assert sorted(files.values()) == sorted(
        path for path in package.rglob("*.py") if path.name != "__main__.py"
    )
    # And every one of them is in the folders the wheel ships.
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    include = setuptools["packages"]["find"]["include"]
    unshipped = [
        name
        for name, file in files.items()
        if not any(
            fnmatch.fnmatchcase(".".join(file.parent.relative_to(package.parent).parts), pattern)
            for pattern in include
        )
    ]
    assert unshipped == []
