"""Compare two pytest runs of the same tests, test by test, from their JUnit XML reports.

``nox -s flax_suite`` runs Flax's tests once plain and once with the jit hook
installed; the hook keeps its promise only if every test ends the same way in both::

    python -m tools.flax_suite.compare plain.xml hooked.xml --hooked-only SENTINEL

prints each test whose outcome differs, with both outcomes and the end of its
traceback, and exits 1 if there is any. Tests meant to run in the hooked run alone
(the sentinel) must be there, and must pass.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

PASSED = "passed"
TAIL_LINES = 15
"""How much of a traceback to print: its end names the error and where it was raised."""


@dataclasses.dataclass(frozen=True)
class Result:
    """How one test ended in one run."""

    outcome: str
    """``passed``, ``failed``, ``error``, ``skipped`` or ``xfailed``; a test that failed
    and then errored in teardown is ``failed+error``."""
    detail: str = ""
    """The traceback (or skip reason) pytest recorded, empty for a pass."""


Report = dict[str, Result]
"""One run: each test's id and how it ended. The id is JUnit's class name and test name,
``tests.linen.linen_module_test.ModuleTest::test_bind`` for pytest's
``tests/linen/linen_module_test.py::ModuleTest::test_bind``."""


@dataclasses.dataclass(frozen=True)
class Difference:
    """A test that did not end as expected; None where a run does not have it."""

    test: str
    plain: Result | None
    hooked: Result | None
    expected: str | None = None
    """For a test expected in the hooked run alone: the outcome it must have."""

    def describe(self, tail_lines: int = TAIL_LINES) -> str:
        """Name the test, both outcomes and the end of every traceback recorded."""
        lines = [f"{self.test}: plain {_outcome(self.plain)}, hooked {_outcome(self.hooked)}"]
        if self.expected is not None:
            lines[0] += f" (expected: only in the hooked run, {self.expected})"
        for mode, result in (("plain", self.plain), ("hooked", self.hooked)):
            if result is not None and result.detail:
                tail = result.detail.rstrip().splitlines()[-tail_lines:]
                lines.append(f"  {mode}, last {len(tail)} lines:")
                lines.extend(f"    {line}" for line in tail)
        return "\n".join(lines)


def _outcome(result: Result | None) -> str:
    return "missing" if result is None else result.outcome


def read_junit(path: Path) -> Report:
    """Read a report written by ``pytest --junitxml``.

    Raises:
        ValueError: The file holds no test at all, so it cannot vouch for anything.
    """
    outcomes: dict[str, list[str]] = {}
    details: dict[str, list[str]] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        test = _test_id(case.get("classname", ""), case.get("name", ""))
        outcome, detail = _case_outcome(case)
        # pytest writes a test that failed and then errored in teardown twice.
        outcomes.setdefault(test, []).append(outcome)
        details.setdefault(test, []).append(detail)
    if not outcomes:
        raise ValueError(f"{path}: no test cases")
    return {
        test: Result("+".join(outcomes[test]), "\n".join(filter(None, details[test])))
        for test in outcomes
    }


def _test_id(classname: str, name: str) -> str:
    # pytest writes ``tests/linen/x_test.py::Class::test`` as classname
    # ``tests.linen.x_test.Class``, name ``test``; a dotted id is just as unique.
    return f"{classname}::{name}" if classname else name


def _case_outcome(case: ET.Element) -> tuple[str, str]:
    for tag in ("failure", "error"):
        found = case.find(tag)
        if found is not None:
            return ("failed" if tag == "failure" else "error"), _text(found)
    skipped = case.find("skipped")
    if skipped is not None:
        kind = "xfailed" if skipped.get("type") == "pytest.xfail" else "skipped"
        return kind, _text(skipped)
    return PASSED, ""


def _text(element: ET.Element) -> str:
    return (element.text or element.get("message") or "").strip()


def compare(
    plain: Mapping[str, Result],
    hooked: Mapping[str, Result],
    hooked_only: Iterable[str] = (),
) -> list[Difference]:
    """The tests that ended differently with the hook, and sentinels that did not pass.

    Differences come in the hooked run's order, sentinels first, then tests that are
    in the plain run alone.

    Args:
        plain: The run without the hook.
        hooked: The run with it.
        hooked_only: Tests, or classes or modules of tests (``a.b`` names ``a.b::test``
            and ``a.b.C::test``), that must be in the hooked run alone, and pass there.
            Each must name at least one test.
    """
    differences: list[Difference] = []
    sentinels: set[str] = set()
    for prefix in hooked_only:
        named = [test for test in hooked if _names(prefix, test)]
        if not named:
            differences.append(Difference(prefix, None, None, expected=PASSED))
        sentinels.update(named)
        differences.extend(
            Difference(test, plain.get(test), hooked[test], expected=PASSED)
            for test in named
            if test in plain or hooked[test].outcome != PASSED
        )
    for test in dict.fromkeys([*hooked, *plain]):
        if test in sentinels:
            continue
        before, after = plain.get(test), hooked.get(test)
        if before is None or after is None or before.outcome != after.outcome:
            differences.append(Difference(test, before, after))
    return differences


def _names(prefix: str, test: str) -> bool:
    return test == prefix or test.startswith((f"{prefix}::", f"{prefix}."))


def summary(report: Mapping[str, Result]) -> str:
    """Count the outcomes of one run, e.g. ``812 tests: 790 passed, 22 skipped``."""
    counts = Counter(result.outcome for result in report.values())
    parts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
    return f"{len(report)} tests: {parts}"


def main(argv: Sequence[str] | None = None) -> int:
    """Compare two JUnit reports; print the differences; 1 if there are any."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("plain", type=Path, help="JUnit XML of the run without the hook")
    parser.add_argument("hooked", type=Path, help="JUnit XML of the run with the hook")
    parser.add_argument(
        "--hooked-only",
        action="append",
        default=[],
        metavar="TEST",
        help="a test, or a class or module of tests (JUnit names), that must run in the"
        " hooked run alone, and pass",
    )
    args = parser.parse_args(argv)
    plain, hooked = read_junit(args.plain), read_junit(args.hooked)
    print(f"plain:  {summary(plain)}")
    print(f"hooked: {summary(hooked)}")
    differences = compare(plain, hooked, args.hooked_only)
    for difference in differences:
        print(f"\n{difference.describe()}")
    if differences:
        print(f"\n{len(differences)} test(s) ended differently with the hook installed.")
        return 1
    print("Every test ended the same way with the hook installed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
