"""Run every entry of the catalogue's modules, several processes at a time.

Each entry runs in a process of the :class:`~.runner.Runner`'s; in myst-nb's
``cache`` mode a run that ran to the end is kept (:mod:`~.store`) and served while
its code, versions, device and loaded files are the same.

Texts over the output limit come back cut (:mod:`~flax_errors_ext.model.runs.output_limit`),
which keeps every verdict but one spelled out in the part cut: an example that
drifted with a cut output runs once more, with its documented text to keep.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import traceback
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from flax_errors_ext.execution.cache.file_states import SourceStates
from flax_errors_ext.execution.cache.probe import source_hash
from flax_errors_ext.execution.cache.store import RunStore, key
from flax_errors_ext.execution.runs.runner import Runner
from flax_errors_ext.execution.runs.versions import installed_versions
from flax_errors_ext.model.catalogue.conditions import PLATFORM, describe, versions_named
from flax_errors_ext.model.catalogue.records import Verdict
from flax_errors_ext.model.runs.fingerprint import Device, code_hash
from flax_errors_ext.model.runs.jobs import EntryOutcome, Execution, cut_and_drifted, entry_job
from flax_errors_ext.model.runs.judge import judge
from flax_errors_ext.model.runs.output_limit import DEFAULT_LIMIT

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path

    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example, ExampleResult
    from flax_errors_ext.model.runs.fingerprint import Fingerprint, LoadedFile
    from flax_errors_ext.model.runs.jobs import EntryJob


def _besides(loaded: tuple[LoadedFile, ...], module: ErrorModule) -> list[LoadedFile]:
    """The files a run loaded, but the catalogued module's own (keyed by its code hash)."""
    own, ending = str(module.path), os.sep + module.path.name

    def is_own(path: str) -> bool:
        # Links are resolved (system calls) only for a file of that name.
        return path == own or (path.endswith(ending) and os.path.realpath(path) == own)

    return [f for f in loaded if not is_own(f.path)]


def default_jobs() -> int:
    """How many entries run at once when not configured: one per CPU."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, cpus or 1)


@dataclasses.dataclass(frozen=True)
class RunSettings:
    """What running an entry needs besides the entry: the same for every entry of a run."""

    fingerprint: Fingerprint
    mode: str
    """myst-nb's execution mode for the catalogue: ``cache``, ``force`` or ``off``."""
    sources_store: Path
    """Where :class:`~.file_states.SourceStates` keeps loaded sources' content hashes."""
    output_limit: int = DEFAULT_LIMIT
    """Characters of each statement's output, message and traceback that are kept."""
    # Neither is pickled with the build's environment, which keeps the settings.
    runner: Runner = dataclasses.field(default_factory=Runner, compare=False, repr=False)
    store: RunStore | None = dataclasses.field(default=None, compare=False, repr=False)
    """The execution cache, in ``cache`` mode."""

    def sources(self) -> SourceStates:
        """A fresh look at the files runs loaded, for one run."""
        return SourceStates(self.sources_store)

    def __getstate__(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.compare}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "runner", Runner())
        object.__setattr__(self, "store", None)


def execute(
    job: EntryJob,
    settings: RunSettings,
    keyed: Fingerprint,
    trusted: Callable[[tuple[LoadedFile, ...]], bool] = lambda _: True,
    *,
    alone: bool = False,
) -> Execution:
    """``job``'s records, from the cache while ``trusted`` accepts what they loaded, else run.

    ``alone``: run, with no other entry beside it in a shared process, never from the cache.
    """
    total = len(job.examples)
    if settings.mode == "off":
        return Execution(runs=(None,) * total, failure=Verdict.NOT_RUN)
    name = key(job, keyed)
    if settings.store is not None and not alone:
        kept = settings.store.get(name)
        if kept is not None:
            served = Execution.of(*kept, total)
            if trusted(served.loaded):
                return served
    raw = settings.runner.run(job, alone=alone)
    done = raw.execution(total)
    if settings.store is not None and done.failure is None:
        # A cache that cannot be written costs the next build a run, not this one a verdict.
        with contextlib.suppress(OSError):
            settings.store.put(name, raw)
    return done


