import os
import sys

# The library the entries document (demo_lib.py) is imported from here.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext"]
# A group of message entries: errors raised as builtin exceptions, no class of their
# own, one catalogue file each (catalogue/demo.messages/<Name>.txt).
flax_errors_modules = [{"module": "demo.messages", "messages": True}]
flax_errors_catalogue_dirs = "catalogue"
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
