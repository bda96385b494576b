import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext", "flax_errors_ext.ext.other_runs"]
flax_errors_modules = ["device_errors"]
# A run of the same catalogue on a GPU (its errors.json), set beside this build's.
flax_errors_device_runs = ["runs/gpu.json"]
nb_execution_mode = "cache"
exclude_patterns = ["_build", "runs"]