def check_modules(
    modules: Sequence[ErrorModule],
    settings: RunSettings,
    sources: SourceStates,
    *,
    jobs: int,
    done: Callable[[int, EntryOutcome], None] = lambda count, outcome: None,
) -> list[list[EntryOutcome]]:
    """Run (or fetch from the cache) every entry of ``modules`` and judge each example.

    One pool for all of them, so that no process slot waits at a module's end.
    ``done`` hears of each entry as it finishes, with how many have.
    """
    with entry_pool(jobs, settings.runner) as pool:
        futures = [submit_module(module, settings, sources, pool) for module in modules]
        for count, future in enumerate(completed([f for each in futures for f in each]), 1):
            done(count, future.result())
        outcomes = [[f.result() for f in each] for each in futures]
    sources.save()
    return outcomes


def completed(futures: Sequence[Future[EntryOutcome]]) -> Iterator[Future[EntryOutcome]]:
    """The futures as they finish; Ctrl-C stops the wait at once, on every Python.

    A wait on a future blocks on a lock, which Python 3.13 does not interrupt, and
    a wait in slices, interrupted between two acquisitions, can leave a lock held
    that a worker then hangs on. So each future, when done, writes its number to a
    pipe that this thread reads: a system call that a signal interrupts.
    """
    read_end, write_end = os.pipe()

    def report(index: int) -> Callable[[Future[EntryOutcome]], None]:
        def done(_: Future[EntryOutcome]) -> None:
            # After an interrupt the pipe is closed; a late future has no one to tell.
            with contextlib.suppress(OSError):
                os.write(write_end, index.to_bytes(4, "big"))

        return done

    try:
        for index, future in enumerate(futures):
            future.add_done_callback(report(index))
        for _ in futures:
            # Each write is 4 bytes, under PIPE_BUF: atomic, so each read takes one whole.
            yield futures[int.from_bytes(os.read(read_end, 4), "big")]
    finally:
        os.close(read_end)
        os.close(write_end)


@contextlib.contextmanager
def entry_pool(jobs: int, runner: Runner) -> Iterator[ThreadPoolExecutor]:
    """The threads that wait on the entries' processes, ``jobs`` at a time.

    Interrupted, it does not wait: queued entries are dropped, processes killed.
    """
    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="flax-errors-entry")
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        runner.kill_all()
        raise
    pool.shutdown()


def submit_module(
    module: ErrorModule, settings: RunSettings, sources: SourceStates, pool: Executor
) -> list[Future[EntryOutcome]]:
    """One module of :func:`check_modules`, on a shared pool: a future per entry."""
    # The module's code, docstrings aside, shapes what its examples raise. A group of
    # message entries has no code of its own: the files it loads are keyed as any run's.
    code = code_hash("") if module.messages else source_hash(module.path)
    keyed = settings.fingerprint.with_source(module.name, code)
    checker = _ModuleChecker(module, settings, sources, keyed)
    return [pool.submit(checker.check, entry) for entry in module.entries]


