"""What the build's :class:`~flax_errors_ext.model.runs.fingerprint.Fingerprint` is made of.

Beside the package versions: the devices (probed, and remembered while the machine's
device inventory stays the same) and the hashes of our code in an entry's process.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import sys
import tokenize
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flax_errors_ext.execution.runs.in_process import package_versions
from flax_errors_ext.model.runs.fingerprint import Device, ProbeError, code_hash

RUNTIME_MODULES = (
    "flax_errors_ext.errors",
    "flax_errors_ext.jit_hook",
    "flax_errors_ext.execution.runs.runner",
    "flax_errors_ext.execution.runs.in_process",
)
"""Our own code that runs in an entry's process and shapes what examples raise (the
process they run in, and what it starts with imported), or what it reports of them
(the versions and loaded files the cache trusts)."""

Probe = Callable[[], Device | ProbeError]
"""Asks a process that may start JAX which devices it sees."""


def source_hash(path: str | Path) -> str:
    """The docstring-free ``code_hash`` of a Python file, decoded as Python decodes it."""
    with tokenize.open(path) as file:
        return code_hash(file.read())


def runtime_hashes() -> dict[str, str]:
    """Docstring-free hashes of our own code that runs in an entry's process, by module."""
    hashes = {}
    for name in RUNTIME_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ImportError(f"cannot find the source of {name}")
        hashes[name] = source_hash(spec.origin)
    return hashes


_DEVICE_ENV_VARS = (
    "JAX_PLATFORMS",
    "JAX_PLATFORM_NAME",
    "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "TPU_VISIBLE_CHIPS",
    "TPU_VISIBLE_DEVICES",
    "XLA_FLAGS",
)
_DEVICE_NODES = ("/dev/nvidia*", "/dev/accel*", "/dev/vfio/*", "/dev/kfd", "/dev/dri/*")


def device_inventory() -> dict[str, Any]:
    """What decides which devices JAX sees, read without starting JAX (every build)."""
    gpus = {}
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        with contextlib.suppress(OSError):
            gpus[info] = Path(info).read_text(encoding="utf-8", errors="replace")
    plugins = sorted(
        f"{dist.metadata['Name']}=={dist.version}"
        for dist in importlib.metadata.distributions()
        if (dist.metadata["Name"] or "").lower().replace("_", "-").startswith(("jax-", "libtpu"))
    )
    return {
        "python": sys.executable,
        "env": {name: os.environ.get(name) for name in _DEVICE_ENV_VARS},
        "nodes": sorted(path for pattern in _DEVICE_NODES for path in glob.glob(pattern)),
        "gpus": gpus,
        "plugins": plugins,
        "versions": package_versions(),
    }


_probed: dict[str, Device] = {}


def probe_device_cached(cache_file: Path, probe: Probe) -> Device | ProbeError:
    """The devices ``probe`` finds, asked (a JAX start) only when the inventory changed."""
    inventory = hashlib.sha256(json.dumps(device_inventory(), sort_keys=True).encode()).hexdigest()
    if inventory in _probed:  # repeated builds in one process (tests, autobuild) ask once
        return _probed[inventory]
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        cached = json.loads(cache_file.read_text(encoding="utf-8"))
        device = Device.from_json(cached["device"])
        if cached["inventory"] == inventory and device is not None:
            return device
    probed = probe()
    if isinstance(probed, Device):
        _probed[inventory] = probed
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(
            json.dumps({"inventory": inventory, "device": probed.to_json()}), encoding="utf-8"
        )
    return probed
