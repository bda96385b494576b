"""What a pasted error says is missing, asked of the libraries' API indexes (:mod:`.skew`).

A missing name, module, attribute, option or parameter, and where the traceback shows it
asked from; or a library used while it was still being imported.
"""

from __future__ import annotations

import dataclasses
import re

from flax_errors_ext.model.lookup.paste import (
    INSTALLED,
    as_raised,
    bounded,
    frame_files,
    innermost_frame_line,
    package_of,
    raised_line,
)

_QUESTIONS = (
    # A library imported while it was still being imported, or that Python 3.13 found a
    # file of the user's named like: that file hides it (its path, where the message has it).
    (
        "shadowed",
        re.compile(
            r"partially initialized module '(?P<module>[\w.]+)'(?: from '(?P<origin>[^'\n]+)')?|"
            r"(?:module|from) '(?P<named>[\w.]+)'[^\n]* "
            r"\(consider renaming '(?P<renamed>[^'\n]+)'",
        ),
    ),
    # A module's attribute: unlike an import, reading one does not import a submodule.
    ("member", re.compile(r"module '(?P<module>[\w.]+)' has no attribute '(?P<name>\w+)'")),
    # Without its module (older Pythons'), the import statement pasted names it.
    ("name", re.compile(r"cannot import name '(?P<name>\w+)'(?: from '(?P<module>[\w.]+)')?")),
    # Not where a module of the user's hides the package ("'jax' is not a package").
    ("module", re.compile(r"No module named '(?P<module>[\w.]+)'(?!; '[\w.]+' is not a package)")),
    # JAX's own words for a name its deprecation table removed, or will (a warning that
    # pytest's -W error made an error, or that a user asks about).
    (
        "name",
        re.compile(
            r"(?P<module>[a-z_][\w.]*)\.(?P<name>\w+) "
            r"(?:(?:was|has been) removed in|is deprecated)"
        ),
    ),
    # A configuration's option: the library's whose code raised it, else its prefix's.
    ("option", re.compile(r"Unrecognized config option: (?P<option>[A-Za-z_]\w*)")),
    (
        "attribute",
        re.compile(
            r"(?:type object '(?:[\w.]+\.)?(?P<type>\w+)'"
            r"|['\"](?:[\w.]+\.)?(?P<object>\w+)['\"] object) "
            r"has no attribute ['\"](?P<name>\w+)['\"]"
        ),
    ),
    (
        "keyword",
        re.compile(
            r"(?:(?P<callable>[\w.]+)\(\) )?got an unexpected keyword argument '(?P<name>\w+)'"
        ),
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
    """What a pasted error says is missing: a ``name`` (``member``: a module's), or other."""

    kind: str
    """Also ``module``, ``attribute``, ``option`` (a configuration's); a parameter's:
    ``keyword``, ``positional``, ``missing``; ``shadowed``: a module hidden by another."""
    names: tuple[str, ...]
    owner: str = ""
    """The module, the class's short name, or the callable, as the message has it; for
    ``shadowed``, the path of the file that was imported in its place, where it says."""
    frames: tuple[str, ...] = ()
    """The files of the traceback's frames, innermost last."""
    forwarded: str = ""
    """The installed module whose ``__getattr__`` is the innermost frame (its classes'
    attribute, or one they forward to a value they hold), else ""."""

    def packages(self) -> list[str]:
        """The packages of the frames, innermost first ("" where a path does not tell)."""
        return [package_of(path) for path in reversed(self.frames)]

    def caller(self, library: str) -> str:
        """The package of the innermost frame outside ``library``, where a path tells it."""
        return next((p for p in self.packages() if p != library), "")

    def modules(self) -> list[str]:
        """The dotted modules of the frames in installed packages (``flax.nnx.module``)."""
        found = (INSTALLED.search(path) for path in self.frames)
        return [re.sub(r"[/\\]", ".", m.group(1)) for m in found if m]


def question(paste: str) -> Question | None:
    """What ``paste`` says is missing: its exception line, else its last line that says so."""
    text = as_raised(bounded(paste))  # which reads past colours
    start = raised_line(text)
    lines = [text[start:].split("\n", 1)[0]] if start is not None else []
    asking = ((line, _asked(line)) for line in [*lines, *reversed(text.split("\n"))])
    line, asked = next(((line, q) for line, q in asking if q is not None), ("", None))
    if asked is None:
        return None
    if asked.kind == "name" and not asked.owner:
        code = re.search(rf"from ([\w.]+) import [^\n]*\b{asked.names[0]}\b", text)
        asked = dataclasses.replace(asked, owner=code.group(1) if code else "")
    # A warning asked of, printed with the file that caused it: that file makes the call.
    warned = _WARNED_AT.match(line)
    frames = frame_files(text) or ((warned.group(1),) if warned else ())
    if asked.kind == "shadowed" and not asked.owner:
        # A frame of the user's file named like the library: the one imported in its place.
        hiding = [f for f in frames if _named_like(f, asked.names[0])]
        asked = dataclasses.replace(asked, owner=hiding[-1] if hiding else "")
    raised_in = package_of(frames[-1]) if frames else ""
    if asked.kind == "option" and raised_in:
        asked = dataclasses.replace(asked, owner=f"{raised_in}.config")
    in_getattr = "getattr__" in innermost_frame_line(text)
    at = INSTALLED.search(frames[-1]) if in_getattr else None
    forwarded = re.sub(r"[/\\]", ".", at.group(1)) if at else ""
    return dataclasses.replace(asked, frames=frames, forwarded=forwarded)


def _path_said(line: str) -> str:
    """The file an import error ends by naming, ``(/path/x.py)``, else ""."""
    said = re.search(r"\(([^()\n]+\.py)\)\s*$", line)
    return said.group(1) if said else ""


def _named_like(path: str, module: str) -> str:
    """``path`` where it is a file of the user's named like ``module``'s package, else "".

    A module file: the libraries are packages. A folder of that name may be a checkout
    of the library itself (an editable install), which says nothing.
    """
    package = module.split(".", 1)[0]
    hides = path.replace("\\", "/").endswith(f"/{package}.py") and not INSTALLED.search(path)
    return path if hides else ""


_WARNED_AT = re.compile(r"\s*(\S+\.py):\d+: \w*Warning: ")


def _asked(line: str) -> Question | None:
    for kind, pattern in _QUESTIONS:
        match = pattern.search(line)
        if match is None:
            continue
        found = match.groupdict()
        if kind == "shadowed":
            module = found["module"] or found["named"]
            # Python checked the file it says to rename; another path tells where it is
            # one of the user's, or the library's own installed file.
            path = found["origin"] or _path_said(line)
            if path and not (_named_like(path, module) or INSTALLED.search(path)):
                path = ""  # a folder named like the library: a checkout of it, or not
            return Question(kind, (module,), found["renamed"] or path)
        named = kind == "name" and found["module"]
        hidden_by = _named_like(_path_said(line), found["module"]) if named else ""
        if hidden_by:
            # The file Python imported the name from: the user's, named like the library.
            return Question("shadowed", (found["module"],), hidden_by)
        if kind == "missing":
            names = tuple(re.findall(r"'(\w+)'", found["names"]))
        else:
            names = (found.get("name") or found.get("option") or found.get("module") or "",)
        keys = () if kind == "module" else ("module", "callable", "type", "object")
        owner = next((found[key] for key in keys if found.get(key)), "")
        if kind == "option":
            owner = f"{names[0].partition('_')[0]}.config"
        return Question(kind, names, owner)
    return None
