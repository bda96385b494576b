"""The side of the catalogue that runs inside the Jupyter kernel.

Each entry's notebook starts with :func:`begin` and then calls :func:`run_example`
once per example. In a kernel of the build, each runs in the entry's own process
(:mod:`~flax_errors_ext.execution.runs.entry_process`), and only the records come
back to the kernel to be published. Statements run through
:class:`doctest.DocTestRunner` itself, with doctest's own compile flags, display
hook, output capture and exception formatting, so the kernel sees exactly what
``pytest --doctest-modules`` sees. Nothing is judged
here: every statement's output (or exception line) is published as one JSON record,
and the build compares it with the docstring. That way a cached run can be judged
again when only the documented text changes.

A text over the output limit is cut, once the statement is done, to its head and
tail around a marker (:mod:`flax_errors_ext.model.runs.output_limit`), so that neither
the cache nor the page holds megabytes of it. Where the build passes a statement's
documented text (it does for cut statements whose verdict the cut could change),
the cut keeps what that text matched in the whole output.
"""

from __future__ import annotations

import concurrent.futures
import doctest
import functools
import importlib
import importlib.util
import json
import os
import sys
import time
from typing import Any

from flax_errors_ext.execution.runs import entry_process
from flax_errors_ext.execution.runs.kernel_environment import loaded_files, package_versions
from flax_errors_ext.model.runs.output_limit import cut, fit

RESULT_MIME = "application/vnd.flax-errors.run+json"

# Makes doctest take the exception path and hand us its own rendering of the
# exception line, whatever the statement raised.
_ANY_EXCEPTION = "\x00flax-errors: any exception\n"

_output_limit: int | None = None
"""Set by :func:`begin`: the characters of a statement's text that are kept."""


def begin(fingerprint: str, import_paths: list[str], output_limit: int | None = None) -> None:
    """Start the entry's process if the build asked for one; check it is the environment keyed on.

    ``fingerprint`` is the canonical JSON of the build's
    :class:`~flax_errors_ext.model.runs.fingerprint.Fingerprint`; ``output_limit``, the
    characters of each statement's output, message and traceback that are kept
    (None: all of them).

    Raises:
        ImportStartedBackend: the kernel's import of the entry's module, before it
            forked the entry's process, started a JAX backend.
        RuntimeError: if the kernel's package versions differ from the build's,
            which would make the cached verdicts lie.
    """
    entry_process.start_requested()
    if entry_process.running():
        entry_process.call(_begin_here, fingerprint, import_paths, output_limit)
    else:
        _begin_here(fingerprint, import_paths, output_limit)


def _begin_here(fingerprint: str, import_paths: list[str], output_limit: int | None) -> None:
    global _output_limit  # noqa: PLW0603 - one setting for the kernel's life
    _output_limit = output_limit
    sys.path[:0] = [path for path in import_paths if path not in sys.path]
    # JAX's "auto" traceback filtering behaves differently under IPython (no note
    # appended to the exception). Resolve it as plain Python does, so the exception
    # text here is the one `pytest --doctest-modules` sees.
    if os.environ.get("JAX_TRACEBACK_FILTERING", "auto") == "auto":
        os.environ["JAX_TRACEBACK_FILTERING"] = "quiet_remove_frames"
        jax = sys.modules.get("jax")
        if jax is not None:  # a warm kernel imported jax before this cell ran
            jax.config.update("jax_traceback_filtering", "quiet_remove_frames")
    expected = json.loads(fingerprint).get("versions", {})
    actual = package_versions()
    if expected != actual:
        raise RuntimeError(
            f"the kernel runs {actual}, but the build keyed its execution cache on "
            f"{expected}; the kernel must use the Python environment of sphinx-build"
        )


class _Recorder(doctest.OutputChecker):
    """Accepts everything and keeps what doctest compared."""

    def __init__(self) -> None:
        self.compared: tuple[str, str] | None = None

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        self.compared = (want, got)
        return True


class _Runner(doctest.DocTestRunner):
    def __init__(self, recorder: _Recorder) -> None:
        super().__init__(checker=recorder, verbose=False)
        self.recorder = recorder
        self.records: list[dict[str, Any]] = []
        self._started = 0.0

    def report_start(self, out: Any, test: doctest.DocTest, example: doctest.Example) -> None:
        self.recorder.compared = None
        self._started = time.perf_counter()

    def report_success(
        self, out: Any, test: doctest.DocTest, example: doctest.Example, got: str
    ) -> None:
        seconds = time.perf_counter() - self._started
        want, compared = self.recorder.compared or ("", got)
        record: dict[str, Any] = {"transcript": got, "seconds": seconds}
        if want == _ANY_EXCEPTION:
            record["exc_msg"] = compared
            record["exc_type"] = compared.split("\n", 1)[0].split(":", 1)[0].strip()
            record["got"] = ""
        else:
            record["got"] = got
        self.records.append(record)


