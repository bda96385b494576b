"""What the site says and links: texts, areas, inventories, frame links, moved pages."""
