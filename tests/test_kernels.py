"""The warm kernel server answers the device probe as a fresh interpreter would."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.core.fingerprint import probe_device
from flax_errors_ext.core.kernels import WarmKernelServer

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="warm kernels need os.fork")


def test_the_server_probes_the_devices_a_fresh_interpreter_sees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = probe_device()

    def no_fallback() -> None:
        raise AssertionError("the server did not answer the probe")

    monkeypatch.setattr("flax_errors_ext.core.kernels.probe_device", no_fallback)
    server = WarmKernelServer(tmp_path / "server.log")
    try:
        assert server.probe_device() == fresh
    finally:
        server.stop()


def test_a_probe_without_a_server_falls_back_to_a_fresh_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = WarmKernelServer(tmp_path / "server.log")
    server.stop()
    fresh = {"platform": "cpu", "device_kind": "asked a fresh interpreter", "count": 1}
    monkeypatch.setattr("flax_errors_ext.core.kernels.probe_device", lambda: fresh)

    assert server.probe_device() == fresh
