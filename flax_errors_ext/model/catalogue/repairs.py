"""Exact repairs to the wrong text of a library's own docstrings, on the site and in export.

A :class:`DocstringFix` replaces one exact text of one class's docstring (every
occurrence) with the right one. Nothing is guessed: a repair whose text the library
no longer has is reported at the docstring's ``file:line``; one made already is left
as it is. The texts are those of ``inspect.cleandoc``, and a repair keeps the number
of lines, so that every later line keeps its ``file:line``. Each ``why`` says what
was wrong and measured.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.parse import cleandoc_lines

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

REPAIRS_FILE = "flax_errors_ext/model/catalogue/repairs.py"
"""Where a stale repair is to be reviewed, as the reports name it."""


@dataclasses.dataclass(frozen=True)
class DocstringFix:
    """One exact substitution in one class's docstring."""

    name: str
    """The class whose docstring it is made in."""
    old: str
    """The exact text replaced; never a part of ``new``, so that a second export
    finds it made already (``new`` present, ``old`` gone)."""
    new: str
    why: str

    def __post_init__(self) -> None:
        if not self.old or self.old in self.new:
            raise ValueError(f"a repair of {self.name} must replace text that it does not keep")
        if self.old.count("\n") != self.new.count("\n"):
            raise ValueError(
                f"a repair of {self.name} must keep the number of lines, so that the "
                "docstring's later lines keep their file:line"
            )

    def stale_message(self) -> str:
        """What a report says when the docstring holds neither text."""
        return (
            f"{self.name}: a repair is not made, its docstring no longer holds "
            f"{self.old!r}; review it in {REPAIRS_FILE}"
        )


def repaired(text: str, fixes: Sequence[DocstringFix]) -> tuple[str, tuple[DocstringFix, ...]]:
    """``text`` with every repair made, and the repairs it holds neither text of.

    A repair whose ``new`` text is there and ``old`` is not was made already: it is
    not stale. One that only deletes (``new`` empty) is stale once ``old`` is gone.
    """
    stale = []
    for fix in fixes:
        if fix.old in text:
            text = text.replace(fix.old, fix.new)
        elif not fix.new or fix.new not in text:
            stale.append(fix)
    return text, tuple(stale)


def repaired_docstring(
    docstring: str, fixes: Sequence[DocstringFix]
) -> tuple[str, tuple[DocstringFix, ...]]:
    """A ``__doc__`` with the repairs made, and the stale repairs.

    Where a repair is made, the docstring comes back dedented as the repairs are
    written, every line kept, so that line ``n`` of it is still line ``n`` of the docstring.
    """
    cleaned = "\n".join(cleandoc_lines(docstring))
    text, stale = repaired(cleaned, fixes)
    return (docstring if text == cleaned else text), stale


