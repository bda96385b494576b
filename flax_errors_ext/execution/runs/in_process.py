"""The side of a run that executes inside the entry's process.

:func:`serve` takes the runner's jobs; :func:`run_entry` runs an entry's examples
through :class:`doctest.DocTestRunner` itself, so that a run sees exactly what
``pytest --doctest-modules`` sees, and sends each one's records, then where they ran
and what the process had loaded. Nothing is judged here: the build judges each
record afresh, so a cached run is judged again when only the docs change. Entries
may run in threads of one process (an accelerator's): :func:`share_process`.

Only the standard library and our pure core are imported here: the history's
runner loads this module under old releases of jax and flax.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import doctest
import functools
import importlib
import importlib.metadata
import importlib.util
import io
import json
import linecache
import os
import signal
import sys
import threading
import time
import traceback
import zlib
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.runs.output_limit import cut, fit

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from multiprocessing.connection import Connection

    from flax_errors_ext.model.runs.jobs import EntryJob

PACKAGES = ("jax", "jaxlib", "flax")
"""The packages whose behaviour the catalogue records, by their installed versions."""

# Makes doctest take the exception path and hand us its own rendering of the
# exception line, whatever the statement raised.
_ANY_EXCEPTION = "\x00flax-errors: any exception\n"


def run_entry(job: EntryJob, send: Callable[[tuple[Any, ...]], None]) -> None:
    """Send ``("example", index, records)`` per example of ``job``, then ``("finish", ...)``."""
    sys.path[:0] = [path for path in job.import_paths if path not in sys.path]
    _resolve_traceback_filtering()
    if job.module is not None:
        # Imported as pytest does; a failure is the examples' to say.
        with contextlib.suppress(Exception):
            importlib.import_module(job.module)
    shared: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    for index, example in enumerate(job.examples):
        namespace = (
            dict(vars(importlib.import_module(example.module_namespace)))
            if example.module_namespace is not None
            else shared
        )
        records = run_statements(
            job.qualname,
            job.total,
            list(example.statements),
            namespace,
            output_limit=job.output_limit,
            documented=dict(example.documented),
        )
        send(("example", index, records))
    send(("finish", wrap_up()))


def serve(connection: Connection, cwd: str, env: dict[str, str]) -> None:
    """In an entry's process: run each job sent (``threaded``: in a thread), until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the build's to act on
    os.chdir(cwd)
    os.environ.update(env)
    _configure_jax(env)
    flags, environ = _jax_flags(), dict(os.environ)
    sending = threading.Lock()

    def run(tag: int, job: EntryJob) -> None:
        def send(message: tuple[Any, ...]) -> None:
            with sending:
                connection.send((tag, *message))

        try:
            run_entry(job, send)
        except BaseException as error:
            send(("error", f"flax-errors could not run it: {error!r}", traceback.format_exc()))
        # What an entry changed for the whole process, the next one finds as it was.
        _restore_jax_flags(flags)
        if os.environ != environ:
            os.environ.clear()
            os.environ.update(environ)
        os.chdir(cwd)
        sys.stdout.flush()
        sys.stderr.flush()

    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            break
        if message is None:  # the runner is done with this process
            break
        tag, job, log, threaded = message
        if log is not None:
            _write_to(log)
        if threaded:
            share_process()
            name = f"flax-errors-entry {job.qualname}"
            threading.Thread(target=run, args=(tag, job), name=name, daemon=True).start()
        else:
            run(tag, job)


def _write_to(log: str) -> None:
    """Send this process's output (its own, and any library's) to ``log``."""
    output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for stream in (1, 2):
        os.dup2(output, stream)
    os.close(output)
    if not isinstance(sys.stdout, _ThreadOutput):  # whose own output already goes to fd 1
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 - the process's
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115


def _configure_jax(env: dict[str, str]) -> None:
    """Give an imported jax the settings ``env`` names (it read its own at import)."""
    jax = sys.modules.get("jax")
    if jax is None:
        return
    typed: dict[str, Any] = {
        "JAX_COMPILATION_CACHE_DIR": str,
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": float,
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": int,
    }
    for name, value in env.items():
        if name in typed:
            jax.config.update(name.lower(), typed[name](value))


def _jax_flags() -> dict[str, Any]:
    jax = sys.modules.get("jax")
    values = getattr(getattr(jax, "config", None), "values", None)
    return dict(values) if isinstance(values, dict) else {}


def _restore_jax_flags(flags: dict[str, Any]) -> None:
    jax = sys.modules.get("jax")
    if jax is None:
        return
    for name, value in flags.items():
        if jax.config.values.get(name) != value:
            with contextlib.suppress(Exception):
                jax.config.update(name, value)


def _resolve_traceback_filtering() -> None:
    """Resolve JAX's "auto" traceback filtering as a plain ``python`` (jax was preloaded)."""
    if os.environ.get("JAX_TRACEBACK_FILTERING", "auto") == "auto":
        os.environ["JAX_TRACEBACK_FILTERING"] = "quiet_remove_frames"
        jax = sys.modules.get("jax")
        if jax is not None:
            jax.config.update("jax_traceback_filtering", "quiet_remove_frames")


