# The Sphinx configuration of a project that has just adopted flax_errors_ext,
# written from the README's "Using the Sphinx extension" alone.
import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "mylib"
extensions = ["sphinx.ext.autodoc", "flax_errors_ext"]
flax_errors_modules = ["mylib.errors"]
flax_errors_base_url = "https://mylib.example.org/errors"
html_theme = "alabaster"
