"""Exact repairs to the broken examples of Flax's own docstrings, made by ``export``.

``flax-errors export`` keeps Flax's prose and code blocks as they are and adds the
catalogue's examples (:mod:`flax_errors_ext.model.export.docstrings`). A few of Flax's code
blocks cannot run as written, or do not render as code; each :class:`DocstringFix`
here replaces one exact text of one class's docstring (every occurrence of it) with
the text that makes the block right. Nothing is guessed: a fix whose text Flax no
longer has is reported at the docstring's ``file:line``, so that it is reviewed
rather than silently dropped.

The texts are those of the docstring as ``inspect.cleandoc`` gives it (indented
relative to the docstring, not to the file). Each ``why`` says what was wrong and
what was measured.
"""

from __future__ import annotations

import dataclasses


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


FLAX_FIXES = (
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
        "    y = fn(root, *args, **kwargs)\n    # Here root is valid.\n  # Here root is invalid.",
        why="The code after ``::`` is not indented, so reST finds no literal block "
        "('Literal block expected; none found') and shows the code as a definition list.",
    ),
)
"""The repairs ``flax-errors export`` makes in ``flax/errors.py``."""
