"""Storage: the store contract on both backends, opening, copying, query plans."""
