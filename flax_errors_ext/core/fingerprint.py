"""What the execution cache must key on beyond the code cells.

jupyter-cache hashes only a notebook's code, so a new jax, a reworded message in an
error's ``__init__`` or another device would be served stale outputs. Each entry's
notebook therefore opens with a cell that spells out its fingerprint: the package
versions, the device, and a hash of every runtime source the verdict depends on.
Docstrings are left out of those hashes, so that editing one error's documentation
re-executes that error only.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flax_errors_ext.kernel import package_versions

RUNTIME_MODULES = ("flax_errors_ext.errors", "flax_errors_ext.jit_hook", "flax_errors_ext.kernel")
"""Our own code that runs in the kernel and shapes what examples raise."""

_PROBE = (
    "import json; from flax_errors_ext.kernel import device_record as d; print(json.dumps(d()))"
)

Probe = Callable[[], dict[str, Any]]
"""Asks a process that may start JAX which devices it sees."""


# CPython 3.11 builds AST objects with an interpreter-wide recursion counter: two
# threads parsing at once can fail with "AST constructor recursion depth mismatch"
# (python/cpython#106905). Entries are checked from several threads.
_PARSE_LOCK = threading.Lock()


def code_hash(path: str | Path) -> str:
    """Hash a Python file's code with every docstring removed."""
    source = Path(path).read_text(encoding="utf-8")
    with _PARSE_LOCK:
        tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body[0] = ast.Pass()
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


@functools.cache
def probe_device(python: str = sys.executable, timeout: float = 300) -> dict[str, Any]:
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
        return {"error": f"device probe failed: {error}"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"device probe failed: {last}"}
    probed: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return probed


def runtime_hashes() -> dict[str, str]:
    """Docstring-free hashes of our own code that runs in the kernel, by module."""
    import importlib.util

    hashes = {}
    for name in RUNTIME_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ImportError(f"cannot find the source of {name}")
        hashes[name] = code_hash(spec.origin)
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
    """What decides which devices JAX sees, read without starting JAX (milliseconds).

    The environment variables that select devices, the accelerator device nodes,
    the GPU models the NVIDIA driver reports, and the installed JAX plugins.
    """
    import glob
    import importlib.metadata

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


def probe_device_cached(cache_file: Path, probe: Probe | None = None) -> dict[str, Any]:
    """The devices, probed only when the :func:`device_inventory` has changed.

    ``probe`` asks (by default :func:`probe_device`). Probing costs a JAX start
    (seconds); a rebuild with nothing to run should not pay it just to learn that
    the machine is the same.
    """
    inventory = hashlib.sha256(json.dumps(device_inventory(), sort_keys=True).encode()).hexdigest()
    with contextlib.suppress(OSError, ValueError, KeyError):
        cached = json.loads(cache_file.read_text(encoding="utf-8"))
        if cached["inventory"] == inventory:
            device: dict[str, Any] = cached["device"]
            return device
    device = (probe or probe_device)()
    if "error" not in device:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(
            json.dumps({"inventory": inventory, "device": device}), encoding="utf-8"
        )
    return device


def build_fingerprint(*, probe_cache: Path | None, probe: Probe | None = None) -> dict[str, Any]:
    """The build-wide fingerprint; each module adds its own source hash to it.

    Args:
        probe_cache: Where to keep the device probe's answer, or None when nothing
            will execute and the device does not matter.
        probe: What to ask when the cached answer does not apply; by default a
            fresh interpreter (:func:`probe_device`).
    """
    return {
        "versions": package_versions(),
        "device": probe_device_cached(probe_cache, probe) if probe_cache is not None else {},
        "sources": runtime_hashes(),
    }
