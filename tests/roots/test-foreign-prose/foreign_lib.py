"""A library whose docstrings this project cannot edit: references and code of its own."""


class LinkedError(Exception):
    """Raised when a module is used unbound: call :meth:`Module.apply() <flax.linen.Module.apply>`.

    Transform it with :func:`~jax.jit` or :func:`nn.vmap <flax.linen.vmap>`. A short
    :func:`jit` could be JAX's or Flax's, :func:`their.own.function` is nowhere, and
    :class:`numpy.ndarray` is not JAX's.

    The library writes some of its code as a literal block::

      model = Model()
      model.apply(variables, inputs)

    .. code-block:: python

      wrapped = jax.jit(model.apply)

    and some as doctests, which run:

      >>> print(1 + 1)
      2

    except the ones doctest skips:

      >>> print("skipped")  # doctest: +SKIP
      skipped
    """
