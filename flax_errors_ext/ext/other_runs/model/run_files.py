"""Device runs made apart (a CI job per device), checked together and named by their device.

Each job writes ``flax-errors check --json``'s document for its devices; the
last job reads them all and :func:`check_runs` says what each is kept as
(:func:`run_file_name`: ``cpu-8-devices.json``, ``nvidia-h200.json``) or what is
wrong, naming the file: a document that is not a run, two runs of one device,
runs of different catalogues. Pure: texts in, names out.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from flax_errors_ext.ext.other_runs.model.documents import DeviceRunError, parse_run

if TYPE_CHECKING:
    from collections.abc import Mapping

    from flax_errors_ext.model.runs.fingerprint import Device


def run_file_name(device: Device) -> str:
    """The committed file of a run on ``device``: ``nvidia-h200.json``, ``cpu-8-devices.json``."""
    kind = device.device_kind or device.platform
    stem = re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "device"
    return f"{stem}-{device.count}-devices.json" if device.count > 1 else f"{stem}.json"


def check_runs(texts: Mapping[str, str]) -> dict[str, str]:
    """The file each run is kept as, by the file its document (``texts``) was read from.

    Raises:
        DeviceRunError: listing every problem, each with its file.
    """
    problems: list[str] = []
    kept: dict[str, str] = {}
    catalogue: tuple[str, frozenset[str]] | None = None
    for source in sorted(texts):
        try:
            run = parse_run(texts[source], source)
        except DeviceRunError as error:
            problems.append(str(error))
            continue
        entries = frozenset(r.qualname for r in run.records)
        if catalogue is None:
            catalogue = (source, entries)
        elif entries != catalogue[1]:
            first, known = catalogue
            missing, more = sorted(known - entries), sorted(entries - known)
            problems.append(
                f"{source}: not the catalogue of {first} (lacks {missing or 'nothing'}, "
                f"adds {more or 'nothing'}): the runs are of different commits"
            )
        name = run_file_name(run.device)
        if name in kept:
            problems.append(f"{source}: a second run on {run.device.label}, as {kept[name]}")
            continue
        kept[name] = source
    if problems:
        raise DeviceRunError("\n".join(problems))
    return {source: name for name, source in kept.items()}
