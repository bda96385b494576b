"""The errors this project adds to Flax, each documented as a catalogue entry.

An error class's docstring is its catalogue entry: the Sphinx extension renders it
and runs its examples, and the build fails when an example no longer produces the
documented text. Its format, and a template for a new error, are in
``docs/contributing.md`` ("Adding one of our own errors").
"""

from __future__ import annotations

import sys
from typing import Any

from flax.errors import FlaxError

from flax_errors_ext.layout import entry_url

__all__ = ["JitPytreeError"]


class JitPytreeError(FlaxError):
    """A Linen Module was passed through a JAX transformation as if it were an array.

    JAX transformations such as :func:`jax.jit`, :func:`jax.grad` and
    :func:`jax.vmap` trace their arguments, and they can only trace arrays and
    pytrees of arrays. A Linen Module is neither: it is a frozen description of a
    layer (its fields are configuration such as ``features``), and its parameters
    live apart from it, in the variables that ``Module.init`` returns.

    Hand the module to the transformation as a constant instead: mark the argument
    static (``static_argnums`` or ``static_argnames``; Linen Modules are hashable),
    close over it with :func:`functools.partial`, or transform ``model.apply`` and
    pass the variables as the traced argument. Inside a Module, use Flax's lifted
    transforms such as :func:`flax.linen.jit`.

    JAX's own error here is a generic ``TypeError``, or for modules with a ``dtype``
    field (such as ``nn.Dense``) an ``AttributeError`` about a tracer;
    :func:`flax_errors_ext.install` turns both into this error.

    Bad example:

        A custom module passed to a jitted function as an ordinary argument.

        >>> import jax
        >>> import jax.numpy as jnp
        >>> import flax.linen as nn
        >>> import flax_errors_ext
        >>> flax_errors_ext.install()
        >>> class MLP(nn.Module):
        ...     @nn.compact
        ...     def __call__(self, x):
        ...         return nn.Dense(2)(x)
        >>> model = MLP()
        >>> x = jnp.ones((1, 3))
        >>> variables = model.init(jax.random.key(0), x)
        >>> def predict(model, variables, x):
        ...     return model.apply(variables, x)
        >>> jax.jit(predict)(model, variables, x)
        Traceback (most recent call last):
            ...
        flax_errors_ext.errors.JitPytreeError: Linen Module MLP was passed to a JAX
        transformation as argument `model`, where JAX expects arrays.
        A Linen Module is not a pytree of arrays: it holds the layer's configuration,
        and its parameters live in the variables that Module.init returns.
        To pass a module, do one of:
          - mark the argument static: jax.jit(f, static_argnums=...) or
            jax.jit(f, static_argnames=...) (Linen Modules are hashable);
          - close over the module: jax.jit(functools.partial(f, model));
          - transform the module's apply function: jax.jit(model.apply), passing
            the variables as the traced argument;
          - inside a Module, use Flax's lifted transforms, such as nn.jit.
        See https://flax-errors.readthedocs.io/en/latest/api_reference/flax_errors_ext.errors.html#flax_errors_ext.errors.JitPytreeError...

    Bad example:

        A built-in layer in a dict argument (without the hook, JAX takes ``nn.Dense``
        for an array, because it has a ``dtype`` field).

        >>> import jax
        >>> import jax.numpy as jnp
        >>> import flax.linen as nn
        >>> import flax_errors_ext
        >>> flax_errors_ext.install()
        >>> dense = nn.Dense(2)
        >>> x = jnp.ones((1, 3))
        >>> variables = dense.init(jax.random.key(0), x)
        >>> def predict(batch):
        ...     return batch["model"].apply(batch["variables"], batch["x"])
        >>> jax.jit(predict)({"model": dense, "variables": variables, "x": x})
        Traceback (most recent call last):
            ...
        flax_errors_ext.errors.JitPytreeError: Linen Module Dense was passed to a JAX
        transformation as argument `batch['model']`, where JAX expects arrays.
        A Linen Module is not a pytree of arrays: it holds the layer's configuration,
        and its parameters live in the variables that Module.init returns.
        To pass a module, do one of:
          - mark the argument static: jax.jit(f, static_argnums=...) or
            jax.jit(f, static_argnames=...) (Linen Modules are hashable);
          - close over the module: jax.jit(functools.partial(f, model));
          - transform the module's apply function: jax.jit(model.apply), passing
            the variables as the traced argument;
          - inside a Module, use Flax's lifted transforms, such as nn.jit.
        See https://flax-errors.readthedocs.io/en/latest/api_reference/flax_errors_ext.errors.html#flax_errors_ext.errors.JitPytreeError...

    Also seen as:

        Without :func:`flax_errors_ext.install` (or after ``uninstall()``), the same
        mistake raises JAX's own error, which never mentions Flax: under
        :func:`jax.jit`, and under :func:`jax.grad` (the message of Flax issue 853).

        >>> import jax
        >>> import jax.numpy as jnp
        >>> import flax.linen as nn
        >>> import flax_errors_ext
        >>> flax_errors_ext.uninstall()
        >>> class MLP(nn.Module):
        ...     @nn.compact
        ...     def __call__(self, x):
        ...         return nn.Dense(2)(x)
        >>> model = MLP()
        >>> x = jnp.ones((1, 3))
        >>> variables = model.init(jax.random.key(0), x)
        >>> def predict(model, variables, x):
        ...     return model.apply(variables, x)
        >>> jax.jit(predict)(model, variables, x)
        Traceback (most recent call last):
            ...
        TypeError: Error interpreting argument to <function predict at 0x...> as an
        abstract array. The problematic value is of type <class '...MLP'> and was passed
        to the function at path model.
        This typically means that a jit-wrapped function was called with a non-array
        argument, and this argument was not marked as static using the static_argnums
        or static_argnames parameters of jax.jit...
        >>> def loss(model, variables, x):
        ...     return model.apply(variables, x).sum()
        >>> jax.grad(loss)(model, variables, x)
        Traceback (most recent call last):
            ...
        TypeError: Argument 'MLP()' of type <class '...MLP'> is not a valid JAX type...

    Good example:

        Mark the Module argument static (``static_argnums`` or ``static_argnames``);
        it becomes a compile-time constant.

        >>> import jax
        >>> import jax.numpy as jnp
        >>> import flax.linen as nn
        >>> dense = nn.Dense(2)
        >>> x = jnp.ones((1, 3))
        >>> variables = dense.init(jax.random.key(0), x)
        >>> def predict(model, variables, x):
        ...     return model.apply(variables, x)
        >>> jax.jit(predict, static_argnums=0)(dense, variables, x).shape
        (1, 2)

    Good example:

        Close over the module with :func:`functools.partial`.

        >>> import functools
        >>> import jax
        >>> import jax.numpy as jnp
        >>> import flax.linen as nn
        >>> dense = nn.Dense(2)
        >>> x = jnp.ones((1, 3))
        >>> variables = dense.init(jax.random.key(0), x)
        >>> def predict(model, variables, x):
        ...     return model.apply(variables, x)
        >>> jax.jit(functools.partial(predict, dense))(variables, x).shape
        (1, 2)

    Good example:

        Transform the module's ``apply`` method; only the variables and inputs are
        traced.

        >>> import jax
        >>> import jax.numpy as jnp
        >>> import flax.linen as nn
        >>> dense = nn.Dense(2)
        >>> x = jnp.ones((1, 3))
        >>> variables = dense.init(jax.random.key(0), x)
        >>> jax.jit(dense.apply)(variables, x).shape
        (1, 2)
    """

    def __init__(self, module_type: type | str, arg_path: str | None = None) -> None:
        self.module_type = module_type
        self.arg_path = arg_path
        # FlaxError.__init__ would append a link to Flax's own error page, which has
        # no entry for this error; ours points at this project's catalogue instead.
        name = module_type if isinstance(module_type, str) else module_type.__name__
        where = f" as argument `{arg_path}`" if arg_path else ""
        Exception.__init__(
            self,
            f"Linen Module {name} was passed to a JAX transformation{where}, "
            "where JAX expects arrays.\n"
            "A Linen Module is not a pytree of arrays: it holds the layer's configuration,\n"
            "and its parameters live in the variables that Module.init returns.\n"
            "To pass a module, do one of:\n"
            "  - mark the argument static: jax.jit(f, static_argnums=...) or\n"
            "    jax.jit(f, static_argnames=...) (Linen Modules are hashable);\n"
            "  - close over the module: jax.jit(functools.partial(f, model));\n"
            "  - transform the module's apply function: jax.jit(model.apply), passing\n"
            "    the variables as the traced argument;\n"
            "  - inside a Module, use Flax's lifted transforms, such as nn.jit.\n"
            f"See {entry_url(f'{__name__}.JitPytreeError')}",
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # FlaxError.__reduce__ rebuilds a plain FlaxError. This keeps the class and the exact
        # message: the URL's base is read from the environment, which may differ there.
        return (type(self), (_picklable(self.module_type), self.arg_path), {"args": self.args})


def _picklable(module_type: type | str) -> type | str:
    # A class pickle cannot find (one defined in a function) is sent by name: errors must pickle.
    if isinstance(module_type, str):
        return module_type
    found: object = sys.modules.get(module_type.__module__)
    for part in module_type.__qualname__.split("."):
        found = getattr(found, part, None)
    return module_type if found is module_type else module_type.__name__
