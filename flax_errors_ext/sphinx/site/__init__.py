"""Pages drawn from the whole catalogue: the index, figures, options, CLI reference."""
