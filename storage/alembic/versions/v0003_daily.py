"""The daily deal: its secret seeds, the plays and their boards, the groups' posts.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"

_BIG = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_REAL: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
_LITE = {"sqlite_with_rowid": False}


def upgrade() -> None:
    """``sessions.daily`` (the day of a daily deal's table), the tables
    ``daily_deals``, ``daily_plays`` and ``daily_posts``, and the index of a group's
    members over ``results``."""
    with op.batch_alter_table("sessions") as table:
        table.add_column(sa.Column("daily", _BIG))
    op.create_table(
        "daily_deals",
        sa.Column("day", _BIG, primary_key=True, autoincrement=False),
        sa.Column("game", sa.Text(), primary_key=True),
        sa.Column("seed", _BIG, nullable=False),
        **_LITE,
    )
    op.create_table(
        "daily_plays",
        sa.Column("day", _BIG, primary_key=True, autoincrement=False),
        sa.Column("game", sa.Text(), primary_key=True),
        sa.Column("user_id", _BIG, primary_key=True),
        sa.Column("session", _BIG, sa.ForeignKey("sessions.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("started", _REAL, nullable=False),
        sa.Column("points", _REAL),
        sa.Column("standing", _REAL),
        sa.Column("finished", _REAL),
        **_LITE,
    )
    clause = sa.text("standing IS NOT NULL")
    op.create_index(
        "daily_plays_board", "daily_plays",
        ["day", "game", sa.text("standing DESC"), "finished", "user_id"],
        sqlite_where=clause, postgresql_where=clause,
    )
    op.create_index("daily_plays_user", "daily_plays", ["user_id", "day"])
    op.create_table(
        "daily_posts",
        sa.Column("day", _BIG, primary_key=True, autoincrement=False),
        sa.Column("chat_id", _BIG, primary_key=True),
        sa.Column("owner", sa.Text()),
        sa.Column("posted", _REAL),
        **_LITE,
    )
    op.create_index("results_members", "results", ["chat_id", "user_id"])
