"""The extra's Sphinx glue: the history files read, the strips and matrices put on the pages."""
