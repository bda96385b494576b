"""The search's data, pure: the entries a paste may match and the rules it is matched by."""
