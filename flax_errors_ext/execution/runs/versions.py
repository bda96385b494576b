"""The installed versions that examples' ``:holds for:`` lines are read against."""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import platform
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.conditions import PLATFORM

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from flax_errors_ext.model.catalogue.records import Example


def installed_versions(
    examples: Iterable[Example], known: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``python``, ``known``, and every other package the examples' conditions name.

    Each package as installed here; one that is not installed has no version, and
    no condition on it holds. ``platform``, where ``known`` lacks it, is JAX's
    default backend in this process (asked only if a condition names it).
    """
    versions = {"python": platform.python_version(), **(known or {})}
    for example in examples:
        for condition in example.holds_for:
            if condition.package in versions:
                continue
            if condition.package == PLATFORM:
                with contextlib.suppress(Exception):  # no jax: no platform, nothing holds
                    versions[PLATFORM] = importlib.import_module("jax").default_backend()
                continue
            with contextlib.suppress(importlib.metadata.PackageNotFoundError):
                versions[condition.package] = importlib.metadata.version(condition.package)
    return versions
