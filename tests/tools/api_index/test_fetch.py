"""Which archive each release is read from, as the package index lists them."""

from __future__ import annotations

from packaging.version import Version

from tools.api_index.fetch import chosen_files


def _file(name: str, **more: object) -> dict[str, object]:
    return {
        "filename": name,
        "url": f"https://files.example/{name}",
        "hashes": {"sha256": "0" * 64},
        **more,
    }


def test_each_final_release_is_read_from_its_wheel_else_its_source_archive() -> None:
    files = [
        _file("jax-0.4.1.tar.gz"),
        _file("jax-0.4.16.tar.gz"),
        _file("jax-0.4.16-py3-none-any.whl"),
        _file("jax-0.4.17rc1-py3-none-any.whl"),
        _file("jax-0.4.18-py3-none-any.whl", yanked="broken"),
        _file("jax-0.3.25.tar.gz"),
        _file("jaxlib-0.4.16-cp311-cp311-manylinux2014_x86_64.whl"),
        _file("jax-0.4.20-cp311-none-any.whl"),
    ]

    chosen = chosen_files("jax", files, Version("0.4.0"))

    assert [f.filename for f in chosen] == ["jax-0.4.1.tar.gz", "jax-0.4.16-py3-none-any.whl"]
    assert chosen[0].version == Version("0.4.1")


def test_a_hyphenated_project_finds_its_archives_under_either_spelling() -> None:
    files = [
        _file("orbax-checkpoint-0.1.1.tar.gz"),
        _file("orbax_checkpoint-0.5.0-py3-none-any.whl"),
        _file("orbax_checkpoint-0.5.0.tar.gz"),
        _file("orbax-0.1.0.tar.gz"),
    ]

    chosen = chosen_files("orbax-checkpoint", files, Version("0.1.0"))

    assert [f.filename for f in chosen] == [
        "orbax-checkpoint-0.1.1.tar.gz",
        "orbax_checkpoint-0.5.0-py3-none-any.whl",
    ]
