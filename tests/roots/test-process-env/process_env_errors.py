"""An error whose good example looks at what its process's environment holds."""


class CacheSharedError(Exception):
    """Raised when a process has no compilation cache to share.

    Bad example:

      >>> import process_env_errors
      >>> raise process_env_errors.CacheSharedError("none")
      Traceback (most recent call last):
        ...
      process_env_errors.CacheSharedError: none

    Good example:

      The entry's process shares JAX's compilation cache, in the build's folder:

      >>> import os
      >>> print(os.environ["JAX_COMPILATION_CACHE_DIR"].endswith("jax_cache"))
      True
      >>> print(os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"])
      0
    """
