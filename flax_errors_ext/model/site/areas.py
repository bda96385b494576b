"""How the catalogue is organised for readers: areas, related errors, design notes.

Pure data, so that reorganising the site is an edit here and nothing else. Every
name is an error's full dotted name. An error missing from :data:`AREAS` (one that
Flax adds tomorrow) is still listed, under :data:`OTHER`; another library's errors
under their module's area.
"""

from __future__ import annotations

from collections import defaultdict

OTHER = "Other"

_FLAX = "flax.errors."
_OURS = "flax_errors_ext.errors."

_BY_AREA: dict[str, tuple[str, ...]] = {
    "Module definition": (
        "AssignSubModuleError",
        "CallCompactUnboundModuleError",
        "CallSetupUnboundModuleError",
        "CallShareScopeOnUnboundModuleError",
        "CallUnbindOnUnboundModuleError",
        "DescriptorAttributeError",
        "IncorrectPostInitOverrideError",
        "InvalidInstanceModuleError",
        "MultipleMethodsCompactError",
        "NameInUseError",
        "ReservedModuleAttributeError",
        "SetAttributeFrozenModuleError",
        "SetAttributeInModuleSetupError",
    ),
    "Scopes and variables": (
        "ApplyModuleInvalidMethodError",
        "ApplyScopeInvalidVariablesStructureError",
        "ApplyScopeInvalidVariablesTypeError",
        "InvalidFilterError",
        "InvalidRngError",
        "InvalidScopeError",
        "LazyInitError",
        "ModifyScopeVariableError",
        "ScopeCollectionNotFound",
        "ScopeParamNotFoundError",
        "ScopeParamShapeError",
        "ScopeVariableNotFoundError",
    ),
    "Transforms": (
        "JaxTransformError",
        "PartitioningUnspecifiedError",
        "TransformTargetError",
        "TransformedMethodReturnValueError",
    ),
    "Checkpointing and files": (
        "AlreadyExistsError",
        "InvalidCheckpointError",
        "MPACheckpointingRequiredError",
        "MPARestoreDataCorruptedError",
        "MPARestoreTargetRequiredError",
    ),
    "Cursors": ("CursorFindError", "TraverseTreeError"),
    "NNX": ("ImmutableVariableError", "TraceContextError"),
}

AREAS: dict[str, str] = {
    **{_FLAX + name: area for area, names in _BY_AREA.items() for name in names},
    _OURS + "JitPytreeError": "Errors added by flax-errors",
}
"""The area of each error, by full dotted name."""

MODULE_AREAS: dict[str, str] = {"jax.errors": "JAX: tracing and transformations"}
"""The area of every error of a module whose errors are not sorted one by one."""

AREA_ORDER: tuple[str, ...] = (
    *_BY_AREA,
    *MODULE_AREAS.values(),
    "Errors added by flax-errors",
    OTHER,
)
"""The order areas appear in on the index; any other area (a module's) comes after."""

_RELATED: tuple[tuple[str, ...], ...] = (
    # Calling into a Module that is not bound to variables.
    (
        "CallCompactUnboundModuleError",
        "CallSetupUnboundModuleError",
        "CallShareScopeOnUnboundModuleError",
        "CallUnbindOnUnboundModuleError",
        "InvalidScopeError",
    ),
    # Where attributes and submodules may be assigned.
    ("AssignSubModuleError", "SetAttributeFrozenModuleError", "SetAttributeInModuleSetupError"),
    ("ReservedModuleAttributeError", "NameInUseError"),
    ("ApplyModuleInvalidMethodError", "InvalidInstanceModuleError"),
    # What apply is given as variables.
    (
        "ApplyScopeInvalidVariablesStructureError",
        "ApplyScopeInvalidVariablesTypeError",
        "ScopeCollectionNotFound",
        "ScopeParamNotFoundError",
    ),
    ("ScopeParamNotFoundError", "ScopeParamShapeError"),
    # Which collections apply may change.
    ("InvalidFilterError", "ModifyScopeVariableError", "ScopeVariableNotFoundError"),
    # Modules and JAX transformations.
    (
        "JitPytreeError",
        "JaxTransformError",
        "TransformTargetError",
        "TransformedMethodReturnValueError",
    ),
    ("JitPytreeError", "TraceContextError"),
    (
        "InvalidCheckpointError",
        "MPACheckpointingRequiredError",
        "MPARestoreDataCorruptedError",
        "MPARestoreTargetRequiredError",
    ),
    ("AlreadyExistsError", "InvalidCheckpointError"),
    ("CursorFindError", "TraverseTreeError"),
    ("ImmutableVariableError", "TraceContextError"),
)
"""Groups of errors that readers confuse or meet together; each links to the others.
Each is named by its class, whose full name :data:`AREAS` gives."""

NOTES: dict[str, tuple[str, str]] = {
    _OURS + "JitPytreeError": (
        "jit_pytree_error_design",
        "Why JitPytreeError is not a pytree registration",
    ),
}
"""Design notes about an error: its docname and link text."""


def area_of(qualname: str) -> str:
    """The index area an error is listed under.

    An error of another library's module is listed under that module's name.
    """
    module = qualname.rpartition(".")[0]
    if qualname in AREAS:
        return AREAS[qualname]
    if module in MODULE_AREAS:
        return MODULE_AREAS[module]
    return OTHER if module == _FLAX.rstrip(".") else module


def area_rank(area: str) -> tuple[int, str]:
    """Where an area comes on the index: :data:`AREA_ORDER`, then any other by name."""
    return (AREA_ORDER.index(area), "") if area in AREA_ORDER else (len(AREA_ORDER), area)


def _related_map() -> dict[str, tuple[str, ...]]:
    full = {qualname.rpartition(".")[2]: qualname for qualname in AREAS}
    related: dict[str, set[str]] = defaultdict(set)
    for group in _RELATED:
        for name in group:
            related[name].update(other for other in group if other != name)
    return {full[name]: tuple(full[o] for o in sorted(others)) for name, others in related.items()}


RELATED: dict[str, tuple[str, ...]] = _related_map()
"""Each error's related errors, both ways round, sorted by class name."""


def related(qualname: str) -> tuple[str, ...]:
    """The errors an entry's "See also" names (some may not be in a given catalogue)."""
    return RELATED.get(qualname, ())
