"""What keys the execution cache beyond the code."""

from __future__ import annotations

from flax_errors_ext.execution.cache.store import key
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.runs.fingerprint import Device, Fingerprint, ProbeError, code_hash
from flax_errors_ext.model.runs.jobs import entry_job

BASE = Fingerprint.of({"jax": "1"}, Device("cpu", "cpu", 1), {"m": "a"})


def test_code_hash_ignores_docstrings_but_not_code() -> None:
    before = code_hash(
        '"""Doc."""\nclass E:\n    """One."""\n    def f(self):\n        return "a"\n'
    )
    same = code_hash(
        '"""Doc!"""\nclass E:\n    """Two."""\n    def f(self):\n        return "a"\n'
    )
    other = code_hash(
        '"""Doc!"""\nclass E:\n    """Two."""\n    def f(self):\n        return "b"\n'
    )
    assert same == before
    assert other != before


def test_every_fingerprint_field_changes_the_cache_key() -> None:
    (entry,) = load_module("flax_errors_ext.errors").entries
    job = entry_job(entry, "flax_errors_ext.errors")
    for changed in [
        Fingerprint.of({"jax": "2"}, BASE.device, {"m": "a"}),
        Fingerprint.of({"jax": "1"}, Device("gpu", "NVIDIA H200", 1), {"m": "a"}),
        Fingerprint.of({"jax": "1"}, BASE.device, {"m": "b"}),
        BASE.with_source("n", "c"),
    ]:
        assert key(job, changed) != key(job, BASE), changed


def test_the_cache_key_does_not_depend_on_the_order_parts_were_gathered_in() -> None:
    shuffled = Fingerprint.of({"flax": "3", "jax": "1"}, BASE.device, {"z": "1", "a": "2"})
    ordered = Fingerprint.of({"jax": "1", "flax": "3"}, BASE.device, {"a": "2", "z": "1"})
    assert shuffled == ordered
    assert shuffled.to_json() == ordered.to_json()


def test_canonical_json_tells_every_device_apart() -> None:
    devices = (BASE.device, ProbeError("no backend"), None)
    texts = {Fingerprint.of({"jax": "1"}, device, {"m": "a"}).to_json() for device in devices}
    assert len(texts) == len(devices)
    failed = Fingerprint.of({"jax": "1"}, ProbeError("no backend"), {"m": "a"})
    assert failed.to_json() == (
        '{"device":{"error":"no backend"},"sources":{"m":"a"},"versions":{"jax":"1"}}'
    )


def test_device_records_read_back_or_are_refused() -> None:
    device = Device("gpu", "NVIDIA H200", 8)
    assert Device.from_json(device.to_json()) == device
    assert Device.from_json({"error": "device probe failed"}) is None
    assert Device.from_json({}) is None
    assert device.label == "GPU (NVIDIA H200) \u00d78"
    assert Device("gpu", "NVIDIA H200", 1).label == "GPU (NVIDIA H200)"
    assert Device("cpu", "cpu", 1).label == "CPU"
    assert Device("tpu", "TPU v5 lite", 1).label == "TPU v5e"
    assert Device("tpu", "TPU v4", 4).label == "TPU v4 \u00d74"
    assert Device("cpu", "cpu", 8).label == "CPU \u00d78"