@dataclasses.dataclass(frozen=True)
class _ModuleChecker:
    """Checks the entries of one module, each keyed by the module's code."""

    module: ErrorModule
    settings: RunSettings
    sources: SourceStates
    keyed: Fingerprint
    """The run's fingerprint with the module's docstring-free code hash."""
    _unchanged: dict[int, tuple[LoadedFile, ...]] = dataclasses.field(
        default_factory=dict, compare=False, repr=False
    )
    """The lists of loaded files found unchanged in this run, by identity (the cache hands
    entries that loaded the same files one list). Only "unchanged" is kept: a run
    meanwhile may turn "changed" into "unchanged", never the reverse."""

    def trusts(self, loaded: tuple[LoadedFile, ...]) -> bool:
        """Whether a cached run that loaded ``loaded`` may be served: none of it changed."""
        if self._unchanged.get(id(loaded)) is loaded:
            return True
        if self.sources.first_change(_besides(loaded, self.module)) is not None:
            return False
        self._unchanged[id(loaded)] = loaded
        return True

    def check(self, entry: ErrorEntry) -> EntryOutcome:
        """Run the examples that hold for the run's versions; set the others aside.

        Whatever goes wrong in running them is this entry's crash, said on its page,
        never an exception out of the build's reading step that names no entry.
        """
        try:
            return self._check(entry)
        except Exception as error:
            detail = f"flax-errors could not run it: {type(error).__name__}: {error}"
            log = traceback.format_exc()
            execution = Execution(
                runs=(None,) * len(entry.examples),
                failure=Verdict.CRASHED,
                failure_detail=detail,
                failure_log=log,
            )
            results = tuple(
                judge(example, None, Verdict.CRASHED, detail, log) for example in entry.examples
            )
            return EntryOutcome(entry, execution, results)

    def _check(self, entry: ErrorEntry) -> EntryOutcome:
        versions = run_versions(self.settings.fingerprint, entry)
        held = tuple(example for example in entry.examples if example.holds(versions))
        if len(held) == len(entry.examples):
            return self._check_held(entry)
        # The examples for other versions never run; each keeps its place.
        outcome = self._check_held(dataclasses.replace(entry, examples=held))
        verdicts = iter(outcome.results)
        results = tuple(
            next(verdicts) if example in held else set_aside(example, versions)
            for example in entry.examples
        )
        return dataclasses.replace(outcome, entry=entry, results=results)

    def _check_held(self, entry: ErrorEntry) -> EntryOutcome:
        """Run every example; again with documented texts where a cut output drifted."""
        if not entry.examples:
            return EntryOutcome(entry, Execution(runs=()), ())
        outcome = self._run(entry, frozenset())
        documented = cut_and_drifted(outcome)
        if not documented:
            return outcome
        again = self._run(entry, documented)
        executed = outcome.execution.executed or again.execution.executed
        return dataclasses.replace(
            again, execution=dataclasses.replace(again.execution, executed=executed)
        )

    def _run(self, entry: ErrorEntry, documented: frozenset[int]) -> EntryOutcome:
        """Run the entry's examples (or fetch them from the cache) and judge each one."""
        module = self.module
        job = entry_job(
            entry,
            # A group of message entries has no module of its own to import.
            None if module.messages else module.name,
            (module.import_path,) if module.import_path else (),
            self.settings.output_limit,
            documented,
        )
        execution = execute(job, self.settings, self.keyed, trusted=self.trusts)
        results = _judged(entry, execution)
        if (
            self.settings.runner.reuse
            and execution.executed
            and any(r.verdict.failed for r in results)
        ):
            # Entries beside it in the one process (an accelerator's) share its state
            # and its time: a failure is its verdict only once it fails alone.
            execution = execute(job, self.settings, self.keyed, alone=True)
            results = _judged(entry, execution)
        if execution.executed:
            self.sources.remember(execution.loaded)
        if self.settings.store is not None and any(r.verdict.may_be_transient for r in results):
            self.settings.store.forget(key(job, self.keyed))
        return EntryOutcome(entry, execution, results)


def _judged(entry: ErrorEntry, execution: Execution) -> tuple[ExampleResult, ...]:
    failure = (execution.failure, execution.failure_detail, execution.failure_log)
    return tuple(
        judge(example, runs, *failure)
        for example, runs in zip(entry.examples, execution.runs, strict=True)
    )


def run_versions(fingerprint: Fingerprint, entry: ErrorEntry) -> dict[str, str]:
    """The versions an entry's ``:holds for:`` lines are read against.

    The fingerprint's jax, jaxlib, flax and platform; any other package a line
    names as this process has it installed (the entries' processes have its
    environment).
    """
    known = fingerprint.version_map
    if isinstance(fingerprint.device, Device):
        known = {**known, PLATFORM: fingerprint.device.platform}
    return installed_versions(entry.examples, known)


def set_aside(example: Example, versions: dict[str, str]) -> ExampleResult:
    """The result of an example not run because it holds for other versions."""
    detail = (
        f"holds for {describe(example.holds_for)}; "
        f"this run has {versions_named(example.holds_for, versions)}"
    )
    return judge(example, None, Verdict.OTHER_VERSIONS, detail)
