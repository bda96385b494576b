import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext", "sphinx_autodoc_typehints"]
flax_errors_modules = ["typehints_errors"]
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
# Entries in prose only, to show their signatures: no examples to run.
suppress_warnings = ["flax-errors.undocumented"]
