import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext", "sphinx_copybutton"]
flax_errors_modules = ["foreign_lib"]
flax_errors_catalogue_dirs = "catalogue"
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
