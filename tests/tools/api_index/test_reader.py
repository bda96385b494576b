"""A release's public API, read from its archive: names, parameters, bases, messages."""

from __future__ import annotations

import io
import tarfile
import textwrap
import zipfile
from typing import TYPE_CHECKING

import pytest

from tools.api_index.reader import read_release

if TYPE_CHECKING:
    from pathlib import Path

SOURCES = {
    "lib/__init__.py": """
        from lib._src.core import Model as Model, helper
        from lib import nn
        from lib._src.core import Base
        import lib.nn as nn
        _deprecations = {
            "tree_map": ("lib.tree_map was removed; use lib.tree.map.", None),
            "old": ("lib.old is deprecated.", helper),
        }
        """,
    "lib/nn.py": """
        from lib._src.core import Model as Model
        from lib._src.core import helper
        __all__ = ["helper"]
        class Linear(Model):
            features: int
            use_bias: bool = True
            def __call__(self, x, *, mask=None):
                self.last = x
        """,
    "lib/_src/__init__.py": "",
    "lib/_src/core.py": """
        import typing
        T = typing.TypeVar("T")
        class _Private:
            def shared(self): ...
        class Base(typing.Generic[T]):
            def base_method(self): ...
        class Model(Base[T], _Private):
            def __init__(self, x, y=1, *, wrt, **kwargs):
                self.value = x
            def update(self, grads): ...
        def helper(a, b=2, *rest): ...
        flag = define_bool_state(name="lib_enable_thing", default=False)
        FLAGS = flags.DEFINE_string("output_dir", None, "a script's command-line flag")
        """,
    "lib/_src/configuration.py": """
        def define_bool_state(name, default):
            return jax_config.define_bool_state("lib_" + name, default)
        legacy = define_bool_state(name="legacy_mode", default=False)
        graph = bool_flag(name="graph_mode", default=True)
        """,
}


def _wheel(path: Path) -> Path:
    archive = path / "lib-1.0-py3-none-any.whl"
    with zipfile.ZipFile(archive, "w") as wheel:
        for name, source in SOURCES.items():
            wheel.writestr(name, textwrap.dedent(source))
        wheel.writestr("lib-1.0.dist-info/METADATA", "Name: lib\n")
    return archive


def _sdist(path: Path) -> Path:
    archive = path / "lib-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as sdist:
        for name, source in SOURCES.items():
            data = textwrap.dedent(source).encode()
            info = tarfile.TarInfo(f"lib-1.0/{name}")
            info.size = len(data)
            sdist.addfile(info, io.BytesIO(data))
    return archive


@pytest.mark.parametrize("make", [_wheel, _sdist])
def test_public_names_are_read_through_re_exports(make: object, tmp_path: Path) -> None:
    api = read_release(make(tmp_path), "lib")  # type: ignore[operator]

    assert {
        "lib",
        "lib.nn",
        "lib.Model",
        "lib.nn.Linear",
        "lib.helper",
        "lib.nn.helper",
    } <= api.names
    # A module's own imports are not its API, unless re-exported ("x as x", __all__).
    assert "lib.nn.Model" in api.names
    assert "lib.Base" in api.names  # a package's imports are
    assert not any(n.startswith(("lib._src", "lib._Private")) for n in api.names)
    # Of the names, the public modules.
    assert api.modules == {"lib", "lib.nn"}


def test_a_class_is_described_once_with_its_public_bases_and_private_ones_folded(
    tmp_path: Path,
) -> None:
    api = read_release(_wheel(tmp_path), "lib")

    assert {"lib.Model.value", "lib.Model.update", "lib.Model.shared"} <= api.names
    assert "lib.Model.base_method" not in api.names  # listed under its public base
    assert api.bases["lib.Model"] == {"lib.Base"}
    assert api.bases["lib.nn.Linear"] == {"lib.Model"}
    assert "lib.nn.Model.value" not in api.names  # a re-export is a name alone


def test_parameters_and_what_a_call_must_pass(tmp_path: Path) -> None:
    api = read_release(_wheel(tmp_path), "lib")

    # "#N": how many a call may pass by position, a method's self aside.
    assert api.params["lib.Model"] == {"x", "y", "wrt", "**", "!x", "!wrt", "#2"}
    assert api.params["lib.helper"] == {"a", "b", "*rest", "!a", "#2"}
    assert api.params["lib.Model.update"] == {"grads", "!grads", "#1"}
    # A class without __init__ is called with its fields (a dataclass, a Flax module).
    assert api.params["lib.nn.Linear"] == {"features", "use_bias"}
    assert api.params["lib.nn.Linear.__call__"] == {"x", "mask", "!x", "#1"}


def test_deprecation_tables_and_configuration_flags(tmp_path: Path) -> None:
    api = read_release(_wheel(tmp_path), "lib")

    assert api.messages["lib.tree_map"] == "lib.tree_map was removed; use lib.tree.map."
    assert "lib.tree_map" not in api.names
    assert api.messages["lib.old"] == "lib.old is deprecated."
    assert "lib.old" in api.names
    # Options: named for the package anywhere, any name in a configuration module, with
    # the prefix its own definer adds; not a script's command-line flags.
    options = {name for name in api.names if name.startswith("lib.config.")}
    assert options == {
        "lib.config.lib_enable_thing",
        "lib.config.lib_legacy_mode",
        "lib.config.graph_mode",
    }
