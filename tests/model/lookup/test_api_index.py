"""The API index: release spans, the merge of releases, attributes through bases, its bytes."""

from __future__ import annotations

import dataclasses

import pytest

from flax_errors_ext.model.lookup.api_index import ApiIndex, merged, positions, shipped, spans


def test_spans_write_runs_of_positions_and_read_back() -> None:
    assert spans([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert positions("0-2,5,7-8") == [0, 1, 2, 5, 7, 8]
    assert spans([]) == ""
    assert positions("") == []


def _index() -> ApiIndex:
    return merged(
        "lib",
        "lib",
        ["1.0", "1.1", "2.0"],
        [
            (
                {"lib.old", "lib.Base", "lib.Base.x", "lib.Sub"},
                {"lib.f": {"a"}},
                {},
                {"lib.Sub": {"lib.Base"}},
                set(),
            ),
            (
                {"lib.old", "lib.Base", "lib.Base.x", "lib.Sub"},
                {"lib.f": {"a", "b"}},
                {},
                {},
                set(),
            ),
            (
                {"lib.new", "lib.Base", "lib.Sub"},
                {"lib.f": {"b", "!b"}},
                {"lib.old": "use lib.new"},
                {},
                set(),
            ),
        ],
        modules=[{"lib", "lib.old"}, {"lib"}, {"lib"}],
    )


def test_a_merged_index_says_which_releases_have_a_name_or_a_parameter() -> None:
    index = _index()

    assert index.releases_of("lib.old") == ["1.0", "1.1"]
    assert index.releases_of("lib.new") == ["2.0"]
    assert index.releases_of("lib.absent") == []
    assert index.releases_with_param("lib.f", "a") == ["1.0", "1.1"]
    assert index.releases_with_param("lib.f", "!b") == ["2.0"]
    assert index.messages == {"lib.old": "use lib.new"}
    assert index.releases_as_module("lib.old") == ["1.0"]
    assert index.releases_as_module("lib.new") == []
    # An index that does not tell modules apart does not say.
    assert dataclasses.replace(index, modules={}).releases_as_module("lib") is None


def test_a_class_has_its_bases_attributes_in_the_releases_both_exist() -> None:
    index = _index()

    assert index.releases_with_attribute("lib.Sub", "x") == ["1.0", "1.1"]
    assert index.releases_with_attribute("lib.Sub", "y") == []


def test_an_index_reads_back_from_its_bytes_and_refuses_others() -> None:
    index = _index()

    assert ApiIndex.from_bytes(index.to_bytes()) == index
    assert index.to_bytes() == _index().to_bytes()  # the same index, the same file
    with pytest.raises(ValueError, match="not an API index"):
        ApiIndex.from_bytes(b"not gzip")
    with pytest.raises(ValueError, match="schema"):
        ApiIndex.from_json({"schema": 0})


def test_the_package_ships_flax_and_jax_indexes_reaching_back_to_2022_and_their_callers() -> None:
    indexes = {index.distribution: index for index in map(ApiIndex.read, shipped())}

    assert set(indexes) == {"flax", "jax", "optax", "orbax-checkpoint", "chex"}
    assert indexes["flax"].releases[0] == "0.6.0"
    assert indexes["jax"].releases[0] == "0.4.1"
    assert indexes["jax"].releases_of("jax.random.KeyArray")[-1] == "0.4.23"
    assert "0.12.8" in indexes["flax"].releases_of("flax.nnx.Optimizer")
    # Which releases of the libraries built on JAX call a name JAX removed in 0.6.0.
    for caller in ("flax", "optax"):
        using = indexes[caller].releases_using("jax.tree_map")
        assert using
        assert using[-1] != indexes[caller].releases[-1]
    # A module's use is the use of any name of it (an import of one of its classes).
    gone = "jax.experimental.global_device_array"
    assert indexes["flax"].releases_using(gone)[-1] == "0.6.6"
    # jax.config was a module until JAX 0.4.29 left it the configuration object alone.
    as_module = indexes["jax"].releases_as_module("jax.config")
    assert as_module is not None
    assert as_module[-1] == "0.4.28"
    assert "0.4.29" in indexes["jax"].releases_of("jax.config")
