"""The Mini App's open pages, known to every worker: a worker holds back a player's
hand edits while their page is open on any worker.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"

_BIG: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_REAL: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
_LITE = {"sqlite_with_rowid": False}


def upgrade() -> None:
    """The table ``open_pages``: a session, a user with a page of it open, the worker
    that serves the page, and until when the row stands unless refreshed."""
    op.create_table(
        "open_pages",
        sa.Column("session", _BIG, primary_key=True, autoincrement=False),
        sa.Column("user_id", _BIG, primary_key=True, autoincrement=False),
        sa.Column("worker", sa.Text(), primary_key=True),
        sa.Column("until", _REAL, nullable=False),
        **_LITE,
    )
