"""An entry's examples: code, real output (the reader's frames), verdict; literal, never markup."""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import re
from itertools import pairwise
from typing import TYPE_CHECKING

from docutils import nodes
from docutils.utils.code_analyzer import Lexer, LexerError
from sphinx_design.shared import create_component

from flax_errors_ext.model.catalogue.conditions import describe
from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict, first_paragraph
from flax_errors_ext.model.runs.tracebacks import (
    TRACEBACK_HEADER,
    import_roots,
    is_internal,
    library_dirs,
    publishable,
    strip_roots,
    trim_traceback,
)
from flax_errors_ext.model.site.links import DEFAULT_SOURCE_LINKS, SourceLinks
from flax_errors_ext.model.site.texts import evidence, first_screen

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from sphinx.writers.html5 import HTML5Translator

    from flax_errors_ext.model.catalogue.records import ExampleResult
    from flax_errors_ext.model.site.links import SourceLink

    ParseRest = Callable[[str, str, Sequence[int]], list[nodes.Node]]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_PASSED = {
    ExampleKind.BAD: "Checked: raises exactly this error, with the documented text.",
    ExampleKind.GOOD: "Checked: runs cleanly and prints the documented output.",
    ExampleKind.UNREACHABLE: "Checked: the evidence still holds.",
    ExampleKind.UPSTREAM: "Checked: prints what the library's own doctest documents.",
    ExampleKind.SEEN_AS: "Checked: raises exactly that error, with the documented text.",
}


def entry_examples(
    results: Sequence[ExampleResult],
    parse_rest: ParseRest,
    *,
    captions_shown: bool,
    links: SourceLinks | None = None,
) -> tuple[list[nodes.Node], list[nodes.Node]]:
    """The first bad and good example, open, the rest as tabs (``captions_shown``: captionless)."""
    example = functools.partial(_example, parse_rest=parse_rest, roots=import_roots(), links=links)
    # The first screen shows the examples that hold for this build's versions; others, tabs.
    held = [i for i, result in enumerate(results) if result.verdict is not Verdict.OTHER_VERSIONS]
    examples = [results[i].example for i in held]
    shown = tuple(held[i] for i in first_screen(examples))
    found_evidence = evidence(examples)
    folded = held[found_evidence] if found_evidence is not None else None
    # "What raises it" and "The fix" where there is something to fix; where the
    # error cannot be raised, the evidence and the good example go by their kind.
    fixes = any(results[index].example.kind is ExampleKind.BAD for index in shown)
    found: list[nodes.Node] = []
    for index in shown:
        result = results[index]
        kind = result.example.kind
        heading = _FIRST_SCREEN[kind] if fixes and kind in _FIRST_SCREEN else kind.heading
        box = nodes.container(classes=["flax-errors-shown", kind.value])
        box += nodes.rubric(heading, heading, classes=["flax-errors-heading", *_failed(result)])
        box += example(result, skip_caption=captions_shown and kind is ExampleKind.GOOD)
        found.append(box)
    if len(found) > 1:
        # Side by side on a wide screen, as Flax's own docs set a mistake beside its fix
        # (codediff): the fixed code then starts as high on the page as the wrong code.
        found = [nodes.container("", *found, classes=["flax-errors-pair"])]
    if folded is not None:
        result = results[folded]
        title = "How we know it cannot be raised" + (
            f": the evidence {result.verdict}" if result.verdict.failed else ""
        )
        folded_box = example(result, skip_caption=captions_shown)
        classes = ["flax-errors-evidence", *_failed(result)]
        found.append(dropdown(title, folded_box, classes=classes))
    rest = [i for i in range(len(results)) if i not in shown and i != folded]
    return found, ([_tabs(results, rest, example)] if rest else [])


_FIRST_SCREEN = {ExampleKind.BAD: "What raises it", ExampleKind.GOOD: "The fix"}
"""The headings of the first bad and good example, where the error can be raised."""


def _failed(result: ExampleResult) -> list[str]:
    return ["flax-errors-failed"] if result.verdict.failed else []


