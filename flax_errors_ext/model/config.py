"""The one typed configuration of the catalogue build.

Every field becomes a Sphinx config value named ``flax_errors_<field>``; its metadata
holds the help text and the validator, and the options page of the docs is
generated from it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

PREFIX = "flax_errors_"


def _module_list(value: Any) -> None:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise TypeError("must be a list of dotted module names")


def _positive_int(value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise TypeError("must be a positive whole number of seconds")


def _non_negative_int(value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TypeError("must be a whole number, 0 or more")


def _str(value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError("must be a string")


def _bool(value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError("must be True or False")


def _meta(
    help_text: str, validator: Callable[[Any], None], *, changes_pages: bool = True
) -> dict[str, Any]:
    """A field's metadata.

    ``changes_pages=False``: the setting only changes how fast the examples run, so
    changing it need not read any page again.
    """
    return {"help": help_text, "validator": validator, "changes_pages": changes_pages}


@dataclasses.dataclass(frozen=True)
class CatalogueConfig:
    """Settings of the catalogue build."""

    modules: list[str] = dataclasses.field(
        default_factory=list,
        metadata=_meta(
            "Dotted names of the modules whose FlaxError subclasses are catalogued. "
            "Each gets the page api_reference/<module>.html.",
            _module_list,
        ),
    )
    timeout: int = dataclasses.field(
        default=120,
        metadata=_meta(
            "Seconds one example may run before it is stopped and reported as timed out.",
            _positive_int,
        ),
    )
    jobs: int = dataclasses.field(
        default=0,
        metadata=_meta(
            "How many kernels one page runs at once; 0 means three for every two CPUs. Each "
            "entry still has a kernel of its own.",
            _non_negative_int,
            changes_pages=False,
        ),
    )
    warm_kernels: bool = dataclasses.field(
        default=True,
        metadata=_meta(
            "Fork each entry's kernel from a server that has already imported jax and "
            "flax, instead of starting every kernel from scratch. Still one fresh "
            "process per entry; Linux and macOS only.",
            _bool,
            changes_pages=False,
        ),
    )
    keep_kernel_server: int = dataclasses.field(
        default=0,
        metadata=_meta(
            "Seconds the warm kernel server stays, idle, after a build, so that the next "
            "build of the same output folder starts its kernels at once (it is reused "
            "only while nothing it imported has changed). 0 stops it with the build.",
            _non_negative_int,
            changes_pages=False,
        ),
    )
    compilation_cache: bool = dataclasses.field(
        default=True,
        metadata=_meta(
            "Share JAX's persistent compilation cache between the build's kernels "
            "(in _build/flax_errors/jax_cache), unless JAX_COMPILATION_CACHE_DIR is set.",
            _bool,
            changes_pages=False,
        ),
    )
    catalogue_dir: str = dataclasses.field(
        default="",
        metadata=_meta(
            "Folder of example files for error modules whose docstrings this project "
            "cannot edit: <folder>/<module>/<Class>.txt. Relative to conf.py; empty means "
            "the catalogue shipped with flax_errors_ext (Flax's errors).",
            _str,
        ),
    )
    strict: bool = dataclasses.field(
        default=False,
        metadata=_meta(
            "Fail the build when an error class has no examples (otherwise a warning).", _bool
        ),
    )

    @classmethod
    def options(cls) -> Iterator[tuple[str, Any, str]]:
        """``(config name, default, help)`` for every setting, in declaration order."""
        for field in dataclasses.fields(cls):
            default = field.default_factory() if callable(field.default_factory) else field.default
            yield PREFIX + field.name, default, field.metadata["help"]

    @classmethod
    def changes_pages(cls, name: str) -> bool:
        """Whether the setting called ``name`` can change what a page says."""
        (field,) = (f for f in dataclasses.fields(cls) if PREFIX + f.name == name)
        return bool(field.metadata["changes_pages"])

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> CatalogueConfig:
        """Validate ``flax_errors_*`` values (keyed by full name) into a config.

        Raises:
            ValueError: naming the first setting that is invalid and why.
        """
        kwargs: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            name = PREFIX + field.name
            if name not in values:
                continue
            try:
                field.metadata["validator"](values[name])
            except TypeError as error:
                raise ValueError(f"{name} {error}; got {values[name]!r}") from None
            kwargs[field.name] = list(values[name]) if field.name == "modules" else values[name]
        return cls(**kwargs)
