import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext"]
flax_errors_modules = ["output_limit_errors"]
nb_execution_mode = "cache"
# Small, so that the test is fast; the examples print and raise 300 KB.
flax_errors_output_limit = 500

exclude_patterns = ["_build"]
