"""The one message entry of the help's test index, and what the help says for it."""

from __future__ import annotations

import textwrap

WORDS_AS_INTEGER = textwrap.dedent(
    """\
    A number written in words was parsed as an integer.

    Bad example:

      >>> int("three")
      Traceback (most recent call last):
        ...
      ValueError: invalid literal for int() with base 10: 'three'
    """
)
HELP = (
    "help: Parse digits, not words.",
    "see: https://errors.example.org/WordsAsInteger.html",
)
"""What the help says under a ``ValueError`` of ``int("seven")``."""
