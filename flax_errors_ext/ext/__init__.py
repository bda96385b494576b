"""The extras: extensions a project lists, joining the build by the core's events; the export."""
