"""Pages drawn from the whole catalogue (index, figures, options, CLI)."""
