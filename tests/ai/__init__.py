"""Computer players: search, policies, positions and the process pool."""
