import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext", "flax_errors_ext.ext.history"]
flax_errors_modules = ["history_errors"]
# Its own history of history_errors, instead of the one shipped for flax.errors.
flax_errors_history = ["history.json"]
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
