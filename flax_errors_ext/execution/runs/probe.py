"""What the build's :class:`~flax_errors_ext.model.runs.fingerprint.Fingerprint` is made of.

Beside the package versions: the devices (asked of a process that may start JAX,
and remembered next to the cache while the machine's device inventory stays the
same) and the hashes of our own code that runs in the kernel. The kernel host
(:mod:`flax_errors_ext.execution.host`) puts them together.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tokenize
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flax_errors_ext.execution.runs.kernel_environment import package_versions
from flax_errors_ext.model.runs.fingerprint import Device, ProbeError, code_hash

RUNTIME_MODULES = (
    "flax_errors_ext.errors",
    "flax_errors_ext.jit_hook",
    "flax_errors_ext.execution.runs.entry_process",
    "flax_errors_ext.execution.runs.in_kernel",
    "flax_errors_ext.execution.runs.kernel_environment",
)
"""Our own code that runs in the kernel and shapes what examples raise (the process
they run in, and what it starts with imported), or what the kernel reports of them
(the versions and loaded files the cache trusts)."""

_PROBE = (
    "import json; from flax_errors_ext.execution.runs.in_kernel import device_record as d; "
    "print(json.dumps(d()))"
)

Probe = Callable[[], Device | ProbeError]
"""Asks a process that may start JAX which devices it sees."""


def source_hash(path: str | Path) -> str:
    """:func:`~flax_errors_ext.model.runs.fingerprint.code_hash` of a Python file.

    Decoded as Python decodes it (coding cookie, BOM, else UTF-8).
    """
    with tokenize.open(path) as file:
        return code_hash(file.read())


def read_device(data: Any) -> Device | ProbeError:
    """A device record as a kernel, the server or the probe cache wrote it."""
    device = Device.from_json(data)
    if device is not None:
        return device
    if isinstance(data, dict) and "error" in data:
        return ProbeError(str(data["error"]))
    return ProbeError(f"device probe failed: unreadable answer {data!r}")


@functools.cache
def probe_device(python: str = sys.executable, timeout: float = 300) -> Device | ProbeError:
    """Ask a fresh interpreter which JAX devices it sees.

    A subprocess, because initialising a backend in the build process would hold
    the accelerator (JAX preallocates most of a GPU's memory) away from the kernels.
    Cached for the life of the process: its devices do not come and go, and
    repeated builds in one process (tests, autobuild) need not pay twice.
    """
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false", TF_CPP_MIN_LOG_LEVEL="3")
    try:
        done = subprocess.run(
            [python, "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return ProbeError(f"device probe failed: {error}")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return ProbeError(f"device probe failed: {last}")
    return read_device(json.loads(done.stdout.strip().splitlines()[-1]))


def runtime_hashes() -> dict[str, str]:
    """Docstring-free hashes of our own code that runs in the kernel, by module."""
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
    """What decides which devices JAX sees, read without starting JAX: cheap, every build.

    The environment variables that select devices, the accelerator device nodes,
    the GPU models the NVIDIA driver reports, and the installed JAX plugins.
    """
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


def probe_device_cached(cache_file: Path, probe: Probe | None = None) -> Device | ProbeError:
    """The devices, probed only when the :func:`device_inventory` has changed.

    ``probe`` asks (by default :func:`probe_device`). Probing costs a JAX start;
    a rebuild with nothing to run should not pay it just to learn that the machine
    is the same.
    """
    inventory = hashlib.sha256(json.dumps(device_inventory(), sort_keys=True).encode()).hexdigest()
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        cached = json.loads(cache_file.read_text(encoding="utf-8"))
        device = Device.from_json(cached["device"])
        if cached["inventory"] == inventory and device is not None:
            return device
    probed = (probe or probe_device)()
    if isinstance(probed, Device):
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(
            json.dumps({"inventory": inventory, "device": probed.to_json()}), encoding="utf-8"
        )
    return probed
