"""The examples of a napoleon ``Examples:`` section, as ``flax-errors export`` writes it.

Each run of doctest blocks after its prose is one example; blocks with no prose
between them belong together (a definition, a blank line, then its call), and a
block that ends in a traceback ends its example. Pure: lines in, blocks out;
:mod:`~flax_errors_ext.model.catalogue.parse` reads each block as an example.
"""

from __future__ import annotations

import doctest

from flax_errors_ext.model.catalogue.docstring_lines import Line, paragraph_end


def napoleon_examples(body: list[Line]) -> list[tuple[str, list[Line]]]:
    """The section's examples: the prose before each, and its doctest lines."""
    found: list[tuple[str, list[Line]]] = []
    prose: list[str] = []
    block: list[Line] = []
    i = 0
    while i < len(body):
        line = body[i]
        if not line.text.lstrip().startswith(">>>"):
            if block and line.text.strip():
                found.append(("\n".join(prose).strip(), block))
                prose, block = [], []
            if not block:
                prose.append(line.text)
            i += 1
            continue
        end = paragraph_end(body, i)
        indent = len(line.text) - len(line.text.lstrip())
        if block and _ends_in_traceback(block):
            found.append(("\n".join(prose).strip(), block))
            prose, block = [], []
        if block:
            block.append(Line(body[i - 1].number, ""))
        block += [Line(b.number, b.text[indent:]) for b in body[i:end]]
        i = end
    if block:
        found.append(("\n".join(prose).strip(), block))
    return found


def _ends_in_traceback(block: list[Line]) -> bool:
    text = "\n".join(b.text for b in block) + "\n"
    try:
        parsed = doctest.DocTestParser().get_examples(text)
    except ValueError:
        return False
    return bool(parsed) and parsed[-1].exc_msg is not None
