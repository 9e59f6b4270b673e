"""Alembic's environment and revisions for Koloda's schema (run by :mod:`storage.migrate`)."""
