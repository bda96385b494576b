"""``flax-errors export``: the catalogue's examples as a patch to Flax's own docstrings.

The patch is made against the installed flax's ``flax/errors.py``, applied to a copy
of it with ``patch -p1`` and ``git apply``, and the patched file is loaded as a
module under another name (it imports nothing). No kernel starts: the examples are
compared as parsed, not run (``nox -s flax_export`` runs them with Flax's pytest).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import itertools
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pyink
import pytest
from pyink.mode import QuoteStyle

from flax_errors_ext.cli import ExitCode, main
from flax_errors_ext.execution.catalogue.modules import catalogue_files, read_module_data
from flax_errors_ext.ext.export import cli as cli_export
from flax_errors_ext.ext.export.model.docstrings import (
    Exported,
    ExportError,
    export_docstrings,
    unified_patch,
)
from flax_errors_ext.ext.export.model.style import kept_examples, mentions_release
from flax_errors_ext.model.catalogue.discover import SHIPPED_CATALOGUE, CatalogueFile
from flax_errors_ext.model.catalogue.module_data import DocstringFix
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.catalogue.records import ExampleKind

FLAX_FIXES = read_module_data("flax.errors", [SHIPPED_CATALOGUE]).repairs

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example

CATALOGUE = catalogue_files("flax.errors", [SHIPPED_CATALOGUE]) or {}
NAMES = sorted(CATALOGUE)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def apply_patch(tree: Path, patch: str, tool: str) -> None:
    """Apply ``patch`` at the root of ``tree`` with ``patch -p1`` or ``git apply``."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    (tree / "fix.patch").write_text(patch, newline="")
    command = (
        ["patch", "-p1", "--batch", "--forward", "-i", "fix.patch"]
        if tool == "patch"
        else ["git", "apply", "--verbose", "fix.patch"]
    )
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # Cleanly: no hunk moved or fuzzed into place.
    assert "fuzz" not in done.stdout + done.stderr
    assert "offset" not in done.stdout + done.stderr


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def classes(source: str) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)}


def program(example: Example) -> list[tuple[str, str | None]]:
    """What an example runs and the class it documents, whatever its layout."""
    return [
        (ast.dump(ast.parse(s.source)), s.documented_class)
        for s in example.statements
        if not isinstance(ast.parse(s.source).body[0], ast.Import | ast.ImportFrom)
    ]


def added_lines(original: str, text: str) -> list[str]:
    """The lines of ``text`` that are neither Flax's nor made by a repair of Flax's."""
    for fix in FLAX_FIXES:
        original = original.replace(fix.old, fix.new)
    theirs = {line.strip().removeprefix('"""') for line in original.split("\n")}
    return [line for line in text.split("\n") if line.strip() not in theirs]


@pytest.fixture(scope="module")
def original() -> str:
    return cli_export.installed_source().read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def exported(original: str) -> Exported:
    return export_docstrings(original, CATALOGUE, fixes=FLAX_FIXES)


