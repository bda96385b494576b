"""What a pasted error (a traceback, a message or a log) says: its class, message and frames."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from flax_errors_ext.model.runs.tracebacks import strip_jax_note

if TYPE_CHECKING:
    from collections.abc import Sequence

KEEP_CHARS = 16_000
"""Of a long paste, the characters looked at from each end."""

ELLIPSIS = "..."
"""doctest's ELLIPSIS marker (the help never imports doctest)."""
NAME = re.compile(r"[\w.]+")
FRAGMENT = re.compile(r"#([A-Za-z_][\w.]*\w)")
URL = re.compile(r"https?://[^\s)\]>'\"]+")
# A status in capitals that starts a message (``RESOURCE_EXHAUSTED: ...``) is no class.
# A class is capitalised (``asarray: expected ...`` is a message that names a function).
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*(?![A-Z\d_]+: )_*[A-Z]\w*: ", re.MULTILINE)
_EXCEPTION_CLASS = re.compile(r"(?:Error|Exception|Warning|Exit|Interrupt|Iteration)$")
# After other words on its line (a title, a log's prefix), only a class that says it is one.
_INLINE_EXCEPTION = re.compile(r"(?<=\s)(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): ")
_LINK = re.compile(r"\s*\(https?://[^\s)]*\)|\n\s*See https?://\S*\s*$")
_FRAME_FILE = re.compile(
    # Python's, IPython 8's ("File x.py:3, in f") and 7's ("x.py in f()"), pytest's,
    # Colab's ("[x.py](https://localhost:8080/#) in f()", its path a link); not a warning
    # printed with its file and line ("x.py:18: DeprecationWarning: ...").
    r'File "([^"\n]+\.py)", line|File (\S+\.py):\d+|'
    r"^(\S+\.py) in [\w<]|^(\S+\.py):\d+(?:: (?!\w*Warning: )\w|, in |$)"
    r"|^\[?(\S+\.py)\]\(\S*\) in [\w<]",
    re.MULTILINE,
)
_NOT_SAID = re.compile(
    # A traceback's header, frames (Colab's linked ones, their folded count) and code.
    r"Traceback \(most recent call last\)|^\s*(?:File |Cell In\[|-+>?\s|\d+\s|\^+$|-+$|\.\.\.$)"
    r"|^\s*\[?[^\s\]]*\]\(\S*\) in |^\s*\[\.\.\. skipping hidden"
)
# Where a paste's last error starts: its traceback's header (Python's, or IPython's, which
# has no colon), or the line that chains it to the error before.
_CHAIN = r"^(?:During handling of the above exception|The above exception was the direct cause)"
_LAST_ERROR = re.compile(rf"Traceback \(most recent call last\)|{_CHAIN}", re.MULTILINE)
_CHAINED = re.compile(_CHAIN, re.MULTILINE)
# JAX's wrappers, where its frames were not filtered ("...UnfilteredStackTrace: ValueError:
# x") and where the error was raised after a transformation, at the line that traced it.
_UNFILTERED = re.compile(
    r"^(?:[\w.]*\.)?(?:UnfilteredStackTrace|JaxStackTraceBeforeTransformation): (?=[\w.]+: )",
    re.MULTILINE,
)
# Libraries not built on JAX: where a traceback's innermost frame is theirs, they raised it.
_FOREIGN = re.compile(r"/(?:numpy|scipy|pandas|torch|tensorflow|PIL|sklearn)/")
# pytest's mark before each line of the error it reports: "E       ValueError: x".
_PYTEST_MARK = re.compile(r"^E(?: +|$)", re.MULTILINE)
# A terminal's colour codes (IPython's "\x1b[0;31mValueError\x1b[0m: ..."), or what is
# left of them where the page a traceback was copied from dropped the escape: "[0;31m".
_COLOUR = re.compile(r"\x1b?\[(?:\d{1,3}(?:;\d{1,3})*)?m")
PASTE_SYNTAX = {
    "name": NAME.pattern,
    "fragment": FRAGMENT.pattern,
    "url": URL.pattern,
    "exception_line": _EXCEPTION_LINE.pattern,
    "link": _LINK.pattern,
    "exception_class": _EXCEPTION_CLASS.pattern,
    "inline_exception": _INLINE_EXCEPTION.pattern,
    "last_error": _LAST_ERROR.pattern,
    "frame_file": _FRAME_FILE.pattern,
    "not_said": _NOT_SAID.pattern,
    "unfiltered": _UNFILTERED.pattern,
    "foreign": _FOREIGN.pattern,
    "pytest_mark": _PYTEST_MARK.pattern,
    "colour": _COLOUR.pattern,
}
"""How a paste's parts are told apart, for the site search (``exception_line``,
``last_error``, ``frame_file``, ``unfiltered`` and ``pytest_mark`` with JavaScript's ``m`` flag,
``not_said`` a line at a time, ``colour`` with ``g``)."""


