import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["myst_nb", "flax_errors_ext"]
flax_errors_modules = ["unexecuted_errors"]
# The project's notebooks are shown as saved; the catalogue's entries still run.
nb_execution_mode = "off"
flax_errors_execution_mode = "cache"
exclude_patterns = ["_build"]
