"""``nox -s flax_suite``: Flax's own tests, run plain and with the jit hook, compared."""
