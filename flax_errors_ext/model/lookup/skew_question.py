"""What a pasted error says is missing: a name, a module, an attribute, a parameter.

The question a version skew answers (:mod:`.skew`), read from the error's
exception line (else its last line that asks one), with the files of its frames:
which library the traceback runs through, and which made the call.
"""

from __future__ import annotations

import dataclasses
import re

from flax_errors_ext.model.lookup.paste import (
    INSTALLED,
    bounded,
    frame_files,
    package_of,
    raised_line,
)
from flax_errors_ext.model.runs.tracebacks import strip_jax_note

_QUESTIONS = (
    ("name", re.compile(r"module '(?P<module>[\w.]+)' has no attribute '(?P<name>\w+)'")),
    ("name", re.compile(r"cannot import name '(?P<name>\w+)' from '(?P<module>[\w.]+)'")),
    ("module", re.compile(r"No module named '(?P<module>[\w.]+)'")),
    # JAX's own words for a name its deprecation table removed.
    ("name", re.compile(r"(?P<module>[a-z_][\w.]*)\.(?P<name>\w+) (?:was|has been) removed in")),
    ("name", re.compile(r"Unrecognized config option: (?P<name>jax_\w+)")),
    (
        "attribute",
        re.compile(
            r"(?:type object '(?P<type>\w+)'|'(?P<object>\w+)' object) "
            r"has no attribute '(?P<name>\w+)'"
        ),
    ),
    (
        "keyword",
        re.compile(r"(?P<callable>[\w.]+)\(\) got an unexpected keyword argument '(?P<name>\w+)'"),
    ),
    (
        "positional",
        re.compile(
            r"(?P<callable>[\w.]+)\(\) takes (?:from \d+ to )?\d+ positional arguments? but "
            r"(?P<name>\d+) (?:positional arguments? )?(?:were|was) given"
        ),
    ),
    (
        "missing",
        re.compile(
            r"(?P<callable>[\w.]+)\(\) missing \d+ required (?:positional |keyword-only )?"
            r"arguments?: (?P<names>.+)"
        ),
    ),
)


@dataclasses.dataclass(frozen=True)
class Question:
    """What a pasted error says is missing.

    ``kind``: ``name`` (a module's attribute, or an import), ``module``,
    ``attribute`` (of an object of class ``owner``), ``keyword`` (a parameter
    ``callable`` does not take) or ``missing`` (parameters it requires).
    """

    kind: str
    names: tuple[str, ...]
    owner: str = ""
    """The module, the class's short name, or the callable, as the message has it."""
    frames: tuple[str, ...] = ()
    """The files of the traceback's frames, innermost last."""

    def caller(self, library: str) -> str:
        """The package of the innermost frame outside ``library``, where a path tells it."""
        for path in reversed(self.frames):
            package = package_of(path)
            if package != library:
                return package
        return ""

    def modules(self) -> list[str]:
        """The dotted modules of the frames in installed packages (``flax.nnx.module``)."""
        found = (INSTALLED.search(path) for path in self.frames)
        return [re.sub(r"[/\\]", ".", m.group(1)) for m in found if m]


def question(paste: str) -> Question | None:
    """What ``paste`` says is missing: its exception line, else its last line that says so."""
    text = strip_jax_note(bounded(paste).replace("\r\n", "\n"))
    start = raised_line(text)
    lines = [text[start:].split("\n", 1)[0]] if start is not None else []
    for line in [*lines, *reversed(text.split("\n"))]:
        asked = _asked(line)
        if asked is not None:
            return dataclasses.replace(asked, frames=frame_files(text))
    return None


def _asked(line: str) -> Question | None:
    for kind, pattern in _QUESTIONS:
        match = pattern.search(line)
        if match is None:
            continue
        found = match.groupdict()
        if kind == "missing":
            names = tuple(re.findall(r"'(\w+)'", found["names"]))
        else:
            names = (found.get("name") or found.get("module") or "",)
        owner = found.get("module") or found.get("callable") or found.get("type") or ""
        owner = owner or found.get("object") or ""
        if kind == "module":
            owner = ""
        if found.get("name", "").startswith("jax_") and kind == "name" and not owner:
            owner = "jax.config"
        return Question(kind, names, owner)
    return None
