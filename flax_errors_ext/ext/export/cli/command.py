"""``flax-errors export``: read ``flax/errors.py`` and the shipped catalogue, write the patch.

What goes where is decided in :mod:`flax_errors_ext.ext.export.model.docstrings`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli.parser import PROG, ExitCode
from flax_errors_ext.cli.runs.source_files import SourceFile
from flax_errors_ext.cli.selection import UsageError
from flax_errors_ext.ext.export.model.docstrings import (
    ExportError,
    export_docstrings,
    unified_patch,
)
from flax_errors_ext.ext.export.model.style import FormatterMissingError
from flax_errors_ext.model.catalogue.discover import SHIPPED_CATALOGUE, CatalogueFile
from flax_errors_ext.model.catalogue.repairs import DOCSTRING_FIXES
from flax_errors_ext.model.runs.update import UpdateError

if TYPE_CHECKING:
    import argparse

MODULE = "flax.errors"


def export_command(args: argparse.Namespace) -> int:
    """Write the patch to standard output or ``--output``; report what it could not do."""
    path: Path = args.flax_source or installed_source()
    try:
        source = SourceFile.read(path)
        exported = export_docstrings(
            source.text,
            catalogue_files(),
            module=MODULE,
            path=str(path),
            fixes=DOCSTRING_FIXES.get(MODULE, ()),
        )
    except OSError as error:
        print(
            f"{PROG}: error: cannot read {error.filename or path}: {error.strerror}",
            file=sys.stderr,
        )
        return ExitCode.ERROR
    except (ExportError, UpdateError, FormatterMissingError) as error:
        # Their messages name the file (and line), or what to install.
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return ExitCode.ERROR
    patch = unified_patch(source.text, exported.text)
    if args.output is None:
        sys.stdout.write(patch)
        sys.stdout.flush()
    else:
        try:
            args.output.write_text(patch, encoding=source.encoding, newline="")
        except OSError as error:
            print(f"{PROG}: error: cannot write {args.output}: {error}", file=sys.stderr)
            return ExitCode.ERROR
    for problem in exported.problems:
        print(problem, file=sys.stderr)
    where = f" to {args.output}" if args.output is not None else ""
    lines = patch.count("\n")
    print(
        f"{PROG}: export: {len(exported.changed)} docstring(s) of {path} changed, "
        f"a patch of {lines} line(s){where}",
        file=sys.stderr,
    )
    return ExitCode.FAILED if exported.problems else ExitCode.OK


def installed_source() -> Path:
    """The installed flax's ``flax/errors.py``, found without importing flax.

    Raises:
        UsageError: if there is none.
    """
    spec = importlib.util.find_spec("flax")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(
            "flax is not installed in this environment; name its errors.py with --flax-source"
        )
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "errors.py"
        if path.is_file():
            return path
    raise UsageError(
        f"the installed flax ({', '.join(spec.submodule_search_locations)}) has no errors.py; "
        "name one with --flax-source"
    )


def catalogue_files() -> dict[str, CatalogueFile]:
    """The catalogue files shipped for ``flax.errors``, by class name."""
    return {
        path.stem: CatalogueFile(str(path), path.read_text(encoding="utf-8"))
        for path in sorted((SHIPPED_CATALOGUE / MODULE).glob("*.txt"))
    }
