"""Seasons: the ratings of each calendar month, the champions' posts, and the index of
a chat's results by time (the season tally).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"

_BIG = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_REAL: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
_LITE = {"sqlite_with_rowid": False}


def upgrade() -> None:
    """The tables ``season_ratings`` and ``season_posts`` and the index
    ``results_chat_time``. The seasons start empty: the first start after the upgrade
    fills the past months' from the stored results (``sessions.rerate.fill_seasons``)."""
    op.create_table(
        "season_ratings",
        sa.Column("month", _BIG, primary_key=True, autoincrement=False),
        sa.Column("scope", _BIG, primary_key=True),
        sa.Column("game", sa.Text(), primary_key=True),
        sa.Column("user_id", _BIG, primary_key=True),
        sa.Column("mu", _REAL, nullable=False),
        sa.Column("sigma", _REAL, nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        **_LITE,
    )
    op.create_index(
        "season_ratings_order", "season_ratings",
        ["month", "scope", "game", sa.text("(mu - 3 * sigma) DESC"), sa.text("played DESC"),
         "user_id"],
    )
    op.create_table(
        "season_posts",
        sa.Column("month", _BIG, primary_key=True, autoincrement=False),
        sa.Column("chat_id", _BIG, primary_key=True),
        sa.Column("owner", sa.Text()),
        sa.Column("posted", _REAL),
        **_LITE,
    )
    op.create_index("results_chat_time", "results", ["chat_id", "time"])
