"""Text that varies between runs: proposals with ... and what looks volatile."""

from __future__ import annotations

import doctest

import pytest

from flax_errors_ext.model.runs.judge import OPTION_FLAGS
from flax_errors_ext.model.runs.update import ellipsized, volatile_parts


@pytest.mark.parametrize(
    ("first", "second", "proposal"),
    [
        ("<Foo at 0x7f12ab34cd>\n", "<Foo at 0x7f99ee00ff>\n", "<Foo at ...>\n"),
        (
            "wrote /tmp/tmpab12cd/ckpt_1\n",
            "wrote /tmp/tmpzz99xx/ckpt_1\n",
            "wrote /tmp/.../ckpt_1\n",
        ),
        ("took 0.31 s\n", "took 0.295 s\n", "took ... s\n"),
        ("same\n", "same\n", "same\n"),
    ],
)
def test_the_proposal_puts_ellipses_over_whole_varying_words(
    first: str, second: str, proposal: str
) -> None:
    assert ellipsized(first, second) == proposal
    checker = doctest.OutputChecker()
    assert checker.check_output(proposal, first, OPTION_FLAGS)
    assert checker.check_output(proposal, second, OPTION_FLAGS)


def test_what_looks_bound_to_vary_is_named() -> None:
    text = "saved <Checkpoint at 0x7f3a2b1c0d> to /tmp/run_1 from /home/ada/project"
    assert volatile_parts(text, ["/tmp", "/home/ada"]) == ["0x7f3a2b1c0d", "/tmp", "/home/ada"]
    assert volatile_parts("shape (3, 4) at step 0x10", ["/tmp", ""]) == []
