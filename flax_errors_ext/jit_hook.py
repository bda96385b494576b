"""Turn JAX's errors about Linen Modules in transformations into :class:`JitPytreeError`.

JAX looks a traced value's type up, along its MRO, in ``core.pytype_aval_mappings``
before it falls back to duck typing on ``dtype`` (how ``nn.Dense`` passes for an
array). :func:`install` registers a handler for :class:`flax.linen.Module` there
that raises the error: Modules stay leaves, arrays never reach it, and only the
error path pays for the frame inspection below (docs/jit_pytree_error_design.md).

Importing this module changes nothing; jax and flax are imported by :func:`install`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from types import FrameType

__all__ = ["install", "uninstall"]

_MISSING: Final = object()
"""Marks that JAX had no entry for Module before :func:`install`."""

_prior: object = None
"""JAX's entry for Module before :func:`install` (or ``_MISSING``); None when not installed."""

# Callers that ask "is this an array?" and read a TypeError as "no": for a Module
# that answer is right and they carry on (e.g. ``jax.debug.print("{}", module)``
# treats the module as a static value), so they must get a TypeError, not our error.
_PROBES: Final = frozenset(
    {
        ("jax._src.debugging", "_split_callback_args"),
        ("jax._src.api", "_get_spec"),
        ("jax._src.api", "_get_argument_type"),
        ("jax._src.numpy.indexing", "_is_boolean_index"),
    }
)
_ABSTRACTIFIERS: Final = frozenset(
    {("jax._src.core", "shaped_abstractify"), ("jax._src.core", "typeof")}
)
_VMAP_SEARCH_DEPTH: Final = 8


def install() -> None:
    """Raise :class:`~flax_errors_ext.errors.JitPytreeError` for Modules; idempotent."""
    global _prior  # noqa: PLW0603 - the hook is process-wide state by nature
    if _prior is not None:
        return
    from flax import linen as nn
    from jax._src import core

    # Imported now so that the handler, which runs mid-trace, never imports.
    import flax_errors_ext.errors  # noqa: F401

    _prior = core.pytype_aval_mappings.get(nn.Module, _MISSING)
    core.pytype_aval_mappings[nn.Module] = _raise_for_module


def uninstall() -> None:
    """Restore JAX's handling of Modules; idempotent. A handler set since is left alone."""
    global _prior  # noqa: PLW0603 - the hook is process-wide state by nature
    if _prior is None:
        return
    from flax import linen as nn
    from jax._src import core

    if core.pytype_aval_mappings.get(nn.Module) is _raise_for_module:
        if _prior is _MISSING:
            del core.pytype_aval_mappings[nn.Module]
        else:
            core.pytype_aval_mappings[nn.Module] = _prior  # type: ignore[assignment]
    _prior = None


def _raise_for_module(module: Any) -> Any:
    """The ``pytype_aval_mappings`` entry for Module: never returns."""
    # The error deliberately does not subclass TypeError, although JAX's own
    # errors here are TypeErrors: most call sites on this path catch TypeError and
    # re-raise a generic TypeError of their own (jit's argument check, primitive
    # binding, the output checks of jit and vmap, and core.valid_jaxtype, which
    # grad and vmap use), and ours would be lost. The few callers that use a
    # TypeError to mean "not an array, treat it otherwise" get one (see _PROBES).
    from flax_errors_ext.errors import JitPytreeError

    # The frame that called ``core.typeof``/``shaped_abstractify``.
    frame = sys._getframe(1)
    caller = frame.f_back if _where(frame) in _ABSTRACTIFIERS else None
    if caller is not None and _where(caller) in _PROBES:
        raise TypeError(f"{type(module).__name__} is a Linen Module, not a JAX type")
    raise JitPytreeError(type(module), _arg_path(module, caller))


def _where(frame: FrameType) -> tuple[str, str]:
    return frame.f_globals.get("__name__", ""), frame.f_code.co_name


def _arg_path(module: object, caller: FrameType | None) -> str | None:
    """The argument's path as JAX names it (e.g. ``batch['model']``), if JAX knows it.

    JAX computes the path only to word its own error, after the value failed, so it
    is read from the frames of the JAX function at hand. Anything unexpected there
    (JAX changed) yields None: no path is better than a wrong one.
    """
    try:
        if caller is not None and _where(caller) == ("jax._src.pjit", "_infer_input_type"):
            return _jit_arg_path(module, caller)
        return _vmap_arg_path(module, caller)
    except Exception:  # best effort on an error path: never mask the error being raised
        return None


def _jit_arg_path(module: object, frame: FrameType) -> str | None:
    # jit (and eval_shape) abstractify the flat arguments in a loop over
    # ``enumerate(explicit_args)``; ``dbg_fn().arg_names`` is aligned with it.
    f_locals = frame.f_locals
    index, dbg_fn = f_locals.get("i"), f_locals.get("dbg_fn")
    if f_locals.get("x") is not module or not isinstance(index, int) or not callable(dbg_fn):
        return None
    return _name_at(dbg_fn(), index)


def _vmap_arg_path(module: object, frame: FrameType | None) -> str | None:
    # vmap checks mapped arguments inside ``vmap_f``, which holds the flat
    # arguments, their axes and the debug info that names them. The walk stays
    # inside JAX so that an outer vmap is never credited with an inner error.
    for _ in range(_VMAP_SEARCH_DEPTH):
        if frame is None or not _where(frame)[0].startswith("jax._src."):
            return None
        if _where(frame) == ("jax._src.api", "vmap_f"):
            break
        frame = frame.f_back
    else:
        return None
    f_locals = frame.f_locals
    args_flat, axes_flat = f_locals.get("args_flat"), f_locals.get("in_axes_flat")
    if not isinstance(args_flat, list) or not isinstance(axes_flat, list | tuple):
        return None
    found = [k for k, arg in enumerate(args_flat) if arg is module]
    # Only a mapped module is an error for vmap; an unmapped one here means the
    # error comes from something vmap called.
    if len(found) != 1 or len(axes_flat) != len(args_flat) or axes_flat[found[0]] is None:
        return None
    return _name_at(f_locals.get("dbg"), found[0], expected_len=len(args_flat))


def _name_at(dbg: Any, index: int, expected_len: int | None = None) -> str | None:
    names = getattr(dbg, "arg_names", None)
    if not isinstance(names, tuple) or not 0 <= index < len(names):
        return None
    if expected_len is not None and len(names) != expected_len:
        return None
    name = names[index]
    return name if isinstance(name, str) and name else None
