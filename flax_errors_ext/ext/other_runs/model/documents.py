"""Another run of the catalogue, read from its ``errors.json`` document.

A run on another machine (``flax-errors check --json`` on a GPU box) or of another
kind here (eight CPU devices, through ``XLA_FLAGS``) is an ``errors.json``
document, which the site lists in ``flax_errors_device_runs``. Pure: text in,
records out.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from flax_errors_ext.model.runs.entry_record import SCHEMA_VERSION, EntryRecord
from flax_errors_ext.model.runs.fingerprint import Device


class DeviceRunError(ValueError):
    """A device run's document cannot be read; the message names the file and why."""


@dataclasses.dataclass(frozen=True)
class DeviceRun:
    """One run of the catalogue elsewhere, as its ``errors.json`` document records it."""

    source: str
    """The file as the configuration names it (relative to ``conf.py``)."""
    device: Device
    versions: tuple[tuple[str, str], ...]
    """(package, version), in the document's order."""
    records: tuple[EntryRecord, ...]

    def record(self, qualname: str) -> EntryRecord | None:
        """The run's record of the entry ``qualname``, if it has one."""
        return next((r for r in self.records if r.qualname == qualname), None)

    def covers(self, qualname: str) -> bool:
        """Whether the run ran the module of the entry ``qualname`` at all."""
        module = qualname.rpartition(".")[0]
        return any(r.qualname.rpartition(".")[0] == module for r in self.records)

    def other_versions(self, versions: dict[str, str]) -> str:
        """``flax 0.12.10, jax 0.11.2``: the run's versions that are not ``versions``'s."""
        return ", ".join(
            f"{name} {version}"
            for name, version in sorted(self.versions)
            if versions.get(name) not in (None, version)
        )

    def summary(self) -> dict[str, Any]:
        """The run as ``errors.json`` lists it: its file, device, versions and size."""
        return {
            "source": self.source,
            "device": self.device.to_json(),
            "versions": dict(self.versions),
            "entries": len(self.records),
        }


def parse_run(text: str, source: str) -> DeviceRun:
    """Read a device run from the ``text`` of its ``errors.json`` document, the file ``source``.

    Raises:
        DeviceRunError: naming ``source`` and what is wrong with it.
    """
    try:
        data = json.loads(text)
    except ValueError as error:
        raise DeviceRunError(f"{source}: not JSON ({error})") from None
    if not isinstance(data, dict) or "entries" not in data:
        raise DeviceRunError(
            f"{source}: not an errors.json document (a JSON object with 'schema', "
            "'device', 'versions' and 'entries'; flax-errors check --json writes one)"
        )
    if data.get("schema") != SCHEMA_VERSION:
        raise DeviceRunError(
            f"{source}: errors.json schema {data.get('schema')!r}; this build reads "
            f"schema {SCHEMA_VERSION}"
        )
    device = Device.from_json(data.get("device"))
    if device is None:
        raise DeviceRunError(
            f"{source}: no device recorded ('device' is {data.get('device')!r}); a run "
            "whose examples executed records the JAX devices they ran on"
        )
    versions = data.get("versions", {})
    if not isinstance(versions, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in versions.items()
    ):
        raise DeviceRunError(f"{source}: 'versions' must map package names to versions")
    entries = data["entries"]
    if not isinstance(entries, list):
        raise DeviceRunError(f"{source}: 'entries' must be a list of entry records")
    records = []
    for number, item in enumerate(entries, 1):
        try:
            if not isinstance(item, dict):
                raise ValueError(f"not a JSON object: {item!r:.60}")
            records.append(EntryRecord.from_json(item))
        except ValueError as error:
            name = item.get("qualname", "?") if isinstance(item, dict) else "?"
            raise DeviceRunError(f"{source}: entry {number} ({name}): {error}") from None
    return DeviceRun(source, device, tuple(versions.items()), tuple(records))
