"""Sphinx configuration of the flax-errors site (source directory: docs/)."""

from __future__ import annotations

project = "flax-errors"
author = "The flax-errors authors"
copyright = "2026, the flax-errors authors"

extensions = ["flax_errors_ext"]

flax_errors_modules = ["flax_errors_ext.errors", "flax.errors"]
flax_errors_timeout = 120

# Every catalogue entry runs in its own kernel; outputs are cached per entry and
# keyed on versions, device and runtime sources as well as the code.
nb_execution_mode = "cache"

exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence"]
html_theme = "alabaster"
html_title = "flax-errors"
# The build must work offline: no intersphinx, no remote assets.
intersphinx_mapping: dict[str, tuple[str, None]] = {}

# Entries show the constructor signature through sphinx-autodoc-typehints; keep the
# types in the signature, since the entry renders the docstring itself.
typehints_use_signature = True
typehints_use_signature_return = True
