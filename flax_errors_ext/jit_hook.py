"""Turn JAX's errors about Linen Modules in transformations into :class:`JitPytreeError`.

:func:`install` registers a handler for :class:`flax.linen.Module` in JAX's
``core.pytype_aval_mappings`` that raises the error (docs/jit_pytree_error_design.md):
only the error path pays for the frame inspection below. Importing this changes nothing.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from types import FrameType

__all__ = ["install", "uninstall"]

_MISSING: Final = object()
_prior: object = None
"""JAX's entry for Module before :func:`install` (``_MISSING``: none); None when not installed."""

# Callers that read a TypeError as "not an array" and carry on, rightly for a Module (e.g.
# ``jax.debug.print("{}", module)`` treats it as a static value): they get a TypeError.
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


# Above _raise_for_module, whose raise stays at the line the recorded runs name.
def _name_at(dbg: Any, index: int, expected_len: int | None = None) -> str | None:
    names = getattr(dbg, "arg_names", None)
    if not isinstance(names, tuple) or not 0 <= index < len(names):
        return None
    if expected_len is not None and len(names) != expected_len:
        return None
    name = names[index]
    return name if isinstance(name, str) and name else None


def _raise_for_module(module: Any) -> Any:
    # Not a TypeError, as JAX's own are here: most call sites on this path catch TypeError
    # and re-raise a generic one (jit's argument check, primitive binding, jit's and vmap's
    # output checks, core.valid_jaxtype for grad and vmap); only _PROBES get a TypeError.
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
    """The argument's path as JAX names it (``batch['model']``), or None: never a wrong one."""
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
    # vmap checks mapped arguments in ``vmap_f``, which holds the flat arguments, their axes
    # and the debug info naming them. The walk stays in JAX: an outer vmap is never credited.
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
