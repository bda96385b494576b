"""The parts of ``nox -s flax_suite`` (comparison, plugin, sentinel), without Flax's suite."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext import uninstall
from tools.flax_suite import sentinel
from tools.flax_suite.compare import Difference, Result, compare, main, read_junit

if TYPE_CHECKING:
    from collections.abc import Iterator

REPO = Path(__file__).resolve().parents[3]
PYTEST = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider")
SENTINEL = "tools.flax_suite.sentinel"
CHANGED = "tests.linen.a_test.ATest::test_changed"
TRACEBACK = "\n".join(f"frame {n}" for n in range(1, 31)) + "\nJitPytreeError: not for you"


def junit(*cases: str) -> str:
    """A JUnit XML report as ``pytest --junitxml`` writes it, holding these test cases."""
    return f'<testsuites><testsuite name="pytest">{"".join(cases)}</testsuite></testsuites>'


def case(name: str, body: str = "", classname: str = "tests.linen.a_test.ATest") -> str:
    return f'<testcase classname="{classname}" name="{name}" time="0.1">{body}</testcase>'


SKIPPED = '<skipped type="pytest.skip" message="needs a GPU">a_test.py:9: needs a GPU</skipped>'
FAILED = f'<failure message="JitPytreeError: not for you">{TRACEBACK}</failure>'
KNOWN = '<failure message="AssertionError">Traceback\nAssertionError: flaky upstream</failure>'
SENTINEL_CASE = case("test_hook_is_live", classname=SENTINEL)
PLAIN = junit(
    case("test_same"),
    case("test_changed"),
    case("test_skipped", SKIPPED),
    case("test_known_failure", KNOWN),
)


def run_main(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], plain: str, hooked: str
) -> tuple[int, str]:
    (tmp_path / "plain.xml").write_text(plain)
    (tmp_path / "hooked.xml").write_text(hooked)
    files = [str(tmp_path / "plain.xml"), str(tmp_path / "hooked.xml")]
    code = main([*files, "--hooked-only", SENTINEL])
    return code, capsys.readouterr().out


def test_the_same_outcomes_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A test that fails in both runs is Flax's own failure, not the hook's.
    hooked = junit(
        case("test_same"),
        case("test_changed"),
        case("test_skipped", SKIPPED),
        case("test_known_failure", KNOWN),
        SENTINEL_CASE,
    )

    code, out = run_main(tmp_path, capsys, PLAIN, hooked)

    assert code == 0
    assert "plain:  4 tests: 1 failed, 2 passed, 1 skipped" in out
    assert "hooked: 5 tests: 1 failed, 3 passed, 1 skipped" in out
    assert "Every test ended the same way" in out


def test_a_changed_outcome_fails_with_its_name_outcomes_and_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hooked = junit(
        case("test_same"),
        case("test_changed", FAILED),
        case("test_skipped", SKIPPED),
        case("test_known_failure", KNOWN),
        SENTINEL_CASE,
    )

    code, out = run_main(tmp_path, capsys, PLAIN, hooked)

    assert code == 1
    assert f"{CHANGED}: plain passed, hooked failed" in out
    assert "hooked, last 15 lines:" in out
    assert "JitPytreeError: not for you" in out
    assert "frame 17" in out
    assert "frame 16\n" not in out
    assert "test_same" not in out
    assert "test_known_failure" not in out
    assert "1 test(s) ended differently" in out


def test_tests_in_one_run_only_are_differences() -> None:
    plain = {"a::gone": Result("passed"), "a::kept": Result("passed")}
    hooked = {"a::kept": Result("passed"), "a::new": Result("skipped", "why")}

    assert compare(plain, hooked) == [
        Difference("a::new", None, Result("skipped", "why")),
        Difference("a::gone", Result("passed"), None),
    ]
    assert Difference("a::gone", Result("passed"), None).describe() == (
        "a::gone: plain passed, hooked missing"
    )


@pytest.mark.parametrize(
    ("plain", "hooked", "expected"),
    [
        pytest.param({}, {}, [Difference(SENTINEL, None, None, "passed")], id="missing"),
        pytest.param(
            {},
            {f"{SENTINEL}::test_live": Result("failed", "DID NOT RAISE")},
            [
                Difference(
                    f"{SENTINEL}::test_live", None, Result("failed", "DID NOT RAISE"), "passed"
                )
            ],
            id="failed",
        ),
        pytest.param(
            {f"{SENTINEL}::test_live": Result("passed")},
            {f"{SENTINEL}::test_live": Result("passed")},
            [Difference(f"{SENTINEL}::test_live", Result("passed"), Result("passed"), "passed")],
            id="in-the-plain-run-too",
        ),
        pytest.param({}, {f"{SENTINEL}::test_live": Result("passed")}, [], id="passed"),
    ],
)
def test_the_sentinel_must_pass_in_the_hooked_run_alone(
    plain: dict[str, Result], hooked: dict[str, Result], expected: list[Difference]
) -> None:
    assert compare(plain, hooked, [SENTINEL]) == expected


def test_read_junit_outcomes(tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    teardown = '<error message="failed on teardown with &quot;RuntimeError&quot;">boom</error>'
    xfail = '<skipped type="pytest.xfail" message="known" />'
    report.write_text(
        junit(
            case("test_pass"),
            case("test_skip", SKIPPED),
            case("test_xfail", xfail),
            case("test_error", teardown),
            # pytest writes a test that failed, then errored in teardown, twice.
            case("test_twice", KNOWN),
            case("test_twice", teardown),
            case("tests.linen.b_test", '<error message="collection failure">E</error>', ""),
        )
    )

    found = read_junit(report)

    assert {test: result.outcome for test, result in found.items()} == {
        "tests.linen.a_test.ATest::test_pass": "passed",
        "tests.linen.a_test.ATest::test_skip": "skipped",
        "tests.linen.a_test.ATest::test_xfail": "xfailed",
        "tests.linen.a_test.ATest::test_error": "error",
        "tests.linen.a_test.ATest::test_twice": "failed+error",
        "tests.linen.b_test": "error",
    }
    assert found["tests.linen.a_test.ATest::test_twice"].detail.endswith("flaky upstream\nboom")
    assert found["tests.linen.a_test.ATest::test_xfail"].detail == "known"


def test_read_junit_refuses_an_empty_report(tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    report.write_text(junit())

    with pytest.raises(ValueError, match="no test cases"):
        read_junit(report)


# --- The plugin and the sentinel, on a few tests of our own instead of Flax's. ---

_INNER_TESTS = """
import jax
import pytest
from flax import linen as nn
from jax._src import core

