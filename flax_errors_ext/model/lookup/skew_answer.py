"""The answer to a version skew: which releases have what an error says is missing, in words."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.model.history.releases import version_key
from flax_errors_ext.model.lookup.api_index import spans

if TYPE_CHECKING:
    from collections.abc import Sequence


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
    not_module: tuple[str, ...] = ()
    """For a module: the releases in which its name is another object, not a module."""
    every_release: str = ""
    """Why what every release the index read has was missing: ``older`` (a release before
    the index's, or a module of the user's hiding the library), ``import`` (a submodule
    that no code imported), ``shadowed`` (imported while still being imported: hidden by
    ``hidden_by``, where it says), ``unfinished`` (its own import failed part way), or ""."""
    hidden_by: str = ""
    """The path of the user's file that Python imported in the library's place, where the
    error said it."""

    @property
    def definite(self) -> bool:
        """Whether the installed release (if known) lacks what others have, or a submodule."""
        # What the installed release has, missing for a reason the answer tells.
        told = self.every_release in ("import", "shadowed", "unfinished")
        missing = self.installed not in self.having or told
        return (bool(self.having) and missing) or (not self.having and bool(self.not_module))

    def help_lines(self) -> tuple[str, ...]:
        """The answer under a traceback: ``help:``, then its other lines indented."""
        first, *rest = self.lines()
        return (f"help: {first}", *(f"      {line}" for line in rest))

    def lines(self) -> tuple[str, ...]:
        """The answer, a sentence a line."""
        name, first, last = self.distribution, self.releases[0], self.releases[-1]
        if not self.having and private(self.subject):
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
        if not self.having and self.not_module:
            parent, _, leaf = self.subject.rpartition(".")
            return (
                f"{self.subject} is not a module in any release of {name} from {first} to "
                f"{last}: it is a name of {parent}. Import it with 'from {parent} import {leaf}'.",
            )
        if not self.having:
            said = f"No release of {name} from {first} to {last} has {self.subject}."
            if self.nearest:
                said += f" Did you mean {' or '.join(self.nearest)}?"
            return (said,)
        added = self.having[0] if self.having[0] != self.releases[0] else ""
        removed = _removed(self.having, self.releases)
        lines = [self._having_line(added, removed)]
        if self.not_module:
            parent, _, leaf = self.subject.rpartition(".")
            lines.append(
                f"In {name} {_ranges(self.not_module, self.releases)} it is a name of {parent}, "
                f"not a module: 'from {parent} import {leaf}'."
            )
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

    def _having_line(self, added: str, removed: str) -> str:
        name = self.distribution
        having = f"{name} {_ranges(self.having, self.releases)}"
        if self.required:
            since = f"since {name} {removed}" if removed else f"in {name} before {added}"
            return f"{self.subject} requires {self.required!r} {since}; {having} did not."
        if self.positional:
            count = f"{self.positional} positional argument{'s' * (self.positional != 1)}"
            return f"{self.subject} takes {count} in {having}."
        return f"{self.subject} is {'a module ' * bool(self.not_module)}in {having}."

    def _every_release_lines(self) -> tuple[str, ...]:
        name, first, last = self.distribution, self.releases[0], self.releases[-1]
        if self.every_release in ("shadowed", "unfinished"):
            return self._shadowed_lines()
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

    def _shadowed_lines(self) -> tuple[str, ...]:
        name, package = self.distribution, self.subject
        if self.hidden_by:
            return (
                f"{self.hidden_by} is not {name}: a file of yours named like {name}'s package "
                f"'{package}', which Python imported in its place.",
                f"Rename it (and delete the __pycache__ folder beside it), so that "
                f"'import {package}' finds {name}.",
            )
        own = (
            f"{name}'s own import stopped part way (its releases and those of what it needs "
            "do not go together, such as jax and jaxlib, or an install was interrupted)"
        )
        reinstall = (
            f"Reinstall {name} with releases that go together (pip install -U {name} and what "
            "it needs, in one command), then restart the interpreter or kernel"
        )
        said = f"'{package}' was used while it was still being imported"
        if self.every_release == "unfinished":
            return (f"{said}: {own}.", f"{reinstall}.")
        return (
            f"{said}: {own}, or a file or folder of yours named '{package}' ({package}.py) "
            f"beside your code hides {name}.",
            f"{reinstall}; rename any file or folder of yours named '{package}'.",
        )

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


def private(name: str) -> bool:
    """Whether a dotted name has a part that is private to its library (``jax._src``)."""
    return any(p.startswith("_") and not p.endswith("__") for p in name.split("."))
