"""A small library with errors of its own, laid out as the README tells a new user."""
