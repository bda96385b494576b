"""``python -m flax_errors_ext``: the ``flax-errors`` command line."""

from flax_errors_ext.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
