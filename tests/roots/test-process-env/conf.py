import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext"]
flax_errors_modules = ["process_env_errors"]
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
