"""``flax-errors export``: Flax's ``errors.py`` patched (:func:`run` imports the export itself)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli import PROG, ExitCode, UsageError, add_command
from flax_errors_ext.model.catalogue.discover import SHIPPED_CATALOGUE

if TYPE_CHECKING:
    import argparse

MODULE = "flax.errors"


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``export``: the patch that puts the catalogue into Flax's docstrings."""
    export = add_command(
        commands,
        "export",
        [],
        "Write a patch that puts the catalogue's examples into Flax's own docstrings.",
        """\
        Reads flax/errors.py and the catalogue files shipped for flax.errors, and
        writes a unified diff against it (paths a/flax/errors.py and b/flax/errors.py:
        patch -p1 or git apply takes it at the root of Flax's source tree). Each
        catalogued class's docstring opens with the file's summary, keeps Flax's
        prose and code blocks (with exact repairs to the few broken ones), and ends
        with the file's explanation and an Examples: section holding one bad and
        one good example that hold on every supported release, in Flax's style
        (pyink's 80 columns and 2-space indents, URLs elided with ...); the site
        built from the patched docstrings gives the same verdicts for them.
        Paragraphs bound to one release stay on the site. Classes without a
        catalogue file are left unchanged; exporting a patched file changes
        nothing. Problems go to standard error, each at its file:line.""",
    )
    export.add_argument(
        "--flax-source",
        type=Path,
        metavar="PATH",
        help="the flax/errors.py to patch (default: the installed flax's, found without "
        "importing it)",
    )
    export.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="write the patch to FILE instead of standard output",
    )
    export.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the patch to standard output or ``--output``; report what it could not do."""
    from flax_errors_ext.cli.runs import SourceFile
    from flax_errors_ext.execution.catalogue.modules import (
        DiscoveryError,
        catalogue_files,
        read_module_data,
    )
    from flax_errors_ext.ext.export.model.docstrings import (
        ExportError,
        export_docstrings,
        unified_patch,
    )
    from flax_errors_ext.ext.export.model.style import FormatterMissingError
    from flax_errors_ext.model.runs.update import UpdateError

    path: Path = args.flax_source or installed_source()
    try:
        source = SourceFile.read(path)
        exported = export_docstrings(
            source.text,
            catalogue_files(MODULE, (SHIPPED_CATALOGUE,)) or {},
            module=MODULE,
            path=str(path),
            fixes=read_module_data(MODULE, (SHIPPED_CATALOGUE,)).repairs,
        )
    except OSError as error:
        print(
            f"{PROG}: error: cannot read {error.filename or path}: {error.strerror}",
            file=sys.stderr,
        )
        return ExitCode.ERROR
    except (ExportError, UpdateError, FormatterMissingError, DiscoveryError) as error:
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
    """The installed flax's ``flax/errors.py``, found without importing flax."""
    spec = importlib.util.find_spec("flax")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(
            "flax is not installed in this environment; name its errors.py with --flax-source"
        )
    for folder in spec.submodule_search_locations:
        if (path := Path(folder) / "errors.py").is_file():
            return path
    raise UsageError(
        f"the installed flax ({', '.join(spec.submodule_search_locations)}) has no errors.py; "
        "name one with --flax-source"
    )
