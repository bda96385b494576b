"""``nox -s flax_docs``: Flax's own documentation, with flax_errors_ext adopted and without."""
