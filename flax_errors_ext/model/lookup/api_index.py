"""Which releases of a library have a name or a parameter: its API index (``nox -s api_index``).

A set of releases is stored as spans of their positions (``"0-12,15"``).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

SCHEMA = 1
ReleaseApi = tuple[set[str], dict[str, set[str]], dict[str, str], dict[str, set[str]], set[str]]
"""A release's names, parameters, messages, bases, and other libraries' names it uses."""
REQUIRED = "!"
"""Before a parameter's name: a call must pass it (it has no default)."""
POSITIONAL = "#"
"""Before a number among a callable's parameters: how many a call may pass by position."""
VAR_POSITIONAL = "*"
"""Before the name of a callable's ``*args``: any number may be passed by position."""
VAR_KEYWORD = "**"
"""The parameter that stands for ``**kwargs``: any keyword is accepted."""
SHIPPED = Path(__file__).resolve().parents[2] / "api"
ENV_VAR = "FLAX_ERRORS_API_INDEX"
"""More indexes, of other libraries: paths separated by ``os.pathsep``, asked first."""


def shipped() -> list[Path]:
    """The shipped indexes' files."""
    return sorted(SHIPPED.glob("*.json.gz"))


def spans(positions: Iterable[int]) -> str:
    """``"0-12,15"`` for positions 0 to 12 and 15."""
    runs: list[list[int]] = []
    for position in sorted(set(positions)):
        if runs and position == runs[-1][1] + 1:
            runs[-1][1] = position
        else:
            runs.append([position, position])
    return ",".join(f"{a}-{b}" if a != b else f"{a}" for a, b in runs)


def positions(text: str) -> list[int]:
    """The positions :func:`spans` wrote."""
    found: list[int] = []
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        found.extend(range(int(first), int(last or first) + 1))
    return found


@dataclasses.dataclass(frozen=True)
class ApiIndex:
    """One library's names and parameters across its releases."""

    distribution: str
    package: str
    """The top-level module its names start with."""
    releases: tuple[str, ...]
    """Oldest first."""
    names: dict[str, str]
    params: dict[str, dict[str, str]]
    messages: dict[str, str]
    bases: dict[str, list[str]]
    """Each class's public bases, in any release: their members are listed under them."""
    uses: dict[str, str] = dataclasses.field(default_factory=dict)
    """Names of other libraries (``jax.tree_map``) and the releases whose code uses them."""
    modules: dict[str, str] = dataclasses.field(default_factory=dict)
    """Of ``names``, the modules, and the releases in which each is one: a name may be
    a module in some (``jax.config`` up to 0.4.28) and another object in others."""

    def releases_of(self, name: str) -> list[str]:
        """The releases that have ``name``, oldest first."""
        return [self.releases[p] for p in positions(self.names.get(name, ""))]

    def releases_with_attribute(self, cls: str, attribute: str, depth: int = 0) -> list[str]:
        """The releases in which class ``cls`` has ``attribute``, its own or a base's."""
        having = set(self.releases_of(f"{cls}.{attribute}"))
        for base in self.bases.get(cls, ()) if depth < 8 else ():
            having |= set(self.releases_with_attribute(base, attribute, depth + 1))
        existing = self.releases_of(cls)
        return [release for release in existing if release in having]

    def releases_as_module(self, name: str) -> list[str] | None:
        """The releases in which ``name`` is a module; None where the index does not say."""
        if not self.modules:
            return None
        return [self.releases[p] for p in positions(self.modules.get(name, ""))]

    def releases_using(self, name: str) -> list[str]:
        """The releases whose code uses another library's ``name`` (a module: a name of it)."""
        used = (s for n, s in self.uses.items() if n == name or n.startswith(f"{name}."))
        return [self.releases[p] for p in sorted({p for s in used for p in positions(s)})]

    def releases_with_param(self, callable_name: str, param: str) -> list[str]:
        """The releases whose ``callable_name`` takes ``param``."""
        text = self.params.get(callable_name, {}).get(param, "")
        return [self.releases[p] for p in positions(text)]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ApiIndex:
        """Read back :meth:`to_bytes`'s JSON; ValueError for another schema."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"API index schema {data.get('schema')!r}, expected {SCHEMA}")
        return cls(
            data["distribution"],
            data["package"],
            tuple(data["releases"]),
            data["names"],
            data["params"],
            data["messages"],
            data["bases"],
            data.get("uses", {}),
            data.get("modules", {}),
        )

    def to_bytes(self) -> bytes:
        """The index as its file holds it: gzipped JSON, the same bytes for the same index."""
        data = {"schema": SCHEMA, **dataclasses.asdict(self)}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return gzip.compress(text.encode(), compresslevel=9, mtime=0)

    @classmethod
    def read(cls, path: Path) -> ApiIndex:
        """The index in ``path``; OSError or ValueError where it cannot be read."""
        return cls.from_bytes(path.read_bytes())

    @classmethod
    def from_bytes(cls, data: bytes) -> ApiIndex:
        """Read back what :meth:`to_bytes` wrote; ValueError where it cannot."""
        try:
            return cls.from_json(json.loads(gzip.decompress(data)))
        except (OSError, EOFError, KeyError, TypeError) as error:
            raise ValueError(f"not an API index: {error}") from None


def merged(
    distribution: str,
    package: str,
    releases: Sequence[str],
    apis: Sequence[ReleaseApi],
    modules: Sequence[set[str]] = (),
) -> ApiIndex:
    """The index of ``releases`` (oldest first) from each one's API.

    ``modules``: the names that are modules in each (none: the index does not tell).
    """
    names: dict[str, list[int]] = {}
    params: dict[str, dict[str, list[int]]] = {}
    messages: dict[str, str] = {}
    bases: dict[str, set[str]] = {}
    uses: dict[str, list[int]] = {}
    for position, (names_of, params_of, messages_of, bases_of, uses_of) in enumerate(apis):
        for name in uses_of:
            uses.setdefault(name, []).append(position)
        for name, above in bases_of.items():
            bases.setdefault(name, set()).update(above)
        for name in names_of:
            names.setdefault(name, []).append(position)
        for name, taken in params_of.items():
            for param in taken:
                params.setdefault(name, {}).setdefault(param, []).append(position)
        messages.update(messages_of)  # the newest wording wins
    as_module: dict[str, list[int]] = {}
    for position, modules_of in enumerate(modules):
        for name in modules_of:
            as_module.setdefault(name, []).append(position)
    return ApiIndex(
        distribution,
        package,
        tuple(releases),
        {name: spans(p) for name, p in names.items()},
        {name: {param: spans(p) for param, p in taken.items()} for name, taken in params.items()},
        messages,
        {name: sorted(above) for name, above in bases.items()},
        {name: spans(p) for name, p in uses.items()},
        {name: spans(p) for name, p in as_module.items()},
    )
