import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext", "failing_autodoc_handler", "sphinx_reredirects"]
flax_errors_modules = ["compat_errors"]
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
# A page that moved: its old path forwards to the new one (the project loads
# sphinx-reredirects for redirects of its own).
redirects = {"moved/compat": "../api_reference/compat_errors.html"}
