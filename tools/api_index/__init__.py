"""Each release's public API, read from its released sources (``nox -s api_index``)."""
