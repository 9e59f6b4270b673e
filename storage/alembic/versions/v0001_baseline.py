"""The schema as Alembic found it: the last of the legacy steps (SQLite's 11,
PostgreSQL's 9, each finished by :mod:`storage.legacy`), which is also what
:data:`storage.schema.METADATA` creates for a fresh database.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

revision = "0001"
down_revision: str | None = None


def upgrade() -> None:
    """Nothing to do: a database reaches this revision by being stamped."""
