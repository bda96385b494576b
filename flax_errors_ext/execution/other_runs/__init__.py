"""Runs kept beside the site's own: each stack's (``nox -s lock``) and other devices'."""
