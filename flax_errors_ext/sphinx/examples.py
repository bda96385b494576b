"""An entry's examples as sphinx-design tabs: code, the real output, and the verdict.

Each example becomes one tab. Its code block is the example as a doctest session
whose output is what actually ran, with tracebacks trimmed to the reader's own
frames (:mod:`flax_errors_ext.model.tracebacks`); the full traceback is one click
away in a dropdown. Both name library files inside their import root
(``flax/linen/module.py``), never by a folder of the build machine, and leave
out the doctest runner's frame. Everything shown of a run is a literal block, so
error text never turns into markup.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx_design.shared import create_component

from flax_errors_ext.model.records import ExampleKind, Verdict
from flax_errors_ext.model.tracebacks import (
    TRACEBACK_HEADER,
    import_roots,
    is_internal,
    library_dirs,
    publishable,
    strip_roots,
    trim_traceback,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from flax_errors_ext.model.records import ExampleResult

    ParseRest = Callable[[str, str, Sequence[int]], list[nodes.Node]]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_PASSED = {
    ExampleKind.BAD: "Checked: raises exactly this error, with the documented text.",
    ExampleKind.GOOD: "Checked: runs cleanly and prints the documented output.",
    ExampleKind.UNREACHABLE: "Checked: the evidence still holds.",
    ExampleKind.UPSTREAM: "Checked: prints what the library's own doctest documents.",
}


def example_tabs(results: Sequence[ExampleResult], parse_rest: ParseRest) -> nodes.Node:
    """One tab per example, bad ones first as documented; the first tab is open.

    Args:
        results: The entry's examples with their verdicts, in docstring order.
        parse_rest: Parses an example's description (reST) at its file lines.
    """
    totals = Counter(result.example.kind for result in results)
    seen: Counter[ExampleKind] = Counter()
    roots = import_roots()
    tab_set = create_component("tab-set", classes=["sd-tab-set", "flax-errors-examples"])
    for result in results:
        kind = result.example.kind
        seen[kind] += 1
        label = kind.heading + (f" {seen[kind]}" if totals[kind] > 1 else "")
        tab_set += _tab(label, _example(result, parse_rest, roots), failed=result.verdict.failed)
    return tab_set


def _tab(label: str, children: list[nodes.Node], *, failed: bool) -> nodes.Node:
    item = create_component("tab-item", classes=["sd-tab-item"], selected=False)
    classes = ["sd-tab-label"] + (["flax-errors-failed"] if failed else [])
    item += nodes.rubric(label, label, classes=classes)
    content = create_component("tab-content", classes=["sd-tab-content"])
    content.extend(children)
    item += content
    return item


def _example(
    result: ExampleResult, parse_rest: ParseRest, roots: Sequence[str]
) -> list[nodes.Node]:
    example = result.example
    box = nodes.container(
        classes=["flax-errors-example", example.kind.value, result.verdict.value]
    )
    description_lines = example.description.count("\n") + 1
    first = example.location.line - description_lines - 1
    box += parse_rest(example.description, example.location.path, _from(first))
    box += nodes.literal_block(
        "", transcript(result, roots=roots), language="pycon", classes=["flax-errors-transcript"]
    )
    full = full_tracebacks(result, roots=roots)
    if full:
        box += dropdown(
            "Full traceback",
            [nodes.literal_block("", text, language="pytb") for text in full],
            classes=["flax-errors-full-traceback"],
        )
    box += _verdict(result, roots)
    if result.verdict.failed and result.diff:
        box += nodes.literal_block("", strip_roots(result.diff, roots), language="diff")
    return [box]


def _verdict(result: ExampleResult, roots: Sequence[str]) -> nodes.Node:
    if result.verdict is Verdict.PASSED:
        text = _PASSED[result.example.kind]
    elif result.verdict is Verdict.NOT_RUN:
        text = "Not run in this build: the output shown is the documented one."
    else:
        text = f"{result.verdict.value}" + (f": {result.detail}" if result.detail else "")
    text = strip_roots(text, roots)
    return nodes.paragraph("", "", nodes.Text(text), classes=["flax-errors-verdict"])


def transcript(
    result: ExampleResult, *, trim: bool = True, roots: Sequence[str] | None = None
) -> str:
    """The example as a doctest session, with what actually ran as its output.

    Args:
        result: The example and its runs.
        trim: Drop library frames from tracebacks (see :func:`trim_traceback`).
        roots: Folders the files of frames are shown relative to; by default
            :func:`~flax_errors_ext.model.tracebacks.import_roots`.
    """
    roots = import_roots() if roots is None else roots
    internal = _internal(roots)
    parts = []
    runs = iter(result.runs)
    for statement in result.example.statements:
        lines = statement.source.rstrip("\n").split("\n")
        parts.append(">>> " + "\n... ".join(lines) + "\n")
        if statement.skip:
            continue
        run = next(runs, None)
        if run is not None:
            output = _ANSI.sub("", run.transcript)
            parts.append(publishable(trim_traceback(output, internal) if trim else output, roots))
        else:  # never ran: show what is documented
            parts.append(statement.want)
    return "".join(parts).rstrip("\n")


def full_tracebacks(result: ExampleResult, *, roots: Sequence[str] | None = None) -> list[str]:
    """The tracebacks of the example's runs, where trimming hid frames; all but the runner's.

    Args:
        result: The example and its runs.
        roots: Folders the files of frames are shown relative to; by default
            :func:`~flax_errors_ext.model.tracebacks.import_roots`.
    """
    roots = import_roots() if roots is None else roots
    internal = _internal(roots)
    found = []
    for run in result.runs:
        output = _ANSI.sub("", run.transcript)
        start = output.find(TRACEBACK_HEADER)
        if start < 0:
            continue
        shown = publishable(output, roots)
        if publishable(trim_traceback(output, internal), roots) != shown:
            found.append(shown[shown.find(TRACEBACK_HEADER) :].rstrip("\n"))
    return found


def _internal(roots: Sequence[str]) -> Callable[[str], bool]:
    """Library code: installed, this package, or anything imported from ``roots``.

    The catalogued module and its helpers count too: the reader's own code is in
    the ``<doctest ...>`` frames.
    """
    libraries = (*library_dirs(), *roots)

    def internal(path: str) -> bool:
        return is_internal(path, libraries)

    return internal


def dropdown(title: str, children: list[nodes.Node], classes: Sequence[str] = ()) -> nodes.Node:
    """A closed sphinx-design dropdown (an HTML ``<details>``)."""
    container = create_component(
        "dropdown",
        opened=False,
        type="dropdown",
        has_title=True,
        icon=None,
        chevron=None,
        container_classes=["sd-mb-3", *classes],
        title_classes=[],
        body_classes=[],
    )
    container += nodes.rubric(title, title)
    container.extend(children)
    return container


def _from(first_line: int) -> range:
    """Consecutive file lines from ``first_line`` on, for text without gaps."""
    return range(first_line, first_line + 100_000)