DOCSTRING_FIXES: Mapping[str, tuple[DocstringFix, ...]] = {
    "flax.errors": (
        DocstringFix(
            "SetAttributeInModuleSetupError",
            old="SomeModule(",
            new="Foo(",
            why="Both code blocks define ``Foo`` and then call ``SomeModule``, which nothing "
            "defines: a NameError, not the error shown. With ``Foo`` the first block raises "
            "SetAttributeInModuleSetupError and the second runs (flax 0.12.8).",
        ),
        DocstringFix(
            "CallSetupUnboundModuleError",
            old="self.submodule = MySubModule()",
            new="self.submodule = nn.Dense(3)",
            why="``MySubModule`` is defined nowhere, so ``setup()`` could never have run. With "
            "a Dense layer, ``module.setup()`` raises CallSetupUnboundModuleError (with the "
            "text of the compact-method error, which the bad example documents) and the "
            "``nn.apply`` block returns the Dense layer (flax 0.12.8).",
        ),
        DocstringFix(
            "InvalidScopeError",
            old="created::\n\nwith Scope(variables, rngs=rngs).temporary() as root:\n"
            "  y = fn(root, *args, **kwargs)\n  # Here root is valid.\n# Here root is invalid.",
            new="created::\n\n  with Scope(variables, rngs=rngs).temporary() as root:\n"
            "    y = fn(root, *args, **kwargs)\n    # Here root is valid.\n"
            "  # Here root is invalid.",
            why="The code after ``::`` is not indented, so reST finds no literal block "
            "('Literal block expected; none found') and shows the code as a definition list.",
        ),
        DocstringFix(
            "ScopeParamShapeError",
            old="(``(5, 5, 1)``) is different from the init shape (``(5, 5``)",
            new="(``(5, 5)``) is different from the init shape (``(5, 5, 1)``)",
            why="The prose swaps the two shapes (and leaves the second unclosed): the code "
            "block below it initializes with ``jnp.ones((5, 5, 1))`` and applies with "
            "``jnp.ones((5, 5))``. Run as written (with ``lecun_normal`` from "
            "``jax.nn.initializers``), it raises ScopeParamShapeError: the initializer is "
            "expected to generate (5, 8), the existing kernel has (1, 8), as the prose's "
            "next sentence says (flax 0.12.8 and 0.12.12).",
        ),
        DocstringFix(
            "ScopeParamShapeError",
            old="which results in this error.::",
            new="which results in this error::",
            why="reST keeps one colon of a ``::`` that follows text, so the sentence was "
            "shown ending in '.:'.",
        ),
        DocstringFix(
            "NameInUseError",
            old="nn.Dense(feature=3",
            new="nn.Dense(features=3",
            why="``nn.Dense`` has no ``feature`` field: the three calls that show sharing "
            "raise ``TypeError: Dense.__init__() got an unexpected keyword argument "
            "'feature'`` before any name is reused (flax 0.12.8 and 0.12.12).",
        ),
        DocstringFix(
            "AssignSubModuleError",
            old="x``nn.compact``",
            new="``nn.compact``",
            why="A stray ``x`` before the literal: reST shows 'xnn.compact'.",
        ),
        DocstringFix(
            "InvalidInstanceModuleError",
            old="class instead of\n  instance.",
            new="class instead of\n  # instance.",
            why="The comment after ``B.apply(vs, x)`` wraps onto a line of its own, so the "
            "code block holds ``instance.`` as a statement (a SyntaxError if run).",
        ),
        DocstringFix(
            "AlreadyExistsError",
            old="existing files in.",
            new="existing files.",
            why="The sentence ends in a stray 'in'.",
        ),
        DocstringFix(
            "MPACheckpointingRequiredError",
            old="from jax.experimental.gda_serialization import serialization as gdas",
            new="from jax.experimental.array_serialization import serialization as gdas",
            why="``jax.experimental.gda_serialization`` does not exist (ModuleNotFoundError "
            "on jax 0.10.2 and 0.12); ``GlobalAsyncCheckpointManager`` is in "
            "``jax.experimental.array_serialization.serialization``, where "
            "``flax/training/checkpoints.py`` imports it from (flax 0.12.8 and 0.12.12).",
        ),
        DocstringFix(
            "MPACheckpointingRequiredError",
            old="save_checkpoint(..., gda_manager=gda_manager)",
            new="save_checkpoint_multiprocess(..., gda_manager=gda_manager)",
            why="``save_checkpoint`` takes no ``gda_manager`` (a TypeError); "
            "``save_checkpoint_multiprocess`` and ``restore_checkpoint`` do "
            "(``flax/training/checkpoints.py``, flax 0.12.8 and 0.12.12).",
        ),
    ),
    "jax.errors": (
        DocstringFix(
            "NonConcreteBooleanIndexError",
            old="unless `x` is marked as static, and so",
            new="because it depends on the values in `x`, and so",
            why="An array cannot be marked static: ``jax.jit(lambda x: x[x > 0], "
            "static_argnums=0)`` called with ``jnp.arange(-5, 5)`` (or a NumPy array) raises "
            "``ValueError: Non-hashable static arguments are not supported`` (jax 0.10.2 and "
            "0.12.0.1, whose docstrings hold the same sentence).",
        ),
        DocstringFix(
            "UnexpectedTracerError",
            old="``When the Tracer was created, the final 5 stack frames were...``",
            new="``When the value was created, the final 5 stack frames ...``",
            why="The message it quotes says 'When the value was created, the final 5 stack "
            "frames (most recent last) excluding JAX-internal frames were:' "
            "(``jax/_src/core.py``, jax 0.10.2 and 0.12.0.1); no release we run prints "
            "'When the Tracer was created'.",
        ),
    ),
}
"""The repairs, by the module whose docstrings they are made in."""
