"""Version skew: an error about a name or a parameter that other releases of a library have."""

from __future__ import annotations

import dataclasses
import difflib
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.history.releases import version_key
from flax_errors_ext.model.lookup.api_index import (
    POSITIONAL,
    REQUIRED,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    positions,
    spans,
)
from flax_errors_ext.model.lookup.paste import Question, package_of, question

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from flax_errors_ext.model.lookup.api_index import ApiIndex


@dataclasses.dataclass(frozen=True)
class SkewAnswer:
    """Which releases of a library have what the error says is missing."""

    subject: str
    """In words: ``jax.random.KeyArray``, ``the keyword 'rngs' of ...``."""
    distribution: str
    having: tuple[str, ...]
    """The releases that have it, oldest first; ``releases``: all the index read."""
    releases: tuple[str, ...]
    installed: str = ""
    message: str = ""
    """The library's own deprecation or removal message for the name."""
    caller: str = ""
    nearest: tuple[str, ...] = ()
    """Where no release has it: the names most like it, in the newest release."""
    required: str = ""
    """For a missing argument: the parameter; ``having``: the releases that let a call omit it."""
    caller_use: CallerUse | None = None
    positional: int = 0
    """For too many arguments by position: how many (with a method's ``self``)."""
    every_release: str = ""
    """Why what every release the index read has was missing: ``older`` (a release before
    the index's, or a module of the user's hiding the library), ``import`` (a submodule
    that no code imported), or ""."""

    @property
    def definite(self) -> bool:
        """Whether the installed release (if known) lacks what others have, or a submodule."""
        missing = self.installed not in self.having or self.every_release == "import"
        return bool(self.having) and missing

    def help_lines(self) -> tuple[str, ...]:
        """The answer under a traceback: ``help:``, then its other lines indented."""
        first, *rest = self.lines()
        return (f"help: {first}", *(f"      {line}" for line in rest))

    def lines(self) -> tuple[str, ...]:
        """The answer, a sentence a line."""
        name, first, last = self.distribution, self.releases[0], self.releases[-1]
        if not self.having and _private(self.subject):
            by = self.caller if self.caller not in ("", name.replace("-", "_")) else ""
            return (
                f"{self.subject} is private to {name}: code outside {name} must not rely on "
                "it, and its releases change it without notice.",
                f"Upgrade {f'{by}, which makes the call,' if by else 'the code that uses it'} "
                f"to a release written for your {name}, or pin {name} to the one it was "
                "written for.",
            )
        if self.every_release:
            return self._every_release_lines()
        if not self.having:
            said = f"No release of {name} from {first} to {last} has {self.subject}."
            if self.nearest:
                said += f" Did you mean {' or '.join(self.nearest)}?"
            return (said,)
        added = self.having[0] if self.having[0] != self.releases[0] else ""
        removed = _removed(self.having, self.releases)
        having = f"{name} {_ranges(self.having, self.releases)}"
        if self.required:
            since = f"since {name} {removed}" if removed else f"in {name} before {added}"
            lines = [f"{self.subject} requires {self.required!r} {since}; {having} did not."]
        elif self.positional:
            count = f"{self.positional} positional argument{'s' * (self.positional != 1)}"
            lines = [f"{self.subject} takes {count} in {having}."]
        else:
            lines = [f"{self.subject} is in {having}."]
        if self.message:
            lines.append(f"{name}'s own message: {' '.join(self.message.split())}")
        if self.installed:
            lines.append(self._advice(added, removed))
        if self.caller_use is not None:
            lines.append(self.caller_use.line(self.subject, name, "" if removed else added))
        elif self.caller and self.caller != name.replace("-", "_") and removed:
            lines.append(
                f"The call is made by {self.caller}, which was written for those releases "
                f"of {name}: upgrade {self.caller}, or pin {name} as above."
            )
        elif self.caller and self.caller != name.replace("-", "_") and added:
            # A name that came later: the caller is newer than the library here.
            lines.append(
                f"The call is made by {self.caller}, which was written for {name} {added} "
                f"and later: upgrade to '{name}>={added}', or use an older {self.caller}."
            )
        return tuple(lines)

    def _every_release_lines(self) -> tuple[str, ...]:
        name, first, last = self.distribution, self.releases[0], self.releases[-1]
        said = f"{self.subject} is in every release of {name} the index read ({first} to {last})"
        parent, _, leaf = self.subject.rpartition(".")
        if self.every_release == "import":
            return (
                f"{said}, as a module that importing {parent} does not import.",
                f"Import it before use: 'import {self.subject}' (or 'from {parent} import "
                f"{leaf}'); a {name} older than {first} may lack it.",
            )
        upgrade, have = f"upgrade to '{name}>={first}'", f"You have {name} {self.installed}"
        package = self.subject.split(".", 1)[0]
        hidden = f"a file or folder named '{package}' beside your code hides {name}: rename it"
        if self.installed and version_key(self.installed) < version_key(first):
            advice = f"{have}: {upgrade}."
        else:
            ran = f"So the {name} that ran is"
            if self.installed:
                ran = f"{have}, which has it: the code ran with another {name},"
            advice = f"{ran} older than {first} ({upgrade}), or {hidden}."
        used = self.caller_use.line(self.subject, name, first) if self.caller_use else None
        return (f"{said}.", advice, *([used] if used else []))

    def _advice(self, added: str, removed: str) -> str:
        name, installed = self.distribution, self.installed
        newer = version_key(installed) >= version_key(self.having[-1])
        if newer and removed:
            change = "requires it since" if self.required else "removed it in"
            return (
                f"You have {name} {installed}; {name} {change} {removed}. Pin "
                f"'{name}<{removed}', or change the code as {name} {installed} has it."
            )
        if not newer and added and version_key(installed) < version_key(added):
            return f"You have {name} {installed}: upgrade to '{name}>={added}'."
        return f"{name} {installed} (installed here) has it: the code ran with another release."


