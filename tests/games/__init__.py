"""Rules of every game: each engine, the engine contract, golden transcripts."""
