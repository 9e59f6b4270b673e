"""Who booked each key's latest send slot, and when it opens: a worker found dead
gives back the slot it booked and never used.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"

_REAL: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")


def upgrade() -> None:
    """The columns ``owner`` (the worker) and ``slot`` (when it opens) of the latest
    booking in ``send_slots``; none for the rows booked before."""
    with op.batch_alter_table("send_slots") as table:
        table.add_column(sa.Column("owner", sa.Text()))
        table.add_column(sa.Column("slot", _REAL))
