import os
import sys

import flax.errors

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extensions = ["flax_errors_ext"]
# Only ScopeParamShapeError, documented against an older Flax whose message read
# differently: the project's catalogue file wins over the shipped one.
flax_errors_modules = [
    {
        "module": "flax.errors",
        "exclude": [name for name in dir(flax.errors) if name != "ScopeParamShapeError"],
    }
]
flax_errors_catalogue_dirs = "old_catalogue"
nb_execution_mode = "cache"
exclude_patterns = ["_build"]
