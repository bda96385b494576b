"""A stand-in for Flax's sdist in the cache, for the tests of the tools that read it."""

from __future__ import annotations

import io
import tarfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

FILES = {
    "flax-0.12.8/pyproject.toml": "[project]\n",
    "flax-0.12.8/tests/linen/a_test.py": "a\n",
    "flax-0.12.8/docs/conf.py": "exclude_patterns = []\n",
    "flax-0.12.8/flax/errors.py": "e\n",
    "flax-0.12.8/testsuite.txt": "not tests/\n",
}


def archive(cache: Path, files: dict[str, str] = FILES) -> None:
    """Write ``files`` as Flax 0.12.8's sdist into ``cache``, where the tools look first."""
    cache.mkdir(parents=True, exist_ok=True)
    with tarfile.open(cache / "flax-0.12.8.tar.gz", "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
