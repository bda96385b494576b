"""The catalogue as records: what an entry is, read from docstrings and catalogue files."""