def looks_like_name(query: str) -> bool:
    """Whether ``query`` is a bare name (a class name or a dotted one), not a message."""
    return bool(NAME.fullmatch(readable(query).strip()))


def readable(text: str) -> str:
    """A paste as it is read: no terminal colours, its ends where it is long (:func:`bounded`)."""
    return bounded(_COLOUR.sub("", text))


def bounded(text: str, keep: int = KEEP_CHARS) -> str:
    """``text``, or its first and last ``keep`` characters when it is longer."""
    if len(text) <= 2 * keep:
        return text
    return text[:keep] + "\n" + text[-keep:]


def shows_frame(text: str, package: str) -> bool:
    """Whether a pasted traceback has a frame in a file of ``package``."""
    return any(f"/{package}/" in "/" + frame.replace("\\", "/") for frame in frame_files(text))


def code_form(code: str) -> str:
    """Code as compared: no spaces, every string in single quotes (``pop("a")``: ``pop('a')``)."""
    return re.sub(r"\s+", "", code).replace('"', "'")


def shows_code(text: str, code: str) -> bool:
    """Whether a paste shows ``code`` (:func:`code_form`), in a traceback's lines or its own."""
    return code_form(code) in code_form(text)


INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\]((?:\w+[/\\])*\w+)\.py$")
_CHECKOUT = re.compile(r"[/\\]src[/\\](\w+)[/\\]|[/\\](\w+)[/\\]\2[/\\]")


def frame_files(text: str) -> tuple[str, ...]:
    """The files of a pasted traceback's frames, innermost last."""
    return tuple(next(p for p in m.groups() if p) for m in _FRAME_FILE.finditer(text))


def innermost_frame_line(text: str) -> str:
    """The line that names a pasted traceback's innermost frame; "" where none shows."""
    *_, last = (None, *_FRAME_FILE.finditer(text))
    return text[last.start() :].split("\n", 1)[0] if last is not None else ""


def package_of(path: str) -> str:
    """The package a file belongs to, where its path tells: installed, or a checkout."""
    installed = INSTALLED.search(path)
    if installed:
        return re.split(r"[/\\]", installed.group(1))[0]
    checkout = _CHECKOUT.search(path)
    if checkout:
        return checkout.group(1) or checkout.group(2)
    # A path relative to where the package's folder is ("jaxls/typed.py").
    relative = re.match(r"(\w+)[/\\]", path)
    return relative.group(1) if relative else ""


def raised_elsewhere(text: str, sites: Sequence[str]) -> bool:
    """Whether a pasted traceback shows its error raised elsewhere than at the ``sites``.

    Its innermost frame is in the sites' library, and no frame (shown whole) is at a
    site; or it is in a library that never calls into JAX (:data:`_FOREIGN`), which
    raised the same words itself (NumPy's ``cannot select an axis to squeeze out``).
    """
    text = bounded(text).replace("\\", "/")
    frames = frame_files(text[max(last_error_start(text), 0) :])
    if not frames:
        return False
    innermost = f"/{frames[-1]}"
    libraries = {site.split("/", 1)[0] for site in sites}
    if not any(f"/{library}/" in innermost for library in libraries):
        return _FOREIGN.search(innermost) is not None
    return not any(f"/{frame}".endswith(f"/{site}") for frame in frames for site in sites)