def run_example(
    name: str,
    total: int,
    statements: list[tuple[int, str]],
    documented: dict[int, tuple[str, int]] | None = None,
    module_namespace: str | None = None,
) -> None:
    """Run some of a docstring's statements in the kernel's namespace and publish them.

    Args:
        name: The doctest name (the error's dotted name), so that tracebacks show
            ``<doctest name[n]>`` exactly as ``pytest --doctest-modules`` does.
        total: How many statements the whole docstring has.
        statements: ``(n, source)`` for the statements of this example.
        documented: ``{n: (documented text, doctest option flags)}`` for statements
            whose text must be cut so as to keep their verdict.
        module_namespace: Run in a copy of this module's namespace, as doctest runs
            a module's docstrings, not in the one the entry's other examples share
            (another project's docstring examples must not pass thanks to the
            catalogue's imports).
    """
    arguments = (name, total, statements, documented or {}, module_namespace)
    if entry_process.running():
        records = entry_process.call(_run_example_here, *arguments)
    else:
        # Off the kernel's main thread: ipykernel keeps an asyncio loop running
        # there, and code that calls asyncio.run() (Orbax, Flax's checkpointing)
        # would fail in the kernel but not under pytest. One thread for the
        # kernel's life, so that an entry's examples share a thread as they share
        # a namespace. (An entry process has no loop running: the kernel's is
        # not its own.)
        records = _example_thread().submit(_run_example_here, *arguments).result()
    # Its plain text is what a reader of the raw notebook sees; the build reads the record.
    _publish({"statements": records}, "".join(record["transcript"] for record in records))


def _run_example_here(
    name: str,
    total: int,
    statements: list[tuple[int, str]],
    documented: dict[int, tuple[str, int]],
    module_namespace: str | None,
) -> list[dict[str, Any]]:
    namespace = (
        dict(vars(importlib.import_module(module_namespace)))
        if module_namespace is not None
        else _namespace()
    )
    return run_statements(
        name, total, statements, namespace, output_limit=_output_limit, documented=documented
    )


def run_statements(
    name: str,
    total: int,
    statements: list[tuple[int, str]],
    namespace: dict[str, Any],
    *,
    output_limit: int | None = None,
    documented: dict[int, tuple[str, int]] | None = None,
) -> list[dict[str, Any]]:
    """Run statements as doctest does, in ``namespace``; one record per statement.

    Also usable outside a kernel, e.g. by a test that needs an error raised in-process.
    Each text over ``output_limit`` is cut once its statement is done (see
    :func:`run_example` for ``documented``).
    """
    chosen = dict(statements)
    examples = [
        doctest.Example(chosen[n], "", exc_msg=_ANY_EXCEPTION)
        if n in chosen
        else doctest.Example("pass\n", "", options={doctest.SKIP: True})
        for n in range(total)
    ]
    runner = _Runner(_Recorder())
    test = doctest.DocTest(examples, namespace, name, None, None, None)
    runner.run(test, out=lambda _: None, clear_globs=False)
    if output_limit is not None:
        for n, record in zip(sorted(chosen), runner.records, strict=False):
            _limit(record, output_limit, (documented or {}).get(n))
    return runner.records


def _limit(record: dict[str, Any], limit: int, documented: tuple[str, int] | None) -> None:
    """Cut the texts of ``record`` to ``limit``; the judged one so as to keep its verdict."""
    judged = "exc_msg" if "exc_msg" in record else "got"
    whole = dict(record)
    for key in (judged, "transcript"):
        text = whole[key]
        if len(text) <= limit:
            continue
        if key == "transcript" and text == whole[judged]:
            record[key] = record[judged]  # the output alone: cut the same way
        elif key == judged and documented is not None:
            record[key] = fit(text, documented[0], documented[1], limit)
        else:
            record[key] = cut(text, limit)


@functools.cache
def _example_thread() -> concurrent.futures.ThreadPoolExecutor:
    return concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="flax-errors")


def _namespace() -> dict[str, Any]:
    shell = _shell()
    if shell is not None:
        namespace: dict[str, Any] = shell.user_ns
        return namespace
    return vars(sys.modules["__main__"])


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def finish() -> None:
    """Publish where the examples ran and what they loaded; the notebook's last cell.

    Last, because asking JAX for its devices initialises a backend, which no
    example should find already done for it. The entry's process, if it has one,
    ends with it.
    """
    if entry_process.running():
        try:
            record = entry_process.call(_wrap_up)
        finally:
            entry_process.end()
    else:
        record = _wrap_up()
    _publish(record, f"flax-errors: ran on {record['device']}")


def _wrap_up() -> dict[str, Any]:
    try:
        device = device_record()
    except Exception as error:  # the record is informative; the verdicts stand without it
        device = {"error": repr(error)}
    return {"device": device, "versions": package_versions(), "loaded": loaded_files()}


def device_record() -> dict[str, Any]:
    """The JAX devices this process sees (initialises a backend).

    Where JAX is not installed (a library of its own documents its errors), what
    JAX reports of a machine without accelerators: the examples run on its CPU.
    """
    if importlib.util.find_spec("jax") is None:
        return {"platform": "cpu", "device_kind": "cpu", "count": 1}
    import jax

    devices = jax.devices()
    return {
        "platform": devices[0].platform,
        "device_kind": devices[0].device_kind,
        "count": len(devices),
    }


def _publish(record: dict[str, Any], text: str) -> None:
    from IPython.display import publish_display_data

    publish_display_data({RESULT_MIME: record, "text/plain": text})  # type: ignore[no-untyped-call]
