"""A module's page and an entry's: each module run once per build, its entries' sections."""