@pytest.fixture(scope="module")
def patched(original: str, exported: Exported, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed flax/errors.py, copied into a tree and patched with ``patch -p1``."""
    tree = tmp_path_factory.mktemp("flax-src")
    (tree / "flax").mkdir()
    shutil.copy(cli_export.installed_source(), tree / "flax" / "errors.py")
    apply_patch(tree, unified_patch(original, exported.text), "patch")
    return tree / "flax" / "errors.py"


@pytest.fixture(scope="module")
def module(patched: Path) -> ModuleType:
    return load(patched, "patched_flax_errors")


# The installed flax -----------------------------------------------------------------


def test_every_catalogued_class_is_exported_without_a_problem(exported: Exported) -> None:
    assert exported.problems == ()
    assert sorted(exported.changed) == NAMES


def test_the_patch_applies_cleanly(
    original: str, exported: Exported, patched: Path, tmp_path: Path
) -> None:
    assert patched.read_text(encoding="utf-8") == exported.text
    # git apply takes it too, at the root of a tree laid out as Flax's sdist.
    (tmp_path / "flax").mkdir()
    (tmp_path / "flax" / "errors.py").write_text(original, encoding="utf-8")
    apply_patch(tmp_path, unified_patch(original, exported.text), "git")
    assert (tmp_path / "flax" / "errors.py").read_text(encoding="utf-8") == exported.text


def test_the_patched_file_compiles_and_imports(patched: Path, module: ModuleType) -> None:
    compile(patched.read_text(encoding="utf-8"), str(patched), "exec")
    for name in NAMES:
        assert issubclass(getattr(module, name), module.FlaxError)


@pytest.mark.parametrize("name", NAMES)
def test_each_docstring_holds_the_first_bad_and_good_example_that_hold_everywhere(
    name: str, module: ModuleType, patched: Path
) -> None:
    qualname = f"flax.errors.{name}"
    wanted = parse_docstring(CATALOGUE[name].text, qualname, CATALOGUE[name].path, 1)
    got = parse_docstring(getattr(module, name).__doc__, qualname, str(patched), 1)

    assert got.problems == ()
    kept = kept_examples(wanted)
    assert kept  # every class keeps one
    assert all(not example.holds_for for example in kept)
    assert [e.kind for e in got.examples] == [e.kind for e in kept]
    assert {e.kind for e in got.examples} <= {ExampleKind.BAD, ExampleKind.GOOD}
    for ours, theirs in zip(got.examples, kept, strict=True):
        assert program(ours) == program(theirs)
    if not mentions_release(wanted.summary):
        assert got.summary == wanted.summary


def test_the_docstrings_are_in_flaxs_style(original: str, exported: Exported) -> None:
    added = added_lines(original, exported.text)
    # One exception: a docstring inside an example, which no formatter breaks.
    assert [line for line in added if len(line) > 80 and "'''" not in line] == []
    for marker in (":holds for:", "Bad example:", "Good example:", "Unreachable:", "http"):
        assert not [line for line in added if marker in line], marker
    assert not [line for line in added if mentions_release(line)]
    # A block opened by a colon is indented by 2, as pyink indents Flax's code.
    code = [line.strip()[4:] for line in added if line.strip().startswith((">>> ", "... "))]
    steps = {
        (len(after) - len(after.lstrip())) - (len(before) - len(before.lstrip()))
        for before, after in itertools.pairwise(code)
        if before.endswith(":") and not before.lstrip().startswith("#")
    }
    assert steps == {2}


def test_pyink_leaves_the_exported_docstrings_as_they_are(exported: Exported) -> None:
    # Flax's own settings ([tool.pyink] in its pyproject.toml).
    mode = pyink.Mode(
        line_length=80,
        is_pyink=True,
        pyink_indentation=2,
        quote_style=QuoteStyle.MAJORITY,
        preview=True,
    )
    formatted = classes(pyink.format_str(exported.text, mode=mode))
    for name, node in classes(exported.text).items():
        assert ast.get_docstring(formatted[name], clean=False) == ast.get_docstring(
            node, clean=False
        ), name


def test_flaxs_prose_and_code_blocks_are_kept(original: str, module: ModuleType) -> None:
    before = load_source(original)
    for name in NAMES:
        theirs = getattr(before, name).__dict__.get("__doc__")
        if not theirs:
            continue
        text = inspect.cleandoc(theirs)
        for fix in FLAX_FIXES:
            if fix.name == name:
                text = text.replace(fix.old, fix.new)
        ours = {line.strip() for line in module.__dict__[name].__doc__.split("\n")}
        missing = [line for line in text.split("\n") if line.strip() not in ours]
        assert missing == [], name


def load_source(source: str) -> ModuleType:
    namespace: dict[str, object] = {"__name__": "original_flax_errors"}
    exec(compile(source, "flax/errors.py", "exec"), namespace)  # it imports nothing
    module = type(importlib)("original_flax_errors")
    module.__dict__.update(namespace)
    return module


def test_classes_without_a_catalogue_file_are_byte_identical(original: str, patched: Path) -> None:
    text = patched.read_text(encoding="utf-8")
    before, after = classes(original), classes(text)
    alone = sorted(set(before) - set(CATALOGUE))
    assert alone  # FlaxError, the base class
    for name in alone:
        assert ast.get_source_segment(text, after[name]) == ast.get_source_segment(
            original, before[name]
        )


def test_only_docstrings_change(original: str, patched: Path) -> None:
    def without_docstrings(source: str) -> str:
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                node.body = [
                    statement
                    for statement in node.body
                    if not isinstance(statement, ast.Pass)
                    and not (
                        isinstance(statement, ast.Expr)
                        and isinstance(statement.value, ast.Constant)
                        and isinstance(statement.value.value, str)
                    )
                ]
        return ast.dump(tree)

    assert without_docstrings(patched.read_text(encoding="utf-8")) == without_docstrings(original)


def test_exporting_the_patched_file_changes_nothing(exported: Exported) -> None:
    again = export_docstrings(exported.text, CATALOGUE, fixes=FLAX_FIXES)

    assert again.problems == ()
    assert again.changed == ()
    assert again.text == exported.text
    assert unified_patch(exported.text, again.text) == ""


def test_the_broken_examples_are_gone(original: str, module: ModuleType) -> None:
    before = load_source(original)
    # SetAttributeInModuleSetupError's blocks defined Foo and called SomeModule().
    assert "SomeModule(" in before.SetAttributeInModuleSetupError.__doc__
    setattr_doc = module.SetAttributeInModuleSetupError.__doc__
    assert "SomeModule" not in setattr_doc
    assert "variables = Foo().init(random.key(0), jnp.ones((1, )))" in setattr_doc
    # CallSetupUnboundModuleError's called a MySubModule that nothing defined; its
    # bad example now shows the text it really raises (the compact-method one).
    assert "MySubModule" in before.CallSetupUnboundModuleError.__doc__
    setup_doc = module.CallSetupUnboundModuleError.__doc__
    assert "MySubModule" not in setup_doc
    entry = parse_docstring(setup_doc, "flax.errors.CallSetupUnboundModuleError", "x", 1)
    bad = [e for e in entry.examples if e.kind.raises]
    assert bad[0].statements[-1].exc_msg is not None
    assert "Can't call compact methods on unbound modules" in " ".join(
        bad[0].statements[-1].exc_msg.split()
    )
    # TraceContextError had no docstring at all.
    assert before.TraceContextError.__dict__.get("__doc__") is None
    trace = parse_docstring(
        module.TraceContextError.__doc__, "flax.errors.TraceContextError", "x", 1
    )
    assert [e.kind.value for e in trace.examples] == ["bad", "good"]
    # InvalidScopeError's code after '::' is indented into a literal block.
    assert "\n  with Scope(variables, rngs=rngs).temporary() as root:" in inspect.cleandoc(
        module.InvalidScopeError.__doc__
    )


def test_the_files_summary_opens_the_docstring_and_flaxs_opening_follows_it_whole(
    module: ModuleType,
) -> None:
    doc = inspect.cleandoc(module.ScopeParamShapeError.__doc__).split("\n")
    # The summary, wrapped at Flax's width.
    assert " ".join(doc[:2]) == CATALOGUE["ScopeParamShapeError"].text.split("\n")[0]
    assert doc[2] == ""
    # Flax cut its opening sentence with a blank line; as the site shows it, it is whole.
    assert doc[3:5] == [
        "This error is thrown when the shape of an existing parameter is different from",
        "the shape of the return value of the ``init_fn``. This can happen when the",
    ]
    assert doc.count(doc[0]) == 1  # the summary is not repeated


# The core, on small sources ---------------------------------------------------------

CAT = """\
Foo went wrong, with a \\d in it.

Our words, after theirs.

Bad example:

  The call that fails.

  >>> raise FooError("boom")
  Traceback (most recent call last):
    ...
  mymod.FooError: boom

Good example:

  >>> import re
  >>> print(re.sub(r"\\d", "#", "a1"))
  a#
"""

SOURCE = '''\
"""A module of errors."""


class FooError(Exception):
    """Their summary.

    Their words::

        raise FooError()
    """

    def __init__(self, message):
        super().__init__(message)


class BarError(Exception):
    """Not catalogued."""


class BazError(Exception):
    x = 1
'''


def statements(entry: ErrorEntry) -> list[tuple[ExampleKind, str, str, str | None]]:
    return [(e.kind, s.source, s.want, s.exc_msg) for e in entry.examples for s in e.statements]


def export(source: str, **files: str) -> Exported:
    catalogue = {name: CatalogueFile(f"cat/{name}.txt", text) for name, text in files.items()}
    return export_docstrings(source, catalogue, module="mymod", path="mymod.py")


def docstring(source: str, name: str) -> str:
    namespace: dict[str, object] = {}
    exec(compile(source, "mymod.py", "exec"), namespace)
    value = namespace[name].__doc__
    assert isinstance(value, str)
    return value


def test_a_backslash_makes_the_docstring_raw_and_the_examples_stay_the_same() -> None:
    result = export(SOURCE, FooError=CAT)

    assert result.problems == ()
    assert result.changed == ("FooError",)
    assert '    r"""Foo went wrong, with a \\d in it.\n' in result.text
    doc = docstring(result.text, "FooError")
    got = parse_docstring(doc, "mymod.FooError", "mymod.py", 1)
    wanted = parse_docstring(CAT, "mymod.FooError", "cat", 1)
    assert statements(got) == statements(wanted)
    assert got.examples[1].statements[1].source == 'print(re.sub(r"\\d", "#", "a1"))\n'
    assert inspect.cleandoc(doc).split("\n") == [
        "Foo went wrong, with a \\d in it.",
        "",
        "Their summary.",
        "",
        "Their words::",
        "",
        "    raise FooError()",
        "",
        "Our words, after theirs.",
        "",
        "Examples:",
        "",
        "  The call that fails.",
        "",
        '  >>> raise FooError("boom")',
        "  Traceback (most recent call last):",
        "    ...",
        "  mymod.FooError: boom",
        "",
        "  >>> import re",
        '  >>> print(re.sub(r"\\d", "#", "a1"))',
        "  a#",
    ]
    # Only the catalogued class changed, and only its docstring.
    assert docstring(result.text, "BarError") == "Not catalogued."
    assert "        super().__init__(message)\n" in result.text
    assert export(result.text, FooError=CAT).text == result.text


def test_triple_quotes_are_escaped_where_the_docstring_cannot_be_raw() -> None:
    text = CAT.replace("  a#\n", '  a#\n  >>> print(\'"""x"""\')\n  """x"""\n')
    result = export(SOURCE, FooError=text)

    assert result.problems == ()
    assert '\\"\\"\\"x\\"\\"\\"' in result.text
    assert "\\\\d" in result.text  # not raw: the backslash is escaped
    got = parse_docstring(docstring(result.text, "FooError"), "mymod.FooError", "m", 1)
    assert statements(got) == statements(parse_docstring(text, "mymod.FooError", "c", 1))
    assert export(result.text, FooError=text).text == result.text


TRICKY = {
    "a summary that ends in a quote": 'It said "no"\n',
    "quote runs and backslashes": r'''Quotes """ and "" and \ in it.

Good example:

  >>> print('a""""b\\')
  a""""b\
''',
    "a raw string in the code": CAT,
}


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
def test_the_docstring_reads_back_as_the_file_wherever_it_is_escaped(text: str) -> None:
    text = text.replace("FooError", "BazError")
    result = export(SOURCE, BazError=text)

    assert result.problems == ()
    got = parse_docstring(docstring(result.text, "BazError"), "mymod.BazError", "m", 1)
    wanted = parse_docstring(text, "mymod.BazError", "c", 1)
    assert got.summary == wanted.summary
    assert statements(got) == statements(wanted)
    assert export(result.text, BazError=text).text == result.text


def test_a_raw_docstring_stays_raw_with_its_backslashes() -> None:
    source = SOURCE.replace('"""Not catalogued."""', 'r"""Their \\d words."""')
    result = export(source, BarError=CAT.replace("FooError", "BarError"))

    assert result.problems == ()
    assert '    r"""Foo went wrong, with a \\d in it.\n\n    Their \\d words.\n' in result.text


def test_a_class_without_a_docstring_gets_one_above_its_body() -> None:
    text = CAT.replace("FooError", "BazError")
    result = export(SOURCE, BazError=text)

    assert result.problems == ()
    assert '\nclass BazError(Exception):\n    r"""Foo went wrong' in result.text
    assert result.text.endswith('\n    """\n    x = 1\n')
    assert export(result.text, BazError=text).text == result.text


def test_a_file_that_names_no_class_and_a_malformed_entry_are_reported() -> None:
    malformed = CAT.replace("mymod.FooError: boom", "mymod.OtherError: boom")
    result = export(SOURCE, FoError=CAT, BarError=malformed)

    assert result.text == SOURCE
    assert [str(p) for p in result.problems] == [
        "cat/FoError.txt:1: this catalogue file names no class of mymod: no mymod.FoError; "
        "did you mean FooError.txt?",
        "cat/BarError.txt:9: mymod.BarError is not exported: its entry is malformed: "
        "this bad example documents mymod.OtherError, but it belongs to mymod.BarError",
    ]


def test_a_fix_whose_text_is_gone_is_reported() -> None:
    catalogue = {"FooError": CatalogueFile("cat/FooError.txt", CAT)}
    fixes = [
        DocstringFix("FooError", old="raise FooError()", new="raise FooError('x')", why=""),
        DocstringFix(
            "FooError", old="Gone words", new="New words", why="", path="cat/module.toml"
        ),
        DocstringFix("BarError", old="Not", new="Never", why=""),
    ]
    result = export_docstrings(SOURCE, catalogue, module="mymod", path="m.py", fixes=fixes)

    assert "        raise FooError('x')\n" in result.text
    assert [str(p) for p in result.problems] == [
        "m.py:16: a repair of BarError's docstring is not made: it has no catalogue file",
        "m.py:5: FooError: a repair is not made, its docstring no longer holds 'Gone words'; "
        "review it in cat/module.toml",
    ]


def test_a_source_that_is_not_python_names_its_line() -> None:
    with pytest.raises(ExportError, match=r"^mymod\.py:2: cannot read it as Python"):
        export("x = 1\nclass (:\n", FooError=CAT)


def test_line_endings_and_a_missing_final_newline_survive(tmp_path: Path) -> None:
    source = SOURCE.replace("\n", "\r\n").removesuffix("\r\n")
    result = export(source, FooError=CAT)
    assert result.problems == ()
    assert "\n" not in result.text.replace("\r\n", "")

    patch = unified_patch(SOURCE.removesuffix("\n"), export(SOURCE, FooError=CAT).text, "m.py")
    (tmp_path / "m.py").write_text(SOURCE.removesuffix("\n"))
    assert "\\ No newline at end of file\n" in patch
    apply_patch(tmp_path, patch, "patch")
    assert (tmp_path / "m.py").read_text() == export(SOURCE, FooError=CAT).text


def test_no_change_is_an_empty_patch() -> None:
    assert unified_patch(SOURCE, SOURCE) == ""


# The command ------------------------------------------------------------------------


def test_export_writes_the_patch_of_the_installed_flax(
    original: str, exported: Exported, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "export", "-o", str(tmp_path / "flax.patch"))

    assert code == ExitCode.OK
    assert out == ""
    patch = (tmp_path / "flax.patch").read_text(encoding="utf-8")
    assert patch == unified_patch(original, exported.text)
    assert patch.startswith("--- a/flax/errors.py\n+++ b/flax/errors.py\n")
    assert f"export: {len(NAMES)} docstring(s) of " in err

    code, out, _ = run(capsys, "export")
    assert code == ExitCode.OK
    assert out == patch


def test_export_of_a_patched_file_is_empty(
    patched: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "export", "--flax-source", str(patched))

    assert code == ExitCode.OK
    assert out == ""
    assert "0 docstring(s)" in err


def test_export_reports_problems_at_their_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "errors.py"
    source.write_text(
        "class FlaxError(Exception):\n  pass\n\n\nclass TraceContextError(FlaxError):\n  pass\n"
    )

    code, out, err = run(capsys, "export", "--flax-source", str(source))

    assert code == ExitCode.FAILED
    assert out.startswith("--- a/flax/errors.py\n")
    assert '+  """An NNX Module or Variable was changed' in out
    assert f"{CATALOGUE['ScopeParamShapeError'].path}:1: this catalogue file names no class" in err


def test_export_errors_name_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.py"
    code, _, err = run(capsys, "export", "--flax-source", str(missing))
    assert code == ExitCode.ERROR
    assert err == f"flax-errors: error: cannot read {missing}: No such file or directory\n"

    broken = tmp_path / "broken.py"
    broken.write_text("class A:\n    def (\n")
    code, _, err = run(capsys, "export", "--flax-source", str(broken))
    assert code == ExitCode.ERROR
    assert err.startswith(f"flax-errors: error: {broken}:2: cannot read it as Python")


def test_export_without_flax_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)

    code, _, err = run(capsys, "export")

    assert code == ExitCode.USAGE
    assert "flax is not installed" in err
    assert "--flax-source" in err


