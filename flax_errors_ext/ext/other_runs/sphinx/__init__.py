"""The extra's Sphinx glue: the runs read into the build, shown beside each entry."""