@dataclasses.dataclass(frozen=True)
class CallerUse:
    """The releases of the library that makes the call which use the missing name."""

    distribution: str
    using: tuple[str, ...]
    """Its releases whose code uses the name, oldest first."""
    releases: tuple[str, ...]
    installed: str = ""

    def line(self, subject: str, library: str, added: str = "") -> str:
        """What to upgrade the caller to, or that none of its releases helps.

        ``added``: the library's release that added the name, where none removed it.
        """
        name, last = self.distribution, self.using[-1]
        said = f"The call is made by {name}, whose releases {_ranges(self.using, self.releases)} "
        said += f"use {subject}"
        fixed = _removed(self.using, self.releases)
        pin = f"use '{library}>={added}'" if added else f"pin {library} as above"
        if not fixed:
            if added and self.using[0] != self.releases[0]:
                pin += f", or '{name}<{self.using[0]}'"
            return f"{said}, up to its newest indexed ({last}): {pin}."
        have = ""
        if self.installed and self.installed not in self.using:
            have = f" ({name} {self.installed}, installed here, does not use it)"
        elif self.installed:
            have = f" (you have {self.installed})"
        upgrade = f"upgrade to '{name}>={fixed}'{have}, or {pin}"
        return f"{said}; {fixed} and later do not: {upgrade}."


def _removed(having: Sequence[str], releases: Sequence[str]) -> str:
    return next(iter(releases[releases.index(having[-1]) + 1 :]), "")


def _ranges(having: Sequence[str], releases: Sequence[str]) -> str:
    """``0.4.1 to 0.4.23`` (and more such spans), as the index's releases run."""
    runs = (run.partition("-") for run in spans(map(releases.index, having)).split(","))
    return ", ".join(
        f"{releases[int(a)]} to {releases[int(b)]}" if b else releases[int(a)] for a, _, b in runs
    )


def answer_paste(
    paste: str, indexes: Sequence[ApiIndex], installed: Mapping[str, str]
) -> SkewAnswer | None:
    """:func:`answer` to the :func:`question` a paste asks, if any."""
    asked = question(paste)
    return answer(asked, indexes, installed) if asked is not None else None


