import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext"]
# Its errors link to their upstream site, as JAX's do; one release moved the page.
flax_errors_modules = [{"module": "linked_errors", "upstream": "https://up.example/en"}]
nb_execution_mode = "cache"

exclude_patterns = ["_build"]
