"""Import the modules a project lists and read their catalogue files."""
