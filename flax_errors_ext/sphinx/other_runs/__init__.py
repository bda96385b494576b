"""Other stacks' and devices' runs beside each entry (``flax_errors_device_runs``)."""
