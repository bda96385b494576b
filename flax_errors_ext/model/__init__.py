"""The model: the catalogue as data. No Sphinx, no processes, no files written."""
