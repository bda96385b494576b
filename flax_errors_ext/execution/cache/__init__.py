"""The execution cache: each entry's raw run, and what it is keyed and trusted on."""
