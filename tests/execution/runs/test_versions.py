"""The versions ``:holds for:`` lines are read against, and the device's platform."""

from __future__ import annotations

from flax_errors_ext.execution.runs.run import run_versions
from flax_errors_ext.execution.runs.versions import installed_versions
from flax_errors_ext.model.catalogue.conditions import parse_conditions
from flax_errors_ext.model.catalogue.records import Example, ExampleKind, Location
from flax_errors_ext.model.runs.fingerprint import Device, Fingerprint


def _example(holds_for: str) -> Example:
    return Example(
        ExampleKind.BAD, (), "", Location("pkg/errors.py", 1), parse_conditions(holds_for)
    )


def test_the_runs_platform_is_the_probed_devices() -> None:
    entry = type("Entry", (), {"examples": (_example("platform == tpu"),)})()
    on_tpu = Fingerprint.of({"jax": "0.10.2"}, Device("tpu", "TPU v5 lite", 1), {})

    assert run_versions(on_tpu, entry)["platform"] == "tpu"


def test_here_the_platform_is_jaxs_default_backend_asked_only_when_named() -> None:
    assert "platform" not in installed_versions([_example("python >= 3")])
    assert installed_versions([_example("platform == cpu")])["platform"] == "cpu"
