"""Helpers the tests share: the fake Bot API and the harness that runs the bot against it,
the PostgreSQL server, and small helpers several test modules use."""
