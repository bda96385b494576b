"""Flax's style for docstring text: pyink's code, 80 columns, no release numbers."""

from __future__ import annotations

import doctest

import pytest

from flax_errors_ext.ext.export.model.style import (
    elided_links,
    flax_code,
    mentions_release,
    wrapped_output,
    wrapped_prose,
)

CLASS = """\
class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(8, kernel_init=nn.initializers.lecun_normal(), name='hidden_layer')(x)

        return x
"""


def test_code_takes_2_space_indents_the_width_and_no_blank_line() -> None:
    code = flax_code(CLASS, 60)

    assert code == (
        "class MLP(nn.Module):\n"
        "  @nn.compact\n"
        "  def __call__(self, x):\n"
        "    x = nn.Dense(\n"
        "        8,\n"
        "        kernel_init=nn.initializers.lecun_normal(),\n"
        "        name='hidden_layer',\n"
        "    )(x)\n"
        "    return x\n"
    )
    assert flax_code(code, 60) == code


def test_code_keeps_its_quotes_and_a_blank_line_inside_a_string() -> None:
    source = "x = {'a': \"b\"}\ny = '''one\n\ntwo'''\n"
    assert flax_code(source, 72) == source


def test_a_triple_quoted_string_takes_single_quotes() -> None:
    source = 'def f():\n    """Doc."""\n'
    assert flax_code(source, 72) == "def f():\n  '''Doc.'''\n"


@pytest.mark.parametrize("source", ["x = (\n", "print 1\n", "x = 1  # doctest: +SKIP\n"])
def test_code_pyink_cannot_format_or_already_formatted_is_kept(source: str) -> None:
    assert flax_code(source, 72) == source


def test_links_are_elided() -> None:
    text = "flax.errors.E: Bad. (https://flax.readthedocs.io/x.html#flax.errors.E)"
    assert elided_links(text) == "flax.errors.E: Bad. ..."
    assert elided_links(text + "...") == "flax.errors.E: Bad. ..."
    assert elided_links("see https://a.b/c and (x)") == "see ... and (x)"


def test_output_is_wrapped_at_spaces_and_reads_as_the_printed_line() -> None:
    printed = (
        "{'hidden': {'bias': (4,), 'kernel': (3, 4)}, 'out': {'bias': (2,), 'kernel': (4, 2)}}"
    )
    lines, wrapped = wrapped_output(printed, 40)

    assert wrapped
    assert all(len(line) <= 40 for line in lines)
    checker = doctest.OutputChecker()
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    assert checker.check_output("\n".join(lines) + "\n", printed + "\n", flags)
    assert wrapped_output("short\n", 40) == (["short"], False)


def test_a_wrapped_line_never_starts_with_an_ellipsis() -> None:
    lines, _ = wrapped_output("aaaa bbbb ... cccc", 9)
    assert not [line for line in lines if line.startswith("...")]


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ("Up to Flax 0.12.8, it raised.", True),
        ("From 0.12.9 on, nothing raises it.", True),
        ("On jax>=0.5 the message differs.", True),
        ("The kernel has shape (3, 4) and 2.5 times the rows.", False),
        ("Use nn.Dense(8) in setup().", False),
    ],
)
def test_a_release_is_recognised(text: str, bound: bool) -> None:
    assert mentions_release(text) is bound


def test_plain_paragraphs_are_rewrapped_and_the_rest_kept() -> None:
    text = (
        "One long paragraph that goes on and on past the width given to it.\n\n"
        "- a list item that is long enough to pass the width given here\n\n"
        "Code::\n\n"
        "    x = 1  # a literal block that stays exactly as it is written\n"
    )
    assert wrapped_prose(text, 30) == [
        "One long paragraph that goes",
        "on and on past the width given",
        "to it.",
        "",
        "- a list item that is long enough to pass the width given here",
        "",
        "Code::",
        "",
        "    x = 1  # a literal block that stays exactly as it is written",
    ]
