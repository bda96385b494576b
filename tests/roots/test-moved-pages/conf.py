import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext", "flax_errors_ext.ext.history"]
# Its errors link to their upstream site, whose page one past release printed moved.
flax_errors_modules = [{"module": "moved_errors", "upstream": "https://up.example/en"}]
flax_errors_history = ["history.json"]
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
