"""Read the recorded histories, and run a past release's examples (``nox -s history``)."""
