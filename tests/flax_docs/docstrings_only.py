"""``sphinx-build`` with the catalogue files shipped with flax_errors_ext left unread.

``nox -s flax_docs`` builds Flax's docs once more from a flax whose ``errors.py``
carries the patch ``flax-errors export`` writes, to show that the docstrings alone
give every entry the examples its catalogue file gives it::

    python -m tests.flax_docs.docstrings_only <sphinx-build arguments>

The extension has no setting for that: ``flax_errors_catalogue_dirs`` adds folders
that are searched before the shipped catalogue, never instead of it, and a module
found in any catalogue folder takes its examples from the files there. So the shipped
folder is pointed at an empty one for this process (the kernels read no catalogue).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.cmd.build import main as sphinx_build

from flax_errors_ext.model import discover

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    """Run ``sphinx-build argv`` with an empty folder as the shipped catalogue."""
    with tempfile.TemporaryDirectory(prefix="no-catalogue-") as empty:
        discover.SHIPPED_CATALOGUE = Path(empty)
        return sphinx_build(list(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
