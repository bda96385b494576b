"""The one typed configuration: each field is a ``flax_errors_<field>`` Sphinx setting."""

from __future__ import annotations

import dataclasses
import functools
import typing
from typing import TYPE_CHECKING, Any

from flax_errors_ext.layout import DEFAULT_BASE_URL, SiteLayout
from flax_errors_ext.model.config.values import (
    KNOWN_MODULES,
    ModuleSpec,
    boolean,
    from_text,
    http_url,
    meta,
    module_list,
    one_of,
    paths,
    setting,
    source_links,
    whole_number,
)
from flax_errors_ext.model.history.releases import SHIPPED
from flax_errors_ext.model.runs.output_limit import DEFAULT_LIMIT

if TYPE_CHECKING:
    from collections.abc import Iterator

PREFIX = "flax_errors_"


@dataclasses.dataclass(frozen=True)
class CatalogueConfig:
    """Settings of the catalogue build."""

    modules: tuple[ModuleSpec, ...] = setting(
        (),
        "The modules whose error classes are catalogued: every public exception class "
        "each one exposes (its __all__, else the public classes it defines). An item is "
        "a dotted name, or a dict: {'module': name, 'page': docname (default "
        "api_reference/<module>), 'bases': [dotted class names an entry must subclass], "
        "'exclude': [class names to leave out], 'upstream': base URL of the docs its "
        "errors print, 'messages': True for a group of message entries (errors raised "
        "as builtin exceptions, one catalogue file each: <catalogue folder>/<name>/"
        "<Name>.txt, nothing imported)}. flax.errors and jax.errors know their page "
        "and upstream; flax.messages and jax.messages are the shipped message groups.",
        module_list,
    )
    pages: str = setting(
        "error",
        "'error': each entry on a page of its own (<module page>/<Name>.html), its "
        "module's page an index of them, where the URLs the errors print land and are "
        "taken on to the entry; 'module': every entry on its module's page, as a "
        "library with a few errors may prefer.",
        one_of("error", "module"),
    )
    timeout: int | None = setting(
        None,
        "Seconds one example may run before it is stopped and reported as timed out. "
        "None: as long as a cell of the project's notebooks may run, "
        "nb_execution_timeout (myst-nb's default: 30; -1: no limit).",
        whole_number(1, "a positive whole number of seconds", or_none=True),
    )
    execution_mode: str = setting(
        "auto",
        "How the catalogue's examples run, whatever myst-nb does with the project's "
        "own notebooks: 'auto' follows nb_execution_mode ('auto' and 'inline' run "
        "as 'cache'); 'cache' runs each entry once and serves it from the execution "
        "cache until its code or message changes; 'force' runs every entry on every "
        "build; 'off' runs none (each entry is shown not run). A project whose "
        "notebooks stay unexecuted (nb_execution_mode = 'off') sets 'cache' to keep "
        "its errors' examples checked.",
        one_of("auto", "cache", "force", "off"),
    )
    jobs: int = setting(
        0,
        "How many entries run at once, each in a fresh process of its own; 0 means one "
        "per CPU. Where the device is an accelerator, one process holds it and runs "
        "the entries one after another.",
        whole_number(0, "a whole number, 0 or more"),
        changes_pages=False,
    )
    compilation_cache: bool = setting(
        True,
        "Share JAX's persistent compilation cache between the entries' processes "
        "(in _build/flax_errors/jax_cache), unless JAX_COMPILATION_CACHE_DIR is set. "
        "Set in those processes only, never in the Sphinx process's.",
        boolean,
        changes_pages=False,
    )
    catalogue_dirs: tuple[str, ...] = setting(
        (),
        "Folders of example files for error modules whose docstrings this project "
        "cannot edit: <folder>/<module>/<Class>.txt, relative to conf.py. They are "
        "searched before the catalogue shipped with flax_errors_ext (Flax's and JAX's "
        "errors), never instead of it.",
        paths("folder"),
    )
    upstream: str = setting(
        "warn",
        "What the doctest examples in another project's docstrings (JAX's) do: they "
        "run as that project's doctest would and their verdicts are shown on the entry "
        "and in errors.json. 'error': upstream drift fails the build; 'warn': it is a "
        "warning of type flax-errors.upstream; 'show': only shown; 'off': not run.",
        one_of("error", "warn", "show", "off"),
    )
    base_url: str = setting(
        DEFAULT_BASE_URL,
        "Where this site is published, for the command line alone: the links that "
        "flax-errors list and explain print, and the URLs flax-errors index writes for "
        "the help under a traceback. The site's pages link relatively and never read "
        "it; the URL an error prints is its library's. FLAX_ERRORS_BASE_URL, when set, "
        "overrides it.",
        http_url,
        changes_pages=False,
    )
    source_links: dict[str, str | None] = dataclasses.field(
        default_factory=dict,
        hash=False,
        metadata=meta(
            "Where library frames of the full tracebacks link to: a dict of package (the "
            "first folder of the path a frame shows) to a URL template naming {version} "
            "(the version that ran), {path} (the file inside its import root) and {line}. "
            "It extends the built-in links of flax and jax (at the tags v{version} and "
            "jax-v{version} on GitHub); None takes a link away. A frame of a package not "
            "listed, or that ran no release version, is not linked.",
            source_links,
        ),
    )
    strict: bool = setting(
        False, "Fail the build when an error class has no examples (otherwise a warning).", boolean
    )
    output_limit: int = setting(
        DEFAULT_LIMIT,
        "Characters of one statement's output, exception message or traceback that "
        "the page, errors.json and the execution cache keep (default 100,000). A "
        "longer text keeps its head and tail around a marker line that says how much "
        "was cut; the example is still judged on the whole text.",
        whole_number(1, "a positive whole number of characters"),
    )
    history: tuple[str, ...] = setting(
        (SHIPPED,),
        "History files (as nox -s history writes them) whose releases the site shows: "
        "under each entry a strip with a cell per release and its history in a line, "
        "retired classes at the end of their module's page, and a matrix of every "
        "error by release in the error index. Paths are relative to conf.py; "
        f"{SHIPPED!r} is the file shipped with flax_errors_ext (flax.errors on Flax "
        "0.4 to 0.12), and [] shows none. Each file names its module; entries of "
        "other modules show no history. A record of other code than an entry's bad "
        "examples now is left out, with a note, and a warning of type "
        "flax-errors.history-stale.",
        paths("file"),
    )
    device_runs: tuple[str, ...] = setting(
        (),
        "errors.json documents of runs on other devices (flax-errors check --json on "
        "a GPU machine, or here with XLA_FLAGS=--xla_force_host_platform_device_count=8) "
        "to set beside this build's own: an entry that did the same there reads "
        "'Verified on CPU and on GPU (NVIDIA H200)', one whose verdict or text "
        "differs (addresses aside) shows both texts in a dropdown, and a run of other "
        "versions says which. Paths are relative to conf.py; errors.json gets each "
        "entry's outcome per run. Read by the extra flax_errors_ext.ext.other_runs "
        "alone, which extensions must list. A file that cannot be read is a warning "
        "of type flax-errors.device-runs.",
        paths("file"),
    )

    @classmethod
    def options(cls) -> Iterator[tuple[str, Any, str]]:
        """``(config name, default, help)`` of every setting; a sequence's default a list."""
        for field in dataclasses.fields(cls):
            default = field.default_factory() if callable(field.default_factory) else field.default
            if isinstance(default, tuple):
                default = list(default)
            yield PREFIX + field.name, default, field.metadata["help"]

    @classmethod
    def changes_pages(cls, name: str) -> bool:
        """Whether the setting called ``name`` can change what a page says."""
        (field,) = (f for f in dataclasses.fields(cls) if PREFIX + f.name == name)
        return bool(field.metadata["changes_pages"])

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> CatalogueConfig:
        """A config of ``flax_errors_*`` values (text read as typed); ValueError: the first bad."""
        kinds = typing.get_type_hints(cls)
        kwargs: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            name = PREFIX + field.name
            if name not in values:
                continue
            value = from_text(values[name], kinds[field.name])
            try:
                kwargs[field.name] = field.metadata["read"](value)
            except TypeError as error:
                raise ValueError(f"{name} {error}; got {values[name]!r}") from None
        return cls(**kwargs)

    @functools.cached_property
    def layout(self) -> SiteLayout:
        """Where every error lives on the site; made once, as every entry and link asks it."""
        return SiteLayout.of(
            [*map(ModuleSpec.from_value, KNOWN_MODULES), *self.modules],
            per_error=self.pages == "error",
        )

    def run_mode(self, notebooks: str) -> str:
        """The entries' execution mode (myst-nb's is ``notebooks``); auto and inline: cache."""
        mode = notebooks if self.execution_mode == "auto" else self.execution_mode
        return "cache" if mode in ("auto", "inline") else mode

    def example_timeout(self, notebooks: int | None) -> int | None:
        """The seconds one example may run (None: no limit); unset, ``nb_execution_timeout``."""
        if self.timeout is not None:
            return self.timeout
        return notebooks if notebooks is not None and notebooks > 0 else None

    def spec(self, module: str) -> ModuleSpec:
        """The spec of a listed module, or the defaults of one the command line names."""
        return next((s for s in self.modules if s.name == module), ModuleSpec.from_value(module))
