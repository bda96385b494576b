"""The runner for a machine with JAX and Flax alone runs what ``flax-errors check`` runs."""

from __future__ import annotations

from flax_errors_ext.cli.project import DEFAULT_MODULES
from tools.other_runs.device_runner import MODULES


def test_it_runs_the_catalogue_that_check_runs() -> None:
    # Runs of two catalogues cannot be kept together (nox -s devices -- --merge).
    assert MODULES == DEFAULT_MODULES
