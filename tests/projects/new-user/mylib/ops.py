"""Element-wise operations on nested lists."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mylib.errors import ShapeMismatchError, UnknownActivationError


def _shape(value: Any) -> tuple[int, ...]:
    return (len(value), *_shape(value[0])) if isinstance(value, list) else ()


def add(left: Any, right: Any) -> Any:
    if _shape(left) != _shape(right):
        raise ShapeMismatchError(_shape(left), _shape(right))
    if isinstance(left, list):
        return [add(a, b) for a, b in zip(left, right)]
    return left + right


_ACTIVATIONS: dict[str, Callable[[float], float]] = {
    "relu": lambda x: max(x, 0.0),
    "tanh": lambda x: __import__("math").tanh(x),
}


def activation(name: str) -> Callable[[float], float]:
    if name not in _ACTIVATIONS:
        raise UnknownActivationError(
            f"unknown activation {name!r}; choose one of: {', '.join(_ACTIVATIONS)}"
        )
    return _ACTIVATIONS[name]
