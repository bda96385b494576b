"""The catalogue directive: one section per error, its examples, other projects' prose."""
