"""Other stacks' and devices' committed runs: the lock, their checks, the device runner."""
