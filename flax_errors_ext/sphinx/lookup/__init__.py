"""Finding an entry from the site's search."""
