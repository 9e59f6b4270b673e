"""The workers' heartbeats: a worker silent for a few seconds died, and the others
draw what it had in hand at once.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"

_REAL: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
_LITE = {"sqlite_with_rowid": False}


def upgrade() -> None:
    """The table ``workers``: each worker's id and its last beat."""
    op.create_table(
        "workers",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("beat", _REAL, nullable=False),
        **_LITE,
    )

