"""End to end: ``python -m bot`` and the session layer as real processes, killed and restarted."""