def answer(
    asked: Question, indexes: Sequence[ApiIndex], installed: Mapping[str, str]
) -> SkewAnswer | None:
    """What the indexes say of ``asked``; None where no index's library is concerned."""
    packages = [package_of(path) for path in reversed(asked.frames)]
    found = []  # of several libraries meant: the innermost frames', else the shortest name
    for index in indexes:
        answered = _in(index, asked, installed.get(index.distribution, ""))
        if answered is None:
            continue
        # What every release has is a skew only where the library's __getattr__ ran, or of
        # a module's name asked outside the library (missing in its own: a broken install).
        ran = asked.forwarded.split(".", maxsplit=1)[0] == index.package
        everywhere = len(answered.having) == len(index.releases)
        outside = packages[:1] != [index.package]
        asks = everywhere and outside and not ran
        why = _why_missing(index, asked, answered.subject) if asks else ""
        if not everywhere or ran or why:
            framed = packages.index(index.package) if index.package in packages else len(packages)
            answered = dataclasses.replace(answered, every_release=why)
            found.append((framed, answered.subject.count("."), index, answered))
    if not found:
        return None
    _, _, index, best = min(found, key=lambda f: f[:2])
    caller = asked.caller(index.package)
    return dataclasses.replace(
        best,
        installed=installed.get(index.distribution, ""),
        caller=caller,
        caller_use=_caller_use(caller, best.subject, indexes, installed),
    )


def _caller_use(
    caller: str, subject: str, indexes: Sequence[ApiIndex], installed: Mapping[str, str]
) -> CallerUse | None:
    for index in indexes:
        using = index.releases_using(subject) if index.package.split(".")[0] == caller else []
        if using:
            name = index.distribution
            return CallerUse(name, tuple(using), index.releases, installed.get(name, ""))
    return None


def _why_missing(index: ApiIndex, asked: Question, full: str) -> str:
    """Why a module's name every indexed release has was missing (``every_release``)."""
    if asked.kind not in ("name", "member", "module"):
        return ""
    submodule = not (full in index.bases or full in index.params) and any(
        name.startswith(f"{full}.") for name in index.names
    )
    return "import" if asked.kind == "member" and submodule else "older"


def _found(index: ApiIndex, subject: str, having: Sequence[str], **parts: Any) -> SkewAnswer:
    return SkewAnswer(subject, index.distribution, tuple(having), index.releases, **parts)


def _name(index: ApiIndex, full: str) -> SkewAnswer:
    having = index.releases_of(full)
    nearest = () if having else _nearest(index, full)
    return _found(index, full, having, message=index.messages.get(full, ""), nearest=nearest)


def _in(index: ApiIndex, asked: Question, installed: str) -> SkewAnswer | None:
    if asked.kind in ("name", "member", "module"):
        full = f"{asked.owner}.{asked.names[0]}" if asked.owner else asked.names[0]
        return _name(index, full) if full.split(".")[0] == index.package else None
    if asked.kind == "attribute":
        return _attribute(index, asked.owner, asked.names[0], asked.modules(), asked.forwarded)
    return _parameter(index, asked, installed)


def _attribute(
    index: ApiIndex, owner: str, name: str, frames: Sequence[str], forwarded: str = ""
) -> SkewAnswer | None:
    # A class named like a module stands for it (``'Config' object`` is jax.config). Of
    # several classes: the one the frames run through, its own attribute (not a base's),
    # most releases, shortest name.
    module = f"{index.package}.{owner.lower()}"
    if module in index.names:
        return _name(index, f"{module}.{name}")
    classes = [c for c in index.bases if c.rpartition(".")[2] == owner]
    if forwarded.split(".", maxsplit=1)[0] == index.package:
        # Raised in the library's __getattr__: the object is of a class of that module
        # (a user's subclass), or a value one of them holds and forwards to.
        classes, frames = _classes_of(index, forwarded), ()
    found = [(c, index.releases_with_attribute(c, name)) for c in classes]
    found = [(c, having) for c, having in found if having]
    if not found:
        return None

    def rank(item: tuple[str, list[str]]) -> tuple[int, bool, int, int]:
        own = f"{item[0]}.{name}" in index.names
        return (-_nearness(item[0], frames), not own, -len(item[1]), len(item[0]))

    cls, having = min(found, key=rank)
    return _found(index, f"{cls}.{name}", having, message=index.messages.get(f"{cls}.{name}", ""))


