"""Finding the entry a person means, from a name, a URL or a pasted message."""