def raised_at_site(text: str, name: str, sites: Sequence[str]) -> bool:
    """Whether the innermost frame, at a site, shows ``raise ... name(`` (whatever message)."""
    text = bounded(text).replace("\\", "/")
    *_, last = (None, *_FRAME_FILE.finditer(text))
    if last is None or not sites:
        return False
    innermost = next(p for p in last.groups() if p)
    raising = re.search(
        rf"^[\s>-]*(?:\d+\s+)?raise (?:[\w.]+\.)?{re.escape(name)}\(", text[last.end() :], re.M
    )
    return raising is not None and any(f"/{innermost}".endswith(f"/{site}") for site in sites)


def as_raised(text: str) -> str:
    """A paste's text without JAX's note, its wrapper, pytest's marks or colours."""
    text = _UNFILTERED.sub("", strip_jax_note(_COLOUR.sub("", text.replace("\r\n", "\n"))))
    return _PYTEST_MARK.sub("", text)


def pasted_class(text: str) -> str:
    """The class a pasted error names on its exception line, bare; "" for a message alone."""
    text = as_raised(bounded(text))
    start = raised_line(text)
    if start is None:
        return ""
    line = _EXCEPTION_LINE.match(text[start:])
    return line.group(0).rstrip(": ").rpartition(".")[2] if line else ""


def message_body(text: str) -> str:
    """The message of a pasted error: its exception line on, no class, no JAX note."""
    text = as_raised(text)
    start = raised_line(text)
    return strip_class(text[start:] if start is not None else text).strip()


def wrapped_messages(text: str) -> list[str]:
    """Of a message of several paragraphs, each after its first.

    There, another error's message that a library wrapped in words of its own (Keras'
    "Exception encountered when calling Test.call().", the error, the call's arguments).
    """
    paragraphs = re.split(r"\n[ \t]*\n", message_body(text))
    return [p.strip() for p in paragraphs[1:] if p.strip()]


def last_error_start(text: str) -> int:
    """Where the traceback of the error raised last starts in ``text``; -1 if none shows."""
    *_, last = (None, *_LAST_ERROR.finditer(text))
    return last.start() if last is not None else -1


def chained_from(text: str) -> str | None:
    """Of a paste of chained errors, the part before the last: the error it was raised from."""
    *_, last = (None, *_CHAINED.finditer(text))
    return text[: last.start()] if last is not None else None


def raised_line(text: str) -> int | None:
    """Where the exception line of the error raised last starts in ``text``, if it has one."""
    # The first line after the last header that names a class (a message may quote another
    # error on a later line); else the last ``Name:`` line; else the first class named
    # after other words.
    header = last_error_start(text)
    lines = [m for m in _EXCEPTION_LINE.finditer(text) if m.start() > header]
    if not lines:
        inline = [m for m in _INLINE_EXCEPTION.finditer(text) if m.start() > header]
        return inline[0].start() if inline else None
    named = [m for m in lines if _EXCEPTION_CLASS.search(m.group(0).rstrip(": "))]
    return (named[0] if named else lines[-1]).start()


def exception_line(text: str, width: int = 160) -> str:
    """The paste's exception line, cut to ``width``; else its last line that names an error."""
    text = as_raised(bounded(text))
    start = raised_line(text)
    if start is not None:
        line = text[start:].split("\n", 1)[0].strip()
    else:
        said = said_lines(text)
        named = [line for line in said if _NAMES_ERROR.search(line)]
        line = (named or said or [""])[-1]
    return line if len(line) <= width else line[: width - 3] + "..."


def said_lines(text: str) -> list[str]:
    """The lines of ``text`` that say something: no traceback header, frame or code line."""
    return [s.strip() for s in text.split("\n") if s.strip() and not _NOT_SAID.search(s)]


def opening_line(text: str) -> str | None:
    """Of a paste with no exception line and more than one, the first line that says something.

    A message pasted without its class starts there; what follows may be anything.
    """
    text = as_raised(text)
    said = said_lines(text)
    return said[0] if raised_line(text) is None and len(said) > 1 else None


_NAMES_ERROR = re.compile(r"\w(?:Error|Exception)\b")


def strip_class(message: str) -> str:
    """The message without its class and without the link Flax appends (pasted or not)."""
    match = _EXCEPTION_LINE.match(message)
    message = message[match.end() :] if match else message
    message = _LINK.sub("", message).rstrip()
    return message.removesuffix(ELLIPSIS).rstrip()
