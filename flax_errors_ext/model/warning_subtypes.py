"""Every subtype of the extension's warnings: ``flax-errors.<subtype>``; never renamed."""

from __future__ import annotations

import enum
from typing import Self


# An alias would publish a second name that silently means another subtype.
@enum.unique
class WarningSubtype(enum.StrEnum):
    """The subtype a warning is logged under, with what it means for the docs' table."""

    description: str

    def __new__(cls, value: str, description: str = "") -> Self:
        """A member carrying its meaning; the default is for the type checker (a lookup)."""
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member

    # A failing example: one per failing verdict, named as the verdict is.
    DRIFTED = (
        "drifted",
        "An example raised the documented class, or ran cleanly, but its text differs.",
    )
    NO_RAISE = "no-raise", "A bad example raised nothing."
    WRONG_CLASS = "wrong-class", "A bad example raised, but not exactly the documented class."
    RAISED = "raised", "A statement that documents no traceback raised (a good example failing)."
    TOO_LOOSE = "too-loose", "The documented error text, ``...`` aside, checks almost nothing."
    TIMED_OUT = "timed-out", "An example ran past ``flax_errors_timeout``."
    CRASHED = "crashed", "The process running the examples died, or could not run them."
    UPSTREAM = (
        "upstream",
        "An example of another project's docstring failed (see ``flax_errors_upstream``).",
    )
    # An entry or a module.
    MALFORMED = "malformed", "A docstring breaks the catalogue format."
    UNDOCUMENTED = "undocumented", "An error class has no examples (an error if strict)."
    CATALOGUE = "catalogue", "A catalogue file names no class of its module."
    IMPORT = "import", "A module of ``flax_errors_modules`` cannot be imported or has no entry."
    UNFORWARDED = (
        "unforwarded",
        "An error links to a page this site neither has nor forwards.",
    )
    # The build's inputs.
    CACHE = (
        "cache",
        "Not logged since a broken execution cache is rebuilt and said in the log; "
        "the name stays valid in ``suppress_warnings``.",
    )
    DEVICE = "device", "The device the examples run on could not be probed."
    HISTORY = "history", "A history file of ``flax_errors_history`` could not be read."
    HISTORY_STALE = (
        "history-stale",
        "A recorded history is of other bad examples than the entry's now.",
    )
    DEVICE_RUNS = "device-runs", "A run of ``flax_errors_device_runs`` could not be read."
    REDIRECTS = (
        "redirects",
        "Pages moved, but sphinx-reredirects, which forwards them, is not installed "
        "(``pip install flax-errors[redirects]``).",
    )
    # The command line's own.
    VARIES = "varies", "``flax-errors check --twice`` only: a text varies from run to run."
