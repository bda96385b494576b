"""Other stacks' and devices' runs beside each entry."""