def _parameter(index: ApiIndex, asked: Question, installed: str) -> SkewAnswer | None:
    owner = asked.owner.removesuffix(".__init__")
    libraries = {package_of(path) for path in asked.frames} - {""}
    if "." not in owner and libraries and index.package not in libraries:
        return None  # a bare ``update()`` whose frames show other libraries, not this one
    suffix = owner if "." in owner else f".{owner}"
    callables = [n for n in index.params if n.endswith(suffix) and n.count(".") > 0]
    if asked.kind == "positional":
        return _positional(index, asked, callables)
    for param in asked.names:
        with_param = [c for c in callables if param in index.params[c]]
        if not with_param:
            continue
        modules = asked.modules()
        full = min(with_param, key=lambda n: (-_nearness(n, modules), len(n), n))
        if asked.kind == "missing":
            # Required since some release: those where it was not are the answer.
            required = set(index.releases_with_param(full, REQUIRED + param))
            optional = [r for r in index.releases_of(full) if r not in required]
            if optional and required:
                return _found(index, full, optional, required=param)
            continue
        having = index.releases_with_param(full, param)
        return _found(index, f"the keyword {param!r} of {full}", having)
    return _keyword_elsewhere(index, asked, installed) if asked.kind == "keyword" else None


def _keyword_elsewhere(index: ApiIndex, asked: Question, installed: str) -> SkewAnswer | None:
    # A keyword the message's callable (none, or the user's, which a library forwards
    # it to) never takes, that a few of the library's callables took in some releases
    # only: those, the installed (else the newest) release lacking it first, then the
    # public, the longest had.
    param, packages = asked.names[0], {package_of(path) for path in asked.frames}
    if packages and index.package not in packages:
        return None
    changed = {
        name: index.releases_with_param(name, param)
        for name, params in index.params.items()
        if param in params
    }
    changed = {n: h for n, h in changed.items() if 0 < len(h) < len(index.releases_of(n))}
    if not 0 < len(changed) <= _FEW:
        return None
    release = installed or index.releases[-1]
    full = min(
        changed,
        key=lambda n: (release in changed[n], n.count("."), -len(changed[n]), len(n), n),
    )
    return _found(index, f"the keyword {param!r} of {full}", changed[full])


_FEW = 3
"""At most this many callables with a keyword added or dropped: a common keyword says
nothing of which the code meant."""


def _positional(index: ApiIndex, asked: Question, callables: Sequence[str]) -> SkewAnswer | None:
    # Python counts a method's self in both numbers, as the answer does; the index does not.
    said = int(asked.names[0])
    given = said - ("." in asked.owner)
    counted = [c for c in callables if any(p.startswith(POSITIONAL) for p in index.params[c])]
    if not counted:
        return None
    full = min(counted, key=lambda n: (-_nearness(n, asked.modules()), len(n), n))
    taking: set[str] = set()
    for param, spans_of in index.params[full].items():
        room = param.startswith(POSITIONAL) and int(param[1:]) >= given
        if room or (param.startswith(VAR_POSITIONAL) and param != VAR_KEYWORD):
            taking.update(index.releases[p] for p in positions(spans_of))
    having = [release for release in index.releases_of(full) if release in taking]
    return _found(index, full, having, positional=said) if having else None


def _classes_of(index: ApiIndex, module: str) -> list[str]:
    """The classes ``module`` defines: of those of each name it has, the nearest to it."""
    named: dict[str, list[str]] = {}
    for cls in index.bases:
        if f"{module}.{cls.rpartition('.')[2]}" in index.names:
            named.setdefault(cls.rpartition(".")[2], []).append(cls)
    return [max(c, key=lambda n: (_nearness(n, [module]), -len(n))) for c in named.values()]


def _private(name: str) -> bool:
    return any(p.startswith("_") and not p.endswith("__") for p in name.split("."))


def _nearness(name: str, frames: Sequence[str]) -> int:
    parts = name.split(".")
    shared = (
        k
        for k in range(1, len(parts) + 1)
        for frame in frames
        if f"{frame}.".startswith(".".join(parts[:k]) + ".")
    )
    return max(shared, default=0)


def _nearest(index: ApiIndex, full: str) -> tuple[str, ...]:
    parent, _, name = full.rpartition(".")
    newest = index.releases[-1]
    siblings = [
        n.rpartition(".")[2]
        for n in index.names
        if n.rpartition(".")[0] == parent and newest in index.releases_of(n)
    ]
    close = difflib.get_close_matches(name, siblings, n=2, cutoff=0.75)
    return tuple(f"{parent}.{n}" for n in close)
