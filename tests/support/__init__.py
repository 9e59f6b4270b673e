"""Helpers around the fake Bot API: running the real bot against it."""
