"""Forum topics: a group table is keyed by its chat and topic, waits while its topic
is closed, and is kept in /history when its topic is deleted.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"

_OPEN_GROUP = "kind = 'group' AND status IN ('lobby', 'running')"
_HISTORY = "status = 'finished' OR topic_state = 'gone'"


def upgrade() -> None:
    """``sessions.thread`` (0: no topic) and ``sessions.topic_state``; one open table
    per chat and topic instead of per chat; /history's index takes the tables ended by
    their topic's deletion."""
    with op.batch_alter_table("sessions") as table:
        table.add_column(sa.Column("thread", sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                                   nullable=False, server_default="0"))
        table.add_column(sa.Column(
            "topic_state", sa.Text(),
            sa.CheckConstraint("topic_state IN ('closed', 'gone')"),
        ))
    for name, columns, where, unique in (
        ("sessions_open_group", ["chat_id", "thread"], _OPEN_GROUP, True),
        ("sessions_finished", ["chat_id", "updated"], _HISTORY, False),
    ):
        op.drop_index(name, table_name="sessions")
        clause = sa.text(where)
        op.create_index(name, "sessions", columns, unique=unique,
                        sqlite_where=clause, postgresql_where=clause)
