"""Flax's own doctests of flax/errors.py as ``flax-errors export`` patches it."""
