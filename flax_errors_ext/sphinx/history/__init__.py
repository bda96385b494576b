"""Each error across the recorded releases, drawn on the site."""
