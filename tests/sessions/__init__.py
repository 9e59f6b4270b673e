"""The session layer: lobby, play, timers, take-backs, hints, several workers."""
