"""A release's files, from the package index: one archive per release, checked, kept.

The index's JSON simple API (PEP 691) lists every file of a project; a release is
read from its pure-Python wheel where it has one, else from its source archive.
Each download is checked against the index's SHA-256 and kept in a folder, so that
a refresh fetches only the releases published since. Nothing is installed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import urllib.request
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from pathlib import Path

INDEX = "https://pypi.org/simple"
ACCEPT = "application/vnd.pypi.simple.v1+json"


@dataclasses.dataclass(frozen=True)
class ReleaseFile:
    """The one archive a release is read from."""

    version: Version
    filename: str
    url: str
    sha256: str


def release_files(project: str, since: Version, index: str = INDEX) -> list[ReleaseFile]:
    """Every final release of ``project`` from ``since`` on, oldest first: its archive."""
    request = urllib.request.Request(f"{index}/{project}/", headers={"Accept": ACCEPT})
    with urllib.request.urlopen(request, timeout=60) as response:
        return chosen_files(project, json.load(response)["files"], since)


def chosen_files(project: str, files: list[dict[str, Any]], since: Version) -> list[ReleaseFile]:
    """Of the index's files of ``project``, each final release's archive from ``since`` on."""
    chosen: dict[Version, ReleaseFile] = {}
    for file in files:
        version = _version(project, file["filename"])
        if version is None or version < since or version.is_prerelease or file.get("yanked"):
            continue
        found = ReleaseFile(version, file["filename"], file["url"], file["hashes"]["sha256"])
        kept = chosen.get(version)
        # A wheel beats the source archive: it holds exactly the installed files.
        if kept is None or (
            found.filename.endswith(".whl") and not kept.filename.endswith(".whl")
        ):
            chosen[version] = found
    return [chosen[v] for v in sorted(chosen)]


def _version(project: str, filename: str) -> Version | None:
    # Names compare normalised (PEP 503): orbax-checkpoint's wheels are orbax_checkpoint-*.
    name = "[-_.]+".join(map(re.escape, re.split(r"[-_.]+", project)))
    match = re.fullmatch(rf"(?i){name}-([^-]+?)(?:-py3-none-any\.whl|\.tar\.gz)", filename)
    if match is None:
        return None
    try:
        return Version(match.group(1))
    except InvalidVersion:
        return None


def download(file: ReleaseFile, folder: Path) -> Path:
    """The archive in ``folder``, fetched unless a checked copy is there already."""
    path = folder / file.filename
    if path.exists() and _sha256(path) == file.sha256:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(path.suffix + ".part")
    with urllib.request.urlopen(file.url, timeout=300) as response:
        partial.write_bytes(response.read())
    if _sha256(partial) != file.sha256:
        partial.unlink()
        raise OSError(f"{file.filename}: the download does not match the index's SHA-256")
    partial.replace(path)
    return path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
