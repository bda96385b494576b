"""Sphinx configuration of the flax-errors site (source directory: docs/)."""

from __future__ import annotations

project = "flax-errors"
author = "The flax-errors authors"
copyright = "2026, the flax-errors authors"

# sphinx-autodoc-typehints: the types of each entry's constructor, as its options say.
extensions = [
    "flax_errors_ext",
    # The extras this site shows: each error across Flax's releases, other stacks'
    # and devices' runs beside each entry (in this order under an entry), and a
    # pasted error text found in the search.
    "flax_errors_ext.ext.history",
    "flax_errors_ext.ext.other_runs",
    "flax_errors_ext.ext.search",
    "sphinx_copybutton",
    "sphinx_autodoc_typehints",
]

# Our error, Flax's, and JAX's (at errors.html#jax.errors.<Name>, where JAX's links
# point). Their classes' base classes have no examples and are left out. Then the
# errors Flax and JAX raise as builtin exceptions, one message entry each
# (flax_errors_ext/catalogue/flax.messages/ and jax.messages/).
flax_errors_modules = [
    "flax_errors_ext.errors",
    "flax.errors",
    "jax.errors",
    "flax.messages",
    "jax.messages",
]
flax_errors_timeout = 120
# JAX's docstrings carry doctests of their own, written for JAX's doctest setup (which
# imports jax for them); their verdicts are shown on each entry, never failing the site.
flax_errors_upstream = "show"
# Runs of the catalogue on other devices and stacks, set beside this build's own on each
# entry ("Verified on CPU and on TPU v5e") and in errors.json: a TPU v5e
# (`python -m flax_errors_ext check --json --no-cache` there) and eight CPU devices
# (nox -s devices).
flax_errors_device_runs = [
    "flax_errors_ext/history/tpu-v5-lite.json",
    "flax_errors_ext/history/cpu-8-devices.json",
    # Each stack's run (nox -s lock): a build lists the others' beside its own,
    # worded by their versions ("and with flax 0.12.8, jax 0.10.2").
    "flax_errors_ext/history/python-3.11.json",
    "flax_errors_ext/history/python-3.13.json",
]

# Every catalogue entry runs in a process of its own; its run is cached per entry and
# keyed on versions, device and runtime sources as well as the code. The design
# notes are MyST-NB notebooks, which myst-nb executes and caches itself.
nb_execution_mode = "cache"
# A design note whose cell fails must fail the build: its claims rest on the cells.
nb_execution_raise_on_error = True
nb_execution_timeout = 300
# A cell's prints can reach the page as several stream outputs (the kernel flushes as
# it goes): shown as one, as they were printed.
nb_merge_streams = True

exclude_patterns = ["_build", "_build-*"]
myst_enable_extensions = ["colon_fence"]

# The theme Flax's own documentation uses, so that readers arriving from a Flax
# traceback find their way around.
html_theme = "sphinx_book_theme"
html_title = "flax-errors"
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 1,
    "use_download_button": False,
    "use_fullscreen_button": False,
    # One search box, in the sidebar, as on Flax's site.
    "navbar_persistent": [],
}
html_last_updated_fmt = "%Y-%m-%d %H:%M UTC"
# The build must work offline: no intersphinx, no remote assets. The entries' links to
# Flax's, JAX's and Python's docs come from the Sphinx inventories the package ships
# (flax_errors_ext/inventory/), read from disk and only inside the entries.
intersphinx_mapping: dict[str, tuple[str, None]] = {}

# Copy buttons copy the code only: no >>> / ... prompts and no output lines, so what
# lands on the clipboard runs as it is.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_remove_prompts = True
