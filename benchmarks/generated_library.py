"""A generated library of many light errors: the catalogue's per-entry cost, laid bare.

The site's own entries run heavy Flax examples whose cost hides what the build
adds per entry. This writes a package of ``count`` exception classes, each
documented with a small bad and a small good example that import jax, and a Sphinx
project that lists its module: any library's catalogue of many light entries.

``python benchmarks/generated_library.py DIR --entries 200`` writes one by hand;
``bench_build.py`` writes its own into a temporary folder.
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

PACKAGE = "genlib"
BASE_URL = "https://genlib.example.org/errors"
_PAGE = f"{BASE_URL}/api_reference/{PACKAGE}.errors.html"

_CONF = f"""\
import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "{PACKAGE}"
extensions = ["flax_errors_ext"]
flax_errors_modules = ["{PACKAGE}.errors"]
flax_errors_base_url = "{BASE_URL}"
html_theme = "alabaster"
"""

_INDEX = f"""\
{PACKAGE}
{"=" * len(PACKAGE)}

.. toctree::

   api_reference/{PACKAGE}.errors

.. flax-errors-index::
"""

_OPS = f'''\
"""Checks that raise the library's errors."""

import jax.numpy as jnp

from {PACKAGE} import errors


def check(number: int, size: int) -> int:
    """The sum of ``size`` ones; refused by error ``number`` when ``size`` is odd."""
    if size % 2:
        raise getattr(errors, f"Error{{number:03d}}")(size)
    return int(jnp.ones(size).sum())
'''


def _error(number: int) -> str:
    name = f"Error{number:03d}"
    size = number % 7 * 2 + 1
    anchor = f"{_PAGE}#{PACKAGE}.errors.{name}"
    message = f"size {size} is odd; error {number} wants an even size. See {anchor}"
    return textwrap.dedent(
        f'''\
        class {name}(GenlibError):
            """Error {number}: a size that must be even was odd.

            Bad example:

              >>> import jax.numpy as jnp
              >>> from {PACKAGE}.ops import check
              >>> check({number}, int(jnp.int32({size})))
              Traceback (most recent call last):
                ...
              {PACKAGE}.errors.{name}: {message}

            Good example:

              >>> import jax.numpy as jnp
              >>> from {PACKAGE}.ops import check
              >>> check({number}, int(jnp.int32({size + 1})))
              {size + 1}
            """

            def __init__(self, size: int) -> None:
                super().__init__(
                    f"size {{size}} is odd; error {number} wants an even size. "
                    f"See {_PAGE}#{PACKAGE}.errors.{name}"
                )
        '''
    )


def write_library(root: Path, count: int) -> Path:
    """Write the package and its Sphinx project under ``root``; the project's docs folder."""
    package = root / PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(f'"""{count} generated errors."""\n')
    (package / "ops.py").write_text(_OPS)
    names = ", ".join(f'"Error{n:03d}"' for n in range(count))
    header = (
        f'"""The errors {PACKAGE} raises."""\n\n__all__ = ["GenlibError", {names}]\n\n\n'
        'class GenlibError(Exception):\n    """The base of every generated error."""\n\n\n'
    )
    (package / "errors.py").write_text(header + "\n\n".join(_error(n) for n in range(count)))
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "conf.py").write_text(_CONF)
    (docs / "index.rst").write_text(_INDEX)
    return docs


def main() -> None:
    """Write a generated library where the command line says."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--entries", type=int, default=200)
    args = parser.parse_args()
    print(write_library(args.root, args.entries))


if __name__ == "__main__":
    main()
