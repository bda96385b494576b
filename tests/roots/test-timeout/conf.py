import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext"]
flax_errors_modules = ["timeout_errors"]
nb_execution_mode = "cache"
# No flax_errors_timeout: an example may run as long as a cell of a notebook.
nb_execution_timeout = 3
exclude_patterns = ["_build"]