import flax_errors_ext
from flax_errors_ext.errors import JitPytreeError


def test_deselected():
    pass


def test_uninstalls_the_hook():
    flax_errors_ext.uninstall()


def test_replaces_the_hook():
    core.pytype_aval_mappings[nn.Module] = core.pytype_aval_mappings[int]


def test_runs_under_the_hook_again():
    with pytest.raises(JitPytreeError):
        jax.jit(lambda module: module)(nn.Dense(2))
"""


def test_the_plugin_keeps_the_hook_live_and_appends_the_sentinel(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "inner_test.py").write_text(textwrap.dedent(_INNER_TESTS))
    report = tmp_path / "report.xml"

    done = subprocess.run(
        [
            *PYTEST,
            "-p",
            "tools.flax_suite.plugin",
            "-k",
            "hook",
            f"--junitxml={report}",
            "inner_test.py",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 1, done.stdout + done.stderr
    found = read_junit(report)
    assert {test: result.outcome for test, result in found.items()} == {
        "inner_test::test_uninstalls_the_hook": "error",
        "inner_test::test_replaces_the_hook": "error",
        "inner_test::test_runs_under_the_hook_again": "passed",
        # -k "hook" does not select it, yet it runs: the plugin appends it after selection.
        f"{SENTINEL}::test_jit_on_a_linen_module_raises_jit_pytree_error": "passed",
    }
    for test in ("test_uninstalls_the_hook", "test_replaces_the_hook"):
        assert (
            f"the jit hook is no longer installed after inner_test.py::{test}"
            in found[f"inner_test::{test}"].detail
        )


@pytest.fixture
def no_hook() -> Iterator[None]:
    uninstall()
    yield
    uninstall()


@pytest.mark.usefixtures("no_hook")
def test_the_sentinel_fails_without_the_hook() -> None:
    # Any error will do, DID NOT RAISE included: what matters is that it does not pass.
    with pytest.raises((Exception, pytest.fail.Exception)):
        sentinel.test_jit_on_a_linen_module_raises_jit_pytree_error()
