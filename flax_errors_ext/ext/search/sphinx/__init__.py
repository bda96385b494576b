"""The extra's Sphinx glue: the search page's scripts and the data files they read."""
