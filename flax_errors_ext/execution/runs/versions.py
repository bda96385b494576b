"""The installed versions that examples' ``:holds for:`` lines are read against."""

from __future__ import annotations

import contextlib
import importlib.metadata
import platform
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from flax_errors_ext.model.catalogue.records import Example


def installed_versions(
    examples: Iterable[Example], known: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``python``, ``known``, and every other package the examples' conditions name.

    Each package as installed here; one that is not installed has no version, and
    no condition on it holds.
    """
    versions = {"python": platform.python_version(), **(known or {})}
    for example in examples:
        for condition in example.holds_for:
            if condition.package not in versions:
                with contextlib.suppress(importlib.metadata.PackageNotFoundError):
                    versions[condition.package] = importlib.metadata.version(condition.package)
    return versions
