"""Version skew: which releases of an indexed library have what a pasted error says is missing."""

from __future__ import annotations

import dataclasses
import difflib
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.lookup.api_index import (
    POSITIONAL,
    REQUIRED,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    positions,
)
from flax_errors_ext.model.lookup.paste import package_of
from flax_errors_ext.model.lookup.question import Question, question
from flax_errors_ext.model.lookup.skew_answer import CallerUse, SkewAnswer

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from flax_errors_ext.model.lookup.api_index import ApiIndex


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
    if asked.kind == "shadowed":
        return _shadowed(asked, indexes, installed)
    packages = asked.packages()
    # Of several libraries meant: one whose releases have the name, then the innermost
    # frames', then the shortest name ('Config' object is flax's and jax's config).
    found = []
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
            rank = (not answered.having, framed, answered.subject.count("."))
            found.append((rank, index, answered))
    if not found:
        return None
    _, index, best = min(found, key=lambda f: f[0])
    caller = asked.caller(index.package)
    return dataclasses.replace(
        best,
        installed=installed.get(index.distribution, ""),
        caller=caller,
        caller_use=_caller_use(caller, best.subject, indexes, installed),
    )


def _shadowed(
    asked: Question, indexes: Sequence[ApiIndex], installed: Mapping[str, str]
) -> SkewAnswer | None:
    """A library used while it was still being imported.

    A file of the user's named like it hid it, or its own import stopped part way.
    """
    package = asked.names[0].split(".")[0]
    index = next((i for i in indexes if i.package == package), None)
    if index is None:
        return None
    # The library's own files (the path, or frames): its import failed part way.
    own = package_of(asked.owner) == package or package in asked.packages()
    why, hidden_by = ("unfinished", "") if own else ("shadowed", asked.owner)
    answered = _found(index, package, index.releases, every_release=why, hidden_by=hidden_by)
    return dataclasses.replace(answered, installed=installed.get(index.distribution, ""))


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


def _module(index: ApiIndex, full: str) -> SkewAnswer:
    """The releases in which ``full`` is a module, where the index tells modules apart.

    A module in some releases may be another object in others (``jax.config``).
    """
    answered = _name(index, full)
    as_module = index.releases_as_module(full)
    if as_module is None or as_module == list(answered.having):
        return answered
    other = tuple(r for r in answered.having if r not in as_module)
    return dataclasses.replace(answered, having=tuple(as_module), not_module=other)


def _in(index: ApiIndex, asked: Question, installed: str) -> SkewAnswer | None:
    if asked.kind in ("name", "member", "module", "option"):
        full = f"{asked.owner}.{asked.names[0]}" if asked.owner else asked.names[0]
        option = f"{index.package}.config.{asked.names[0]}"
        if asked.kind == "option" and option in index.names:
            full = option  # an option not named for its library (Flax's nnx_graph_mode)
        if full.split(".")[0] != index.package:
            return None
        return _module(index, full) if asked.kind == "module" else _name(index, full)
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
    libraries = set(asked.packages()) - {""}
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
            # Required since some release: those where it was not are the answer. One
            # every release requires went missing where another, required since, took
            # its place in the call (``update(grads)`` meeting ``update(model, grads)``).
            for required_param in (param, *_newly_required(index, full, installed)):
                required = set(index.releases_with_param(full, REQUIRED + required_param))
                optional = [r for r in index.releases_of(full) if r not in required]
                if optional and required:
                    return _found(index, full, optional, required=required_param)
            continue
        having = index.releases_with_param(full, param)
        return _found(index, f"the keyword {param!r} of {full}", having)
    if asked.kind != "keyword":
        return None
    # A keyword no release names, where some releases take any (``**kwargs``).
    for full in sorted(callables, key=lambda n: (-_nearness(n, asked.modules()), len(n), n)):
        having = index.releases_with_param(full, VAR_KEYWORD)
        if 0 < len(having) < len(index.releases_of(full)):
            return _found(
                index, f"the **kwargs (any keyword, {asked.names[0]!r} too) of {full}", having
            )
    return _keyword_elsewhere(index, asked, installed)


def _newly_required(index: ApiIndex, full: str, installed: str) -> list[str]:
    """The parameters the installed (else the newest) release of ``full`` requires.

    Of those, the ones its first release did not: where a call written before met a
    release after.
    """
    release = installed if installed in index.releases else index.releases[-1]
    first = index.releases_of(full)[:1]
    requiring = {
        param: index.releases_with_param(full, param)
        for param in index.params[full]
        if param.startswith(REQUIRED)
    }
    return sorted(
        param.removeprefix(REQUIRED)
        for param, having in requiring.items()
        if release in having and not set(first) & set(having)
    )


def _keyword_elsewhere(index: ApiIndex, asked: Question, installed: str) -> SkewAnswer | None:
    # A keyword the message's callable (none, or the user's, which a library forwards
    # it to) never takes, that a few of the library's callables took in some releases
    # only: those, the installed (else the newest) release lacking it first, then the
    # public, the longest had.
    param, packages = asked.names[0], set(asked.packages())
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
