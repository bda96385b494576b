"""The extras, each an extension a project lists, joining the build by the core's events.

The export is a ``flax-errors`` command instead.
"""