def _tabs(
    results: Sequence[ExampleResult],
    rest: Sequence[int],
    example: Callable[[ExampleResult], list[nodes.Node]],
) -> nodes.Node:
    kinds = [result.example.kind for result in results]
    tab_set = create_component("tab-set", classes=["sd-tab-set", "flax-errors-examples"])
    for index in rest:
        result = results[index]
        kind = result.example.kind
        number = kinds[: index + 1].count(kind)
        label = kind.heading + (f" {number}" if kinds.count(kind) > 1 else "")
        if result.example.holds_for:
            label += f" ({describe(result.example.holds_for)})"
        item = create_component("tab-item", classes=["sd-tab-item"], selected=False)
        item += nodes.rubric(label, label, classes=["sd-tab-label", *_failed(result)])
        content = create_component("tab-content", classes=["sd-tab-content"])
        content.extend(example(result))
        item += content
        tab_set += item
    return tab_set


def _example(
    result: ExampleResult,
    *,
    parse_rest: ParseRest,
    roots: Sequence[str],
    links: SourceLinks | None,
    skip_caption: bool = False,
) -> list[nodes.Node]:
    example = result.example
    box = nodes.container(
        classes=["flax-errors-example", example.kind.value, result.verdict.value]
    )
    description = example.description
    description_lines = description.count("\n") + 1
    first = example.location.line - description_lines - 1
    if skip_caption:
        skipped = first_paragraph(description)[1]
        description = "\n".join(description.split("\n")[skipped:])
        first += skipped
    if example.holds_for:
        text = f"Holds for {describe(example.holds_for)}."
        box += nodes.paragraph("", "", nodes.Text(text), classes=["flax-errors-holds-for"])
    # The description's lines follow one another in its file.
    box += parse_rest(description, example.location.path, range(first, first + 100_000))
    box += nodes.literal_block(
        "", transcript(result, roots=roots), language="pycon", classes=["flax-errors-transcript"]
    )
    # The verdict, then the full traceback: closed, it shares the verdict's line.
    box += _verdict(result, roots)
    if full := full_tracebacks(result, roots=roots):
        # Out of the site's search: the library's frames would make every page that
        # passes through jit or apply a hit, and the error's text is in the transcript.
        box += dropdown(
            "Full traceback",
            [traceback_block(text, links) for text in full],
            classes=["flax-errors-full-traceback", "no-search"],
            margin="sd-mb-1",
        )
    if result.verdict.failed and result.diff:
        box += nodes.literal_block("", strip_roots(result.diff, roots), language="diff")
    return [box]


def _verdict(result: ExampleResult, roots: Sequence[str]) -> nodes.Node:
    if result.verdict is Verdict.PASSED:
        text = _PASSED[result.example.kind]
    elif result.verdict is Verdict.NOT_RUN:
        text = "Not run in this build: the output shown is the documented one."
    elif result.verdict is Verdict.OTHER_VERSIONS:
        text = (
            f"Not run in this build: it {result.detail}. The output shown is the documented one."
        )
    else:
        text = f"{result.verdict.value}" + (f": {result.detail}" if result.detail else "")
    text = strip_roots(text, roots)
    return nodes.paragraph("", "", nodes.Text(text), classes=["flax-errors-verdict"])


def transcript(result: ExampleResult, *, roots: Sequence[str] | None = None) -> str:
    """The example as a doctest session, what ran as its output, library frames dropped."""
    roots = import_roots() if roots is None else roots
    internal = _internal(roots)
    parts = []
    runs = iter(result.runs)
    for statement in result.example.statements:
        parts.append(">>> " + "\n... ".join(statement.source.rstrip("\n").split("\n")) + "\n")
        if statement.skip:
            continue
        if (run := next(runs, None)) is not None:
            output = _ANSI.sub("", run.transcript)
            parts.append(publishable(trim_traceback(output, internal), roots))
        else:  # never ran: show what is documented
            parts.append(statement.want)
    return "".join(parts).rstrip("\n")


def full_tracebacks(result: ExampleResult, *, roots: Sequence[str] | None = None) -> list[str]:
    """The tracebacks of the example's runs, where trimming hid frames; all but the runner's."""
    roots = import_roots() if roots is None else roots
    internal = _internal(roots)
    found = []
    for run in result.runs:
        output = _ANSI.sub("", run.transcript)
        if TRACEBACK_HEADER not in output:
            continue
        shown = publishable(output, roots)
        if publishable(trim_traceback(output, internal), roots) != shown:
            found.append(shown[shown.find(TRACEBACK_HEADER) :].rstrip("\n"))
    return found


