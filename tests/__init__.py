"""The test suite, one package per layer; helpers live in tests.support."""
