"""Which of Flax's test files ``nox -s flax_suite`` runs, and what its arguments mean."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.tools.sdist_archive import archive
from tools.flax_sdist import flax_source
from tools.flax_suite import plugin, run

REPO = Path(__file__).resolve().parents[3]


def test_the_fast_files_by_default_every_linen_file_with_all(tmp_path: Path) -> None:
    for name in ("linen/b_test.py", "linen/a_test.py", "linen/helper.py", "nnx/bridge/c_test.py"):
        (tmp_path / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tests" / name).write_text("", "utf-8")
    assert run.test_files(tmp_path, run_all=False) == list(run.FAST)
    assert run.test_files(tmp_path, run_all=True) == [
        "tests/linen/a_test.py",
        "tests/linen/b_test.py",
        "tests/nnx/bridge/c_test.py",
    ]


def test_the_parts_taken_of_the_sdist_hold_no_flax_folder_to_shadow_the_installed_one(
    tmp_path: Path,
) -> None:
    archive(tmp_path)  # holds flax/errors.py beside the tests
    source = flax_source("0.12.8", run.PARTS, tmp_path)
    assert (source / "tests" / "linen" / "a_test.py").is_file()
    assert not (source / "flax").exists()


def test_the_sentinel_compared_is_the_one_the_plugin_appends() -> None:
    # pytest names the tests of tools/flax_suite/sentinel.py by that path, dotted, in
    # JUnit: under any other name the comparison would find the sentinel missing.
    junit_name = plugin.SENTINEL_NODEID.removesuffix(".py").replace("/", ".")
    assert junit_name == run.SENTINEL
    assert plugin.SENTINEL.relative_to(REPO).as_posix() == plugin.SENTINEL_NODEID


def test_each_run_has_its_report_and_only_the_hooked_one_loads_the_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    def fake_run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        assert kwargs["env"]["PYTHONPATH"] == str(REPO)
        assert kwargs["env"].items() >= run.ENV.items()
        # 1 is Flax's own failures, compared afterwards.
        return subprocess.CompletedProcess(command, 1)

    monkeypatch.setattr(subprocess, "run", fake_run)
    run.run_suite(tmp_path, ["tests/linen/a_test.py"], tmp_path, ["-x"])

    plain, hooked = commands
    assert f"--junitxml={tmp_path / 'plain'}.xml" in plain
    assert f"--junitxml={tmp_path / 'hooked'}.xml" in hooked
    assert "tools.flax_suite.plugin" not in plain
    assert hooked[hooked.index("tools.flax_suite.plugin") - 1] == "-p"
    assert plain[-2:] == hooked[-2:] == ["-x", "tests/linen/a_test.py"]


def test_a_run_that_does_not_finish_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pytest's exit status 2 and above: interrupted, an internal or a usage error.
    def fake_run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(
            command, 2 if "tools.flax_suite.plugin" in command else 0
        )

    monkeypatch.setattr(subprocess, "run", fake_run)
    with pytest.raises(SystemExit, match="the hooked run of Flax's tests did not finish"):
        run.run_suite(tmp_path, ["tests/linen/a_test.py"], tmp_path, [])
