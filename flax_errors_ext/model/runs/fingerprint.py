"""What the execution cache keys on beyond an entry's code, and the files a run loaded.

A message may be built where the key does not look, so a run is trusted only while
none of the files it loaded changed.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping


@dataclasses.dataclass(frozen=True)
class Device:
    """The JAX devices an entry's process sees."""

    platform: str
    device_kind: str
    count: int

    def __str__(self) -> str:
        return f"{self.platform} ({self.device_kind})"

    @property
    def label(self) -> str:
        """``CPU``, ``GPU (NVIDIA H200)`` or ``TPU v5e`` (JAX's ``TPU v5 lite``), for prose."""
        label = self.platform.upper()
        kind = self.device_kind
        if kind.lower().startswith(f"{self.platform.lower()} "):
            label = re.sub(r"^(TPU v\d+) lite$", r"\1e", kind)
        elif kind and kind.lower() != self.platform.lower():
            label = f"{label} ({kind})"
        return f"{label} \u00d7{self.count}" if self.count > 1 else label  # a multiplication sign

    def to_json(self) -> dict[str, Any]:
        """The device as errors.json and the cache key record it."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Device | None:
        """Read a device record; None if ``data`` is not one (a failed probe)."""
        if not isinstance(data, dict) or "platform" not in data:
            return None
        return cls(
            str(data["platform"]), str(data.get("device_kind", "")), int(data.get("count", 0))
        )


@dataclasses.dataclass(frozen=True)
class ProbeError:
    """Why the devices could not be found out."""

    message: str

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> dict[str, Any]:
        """The failed probe as the cache key records it."""
        return {"error": self.message}


@dataclasses.dataclass(frozen=True)
class Fingerprint:
    """The package versions, the device and the runtime sources an entry's run depends on."""

    versions: tuple[tuple[str, str], ...] = ()
    """(package, version), sorted by package."""
    device: Device | ProbeError | None = None
    """None when nothing executes."""
    sources: tuple[tuple[str, str], ...] = ()
    """(module, hash of its code without docstrings), sorted by module."""

    @classmethod
    def of(
        cls, versions: dict[str, str], device: Device | ProbeError | None, sources: dict[str, str]
    ) -> Fingerprint:
        """A fingerprint from mappings, in canonical order."""
        return cls(tuple(sorted(versions.items())), device, tuple(sorted(sources.items())))

    @property
    def version_map(self) -> dict[str, str]:
        """The versions by package."""
        return dict(self.versions)

    def with_source(self, module: str, code: str) -> Fingerprint:
        """The fingerprint with one more (or a replaced) source hash."""
        return Fingerprint.of(self.version_map, self.device, {**dict(self.sources), module: code})

    def to_json(self) -> str:
        """The canonical JSON form: the same fingerprint always gives the same text."""
        device = self.device.to_json() if self.device is not None else None
        data = {"versions": self.version_map, "device": device, "sources": dict(self.sources)}
        return json.dumps(data, sort_keys=True, separators=(",", ":"))


def code_hash(source: str) -> str:
    """Hash Python source code without its docstrings: editing them leaves every cache key."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and ast.get_docstring(node, clean=False) is not None
        ):
            node.body[0] = ast.Pass()
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


Stat = tuple[int, int]
"""A file's (size, modification time in nanoseconds)."""


@dataclasses.dataclass(frozen=True)
class LoadedFile:
    """A file a run loaded code from, as it was then."""

    path: str
    size: int
    mtime_ns: int

    @property
    def stat(self) -> Stat:
        """Its :data:`Stat` when it was loaded."""
        return (self.size, self.mtime_ns)

    @property
    def hashable(self) -> bool:
        """Whether its content is compared when its time changes (Python source)."""
        return self.path.endswith(".py")

    @classmethod
    def from_json(cls, data: Any) -> LoadedFile:
        """Read the ``[path, size, mtime_ns]`` triple an entry's process sent."""
        path, size, mtime_ns = data
        return cls(str(path), int(size), int(mtime_ns))


def first_change(
    files: Iterable[LoadedFile],
    stat: Callable[[str], Stat | None],
    content_hash: Callable[[str], str | None],
    known: Mapping[tuple[str, Stat], str],
) -> str | None:
    """The first of ``files`` that changed since it was loaded, or None."""
    for file in files:
        now = stat(file.path)
        if now == file.stat:
            continue
        if now is None or not file.hashable:
            return file.path
        then = known.get((file.path, file.stat))
        if then is None or then != content_hash(file.path):
            return file.path
    return None
