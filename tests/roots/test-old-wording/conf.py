import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext"]
flax_errors_modules = ["flax.errors"]
# A catalogue documented against an older Flax, whose message read differently.
flax_errors_catalogue_dir = "old_catalogue"
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