class _Recorder(doctest.OutputChecker):
    """Accepts everything and keeps what doctest compared."""

    def __init__(self) -> None:
        self.compared: tuple[str, str] | None = None

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        self.compared = (want, got)
        return True


class _ThreadOutput(io.TextIOBase):
    """``sys.stdout`` while entries run in threads: each thread's doctest capture apart."""

    def __init__(self, default: Any) -> None:
        self.default = default
        self.local = threading.local()

    def _stream(self) -> Any:
        return getattr(self.local, "stream", None) or self.default

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._stream().write(text)
        return len(text)

    def flush(self) -> None:
        self._stream().flush()

    def getvalue(self) -> str:
        return str(self.local.stream.getvalue())

    def truncate(self, size: int | None = None) -> int:
        self.local.stream.truncate(size)
        return size or 0


_thread = threading.local()
"""The doctest each thread is running (:func:`_thread_lines`)."""

_getlines = linecache.getlines


def _thread_lines(filename: str, module_globals: Any = None) -> list[str]:
    """A statement's source for the thread's own doctest (which tracebacks print)."""
    test: doctest.DocTest | None = getattr(_thread, "test", None)
    if test is not None:
        prefix = f"<doctest {test.name}["
        if filename.startswith(prefix) and filename.endswith("]>"):
            source: str = test.examples[int(filename[len(prefix) : -2])].source
            return source.splitlines(keepends=True)
    return _getlines(filename, module_globals)


def share_process() -> None:
    """Let entries run in threads of this process (the first call does it, once).

    doctest swaps ``sys.stdout`` and ``linecache.getlines`` for a run and puts back
    what it found, which threads side by side would undo for each other (a thread
    could put back another's, stale): both become ones that dispatch on the thread.
    """
    if isinstance(sys.stdout, _ThreadOutput):
        return
    sys.stdout = _ThreadOutput(sys.stdout)
    sys.displayhook = sys.__displayhook__
    linecache.getlines = _thread_lines


class _Runner(doctest.DocTestRunner):
    def __init__(self, recorder: _Recorder) -> None:
        super().__init__(checker=recorder, verbose=False)
        self.recorder = recorder
        self.records: list[dict[str, Any]] = []
        self._started = 0.0

    # What doctest installs as ``linecache.getlines`` for a run: one function for
    # every runner, so that whatever a thread puts back is right for all of them.
    _DocTestRunner__patched_linecache_getlines = staticmethod(_thread_lines)

    def run(self, test: doctest.DocTest, *args: Any, **kwargs: Any) -> doctest.TestResults:
        output = sys.stdout if isinstance(sys.stdout, _ThreadOutput) else None
        own = vars(self)["_fakeout"]
        if output is not None:  # doctest's own capture (private) stays this thread's
            vars(self)["_fakeout"], output.local.stream = output, own
        _thread.test = test
        try:
            return super().run(test, *args, **kwargs)
        finally:
            _thread.test = None
            if output is not None:
                output.local.stream, vars(self)["_fakeout"] = None, own

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

    ``name`` is the doctest name (tracebacks show ``<doctest name[n]>``), ``total``
    the docstring's statement count, ``statements`` the ``(n, source)`` to run;
    ``documented`` ``{n: (text, option flags)}`` where a cut must keep the verdict.
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


def wrap_up() -> dict[str, Any]:
    """Where the examples ran, the versions and the loaded files.

    Last: asking JAX for its devices initialises a backend, which no example should find.
    """
    try:
        device = device_record()
    except Exception as error:  # the record is informative; the verdicts stand without it
        device = {"error": repr(error)}
    return {"device": device, "versions": package_versions(), "loaded": loaded_files()}


def device_record() -> dict[str, Any]:
    """The JAX devices this process sees (initialises a backend); the CPU without JAX."""
    if importlib.util.find_spec("jax") is None:
        return {"platform": "cpu", "device_kind": "cpu", "count": 1}
    import jax

    devices = jax.devices()
    return {
        "platform": devices[0].platform,
        "device_kind": devices[0].device_kind,
        "count": len(devices),
    }


def package_versions(names: Iterable[str] = PACKAGES) -> dict[str, str]:
    """The installed versions of ``names`` ("not installed" where one is not)."""
    versions = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


_file_states: dict[str, tuple[str, int, int]] = {}
"""Each loaded file's ``[path, size, mtime_ns]`` as first seen: a reused process (an
accelerator's) looks once (on a TPU host, again each entry took 0.18 s)."""
_files_seen = threading.Lock()


def loaded_files() -> str:
    """Every file a module of this process was loaded from, with its state, packed.

    A later run is trusted only while none of them changed. A JSON list of
    ``[path, size, mtime_ns]``, compressed and base64-encoded: compact in the cache.
    """
    with _files_seen:
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str) and path not in _file_states:
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                _file_states[path] = (path, stat.st_size, stat.st_mtime_ns)
        return _packed(len(_file_states))


@functools.lru_cache(maxsize=1)
def _packed(count: int) -> str:
    """The states packed; ``count`` keys it, as the states only ever grow."""
    text = json.dumps(sorted(_file_states.values()))
    return base64.b64encode(zlib.compress(text.encode(), 6)).decode("ascii")
