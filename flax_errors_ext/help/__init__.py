"""The fix under the traceback: ``help:`` and ``see:`` lines for a catalogued error.

Answered from an index, never by importing the libraries, as ``flax-errors explain`` answers.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import TracebackType

    from flax_errors_ext.model.lookup.api_index import ApiIndex
    from flax_errors_ext.model.lookup.help_index import HelpIndex
    from flax_errors_ext.model.lookup.skew_answer import SkewAnswer

__all__ = ["help_lines", "install", "installed", "uninstall"]
_T = TypeVar("_T")

SHIPPED_INDEX = Path(__file__).with_name("index.json")
INDEX_ENV_VAR = "FLAX_ERRORS_HELP_INDEX"
SWITCH_ENV_VAR = "FLAX_ERRORS_HELP"
CHAIN_DEPTH = 4
"""How many causes of an error are asked after it, when it matches nothing itself."""

_previous_hook: Any = None
_shells: dict[int, tuple[Any, tuple[type[BaseException], ...], Any, Any]] = {}
"""By id: each IPython shell installed in, its custom exception classes, handler before, ours."""


def installed() -> bool:
    """Whether :func:`install` is in effect (in the interpreter or in some shell)."""
    return _previous_hook is not None or bool(_shells)


def install(shell: Any = None) -> None:
    """Show the help under uncaught errors, in ``shell`` too (default: IPython's); idempotent."""
    global _previous_hook  # noqa: PLW0603 - the hook is process-wide state by nature
    if _previous_hook is None:
        _previous_hook = sys.excepthook
        sys.excepthook = _excepthook
    # Read now, with the matchers imported, so that an error is answered at once.
    shipped_index()
    api_indexes()
    _import_matchers()
    if shell is None:
        get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
        shell = get_ipython() if callable(get_ipython) else None
    if shell is not None and id(shell) not in _shells:
        before = (tuple(shell.custom_exceptions), shell.CustomTB)
        shell.set_custom_exc((Exception,), _shell_handler)
        _shells[id(shell)] = (shell, *before, shell.CustomTB)


def uninstall() -> None:
    """Give back every hook :func:`install` replaced, unless replaced since; idempotent."""
    global _previous_hook  # noqa: PLW0603 - the hook is process-wide state by nature
    if _previous_hook is not None:
        if sys.excepthook is _excepthook:
            sys.excepthook = _previous_hook
        _previous_hook = None
    for shell, classes, handler, ours in _shells.values():
        if shell.CustomTB is ours:
            shell.custom_exceptions = classes
            shell.CustomTB = handler
    _shells.clear()


def help_lines(error: BaseException) -> tuple[str, ...]:
    """The lines to show under ``error``'s traceback (or its causes'); none where none matches."""
    if os.environ.get(SWITCH_ENV_VAR, "1").strip().lower() in ("0", "off", "false", "no"):
        return ()
    from flax_errors_ext.model.lookup.help_index import answer

    pastes = [
        # The whole traceback, as a reader would paste it into explain: its frames
        # tell Python's own words for any object apart (texts.generic).
        "".join(traceback.format_exception(cause))
        for cause in _chain(error)
    ]
    # A release that lacks what the error names answers before any entry; an entry
    # before a name that no release has. The installed release raised the error: one
    # that has the name says nothing of it.
    skews = [_skew_answer(paste) for paste in pastes]
    for paste, skew in zip(pastes, skews, strict=True):
        if skew is not None and skew.definite:
            return skew.help_lines()
        if (found := answer(shipped_index(), paste)) is not None:
            return found.lines()
    return next((skew.help_lines() for skew in skews if skew is not None and not skew.having), ())


def _skew_answer(paste: str) -> SkewAnswer | None:
    import importlib.metadata

    from flax_errors_ext.model.lookup.question import question
    from flax_errors_ext.model.lookup.skew import answer

    asked = question(paste)
    if asked is None:
        return None
    indexes = api_indexes()
    # Read from the distributions' metadata: nothing is imported.
    versions = {}
    for name in (index.distribution for index in indexes):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions[name] = importlib.metadata.version(name)
    return answer(asked, indexes, versions)


def _import_matchers() -> None:
    # What answering an error imports (the skew finder and the distributions' metadata
    # take two thirds of its time in a fresh process), imported once, before any error.
    import importlib.metadata  # noqa: F401

    from flax_errors_ext.model.lookup import find, skew  # noqa: F401


@functools.cache
def api_indexes() -> tuple[ApiIndex, ...]:
    """Those ``FLAX_ERRORS_API_INDEX`` names, then the shipped API indexes; read once."""
    from flax_errors_ext.model.lookup.api_index import ENV_VAR, ApiIndex, shipped

    extra = [Path(p) for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
    return tuple(_read_each([*extra, *shipped()], ApiIndex.read, "API index"))


@functools.cache
def shipped_index() -> HelpIndex:
    """The shipped index, after those ``FLAX_ERRORS_HELP_INDEX`` names; read once."""
    from flax_errors_ext.model.lookup.help_index import HelpIndex

    extra = [Path(p) for p in os.environ.get(INDEX_ENV_VAR, "").split(os.pathsep) if p]
    indexes = _read_each(
        [SHIPPED_INDEX, *extra],
        lambda path: HelpIndex.from_json(json.loads(path.read_text(encoding="utf-8"))),
        "help index",
    )
    return sum(indexes, HelpIndex())


def _read_each(paths: list[Path], read: Callable[[Path], _T], what: str) -> list[_T]:
    found = []
    for path in paths:
        try:
            found.append(read(path))
        except (OSError, ValueError) as error:
            print(f"flax-errors: {what} {path} left out: {error}", file=sys.stderr)
    return found


def _safe_help_lines(error: BaseException) -> tuple[str, ...]:
    try:
        return help_lines(error)
    except Exception as failure:  # the help must never hide the error
        return (f"flax-errors: no help, the lookup failed: {failure!r}",)


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen and len(seen) <= CHAIN_DEPTH:
        seen.add(id(current))
        yield current
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    (_previous_hook or sys.__excepthook__)(kind, error, tb)
    for line in _safe_help_lines(error):
        print(line, file=sys.stderr)


def _shell_handler(
    shell: Any,
    kind: type[BaseException],
    error: BaseException,
    trace: TracebackType | None,
    tb_offset: int | None = None,
) -> list[str]:
    """IPython's custom exception handler: the traceback (IPython shows none), then the help."""
    _, classes, handler, _ = _shells.get(id(shell), (None, (), None, None))
    lines = list(_safe_help_lines(error))
    if handler is not None and classes and issubclass(kind, classes):
        shown = handler(kind, error, trace, tb_offset)
        for line in lines:
            print(line)
        return list(shown or [])
    shown = shell.InteractiveTB.structured_traceback(kind, error, trace, tb_offset=tb_offset)
    shell._showtraceback(kind, error, [*shown, *lines])
    return []