def test_export_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["export", "--help"])

    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: flax-errors export")
    assert "--flax-source PATH" in out
    assert "exit status:" in out


def test_export_without_pyink_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pyink", None)  # as if not installed

    code, out, err = run(capsys, "export")

    assert code == ExitCode.ERROR
    assert out == ""
    assert "pyink, which is not installed: pip install 'flax-errors[export]'" in err


def test_a_summary_bound_to_a_release_leaves_flaxs_opening_as_the_summary() -> None:
    text = CAT.replace("Foo went wrong, with a \\d in it.", "Up to 1.2.3, Foo went wrong.")
    result = export(SOURCE, FooError=text)

    assert result.problems == ()
    doc = inspect.cleandoc(docstring(result.text, "FooError"))
    assert doc.startswith("Their summary.\n\nTheir words::")
    assert "1.2.3" not in doc
    got = parse_docstring(doc, "mymod.FooError", "m", 1)
    assert got.summary == "Their summary."
    assert [e.kind for e in got.examples] == [ExampleKind.BAD, ExampleKind.GOOD]
    assert export(result.text, FooError=text).text == result.text
    # Nothing left to write: the class is left as it was, and said so.
    bare = export(SOURCE, BazError="Up to 1.2.3, it failed.\n")
    assert (bare.text, bare.changed) == (SOURCE, ())
    assert [str(p) for p in bare.problems] == [
        "mymod.py:21: mymod.BazError is left unchanged: its file holds nothing for every release"
    ]
