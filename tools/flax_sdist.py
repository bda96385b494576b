"""Parts of Flax's source distribution, fetched once (``nox -s flax_suite`` and ``flax_docs``).

Flax's sdist holds its tests and docs (its wheel does not). :func:`flax_source`
downloads it with pip from the package registry into a cache, once per version,
and extracts the parts asked for (files, or folders ending in ``/``) into a
folder of their own, so that a tree of tests never holds a ``flax/`` that could
shadow the installed flax. Run by the session's interpreter, which has pip.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

_VERSION = re.compile(r"[0-9A-Za-z.+!-]+")


def folder_name(version: str, parts: Sequence[str]) -> str:
    """The cache folder of ``parts`` of Flax ``version``'s sdist.

    Raises:
        ValueError: if ``version`` is not a plain version (it becomes a file name).
    """
    if not _VERSION.fullmatch(version):
        raise ValueError(f"unexpected flax version {version!r}")
    return "-".join([f"flax-{version}", *(part.strip("/") for part in parts)])


def wanted(names: Iterable[str], version: str, parts: Sequence[str]) -> list[str]:
    """The archive's member names that belong to ``parts``, in the archive's order."""
    top = f"flax-{version}/"
    return [
        name
        for name in names
        if any(
            name.startswith(top + part) if part.endswith("/") else name == top + part
            for part in parts
        )
    ]


def flax_source(version: str, parts: Sequence[str], cache: Path) -> Path:
    """The folder holding ``parts`` of Flax ``version``'s sdist, downloaded at most once."""
    source = cache / folder_name(version, parts)
    if (source / parts[0]).exists():
        return source
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / f"flax-{version}.tar.gz"
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        if not archive.is_file():
            download(version, Path(tmp)).rename(archive)
        with tarfile.open(archive) as tar:
            names = set(wanted(tar.getnames(), version, parts))
            members = [member for member in tar.getmembers() if member.name in names]
            tar.extractall(tmp, members=members, filter="data")
        # Renamed into place whole, so that an interrupted fetch is never taken as cached.
        Path(tmp, f"flax-{version}").rename(source)
    return source


def download(version: str, folder: Path) -> Path:
    """Flax ``version``'s sdist, downloaded by pip into ``folder``."""
    subprocess.run(
        [
            sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
            # Flax's sdist; the build tools pip needs to read its metadata may come as wheels.
            "--no-binary=flax", "--dest", str(folder), f"flax=={version}",
        ],
        check=True,
    )  # fmt: skip
    (downloaded,) = folder.glob("flax-*.tar.gz")
    return downloaded
