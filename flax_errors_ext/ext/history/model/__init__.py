"""What the history shows of a module: each error's cells and line, its retired errors."""
