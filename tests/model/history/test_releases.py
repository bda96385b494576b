"""The history of every error across Flax's releases: the records, their spans, retired classes."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from flax_errors_ext.model.history.releases import (
    History,
    Outcome,
    Release,
    ReleaseRun,
    comparable,
    retired,
    timelines,
    version_key,
)
from tests.model.history.release_runs import absent, example, history, present, release

REPO = Path(__file__).resolve().parents[3]
HISTORY = REPO / "flax_errors_ext" / "history"

# --- the data and its JSON ---


def test_version_key_orders_minor_lines_numerically() -> None:
    assert sorted(["0.10.7", "0.9.0", "0.12.8", "0.6.11", "0.9.0.1"], key=version_key) == [
        "0.6.11",
        "0.9.0",
        "0.9.0.1",
        "0.10.7",
        "0.12.8",
    ]


def test_json_round_trip_is_canonical() -> None:
    data = History(
        (
            release("0.8.5", A=present(example("flax.errors.A: x")), B=absent()),
            ReleaseRun(Release("0.10.7", "0.6.2", "0.6.2", "3.11.7"), ("A",), {}),
        )
    )
    text = json.dumps(data.to_json(), sort_keys=True)
    again = History.from_json(json.loads(text))
    assert again == data
    assert again.releases[1].release.device is None
    assert list(data.to_json()["releases"][0]["entries"]) == ["A", "B"]
    assert data.to_json()["releases"][0]["entries"]["B"] == {"present": False, "examples": []}
    with pytest.raises(ValueError, match="schema"):
        History.from_json({"schema": 99, "releases": []})


# --- spans and retired classes ---


def test_run_to_run_noise_does_not_split_a_span() -> None:
    assert comparable("at 0x7f3a2b1c in /tmp/tmpab12cd_x/c.json") == "at 0x… in /tmp/tmp…/c.json"
    # The tracer-leak checker's referrers, by their ids: one run's, as an address is.
    leak = "<DynamicJaxprTracer 139676699855856> is referred to by <Static 139676699893792>"
    assert comparable(leak) == "<DynamicJaxprTracer …> is referred to by <Static …>"
    assert comparable("<tuple 12>[1]") == "<tuple 12>[1]"
    # TensorStore's spec and source lines, in either order, a release's JSON.
    words = "ValueError: NOT_FOUND: k does not exist"
    orbax = f"{words} [source locations='a.cc:1'] [tensorstore_spec='{{}}']"
    swapped = f"{words} [tensorstore_spec='{{\\\"x\\\":1}}'] [source locations='b.cc:2']"
    assert comparable(orbax) == comparable(swapped) == words
    data = history(
        ("0.8.5", present(example('flax.errors.A: "/tmp/tmpab12cd_x/c.json" <x at 0x7f00aa>'))),
        ("0.9.0", present(example('flax.errors.A: "/tmp/tmpzz99yy11/c.json" <x at 0x7f11bb>'))),
    )
    (spans,) = timelines(data, "A")
    assert len(spans) == 1
    assert spans[0].versions == "0.8.5-0.9.0"


def test_retired_classes_with_the_text_they_raised_then() -> None:
    old = ReleaseRun(
        Release("0.6.11", "0.4.13", "0.4.13", "3.11.7"),
        ("A", "Gone", "FlaxError"),
        {
            "A": present(
                example("flax.errors.Gone: the old way (https://...)", Outcome.RAISED_OTHER)
            )
        },
    )
    middle = ReleaseRun(
        Release("0.8.5", "0.4.30", "0.4.30", "3.11.7"), ("A", "Gone", "FlaxError"), {}
    )
    new = ReleaseRun(Release("0.12.8", "0.10.2", "0.10.2", "3.11.7"), ("A", "FlaxError"), {})
    data = History((old, middle, new))
    (gone,) = retired(data)
    assert (gone.name, gone.first, gone.last, gone.gone_since) == (
        "Gone",
        "0.6.11",
        "0.8.5",
        "0.12.8",
    )
    assert gone.texts == (("0.6.11", "flax.errors.Gone: the old way (https://...)"),)
    assert retired(History()) == ()


# --- the releases file and the recorded file ---


def test_releases_toml_reaches_the_012_line_one_release_per_minor_line() -> None:
    releases = tomllib.loads((HISTORY / "releases.toml").read_text("utf-8"))["release"]
    versions = [r["flax"] for r in releases]
    assert versions == sorted(versions, key=version_key)
    # One per minor line on Python 3.11; today's release, which needs a newer Python,
    # beside the newest on 3.11.
    on_311 = [version_key(r["flax"])[:2] for r in releases if "python" not in r]
    assert len(set(on_311)) == len(on_311)
    assert (0, 12) in on_311
    assert on_311[0] <= (0, 6)
    newer = [r for r in releases if "python" in r]
    assert [r["python"] for r in newer] == ["3.13"]
    assert version_key(newer[0]["flax"]) > version_key(versions[-2])
    for r in releases:
        assert set(r) - {"python"} == {"flax", "jax", "jaxlib", "as_of"}
        assert r["jax"] == r["jaxlib"]


def test_the_recorded_file_reads_back() -> None:
    # Shipped in the wheel and tracked: a checkout without it is the loss to catch.
    path = HISTORY / "flax.json"
    assert path.is_file(), f"{path} is missing: the site's history reads it"
    written = json.loads(path.read_text("utf-8"))
    data = History.from_json(written)
    assert {k: written[k] for k in ("schema", "module", "releases")} == data.to_json()
