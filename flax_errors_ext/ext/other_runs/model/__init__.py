"""Other stacks' and devices' runs of the catalogue, compared with this build's."""