def _internal(roots: Sequence[str]) -> Callable[[str], bool]:
    """Library code: installed, this package, or under ``roots`` (the catalogued module's too)."""
    return functools.partial(is_internal, libraries=(*library_dirs(), *roots))


def dropdown(
    title: str, children: list[nodes.Node], classes: Sequence[str] = (), margin: str = "sd-mb-3"
) -> nodes.Node:
    """A closed sphinx-design dropdown (an HTML ``<details>``); ``margin``, its space below."""
    container = create_component(
        "dropdown",
        opened=False,
        type="dropdown",
        has_title=True,
        icon=None,
        chevron=None,
        container_classes=[margin, *classes],
        title_classes=[],
        body_classes=[],
    )
    container += nodes.rubric(title, title)
    container.extend(children)
    return container


class linked_traceback(nodes.literal_block):
    """A ``pytb`` block, frames linked: one node, highlighted when written (Sphinx drops links)."""


def source_links(overrides: Mapping[str, str | None], versions: Mapping[str, str]) -> SourceLinks:
    """Links to library frames' source for ``versions`` (else as installed); ``overrides`` win."""
    merged = {**DEFAULT_SOURCE_LINKS, **overrides}
    templates = {package: template for package, template in merged.items() if template}
    found = dict(versions)
    for package in templates.keys() - found.keys():
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            found[package] = importlib.metadata.version(package)
    return SourceLinks(templates, found)


def traceback_block(text: str, links: SourceLinks | None = None) -> nodes.literal_block:
    """A published traceback, highlighted, with its library frames linked to their source."""
    found = links.find(text) if links is not None else []
    if not found:
        return nodes.literal_block(text, text, language="pytb")
    block = linked_traceback(text, text, language="pytb")
    block["links"] = found
    return block


def visit_linked_traceback_html(translator: HTML5Translator, node: linked_traceback) -> None:
    """Write the block highlighted and linked, as Sphinx writes ``pytb``.

    Its ``rawsource`` (the links in reST) differs from its text: Sphinx does not highlight it.
    """
    text = node.astext()
    found: list[SourceLink] = node["links"]
    source, start = [], 0
    for link in found:
        source += [text[start : link.start], f"`{text[link.start : link.end]} <{link.url}>`__"]
        start = link.end
    block = nodes.literal_block("".join([*source, text[start:]]), "")
    block.extend(_linked_tokens(text, found))
    inner = nodes.container("", block, classes=["highlight"])
    nodes.container("", inner, classes=["highlight-pytb", "notranslate"]).walkabout(translator)
    raise nodes.SkipNode


def _linked_tokens(text: str, links: Sequence[SourceLink]) -> list[nodes.Node]:
    found: list[nodes.Node] = []
    reference = nodes.reference()
    cuts = sorted({cut for link in links for cut in (link.start, link.end)})
    for start, piece, classes in _pieces(text, cuts):
        node = nodes.inline(piece, piece, classes=classes) if classes else nodes.Text(piece)
        link = next((link for link in links if link.start <= start < link.end), None)
        if link is None:
            found.append(node)
            continue
        if start == link.start:
            reference = nodes.reference("", "", refuri=link.url)
            found.append(reference)
        reference += node
    return found


def _pieces(text: str, cuts: Sequence[int]) -> Iterator[tuple[int, str, list[str]]]:
    """``text``'s pytb tokens, split at ``cuts``: each piece's offset, text and classes."""
    try:
        tokens = list(Lexer(text, "pytb", tokennames="short"))
    except LexerError:
        tokens = []
    if "".join(value for _, value in tokens) != text:
        tokens = [([], text)]  # no Pygments, or it changed the text: plain, still linked
    position = 0
    for classes, value in tokens:
        stop = position + len(value)
        bounds = [position, *(cut for cut in cuts if position < cut < stop), stop]
        for start, end in pairwise(bounds):
            yield start, value[start - position : end - position], classes
        position = stop
